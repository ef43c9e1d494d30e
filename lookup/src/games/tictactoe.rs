//! 3×3 tic-tac-toe.
//!
//! Cells are numbered `0`–`8` row by row from the top left. A position is
//! written as nine characters `X`, `O` or `.` in the same order, optionally
//! with `/` between rows (`X.O/.X./..O`). X moves first, so the side to move
//! follows from the counts: X when both have as many stones, O otherwise.
//!
//! ```
//! use solvedb_lookup::{Game, TicTacToe};
//!
//! let p = TicTacToe.parse("XX./OO./...")?;
//! assert_eq!(TicTacToe.to_move(p), 'X');
//! assert_eq!(TicTacToe.notation(p), "XX./OO./...");
//! # Ok::<(), solvedb_lookup::PositionError>(())
//! ```

use crate::error::PositionError;
use crate::format::{
    GameId, IndexScheme, TableError, ValueEncoding, decode_outcome, encode_outcome,
};
use crate::game::{Game, Tabled};
use crate::games::stones::{FlatBoard, FlatCell, Layout};
use crate::value::{Outcome, Score, Transition};

/// How the board is written.
const LAYOUT: Layout = Layout {
    game: "tic-tac-toe",
    cells: CELLS,
    row: 3,
    layer: CELLS,
    expected: "'X', 'O', '.' (and '/' between rows)",
    moves: "tic-tac-toe moves are cells 0-8, row by row",
};

const CELLS: usize = 9;

/// The eight winning lines as cell masks.
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// Cell maps of the 8 symmetries of the square: `SYMMETRIES[s][c]` is where
/// cell `c` goes. Symmetry `s` transposes if `s & 4`, then mirrors the rows if
/// `s & 1` and the columns if `s & 2`; index 0 is the identity.
const SYMMETRIES: [[u8; CELLS]; 8] = {
    let mut table = [[0u8; CELLS]; 8];
    let mut s = 0;
    while s < 8 {
        let mut cell = 0;
        while cell < CELLS {
            let (mut r, mut c) = (cell / 3, cell % 3);
            if s & 4 != 0 {
                (r, c) = (c, r);
            }
            if s & 1 != 0 {
                r = 2 - r;
            }
            if s & 2 != 0 {
                c = 2 - c;
            }
            table[s][cell] = (3 * r + c) as u8;
            cell += 1;
        }
        s += 1;
    }
    table
};

/// `MASK_IMAGES[s][m]`: the image of cell mask `m` under symmetry `s`, so that
/// a symmetric image costs two table reads (8 KiB in all).
static MASK_IMAGES: [[u16; 1 << CELLS]; 8] = {
    let mut table = [[0u16; 1 << CELLS]; 8];
    let mut s = 0;
    while s < 8 {
        let mut mask = 0;
        while mask < 1 << CELLS {
            let mut cell = 0;
            while cell < CELLS {
                if mask & (1 << cell) != 0 {
                    table[s][mask] |= 1 << SYMMETRIES[s][cell];
                }
                cell += 1;
            }
            mask += 1;
        }
        s += 1;
    }
    table
};

/// 3×3 tic-tac-toe. See the [module documentation](self).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TicTacToe;

/// A tic-tac-toe board: one bit per cell for each player.
pub type Board = FlatBoard<CELLS>;

/// A cell, `0`–`8` row by row from the top left.
pub type Cell = FlatCell<CELLS>;

fn has_line(stones: u16) -> bool {
    LINES.iter().any(|&line| line & !stones == 0)
}

impl TicTacToe {
    /// `'X'` or `'O'`: whose turn it is (X moves first).
    pub fn to_move(self, board: Board) -> char {
        board.to_move()
    }

    /// The board with these stones, if it could arise in play.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] if stones overlap or lie off the board,
    /// otherwise as [`Game::parse`] for an unreachable board.
    pub fn board(self, x: u16, o: u16) -> Result<Board, PositionError> {
        Board::checked(x, o, has_line)
    }
}

impl Game for TicTacToe {
    type Position = Board;
    type Move = Cell;
    type Value = Outcome;

    fn id(&self) -> GameId {
        GameId::TicTacToe
    }

    fn start(&self) -> Board {
        Board::default()
    }

    fn parse(&self, text: &str) -> Result<Board, PositionError> {
        Board::parse(self, &LAYOUT, text, has_line)
    }

    fn notation(&self, board: Board) -> String {
        board.notation(&LAYOUT)
    }

    /// The grid, each empty cell showing its move number:
    ///
    /// ```text
    ///  X | 1 | 2
    /// ---+---+---
    ///  3 | O | 5
    /// ---+---+---
    ///  6 | 7 | 8
    /// ```
    fn picture(&self, board: Board) -> String {
        board.picture(&LAYOUT)
    }

    fn parse_move(&self, text: &str) -> Result<Cell, PositionError> {
        Cell::parse(&LAYOUT, text)
    }

    fn moves(&self, board: Board) -> Vec<Cell> {
        board.moves(has_line)
    }

    fn play(&self, board: Board, cell: Cell) -> (Board, Transition) {
        (board.with_move(cell), Transition::PASS)
    }

    fn terminal_score(&self, board: Board) -> Option<Score> {
        board.terminal_score(has_line)
    }

    /// # Panics
    ///
    /// If `score` is not a score this game produces at `board` (a bug in
    /// the caller: entries are validated when decoded).
    fn value(&self, board: Board, score: Score) -> Outcome {
        board.value(score)
    }

    fn side_to_move(&self, board: Board) -> Option<char> {
        Some(self.to_move(board))
    }

    fn symmetry_count(&self) -> usize {
        SYMMETRIES.len()
    }

    fn image(&self, board: Board, index: usize) -> Board {
        let image = &MASK_IMAGES[index];
        board.map(|mask| image[usize::from(mask)])
    }
}

impl Tabled for TicTacToe {
    const INDEX: IndexScheme = IndexScheme::Base3Canonical;
    const VALUES: ValueEncoding = ValueEncoding::OutcomePlies;

    fn slots(&self) -> u64 {
        3u64.pow(CELLS as u32)
    }

    fn slot(&self, board: Board) -> u64 {
        (0..CELLS).rev().fold(0, |acc, c| {
            let digit = if board.x() & (1 << c) != 0 {
                1
            } else if board.o() & (1 << c) != 0 {
                2
            } else {
                0
            };
            acc * 3 + digit
        })
    }

    fn position_at(&self, slot: u64) -> Option<Board> {
        if slot >= self.slots() {
            return None;
        }
        let (mut rest, mut x, mut o) = (slot, 0u16, 0u16);
        for c in 0..CELLS {
            match rest % 3 {
                1 => x |= 1 << c,
                2 => o |= 1 << c,
                _ => {}
            }
            rest /= 3;
        }
        Some(Board::from_masks(x, o))
    }

    fn encode(&self, board: Board, score: Score) -> u8 {
        encode_outcome(self.value(board, score))
    }

    fn decode(&self, board: Board, slot: u64, entry: u8) -> Result<Score, TableError> {
        let outcome = decode_outcome(entry, CELLS as u32 - board.stones(), slot)?;
        Ok(outcome.score(board.stones()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Every reachable board, by playing all games from the start.
    fn reachable() -> HashSet<Board> {
        let mut seen = HashSet::new();
        let mut stack = vec![TicTacToe.start()];
        while let Some(board) = stack.pop() {
            if seen.insert(board) {
                for mv in TicTacToe.moves(board) {
                    stack.push(TicTacToe.play(board, mv).0);
                }
            }
        }
        seen
    }

    #[test]
    fn parse_accepts_exactly_the_boards_play_reaches() {
        let played = reachable();
        let mut parsed = HashSet::new();
        for slot in 0..TicTacToe.slots() {
            let board = TicTacToe.position_at(slot).unwrap();
            assert_eq!(TicTacToe.slot(board), slot);
            if let Ok(p) = TicTacToe.parse(&TicTacToe.notation(board)) {
                assert_eq!(p, board);
                parsed.insert(p);
            }
        }
        assert_eq!(parsed, played);
    }

    #[test]
    fn symmetries_are_distinct_and_map_lines_to_lines() {
        let mut seen = HashSet::new();
        for map in &SYMMETRIES {
            assert!(seen.insert(*map));
            let mut image_lines: Vec<u16> = LINES
                .iter()
                .map(|&l| {
                    (0..9)
                        .filter(|&c| l & 1 << c != 0)
                        .fold(0, |a, c| a | 1 << map[c])
                })
                .collect();
            image_lines.sort_unstable();
            let mut lines = LINES.to_vec();
            lines.sort_unstable();
            assert_eq!(image_lines, lines);
        }
    }

    #[test]
    fn notation_errors_name_the_problem() {
        let t = TicTacToe;
        assert!(matches!(
            t.parse("X.."),
            Err(PositionError::Length { found: 3, .. })
        ));
        assert!(matches!(
            t.parse("X.......Z"),
            Err(PositionError::Character {
                found: 'Z',
                at: 8,
                ..
            })
        ));
        assert!(matches!(
            t.parse("XX......."),
            Err(PositionError::Counts { x: 2, o: 0 })
        ));
        assert!(matches!(
            t.parse("XXX/OOO/X.."),
            Err(PositionError::BothWin)
        ));
        // X has a line but O moved after it.
        assert!(matches!(
            t.parse("XXX/OO./O.."),
            Err(PositionError::PlayAfterWin { winner: 'X' })
        ));
        assert!(matches!(
            t.parse("X../.../.../"),
            Err(PositionError::Character { found: '/', .. })
        ));
        assert!(t.parse("X../.../...").is_ok());
        let huge = ".".repeat(1 << 20);
        assert!(matches!(
            t.parse(&huge),
            Err(PositionError::TooLong {
                found: 1_048_576,
                ..
            })
        ));
        assert!(matches!(
            t.parse_move(&huge),
            Err(PositionError::TooLong { .. })
        ));
    }
}
