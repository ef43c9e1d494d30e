//! Move ordering: the order a position's moves are searched in. The best
//! move of an earlier search of the position, then captures, then moves that give no box a third side, then the openings of
//! isolated components from the smallest, then the rest by how many boxes
//! they expose, each kind from the centre out.

use super::chains::Components;
use super::geometry::{Geometry, NO_BOX};
use super::sides::{Sides, any_capturable, members};
use super::step::{NO_CAP, Step, Steps};

/// The moves of a position by what they do, for
/// [`Geometry::ordered_moves`]: `candidates` are the undrawn edges worth
/// a look (a box's border edges stand for one another,
/// [`Rules::border_edges`](super::Rules::border_edges)); `captures` complete a box; `once` give some
/// box a third side, `twice` two boxes.
pub(super) struct MoveSets {
    candidates: u64,
    captures: u64,
    once: u64,
    twice: u64,
}

/// `steps[from..count]` with the best move of the table (`hint`) out of
/// it if it was searched already, else first among them (a chain node's
/// two steps); the new count.
#[inline]
pub(super) fn place_hint(
    steps: &mut Steps,
    (from, count): (usize, usize),
    hint: u8,
    searched: bool,
) -> usize {
    let Some(i) = steps[from..count].iter().position(|s| s.hint == hint) else {
        return count;
    };
    if searched {
        steps[from + i..count].rotate_left(1);
        count - 1
    } else {
        steps[from..=from + i].rotate_right(1);
        count
    }
}

impl Geometry {
    /// Whether `step` is one edge that gives no box a third side (nor
    /// completes one): its child has no capturable box the parent did not
    /// have, so no free captures.
    #[inline]
    pub(super) fn is_quiet(&self, sides: &Sides, step: &Step) -> bool {
        step.edges.count_ones() == 1
            && self.edge_boxes[usize::from(step.hint)]
                .iter()
                .all(|&b| b == NO_BOX || sides.two_or_more() & 1 << b == 0)
    }

    /// Boxes edge `e` completes, given the boxes' sides.
    #[inline]
    pub(super) fn gain_with(&self, sides: &Sides, e: u32) -> i32 {
        self.edge_boxes[e as usize]
            .iter()
            .filter(|&&b| b != NO_BOX && sides.three() & 1 << b != 0)
            .count() as i32
    }

    /// The single-edge step along `e`.
    #[inline]
    pub(super) fn edge_step(&self, sides: &Sides, e: u32) -> Step {
        let gain = self.gain_with(sides, e);
        Step {
            edges: 1 << e,
            gain,
            keeps_turn: gain > 0,
            hint: e as u8,
            cap: NO_CAP,
        }
    }

    /// The moves worth searching, best first, in a buffer with their count:
    /// at a position with a capturable box the captures and the
    /// double-deals they allow (without [`Rules::loony_moves`](super::Rules::loony_moves), the captures
    /// and then every other move by how many boxes it gives a third side),
    /// otherwise [`safe_moves`](Geometry::safe_moves) and then
    /// [`sacrifices`](Geometry::sacrifices).
    #[inline]
    pub(super) fn ordered_moves(
        &self,
        mask: u64,
        sides: &Sides,
        steps: &mut Steps,
        components: &mut Components,
    ) -> usize {
        let sets = self.move_sets(mask, sides);
        if !any_capturable(sides) {
            let count = self.safe_moves(&sets, sides, steps);
            return self.sacrifices(mask, sides, &sets, (steps, count), components);
        }
        let mut count = 0;
        self.push_from_centre(sets.captures, sides, steps, &mut count);
        let quiet = sets.candidates & !sets.captures;
        if self.rules.loony_moves && sets.captures != 0 {
            // The double-deal for each capturable box A: the other free edge
            // of the two-sided box B its capture edge leads into.
            let free = self.full & !mask;
            let mut double_deals = 0u64;
            let mut rest = sets.captures;
            while rest != 0 {
                let e = rest.trailing_zeros();
                rest &= rest - 1;
                for b in self.edge_boxes[e as usize] {
                    if b != NO_BOX && sides.two() & 1 << b != 0 {
                        double_deals |= free & self.box_masks[b as usize] & !(1 << e);
                    }
                }
            }
            self.push_from_centre(double_deals & !sets.captures, sides, steps, &mut count);
            return count;
        }
        for set in [
            quiet & !sets.once,
            quiet & sets.once & !sets.twice,
            quiet & sets.twice,
        ] {
            self.push_from_centre(set, sides, steps, &mut count);
        }
        count
    }

    /// The moves of `mask` sorted by what they do (see [`MoveSets`]).
    #[inline]
    pub(super) fn move_sets(&self, mask: u64, sides: &Sides) -> MoveSets {
        let free = self.full & !mask;
        let mut candidates = free;
        if self.rules.border_edges {
            for group in &self.border_groups {
                // All but the first undrawn one.
                let undrawn = group.edges & free;
                candidates &= !(undrawn & undrawn.wrapping_sub(1));
            }
        }
        // Exposure of each non-capturing edge: boxes it gives a third side.
        // Worked out box by box (a two-sided box exposes each of its
        // undrawn edges, an edge between two such boxes both), not edge by
        // edge through both boxes of each.
        let (mut once, mut twice, mut captures) = (0u64, 0u64, 0u64);
        for b in members(sides.two()) {
            let undrawn = self.box_masks[usize::from(b)] & free;
            twice |= once & undrawn;
            once |= undrawn;
        }
        for b in members(sides.three()) {
            captures |= self.box_masks[usize::from(b)] & free;
        }
        MoveSets {
            candidates,
            captures: captures & candidates,
            once,
            twice,
        }
    }

    /// The first moves of a position without a capturable box, from the
    /// centre outwards: those that give no box a third side. Their count.
    #[inline]
    pub(super) fn safe_moves(&self, sets: &MoveSets, sides: &Sides, steps: &mut Steps) -> usize {
        let mut count = 0;
        self.push_from_centre(sets.candidates & !sets.once, sides, steps, &mut count);
        count
    }

    /// The moves of a position without a capturable box after its
    /// [`safe_moves`](Geometry::safe_moves) (the first `count` of
    /// `steps`): the sacrifices, appended; the new count. A component at a
    /// time from the fewest boxes handed over: one box, two (the
    /// hard-hearted handout first), ...: ordered by exposure alone (the
    /// edges giving one box a third side, then those giving two), or with a
    /// chain of two's end before its middle, the search visits more
    /// positions (`solvedb bench dots:endgame` measures it).
    #[inline]
    pub(super) fn sacrifices(
        &self,
        mask: u64,
        sides: &Sides,
        sets: &MoveSets,
        (steps, count): (&mut Steps, usize),
        components: &mut Components,
    ) -> usize {
        let mut count = count;
        let component_count = if self.rules.isolated_components || self.rules.chain_ends {
            self.two_sided_components(mask, sides, components)
        } else {
            0
        };
        // Every move's value here has the parity of the unclaimed boxes
        // ([`Rules::margin_parity`]): caps round down to it.
        let parity = self
            .rules
            .margin_parity
            .then(|| (self.unclaimed(sides) & 1) as i8);
        let mut rest = sets.candidates & sets.once;
        for c in &components[..component_count] {
            rest &= !c.edges;
            for e in c.handout.into_iter().chain([c.opening]) {
                steps[count] = self.edge_step(sides, e);
                count += 1;
            }
            if self.rules.sacrifice_caps {
                steps[count - 1].cap = c.sacrifice_cap(parity);
            }
        }
        // The sacrifices no component above stands for: every one without
        // [`Rules::chain_ends`] and [`Rules::isolated_components`].
        self.push_from_centre(rest & !sets.twice, sides, steps, &mut count);
        self.push_from_centre(rest & sets.twice, sides, steps, &mut count);
        count
    }

    /// Appends the single-edge steps of `set` to `steps`, from the centre
    /// outwards: the set renumbered by distance from the centre, then read
    /// out in that order.
    #[inline]
    pub(super) fn push_from_centre(
        &self,
        set: u64,
        sides: &Sides,
        steps: &mut Steps,
        count: &mut usize,
    ) {
        let mut ranks = 0u64;
        let mut set = set;
        while set != 0 {
            ranks |= 1 << self.centre_rank[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        while ranks != 0 {
            let e = self.centre_first[ranks.trailing_zeros() as usize];
            steps[*count] = self.edge_step(sides, e);
            *count += 1;
            ranks &= ranks - 1;
        }
    }
}
