//! The real `solvedb` binary: exit codes and output streams (the commands
//! themselves are tested in-process in the `tests` package).

use std::process::Command;

fn solvedb() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_solvedb"));
    command.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    command
}

#[test]
fn a_probe_succeeds_on_stdout() {
    let output = solvedb()
        .args(["probe", "tictactoe", "X../.O./..."])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("value    draw"), "{stdout}");
}

#[test]
fn bad_input_exits_non_zero_with_the_error_on_stderr() {
    let output = solvedb()
        .args(["probe", "tictactoe", "XXXX"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("9 cells, found 4"), "{stderr}");
}

/// A build killed at a random moment never leaves a table under its final
/// name unless it is complete and valid, and a rebuild afterwards writes the
/// same bytes as an undisturbed build.
#[test]
fn a_build_killed_at_random_moments_leaves_no_partial_table() {
    let reference = solvedb_generator::cli::build_table(&solvedb_lookup::TicTacToe, 19).1;
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("tictactoe.sdb");
    let mut rng = solvedb_generator::fuzz::Rng::new(11);
    let (mut killed, mut finished) = (0, 0);
    for _ in 0..40 {
        let _ = std::fs::remove_file(&table);
        let mut child = solvedb()
            .args(["build", "tictactoe", "--out"])
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(rng.below(30_000)));
        match child.try_wait().unwrap() {
            Some(_) => finished += 1,
            None => {
                child.kill().unwrap(); // SIGKILL
                killed += 1;
            }
        }
        child.wait().unwrap();
        if table.exists() {
            let bytes = std::fs::read(&table).unwrap();
            assert_eq!(
                bytes, reference,
                "a table appeared under its final name incomplete"
            );
        }
    }
    assert!(
        killed > 0,
        "no build was interrupted ({finished} finished first)"
    );
    let status = solvedb()
        .args(["build", "tictactoe", "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read(&table).unwrap(), reference);
    // The rebuild swept away what the killed builds left half-written.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// While another process rebuilds the table into place again and again (at
/// two compression levels, so the bytes differ), every open of the table
/// sees one complete, valid version and answers correctly.
#[test]
fn probes_stay_correct_while_another_process_rebuilds_the_table() {
    use solvedb_lookup::{Game, GameOracle, TicTacToe, read_table};

    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("tictactoe.sdb");
    let build = |level: &str| {
        solvedb()
            .args(["build", "tictactoe", "--level", level, "--out"])
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap()
    };
    assert!(build("19").success());
    let truth = GameOracle::<_, Vec<u8>>::search_only(TicTacToe);
    let probe_set: Vec<_> = ["X../.O./...", ".........", "XO./.X./..O", "XX./OO./..."]
        .iter()
        .map(|t| TicTacToe.parse(t).unwrap())
        .collect();
    let expected: Vec<_> = probe_set.iter().map(|&p| truth.probe(p).unwrap()).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            for round in 0..30 {
                assert!(build(if round % 2 == 0 { "1" } else { "19" }).success());
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let mut opens = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let oracle = GameOracle::with_table(TicTacToe, read_table(&table).unwrap()).unwrap();
            oracle.table().unwrap().verify().unwrap();
            for (&p, want) in probe_set.iter().zip(&expected) {
                assert_eq!(&oracle.probe(p).unwrap(), want);
            }
            opens += 1;
        }
        assert!(opens > 0);
    });
}
