//! The live solver against plain minimax, its rules, pairings and limits.

use std::collections::HashSet;

use super::super::samples::{late_positions, minimax_score};
use super::*;
use crate::error::Error;

#[test]
fn the_solver_agrees_with_plain_minimax_on_late_positions() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut outcomes = HashSet::new();
    for empties in 1..=7 {
        for board in late_positions(40, empties, 100 + u64::from(empties)) {
            let slow = minimax_score(board);
            assert_eq!(solver.score(board).unwrap(), slow, "{}", Q.notation(board));
            // A fresh solver too: the shared table must not be needed.
            let fresh = QubicSolver::new(SearchLimits::default())
                .score(board)
                .unwrap();
            assert_eq!(fresh, slow);
            outcomes.insert(Q.value(board, slow).wdl);
        }
    }
    // The sample covers every kind of value.
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
}

#[test]
fn forced_play_rules_give_exact_values() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut value = |text: &str| {
        let board = Q.parse(text).unwrap();
        let score = solver.score(board).unwrap();
        Q.value(board, score).to_string()
    };
    let rest = |used: usize| ".".repeat(64 - used);
    // X to move with three on the row 0-3 (O has three too): win in 1.
    assert_eq!(value(&format!("XXX.OOO.X...O{}", rest(13))), "win in 1");
    // O to move, X threatens cells 3 (row 0-3) and 12 (column 0-12), O has
    // none: loss in 2.
    assert_eq!(value(&format!("XXX.XOO.X..O{}O", rest(13))), "loss in 2");
    // X to move with a fork at 0: rows 0-3 and 0-12 each hold two X and two
    // empty cells, and O has nothing: win in 3.
    let fork = format!(".XX.X...X..O{}O...O{}O", ".".repeat(40), ".".repeat(6));
    assert_eq!(value(&fork), "win in 3");
}

#[test]
fn every_quiet_bound_holds_on_random_positions() {
    // The static bounds of quiet positions against plain minimax, where
    // it is quick.
    for board in late_positions(300, 8, 9) {
        let (me, you) = board.mover_and_other();
        let (mine, theirs) = (line_cells(me, you), line_cells(you, me));
        if mine.threats != 0 || theirs.threats != 0 {
            continue;
        }
        let score = minimax_score(board);
        let stones = board.stones() as Score;
        if mine.forks != 0 {
            assert_eq!(score, WIN_SCORE - (stones + 3));
        } else {
            assert!(score <= WIN_SCORE - (stones + 5), "{}", Q.notation(board));
        }
        let low = if theirs.forks != 0 { 4 } else { 6 };
        assert!(
            score >= -(WIN_SCORE - (stones + low)),
            "{}",
            Q.notation(board)
        );
    }
}

#[test]
fn a_pairing_strategy_means_no_win() {
    use super::solver::has_pairing;
    let (mut for_mover, mut for_other) = (0, 0);
    for board in late_positions(300, 8, 31) {
        let (me, you) = board.mover_and_other();
        let score = minimax_score(board);
        if has_pairing(me, you) {
            assert!(score <= 0, "{}", Q.notation(board));
            for_other += 1;
        }
        if has_pairing(you, me) {
            assert!(score >= 0, "{}", Q.notation(board));
            for_mover += 1;
        }
    }
    // Both kinds occur in the sample, and not everywhere.
    assert!((20..280).contains(&for_mover), "{for_mover}");
    assert!((20..280).contains(&for_other), "{for_other}");
    // A line with one empty cell cannot be paired, nor 76 open lines in
    // 64 cells.
    assert!(!has_pairing(0b0111, 0));
    assert!(!has_pairing(0, 0));
}

#[test]
fn a_budget_or_a_deadline_is_an_error_never_a_guess() {
    let mut solver = QubicSolver::new(SearchLimits {
        nodes: Some(1000),
        ..SearchLimits::default()
    });
    assert!(matches!(
        solver.score(Q.start()),
        Err(Error::BudgetExhausted { budget: 1000 })
    ));
    assert_eq!(solver.nodes(), 1000);
    let mut solver = QubicSolver::new(SearchLimits {
        time: Some(std::time::Duration::from_millis(20)),
        ..SearchLimits::default()
    });
    assert!(matches!(
        solver.score(Q.start()),
        Err(Error::TimeExhausted { millis: 20 })
    ));
}

#[test]
fn every_rule_set_gives_the_same_values() {
    let all = Rules::ALL;
    let sets = [
        Rules {
            deepening: false,
            ..all
        },
        Rules {
            sign_tests: false,
            ..all
        },
        Rules {
            pairings: false,
            ..all
        },
        Rules {
            dead_cells: false,
            ..all
        },
        Rules {
            deepening: false,
            sign_tests: false,
            pairings: false,
            dead_cells: false,
        },
    ];
    let mut normal = QubicSolver::new(SearchLimits::default());
    for board in late_positions(40, 11, 41) {
        let score = normal.score(board).unwrap();
        for rules in sets {
            let mut solver = QubicSolver::with_rules(SearchLimits::default(), rules);
            assert_eq!(solver.score(board).unwrap(), score, "{rules:?}");
        }
    }
}

#[test]
fn a_tiny_table_gives_the_same_values() {
    let mut tiny = QubicSolver::new(SearchLimits {
        table_bytes: Some(0),
        ..SearchLimits::default()
    });
    let mut normal = QubicSolver::new(SearchLimits::default());
    for board in late_positions(30, 12, 21) {
        assert_eq!(tiny.score(board).unwrap(), normal.score(board).unwrap());
    }
}
