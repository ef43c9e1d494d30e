"""Typing stubs for the native module solvedb._solvedb (re-exported by solvedb)."""

from os import PathLike
from pathlib import Path
from typing import Iterable, List, Optional, Tuple, Union, final

import numpy as np
import numpy.typing as npt

class Error(Exception):
    """The base class of every error solvedb raises."""

class PositionError(Error):
    """A position or move that is malformed or could not arise in play."""

class TableError(Error):
    """A table file that is damaged, foreign or newer than this build."""

class UnsupportedGame(Error):
    """A game name or board this build does not answer."""

class BudgetExhausted(Error):
    """A live search ran out of its node or time budget: the answer is unknown."""

class IoError(Error):
    """A table file or the tables directory cannot be read."""

@final
class Game:
    """One game of solvedb's catalogue."""

    @property
    def name(self) -> str:
        """The name every call takes: ``"tictactoe"``, ``"dots:2x3"``."""
    @property
    def title(self) -> str:
        """The name people read: ``"tic-tac-toe 3×3"``."""
    @property
    def board(self) -> str:
        """``"grid"``, ``"layers"`` or ``"dots"``."""
    @property
    def shape(self) -> Tuple[int, ...]:
        """Cells along each side (grid, layers), or rows and columns of boxes (dots)."""
    @property
    def moves(self) -> int:
        """Moves of the empty board: cells, or edges on dots."""
    @property
    def start(self) -> str:
        """The start position in solvedb's notation."""
    @property
    def table(self) -> str:
        """``"default"`` (shipped), ``"on request"`` (built by ``solvedb build``) or ``"unavailable"``."""

def games() -> List[Game]:
    """Every game solvedb answers by name, in its catalogue's order."""

def notation(game: str, codes: npt.ArrayLike) -> List[str]:
    """The notation of each integer code (see :meth:`Oracle.probe_arrays`)."""

@final
class Arrays:
    """Answers about many positions in numpy arrays, one row per position.

    Values are from the side to move, a move's from its mover counted from
    before the move. Per-move arrays have ``move_slots`` columns, one per
    cell or edge (OpenSpiel's action ids), zero where ``legal`` is false.

    >>> a = Oracle().probe_arrays("dots:2x2", ["2x2:h0,0 v1,2"])
    >>> a.value.tolist(), a.move_value.shape, int(a.legal.sum())
    ([-1], (1, 12), 10)
    """

    @property
    def game(self) -> str: ...
    @property
    def move_slots(self) -> int:
        """Cells of the board, or its edges."""
    @property
    def code(self) -> npt.NDArray[np.uint64]:
        """``(n, 2)``: X's and O's stones as cell masks; dots: drawn edges and 0."""
    @property
    def stored(self) -> npt.NDArray[np.bool_]:
        """``(n,)``: the table holds an entry of the position's own."""
    @property
    def value(self) -> npt.NDArray[np.int8]:
        """``(n,)``: 1/0/-1 win/draw/loss; dots: net still unclaimed boxes."""
    @property
    def result(self) -> npt.NDArray[np.int8]:
        """``(n,)``: the sign of ``value``."""
    @property
    def plies(self) -> npt.NDArray[np.uint8]:
        """``(n,)``: plies to the end under perfect play (dots: undrawn edges)."""
    @property
    def move_value(self) -> npt.NDArray[np.int8]:
        """``(n, move_slots)``: each move's value for its mover."""
    @property
    def move_result(self) -> npt.NDArray[np.int8]:
        """``(n, move_slots)``: each move's result class."""
    @property
    def move_plies(self) -> npt.NDArray[np.uint8]:
        """``(n, move_slots)``: each move's plies to the end."""
    @property
    def legal(self) -> npt.NDArray[np.bool_]:
        """``(n, move_slots)``: the legal moves."""
    def __len__(self) -> int: ...

@final
class MoveReport:
    """One move and its value for the player who makes it, from before the move."""

    @property
    def move(self) -> str:
        """The move in solvedb's notation: a cell ``"4"``, an edge ``"h0,1"``."""
    @property
    def result(self) -> Optional[str]:
        """``"win"``, ``"draw"`` or ``"loss"`` for the mover; None for dots."""
    @property
    def plies(self) -> Optional[int]:
        """Plies to the end of the game from before the move; None for dots."""
    @property
    def plies_bound(self) -> Optional[str]:
        """``"exact"``, or ``"at_most"`` where ``plies`` is an upper bound (Qubic's strategy); None for dots."""
    @property
    def value(self) -> Optional[int]:
        """Dots: net still unclaimed boxes the mover wins; None otherwise."""

@final
class Report:
    """The answer about one position, from the side to move.

    >>> r = Oracle("tables").moves("tictactoe", "XX./OO./...")
    >>> r.result, r.plies, r.source, r.moves[0].move
    ('win', 1, 'table', '2')
    """

    @property
    def game(self) -> str:
        """``tictactoe``, ``tictactoe:4x4``, ``cube`` or ``dots:MxN``."""
    @property
    def position(self) -> str:
        """The position in solvedb's notation (normalised)."""
    @property
    def to_move(self) -> Optional[str]:
        """``"X"`` or ``"O"``; None for dots-and-boxes."""
    @property
    def result(self) -> Optional[str]:
        """``"win"``, ``"draw"`` or ``"loss"``; None for dots-and-boxes."""
    @property
    def plies(self) -> Optional[int]:
        """Plies to the end under perfect play; None for dots-and-boxes."""
    @property
    def plies_bound(self) -> Optional[str]:
        """``"exact"``, or ``"at_most"`` where ``plies`` is an upper bound (Qubic's strategy); None for dots."""
    @property
    def value(self) -> Optional[int]:
        """Dots: net still unclaimed boxes the side to move wins; None otherwise."""
    @property
    def source(self) -> str:
        """``"table"``, ``"forced"`` or ``"search"``."""
    @property
    def moves(self) -> Tuple[MoveReport, ...]:
        """Every legal move, best first; empty from ``probe``."""
    def to_json(self) -> str:
        """One line of JSON in the shape of ``solvedb probe --json``."""

@final
class Mainline:
    """The best line from a position to the end of the game."""

    @property
    def position(self) -> str: ...
    @property
    def result(self) -> Optional[str]: ...
    @property
    def plies(self) -> Optional[int]: ...
    @property
    def plies_bound(self) -> Optional[str]: ...
    @property
    def value(self) -> Optional[int]: ...
    @property
    def source(self) -> str: ...
    @property
    def moves(self) -> Tuple[str, ...]:
        """The moves of the line, in order, in solvedb's notation."""
    @property
    def last(self) -> str:
        """The position at the end of the line (the game is over there)."""

@final
class Oracle:
    """Perfect-play answers from solvedb tables: the default tables inside
    the package, or a directory's (which then are the only ones).

    Tables open on first use; a game without a table is searched exactly,
    within ``max_nodes`` positions and ``max_seconds`` seconds (past them:
    :class:`BudgetExhausted`). One Oracle may be shared by threads: the GIL
    is released while it works.

    >>> oracle = Oracle()
    >>> oracle.best_move("tictactoe", "X../.O./...").result
    'draw'
    """

    def __init__(
        self,
        tables_dir: Union[str, "PathLike[str]", None] = None,
        *,
        max_nodes: Optional[int] = None,
        max_seconds: Optional[float] = None,
    ) -> None: ...
    @property
    def tables_dir(self) -> Optional[Path]:
        """The tables directory; None for the tables inside the package."""
    def probe(self, game: str, position: str) -> Report:
        """The value of a position (``moves`` is empty)."""
    def moves(self, game: str, position: str) -> Report:
        """The value of a position and of every move, best first."""
    def best_move(self, game: str, position: str) -> Optional[MoveReport]:
        """The best move, None when the game is over."""
    def mainline(self, game: str, position: str) -> Mainline:
        """The best line to the end of the game."""
    def probe_many(
        self, game: str, positions: Iterable[str], *, moves: bool = False
    ) -> list[Report]:
        """Many positions at once (a list, or a numpy array of strings), in order."""
    def probe_arrays(
        self,
        game: str,
        positions: Union[Iterable[str], npt.NDArray[np.integer]],
        *,
        moves: bool = True,
    ) -> Arrays:
        """Many positions at once, answered in numpy arrays, the GIL released.

        ``positions``: strings in solvedb's notation, or integer codes, shape
        ``(n, 2)`` (X's and O's stones, bit ``i`` for cell ``i``) or for dots
        ``(n,)`` (drawn edges, bit ``i`` for edge ``i``). Without ``moves``
        the move arrays have no columns.
        """
    def table_arrays(
        self,
        game: str,
        *,
        all_symmetries: bool = False,
        sample: Optional[int] = None,
        seed: int = 0,
    ) -> Arrays:
        """Every position the game's table holds, with its values (see
        :func:`solvedb.datasets.load`)."""
