//! The cube's board ([`CubeBoard`], the family's [`StoneBoard`] on 27
//! cells) and cells ([`CubeCell`]).

use std::fmt;

use super::lines::{CELLS, FULL, threats};
use crate::games::stones::StoneBoard;

/// A cube position: one bit per cell for each player (the family's
/// [`StoneBoard`], whose accessors it has). X is to move when both have as
/// many stones, O otherwise.
///
/// Ordered by X's mask, then O's; [`Game::canonical`](crate::Game::canonical)
/// is the least image.
pub type CubeBoard = StoneBoard<u32, CELLS>;

impl CubeBoard {
    /// The table key of the board: `x << 27 | o`, ordered like the board.
    pub fn key(self) -> u64 {
        u64::from(self.x) << CELLS | u64::from(self.o)
    }

    /// The board a key stands for, if it names a well-formed one (the key
    /// need not be a reachable position).
    pub fn from_key(key: u64) -> Option<CubeBoard> {
        let (x, o) = ((key >> CELLS) as u32, (key & u64::from(FULL)) as u32);
        (key >> (2 * CELLS) == 0 && x & o == 0).then_some(CubeBoard { x, o })
    }

    /// The board after the side to move takes `cell` (which must be empty).
    #[inline]
    pub fn with_move(self, cell: u32) -> CubeBoard {
        self.with_stone(cell)
    }

    /// Whether nobody threatens a cell: the only positions a table stores.
    pub fn is_quiet(self) -> bool {
        let empty = self.empty();
        threats(self.x, empty) == 0 && threats(self.o, empty) == 0
    }
}

/// A cell, `x + 3y + 9z`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CubeCell(pub(crate) u8);

impl CubeCell {
    /// The cell with this number, if it is on the board.
    pub fn new(index: u8) -> Option<CubeCell> {
        (usize::from(index) < CELLS).then_some(CubeCell(index))
    }

    /// The cell's number.
    pub fn index(self) -> u8 {
        self.0
    }
}

impl fmt::Display for CubeCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
