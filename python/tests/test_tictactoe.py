"""Every non-terminal tic_tac_toe state OpenSpiel enumerates: solvedb's value
and plies equal a minimax over OpenSpiel's own transitions."""

import pyspiel

import solvedb.openspiel as sos

# The ordering solvedb promises: the winner wins fastest, the loser loses
# slowest; a draw is between.
RANK = {"win": lambda plies: 1000 - plies, "draw": lambda plies: 0, "loss": lambda plies: -1000 + plies}
FLIP = {"win": "loss", "draw": "draw", "loss": "win"}


def all_states():
    """Every state reachable in OpenSpiel's tic_tac_toe, keyed by its history."""
    game = pyspiel.load_game("tic_tac_toe")
    seen, stack = {}, [game.new_initial_state()]
    while stack:
        state = stack.pop()
        key = str(state)
        if key in seen:
            continue
        seen[key] = state
        if not state.is_terminal():
            for action in state.legal_actions():
                stack.append(state.child(action))
    return seen


def minimax(state, memo):
    """(result, plies) for the player to move, over OpenSpiel's transitions
    and terminal returns alone."""
    key = str(state)
    if key in memo:
        return memo[key]
    mover = state.current_player()
    best = None
    for action in state.legal_actions():
        child = state.child(action)
        if child.is_terminal():
            ret = child.player_return(mover)
            outcome = ("win" if ret > 0 else "loss" if ret < 0 else "draw", 1)
        else:
            result, plies = minimax(child, memo)
            outcome = (FLIP[result], plies + 1)
        if best is None or RANK[outcome[0]](outcome[1]) > RANK[best[0]](best[1]):
            best = outcome
    memo[key] = best
    return best


def test_every_state_agrees_with_openspiel_minimax(oracle):
    states = all_states()
    # OpenSpiel's tic_tac_toe has 5,478 distinct states (4,520 non-terminal).
    assert len(states) == 5478
    memo, checked = {}, 0
    for state in states.values():
        if state.is_terminal():
            continue
        game, position = sos.position(state)
        # The conversion against the history: player 0 (x) plays the even plies.
        cells = ["."] * 9
        for ply, action in enumerate(state.history()):
            cells[action] = "XO"[ply % 2]
        assert position.replace("/", "") == "".join(cells)

        expected = minimax(state, memo)
        report = oracle.moves(game, position)
        assert (report.result, report.plies) == expected, position
        assert report.to_move == "XO"[state.current_player()]
        # Each action's value for the mover, from OpenSpiel's child states.
        values = sos.action_values(state, oracle=oracle)
        assert sorted(values) == sorted(state.legal_actions())
        for action, v in values.items():
            child = state.child(action)
            if child.is_terminal():
                want = child.player_return(state.current_player())
            else:
                want = {"win": -1.0, "draw": 0.0, "loss": 1.0}[memo[str(child)][0]]
            assert v == want, (position, action)
        assert sos.value(state, oracle=oracle) == {"win": 1.0, "draw": 0.0, "loss": -1.0}[expected[0]]
        assert sos.value(state, 1 - state.current_player(), oracle=oracle) == -sos.value(state, oracle=oracle)
        assert values[sos.best_action(state, oracle=oracle)] == max(values.values())
        checked += 1
    assert checked == 4520
    print(f"tic_tac_toe: {checked} non-terminal OpenSpiel states agree")


def test_value_function_in_alpha_beta_search(oracle):
    from open_spiel.python.algorithms.minimax import alpha_beta_search

    game = pyspiel.load_game("tic_tac_toe")
    for history in ([], [4], [0, 4, 8], [1, 0]):
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)
        for player in (0, 1):
            full, _ = alpha_beta_search(game, state, maximizing_player_id=player)
            shallow, _ = alpha_beta_search(
                game,
                state,
                value_function=sos.value_function(player, oracle=oracle),
                maximum_depth=1,
                maximizing_player_id=player,
            )
            assert shallow == full, (history, player)
