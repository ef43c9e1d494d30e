"""Two builds of the package side by side, in one run: probes per second
(a Python loop of ``probe``, ``probe_many``, ``probe_arrays`` from strings
and from codes), the ``dots:3x3`` dataset's load time and peak memory, and
the size of each build's wheel and native module. Each figure is the median
of ``--rounds`` rounds, the two builds' rounds interleaved so that the
machine's load falls on both alike.

    python3 python/compare.py --before target/venv-before/bin/python \\
        --after target/venv/bin/python [--wheels target/wheels-before target/wheels]
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

# One round in the interpreter under test: rates for 1,000 table positions
# of each game (the same rows in every build: a seeded sample), each the
# median of five calls.
RATES = r"""
import json, statistics, sys, time
import solvedb
oracle = solvedb.Oracle()
out = {}
for game in ("tictactoe", "dots:3x3"):
    codes = oracle.table_arrays(game, sample=1000, seed=13).code
    texts = solvedb.notation(game, codes)
    def rate(run, repeats=5):
        # The median of a few calls: single calls swing several-fold on a
        # loaded machine (allocation, the collector, other processes).
        rates = []
        for _ in range(repeats):
            start = time.perf_counter(); run(); rates.append(len(texts) / (time.perf_counter() - start))
        return statistics.median(rates)
    oracle.probe_many(game, texts)
    out[game] = {
        "loop": rate(lambda: [oracle.probe(game, t) for t in texts]),
        "probe_many": rate(lambda: oracle.probe_many(game, texts)),
        "probe_many(moves=True)": rate(lambda: oracle.probe_many(game, texts, moves=True)),
        "probe_arrays(moves=False)": rate(lambda: oracle.probe_arrays(game, texts, moves=False)),
        "probe_arrays (strings)": rate(lambda: oracle.probe_arrays(game, texts)),
        "probe_arrays (codes)": rate(lambda: oracle.probe_arrays(game, codes)),
    }
print(json.dumps(out))
"""

# The dots 3x3 dataset in a fresh interpreter: seconds and peak resident KiB.
LOAD = r"""
import json, resource, time
import solvedb.datasets
start = time.perf_counter()
data = solvedb.datasets.load("dots:3x3")
seconds = time.perf_counter() - start
print(json.dumps({"rows": len(data), "seconds": seconds,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def run(python, code):
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    return json.loads(done.stdout)


def module_size(python):
    path = subprocess.run([python, "-c", "import solvedb._solvedb as m; print(m.__file__)"],
                          capture_output=True, text=True, check=True, cwd="/").stdout.strip()
    return os.path.getsize(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the Python of the build before")
    parser.add_argument("--after", required=True, help="the Python of the build after")
    parser.add_argument("--wheels", nargs=2, metavar=("BEFORE", "AFTER"), help="directories of the two wheels")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    builds = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    rates = {name: [] for name in builds}
    loads = {name: [] for name in builds}
    for _ in range(args.rounds):
        for name, python in builds.items():
            rates[name].append(run(python, RATES))
    for _ in range(max(1, args.rounds // 2)):
        for name, python in builds.items():
            loads[name].append(run(python, LOAD))
    print(f"{'positions per second (median of ' + str(args.rounds) + ')':<48} {'before':>12} {'after':>12} {'after/before':>13}")
    for game in rates["before"][0]:
        for call in rates["before"][0][game]:
            b = statistics.median(r[game][call] for r in rates["before"])
            a = statistics.median(r[game][call] for r in rates["after"])
            print(f"{game + ' ' + call:<48} {b:>12,.0f} {a:>12,.0f} {a / b:>13.2f}")
    for field, unit in (("seconds", "s"), ("peak_kib", "KiB")):
        b = statistics.median(r[field] for r in loads["before"])
        a = statistics.median(r[field] for r in loads["after"])
        print(f"{'dots:3x3 load ' + field + ' (' + unit + ')':<48} {b:>12,.2f} {a:>12,.2f} {a / b:>13.2f}")
    b, a = module_size(builds["before"]), module_size(builds["after"])
    print(f"{'native module bytes':<48} {b:>12,} {a:>12,} {a / b:>13.2f}")
    if args.wheels:
        sizes = [os.path.getsize(sorted(glob.glob(os.path.join(d, "*.whl")))[-1]) for d in args.wheels]
        print(f"{'wheel bytes':<48} {sizes[0]:>12,} {sizes[1]:>12,} {sizes[1] / sizes[0]:>13.2f}")


if __name__ == "__main__":
    sys.exit(main())
