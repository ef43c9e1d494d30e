"""Labelled datasets from solvedb's tables, for learning programs.

Every position a table holds, with its exact value and every move's value,
as numpy arrays next to features a learner can use directly: board planes
and the side to move. The default tables are inside the package, so

>>> import solvedb
>>> data = solvedb.datasets.load("tictactoe")
>>> len(data), data.planes.shape, data.move_value.shape
(765, (765, 2, 3, 3), (765, 9))
>>> int(data.value[0]), int(data.plies[0])  # the empty board: a draw in 9
(0, 9)

needs no other step. ``solvedb export GAME`` writes the same rows as
Parquet or CSV (``docs/datasets.md`` is the dataset card: columns, value
convention, counts, class balance); :func:`read_parquet` loads such a file,
for instance of ``dots:3x4``, whose table is built on request.

Values are from the side to move; a move's value is its mover's, counted
from before the move. ``value`` is 1/0/-1 (win, draw, loss) in the
tic-tac-toe family and the net number of still unclaimed boxes in
dots-and-boxes; ``result`` is its sign; ``plies`` the plies to the end
under perfect play (dots: the undrawn edges). Per-move arrays have one
column per cell or edge (OpenSpiel's action ids), zero where ``legal`` is
false.
"""

from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np

from ._solvedb import Oracle, games, notation

__all__ = ["Dataset", "load", "planes", "read_parquet"]


def _info(game: str):
    for g in games():
        if g.name == game:
            return g
    # Any dots:MxN is a game even when the catalogue does not list it.
    if game.startswith("dots:"):
        return None
    raise ValueError(f"unknown game {game!r}: one of {[g.name for g in games()]}")


def _cells(game: str, code: np.ndarray) -> int:
    info = _info(game)
    if info is not None:
        return info.moves
    rows, cols = (int(s) for s in game.split(":")[1].split("x"))
    return (rows + 1) * cols + rows * (cols + 1)


def planes(game: str, code: np.ndarray) -> np.ndarray:
    """Board planes from codes (``(n, 2)`` uint64, as ``Arrays.code``):
    ``(n, 2, *shape)`` uint8 for the tic-tac-toe family (plane 0 X's stones,
    plane 1 O's, cells laid out as the board: rows, or layers of rows);
    ``(n, edges)`` uint8 of drawn edges for dots-and-boxes.

    >>> import numpy as np
    >>> planes("tictactoe", np.array([[1, 16]], dtype=np.uint64))[0].tolist()
    [[[1, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]]
    """
    code = np.asarray(code, dtype=np.uint64).reshape(-1, 2)
    cells = _cells(game, code)
    bits = np.arange(cells, dtype=np.uint64)
    if game.startswith("dots:"):
        return ((code[:, 0, None] >> bits) & np.uint64(1)).astype(np.uint8)
    stones = (code[:, :, None] >> bits) & np.uint64(1)
    return stones.astype(np.uint8).reshape((len(code), 2) + tuple(_info(game).shape))


@dataclass(frozen=True)
class Dataset:
    """Rows of one game: features (``code``, ``planes``, ``to_move``) and
    labels (``value``, ``result``, ``plies`` and per move ``move_value``,
    ``move_result``, ``move_plies``, ``legal``), one row per position."""

    game: str
    code: np.ndarray
    """``(n, 2)`` uint64: X's and O's stones as cell masks, or the drawn
    edges and 0 (dots)."""
    planes: np.ndarray
    """See :func:`planes`."""
    to_move: Optional[np.ndarray]
    """``(n,)`` uint8: 0 when X (the first player) is to move, 1 for O;
    None for dots-and-boxes, whose values do not depend on it."""
    stored: np.ndarray
    """``(n,)`` bool: the table holds an entry of the position's own (false
    for a dots-and-boxes free capture, resolved exactly by rule)."""
    value: np.ndarray
    result: np.ndarray
    plies: np.ndarray
    move_value: np.ndarray
    move_result: np.ndarray
    move_plies: np.ndarray
    legal: np.ndarray

    def __len__(self) -> int:
        return len(self.code)

    def positions(self) -> List[str]:
        """Each row's position in solvedb's notation."""
        return notation(self.game, self.code)

    def frame(self) -> Any:
        """The rows as a pandas DataFrame, with the columns of ``solvedb
        export`` (move columns empty, ``<NA>``, where a move is not legal).
        Needs pandas (``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Dataset.frame() needs pandas: pip install pandas") from e
        dots = self.to_move is None
        data = {"position": self.positions()}
        if dots:
            data["edges"] = self.code[:, 0]
        else:
            data["x"], data["o"] = self.code[:, 0], self.code[:, 1]
        data["ply"] = self.planes.reshape(len(self), -1).sum(axis=1).astype(np.uint8)
        if not dots:
            data["to_move"] = np.where(self.to_move == 0, "X", "O")
        data["stored"] = self.stored
        if dots:
            data["value"] = self.value
        else:
            data["result"], data["plies"] = self.result, self.plies
        missing = ~self.legal
        for i in range(self.legal.shape[1]):
            if dots:
                data[f"m{i}_value"] = pd.arrays.IntegerArray(self.move_value[:, i], missing[:, i])
            else:
                data[f"m{i}_result"] = pd.arrays.IntegerArray(self.move_result[:, i], missing[:, i])
                data[f"m{i}_plies"] = pd.arrays.IntegerArray(self.move_plies[:, i], missing[:, i])
        return pd.DataFrame(data)


def _dataset(game: str, code, stored, value, result, plies, move_value, move_result, move_plies, legal) -> Dataset:
    code = np.asarray(code, dtype=np.uint64).reshape(-1, 2)
    to_move = None
    if not game.startswith("dots:"):
        stones = planes(game, code).reshape(len(code), -1).sum(axis=1)
        to_move = (stones % 2).astype(np.uint8)
    return Dataset(
        game=game,
        code=code,
        planes=planes(game, code),
        to_move=to_move,
        stored=np.asarray(stored, dtype=bool),
        value=np.asarray(value, dtype=np.int8),
        result=np.asarray(result, dtype=np.int8),
        plies=np.asarray(plies, dtype=np.uint8),
        move_value=np.asarray(move_value, dtype=np.int8),
        move_result=np.asarray(move_result, dtype=np.int8),
        move_plies=np.asarray(move_plies, dtype=np.uint8),
        legal=np.asarray(legal, dtype=bool),
    )


def load(
    game: str,
    *,
    all_symmetries: bool = False,
    sample: Optional[int] = None,
    seed: int = 0,
    oracle: Optional[Oracle] = None,
) -> Dataset:
    """Every position ``game``'s table holds (canonical, in the table's
    order; with ``all_symmetries`` every symmetric image too), with its
    values, computed from the package's tables (or ``oracle``'s). ``sample``
    keeps that many rows, uniformly at random by ``seed``, the rows ``solvedb
    export --sample N --seed S`` writes.

    >>> data = load("dots:2x2", sample=100, seed=1)
    >>> len(data), data.planes.shape, data.to_move is None
    (100, (100, 12), True)
    """
    oracle = oracle or _default_oracle()
    a = oracle.table_arrays(game, all_symmetries=all_symmetries, sample=sample, seed=seed)
    return _dataset(
        a.game, a.code, a.stored, a.value, a.result, a.plies,
        a.move_value, a.move_result, a.move_plies, a.legal,
    )


_ORACLE: List[Oracle] = []


def _default_oracle() -> Oracle:
    if not _ORACLE:
        _ORACLE.append(Oracle())
    return _ORACLE[0]


def read_parquet(path) -> Dataset:
    """A ``solvedb export`` Parquet file as a :class:`Dataset` (the game is
    in the file's metadata). Needs pyarrow (``pip install pyarrow``)."""
    try:
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError("read_parquet needs pyarrow: pip install pyarrow") from e
    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    game = meta.get(b"solvedb.game", b"").decode()
    if not game:
        raise ValueError(f"{path} is not a solvedb export (no solvedb.game in its metadata)")
    n = table.num_rows

    def column(name, dtype, fill=0):
        c = table.column(name)
        return c.to_numpy(zero_copy_only=False).astype(dtype) if c.null_count == 0 else \
            c.fill_null(fill).to_numpy().astype(dtype)

    names = table.column_names
    dots = game.startswith("dots:")
    if dots:
        code = np.stack([column("edges", np.uint64), np.zeros(n, np.uint64)], axis=1)
        value = column("value", np.int8)
        result = np.sign(value).astype(np.int8)
        moves = sorted(int(c[1:].split("_")[0]) for c in names if c.endswith("_value") and c.startswith("m"))
        move_value = np.stack([column(f"m{i}_value", np.int8) for i in moves], axis=1) if moves else np.zeros((n, 0), np.int8)
        legal = np.stack([~table.column(f"m{i}_value").is_null().to_numpy(zero_copy_only=False) for i in moves], axis=1)
        undrawn = (len(moves) - planes(game, code).sum(axis=1)).astype(np.uint8)
        plies = undrawn
        move_result = np.sign(move_value).astype(np.int8)
        move_plies = np.where(legal, undrawn[:, None], 0).astype(np.uint8)
    else:
        code = np.stack([column("x", np.uint64), column("o", np.uint64)], axis=1)
        result = column("result", np.int8)
        value = result
        plies = column("plies", np.uint8)
        moves = sorted(int(c[1:].split("_")[0]) for c in names if c.endswith("_result") and c.startswith("m"))
        move_result = np.stack([column(f"m{i}_result", np.int8) for i in moves], axis=1)
        move_plies = np.stack([column(f"m{i}_plies", np.uint8) for i in moves], axis=1)
        legal = np.stack([~table.column(f"m{i}_result").is_null().to_numpy(zero_copy_only=False) for i in moves], axis=1)
        move_value = move_result
    return _dataset(game, code, column("stored", bool), value, result, plies, move_value, move_result, move_plies, legal)
