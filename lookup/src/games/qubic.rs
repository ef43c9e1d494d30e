//! Qubic: 4×4×4 tic-tac-toe, four in a row (`qubic`).
//!
//! Cell `16z + 4y + x` (`0`–`63`) for `x, y, z` in `0..4`. A position is
//! written as 64 characters `X`, `O` or `.`, layer by layer (`z = 0..3`),
//! each layer row by row (`y`), each row `x = 0..3`; `/` may separate rows
//! and one or two `/` between layers (`..../..../..../....//..../.X../..../....//…`,
//! or the same with single slashes, or none). A position that starts with a
//! digit is a list of moves from the empty board (`0 21 42`). X moves first;
//! the first to own a whole line of four wins, and a full board without a
//! line is a draw. There are 76 lines ([`LINES`]): 48 along the axes (rows,
//! columns, pillars), 24 diagonals of the axis planes and 4 space
//! diagonals. Values are as in the rest of the family: win, draw or loss and
//! the plies to the end under perfect play ([`Outcome`]).
//!
//! # Symmetry
//!
//! The 192 permutations of the cells that map lines onto lines
//! ([`SYMMETRIES`]): the cube's 48 rotations and reflections, each combined
//! with one of four maps that renumber the coordinates `0 1 2 3` of all
//! three axes at once, by a permutation that commutes with the reversal
//! `i ↦ 3 − i` (the identity, swapping the two middle values, swapping
//! within each half, both). How the group was found, and the test that
//! proves it is all of them, are at [`SYMMETRIES`].
//!
//! # The table: a winning strategy
//!
//! Qubic has 3^64 boards: no table of every position will exist. Its table
//! holds the first player's winning strategy (Qubic is a win for the first
//! player: Patashnik, "Qubic: 4×4×4 tic-tac-toe", Mathematics Magazine
//! 53(4), 1980; Allis and Schoo, "Qubic solved again", 1992), found by the
//! generator's df-pn prover (`solvedb build qubic`) and laid out as
//! [`strategy`] says; positions outside it are answered by the live solver,
//! [`QubicSolver`].
//!
//! ```
//! use solvedb_lookup::{Game, Qubic};
//!
//! let p = Qubic.parse("0 21")?;
//! assert_eq!(Qubic.to_move(p), 'X');
//! let text = Qubic.notation(p);
//! assert_eq!(text, "X.../..../..../....//..../.O../..../....//..../..../..../....//..../..../..../....");
//! assert_eq!(Qubic.parse(&text.replace('/', ""))?, p);
//! # Ok::<(), solvedb_lookup::PositionError>(())
//! ```

mod board;
mod lines;
pub mod live;
mod move_order;
mod notation;
pub mod opening;
mod pairing;
pub mod prover;
pub mod samples;
mod solver;
pub mod strategy;
mod symmetry;
pub mod threats;
mod transpositions;

pub use board::{QubicBoard, QubicCell};
pub use lines::{
    CELLS, LINE_COUNT, LINE_DEGREE, LINES, LINES_THROUGH, LineCells, has_line, line_cells, threats,
};
pub use pairing::has_pairing;
pub use solver::{QubicSolver, Rules};
pub use symmetry::{INVERSES, SYMMETRIES, SYMMETRY_COUNT, canonical_with_symmetry, mask_image};

use lines::FULL;
use symmetry::{SYMMETRY_BYTES, image_with};

use crate::error::PositionError;
use crate::format::GameId;
use crate::game::{ExactSolver, Game, SearchLimits, check_notation_length};
use crate::games::check_reachable;
use crate::games::stones::least_image;
use crate::value::{Outcome, Score, Transition, WIN_SCORE};

/// Qubic, 4×4×4 tic-tac-toe. See the [module documentation](self).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Qubic;

impl Qubic {
    /// `'X'` or `'O'`: whose turn it is (X moves first).
    pub fn to_move(self, board: QubicBoard) -> char {
        board.to_move()
    }

    /// The board with these stones, if it could arise in play.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] if stones overlap, otherwise as
    /// [`Game::parse`] for an unreachable board.
    pub fn board(self, x: u64, o: u64) -> Result<QubicBoard, PositionError> {
        if x & o != 0 {
            return Err(PositionError::BadMove {
                input: format!("x={x:#x} o={o:#x}"),
                reason: "stones overlap".into(),
            });
        }
        check_reachable(x, o, has_line)?;
        Ok(QubicBoard { x, o })
    }
}

impl Game for Qubic {
    type Position = QubicBoard;
    type Move = QubicCell;
    type Value = Outcome;

    fn id(&self) -> GameId {
        GameId::Qubic
    }

    fn start(&self) -> QubicBoard {
        QubicBoard::default()
    }

    /// The 64 cells, or the moves from the start (`0 21 42`).
    fn parse(&self, text: &str) -> Result<QubicBoard, PositionError> {
        check_notation_length(text)?;
        let text = text.trim();
        if text.starts_with(|c: char| c.is_ascii_digit()) {
            return self.play_from_start(text);
        }
        notation::parse_cells(text)
    }

    fn notation(&self, board: QubicBoard) -> String {
        notation::write(board)
    }

    /// The four layers side by side, z = 0 on the left, each row by row
    /// (y = 0 on top) with x = 0..3 across; an empty cell shows its move
    /// number `16z + 4y + x`:
    ///
    /// ```text
    ///     z=0             z=1             z=2             z=3
    ///  X  1  2  3  |  16 17 18 19  |  32 33 34 35  |  48 49 50 51
    ///  4  5  6  7  |  20  O 22 23  |  36 37 38 39  |  52 53 54 55
    ///  8  9 10 11  |  24 25 26 27  |  40 41 42 43  |  56 57 58 59
    /// 12 13 14 15  |  28 29 30 31  |  44 45 46 47  |  60 61 62 63
    /// ```
    fn picture(&self, board: QubicBoard) -> String {
        notation::picture(board)
    }

    fn parse_move(&self, text: &str) -> Result<QubicCell, PositionError> {
        notation::parse_cell(text)
    }

    fn moves(&self, board: QubicBoard) -> Vec<QubicCell> {
        if self.terminal_score(board).is_some() {
            return Vec::new();
        }
        let empty = board.empty();
        (0..CELLS as u8)
            .filter(|&c| empty >> c & 1 != 0)
            .map(QubicCell)
            .collect()
    }

    fn play(&self, board: QubicBoard, cell: QubicCell) -> (QubicBoard, Transition) {
        (board.with_move(cell), Transition::PASS)
    }

    fn terminal_score(&self, board: QubicBoard) -> Option<Score> {
        let last = if board.x_to_move() { board.o } else { board.x };
        if has_line(last) {
            Some(-(WIN_SCORE - board.stones() as Score))
        } else if board.x | board.o == FULL {
            Some(0)
        } else {
            None
        }
    }

    fn value(&self, board: QubicBoard, score: Score) -> Outcome {
        let stones = board.stones();
        // A draw always fills the board.
        Outcome::from_score(score, stones).unwrap_or(Outcome::draw((CELLS as u32 - stones) as u8))
    }

    fn side_to_move(&self, board: QubicBoard) -> Option<char> {
        Some(self.to_move(board))
    }

    /// [`QubicSolver`]: forced play, then alpha-beta with a transposition
    /// table.
    fn exact_solver(&self, limits: SearchLimits) -> Option<Box<dyn ExactSolver<QubicBoard>>> {
        Some(Box::new(QubicSolver::new(limits)))
    }

    fn symmetry_count(&self) -> usize {
        SYMMETRY_COUNT
    }

    fn image(&self, board: QubicBoard, index: usize) -> QubicBoard {
        let bytes = &SYMMETRY_BYTES[index];
        QubicBoard {
            x: image_with(bytes, board.x),
            o: image_with(bytes, board.o),
        }
    }

    /// The least image, comparing X's masks first: O's mask is only mapped
    /// where X's image does not already lose.
    fn canonical(&self, board: QubicBoard) -> QubicBoard {
        let bytes = &*SYMMETRY_BYTES;
        let (x, o) = least_image(board.x, board.o, SYMMETRY_COUNT, |s, mask| {
            image_with(&bytes[s], mask)
        });
        QubicBoard { x, o }
    }
}

#[cfg(test)]
mod tests;
