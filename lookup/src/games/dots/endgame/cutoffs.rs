//! Enhanced transposition cutoffs
//! ([`Rules::transposition_cutoffs`](super::Rules::transposition_cutoffs)):
//! a position's children looked up in the table before any is searched.

use super::keys::{Images, Keyed};
use super::sides::Sides;
use super::step::Step;
use super::worker::Worker;

impl Worker<'_> {
    /// Enhanced transposition cutoff ([`Rules::transposition_cutoffs`](super::Rules::transposition_cutoffs)):
    /// a step whose child the table already proves at least `beta` for
    /// the player to move here, and that bound, without searching it. The
    /// upper bounds the table proves on the steps looked up before it are
    /// left in `uppers` (for [`Rules::transposition_skips`](super::Rules::transposition_skips)), and with
    /// [`Rules::prefetch`](super::Rules::prefetch) the children's keys in `keyed` for their
    /// searches.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transposition_cutoff(
        &self,
        mask: u64,
        sides: &Sides,
        calm: Option<&Images>,
        steps: &[Step],
        (low, beta): (i32, i32),
        keyed: &mut [Option<Keyed>],
        uppers: &mut [i32],
    ) -> Option<(u8, i32)> {
        if !self.geo.rules.prefetch {
            // One child at a time: keyed, probed, and no more keys once
            // one cuts.
            return steps.iter().zip(uppers).find_map(|(step, upper)| {
                let (child, taken) = self.cutoff_child(mask, sides, calm, step, low)?;
                self.cutoff_bound(step, child.key, taken, beta, upper)
            });
        }
        // Every child's key first, each bucket's load started as soon as
        // its key is known, then the probes: the cache misses overlap
        // instead of each waiting for the one before.
        let mut taken = [None; 64];
        for (i, step) in steps.iter().enumerate() {
            if let Some((child, boxes)) = self.cutoff_child(mask, sides, calm, step, low) {
                self.shared.table.prefetch(child.key);
                keyed[i] = Some(child);
                taken[i] = Some((child.key, boxes));
            }
        }
        steps
            .iter()
            .zip(&taken)
            .zip(uppers)
            .find_map(|((step, looked_up), upper)| {
                let (key, boxes) = (*looked_up)?;
                self.cutoff_bound(step, key, boxes, beta, upper)
            })
    }

    /// The child a transposition cutoff looks up for `step`, keyed, and the
    /// boxes its free captures take; `None` for a step whose sacrifice cap
    /// is at most `low`: it is not searched, so neither bound of its child
    /// could matter. `calm` are the images of a position without a
    /// capturable box: its children are keyed from them, a quiet one's
    /// with its edge, a sacrifice's with the edges it and the free
    /// captures after it draw.
    #[inline]
    pub(super) fn cutoff_child(
        &self,
        mask: u64,
        sides: &Sides,
        calm: Option<&Images>,
        step: &Step,
        low: i32,
    ) -> Option<(Keyed, i32)> {
        if i32::from(step.cap) <= low {
            return None;
        }
        if let Some(images) = calm.filter(|_| self.geo.is_quiet(sides, step)) {
            return Some((self.geo.quiet_child(images, mask, step), 0));
        }
        let (child, taken) = self.geo.child_after_captures_with(mask, sides, step);
        let keyed = match calm {
            Some(images) => self.geo.descendant(images, mask, child),
            None => self.geo.keyed(child),
        };
        Some((keyed, taken))
    }

    /// The step and the lower bound the table proves on it for the player
    /// to move here, if that is at least `beta`; the upper bound it proves
    /// goes to `upper` either way. The child's value for its mover is
    /// `taken` plus the value the table holds for its key, as `search`
    /// counts it.
    #[inline]
    pub(super) fn cutoff_bound(
        &self,
        step: &Step,
        key: u64,
        taken: i32,
        beta: i32,
        upper: &mut i32,
    ) -> Option<(u8, i32)> {
        let entry = self.shared.table.probe(key)?;
        let (child_lower, child_upper) = (taken + entry.lower, taken + entry.upper);
        let lower = if step.keeps_turn {
            *upper = step.gain + child_upper;
            step.gain + child_lower
        } else {
            *upper = step.gain - child_lower;
            step.gain - child_upper
        };
        (lower >= beta).then_some((step.hint, lower))
    }
}
