"""The environments: Gymnasium's and PettingZoo's own checkers on every game
of the catalogue, and play against each opponent."""

import random

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

import solvedb  # noqa: E402
import solvedb.envs as envs  # noqa: E402
from solvedb._match import move_index  # noqa: E402

GAMES = [g.name for g in solvedb.games()]


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game):
    env = envs.pettingzoo_env(game)
    api_test(env, num_cycles=50)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_checker(game):
    # The random opponent: the checker's many resets and steps must not
    # depend on searches (a perfect opponent on a board without a table
    # searches each move).
    env = envs.gymnasium_env(game, opponent="random")
    check_env(env, skip_render_check=True)


def play(env, choose, seed):
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, truncated, info = env.step(choose(legal, info))
        total += reward
    return total


def test_the_perfect_opponent_never_loses():
    rng = random.Random(1)
    for opponent_player in (0, 1):
        env = envs.gymnasium_env("tictactoe", "perfect", player=1 - opponent_player)
        for seed in range(20):
            assert play(env, lambda legal, info: rng.choice(list(legal)), seed) <= 0


def test_the_perfect_agent_gets_the_value():
    # Taking the move the oracle values best keeps the start's value: a
    # draw at tic-tac-toe against anyone, the exact box margin on dots 2x2
    # against a perfect opponent.
    oracle = solvedb.Oracle()

    def best(env):
        def choose(legal, info):
            match = env.unwrapped.match
            return move_index(match.game, oracle.best_move(match.game, match.position()).move)
        return choose

    for opponent in ("perfect", "classic", "random"):
        env = envs.gymnasium_env("tictactoe", opponent)
        assert all(play(env, best(env), seed) >= 0 for seed in range(5))
    env = envs.gymnasium_env("dots:2x2", "perfect", value_info=True)
    _, info = env.reset(seed=0)
    start = oracle.probe("dots:2x2", "2x2:").value
    assert info["value"] == start
    assert play(env, best(env), 0) == start


def test_classic_beats_random_and_takes_wins():
    rng = random.Random(2)
    env = envs.gymnasium_env("tictactoe", "classic", player=1)
    results = [play(env, lambda legal, info: rng.choice(list(legal)), seed) for seed in range(40)]
    assert sum(r < 0 for r in results) > sum(r > 0 for r in results)


def test_value_info_and_illegal_moves():
    env = envs.pettingzoo_env("tictactoe", value_info=True)
    env.reset(seed=0)
    assert env.infos["player_0"]["value"] == 0.0
    env.step(0)
    env.step(1)  # O next to X's corner: X wins from here
    assert (env.infos["player_0"]["value"], env.infos["player_1"]["value"]) == (1.0, -1.0)
    with pytest.raises(solvedb.InputError):
        env.step(0)
    gym = envs.gymnasium_env("tictactoe", "random")
    gym.reset(seed=0)
    taken = int(np.flatnonzero(gym.step(4)[0]["action_mask"] == 0)[-1])
    _, reward, terminated, _, info = gym.step(taken)
    assert (reward, terminated, info.get("illegal")) == (-1.0, True, True)
    with pytest.raises(solvedb.InputError, match="^opponent"):
        envs.gymnasium_env("tictactoe", opponent="strong")
    with pytest.raises(solvedb.InputError, match="^game"):
        envs.pettingzoo_env("chess")
