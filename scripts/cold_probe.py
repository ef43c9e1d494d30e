#!/usr/bin/env python3
"""Cold probes from every face: the time and resident memory of one fresh
process's first answer from a table, for `solvedb probe`, `serve --stdio`,
`serve --http` and the Python package (docs/tables-on-demand.md).

    scripts/cold_probe.py SOLVEDB TABLES GAME POSITION [--rounds N]
        [--evict] [--python PYTHON] [--faces cli,stdio,http,python]

Each round starts each face afresh; with --evict the table files are first
dropped from the page cache (posix_fadvise DONTNEED), so the first answer
reads them from the disk. Prints the median and range over the rounds.
Every answer asks for every move's value (`want=moves`), as `probe` does.
"""

import argparse
import glob
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse


def evict(tables):
    for path in glob.glob(os.path.join(tables, "*.sdb")):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cli(args):
    """Wall time of the whole `probe` process, less that of `--version`
    (the process's start and exit), and its peak RSS (from /usr/bin/time:
    a child's rusage here would count the Python that forked it)."""
    def run(argv):
        started = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, check=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return time.perf_counter() - started, int(done.stderr.split()[-1])
    base, _ = run([args.solvedb, "--version"])
    wall, peak = run([args.solvedb, "probe", args.game, args.position,
                      "--tables", args.tables, "--json"])
    return {"first answer ms": (wall - base) * 1e3, "peak RSS MB": peak / 1024}


def stdio(args):
    proc = subprocess.Popen([args.solvedb, "serve", "--stdio", "--tables", args.tables],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stderr.readline()  # the banner: the server is up
    request = json.dumps({"game": args.game, "position": args.position}) + "\n"
    times = []
    for _ in range(2):
        started = time.perf_counter()
        proc.stdin.write(request)
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        times.append(time.perf_counter() - started)
        assert answer.get("source") == "table", answer
    rss, peak = status_kb(proc.pid, "VmRSS"), status_kb(proc.pid, "VmHWM")
    proc.stdin.close()
    proc.wait()
    return {"first answer ms": times[0] * 1e3, "second answer ms": times[1] * 1e3,
            "RSS MB": rss / 1024, "peak RSS MB": peak / 1024}


def http(args):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tempfile.mkdtemp(prefix="solvedb-cold-")
    started = time.perf_counter()
    proc = subprocess.Popen([args.solvedb, "serve", "--http", "--addr", f"127.0.0.1:{port}",
                             "--tables", args.tables, "--data", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.05).close()
            break
        except OSError:
            time.sleep(0.002)
    ready = time.perf_counter() - started
    query = urllib.parse.urlencode({"game": args.game, "position": args.position})
    request = (f"GET /api/v1/probe?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               "Connection: close\r\n\r\n").encode()
    times = []
    for _ in range(2):
        started = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(request)
            reply = b""
            while chunk := conn.recv(65536):
                reply += chunk
        times.append(time.perf_counter() - started)
        assert b'"source":"table"' in reply, reply[:300]
    rss, peak = status_kb(proc.pid, "VmRSS"), status_kb(proc.pid, "VmHWM")
    proc.terminate()
    proc.wait()
    return {"ready ms": ready * 1e3, "first answer ms": times[0] * 1e3,
            "second answer ms": times[1] * 1e3, "RSS MB": rss / 1024,
            "peak RSS MB": peak / 1024}


PYTHON_FACE = r"""
import json, sys, time
def kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
import solvedb
before = kb("VmRSS")
started = time.perf_counter()
oracle = solvedb.Oracle(sys.argv[1])
report = oracle.moves(sys.argv[2], sys.argv[3])
first = time.perf_counter() - started
started = time.perf_counter()
oracle.moves(sys.argv[2], sys.argv[3])
second = time.perf_counter() - started
assert report.source == "table"
print(json.dumps({"first answer ms": first * 1e3, "second answer ms": second * 1e3,
                  "RSS MB": kb("VmRSS") / 1024, "RSS added MB": (kb("VmRSS") - before) / 1024,
                  "peak RSS MB": kb("VmHWM") / 1024}))
"""


def python(args):
    out = subprocess.run([args.python, "-c", PYTHON_FACE, args.tables, args.game, args.position],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("solvedb")
    parser.add_argument("tables")
    parser.add_argument("game")
    parser.add_argument("position")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--evict", action="store_true")
    parser.add_argument("--python", default=None)
    parser.add_argument("--faces", default="cli,stdio,http,python")
    args = parser.parse_args()
    faces = {"cli": cli, "stdio": stdio, "http": http, "python": python}
    chosen = [f for f in args.faces.split(",") if f != "python" or args.python]
    results = {face: [] for face in chosen}
    for _ in range(args.rounds):
        for face in chosen:
            if args.evict:
                evict(args.tables)
            results[face].append(faces[face](args))
    print(f"{args.rounds} rounds, {'page cache evicted' if args.evict else 'page cache warm'}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for face, rows in results.items():
        cells = []
        for key in rows[0]:
            values = [row[key] for row in rows]
            cells.append(f"{key} {statistics.median(values):.2f} "
                         f"({min(values):.2f}-{max(values):.2f})")
        print(f"{face:<7} " + "; ".join(cells))


if __name__ == "__main__":
    sys.exit(main())
