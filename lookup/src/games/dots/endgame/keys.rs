//! Transposition-table keys: a position's least symmetric image among those
//! that can be positions of the search, with each box's border edges
//! normalised, and the keys of its children worked out from its images.

use super::geometry::{Geometry, MAX_SYMMETRIES, NO_GROUP};
use super::step::Step;

/// A position's mask as [`Geometry::key`] normalises it and that mask's
/// image under every symmetry. The key of a child follows from these with
/// the child's few more edges in each image
/// ([`Geometry::descendant_key`]), where keying each child from scratch
/// maps all its edges through every symmetry again: the transposition
/// cutoffs and prefetch key most of a node's quiet children.
#[derive(Copy, Clone, Debug)]
pub(super) struct Images {
    normalised: u64,
    images: [u64; MAX_SYMMETRIES],
    /// The symmetries (bit `s`, `s` at least 1) whose root the position
    /// lacks at most one edge of: the only images a quiet child's key can
    /// be (none for most positions from a random 5x5 root).
    near: u8,
}

/// A child's table key and the symmetry that takes it there, worked out by
/// its parent for a quiet step (whose child has no free captures, so its
/// search probes this very mask): the child does not key itself again, and
/// the load of its bucket began before the child's first checks.
#[derive(Copy, Clone, Debug)]
pub(super) struct Keyed {
    pub(super) mask: u64,
    pub(super) key: u64,
    pub(super) symmetry: usize,
}

impl Geometry {
    /// The same position with each box's drawn border edges moved to the
    /// first of its border edges: an equal value ([`Rules::border_edges`](super::Rules::border_edges)).
    #[inline]
    pub(super) fn normalise_borders(&self, mask: u64) -> u64 {
        let mut mask = mask;
        for group in &self.border_groups {
            let drawn = (mask & group.edges).count_ones() as usize;
            mask = mask & !group.edges | group.first[drawn];
        }
        mask
    }

    /// Sets the root of the searches to come. A position of a search holds
    /// the root; so does its image under symmetry `s` only if it holds the
    /// image of the root under the inverse of `s`, and only such images can
    /// be met again, so [`Geometry::key`] looks at no others. From the
    /// empty board every image is a position of the search; from a random
    /// position few are until late, and looking at every image would cost
    /// time for few transpositions.
    ///
    /// Any image of a position is a position of the same value, so a key
    /// chosen among fewer images is as sound; an entry stored under one
    /// root is found under another where both choose the same image.
    pub(super) fn set_root(&mut self, root: u64) {
        let root = self.normalised(root);
        for (need, inverse) in self.image_needs.iter_mut().zip(&self.inverse_maps) {
            let mut edges = root;
            *need = 0;
            while edges != 0 {
                *need |= 1 << inverse[edges.trailing_zeros() as usize];
                edges &= edges - 1;
            }
        }
    }

    /// The table key of a position (its least image among those that hold
    /// the root, see [`Geometry::set_root`]) and a symmetry that takes the
    /// position there.
    #[inline]
    pub(super) fn key(&self, mask: u64) -> (u64, usize) {
        let mask = self.normalised(mask);
        self.least_image(mask, |s| self.symmetries.image(s, mask))
    }

    /// `mask` with its border edges normalised where the rules say so.
    #[inline]
    pub(super) fn normalised(&self, mask: u64) -> u64 {
        if self.rules.border_edges {
            self.normalise_borders(mask)
        } else {
            mask
        }
    }

    /// The least of the images of the normalised `mask` (`image(s)` under
    /// symmetry `s`) that hold the root, and its symmetry: the key.
    #[inline]
    pub(super) fn least_image(&self, mask: u64, image: impl Fn(usize) -> u64) -> (u64, usize) {
        let others = if self.rules.symmetry {
            ((1u32 << self.symmetries.count()) - 2) as u8
        } else {
            0
        };
        self.least_image_among(mask, others, image)
    }

    /// [`Geometry::least_image`] among the images under the symmetries
    /// `among` (bit `s` for symmetry `s`) and the mask itself.
    #[inline]
    pub(super) fn least_image_among(
        &self,
        mask: u64,
        among: u8,
        image: impl Fn(usize) -> u64,
    ) -> (u64, usize) {
        let mut best = (mask, 0);
        let mut rest = among;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let need = self.image_needs[s];
            if mask & need == need {
                let image = image(s);
                if image < best.0 {
                    best = (image, s);
                }
            }
        }
        best
    }

    /// The position's normalised mask and its images, for
    /// [`Geometry::descendant_key`]: those a child one edge away can hold
    /// the root in. An image whose root needs two or more edges the
    /// position lacks is never a quiet child's key (from a random 5×5 root,
    /// most are so), so it is left as the mask itself, and worked out
    /// whole for a descendant that holds its root.
    #[inline]
    pub(super) fn images(&self, mask: u64) -> Images {
        let normalised = self.normalised(mask);
        let mut images = [normalised; MAX_SYMMETRIES];
        let mut near = 0;
        if self.rules.symmetry {
            for (s, image) in images.iter_mut().enumerate() {
                let lacking = self
                    .image_needs
                    .get(s)
                    .map(|need| (need & !normalised).count_ones());
                if s > 0 && lacking.is_some_and(|n| n <= 1) {
                    *image = self.symmetries.image(s, normalised);
                    near |= 1 << s;
                }
            }
        }
        Images {
            normalised,
            images,
            near,
        }
    }

    /// [`Geometry::key`] of the position `parent` describes with the edges
    /// `added` drawn too, from the parent's images: each edge normalised in
    /// turn as [`Geometry::normalise_borders`] would (the next undrawn edge
    /// of its border group), then added to each image where symmetry takes
    /// it. An image [`Geometry::images`] left out (its root needed two or
    /// more edges the parent lacks) that the descendant now holds the root
    /// in is worked out whole.
    #[inline]
    pub(super) fn descendant_key(&self, parent: &Images, added: u64) -> (u64, usize) {
        let mut child = parent.normalised;
        let mut bits = added;
        while bits != 0 {
            let mut e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.rules.border_edges && self.border_group_of[e] != NO_GROUP {
                let group = &self.border_groups[usize::from(self.border_group_of[e])];
                let drawn = (child & group.edges).count_ones() as usize;
                e = (group.first[drawn + 1] & !group.first[drawn]).trailing_zeros() as usize;
            }
            child |= 1 << e;
        }
        let new = child & !parent.normalised;
        // A quiet child (the most keyed): an image the parent left out
        // needs two edges more, so the child never holds its root there.
        if new.count_ones() == 1 {
            let e = new.trailing_zeros() as usize;
            return self.least_image_among(child, parent.near, |s| {
                parent.images[s] | 1 << self.edge_maps[s][e]
            });
        }
        self.least_image(child, |s| {
            let lacked = self.image_needs[s] & !parent.normalised;
            if lacked.count_ones() > 1 {
                return self.symmetries.image(s, child);
            }
            let mut image = parent.images[s];
            let mut bits = new;
            while bits != 0 {
                image |= 1 << self.edge_maps[s][bits.trailing_zeros() as usize];
                bits &= bits - 1;
            }
            image
        })
    }

    /// A quiet step's child before any captures there, keyed from its
    /// parent's images.
    #[inline]
    pub(super) fn quiet_child(&self, parent: &Images, mask: u64, step: &Step) -> Keyed {
        self.descendant(parent, mask, mask | step.edges)
    }

    /// A descendant `child` of the position `parent` describes (`mask`),
    /// keyed from the parent's images.
    #[inline]
    pub(super) fn descendant(&self, parent: &Images, mask: u64, child: u64) -> Keyed {
        let (key, symmetry) = self.descendant_key(parent, child & !mask);
        Keyed {
            mask: child,
            key,
            symmetry,
        }
    }

    /// A position with its key worked out anew.
    #[inline]
    pub(super) fn keyed(&self, mask: u64) -> Keyed {
        let (key, symmetry) = self.key(mask);
        Keyed {
            mask,
            key,
            symmetry,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dots::Dots;
    use crate::games::dots::endgame::Rules;

    /// A random root set on `geo` (the empty board every third round) and a
    /// random position that holds it, both sparse.
    fn rooted_position(geo: &mut Geometry, rng: &mut crate::rng::Rng, round: usize) -> (u64, u64) {
        let full = geo.full;
        let mut sparse = || rng.next_u64() & rng.next_u64() & rng.next_u64() & full;
        let root = if round % 3 == 0 { 0 } else { sparse() };
        geo.set_root(root);
        (root, root | sparse() | sparse())
    }

    #[test]
    fn keys_look_only_at_images_that_hold_the_root_and_agree_on_them() {
        // On 3x3 and 4x4, from random roots: a position's key is one of its
        // images, and every image that holds the root has the same key (so
        // a symmetric transposition within the search is never missed);
        // from the empty board, every image.
        let mut rng = crate::rng::Rng::new(21);
        for (rows, cols) in [(3, 3), (4, 4), (2, 3)] {
            let board = Dots::new(rows, cols).unwrap();
            let rules = Rules {
                border_edges: false,
                ..Rules::ALL
            };
            let mut geo = Geometry::new(board, rules);
            let symmetries = board.symmetries();
            for round in 0..300 {
                let (root, position) = rooted_position(&mut geo, &mut rng, round);
                let (key, symmetry) = geo.key(position);
                assert_eq!(key, symmetries.image(symmetry, position));
                for s in 0..symmetries.count() {
                    let image = symmetries.image(s, position);
                    if image & root == root {
                        assert_eq!(geo.key(image).0, key, "{rows}x{cols} {root:b} {image:b}");
                    }
                }
                if root == 0 {
                    assert_eq!(key, symmetries.canonical(position));
                }
            }
        }
    }

    #[test]
    fn a_childs_key_from_its_parents_images_is_its_own_key() {
        // Every undrawn edge of random positions under random roots, with
        // and without symmetry and border normalisation, on square and
        // oblong boards: the key and symmetry from the parent's images are
        // those `key` works out for the child itself.
        let mut rng = crate::rng::Rng::new(2111);
        for (rows, cols) in [(3, 3), (4, 4), (4, 5), (5, 5), (2, 3)] {
            let board = Dots::new(rows, cols).unwrap();
            for (symmetry, border_edges) in [(true, true), (true, false), (false, true)] {
                let rules = Rules {
                    symmetry,
                    border_edges,
                    ..Rules::ALL
                };
                let mut geo = Geometry::new(board, rules);
                for round in 0..200 {
                    let (root, position) = rooted_position(&mut geo, &mut rng, round);
                    let images = geo.images(position);
                    let mut undrawn = geo.full & !position;
                    while undrawn != 0 {
                        let e = undrawn.trailing_zeros();
                        undrawn &= undrawn - 1;
                        assert_eq!(
                            geo.descendant_key(&images, 1 << e),
                            geo.key(position | 1 << e),
                            "{rows}x{cols} {rules:?} root {root:b} position {position:b} edge {e}"
                        );
                    }
                    // Several edges at once, as a sacrifice and the
                    // captures after it draw.
                    for _ in 0..8 {
                        let added = rng.next_u64() & rng.next_u64() & geo.full & !position;
                        assert_eq!(
                            geo.descendant_key(&images, added),
                            geo.key(position | added),
                            "{rows}x{cols} {rules:?} root {root:b} position {position:b} added {added:b}"
                        );
                    }
                }
            }
        }
    }
}
