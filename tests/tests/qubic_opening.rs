//! Qubic's opening table (`games::qubic::opening`): the builder's code on
//! small strategies (proved here from late roots, CI-sized) checked answer
//! by answer against exact searches (the library's alpha-beta with forced
//! play, which shares no code with the df-pn prover, and the plain
//! memoised minimax of `plain_qubic` where the board is nearly full), the
//! same bytes built twice, symmetric images answered alike through the
//! oracle, the table's own walker accepting the build and refusing broken
//! tables, and corrupt tables giving typed errors.

use solvedb_generator::build::encode_solution;
use solvedb_generator::games::qubic::opening::{
    Opening, OpeningBudget, build_opening, opening_bytes,
};
use solvedb_generator::games::qubic::opening_walk::walk_opening;
use solvedb_generator::games::qubic::prove::prove_strategy;
use solvedb_generator::games::qubic::samples::won_positions;
use solvedb_generator::games::qubic::strategy_solution;
use solvedb_generator::games::qubic::task::ProofOptions;
use solvedb_generator::games::qubic::walk::walk_positions;
use solvedb_lookup::format::WideRecord;
use solvedb_lookup::games::qubic::SYMMETRIES;
use solvedb_lookup::games::qubic::opening::{Settlement, decode_opening, encode_opening};
use solvedb_lookup::games::qubic::strategy::{Strategy, board_of_key};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{
    Error, ExactSolver, Game, GameOracle, Qubic, QubicBoard, QubicSolver, SearchLimits, Stop,
    Table, WIN_SCORE, read_table,
};
use solvedb_tests::{plain_qubic, qubic_image};

/// The budget of the small builds: every move of the root and of the
/// strategy's positions two stones later.
fn budget(root: QubicBoard) -> OpeningBudget {
    OpeningBudget {
        stones: root.stones() + 2,
        nodes: 2_000,
        table_bytes: 1 << 20,
    }
}

/// The strategy table of `root`, proved here.
fn strategy_of(root: QubicBoard) -> Table<Vec<u8>> {
    let options = ProofOptions {
        threads: 2,
        task_table_bytes: 4 << 20,
        task_nodes: Some(20_000_000),
        ..ProofOptions::default()
    };
    let proved = prove_strategy(root, options, None, &|_| {}).expect("proved");
    Table::new(encode_solution(&Qubic, &strategy_solution(&proved), 3)).expect("a table")
}

fn table_of(opening: &Opening) -> Table<Vec<u8>> {
    let table = Table::new(opening_bytes(opening, 3)).expect("a table");
    table.verify().expect("checksums");
    table
}

/// An opening table of `records` (sorted).
fn table_with(records: Vec<WideRecord>) -> Table<Vec<u8>> {
    let opening = Opening {
        records,
        positions_by_stones: Default::default(),
        moves: Default::default(),
        children: 0,
        settle_time: Default::default(),
    };
    table_of(&opening)
}

/// The most records of one small build checked by exact search.
const CHECKED: usize = 60;

/// The plies to the end of an exact score of `board`.
fn plies(board: QubicBoard, score: i32) -> i32 {
    WIN_SCORE - score.abs() - board.stones() as i32
}

#[test]
fn every_record_agrees_with_exact_searches_and_two_builds_write_the_same_bytes() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut plain = plain_qubic::Solver::new();
    let mut seen = [0usize; 5];
    let mut by_plain = 0;
    // A root whose strategy needs records, and a late one whose moves'
    // positions the plain minimax solves.
    for (root, seed) in
        [(44, 2020, true), (54, 2031, false)]
            .into_iter()
            .flat_map(|(stones, seed, records)| {
                won_positions(1, stones, seed, records)
                    .into_iter()
                    .map(move |(r, _)| (r, seed))
            })
    {
        let strategy = strategy_of(root);
        let opening = build_opening(&strategy, root, budget(root)).expect("built");
        let again = build_opening(&strategy, root, budget(root)).expect("built");
        assert_eq!(
            opening_bytes(&opening, 3),
            opening_bytes(&again, 3),
            "{seed}"
        );
        // Every settled record, or an even sample of CHECKED of them
        // (exact searches of 45 stones take a while).
        let settled: Vec<(QubicBoard, _)> = opening
            .records
            .iter()
            .map(|&(key, entry)| {
                let board = board_of_key(key);
                (board, decode_opening(board, entry).expect("a good record"))
            })
            .filter(|(_, value)| value.settled != Settlement::Unsettled)
            .collect();
        let step = settled.len().div_ceil(CHECKED).max(1);
        for &(board, value) in settled.iter().step_by(step) {
            let text = Qubic.notation(board);
            seen[value.settled as usize] += 1;
            let exact = solver.score(board).expect("solved");
            if board.empty().count_ones() <= 9 {
                let plain_value = plain.value(&plain_qubic::parse(&text));
                let sign = match plain_value.result {
                    plain_qubic::Wdl::Win => 1,
                    plain_qubic::Wdl::Draw => 0,
                    plain_qubic::Wdl::Loss => -1,
                };
                assert_eq!(sign, exact.signum(), "{text}");
                by_plain += 1;
            }
            let x_wins = if board.x_to_move() {
                exact > 0
            } else {
                exact < 0
            };
            match value.settled {
                Settlement::Strategy | Settlement::Proved => {
                    assert!(x_wins, "{text}: {value:?} against {exact}");
                    assert!(i32::from(value.plies) >= plies(board, exact), "{text}");
                }
                Settlement::OWins => {
                    let o_wins = if board.x_to_move() {
                        exact < 0
                    } else {
                        exact > 0
                    };
                    assert!(o_wins, "{text}: {value:?} against {exact}");
                    assert!(i32::from(value.plies) >= plies(board, exact), "{text}");
                }
                Settlement::NotXWin => assert!(!x_wins, "{text}: {value:?} against {exact}"),
                Settlement::Unsettled => unreachable!("filtered out"),
            }
        }
    }
    assert!(seen[Settlement::Strategy as usize] >= 5, "{seen:?}");
    assert!(seen[Settlement::Proved as usize] >= 5, "{seen:?}");
    assert!(
        seen[Settlement::OWins as usize] + seen[Settlement::NotXWin as usize] >= 3,
        "{seen:?}"
    );
    assert!(
        by_plain >= 10,
        "only {by_plain} checked by the plain minimax"
    );
}

/// X-to-move positions of the committed strategy with `stones` stones,
/// O replying at random (seeded).
fn strategy_positions(count: usize, stones: u32, seed: u64) -> Vec<QubicBoard> {
    let table = read_table(&solvedb_tests::committed_tables().join("qubic.sdb")).unwrap();
    let mut strategy = Strategy::new(&table);
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut board = Qubic.start();
        while board.stones() < stones {
            let m = strategy
                .x_move(board)
                .unwrap()
                .expect("a strategy position");
            board = board.with_move(m.cell);
            let moves = Qubic.moves(board);
            board = Qubic.play(board, *rng.pick(&moves)).0;
        }
        if Qubic.terminal_score(board).is_none() {
            found.push(board);
        }
    }
    found
}

#[test]
fn the_committed_opening_answers_moves_the_strategy_leaves_unknown_and_images_alike() {
    let tables = solvedb_tests::committed_tables();
    let strategy = || read_table(&tables.join("qubic.sdb")).unwrap();
    let oracle = GameOracle::with_table(Qubic, strategy())
        .unwrap()
        .with_companion(read_table(&tables.join("qubic-opening.sdb")).unwrap())
        .unwrap();
    let bare = GameOracle::with_table(Qubic, strategy()).unwrap();
    let (mut fewer, mut positions) = (0, 0);
    for (i, board) in strategy_positions(12, 6, 44).into_iter().enumerate() {
        let answer = oracle.answer(board).unwrap();
        let without = bare.answer(board).unwrap();
        assert!(answer.unknown.len() <= without.unknown.len());
        fewer += usize::from(answer.unknown.len() < without.unknown.len());
        positions += 1;
        // The moves both know have the same value.
        for m in &without.moves {
            let same = answer.moves.iter().find(|a| a.mv == m.mv).expect("known");
            assert_eq!(same.score, m.score);
        }
        // Every image answers alike, move for move.
        let s = [1, 57, 130, 191][i % 4];
        let image = qubic_image(board, s);
        let other = oracle.answer(image).unwrap();
        assert_eq!(other.score, answer.score);
        assert_eq!(other.unknown.len(), answer.unknown.len(), "symmetry {s}");
        for m in &answer.moves {
            let mapped =
                solvedb_lookup::QubicCell::new(SYMMETRIES[s][usize::from(m.mv.index())]).unwrap();
            let there = other
                .moves
                .iter()
                .find(|o| o.mv == mapped)
                .expect("the image's move");
            assert_eq!(there.score, m.score, "symmetry {s}");
        }
    }
    assert!(
        fewer * 2 >= positions,
        "{fewer} of {positions} answered more"
    );
    // The empty board: the corner and centre cells win by the strategy
    // (transpositions of the corner), the others are not settled.
    let empty = oracle.answer(Qubic.start()).unwrap();
    assert_eq!(empty.moves.len(), 16);
    assert!(empty.moves.iter().all(|m| m.score > 0));
}

#[test]
fn the_walker_accepts_the_build_and_refuses_broken_tables() {
    let (root, _) = won_positions(1, 36, 2021, true)[0];
    let strategy = strategy_of(root);
    let (_, walked) = walk_positions(&strategy, root).expect("the strategy walks");
    let opening = build_opening(&strategy, root, budget(root)).expect("built");
    let report = walk_opening(&table_of(&opening), &walked, root, budget(root)).expect("the walk");
    assert_eq!(
        report.records.iter().sum::<u64>(),
        opening.records.len() as u64
    );
    let refused = |records: Vec<WideRecord>| {
        walk_opening(&table_with(records), &walked, root, budget(root)).is_err()
    };
    let records = opening.records.clone();

    // A record left out.
    let mut missing = records.clone();
    missing.remove(records.len() / 2);
    assert!(refused(missing));

    // A position no move leads to.
    let mut extra = records.clone();
    let stray = (1u128 << 64) | 6;
    extra.push((
        stray,
        encode_opening(solvedb_lookup::games::qubic::opening::OpeningValue {
            settled: Settlement::Unsettled,
            plies: 0,
        }),
    ));
    extra.sort();
    assert!(refused(extra));

    // A win claimed where X does not win; a strategy bound too short.
    let mut solver = QubicSolver::new(SearchLimits::default());
    let not_won = records.iter().position(|&(key, entry)| {
        let board = board_of_key(key);
        !board.x_to_move()
            && decode_opening(board, entry).unwrap().settled == Settlement::Unsettled
            && solver.score(board).unwrap() >= 0
    });
    if let Some(at) = not_won {
        let mut forged = records.clone();
        let board = board_of_key(forged[at].0);
        let empty = board.empty().count_ones() as u8;
        forged[at].1 = [Settlement::Proved as u8, empty - empty % 2];
        assert!(refused(forged), "{}", Qubic.notation(board));
    }
    let strategy_record = records
        .iter()
        .position(|&(key, entry)| {
            let value = decode_opening(board_of_key(key), entry).unwrap();
            value.settled == Settlement::Strategy && value.plies >= 3
        })
        .expect("a record by the strategy");
    let mut short = records.clone();
    short[strategy_record].1[1] = if board_of_key(short[strategy_record].0).x_to_move() {
        1
    } else {
        2
    };
    assert!(refused(short));
}

#[test]
fn a_corrupt_opening_table_is_a_typed_error() {
    let (root, _) = won_positions(1, 36, 2020, true)[0];
    let strategy = strategy_of(root);
    let opening = build_opening(&strategy, root, budget(root)).expect("built");
    // A record of a move of the root that only the opening table answers.
    let bare = GameOracle::with_table(Qubic, strategy_of_cached(&strategy)).unwrap();
    let (at, mv) = Qubic
        .moves(root)
        .into_iter()
        .filter(|&mv| {
            let quick = Stop::new(None, Some(1_000));
            bare.probe_value_within(Qubic.play(root, mv).0, &quick)
                .is_err()
        })
        .find_map(|mv| {
            let child = Qubic.canonical(Qubic.play(root, mv).0);
            let at = opening
                .records
                .iter()
                .position(|r| board_of_key(r.0) == child)?;
            Some((at, Some(mv)))
        })
        .expect("a move the strategy leaves unknown");
    let child = board_of_key(opening.records[at].0);
    for entry in [
        [9, 0],
        [Settlement::Proved as u8, 0],
        [Settlement::Unsettled as u8, 3],
        [Settlement::Proved as u8, 255],
    ] {
        let mut records = opening.records.clone();
        records[at].1 = entry;
        let oracle = GameOracle::with_table(Qubic, strategy_of(root))
            .unwrap()
            .with_companion(table_with(records))
            .unwrap();
        if let Some(mv) = mv {
            let (child, _) = Qubic.play(root, mv);
            assert!(
                matches!(oracle.probe_value(child), Err(Error::Table(_))),
                "{entry:?}"
            );
            assert!(
                matches!(oracle.answer(root), Err(Error::Table(_))),
                "{entry:?}"
            );
        }
        assert!(decode_opening(child, entry).is_err(), "{entry:?}");
    }
    // The strategy table is no opening table, nor the opening table a
    // strategy.
    let bytes = opening_bytes(&opening, 3);
    assert!(
        GameOracle::with_table(Qubic, strategy_of(root))
            .unwrap()
            .with_companion(strategy_of(root))
            .is_err()
    );
    assert!(GameOracle::with_table(Qubic, Table::new(bytes.clone()).unwrap()).is_err());
    // Bytes flipped anywhere: refused at open, by the checksums, or by a
    // probe, never a panic.
    let mut rng = Rng::new(44);
    for _ in 0..200 {
        let mut broken = bytes.clone();
        let i = rng.below(broken.len() as u64) as usize;
        broken[i] ^= 1 << rng.below(8);
        let Ok(table) = Table::new(broken) else {
            continue;
        };
        let _ = table.verify();
        let Ok(oracle) = GameOracle::with_table(Qubic, strategy_of_cached(&strategy))
            .and_then(|o| o.with_companion(table))
        else {
            continue;
        };
        let _ = oracle.answer(root);
    }
}

/// A copy of a strategy table (tables are not `Clone`).
fn strategy_of_cached(table: &Table<Vec<u8>>) -> Table<Vec<u8>> {
    Table::new(table.data().clone()).expect("a table")
}
