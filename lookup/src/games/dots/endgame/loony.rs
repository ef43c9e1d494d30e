//! Simple loony endgames
//! ([`Rules::component_values`](super::Rules::component_values)): a
//! position in which every unclaimed box has two sides is a union of
//! chains and loops, valued without search by the component recursion of
//! Berlekamp (*The Dots and Boxes Game*, ch. 3) and Buzzard & Ciere
//! ("Playing simple loony dots and boxes endgames optimally", §3).

use std::collections::HashMap;

use super::geometry::{Geometry, NO_BOX};
use super::sides::Sides;

/// The values of simple loony endgames worked out so far, by their
/// components (`(is_loop, boxes)`, sorted).
pub(super) type LoonyMemo = HashMap<Vec<(bool, u8)>, i32>;

impl Geometry {
    /// The value of a simple loony endgame (every unclaimed box has two
    /// sides, chains of 3+ and loops of 4+, or chains of any length with
    /// [`Rules::short_chains`](super::Rules::short_chains)), or `None` for
    /// other positions.
    #[inline]
    pub(super) fn simple_loony_value(
        &self,
        mask: u64,
        sides: &Sides,
        memo: &mut LoonyMemo,
    ) -> Option<i32> {
        if self.unclaimed(sides) != sides.two().count_ones() as i32 {
            return None;
        }
        let components = self.loony_components(mask, sides)?;
        Some(components_value(memo, components))
    }

    /// The chains and loops of a position whose unclaimed boxes all have two
    /// sides, sorted; `None` where one is too short for the recursion.
    fn loony_components(&self, mask: u64, sides: &Sides) -> Option<Vec<(bool, u8)>> {
        let open = u64::from(sides.two()); // unclaimed boxes, as a bit set
        let free = self.full & !mask;
        // The boxes across each free edge of box b (NO_BOX for the border).
        let neighbours = |b: usize| -> [u8; 2] {
            let mut out = [NO_BOX; 2];
            let mut edges = free & self.box_masks[b];
            let mut i = 0;
            while edges != 0 {
                let e = edges.trailing_zeros();
                edges &= edges - 1;
                out[i] = self.across(e, b as u8);
                i += 1;
            }
            out
        };
        let shortest_chain = if self.rules.short_chains { 1 } else { 3 };
        let mut components = Vec::new();
        let mut unseen = open;
        // Chains first: start at a box with a free edge on the border.
        for pass in 0..2 {
            let mut candidates = unseen;
            while candidates != 0 {
                let start = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if unseen & 1 << start == 0 {
                    continue;
                }
                if pass == 0 && !neighbours(start).contains(&NO_BOX) {
                    continue;
                }
                let mut length = 0u8;
                let (mut previous, mut current) = (NO_BOX, start as u8);
                loop {
                    unseen &= !(1 << current);
                    length += 1;
                    let next = neighbours(current as usize)
                        .into_iter()
                        .find(|&n| n != previous && n != NO_BOX && unseen & 1 << n != 0);
                    match next {
                        Some(n) => (previous, current) = (current, n),
                        None => break,
                    }
                }
                let is_loop = pass == 1;
                if length < if is_loop { 4 } else { shortest_chain } {
                    return None;
                }
                components.push((is_loop, length));
            }
        }
        components.sort_unstable();
        Some(components)
    }
}

/// Berlekamp's recursion for simple loony endgames: the player to move
/// opens the component that is best for them; the opponent takes it all
/// and moves next, or takes all but 2 (4 in a loop) and hands them over
/// (not possible in a chain of one or two: a two-chain is opened in its
/// middle).
fn components_value(memo: &mut LoonyMemo, components: Vec<(bool, u8)>) -> i32 {
    if components.is_empty() {
        return 0;
    }
    if let Some(&v) = memo.get(&components) {
        return v;
    }
    let mut best = i32::MIN;
    for i in 0..components.len() {
        if i > 0 && components[i] == components[i - 1] {
            continue;
        }
        let (is_loop, length) = components[i];
        let mut rest = components.clone();
        rest.remove(i);
        let after = components_value(memo, rest);
        let n = i32::from(length);
        let opponent = match (is_loop, length) {
            (true, _) => (n + after).max(n - 8 - after),
            (false, 3..) => (n + after).max(n - 4 - after),
            (false, _) => n + after,
        };
        best = best.max(-opponent);
    }
    memo.insert(components, best);
    best
}
