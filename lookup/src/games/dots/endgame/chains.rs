//! Chains and loops: the capturable chains taken as whole turns
//! ([`Rules::chain_captures`](super::Rules::chain_captures)), the components of two-sided boxes the search
//! opens at one edge ([`Rules::isolated_components`](super::Rules::isolated_components), [`Rules::chain_ends`](super::Rules::chain_ends)),
//! and the sacrifice caps of opening them.

use super::geometry::{Geometry, NO_BOX};
use super::parity::down_to_parity;
use super::sides::{MAX_BOXES, Sides, members};
use super::step::{NO_CAP, Step, Steps};

/// Boxes of two sides joined by undrawn edges, as the search opens them:
/// an isolated chain or loop ([`Rules::isolated_components`](super::Rules::isolated_components)) or a chain
/// from the border or a box of at most one side to another
/// ([`Rules::chain_ends`](super::Rules::chain_ends)).
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Component {
    pub(super) is_loop: bool,
    pub(super) isolated: bool,
    pub(super) boxes: u8,
    /// Its undrawn edges (an isolated one's twins' too): out of the move
    /// list, where it stands for them with its opening (and handout).
    pub(super) edges: u64,
    /// The edge it is opened at: the one end searched of a chain that is
    /// not isolated.
    pub(super) opening: u32,
    /// A chain of two that is not isolated: its middle edge (the
    /// hard-hearted handout), searched before its end.
    pub(super) handout: Option<u32>,
}

impl Component {
    /// An upper bound on the value of opening this component at
    /// [`Component::opening`] for the player who opens it
    /// ([`Rules::sacrifice_caps`](super::Rules::sacrifice_caps)), or [`NO_CAP`]. A chain of `k >= 2`
    /// opened at an end hands the opponent a capturable chain of `k`
    /// boxes, worth at least `k - 2` to them (the chain bound: take all,
    /// `k + v`, or all but two, `k - 4 - v`, `v` the rest's value for the
    /// one who moves next, and the larger is `k - 2 + |v + 2|`); a loop of
    /// `k` opened anywhere, at least `k - 4` (all, `k + v`, or all but
    /// four, `k - 8 - v`). The opening of an isolated chain of two is its
    /// middle edge, which hands over two single boxes: no cap. With the
    /// `parity` of the position's margins ([`Rules::margin_parity`](super::Rules::margin_parity)) the
    /// cap rounds down to it.
    #[inline]
    pub(super) fn sacrifice_cap(&self, parity: Option<i8>) -> i8 {
        let k = self.boxes as i8;
        let cap = match (self.is_loop, self.isolated, k) {
            (true, _, _) => 4 - k,
            (false, true, 3..) | (false, false, 2..) => 2 - k,
            _ => return NO_CAP,
        };
        // Caps lie within -30..=0, so the rounded cap fits an i8 again.
        parity.map_or(cap, |p| down_to_parity(cap.into(), p.into()) as i8)
    }
}

/// Room for a position's components ([`Geometry::two_sided_components`]).
pub(super) type Components = [Component; MAX_BOXES];

/// A component of two-sided boxes as [`Geometry::two_sided_components`]
/// walks it.
struct Walk {
    boxes: u8,
    /// Its undrawn edges.
    edges: u64,
    /// Those between two of its boxes.
    links: u64,
    /// Those on the border.
    ground: u64,
    /// Whether no box of it has an undrawn edge into a box outside it.
    isolated: bool,
}

impl Walk {
    /// A chain from a box of at most one side or the border to another (a
    /// component that is not isolated has an end, so it is a path), opened
    /// at one end: its two ends are one move and its inner edges no better
    /// ([`Rules::chain_ends`](super::Rules::chain_ends)); a chain of two
    /// keeps its middle edge, the hard-hearted handout.
    #[inline]
    fn chain(&self) -> Component {
        Component {
            is_loop: false,
            isolated: false,
            boxes: self.boxes,
            edges: self.edges,
            opening: (self.edges & !self.links).trailing_zeros(),
            handout: (self.boxes == 2).then(|| self.links.trailing_zeros()),
        }
    }

    /// An isolated chain or loop, opened at its one edge
    /// ([`Rules::isolated_components`](super::Rules::isolated_components)).
    #[inline]
    fn isolated(&self) -> Component {
        let is_loop = self.ground == 0;
        let opening = if is_loop || self.boxes == 1 {
            self.edges.trailing_zeros()
        } else if self.boxes == 2 {
            // The edge between the two boxes: the hard-hearted handout.
            (self.edges & !self.ground).trailing_zeros()
        } else {
            self.ground.trailing_zeros()
        };
        Component {
            is_loop,
            isolated: true,
            boxes: self.boxes,
            edges: self.edges,
            opening,
            handout: None,
        }
    }
}

impl Geometry {
    /// [`Rules::chain_captures`](super::Rules::chain_captures): both turns for every capturable box, if
    /// each heads a chain that ends on the border or at a box of at most
    /// one side; `None` if some capturable box heads anything else.
    #[inline]
    pub(super) fn chain_steps(
        &self,
        mask: u64,
        sides: &Sides,
        steps: &mut Steps,
    ) -> Option<(usize, i32)> {
        let free = self.full & !mask;
        let mut count = 0;
        let mut all_boxes = 0;
        for a in members(sides.three()) {
            let first = (free & self.box_masks[a as usize]).trailing_zeros();
            let mut current = self.across(first, a);
            if current == NO_BOX || sides.two() & 1 << current == 0 {
                return None;
            }
            // Boxes a = b0, b1, ..., bk along edges e0 .. ek; `before_last`
            // is e(k-1), between the last two boxes.
            let (mut edges, mut last) = (1u64 << first, first);
            let mut before_last;
            let mut boxes = 1;
            loop {
                boxes += 1;
                let out = (free & self.box_masks[current as usize] & !edges).trailing_zeros();
                (before_last, last) = (last, out);
                edges |= 1 << out;
                let next = self.across(out, current);
                if next == NO_BOX {
                    break;
                }
                if sides.two() & 1 << next != 0 {
                    current = next;
                } else if sides.two_or_more() & 1 << next == 0 {
                    break;
                } else {
                    return None;
                }
            }
            steps[count] = Step {
                edges,
                gain: boxes,
                keeps_turn: true,
                hint: first as u8,
                cap: NO_CAP,
            };
            steps[count + 1] = Step {
                edges: edges & !(1 << before_last),
                gain: boxes - 2,
                keeps_turn: false,
                hint: last as u8,
                cap: NO_CAP,
            };
            count += 2;
            all_boxes += boxes;
        }
        Some((count, all_boxes))
    }

    /// The components of a position without capturable boxes made of
    /// boxes with two sides, joined by their undrawn edges, fewest boxes
    /// first: the isolated chains and loops, one of each kind and length
    /// ([`Rules::isolated_components`](super::Rules::isolated_components)), and the other chains
    /// ([`Rules::chain_ends`](super::Rules::chain_ends)).
    #[inline]
    pub(super) fn two_sided_components(
        &self,
        mask: u64,
        sides: &Sides,
        out: &mut Components,
    ) -> usize {
        let free = self.full & !mask;
        let mut count = 0;
        let mut seen = 0u64;
        for start in members(sides.two()) {
            if seen & 1 << start != 0 {
                continue;
            }
            let walk = self.walk_component(start, free, sides, &mut seen);
            if !walk.isolated {
                if self.rules.chain_ends {
                    out[count] = walk.chain();
                    count += 1;
                }
                continue;
            }
            if !self.rules.isolated_components {
                continue;
            }
            let component = walk.isolated();
            if let Some(twin) = out[..count].iter_mut().find(|c| {
                c.isolated && c.is_loop == component.is_loop && c.boxes == component.boxes
            }) {
                // Alike: only the first is opened; the twin's edges are
                // dropped as well.
                twin.edges |= component.edges;
                continue;
            }
            out[count] = component;
            count += 1;
        }
        out[..count].sort_unstable_by_key(|c| (c.boxes, c.is_loop));
        count
    }

    /// The component of two-sided boxes that box `start` is in, joined by
    /// the `free` edges, its boxes added to `seen`.
    #[inline]
    fn walk_component(&self, start: u8, free: u64, sides: &Sides, seen: &mut u64) -> Walk {
        let (mut stack, mut depth) = ([0u8; MAX_BOXES], 1);
        stack[0] = start;
        *seen |= 1 << start;
        let mut walk = Walk {
            boxes: 0,
            edges: 0,
            links: 0,
            ground: 0,
            isolated: true,
        };
        while depth > 0 {
            depth -= 1;
            let b = stack[depth];
            walk.boxes += 1;
            let mut own = free & self.box_masks[b as usize];
            walk.edges |= own;
            while own != 0 {
                let e = own.trailing_zeros();
                own &= own - 1;
                let other = self.across(e, b);
                if other == NO_BOX {
                    walk.ground |= 1 << e;
                } else if sides.two() & 1 << other == 0 {
                    walk.isolated = false;
                } else {
                    walk.links |= 1 << e;
                    if *seen & 1 << other == 0 {
                        *seen |= 1 << other;
                        stack[depth] = other;
                        depth += 1;
                    }
                }
            }
        }
        walk
    }
}
