//! Qubic's live proofs beyond the strategy table (`games::qubic::live`):
//! their values against exact searches (the plain memoised minimax of
//! `plain_qubic` where the board is nearly full, the library's alpha-beta
//! with forced play further back, which shares no code with the df-pn
//! prover), the strategy table as their leaves, symmetric images answered
//! alike, and the request's `Stop` ending them with its own error.

use solvedb_lookup::games::qubic::live::prove_both;
use solvedb_lookup::games::qubic::samples::{
    late_positions, people_position, people_position_with,
};
use solvedb_lookup::games::qubic::strategy::{Records, Strategy};
use solvedb_lookup::{
    Error, ExactSolver, Game, GameOracle, Qubic, QubicBoard, QubicSolver, SearchLimits, Source,
    Stop, Table, read_table,
};
use solvedb_tests::{plain_qubic, qubic_image};

fn strategy_table() -> Table<Vec<u8>> {
    read_table(&solvedb_tests::committed_tables().join("qubic.sdb")).unwrap()
}

/// `reported` (the proofs' score) is the exact score or a true bound of
/// it: the same result, a win no faster and a loss no slower than exact.
fn assert_true_bound(board: QubicBoard, reported: i32, at_most: bool, exact: i32) {
    let text = Qubic.notation(board);
    assert_eq!(
        reported.signum(),
        exact.signum(),
        "{text}: {reported} against {exact}"
    );
    if !at_most {
        assert_eq!(reported, exact, "{text}");
    } else if exact > 0 {
        assert!(reported <= exact, "{text}: a win faster than exact");
    } else {
        assert!(reported >= exact, "{text}: a loss slower than exact");
    }
}

#[test]
fn the_proofs_agree_with_exact_searches_on_one_thread_and_on_two() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut plain = plain_qubic::Solver::new();
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for threads in [Some(1), None] {
        let limits = SearchLimits {
            threads,
            stop: Stop::new(None, Some(20_000_000)),
            ..SearchLimits::default()
        };
        for (empties, count) in [(8, 12), (16, 12), (22, 10)] {
            for board in late_positions(count, empties, 4400 + u64::from(empties)) {
                let canonical = Qubic.canonical(board);
                let probed = prove_both(None, canonical, &limits).unwrap();
                let exact = solver.score(canonical).unwrap();
                if empties <= 8 {
                    // The plain minimax agrees with the alpha-beta here.
                    let value = plain.value(&plain_qubic::parse(&Qubic.notation(board)));
                    let won = matches!(value.result, plain_qubic::Wdl::Win);
                    let lost = matches!(value.result, plain_qubic::Wdl::Loss);
                    assert_eq!((exact > 0, exact < 0), (won, lost));
                }
                assert_true_bound(board, probed.score, probed.at_most, exact);
                match exact.signum() {
                    1 => wins += 1,
                    -1 => losses += 1,
                    _ => draws += 1,
                }
            }
        }
    }
    assert!(
        wins >= 10 && losses >= 10 && draws >= 2,
        "{wins} wins, {losses} losses, {draws} draws: the sample should hold each"
    );
}

#[test]
fn with_the_strategy_as_leaves_x_is_proved_the_winner_wherever_o_replies() {
    // Positions of the strategy, O to move: every O reply leads to a
    // position the strategy settles, so the proof for X ends at once.
    let table = strategy_table();
    let mut strategy = Strategy::new(&table);
    let limits = SearchLimits {
        stop: Stop::new(None, Some(5_000_000)),
        ..SearchLimits::default()
    };
    let mut checked = 0;
    for seed in 0..12u64 {
        let mut board = Qubic.start();
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while board.stones() < 9 {
            if board.x_to_move() {
                let mv = strategy
                    .x_move(board)
                    .unwrap()
                    .expect("a strategy position");
                board = Qubic.play(board, mv.cell).0;
                if Qubic.terminal_score(board).is_some() {
                    break;
                }
                let canonical = Qubic.canonical(board);
                let probed = prove_both(Some(&Records(&table)), canonical, &limits).unwrap();
                assert!(probed.score < 0, "{}: O should lose", Qubic.notation(board));
                checked += 1;
            } else {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let moves = Qubic.moves(board);
                board = Qubic
                    .play(board, moves[(rng % moves.len() as u64) as usize])
                    .0;
            }
        }
    }
    assert!(checked >= 40, "{checked} positions checked");
}

#[test]
fn images_answer_alike_within_a_node_budget() {
    // One thread and a node budget: the search is a function of the
    // canonical board, so every image answers alike (or stops alike).
    let oracle = GameOracle::with_table(Qubic, strategy_table())
        .unwrap()
        .with_search_limits(SearchLimits {
            threads: Some(1),
            ..SearchLimits::default()
        });
    let mut answered = 0;
    for seed in 0..16u64 {
        let stones = 7 + (seed % 5) as u32;
        let Some(board) = people_position(900 + seed, stones) else {
            continue;
        };
        let outcome = |b: QubicBoard| {
            oracle
                .probe_value_within(b, &Stop::new(None, Some(1_000_000)))
                .map(|p| (p.score, p.at_most, p.source))
                .map_err(|e| e.to_string())
        };
        let first = outcome(board);
        if let Ok((_, _, source)) = first {
            answered += usize::from(source == Source::Search);
        }
        for s in [5, 77, 191] {
            assert_eq!(
                outcome(qubic_image(board, s)),
                first,
                "{}: image {s}",
                Qubic.notation(board)
            );
        }
    }
    assert!(answered >= 3, "only {answered} answered by the live search");
}

#[test]
fn the_stop_ends_the_proofs_with_its_own_error() {
    let oracle = GameOracle::with_table(Qubic, strategy_table()).unwrap();
    // X opens on a cell of four lines: no table covers it, and neither
    // the exact search nor the proofs finish quickly.
    let board = Qubic.parse("1").unwrap();
    let cancelled = Stop::new(None, None);
    cancelled.cancel();
    assert!(matches!(
        oracle.probe_value_within(board, &cancelled),
        Err(Error::Cancelled)
    ));
    assert!(matches!(
        oracle.probe_value_within(board, &Stop::new(None, Some(50_000))),
        Err(Error::BudgetExhausted { .. })
    ));
    let stop = Stop::new(Some(std::time::Duration::from_millis(200)), None);
    assert!(matches!(
        oracle.probe_value_within(board, &stop),
        Err(Error::TimeExhausted { .. })
    ));
    // Cancelled while the proofs run (from another thread).
    let stop = Stop::new(None, None);
    let canceller = stop.clone();
    let handle = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        canceller.cancel();
    });
    let limits = SearchLimits {
        stop,
        ..SearchLimits::default()
    };
    let canonical = Qubic.canonical(board);
    assert!(matches!(
        prove_both(None, canonical, &limits),
        Err(Error::Cancelled)
    ));
    handle.join().unwrap();
}

#[test]
fn the_moves_a_tables_answer_leaves_open_are_searched_within_a_deadline() {
    // Positions on the strategy's line, X to move: the table (or its
    // threat line) values the strategy's move and what its records cover;
    // with a deadline the
    // other moves are searched. What the search adds must agree with the
    // library's alpha-beta wherever that finishes, the table's own moves
    // and value must stay as they were, and without a deadline (or for a
    // best move) nothing is searched.
    let table = strategy_table();
    let mut strategy = Strategy::new(&table);
    let oracle = GameOracle::with_table(Qubic, strategy_table()).unwrap();
    // Each check within its own 2,000,000 positions (a solver's node
    // budget is over its life): a move alpha-beta cannot settle within
    // that is skipped, not searched for seconds.
    let solver = || {
        QubicSolver::new(SearchLimits {
            nodes: Some(2_000_000),
            table_bytes: Some(16 << 20),
            ..SearchLimits::default()
        })
    };
    let (mut positions, mut added, mut checked) = (0, 0, 0);
    for seed in 0..200u64 {
        let stones = 16 + 2 * (seed % 4) as u32;
        let x_move = |b| Some(strategy.x_move(b).ok()??.cell.index());
        let Some(board) = people_position_with(7700 + seed, stones, x_move) else {
            continue;
        };
        let alone = oracle.answer(board).unwrap();
        if alone.unknown.is_empty() || alone.source == Source::Search {
            continue;
        }
        positions += 1;
        let text = Qubic.notation(board);
        let stop = Stop::new(Some(std::time::Duration::from_millis(1500)), None);
        // What a best move and a main line use searches nothing more.
        let covered = oracle.answer_covered_within(board, &stop).unwrap();
        assert_eq!(
            (covered.moves.len(), &covered.unknown),
            (alone.moves.len(), &alone.unknown),
            "{text}"
        );
        assert!(alone.searched.is_empty() && covered.searched.is_empty());
        let searched = oracle.answer_within(board, &stop).unwrap();
        assert_eq!(
            (searched.score, searched.at_most),
            (alone.score, alone.at_most),
            "{text}"
        );
        assert_eq!(
            searched.moves.len() + searched.unknown.len(),
            Qubic.moves(board).len(),
            "{text}"
        );
        // The answer names the moves the search valued: the open ones it
        // settled, in the game's order.
        let settled: Vec<_> = alone
            .unknown
            .iter()
            .filter(|mv| searched.moves.iter().any(|m| m.mv == **mv))
            .copied()
            .collect();
        assert_eq!(searched.searched, settled, "{text}");
        for m in &searched.moves {
            if let Some(was) = alone.moves.iter().find(|a| a.mv == m.mv) {
                assert_eq!((m.score, m.at_most), (was.score, was.at_most), "{text}");
                continue;
            }
            assert!(alone.unknown.contains(&m.mv), "{text}: {}", m.mv);
            added += 1;
            let (child, transition) = Qubic.play(board, m.mv);
            if let Ok(exact) = solver().score(Qubic.canonical(child)) {
                assert_true_bound(child, m.score, m.at_most, transition.backup(exact));
                checked += 1;
            }
        }
        if positions >= 6 && checked >= 20 {
            break;
        }
    }
    assert!(
        positions >= 6 && added >= 20 && checked >= 20,
        "{positions} positions, {added} moves valued by the search, {checked} checked by alpha-beta"
    );
}
