//! Tic-tac-toe solved end to end: counts, every value against an independent
//! minimax, symmetry, notation, and determinism of the built table.

use solvedb_generator::build::build_table;
use solvedb_generator::verify::check_consistency;
use solvedb_lookup::{Game, GameOracle, Search, Table, TicTacToe};
use solvedb_tests::plain_tictactoe as plain;

fn table_oracle() -> GameOracle<TicTacToe, Vec<u8>> {
    let (_, bytes) = build_table(&TicTacToe, 19);
    GameOracle::with_table(TicTacToe, Table::new(bytes).unwrap()).unwrap()
}

#[test]
fn counts_match_an_independent_enumeration_and_the_known_figures() {
    let (solution, _) = build_table(&TicTacToe, 3);
    let boards = plain::reachable();
    assert_eq!(solution.reachable(), boards.len() as u64);
    let mut canonical: Vec<plain::Board> = boards
        .iter()
        .map(|b| plain::images(b).into_iter().min().unwrap())
        .collect();
    canonical.sort_unstable();
    canonical.dedup();
    assert_eq!(solution.canonical(), canonical.len() as u64);
    assert_eq!(solution.stored, canonical.len() as u64);
    // Published figures: 5,478 legal positions, 765 up to symmetry.
    assert_eq!((solution.reachable(), solution.canonical()), (5478, 765));
    // Per ply: the independent enumeration split by stone count.
    for layer in &solution.layers {
        let at_ply = boards
            .iter()
            .filter(|b| b.iter().filter(|&&c| c != b'.').count() == layer.ply)
            .count();
        assert_eq!(layer.reachable, at_ply as u64, "ply {}", layer.ply);
    }
}

#[test]
fn every_reachable_position_agrees_with_plain_minimax() {
    let oracle = table_oracle();
    for board in plain::reachable() {
        let text = plain::notation(&board);
        let position = TicTacToe.parse(&text).unwrap();
        let answer = oracle.answer(position).unwrap();
        let (result, plies) = plain::solve(&board);
        assert_eq!(answer.value.wdl.as_str(), result, "{text}");
        assert_eq!(u32::from(answer.value.plies), plies, "{text}");
        // Every move's value, seen from the mover, counted from before it.
        let mut expected: Vec<(String, &str, u32)> = plain::children(&board)
            .iter()
            .map(|(cell, child)| {
                let (r, p) = plain::solve(child);
                let mine = match r {
                    "win" => "loss",
                    "loss" => "win",
                    _ => "draw",
                };
                (cell.to_string(), mine, p + 1)
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
        // Best first: the first move's value is the position's value.
        if let Some(best) = answer.moves.first() {
            assert_eq!(best.value, answer.value, "{text}");
        }
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{text}");
    }
}

#[test]
fn the_empty_board_is_a_draw_by_table_and_by_search() {
    let start = TicTacToe.start();
    let from_table = table_oracle().probe(start).unwrap();
    let from_search = GameOracle::<_, Vec<u8>>::search_only(TicTacToe)
        .probe(start)
        .unwrap();
    assert_eq!(from_table, from_search);
    assert_eq!(from_table.to_string(), "draw in 9");
    assert_eq!(plain::solve(&[b'.'; 9]), ("draw", 9));
}

#[test]
fn live_search_agrees_with_the_table_everywhere() {
    let oracle = table_oracle();
    let mut search = Search::new(&TicTacToe);
    for board in plain::reachable() {
        let p = TicTacToe.parse(&plain::notation(&board)).unwrap();
        let score = search.score(p).unwrap();
        assert_eq!(TicTacToe.value(p, score), oracle.probe(p).unwrap());
    }
}

#[test]
fn a_search_budget_gives_unknown_rather_than_a_guess() {
    let oracle = GameOracle::<_, Vec<u8>>::search_only(TicTacToe).with_search_budget(50);
    let err = oracle.probe(TicTacToe.start()).unwrap_err();
    assert!(
        matches!(err, solvedb_lookup::Error::BudgetExhausted { budget: 50 }),
        "{err}"
    );
    assert!(err.to_string().contains("unknown within the budget"));
}

#[test]
fn symmetric_images_probe_equal() {
    let oracle = table_oracle();
    for board in plain::reachable() {
        let value = oracle
            .probe(TicTacToe.parse(&plain::notation(&board)).unwrap())
            .unwrap();
        for image in plain::images(&board) {
            let p = TicTacToe.parse(&plain::notation(&image)).unwrap();
            assert_eq!(
                oracle.probe(p).unwrap(),
                value,
                "{}",
                plain::notation(&image)
            );
        }
        // The library's own symmetries give the same set of images.
        let p = TicTacToe.parse(&plain::notation(&board)).unwrap();
        let mut ours: Vec<String> = (0..TicTacToe.symmetry_count())
            .map(|s| TicTacToe.notation(TicTacToe.image(p, s)))
            .collect();
        let mut theirs: Vec<String> = plain::images(&board).iter().map(plain::notation).collect();
        ours.sort();
        ours.dedup();
        theirs.sort();
        theirs.dedup();
        assert_eq!(ours, theirs);
    }
}

#[test]
fn notation_round_trips() {
    for board in plain::reachable() {
        let text = plain::notation(&board);
        let p = TicTacToe.parse(&text).unwrap();
        assert_eq!(TicTacToe.notation(p), text);
        assert_eq!(TicTacToe.parse(&text.replace('/', "")).unwrap(), p);
    }
}

#[test]
fn the_table_is_consistent_with_the_rules() {
    let (_, bytes) = build_table(&TicTacToe, 19);
    let table = Table::new(bytes).unwrap();
    table.verify().unwrap();
    let report = check_consistency(&TicTacToe, &table).unwrap();
    assert_eq!(report.checked, table.header().stored);
}

#[test]
fn many_threads_share_one_table() {
    let oracle = table_oracle();
    let boards = plain::reachable();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (oracle, boards) = (&oracle, &boards);
            s.spawn(move || {
                for board in boards.iter().skip(t).step_by(2) {
                    let p = TicTacToe.parse(&plain::notation(board)).unwrap();
                    assert_eq!(oracle.probe(p).unwrap().wdl.as_str(), plain::solve(board).0);
                }
            });
        }
    });
}
