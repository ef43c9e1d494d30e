"""PerfectBot against OpenSpiel's random and MCTS bots over seeded games: it
never loses tic-tac-toe, and gets at least the game value in dots-and-boxes."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

import solvedb.openspiel as sos

SEED = 1130


def opponents(game, player_id, seed, mcts_games):
    """(name, bot factory) for OpenSpiel's random bot and its MCTS bot."""
    def random_bot(i):
        return UniformRandomBot(player_id, np.random.RandomState(seed + i))

    def mcts_bot(i):
        rng = np.random.RandomState(seed + i)
        return mcts.MCTSBot(
            game,
            uct_c=2,
            max_simulations=200,
            evaluator=mcts.RandomRolloutEvaluator(1, rng),
            random_state=rng,
        )

    return [("random", random_bot, None), ("mcts", mcts_bot, mcts_games)]


def play(game, perfect_seat, opponent, seed):
    bots = [None, None]
    bots[perfect_seat] = sos.PerfectBot(game, perfect_seat, oracle=ORACLE[0])
    bots[1 - perfect_seat] = opponent
    return pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)


ORACLE = [None]


@pytest.fixture(autouse=True)
def _oracle(oracle):
    ORACLE[0] = oracle


@pytest.mark.parametrize(
    "spec, games, mcts_games",
    [
        ("tic_tac_toe", 200, 30),
        ("dots_and_boxes(num_rows=2,num_cols=2,utility_margin=true)", 100, 15),
        ("dots_and_boxes(num_rows=2,num_cols=3,utility_margin=true)", 60, 10),
        ("dots_and_boxes(num_rows=3,num_cols=3,utility_margin=true)", 40, 6),
    ],
)
def test_perfect_bot_gets_at_least_the_game_value(oracle, spec, games, mcts_games):
    game = pyspiel.load_game(spec)
    start = game.new_initial_state()
    played = 0
    for seat in (0, 1):
        # The game value for this seat, in OpenSpiel's units (its return).
        floor = sos.expected_return(start, seat, oracle=oracle)
        for name, make, limit in opponents(game, 1 - seat, SEED + seat, mcts_games):
            for i in range(limit or games):
                returns = play(game, seat, make(i), SEED + i)
                assert returns[seat] >= floor, (spec, seat, name, i, returns)
                if spec == "tic_tac_toe":
                    assert returns[seat] >= 0.0  # never loses
                played += 1
    print(f"{spec}: PerfectBot played {played} games, never below the game value")


def test_perfect_bot_is_a_pyspiel_bot(oracle):
    game = pyspiel.load_game("tic_tac_toe")
    bot = sos.PerfectBot(game, 0, oracle=oracle)
    assert isinstance(bot, pyspiel.Bot)
    assert bot.player_id() == 0
    state = game.new_initial_state()
    policy, action = bot.step_with_policy(state)
    assert action in [a for a, p in policy if p > 0]
    assert abs(sum(p for _, p in policy) - 1.0) < 1e-9
    # Two perfect players draw tic-tac-toe.
    assert pyspiel.evaluate_bots(state, [bot, sos.PerfectBot(game, 1, oracle=oracle)], 7) == [0.0, 0.0]


def test_perfect_bot_refuses_other_games(oracle):
    import solvedb

    with pytest.raises(solvedb.UnsupportedGame):
        sos.PerfectBot(pyspiel.load_game("connect_four"), 0, oracle=oracle)
