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
//! 53(4), 1980; Allis and Schoo, "Qubic solved again", 1992), found by this
//! project's own [`prover`] and laid out as [`strategy`] says; positions
//! outside it are answered by the live solver, [`QubicSolver`].
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

pub mod prover;
mod solver;
pub mod strategy;
pub mod threats;

use std::fmt;
use std::sync::LazyLock;

pub use solver::{QubicSolver, Rules};
use strategy::{Settled, Strategy};

use crate::error::PositionError;
use crate::format::{GameId, IndexScheme, TableError, ValueEncoding, encode_outcome};
use crate::format::{Table, TableData};
use crate::game::{ExactSolver, Game, Probed, SearchLimits, Tabled, check_notation_length};
use crate::games::check_reachable;
use crate::games::stones::{Layout, least_image, renumbering};
use crate::value::{Outcome, Score, Transition, WIN_SCORE};

/// How Qubic is written.
const LAYOUT: Layout = Layout {
    game: "qubic",
    cells: CELLS,
    row: SIDE,
    layer: SIDE * SIDE,
    expected: "'X', 'O', '.' (one '/' between rows, one or two between layers)",
    moves: "qubic moves are cells 0-63, 16z + 4y + x",
};

/// Cells on the board.
pub const CELLS: usize = 64;
const SIDE: usize = 4;
/// Every cell.
const FULL: u64 = u64::MAX;
/// Number of winning lines.
pub const LINE_COUNT: usize = 76;
/// Number of symmetries (see [`SYMMETRIES`]).
pub const SYMMETRY_COUNT: usize = 192;

const fn cell(x: usize, y: usize, z: usize) -> usize {
    x + SIDE * y + SIDE * SIDE * z
}

const fn coords(c: usize) -> [usize; 3] {
    [c % SIDE, (c / SIDE) % SIDE, c / (SIDE * SIDE)]
}

/// The 76 lines as cell masks. A line of four on a side of four spans the
/// board in every direction it moves in, so each direction `(dx, dy, dz)`
/// in `-1..=1` (not zero; the first non-zero component positive, so each
/// line is found once) gives one line from every cell `a` for which
/// `a + 3d` is still on the board.
pub const LINES: [u64; LINE_COUNT] = {
    let mut lines = [0u64; LINE_COUNT];
    let mut count = 0;
    let mut a = 0;
    while a < CELLS {
        let [ax, ay, az] = coords(a);
        let (ax, ay, az) = (ax as i32, ay as i32, az as i32);
        let mut d = 0;
        while d < 27 {
            let (dx, dy, dz) = ((d % 3) - 1, ((d / 3) % 3) - 1, (d / 9) - 1);
            let positive = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
            let (ex, ey, ez) = (ax + 3 * dx, ay + 3 * dy, az + 3 * dz);
            let side = SIDE as i32;
            if positive && ex >= 0 && ex < side && ey >= 0 && ey < side && ez >= 0 && ez < side {
                let mut line = 0u64;
                let mut k = 0;
                while k < 4 {
                    let c = cell(
                        (ax + k * dx) as usize,
                        (ay + k * dy) as usize,
                        (az + k * dz) as usize,
                    );
                    line |= 1 << c;
                    k += 1;
                }
                lines[count] = line;
                count += 1;
            }
            d += 1;
        }
        a += 1;
    }
    assert!(count == LINE_COUNT);
    lines
};

/// Number of directions lines run in: 3 axes, 6 plane diagonals, 4 space
/// diagonals.
const DIRECTION_COUNT: usize = 13;

/// The lines by direction. In cell numbers a line is `s, s + k, s + 2k,
/// s + 3k` from its lowest cell `s`, for a step `k` that depends only on its
/// direction, and the 13 directions have 13 distinct steps (1, 3, 4, 5, 11,
/// 12, 13, 15, 16, 17, 19, 20, 21). `DIRECTIONS[i] = (k, starts)`, `starts`
/// the lowest cells of that direction's lines: shifting a mask by `k`,
/// `2k` and `3k` lines up the cells of every line of the direction at
/// their start, so one word operation tests them all.
const DIRECTIONS: [(u32, u64); DIRECTION_COUNT] = {
    let mut directions = [(0u32, 0u64); DIRECTION_COUNT];
    let mut found = 0;
    let mut l = 0;
    while l < LINE_COUNT {
        let line = LINES[l];
        let low = line.trailing_zeros();
        let step = (line & !(1 << low)).trailing_zeros() - low;
        assert!(
            line == 1 << low | 1 << (low + step) | 1 << (low + 2 * step) | 1 << (low + 3 * step)
        );
        let mut i = 0;
        while i < found && directions[i].0 != step {
            i += 1;
        }
        if i == found {
            directions[i].0 = step;
            found += 1;
        }
        directions[i].1 |= 1 << low;
        l += 1;
    }
    assert!(found == DIRECTION_COUNT);
    directions
};

/// Whether `stones` contain a whole line.
#[inline]
pub fn has_line(stones: u64) -> bool {
    let mut found = 0;
    for &(k, starts) in &DIRECTIONS {
        found |= stones & stones >> k & stones >> (2 * k) & stones >> (3 * k) & starts;
    }
    found != 0
}

/// What the lines say about one player's stones: the cells that would
/// complete a line, that would make a line three strong, and that would do
/// that twice at once.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineCells {
    /// Empty cells that complete a line of the player: the line's other
    /// three cells are the player's.
    pub threats: u64,
    /// Empty cells of lines with exactly two of the player's stones and two
    /// empty cells: playing one makes a threat at the other.
    pub pairs: u64,
    /// Empty cells on two or more such lines: playing one makes two threats
    /// at two different cells (two lines meet in at most one cell), a win
    /// in three unless the opponent wins first.
    pub forks: u64,
    /// Empty cells on lines without the opponent's stones: the only cells
    /// where a stone of the player can still help it complete a line.
    pub live: u64,
}

/// [`LineCells`] of `stones` against the opponent's `blockers` (disjoint),
/// bit-parallel over each direction's lines (see `DIRECTIONS`): the four
/// cells of every line of a direction are added up at the line's start
/// with a carry-save adder, then spread back to the empty cells. This is
/// the live solver's inner loop, twice per position; against a loop over
/// the 76 lines with two popcounts each it took the same time on
/// positions with 28 to 44 stones and 25% less on positions with 8 and 12
/// (`qubic_search`, the same nodes).
#[inline]
pub(crate) fn line_cells(stones: u64, blockers: u64) -> LineCells {
    let empty = !(stones | blockers);
    let (mut threats, mut pairs, mut forks, mut live) = (0, 0, 0, 0);
    for &(k, starts) in &DIRECTIONS {
        let (s0, s1, s2, s3) = (stones, stones >> k, stones >> (2 * k), stones >> (3 * k));
        let blocked = blockers | blockers >> k | blockers >> (2 * k) | blockers >> (3 * k);
        let open = starts & !blocked;
        // The count of s0..s3 in binary: `odd` its bit 0, `twos` its bit 1
        // (a count of 4 has neither).
        let (x01, a01, x23, a23) = (s0 ^ s1, s0 & s1, s2 ^ s3, s2 & s3);
        let odd = x01 ^ x23;
        let twos = a01 ^ a23 ^ (x01 & x23);
        let three = open & odd & twos;
        let two = open & !odd & twos;
        threats |= (three | three << k | three << (2 * k) | three << (3 * k)) & empty;
        // A cell lies on at most one line of each direction.
        let pair = (two | two << k | two << (2 * k) | two << (3 * k)) & empty;
        forks |= pairs & pair;
        pairs |= pair;
        live |= open | open << k | open << (2 * k) | open << (3 * k);
    }
    LineCells {
        threats,
        pairs,
        forks,
        live: live & empty,
    }
}

/// The empty cells (of `empty`) that would complete a line of `stones`.
#[inline]
pub fn threats(stones: u64, empty: u64) -> u64 {
    line_cells(stones, !(stones | empty)).threats & empty
}

/// `LINES_THROUGH[c]`: the lines through cell `c` (indices into [`LINES`]),
/// `LINE_DEGREE[c]` of them: 7 through the 8 corners and the 8 centre cells
/// (three axes, three plane diagonals, one space diagonal), 4 through the
/// other 48.
pub(crate) const LINES_THROUGH: [[u8; 7]; CELLS] = {
    let mut through = [[0u8; 7]; CELLS];
    let mut degree = [0usize; CELLS];
    let mut l = 0;
    while l < LINE_COUNT {
        let mut c = 0;
        while c < CELLS {
            if LINES[l] >> c & 1 != 0 {
                through[c][degree[c]] = l as u8;
                degree[c] += 1;
            }
            c += 1;
        }
        l += 1;
    }
    through
};

/// Lines through each cell (see `LINES_THROUGH`).
pub(crate) const LINE_DEGREE: [u8; CELLS] = {
    let mut degree = [0u8; CELLS];
    let mut l = 0;
    while l < LINE_COUNT {
        let mut c = 0;
        while c < CELLS {
            if LINES[l] >> c & 1 != 0 {
                degree[c] += 1;
            }
            c += 1;
        }
        l += 1;
    }
    degree
};

const AXIS_PERMUTATIONS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// The renumbering of coordinates (`0..4`) that symmetry `s` applies to all
/// three axes first: [`renumbering`] `s / 48` (which turns the board inside
/// out for `s / 48 ≥ 2`: corners to centre cells).
const fn inner(s: usize, i: usize) -> usize {
    renumbering(s / 48, i)
}

/// Cell maps of the 192 symmetries: `SYMMETRIES[s][c]` is where cell `c`
/// goes. Symmetry `s` renumbers the coordinates of all three axes by
/// `inner(s)` (one of four maps, by `s / 48`), then applies the cube
/// symmetry `s % 48`: it permutes the axes by `AXIS_PERMUTATIONS[s % 48 /
/// 8]` (coordinate `i` of the image is coordinate `perm[i]` of the cell) and
/// mirrors axis `i` (`i ↦ 3 − i`) where bit `i` of `s % 8` is set. Index 0
/// is the identity.
///
/// # How the group was found
///
/// A map that renumbers all three coordinates by one permutation `p` of
/// `0..4` sends the line `(a, t, 3 − t)` (a fixed, a rising and a falling
/// coordinate, `t = 0..3`) to `(p(a), p(t), p(3 − t))`; if `p` commutes with
/// `r: i ↦ 3 − i` that is `(p(a), u, 3 − u)` for `u = p(t)`, a line again,
/// and likewise for every other kind of line. The permutations of `0..4`
/// that commute with `r` are the 8 symmetries of a square with corners
/// `0 1 3 2` in order; two of them, the identity and `r` itself, are also
/// cube symmetries (`r` on all axes at once is the point reflection), so
/// with the cube's 48 they make 48 · 8 / 2 = 192 maps, one for each of four
/// cosets, represented by `inner` above. That these are *all* the line
/// preserving permutations of the 64 cells, and no fewer, is not argued
/// but proved by a unit test, an exhaustive backtracking search over every
/// permutation of the cells
/// (`the_symmetries_are_exactly_the_permutations_that_keep_lines`): it
/// finds exactly these 192.
pub const SYMMETRIES: [[u8; CELLS]; SYMMETRY_COUNT] = {
    let mut table = [[0u8; CELLS]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let cube = s % 48;
        let perm = AXIS_PERMUTATIONS[cube / 8];
        let mut c = 0;
        while c < CELLS {
            let [x, y, z] = coords(c);
            let renumbered = [inner(s, x), inner(s, y), inner(s, z)];
            let mut image = [
                renumbered[perm[0]],
                renumbered[perm[1]],
                renumbered[perm[2]],
            ];
            let mut axis = 0;
            while axis < 3 {
                if (cube % 8) >> axis & 1 != 0 {
                    image[axis] = SIDE - 1 - image[axis];
                }
                axis += 1;
            }
            table[s][c] = cell(image[0], image[1], image[2]) as u8;
            c += 1;
        }
        s += 1;
    }
    table
};

/// The mask images of one symmetry: `bytes[k][v]` is the image of the cells
/// in byte `k` of a mask whose byte `k` is `v`. A mask's image is then eight
/// lookups and seven ORs.
type MaskImages = [[u64; 256]; 8];

/// [`MaskImages`] of every symmetry, 3 MiB. Built on first use rather than
/// at compile time: as a constant it would add 3 MiB to every binary that
/// links the library (the C library and the Python module too), while
/// building it takes about a millisecond.
static SYMMETRY_BYTES: LazyLock<Box<[MaskImages]>> = LazyLock::new(|| {
    SYMMETRIES
        .iter()
        .map(|map| {
            let mut bytes = [[0u64; 256]; 8];
            for (k, table) in bytes.iter_mut().enumerate() {
                // Each value adds its lowest cell to the value without it.
                for v in 1..256 {
                    let low = (v as u32).trailing_zeros() as usize;
                    table[v] = table[v & (v - 1)] | 1 << map[8 * k + low];
                }
            }
            bytes
        })
        .collect()
});

/// The image of a cell mask under one symmetry's [`MaskImages`].
#[inline]
fn image_with(bytes: &MaskImages, mask: u64) -> u64 {
    let b = mask.to_le_bytes();
    bytes[0][usize::from(b[0])]
        | bytes[1][usize::from(b[1])]
        | bytes[2][usize::from(b[2])]
        | bytes[3][usize::from(b[3])]
        | bytes[4][usize::from(b[4])]
        | bytes[5][usize::from(b[5])]
        | bytes[6][usize::from(b[6])]
        | bytes[7][usize::from(b[7])]
}

/// The image of a cell mask under symmetry `s`.
///
/// # Panics
///
/// If `s >= 192`.
pub fn mask_image(s: usize, mask: u64) -> u64 {
    image_with(&SYMMETRY_BYTES[s], mask)
}

/// `INVERSES[s]`: the cell map of the inverse of symmetry `s`
/// (`INVERSES[s][SYMMETRIES[s][c]] == c`).
pub static INVERSES: LazyLock<Box<[[u8; CELLS]]>> = LazyLock::new(|| {
    SYMMETRIES
        .iter()
        .map(|map| {
            let mut inverse = [0u8; CELLS];
            for (c, &image) in map.iter().enumerate() {
                inverse[usize::from(image)] = c as u8;
            }
            inverse
        })
        .collect()
});

/// The least image of a board (X's mask first, then O's) and a symmetry
/// that maps the board onto it: [`Game::canonical`] with its witness, so
/// that a move found on the canonical board maps back
/// ([`INVERSES`]`[s]`).
pub fn canonical_with_symmetry(board: QubicBoard) -> (QubicBoard, usize) {
    let bytes = &*SYMMETRY_BYTES;
    let mut best = (board.x, board.o, 0);
    for (s, images) in bytes.iter().enumerate().skip(1) {
        let ix = image_with(images, board.x);
        if ix > best.0 {
            continue;
        }
        let io = image_with(images, board.o);
        if ix < best.0 || io < best.1 {
            best = (ix, io, s);
        }
    }
    (
        QubicBoard {
            x: best.0,
            o: best.1,
        },
        best.2,
    )
}

/// Qubic, 4×4×4 tic-tac-toe. See the [module documentation](self).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Qubic;

/// A Qubic position: one bit per cell for each player. X is to move when
/// both have as many stones, O otherwise.
///
/// Ordered by X's mask, then O's; [`Game::canonical`] is the least image.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QubicBoard {
    x: u64,
    o: u64,
}

impl QubicBoard {
    /// The cells X holds, bit `i` for cell `i`.
    pub fn x(self) -> u64 {
        self.x
    }

    /// The cells O holds, bit `i` for cell `i`.
    pub fn o(self) -> u64 {
        self.o
    }

    /// Stones on the board.
    pub fn stones(self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// The empty cells.
    pub fn empty(self) -> u64 {
        FULL & !(self.x | self.o)
    }

    /// Whether X is to move.
    pub fn x_to_move(self) -> bool {
        self.x.count_ones() == self.o.count_ones()
    }

    /// The stones of the side to move and of the other side.
    pub fn mover_and_other(self) -> (u64, u64) {
        if self.x_to_move() {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }

    /// The board after the side to move takes `cell` (which must be empty).
    #[inline]
    pub fn with_move(self, cell: QubicCell) -> QubicBoard {
        let bit = 1u64 << cell.0;
        if self.x_to_move() {
            QubicBoard {
                x: self.x | bit,
                o: self.o,
            }
        } else {
            QubicBoard {
                x: self.x,
                o: self.o | bit,
            }
        }
    }
}

/// A cell, `16z + 4y + x`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QubicCell(u8);

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

impl Qubic {
    /// `'X'` or `'O'`: whose turn it is (X moves first).
    pub fn to_move(self, board: QubicBoard) -> char {
        if board.x_to_move() { 'X' } else { 'O' }
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
        let (x, o) = LAYOUT.parse_cells(text)?;
        check_reachable(x, o, has_line)?;
        Ok(QubicBoard { x, o })
    }

    fn notation(&self, board: QubicBoard) -> String {
        LAYOUT.write_cells(board.x, board.o)
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
        let mark = |c: usize| {
            let bit = 1u64 << c;
            if board.x & bit != 0 {
                " X".to_owned()
            } else if board.o & bit != 0 {
                " O".to_owned()
            } else {
                format!("{c:>2}")
            }
        };
        let heads: Vec<String> = (0..SIDE)
            .map(|z| format!("{:^11}", format!("z={z}")))
            .collect();
        let mut lines = vec![heads.join("     ").trim_end().to_owned()];
        for y in 0..SIDE {
            let layers: Vec<String> = (0..SIDE)
                .map(|z| {
                    (0..SIDE)
                        .map(|x| mark(cell(x, y, z)))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            lines.push(layers.join("  |  "));
        }
        lines.join("\n")
    }

    fn parse_move(&self, text: &str) -> Result<QubicCell, PositionError> {
        Ok(QubicCell(LAYOUT.parse_cell(text)?))
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

/// Qubic's table is the first player's winning strategy ([`strategy`]):
/// it covers the positions the strategy reaches, X's with the strategy's
/// move and a bound on the plies to the win, O's through their moves; every
/// other position is searched. Values from it are wins and losses "in at
/// most N plies" (`Probed::at_most`), exact only for a line completed at
/// once.
impl Tabled for Qubic {
    const INDEX: IndexScheme = IndexScheme::SortedWideKeys;
    const VALUES: ValueEncoding = ValueEncoding::StrategyMoves;

    /// The key space does not fit a `u64` (keys are 128 bits,
    /// [`strategy::key`]): the largest `u64`, which no dense check uses.
    fn slots(&self) -> u64 {
        u64::MAX
    }

    /// X's mask: the high half of the key ([`strategy::key`] is the whole
    /// key), for messages.
    fn slot(&self, board: QubicBoard) -> u64 {
        board.x
    }

    /// A slot (half a key) names no board.
    fn position_at(&self, _slot: u64) -> Option<QubicBoard> {
        None
    }

    /// Entries of a Qubic table are records of two bytes
    /// ([`strategy::encode_record`]), not outcome bytes; this is the
    /// family's outcome byte, for the generic code that asks.
    fn encode(&self, board: QubicBoard, score: Score) -> u8 {
        encode_outcome(self.value(board, score))
    }

    /// Refuses every single entry byte: a Qubic record is two bytes, read
    /// by [`table_probe`](Tabled::table_probe).
    fn decode(&self, _board: QubicBoard, slot: u64, _entry: u8) -> Result<Score, TableError> {
        Err(TableError::Entry {
            slot,
            reason: "qubic records are two bytes, read through the strategy".into(),
        })
    }

    /// The strategy's value: see [`strategy`]. A position it does not
    /// cover is an error here; [`table_probe`](Tabled::table_probe) says
    /// `None` instead, and the oracle searches it.
    fn table_score<D: TableData>(
        &self,
        table: &Table<D>,
        board: QubicBoard,
    ) -> Result<Score, TableError> {
        self.table_probe(table, board)?
            .map(|probed| probed.score)
            .ok_or_else(|| TableError::Entry {
                slot: board.x,
                reason: format!("{} is not a position of the strategy", self.notation(board)),
            })
    }

    fn table_probe<D: TableData>(
        &self,
        table: &Table<D>,
        board: QubicBoard,
    ) -> Result<Option<Probed>, TableError> {
        if let Some(score) = self.terminal_score(board) {
            return Ok(Some(Probed {
                score,
                at_most: false,
                by_rules: true,
            }));
        }
        let stones = board.stones() as Score;
        let mut strategy = Strategy::new(table);
        if board.x_to_move() {
            Ok(strategy.x_move(board)?.map(|m| Probed {
                score: WIN_SCORE - (stones + Score::from(m.plies)),
                at_most: m.settled != Settled::Immediate,
                by_rules: m.settled != Settled::Record,
            }))
        } else {
            Ok(strategy.o_bound(board)?.map(|(plies, by_rules)| Probed {
                score: -(WIN_SCORE - (stones + Score::from(plies))),
                // Every move lets X complete a line at once: exact.
                at_most: plies > 2,
                by_rules,
            }))
        }
    }
}

#[cfg(test)]
mod tests;
