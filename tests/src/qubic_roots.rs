//! Roots for Qubic proofs in tests: calm X-to-move positions from seeded
//! careful play that X wins (by the live solver, within a small budget),
//! small enough for a test to prove their strategies.

use solvedb_generator::games::qubic::random_position;
use solvedb_lookup::games::qubic::strategy::{probe_threats, threat_move};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{ExactSolver, QubicBoard, QubicSolver, SearchLimits};

/// Calm X-to-move positions with `stones` stones from seeded careful play
/// that X wins without a threat line (by the live solver): roots whose
/// strategies need records.
pub fn roots(count: usize, stones: u32, seed: u64) -> Vec<QubicBoard> {
    roots_where(count, stones, seed, true)
}

/// [`roots`], or with `records` false any calm position X wins (late ones
/// seldom need a record).
pub fn roots_where(count: usize, stones: u32, seed: u64, records: bool) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut threats = probe_threats();
    let mut found = Vec::new();
    while found.len() < count {
        let Some(board) = random_position(&mut rng, stones, true) else {
            continue;
        };
        if !board.x_to_move() || (records && threat_move(&mut threats, board).is_some()) {
            continue;
        }
        let mut solver = QubicSolver::new(SearchLimits {
            nodes: Some(2_000_000),
            ..SearchLimits::default()
        });
        if solver.score(board).is_ok_and(|score| score > 0) {
            found.push(board);
        }
    }
    found
}
