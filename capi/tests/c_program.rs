//! `check.c`, compiled with the system C compiler against `solvedb.h` and
//! linked to the `cdylib` cargo built, answers exactly like the Rust
//! [`Oracle`]: for every game, with the repository's tables and without any.
//!
//! The C program reads queries on its standard input and prints what the
//! library answered; this test prints the same lines from [`Oracle`] and
//! compares. No value is typed in here: positions come from random play.
//!
//! Unix only: it drives `cc` with Unix flags (`-l`, `-rpath`, `-pthread`).
#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use solvedb_capi::{MAX_MOVES, MOVE_NAME_SIZE, Status};
use solvedb_lookup::testkit::{Rng, random_game};
use solvedb_lookup::{
    AnyValue, Cube, Error, Game, GameId, Oracle, Qubic, Source, TableError, TicTacToe,
    TicTacToe4x4, Wdl, catalogue,
};

/// The repository's `tables/` directory.
fn committed_tables() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables")
}

/// The shared library cargo built for this package. Cargo compiles the
/// package's library, every crate type of it, before the integration tests,
/// into `target/<profile>/deps/` — the directory of this test's executable.
/// Only `cargo build` also copies it up to `target/<profile>/`, and that copy
/// may be older than the sources, so it is only the fallback.
fn cdylib() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let profile = deps.parent().expect("target/<profile>");
    let name = format!(
        "{}solvedb_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps, profile]
        .iter()
        .map(|dir| dir.join(&name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{name} is neither in {deps:?} nor in {profile:?}"))
}

/// `check.c`, compiled and linked once per test run.
fn c_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let library = cdylib();
        let library_dir = library.parent().unwrap();
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("solvedb-check");
        // `CC` may carry arguments (`ccache gcc`, `gcc -m64`).
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let mut words = cc.split_whitespace();
        let mut command = Command::new(words.next().expect("CC is empty"));
        command
            .args(words)
            .args(["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
            .arg("-pthread")
            .arg("-I")
            .arg(manifest.join("include"))
            .arg(manifest.join("tests/check.c"))
            .arg("-L")
            .arg(library_dir)
            .arg("-lsolvedb_capi")
            .arg(format!("-Wl,-rpath,{}", library_dir.display()))
            .arg("-o")
            .arg(&out);
        let result = command
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
        assert!(
            result.status.success(),
            "{command:?} failed:\n{}",
            String::from_utf8_lossy(&result.stderr)
        );
        out
    })
}

/// One question: `probe`, `moves` or `best`, about a position of a game.
#[derive(Clone, Debug)]
struct Query {
    want: &'static str,
    game: String,
    position: String,
}

impl Query {
    fn new(want: &'static str, game: &str, position: &str) -> Query {
        Query {
            want,
            game: game.into(),
            position: position.into(),
        }
    }

    /// All three questions about one position.
    fn all(game: &str, position: &str) -> [Query; 3] {
        ["probe", "moves", "best"].map(|want| Query::new(want, game, position))
    }
}

/// Runs the C program on `dir` and the queries, returning its standard output.
fn run_c(dir: &Path, budget: Option<u64>, queries: &[Query]) -> String {
    let mut command = Command::new(c_program());
    // `cargo test` puts `target/<profile>/` on the library path, ahead of
    // the program's rpath; an older copy of the library there (from a
    // `cargo build`) would be loaded instead of the one just built.
    let library_dir = cdylib().parent().unwrap().to_owned();
    for variable in ["LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"] {
        command.env(variable, &library_dir);
    }
    command.arg(dir);
    if let Some(nodes) = budget {
        command.arg(nodes.to_string());
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the compiled C program runs");
    let mut input = String::new();
    for q in queries {
        input.push_str(&format!("{}\t{}\t{}\n", q.want, q.game, q.position));
    }
    let mut stdin = child.stdin.take().unwrap();
    // Write from another thread: the program answers while it reads.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(
        output.status.success(),
        "the C program failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// `outcome RESULT PLIES 0 SOURCE` or `margin SIGN 0 MARGIN SOURCE`, as
/// check.c prints a `solvedb_value`.
fn value_line(value: AnyValue, source: Source) -> String {
    match value {
        AnyValue::Outcome(o) | AnyValue::AtMost(o) => {
            let result = match o.wdl {
                Wdl::Loss => -1,
                Wdl::Draw => 0,
                Wdl::Win => 1,
            };
            format!("outcome {result} {} 0 {source}", o.plies)
        }
        AnyValue::Margin(m) => format!("margin {} 0 {m} {source}", m.signum()),
    }
}

/// The C constant an error should come back as (written out here, not taken
/// from the crate, so that the mapping is checked rather than repeated).
fn status_name(error: &Error) -> &'static str {
    match error {
        Error::Position(_) => "SOLVEDB_ERR_BAD_POSITION",
        // A table that cannot be read (as opposed to one read and found
        // wrong) is an I/O failure.
        Error::Table(TableError::Read { .. }) => "SOLVEDB_ERR_IO",
        Error::Table(_) => "SOLVEDB_ERR_BAD_TABLE",
        Error::Io { .. } | Error::NotADirectory { .. } => "SOLVEDB_ERR_IO",
        Error::UnknownGame(_) | Error::Unsupported { .. } => "SOLVEDB_ERR_UNSUPPORTED_GAME",
        Error::BudgetExhausted { .. } | Error::TimeExhausted { .. } => {
            "SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET"
        }
        // Bounds proved before the budget ran out: still unknown.
        Error::Bounded { cause, .. } => status_name(cause),
        other => panic!("no C status for {other:?}"),
    }
}

/// Marks an expected line whose rest (a message) is not compared.
const ANY_MESSAGE: &str = "<any message>";

/// The lines check.c should print for `queries`, from the Rust oracle.
fn expected(oracle: &Oracle, queries: &[Query]) -> Vec<String> {
    let mut lines = Vec::new();
    for q in queries {
        lines.push(format!("query {} {} {}", q.want, q.game, q.position));
        let game = match q.game.parse::<GameId>() {
            Ok(game) => game,
            Err(unknown) => {
                lines.push(format!("error SOLVEDB_ERR_UNSUPPORTED_GAME: {unknown}"));
                continue;
            }
        };
        let report = match q.want {
            "probe" => oracle.probe(game, &q.position),
            _ => oracle.moves(game, &q.position),
        };
        let report = match report {
            Ok(report) => report,
            Err(error) => {
                lines.push(format!("error {}: {error}", status_name(&error)));
                continue;
            }
        };
        match q.want {
            "probe" => lines.push(format!("value {}", value_line(report.value, report.source))),
            "moves" => {
                lines.push(format!("value {}", value_line(report.value, report.source)));
                lines.push(format!("count {}", report.moves.len()));
                for m in &report.moves {
                    lines.push(format!(
                        "move {} {}",
                        m.mv,
                        value_line(m.value, report.source)
                    ));
                }
            }
            _ => match report.moves.first() {
                Some(best) => lines.push(format!(
                    "best {} {}",
                    best.mv,
                    value_line(best.value, report.source)
                )),
                None => lines.push(format!("error SOLVEDB_ERR_GAME_OVER: {ANY_MESSAGE}")),
            },
        }
    }
    lines
}

/// Asserts that the query answers in `output` are `expected`, line by line.
fn assert_answers(output: &str, expected: &[String]) {
    let answers: Vec<&str> = output
        .lines()
        .skip_while(|l| l.starts_with("check "))
        .take_while(|l| !l.starts_with("done, "))
        .collect();
    for (i, (got, want)) in answers.iter().zip(expected).enumerate() {
        let matches = match want.strip_suffix(ANY_MESSAGE) {
            Some(prefix) => got.starts_with(prefix) && got.len() > prefix.len(),
            None => got == want,
        };
        let context = answers[..i]
            .iter()
            .rev()
            .find(|l| l.starts_with("query "))
            .unwrap_or(&"");
        assert!(
            matches,
            "line {i} (after {context:?}):\n  C:    {got}\n  Rust: {want}"
        );
    }
    assert_eq!(answers.len(), expected.len(), "number of answer lines");
}

/// Every position of `games` random games of `game`, the final ones too,
/// keeping those with at least `min_moves` moves played.
fn random_play<G: Game>(game: G, games: usize, min_moves: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..games)
        .flat_map(|_| random_game(&game, &mut rng).into_iter().skip(min_moves))
        .map(|p| game.notation(p))
        .collect()
}

fn tictactoe_queries(games: usize) -> Vec<Query> {
    random_play(TicTacToe, games, 0, 1)
        .iter()
        .flat_map(|p| Query::all("tictactoe", p))
        .collect()
}

/// 4×4 tic-tac-toe positions with at least `min_moves` stones.
fn tictactoe_4x4_queries(games: usize, min_moves: usize) -> Vec<Query> {
    random_play(TicTacToe4x4, games, min_moves, 4)
        .iter()
        .flat_map(|p| Query::all("tictactoe:4x4", p))
        .collect()
}

/// Cube positions with at least `min_moves` stones (live search from six
/// stones takes minutes, from ten well under a second).
fn cube_queries(games: usize, min_moves: usize) -> Vec<Query> {
    random_play(Cube, games, min_moves, 2)
        .iter()
        .flat_map(|p| Query::all("cube", p))
        .collect()
}

/// Qubic positions with at least `min_moves` stones (no table: the C
/// program and the Oracle both search; late positions answer at once).
fn qubic_queries(games: usize, min_moves: usize) -> Vec<Query> {
    random_play(Qubic, games, min_moves, 5)
        .iter()
        .flat_map(|p| Query::all("qubic", p))
        .collect()
}

/// Dots-and-boxes positions on the 3×3 board (24 edges, `3x3:` and one
/// `0`/`1` per edge), with at least `min_edges` edges drawn: the empty board
/// and boards filled from a fixed pattern. Where this build has no
/// dots-and-boxes the Oracle and the C program both say
/// `SOLVEDB_ERR_UNSUPPORTED_GAME`; once it has, they are compared like the
/// other games. Add positions here.
fn dots_queries(min_edges: usize) -> Vec<Query> {
    let mut rng = Rng::new(3);
    let mut out = Vec::new();
    for drawn in [0, 8, 16, 20, 22, 23, 24] {
        if drawn < min_edges {
            continue;
        }
        let mut edges = [b'0'; 24];
        let mut left = drawn;
        while left > 0 {
            let e = rng.index(24);
            if edges[e] == b'0' {
                edges[e] = b'1';
                left -= 1;
            }
        }
        let position = format!("3x3:{}", String::from_utf8_lossy(&edges));
        out.extend(Query::all("dots:3x3", &position));
    }
    out
}

/// Bad positions of every game and names of no game.
fn error_queries() -> Vec<Query> {
    let mut out = Vec::new();
    for (game, position) in [
        ("tictactoe", ""),
        ("tictactoe", "XX"),
        ("tictactoe", "XXX/OOO/..."),
        ("tictactoe", "X../.O./..Z"),
        ("tictactoe", "OO./.../..."),
        ("cube", "XX"),
        ("cube", &"X".repeat(27)),
        ("cube", &format!("{}//", ".".repeat(27))),
        ("dots:3x3", "3x3:01"),
        ("chess", "whatever"),
        // A board no build can answer: an unsupported game, not a position.
        ("dots:9x9", "9x9:"),
        ("dots:0x3", "0x3:"),
        ("tictactoe ", "........."),
        ("dots:", "3x3:"),
        ("", "........."),
    ] {
        out.extend(Query::all(game, position));
    }
    out
}

#[test]
fn the_c_program_answers_like_the_oracle_from_the_tables() {
    let mut queries = tictactoe_queries(60);
    queries.extend(tictactoe_4x4_queries(20, 0));
    queries.extend(cube_queries(30, 0));
    let qubic = qubic_queries(12, 24);
    assert!(qubic.len() >= 30, "{} qubic queries", qubic.len());
    queries.extend(qubic);
    // Without a committed dots-and-boxes table its answers are searched:
    // only late positions then.
    let dots_table = committed_tables().join("dots-3x3.sdb").exists();
    queries.extend(dots_queries(if dots_table { 0 } else { 20 }));
    queries.extend(error_queries());

    let output = run_c(&committed_tables(), None, &queries);
    // The checks of the contract only C can exercise: NULLs, non-UTF-8
    // text, short buffers, threads sharing a handle.
    let checks: Vec<&str> = output.lines().filter(|l| l.starts_with("check ")).collect();
    assert!(checks.len() >= 15, "{output}");
    assert!(checks.iter().all(|l| l.ends_with(" ok")), "{output}");
    assert!(output.contains("done, 0 failed checks"), "{output}");

    let oracle = Oracle::open(&committed_tables()).unwrap();
    let want = expected(&oracle, &queries);
    assert_answers(&output, &want);
    // Tic-tac-toe and the cube have tables here, and say so (the cube's
    // forced positions by the rules that keep its table small).
    let mut from_tables = 0;
    let mut game = "";
    for line in output.lines() {
        if let Some(query) = line.strip_prefix("query ") {
            game = query.split(' ').nth(1).unwrap_or_default();
        } else if is_answer(line) && ["tictactoe", "cube"].contains(&game) {
            let forced_ok = game == "cube" && line.ends_with(" forced");
            assert!(line.ends_with(" table") || forced_ok, "{game}: {line}");
            from_tables += 1;
        }
    }
    assert!(from_tables > queries.len());
}

/// Whether a line of check.c's output carries a value.
fn is_answer(line: &str) -> bool {
    ["value ", "move ", "best "]
        .iter()
        .any(|p| line.starts_with(p))
}

/// The lines of `output` that carry a value.
fn answer_lines(output: &str) -> Vec<&str> {
    output.lines().filter(|l| is_answer(l)).collect()
}

#[test]
fn without_tables_the_c_program_searches_and_says_so() {
    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("no-tables-here");
    let mut queries = tictactoe_queries(8);
    queries.extend(tictactoe_4x4_queries(4, 4));
    // Live search of the cube is quick from ten stones on.
    queries.extend(cube_queries(10, 10));
    assert!(queries.iter().any(|q| q.game == "cube"));
    queries.extend(dots_queries(20));
    queries.push(Query::new("probe", "tictactoe", "XX"));

    let output = run_c(&missing, None, &queries);
    assert!(output.contains("done, 0 failed checks"), "{output}");
    let searching = Oracle::open(&missing).unwrap();
    let want = expected(&searching, &queries);
    assert_answers(&output, &want);
    let values = answer_lines(&output);
    assert!(!values.is_empty());
    assert!(values.iter().all(|l| l.ends_with(" search")), "{output}");
}

#[test]
fn a_search_budget_gives_unknown_within_the_budget() {
    let empty = tempfile::tempdir().unwrap();
    let queries = [
        Query::new("probe", "cube", &".".repeat(27)),
        Query::new("moves", "cube", &".".repeat(27)),
        // Table answers are never limited.
        Query::new("probe", "tictactoe", "X../.O./..."),
    ];
    let output = run_c(empty.path(), Some(100), &queries[..2]);
    let budgeted = Oracle::open(empty.path()).unwrap().with_search_budget(100);
    let want = expected(&budgeted, &queries[..2]);
    assert!(
        want.iter()
            .any(|l| l.starts_with("error SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET"))
    );
    assert_answers(&output, &want);

    let output = run_c(&committed_tables(), Some(100), &queries[2..]);
    let budgeted = Oracle::open(&committed_tables())
        .unwrap()
        .with_search_budget(100);
    assert_answers(&output, &expected(&budgeted, &queries[2..]));
}

#[test]
fn a_damaged_table_is_an_error_not_a_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(committed_tables().join("tictactoe.sdb")).unwrap();
    bytes[20] ^= 1; // inside the header: its checksum no longer matches
    std::fs::write(dir.path().join("tictactoe.sdb"), bytes).unwrap();
    let queries = Query::all("tictactoe", ".........");
    let output = run_c(dir.path(), Some(1_000_000), &queries);
    let damaged = Oracle::open(dir.path()).unwrap();
    let want = expected(&damaged, &queries);
    assert!(
        want.iter()
            .any(|l| l.starts_with("error SOLVEDB_ERR_BAD_TABLE"))
    );
    assert_answers(&output, &want);
}

#[test]
fn an_unreadable_table_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the cube's table file should be: it exists but
    // cannot be read as a file. (Tic-tac-toe stays searchable: the
    // program's own checks use it.)
    std::fs::create_dir(dir.path().join("cube.sdb")).unwrap();
    let queries = Query::all("cube", &".".repeat(27));
    let output = run_c(dir.path(), None, &queries);
    // Reading and mapping fail with different OS messages (EISDIR, ENODEV):
    // the status is what must agree.
    let unreadable = Oracle::open(dir.path()).unwrap();
    let want = expected(&unreadable, &queries);
    let io = "error SOLVEDB_ERR_IO: ";
    assert_eq!(want.iter().filter(|l| l.starts_with(io)).count(), 3);
    let got: Vec<&str> = output.lines().filter(|l| l.starts_with("error ")).collect();
    assert_eq!(got.len(), 3, "{output}");
    assert!(
        got.iter()
            .all(|l| l.starts_with(io) && l.contains("cube.sdb")),
        "{output}"
    );
}

/// The hand-kept header declares the same codes, sizes and functions as the
/// crate.
#[test]
fn the_header_agrees_with_the_crate() {
    let header =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/solvedb.h"))
            .unwrap();
    assert!(header.contains("const char *solvedb_games(void);"));
    for status in [
        Status::Ok,
        Status::InvalidArgument,
        Status::UnsupportedGame,
        Status::BadPosition,
        Status::BadTable,
        Status::Io,
        Status::UnknownWithinBudget,
        Status::BufferTooSmall,
        Status::GameOver,
        Status::Internal,
    ] {
        let declaration = format!("{} = {}", status.c_name(), status as i32);
        assert!(
            header.contains(&declaration),
            "solvedb.h lacks {declaration}"
        );
    }
    // Every supported board's moves fit SOLVEDB_MAX_MOVES (the biggest,
    // 1x20 and 20x1, have 61 edges; 5x5 has 60), and the build hint builds
    // the library where the link line looks for it.
    let max = format!("#define SOLVEDB_MAX_MOVES {MAX_MOVES}");
    assert!(header.contains(&max), "{max}");
    let most = (1..=255u8)
        .flat_map(|r| (1..=255u8).map(move |c| (r, c)))
        .filter_map(|(r, c)| solvedb_lookup::Dots::new(r, c).ok())
        .map(|board| board.edges() as usize)
        .chain(catalogue().iter().map(|game| game.board.moves() as usize))
        .max()
        .unwrap();
    assert!(most <= MAX_MOVES, "{most} moves");
    assert!(header.contains("cargo build --release -p solvedb-capi"));
    let size = format!("#define SOLVEDB_MOVE_NAME_SIZE {MOVE_NAME_SIZE}");
    assert!(header.contains(&size), "solvedb.h lacks {size}");
}

/// `solvedb_games()`, read from C, lists every game of the catalogue in its
/// order, each with its title and notation: a new game reaches C programs
/// without a change to the header.
#[test]
fn c_reads_the_catalogue_from_solvedb_games() {
    let output = run_c(
        &committed_tables(),
        Some(100),
        &[Query::new("games", "-", "-")],
    );
    let listed: Vec<&str> = output
        .lines()
        .skip_while(|line| !line.starts_with("query games"))
        .skip(1)
        .take_while(|line| !line.starts_with("done"))
        .collect();
    let catalogued: Vec<String> = catalogue()
        .iter()
        .map(|game| {
            format!(
                "{}\t{}\t{}",
                game.name(),
                game.title,
                game.board.notation_help()
            )
        })
        .collect();
    assert_eq!(listed, catalogued);
}
