"""Board features from integer codes: flat planes, spatial ``(C, H, W)``
planes and the canonical-class id. Only layouts live here; every rule (the
symmetries included) comes from the native module."""

from typing import Tuple

import numpy as np
import numpy.typing as npt

from ._solvedb import InputError, canonical_codes, games

Codes = npt.NDArray[np.uint64]


def is_dots(game: str) -> bool:
    return game.startswith("dots:")


def dots_shape(game: str) -> Tuple[int, int]:
    """Rows and columns of boxes of ``dots:MxN``."""
    rows, cols = (int(s) for s in game.split(":")[1].split("x"))
    return rows, cols


def board_shape(game: str) -> Tuple[int, ...]:
    """Cells along each side: ``(3, 3)``, ``(3, 3, 3)``; dots: boxes."""
    for g in games():
        if g.name == game:
            return tuple(g.shape)
    if is_dots(game):
        return dots_shape(game)
    raise InputError(f"game: {game!r} is not one of {[g.name for g in games()]}")


def move_slots(game: str) -> int:
    """Cells of the board, or edges of a dots board."""
    if is_dots(game):
        rows, cols = dots_shape(game)
        return (rows + 1) * cols + rows * (cols + 1)
    return int(np.prod(board_shape(game)))


def as_codes(code: npt.ArrayLike) -> Codes:
    """Codes as an ``(n, 2)`` uint64 array."""
    return np.asarray(code, dtype=np.uint64).reshape(-1, 2)


def bits(values: npt.NDArray[np.uint64], count: int) -> npt.NDArray[np.uint8]:
    """The low ``count`` bits of each value: shape ``values.shape + (count,)``."""
    shifts = np.arange(count, dtype=np.uint64)
    out: npt.NDArray[np.uint8] = ((values[..., None] >> shifts) & np.uint64(1)).astype(np.uint8)
    return out


def planes(game: str, code: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Board planes from codes (``(n, 2)`` uint64, as ``Arrays.code``):
    ``(n, 2, *shape)`` uint8 for the tic-tac-toe family (plane 0 X's stones,
    plane 1 O's, cells laid out as the board: rows, or layers of rows);
    ``(n, edges)`` uint8 of drawn edges for dots-and-boxes (see
    :func:`spatial` for a spatial layout).

    >>> import numpy as np
    >>> planes("tictactoe", np.array([[1, 16]], dtype=np.uint64))[0].tolist()
    [[[1, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]]
    """
    codes = as_codes(code)
    slots = move_slots(game)
    if is_dots(game):
        return bits(codes[:, 0], slots)
    return bits(codes, slots).reshape((len(codes), 2) + board_shape(game))


def spatial(game: str, code: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Spatial planes ``(n, C, H, W)`` uint8 for convolutional networks.

    - Tic-tac-toe 3x3 and 4x4: ``C = 2`` (X's stones, O's), the board's rows
      and columns.
    - The cube and Qubic: ``C = 2 * layers``: X's stones on each layer, then
      O's on each layer.
    - Dots-and-boxes ``MxN``: ``C = 2`` on the ``(M+1) x (N+1)`` lattice of
      dots: plane 0 the horizontal edge from dot ``(r, c)`` to ``(r, c+1)``,
      plane 1 the vertical edge from ``(r, c)`` to ``(r+1, c)``; zero where
      no such edge exists (last column of plane 0, last row of plane 1).

    >>> import numpy as np
    >>> spatial("dots:1x1", np.array([[0b0101, 0]], dtype=np.uint64))[0].tolist()
    [[[1, 0], [0, 0]], [[1, 0], [0, 0]]]
    """
    codes = as_codes(code)
    n = len(codes)
    if not is_dots(game):
        flat = planes(game, codes)
        shape = board_shape(game)
        return flat.reshape((n, -1) + shape[-2:])
    rows, cols = dots_shape(game)
    drawn = planes(game, codes)
    out = np.zeros((n, 2, rows + 1, cols + 1), dtype=np.uint8)
    horizontal = (rows + 1) * cols
    out[:, 0, :, :cols] = drawn[:, :horizontal].reshape(n, rows + 1, cols)
    out[:, 1, :rows, :] = drawn[:, horizontal:].reshape(n, rows, cols + 1)
    return out


def canonical_id(game: str, code: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Each position's canonical class as one integer: the code of its
    canonical image (the one of its symmetric images the tables store),
    X's cells in the low bits and O's above them (dots: the drawn edges).
    Symmetric images share it, so it is the key of a leak-free split.

    >>> import numpy as np
    >>> a = np.array([[1, 0], [4, 0], [2, 0]], dtype=np.uint64)  # X on a corner, a corner, an edge
    >>> ids = canonical_id("tictactoe", a)
    >>> bool(ids[0] == ids[1]), bool(ids[0] == ids[2])
    (True, False)
    """
    canonical = np.asarray(canonical_codes(game, as_codes(code)), dtype=np.uint64)
    ids: npt.NDArray[np.uint64]
    if is_dots(game):
        ids = canonical[:, 0].copy()
        return ids
    cells = move_slots(game)
    if 2 * cells > 64:
        raise InputError(f"game: {game}'s codes ({cells} cells a side) do not fit one integer")
    ids = canonical[:, 0] | (canonical[:, 1] << np.uint64(cells))
    return ids
