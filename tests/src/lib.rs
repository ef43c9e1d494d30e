//! Helpers shared by the integration tests: independent reference
//! implementations that share no code with the library they check.

pub mod explorer;
pub mod module_graph;
pub mod plain_qubic;
pub mod plain_tictactoe;
pub mod plain_tictactoe_4x4;
pub mod webdriver;

use std::path::PathBuf;

use solvedb_lookup::games::qubic::SYMMETRIES;
use solvedb_lookup::{Game, Qubic, QubicBoard};

/// Runs the `solvedb` command line in-process, returning the exit code,
/// standard output and standard error.
pub fn solvedb(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("solvedb").chain(args.iter().copied());
    let code = solvedb_generator::cli::main_with(argv, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).expect("utf-8 output"),
        String::from_utf8(err).expect("utf-8 errors"),
    )
}

/// As [`solvedb`], with `input` as standard input.
pub fn solvedb_with_input(args: &[&str], input: &str) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("solvedb").chain(args.iter().copied());
    let code = solvedb_generator::cli::main_with_input(
        argv,
        &mut input.as_bytes(),
        &mut out,
        &mut err,
        solvedb_generator::cli::Terminal::default(),
    );
    (
        code,
        String::from_utf8(out).expect("utf-8 output"),
        String::from_utf8(err).expect("utf-8 errors"),
    )
}

/// The repository's `tables/` directory.
pub fn committed_tables() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables")
}

/// XXH3-64, for tests that forge checksums to reach deeper checks.
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The image of a Qubic `board` under the library's symmetry `s`,
/// written through the notation (each cell moved by `SYMMETRIES[s]`).
pub fn qubic_image(board: QubicBoard, s: usize) -> QubicBoard {
    let text: Vec<char> = Qubic
        .notation(board)
        .chars()
        .filter(|&c| c != '/')
        .collect();
    let mut out = vec!['.'; 64];
    for (cell, &ch) in text.iter().enumerate() {
        out[usize::from(SYMMETRIES[s][cell])] = ch;
    }
    Qubic
        .parse(&out.into_iter().collect::<String>())
        .expect("a symmetric image of a legal position is legal")
}
