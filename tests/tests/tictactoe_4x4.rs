//! 4×4 tic-tac-toe against an independent reference
//! (`solvedb_tests::plain_tictactoe_4x4`): counts per ply, values of
//! positions and moves, the empty board, and symmetric images.

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Instant;

use solvedb_generator::build::{Buildable, build_table, default_level, encode_solution};
use solvedb_lookup::games::tictactoe_4x4::SQUARE_SYMMETRIES;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{
    Board4x4, Game, GameId, GameOracle, Oracle, Search, Source, Table, Tabled, TicTacToe4x4,
};
use solvedb_tests::committed_tables;
use solvedb_tests::plain_tictactoe_4x4 as plain;

const T: TicTacToe4x4 = TicTacToe4x4;

fn parse(board: &plain::Board) -> Board4x4 {
    T.parse(&plain::notation(board)).unwrap()
}

/// Boards of random games (the reference's rules), each stopped at a random
/// ply with at least `min_stones` stones on the board.
fn random_boards(count: usize, min_stones: usize, seed: u64) -> Vec<plain::Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let stop = min_stones + rng.index(17 - min_stones);
        let mut board = plain::EMPTY;
        loop {
            let children = plain::children(&board);
            if plain::stones(&board) == stop || children.is_empty() {
                break;
            }
            board = rng.pick(&children).1;
        }
        if plain::stones(&board) >= min_stones {
            out.push(board);
        }
    }
    out
}

#[test]
fn the_reference_symmetries_keep_the_lines() {
    let lines: HashSet<[usize; 4]> = plain::LINES
        .iter()
        .map(|l| {
            let mut l = *l;
            l.sort_unstable();
            l
        })
        .collect();
    let symmetries = plain::line_symmetries();
    assert_eq!(symmetries.len(), 32);
    for map in &symmetries {
        // `map[target] = source`: a line's image is the set of targets of
        // its cells.
        for line in &plain::LINES {
            let mut image: Vec<usize> = line
                .iter()
                .map(|&c| map.iter().position(|&s| s == c).unwrap())
                .collect();
            image.sort_unstable();
            assert!(lines.contains(&image[..]), "{map:?} {line:?}");
        }
    }
    // The square's 8 are among them.
    let numbered: plain::Board = std::array::from_fn(|i| i as u8);
    let all: HashSet<plain::Board> = plain::images(&numbered, &symmetries).collect();
    for image in plain::square_images(&numbered) {
        assert!(all.contains(&image));
    }
}

/// Every reachable position by ply, through the library's `Game` trait:
/// every game played from the start, one ply at a time (computed once, for
/// the tests that need it).
fn library_layers() -> &'static [Vec<Board4x4>] {
    static LAYERS: OnceLock<Vec<Vec<Board4x4>>> = OnceLock::new();
    LAYERS.get_or_init(|| {
        let mut layers = vec![vec![T.start()]];
        loop {
            let next = distinct(
                layers
                    .last()
                    .unwrap()
                    .iter()
                    .flat_map(|&p| T.moves(p).into_iter().map(move |mv| T.play(p, mv).0))
                    .collect(),
            );
            if next.is_empty() {
                return layers;
            }
            layers.push(next);
        }
    })
}

fn distinct(mut positions: Vec<Board4x4>) -> Vec<Board4x4> {
    positions.sort_unstable();
    positions.dedup();
    positions
}

/// The library's counts per ply: canonical forms from `canonical()` (all
/// 32 symmetries) and from the first `SQUARE_SYMMETRIES` images.
fn library_counts() -> Vec<plain::Counts> {
    library_layers()
        .iter()
        .map(|layer| plain::Counts {
            raw: layer.len() as u64,
            square: distinct(
                layer
                    .iter()
                    .map(|&p| (0..SQUARE_SYMMETRIES).map(|s| T.image(p, s)).min().unwrap())
                    .collect(),
            )
            .len() as u64,
            lines: distinct(layer.iter().map(|&p| T.canonical(p)).collect()).len() as u64,
        })
        .collect()
}

fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let started = Instant::now();
    let result = f();
    (result, started.elapsed().as_secs_f64())
}

#[test]
fn counts_per_ply_match_an_independent_enumeration() {
    // The reference counts on a second thread meanwhile.
    let ((reference, reference_time), (ours, library_time)) = std::thread::scope(|scope| {
        let reference = scope.spawn(|| timed(plain::counts_per_ply));
        let ours = timed(library_counts);
        (reference.join().unwrap(), ours)
    });
    println!("ply  reachable  canonical-8  canonical-32");
    let mut total = plain::Counts::default();
    for (ply, c) in reference.iter().enumerate() {
        println!("{ply:3} {:10} {:12} {:13}", c.raw, c.square, c.lines);
        total.raw += c.raw;
        total.square += c.square;
        total.lines += c.lines;
    }
    println!(
        "all {:10} {:12} {:13}",
        total.raw, total.square, total.lines
    );
    println!("reference {reference_time:.1} s, library {library_time:.1} s");
    assert_eq!(ours, reference);
    // The build counts what it stores the same way (positions up to the
    // full group, and all positions as the sum of their orbits).
    let (solution, _) = build_table(&T, 1);
    let built: Vec<(u64, u64)> = solution
        .layers
        .iter()
        .map(|l| (l.reachable, l.canonical))
        .collect();
    let expected: Vec<(u64, u64)> = reference.iter().map(|c| (c.raw, c.lines)).collect();
    assert_eq!(built, expected);
    assert_eq!(solution.stored, total.lines);
    assert_eq!(reference.len(), 17);
    assert_eq!(
        (total.raw, total.square, total.lines),
        (9_722_011, 1_217_977, 307_639)
    );
}

#[test]
fn plain_minimax_agrees_with_search_on_random_positions() {
    let oracle = GameOracle::<_, Vec<u8>>::search_only(T);
    let mut solver = plain::Solver::new();
    let started = Instant::now();
    let boards = random_boards(300, 6, 44);
    for board in &boards {
        let text = plain::notation(board);
        let answer = oracle.answer(parse(board)).unwrap();
        let (result, plies) = solver.solve(board);
        assert_eq!(answer.value.wdl.as_str(), result, "{text}");
        assert_eq!(u32::from(answer.value.plies), plies, "{text}");
        // Every move's value, seen from the mover, counted from before it.
        let mut expected: Vec<(String, &str, u32)> = plain::children(board)
            .iter()
            .map(|(cell, child)| {
                let (r, p) = solver.move_value(child);
                (cell.to_string(), r, p)
            })
            .collect();
        let mut got: Vec<(String, &str, u32)> = answer
            .moves
            .iter()
            .map(|m| {
                (
                    m.mv.to_string(),
                    m.value.wdl.as_str(),
                    u32::from(m.value.plies),
                )
            })
            .collect();
        if let Some(best) = answer.moves.first() {
            assert_eq!(best.value, answer.value, "{text}");
        }
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{text}");
    }
    println!(
        "{} positions with 6 or more stones in {:.1} s",
        boards.len(),
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn the_empty_board_by_search_and_by_plain_minimax() {
    let started = Instant::now();
    let reference = plain::Solver::new().solve(&plain::EMPTY);
    let reference_time = started.elapsed();
    let started = Instant::now();
    let mut search = Search::new(&T);
    let score = search.score(T.start()).unwrap();
    let value = T.value(T.start(), score);
    println!(
        "empty board: {value} (search {:.0} ms, {} positions; plain minimax {:.1} s)",
        started.elapsed().as_secs_f64() * 1e3,
        search.nodes(),
        reference_time.as_secs_f64()
    );
    assert_eq!((value.wdl.as_str(), u32::from(value.plies)), reference);
    assert_eq!(value.to_string(), "draw in 16");
    // Every first move, by search and by the reference.
    let answer = GameOracle::<_, Vec<u8>>::search_only(T)
        .answer(T.start())
        .unwrap();
    let mut solver = plain::Solver::new();
    for m in &answer.moves {
        let mut child = plain::EMPTY;
        child[usize::from(m.mv.index())] = b'X';
        let (result, plies) = solver.move_value(&child);
        assert_eq!(m.value.wdl.as_str(), result, "move {}", m.mv);
        assert_eq!(u32::from(m.value.plies), plies, "move {}", m.mv);
    }
    assert_eq!(answer.moves.len(), 16);
    // Computed above, and checked against the reference: every first move
    // keeps the draw.
    assert!(answer.moves.iter().all(|m| m.value == value));
}

#[test]
fn symmetric_images_probe_equal() {
    let oracle = GameOracle::<_, Vec<u8>>::search_only(T);
    let symmetries = plain::line_symmetries();
    for board in random_boards(40, 9, 7) {
        let value = oracle.probe(parse(&board)).unwrap();
        for image in plain::images(&board, &symmetries) {
            assert_eq!(
                oracle.probe(parse(&image)).unwrap(),
                value,
                "{}",
                plain::notation(&image)
            );
        }
        // The library's own symmetries give the same set of images.
        let p = parse(&board);
        let mut ours: Vec<String> = (0..T.symmetry_count())
            .map(|s| T.notation(T.image(p, s)))
            .collect();
        let mut theirs: Vec<String> = plain::images(&board, &symmetries)
            .map(|image| plain::notation(&image))
            .collect();
        ours.sort();
        ours.dedup();
        theirs.sort();
        theirs.dedup();
        assert_eq!(ours, theirs);
    }
}

/// The table the generator builds (at the level `build` chooses, so that it
/// must equal the committed one byte for byte), and the reference solver.
fn built_table() -> (Table<Vec<u8>>, plain::Solver) {
    let solution = T.solve_table();
    let level = default_level(solution.entries.len() as u64);
    let bytes = encode_solution(&T, &solution, level);
    let committed = std::fs::read(committed_tables().join("tictactoe-4x4.sdb")).unwrap();
    assert!(
        bytes == committed,
        "the build differs from tables/tictactoe-4x4.sdb"
    );
    let table = Table::new(bytes).unwrap();
    table.verify().unwrap();
    (table, plain::Solver::new())
}

#[test]
fn the_built_table_probes_like_the_reference() {
    let started = Instant::now();
    let (table, mut solver) = built_table();
    let oracle = GameOracle::with_table(T, table).unwrap();
    let built = started.elapsed().as_secs_f64();
    let symmetries = plain::line_symmetries();
    let started = Instant::now();
    let mut probes = 0;
    for board in random_boards(2000, 0, 8) {
        let expected = solver.solve(&board);
        // Every image, as the reference makes them, probes the same.
        for image in plain::images(&board, &symmetries) {
            let value = oracle.probe(parse(&image)).unwrap();
            let text = plain::notation(&image);
            assert_eq!(
                (value.wdl.as_str(), u32::from(value.plies)),
                expected,
                "{text}"
            );
            probes += 1;
        }
        // And every move's value.
        let answer = oracle.answer(parse(&board)).unwrap();
        let mut got: Vec<(String, &str, u32)> = answer
            .moves
            .iter()
            .map(|m| {
                (
                    m.mv.to_string(),
                    m.value.wdl.as_str(),
                    u32::from(m.value.plies),
                )
            })
            .collect();
        let mut want: Vec<(String, &str, u32)> = plain::children(&board)
            .iter()
            .map(|(cell, child)| {
                let (r, p) = solver.move_value(child);
                (cell.to_string(), r, p)
            })
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", plain::notation(&board));
    }
    println!(
        "table of {} canonical positions built in {built:.1} s; {probes} probes and 2000 answers in {:.1} s",
        oracle.table().unwrap().header().stored,
        started.elapsed().as_secs_f64()
    );
    // A key the table lacks (an unreachable board) is an entry error.
    let unreachable = T.position_at(0x0003_0000).unwrap();
    assert!(matches!(
        T.table_score(oracle.table().unwrap(), unreachable),
        Err(solvedb_lookup::TableError::Entry { .. })
    ));
}

#[test]
fn the_directory_oracle_answers_tictactoe_4x4_from_its_table_and_by_search() {
    let no_tables = std::env::temp_dir().join(format!("solvedb-no-tables-{}", std::process::id()));
    let game: GameId = "tictactoe:4x4".parse().unwrap();
    let position = "XXX./OOO./..../....";
    let mut reports = Vec::new();
    for (dir, source) in [
        (committed_tables(), Source::Table),
        (no_tables, Source::Search),
    ] {
        let oracle = Oracle::open(&dir).unwrap();
        let report = oracle.moves(game, position).unwrap();
        assert_eq!(report.source, source);
        assert_eq!(report.to_move, Some('X'));
        assert_eq!(report.moves[0].mv, "3");
        let json = report.to_json();
        assert_eq!(json["game"], "tictactoe:4x4");
        assert_eq!(
            (json["result"].as_str(), json["plies"].as_u64()),
            (Some("win"), Some(1))
        );
        reports.push(report.moves);
    }
    assert_eq!(reports[0], reports[1]);
}
