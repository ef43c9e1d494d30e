#!/usr/bin/env bash
# The whole test suite, on a fresh machine as on a developer's: installs what
# the tests need when it is missing (Debian packages with apt-get, Python
# packages with pip in target/venv), then formatting, lints, docs, the Rust
# tests, the Python package's tests, a short fuzzing run and a corruption
# sweep of the committed tables. Idempotent; every step fails the run.
set -euxo pipefail
cd "$(dirname "$0")/.."

# Debian packages: `script` (bsdutils) for the colour test under a
# pseudo-terminal; Chromium and its WebDriver for the browser tests, which
# fail, never skip, when either is missing; the venv module for Python;
# Open MPI (mpicc, mpirun) and libclang (rsmpi's bindings come from bindgen)
# for the distributed dots build.
missing=()
command -v script >/dev/null || missing+=(bsdutils)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
for package in openmpi-bin libopenmpi-dev libclang-dev; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# One clean build, not a developer's edit loop: incremental caches would
# double the target directory for nothing (a CI run once filled its disk).
export CARGO_INCREMENTAL=0
df -h . || true

cargo fmt --all -- --check
cargo fmt --manifest-path python/Cargo.toml -- --check

# The Python package's build (python/: its own Cargo workspace, see
# python/Cargo.toml) needs nothing the Rust steps below make, so it runs
# beside them at the lowest priority, on the cycles they leave idle (a
# build's serial stretches, the browser and MPI tests' waits): lint its
# crate; make a virtualenv with OpenSpiel, the learning libraries
# (Gymnasium, PettingZoo, Hugging Face datasets), mypy and pytest from
# PyPI; build the package into it; type-check it (mypy --strict, and
# stubtest, which compares the installed package with its stubs and runs
# from outside python/, whose source package has no compiled module).
# PyTorch is not installed: its CPU wheel is only on PyTorch's own index,
# and PyPI's Linux wheel brings gigabytes of CUDA libraries; the to_torch
# test runs wherever torch is importable. In the foreground these steps
# took about 230 s of a CI run.
mkdir -p target
python_package() {
    cargo clippy --manifest-path python/Cargo.toml --all-targets -- -D warnings
    [ -x target/venv/bin/pip ] || python3 -m venv target/venv
    target/venv/bin/pip install --quiet pytest pytest-xdist open_spiel numpy \
        pyarrow pandas gymnasium pettingzoo datasets mypy
    target/venv/bin/pip install --quiet ./python
    (cd python && ../target/venv/bin/mypy --strict --cache-dir ../target/mypy-cache -p solvedb)
    (cd target && venv/bin/python -m mypy.stubtest solvedb \
        --mypy-config-file ../python/pyproject.toml --allowlist ../python/stubtest-allowlist.txt)
}
# In its own process group (job control on for the launch), so that a run
# that fails first stops it and everything it started.
set -m
(renice -n 19 "$BASHPID" >/dev/null && python_package) > target/python-package.log 2>&1 &
python_package_job=$!
set +m
trap 'kill -- "-$python_package_job" 2>/dev/null || true' EXIT

# Every check builds with the distributed dots build (cargo feature `mpi`
# of the generator) switched on: one compile serves the single-process code
# and the MPI code, and `cargo test` runs the MPI tests (1, 2 and 4 ranks
# under mpirun against the single-process build, a rank that dies) with the
# rest. A second build with and without the feature cost 3.5 minutes of a
# CI run. The code only a build without MPI has (the commands' "built
# without MPI" errors) is linted by the no-default-features run.
mpi=(--features solvedb-generator/mpi)
cargo clippy --workspace --all-targets "${mpi[@]}" -- -D warnings
# The table tools alone, without the servers (no axum, tokio or SQLite).
cargo clippy -p solvedb-generator --no-default-features -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace "${mpi[@]}"
# Includes the import-cycle check (tests/tests/module_graph.rs) and the
# catalogue's check that every face offers every game. The examples, which
# clippy has compiled, are not built again (16 s of the test build).
cargo test --workspace --tests "${mpi[@]}"
cargo test --workspace --doc "${mpi[@]}"

# The export tests run the `solvedb` `cargo test` built (the test profile,
# optimised, with MPI); without SOLVEDB they would `cargo run --release`, a
# second compile of the whole workspace (210 s of a run on a fresh clone).
solvedb=target/debug/solvedb
[ -x "$solvedb" ] || { echo "scripts/test.sh: no $solvedb (cargo test builds it for the generator's tests)" >&2; exit 1; }
# The HTTP server against hostile clients, a short form (about 50 s): dripped
# bodies, a refusal before the body, malformed positions while the searches
# are full, a session's move under one deadline, a flood of rooms (with empty
# rooms giving way after 5 s instead of 45) and of spectators, WebSocket frames
# that break RFC 6455 and lying room messages; it exits 1 on a missed goal.
python3 scripts/hostile_load.py "$solvedb" drip keepalive-refusal malformed-busy session-deadline \
    room-flood-short spectator-flood ws-protocol
# The fuzzer and the sweep run that `solvedb` too: `cargo solvedb` would
# compile the whole workspace once more in the release profile. The fuzzer
# runs on one core, the sweep beside it on every core.
"$solvedb" fuzz --seconds 20 --seed "$(date +%s)" &
fuzz_job=$!
"$solvedb" sweep tables/*.sdb
wait "$fuzz_job"
# Python's side (above), its log shown whether it passed or failed: the
# steps before this need only `solvedb`, and the hostile clients' waits
# leave it cycles to finish on.
wait "$python_package_job" || { cat target/python-package.log >&2; exit 1; }
cat target/python-package.log
# The Python suite against tables/, with every docstring, stub and README
# example as a doctest (pytest exits 5 when it collected no test, which
# `set -e` turns into a failure too). On every core (pytest-xdist): one
# process ran the suite in about 62 s, two in 37 s; the tests share nothing
# but the read-only tables.
SOLVEDB="$PWD/$solvedb" target/venv/bin/pytest -p no:cacheprovider -n auto -rA --durations=10 python/tests

# What the run left on disk, for the next time a machine runs short.
du -sh target || true
