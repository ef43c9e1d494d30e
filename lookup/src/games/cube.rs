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

use std::collections::HashMap;
use std::fmt;
use std::time::Instant;

use crate::error::{Error, PositionError};
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

/// Cells on the board.
pub const CELLS: usize = 27;
const FULL: u32 = (1 << CELLS) - 1;
/// Number of winning lines.
pub const LINE_COUNT: usize = 49;
/// Number of symmetries of the cube.
pub const SYMMETRY_COUNT: usize = 48;

const fn cell(x: usize, y: usize, z: usize) -> usize {
    x + 3 * y + 9 * z
}

/// The 49 lines as cell masks: every triple `a, b, c` with `b - a = c - b`
/// as coordinate vectors, each found once from its lower end.
pub const LINES: [u32; LINE_COUNT] = {
    let mut lines = [0u32; LINE_COUNT];
    let mut count = 0;
    let mut a = 0;
    while a < CELLS {
        let (ax, ay, az) = ((a % 3) as i32, ((a / 3) % 3) as i32, (a / 9) as i32);
        let mut d = 0;
        // Directions (dx, dy, dz) in -1..=1, not zero, whose first non-zero
        // component is positive: each line is found once, from one end.
        while d < 27 {
            let (dx, dy, dz) = ((d % 3) - 1, ((d / 3) % 3) - 1, (d / 9) - 1);
            let positive = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
            let (cx, cy, cz) = (ax + 2 * dx, ay + 2 * dy, az + 2 * dz);
            if positive && cx >= 0 && cx < 3 && cy >= 0 && cy < 3 && cz >= 0 && cz < 3 {
                let b = cell((ax + dx) as usize, (ay + dy) as usize, (az + dz) as usize);
                let c = cell(cx as usize, cy as usize, cz as usize);
                lines[count] = 1 << a | 1 << b | 1 << c;
                count += 1;
            }
            d += 1;
        }
        a += 1;
    }
    assert!(count == LINE_COUNT);
    lines
};

/// Calls `f` with every line-free superset of `stones` that adds exactly `k`
/// cells of `available`, each set once; `stones` must be line-free.
///
/// This is the inner loop of the exhaustive check (~10^11 sets), so it keeps
/// the cells that would complete a line out of the candidates as it goes
/// ([`threats`]) and hands out the last cell without recursing.
pub fn for_each_line_free(stones: u32, available: u32, k: u32, f: &mut impl FnMut(u32)) {
    let candidates = available & !stones & !threats(stones, FULL & !stones);
    line_free_from(stones, candidates, k, f);
}

fn line_free_from(stones: u32, candidates: u32, k: u32, f: &mut impl FnMut(u32)) {
    match k {
        0 => f(stones),
        1 => {
            let mut rest = candidates;
            while rest != 0 {
                f(stones | rest & rest.wrapping_neg());
                rest &= rest - 1;
            }
        }
        _ => {
            let mut rest = candidates;
            while rest.count_ones() >= k {
                let with = stones | rest & rest.wrapping_neg();
                rest &= rest - 1;
                line_free_from(with, rest & !threats(with, rest), k - 1, f);
            }
        }
    }
}

const AXIS_PERMUTATIONS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// Cell maps of the 48 symmetries: `SYMMETRIES[s][c]` is where cell `c`
/// goes. Symmetry `s` permutes the axes by `AXIS_PERMUTATIONS[s / 8]`
/// (coordinate `i` of the image is coordinate `perm[i]` of the cell), then
/// mirrors axis `i` where bit `i` of `s % 8` is set. Index 0 is the identity.
pub const SYMMETRIES: [[u8; CELLS]; SYMMETRY_COUNT] = {
    let mut table = [[0u8; CELLS]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let perm = AXIS_PERMUTATIONS[s / 8];
        let mut c = 0;
        while c < CELLS {
            let coords = [c % 3, (c / 3) % 3, c / 9];
            let mut image = [coords[perm[0]], coords[perm[1]], coords[perm[2]]];
            let mut axis = 0;
            while axis < 3 {
                if (s % 8) >> axis & 1 != 0 {
                    image[axis] = 2 - image[axis];
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

/// `SYMMETRY_BYTES[s][k][v]`: the image under symmetry `s` of the cells in
/// byte `k` of a mask whose byte `k` is `v`. A mask's image is then four
/// lookups and three ORs, which makes canonicalisation (48 images of two
/// masks) cheap: it is the inner loop of building and checking tables.
static SYMMETRY_BYTES: [[[u32; 256]; 4]; SYMMETRY_COUNT] = {
    let mut table = [[[0u32; 256]; 4]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let mut k = 0;
        while k < 4 {
            let mut v = 0;
            while v < 256 {
                let mut image = 0u32;
                let mut bit = 0;
                while bit < 8 {
                    let c = 8 * k + bit;
                    if v >> bit & 1 != 0 && c < CELLS {
                        image |= 1 << SYMMETRIES[s][c];
                    }
                    bit += 1;
                }
                table[s][k][v] = image;
                v += 1;
            }
            k += 1;
        }
        s += 1;
    }
    table
};

/// The image of a cell mask under symmetry `s`.
#[inline]
fn image(s: usize, mask: u32) -> u32 {
    let t = &SYMMETRY_BYTES[s];
    t[0][(mask & 0xff) as usize]
        | t[1][(mask >> 8 & 0xff) as usize]
        | t[2][(mask >> 16 & 0xff) as usize]
        | t[3][(mask >> 24 & 0xff) as usize]
}

/// The lines by direction. In cell numbers every line is `m - k, m, m + k`
/// for its middle cell `m` and a step `k` that depends only on its direction,
/// and the 13 directions have the 13 distinct steps 1..=13. `MIDDLES[k - 1]`
/// holds the middle cells of the lines with step `k`, so shifting a mask by
/// `k` tests every line of a direction at once.
const MIDDLES: [u32; 13] = {
    let mut middles = [0u32; 13];
    let mut l = 0;
    while l < LINE_COUNT {
        let low = LINES[l].trailing_zeros();
        let high = 31 - LINES[l].leading_zeros();
        let middle = (LINES[l] & !(1 << low) & !(1 << high)).trailing_zeros();
        let step = middle - low;
        assert!(high - middle == step && step >= 1 && step <= 13);
        middles[step as usize - 1] |= 1 << middle;
        l += 1;
    }
    middles
};

/// Whether `stones` contain a whole line.
#[inline]
pub fn has_line(stones: u32) -> bool {
    let mut found = 0;
    for (i, &middles) in MIDDLES.iter().enumerate() {
        let k = i + 1;
        found |= stones & stones >> k & stones << k & middles;
    }
    found != 0
}

/// The empty cells that would complete a line of `stones`: two of the
/// line's cells are in `stones`, the third is in `empty`. Bit-parallel over
/// the lines of each direction (see `MIDDLES`): the missing cell is the
/// middle, the low end or the high end.
#[inline]
pub fn threats(stones: u32, empty: u32) -> u32 {
    let mut cells = 0;
    for (i, &middles) in MIDDLES.iter().enumerate() {
        let k = i + 1;
        let (up, down) = (stones >> k, stones << k);
        cells |= up & down & middles;
        cells |= up & stones >> (2 * k) & middles >> k;
        cells |= down & stones << (2 * k) & middles << k;
    }
    cells & empty
}

/// 3×3×3 tic-tac-toe. See the [module documentation](self).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Cube;

/// A cube position: one bit per cell for each player. X is to move when
/// both have as many stones, O otherwise.
///
/// Ordered by X's mask, then O's; [`Game::canonical`] is the least image.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CubeBoard {
    x: u32,
    o: u32,
}

impl CubeBoard {
    /// The cells X holds, bit `i` for cell `i`.
    pub fn x(self) -> u32 {
        self.x
    }

    /// The cells O holds, bit `i` for cell `i`.
    pub fn o(self) -> u32 {
        self.o
    }

    /// Stones on the board.
    pub fn stones(self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// The empty cells.
    pub fn empty(self) -> u32 {
        FULL & !(self.x | self.o)
    }

    /// Whether X is to move.
    pub fn x_to_move(self) -> bool {
        self.x.count_ones() == self.o.count_ones()
    }

    /// The stones of the side to move and of the other side.
    pub fn mover_and_other(self) -> (u32, u32) {
        if self.x_to_move() {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }

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
        let bit = 1 << cell;
        if self.x_to_move() {
            CubeBoard {
                x: self.x | bit,
                o: self.o,
            }
        } else {
            CubeBoard {
                x: self.x,
                o: self.o | bit,
            }
        }
    }

    /// Whether nobody threatens a cell: the only positions a table stores.
    pub fn is_quiet(self) -> bool {
        let empty = self.empty();
        threats(self.x, empty) == 0 && threats(self.o, empty) == 0
    }
}

/// A cell, `x + 3y + 9z`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CubeCell(u8);

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

/// Where forced play from a position leads ([`Cube::resolve`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The position's score is known from the rules.
    Score(Score),
    /// The position's score is the quiet position's score, negated if
    /// `negate` (an odd number of forced blocks lie between them).
    Quiet {
        /// The quiet position forced play reaches.
        quiet: CubeBoard,
        /// Whether the score changes sign on the way.
        negate: bool,
    },
}

impl Cube {
    /// `'X'` or `'O'`: whose turn it is (X moves first).
    pub fn to_move(self, board: CubeBoard) -> char {
        if board.x_to_move() { 'X' } else { 'O' }
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

    /// Follows forced play from a legal position until its score is known
    /// from the rules or a quiet position is reached: the side to move wins
    /// in 1 if it threatens a cell; otherwise it loses in 2 if the opponent
    /// threatens two or more cells, and must block if exactly one. Each step
    /// fills a cell, so this takes at most 27 steps.
    pub fn resolve(self, mut board: CubeBoard) -> Resolved {
        let mut negate = false;
        let signed = |score: Score, negate: bool| if negate { -score } else { score };
        loop {
            if let Some(score) = self.terminal_score(board) {
                return Resolved::Score(signed(score, negate));
            }
            let stones = board.stones() as Score;
            let empty = board.empty();
            let (mover, other) = board.mover_and_other();
            if threats(mover, empty) != 0 {
                return Resolved::Score(signed(WIN_SCORE - (stones + 1), negate));
            }
            let against = threats(other, empty);
            match against.count_ones() {
                0 => {
                    return Resolved::Quiet {
                        quiet: board,
                        negate,
                    };
                }
                1 => {
                    board = board.with_move(against.trailing_zeros());
                    negate = !negate;
                }
                _ => return Resolved::Score(signed(-(WIN_SCORE - (stones + 2)), negate)),
            }
        }
    }

    /// The score [`resolve`](Cube::resolve) gives, when forced play decides
    /// the position without a table; `0` for positions that reach a quiet
    /// one (test helper).
    #[cfg(test)]
    fn resolve_score(self, board: CubeBoard) -> Score {
        match self.resolve(board) {
            Resolved::Score(score) => score,
            Resolved::Quiet { .. } => 0,
        }
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

/// The cube's exact live solver, for positions without a table: forced
/// play ([`Cube::resolve`]: a threat wins, a double threat loses, a single
/// one must be blocked) settles most positions at once, and the quiet
/// positions it reaches are searched over every move and remembered by
/// canonical form. Quiet positions are few (the table holds them all, about
/// 10^5 up to symmetry), so even the empty cube is solved by visiting each
/// at most once. Keeps its memo between calls, so the moves of a position
/// cost little after the position.
#[derive(Debug)]
pub struct ForcedPlaySolver {
    memo: HashMap<u64, Score>,
    limits: SearchLimits,
    nodes: u64,
    deadline: Option<Instant>,
}

impl ForcedPlaySolver {
    /// A solver with an empty memo, within `limits` (nodes are quiet
    /// positions searched; `table_bytes` is not used: the memo holds at
    /// most the quiet positions).
    pub fn new(limits: SearchLimits) -> ForcedPlaySolver {
        ForcedPlaySolver {
            memo: HashMap::new(),
            limits,
            nodes: 0,
            deadline: None,
        }
    }

    fn solve(&mut self, board: CubeBoard) -> Result<Score, Error> {
        match Cube.resolve(board) {
            Resolved::Score(score) => Ok(score),
            Resolved::Quiet { quiet, negate } => {
                let score = self.quiet(quiet)?;
                Ok(if negate { -score } else { score })
            }
        }
    }

    fn quiet(&mut self, board: CubeBoard) -> Result<Score, Error> {
        let key = Cube.canonical(board).key();
        if let Some(&score) = self.memo.get(&key) {
            return Ok(score);
        }
        self.nodes += 1;
        if let Some(budget) = self.limits.nodes.filter(|&b| self.nodes > b) {
            return Err(Error::BudgetExhausted { budget });
        }
        if self.nodes & 0xff == 0 {
            self.limits.stop.poll()?;
        }
        if let (Some(deadline), Some(time)) = (self.deadline, self.limits.time) {
            if self.nodes & 0xff == 0 && Instant::now() > deadline {
                return Err(Error::TimeExhausted {
                    millis: time.as_millis() as u64,
                });
            }
        }
        let mut best = Score::MIN;
        for cell in Cube.moves(board) {
            let (child, transition) = Cube.play(board, cell);
            best = best.max(transition.backup(self.solve(child)?));
        }
        self.memo.insert(key, best);
        Ok(best)
    }
}

impl ExactSolver<CubeBoard> for ForcedPlaySolver {
    fn score(&mut self, board: CubeBoard) -> Result<Score, Error> {
        self.deadline = self.limits.time.map(|t| Instant::now() + t);
        self.solve(board)
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::testkit::{Rng, random_game};

    /// Every position of `games` random games, terminal ones included.
    fn random_positions(games: usize, seed: u64) -> Vec<CubeBoard> {
        let mut rng = Rng::new(seed);
        (0..games)
            .flat_map(|_| random_game(&Cube, &mut rng))
            .collect()
    }

    fn coords(c: u32) -> [i32; 3] {
        [(c % 3) as i32, (c / 3 % 3) as i32, (c / 9) as i32]
    }

    #[test]
    fn lines_are_every_straight_triple() {
        // All triples of distinct cells whose middle is the mean of the ends.
        let mut triples = HashSet::new();
        for a in 0..27 {
            for b in 0..27 {
                for c in a + 1..27 {
                    let (pa, pb, pc) = (coords(a), coords(b), coords(c));
                    if b != a && b != c && (0..3).all(|i| pa[i] + pc[i] == 2 * pb[i]) {
                        triples.insert(1u32 << a | 1 << b | 1 << c);
                    }
                }
            }
        }
        let lines: HashSet<u32> = LINES.iter().copied().collect();
        assert_eq!(lines.len(), 49);
        assert_eq!(lines, triples);
        // 27 along the axes, 18 plane diagonals, 4 space diagonals.
        let mut by_axes = [0; 4];
        for &line in &LINES {
            let cells: Vec<[i32; 3]> = (0..27).filter(|c| line >> c & 1 != 0).map(coords).collect();
            let varying = (0..3).filter(|&i| cells[0][i] != cells[1][i]).count();
            by_axes[varying] += 1;
        }
        assert_eq!(by_axes, [0, 27, 18, 4]);
    }

    #[test]
    fn bit_parallel_line_tests_match_line_by_line() {
        let mut rng = Rng::new(5);
        for _ in 0..20_000 {
            let a = rng.next_u64() as u32 & FULL;
            let b = rng.next_u64() as u32 & FULL & !a;
            // Sparse sets too, where lines are rare.
            let sparse = a & rng.next_u64() as u32;
            for stones in [a, sparse] {
                let empty = FULL & !stones & !b;
                let slow_line = LINES.iter().any(|&l| l & !stones == 0);
                let slow_threats = LINES
                    .iter()
                    .filter(|&&l| (l & !stones).count_ones() == 1 && l & !stones & empty != 0)
                    .fold(0, |acc, &l| acc | (l & !stones));
                assert_eq!(has_line(stones), slow_line, "{stones:#x}");
                assert_eq!(threats(stones, empty), slow_threats, "{stones:#x}");
            }
        }
    }

    #[test]
    fn line_free_supersets_are_every_one_once() {
        let mut rng = Rng::new(3);
        for _ in 0..40 {
            // A line-free start and a random pool of 14 other cells.
            let mut stones = 0;
            for _ in 0..4 {
                let c = rng.below(27) as u32;
                if !has_line(stones | 1 << c) {
                    stones |= 1 << c;
                }
            }
            let available = rng.next_u64() as u32 & FULL & !stones;
            for k in 0..5 {
                let mut found = Vec::new();
                for_each_line_free(stones, available, k, &mut |s| found.push(s));
                let mut expected = Vec::new();
                let pool: Vec<u32> = (0..27).filter(|c| available >> c & 1 != 0).collect();
                for subset in 0u64..1 << pool.len() {
                    if subset.count_ones() == k {
                        let add = pool
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| subset >> i & 1 != 0)
                            .fold(0, |a, (_, &c)| a | 1 << c);
                        if !has_line(stones | add) {
                            expected.push(stones | add);
                        }
                    }
                }
                found.sort_unstable();
                expected.sort_unstable();
                assert_eq!(found, expected, "k={k}");
            }
        }
    }

    #[test]
    fn symmetries_are_48_distinct_and_map_lines_onto_lines() {
        let lines: HashSet<u32> = LINES.iter().copied().collect();
        let mut seen = HashSet::new();
        assert_eq!(SYMMETRIES[0], std::array::from_fn(|c| c as u8));
        for map in &SYMMETRIES {
            assert!(seen.insert(*map), "duplicate symmetry");
            let cells: HashSet<u8> = map.iter().copied().collect();
            assert_eq!(cells.len(), 27, "not a permutation");
            let images: HashSet<u32> = LINES
                .iter()
                .map(|&l| {
                    (0..27)
                        .filter(|c| l >> c & 1 != 0)
                        .fold(0, |a, c| a | 1 << map[c])
                })
                .collect();
            assert_eq!(images, lines);
        }
        assert_eq!(seen.len(), 48);
        // The byte tables agree with the cell maps.
        let mut rng = Rng::new(7);
        for _ in 0..2000 {
            let mask = rng.next_u64() as u32 & FULL;
            for (s, map) in SYMMETRIES.iter().enumerate() {
                let slow = (0..27)
                    .filter(|c| mask >> c & 1 != 0)
                    .fold(0, |a, c| a | 1 << map[c]);
                assert_eq!(image(s, mask), slow);
            }
        }
    }

    #[test]
    fn canonical_is_the_least_image_and_the_same_for_every_image() {
        for board in random_positions(300, 11) {
            let canonical = Cube.canonical(board);
            let images: Vec<CubeBoard> = (0..48).map(|s| Cube.image(board, s)).collect();
            assert_eq!(Some(&canonical), images.iter().min());
            for image in images {
                assert_eq!(Cube.canonical(image), canonical);
                assert_eq!(image.is_quiet(), board.is_quiet());
            }
        }
    }

    #[test]
    fn notation_round_trips() {
        for board in random_positions(300, 12) {
            let text = Cube.notation(board);
            assert_eq!(Cube.parse(&text), Ok(board), "{text}");
            let single = text.replace("//", "/");
            assert_eq!(Cube.parse(&single), Ok(board), "{single}");
            let bare = text.replace('/', "");
            assert_eq!(Cube.parse(&bare), Ok(board), "{bare}");
        }
        for c in 0..27u8 {
            let cell = Cube.parse_move(&c.to_string()).unwrap();
            assert_eq!(cell.index(), c);
            assert_eq!(cell.to_string(), c.to_string());
        }
    }

    #[test]
    fn notation_errors_name_the_problem() {
        let c = Cube;
        let empty = ".".repeat(27);
        assert!(c.parse(&empty).is_ok());
        assert!(matches!(
            c.parse("X.."),
            Err(PositionError::Length {
                found: 3,
                expected: 27,
                ..
            })
        ));
        assert!(matches!(
            c.parse(&format!("{}Z{}", ".".repeat(5), ".".repeat(21))),
            Err(PositionError::Character {
                found: 'Z',
                at: 5,
                ..
            })
        ));
        assert!(matches!(
            c.parse(&format!("XX{}", ".".repeat(25))),
            Err(PositionError::Counts { x: 2, o: 0 })
        ));
        // X owns the row 0-1-2 and O the row 3-4-5.
        assert!(matches!(
            c.parse(&format!("XXXOOO{}", ".".repeat(21))),
            Err(PositionError::BothWin)
        ));
        // X owns a row, but O moved after it.
        assert!(matches!(
            c.parse(&format!("XXXOO.O{}", ".".repeat(20))),
            Err(PositionError::PlayAfterWin { winner: 'X' })
        ));
        // Slashes: only between rows, one between rows, at most two between layers.
        assert!(c.parse(".../.../...//.../.../...//.../.../...").is_ok());
        for bad in [
            "/.../.../...//.../.../...//.../.../...",
            "..././.../...//.../.../...//.../.../...",
            "...//.../...//.../.../...//.../.../...",
            ".../.../...///.../.../...//.../.../...",
            ".../.../...//.../.../...//.../.../.../",
        ] {
            assert!(
                matches!(
                    c.parse(bad),
                    Err(PositionError::Character { found: '/', .. })
                ),
                "{bad}"
            );
        }
        for bad in ["27", "-1", "x", ""] {
            assert!(
                matches!(c.parse_move(bad), Err(PositionError::BadMove { .. })),
                "{bad}"
            );
        }
        let p = c.play_notation(c.start(), "13").unwrap();
        assert!(matches!(
            c.play_notation(p, "13"),
            Err(PositionError::IllegalMove { .. })
        ));
    }

    #[test]
    fn arbitrary_text_is_parsed_or_refused_never_a_panic() {
        let mut rng = Rng::new(17);
        let alphabet = ['X', 'O', '.', '.', '.', '/', 'Z', ' ', 'é'];
        for _ in 0..50_000 {
            let len = rng.below(40) as usize;
            let text: String = (0..len).map(|_| *rng.pick(&alphabet)).collect();
            if let Ok(board) = Cube.parse(&text) {
                assert_eq!(Cube.parse(&Cube.notation(board)), Ok(board));
            }
        }
    }

    #[test]
    fn resolve_applies_the_forced_play_rules() {
        let c = Cube;
        // X to move with two on the row 0-1-2 (O threatens too): win in 1.
        let p = c.parse(&format!("XX.OO.O.X{}", ".".repeat(18))).unwrap();
        assert_eq!(c.to_move(p), 'X');
        assert_eq!(c.value(p, c.resolve_score(p)).to_string(), "win in 1");
        // O to move, X threatens cells 2 and 7 (0-1-2 and 1-4-7), O none: lost in 2.
        let p = c.parse(&format!("XX.OX.O..{}", ".".repeat(18))).unwrap();
        assert_eq!(c.to_move(p), 'O');
        assert_eq!(c.value(p, c.resolve_score(p)).to_string(), "loss in 2");
        // The quiet empty board stays where it is.
        assert_eq!(
            c.resolve(c.start()),
            Resolved::Quiet {
                quiet: c.start(),
                negate: false
            }
        );
        // Every position resolves to a known score or a quiet position, and
        // forced play never meets a terminal position it did not start at.
        for board in random_positions(300, 13) {
            match c.resolve(board) {
                Resolved::Score(_) => {}
                Resolved::Quiet { quiet, .. } => {
                    assert!(quiet.is_quiet() && c.terminal_score(quiet).is_none());
                    assert_eq!(quiet.x() & board.x(), board.x());
                    assert_eq!(quiet.o() & board.o(), board.o());
                }
            }
        }
    }
}
