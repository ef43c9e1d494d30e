"""Perfect play for small games from solvedb's precomputed tables.

solvedb answers any position of the games :func:`solvedb.games` lists
(tic-tac-toe 3x3 and 4x4, 3x3x3 tic-tac-toe ``cube``, 4x4x4 ``qubic``,
dots-and-boxes ``dots:MxN``) exactly: its value for the side to move and the
value of every move, best first, from a table where one covers it and by
exact live search where none does. The tables of the games marked
``"default"`` are built into the package (:func:`default_oracle`); a live
search stops at the CLI's budget (:data:`DEFAULT_MAX_NODES` positions) with
:class:`BudgetExhausted`, and Ctrl-C interrupts it.

>>> import solvedb
>>> [g.name for g in solvedb.games()][:3]
['tictactoe', 'tictactoe:4x4', 'cube']

>>> oracle = solvedb.Oracle()  # the built-in tables
>>> report = oracle.moves("tictactoe", "XX./OO./...")
>>> (report.result, report.plies, report.moves[0].move, report.source)
('win', 1, '2', 'table')
>>> oracle.probe("dots:2x2", "2x2:h0,0 v1,2").source
'table'

Batches answer in numpy arrays, without a Python object per position
(``Oracle.probe_arrays``: positions as strings, or as integer codes), one
status per row; :mod:`solvedb.datasets` loads every position of a table
with its values, board planes and splits for learning programs, and
:mod:`solvedb.envs` plays the games as Gymnasium and PettingZoo
environments.

>>> import numpy as np
>>> batch = oracle.probe_arrays("tictactoe", ["X........", "XX./OO./...", "XXX/XXX/XXX"])
>>> batch.value.tolist(), batch.plies.tolist(), batch.status.tolist()
([0, 1, 0], [8, 1, 0], [0, 0, 2])
>>> batch.errors[0].index, type(batch.errors[0].error).__name__
(2, 'PositionError')
>>> codes = np.array([[0b11, 0b11000]], dtype=np.uint64)  # X on 0, 1; O on 3, 4
>>> oracle.probe_arrays("tictactoe", codes).legal[0].tolist()
[False, False, True, False, False, True, True, True, True]

Values are always from the side to move: ``result`` (``"win"``, ``"draw"``,
``"loss"``) and ``plies`` to the end of the game for the tic-tac-toe family,
``value`` (the net number of the still unclaimed boxes the side to move wins)
for dots-and-boxes. A move's value is the mover's, counted from before the
move. Errors are subclasses of :class:`solvedb.Error`; a wrong argument is
an :class:`InputError` naming it.

:mod:`solvedb.openspiel` plays and evaluates OpenSpiel's ``tic_tac_toe`` and
``dots_and_boxes`` states with it.
"""

from typing import Optional

from ._solvedb import (
    DEFAULT_MAX_NODES,
    Arrays,
    BudgetExhausted,
    Error,
    Game,
    InputError,
    IoError,
    Mainline,
    MoveReport,
    Oracle,
    PositionError,
    Report,
    RowError,
    TableError,
    UnsupportedGame,
    __version__,
    canonical_codes,
    games,
    legal_moves,
    notation,
    outcome,
    play,
)

_DEFAULT: Optional[Oracle] = None


def default_oracle() -> Oracle:
    """The oracle every helper uses when none is passed (datasets,
    environments, OpenSpiel): the built-in tables, with the default search
    budget; made once and shared.

    >>> default_oracle() is default_oracle(), default_oracle().tables_dir
    (True, None)
    """
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Oracle()
    return _DEFAULT


from . import datasets  # noqa: E402  (datasets uses default_oracle)

__all__ = [
    "DEFAULT_MAX_NODES",
    "Arrays",
    "BudgetExhausted",
    "Error",
    "Game",
    "InputError",
    "IoError",
    "Mainline",
    "MoveReport",
    "Oracle",
    "PositionError",
    "Report",
    "RowError",
    "TableError",
    "UnsupportedGame",
    "__version__",
    "canonical_codes",
    "datasets",
    "default_oracle",
    "games",
    "legal_moves",
    "notation",
    "outcome",
    "play",
]
