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
