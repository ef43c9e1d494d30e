//! The `solvedb` command line, run in-process: build, verify, info, probe and
//! every kind of bad input.

use serde_json::Value;
use solvedb_tests::{committed_tables, plain_tictactoe as plain, solvedb};

fn tables() -> String {
    committed_tables().to_str().unwrap().to_owned()
}

#[test]
fn build_writes_a_table_that_verify_accepts_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = solvedb(&["build", "tictactoe", "--out", out]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("5478") && stdout.contains("765"),
        "{stdout}"
    );
    let file = dir.path().join("tictactoe.sdb");
    let manifest = std::fs::read_to_string(dir.path().join("MANIFEST")).unwrap();
    let len = std::fs::metadata(&file).unwrap().len();
    assert!(
        manifest.contains(&format!("tictactoe.sdb {len} ")),
        "{manifest}"
    );
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");

    let (code, stdout, stderr) = solvedb(&["verify", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("consistency ok: each of 765 stored positions"),
        "{stdout}"
    );

    let (code, stdout, _) = solvedb(&["info", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("game            tictactoe"), "{stdout}");
}

#[test]
fn probe_json_has_the_documented_shape_and_plain_minimax_values() {
    for board in [[b'.'; 9], *b"X...O...X", *b"XX.OO...."] {
        let text = plain::notation(&board);
        let (code, stdout, stderr) =
            solvedb(&["probe", "tictactoe", &text, "--tables", &tables(), "--json"]);
        assert_eq!(code, 0, "{stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["game"], "tictactoe");
        assert_eq!(v["position"], text);
        assert_eq!(v["to_move"], (plain::to_move(&board) as char).to_string());
        assert_eq!(v["source"], "table");
        let (result, plies) = plain::solve(&board);
        assert_eq!(
            (v["result"].as_str().unwrap(), v["plies"].as_u64().unwrap()),
            (result, u64::from(plies))
        );
        let moves = v["moves"].as_array().unwrap();
        assert_eq!(moves.len(), plain::children(&board).len());
        assert_eq!(moves[0]["result"], v["result"]);
        assert_eq!(moves[0]["plies"], v["plies"]);
        for m in moves {
            let cell: usize = m["move"].as_str().unwrap().parse().unwrap();
            let mut child = board;
            child[cell] = plain::to_move(&board);
            let (r, p) = plain::solve(&child);
            let mine = match r {
                "win" => "loss",
                "loss" => "win",
                _ => "draw",
            };
            assert_eq!(m["result"], mine);
            assert_eq!(m["plies"].as_u64().unwrap(), u64::from(p) + 1);
        }
    }
}

#[test]
fn probe_without_a_table_searches_and_says_so() {
    let empty = tempfile::tempdir().unwrap();
    let (code, stdout, _) = solvedb(&[
        "probe",
        "tictactoe",
        "X../.O./...",
        "--tables",
        empty.path().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let searched: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(searched["source"], "search");
    let (_, stdout, _) = solvedb(&[
        "probe",
        "tictactoe",
        "X../.O./...",
        "--tables",
        &tables(),
        "--json",
    ]);
    let mut looked_up: Value = serde_json::from_str(&stdout).unwrap();
    looked_up["source"] = "search".into();
    assert_eq!(searched, looked_up);
}

#[test]
fn bad_input_fails_with_a_message_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.sdb");
    std::fs::write(&junk, b"not a table at all").unwrap();
    let truncated = dir.path().join("truncated.sdb");
    let committed = std::fs::read(committed_tables().join("tictactoe.sdb")).unwrap();
    std::fs::write(&truncated, &committed[..committed.len() / 2]).unwrap();
    let not_a_dir = dir.path().join("file");
    std::fs::write(&not_a_dir, b"").unwrap();
    // Each failure exits with its kind's code (exit_code): position 3,
    // table 5, I/O 6.
    let cases: [(&[&str], &str, i32); 9] = [
        (&["probe", "tictactoe", "X.."], "9 cells, found 3", 3),
        (
            &["probe", "tictactoe", "X.......Z"],
            "unexpected character 'Z'",
            3,
        ),
        (
            &["probe", "tictactoe", "XX......."],
            "impossible stone counts",
            3,
        ),
        (&["probe", "tictactoe", "XXX/OOO/X.."], "both X and O", 3),
        (
            &["probe", "tictactoe", "XXX/OO./O.."],
            "play continued after X had won",
            3,
        ),
        (
            &["verify", junk.to_str().unwrap()],
            "not a solvedb table",
            5,
        ),
        (&["verify", truncated.to_str().unwrap()], "truncated", 5),
        (&["info", "/nonexistent.sdb"], "/nonexistent.sdb", 6),
        (
            &[
                "probe",
                "tictactoe",
                ".........",
                "--tables",
                not_a_dir.to_str().unwrap(),
            ],
            "is not a directory",
            6,
        ),
    ];
    for (args, needle, expected) in cases {
        let (code, stdout, stderr) = solvedb(args);
        assert_eq!(code, expected, "{args:?}: {stdout}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
    }
    // An unknown game is an unsupported game (4), as in JSON lines and C.
    let (code, _, stderr) = solvedb(&["probe", "chess", "x"]);
    assert_eq!(code, 4);
    assert!(stderr.contains("unknown game \"chess\""), "{stderr}");
}

#[test]
fn help_explains_each_command() {
    let (code, stdout, _) = solvedb(&["--help"]);
    assert_eq!(code, 0);
    for command in ["build", "verify", "info", "probe", "bench"] {
        assert!(stdout.contains(command), "{stdout}");
    }
    let (_, stdout, _) = solvedb(&["probe", "--help"]);
    assert!(
        stdout.contains("--json") && stdout.contains("X../.O./..."),
        "{stdout}"
    );
}
