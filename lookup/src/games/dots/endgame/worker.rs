//! One thread's search: its node count, its limits and its stop.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::chains::{Component, Components};
use super::counts::NodeCounts;
use super::geometry::Geometry;
use super::loony::LoonyMemo;
use super::sides::MAX_BOXES;
use super::step::{Step, Steps};
use super::transposition::TranspositionTable;
use crate::error::Error;
use crate::game::SearchLimits;

/// Nodes a thread counts before it adds them to the shared count and looks
/// at the clock and the stop flag.
const TICK: u64 = 1024;

/// Why a search stopped without a value.
#[derive(Debug)]
pub(super) enum Halt {
    /// The node or time limit: the answer is unknown within the limits.
    Limit(Error),
    /// Another thread answered first.
    Stopped,
}

/// What the threads of one search share besides the table.
#[derive(Debug)]
pub(super) struct Shared<'a> {
    pub(super) table: &'a TranspositionTable,
    pub(super) limits: SearchLimits,
    pub(super) deadline: Option<Instant>,
    /// Nodes visited over the solver's life, as the threads have added
    /// them.
    pub(super) nodes: AtomicU64,
    pub(super) stop: AtomicBool,
    /// Positions some thread is searching (their key, or mask where they
    /// have none, plus one), by hash; empty with one thread.
    pub(super) busy: &'a [AtomicU64],
    /// The first answer (or limit) any thread reached.
    pub(super) result: Mutex<Option<Result<i32, Error>>>,
}

/// What a thread's search keeps from one search to the next of a solver:
/// the simple loony endgames' values and the buffers of its nodes. The
/// buffers are made once per solver, not at each null-window test (a value
/// takes two tests or more, every move's value many): setting them up (a
/// 64 KiB copy) at each test was 44% of the time of solving every 3×2
/// position one by one (`perf`, the crate's every-rule test).
#[derive(Debug)]
pub(super) struct Scratch {
    loony_memo: LoonyMemo,
    frames: Box<[Steps]>,
    components: Box<Components>,
}

impl Scratch {
    pub(super) fn new() -> Scratch {
        Scratch {
            loony_memo: LoonyMemo::new(),
            frames: vec![[Step::default(); 64]; 64].into_boxed_slice(),
            components: Box::new([Component::default(); MAX_BOXES]),
        }
    }
}

/// One thread's search.
#[derive(Debug)]
pub(super) struct Worker<'a> {
    pub(super) geo: &'a Geometry,
    pub(super) shared: &'a Shared<'a>,
    /// Nodes this thread visited, and how many of them it has added to the
    /// shared count.
    pub(super) count: u64,
    flushed: u64,
    pub(super) loony_memo: LoonyMemo,
    /// Each search node's moves, in the buffer of its number of undrawn
    /// edges (a child has fewer, so no two nodes on one path share one).
    /// A buffer on each node's stack frame would be a kilobyte to set at
    /// every node, most of which return before they need it.
    pub(super) frames: Box<[Steps]>,
    /// [`Geometry::ordered_moves`]'s components, likewise not set anew
    /// (nor copied out) at every node.
    pub(super) components: Box<Components>,
    /// How this thread's nodes ended, not yet added to the board's.
    pub(super) counts: NodeCounts,
}

impl<'a> Worker<'a> {
    pub(super) fn new(geo: &'a Geometry, shared: &'a Shared<'a>, scratch: Scratch) -> Worker<'a> {
        let Scratch {
            loony_memo,
            frames,
            components,
        } = scratch;
        Worker {
            geo,
            shared,
            count: 0,
            flushed: 0,
            loony_memo,
            frames,
            components,
            counts: NodeCounts::default(),
        }
    }

    /// The memo and buffers, for the solver's next search.
    pub(super) fn into_scratch(self) -> Scratch {
        Scratch {
            loony_memo: self.loony_memo,
            frames: self.frames,
            components: self.components,
        }
    }

    fn flush(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.count - self.flushed, Ordering::Relaxed);
        self.flushed = self.count;
    }

    /// Adds this thread's nodes to the count (and how they ended to the
    /// board's tally) and records its result if it
    /// is the first.
    pub(super) fn finish(&mut self, result: Result<i32, Halt>) {
        self.flush();
        *self
            .geo
            .counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += std::mem::take(&mut self.counts);
        let result = match result {
            Ok(v) => Ok(v),
            Err(Halt::Limit(e)) => Err(e),
            Err(Halt::Stopped) => return,
        };
        let mut first = self
            .shared
            .result
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if first.is_none() {
            *first = Some(result);
        }
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// Counts a node. Under a node budget every node is claimed on the
    /// shared count before it is visited (a compare-and-swap, where a
    /// search without a budget counts locally and flushes now and then), so
    /// a search that stops has visited exactly its budget, on any number
    /// of threads.
    #[inline]
    pub(super) fn tick(&mut self) -> Result<(), Halt> {
        let claimed = match self.shared.limits.nodes {
            Some(budget) => {
                let claim =
                    self.shared
                        .nodes
                        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                            (n < budget).then_some(n + 1)
                        });
                if claim.is_err() {
                    return Err(Halt::Limit(Error::BudgetExhausted { budget }));
                }
                true
            }
            None => false,
        };
        if self.count % TICK == 0 {
            self.flush();
            if self.shared.stop.load(Ordering::Relaxed) {
                return Err(Halt::Stopped);
            }
            // The request's deadline or cancellation (shared with its
            // other searches).
            self.shared.limits.stop.poll().map_err(Halt::Limit)?;
            if let (Some(deadline), Some(time)) = (self.shared.deadline, self.shared.limits.time) {
                if Instant::now() > deadline {
                    return Err(Halt::Limit(Error::TimeExhausted {
                        millis: time.as_millis() as u64,
                    }));
                }
            }
        }
        self.count += 1;
        if claimed {
            // Already on the shared count.
            self.flushed = self.count;
        }
        Ok(())
    }

    /// The slot of the busy table for a child (its key or mask, plus one).
    #[inline]
    pub(super) fn busy_slot(&self, child: u64) -> &AtomicU64 {
        let hash = child.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48;
        &self.shared.busy[hash as usize % self.shared.busy.len()]
    }
}
