#!/usr/bin/env python3
"""A dots export checked (docs/datasets.md, "How to check it").

Reads back a seeded random sample of a Parquet export's rows and compares
each with the package's probes (Oracle.moves: the report path, not the
arrays the export is made from), then counts every row, checks they ascend
by edge set and equals the count to Burnside's count of edge sets up to the
board's symmetries, computed here from the board's geometry.

Usage: scripts/check_export.py FILE.parquet TABLES_DIR N SEED [--whole]
(--whole: the file is a whole export, not a sample, and its rows must be
Burnside's count.)
(Python with pyarrow and the solvedb package, e.g. target/venv.)"""
import random
import sys

import pyarrow.parquet as pq
import solvedb

path, tables, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
whole = sys.argv[5:] == ["--whole"]
f = pq.ParquetFile(path)
meta = f.metadata
game = meta.metadata[b"solvedb.game"].decode()
rows, cols = map(int, game.split(":")[1].split("x"))
edges = (rows + 1) * cols + rows * (cols + 1)


def edge_index(name):
    kind, rc = name[0], name[1:]
    r, c = map(int, rc.split(","))
    return r * cols + c if kind == "h" else (rows + 1) * cols + r * (cols + 1) + c


total = meta.num_rows
starts = []
at = 0
for g in range(meta.num_row_groups):
    starts.append(at)
    at += meta.row_group(g).num_rows
assert at == total
rng = random.Random(seed)
picks = sorted(rng.sample(range(total), n))
oracle = solvedb.Oracle(tables)
checked = 0
by_group = {}
for p in picks:
    g = max(i for i, s in enumerate(starts) if s <= p)
    by_group.setdefault(g, []).append(p - starts[g])
prev = None
for g, places in by_group.items():
    table = f.read_row_group(g).to_pydict()
    for i in places:
        pos = table["position"][i]
        mask = table["edges"][i]
        assert pos == f"{rows}x{cols}:" + "".join("1" if mask >> e & 1 else "0" for e in range(edges)), pos
        assert table["ply"][i] == bin(mask).count("1")
        report = oracle.moves(game, pos)
        assert table["value"][i] == report.value, (pos, table["value"][i], report.value)
        expected = {edge_index(m.move): m.value for m in report.moves}
        for e in range(edges):
            got = table[f"m{e}_value"][i]
            assert got == expected.get(e), (pos, e, got, expected.get(e))
        checked += 1
print(f"{game}: {total} rows in {meta.num_row_groups} row groups; {checked} sampled rows "
      f"(seed {seed}) equal Oracle.moves, value and every move by edge index")

# Every canonical edge set is a row (stored, or a free capture resolved by
# rule): Burnside's count of edge sets up to the board's symmetries, from
# the geometry here, against the rows counted. Rows ascend by edge set.
def dots_of(e):
    if e < (rows + 1) * cols:
        r, c = divmod(e, cols)
        return frozenset([(r, c), (r, c + 1)])
    r, c = divmod(e - (rows + 1) * cols, cols + 1)
    return frozenset([(r, c), (r + 1, c)])


index = {dots_of(e): e for e in range(edges)}
maps = [lambda r, c: (r, cols - c), lambda r, c: (rows - r, c), lambda r, c: (rows - r, cols - c)]
if rows == cols:
    maps += [lambda r, c: (c, r), lambda r, c: (cols - c, rows - r),
             lambda r, c: (c, rows - r), lambda r, c: (cols - c, r)]
fixed = [1 << edges]
for m in maps:
    perm = [index[frozenset(m(*d) for d in dots_of(e))] for e in range(edges)]
    seen, cycles = set(), 0
    for e in range(edges):
        if e not in seen:
            cycles += 1
            while e not in seen:
                seen.add(e)
                e = perm[e]
    fixed.append(1 << cycles)
burnside = sum(fixed) // len(fixed)
last, counted = -1, 0
for g in range(meta.num_row_groups):
    col = f.read_row_group(g, columns=["edges"]).column(0).to_pylist()
    assert all(a < b for a, b in zip([last] + col, col)), f"row group {g} out of order"
    last = col[-1]
    counted += len(col)
print(f"rows counted {counted}, Burnside's count of canonical edge sets {burnside}: "
      f"{'equal' if counted == burnside else 'different'}; ascending by edge set")
assert counted == total
if whole:
    assert counted == burnside
