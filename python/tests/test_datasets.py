"""The package out of the box (its own tables), the numpy batch calls, and
datasets: solvedb.datasets against probes, and a `solvedb export` Parquet
file read back with pyarrow to the same values."""

import os
import random
import subprocess
import threading
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

import solvedb
from conftest import REPO

SEED = 2024


def test_the_package_answers_from_its_own_tables(tmp_path):
    oracle = solvedb.Oracle()
    assert oracle.tables_dir is None and repr(oracle) == "Oracle()"
    report = oracle.probe("tictactoe", "X........")
    assert (report.result, report.source) == ("draw", "table")
    for game in solvedb.games():
        if game.table == "default":
            assert oracle.probe(game.name, game.start).source in ("table", "forced"), game.name
    # A directory still overrides them: an empty one has no tables.
    searched = solvedb.Oracle(tmp_path).probe("tictactoe", "X........")
    assert searched.source == "search" and searched.result == "draw"
    assert solvedb.Oracle(tmp_path).tables_dir == tmp_path


def random_positions(oracle, game, count, rng):
    """Positions from random play (finished games included)."""
    start = next(g.start for g in solvedb.games() if g.name == game)
    positions = []
    while len(positions) < count:
        position = start
        for _ in range(rng.randint(0, 40)):
            moves = oracle.moves(game, position).moves
            if not moves:
                break
            mv = rng.choice(moves).move
            position = play(game, position, mv)
        positions.append(position)
    return positions


def play(game, position, mv):
    """The position after `mv`, by the notations: a cell, or an edge."""
    if game.startswith("dots:"):
        return _dots_play(position, mv)
    cells = [c for c in position if c != "/"]
    stones = sum(c != "." for c in cells)
    cells[int(mv)] = "XO"[stones % 2]
    return "".join(cells)


def _dots_play(position, mv):
    board, bits = position.split(":")
    rows, cols = (int(s) for s in board.split("x"))
    kind, rc = mv[0], mv[1:]
    r, c = (int(s) for s in rc.split(","))
    edge = r * cols + c if kind == "h" else (rows + 1) * cols + r * (cols + 1) + c
    bits = bits or "0" * ((rows + 1) * cols + rows * (cols + 1))
    return f"{board}:{bits[:edge]}1{bits[edge + 1:]}"


def move_index(game, mv):
    if not game.startswith("dots:"):
        return int(mv)
    rows, cols = (int(s) for s in game.split(":")[1].split("x"))
    r, c = (int(s) for s in mv[1:].split(","))
    return r * cols + c if mv[0] == "h" else (rows + 1) * cols + r * (cols + 1) + c


def numbers(value_holder, dots):
    """(value, result, plies) of a Report or MoveReport, as the arrays hold them."""
    if dots:
        return value_holder.value, int(np.sign(value_holder.value))
    r = {"win": 1, "draw": 0, "loss": -1}[value_holder.result]
    return r, r, value_holder.plies


@pytest.mark.parametrize("game", ["tictactoe", "tictactoe:4x4", "cube", "dots:2x3", "dots:3x3"])
def test_probe_arrays_equal_probes_from_strings_and_codes(game):
    oracle = solvedb.Oracle()
    rng = random.Random(SEED)
    positions = random_positions(oracle, game, 200, rng)
    dots = game.startswith("dots:")
    batch = oracle.probe_arrays(game, positions)
    again = oracle.probe_arrays(game, np.ascontiguousarray(batch.code[:, 0] if dots else batch.code))
    for name in ("code", "value", "result", "plies", "move_value", "move_result", "move_plies", "legal", "stored"):
        assert np.array_equal(getattr(batch, name), getattr(again, name)), name
    assert batch.move_value.shape == (200, batch.move_slots) and batch.move_value.dtype == np.int8
    assert len(batch) == 200 and batch.game == game
    reports = oracle.probe_many(game, positions, moves=True)
    for i, report in enumerate(reports):
        assert numbers(report, dots)[:2] == (batch.value[i], batch.result[i]), report.position
        if not dots:
            assert report.plies == batch.plies[i]
        legal = {move_index(game, m.move): m for m in report.moves}
        assert set(np.flatnonzero(batch.legal[i])) == set(legal)
        for index, m in legal.items():
            assert numbers(m, dots)[0] == batch.move_value[i, index]
            if not dots:
                assert m.plies == batch.move_plies[i, index]
    # Values only: no move columns.
    assert oracle.probe_arrays(game, positions[:3], moves=False).move_value.shape == (3, 0)
    assert solvedb.notation(game, batch.code[:5]) == [r.position for r in reports[:5]]


def test_probe_arrays_refuse_bad_input():
    oracle = solvedb.Oracle()
    for game, positions in [
        ("tictactoe", np.array([[1, 1]], dtype=np.uint64)),  # overlapping stones
        ("dots:1x1", np.array([1 << 4])),  # an edge off the board
        ("tictactoe", ["XX"]),
    ]:
        assert oracle.probe_arrays(game, positions).status.tolist() == [2]
        with pytest.raises(solvedb.PositionError, match=r"^positions\[0\]:"):
            oracle.probe_arrays(game, positions, errors="raise")
    with pytest.raises(solvedb.InputError, match="^positions"):
        oracle.probe_arrays("tictactoe", np.array([[-1, 0]]))
    with pytest.raises(solvedb.InputError, match="^positions"):
        oracle.probe_arrays("tictactoe", np.zeros((2, 3), dtype=np.uint64))
    with pytest.raises(solvedb.UnsupportedGame):
        oracle.probe_arrays("chess", ["."])
    assert len(oracle.probe_arrays("tictactoe", [])) == 0
    with pytest.raises(solvedb.UnsupportedGame):
        oracle.table_arrays("qubic")


def test_the_gil_is_released_during_a_batch(tmp_path):
    searching = solvedb.Oracle(tmp_path, max_nodes=None, max_seconds=1.0)
    started, times = threading.Event(), {}

    def search():
        started.set()
        try:
            searching.probe_arrays("dots:3x4", ["3x4:" + "0" * 31])
        except solvedb.BudgetExhausted:
            pass
        times["end"] = time.monotonic()

    worker = threading.Thread(target=search)
    worker.start()
    started.wait()
    time.sleep(0.2)
    woke = time.monotonic()
    worker.join()
    assert woke < times["end"] - 0.3, (woke, times)


def test_datasets_load_every_position_with_planes_and_labels():
    data = solvedb.datasets.load("dots:3x3")
    canonical = solvedb.datasets.load("dots:3x3", sample=1000, seed=3)
    assert len(canonical) == 1000 and canonical.planes.shape == (1000, 24)
    assert canonical.spatial.shape == (1000, 2, 4, 4)
    assert data.to_move is None and data.planes.dtype == np.uint8
    # Every 3x3 mask up to the board's 8 symmetries: 2^24 / 8 and a bit.
    assert 2**24 // 8 < len(data) < 2**24 // 4
    # The empty board is the first row: the first player loses 3 boxes.
    assert data.code[0].tolist() == [0, 0] and data.value[0] == -3
    ttt = solvedb.datasets.load("tictactoe", all_symmetries=True)
    assert len(ttt) == 5478 and ttt.planes.shape == (5478, 2, 3, 3)
    assert set(np.unique(ttt.to_move)) == {0, 1}
    stones = ttt.planes.reshape(len(ttt), -1).sum(axis=1)
    assert np.array_equal(ttt.to_move, stones % 2)
    # A sample is the rows of the full list at the sampled places.
    full = solvedb.datasets.load("cube")
    sample = solvedb.datasets.load("cube", sample=500, seed=9)
    rows = {tuple(c) for c in full.code.tolist()}
    assert all(tuple(c) in rows for c in sample.code.tolist())
    assert np.array_equal(sample.code, solvedb.datasets.load("cube", sample=500, seed=9).code)
    # Labels against probes.
    oracle = solvedb.Oracle()
    for i in random.Random(SEED).sample(range(len(full)), 50):
        report = oracle.probe("cube", full.positions()[i])
        assert numbers(report, False) == (full.value[i], full.result[i], full.plies[i])


def solvedb_command():
    """The `solvedb` command: the binary $SOLVEDB names when set (scripts/test.sh
    passes the one its Rust tests built), else `cargo run --release`, which
    on a fresh clone compiles the generator and the servers first (minutes)."""
    binary = os.environ.get("SOLVEDB")
    if binary:
        assert os.access(binary, os.X_OK), f"SOLVEDB={binary} is not an executable"
        return [binary]
    return ["cargo", "run", "--release", "-q", "-p", "solvedb-generator", "--"]


def export(game, out, *extra):
    subprocess.run(
        [*solvedb_command(),
         "export", game, "--tables", str(REPO / "tables"), "--out", str(out), *extra],
        cwd=REPO, check=True,
    )


@pytest.mark.parametrize("game", ["tictactoe:4x4", "dots:2x3"])
def test_a_parquet_export_reads_back_to_the_same_values(tmp_path, game):
    out = tmp_path / "rows.parquet"
    export(game, out)
    table = pq.read_table(out)
    assert table.schema.metadata[b"solvedb.game"] == game.encode()
    loaded = solvedb.datasets.load(game)
    assert table.num_rows == len(loaded)
    read = solvedb.datasets.read_parquet(out)
    for name in ("code", "stored", "value", "result", "plies", "move_value", "move_result", "move_plies", "legal"):
        assert np.array_equal(getattr(read, name), getattr(loaded, name)), name
    # The file's own columns against probes, on random rows.
    oracle = solvedb.Oracle()
    dots = game.startswith("dots:")
    columns = table.to_pydict()
    for i in random.Random(SEED).sample(range(table.num_rows), 100):
        report = oracle.moves(game, columns["position"][i])
        if dots:
            assert columns["value"][i] == report.value
        else:
            assert (columns["result"][i], columns["plies"][i]) == numbers(report, False)[1:]
        legal = {move_index(game, m.move): m for m in report.moves}
        for index in range(loaded.legal.shape[1]):
            name = f"m{index}_value" if dots else f"m{index}_result"
            if index not in legal:
                assert columns[name][i] is None
            else:
                assert columns[name][i] == numbers(legal[index], dots)[0 if dots else 1]
    # The pandas frame has the export's columns.
    import pandas
    frame = loaded.frame()
    assert list(frame.columns) == table.column_names
    assert isinstance(frame, pandas.DataFrame) and len(frame) == table.num_rows
