//! The board: its size, its edges and boxes, and their numbering.

use std::fmt;

use crate::error::PositionError;
use crate::format::GameId;

/// The most edges a board may have: positions are `u64` masks, and a table's
/// slot count `2^edges` must fit a `u64`.
pub const MAX_EDGES: u32 = 63;

/// One more than the longest side a board of at most [`MAX_EDGES`] edges
/// can have (1×20 has 61 edges).
pub(super) const SIDES: usize = 21;

/// A dots-and-boxes board of `rows` × `cols` boxes. See the
/// [module documentation](super).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dots {
    pub(super) rows: u8,
    pub(super) cols: u8,
}

/// The drawn edges of a position, bit `i` for edge `i` (see the
/// [module documentation](super) for the numbering). Ordered as numbers; the
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
/// [module documentation](super)): `h2,1` or `v0,3`.
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
    pub(super) fn h(self, r: u32, c: u32) -> u32 {
        r * self.cols() + c
    }

    /// The number of `v r,c`.
    pub(super) fn v(self, r: u32, c: u32) -> u32 {
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
}

fn edge_count(rows: u32, cols: u32) -> u32 {
    (rows + 1) * cols + rows * (cols + 1)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use crate::game::Game;
    use crate::games::dots::boards;

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
}
