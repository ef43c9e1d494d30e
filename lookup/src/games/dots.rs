//! Dots-and-boxes on a board of `rows` × `cols` boxes.
//!
//! # Edges
//!
//! A board of `m` × `n` boxes has `(m+1)·n` horizontal and `m·(n+1)` vertical
//! edges. Dots are at `(r, c)`, `0 ≤ r ≤ m`, `0 ≤ c ≤ n`, row 0 at the top.
//!
//! - `h r,c` (`0 ≤ r ≤ m`, `0 ≤ c < n`) joins dots `(r, c)` and `(r, c+1)`:
//!   the top of box `(r, c)` and the bottom of box `(r-1, c)`.
//! - `v r,c` (`0 ≤ r < m`, `0 ≤ c ≤ n`) joins dots `(r, c)` and `(r+1, c)`:
//!   the left of box `(r, c)` and the right of box `(r, c-1)`.
//!
//! Edges are numbered horizontal first, row by row from the top and left to
//! right within a row (`h r,c` is number `r·n + c`), then vertical, row by
//! row (`v r,c` is number `(m+1)·n + r·(n+1) + c`). A position is the set of
//! drawn edges, bit `i` of an [`Edges`] mask for edge `i`.
//!
//! # Notation
//!
//! A position is written `MxN:` followed by either one `0`/`1` per edge in
//! edge-number order (`1x1:1010` has the top and left edge of the one box
//! drawn), or a list of moves separated by spaces or `;` (`1x1:h0,0 v0,0`; an
//! empty list is the empty board). A move is written `h2,1` or `v0,3`, as in
//! the list above. [`Game::notation`] writes the `0`/`1` form.
//!
//! # Values
//!
//! Whose turn it is does not matter: the value of a set of edges for the
//! player to move is the net number of the still unclaimed boxes that player
//! wins under perfect play (a [`Margin`]), whatever the score so far. A move
//! that completes `k > 0` boxes scores `k` and the same player moves again
//! ([`Transition`] with `same_mover`); any other move passes the turn.
//!
//! ```
//! use solvedb_lookup::{Dots, Game};
//!
//! let board = Dots::new(1, 1)?;
//! let p = board.parse("1x1:h0,0 v0,0 h1,0")?;
//! assert_eq!(board.notation(p), "1x1:1110");
//! let (_, transition) = board.play(p, board.parse_move("v0,1")?);
//! assert_eq!(transition.gain, 1);
//! # Ok::<(), solvedb_lookup::PositionError>(())
//! ```

mod endgame;

use std::fmt;
use std::sync::OnceLock;

pub use endgame::{Analysis, EndgameSolver, MoveBounds, Rules};

use crate::error::PositionError;
use crate::format::{
    GameId, IndexScheme, Table, TableData, TableError, ValueEncoding, decode_boxes_won,
    encode_boxes_won,
};
use crate::game::{ExactSolver, Game, SearchLimits, Tabled};
use crate::rng::Rng;
use crate::value::{Margin, Score, Transition};

/// The most edges a board may have: positions are `u64` masks, and a table's
/// slot count `2^edges` must fit a `u64`.
pub const MAX_EDGES: u32 = 63;

/// One more than the longest side a board of at most [`MAX_EDGES`] edges
/// can have (1×20 has 61 edges).
const SIDES: usize = 21;

/// A dots-and-boxes board of `rows` × `cols` boxes. See the
/// [module documentation](self).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dots {
    rows: u8,
    cols: u8,
}

/// The drawn edges of a position, bit `i` for edge `i` (see the
/// [module documentation](self) for the numbering). Ordered as numbers; the
/// canonical form of a position is its least symmetric image.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edges(pub u64);

impl Edges {
    /// The mask of drawn edges.
    pub fn mask(self) -> u64 {
        self.0
    }

    /// Edges drawn.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }
}

/// One edge, named by its orientation and coordinates (see the
/// [module documentation](self)): `h2,1` or `v0,3`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edge {
    /// Horizontal (`h`) or vertical (`v`).
    pub horizontal: bool,
    /// Row of dots (`h`) or of boxes (`v`).
    pub row: u8,
    /// Column of boxes (`h`) or of dots (`v`).
    pub col: u8,
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.horizontal { 'h' } else { 'v' };
        write!(f, "{kind}{},{}", self.row, self.col)
    }
}

impl Dots {
    /// A board of `rows` × `cols` boxes.
    ///
    /// # Errors
    ///
    /// [`PositionError::Board`] if a side is 0 or the board has more than
    /// [`MAX_EDGES`] edges.
    pub fn new(rows: u8, cols: u8) -> Result<Dots, PositionError> {
        let bad = |reason: String| PositionError::Board {
            input: format!("{rows}x{cols}"),
            reason,
        };
        if rows == 0 || cols == 0 {
            return Err(bad("a board needs at least one row and one column".into()));
        }
        let edges = edge_count(u32::from(rows), u32::from(cols));
        if edges > MAX_EDGES {
            return Err(bad(format!(
                "it has {edges} edges; at most {MAX_EDGES} are supported (5x5 has 60)"
            )));
        }
        Ok(Dots { rows, cols })
    }

    /// The board a [`GameId::Dots`] names.
    ///
    /// # Errors
    ///
    /// As [`Dots::new`], and [`PositionError::Board`] for other games.
    pub fn from_id(id: GameId) -> Result<Dots, PositionError> {
        match id {
            GameId::Dots { rows, cols } => Dots::new(rows, cols),
            other => Err(PositionError::Board {
                input: other.to_string(),
                reason: "not a dots-and-boxes board".into(),
            }),
        }
    }

    /// Rows of boxes.
    pub fn rows(self) -> u32 {
        u32::from(self.rows)
    }

    /// Columns of boxes.
    pub fn cols(self) -> u32 {
        u32::from(self.cols)
    }

    /// Edges on the board.
    pub fn edges(self) -> u32 {
        edge_count(self.rows(), self.cols())
    }

    /// Boxes on the board.
    pub fn boxes(self) -> u32 {
        self.rows() * self.cols()
    }

    /// The mask with every edge drawn.
    pub fn full(self) -> u64 {
        (1u64 << self.edges()) - 1
    }

    /// Horizontal edges (they are numbered first).
    fn horizontal_edges(self) -> u32 {
        (self.rows() + 1) * self.cols()
    }

    /// The number of `h r,c`.
    fn h(self, r: u32, c: u32) -> u32 {
        r * self.cols() + c
    }

    /// The number of `v r,c`.
    fn v(self, r: u32, c: u32) -> u32 {
        self.horizontal_edges() + r * (self.cols() + 1) + c
    }

    /// The four edges of box `(r, c)`.
    pub fn box_mask(self, r: u32, c: u32) -> u64 {
        1 << self.h(r, c) | 1 << self.h(r + 1, c) | 1 << self.v(r, c) | 1 << self.v(r, c + 1)
    }

    /// The boxes (row, column) on either side of edge `edge`: one on the
    /// border, two inside.
    pub fn boxes_of(self, edge: u32) -> impl Iterator<Item = (u32, u32)> {
        let named = self.edge(edge);
        let (r, c) = (u32::from(named.row), u32::from(named.col));
        let (first, second) = if named.horizontal {
            (
                r.checked_sub(1).map(|r| (r, c)),
                (r < self.rows()).then_some((r, c)),
            )
        } else {
            (
                c.checked_sub(1).map(|c| (r, c)),
                (c < self.cols()).then_some((r, c)),
            )
        };
        first.into_iter().chain(second)
    }

    /// The number of `edge` (which must be on this board).
    pub fn edge_index(self, edge: Edge) -> u32 {
        let (r, c) = (u32::from(edge.row), u32::from(edge.col));
        if edge.horizontal {
            self.h(r, c)
        } else {
            self.v(r, c)
        }
    }

    /// The edge with number `edge` (`edge < self.edges()`).
    pub fn edge(self, edge: u32) -> Edge {
        let horizontals = self.horizontal_edges();
        if edge < horizontals {
            Edge {
                horizontal: true,
                row: (edge / self.cols()) as u8,
                col: (edge % self.cols()) as u8,
            }
        } else {
            let e = edge - horizontals;
            Edge {
                horizontal: false,
                row: (e / (self.cols() + 1)) as u8,
                col: (e % (self.cols() + 1)) as u8,
            }
        }
    }

    /// Boxes whose four edges are all drawn.
    pub fn completed_boxes(self, mask: u64) -> u32 {
        self.shared_captures().completed_boxes(mask)
    }

    /// Boxes not yet completed: what the margin of a position is counted in.
    pub fn remaining_boxes(self, mask: u64) -> u32 {
        self.boxes() - self.completed_boxes(mask)
    }

    /// Draws edge `edge` (not yet drawn in `mask`): the new mask and the
    /// number of boxes the edge completes.
    pub fn draw(self, mask: u64, edge: u32) -> (u64, u32) {
        let next = mask | 1 << edge;
        let gain = self
            .boxes_of(edge)
            .filter(|&(r, c)| {
                let b = self.box_mask(r, c);
                next & b == b
            })
            .count() as u32;
        (next, gain)
    }

    /// Whether the board is square, with 8 symmetries instead of 4.
    fn square(self) -> bool {
        self.rows == self.cols
    }

    /// Where symmetry `s` maps edge `edge`. Symmetry `s` transposes if
    /// `s & 4` (square boards only), then mirrors top and bottom if `s & 1`
    /// and left and right if `s & 2`; `0` is the identity.
    pub fn edge_image(self, s: usize, edge: u32) -> u32 {
        let Edge {
            mut horizontal,
            row,
            col,
        } = self.edge(edge);
        let (mut r, mut c) = (u32::from(row), u32::from(col));
        let (m, n) = (self.rows(), self.cols());
        if s & 4 != 0 {
            // Transposing swaps the dots (r, c) and (c, r): h r,c joins
            // (r, c)-(r, c+1), whose image (c, r)-(c+1, r) is v c,r.
            horizontal = !horizontal;
            (r, c) = (c, r);
        }
        if s & 1 != 0 {
            r = if horizontal { m - r } else { m - 1 - r };
        }
        if s & 2 != 0 {
            c = if horizontal { n - 1 - c } else { n - c };
        }
        if horizontal {
            self.h(r, c)
        } else {
            self.v(r, c)
        }
    }

    /// Byte-wise lookup tables for this board's symmetries, for code that
    /// canonicalises many positions.
    pub fn symmetries(self) -> EdgeSymmetries {
        let count = self.symmetry_count();
        let bytes = self.edges().div_ceil(8) as usize;
        let mut tables = vec![[0u64; 256]; count * bytes];
        for s in 0..count {
            for byte in 0..bytes {
                let table = &mut tables[s * bytes + byte];
                for (value, image) in table.iter_mut().enumerate() {
                    for bit in 0..8 {
                        let edge = (byte * 8 + bit) as u32;
                        if value & 1 << bit != 0 && edge < self.edges() {
                            *image |= 1 << self.edge_image(s, edge);
                        }
                    }
                }
            }
        }
        EdgeSymmetries {
            count,
            bytes,
            tables,
        }
    }

    /// This board's symmetry tables, built once per board size in the
    /// process and shared (boards are small `Copy` values without them).
    pub fn shared_symmetries(self) -> &'static EdgeSymmetries {
        static TABLES: [OnceLock<EdgeSymmetries>; SIDES * SIDES] =
            [const { OnceLock::new() }; SIDES * SIDES];
        let at = usize::from(self.rows) * SIDES + usize::from(self.cols);
        TABLES[at].get_or_init(|| self.symmetries())
    }

    /// This board's capture masks, built once per board size in the
    /// process and shared, like [`Dots::shared_symmetries`].
    pub fn shared_captures(self) -> &'static CaptureMasks {
        static MASKS: [OnceLock<CaptureMasks>; SIDES * SIDES] =
            [const { OnceLock::new() }; SIDES * SIDES];
        let at = usize::from(self.rows) * SIDES + usize::from(self.cols);
        MASKS[at].get_or_init(|| CaptureMasks::new(self))
    }

    /// A *free capture* in `mask`, if there is one: an edge that completes a
    /// box without giving a third side to any other box (the box across it
    /// is absent, has at most one side drawn, or is completed too), and the
    /// boxes it completes. Taking it is an optimal move, so the position is
    /// worth `gain` plus the value of the position after it — the rule the
    /// [`EndgameSolver`] plays without branching (Berlekamp, *The Dots and
    /// Boxes Game*, 2000, ch. 1-2; Barker & Korf, "Solving Dots-And-Boxes",
    /// AAAI 2012), and the reason a table need not store such a position
    /// ([`ValueEncoding::MarginResolved`]). The first such box in box order
    /// (row by row) is taken, its one undrawn edge returned.
    #[inline]
    pub fn free_capture(self, mask: u64) -> Option<(u32, Score)> {
        self.shared_captures().free_capture(mask)
    }

    /// `mask` after every free capture ([`Dots::free_capture`]) in turn,
    /// and the boxes they took: the position a table entry is read from.
    #[inline]
    pub fn take_free_captures(self, mask: u64) -> (u64, Score) {
        let captures = self.shared_captures();
        let (mut mask, mut gained) = (mask, 0);
        while let Some((edge, gain)) = captures.free_capture(mask) {
            mask |= 1 << edge;
            gained += gain;
        }
        (mask, gained)
    }

    fn parse_digits(self, digits: &str, offset: usize) -> Result<u64, PositionError> {
        let mut mask = 0u64;
        let mut edges = 0u32;
        for (at, ch) in digits.char_indices() {
            match ch {
                '0' | '1' => {
                    if ch == '1' && edges < 64 {
                        mask |= 1 << edges;
                    }
                    edges += 1;
                }
                _ => {
                    return Err(PositionError::Character {
                        found: ch,
                        at: offset + at,
                        expected: "'0' or '1', one per edge (or a list of moves like h0,1 v2,0)",
                    });
                }
            }
        }
        if edges != self.edges() {
            return Err(PositionError::Length {
                game: "dots-and-boxes",
                unit: "edges",
                expected: self.edges() as usize,
                found: edges as usize,
            });
        }
        Ok(mask)
    }

    fn parse_move_list(self, moves: &str) -> Result<u64, PositionError> {
        let mut mask = 0u64;
        for text in moves.split(|c: char| c.is_whitespace() || c == ';') {
            if text.is_empty() {
                continue;
            }
            let bit = 1 << self.edge_index(self.parse_move(text)?);
            if mask & bit != 0 {
                return Err(PositionError::IllegalMove {
                    mv: text.to_owned(),
                    reason: "it is already drawn",
                });
            }
            mask |= bit;
        }
        Ok(mask)
    }
}

fn edge_count(rows: u32, cols: u32) -> u32 {
    (rows + 1) * cols + rows * (cols + 1)
}

/// Byte-wise lookup tables for the symmetries of one board: the image of a
/// mask is the OR of one table entry per byte. Built by [`Dots::symmetries`].
#[derive(Clone, Debug)]
pub struct EdgeSymmetries {
    count: usize,
    bytes: usize,
    tables: Vec<[u64; 256]>,
}

impl EdgeSymmetries {
    /// Number of symmetries, the identity included.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The image of `mask` under symmetry `s`.
    #[inline]
    pub fn image(&self, s: usize, mask: u64) -> u64 {
        let tables = &self.tables[s * self.bytes..(s + 1) * self.bytes];
        tables.iter().enumerate().fold(0, |acc, (byte, table)| {
            acc | table[(mask >> (8 * byte)) as usize & 0xff]
        })
    }

    /// The least image of `mask`.
    #[inline]
    pub fn canonical(&self, mask: u64) -> u64 {
        (1..self.count).fold(mask, |least, s| least.min(self.image(s, mask)))
    }

    /// Whether `mask` is its own least image.
    #[inline]
    pub fn is_canonical(&self, mask: u64) -> bool {
        (1..self.count).all(|s| self.image(s, mask) >= mask)
    }
}

/// Which boxes have their top, bottom, left and right side drawn, one bit
/// vector (bit `r·cols + c`) per side: [`CaptureMasks::sides`]. Each bit is
/// one edge's, so the sides of `a | b` are the sides of `a` or'd with those
/// of `b`, which lets a pass over many masks that share most of their edges
/// compute the shared part once.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BoxSides(pub [u64; 4]);

impl BoxSides {
    /// The sides drawn in either.
    #[inline]
    pub fn or(self, other: BoxSides) -> BoxSides {
        BoxSides(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// The boxes with all four sides drawn.
    #[inline]
    pub fn completed(self) -> u32 {
        let [top, bottom, left, right] = self.0;
        (top & bottom & left & right).count_ones()
    }
}

/// The four-edge mask of every box and the boxes beside every edge, for
/// the free-capture rule ([`Dots::free_capture`]). Built by
/// [`Dots::shared_captures`].
#[derive(Clone, Debug)]
pub struct CaptureMasks {
    cols: u32,
    /// Bit `r·cols + c` for every box.
    all_boxes: u64,
    /// The boxes of the first and of the last column.
    first_col: u64,
    last_col: u64,
    /// The first edge of each row's vertical edges.
    vertical_rows: Vec<u32>,
    /// Each box's four edges, in box order.
    boxes: Vec<u64>,
    /// For each edge, the masks of the boxes on its two sides (0 for none).
    beside: Vec<[u64; 2]>,
}

impl CaptureMasks {
    fn new(board: Dots) -> CaptureMasks {
        let (rows, cols) = (board.rows(), board.cols());
        let boxes = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| board.box_mask(r, c)))
            .collect();
        let beside = (0..board.edges())
            .map(|e| {
                let mut sides = [0u64; 2];
                for (side, (r, c)) in sides.iter_mut().zip(board.boxes_of(e)) {
                    *side = board.box_mask(r, c);
                }
                sides
            })
            .collect();
        let column = |c: u32| (0..rows).fold(0u64, |acc, r| acc | 1 << (r * cols + c));
        CaptureMasks {
            cols,
            all_boxes: (1u64 << board.boxes()) - 1,
            first_col: column(0),
            last_col: column(cols - 1),
            vertical_rows: (0..rows).map(|r| board.v(r, 0)).collect(),
            boxes,
            beside,
        }
    }

    /// The boxes (bit `r·cols + c`) that can be taken by a free capture in
    /// `mask`: three sides drawn, and the box across the fourth side absent
    /// or without exactly two sides.
    #[inline]
    pub fn free_boxes(&self, mask: u64) -> u64 {
        self.free_boxes_of(self.sides(mask))
    }

    /// [`CaptureMasks::free_boxes`] from the position's [`BoxSides`].
    /// Bit-parallel over all boxes: each box's top, bottom, left and right
    /// side is one bit vector in box order, and their sum is counted
    /// bit-sliced.
    #[inline]
    pub fn free_boxes_of(&self, sides: BoxSides) -> u64 {
        let (cols, all) = (self.cols, self.all_boxes);
        let BoxSides([top, bottom, left, right]) = sides;
        // Bit-sliced count of four sides: `odd` is its low bit, and exactly
        // one of the three carries is set when the count is 2 or 3 (never
        // two of them: `top & bottom` and `(top ^ bottom) & ...` exclude
        // each other).
        let (sum_a, carry_a) = (top ^ bottom, top & bottom);
        let (sum_b, carry_b) = (left ^ right, left & right);
        let odd = sum_a ^ sum_b;
        let pairs = carry_a ^ carry_b ^ (sum_a & sum_b);
        let three = odd & pairs;
        let two = !odd & pairs & all;
        let blocked = (!top & two << cols)
            | (!bottom & two >> cols)
            | (!left & two << 1 & !self.first_col)
            | (!right & two >> 1 & !self.last_col);
        three & !blocked & all
    }

    /// Which boxes (bit `r·cols + c`) have their top, bottom, left and
    /// right side drawn in `mask`.
    #[inline]
    pub fn sides(&self, mask: u64) -> BoxSides {
        let (cols, all) = (self.cols, self.all_boxes);
        // Top sides are edges 0..boxes in box order, bottoms one row on.
        let top = mask & all;
        let bottom = mask >> cols & all;
        let (mut left, mut right) = (0u64, 0u64);
        let row_mask = (1u64 << cols) - 1;
        for (r, &first) in self.vertical_rows.iter().enumerate() {
            let row = mask >> first;
            left |= (row & row_mask) << (r as u32 * cols);
            right |= (row >> 1 & row_mask) << (r as u32 * cols);
        }
        BoxSides([top, bottom, left, right])
    }

    /// The number of boxes with all four sides drawn in `mask`.
    #[inline]
    pub fn completed_boxes(&self, mask: u64) -> u32 {
        self.sides(mask).completed()
    }

    /// [`Dots::free_capture`] with these masks.
    #[inline]
    pub fn free_capture(&self, mask: u64) -> Option<(u32, Score)> {
        let free = self.free_boxes(mask);
        if free == 0 {
            return None;
        }
        let b = self.boxes[free.trailing_zeros() as usize];
        let edge = (b & !mask).trailing_zeros();
        let [x, y] = self.beside[edge as usize];
        let other = if x == b { y } else { x };
        let both = other != 0 && (mask & other).count_ones() == 3;
        Some((edge, 1 + Score::from(both)))
    }
}

/// Parses `MxN` (1 ≤ M, N ≤ 255).
fn parse_board(text: &str) -> Option<(u8, u8)> {
    let (rows, cols) = text.split_once('x')?;
    Some((rows.parse().ok()?, cols.parse().ok()?))
}

impl Game for Dots {
    type Position = Edges;
    type Move = Edge;
    type Value = Margin;

    fn id(&self) -> GameId {
        GameId::Dots {
            rows: self.rows,
            cols: self.cols,
        }
    }

    fn start(&self) -> Edges {
        Edges(0)
    }

    fn parse(&self, text: &str) -> Result<Edges, PositionError> {
        let text = text.trim();
        let Some((board, rest)) = text.split_once(':') else {
            return Err(PositionError::Board {
                input: text.to_owned(),
                reason: format!(
                    "a position starts with its board, `{}x{}:`",
                    self.rows, self.cols
                ),
            });
        };
        if parse_board(board) != Some((self.rows, self.cols)) {
            return Err(PositionError::Board {
                input: board.to_owned(),
                reason: format!("expected this board, {}x{}", self.rows, self.cols),
            });
        }
        let offset = board.len() + 1;
        let mask = if rest.starts_with(['h', 'v']) || rest.trim().is_empty() {
            self.parse_move_list(rest)?
        } else {
            self.parse_digits(rest, offset)?
        };
        Ok(Edges(mask))
    }

    fn notation(&self, position: Edges) -> String {
        let mut text = format!("{}x{}:", self.rows, self.cols);
        text.extend((0..self.edges()).map(|e| if position.0 & 1 << e != 0 { '1' } else { '0' }));
        text
    }

    /// Dots `+`, drawn edges `---` and `|`, completed boxes `###`; `hR,C`
    /// is the edge right of dot (R, C), `vR,C` the edge below it:
    ///
    /// ```text
    /// +---+   +
    /// |###|
    /// +---+---+
    /// ```
    fn picture(&self, position: Edges) -> String {
        let mask = position.0;
        let drawn = |edge: u32| mask & 1 << edge != 0;
        let mut lines = Vec::new();
        for r in 0..=self.rows() {
            let mut dots = String::from("+");
            for c in 0..self.cols() {
                dots.push_str(if drawn(self.h(r, c)) { "---+" } else { "   +" });
            }
            lines.push(dots);
            if r == self.rows() {
                break;
            }
            let mut boxes = String::new();
            for c in 0..=self.cols() {
                boxes.push(if drawn(self.v(r, c)) { '|' } else { ' ' });
                if c < self.cols() {
                    let b = self.box_mask(r, c);
                    boxes.push_str(if mask & b == b { "###" } else { "   " });
                }
            }
            lines.push(boxes.trim_end().to_owned());
        }
        lines.join("\n")
    }

    fn parse_move(&self, text: &str) -> Result<Edge, PositionError> {
        let text = text.trim();
        let bad = |reason: String| PositionError::BadMove {
            input: text.to_owned(),
            reason,
        };
        let horizontal = match text.chars().next() {
            Some('h') => true,
            Some('v') => false,
            _ => {
                return Err(bad(
                    "a move is h or v, a row, a comma and a column, like h2,1 or v0,3".into(),
                ));
            }
        };
        let coordinates = text[1..]
            .split_once(',')
            .and_then(|(r, c)| Some((r.parse::<u8>().ok()?, c.parse::<u8>().ok()?)));
        let Some((row, col)) = coordinates else {
            return Err(bad(
                "a move is h or v, a row, a comma and a column, like h2,1 or v0,3".into(),
            ));
        };
        let (max_row, max_col) = if horizontal {
            (self.rows, self.cols - 1)
        } else {
            (self.rows - 1, self.cols)
        };
        if row > max_row || col > max_col {
            let kind = if horizontal { 'h' } else { 'v' };
            return Err(bad(format!(
                "on a {}x{} board {kind} edges have rows 0..={max_row} and columns 0..={max_col}",
                self.rows, self.cols
            )));
        }
        Ok(Edge {
            horizontal,
            row,
            col,
        })
    }

    fn moves(&self, position: Edges) -> Vec<Edge> {
        let free = self.full() & !position.0;
        (0..self.edges())
            .filter(|&e| free & 1 << e != 0)
            .map(|e| self.edge(e))
            .collect()
    }

    fn play(&self, position: Edges, edge: Edge) -> (Edges, Transition) {
        let (next, gain) = self.draw(position.0, self.edge_index(edge));
        let transition = if gain > 0 {
            Transition {
                same_mover: true,
                gain: gain as Score,
            }
        } else {
            Transition::PASS
        };
        (Edges(next), transition)
    }

    fn terminal_score(&self, position: Edges) -> Option<Score> {
        (position.0 & self.full() == self.full()).then_some(0)
    }

    fn value(&self, _position: Edges, score: Score) -> Margin {
        Margin(score)
    }

    fn symmetry_count(&self) -> usize {
        if self.square() { 8 } else { 4 }
    }

    /// The least image by the board's shared lookup tables
    /// ([`Dots::shared_symmetries`]): a probe canonicalises every position.
    fn canonical(&self, position: Edges) -> Edges {
        Edges(self.shared_symmetries().canonical(position.0))
    }

    /// By the shared lookup tables, stopping at the first smaller image.
    fn is_canonical(&self, position: Edges) -> bool {
        self.shared_symmetries().is_canonical(position.0)
    }

    /// The [`EndgameSolver`], with chain and loop theory.
    fn exact_solver(&self, limits: SearchLimits) -> Option<Box<dyn ExactSolver<Edges>>> {
        Some(Box::new(EndgameSolver::new(*self, limits)))
    }

    fn image(&self, position: Edges, index: usize) -> Edges {
        assert!(
            index < self.symmetry_count(),
            "symmetry {index} of {self:?}"
        );
        let mut image = 0;
        let mut rest = position.0;
        while rest != 0 {
            let edge = rest.trailing_zeros();
            rest &= rest - 1;
            image |= 1 << self.edge_image(index, edge);
        }
        Edges(image)
    }
}

impl Tabled for Dots {
    const INDEX: IndexScheme = IndexScheme::EdgeMaskCanonical;
    const VALUES: ValueEncoding = ValueEncoding::MarginResolved;

    fn slots(&self) -> u64 {
        1 << self.edges()
    }

    fn slot(&self, canonical: Edges) -> u64 {
        canonical.0
    }

    fn position_at(&self, slot: u64) -> Option<Edges> {
        (slot <= self.full()).then_some(Edges(slot))
    }

    fn encode(&self, position: Edges, score: Score) -> u8 {
        encode_boxes_won(score, self.remaining_boxes(position.0))
    }

    /// Positions with a free capture ([`Dots::free_capture`]) are not
    /// stored: their value is the boxes taken plus the value after them.
    fn resolved_by_rule(&self, position: Edges) -> bool {
        self.free_capture(position.0).is_some()
    }

    /// Every free capture first ([`Dots::take_free_captures`]: bit
    /// operations on the mask, no table access), then one canonical form and
    /// one entry, so a probe still reads one block. The image of a position
    /// without a free capture has none either, so the entry read is never a
    /// don't-care one.
    fn table_score<D: TableData>(
        &self,
        table: &Table<D>,
        position: Edges,
    ) -> Result<Score, TableError> {
        let (after, gained) = self.take_free_captures(position.0);
        let canonical = self.canonical(Edges(after));
        let slot = self.slot(canonical);
        Ok(gained + self.decode(canonical, slot, table.entry(slot)?)?)
    }

    fn decode(&self, position: Edges, slot: u64, entry: u8) -> Result<Score, TableError> {
        decode_boxes_won(entry, self.remaining_boxes(position.0), slot)
    }
}

impl Dots {
    /// A position of this board with `undrawn` edges left, from
    /// random play that never draws a box's third side: each edge is drawn
    /// uniformly among those that give no box three sides, like a game before
    /// its endgame (a uniformly random edge set has most boxes taken and is
    /// trivial). `None` when play runs out of such edges first; the caller
    /// draws again from the same generator. The committed bench positions
    /// (`tests/data/dots-endgame.positions`) are made this way.
    pub fn random_without_third_sides(self, rng: &mut Rng, undrawn: u32) -> Option<Edges> {
        let box_masks: Vec<u64> = (0..self.rows())
            .flat_map(|r| (0..self.cols()).map(move |c| self.box_mask(r, c)))
            .collect();
        let mut mask = 0u64;
        while self.edges() - mask.count_ones() > undrawn {
            let safe: Vec<u32> = (0..self.edges())
                .filter(|&e| mask & 1 << e == 0)
                .filter(|&e| {
                    box_masks
                        .iter()
                        .all(|&b| b & 1 << e == 0 || (mask & b).count_ones() < 2)
                })
                .collect();
            if safe.is_empty() {
                return None;
            }
            mask |= 1 << rng.pick(&safe);
        }
        Some(Edges(mask))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn boards() -> Vec<Dots> {
        let mut all = Vec::new();
        for rows in 1..=5 {
            for cols in 1..=5 {
                all.push(Dots::new(rows, cols).unwrap());
            }
        }
        all
    }

    #[test]
    fn edges_number_and_name_each_other() {
        for board in boards() {
            let mut names = HashSet::new();
            for e in 0..board.edges() {
                let edge = board.edge(e);
                assert_eq!(board.edge_index(edge), e);
                assert_eq!(board.parse_move(&edge.to_string()).unwrap(), edge);
                assert!(names.insert(edge.to_string()));
            }
            // Every box has four distinct edges, each edge one or two boxes.
            let mut seen = vec![0; board.edges() as usize];
            for r in 0..board.rows() {
                for c in 0..board.cols() {
                    let b = board.box_mask(r, c);
                    assert_eq!(b.count_ones(), 4);
                    for e in 0..board.edges() {
                        if b & 1 << e != 0 {
                            seen[e as usize] += 1;
                            assert!(board.boxes_of(e).any(|x| x == (r, c)));
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1 || n == 2));
        }
    }

    #[test]
    fn symmetries_permute_edges_and_boxes() {
        for board in boards() {
            let tables = board.symmetries();
            let mut maps = HashSet::new();
            let boxes: HashSet<u64> = (0..board.rows())
                .flat_map(|r| (0..board.cols()).map(move |c| board.box_mask(r, c)))
                .collect();
            for s in 0..board.symmetry_count() {
                let map: Vec<u32> = (0..board.edges()).map(|e| board.edge_image(s, e)).collect();
                let distinct: HashSet<u32> = map.iter().copied().collect();
                assert_eq!(distinct.len(), board.edges() as usize, "{board:?} {s}");
                assert!(maps.insert(map), "{board:?}: symmetry {s} repeats");
                for &b in &boxes {
                    let image = board.image(Edges(b), s).0;
                    assert!(boxes.contains(&image), "{board:?} {s}");
                    assert_eq!(tables.image(s, b), image);
                }
            }
            assert_eq!(board.image(Edges(board.full()), 0).0, board.full());
            // The table-driven canonical form is the least image.
            let mut state = 0x5851_f42d_4c95_7f2du64 ^ u64::from(board.edges());
            for _ in 0..200 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let p = Edges(state & board.full());
                let least = (0..board.symmetry_count())
                    .map(|s| board.image(p, s))
                    .min()
                    .unwrap();
                assert_eq!(board.canonical(p), least, "{board:?}");
            }
        }
    }

    #[test]
    fn notation_round_trips() {
        let board = Dots::new(2, 3).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let p = Edges(state & board.full());
            let text = board.notation(p);
            assert_eq!(board.parse(&text).unwrap(), p);
            let moves: Vec<String> = board
                .moves(Edges(board.full() & !p.0))
                .iter()
                .map(|m| m.to_string())
                .collect();
            let listed = format!("2x3:{}", moves.join(" "));
            assert_eq!(board.parse(&listed).unwrap(), p, "{listed}");
        }
        assert_eq!(board.parse("2x3:").unwrap(), Edges(0));
    }

    #[test]
    fn bad_input_gets_a_clear_error() {
        let board = Dots::new(2, 2).unwrap();
        assert!(matches!(
            board.parse("101"),
            Err(PositionError::Board { .. })
        ));
        assert!(matches!(
            board.parse("3x3:101"),
            Err(PositionError::Board { .. })
        ));
        assert!(matches!(
            board.parse("2x2:101"),
            Err(PositionError::Length {
                expected: 12,
                found: 3,
                ..
            })
        ));
        assert!(matches!(
            board.parse("2x2:10100000002x"),
            Err(PositionError::Character {
                found: '2',
                at: 14,
                ..
            })
        ));
        assert!(matches!(
            board.parse("2x2:h0,0 h3,0"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            board.parse("2x2:h0,0 v0,3"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            board.parse("2x2:h0,0;h0,0"),
            Err(PositionError::IllegalMove { .. })
        ));
        assert!(matches!(
            board.parse_move("x1,1"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            board.parse_move("h1"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(Dots::new(0, 3).is_err());
        assert!(Dots::new(6, 6).is_err());
        assert!(Dots::new(5, 5).is_ok());
        assert!(Dots::new(1, 20).is_ok());
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let board = Dots::new(2, 3).unwrap();
        let alphabet: Vec<char> = "01hv,;: x23\u{e9}-9".chars().collect();
        let mut state = 0x0123_4567_89ab_cdefu64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 24) as usize;
            let mut text = String::from(if state & 1 << 40 != 0 { "2x3:" } else { "" });
            let mut bits = state;
            for _ in 0..len {
                text.push(alphabet[(bits % alphabet.len() as u64) as usize]);
                bits = bits.rotate_right(5) ^ 0x9e37;
            }
            if let Ok(p) = board.parse(&text) {
                assert_eq!(board.parse(&board.notation(p)), Ok(p), "{text:?}");
            }
            let _ = board.parse_move(&text);
        }
    }

    #[test]
    fn drawing_the_fourth_edge_scores() {
        let board = Dots::new(1, 2).unwrap();
        let p = board.parse("1x2:h0,0 h1,0 v0,0 h0,1 h1,1 v0,2").unwrap();
        let (next, tr) = board.play(p, board.parse_move("v0,1").unwrap());
        assert_eq!(tr.gain, 2);
        assert!(tr.same_mover);
        assert_eq!(board.terminal_score(next), Some(0));
        assert_eq!(board.completed_boxes(next.0), 2);
    }

    #[test]
    fn margins_encode_and_decode() {
        let board = Dots::new(1, 1).unwrap();
        for m in [-1, 1] {
            let e = board.encode(Edges(0), m);
            assert_eq!(board.decode(Edges(0), 0, e), Ok(m));
        }
        assert!(board.decode(Edges(0), 0, 0).is_err());
        assert!(board.decode(Edges(0), 0, 3).is_err());
        assert!(board.decode(Edges(0), 0, 200).is_err());
    }

    /// Free boxes the slow way: each box on its own.
    fn free_boxes_one_by_one(board: Dots, mask: u64) -> u64 {
        let mut free = 0;
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                let b = board.box_mask(r, c);
                if (mask & b).count_ones() != 3 {
                    continue;
                }
                let edge = (b & !mask).trailing_zeros();
                let blocked = board
                    .boxes_of(edge)
                    .filter(|&other| other != (r, c))
                    .any(|(r2, c2)| (mask & board.box_mask(r2, c2)).count_ones() == 2);
                if !blocked {
                    free |= 1 << (r * board.cols() + c);
                }
            }
        }
        free
    }

    #[test]
    fn free_boxes_and_completed_boxes_agree_with_box_by_box_counts() {
        let mut rng = crate::testkit::Rng::new(12);
        for board in boards() {
            let captures = board.shared_captures();
            let masks: Vec<u64> = if board.edges() <= 17 {
                (0..=board.full()).collect()
            } else {
                (0..20_000).map(|_| rng.next_u64() & board.full()).collect()
            };
            for mask in masks {
                assert_eq!(
                    captures.free_boxes(mask),
                    free_boxes_one_by_one(board, mask),
                    "{}",
                    board.notation(Edges(mask))
                );
                let complete = (0..board.rows())
                    .flat_map(|r| (0..board.cols()).map(move |c| board.box_mask(r, c)))
                    .filter(|&b| mask & b == b)
                    .count() as u32;
                assert_eq!(board.completed_boxes(mask), complete);
                if let Some((edge, gain)) = board.free_capture(mask) {
                    assert_eq!(board.draw(mask, edge).1 as Score, gain);
                }
            }
        }
    }

    /// The plain recursion over the rules, memoised by mask.
    fn plain_value(board: Dots, mask: u64, memo: &mut Vec<Option<Score>>) -> Score {
        if let Some(v) = memo[mask as usize] {
            return v;
        }
        let position = Edges(mask);
        let v = board.terminal_score(position).unwrap_or_else(|| {
            board
                .moves(position)
                .into_iter()
                .map(|mv| {
                    let (child, tr) = board.play(position, mv);
                    tr.backup(plain_value(board, child.0, memo))
                })
                .max()
                .expect("moves")
        });
        memo[mask as usize] = Some(v);
        v
    }

    #[test]
    fn a_free_capture_is_worth_its_boxes_plus_the_rest_on_every_small_position() {
        for (rows, cols) in [
            (1, 1),
            (1, 2),
            (2, 1),
            (1, 4),
            (2, 2),
            (2, 3),
            (3, 2),
            (1, 6),
        ] {
            let board = Dots::new(rows, cols).unwrap();
            let mut memo = vec![None; 1 << board.edges()];
            let mut resolved = 0;
            for mask in 0..=board.full() {
                if let Some((edge, gain)) = board.free_capture(mask) {
                    let after = plain_value(board, mask | 1 << edge, &mut memo);
                    assert_eq!(
                        plain_value(board, mask, &mut memo),
                        gain + after,
                        "{}",
                        board.notation(Edges(mask))
                    );
                    resolved += 1;
                }
                let (after, gained) = board.take_free_captures(mask);
                assert_eq!(board.free_capture(after), None);
                assert_eq!(
                    plain_value(board, mask, &mut memo),
                    gained + plain_value(board, after, &mut memo)
                );
            }
            // The rule must have something to say on every board with boxes
            // next to each other or at least one box.
            assert!(resolved > 0, "{rows}x{cols}");
        }
    }
}
