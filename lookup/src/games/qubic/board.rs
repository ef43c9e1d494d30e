//! Qubic's board ([`QubicBoard`], the family's [`StoneBoard`] on 64 cells)
//! and cells ([`QubicCell`]).

use std::fmt;

use super::lines::CELLS;
use crate::games::stones::StoneBoard;

/// A Qubic position: one bit per cell for each player (the family's
/// [`StoneBoard`], whose accessors it has). X is to move when both have as
/// many stones, O otherwise.
///
/// Ordered by X's mask, then O's; [`Game::canonical`](crate::Game::canonical)
/// is the least image.
pub type QubicBoard = StoneBoard<u64, CELLS>;

impl QubicBoard {
    /// The board after the side to move takes `cell` (which must be empty).
    #[inline]
    pub fn with_move(self, cell: QubicCell) -> QubicBoard {
        self.with_stone(u32::from(cell.0))
    }
}

/// A cell, `16z + 4y + x`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QubicCell(pub(crate) u8);

impl QubicCell {
    /// The cell with this number, if it is on the board.
    pub fn new(index: u8) -> Option<QubicCell> {
        (usize::from(index) < CELLS).then_some(QubicCell(index))
    }

    /// The cell's number.
    pub fn index(self) -> u8 {
        self.0
    }
}

impl fmt::Display for QubicCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
