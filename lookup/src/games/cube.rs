//! 3×3×3 tic-tac-toe ("the cube").
//!
//! Cell `x + 3y + 9z` (`0`–`26`) for `x, y, z` in `0..3`. A position is
//! written as 27 characters `X`, `O` or `.`, layer by layer (`z = 0, 1, 2`),
//! each layer row by row (`y`), each row `x = 0, 1, 2`; `/` may separate
//! rows and layers (`.../.../...//.../.X./...//.../.../...`, or the same
//! with single slashes). X moves first; the first to own a whole line of
//! three wins. There are 49 lines: 27 along the axes, 18 diagonals of the
//! axis planes and 4 space diagonals through the centre. A full board always
//! holds a line, so no game is drawn.
//!
//! # Forced play and quiet positions
//!
//! A player *threatens* a cell when two of their stones and that empty cell
//! make a line. Where the side to move threatens a cell it wins in 1; where
//! only the opponent threatens, two or more cells lose in 2 and exactly one
//! must be blocked (anything else loses in 2, the block does not). So only
//! *quiet* positions, where nobody threatens anything, need a stored value;
//! every other position reaches a quiet one or a known result by at most
//! one forced block per empty cell ([`Cube::resolve`]). Tables hold the
//! canonical quiet positions only ([`IndexScheme::SortedKeys`]).
//!
//! # Figures
//!
//! From `solvedb build cube` and `solvedb verify --exhaustive` (counts per
//! stone count in `tests/data/cube.counts`): 106,843,710,289 reachable
//! non-terminal positions, 2,227,209,333 up to the 48 symmetries, every one
//! checked against its children; 3,778,077 of them are quiet, 80,183 up to
//! symmetry, and those are the whole table (99,065 bytes). X wins the empty
//! cube in 7 plies by taking the centre; every other first move loses in 10.
//!
//! ```
//! use solvedb_lookup::{Cube, Game};
//!
//! let p = Cube.parse("........./....X..../.........")?;
//! assert_eq!(Cube.to_move(p), 'O');
//! assert_eq!(Cube.notation(p), ".../.../...//.../.X./...//.../.../...");
//! assert_eq!(Cube.parse(&Cube.notation(p))?, p);
//! # Ok::<(), solvedb_lookup::PositionError>(())
//! ```

mod board;
mod forced_play;
mod lines;
mod solver;
mod symmetry;

pub use board::{CubeBoard, CubeCell};
pub use forced_play::Resolved;
pub use lines::{CELLS, LINE_COUNT, LINES, for_each_line_free, has_line, threats};
pub use solver::ForcedPlaySolver;
pub use symmetry::{SYMMETRIES, SYMMETRY_COUNT};

use lines::FULL;
use symmetry::image;

use crate::error::PositionError;
use crate::format::{
    GameId, IndexScheme, Table, TableData, TableError, ValueEncoding, decode_outcome,
    encode_outcome,
};
use crate::game::{ExactSolver, Game, SearchLimits, Tabled, check_notation_length};
use crate::games::check_reachable;
use crate::games::stones::{Layout, least_image};
use crate::value::{Outcome, Score, Transition, WIN_SCORE, Wdl};

/// How the cube is written.
const LAYOUT: Layout = Layout {
    game: "cube",
    cells: CELLS,
    row: 3,
    layer: 9,
    expected: "'X', 'O', '.' (one '/' between rows, one or two between layers)",
    moves: "cube moves are cells 0-26, x + 3y + 9z",
};

/// 3×3×3 tic-tac-toe. See the [module documentation](self).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Cube;

impl Cube {
    /// `'X'` or `'O'`: whose turn it is (X moves first).
    pub fn to_move(self, board: CubeBoard) -> char {
        board.to_move()
    }

    /// The board with these stones, if it could arise in play.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] if stones overlap or lie off the board,
    /// otherwise as [`Game::parse`] for an unreachable board.
    pub fn board(self, x: u32, o: u32) -> Result<CubeBoard, PositionError> {
        if x & o != 0 || (x | o) & !FULL != 0 {
            return Err(PositionError::BadMove {
                input: format!("x={x:#x} o={o:#x}"),
                reason: "stones overlap or lie off the board".into(),
            });
        }
        check_reachable(u64::from(x), u64::from(o), |m| has_line(m as u32))?;
        Ok(CubeBoard { x, o })
    }

    /// The legal moves of a position in the order that finds the best one
    /// soonest: the mover's winning cells, then blocks, then the rest.
    pub fn ordered_moves(self, board: CubeBoard) -> Vec<CubeCell> {
        if self.terminal_score(board).is_some() {
            return Vec::new();
        }
        let empty = board.empty();
        let (mover, other) = board.mover_and_other();
        let wins = threats(mover, empty);
        let blocks = threats(other, empty) & !wins;
        let rest = empty & !wins & !blocks;
        let mut moves = Vec::with_capacity(empty.count_ones() as usize);
        for mut set in [wins, blocks, rest] {
            while set != 0 {
                moves.push(CubeCell(set.trailing_zeros() as u8));
                set &= set - 1;
            }
        }
        moves
    }

    /// The symmetries that map `x` onto itself (the identity included).
    pub fn stabilizer(self, x: u32) -> Vec<usize> {
        (0..SYMMETRY_COUNT).filter(|&s| image(s, x) == x).collect()
    }

    /// Whether `x` is the least of its images under the 48 symmetries.
    pub fn is_least_image(self, x: u32) -> bool {
        (1..SYMMETRY_COUNT).all(|s| image(s, x) >= x)
    }

    /// The image of a cell mask under symmetry `index`.
    ///
    /// # Panics
    ///
    /// If `index >= 48`.
    pub fn mask_image(self, index: usize, mask: u32) -> u32 {
        image(index, mask)
    }

    /// Every line-free set of `size` cells that is the least of its images:
    /// one X set per orbit, ascending. Canonical positions are exactly the
    /// boards whose X set is one of these and whose O set is least among its
    /// images under the X set's [stabilizer](Cube::stabilizer), because
    /// boards order by X first.
    pub fn x_orbits(self, size: u32) -> Vec<u32> {
        let mut sets = Vec::new();
        for_each_line_free(0, FULL, size, &mut |x| {
            if self.is_least_image(x) {
                sets.push(x);
            }
        });
        sets
    }
}

impl Game for Cube {
    type Position = CubeBoard;
    type Move = CubeCell;
    type Value = Outcome;

    fn id(&self) -> GameId {
        GameId::Cube
    }

    fn start(&self) -> CubeBoard {
        CubeBoard::default()
    }

    fn parse(&self, text: &str) -> Result<CubeBoard, PositionError> {
        check_notation_length(text)?;
        let text = text.trim();
        if text.starts_with(|c: char| c.is_ascii_digit()) {
            return self.play_from_start(text);
        }
        let (x, o) = LAYOUT.parse_cells(text)?;
        check_reachable(x, o, |m| has_line(m as u32))?;
        // The layout has 27 cells: both masks fit 27 bits.
        Ok(CubeBoard {
            x: x as u32,
            o: o as u32,
        })
    }

    fn notation(&self, board: CubeBoard) -> String {
        LAYOUT.write_cells(u64::from(board.x), u64::from(board.o))
    }

    /// The three layers side by side, z = 0 on the left, each row by row
    /// (y = 0 on top) with x = 0..2 across; an empty cell shows its move
    /// number `x + 3y + 9z`:
    ///
    /// ```text
    ///    z=0          z=1          z=2
    ///  0  1  2  |   9 10 11  |  18 19 20
    ///  3  4  5  |  12  X 14  |  21 22 23
    ///  6  7  8  |  15 16 17  |  24 25 26
    /// ```
    fn picture(&self, board: CubeBoard) -> String {
        let marks: Vec<char> = self.notation(board).chars().filter(|&c| c != '/').collect();
        let cell = |c: usize| match marks[c] {
            '.' => format!("{c:>2}"),
            mark => format!("{mark:>2}"),
        };
        let mut lines = vec!["   z=0          z=1          z=2".to_owned()];
        for y in 0..3 {
            let layers: Vec<String> = (0..3)
                .map(|z| {
                    let first = 9 * z + 3 * y;
                    format!("{} {} {}", cell(first), cell(first + 1), cell(first + 2))
                })
                .collect();
            lines.push(layers.join("  |  "));
        }
        lines.join("\n")
    }

    fn parse_move(&self, text: &str) -> Result<CubeCell, PositionError> {
        Ok(CubeCell(LAYOUT.parse_cell(text)?))
    }

    fn moves(&self, board: CubeBoard) -> Vec<CubeCell> {
        if self.terminal_score(board).is_some() {
            return Vec::new();
        }
        let empty = board.empty();
        (0..CELLS as u8)
            .filter(|&c| empty & (1 << c) != 0)
            .map(CubeCell)
            .collect()
    }

    fn play(&self, board: CubeBoard, cell: CubeCell) -> (CubeBoard, Transition) {
        (board.with_move(u32::from(cell.0)), Transition::PASS)
    }

    fn terminal_score(&self, board: CubeBoard) -> Option<Score> {
        let last = if board.x_to_move() { board.o } else { board.x };
        if has_line(last) {
            Some(-(WIN_SCORE - board.stones() as Score))
        } else if board.x | board.o == FULL {
            // Unreachable (a full board holds a line), but a value all the same.
            Some(0)
        } else {
            None
        }
    }

    fn value(&self, board: CubeBoard, score: Score) -> Outcome {
        let stones = board.stones();
        Outcome::from_score(score, stones).unwrap_or(Outcome::draw((CELLS as u32 - stones) as u8))
    }

    fn side_to_move(&self, board: CubeBoard) -> Option<char> {
        Some(self.to_move(board))
    }

    fn symmetry_count(&self) -> usize {
        SYMMETRY_COUNT
    }

    fn image(&self, board: CubeBoard, index: usize) -> CubeBoard {
        CubeBoard {
            x: image(index, board.x),
            o: image(index, board.o),
        }
    }

    /// [`ForcedPlaySolver`]: forced play and a memo of quiet positions.
    fn exact_solver(&self, limits: SearchLimits) -> Option<Box<dyn ExactSolver<CubeBoard>>> {
        Some(Box::new(ForcedPlaySolver::new(limits)))
    }

    fn canonical(&self, board: CubeBoard) -> CubeBoard {
        let (x, o) = least_image(board.x, board.o, SYMMETRY_COUNT, image);
        CubeBoard { x, o }
    }
}

impl Tabled for Cube {
    const INDEX: IndexScheme = IndexScheme::SortedKeys;
    const VALUES: ValueEncoding = ValueEncoding::OutcomePlies;

    /// The key space: `2^54` keys `x << 27 | o` ([`CubeBoard::key`]), of
    /// which the table stores the canonical quiet positions.
    fn slots(&self) -> u64 {
        1 << (2 * CELLS)
    }

    fn slot(&self, board: CubeBoard) -> u64 {
        board.key()
    }

    fn position_at(&self, slot: u64) -> Option<CubeBoard> {
        CubeBoard::from_key(slot)
    }

    fn encode(&self, board: CubeBoard, score: Score) -> u8 {
        encode_outcome(self.value(board, score))
    }

    /// The family's codec, and what only the cube's stored positions
    /// satisfy: no game is drawn and none ends on the stored (quiet) position.
    fn decode(&self, board: CubeBoard, slot: u64, entry: u8) -> Result<Score, TableError> {
        let outcome = decode_outcome(entry, CELLS as u32 - board.stones(), slot)?;
        if outcome.wdl == Wdl::Draw || outcome.plies == 0 {
            return Err(TableError::Entry {
                slot,
                reason: format!("{outcome} is no value of a stored cube position"),
            });
        }
        Ok(outcome.score(board.stones()))
    }

    /// Forced play ([`Cube::resolve`]), then one lookup of the quiet
    /// position it reaches.
    fn settled_by_rules(&self, board: CubeBoard) -> bool {
        matches!(self.resolve(board), Resolved::Score(_))
    }

    fn table_score<D: TableData>(
        &self,
        table: &Table<D>,
        board: CubeBoard,
    ) -> Result<Score, TableError> {
        match self.resolve(board) {
            Resolved::Score(score) => Ok(score),
            Resolved::Quiet { quiet, negate } => {
                let canonical = self.canonical(quiet);
                let key = canonical.key();
                let entry = table.sorted_entry(key)?.ok_or_else(|| TableError::Entry {
                    slot: key,
                    reason: format!(
                        "quiet position {} is not in the table",
                        self.notation(canonical)
                    ),
                })?;
                let score = self.decode(canonical, key, entry)?;
                Ok(if negate { -score } else { score })
            }
        }
    }
}

#[cfg(test)]
mod tests;
