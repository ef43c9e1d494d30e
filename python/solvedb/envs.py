"""Every game of the catalogue as a reinforcement-learning environment, its
opponent or its referee solvedb's oracle.

- :func:`gymnasium_env`: a single-agent ``gymnasium.Env`` against an
  opponent: ``"perfect"`` (the oracle's best move), ``"classic"`` (win or
  complete a box at once, else avoid losing at once or drawing a box's third
  side, else any move) or ``"random"``.
- :func:`pettingzoo_env`: a two-agent PettingZoo AEC environment
  (``player_0`` moves first).

Observations are dicts of ``observation``, spatial planes ``(C, H, W)``
uint8 (:func:`solvedb.datasets.spatial`; the observing player's stones
first in the tic-tac-toe family, the drawn edges in dots-and-boxes), and
``action_mask``, int8, 1 for each legal move. Actions are move indices:
cells, or edges (OpenSpiel's action ids). Rewards: the tic-tac-toe family
+1 for a win and -1 for a loss at the end; dots-and-boxes each box taken
(+1) or conceded (-1) as it happens, so an episode's return is the final
margin. A dots player that completes a box moves again. With
``value_info=True`` the ``info`` dict carries ``value``: the position's
exact value for the player (None where a live search runs out of its
budget). Needs ``gymnasium`` and ``pettingzoo`` (``pip install
solvedb[envs]``).

>>> import solvedb.envs
>>> env = solvedb.envs.gymnasium_env("tictactoe", opponent="perfect", value_info=True)
>>> obs, info = env.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].tolist(), info["value"]
((2, 3, 3), [1, 1, 1, 1, 1, 1, 1, 1, 1], 0.0)
>>> obs, reward, terminated, truncated, info = env.step(4)
>>> int(obs["action_mask"].sum()), reward, terminated, info["value"]
(7, 0.0, False, 0.0)
"""

import random
from typing import Any, Dict, List, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import default_oracle
from ._match import Match, check_game, opponent_policy
from ._solvedb import InputError, Oracle

__all__ = ["gymnasium_env", "pettingzoo_env"]

Observation = Dict[str, np.ndarray]


def _spaces(match: Match) -> Tuple[spaces.Dict, spaces.Discrete]:
    observation = spaces.Dict(
        {
            "observation": spaces.Box(0, 1, shape=match.observation_shape(), dtype=np.uint8),
            "action_mask": spaces.Box(0, 1, shape=(match.slots,), dtype=np.int8),
        }
    )
    return observation, spaces.Discrete(match.slots)


def _observe(match: Match, player: int) -> Observation:
    return {"observation": match.observation(player), "action_mask": match.mask()}


class SolvedbEnv(gymnasium.Env[Dict[str, Any], np.int64]):
    """One game against an opponent (see :func:`gymnasium_env`)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        opponent: str = "perfect",
        *,
        player: int = 0,
        oracle: Optional[Oracle] = None,
        value_info: bool = False,
        render_mode: Optional[str] = None,
    ) -> None:
        if player not in (0, 1):
            raise InputError(f"player: 0 (moves first) or 1, not {player!r}")
        if render_mode not in (None, "ansi"):
            raise InputError(f"render_mode: None or 'ansi', not {render_mode!r}")
        self.match = Match(game)
        self.player = player
        self.oracle = oracle or default_oracle()
        self.value_info = value_info
        self.render_mode = render_mode
        self._rng = random.Random()
        self._opponent = opponent_policy(opponent, self.oracle, self._rng)
        self.observation_space, self.action_space = _spaces(self.match)

    def _info(self, notes: Dict[str, Any]) -> Dict[str, Any]:
        info: Dict[str, Any] = dict(notes)
        if self.value_info:
            info["value"] = self.match.value(self.oracle, self.player)
        return info

    def _opponent_moves(self) -> Tuple[float, Dict[str, Any]]:
        """The opponent plays until the agent is to move or the game ends:
        the agent's reward from those moves, and notes for ``info``."""
        reward, notes = 0.0, {}
        while not self.match.over and self.match.mover != self.player:
            action, note = self._opponent(self.match)
            notes.update(note)
            reward += self.match.step(action)[1][self.player]
        return reward, notes

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Observation, Dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng.seed(seed)
        self.match.reset()
        _, notes = self._opponent_moves()
        return _observe(self.match, self.player), self._info(notes)

    def step(self, action: Any) -> Tuple[Observation, float, bool, bool, Dict[str, Any]]:
        """Plays ``action`` for the agent, then the opponent's replies. An
        illegal action ends the episode with reward -1 and ``info["illegal"]``."""
        if self.match.over:
            raise InputError("action: the episode is over, call reset()")
        action = int(action)
        if action not in self.match.legal():
            return _observe(self.match, self.player), -1.0, True, False, self._info({"illegal": True})
        reward = self.match.step(action)[1][self.player]
        more, notes = self._opponent_moves()
        observation = _observe(self.match, self.player)
        return observation, reward + more, self.match.over, False, self._info(notes)

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return self.match.position()
        return None


def gymnasium_env(
    game: str,
    opponent: str = "perfect",
    *,
    player: int = 0,
    oracle: Optional[Oracle] = None,
    value_info: bool = False,
    render_mode: Optional[str] = None,
) -> SolvedbEnv:
    """A Gymnasium environment: the agent plays ``game`` as ``player`` (0
    moves first) against ``opponent`` (``"perfect"``, ``"classic"`` or
    ``"random"``; seeded by ``reset(seed=...)``). The perfect opponent asks
    ``oracle`` (by default the built-in tables); where a live search runs out
    of its budget it plays the classic move instead and says so in
    ``info["opponent_fallback"]``."""
    return SolvedbEnv(
        game, opponent, player=player, oracle=oracle, value_info=value_info, render_mode=render_mode
    )


class SolvedbAEC(AECEnv):  # type: ignore[misc]
    """Two agents playing one game (see :func:`pettingzoo_env`)."""

    metadata = {"render_modes": ["ansi"], "name": "solvedb_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        *,
        oracle: Optional[Oracle] = None,
        value_info: bool = False,
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise InputError(f"render_mode: None or 'ansi', not {render_mode!r}")
        self.match = Match(check_game(game))
        self.oracle = oracle or default_oracle()
        self.value_info = value_info
        self.render_mode = render_mode
        self.possible_agents: List[str] = ["player_0", "player_1"]
        self._observation_space, self._action_space = _spaces(self.match)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def observe(self, agent: str) -> Observation:
        return _observe(self.match, self.possible_agents.index(agent))

    def _info(self, agent: str) -> Dict[str, Any]:
        if not self.value_info:
            return {}
        return {"value": self.match.value(self.oracle, self.possible_agents.index(agent))}

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self.match.reset()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        self.agent_selection = self.agents[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if action not in self.match.legal():
            raise InputError(f"action: move {action} is not legal for {agent} (see the action_mask)")
        self._cumulative_rewards[agent] = 0.0
        _, rewards = self.match.step(action)
        self.rewards = {a: rewards[i] for i, a in enumerate(self.possible_agents)}
        if self.match.over:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[self.match.mover]
        self.infos = {a: self._info(a) for a in self.agents}
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return self.match.position()
        return None

    def close(self) -> None:
        pass


def pettingzoo_env(
    game: str,
    *,
    oracle: Optional[Oracle] = None,
    value_info: bool = False,
    render_mode: Optional[str] = None,
) -> SolvedbAEC:
    """A PettingZoo AEC environment: ``player_0`` and ``player_1`` play
    ``game`` (``player_0`` first; a dots player that completes a box moves
    again). With ``value_info``, each agent's ``info["value"]`` is the
    position's exact value for it, from ``oracle`` (by default the built-in
    tables).

    >>> env = pettingzoo_env("dots:2x2")
    >>> env.reset(seed=0)
    >>> env.agent_selection, env.observe("player_0")["observation"].shape
    ('player_0', (2, 3, 3))
    """
    return SolvedbAEC(game, oracle=oracle, value_info=value_info, render_mode=render_mode)
