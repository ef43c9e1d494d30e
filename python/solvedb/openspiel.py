"""solvedb for OpenSpiel: exact values and a perfect bot for ``tic_tac_toe``
and ``dots_and_boxes`` states.

Only conversions live here; every value and move comes from
:class:`solvedb.Oracle`. OpenSpiel (``pip install open_spiel``) is imported
lazily, by :class:`PerfectBot` alone; the other functions take its states.

>>> import pyspiel, solvedb.openspiel as sos
>>> state = pyspiel.load_game("tic_tac_toe").new_initial_state()
>>> state.apply_action(4)
>>> sos.value(state), sos.action_values(state)[0]  # the built-in tables
(0.0, 0.0)

Every function takes ``oracle=`` (an :class:`solvedb.Oracle`); without it,
:func:`solvedb.default_oracle`, the built-in tables.

How OpenSpiel's states map onto solvedb's notation:

- ``tic_tac_toe``: actions are the cells 0-8 row by row, player 0 plays
  ``x`` and moves first: solvedb's cells and its ``X``.
- ``dots_and_boxes(num_rows=M, num_cols=N)``: M rows and N columns of boxes,
  actions number the horizontal edges row by row, then the vertical ones, as
  solvedb's edges do; ``state.dbn_string()`` is one 0/1 per edge in that
  order, so the position is ``"MxN:" + state.dbn_string()``.

Values follow OpenSpiel's conventions, for ``player`` (by default the one to
move): tic-tac-toe ``1.0``, ``0.0`` or ``-1.0``; dots-and-boxes the net
number of boxes still to be won (the future margin), to which the boxes
already taken are added when the game has ``utility_margin=true`` (then the
value is the final margin, OpenSpiel's return). :func:`expected_return` is
always OpenSpiel's ``player_return`` under perfect play (without
``utility_margin``, dots returns only who wins: 1, 0 or -1).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from . import default_oracle
from ._solvedb import InputError, Oracle, PositionError, UnsupportedGame

__all__ = [
    "PerfectBot",
    "action_values",
    "best_action",
    "default_oracle",
    "expected_return",
    "position",
    "value",
    "value_function",
]

def _game_params(state: Any) -> Tuple[str, Dict[str, Any]]:
    game = state.get_game()
    return game.get_type().short_name, game.get_parameters()


def position(state: Any) -> Tuple[str, str]:
    """The solvedb game and position of an OpenSpiel state.

    >>> import pyspiel
    >>> position(pyspiel.load_game("tic_tac_toe").new_initial_state())
    ('tictactoe', '.../.../...')
    """
    name, params = _game_params(state)
    if name == "tic_tac_toe":
        # OpenSpiel draws the board as three lines of `x`, `o` and `.`.
        rows = str(state).split("\n")
        return "tictactoe", "/".join(row.upper() for row in rows)
    if name == "dots_and_boxes":
        board = f"{params['num_rows']}x{params['num_cols']}"
        return f"dots:{board}", f"{board}:{state.dbn_string()}"
    raise UnsupportedGame(f"OpenSpiel game {name!r} has no solvedb counterpart")


def _action(name: str, params: Dict[str, Any], move: str) -> int:
    """OpenSpiel's action id of a move in solvedb's notation."""
    if name == "tic_tac_toe":
        return int(move)
    # Dots: `hR,C` and `vR,C`; OpenSpiel numbers the (M+1)*N horizontal
    # edges row by row, then the M*(N+1) vertical ones row by row.
    rows, cols = params["num_rows"], params["num_cols"]
    row, col = (int(part) for part in move[1:].split(","))
    if move[0] == "h":
        return row * cols + col
    if move[0] == "v":
        return (rows + 1) * cols + row * (cols + 1) + col
    raise PositionError(f"{move!r} is not a dots-and-boxes move")


def _taken_margin(state: Any, player: int) -> int:
    """Boxes ``player`` has taken minus the opponent's, read from OpenSpiel's
    observation tensor: shape (3 cell states: empty, player 0, player 1;
    (M+1)*(N+1) cells; 3 parts: horizontal, vertical, box owner)."""
    _, params = _game_params(state)
    cells = (params["num_rows"] + 1) * (params["num_cols"] + 1)
    tensor = state.observation_tensor(player)
    owned = [0, 0]
    for owner in (0, 1):
        plane = (owner + 1) * cells * 3
        owned[owner] = sum(1 for cell in range(cells) if tensor[plane + cell * 3 + 2] == 1.0)
    return owned[player] - owned[1 - player]


def _mover_value(name: str, params: Dict[str, Any], fields: Any) -> float:
    """A report's (or move's) value for the side to move, in OpenSpiel's units
    before boxes already taken."""
    if name == "tic_tac_toe":
        return {"win": 1.0, "draw": 0.0, "loss": -1.0}[fields.result]
    return float(fields.value)


def _utility_margin(params: Dict[str, Any]) -> bool:
    return bool(params.get("utility_margin", False))


def value(state: Any, player: Optional[int] = None, *, oracle: Optional[Oracle] = None) -> float:
    """The value of ``state`` under perfect play for ``player`` (default: the
    player to move). Tic-tac-toe: 1, 0 or -1. Dots-and-boxes: the net boxes
    still to be won, plus those already taken when ``utility_margin=true``.
    """
    name, params = _game_params(state)
    if player is None:
        if state.is_terminal():
            raise InputError("player: the game is over, nobody is to move: name the player")
        player = state.current_player()
    if state.is_terminal():
        if name == "tic_tac_toe" or _utility_margin(params):
            return float(state.player_return(player))
        return 0.0
    game, text = position(state)
    report = (oracle or default_oracle()).probe(game, text)
    mover = _mover_value(name, params, report)
    # `0.0 - x`, not `-x`: a draw is 0.0 for both players, never -0.0.
    result = mover if player == state.current_player() else 0.0 - mover
    if name == "dots_and_boxes" and _utility_margin(params):
        result += _taken_margin(state, player)
    return result


def action_values(state: Any, *, oracle: Optional[Oracle] = None) -> Dict[int, float]:
    """Each legal action's value for the player to move, keyed by OpenSpiel
    action id, in :func:`value`'s units (a dots move counts the boxes it
    completes). Best first."""
    name, params = _game_params(state)
    game, text = position(state)
    report = (oracle or default_oracle()).moves(game, text)
    taken = 0
    if name == "dots_and_boxes" and _utility_margin(params):
        taken = _taken_margin(state, state.current_player())
    return {
        _action(name, params, m.move): _mover_value(name, params, m) + taken
        for m in report.moves
    }


def best_action(state: Any, *, oracle: Optional[Oracle] = None) -> int:
    """A perfect action for the player to move (the first of the best)."""
    name, params = _game_params(state)
    game, text = position(state)
    best = (oracle or default_oracle()).best_move(game, text)
    if best is None:
        raise PositionError("the game is over: there is no move")
    return _action(name, params, best.move)


def expected_return(state: Any, player: int, *, oracle: Optional[Oracle] = None) -> float:
    """OpenSpiel's ``player_return`` for ``player`` at the end of perfect
    play from ``state``: :func:`value`, except for dots-and-boxes without
    ``utility_margin``, whose return is only 1, 0 or -1 (who wins)."""
    name, params = _game_params(state)
    if state.is_terminal():
        return float(state.player_return(player))
    if name == "dots_and_boxes" and not _utility_margin(params):
        final = value(state, player, oracle=oracle) + _taken_margin(state, player)
        return float((final > 0) - (final < 0))
    return value(state, player, oracle=oracle)


def value_function(
    maximizing_player_id: int = 0, *, oracle: Optional[Oracle] = None
) -> Callable[[Any], float]:
    """A ``value_function`` for OpenSpiel's ``alpha_beta_search`` (pass the
    same ``maximizing_player_id``): the exact return, so any depth is exact.

    >>> import pyspiel
    >>> from open_spiel.python.algorithms.minimax import alpha_beta_search
    >>> game = pyspiel.load_game("tic_tac_toe")
    >>> alpha_beta_search(game, value_function=value_function(0),
    ...                   maximum_depth=1, maximizing_player_id=0)[0]
    0.0
    """

    def evaluate(state: Any) -> float:
        return expected_return(state, maximizing_player_id, oracle=oracle)

    return evaluate


def __getattr__(name: str) -> Any:
    """``PerfectBot`` is made on first use, importing OpenSpiel only then."""
    if name == "PerfectBot":
        global PerfectBot
        PerfectBot = _make_bot_class()
        return PerfectBot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _make_bot_class() -> type:
    import pyspiel

    class PerfectBot(pyspiel.Bot):  # type: ignore[misc]
        """A ``pyspiel.Bot`` that plays perfectly; ``step(state)`` returns a
        best action (the first of the best, in solvedb's move order).

        >>> import pyspiel
        >>> from solvedb.openspiel import PerfectBot
        >>> game = pyspiel.load_game("tic_tac_toe")
        >>> bots = [PerfectBot(game, 0), PerfectBot(game, 1)]  # the built-in tables
        >>> pyspiel.evaluate_bots(game.new_initial_state(), bots, 1)
        [0.0, 0.0]
        """

        def __init__(self, game: Any, player_id: int, oracle: Optional[Oracle] = None) -> None:
            pyspiel.Bot.__init__(self)
            name = game.get_type().short_name
            if name not in ("tic_tac_toe", "dots_and_boxes"):
                raise UnsupportedGame(f"OpenSpiel game {name!r} has no solvedb counterpart")
            self._player_id = player_id
            self._oracle = oracle or default_oracle()

        def player_id(self) -> int:
            return self._player_id

        def restart_at(self, state: Any) -> None:
            pass

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

        def provides_policy(self) -> bool:
            return True

        def step_with_policy(self, state: Any) -> Tuple[List[Tuple[int, float]], int]:
            """Uniform over the best actions, and the first of them."""
            values = action_values(state, oracle=self._oracle)
            top = max(values.values())
            best = [a for a, v in values.items() if v == top]
            policy = [(a, 1.0 / len(best) if a in best else 0.0) for a in state.legal_actions()]
            return policy, best[0]

        def step(self, state: Any) -> int:
            return best_action(state, oracle=self._oracle)

        def __repr__(self) -> str:
            return f"PerfectBot(player_id={self._player_id}, oracle={self._oracle!r})"

    PerfectBot.__module__ = __name__
    return PerfectBot
