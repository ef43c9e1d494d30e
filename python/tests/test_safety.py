"""Safe defaults: the CLI's search budget, Ctrl-C, missing directories,
one default oracle, typed input errors, per-row batch status."""

import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import solvedb
import solvedb.datasets
import solvedb.openspiel as sos
from test_datasets import solvedb_command

# X opens on an edge cell: not a move of the committed strategy, so Qubic's
# table does not cover the position and every answer is a live search that
# runs far beyond any budget here.
QUBIC_OFF_STRATEGY = "." + "X" + "." * 62


def test_the_default_budget_is_the_clis():
    help_text = subprocess.run(
        [*solvedb_command(), "probe", "--help"], capture_output=True, text=True, check=True
    ).stdout
    cli_default = int(re.search(r"--nodes <NODES>.*?\[default: (\d+)\]", help_text, re.S).group(1))
    assert solvedb.DEFAULT_MAX_NODES == cli_default
    assert solvedb.Oracle().max_nodes == cli_default
    assert solvedb.Oracle(max_nodes=None).max_nodes is None
    assert solvedb.Oracle(max_nodes=5).max_nodes == 5
    # The default budget stops a search the table does not cover.
    with pytest.raises(solvedb.BudgetExhausted):
        solvedb.Oracle().probe("qubic", QUBIC_OFF_STRATEGY)


@pytest.mark.parametrize("call", [
    f"oracle.probe('qubic', {QUBIC_OFF_STRATEGY!r})",
    f"oracle.probe_arrays('qubic', [{QUBIC_OFF_STRATEGY!r}], moves=False)",
    f"oracle.probe_many('qubic', ['.' * 64, {QUBIC_OFF_STRATEGY!r}])",
])
def test_ctrl_c_interrupts_a_search(call):
    # A search without a budget, in a child process; SIGINT must end it
    # with KeyboardInterrupt rather than run it to its (hours away) end.
    # Python turns SIGINT into KeyboardInterrupt only if SIGINT was not
    # ignored when it started, and a run started in the background by a
    # shell without job control (`pytest &` in a script) passes it on
    # ignored: the child sets Python's own handler, as an interactive
    # session has.
    script = (
        "import signal, solvedb, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "oracle = solvedb.Oracle(max_nodes=None)\n"
        "print('searching', flush=True)\n"
        "try:\n"
        f"    {call}\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "searching"
        time.sleep(1.0)
        assert child.poll() is None, "the search ended by itself"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
        print(f"interrupted {time.monotonic() - sent:.3f} s after SIGINT")
    finally:
        if child.poll() is None:
            child.kill()
    assert (child.returncode, out.strip()) == (3, "interrupted")


def test_a_tables_directory_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(solvedb.IoError, match="does not exist"):
        solvedb.Oracle(tmp_path / "nonexistent")
    with pytest.raises(solvedb.IoError, match="does not exist"):
        solvedb.Oracle("/nonexistent/dir")


def test_every_helper_uses_the_built_in_tables(tmp_path, monkeypatch):
    # From a directory without tables, the helpers still answer from the
    # built-in tables (no "./tables", no search).
    monkeypatch.chdir(tmp_path)
    default = solvedb.default_oracle()
    assert default is solvedb.default_oracle() and default.tables_dir is None
    assert sos.default_oracle is solvedb.default_oracle
    pyspiel = pytest.importorskip("pyspiel")
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    state.apply_action(4)
    assert sos.value(state) == 0.0
    bot = sos.PerfectBot(pyspiel.load_game("tic_tac_toe"), 0)
    assert "Oracle()" in repr(bot)
    report = default.moves("dots:3x3", "3x3:")
    assert report.source == "table"


def test_arguments_of_the_wrong_type_name_themselves():
    oracle = solvedb.Oracle()
    cases = [
        (lambda: oracle.probe(3, "........."), "game"),
        (lambda: oracle.probe("tictactoe", 5), "position"),
        (lambda: oracle.probe_arrays("tictactoe", np.array([1, 16])), "positions"),
        (lambda: oracle.probe_arrays("tictactoe", np.zeros((2, 2), dtype=np.float64)), "positions"),
        (lambda: oracle.probe_arrays("tictactoe", np.zeros((2, 3), dtype=np.uint64)), "positions"),
        (lambda: oracle.probe_arrays("tictactoe", np.array([[-1, 0]])), "positions"),
        (lambda: oracle.probe_arrays("tictactoe", "........."), "positions"),
        (lambda: oracle.probe_many("tictactoe", 7), "positions"),
        (lambda: oracle.probe_many("tictactoe", [], errors="ignore"), "errors"),
        (lambda: solvedb.Oracle(max_nodes=-1), "max_nodes"),
        (lambda: solvedb.Oracle(max_nodes=1.5), "max_nodes"),
        (lambda: solvedb.Oracle(max_seconds=-1.0), "max_seconds"),
        (lambda: solvedb.Oracle(max_seconds="1"), "max_seconds"),
        (lambda: solvedb.Oracle(3.5), "tables_dir"),
        (lambda: oracle.table_arrays("tictactoe", sample=0), "sample"),
        (lambda: oracle.table_arrays("tictactoe", sample=-1), "sample"),
        (lambda: oracle.table_arrays("tictactoe", seed=-1), "seed"),
        (lambda: solvedb.datasets.load("tictactoe", sample=0), "sample"),
        (lambda: solvedb.datasets.load("tictactoe", sample=-1), "sample"),
        (lambda: solvedb.notation("tictactoe", np.array([1.0])), "codes"),
    ]
    for call, name in cases:
        with pytest.raises(solvedb.InputError, match=f"^{re.escape(name)}"):
            call()
    # A 1-D array is dots' drawn edges, where it is meant.
    assert oracle.probe_arrays("dots:1x1", np.array([0, 1])).status.tolist() == [0, 0]


def test_batches_answer_row_by_row():
    budget = solvedb.Oracle(max_nodes=1000)
    positions = [".........", "XXXX.....", "X........", 17, "XX./OO./..."]
    rows = budget.probe_many("tictactoe", positions)
    assert [type(r).__name__ for r in rows] == ["Report", "RowError", "Report", "RowError", "Report"]
    assert [r.index for r in rows if isinstance(r, solvedb.RowError)] == [1, 3]
    assert rows[1].status == "bad input" and isinstance(rows[1].error, solvedb.PositionError)
    assert isinstance(rows[3].error, solvedb.InputError)
    assert str(rows[1].error).startswith("positions[1]:")
    assert rows[4].result == solvedb.Oracle().probe("tictactoe", "XX./OO./...").result
    with pytest.raises(solvedb.PositionError, match=r"^positions\[1\]:"):
        budget.probe_many("tictactoe", positions, errors="raise")

    # A search out of its budget is "unknown", for that row alone.
    searched = budget.probe_many("qubic", ["." * 64, QUBIC_OFF_STRATEGY, "X" * 64])
    assert type(searched[0]).__name__ == "Report"
    assert (searched[1].status, searched[2].status) == ("unknown", "bad input")
    assert isinstance(searched[1].error, solvedb.BudgetExhausted)

    # (Values only: with every move's, the empty board is unknown too, as
    # the strategy leaves 48 of its moves to a search.)
    arrays = budget.probe_arrays("qubic", ["." * 64, QUBIC_OFF_STRATEGY, "X" * 64, 5], moves=False)
    assert arrays.status.tolist() == [0, 1, 2, 2]
    assert budget.probe_arrays("qubic", ["." * 64]).status.tolist() == [1]
    assert [e.index for e in arrays.errors] == [1, 2, 3]
    assert arrays.value[0] == 1 and arrays.value[1:].tolist() == [0, 0, 0]
    with pytest.raises(solvedb.BudgetExhausted, match=r"^positions\[1\]:"):
        budget.probe_arrays("qubic", ["." * 64, QUBIC_OFF_STRATEGY], moves=False, errors="raise")

    # Codes: a bad code among many good ones fails only its row; the
    # other rows equal the all-good batch's.
    oracle = solvedb.Oracle()
    good = solvedb.datasets.load("tictactoe").code
    codes = good.copy()
    codes[100] = [1, 1]  # overlapping stones
    batch = oracle.probe_arrays("tictactoe", codes)
    assert np.flatnonzero(batch.status).tolist() == [100] and batch.errors[0].index == 100
    whole = oracle.probe_arrays("tictactoe", good)
    keep = np.arange(len(good)) != 100
    for name in ("value", "plies", "move_value", "legal"):
        assert np.array_equal(getattr(batch, name)[keep], getattr(whole, name)[keep]), name
    with pytest.raises(solvedb.PositionError, match=r"^positions\[100\]:"):
        oracle.probe_arrays("tictactoe", codes, errors="raise")


def test_version():
    from importlib.metadata import version

    assert solvedb.__version__ == version("solvedb")
    assert re.fullmatch(r"\d+\.\d+\.\d+", solvedb.__version__)
