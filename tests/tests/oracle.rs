//! The directory-level `Oracle`: one probe path for every game, lazy tables,
//! search where no table is, and many threads at once.

use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{
    AnyValue, Cube, Error, Game, GameId, GameOracle, Oracle, Source, TicTacToe, Want, read_table,
};
use solvedb_tests::committed_tables;

/// Positions of both games from random play, as (game, notation).
fn sample(count: usize) -> Vec<(GameId, String)> {
    let mut rng = Rng::new(5);
    let mut out = Vec::new();
    while out.len() < count {
        out.extend(
            random_positions(&TicTacToe, &mut rng, 8)
                .into_iter()
                .map(|p| (GameId::TicTacToe, TicTacToe.notation(p))),
        );
        out.extend(
            random_positions(&Cube, &mut rng, 20)
                .into_iter()
                .map(|p| (GameId::Cube, Cube.notation(p))),
        );
    }
    out
}

#[test]
fn eight_threads_sharing_one_oracle_agree_with_one_thread() {
    let positions = sample(400);
    let alone = Oracle::open(&committed_tables()).unwrap();
    let expected: Vec<_> = positions
        .iter()
        .map(|(g, p)| alone.moves(*g, p).unwrap())
        .collect();
    let shared = Oracle::open(&committed_tables()).unwrap();
    std::thread::scope(|s| {
        for t in 0..8 {
            let (shared, positions, expected) = (&shared, &positions, &expected);
            s.spawn(move || {
                // Each thread starts at another place, so first opens race.
                for i in (0..positions.len()).map(|i| (i + t * 37) % positions.len()) {
                    let (game, text) = &positions[i];
                    assert_eq!(shared.moves(*game, text).unwrap(), expected[i]);
                }
            });
        }
    });
    // Every answer came from the tables (or the rules that make the cube table
    // small), none from search.
    assert!(
        expected
            .iter()
            .all(|r| matches!(r.source, Source::Table | Source::ForcedPlay))
    );
}

#[test]
fn the_oracle_answers_like_each_games_own_table() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let table = read_table(&committed_tables().join("cube.sdb")).unwrap();
    let own = GameOracle::with_table(Cube, table).unwrap();
    for (game, text) in sample(200).into_iter().filter(|(g, _)| *g == GameId::Cube) {
        let AnyValue::Outcome(value) = oracle.probe(game, &text).unwrap().value else {
            panic!("the cube has outcomes");
        };
        assert_eq!(value, own.probe(Cube.parse(&text).unwrap()).unwrap());
        let best = oracle.best_move(game, &text).unwrap().unwrap();
        assert_eq!(best.value, AnyValue::Outcome(value), "{text}");
    }
}

#[test]
fn without_tables_it_searches_says_so_and_respects_the_budget() {
    let empty = tempfile::tempdir().unwrap();
    let searching = Oracle::open(empty.path()).unwrap();
    let with_tables = Oracle::open(&committed_tables()).unwrap();
    for text in ["X../.O./...", "XO./.X./..O", "........."] {
        let searched = searching
            .answer(GameId::TicTacToe, text, Want::Moves)
            .unwrap();
        let looked_up = with_tables
            .answer(GameId::TicTacToe, text, Want::Moves)
            .unwrap();
        assert_eq!(searched.source, Source::Search);
        assert_eq!(looked_up.source, Source::Table);
        assert_eq!(
            (searched.value, searched.moves),
            (looked_up.value, looked_up.moves)
        );
    }
    let budgeted = Oracle::open(empty.path()).unwrap().with_search_budget(100);
    assert!(matches!(
        budgeted.probe(GameId::Cube, &".".repeat(27)),
        Err(Error::BudgetExhausted { budget: 100 })
    ));
}

#[test]
fn bad_requests_are_typed_errors() {
    let file = tempfile::NamedTempFile::new().unwrap();
    assert!(matches!(
        Oracle::open(file.path()),
        Err(Error::NotADirectory { .. })
    ));
    let oracle = Oracle::open(&committed_tables()).unwrap();
    assert!(matches!(
        oracle.probe(GameId::Cube, "XX"),
        Err(Error::Position(_))
    ));
    assert!(matches!(
        oracle.probe(GameId::TicTacToe, "XXX/OOO/..."),
        Err(Error::Position(_))
    ));
    // A damaged table is an error, not a silent fallback to search.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(committed_tables().join("tictactoe.sdb")).unwrap();
    bytes[20] ^= 1; // inside the header: its checksum no longer matches
    std::fs::write(dir.path().join("tictactoe.sdb"), bytes).unwrap();
    let damaged = Oracle::open(dir.path()).unwrap();
    assert!(matches!(
        damaged.probe(GameId::TicTacToe, "........."),
        Err(Error::Table(solvedb_lookup::TableError::Checksum { .. }))
    ));
}

#[test]
fn cube_positions_settled_by_forced_play_say_so() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let searching = Oracle::open(empty.path()).unwrap();
    // X has two in the bottom row with the third cell free: a win in one.
    let win_in_one = format!("XX.OO{}", ".".repeat(22));
    let forced = oracle.probe(GameId::Cube, &win_in_one).unwrap();
    assert_eq!(forced.source, Source::ForcedPlay);
    assert_eq!(forced.to_json()["source"], "forced");
    let searched = searching.probe(GameId::Cube, &win_in_one).unwrap();
    assert_eq!(
        (searched.source, searched.value),
        (Source::Search, forced.value)
    );
    // A quiet position needs the table.
    let quiet = oracle.probe(GameId::Cube, &".".repeat(27)).unwrap();
    assert_eq!(quiet.source, Source::Table);
}

/// The mainline is the best move at every step, its moves are legal in
/// turn, it ends where the game is over, and its length and end agree with
/// the value: plies for the tic-tac-toe family, the margin for dots.
#[test]
fn mainlines_follow_the_best_move_to_the_end() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let mut rng = Rng::new(21);
    let mut cases: Vec<(GameId, String)> = random_positions(&TicTacToe, &mut rng, 40)
        .into_iter()
        .map(|p| (GameId::TicTacToe, TicTacToe.notation(p)))
        .collect();
    cases.extend(
        random_positions(&Cube, &mut rng, 40)
            .into_iter()
            .map(|p| (GameId::Cube, Cube.notation(p))),
    );
    let dots = solvedb_lookup::Dots::new(2, 2).unwrap();
    cases.extend(
        random_positions(&dots, &mut rng, 40)
            .into_iter()
            .map(|p| (dots.id(), dots.notation(p))),
    );
    for (game, start) in cases {
        let line = oracle.mainline(game, &start).unwrap();
        assert_eq!(line.value, oracle.probe(game, &start).unwrap().value);
        let mut position = oracle.probe(game, &start).unwrap().position;
        for mv in &line.moves {
            let best = oracle.best_move(game, &position).unwrap().unwrap();
            assert_eq!(&best.mv, mv, "{game} {position}");
            position = solvedb_lookup::with_game!(game, g => g
                .parse(&position)
                .and_then(|p| g.play_notation(p, mv))
                .map(|p| g.notation(p))
                .map_err(Error::from))
            .unwrap();
        }
        assert_eq!(position, line.last);
        assert!(oracle.best_move(game, &line.last).unwrap().is_none());
        if let AnyValue::Outcome(outcome) = line.value {
            assert_eq!(
                line.moves.len(),
                usize::from(outcome.plies),
                "{game} {start}"
            );
        }
        let json = line.to_json();
        assert_eq!(json["moves"].as_array().unwrap().len(), line.moves.len());
        assert_eq!(json["final"], line.last.as_str());
    }
}
