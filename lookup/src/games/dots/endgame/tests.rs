//! The endgame search against the plain recursion, rule by rule, and
//! its limits.

mod chains;
mod reporting;

use rayon::prelude::*;

use super::transposition::TranspositionTable;
use super::{EndgameSolver, Rules};
use crate::error::Error;
use crate::game::{Game, SearchLimits};
use crate::games::dots::{Dots, Edges};

/// Every position's margin by the plain recursion, full board down.
fn plain_values(board: Dots) -> Vec<i8> {
    let full = board.full();
    let mut values = vec![0i8; full as usize + 1];
    for mask in (0..full).rev() {
        let mut best = i32::MIN;
        for e in 0..board.edges() {
            if mask & 1 << e == 0 {
                let (child, gain) = board.draw(mask, e);
                let child = i32::from(values[child as usize]);
                let gain = gain as i32;
                best = best.max(if gain > 0 { gain + child } else { -child });
            }
        }
        values[mask as usize] = best as i8;
    }
    values
}

/// [`plain_values`] of 3x3, worked out once for the tests that need
/// them (sixteen million positions).
fn plain_values_3x3() -> &'static [i8] {
    static VALUES: std::sync::OnceLock<Vec<i8>> = std::sync::OnceLock::new();
    VALUES.get_or_init(|| plain_values(Dots::new(3, 3).unwrap()))
}

fn configurations() -> Vec<(&'static str, Rules)> {
    // The rules named on, the others off.
    let only = |names: &[&str]| {
        names.iter().fold(Rules::NONE, |rules, name| {
            rules.switch(name, true).expect("a rule's name")
        })
    };
    vec![
        ("none", Rules::NONE),
        ("free captures", only(&["free-captures"])),
        ("loony moves", only(&["loony-moves"])),
        ("chain captures", only(&["chain-captures"])),
        ("chain bound", only(&["chain-captures", "chain-bound"])),
        ("component values", only(&["component-values"])),
        ("short chains", only(&["component-values", "short-chains"])),
        ("isolated components", only(&["isolated-components"])),
        ("chain ends", only(&["chain-ends"])),
        (
            "chain ends with isolated components",
            only(&["chain-ends", "isolated-components"]),
        ),
        (
            "sacrifice caps with chain ends",
            only(&["chain-ends", "sacrifice-caps"]),
        ),
        (
            // Isolated chains and loops only.
            "sacrifice caps with isolated components",
            only(&["isolated-components", "sacrifice-caps"]),
        ),
        ("margin parity", only(&["margin-parity"])),
        (
            // Rounded chain bounds and caps.
            "margin parity with chain bounds and sacrifice caps",
            only(&[
                "chain-captures",
                "chain-bound",
                "chain-ends",
                "sacrifice-caps",
                "margin-parity",
            ]),
        ),
        ("two bounds", only(&["two-bounds"])),
        ("symmetry", only(&["symmetry"])),
        ("border edges", only(&["border-edges"])),
        ("transposition cutoffs", only(&["transposition-cutoffs"])),
        (
            "transposition skips",
            only(&["transposition-cutoffs", "transposition-skips"]),
        ),
        (
            // The lookups all made before the skips, as with every rule.
            "transposition skips with prefetch",
            only(&["transposition-cutoffs", "transposition-skips", "prefetch"]),
        ),
        ("huge pages", only(&["huge-pages"])),
        ("prefetch", only(&["prefetch"])),
        (
            // Capped steps left out of the lookups, their caps standing
            // for them beside the looked-up bounds.
            "transposition skips with sacrifice caps",
            only(&[
                "transposition-cutoffs",
                "transposition-skips",
                "chain-ends",
                "sacrifice-caps",
            ]),
        ),
        (
            // Keys handed to children under symmetry and border
            // normalisation, with every child looked up.
            "prefetch with keyed cutoffs",
            only(&[
                "prefetch",
                "symmetry",
                "border-edges",
                "transposition-cutoffs",
            ]),
        ),
        ("before", Rules::BEFORE),
        ("all", Rules::ALL),
    ]
}

#[test]
fn every_rule_agrees_with_plain_search_on_every_small_position() {
    for (rows, cols) in [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3), (3, 2)] {
        let board = Dots::new(rows, cols).unwrap();
        let truth = plain_values(board);
        // Each configuration its own solver, on every core: this and the
        // sampled 3x3 test are the crate's longest.
        configurations().into_par_iter().for_each(|(name, rules)| {
            let mut solver = EndgameSolver::with_rules(board, SearchLimits::default(), rules, 16);
            for (mask, &expected) in truth.iter().enumerate() {
                let got = solver.solve(Edges(mask as u64)).unwrap();
                assert_eq!(
                    got,
                    i32::from(expected),
                    "{rows}x{cols} {name}: {}",
                    board.notation(Edges(mask as u64))
                );
            }
        });
    }
}

#[test]
fn every_rule_agrees_with_plain_search_on_sampled_3x3_positions() {
    let board = Dots::new(3, 3).unwrap();
    let truth = plain_values_3x3();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let samples: Vec<u64> = (0..300)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Sparse and dense boards alike: AND or OR two draws.
            let other = state.rotate_left(29);
            let mask = if i % 2 == 0 {
                state & other
            } else {
                state | other
            };
            mask & board.full()
        })
        .collect();
    configurations().into_par_iter().for_each(|(name, rules)| {
        let mut solver = EndgameSolver::with_rules(board, SearchLimits::default(), rules, 18);
        for &mask in &samples {
            let got = solver.solve(Edges(mask)).unwrap();
            assert_eq!(got, i32::from(truth[mask as usize]), "{name}: {mask:#x}");
        }
    });
}

/// The value of drawing `e` in `mask` for the player who draws it,
/// by the plain recursion's values.
fn plain_move_value(board: Dots, values: &[i8], mask: u64, e: u32) -> i32 {
    let (child, gain) = board.draw(mask, e);
    let child = i32::from(values[child as usize]);
    let gain = gain as i32;
    if gain > 0 { gain + child } else { -child }
}

#[test]
fn simple_loony_endgames_are_valued_without_search() {
    // 1x3: a chain of three boxes open at both ends (top and bottom
    // drawn): the mover must open it and loses all three.
    let board = Dots::new(1, 3).unwrap();
    let p = board.parse("1x3:h0,0 h0,1 h0,2 h1,0 h1,1 h1,2").unwrap();
    let mut solver = EndgameSolver::new(board, SearchLimits::default());
    assert_eq!(solver.simple_loony_value(p.0), Some(-3));
    // 2x2 with the outer ring drawn: the four boxes form a loop.
    let board = Dots::new(2, 2).unwrap();
    let ring = board
        .parse("2x2:h0,0 h0,1 h2,0 h2,1 v0,0 v1,0 v0,2 v1,2")
        .unwrap();
    let mut solver = EndgameSolver::new(board, SearchLimits::default());
    assert_eq!(solver.simple_loony_value(ring.0), Some(-4));
    assert_eq!(solver.solve(ring).unwrap(), -4);
}

#[test]
fn budgets_answer_unknown_instead_of_guessing() {
    let board = Dots::new(3, 3).unwrap();
    let limits = SearchLimits {
        nodes: Some(100),
        ..SearchLimits::default()
    };
    let mut solver = EndgameSolver::new(board, limits);
    assert!(matches!(
        solver.solve(board.start()),
        Err(Error::BudgetExhausted { budget: 100 })
    ));
    let limits = SearchLimits {
        time: Some(std::time::Duration::ZERO),
        ..SearchLimits::default()
    };
    let mut solver = EndgameSolver::new(board, limits);
    assert!(matches!(
        solver.solve(board.start()),
        Err(Error::TimeExhausted { millis: 0 })
    ));
    // A budget that suffices gives the exact answer.
    let limits = SearchLimits {
        nodes: Some(10_000_000),
        time: Some(std::time::Duration::from_secs(600)),
        ..SearchLimits::default()
    };
    assert_eq!(
        EndgameSolver::new(board, limits)
            .solve(board.start())
            .unwrap(),
        -3
    );
}

#[test]
fn a_table_beyond_memory_leaves_the_answer_unknown_with_why() {
    let board = Dots::new(2, 2).unwrap();
    let mut solver = EndgameSolver::new(board, SearchLimits::default());
    // 2^63 entries, more than an allocation can ask for (limits size a
    // table at 2^40 entries at most, which a system may still refuse).
    solver.table = TranspositionTable::new(63, board.edges());
    assert!(matches!(
        solver.solve(board.start()),
        Err(Error::TableMemory { .. })
    ));
    let analysis = solver.analyse(board.start());
    assert!(matches!(analysis.unknown, Some(Error::TableMemory { .. })));
    let open = (-4, 4);
    assert_eq!((analysis.lower, analysis.upper), open);
    assert_eq!(analysis.moves.len(), board.edges() as usize);
    assert!(analysis.moves.iter().all(|m| (m.lower, m.upper) == open));
}

/// A budget sizes the table: room for an entry per position it allows,
/// never more than the board's own size, and never so little that a
/// 5x5 table's entries take two words (which threads cannot share).
#[test]
fn a_node_budget_sizes_the_table() {
    let solver = |rows, cols, nodes| {
        let limits = SearchLimits {
            nodes,
            ..SearchLimits::default()
        };
        EndgameSolver::new(Dots::new(rows, cols).unwrap(), limits)
    };
    for (rows, cols) in [(4, 4), (4, 5), (5, 5)] {
        let unlimited = solver(rows, cols, None);
        assert_eq!(unlimited.table_bits(), 25, "{rows}x{cols}");
        let server = solver(rows, cols, Some(10_000_000));
        assert!(1 << server.table_bits() >= 10_000_000, "{rows}x{cols}");
        assert!(
            server.table_bits() < unlimited.table_bits(),
            "{rows}x{cols}"
        );
        for nodes in [1, 3_000, 10_000_000, u64::MAX] {
            let s = solver(rows, cols, Some(nodes));
            assert!(s.table.shareable(), "{rows}x{cols} {nodes}");
            assert!(
                s.table_bits() <= unlimited.table_bits(),
                "{rows}x{cols} {nodes}"
            );
        }
    }
    // Small boards keep their own, smaller size.
    let small = solver(3, 3, Some(10_000_000));
    assert_eq!(small.table_bits(), solver(3, 3, None).table_bits());
}

/// Every node of a one-thread search is counted once by how it ended, on
/// any rules, and with every rule on each way of ending is met on 3x3.
#[test]
fn every_node_is_counted_once_by_how_it_ended() {
    let board = Dots::new(3, 3).unwrap();
    let limits = SearchLimits {
        threads: Some(1),
        ..SearchLimits::default()
    };
    // The values themselves are the other tests' subject.
    for (name, rules) in [
        ("none", Rules::NONE),
        ("before", Rules::BEFORE),
        ("all", Rules::ALL),
    ] {
        let mut solver = EndgameSolver::with_rules(board, limits.clone(), rules, 18);
        for mask in [0x11, 0x1_0204, 0x80_4020, 0] {
            solver.solve(Edges(mask)).unwrap();
        }
        let counts = solver.node_counts();
        assert_eq!(counts.total(), solver.nodes(), "{name}: {counts:?}");
        assert!(counts.refuted_first <= counts.refuted, "{name}");
        assert!(counts.refuted_by_sacrifice <= counts.refuted, "{name}");
        if rules == Rules::ALL {
            for (kind, n) in [
                ("settled", counts.settled),
                ("chain bound", counts.chain_bound),
                ("table", counts.table),
                ("best move", counts.best_move),
                ("transposition cutoffs", counts.transposition_cutoffs),
                ("refuted first", counts.refuted_first),
                ("refuted by a sacrifice", counts.refuted_by_sacrifice),
                ("failed low", counts.failed_low),
            ] {
                assert!(n > 0, "{kind}: {counts:?}");
            }
        }
    }
}
