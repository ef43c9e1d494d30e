//! The board's fixed facts the search reads, worked out once per solver.

use std::sync::Mutex;

use super::Rules;
use super::counts::NodeCounts;
use super::sides::Sides;
use super::transposition::NO_MOVE;
use crate::game::Game;
use crate::games::dots::{Dots, EdgeSymmetries};

/// [`Geometry::edge_boxes`] beyond the border.
pub(super) const NO_BOX: u8 = u8::MAX;

/// The border edges of one box ([`Rules::border_edges`](super::Rules::border_edges)), as masks: all
/// of them, and for each count `c` the first `c` of them (by number),
/// where a position's `c` drawn ones are moved to.
#[derive(Clone, Copy, Debug)]
pub(super) struct BorderGroup {
    pub(super) edges: u64,
    pub(super) first: [u64; 5],
}

/// [`Geometry::border_group_of`] of an edge in no group.
pub(super) const NO_GROUP: u8 = u8::MAX;

/// The most symmetries a board has (a square's eight).
pub(super) const MAX_SYMMETRIES: usize = 8;

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
    /// group, [`NO_GROUP`] for an edge in none.
    pub(super) border_group_of: Vec<u8>,
    /// `image_needs[s]`: the edges a position must have drawn for its
    /// image under symmetry `s` to hold the search's root (see
    /// [`Geometry::set_root`]); none until a root is set.
    pub(super) image_needs: Vec<u64>,
    /// How the nodes of the searches on this board ended, as their
    /// threads add them when each search ends.
    pub(super) counts: Mutex<NodeCounts>,
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
            counts: Mutex::new(NodeCounts::default()),
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

/// `edge_maps[s][e]`, where symmetry `s` takes edge `e`, and the inverse
/// maps, `inverse[s][e]`, the edge symmetry `s` takes to `e`.
pub(super) fn edge_maps(board: Dots) -> (Vec<[u8; 64]>, Vec<[u8; 64]>) {
    assert!(board.symmetry_count() <= MAX_SYMMETRIES);
    let mut edge_maps = vec![[NO_MOVE; 64]; board.symmetry_count()];
    let mut inverse_maps = edge_maps.clone();
    for (s, (forward, inverse)) in edge_maps.iter_mut().zip(&mut inverse_maps).enumerate() {
        for e in 0..board.edges() {
            let image = board.edge_image(s, e);
            forward[e as usize] = image as u8;
            inverse[image as usize] = e as u8;
        }
    }
    (edge_maps, inverse_maps)
}

/// The border groups of `board` (each box with two or more border edges,
/// `edge_boxes` giving each edge's boxes) and each edge's group
/// ([`NO_GROUP`] for none).
pub(super) fn border_groups(board: Dots, edge_boxes: &[[u8; 2]]) -> (Vec<BorderGroup>, Vec<u8>) {
    let mut border_edges = vec![Vec::new(); board.boxes() as usize];
    for e in 0..board.edges() {
        if let [b, NO_BOX] = edge_boxes[e as usize] {
            border_edges[b as usize].push(e);
        }
    }
    border_edges.retain(|edges| edges.len() >= 2);
    let mut border_group_of = vec![NO_GROUP; board.edges() as usize];
    let mut border_groups = Vec::new();
    for (g, edges) in border_edges.iter().enumerate() {
        let mut group = BorderGroup {
            edges: 0,
            first: [0; 5],
        };
        for (i, &e) in edges.iter().enumerate() {
            border_group_of[e as usize] = g as u8;
            group.edges |= 1 << e;
            group.first[i + 1] = group.edges;
        }
        border_groups.push(group);
    }
    (border_groups, border_group_of)
}

/// The edges of `board` from the centre outwards (Barker & Korf 2012 found
/// centre-first ordering best), and each edge's place in that order.
pub(super) fn centre_order(board: Dots) -> (Vec<u32>, Vec<u32>) {
    let mut centre_first: Vec<u32> = (0..board.edges()).collect();
    // Twice the distance of an edge's midpoint from the centre, squared.
    let distance = |e: u32| {
        let edge = board.edge(e);
        let (r, c) = (i64::from(edge.row) * 2, i64::from(edge.col) * 2);
        let (y, x) = if edge.horizontal {
            (r, c + 1)
        } else {
            (r + 1, c)
        };
        let (dy, dx) = (y - i64::from(board.rows()), x - i64::from(board.cols()));
        dy * dy + dx * dx
    };
    centre_first.sort_by_key(|&e| (distance(e), e));
    let mut centre_rank = vec![0; board.edges() as usize];
    for (rank, &e) in centre_first.iter().enumerate() {
        centre_rank[e as usize] = rank as u32;
    }
    (centre_first, centre_rank)
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
