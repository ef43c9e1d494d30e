//! What the analysis reports as it goes: bounds that only narrow, each
//! report narrowing something, every one holding the true values, the
//! last one holding the final answer.

use super::super::EndgameSolver;
use super::{plain_move_value, plain_values, plain_values_3x3};
use crate::game::{Game, MoveScores, SearchLimits};
use crate::games::dots::{Dots, Edges};
use crate::value::Score;

/// A report: the value's bounds and each move's, in edge order.
type Report = ((Score, Score), Vec<(Score, Score)>);

/// Analyses `mask` of `board` under `limits`, checks every report against
/// the true margins (`values`, every position's) and the final answer,
/// and returns how many reports there were.
fn check_reports(board: Dots, values: &[i8], mask: u64, limits: SearchLimits) -> usize {
    let mut solver = EndgameSolver::new(board, limits);
    let mut reports: Vec<Report> = Vec::new();
    let analysis = solver.analyse_reporting(Edges(mask), &mut |s: &MoveScores| {
        assert!(s.unknown.is_none());
        reports.push((s.value, s.moves.clone()));
    });
    assert!(analysis.unknown.is_none(), "{mask:#x}");
    let value = i32::from(values[mask as usize]);
    let edges: Vec<u32> = (0..board.edges()).filter(|e| mask & 1 << e == 0).collect();
    let truth: Vec<i32> = edges
        .iter()
        .map(|&e| plain_move_value(board, values, mask, e))
        .collect();
    let within = |(lo, hi): (Score, Score), v: i32| lo <= v && v <= hi;
    for (i, (bounds, moves)) in reports.iter().enumerate() {
        assert!(within(*bounds, value), "{mask:#x} report {i}: value");
        assert_eq!(moves.len(), edges.len());
        for (&m, &v) in moves.iter().zip(&truth) {
            assert!(within(m, v), "{mask:#x} report {i}: {m:?} against {v}");
        }
    }
    let inside = |a: (Score, Score), b: (Score, Score)| b.0 <= a.0 && a.1 <= b.1;
    for pair in reports.windows(2) {
        let ((v0, m0), (v1, m1)) = (&pair[0], &pair[1]);
        assert!(inside(*v1, *v0), "{mask:#x}: the value widened");
        assert!(m1.iter().zip(m0).all(|(&a, &b)| inside(a, b)), "{mask:#x}");
        assert!(pair[0] != pair[1], "{mask:#x}: a report narrowed nothing");
    }
    if let Some((last_value, last_moves)) = reports.last() {
        assert!(inside((analysis.lower, analysis.upper), *last_value));
        for (m, &last) in analysis.moves.iter().zip(last_moves) {
            assert!(inside((m.lower, m.upper), last), "{mask:#x}");
        }
    }
    reports.len()
}

#[test]
fn reported_bounds_narrow_and_hold_the_values() {
    let board = Dots::new(2, 3).unwrap();
    let values = plain_values(board);
    let mut reports = 0;
    for mask in (0..board.full()).step_by(997) {
        reports += check_reports(board, &values, mask, SearchLimits::default());
    }
    assert!(reports > 100, "{reports} reports");
    // With limits that may stop it, the search tests from both ends
    // inwards first: reported too.
    let board = Dots::new(3, 3).unwrap();
    let limits = SearchLimits {
        time: Some(std::time::Duration::from_secs(600)),
        ..SearchLimits::default()
    };
    let start = board.start().0;
    for limits in [limits, SearchLimits::default()] {
        let reports = check_reports(board, plain_values_3x3(), start, limits.clone());
        // At least one of the root's tests and one of a class of moves.
        assert!(reports >= 2, "{limits:?}: {reports} reports");
    }
}
