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
    // A bad position exits with the position kind's code.
    assert_eq!(output.status.code(), Some(3));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("9 cells, found 4"), "{stderr}");
}

/// A build killed at a random moment never leaves a table under its final
/// name unless it is complete and valid, and a rebuild afterwards writes the
/// same bytes as an undisturbed build.
#[test]
fn a_build_killed_at_random_moments_leaves_no_partial_table() {
    let reference = solvedb_generator::build::build_table(&solvedb_lookup::TicTacToe, 19).1;
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("tictactoe.sdb");
    let mut rng = solvedb_lookup::testkit::Rng::new(11);
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

/// A client drives `solvedb serve --stdio` one line at a time: each answer
/// arrives before the next request is sent, equals the library's report, and
/// bad requests get error objects without stopping the server.
#[test]
fn serve_answers_each_line_and_survives_bad_requests() {
    use std::io::{BufRead, BufReader, Write};

    use solvedb_lookup::{GameId, Oracle};

    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/../tables");
    let mut child = solvedb()
        .args(["serve", "--stdio", "--tables", tables])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> serde_json::Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let oracle = Oracle::open(tables.as_ref()).unwrap();
    let cube_position = format!("X{}O{}", ".".repeat(12), ".".repeat(13));
    let cases = [
        (GameId::TicTacToe, "X../.O./..."),
        (GameId::Cube, cube_position.as_str()),
        (GameId::TicTacToe, "XX./OO./..."),
    ];
    for (game, position) in cases {
        let got = ask(&format!(
            r#"{{"game":"{game}","position":"{position}","want":"moves","id":"q"}}"#
        ));
        let mut expected = oracle.moves(game, position).unwrap().to_json();
        expected["id"] = "q".into();
        assert_eq!(got, expected);
    }
    let bad = [
        ("this is not json", "request"),
        (r#"{"game":"chess","position":"x"}"#, "unsupported"),
        (r#"{"game":"tictactoe"}"#, "request"),
        (
            r#"{"game":"tictactoe","position":"XXX/OOO/..."}"#,
            "position",
        ),
        (r#"{"game":"cube","position":"X"}"#, "position"),
        (
            r#"{"game":"tictactoe","position":".........","want":"everything"}"#,
            "request",
        ),
    ];
    for (line, kind) in bad {
        let got = ask(line);
        assert_eq!(got["kind"], kind, "{line}: {got}");
        assert!(got["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    let value_only = ask(r#"{"game":"tictactoe","position":".........","want":"value"}"#);
    assert_eq!(value_only["result"], "draw");
    assert!(value_only.get("moves").is_none());
    let best = ask(r#"{"game":"tictactoe","position":"XX./OO./...","want":"best"}"#);
    assert_eq!(best["best_move"]["move"], "2");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Whatever bytes a pipe carries, every line gets one answer and the server
/// goes on: lines that are not UTF-8, binary garbage, and a line far longer
/// than the limit (which must not be kept in memory whole) between good ones.
#[test]
fn serve_answers_every_hostile_line_and_goes_on() {
    use std::io::{BufRead, BufReader, Write};

    use solvedb_lookup::MAX_LINE_BYTES;

    let good = br#"{"game":"tictactoe","position":"XX./OO./...","want":"value"}"#;
    let mut input = Vec::new();
    let mut expected = Vec::new();
    let mut line = |bytes: &[u8], answer: &'static str| {
        input.extend_from_slice(bytes);
        input.push(b'\n');
        expected.push(answer);
    };
    line(good, "answer");
    line(b"\xff\xfe not utf-8 \xc3\x28", "request");
    line(good, "answer");
    line(&[0, 1, 2, 0x80, 0xbf, 0x7f, b'{', 0xf0, 0x9f], "request");
    line(&vec![b'x'; 8 * MAX_LINE_BYTES], "request");
    line(
        format!(
            r#"{{"game":"tictactoe","position":"{}"}}"#,
            ".".repeat(MAX_LINE_BYTES)
        )
        .as_bytes(),
        "request",
    );
    line(b"{\"game\":\"tictactoe\",\"position\":\"\xe9\"}", "request");
    line(good, "answer");
    // The last line has no line ending: it still gets its answer.
    input.extend_from_slice(good);
    expected.push("answer");

    let mut child = solvedb()
        .args(["serve", "--stdio", "--tables", "tables"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
    });
    let answers: Vec<serde_json::Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(answers.len(), expected.len(), "{answers:?}");
    for (got, want) in answers.iter().zip(expected) {
        match want {
            "answer" => assert_eq!(got["result"], "win", "{got}"),
            kind => {
                assert_eq!(got["kind"], kind, "{got}");
                assert!(got["error"].as_str().is_some_and(|e| !e.is_empty()));
            }
        }
    }
}

/// Runs the binary under a pseudo-terminal (util-linux `script`), so that
/// its standard output and error are a terminal; `env` is added to its
/// environment. Returns what the terminal showed.
fn on_a_terminal(args: &str, env: &[(&str, &str)]) -> String {
    let line = format!("{} {args}", env!("CARGO_BIN_EXE_solvedb"));
    let mut command = Command::new("script");
    command
        .args(["-qec", &line, "/dev/null"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("TERM", "xterm");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command
        .output()
        .expect("util-linux `script` runs (CI installs it)");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn colour_only_on_a_terminal_and_never_under_no_color() {
    let probe = "probe tictactoe X../.O./... --tables tables";
    assert!(on_a_terminal(probe, &[]).contains('\x1b'));
    assert!(!on_a_terminal(probe, &[("NO_COLOR", "1")]).contains('\x1b'));
    // Help and usage errors too.
    assert!(on_a_terminal("probe", &[]).contains('\x1b'));
    assert!(!on_a_terminal("probe", &[("NO_COLOR", "1")]).contains('\x1b'));
    assert!(!on_a_terminal("--help", &[("NO_COLOR", "1")]).contains('\x1b'));
    // Piped: none, whatever the command.
    for args in [
        &["probe", "tictactoe", "X../.O./...", "--tables", "tables"][..],
        &["probe"],
        &["--help"],
        &["probe", "--help"],
        &["frobnicate"],
    ] {
        let output = solvedb()
            .args(args)
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        assert!(!output.stdout.contains(&0x1b), "{args:?}");
        assert!(!output.stderr.contains(&0x1b), "{args:?}");
    }
}

#[test]
fn tables_come_from_the_flag_else_the_environment_else_tables() {
    let repo_tables = concat!(env!("CARGO_MANIFEST_DIR"), "/../tables");
    let elsewhere = tempfile::tempdir().unwrap();
    let probe = |env: Option<&str>, flag: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_solvedb"));
        command
            .current_dir(elsewhere.path())
            .args(["probe", "tictactoe", "X../.O./...", "--json"])
            .env_remove("SOLVEDB_TABLES");
        if let Some(dir) = env {
            command.env("SOLVEDB_TABLES", dir);
        }
        if let Some(dir) = flag {
            command.args(["--tables", dir]);
        }
        let output = command.output().unwrap();
        assert!(output.status.success());
        let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (
            answer["source"].as_str().unwrap().to_owned(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let empty = elsewhere.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    // Neither: `tables/` in the working directory, which has none.
    let (source, stderr) = probe(None, None);
    assert_eq!(source, "search");
    assert!(stderr.contains("searching exactly"), "{stderr}");
    assert_eq!(probe(Some(repo_tables), None).0, "table");
    assert_eq!(probe(Some(empty), Some(repo_tables)).0, "table");
    assert_eq!(probe(Some(repo_tables), Some(empty)).0, "search");
    let help = solvedb().args(["probe", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("SOLVEDB_TABLES"));
}

#[test]
fn a_live_answer_says_whether_the_table_is_missing_or_does_not_cover_it() {
    // A Qubic position off the strategy (X's first stone on a cell of four
    // lines), late enough for the live search to answer in about a second.
    let position =
        "..../..../..../...X//...O/..../..../X.X.//OO../...O/.X../..O.//..../.X../..X./....";
    let empty = tempfile::tempdir().unwrap();
    let value_line = |tables: &str| {
        let output = solvedb()
            .args([
                "probe",
                "qubic",
                position,
                "--seconds",
                "60",
                "--tables",
                tables,
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        stdout
            .lines()
            .find(|line| line.starts_with("value"))
            .unwrap_or_default()
            .to_owned()
    };
    let with_table = value_line("tables");
    assert!(
        with_table.ends_with("(from live search, beyond the table tables/qubic.sdb)"),
        "{with_table}"
    );
    let without = value_line(empty.path().to_str().unwrap());
    assert!(
        without.contains("(from live search, no table at "),
        "{without}"
    );
    // The value is the search's either way.
    assert_eq!(
        with_table.split(" (from").next(),
        without.split(" (from").next()
    );
}

#[test]
fn a_search_without_a_table_is_announced_before_it_ends() {
    use std::io::{BufRead, BufReader};
    let elsewhere = tempfile::tempdir().unwrap();
    // Unbounded on the empty 4x4 board: minutes of work. The notice must
    // come first; the test reads it and stops the search.
    let mut child = Command::new(env!("CARGO_BIN_EXE_solvedb"))
        .current_dir(elsewhere.path())
        .env_remove("SOLVEDB_TABLES")
        .args(["probe", "dots:4x4", "4x4:", "--no-budget"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let still_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(still_running, "the search ended before the test looked");
    let dir = elsewhere.path().canonicalize().unwrap().join("tables");
    assert!(line.contains(dir.to_str().unwrap()), "{line}");
    assert!(
        line.contains("searching exactly") && line.contains("no budget"),
        "{line}"
    );
}

#[test]
fn completions_survive_a_closed_pipe() {
    use std::io::Read;
    let mut child = solvedb()
        .args(["completions", "fish"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// One HTTP/1.1 GET on a connection of its own; the answer's body as JSON.
fn get_json(port: u16, path: &str) -> serde_json::Value {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap()
}

/// `serve --http` keeps answering from the tables it opened until SIGHUP,
/// then picks up what changed: a removed table's game is searched (under
/// the search limits, not in place), a table put back is read again.
#[test]
fn a_hangup_makes_the_http_server_pick_up_changed_tables() {
    use std::io::{BufRead, BufReader};
    let (tables, aside, data) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tables/tictactoe.sdb");
    let table = tables.path().join("tictactoe.sdb");
    std::fs::copy(root, &table).unwrap();
    let mut child = solvedb()
        .args(["serve", "--http", "--addr", "127.0.0.1:0", "--tables"])
        .arg(tables.path())
        .arg("--data")
        .arg(data.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port: u16 = first
        .trim()
        .strip_prefix("listening on http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("{first}"))
        .parse()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut hang_up = |expect: &str| {
        let status = Command::new("kill")
            .args(["-HUP", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        // The server says what it reloaded once it has.
        let line = stderr
            .by_ref()
            .map(Result::unwrap)
            .find(|line| line.contains("SIGHUP"))
            .expect("the server reports the reload");
        assert!(line.contains(expect), "{line}");
    };
    let probe = "/api/v1/probe?game=tictactoe&position=X../.O./...";
    let table_game = |port| {
        let games = get_json(port, "/api/v1/games");
        games["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["game"] == "tictactoe")
            .unwrap()["table"]
            .clone()
    };
    let at_start = get_json(port, probe);
    assert_eq!(at_start["source"], "table", "{at_start}");
    assert_eq!(table_game(port), true);

    // Removed: answered from the open file until the hangup, then searched.
    std::fs::rename(&table, aside.path().join("tictactoe.sdb")).unwrap();
    assert_eq!(get_json(port, probe)["source"], "table");
    hang_up("reopening the tables of tictactoe");
    let searched = get_json(port, probe);
    assert_eq!(searched["source"], "search", "{searched}");
    assert_eq!(searched["result"], at_start["result"]);
    assert_eq!(searched["plies"], at_start["plies"]);
    assert_eq!(table_game(port), false);

    // Put back: read again after the next hangup; one with nothing changed
    // says so.
    std::fs::copy(root, &table).unwrap();
    hang_up("reopening the tables of tictactoe");
    assert_eq!(get_json(port, probe)["source"], "table");
    assert_eq!(table_game(port), true);
    hang_up("no table changed");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// `solvedb sweep` over several files: the reports in the order given, and
/// a file that is not a good table named on stderr without stopping the
/// sweeps of the others.
#[test]
fn a_sweep_of_several_files_reports_each_in_order_and_names_the_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let good = concat!(env!("CARGO_MANIFEST_DIR"), "/../tables/dots-1x2.sdb");
    let mut bytes = std::fs::read(good).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let corrupt = dir.path().join("corrupt.sdb");
    std::fs::write(&corrupt, bytes).unwrap();
    let missing = dir.path().join("missing.sdb");

    let output = solvedb()
        .args(["sweep", "tables/dots-2x1.sdb", "tables/dots-1x2.sdb"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let first = stdout.find("sweep of tables/dots-2x1.sdb").expect(&stdout);
    let second = stdout.find("sweep of tables/dots-1x2.sdb").expect(&stdout);
    assert!(first < second, "{stdout}");
    assert!(stdout.contains("2 files swept in"), "{stdout}");

    let output = solvedb()
        .args(["sweep", "tables/dots-1x2.sdb"])
        .arg(&corrupt)
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("sweep of tables/dots-1x2.sdb"), "{stdout}");
    assert!(!stdout.contains("corrupt.sdb"), "{stdout}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    for bad in [&corrupt, &missing] {
        assert!(stderr.contains(&*bad.display().to_string()), "{stderr}");
    }

    // One failure keeps its kind: a missing file is an I/O error.
    let output = solvedb().arg("sweep").arg(&missing).output().unwrap();
    assert_eq!(output.status.code(), Some(6), "{output:?}");
    let output = solvedb().arg("sweep").output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "clap's usage error: {output:?}"
    );
}
