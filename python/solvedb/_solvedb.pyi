"""Typing stubs for the native module solvedb._solvedb (re-exported by solvedb)."""

from os import PathLike
from pathlib import Path
from typing import Iterable, List, Literal, Optional, Tuple, Union, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "__version__",
    "DEFAULT_MAX_NODES",
    "games",
    "notation",
    "canonical_codes",
    "legal_moves",
    "play",
    "outcome",
    "Arrays",
    "Game",
    "Oracle",
    "Report",
    "MoveReport",
    "Mainline",
    "RowError",
    "Error",
    "PositionError",
    "TableError",
    "UnsupportedGame",
    "BudgetExhausted",
    "IoError",
    "InputError",
]

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

class InputError(Error):
    """An argument of the wrong type, shape or range; the message names it."""

__version__: str
DEFAULT_MAX_NODES: int

@final
class RowError:
    """A row of a batch without an answer: its index, its status and the
    error it raised (a :class:`Error` whose message starts ``positions[i]:``).

    >>> rows = Oracle().probe_many("tictactoe", ["X........", "XXXX....."])
    >>> rows[1].index, rows[1].status, type(rows[1].error).__name__
    (1, 'bad input', 'PositionError')
    """

    @property
    def index(self) -> int:
        """The row's index in the batch."""
    @property
    def status(self) -> str:
        """``"unknown"`` (a search out of its budget) or ``"bad input"``."""
    @property
    def error(self) -> Error:
        """The exception; ``raise row.error`` raises it."""

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
        """``"default"`` (built into the package), ``"on request"`` (built by ``solvedb build``) or ``"unavailable"``."""

def games() -> List[Game]:
    """Every game solvedb answers by name, in its catalogue's order.

    >>> [(g.name, g.table) for g in games() if g.name in ("qubic", "dots:4x4")]
    [('qubic', 'default'), ('dots:4x4', 'on request')]
    """

def notation(game: str, codes: npt.ArrayLike) -> List[str]:
    """The notation of each integer code (see :meth:`Oracle.probe_arrays`).

    >>> import numpy as np
    >>> notation("tictactoe", np.array([[1, 16]], dtype=np.uint64))
    ['X../.O./...']
    """

def canonical_codes(game: str, codes: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """``(n, 2)``: the code of each position's canonical image (equal for
    symmetric images)."""

def legal_moves(game: str, code: Tuple[int, int]) -> List[int]:
    """The legal move indices of a position given by its code, ascending;
    empty when the game is over.

    >>> legal_moves("tictactoe", (1, 16))
    [1, 2, 3, 5, 6, 7, 8]
    """

def play(game: str, code: Tuple[int, int], index: int) -> Tuple[Tuple[int, int], bool, int]:
    """The move ``index`` played: the new code, whether the mover moves
    again (dots: it completed a box) and the boxes the move completed.

    >>> play("dots:1x1", (0b0111, 0), 3)
    ((15, 0), True, 1)
    """

def outcome(game: str, code: Tuple[int, int]) -> Optional[int]:
    """None while moves remain; at the end -1 if the side that would move
    lost, else 0 (dots: always 0).

    >>> outcome("tictactoe", (0b111, 0b11000)), outcome("tictactoe", (0, 0))
    (-1, None)
    """

@final
class Arrays:
    """Answers about many positions in numpy arrays, one row per position.

    Values are from the side to move, a move's from its mover counted from
    before the move. Per-move arrays have ``move_slots`` columns, one per
    cell or edge (OpenSpiel's action ids), zero where ``legal`` is false.

    >>> a = Oracle().probe_arrays("dots:2x2", ["2x2:h0,0 v1,2"])
    >>> a.value.tolist(), a.move_value.shape, int(a.legal.sum()), a.status.tolist()
    ([2], (1, 12), 10, [0])
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
    @property
    def status(self) -> npt.NDArray[np.uint8]:
        """``(n,)``: 0 known, 1 unknown (a search out of its budget), 2 bad input; other arrays are zero where not 0."""
    @property
    def errors(self) -> Tuple[RowError, ...]:
        """The rows that are not known, in order."""
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

    >>> r = Oracle().moves("tictactoe", "XX./OO./...")
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
        """``"table"`` (built-in or directory), ``"forced"`` (the rules) or ``"search"`` (live search)."""
    @property
    def moves(self) -> Tuple[MoveReport, ...]:
        """Every legal move whose value is known, best first; empty from
        ``probe``. Every legal move except where a winning strategy
        (Qubic's table) covers the position and not all of its moves:

        >>> r = Oracle().moves("qubic", "." * 64)
        >>> len(r.moves), len(r.unknown), r.result
        (16, 48, 'win')
        """
    @property
    def unknown(self) -> Tuple[str, ...]:
        """The legal moves whose values are not known (Qubic's strategy); empty elsewhere."""
    @property
    def searched(self) -> Tuple[str, ...]:
        """The moves of ``moves`` Qubic's strategy leaves open and a live
        search valued within ``max_seconds``, in the game's order; empty
        where the table valued every move it answers."""
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
    """Perfect-play answers from solvedb tables: the built-in tables inside
    the package by default, or a tables directory's (which then are the
    only ones; a directory that does not exist is an :class:`IoError`).

    A game or position no table covers is answered by exact live search,
    within ``max_nodes`` positions (by default :data:`DEFAULT_MAX_NODES`,
    the CLI's budget; ``None`` lifts it) and ``max_seconds`` seconds; past
    them the answer is :class:`BudgetExhausted`, never a guess. With
    ``max_seconds``, a Qubic position the strategy answers has the moves it
    leaves open searched too, within that time together (``moves``; the
    rest stay in ``Report.unknown``). Ctrl-C
    interrupts a search (``KeyboardInterrupt``). One Oracle may be shared by
    threads: the GIL is released while it works.

    >>> oracle = Oracle()
    >>> oracle.best_move("tictactoe", "X../.O./...").result
    'draw'
    >>> oracle.max_nodes == DEFAULT_MAX_NODES, oracle.tables_dir
    (True, None)
    """

    def __new__(
        cls,
        tables_dir: Union[str, "PathLike[str]", None] = None,
        *,
        max_nodes: Optional[int] = ...,
        max_seconds: Optional[float] = None,
    ) -> "Oracle": ...
    @property
    def tables_dir(self) -> Optional[Path]:
        """The tables directory; None for the built-in tables."""
    @property
    def max_nodes(self) -> Optional[int]:
        """The node budget of every live search; None: none."""
    @property
    def max_seconds(self) -> Optional[float]:
        """The time budget of every live search, in seconds; None: none."""
    def probe(self, game: str, position: str) -> Report:
        """The value of a position (``moves`` is empty)."""
    def moves(self, game: str, position: str) -> Report:
        """The value of a position and of every move, best first."""
    def best_move(self, game: str, position: str) -> Optional[MoveReport]:
        """The best move, None when the game is over."""
    def mainline(self, game: str, position: str) -> Mainline:
        """The best line to the end of the game."""
    def probe_many(
        self,
        game: str,
        positions: Iterable[str],
        *,
        moves: bool = False,
        errors: Literal["row", "raise"] = "row",
    ) -> List[Union[Report, RowError]]:
        """Many positions at once (a list, or a numpy array of strings): one
        entry per row, in order, a :class:`Report` or a :class:`RowError`
        (with ``errors="raise"``, the first row's error is raised)."""
    def probe_arrays(
        self,
        game: str,
        positions: Union[Iterable[str], npt.NDArray[np.integer]],
        *,
        moves: bool = True,
        errors: Literal["row", "raise"] = "row",
    ) -> Arrays:
        """Many positions at once, answered in numpy arrays, the GIL released.

        ``positions``: strings in solvedb's notation, or integer codes, shape
        ``(n, 2)`` (X's and O's stones, bit ``i`` for cell ``i``) or for dots
        ``(n,)`` (drawn edges, bit ``i`` for edge ``i``). Without ``moves``
        the move arrays have no columns. Each row has a status
        (:attr:`Arrays.status`); with ``errors="raise"``, the first row
        without an answer raises.
        """
    def table_arrays(
        self,
        game: str,
        *,
        all_symmetries: bool = False,
        sample: Optional[int] = None,
        seed: int = 0,
        moves: bool = True,
    ) -> Arrays:
        """Every position the game's table holds, with its values (see
        :func:`solvedb.datasets.load`); ``sample`` keeps that many (1 or more);
        without ``moves`` the move arrays have no columns."""
