//! Forced play ([`Cube::resolve`]): from any position to a result the
//! rules give or to the quiet position whose value decides it.

use super::Cube;
use super::board::CubeBoard;
use super::lines::threats;
use crate::game::Game;
use crate::value::{Score, WIN_SCORE};

/// Where forced play from a position leads ([`Cube::resolve`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The position's score is known from the rules.
    Score(Score),
    /// The position's score is the quiet position's score, negated if
    /// `negate` (an odd number of forced blocks lie between them).
    Quiet {
        /// The quiet position forced play reaches.
        quiet: CubeBoard,
        /// Whether the score changes sign on the way.
        negate: bool,
    },
}

impl Cube {
    /// Follows forced play from a legal position until its score is known
    /// from the rules or a quiet position is reached: the side to move wins
    /// in 1 if it threatens a cell; otherwise it loses in 2 if the opponent
    /// threatens two or more cells, and must block if exactly one. Each step
    /// fills a cell, so this takes at most 27 steps.
    pub fn resolve(self, mut board: CubeBoard) -> Resolved {
        let mut negate = false;
        let signed = |score: Score, negate: bool| if negate { -score } else { score };
        loop {
            if let Some(score) = self.terminal_score(board) {
                return Resolved::Score(signed(score, negate));
            }
            let stones = board.stones() as Score;
            let empty = board.empty();
            let (mover, other) = board.mover_and_other();
            if threats(mover, empty) != 0 {
                return Resolved::Score(signed(WIN_SCORE - (stones + 1), negate));
            }
            let against = threats(other, empty);
            match against.count_ones() {
                0 => {
                    return Resolved::Quiet {
                        quiet: board,
                        negate,
                    };
                }
                1 => {
                    board = board.with_move(against.trailing_zeros());
                    negate = !negate;
                }
                _ => return Resolved::Score(signed(-(WIN_SCORE - (stones + 2)), negate)),
            }
        }
    }

    /// The score [`resolve`](Cube::resolve) gives, when forced play decides
    /// the position without a table; `0` for positions that reach a quiet
    /// one (test helper).
    #[cfg(test)]
    pub(crate) fn resolve_score(self, board: CubeBoard) -> Score {
        match self.resolve(board) {
            Resolved::Score(score) => score,
            Resolved::Quiet { .. } => 0,
        }
    }
}
