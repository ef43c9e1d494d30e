//! What the tic-tac-toe family (3×3, 4×4, the cube, Qubic) shares, written
//! once: the board, X's and O's stones as cell masks ([`StoneBoard`], its
//! accessors and moves), the notation of cells (`X`, `O`, `.`
//! with `/` between rows and `//` between layers), moves named by their
//! cell number, the least symmetric image of a board, and the rules of the
//! flat boards ([`FlatBoard`]: 3×3 and 4×4 differ only in their lines and
//! symmetries).

use std::fmt;
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, Not};

use crate::error::PositionError;
use crate::game::{Game, check_notation_length};
use crate::games::check_reachable;
use crate::value::{Outcome, Score, WIN_SCORE};

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
    /// X's and O's stones as masks (bit `i` for cell `i`; every board of
    /// the family has at most 64 cells). One `/` may stand between rows,
    /// one or two between layers.
    ///
    /// # Errors
    ///
    /// [`PositionError::Character`] or [`PositionError::Length`].
    pub fn parse_cells(&self, text: &str) -> Result<(u64, u64), PositionError> {
        let (mut x, mut o, mut cells, mut slashes) = (0u64, 0u64, 0usize, 0);
        for (at, ch) in text.char_indices() {
            // Past the 64th cell the bit is lost, but the length check
            // below refuses such text anyway.
            let bit = 1u64.checked_shl(cells as u32).unwrap_or(0);
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
    pub fn write_cells(&self, x: u64, o: u64) -> String {
        let mut text = String::with_capacity(2 * self.cells);
        for cell in 0..self.cells {
            if cell > 0 && cell % self.layer == 0 {
                text.push_str("//");
            } else if cell > 0 && cell % self.row == 0 {
                text.push('/');
            }
            let bit = 1u64 << cell;
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

/// The six orders of three axes, for the three-dimensional boards' symmetry
/// groups (the cube's and Qubic's): a symmetry permutes the axes by one
/// (coordinate `i` of the image is coordinate `perm[i]` of the cell).
pub(crate) const AXIS_PERMUTATIONS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// One of the four renumberings `k` (`0..4`) of the coordinates `0..4`
/// of a side of four cells that, applied to every axis at once, map lines
/// of four onto lines (they commute with reversal `i ↦ 3 − i`, so rising
/// and falling diagonals stay diagonals): bit 0 of `k` swaps the middle two
/// (`1 ↔ 2`), bit 1 then swaps within each half (`0 ↔ 1`, `2 ↔ 3`). With
/// reversal itself they are the 8 symmetries of a square with corners
/// `0 1 3 2`; 4×4 tic-tac-toe and Qubic take one per coset of reversal.
pub(crate) const fn renumbering(k: usize, i: usize) -> usize {
    let i = if k & 1 != 0 && (i == 1 || i == 2) {
        3 - i
    } else {
        i
    };
    if k & 2 != 0 { i ^ 1 } else { i }
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

/// The cell masks of the family's boards: `u16` (the flat boards), `u32`
/// (the cube) and `u64` (Qubic), bit `i` for cell `i`.
pub trait Mask:
    Copy
    + Default
    + Ord
    + Hash
    + fmt::Debug
    + BitOr<Output = Self>
    + BitAnd<Output = Self>
    + Not<Output = Self>
    + sealed::Sealed
{
    /// Cells in the mask.
    fn count(self) -> u32;
    /// The mask of `cell` alone.
    fn bit(cell: u32) -> Self;
    /// The mask of cells `0..cells` (every cell of a board of `cells`).
    fn first(cells: usize) -> Self;
}

mod sealed {
    /// Only the family's masks are [`Mask`](super::Mask)s.
    pub trait Sealed {}
}

macro_rules! mask {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}

        impl Mask for $t {
            #[inline]
            fn count(self) -> u32 {
                self.count_ones()
            }

            #[inline]
            fn bit(cell: u32) -> $t {
                1 << cell
            }

            #[inline]
            fn first(cells: usize) -> $t {
                if cells >= <$t>::BITS as usize {
                    <$t>::MAX
                } else {
                    (1 << cells) - 1
                }
            }
        }
    )*};
}

mask!(u16, u32, u64);

/// A board of the family with `CELLS` cells: one mask of type `M` per
/// player, X's and O's stones. X moves first, so X is to move when both
/// have as many stones. Ordered by X's mask, then O's (so the least image
/// of a board is its canonical form). Every board of the family is this
/// type: [`FlatBoard`] (3×3 and 4×4), [`CubeBoard`](crate::CubeBoard) and
/// [`QubicBoard`](crate::QubicBoard); what tells them apart, the lines and
/// the symmetries, stays with each game.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoneBoard<M, const CELLS: usize> {
    pub(crate) x: M,
    pub(crate) o: M,
}

impl<M: Mask, const CELLS: usize> StoneBoard<M, CELLS> {
    /// The board with these masks, unchecked: the caller knows they are
    /// disjoint and on the board (the games' `board` methods check).
    #[inline]
    pub fn from_masks(x: M, o: M) -> StoneBoard<M, CELLS> {
        StoneBoard { x, o }
    }

    /// The cells X holds, bit `i` for cell `i`.
    #[inline]
    pub fn x(self) -> M {
        self.x
    }

    /// The cells O holds, bit `i` for cell `i`.
    #[inline]
    pub fn o(self) -> M {
        self.o
    }

    /// Stones on the board.
    #[inline]
    pub fn stones(self) -> u32 {
        (self.x | self.o).count()
    }

    /// The empty cells.
    #[inline]
    pub fn empty(self) -> M {
        M::first(CELLS) & !(self.x | self.o)
    }

    /// Whether X is to move.
    #[inline]
    pub fn x_to_move(self) -> bool {
        self.x.count() == self.o.count()
    }

    /// `'X'` or `'O'`: whose turn it is.
    pub fn to_move(self) -> char {
        if self.x_to_move() { 'X' } else { 'O' }
    }

    /// The stones of the side to move and of the other side.
    #[inline]
    pub fn mover_and_other(self) -> (M, M) {
        if self.x_to_move() {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }

    /// The board after the side to move takes `cell` (which must be
    /// empty): what each board's `with_move` does with its own cell type.
    #[inline]
    pub(crate) fn with_stone(self, cell: u32) -> StoneBoard<M, CELLS> {
        let bit = M::bit(cell);
        if self.x_to_move() {
            StoneBoard {
                x: self.x | bit,
                o: self.o,
            }
        } else {
            StoneBoard {
                x: self.x,
                o: self.o | bit,
            }
        }
    }

    /// The board with both masks mapped by `image`.
    #[inline]
    pub(crate) fn map(self, image: impl Fn(M) -> M) -> StoneBoard<M, CELLS> {
        StoneBoard {
            x: image(self.x),
            o: image(self.o),
        }
    }
}

/// A flat board of the family with `CELLS` cells (at most 16): 3×3
/// tic-tac-toe's [`Board`](crate::Board) and 4×4's
/// [`Board4x4`](crate::Board4x4).
pub type FlatBoard<const CELLS: usize> = StoneBoard<u16, CELLS>;

impl<const CELLS: usize> FlatBoard<CELLS> {
    /// Every cell.
    pub(crate) const FULL: u16 = ((1u32 << CELLS) - 1) as u16;

    /// The board with these stones, if it could arise in play (`has_line`:
    /// whether a mask holds a whole line).
    pub(crate) fn checked(
        x: u16,
        o: u16,
        has_line: fn(u16) -> bool,
    ) -> Result<FlatBoard<CELLS>, PositionError> {
        if x & o != 0 || (x | o) & !Self::FULL != 0 {
            return Err(PositionError::BadMove {
                input: format!("x={x:#x} o={o:#x}"),
                reason: "stones overlap or lie off the board".into(),
            });
        }
        check_reachable(u64::from(x), u64::from(o), |m| has_line(m as u16))?;
        Ok(FlatBoard { x, o })
    }

    /// A board in the notation of `layout` (its cells, or the moves from
    /// the start: `4 0 8`), if it could arise in play.
    pub(crate) fn parse<G: Game<Position = FlatBoard<CELLS>>>(
        game: &G,
        layout: &Layout,
        text: &str,
        has_line: fn(u16) -> bool,
    ) -> Result<FlatBoard<CELLS>, PositionError> {
        check_notation_length(text)?;
        let text = text.trim();
        if text.starts_with(|c: char| c.is_ascii_digit()) {
            return game.play_from_start(text);
        }
        let (x, o) = layout.parse_cells(text)?;
        // At most 16 cells: both masks fit 16 bits.
        Self::checked(x as u16, o as u16, has_line)
    }

    /// The board in the notation of `layout`.
    pub(crate) fn notation(self, layout: &Layout) -> String {
        layout.write_cells(u64::from(self.x), u64::from(self.o))
    }

    /// The board as a grid of `layout.row` cells a side: each cell shows
    /// its mark, or its move number where it is empty, rows between
    /// `---+---` rules (cells as wide as the largest number).
    pub(crate) fn picture(self, layout: &Layout) -> String {
        let side = layout.row;
        let width = (CELLS - 1).to_string().len();
        let cell = |c: usize| {
            let mark = if self.x & 1 << c != 0 {
                "X".to_owned()
            } else if self.o & 1 << c != 0 {
                "O".to_owned()
            } else {
                c.to_string()
            };
            format!(" {mark:>width$} ")
        };
        let rule = vec!["-".repeat(width + 2); side].join("+");
        (0..CELLS / side)
            .map(|row| {
                (0..side)
                    .map(|col| cell(row * side + col))
                    .collect::<Vec<_>>()
                    .join("|")
                    .trim_end()
                    .to_owned()
            })
            .collect::<Vec<_>>()
            .join(&format!("\n{rule}\n"))
    }

    /// The score of a finished game for the side to move (the last mover
    /// made a line, or the board is full), `None` while it goes on.
    pub(crate) fn terminal_score(self, has_line: fn(u16) -> bool) -> Option<Score> {
        let last_mover = if self.x_to_move() { self.o } else { self.x };
        if has_line(last_mover) {
            Some(-(WIN_SCORE - self.stones() as Score))
        } else if self.x | self.o == Self::FULL {
            Some(0)
        } else {
            None
        }
    }

    /// The empty cells of a game that goes on; none once it is over.
    pub(crate) fn moves(self, has_line: fn(u16) -> bool) -> Vec<FlatCell<CELLS>> {
        if self.terminal_score(has_line).is_some() {
            return Vec::new();
        }
        let empty = Self::FULL & !(self.x | self.o);
        (0..CELLS as u8)
            .filter(|&c| empty & (1 << c) != 0)
            .map(FlatCell)
            .collect()
    }

    /// The board after the side to move takes `cell` (which must be empty).
    pub(crate) fn with_move(self, cell: FlatCell<CELLS>) -> FlatBoard<CELLS> {
        self.with_stone(u32::from(cell.0))
    }

    /// The outcome a score stands for on this board.
    ///
    /// # Panics
    ///
    /// If `score` is not a score the game produces here (a bug in the
    /// caller: entries are validated when decoded).
    pub(crate) fn value(self, score: Score) -> Outcome {
        let stones = self.stones();
        if score == 0 {
            // A drawn game on a flat board always fills it.
            return Outcome::draw((CELLS as u32 - stones) as u8);
        }
        Outcome::from_score(score, stones)
            .expect("scores come from the rules, the search or a decoded entry")
    }
}

/// A cell of a [`FlatBoard`], `0 .. CELLS` row by row from the top left.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlatCell<const CELLS: usize>(u8);

impl<const CELLS: usize> FlatCell<CELLS> {
    /// The cell with this number, if it is on the board.
    pub fn new(index: u8) -> Option<FlatCell<CELLS>> {
        (usize::from(index) < CELLS).then_some(FlatCell(index))
    }

    /// The cell's number.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The cell a move names in the notation of `layout` (a layout of
    /// `CELLS` cells).
    pub(crate) fn parse(layout: &Layout, text: &str) -> Result<FlatCell<CELLS>, PositionError> {
        debug_assert_eq!(layout.cells, CELLS, "the layout of this board");
        Ok(FlatCell(layout.parse_cell(text)?))
    }
}

impl<const CELLS: usize> fmt::Display for FlatCell<CELLS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
