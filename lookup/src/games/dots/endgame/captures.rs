//! Free captures ([`Rules::free_captures`](super::Rules::free_captures)):
//! the boxes taken without branching before a position is searched.

use super::geometry::{Geometry, NO_BOX};
use super::sides::{Sides, members};
use super::step::Step;

impl Geometry {
    /// Takes every free capture: the position
    /// after them, with `sides` brought up to date, and the boxes taken.
    #[inline]
    pub(super) fn take_free_captures(&self, mask: u64, sides: &mut Sides) -> (u64, i32) {
        let mut mask = mask;
        let mut gain = 0;
        // Each capture starts the search again from the first capturable
        // box, as the order of captures can matter: a capture that gives a
        // box its second side makes a capture into that box no longer free.
        'capture: loop {
            for b in members(sides.three()) {
                let e = (self.box_masks[usize::from(b)] & !mask).trailing_zeros();
                let other = self.across(e, b);
                if other == NO_BOX || sides.two() & 1 << other == 0 {
                    for a in self.edge_boxes[e as usize] {
                        if a != NO_BOX {
                            sides.add(a);
                            gain += i32::from(sides.four() & 1 << a != 0);
                        }
                    }
                    mask |= 1 << e;
                    continue 'capture;
                }
            }
            break;
        }
        (mask, gain)
    }

    /// The position after `step` with its free captures taken, and the
    /// boxes those took: where the search of the child starts.
    pub(super) fn child_after_captures(&self, mask: u64, step: &Step) -> (u64, i32) {
        self.child_after_captures_with(mask, &self.sides_of(mask), step)
    }

    /// [`Geometry::child_after_captures`] given the position's `sides`.
    #[inline]
    pub(super) fn child_after_captures_with(
        &self,
        mask: u64,
        sides: &Sides,
        step: &Step,
    ) -> (u64, i32) {
        let child = mask | step.edges;
        if !self.rules.free_captures {
            return (child, 0);
        }
        let mut sides = *sides;
        let mut bits = step.edges;
        while bits != 0 {
            for b in self.edge_boxes[bits.trailing_zeros() as usize] {
                if b != NO_BOX {
                    sides.add(b);
                }
            }
            bits &= bits - 1;
        }
        self.take_free_captures(child, &mut sides)
    }
}
