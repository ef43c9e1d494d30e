"""Perfect play for small games from solvedb's precomputed tables.

solvedb answers any position of the games :func:`solvedb.games` lists
(tic-tac-toe 3x3 and 4x4, 3x3x3 tic-tac-toe ``cube``, 4x4x4 ``qubic``,
dots-and-boxes ``dots:MxN``) exactly: its value for the side to move and the
value of every move, best first, from a table where one covers it and by
exact live search where none does.

>>> import solvedb
>>> [g.name for g in solvedb.games()][:3]
['tictactoe', 'tictactoe:4x4', 'cube']

>>> import solvedb
>>> oracle = solvedb.Oracle()  # the default tables, inside the package
>>> report = oracle.moves("tictactoe", "XX./OO./...")
>>> (report.result, report.plies, report.moves[0].move)
('win', 1, '2')
>>> oracle.probe("dots:2x2", "2x2:h0,0 v1,2").source
'table'

Batches answer in numpy arrays, without a Python object per position
(``Oracle.probe_arrays``: positions as strings, or as integer codes);
:mod:`solvedb.datasets` loads every position of a table with its values
and board planes, for learning programs.

>>> import numpy as np
>>> batch = oracle.probe_arrays("tictactoe", ["X........", "XX./OO./..."])
>>> batch.value.tolist(), batch.plies.tolist(), batch.move_value.shape
([0, 1], [8, 1], (2, 9))
>>> codes = np.array([[0b11, 0b11000]], dtype=np.uint64)  # X on 0, 1; O on 3, 4
>>> oracle.probe_arrays("tictactoe", codes).legal[0].tolist()
[False, False, True, False, False, True, True, True, True]

Values are always from the side to move: ``result`` (``"win"``, ``"draw"``,
``"loss"``) and ``plies`` to the end of the game for the tic-tac-toe family,
``value`` (the net number of the still unclaimed boxes the side to move wins)
for dots-and-boxes. A move's value is the mover's, counted from before the
move. Errors are subclasses of :class:`solvedb.Error`.

:mod:`solvedb.openspiel` plays and evaluates OpenSpiel's ``tic_tac_toe`` and
``dots_and_boxes`` states with it.
"""

from ._solvedb import (
    Arrays,
    BudgetExhausted,
    Error,
    Game,
    IoError,
    Mainline,
    MoveReport,
    Oracle,
    PositionError,
    Report,
    TableError,
    UnsupportedGame,
    games,
    notation,
)
from . import datasets

__all__ = [
    "Arrays",
    "BudgetExhausted",
    "Error",
    "Game",
    "IoError",
    "Mainline",
    "MoveReport",
    "Oracle",
    "PositionError",
    "Report",
    "TableError",
    "UnsupportedGame",
    "datasets",
    "games",
    "notation",
]
