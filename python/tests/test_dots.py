"""Random dots_and_boxes states on 2x2, 2x3 and 3x3: solvedb's values equal a
memoised minimax over OpenSpiel's own transitions."""

import random

import pyspiel
import pytest

import solvedb.openspiel as sos

SEED = 20261130


def owned(state):
    """Boxes owned by player 0 and player 1, read from OpenSpiel's drawing
    (a box shows its owner's number, 1 or 2)."""
    text = state.observation_string(0)
    return text.count("1"), text.count("2")


class Minimax:
    """The future margin for the player to move: boxes still to be won, net,
    over OpenSpiel's transitions; the margin depends only on the edges drawn."""

    def __init__(self):
        self.memo = {}

    def __call__(self, state):
        key = state.dbn_string()
        if key in self.memo:
            return self.memo[key]
        if state.is_terminal():
            return 0
        best = max(self.move(state, a) for a in state.legal_actions())
        self.memo[key] = best
        return best

    def move(self, state, action):
        mover = state.current_player()
        child = state.child(action)
        gain = sum(owned(child)) - sum(owned(state))
        rest = self(child)
        return gain + (rest if child.current_player() == mover or child.is_terminal() else -rest)


def random_states(game, count, min_drawn, rng):
    states = []
    edges = game.num_distinct_actions()
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.randint(min_drawn, edges - 1)):
            state.apply_action(rng.choice(state.legal_actions()))
        states.append(state)
    return states


@pytest.mark.parametrize(
    "rows, cols, count, min_drawn",
    [(2, 2, 500, 0), (2, 3, 500, 0), (3, 3, 300, 11)],
)
def test_random_states_agree_with_openspiel_minimax(oracle, rows, cols, count, min_drawn):
    rng = random.Random(SEED + 10 * rows + cols)
    plain = pyspiel.load_game(f"dots_and_boxes(num_rows={rows},num_cols={cols})")
    margin = pyspiel.load_game(f"dots_and_boxes(num_rows={rows},num_cols={cols},utility_margin=true)")
    minimax = Minimax()
    for state in random_states(plain, count, min_drawn, rng):
        game, position = sos.position(state)
        assert game == f"dots:{rows}x{cols}"
        future = minimax(state)
        report = oracle.moves(game, position)
        assert report.value == future, position
        assert report.source == "table"
        mover = state.current_player()
        assert sos.value(state, oracle=oracle) == future
        assert sos.value(state, 1 - mover, oracle=oracle) == -future
        values = sos.action_values(state, oracle=oracle)
        assert sorted(values) == sorted(state.legal_actions())
        for action, v in values.items():
            assert v == minimax.move(state, action), (position, action)
        assert values[sos.best_action(state, oracle=oracle)] == future

        # The same state in the game with utility_margin=true: the final
        # margin, boxes already taken included, is OpenSpiel's return.
        twin = margin.new_initial_state()
        for action in state.history():
            twin.apply_action(action)
        boxes = owned(twin)
        taken = boxes[mover] - boxes[1 - mover]
        assert sos.value(twin, oracle=oracle) == taken + future
        assert sos.expected_return(twin, 1 - mover, oracle=oracle) == -(taken + future)
        twin_values = sos.action_values(twin, oracle=oracle)
        assert twin_values == {a: taken + v for a, v in values.items()}
        # Without utility_margin the return says only who wins.
        final = taken + future
        assert sos.expected_return(state, mover, oracle=oracle) == (final > 0) - (final < 0)
    print(f"dots {rows}x{cols}: {count} random OpenSpiel states agree ({len(minimax.memo)} positions solved by minimax)")


def test_terminal_and_move_numbering(oracle):
    game = pyspiel.load_game("dots_and_boxes(num_rows=2,num_cols=3)")
    state = game.new_initial_state()
    # OpenSpiel's names of its actions against solvedb's edge notation.
    for action in state.legal_actions():
        name = state.action_to_string(0, action)  # "P1(h,r,c)" or "P1(v,r,c)"
        kind, row, col = name[name.index("(") + 1 : -1].split(",")
        one_edge = state.child(action)
        report = oracle.moves("dots:2x3", f"2x3:{kind}{row},{col}")
        assert report.position == sos.position(one_edge)[1]
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert sos.value(state, 0, oracle=oracle) == 0.0
