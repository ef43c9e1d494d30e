//! What the tic-tac-toe family (3×3, 4×4, the cube) shares, written once:
//! X's and O's stones as cell masks, the notation of cells (`X`, `O`, `.`
//! with `/` between rows and `//` between layers), moves named by their
//! cell number, and the least symmetric image of a board.

use crate::error::PositionError;
use crate::game::check_notation_length;

/// How a board of the family is written: `cells` cells, `row` to a row and
/// `layer` to a layer (`cells` for a flat board).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Layout {
    /// The game's name in error messages.
    pub game: &'static str,
    /// Cells on the board.
    pub cells: usize,
    /// Cells in a row.
    pub row: usize,
    /// Cells in a layer.
    pub layer: usize,
    /// What the notation accepts, for error messages.
    pub expected: &'static str,
    /// What a move is, for error messages.
    pub moves: &'static str,
}

impl Layout {
    /// Reads the cells of `text` (trimmed, not longer than any notation):
    /// X's and O's stones as masks. One `/` may stand between rows, one or
    /// two between layers.
    ///
    /// # Errors
    ///
    /// [`PositionError::Character`] or [`PositionError::Length`].
    pub fn parse_cells(&self, text: &str) -> Result<(u32, u32), PositionError> {
        let (mut x, mut o, mut cells, mut slashes) = (0u32, 0u32, 0usize, 0);
        for (at, ch) in text.char_indices() {
            let bit = 1u32.checked_shl(cells as u32).unwrap_or(0);
            match ch {
                'X' => x |= bit,
                'O' => o |= bit,
                '.' => {}
                '/' if cells > 0
                    && cells % self.row == 0
                    && cells < self.cells
                    && slashes < if cells % self.layer == 0 { 2 } else { 1 } =>
                {
                    slashes += 1;
                    continue;
                }
                _ => {
                    return Err(PositionError::Character {
                        found: ch,
                        at,
                        expected: self.expected,
                    });
                }
            }
            slashes = 0;
            cells += 1;
        }
        if cells != self.cells {
            return Err(PositionError::Length {
                game: self.game,
                unit: "cells",
                expected: self.cells,
                found: cells,
            });
        }
        Ok((x, o))
    }

    /// The notation of a board: `/` between rows, `//` between layers.
    pub fn write_cells(&self, x: u32, o: u32) -> String {
        let mut text = String::with_capacity(2 * self.cells);
        for cell in 0..self.cells {
            if cell > 0 && cell % self.layer == 0 {
                text.push_str("//");
            } else if cell > 0 && cell % self.row == 0 {
                text.push('/');
            }
            let bit = 1 << cell;
            text.push(if x & bit != 0 {
                'X'
            } else if o & bit != 0 {
                'O'
            } else {
                '.'
            });
        }
        text
    }

    /// The cell a move names: its number.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] (or [`PositionError::TooLong`]).
    pub fn parse_cell(&self, text: &str) -> Result<u8, PositionError> {
        check_notation_length(text)?;
        text.trim()
            .parse::<u8>()
            .ok()
            .filter(|&c| usize::from(c) < self.cells)
            .ok_or_else(|| PositionError::BadMove {
                input: text.to_owned(),
                reason: self.moves.into(),
            })
    }
}

/// The least image of the board `(x, o)` under symmetries `0..count`
/// (`image(s, mask)`; 0 the identity), comparing X's masks first, so O's
/// mask is only mapped where X's image does not already lose.
pub(crate) fn least_image<M: Copy + Ord>(
    x: M,
    o: M,
    count: usize,
    image: impl Fn(usize, M) -> M,
) -> (M, M) {
    let mut best = (x, o);
    for s in 1..count {
        let ix = image(s, x);
        if ix > best.0 {
            continue;
        }
        let io = image(s, o);
        if ix < best.0 || io < best.1 {
            best = (ix, io);
        }
    }
    best
}
