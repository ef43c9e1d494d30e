//! The command as scripts meet it: every error kind reaches its exit code,
//! its JSON `kind` in `probe --json` and in JSON lines; answers can be fed
//! back as requests; bulk input; `search` and `probe` print alike; the
//! default budget; builds too big for the machine are refused up front.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use solvedb_generator::build::{check_memory, human_bytes, physical_memory};
use solvedb_generator::cli::{DEFAULT_SEARCH_NODES, clap_command, exit_code};
use solvedb_lookup::{Dots, ErrorKind, Game, GameId, Oracle, Search, TicTacToe};
use solvedb_server::stdio::serve;
use solvedb_tests::{committed_tables, solvedb, solvedb_with_input};

fn tables() -> String {
    committed_tables().to_str().unwrap().to_owned()
}

/// A directory with a damaged tic-tac-toe table and a directory where the
/// cube's table file should be.
fn broken_tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(committed_tables().join("tictactoe.sdb")).unwrap();
    bytes[20] ^= 1; // inside the header: its checksum no longer matches
    std::fs::write(dir.path().join("tictactoe.sdb"), bytes).unwrap();
    std::fs::create_dir(dir.path().join("cube.sdb")).unwrap();
    dir
}

/// One failing `probe` of each kind, with the directory it reads.
fn failures(broken: &Path, not_a_dir: &Path) -> Vec<(ErrorKind, Vec<String>)> {
    let broken = broken.to_str().unwrap().to_owned();
    let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        (ErrorKind::Request, args(&["probe", "tictactoe"])),
        (
            ErrorKind::Request,
            args(&["probe", "tictactoe", ".........", "--nodes", "many"]),
        ),
        (
            ErrorKind::Position,
            args(&["probe", "tictactoe", "XX", "--tables", &tables()]),
        ),
        (
            ErrorKind::Position,
            args(&["probe", "tictactoe", "4 4", "--tables", &tables()]),
        ),
        (ErrorKind::Unsupported, args(&["probe", "chess", "x"])),
        (ErrorKind::Unsupported, args(&["probe", "dots:9x9", "9x9:"])),
        (
            ErrorKind::Table,
            args(&["probe", "tictactoe", ".........", "--tables", &broken]),
        ),
        (
            ErrorKind::Io,
            args(&["probe", "cube", &".".repeat(27), "--tables", &broken]),
        ),
        (
            ErrorKind::Io,
            args(&[
                "probe",
                "tictactoe",
                ".........",
                "--tables",
                not_a_dir.to_str().unwrap(),
            ]),
        ),
        (
            ErrorKind::Budget,
            args(&[
                "probe", "dots:4x4", "4x4:", "--tables", &broken, "--nodes", "1000",
            ]),
        ),
        (
            ErrorKind::Budget,
            args(&["search", "dots:4x4", "4x4:", "--nodes", "1000"]),
        ),
    ]
}

#[test]
fn every_kind_exits_with_its_own_code_as_text_and_as_json() {
    let broken = broken_tables();
    let not_a_dir = broken.path().join("file");
    std::fs::write(&not_a_dir, b"").unwrap();
    let codes: BTreeSet<i32> = ErrorKind::ALL.iter().map(|&k| exit_code(k)).collect();
    assert_eq!(codes.len(), ErrorKind::ALL.len(), "codes are distinct");
    assert!(!codes.contains(&0) && !codes.contains(&1));
    let mut seen = BTreeSet::new();
    for (kind, args) in failures(broken.path(), &not_a_dir) {
        seen.insert(kind.as_str());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = solvedb(&args);
        assert_eq!(code, exit_code(kind), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");

        let mut with_json = args.clone();
        with_json.push("--json");
        let (code, stdout, stderr) = solvedb(&with_json);
        assert_eq!(code, exit_code(kind), "{with_json:?}");
        assert!(!stderr.contains("error"), "{with_json:?}: {stderr}");
        let error: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(error["kind"], kind.as_str(), "{with_json:?}");
        assert!(
            error["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{error}"
        );
        // `error` and `kind`, and for a search stopped by its budget what
        // it proved (`bounds`, documented as additive), nothing else.
        let mut keys: Vec<&str> = error
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let expected: &[&str] = if kind == ErrorKind::Budget && error.get("bounds").is_some() {
            &["bounds", "error", "kind"]
        } else {
            &["error", "kind"]
        };
        assert_eq!(keys, expected, "{error}");
        assert!(
            !error["error"].as_str().unwrap().contains("--help"),
            "{error}"
        );
    }
    assert_eq!(seen.len(), ErrorKind::ALL.len(), "every kind is tried");
}

#[test]
fn every_kind_reaches_json_lines_with_its_kind() {
    let broken = broken_tables();
    let oracle = Oracle::open(broken.path())
        .unwrap()
        .with_search_budget(1000);
    let requests = [
        ("not json", "request"),
        // A field given twice (a parser keeping the first would ask for
        // tic-tac-toe).
        (
            r#"{"game":"tictactoe","position":".........","game":"chess"}"#,
            "request",
        ),
        (r#"{"game":"tictactoe"}"#, "request"),
        (r#"{"game":"dots:2x2","position":"2x2:0"}"#, "position"),
        (r#"{"game":"chess","position":"x"}"#, "unsupported"),
        (r#"{"game":"dots:9x9","position":"9x9:"}"#, "unsupported"),
        (r#"{"game":"tictactoe","position":"........."}"#, "table"),
        (r#"{"game":"cube","position":"13"}"#, "io"),
        (r#"{"game":"dots:4x4","position":"4x4:"}"#, "budget"),
    ];
    let input: String = requests.iter().map(|(r, _)| format!("{r}\n")).collect();
    let mut out = Vec::new();
    serve(&oracle, input.as_bytes(), &mut out).unwrap();
    let answers: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), requests.len());
    let mut kinds = BTreeSet::new();
    for ((request, kind), answer) in requests.iter().zip(&answers) {
        assert_eq!(answer["kind"], *kind, "{request}: {answer}");
        kinds.insert(*kind);
    }
    assert_eq!(kinds.len(), ErrorKind::ALL.len());
}

#[test]
fn answers_can_be_sent_back_as_requests() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let requests = [
        json!({"game": "tictactoe", "position": "4 0"}),
        json!({"game": "cube", "position": "13 0 26"}),
        json!({"game": "dots:2x2", "position": "2x2:h0,0 v1,2"}),
        json!({"game": "dots:1x3", "position": "1x3:"}),
        json!({"game": "dots:3x3", "position": "3x3:h1,1"}),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut first = Vec::new();
    serve(&oracle, input.as_bytes(), &mut first).unwrap();
    let first = String::from_utf8(first).unwrap();
    // Each answer's own `game` and `position`, as a request.
    let again: String = first
        .lines()
        .map(|line| {
            let answer: Value = serde_json::from_str(line).unwrap();
            assert!(answer.get("error").is_none(), "{answer}");
            let request = json!({"game": answer["game"], "position": answer["position"]});
            format!("{request}\n")
        })
        .collect();
    let mut second = Vec::new();
    serve(&oracle, again.as_bytes(), &mut second).unwrap();
    assert_eq!(String::from_utf8(second).unwrap(), first);

    // And `probe --json`'s answer too.
    let (code, stdout, _) = solvedb(&[
        "probe",
        "dots:2x3",
        "2x3:h0,0",
        "--json",
        "--tables",
        &tables(),
    ]);
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["game"], "dots:2x3");
    let game = answer["game"].as_str().unwrap();
    let position = answer["position"].as_str().unwrap();
    let (_, again, _) = solvedb(&["probe", game, position, "--json", "--tables", &tables()]);
    assert_eq!(again, stdout);
}

#[test]
fn bulk_probe_answers_each_line_of_standard_input() {
    let positions = ["X../.O./...", "4 0 8", "XXX/OOO/...", "", "XXX/OO./..."];
    let input = positions.join("\n");
    let (code, stdout, _) = solvedb_with_input(
        &["probe", "tictactoe", "-", "--json", "--tables", &tables()],
        &input,
    );
    // The first failure's kind gives the exit code; every line is answered.
    assert_eq!(code, exit_code(ErrorKind::Position));
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    for (text, answer) in ["X../.O./...", "4 0 8"].iter().zip(&lines) {
        let (_, one, _) = solvedb(&["probe", "tictactoe", text, "--json", "--tables", &tables()]);
        assert_eq!(answer, &serde_json::from_str::<Value>(&one).unwrap());
    }
    assert_eq!(lines[2]["kind"], "position");
    assert_eq!(lines[2]["position"], "XXX/OOO/...");
    assert_eq!(lines[3]["to_move"], "O");

    // Text: one line per position, with the value and the best move.
    let (code, stdout, _) =
        solvedb_with_input(&["probe", "tictactoe", "-", "--tables", &tables()], &input);
    assert_eq!(code, exit_code(ErrorKind::Position));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[0].starts_with("X../.O./...  X to move  draw in 7  best "));
    assert!(lines[2].contains("error: both X and O"), "{stdout}");
}

#[test]
fn search_prints_what_probe_prints() {
    for (game, position) in [
        ("tictactoe", "X../.O./..."),
        ("cube", "13 0 26 1 25 3 6"),
        ("dots:2x2", "2x2:h0,0"),
    ] {
        let (code, searched, stderr) = solvedb(&["search", game, position, "--json", "--pv"]);
        assert_eq!(code, 0, "{stderr}");
        let (_, probed, _) = solvedb(&[
            "probe",
            game,
            position,
            "--json",
            "--pv",
            "--tables",
            &tables(),
        ]);
        let mut searched: Value = serde_json::from_str(&searched).unwrap();
        let probed: Value = serde_json::from_str(&probed).unwrap();
        assert_eq!(searched["source"], "search");
        searched["source"] = probed["source"].clone();
        assert_eq!(searched, probed);

        let (_, text, _) = solvedb(&["search", game, position]);
        for needle in ["position ", "value    ", "  move "] {
            assert!(text.contains(needle), "{text}");
        }
    }
    let (_, help, _) = solvedb(&["search", "--help"]);
    assert!(help.contains("cube"), "{help}");
}

#[test]
fn the_best_line_is_the_oracles_mainline() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    for (game, position) in [("tictactoe", "4"), ("cube", "13 0"), ("dots:2x2", "2x2:")] {
        let (code, stdout, _) = solvedb(&[
            "probe",
            game,
            position,
            "--pv",
            "--json",
            "--tables",
            &tables(),
        ]);
        assert_eq!(code, 0);
        let answer: Value = serde_json::from_str(&stdout).unwrap();
        let mainline = oracle.mainline(game.parse().unwrap(), position).unwrap();
        assert_eq!(answer["pv"], json!(mainline.moves));
        let (_, text, _) = solvedb(&["probe", game, position, "--pv", "--tables", &tables()]);
        assert!(
            text.contains(&format!(
                "best line ({} moves): {}",
                mainline.moves.len(),
                mainline.moves.join(" ")
            )),
            "{text}"
        );
    }
}

#[test]
fn the_default_budget_answers_small_boards_and_stops_big_ones() {
    // Without tables: every small board is answered exactly...
    for (game, position) in [
        ("tictactoe", "........."),
        ("dots:3x3", "3x3:"),
        ("dots:2x4", "2x4:"),
        ("cube", "13 0 26 1 25 3 6"),
    ] {
        let (code, _, stderr) = solvedb(&["search", game, position, "--json"]);
        assert_eq!(code, 0, "{game} {position}: {stderr}");
    }
    // ...and a big one stops with "unknown within the budget".
    let (code, _, stderr) = solvedb(&["search", "dots:4x4", "4x4:"]);
    assert_eq!(code, exit_code(ErrorKind::Budget));
    assert!(
        stderr.contains(&format!(
            "unknown within the budget of {DEFAULT_SEARCH_NODES} nodes"
        )),
        "{stderr}"
    );
    // --no-budget lifts it (a position small enough to finish).
    let (code, _, _) = solvedb(&["search", "dots:2x2", "2x2:", "--no-budget"]);
    assert_eq!(code, 0);
    let (code, _, _) = solvedb(&["search", "dots:2x2", "2x2:", "--no-budget", "--nodes", "5"]);
    assert_eq!(code, 2, "--no-budget and --nodes conflict");
}

#[test]
fn without_a_table_probe_says_so_at_once_on_stderr() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_str().unwrap();
    let (code, _, stderr) = solvedb(&[
        "probe",
        "tictactoe",
        "4",
        "--tables",
        dir,
        "--nodes",
        "123456",
    ]);
    assert_eq!(code, 0);
    for needle in [
        dir,
        "tictactoe.sdb",
        "searching exactly",
        "123,456 positions",
        "--nodes",
        "--no-budget",
        "SOLVEDB_TABLES",
    ] {
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    let (_, _, stderr) = solvedb(&["probe", "tictactoe", "4", "--tables", &tables()]);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn a_stopped_search_reports_exactly_its_budget() {
    let mut search = Search::with_budget(&TicTacToe, 100);
    assert!(search.score(TicTacToe.start()).is_err());
    assert_eq!(search.nodes(), 100);
    let board = Dots::new(4, 4).unwrap();
    let mut search = Search::with_budget(&board, 1000);
    assert!(search.score(board.start()).is_err());
    assert_eq!(search.nodes(), 1000);
}

#[test]
fn move_lists_from_the_start_are_positions_too() {
    let pairs = [
        ("tictactoe", "4 0", "O../.X./..."),
        ("tictactoe", "0,4,8", "X../.O./..X"),
        ("cube", "13 0", "O../.../...//.../.X./...//.../.../..."),
    ];
    for (game, moves, board) in pairs {
        let (_, from_moves, _) = solvedb(&["probe", game, moves, "--json", "--tables", &tables()]);
        let (_, from_board, _) = solvedb(&["probe", game, board, "--json", "--tables", &tables()]);
        assert_eq!(from_moves, from_board, "{game} {moves}");
    }
    for (game, moves, needle) in [
        (
            "tictactoe",
            "4 4",
            "move 4 is not legal here: it is already taken",
        ),
        ("tictactoe", "9", "\"9\" is not a move"),
        (
            "tictactoe",
            "0 3 1 4 2 5",
            "move 5 is not legal here: the game is over",
        ),
        ("cube", "27", "\"27\" is not a move"),
    ] {
        let (code, _, stderr) = solvedb(&["probe", game, moves, "--tables", &tables()]);
        assert_eq!(code, exit_code(ErrorKind::Position), "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
}

/// Edges of a dots board, counted here from its sides, not by the library.
fn edges(rows: u64, cols: u64) -> u64 {
    (rows + 1) * cols + rows * (cols + 1)
}

#[test]
fn every_board_up_to_5x5_that_cannot_fit_is_refused_before_building() {
    const GIB: u64 = 1 << 30;
    let memory = physical_memory().expect("/proc/meminfo is readable");
    for rows in 1..=5u8 {
        for cols in 1..=5u8 {
            let board = Dots::new(rows, cols).unwrap();
            // The retrograde pass keeps one byte per edge set.
            let needed = 1u64 << edges(u64::from(rows), u64::from(cols));
            for available in [24 * GIB, memory] {
                let checked = check_memory(&board, Some(available));
                assert_eq!(checked.is_err(), needed > available, "{rows}x{cols}");
                if let Err(e) = checked {
                    assert_eq!(e.kind(), ErrorKind::Unsupported);
                    let message = e.to_string();
                    assert!(message.contains(&human_bytes(needed)), "{message}");
                    assert!(message.contains(&human_bytes(available)), "{message}");
                    assert!(message.contains("solvedb probe"), "{message}");
                }
            }
            if needed > memory {
                let out = tempfile::tempdir().unwrap();
                let target = out.path().join("tables");
                let game = format!("dots:{rows}x{cols}");
                let (code, stdout, stderr) =
                    solvedb(&["build", &game, "--out", target.to_str().unwrap()]);
                assert_eq!(code, exit_code(ErrorKind::Unsupported), "{game}: {stdout}");
                assert!(stderr.contains("needs at least"), "{stderr}");
                assert!(!target.exists(), "nothing is written for {game}");
            }
        }
    }
    // 4x4 is 2^40 bytes: more than any machine this runs on.
    assert!(check_memory(&Dots::new(4, 4).unwrap(), Some(memory)).is_err());
    assert_eq!(human_bytes(1 << 40), "1.0 TiB");
}

#[test]
fn the_readme_documents_every_option_and_the_exit_codes() {
    let readme = std::fs::read_to_string(committed_tables().join("../README.md")).unwrap();
    let command = clap_command();
    for sub in command.get_subcommands() {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `solvedb {name}")))
            .unwrap_or_else(|| panic!("no README row for {name}"));
        for arg in sub.get_arguments() {
            if let Some(long) = arg.get_long() {
                // Hidden options (a rank that fails, for the MPI tests) are
                // not for users.
                if long == "help" || arg.is_hide_set() {
                    continue;
                }
                assert!(row.contains(&format!("--{long}")), "{name} --{long}: {row}");
            }
        }
    }
    for kind in ErrorKind::ALL {
        let row = format!("| {} | `{}` |", exit_code(kind), kind.as_str());
        assert!(readme.contains(&row), "README lacks {row}");
    }
    let (_, help, _) = solvedb(&["--help"]);
    for kind in ErrorKind::ALL {
        assert!(
            help.contains(&format!("  {}  ", exit_code(kind))) && help.contains(kind.as_str()),
            "{help}"
        );
    }
}

#[test]
fn completions_and_a_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, stdout, _) = solvedb(&["completions", shell]);
        assert_eq!(code, 0);
        assert!(
            stdout.contains("probe") && stdout.contains("tables"),
            "{shell}"
        );
    }
    let (code, stdout, _) = solvedb(&["man"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with(".ie") || stdout.contains(".TH"),
        "{stdout}"
    );
    assert!(stdout.contains("probe"));
}

#[test]
fn game_names_in_answers_are_the_names_requests_take() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    for game in [
        GameId::TicTacToe,
        GameId::Cube,
        GameId::Dots { rows: 2, cols: 2 },
    ] {
        let start = solvedb_lookup::with_game!(game, g => Ok::<_, solvedb_lookup::Error>(g.notation(g.start()))).unwrap();
        let answer = oracle.probe(game, &start).unwrap().to_json();
        let name = answer["game"].as_str().unwrap();
        assert_eq!(name.parse::<GameId>().unwrap(), game);
    }
}

#[test]
fn the_small_things() {
    // An OS error is said once.
    let broken = broken_tables();
    let dir = broken.path().to_str().unwrap();
    let (_, _, stderr) = solvedb(&["probe", "cube", "13", "--tables", dir]);
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");

    // `verify --exhaustive` on a table it does not apply to is refused
    // before the checksums (this table's header is good, a block is not).
    let mut bytes = std::fs::read(committed_tables().join("tictactoe.sdb")).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    let damaged = broken.path().join("damaged.sdb");
    std::fs::write(&damaged, bytes).unwrap();
    let (code, _, stderr) = solvedb(&["verify", damaged.to_str().unwrap(), "--exhaustive"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("--exhaustive is for cube tables"),
        "{stderr}"
    );
    let (code, _, _) = solvedb(&["verify", damaged.to_str().unwrap()]);
    assert_eq!(code, exit_code(ErrorKind::Table));

    // One thing in the singular, times in seconds only.
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, _) = solvedb(&["build", "dots:1x1", "--out", out.path().to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains(", 1 block\n"), "{stdout}");
    assert!(stdout.contains("in 16 slots"), "{stdout}");
    let table = out.path().join("dots-1x1.sdb");
    let (_, verified, _) = solvedb(&["verify", table.to_str().unwrap()]);
    assert!(verified.contains("1 block,"), "{verified}");
    for text in [&stdout, &verified] {
        assert!(
            !text.contains(" 1 blocks") && !text.contains(" 1 positions"),
            "{text}"
        );
        assert!(!text.contains(" ms") && !text.contains("µs"), "{text}");
        assert!(text.contains(" s"), "{text}");
    }

    // `info` in words: no Rust names, slots for dense tables, entry bytes
    // for sorted ones.
    let (_, dense, _) = solvedb(&["info", table.to_str().unwrap()]);
    let cube = committed_tables().join("cube.sdb");
    let (_, sorted, _) = solvedb(&["info", cube.to_str().unwrap()]);
    for text in [&dense, &sorted] {
        for rust in ["EdgeMaskCanonical", "SortedKeys", "Margin", "OutcomePlies"] {
            assert!(!text.contains(rust), "{text}");
        }
    }
    assert!(dense.contains("slots           16"), "{dense}");
    assert!(
        sorted.contains("entry bytes") && !sorted.contains("slots"),
        "{sorted}"
    );

    // `--seconds` that is no duration is an error, not a panic.
    let (code, _, stderr) = solvedb(&["search", "tictactoe", "4", "--seconds=-1"]);
    assert_eq!(code, exit_code(ErrorKind::Request), "{stderr}");
    assert!(stderr.contains("--seconds"), "{stderr}");
}

#[test]
fn bench_depths_take_the_form_help_shows() {
    let (_, help, _) = solvedb(&["bench", "--help"]);
    assert!(help.contains("[default: 4 6]"), "{help}");
    // Both forms parse (and are checked: 10 is out of range).
    let command = clap_command();
    for args in [
        &["solvedb", "bench", "cube", "--depths", "4", "6"][..],
        &["solvedb", "bench", "cube", "--depths", "4,6"],
    ] {
        let matches = command.clone().try_get_matches_from(args).unwrap();
        let (_, bench) = matches.subcommand().unwrap();
        let depths: Vec<u32> = bench.get_many::<u32>("depths").unwrap().copied().collect();
        assert_eq!(depths, [4, 6], "{args:?}");
    }
    assert!(
        command
            .try_get_matches_from(["solvedb", "bench", "cube", "--depths", "10"])
            .is_err()
    );
}

/// The benches are long runs of commands, and they check what they time
/// (the passes and codings agree, every room state arrives); here each runs
/// once, small.
#[test]
fn benches_run_their_checks_small() {
    let (code, out, err) = solvedb(&["bench", "dots:2x3", "--rounds", "1"]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "plain baseline (1 thread",
        "retrograde pass before",
        "retrograde pass now",
        "canonical and don't-care pass",
        "table coding",
        "warm table lookup",
        "through the oracle",
    ] {
        assert!(out.contains(line), "no {line:?} in {out}");
    }
    let tables = committed_tables();
    let (code, out, err) = solvedb(&[
        "bench",
        "rooms",
        "--rooms",
        "3",
        "--games",
        "2",
        "--rounds",
        "1",
        "--tables",
        tables.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("3 rooms at once (6 WebSockets), 6 tic-tac-toe games"),
        "{out}"
    );
    assert!(out.contains("none lost or out of order"), "{out}");
}

#[test]
fn serve_bounds_every_search_by_default_and_says_so() {
    let empty = tempfile::tempdir().unwrap();
    let input = concat!(
        r#"{"game":"dots:4x4","position":"4x4:","id":1}"#,
        "\n",
        r#"{"game":"tictactoe","position":"4","id":2}"#,
        "\n"
    );
    let (code, stdout, stderr) = solvedb_with_input(
        &[
            "serve",
            "--stdio",
            "--tables",
            empty.path().to_str().unwrap(),
        ],
        input,
    );
    assert_eq!(code, 0);
    assert!(stderr.contains("10,000,000 positions"), "{stderr}");
    let answers: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The big board stops within the budget; the stream goes on.
    assert_eq!(answers[0]["kind"], "budget");
    assert_eq!(answers[1]["id"], 2);
    assert_eq!(answers[1]["source"], "search");
}
