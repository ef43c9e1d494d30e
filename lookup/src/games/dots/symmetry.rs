//! The board's symmetries: 8 on a square board, 4 on another, as maps of
//! edges and as byte-wise lookup tables over masks.

use std::sync::OnceLock;

use super::board::{Dots, Edge, SIDES};
use crate::game::Game;

impl Dots {
    /// Whether the board is square, with 8 symmetries instead of 4.
    pub(super) fn square(self) -> bool {
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::games::dots::{Edges, boards};

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
}
