"""Probes per second from Python: solvedb one at a time, solvedb in a batch
(``probe_many``: a list of Report objects; ``probe_arrays``: numpy arrays,
from strings and from integer codes), solvedb through solvedb.openspiel, and
OpenSpiel's own alpha-beta minimax on the same states. Each figure is the
median of several rounds, all in one run.

    target/venv/bin/python python/bench.py [--tables tables] [--rounds 5]
"""

import argparse
import os
import random
import statistics
import sys
import time

# Run as a script, Python puts python/ first on sys.path, where the source
# package solvedb/ (without its compiled module) would shadow the installed one.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms.minimax import alpha_beta_search

import solvedb
import solvedb.openspiel as sos

SEED = 13


def random_states(spec, count, min_drawn, rng):
    game = pyspiel.load_game(spec)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.randint(min_drawn, game.num_distinct_actions() - 1)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            states.append(state)
    return game, states


def rate(count, run, rounds):
    """Median calls per second of `run` (which makes `count` calls)."""
    rates = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=None, help="a tables directory (default: the package's own)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    oracle = solvedb.Oracle(args.tables)
    rng = random.Random(SEED)
    cases = [
        # (label, OpenSpiel game, states, how many of them minimax gets)
        ("tic_tac_toe", *random_states("tic_tac_toe", 1000, 0, rng), 100),
        ("dots 2x3 (>= 7 edges drawn)", *random_states("dots_and_boxes(num_rows=2,num_cols=3)", 1000, 7, rng), 50),
        ("dots 3x3 (>= 15 edges drawn)", *random_states("dots_and_boxes(num_rows=3,num_cols=3)", 1000, 15, rng), 20),
    ]
    print(
        f"{'states':<30} {'single/s':>10} {'many/s':>10} {'many+mv/s':>10} {'arrays/s':>10} "
        f"{'arrays+mv/s':>12} {'codes+mv/s':>11} {'openspiel/s':>12} {'minimax/s':>10} {'many/minimax':>13}"
    )
    for label, game, states, minimax_count in cases:
        name = sos.position(states[0])[0]
        positions = [sos.position(s)[1] for s in states]
        oracle.probe_many(name, positions)  # open the table first
        single = rate(len(positions), lambda: [oracle.probe(name, p) for p in positions], args.rounds)
        batch = rate(len(positions), lambda: oracle.probe_many(name, positions), args.rounds)
        batch_moves = rate(len(positions), lambda: oracle.probe_many(name, positions, moves=True), args.rounds)
        arrays = rate(len(positions), lambda: oracle.probe_arrays(name, positions, moves=False), args.rounds)
        arrays_moves = rate(len(positions), lambda: oracle.probe_arrays(name, positions), args.rounds)
        codes = np.ascontiguousarray(oracle.probe_arrays(name, positions, moves=False).code)
        codes_moves = rate(len(positions), lambda: oracle.probe_arrays(name, codes), args.rounds)
        through = rate(len(states), lambda: [sos.value(s, oracle=oracle) for s in states], args.rounds)
        sample = states[:minimax_count]
        minimax = rate(len(sample), lambda: [alpha_beta_search(game, s) for s in sample], 1 if args.rounds < 3 else 3)
        print(
            f"{label:<30} {single:>10.0f} {batch:>10.0f} {batch_moves:>10.0f} {arrays:>10.0f} "
            f"{arrays_moves:>12.0f} {codes_moves:>11.0f} {through:>12.0f} {minimax:>10.1f} {batch / minimax:>13.0f}"
        )


if __name__ == "__main__":
    main()
