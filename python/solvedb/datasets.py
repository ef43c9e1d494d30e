"""Labelled datasets from solvedb's tables, for learning programs.

Every position a table holds, with its exact value and every move's value,
as numpy arrays next to features a learner can use directly: board planes
(flat, or spatial ``(C, H, W)``), the side to move, the canonical class,
and policy targets. The built-in tables are inside the package, so

>>> import solvedb
>>> data = solvedb.datasets.load("tictactoe")
>>> len(data), data.planes.shape, data.spatial.shape, data.move_value.shape
(765, (765, 2, 3, 3), (765, 2, 3, 3), (765, 9))
>>> int(data.value[0]), int(data.plies[0])  # the empty board: a draw in 9
(0, 9)
>>> data.best_moves[0].tolist()  # every first move keeps the draw
[True, True, True, True, True, True, True, True, True]

needs no other step. A split keeps each canonical class (a position and all
its symmetric images) on one side:

>>> splits = solvedb.datasets.load("tictactoe", all_symmetries=True).split(seed=0)
>>> len(splits.train) + len(splits.validation) + len(splits.test)
5478
>>> set(splits.train.canonical_id.tolist()) & set(splits.test.canonical_id.tolist())
set()

``solvedb export GAME`` writes the same rows as Parquet or CSV
(``docs/datasets.md`` is the dataset card: columns, value convention,
counts, class balance); :func:`read_parquet` loads such a file, for
instance of ``dots:3x4``, whose table is built on request;
:mod:`solvedb.huggingface` gives the rows as a Hugging Face ``datasets``
dataset.

Values are from the side to move; a move's value is its mover's, counted
from before the move. ``value`` is 1/0/-1 (win, draw, loss) in the
tic-tac-toe family and the net number of still unclaimed boxes in
dots-and-boxes; ``result`` is its sign; ``plies`` the plies to the end
under perfect play (dots: the undrawn edges). Per-move arrays have one
column per cell or edge (OpenSpiel's action ids), zero where ``legal`` is
false.
"""

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._boards import canonical_id, is_dots, planes, spatial
from ._solvedb import InputError, Oracle, notation

__all__ = ["Dataset", "Splits", "load", "planes", "read_parquet", "spatial", "split_sides"]

Index = Union[int, slice, Sequence[int], npt.NDArray[Any]]


@dataclass(frozen=True)
class Dataset:
    """Rows of one game: features (``code``, ``planes``, ``spatial``,
    ``to_move``, ``canonical_id``) and labels (``value``, ``result``,
    ``plies`` and per move ``move_value``, ``move_result``, ``move_plies``,
    ``legal``; :attr:`best_moves`, :attr:`policy`), one row per position.

    ``data[i]`` is one row as a dict; ``data[a:b]``, an index array or a
    boolean mask give a ``Dataset`` of those rows.

    >>> data = load("dots:2x2")
    >>> part = data[10:20]
    >>> len(part), part.spatial.shape, int(part[0]["value"]) == int(data[10]["value"])
    (10, (10, 2, 3, 3), True)
    """

    game: str
    code: npt.NDArray[np.uint64]
    """``(n, 2)`` uint64: X's and O's stones as cell masks, or the drawn
    edges and 0 (dots)."""
    canonical_id: npt.NDArray[np.uint64]
    """``(n,)`` uint64: the row's canonical class (see
    :func:`solvedb._boards.canonical_id`): equal for symmetric images."""
    to_move: Optional[npt.NDArray[np.uint8]]
    """``(n,)`` uint8: 0 when X (the first player) is to move, 1 for O;
    None for dots-and-boxes, whose values do not depend on it."""
    stored: npt.NDArray[np.bool_]
    """``(n,)`` bool: the table holds an entry of the position's own (false
    for a dots-and-boxes free capture, resolved exactly by rule)."""
    value: npt.NDArray[np.int8]
    result: npt.NDArray[np.int8]
    plies: npt.NDArray[np.uint8]
    move_value: npt.NDArray[np.int8]
    move_result: npt.NDArray[np.int8]
    move_plies: npt.NDArray[np.uint8]
    legal: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.code)

    @property
    def planes(self) -> npt.NDArray[np.uint8]:
        """See :func:`planes` (computed on each access)."""
        return planes(self.game, self.code)

    @property
    def spatial(self) -> npt.NDArray[np.uint8]:
        """``(n, C, H, W)``: see :func:`spatial` (computed on each access)."""
        return spatial(self.game, self.code)

    @property
    def best_moves(self) -> npt.NDArray[np.bool_]:
        """``(n, move_slots)`` bool: the moves that keep the position's
        value (a move's value equals it); none in a finished game."""
        best: npt.NDArray[np.bool_] = self.legal & (self.move_value == self.value[:, None])
        return best

    @property
    def policy(self) -> npt.NDArray[np.float32]:
        """``(n, move_slots)`` float32: uniform over :attr:`best_moves`
        (a policy target); all zero in a finished game."""
        best = self.best_moves.astype(np.float32)
        count = best.sum(axis=1, keepdims=True)
        policy: npt.NDArray[np.float32] = np.divide(best, count, out=np.zeros_like(best), where=count > 0)
        return policy

    def _columns(self) -> Dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "game"}

    def __getitem__(self, index: Index) -> Any:
        if isinstance(index, (int, np.integer)):
            i = int(index)
            if not -len(self) <= i < len(self):
                raise InputError(f"index: {i} is out of range for {len(self)} rows")
            return {name: (None if column is None else column[i]) for name, column in self._columns().items()}
        rows = index if isinstance(index, slice) else np.asarray(index)
        if isinstance(rows, np.ndarray) and rows.dtype.kind not in "iub":
            raise InputError(f"index: an int, a slice, an integer array or a boolean mask, not {rows.dtype}")
        columns: Dict[str, Any] = {
            name: (None if column is None else column[rows]) for name, column in self._columns().items()
        }
        return dataclasses.replace(self, **columns)

    def split(
        self, seed: int = 0, fractions: Tuple[float, float, float] = (0.8, 0.1, 0.1)
    ) -> "Splits":
        """Train, validation and test datasets by canonical class: the
        classes (``canonical_id``) are shuffled by ``seed`` (numpy's
        ``default_rng``) and dealt out by ``fractions`` of the classes, and
        each row goes where its class went, so no position has a symmetric
        image on another side. The same seed gives the same split."""
        row_side = split_sides(self.canonical_id, seed, fractions)
        return Splits(
            train=self[row_side == 0],
            validation=self[row_side == 1],
            test=self[row_side == 2],
        )

    def positions(self) -> List[str]:
        """Each row's position in solvedb's notation."""
        return notation(self.game, self.code)

    def to_torch(self) -> Dict[str, Any]:
        """The rows as PyTorch tensors, a dict by column name (without
        copying where the dtype allows): the columns, ``planes`` and
        ``spatial`` as float32, ``best_moves`` and ``policy``; ``code``
        and ``canonical_id`` as int64 (every code fits). Needs torch
        (``pip install torch``)."""
        try:
            import torch
        except ImportError as e:
            raise ImportError("Dataset.to_torch() needs torch: pip install torch") from e
        out: Dict[str, Any] = {}
        for name, column in self._columns().items():
            if column is None:
                continue
            if column.dtype == np.uint64:
                column = column.astype(np.int64)
            out[name] = torch.from_numpy(np.ascontiguousarray(column))
        out["planes"] = torch.from_numpy(self.planes.astype(np.float32))
        out["spatial"] = torch.from_numpy(self.spatial.astype(np.float32))
        out["best_moves"] = torch.from_numpy(self.best_moves)
        out["policy"] = torch.from_numpy(self.policy)
        return out

    def frame(self) -> Any:
        """The rows as a pandas DataFrame, with the columns of ``solvedb
        export`` (move columns empty, ``<NA>``, where a move is not legal).
        Needs pandas (``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Dataset.frame() needs pandas: pip install pandas") from e
        dots = self.to_move is None
        data: Dict[str, Any] = {"position": self.positions()}
        if dots:
            data["edges"] = self.code[:, 0]
        else:
            data["x"], data["o"] = self.code[:, 0], self.code[:, 1]
        data["ply"] = self.planes.reshape(len(self), -1).sum(axis=1).astype(np.uint8)
        if self.to_move is not None:
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


def split_sides(
    canonical_id: npt.NDArray[np.uint64],
    seed: int = 0,
    fractions: Tuple[float, float, float] = (0.8, 0.1, 0.1),
) -> npt.NDArray[np.int8]:
    """Each row's side, 0 train, 1 validation, 2 test, by its class: the
    distinct ``canonical_id`` values are shuffled by ``seed`` (numpy's
    ``default_rng(seed).permutation``) and dealt out in order, the first
    ``round(fractions[0] * classes)`` to train, up to
    ``round((fractions[0] + fractions[1]) * classes)`` to validation, the
    rest to test (:meth:`Dataset.split`)."""
    if len(fractions) != 3 or min(fractions) < 0 or not np.isclose(sum(fractions), 1.0):
        raise InputError(f"fractions: three shares of 0 or more summing to 1, not {fractions}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed: an int, 0 or more, not {seed!r}")
    classes, inverse = np.unique(canonical_id, return_inverse=True)
    order = np.random.default_rng(int(seed)).permutation(len(classes))
    cuts = np.round(np.cumsum(fractions)[:2] * len(classes)).astype(np.int64)
    side = np.empty(len(classes), dtype=np.int8)
    side[order[: cuts[0]]] = 0
    side[order[cuts[0] : cuts[1]]] = 1
    side[order[cuts[1] :]] = 2
    return side[inverse.reshape(-1)]


@dataclass(frozen=True)
class Splits:
    """The three sides of :meth:`Dataset.split`, each a :class:`Dataset`."""

    train: Dataset
    validation: Dataset
    test: Dataset

    def items(self) -> List[Tuple[str, Dataset]]:
        """``[("train", ...), ("validation", ...), ("test", ...)]``."""
        return [("train", self.train), ("validation", self.validation), ("test", self.test)]


def _dataset(
    game: str,
    code: npt.ArrayLike,
    stored: npt.ArrayLike,
    value: npt.ArrayLike,
    result: npt.ArrayLike,
    plies: npt.ArrayLike,
    move_value: npt.ArrayLike,
    move_result: npt.ArrayLike,
    move_plies: npt.ArrayLike,
    legal: npt.ArrayLike,
) -> Dataset:
    codes = np.asarray(code, dtype=np.uint64).reshape(-1, 2)
    to_move = None
    if not is_dots(game):
        stones = planes(game, codes).reshape(len(codes), -1).sum(axis=1)
        to_move = (stones % 2).astype(np.uint8)
    return Dataset(
        game=game,
        code=codes,
        canonical_id=canonical_id(game, codes),
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
    values, computed from the built-in tables (or ``oracle``'s). ``sample``
    (1 or more) keeps that many rows, uniformly at random by ``seed``, the
    rows ``solvedb export --sample N --seed S`` writes.

    >>> data = load("dots:2x2", sample=100, seed=1)
    >>> len(data), data.planes.shape, data.spatial.shape, data.to_move is None
    (100, (100, 12), (100, 2, 3, 3), True)
    """
    from . import default_oracle

    oracle = oracle or default_oracle()
    a = oracle.table_arrays(game, all_symmetries=all_symmetries, sample=sample, seed=seed)
    return _dataset(
        a.game, a.code, a.stored, a.value, a.result, a.plies,
        a.move_value, a.move_result, a.move_plies, a.legal,
    )


def read_parquet(path: Union[str, "os.PathLike[str]"]) -> Dataset:
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
        raise InputError(f"path: {path} is not a solvedb export (no solvedb.game in its metadata)")
    n = table.num_rows

    def column(name: str, dtype: Any, fill: int = 0) -> Any:
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
