//! The solver and its driver: MTD(f)'s null-window tests of a position,
//! each run on the solver's threads.
//!
//! Every null-window test of a position with enough undrawn edges runs on
//! all of the solver's threads over the one shared transposition table
//! (Lazy SMP): each thread searches the same window, and a thread that
//! reaches a position whose first move another thread is searching defers
//! the moves others are busy with to the end of its list (the deferral of
//! ABDADA, Weill 1996, through a small table of positions being searched,
//! by canonical key where the child has one, so two images of one
//! position count as one), so the threads spread over different subtrees
//! and share what they prove. The first thread to finish answers; the
//! others stop. Every thread's result is exact, so the answer does not
//! depend on which.
//!
//! Without limits (no node budget, time or cancellation), two tests run at
//! once instead where two are due: MTD(f)'s first two (those that prove a
//! margin of 0, or +1 with an odd number of boxes left), and the tests of
//! two classes of moves; each starts on its own thread, and a thread whose
//! test is answered helps with the other. Lazy SMP on one test has two
//! threads search many positions both; two tests side by side give each
//! thread its own.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::Rules;
use super::geometry::Geometry;
use super::parity::to_parity;
use super::transposition::TranspositionTable;
use super::worker::{Scratch, Shared, Worker};
use crate::error::Error;
use crate::game::{ExactSolver, MoveScores, SearchLimits};
use crate::games::dots::{Dots, Edges};
use crate::stop::Stop;
use crate::value::Score;

/// The fewest undrawn edges of a position searched on more than one
/// thread: below it a search takes milliseconds, less than starting
/// threads is worth.
const PARALLEL_MIN_UNDRAWN: u32 = 26;

/// Slots of the table of positions being searched (ABDADA's marks).
const BUSY_SLOTS: usize = 1 << 16;

/// An exact solver for one dots-and-boxes board. Keeps its transposition
/// table between calls, so asking about a position and then its children
/// shares work.
///
/// ```
/// use solvedb_lookup::games::dots::EndgameSolver;
/// use solvedb_lookup::{Dots, Game, SearchLimits};
///
/// let board = Dots::new(2, 2)?;
/// let mut solver = EndgameSolver::new(board, SearchLimits::default());
/// assert_eq!(solver.solve(board.start())?, 2);
/// # Ok::<(), solvedb_lookup::Error>(())
/// ```
#[derive(Debug)]
pub struct EndgameSolver {
    pub(super) board: Dots,
    pub(super) geo: Geometry,
    pub(super) limits: SearchLimits,
    threads: usize,
    pub(super) table: TranspositionTable,
    busy: Box<[AtomicU64]>,
    pub(super) nodes: u64,
    /// The main thread's memo and buffers between searches (made by the
    /// first).
    scratch: Option<Scratch>,
}

/// The memory of the transposition table of [`EndgameSolver::new`]:
/// `2^edges` bytes, at least 64 KiB and at most 256 MiB (4x4 and
/// larger): a solver is cheap to make for small boards, big enough for big
/// ones. A search with a node budget stores at most that many entries, so
/// its table need hold no more than the budget's next power of two of
/// 8-byte entries; it keeps at least 64 MiB where the board's own size is
/// more (a 5x5 table's least with one word an entry, which threads can
/// share). The server's and the CLI's budget of 10,000,000 positions so
/// takes 128 MiB instead of 256, and a small budget 64 MiB on small pages:
/// a request pays for every page its search touches, and on a virtual
/// machine the first touch of a huge page is slow.
fn default_table_bytes(board: Dots, budget: Option<u64>) -> u64 {
    let for_board: u64 = 1 << board.edges().clamp(16, 28);
    let Some(nodes) = budget else {
        return for_board;
    };
    let for_budget = nodes
        .checked_next_power_of_two()
        .map_or(u64::MAX, |entries| entries.saturating_mul(8));
    for_board.min(for_budget.max(64 << 20))
}

/// The most entries (a power of two, as its exponent) whose table for
/// `board` fits in `bytes`.
fn entry_bits_within(board: Dots, bytes: u64) -> u32 {
    (2..=40)
        .take_while(|&bits| TranspositionTable::bytes(bits, board.edges()) <= bytes)
        .last()
        .unwrap_or(2)
}

/// The table size `limits` ask for on `board`, as the exponent of its
/// entries: their `table_bytes`, else the default for their node budget.
fn table_bits_for(board: Dots, limits: &SearchLimits) -> u32 {
    let bytes = limits
        .table_bytes
        .unwrap_or_else(|| default_table_bytes(board, limits.nodes));
    entry_bits_within(board, bytes)
}

/// The threads `limits` ask for: all cores unless said.
fn threads_of(limits: &SearchLimits) -> usize {
    limits
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

impl EndgameSolver {
    /// A solver with every rule and the default table size.
    pub fn new(board: Dots, limits: SearchLimits) -> EndgameSolver {
        let bits = table_bits_for(board, &limits);
        EndgameSolver::with_rules(board, limits, Rules::ALL, bits)
    }

    /// A solver with chosen rules and a table of `2^table_bits` entries (8
    /// bytes each, 16 where a board's key is too long for the table's
    /// quotient to fit beside the data: see the `transposition` module).
    pub fn with_rules(
        board: Dots,
        limits: SearchLimits,
        rules: Rules,
        table_bits: u32,
    ) -> EndgameSolver {
        // Allocated by the first search: an oracle that answers from a
        // table never needs it.
        let mut table = TranspositionTable::new(table_bits, board.edges());
        table.set_merge(rules.two_bounds);
        table.set_huge_pages(rules.huge_pages);
        EndgameSolver {
            board,
            geo: Geometry::new(board, rules),
            threads: threads_of(&limits),
            limits,
            table,
            busy: Box::new([]),
            nodes: 0,
            scratch: None,
        }
    }

    /// Takes the `limits` of the next searches and counts positions from
    /// zero again, keeping the transposition table and what it holds: each
    /// entry is a proved bound on the position of its own key, found from
    /// whatever root (a key is an image of the position, and an image has
    /// the position's value), so a later search from another root may use
    /// it. Along one game the positions after the first are found mostly
    /// in the table (`docs/dots-and-boxes.md`: 4–6× less time on 5×5).
    /// `false`, changing nothing, where `limits` ask for a table of
    /// another size.
    pub fn renew(&mut self, limits: SearchLimits) -> bool {
        if table_bits_for(self.board, &limits) != self.table.entry_bits() {
            return false;
        }
        self.threads = threads_of(&limits);
        self.limits = limits;
        self.nodes = 0;
        true
    }

    /// The table's size, as the exponent of its entries.
    pub fn table_bits(&self) -> u32 {
        self.table.entry_bits()
    }

    /// Positions visited so far, by all threads (captures played without
    /// branching count with the position they start from).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The threads a search of a position with `undrawn` edges runs on.
    fn threads_for(&self, undrawn: u32) -> usize {
        if undrawn < PARALLEL_MIN_UNDRAWN || !self.table.shareable() {
            1
        } else {
            self.threads
        }
    }

    /// One null-window (or any-window) search of `mask` on the solver's
    /// threads: fail-soft, the value if inside `(alpha, beta)`, else a
    /// bound on the far side.
    pub(super) fn run(
        &mut self,
        mask: u64,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Result<i32, Error> {
        let threads = self.threads_for((self.geo.full & !mask).count_ones());
        if threads > 1 && self.busy.is_empty() {
            self.busy = bytemuck::zeroed_slice_box(BUSY_SLOTS);
        }
        let shared = Shared {
            table: &self.table,
            limits: self.limits.clone(),
            deadline,
            nodes: AtomicU64::new(self.nodes),
            stop: AtomicBool::new(false),
            busy: if threads > 1 { &self.busy } else { &[] },
            result: Mutex::new(None),
        };
        let geo = &self.geo;
        let scratch = self.scratch.take().unwrap_or_else(Scratch::new);
        let scratch = std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| {
                    let mut helper = Worker::new(geo, &shared, Scratch::new());
                    let result = helper.search(mask, alpha, beta);
                    helper.finish(result);
                });
            }
            let mut main = Worker::new(geo, &shared, scratch);
            let result = main.search(mask, alpha, beta);
            main.finish(result);
            main.into_scratch()
        });
        self.scratch = Some(scratch);
        self.nodes = shared.nodes.load(Ordering::Relaxed);
        let result = shared
            .result
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The main thread always records a result unless another did.
        result.unwrap_or(Err(Error::BudgetExhausted { budget: 0 }))
    }

    /// Two searches at once, each of a position and a window `(mask,
    /// alpha, beta)`, the threads split between them over the one table:
    /// a thread whose search is answered helps with the other (as in
    /// [`run`](EndgameSolver::run)) until that is answered too. Only for
    /// searches without limits ([`EndgameSolver::pairs_at`]): a node
    /// budget is one shared count.
    pub(super) fn run_pair(&mut self, searches: [(u64, i32, i32); 2]) -> [Result<i32, Error>; 2] {
        let undrawn = searches.map(|(mask, ..)| (self.geo.full & !mask).count_ones());
        let threads = self.threads_for(undrawn[0].min(undrawn[1]));
        if threads > 1 && self.busy.is_empty() {
            self.busy = bytemuck::zeroed_slice_box(BUSY_SLOTS);
        }
        let shared = searches.map(|_| Shared {
            table: &self.table,
            limits: self.limits.clone(),
            deadline: None,
            nodes: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            busy: if threads > 1 { &self.busy } else { &[] },
            result: Mutex::new(None),
        });
        let geo = &self.geo;
        // Each thread's searches, its own first; one already answered is
        // passed over.
        let search = |first: usize, scratch: Scratch| {
            let mut scratch = scratch;
            for i in [first, 1 - first] {
                if shared[i].stop.load(Ordering::Relaxed) {
                    continue;
                }
                let (mask, alpha, beta) = searches[i];
                let mut worker = Worker::new(geo, &shared[i], scratch);
                let result = worker.search(mask, alpha, beta);
                worker.finish(result);
                scratch = worker.into_scratch();
            }
            scratch
        };
        let scratch = self.scratch.take().unwrap_or_else(Scratch::new);
        let scratch = std::thread::scope(|scope| {
            for thread in 1..threads {
                scope.spawn(move || search(thread % 2, Scratch::new()));
            }
            search(0, scratch)
        });
        self.scratch = Some(scratch);
        self.nodes += shared
            .iter()
            .map(|s| s.nodes.load(Ordering::Relaxed))
            .sum::<u64>();
        shared.map(|s| {
            let result = s
                .result
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // Every search has a thread that went on to its end: without
            // limits none stops before its answer.
            result.unwrap_or(Err(Error::BudgetExhausted { budget: 0 }))
        })
    }

    /// Whether two tests of `mask` or of its moves may run at once
    /// ([`run_pair`](EndgameSolver::run_pair)): with two threads or more
    /// and no limits. Lazy SMP on one test keeps two threads busy at the
    /// cost of positions both search; two tests at once give each its own
    /// thread.
    pub(super) fn pairs_at(&self, mask: u64) -> bool {
        !self.limited() && self.threads_for((self.geo.full & !mask).count_ones()) >= 2
    }

    /// The MTD(f) loop (Plaat et al. 1996): null windows on `mask` from a
    /// guess until the bounds meet, narrowing `lower`/`upper` as tests
    /// prove. Margins have the parity of the remaining boxes, so tests sit
    /// on possible values. With [`pairs_at`](EndgameSolver::pairs_at) the
    /// first two tests run at once: the two that prove a margin of 0 where
    /// the boxes left are even (tests at 0 and -2), of +1 where they are
    /// odd (-1 and +1). Measured, not derived: pairs all the way (each
    /// test beside the next in the direction the last went), or the first
    /// test beside the one below it on odd positions too, waste each
    /// pair's second test; these two waste none where the value is 0 or
    /// +1. `proved` is told the bounds after each test narrows them.
    pub(super) fn narrow(
        &mut self,
        bounds: &mut (i32, i32),
        mut guess: i32,
        mask: u64,
        deadline: Option<Instant>,
        proved: &mut dyn FnMut((i32, i32)),
    ) -> Result<(), Error> {
        let parity = bounds.1.rem_euclid(2);
        let mut pair = self.pairs_at(mask);
        while bounds.0 < bounds.1 {
            let t = guess.clamp(bounds.0, bounds.1 - 2);
            // Around a margin of 0 (an even number of boxes left) or +1.
            let beside = if parity == 0 { t - 2 } else { t + 2 };
            let first = std::mem::take(&mut pair);
            let (v, other) = if first && bounds.0 <= beside && beside <= bounds.1 - 2 {
                let [v, w] = self.run_pair([(mask, t, t + 1), (mask, beside, beside + 1)]);
                (v?, Some((beside, w?)))
            } else {
                (self.run(mask, t, t + 1, deadline)?, None)
            };
            for (t, v) in std::iter::once((t, v)).chain(other) {
                if v > t {
                    bounds.0 = v.max(bounds.0);
                } else {
                    bounds.1 = v.min(bounds.1);
                }
            }
            guess = if v > t { bounds.0 } else { bounds.1 - 2 };
            // A fail-soft bound need not be a possible margin (the chain
            // bound is not); the margin has the parity of the remaining
            // boxes, so the bounds round inwards to it.
            *bounds = to_parity(*bounds, parity);
            proved(*bounds);
        }
        Ok(())
    }

    /// Whether a node budget, a time limit or a request's deadline may stop
    /// the search.
    pub(super) fn limited(&self) -> bool {
        self.limits.nodes.is_some() || self.limits.time.is_some() || self.limits.stop.is_limited()
    }

    /// Where the limits may stop the search before it knows the value:
    /// null-window tests from both ends inwards, 0, 2, 6, 14 and 30 boxes
    /// from each end while they stay clear of each other, so a search that
    /// stops has narrowed the value from both sides. (MTD(f)'s first test,
    /// in the middle, is the hardest, and a search stopped in it has proved
    /// nothing.) Every test is exact: the bounds are only ever narrowed to
    /// what a test proved, as in [`narrow`](EndgameSolver::narrow), and
    /// `proved` is told them after each.
    pub(super) fn outside_in(
        &mut self,
        bounds: &mut (i32, i32),
        test: impl Fn(&mut EndgameSolver, i32) -> Result<i32, Error>,
        proved: &mut dyn FnMut((i32, i32)),
    ) -> Result<(), Error> {
        let parity = bounds.1.rem_euclid(2);
        for d in [0, 2, 6, 14, 30] {
            for low_side in [true, false] {
                if bounds.1 - bounds.0 < 2 * d + 4 {
                    return Ok(());
                }
                let t = if low_side {
                    bounds.0 + d
                } else {
                    bounds.1 - 2 - d
                };
                let v = test(self, t)?;
                if v > t {
                    bounds.0 = v.max(bounds.0);
                } else {
                    bounds.1 = v.min(bounds.1);
                }
                *bounds = to_parity(*bounds, parity);
                proved(*bounds);
            }
        }
        Ok(())
    }

    /// The exact margin of `position` for the player to move.
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] or [`Error::TimeExhausted`] when the limits
    /// run out first: the answer is unknown within the budget;
    /// [`Error::TableMemory`] when the system will not give the
    /// transposition table's memory.
    pub fn solve(&mut self, position: Edges) -> Result<Score, Error> {
        self.table.allocate()?;
        self.geo.set_root(position.0);
        let deadline = self.limits.time.map(|t| Instant::now() + t);
        let remaining = self.board.remaining_boxes(position.0) as i32;
        let mut bounds = (-remaining, remaining);
        let guess = if remaining % 2 == 0 { 0 } else { -1 };
        let mask = position.0;
        self.narrow(&mut bounds, guess, mask, deadline, &mut |_| {})?;
        Ok(bounds.0)
    }
}

impl EndgameSolver {
    /// One null-window test of `position` on the solver's threads: whether
    /// its margin is above `threshold`. The answer is fail-soft: a value
    /// above `threshold` is a lower bound on the margin, any other an upper
    /// bound (both exact facts). `stop` replaces the limits' stop, so a
    /// caller can cancel this one test from outside ([`Error::Cancelled`]);
    /// the table keeps what was proved before. The jobs of a search spread
    /// over processes are such tests.
    ///
    /// # Errors
    ///
    /// As [`solve`](EndgameSolver::solve), and [`Error::Cancelled`].
    pub fn test(&mut self, position: Edges, threshold: i32, stop: Stop) -> Result<i32, Error> {
        self.table.allocate()?;
        self.geo.set_root(position.0);
        self.limits.stop = stop;
        let deadline = self.limits.time.map(|t| Instant::now() + t);
        self.run(position.0, threshold, threshold + 1, deadline)
    }
}

#[cfg(test)]
impl EndgameSolver {
    /// The component recursion alone, for tests.
    pub(super) fn simple_loony_value(&mut self, mask: u64) -> Option<i32> {
        let sides = self.geo.sides_of(mask);
        self.geo
            .simple_loony_value(mask, &sides, &mut std::collections::HashMap::new())
    }
}

impl ExactSolver<Edges> for EndgameSolver {
    fn score(&mut self, position: Edges) -> Result<Score, Error> {
        self.solve(position)
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Lets go of the last request's [`Stop`](crate::Stop) (a listener
    /// in it may hold the request's stream open); keeps the table.
    fn keep(&mut self) -> bool {
        self.limits.stop = crate::Stop::default();
        true
    }

    /// [`EndgameSolver::renew`].
    fn renew(&mut self, limits: SearchLimits) -> bool {
        EndgameSolver::renew(self, limits)
    }

    /// [`EndgameSolver::analyse_reporting`]: the moves in edge order, the
    /// order of [`Dots::moves`](crate::Game::moves).
    fn score_moves(
        &mut self,
        position: Edges,
        report: &mut dyn FnMut(&MoveScores),
    ) -> Option<MoveScores> {
        let analysis = self.analyse_reporting(position, report);
        Some(MoveScores {
            value: (analysis.lower, analysis.upper),
            moves: analysis.moves.iter().map(|m| (m.lower, m.upper)).collect(),
            unknown: analysis.unknown,
        })
    }
}
