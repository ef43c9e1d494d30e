//! Qubic positions from seeded random play, for the bench and the tests:
//! uniform play, and *careful* play, which completes a line when it can,
//! else blocks a threat, else makes a fork (two threats at once), else
//! takes the opponent's fork cell, else plays at random. Uniform play
//! leaves threats everywhere, so a game still going at 40 stones is nearly
//! always a win in 1 for someone; careful play's positions are kept only
//! where they are *calm* (nobody threatens a cell, the side to move has no
//! fork), which the rules do not settle at once: those need real search.

use solvedb_lookup::games::qubic::{strategy, threats};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{ExactSolver, Game, Qubic, QubicBoard, QubicCell, QubicSolver, SearchLimits};

/// The empty cells where `stones` (against `blockers`) make two threats at
/// once.
fn forks(stones: u64, blockers: u64) -> u64 {
    let empty = !(stones | blockers);
    (0..64)
        .filter(|&c| empty >> c & 1 != 0)
        .filter(|&c| threats(stones | 1 << c, empty & !(1 << c)).count_ones() >= 2)
        .fold(0, |cells, c| cells | 1 << c)
}

/// The cells careful play chooses among at `board`, where it has a
/// preference: where the side to move completes a line, else blocks a
/// threat, else makes two threats at once, else takes the opponent's cell
/// for that; `None` where it plays anywhere.
pub fn careful_cells(board: QubicBoard) -> Option<u64> {
    let (me, you) = board.mover_and_other();
    let empty = board.empty();
    [
        threats(me, empty),
        threats(you, empty),
        forks(me, you),
        forks(you, me),
    ]
    .into_iter()
    .find(|&cells| cells != 0)
}

/// The position after `stones` random moves, or `None` if the game ended
/// first (or, with `careful`, is not calm there).
pub fn random_position(rng: &mut Rng, stones: u32, careful: bool) -> Option<QubicBoard> {
    let mut board = Qubic.start();
    while board.stones() < stones {
        let moves = Qubic.moves(board);
        if moves.is_empty() {
            return None;
        }
        let mv = match careful_cells(board) {
            Some(cells) if careful => {
                let cells: Vec<QubicCell> = moves
                    .iter()
                    .copied()
                    .filter(|m| cells >> m.index() & 1 != 0)
                    .collect();
                *rng.pick(&cells)
            }
            _ => *rng.pick(&moves),
        };
        board = Qubic.play(board, mv).0;
    }
    let (me, you) = board.mover_and_other();
    let empty = board.empty();
    let calm = threats(me, empty) == 0 && threats(you, empty) == 0 && forks(me, you) == 0;
    (Qubic.terminal_score(board).is_none() && (calm || !careful)).then_some(board)
}

/// `count` calm X-to-move positions with `stones` stones from seeded
/// careful play ([`random_position`]) that X wins by the live solver within
/// 2·10⁶ positions, with their scores; with `records`, only those X does
/// not win by a threat line (their strategies need the prover and records
/// in a table). Roots small enough for a test to prove.
pub fn won_positions(
    count: usize,
    stones: u32,
    seed: u64,
    records: bool,
) -> Vec<(QubicBoard, i32)> {
    let mut rng = Rng::new(seed);
    let mut threats = strategy::probe_threats();
    let mut found = Vec::new();
    while found.len() < count {
        let Some(board) = random_position(&mut rng, stones, true) else {
            continue;
        };
        if !board.x_to_move() || (records && strategy::threat_move(&mut threats, board).is_some()) {
            continue;
        }
        let mut solver = QubicSolver::new(SearchLimits {
            nodes: Some(2_000_000),
            ..SearchLimits::default()
        });
        if let Ok(score) = solver.score(board)
            && score > 0
        {
            found.push((board, score));
        }
    }
    found
}
