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

/// The key of a board in the table: X's mask in the high 64 bits, O's in the
/// low (the order of [`QubicBoard`]: X's mask first), in the
/// strategy and opening tables.
pub fn key(board: QubicBoard) -> u128 {
    u128::from(board.x) << 64 | u128::from(board.o)
}

/// The board a key names (it need not be legal: a corrupt table's keys are
/// checked by whoever reads them).
pub fn board_of_key(key: u128) -> QubicBoard {
    QubicBoard {
        x: (key >> 64) as u64,
        o: key as u64,
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
