//! Sample positions and a reference search, for the tests and measurements
//! of Qubic's searches here and in the generator: positions late in careful
//! play ([`late_positions`]), where a search has real work, and plain
//! minimax ([`minimax_score`]), which checks any search where it is quick,
//! and positions as people reach them ([`people_position`]), for measuring
//! how much of the opening the probe answers.

use super::Qubic;
use super::board::{QubicBoard, QubicCell};
use super::lines::{LINES, threats};
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

/// The position after `stones` moves of a game between two players who
/// play as people do: complete a line when they can, else block the
/// opponent's three, else take a cell with probability proportional to how
/// many of its lines are still open (hold no stone of both players; a
/// cell on none is taken as if on one). `None` if the game ends sooner.
/// The same seed gives the same position.
pub fn people_position(seed: u64, stones: u32) -> Option<QubicBoard> {
    people_position_with(seed, stones, |_| None)
}

/// [`people_position`], but X plays `x_move`'s cell wherever it names one
/// (the strategy's move, for positions on the strategy's line as a person
/// playing O against it reaches them). With `x_move` always `None`, the
/// same positions as [`people_position`].
pub fn people_position_with(
    seed: u64,
    stones: u32,
    mut x_move: impl FnMut(QubicBoard) -> Option<u8>,
) -> Option<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut board = Qubic.start();
    while board.stones() < stones {
        if Qubic.terminal_score(board).is_some() {
            return None;
        }
        let chosen = if board.x_to_move() {
            x_move(board)
        } else {
            None
        };
        let cell = match (chosen, urgent_cells(board)) {
            (Some(cell), _) => cell,
            (None, Some(cells)) => nth_cell(cells, rng.below(u64::from(cells.count_ones()))),
            (None, None) => weighted_cell(&mut rng, board),
        };
        board = board.with_move(QubicCell(cell));
    }
    Qubic.terminal_score(board).is_none().then_some(board)
}

/// An empty cell of `board` drawn with weight its open lines (at least 1).
/// The cells a careful player to move must take: those completing one
/// of its lines, else those blocking one of the opponent's; `None` when
/// there are neither.
pub fn urgent_cells(board: QubicBoard) -> Option<u64> {
    let (me, you) = board.mover_and_other();
    let empty = board.empty();
    [threats(me, empty), threats(you, empty)]
        .into_iter()
        .find(|&c| c != 0)
}

fn weighted_cell(rng: &mut Rng, board: QubicBoard) -> u8 {
    let weights: Vec<(u8, u64)> = (0..64u8)
        .filter(|&c| board.empty() >> c & 1 != 0)
        .map(|c| {
            let open = LINES
                .iter()
                .filter(|&&l| l >> c & 1 != 0 && (l & board.x == 0 || l & board.o == 0))
                .count() as u64;
            (c, open.max(1))
        })
        .collect();
    let mut draw = rng.below(weights.iter().map(|w| w.1).sum());
    for &(cell, weight) in &weights {
        if draw < weight {
            return cell;
        }
        draw -= weight;
    }
    unreachable!("the draw is below the total weight")
}

/// The `n`-th set bit of `mask` (from the lowest).
fn nth_cell(mut mask: u64, n: u64) -> u8 {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as u8
}
