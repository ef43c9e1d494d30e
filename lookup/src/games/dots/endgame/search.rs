//! The node search: fail-soft alpha-beta on the box margin of one position
//! for the player to move, with the transposition table's bounds and best
//! move, and the moves another thread is searching deferred (ABDADA).
//!
//! A node, in order: its free captures; what settles it without a key
//! (the board's end, the boxes left against the window, a simple loony
//! endgame, the chain bound); the table; the table's best move; the other
//! moves' children looked up in the table ([`Rules::transposition_cutoffs`](super::Rules::transposition_cutoffs),
//! the safe moves before the sacrifices are listed); then every move, in
//! two passes where threads share the search. Its bounds go back to the
//! table.

use std::sync::atomic::{AtomicU64, Ordering};

use super::chains::Components;
use super::geometry::Geometry;
use super::keys::{Images, Keyed};
use super::ordering::{MoveSets, place_hint};
use super::parity::{down_to_parity, up_to_parity};
use super::sides::{Sides, any_capturable};
use super::step::Step;
use super::transposition::{Entry, NO_MOVE};
use super::worker::{Halt, Worker};

/// The fewest undrawn edges of a position whose children
/// [`Rules::transposition_cutoffs`](super::Rules::transposition_cutoffs) looks up.
const CUTOFF_MIN_UNDRAWN: u32 = 12;

/// The fewest undrawn edges of a node at which threads defer the moves
/// another thread is searching: below it subtrees are too small to share.
const DEFER_MIN_UNDRAWN: u32 = 16;

/// What a node knows once it has read the table: its position and window,
/// and how its moves map to the key's position.
struct Node<'s> {
    mask: u64,
    sides: &'s Sides,
    alpha: i32,
    beta: i32,
    /// The unclaimed boxes: the margin lies within `-remaining..=remaining`.
    remaining: i32,
    /// The parity of every margin here ([`Rules::margin_parity`](super::Rules::margin_parity)), or
    /// `None` where bounds are not rounded.
    parity: Option<i32>,
    undrawn: u32,
    capturable: bool,
    key: u64,
    /// A symmetry that takes this position to its key's.
    symmetry: usize,
    /// The best move of an earlier search of the position, as an edge of
    /// this position ([`NO_MOVE`] for none).
    hint: u8,
}

impl Node<'_> {
    /// The buffer of [`Worker::frames`] that holds this node's moves.
    #[inline]
    fn frame(&self) -> usize {
        self.undrawn as usize
    }

    /// Edge `e` of this position as an edge of the key's position, as the
    /// table's best-move field holds it.
    #[inline]
    fn keyed_edge(&self, geo: &Geometry, e: u8) -> u8 {
        geo.edge_maps[self.symmetry][usize::from(e)]
    }
}

/// What the search of a node's moves has found so far.
struct Progress {
    /// The best value found (or a bound standing for a move not searched).
    best: i32,
    /// Its move, as an edge of the key's position.
    best_move: u8,
    /// The window's bottom: the larger of `alpha` and the best value.
    low: i32,
    /// The position's images, for its quiet children's keys: worked out
    /// once where the first is needed.
    images: Option<Images>,
    /// Whether the table's best move has been searched already.
    searched_hint: bool,
}

impl Progress {
    /// A value (or a proved bound) of the move named `edge` in the key's
    /// position: the best so far if it beats it.
    #[inline]
    fn offer(&mut self, value: i32, edge: u8) {
        if value > self.best {
            self.best = value;
            self.best_move = edge;
        }
    }
}

/// The table's answer at a node: its value, or the best move to try first.
enum Probe {
    Settled(i32),
    Hint(u8),
}

/// What one move's visit came to.
enum Visit {
    /// Searched (or skipped on a proved bound) without refuting the window.
    Searched,
    /// Its value reached the window's top: the node is done.
    Refuted,
    /// Another thread is searching it: left for the second pass.
    Deferred,
}

impl<'a> Worker<'a> {
    /// Fail-soft alpha-beta: the margin of `mask` for the player to move if
    /// it lies inside `(alpha, beta)`, else a bound on the far side.
    pub(super) fn search(&mut self, mask: u64, alpha: i32, beta: i32) -> Result<i32, Halt> {
        self.search_keyed(mask, alpha, beta, None)
    }

    /// [`Worker::search`], with the key its parent may have worked out.
    fn search_keyed(
        &mut self,
        mask: u64,
        alpha: i32,
        beta: i32,
        keyed: Option<Keyed>,
    ) -> Result<i32, Halt> {
        self.tick()?;
        let mut sides = self.geo.sides_of(mask);
        let (mask, gain) = if self.geo.rules.free_captures {
            self.geo.take_free_captures(mask, &mut sides)
        } else {
            (mask, 0)
        };
        Ok(gain + self.search_after_captures(mask, &sides, alpha - gain, beta - gain, keyed)?)
    }

    /// The value of `step` from `mask` for the player to move there.
    fn step_value(
        &mut self,
        mask: u64,
        step: &Step,
        low: i32,
        beta: i32,
        keyed: Option<Keyed>,
    ) -> Result<i32, Halt> {
        let child = mask | step.edges;
        let g = step.gain;
        Ok(if step.keeps_turn {
            g + self.search_keyed(child, low - g, beta - g, keyed)?
        } else {
            g - self.search_keyed(child, g - beta, g - low, keyed)?
        })
    }

    /// The key of a quiet step's child (before any captures there), its
    /// bucket's load started; `images` are its parent's.
    fn key_child(&self, images: &Images, mask: u64, step: &Step) -> Keyed {
        let child = self.geo.quiet_child(images, mask, step);
        self.shared.table.prefetch(child.key);
        child
    }

    /// The key of a quiet step's child with [`Rules::prefetch`](super::Rules::prefetch), its
    /// bucket's load started (`None` for other steps); `images` are this
    /// position's, worked out where first needed.
    fn prefetched_child(
        &self,
        images: &mut Option<Images>,
        mask: u64,
        sides: &Sides,
        step: &Step,
    ) -> Option<Keyed> {
        (self.geo.rules.prefetch && self.geo.is_quiet(sides, step)).then(|| {
            let images = images.get_or_insert_with(|| self.geo.images(mask));
            self.key_child(images, mask, step)
        })
    }

    /// The search of a position whose free captures are taken: a node.
    fn search_after_captures(
        &mut self,
        mask: u64,
        sides: &Sides,
        alpha: i32,
        beta: i32,
        keyed: Option<Keyed>,
    ) -> Result<i32, Halt> {
        let geo = self.geo;
        if let Some(v) = self.settled_by_boxes(mask, sides, alpha, beta) {
            self.counts.settled += 1;
            return Ok(v);
        }
        let remaining = geo.unclaimed(sides);
        // Chain steps and their bound come before the table: the bound
        // often settles a sacrifice's refutation without the canonical key
        // and a probe.
        let undrawn = (geo.full & !mask).count_ones();
        let capturable = any_capturable(sides);
        let chain = if geo.rules.chain_captures && capturable {
            geo.chain_steps(mask, sides, &mut self.frames[undrawn as usize])
        } else {
            None
        };
        let parity = geo.rules.margin_parity.then_some(remaining & 1);
        if let Some(bound) = chain_bound(geo, chain, parity).filter(|&b| b >= beta) {
            self.counts.chain_bound += 1;
            return Ok(bound);
        }
        let (key, symmetry) = match keyed {
            Some(k) if k.mask == mask => (k.key, k.symmetry),
            _ => geo.key(mask),
        };
        let nodes_before = self.count;
        let hint = match self.probe(key, symmetry, alpha, beta) {
            Probe::Settled(v) => {
                self.counts.table += 1;
                return Ok(v);
            }
            Probe::Hint(hint) => hint,
        };
        let node = Node {
            mask,
            sides,
            alpha,
            beta,
            remaining,
            parity,
            undrawn,
            capturable,
            key,
            symmetry,
            hint,
        };
        let mut progress = Progress {
            best: i32::MIN,
            best_move: NO_MOVE,
            low: alpha,
            images: None,
            searched_hint: false,
        };
        if let Some(bound) =
            self.search_moves(&node, chain.map(|(count, _)| count), &mut progress)?
        {
            return Ok(bound);
        }
        Ok(self.store(&node, &progress, nodes_before))
    }

    /// The value of a node that needs no search: the full board, a window
    /// the unclaimed boxes cannot reach, or a simple loony endgame
    /// ([`Rules::component_values`](super::Rules::component_values)).
    #[inline]
    fn settled_by_boxes(&mut self, mask: u64, sides: &Sides, alpha: i32, beta: i32) -> Option<i32> {
        let geo = self.geo;
        if mask == geo.full {
            return Some(0);
        }
        let remaining = geo.unclaimed(sides);
        if remaining <= alpha {
            return Some(remaining);
        }
        if -remaining >= beta {
            return Some(-remaining);
        }
        if geo.rules.component_values {
            return geo.simple_loony_value(mask, sides, &mut self.loony_memo);
        }
        None
    }

    /// The table's bounds on the position keyed `key`: its value where they
    /// settle the window, else its best move (if any) as an edge of this
    /// position.
    #[inline]
    fn probe(&self, key: u64, symmetry: usize, alpha: i32, beta: i32) -> Probe {
        let Some(entry) = self.shared.table.probe(key) else {
            return Probe::Hint(NO_MOVE);
        };
        let (lower, upper) = (entry.lower, entry.upper);
        if lower >= beta || lower == upper {
            return Probe::Settled(lower);
        }
        if upper <= alpha {
            return Probe::Settled(upper);
        }
        if entry.best == NO_MOVE {
            return Probe::Hint(NO_MOVE);
        }
        Probe::Hint(self.geo.inverse_maps[symmetry][entry.best as usize])
    }

    /// Searches the node's moves (`chain`: the count of its chain steps,
    /// already in its frame, where it has them), leaving what it finds in
    /// `progress`; a transposition cutoff's bound, already stored, where
    /// one ends the node.
    fn search_moves(
        &mut self,
        node: &Node,
        chain: Option<usize>,
        progress: &mut Progress,
    ) -> Result<Option<i32>, Halt> {
        let geo = self.geo;
        // The best move of an earlier search of this position is searched
        // before the others are generated: where it refutes the window
        // again, neither the move list nor the cutoffs' lookups are needed.
        // Chain nodes have their two steps at once. The best move is an
        // edge of the key's position, whose border edges are normalised:
        // it may be drawn here, where an interchangeable one stands for it
        // in the list.
        let hint_first = chain.is_none()
            && node.hint != NO_MOVE
            && (geo.full & !node.mask) & 1 << node.hint != 0;
        if hint_first && self.search_hint(node, progress)? {
            self.counts.best_move += 1;
            return Ok(None);
        }
        let cutoffs = geo.rules.transposition_cutoffs && node.undrawn >= CUTOFF_MIN_UNDRAWN;
        let (count, sacrifices_due) = self.list_moves(node, chain, cutoffs);
        let mut count = place_hint(
            &mut self.frames[node.frame()],
            (0, count),
            node.hint,
            progress.searched_hint,
        );
        // What the cutoffs' lookups found on each move (upper bounds, no
        // bound being i32::MAX) and the children's keys they worked out;
        // two kilobytes, so set only where they run.
        let (mut keyed_here, mut uppers_here);
        let (mut keyed, mut uppers): (&[Option<Keyed>], &[i32]) = (&[], &[]);
        if cutoffs {
            (keyed_here, uppers_here) = ([None; 64], [i32::MAX; 64]);
            let looked_up = (&mut keyed_here, &mut uppers_here);
            let cut =
                self.cutoff_before_search(node, progress, &mut count, sacrifices_due, looked_up);
            if cut.is_some() {
                self.counts.transposition_cutoffs += 1;
                return Ok(cut);
            }
            keyed = &keyed_here;
            if geo.rules.transposition_skips {
                uppers = &uppers_here;
            }
        }
        self.search_listed(node, progress, count, (keyed, uppers))?;
        Ok(None)
    }

    /// Searches the table's best move first; whether it refuted the window.
    #[inline]
    fn search_hint(&mut self, node: &Node, progress: &mut Progress) -> Result<bool, Halt> {
        let step = self.geo.edge_step(node.sides, u32::from(node.hint));
        let child_key = self.prefetched_child(&mut progress.images, node.mask, node.sides, &step);
        let v = self.step_value(node.mask, &step, progress.low, node.beta, child_key)?;
        progress.best = v;
        progress.best_move = node.keyed_edge(self.geo, node.hint);
        progress.low = progress.low.max(v);
        if progress.low >= node.beta {
            return Ok(true);
        }
        progress.searched_hint = true;
        Ok(false)
    }

    /// Lists the node's moves in its frame, best first; their count, and
    /// the move sets whose sacrifices are still to be listed.
    ///
    /// At a position without a capturable box where the cutoffs run, the
    /// safe moves are listed and looked up first, the sacrifices only where
    /// no safe move's child is a cutoff: a cutoff found among the safe
    /// moves needs neither the components nor the sacrifices' children
    /// keyed, and the list's order is the same.
    #[inline]
    fn list_moves(
        &mut self,
        node: &Node,
        chain: Option<usize>,
        cutoffs: bool,
    ) -> (usize, Option<MoveSets>) {
        let geo = self.geo;
        let (mask, sides) = (node.mask, node.sides);
        let steps = &mut self.frames[node.frame()];
        match chain {
            Some(count) => (count, None),
            None if cutoffs && !node.capturable => {
                let sets = geo.move_sets(mask, sides);
                let count = geo.safe_moves(&sets, sides, steps);
                (count, Some(sets))
            }
            None => (
                geo.ordered_moves(mask, sides, steps, &mut self.components),
                None,
            ),
        }
    }

    /// Looks the listed moves' children up in the table
    /// ([`Rules::transposition_cutoffs`](super::Rules::transposition_cutoffs)), then the sacrifices' once they
    /// are listed (`sacrifices_due`, raising `count`): the bound of a child
    /// that refutes the window, stored as the node's, or `None` with what
    /// the lookups found left in `looked_up`.
    fn cutoff_before_search(
        &mut self,
        node: &Node,
        progress: &mut Progress,
        count: &mut usize,
        sacrifices_due: Option<MoveSets>,
        (keyed, uppers): (&mut [Option<Keyed>; 64], &mut [i32; 64]),
    ) -> Option<i32> {
        let geo = self.geo;
        let calm = (!node.capturable)
            .then(|| *progress.images.get_or_insert_with(|| geo.images(node.mask)));
        let mut sacrifices_due = sacrifices_due;
        let mut from = 0;
        loop {
            let found = self.transposition_cutoff(
                node.mask,
                node.sides,
                calm.as_ref(),
                &self.frames[node.frame()][from..*count],
                (progress.low, node.beta),
                &mut keyed[from..],
                &mut uppers[from..],
            );
            if let Some((e, bound)) = found {
                let entry = Entry {
                    lower: bound,
                    upper: node.remaining,
                    best: node.keyed_edge(geo, e),
                };
                self.shared.table.store(node.key, entry, 0);
                return Some(bound);
            }
            let sets = sacrifices_due.take()?;
            from = *count;
            *count = self.list_sacrifices(node, &sets, *count, progress.searched_hint);
        }
    }

    /// Appends the node's sacrifices to its frame's first `count` moves;
    /// the new count.
    #[inline]
    fn list_sacrifices(
        &mut self,
        node: &Node,
        sets: &MoveSets,
        count: usize,
        searched_hint: bool,
    ) -> usize {
        let frame = &mut self.frames[node.frame()];
        let components: &mut Components = &mut self.components;
        let all = self.geo.sacrifices(
            node.mask,
            node.sides,
            sets,
            (&mut *frame, count),
            components,
        );
        place_hint(frame, (count, all), node.hint, searched_hint)
    }

    /// Searches the first `count` moves of the node's frame in order, with
    /// what the cutoffs' lookups found on each (`keyed` children, proved
    /// `uppers`; empty where they did not run). Where threads share the
    /// search, moves another thread is searching wait for a second pass.
    fn search_listed(
        &mut self,
        node: &Node,
        progress: &mut Progress,
        count: usize,
        looked_up: (&[Option<Keyed>], &[i32]),
    ) -> Result<(), Halt> {
        let defer = !self.shared.busy.is_empty() && node.undrawn >= DEFER_MIN_UNDRAWN;
        let mut order = [0u8; 64];
        for (i, slot) in order[..count].iter_mut().enumerate() {
            *slot = i as u8;
        }
        let mut len = count;
        for pass in 0..2 {
            let mut deferred = [0u8; 64];
            let mut deferred_count = 0;
            for (n, &i) in order[..len].iter().enumerate() {
                match self.visit(node, progress, i, (pass == 0, defer), looked_up)? {
                    Visit::Searched => {}
                    Visit::Refuted => {
                        self.count_refutation(node, i, pass == 0 && n == 0);
                        return Ok(());
                    }
                    Visit::Deferred => {
                        deferred[deferred_count] = i;
                        deferred_count += 1;
                    }
                }
            }
            if deferred_count == 0 {
                break;
            }
            order = deferred;
            len = deferred_count;
        }
        Ok(())
    }

    /// Searches move `i` of the node's frame, unless a bound proves it
    /// cannot raise the window's bottom, or (on the `first_pass`, where
    /// threads `defer`) another thread is searching it.
    #[inline]
    fn visit(
        &mut self,
        node: &Node,
        progress: &mut Progress,
        i: u8,
        (first_pass, defer): (bool, bool),
        (keyed, uppers): (&[Option<Keyed>], &[i32]),
    ) -> Result<Visit, Halt> {
        let geo = self.geo;
        let step = self.frames[node.frame()][usize::from(i)];
        let proved = uppers.get(usize::from(i)).copied().unwrap_or(i32::MAX);
        let cap = i32::from(step.cap).min(proved);
        if cap <= progress.low {
            // The table ([`Rules::transposition_skips`]) or the chain bound
            // ([`Rules::sacrifice_caps`]) proves this move cannot raise the
            // window's bottom.
            progress.offer(cap, node.keyed_edge(geo, step.hint));
            return Ok(Visit::Searched);
        }
        // A quiet child is keyed here, so that the load of its bucket
        // overlaps the first checks of its search.
        let child_key =
            keyed.get(usize::from(i)).copied().flatten().or_else(|| {
                self.prefetched_child(&mut progress.images, node.mask, node.sides, &step)
            });
        // Young brothers another thread is searching wait for the second
        // pass (ABDADA); the eldest is always searched. A child is busy by
        // its key where it has one: symmetric children (the moves of the
        // empty board's classes) are one position, and two threads
        // searching two images of it at once would each search it whole.
        let busy = child_key
            .map_or(node.mask | step.edges, |k| k.key)
            .wrapping_add(1);
        let marked = defer && (i > 0 || progress.searched_hint);
        if marked {
            let slot = self.busy_slot(busy);
            if first_pass && slot.load(Ordering::Relaxed) == busy {
                return Ok(Visit::Deferred);
            }
            slot.store(busy, Ordering::Relaxed);
        }
        let value = self.step_value(node.mask, &step, progress.low, node.beta, child_key);
        if marked {
            release(self.busy_slot(busy), busy);
        }
        let v = value?;
        progress.offer(v, node.keyed_edge(geo, step.hint));
        progress.low = progress.low.max(v);
        Ok(if progress.low >= node.beta {
            Visit::Refuted
        } else {
            Visit::Searched
        })
    }

    /// Counts a node refuted by move `i` of its frame (`first`: the first
    /// visited of its list).
    #[inline]
    fn count_refutation(&mut self, node: &Node, i: u8, first: bool) {
        let step = self.frames[node.frame()][usize::from(i)];
        let counts = &mut self.counts;
        counts.refuted += 1;
        counts.refuted_first += u64::from(first);
        let sacrifice = !node.capturable && !self.geo.is_quiet(node.sides, &step);
        counts.refuted_by_sacrifice += u64::from(sacrifice);
    }

    /// Stores the node's bounds from its best value (rounded away from the
    /// window to the margins' parity) and returns that value.
    #[inline]
    fn store(&mut self, node: &Node, progress: &Progress, nodes_before: u64) -> i32 {
        let (alpha, beta, remaining) = (node.alpha, node.beta, node.remaining);
        // Refuted nodes were counted where their refutation was found.
        self.counts.failed_low += u64::from(progress.best < beta);
        let best = match node.parity {
            Some(p) if progress.best <= alpha => down_to_parity(progress.best, p),
            Some(p) if progress.best >= beta => up_to_parity(progress.best, p),
            _ => progress.best,
        };
        let (lower, upper) = if best <= alpha {
            (-remaining, best)
        } else if best >= beta {
            (best, remaining)
        } else {
            (best, best)
        };
        let entry = Entry {
            lower,
            upper,
            best: progress.best_move,
        };
        self.shared
            .table
            .store(node.key, entry, self.count - nodes_before);
        best
    }
}

/// The chain bound ([`Rules::chain_bound`](super::Rules::chain_bound)) of a position whose capturable
/// boxes all head chains (`chain`: their steps' count and boxes), rounded up
/// to the margins' `parity`.
#[inline]
fn chain_bound(geo: &Geometry, chain: Option<(usize, i32)>, parity: Option<i32>) -> Option<i32> {
    let (_, chain_boxes) = chain.filter(|_| geo.rules.chain_bound)?;
    let bound = chain_boxes - 2;
    Some(parity.map_or(bound, |p| up_to_parity(bound, p)))
}

/// Clears a busy mark this thread set, unless another thread's has
/// replaced it.
#[inline]
fn release(slot: &AtomicU64, busy: u64) {
    let _ = slot.compare_exchange(busy, 0, Ordering::Relaxed, Ordering::Relaxed);
}
