#!/usr/bin/env python3
"""A long run of random dots probes against `solvedb serve --stdio`, its
resident memory sampled as it goes (docs/tables-on-demand.md): the server's
memory must stay within its block cache's bound (64 MiB) plus what it
needs besides.

    scripts/soak_probe.py SOLVEDB TABLES [--board 3x4] [--seconds 3600]
        [--sample 30] [--want value]
"""

import argparse
import json
import random
import subprocess
import sys
import time


def kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("solvedb")
    parser.add_argument("tables")
    parser.add_argument("--board", default="3x4")
    parser.add_argument("--seconds", type=float, default=3600)
    parser.add_argument("--sample", type=float, default=30)
    parser.add_argument("--want", default="value")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    rows, cols = map(int, args.board.split("x"))
    edges = (rows + 1) * cols + rows * (cols + 1)
    rng = random.Random(args.seed)
    proc = subprocess.Popen([args.solvedb, "serve", "--stdio", "--tables", args.tables],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1 << 16)
    started = time.monotonic()
    next_sample = 0.0
    probes = errors = 0
    peak = 0
    print(f"{'seconds':>8} {'probes':>10} {'RSS MB':>8} {'peak MB':>8}", flush=True)
    while (elapsed := time.monotonic() - started) < args.seconds:
        batch = []
        for _ in range(256):
            # About five eighths of the edges drawn: mostly undecided boxes.
            bits = "".join("1" if rng.random() < 0.62 else "0" for _ in range(edges))
            batch.append(json.dumps({"game": f"dots:{args.board}",
                                     "position": f"{args.board}:{bits}",
                                     "want": args.want}))
        proc.stdin.write("\n".join(batch) + "\n")
        proc.stdin.flush()
        for _ in batch:
            answer = json.loads(proc.stdout.readline())
            errors += "error" in answer
        probes += len(batch)
        if elapsed >= next_sample:
            rss = kb(proc.pid, "VmRSS")
            peak = kb(proc.pid, "VmHWM")
            print(f"{elapsed:8.0f} {probes:10d} {rss / 1024:8.1f} {peak / 1024:8.1f}", flush=True)
            next_sample += args.sample
    rss, peak = kb(proc.pid, "VmRSS"), kb(proc.pid, "VmHWM")
    proc.stdin.close()
    proc.wait()
    print(f"{probes} probes ({errors} errors) in {time.monotonic() - started:.0f} s; "
          f"RSS at the end {rss / 1024:.1f} MB, peak {peak / 1024:.1f} MB")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
