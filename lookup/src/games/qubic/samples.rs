//! Sample positions and a reference search, for the tests and measurements
//! of Qubic's searches here and in the generator: positions late in careful
//! play ([`late_positions`]), where a search has real work, and plain
//! minimax ([`minimax_score`]), which checks any search where it is quick.

use super::Qubic;
use super::board::{QubicBoard, QubicCell};
use super::lines::threats;
use crate::game::Game;
use crate::testkit::{Rng, playout};
use crate::value::Score;

/// The exact score of `board` by minimax without pruning, memo or rules of
/// thumb, over the game's moves: a reference for positions with a few
/// empty cells (its time grows as the factorial of their number).
pub fn minimax_score(board: QubicBoard) -> Score {
    if let Some(score) = Qubic.terminal_score(board) {
        return score;
    }
    Qubic
        .moves(board)
        .into_iter()
        .map(|m| -minimax_score(Qubic.play(board, m).0))
        .max()
        .expect("a game that is not over has moves")
}

/// Positions with `empties` empty cells, not over, from games in which
/// nobody completes a line while another move is left, and a player often
/// blocks the opponent's threat: uniformly random games seldom last that
/// long (about 2% reach 12 empty cells, 0.01% fill the board).
pub fn late_positions(count: usize, empties: u32, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let game = playout(&Qubic, &mut rng, |rng, board, moves| {
            let (me, you) = board.mover_and_other();
            let empty = board.empty();
            let (wins, blocks) = (threats(me, empty), threats(you, empty));
            let pick = |rng: &mut Rng, allowed: u64| {
                let allowed: Vec<QubicCell> = moves
                    .iter()
                    .copied()
                    .filter(|m| allowed >> m.0 & 1 != 0)
                    .collect();
                (!allowed.is_empty()).then(|| *rng.pick(&allowed))
            };
            let blocking = if rng.chance(0.7) {
                pick(rng, blocks & !wins)
            } else {
                None
            };
            blocking
                .or_else(|| pick(rng, !wins))
                .unwrap_or_else(|| *rng.pick(moves))
        });
        if let Some(&p) = game.iter().find(|p| 64 - p.stones() == empties)
            && Qubic.terminal_score(p).is_none()
        {
            found.push(p);
        }
    }
    found
}
