"""One game in play on integer codes, and the opponents the environments
offer. Every rule is the native module's (:func:`solvedb.legal_moves`,
:func:`solvedb.play`, :func:`solvedb.outcome`); only the bookkeeping of
turns and boxes lives here."""

import random
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from ._boards import board_shape, is_dots, move_slots, spatial
from ._solvedb import BudgetExhausted, InputError, Oracle, games, legal_moves, notation, outcome, play

OPPONENTS = ("perfect", "classic", "random")


def check_game(game: str) -> str:
    """``game`` if solvedb plays it (any of :func:`solvedb.games`, or any
    ``dots:MxN``), else an :class:`InputError`."""
    if not isinstance(game, str):
        raise InputError(f"game: a str, not {type(game).__name__}")
    if game in {g.name for g in games()} or is_dots(game):
        move_slots(game)  # an unknown or malformed name raises here
        legal_moves(game, (0, 0))
        return game
    raise InputError(f"game: {game!r} is not one of {[g.name for g in games()]}")


class Match:
    """A game from its start: the position's code, who moves (0 the first
    player, 1 the second), the boxes each has taken (dots), the result."""

    def __init__(self, game: str) -> None:
        self.game = check_game(game)
        self.slots = move_slots(game)
        self.reset()

    def reset(self) -> None:
        self.code: Tuple[int, int] = (0, 0)
        self.mover = 0
        self.boxes = [0, 0]
        self.over = False
        self._legal = legal_moves(self.game, self.code)

    def legal(self) -> List[int]:
        """The legal moves (move indices), empty once the game is over."""
        return list(self._legal)

    def mask(self) -> npt.NDArray[np.int8]:
        """``(slots,)`` int8: 1 where a move is legal."""
        mask = np.zeros(self.slots, dtype=np.int8)
        mask[self._legal] = 1
        return mask

    def step(self, action: int) -> Tuple[int, List[float]]:
        """Plays ``action`` for the mover: who moved and what each player
        earned by it (dots: the boxes it completed; the tic-tac-toe family:
        1 and -1 for the winner and loser when it ends the game)."""
        mover = self.mover
        code, again, gain = play(self.game, self.code, int(action))
        self.code = (int(code[0]), int(code[1]))
        rewards = [0.0, 0.0]
        if is_dots(self.game):
            self.boxes[mover] += gain
            rewards[mover] += gain
            rewards[1 - mover] -= gain
        if not again:
            self.mover = 1 - mover
        self._legal = legal_moves(self.game, self.code)
        end = outcome(self.game, self.code)
        if end is not None:
            self.over = True
            if not is_dots(self.game) and end < 0:
                # The side that would move has lost: the mover won.
                rewards[mover] += 1.0
                rewards[1 - mover] -= 1.0
        return mover, rewards

    def observation(self, player: int) -> npt.NDArray[np.uint8]:
        """Spatial planes ``(C, H, W)`` seen by ``player``: its own stones
        first (the tic-tac-toe family), the drawn edges (dots)."""
        planes: npt.NDArray[np.uint8] = spatial(self.game, np.array([self.code], dtype=np.uint64))[0]
        if is_dots(self.game) or player == 0:
            return planes
        half = planes.shape[0] // 2
        return np.concatenate([planes[half:], planes[:half]]).astype(np.uint8)

    def observation_shape(self) -> Tuple[int, ...]:
        return tuple(self.observation(0).shape)

    def position(self) -> str:
        return notation(self.game, np.array([self.code], dtype=np.uint64))[0]

    def value(self, oracle: Oracle, player: int) -> Optional[float]:
        """The position's value for ``player`` under perfect play (the
        tic-tac-toe family 1/0/-1; dots the net boxes still to be won);
        None where the search runs out of its budget."""
        if self.over:
            return 0.0
        try:
            report = oracle.probe(self.game, self.position())
        except BudgetExhausted:
            return None
        mover = float(report.value) if report.value is not None else {"win": 1.0, "draw": 0.0, "loss": -1.0}[report.result or "draw"]
        return mover if player == self.mover else 0.0 - mover


def classic_move(match: Match, rng: random.Random) -> int:
    """A classic rule-of-thumb player, uniform among the moves of the first
    rule that has any: a move that wins (the tic-tac-toe family) or
    completes a box (dots) now; one after which the opponent cannot win at
    once, or that draws no box's third side; any legal move."""
    moves = match.legal()
    if is_dots(match.game):
        gains, safe = [], []
        for m in moves:
            gain = play(match.game, match.code, m)[2]
            if gain > 0:
                gains.append(m)
            elif not _gives_box(match, m):
                safe.append(m)
        return rng.choice(gains or safe or moves)
    wins = [m for m in moves if _ends_with_win(match.game, match.code, m)]
    if wins:
        return rng.choice(wins)
    safe = [m for m in moves if not _lets_opponent_win(match.game, match.code, m)]
    return rng.choice(safe or moves)


def _ends_with_win(game: str, code: Tuple[int, int], move: int) -> bool:
    after, _, _ = play(game, code, move)
    end = outcome(game, after)
    return end is not None and end < 0


def _lets_opponent_win(game: str, code: Tuple[int, int], move: int) -> bool:
    """Whether after ``move`` the opponent can complete a line at once."""
    after, _, _ = play(game, code, move)
    return any(_ends_with_win(game, after, reply) for reply in legal_moves(game, after))


def _gives_box(match: Match, edge: int) -> bool:
    """Whether drawing ``edge`` leaves a box with three sides drawn."""
    after, _, _ = play(match.game, match.code, edge)
    return any(play(match.game, after, m)[2] > 0 for m in legal_moves(match.game, after))


def opponent_policy(
    kind: str, oracle: Oracle, rng: random.Random
) -> Callable[[Match], Tuple[int, Dict[str, bool]]]:
    """The move function of an opponent ``kind`` (one of
    :data:`OPPONENTS`): a move and notes for ``info``."""
    if kind not in OPPONENTS:
        raise InputError(f"opponent: one of {OPPONENTS}, not {kind!r}")

    def perfect(match: Match) -> Tuple[int, Dict[str, bool]]:
        try:
            best = oracle.best_move(match.game, match.position())
        except BudgetExhausted:
            return classic_move(match, rng), {"opponent_fallback": True}
        if best is None:
            return classic_move(match, rng), {"opponent_fallback": True}
        return move_index(match.game, best.move), {}

    if kind == "perfect":
        return perfect
    if kind == "classic":
        return lambda match: (classic_move(match, rng), {})
    return lambda match: (rng.choice(match.legal()), {})


def move_index(game: str, move: str) -> int:
    """The move index of a move in solvedb's notation."""
    if not is_dots(game):
        return int(move)
    rows, cols = board_shape(game)
    row, col = (int(part) for part in move[1:].split(","))
    if move[0] == "h":
        return row * cols + col
    return (rows + 1) * cols + row * (cols + 1) + col
