//! The distributed dots build and the spread dots search under a real
//! `mpirun` (Open MPI, several ranks on this machine): the build's tables
//! are byte for byte the single-process build's, the search's values the
//! single-process search's; a rank that dies fails the run (without
//! leaving a table), and a stopped search resumes from its checkpoint.
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
    let mut args = vec!["build", game, "--mpi", "--out"];
    let dir = dir.to_str().expect("a UTF-8 path");
    args.push(dir);
    args.extend_from_slice(extra);
    mpirun_solvedb(ranks, &args)
}

/// `mpirun -n ranks solvedb ARGS...` (see [`mpirun`]).
fn mpirun_solvedb(ranks: usize, args: &[&str]) -> Output {
    let session = tempfile::tempdir().expect("a session directory for mpirun");
    let mut command = Command::new("mpirun");
    command
        // CI runs as root, and this machine may have fewer cores than ranks.
        .args(["--allow-run-as-root", "--oversubscribe", "-n"])
        .arg(ranks.to_string())
        .arg(SOLVEDB)
        .args(args)
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

/// The committed 5x5 positions with 36 undrawn edges (the smallest set of
/// `solvedb bench dots:endgame`), and two smaller boards' positions.
fn search_positions() -> Vec<(String, String)> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/dots-endgame.positions");
    let text = std::fs::read_to_string(file).expect("the committed positions");
    let mut positions: Vec<String> = text
        .lines()
        .skip_while(|l| *l != "# 5x5, 36 undrawn")
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert_eq!(positions.len(), 7, "the 5x5 U=36 set");
    positions.extend(
        [
            "3x3:h0,0 v1,1 h3,2",
            "4x4:h0,0 h4,3 v1,2 v2,0 h2,2 v3,4 h1,1 v0,3 h3,1 v2,4 h4,0 v1,0 h0,2 v3,2",
        ]
        .map(str::to_string),
    );
    positions
        .into_iter()
        .map(|p| {
            let game = format!("dots:{}", p.split(':').next().unwrap());
            (game, p)
        })
        .collect()
}

/// The value line's margin of a `solvedb search` answer.
fn value_of(stdout: &str) -> i32 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("value"))
        .unwrap_or_else(|| panic!("no value in {stdout}"));
    line.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no margin in {line:?}"))
}

fn single_process_value(game: &str, position: &str) -> i32 {
    let mut command = Command::new(SOLVEDB);
    command.args(["search", game, position, "--no-budget", "--threads", "1"]);
    let output = run(command, Duration::from_secs(600));
    assert!(output.status.success(), "{output:?}");
    value_of(&String::from_utf8_lossy(&output.stdout))
}

/// `mpirun -n ranks solvedb search GAME POS --mpi` with small tables.
fn spread_search(ranks: usize, game: &str, position: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "search",
        game,
        position,
        "--mpi",
        "--threads",
        "1",
        "--table-mib",
        "16",
    ];
    args.extend_from_slice(extra);
    mpirun_solvedb(ranks, &args)
}

#[test]
fn searches_on_1_2_and_4_ranks_equal_the_single_process_search() {
    for (game, position) in search_positions() {
        let expected = single_process_value(&game, &position);
        for ranks in [1, 2, 4] {
            let output = spread_search(ranks, &game, &position, &[]);
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "{position} on {ranks} ranks: {output:?}"
            );
            assert!(
                stdout.contains(&format!("on {ranks} MPI ranks")),
                "{stdout}"
            );
            assert_eq!(
                value_of(&stdout),
                expected,
                "{position} on {ranks} ranks: {stdout}"
            );
        }
    }
}

#[test]
fn a_rank_that_dies_ends_the_search_with_an_error() {
    let (game, position) = search_positions().remove(0);
    for (ranks, failing) in [(4, 1), (2, 0), (4, 3)] {
        let rank = failing.to_string();
        let output = spread_search(ranks, &game, &position, &["--mpi-fail-rank", &rank]);
        assert!(
            !output.status.success(),
            "rank {failing} of {ranks} died, yet the search succeeded: {output:?}"
        );
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(&format!("rank {failing} aborts")),
            "{output:?}"
        );
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains("value"),
            "{output:?}"
        );
    }
}

#[test]
fn a_stopped_search_resumes_from_its_checkpoint_with_the_same_answer() {
    let (game, position) = search_positions().remove(1);
    let expected = single_process_value(&game, &position);
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("checkpoint");
    let dir = dir.to_str().unwrap();
    let stopped = spread_search(
        2,
        &game,
        &position,
        &["--checkpoint", dir, "--mpi-stop-after", "4"],
    );
    assert!(!stopped.status.success(), "{stopped:?}");
    assert!(
        String::from_utf8_lossy(&stopped.stderr).contains("stops after 4 answers"),
        "{stopped:?}"
    );
    let facts = std::fs::read_to_string(Path::new(dir).join("facts")).expect("the checkpoint");
    let kept = facts.lines().count() - 3;
    assert!(kept >= 1, "{facts}");
    // Resumed on another number of ranks: the split is the checkpoint's.
    let resumed = spread_search(4, &game, &position, &["--checkpoint", dir]);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.status.success(), "{resumed:?}");
    assert_eq!(value_of(&stdout), expected, "{stdout}");
    assert!(
        stdout.contains(&format!("; {kept} from the checkpoint")),
        "{stdout}"
    );
    // Once finished, the checkpoint alone answers: no job is sent.
    let again = spread_search(1, &game, &position, &["--checkpoint", dir]);
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{again:?}");
    assert_eq!(value_of(&stdout), expected, "{stdout}");
    assert!(stdout.contains("jobs     0 (0 cancelled)"), "{stdout}");
}

#[test]
fn searches_that_share_proved_bounds_agree_with_the_single_process_search() {
    let runs: [&[&str]; 3] = [
        &["--share-plies", "1", "--share-min-work", "1"],
        &["--share-plies", "3"],
        &[],
    ];
    for (game, position) in search_positions().into_iter().step_by(2) {
        let expected = single_process_value(&game, &position);
        for (ranks, extra) in [2, 4].into_iter().flat_map(|r| runs.map(|e| (r, e))) {
            let output = spread_search(ranks, &game, &position, extra);
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "{position} {extra:?}: {output:?}");
            assert_eq!(
                value_of(&stdout),
                expected,
                "{position} on {ranks} ranks {extra:?}: {stdout}"
            );
            let relayed = stdout
                .lines()
                .find_map(|l| l.strip_prefix("facts"))
                .and_then(|l| l.split_whitespace().next()?.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("no facts line in {stdout}"));
            let sharing = extra.contains(&"--share-plies");
            assert!(
                sharing || relayed == 0,
                "{position} {extra:?}: {relayed} facts relayed without sharing"
            );
        }
    }
}
