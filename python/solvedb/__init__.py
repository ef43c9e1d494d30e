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
>>> oracle = solvedb.Oracle("tables")
>>> report = oracle.moves("tictactoe", "XX./OO./...")
>>> (report.result, report.plies, report.moves[0].move)
('win', 1, '2')
>>> oracle.probe("dots:2x2", "2x2:h0,0 v1,2").source
'table'

Values are always from the side to move: ``result`` (``"win"``, ``"draw"``,
``"loss"``) and ``plies`` to the end of the game for the tic-tac-toe family,
``value`` (the net number of the still unclaimed boxes the side to move wins)
for dots-and-boxes. A move's value is the mover's, counted from before the
move. Errors are subclasses of :class:`solvedb.Error`.

:mod:`solvedb.openspiel` plays and evaluates OpenSpiel's ``tic_tac_toe`` and
``dots_and_boxes`` states with it.
"""

from ._solvedb import (
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
)

__all__ = [
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
    "games",
]
