//! Positions and moves as numbers, for learning programs and batch faces:
//! each position a *code* of two `u64`s, each move an *index* below the
//! board's number of move slots. `solvedb export`, the Python package's
//! array calls and its datasets all use these, and only these.
//!
//! | game | code `[a, b]` | move index |
//! |---|---|---|
//! | tic-tac-toe 3×3, 4×4, cube, Qubic | `a` = X's stones, `b` = O's, bit `i` for cell `i` (the cell numbers of the notation: row by row, layer by layer) | the cell, `0..cells` |
//! | dots-and-boxes `MxN` | `a` = the drawn edges, bit `i` for edge `i` (horizontal row by row, then vertical row by row: the notation's order), `b` = 0 | the edge, `0..edges` |
//!
//! A cell's index is also OpenSpiel's `tic_tac_toe` action, an edge's its
//! `dots_and_boxes` action. Codes are checked as notation is: a code whose
//! stones overlap, lie off the board or could not arise in play is a
//! [`PositionError`].

use crate::error::PositionError;
use crate::game::Game;
use crate::games::cube::Cube;
use crate::games::dots::{Dots, Edges};
use crate::games::qubic::Qubic;
use crate::games::tictactoe::TicTacToe;
use crate::games::tictactoe_4x4::TicTacToe4x4;

/// A game whose positions and moves have numbers (see the [module
/// documentation](self) for each game's).
pub trait Encoded: Game {
    /// How many move indices there are: the cells of the board, or its
    /// edges. Every move's index is below it.
    fn move_slots(&self) -> usize;

    /// The index of a move: its cell, or its edge number.
    fn move_index(&self, mv: Self::Move) -> usize;

    /// The code of a position.
    fn code(&self, position: Self::Position) -> [u64; 2];

    /// The position a code stands for.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] for a code that names no board of this game or a
    /// position that could not arise in play.
    fn position_of(&self, code: [u64; 2]) -> Result<Self::Position, PositionError>;
}

/// The stones of one player as a mask of `bits` bits, or an error naming
/// the code.
fn stones<T: TryFrom<u64>>(mask: u64, bits: u32, code: [u64; 2]) -> Result<T, PositionError> {
    let fits = bits >= 64 || mask >> bits == 0;
    match T::try_from(mask) {
        Ok(mask) if fits => Ok(mask),
        _ => Err(off_board(code)),
    }
}

fn off_board(code: [u64; 2]) -> PositionError {
    PositionError::BadMove {
        input: format!("code [{:#x}, {:#x}]", code[0], code[1]),
        reason: "stones or edges lie off the board".into(),
    }
}

/// `Encoded` for a game of stones on `cells` cells: the code is the two
/// players' masks, a move's index its cell.
macro_rules! stones_encoded {
    ($game:ty, $cells:expr) => {
        impl Encoded for $game {
            fn move_slots(&self) -> usize {
                $cells
            }

            fn move_index(&self, mv: Self::Move) -> usize {
                usize::from(mv.index())
            }

            fn code(&self, position: Self::Position) -> [u64; 2] {
                [u64::from(position.x()), u64::from(position.o())]
            }

            fn position_of(&self, code: [u64; 2]) -> Result<Self::Position, PositionError> {
                self.board(
                    stones(code[0], $cells, code)?,
                    stones(code[1], $cells, code)?,
                )
            }
        }
    };
}

stones_encoded!(TicTacToe, 9);
stones_encoded!(TicTacToe4x4, 16);
stones_encoded!(Cube, 27);

impl Encoded for Qubic {
    fn move_slots(&self) -> usize {
        64
    }

    fn move_index(&self, mv: Self::Move) -> usize {
        usize::from(mv.index())
    }

    fn code(&self, position: Self::Position) -> [u64; 2] {
        [position.x(), position.o()]
    }

    fn position_of(&self, code: [u64; 2]) -> Result<Self::Position, PositionError> {
        self.board(code[0], code[1])
    }
}

impl Encoded for Dots {
    fn move_slots(&self) -> usize {
        self.edges() as usize
    }

    fn move_index(&self, mv: Self::Move) -> usize {
        self.edge_index(mv) as usize
    }

    fn code(&self, position: Edges) -> [u64; 2] {
        [position.mask(), 0]
    }

    fn position_of(&self, code: [u64; 2]) -> Result<Edges, PositionError> {
        if code[0] & !self.full() != 0 || code[1] != 0 {
            return Err(off_board(code));
        }
        Ok(Edges(code[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    /// Random positions of `game` round-trip through their codes, and each
    /// move's index is its cell or edge in the notation.
    fn round_trip<G: Encoded>(game: &G, seed: u64) {
        let mut rng = Rng::new(seed);
        for _ in 0..200 {
            let mut position = game.start();
            let plies = rng.below(game.move_slots() as u64 + 1);
            for _ in 0..plies {
                let moves = game.moves(position);
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.below(moves.len() as u64) as usize];
                assert!(game.move_index(mv) < game.move_slots());
                position = game.play(position, mv).0;
            }
            let code = game.code(position);
            assert_eq!(game.position_of(code).unwrap(), position);
            let mut indices: Vec<usize> = game
                .moves(position)
                .into_iter()
                .map(|m| game.move_index(m))
                .collect();
            indices.sort_unstable();
            indices.dedup();
            assert_eq!(indices.len(), game.moves(position).len());
        }
    }

    #[test]
    fn codes_round_trip_and_moves_have_distinct_indices() {
        round_trip(&TicTacToe, 1);
        round_trip(&TicTacToe4x4, 2);
        round_trip(&Cube, 3);
        round_trip(&Qubic, 4);
        round_trip(&Dots::new(2, 3).unwrap(), 5);
        round_trip(&Dots::new(3, 3).unwrap(), 6);
    }

    #[test]
    fn bad_codes_are_position_errors() {
        // Overlapping stones, stones off the board, too many of X, edges
        // off the board: refused, never a panic.
        for code in [[1, 1], [1 << 9, 0], [0b111, 0], [u64::MAX, 0]] {
            assert!(TicTacToe.position_of(code).is_err(), "{code:?}");
        }
        assert!(Qubic.position_of([u64::MAX, u64::MAX]).is_err());
        let dots = Dots::new(1, 1).unwrap();
        assert!(dots.position_of([1 << 4, 0]).is_err());
        assert!(dots.position_of([0, 1]).is_err());
        assert_eq!(dots.position_of([0b1010, 0]).unwrap(), Edges(0b1010));
        // The cells of the notation are the bits of the code.
        let board = TicTacToe.parse("X../.O./..X").unwrap();
        assert_eq!(TicTacToe.code(board), [1 | 1 << 8, 1 << 4]);
    }
}
