//! The distributed dots build under a real `mpirun` (Open MPI, several
//! ranks on this machine): its tables are byte for byte the single-process
//! build's, and a rank that dies fails the run without leaving a table.
//!
//! Built only with `--features mpi` (`required-features` in Cargo.toml),
//! as `.ci/run` does; a missing `mpirun` fails these tests, it does not skip
//! them.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SOLVEDB: &str = env!("CARGO_BIN_EXE_solvedb");

/// Runs `command` to its end, failing the test past `limit` (a hung MPI
/// job must not hang the suite).
fn run(mut command: Command, limit: Duration) -> Output {
    let described = format!("{command:?}");
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {described}: {e} (is Open MPI installed?)"));
    let started = Instant::now();
    while child.try_wait().expect("waiting").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{described} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// `mpirun -n ranks solvedb build GAME --mpi --out DIR EXTRA...`, with a
/// session directory of its own: Open MPI makes its session directory
/// under `TMPDIR` by the host's name, and two jobs started at once (the
/// tests run in parallel) can race to create the same one ("mkdir ...
/// File exists", and the job never starts).
fn mpirun(ranks: usize, game: &str, dir: &Path, extra: &[&str]) -> Output {
    let session = tempfile::tempdir().expect("a session directory for mpirun");
    let mut command = Command::new("mpirun");
    command
        // CI runs as root, and this machine may have fewer cores than ranks.
        .args(["--allow-run-as-root", "--oversubscribe", "-n"])
        .arg(ranks.to_string())
        .arg(SOLVEDB)
        .args(["build", game, "--mpi", "--out"])
        .arg(dir)
        .args(extra)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("TMPDIR", session.path());
    run(command, Duration::from_secs(600))
}

fn single_process(game: &str, dir: &Path) -> Vec<u8> {
    let mut command = Command::new(SOLVEDB);
    command.args(["build", game, "--out"]).arg(dir);
    let output = run(command, Duration::from_secs(600));
    assert!(output.status.success(), "{output:?}");
    let name = format!("dots-{}.sdb", game.trim_start_matches("dots:"));
    std::fs::read(dir.join(name)).expect("the single-process table")
}

#[test]
fn tables_on_1_2_and_4_ranks_equal_the_single_process_build() {
    let scratch = tempfile::tempdir().unwrap();
    for game in ["dots:2x3", "dots:3x3", "dots:2x4"] {
        let expected = single_process(game, &scratch.path().join("single"));
        let name = format!("dots-{}.sdb", game.trim_start_matches("dots:"));
        for ranks in [1, 2, 4] {
            let dir = scratch.path().join(format!("{ranks}-ranks"));
            let output = mpirun(ranks, game, &dir, &[]);
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "{game} on {ranks} ranks: {output:?}"
            );
            assert!(
                stdout.contains(&format!("on {ranks} MPI ranks")),
                "rank 0 reports: {stdout}"
            );
            let table = std::fs::read(dir.join(&name)).expect("the distributed table");
            assert!(
                table == expected,
                "{game} on {ranks} ranks: {} bytes differ from the single-process {} bytes",
                table.len(),
                expected.len()
            );
            let manifest = std::fs::read_to_string(dir.join("MANIFEST")).unwrap();
            assert!(manifest.contains(&name), "{manifest}");
        }
    }
}

#[test]
fn a_rank_that_dies_fails_the_run_and_leaves_no_table() {
    let scratch = tempfile::tempdir().unwrap();
    for (ranks, failing) in [(4, 1), (2, 0), (4, 3)] {
        let dir = scratch.path().join(format!("{ranks}-{failing}"));
        let output = mpirun(
            ranks,
            "dots:2x4",
            &dir,
            &["--mpi-fail-rank", &failing.to_string()],
        );
        assert!(
            !output.status.success(),
            "rank {failing} of {ranks} died, yet the run succeeded: {output:?}"
        );
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(&format!("rank {failing} aborts")),
            "{output:?}"
        );
        let left: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(
            !left.iter().any(|n| n.to_string_lossy().ends_with(".sdb")),
            "a table was left: {left:?}"
        );
    }
}

#[test]
fn a_rank_count_that_is_not_a_power_of_two_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let output = mpirun(3, "dots:2x3", scratch.path(), &[]);
    assert!(!output.status.success(), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("power of two"),
        "{output:?}"
    );
    assert!(!scratch.path().join("dots-2x3.sdb").exists());
}
