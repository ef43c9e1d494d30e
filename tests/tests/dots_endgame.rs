//! The dots endgame solver at the depth it now reaches, against a dense
//! retrograde analysis written here from the rules alone: a position with
//! `U` undrawn edges has `2^U` sub-positions (any subset of them drawn),
//! each valued from the ones with one more edge. Random 4x5 and 5x5
//! positions with up to 24 undrawn edges (16 MiB of values each); two with
//! 28 on request (`deeper_positions_on_request`, ignored by default).

use solvedb_generator::games::dots::endgame::{POSITIONS_FILE, positions_text};
use solvedb_lookup::games::dots::{EndgameSolver, Rules};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{
    Answer, AnyValue, Dots, Edges, ErrorKind, Game, GameOracle, SearchLimits, Stop,
};
use std::time::Duration;

/// The board's geometry again, from the edge numbering of the notation
/// (horizontal edges row by row, then vertical): each box's four edges.
fn box_edges(rows: u32, cols: u32) -> Vec<[u32; 4]> {
    let horizontal = (rows + 1) * cols;
    let mut boxes = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let top = r * cols + c;
            let bottom = (r + 1) * cols + c;
            let left = horizontal + r * (cols + 1) + c;
            boxes.push([top, bottom, left, left + 1]);
        }
    }
    boxes
}

/// Every sub-position's value for the player to move: index `i` has the
/// undrawn edges of `mask` whose bits are set in `i` drawn too.
fn retrograde(rows: u32, cols: u32, mask: u64) -> (Vec<u32>, Vec<i8>) {
    let edges = (rows + 1) * cols + rows * (cols + 1);
    let undrawn: Vec<u32> = (0..edges).filter(|&e| mask & 1 << e == 0).collect();
    let bit_of = |e: u32| undrawn.iter().position(|&u| u == e);
    // For each undrawn edge, the boxes beside it as the index bits their
    // other undrawn edges need: the edge completes a box when all are set.
    let needs: Vec<Vec<u64>> = undrawn
        .iter()
        .map(|&e| {
            box_edges(rows, cols)
                .iter()
                .filter(|b| b.contains(&e))
                .map(|b| {
                    b.iter()
                        .filter(|&&x| x != e)
                        .filter_map(|&x| bit_of(x))
                        .fold(0u64, |acc, j| acc | 1 << j)
                })
                .collect()
        })
        .collect();
    let n = undrawn.len();
    let mut values = vec![0i8; 1 << n];
    for i in (0..(1u64 << n) - 1).rev() {
        let mut best = i32::MIN;
        for (j, need) in needs.iter().enumerate() {
            if i & 1 << j != 0 {
                continue;
            }
            let gain = need.iter().filter(|&&m| i & m == m).count() as i32;
            let child = i32::from(values[(i | 1 << j) as usize]);
            best = best.max(if gain > 0 { gain + child } else { -child });
        }
        values[i as usize] = best as i8;
    }
    (undrawn, values)
}

/// The solver on `position` and a sample of its sub-positions, and the
/// oracle's every-move answer, against the retrograde.
fn check(board: Dots, position: Edges, rng: &mut Rng, rules: &[(&str, Rules, Option<usize>)]) {
    let (undrawn, values) = retrograde(board.rows(), board.cols(), position.0);
    let sub = |i: u64| {
        let mut mask = position.0;
        for (j, &e) in undrawn.iter().enumerate() {
            if i & 1 << j != 0 {
                mask |= 1 << e;
            }
        }
        Edges(mask)
    };
    // Every move's value through the oracle: one search.
    let answer = GameOracle::<_, Vec<u8>>::search_only(board)
        .answer(position)
        .unwrap();
    check_answer(board, &answer, (&undrawn, &values), 0);
    let sample: Vec<u64> = (0..40)
        .map(|_| rng.below(values.len() as u64))
        .chain([0])
        .collect();
    for &(rule_name, rules, threads) in rules {
        let limits = SearchLimits {
            threads,
            ..SearchLimits::default()
        };
        let mut solver = EndgameSolver::with_rules(board, limits, rules, 20);
        for &i in &sample {
            let got = solver.solve(sub(i)).unwrap();
            assert_eq!(
                got,
                i32::from(values[i as usize]),
                "{rule_name}: {}",
                board.notation(sub(i))
            );
        }
    }
}

/// `answer`, the oracle's answer of the sub-position `index` of a
/// [`retrograde`] (its `undrawn` edges and `values`), against it: the value
/// and every move's.
fn check_answer(
    board: Dots,
    answer: &Answer<Dots>,
    (undrawn, values): (&[u32], &[i8]),
    index: u64,
) {
    let name = board.notation(answer.position);
    assert_eq!(answer.score, i32::from(values[index as usize]), "{name}");
    for m in &answer.moves {
        let e = board.edge_index(m.mv);
        let j = undrawn.iter().position(|&u| u == e).unwrap();
        let (_, gain) = board.draw(answer.position.0, e);
        let child = i32::from(values[(index | 1 << j) as usize]);
        let expected = if gain > 0 {
            gain as i32 + child
        } else {
            -child
        };
        assert_eq!(m.score, expected, "{name} move {}", m.mv);
    }
}

/// A position with `undrawn` edges left: play without third sides
/// (`Dots::random_without_third_sides`, as the bench positions) to 36 undrawn
/// edges on 5x5 (32 on 4x5, about as far as such play goes), then random
/// edges, which give boxes third sides and take some.
fn position(board: Dots, rng: &mut Rng, undrawn: u32) -> Edges {
    let quiet = (board.edges() * 3 / 5).max(undrawn);
    loop {
        if let Some(mut p) = board.random_without_third_sides(rng, quiet) {
            while board.edges() - p.count() > undrawn {
                let free: Vec<u32> = (0..board.edges()).filter(|&e| p.0 & 1 << e == 0).collect();
                p.0 |= 1 << rng.pick(&free);
            }
            return p;
        }
    }
}

fn rule_sets() -> Vec<(&'static str, Rules, Option<usize>)> {
    let without = |f: fn(&mut Rules)| {
        let mut r = Rules::ALL;
        f(&mut r);
        r
    };
    vec![
        ("all, one thread", Rules::ALL, Some(1)),
        ("all, two threads", Rules::ALL, Some(2)),
        ("before", Rules::BEFORE, Some(1)),
        (
            "no chain captures",
            without(|r| r.chain_captures = false),
            Some(1),
        ),
        (
            "no isolated components",
            without(|r| r.isolated_components = false),
            Some(1),
        ),
        ("no chain ends", without(|r| r.chain_ends = false), Some(1)),
        ("no symmetry", without(|r| r.symmetry = false), Some(1)),
        (
            "no transposition cutoffs",
            without(|r| r.transposition_cutoffs = false),
            Some(1),
        ),
        (
            "no transposition skips",
            without(|r| r.transposition_skips = false),
            Some(1),
        ),
        (
            "no margin parity",
            without(|r| r.margin_parity = false),
            Some(1),
        ),
    ]
}

#[test]
fn the_solver_agrees_with_a_dense_retrograde_on_4x5_and_5x5_positions() {
    let mut rng = Rng::new(2112);
    let rules = rule_sets();
    for (rows, cols, undrawn, count) in [
        (5, 5, 16, 4),
        (4, 5, 18, 3),
        (5, 5, 22, 2),
        (5, 5, 24, 1),
        (4, 5, 24, 1),
    ] {
        let board = Dots::new(rows, cols).unwrap();
        for _ in 0..count {
            let p = position(board, &mut rng, undrawn);
            check(board, p, &mut rng, &rules);
        }
    }
}

/// Past `PARALLEL_MIN_UNDRAWN` (26), children included: the oracle (every
/// core) and the two-thread solver run Lazy SMP, MTD(f)'s tests in pairs
/// and the moves' classes two at a time; one thread for comparison.
#[test]
fn threads_agree_with_a_dense_retrograde_on_4x4_positions() {
    let mut rng = Rng::new(2627);
    let rules = [
        ("all, one thread", Rules::ALL, Some(1)),
        ("all, two threads", Rules::ALL, Some(2)),
    ];
    let board = Dots::new(4, 4).unwrap();
    for undrawn in [26, 26, 27] {
        let p = position(board, &mut rng, undrawn);
        check(board, p, &mut rng, &rules);
    }
}

/// The bench's one-off check at the depth the tests cannot afford: one 4x5
/// and one 5x5 position with 28 undrawn edges (or
/// `DOTS_RETROGRADE_UNDRAWN`), 256 MiB and about a minute each. `cargo test
/// --release -p solvedb-tests --test games dots_endgame:: -- --ignored deeper`.
#[test]
#[ignore = "about a minute and 550 MiB: run on request with --ignored"]
fn deeper_positions_on_request() {
    let undrawn = match std::env::var("DOTS_RETROGRADE_UNDRAWN") {
        Ok(v) => v
            .parse::<u32>()
            .unwrap_or_else(|_| panic!("DOTS_RETROGRADE_UNDRAWN={v:?} is not a number")),
        Err(_) => 28,
    };
    let mut rng = Rng::new(2828);
    let rules = [("all, two threads", Rules::ALL, Some(2))];
    for (rows, cols) in [(4, 5), (5, 5)] {
        let board = Dots::new(rows, cols).unwrap();
        let p = position(board, &mut rng, undrawn);
        let started = std::time::Instant::now();
        check(board, p, &mut rng, &rules);
        eprintln!(
            "{}: {undrawn} undrawn, agrees ({:.1} s)",
            board.notation(p),
            started.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn the_committed_bench_positions_follow_the_seeded_procedure() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../");
    let committed = std::fs::read_to_string(format!("{path}{POSITIONS_FILE}")).unwrap();
    assert_eq!(committed, positions_text());
}

#[test]
fn the_retrograde_knows_small_boards() {
    // The empty 2x2 board is worth +2 to the first player, 3x1 -1
    // (Berlekamp 2000; the tables of tests/tests/dots.rs agree).
    assert_eq!(retrograde(2, 2, 0).1[0], 2);
    assert_eq!(retrograde(3, 1, 0).1[0], -1);
}

/// A search that runs out of its budget says what it proved: bounds on
/// the value and on every move that hold the exact values the unbudgeted
/// search finds, narrower than nothing known on some positions. (Each
/// oracle zeroes a fresh table: a 4x4 one is 256 MiB, so the positions are
/// few and small.)
#[test]
fn budgeted_answers_carry_bounds_that_hold_the_exact_values() {
    let mut rng = Rng::new(2121);
    let (mut bounded, mut narrowed, mut exact_moves) = (0, 0, 0);
    for (rows, cols, undrawn) in [(3, 3, 24), (3, 3, 20), (4, 4, 24), (4, 4, 20)] {
        let board = Dots::new(rows, cols).unwrap();
        for _ in 0..3 {
            let p = position(board, &mut rng, undrawn);
            let name = board.notation(p);
            let exact = GameOracle::<_, Vec<u8>>::search_only(board)
                .answer(p)
                .unwrap();
            let remaining = board.remaining_boxes(p.0) as i32;
            for budget in [30, 300, 3_000] {
                let oracle =
                    GameOracle::<_, Vec<u8>>::search_only(board).with_search_budget(budget);
                let error = match oracle.answer(p) {
                    Ok(answer) => {
                        assert_eq!(answer.score, exact.score, "{name}, budget {budget}");
                        continue;
                    }
                    Err(e) => e,
                };
                assert_eq!(error.kind(), ErrorKind::Budget, "{name}: {error}");
                let bounds = error
                    .bounds()
                    .unwrap_or_else(|| panic!("{name}, budget {budget}: no bounds: {error}"));
                bounded += 1;
                let margin = |v: AnyValue| match v {
                    AnyValue::Margin(m) => m,
                    AnyValue::Outcome(o) | AnyValue::AtMost(o) => panic!("a dots value {o:?}"),
                };
                let (lower, upper) = (margin(bounds.value.lower), margin(bounds.value.upper));
                assert!(
                    lower <= exact.score && exact.score <= upper,
                    "{name}, budget {budget}: value {} outside {lower}..{upper}",
                    exact.score
                );
                narrowed += usize::from(lower > -remaining || upper < remaining);
                let moves = board.moves(p);
                assert_eq!(bounds.moves.len(), moves.len(), "{name}");
                for (m, mv) in bounds.moves.iter().zip(moves) {
                    assert_eq!(m.mv, mv.to_string(), "{name}: moves in the game's order");
                    let value = exact.moves.iter().find(|e| e.mv == mv).unwrap().score;
                    let (lower, upper) = (margin(m.bounds.lower), margin(m.bounds.upper));
                    assert!(
                        lower <= value && value <= upper,
                        "{name}, budget {budget}, move {mv}: {value} outside {lower}..{upper}"
                    );
                    exact_moves += usize::from(lower == upper);
                }
            }
        }
    }
    assert!(bounded > 5, "only {bounded} budgeted answers stopped");
    assert!(narrowed > 0, "no stopped search narrowed the value");
    assert!(exact_moves > 0, "no stopped search settled a move");
    eprintln!("{bounded} stopped, {narrowed} with the value narrowed, {exact_moves} moves settled");
}

/// An oracle keeps its solver, and the solver's table, from one answer to
/// the next (`KeptSolvers`): along one game every answer — the value and
/// every move's — still equals the retrograde's, whichever positions the
/// table learnt from before.
#[test]
fn an_oracle_that_keeps_its_solver_answers_a_whole_game_exactly() {
    let board = Dots::new(4, 5).unwrap();
    let mut rng = Rng::new(4545);
    let start = position(board, &mut rng, 22);
    let (undrawn, values) = retrograde(board.rows(), board.cols(), start.0);
    let oracle = GameOracle::<_, Vec<u8>>::search_only(board);
    let (mut index, mut p) = (0u64, start);
    while board.edges() > p.count() {
        let answer = oracle.answer(p).unwrap();
        check_answer(board, &answer, (&undrawn, &values), index);
        let j = rng.below(undrawn.len() as u64);
        if index & 1 << j == 0 {
            index |= 1 << j;
            p.0 |= 1 << undrawn[j as usize];
        }
    }
}

/// A kept solver takes each request's limits: a search that ran out of its
/// node budget, or of its time, leaves a solver whose next search has a
/// budget and a deadline of its own (a count carried over would stop it at
/// once).
#[test]
fn a_kept_solver_starts_each_request_with_its_own_limits() {
    let board = Dots::new(5, 5).unwrap();
    let mut rng = Rng::new(4646);
    let (big, small) = (position(board, &mut rng, 40), position(board, &mut rng, 14));
    let budget = 3_000;
    let fresh = || GameOracle::<_, Vec<u8>>::search_only(board).with_search_budget(budget);
    // Alone, the big position needs more than the budget, the small less.
    assert_eq!(fresh().answer(big).unwrap_err().kind(), ErrorKind::Budget);
    let exact = fresh().answer(small).unwrap();

    let oracle = fresh();
    assert_eq!(oracle.answer(big).unwrap_err().kind(), ErrorKind::Budget);
    let answer = oracle.answer(small).unwrap();
    assert_eq!(
        (answer.score, answer.moves.len()),
        (exact.score, exact.moves.len())
    );

    let oracle = GameOracle::<_, Vec<u8>>::search_only(board);
    let hurried = Stop::default().within(Duration::from_millis(20));
    let error = oracle.answer_within(big, &hurried).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Budget, "{error}");
    let answer = oracle
        .answer_within(small, &Stop::default().within(Duration::from_secs(600)))
        .unwrap();
    assert_eq!(answer.score, exact.score);
}

/// A kept solver lets go of its request: the listener of a request's
/// `Stop` (which holds a streamed analysis open until it is dropped) is
/// dropped when the answer is, not kept with the solver's table.
#[test]
fn a_kept_solver_does_not_hold_on_to_its_requests_listener() {
    let board = Dots::new(4, 4).unwrap();
    let mut rng = Rng::new(4747);
    let p = position(board, &mut rng, 20);
    let oracle = GameOracle::<_, Vec<u8>>::search_only(board);
    let listener = std::sync::Arc::new(());
    let held = std::sync::Arc::clone(&listener);
    let stop = Stop::default()
        .within(Duration::from_secs(600))
        .reporting(move |_| {
            let _ = &held;
        });
    oracle.answer_within(p, &stop).unwrap();
    drop(stop);
    assert_eq!(
        std::sync::Arc::strong_count(&listener),
        1,
        "the listener outlived its request"
    );
    // The solver was kept all the same: the next answer is exact.
    let q = position(board, &mut rng, 20);
    let exact = GameOracle::<_, Vec<u8>>::search_only(board)
        .answer(q)
        .unwrap();
    assert_eq!(oracle.answer(q).unwrap().score, exact.score);
}
