//! The board's fixed facts the search reads, worked out once per solver.

use super::Rules;
use super::keys::{BorderGroup, border_groups, edge_maps};
use super::ordering::centre_order;
use super::sides::Sides;
use crate::game::Game;
use crate::games::dots::{Dots, EdgeSymmetries};

/// [`Geometry::edge_boxes`] beyond the border.
pub(super) const NO_BOX: u8 = u8::MAX;

/// The board's fixed facts the search reads: masks, symmetry maps, move
/// orders. Shared by every thread.
#[derive(Debug)]
pub(super) struct Geometry {
    pub(super) rules: Rules,
    pub(super) full: u64,
    pub(super) box_masks: Vec<u64>,
    /// The board's rows and columns of boxes, for
    /// [`Geometry::sides_of`].
    pub(super) rows: u32,
    pub(super) cols: u32,
    pub(super) edge_boxes: Vec<[u8; 2]>,
    pub(super) symmetries: EdgeSymmetries,
    /// `edge_maps[s][e]`: where symmetry `s` takes edge `e`.
    pub(super) edge_maps: Vec<[u8; 64]>,
    /// `inverse_maps[s][e]`: the edge symmetry `s` takes to `e`.
    pub(super) inverse_maps: Vec<[u8; 64]>,
    /// Edges from the centre of the board outwards: the order moves of one
    /// kind are tried in (Barker & Korf 2012 found centre-first ordering
    /// best).
    pub(super) centre_first: Vec<u32>,
    /// `centre_rank[e]`: the place of edge `e` in `centre_first`.
    pub(super) centre_rank: Vec<u32>,
    /// For each box with two or more border edges, those edges.
    pub(super) border_groups: Vec<BorderGroup>,
    /// `border_group_of[e]`: the index in `border_groups` of edge `e`'s
    /// group, [`NO_GROUP`](super::keys::NO_GROUP) for an edge in none.
    pub(super) border_group_of: Vec<u8>,
    /// `image_needs[s]`: the edges a position must have drawn for its
    /// image under symmetry `s` to hold the search's root (see
    /// [`Geometry::set_root`]); none until a root is set.
    pub(super) image_needs: Vec<u64>,
}

impl Geometry {
    pub(super) fn new(board: Dots, rules: Rules) -> Geometry {
        let mut box_masks = Vec::new();
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                box_masks.push(board.box_mask(r, c));
            }
        }
        let edge_boxes: Vec<[u8; 2]> = (0..board.edges())
            .map(|e| edge_boxes_of(board, e))
            .collect();
        let (edge_maps, inverse_maps) = edge_maps(board);
        let (centre_first, centre_rank) = centre_order(board);
        let (border_groups, border_group_of) = border_groups(board, &edge_boxes);
        Geometry {
            rules,
            full: board.full(),
            box_masks,
            rows: board.rows(),
            cols: board.cols(),
            edge_boxes,
            symmetries: board.symmetries(),
            edge_maps,
            inverse_maps,
            centre_first,
            centre_rank,
            border_groups,
            border_group_of,
            image_needs: vec![0; board.symmetry_count()],
        }
    }

    #[inline]
    pub(super) fn boxes(&self) -> usize {
        self.box_masks.len()
    }

    /// The drawn sides of box `b`, counted on its own: the plain count the
    /// tests hold [`Geometry::sides_of`] to.
    #[cfg(test)]
    pub(super) fn sides(&self, mask: u64, b: u8) -> u32 {
        (mask & self.box_masks[b as usize]).count_ones()
    }

    /// The box across edge `e` from box `b` ([`NO_BOX`] for the border).
    #[inline]
    pub(super) fn across(&self, e: u32, b: u8) -> u8 {
        let [x, y] = self.edge_boxes[e as usize];
        if x == b { y } else { x }
    }

    /// Drawn sides of every box.
    #[inline]
    pub(super) fn sides_of(&self, mask: u64) -> Sides {
        Sides::of(mask, self.rows, self.cols)
    }

    /// The boxes not yet claimed, given the boxes' sides.
    #[inline]
    pub(super) fn unclaimed(&self, sides: &Sides) -> i32 {
        (self.boxes() - sides.four().count_ones() as usize) as i32
    }
}

/// The boxes on either side of edge `e`, [`NO_BOX`] for none (a border
/// edge has its box first).
pub(super) fn edge_boxes_of(board: Dots, e: u32) -> [u8; 2] {
    let mut boxes = [NO_BOX; 2];
    for (slot, (r, c)) in boxes.iter_mut().zip(board.boxes_of(e)) {
        *slot = (r * board.cols() + c) as u8;
    }
    boxes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dots::endgame::sides::{any_capturable, members};

    #[test]
    fn side_counts_agree_with_counting_each_box() {
        let mut rng = crate::rng::Rng::new(3);
        for (rows, cols) in [
            (1, 1),
            (1, 5),
            (2, 3),
            (3, 3),
            (4, 4),
            (4, 5),
            (5, 5),
            (1, 20),
        ] {
            let board = Dots::new(rows, cols).unwrap();
            let geo = Geometry::new(board, Rules::ALL);
            let boxes = geo.boxes() as u8;
            // The boxes of `mask` whose sides `keep` accepts, box by box.
            let plain = |mask: u64, keep: &dyn Fn(u32) -> bool| {
                (0..boxes)
                    .filter(|&b| keep(geo.sides(mask, b)))
                    .fold(0u32, |set, b| set | 1 << b)
            };
            for round in 0..2000 {
                // Sparse and dense positions, and the full board.
                let mask = match round {
                    0 => board.full(),
                    _ => rng.next_u64() & rng.next_u64() >> (round % 3) & board.full(),
                };
                let sides = geo.sides_of(mask);
                for b in 0..boxes {
                    assert_eq!(u32::from(sides.count(b)), geo.sides(mask, b));
                }
                assert_eq!(sides.two(), plain(mask, &|n| n == 2), "{mask:#x}");
                assert_eq!(sides.three(), plain(mask, &|n| n == 3), "{mask:#x}");
                assert_eq!(sides.four(), plain(mask, &|n| n == 4), "{mask:#x}");
                assert_eq!(sides.two_or_more(), plain(mask, &|n| n >= 2), "{mask:#x}");
                assert_eq!(any_capturable(&sides), plain(mask, &|n| n == 3) != 0);
                let listed: Vec<u8> = members(sides.two()).collect();
                assert!(listed.windows(2).all(|w| w[0] < w[1]));
                assert_eq!(listed.len(), sides.two().count_ones() as usize);
                assert!(listed.iter().all(|&b| sides.count(b) == 2));
                // One more side for a box, as drawing an edge gives it.
                for b in (0..boxes).filter(|&b| sides.count(b) < 4) {
                    let mut more = sides;
                    more.add(b);
                    for o in 0..boxes {
                        let want = sides.count(o) + u8::from(o == b);
                        assert_eq!(more.count(o), want, "{mask:#x} box {b}");
                    }
                }
            }
        }
    }
}
