//! Where the search's nodes end: a tally each thread keeps as it goes and
//! adds to its solver's when its search ends, so that a change to a rule
//! can be judged by which kind of node it removes
//! (`solvedb bench dots:endgame` prints them per set).

use std::ops::AddAssign;

use super::EndgameSolver;

/// How the nodes of a solver's searches ended, summed over its threads.
/// Every node is counted once, in the first way it ended; the kinds of
/// searched node add up to the nodes whose moves were searched.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeCounts {
    /// Settled without a key: the board full, the boxes left against the
    /// window, or a simple loony endgame's value.
    pub settled: u64,
    /// Cut by the chain bound before the table.
    pub chain_bound: u64,
    /// Settled by the table's bounds.
    pub table: u64,
    /// Refuted by the table's best move, searched first.
    pub best_move: u64,
    /// Ended by an enhanced transposition cutoff: a child's stored bound.
    pub transposition_cutoffs: u64,
    /// Moves searched and the window refuted by one of them (cut nodes).
    pub refuted: u64,
    /// Of those, refuted by the first move searched after the table's
    /// best move.
    pub refuted_first: u64,
    /// Of those, refuted by a sacrifice (a move that gives a box a third
    /// side) in a position where no box could be captured.
    pub refuted_by_sacrifice: u64,
    /// Moves searched, none reaching the window (all nodes), or a value
    /// inside it.
    pub failed_low: u64,
}

impl NodeCounts {
    /// The nodes counted.
    pub fn total(&self) -> u64 {
        self.settled
            + self.chain_bound
            + self.table
            + self.best_move
            + self.transposition_cutoffs
            + self.refuted
            + self.failed_low
    }
}

impl AddAssign for NodeCounts {
    fn add_assign(&mut self, other: NodeCounts) {
        self.settled += other.settled;
        self.chain_bound += other.chain_bound;
        self.table += other.table;
        self.best_move += other.best_move;
        self.transposition_cutoffs += other.transposition_cutoffs;
        self.refuted += other.refuted;
        self.refuted_first += other.refuted_first;
        self.refuted_by_sacrifice += other.refuted_by_sacrifice;
        self.failed_low += other.failed_low;
    }
}

impl EndgameSolver {
    /// How the nodes of this solver's searches so far ended.
    pub fn node_counts(&self) -> NodeCounts {
        *self
            .geo
            .counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
