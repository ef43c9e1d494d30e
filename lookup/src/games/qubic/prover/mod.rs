//! The df-pn prover ([`Prover`]): depth-first proof-number search with
//! threat sequences at the nodes, which proves that one side of a Qubic
//! position wins. Two callers size it: `solvedb build qubic` (the
//! generator's `prove`, gigabytes of proof table, hours) finds the
//! strategy table with it, and the probe's live proof
//! ([`live`](super::live): a small table, the request's
//! [`Stop`](crate::Stop), the strategy table as [`Leaves`]) answers
//! positions beyond the table with it. The rules it searches are the
//! module's: lines, threat search, pairing strategies, symmetries.
//!
//! - `dfpn` ([`Prover`]): the search, with its evaluation of a node by the
//!   rules and the threat search (`dfpn/evaluation`), its cache of pass
//!   lines (`dfpn/pass_cache`) and its state saved and taken up again
//!   (`dfpn/state`, [`StateError`]: a proof of hours outlives its process);
//! - `deepening` ([`prove_deepening`]): one proof within stone limits in
//!   turn, then without one (the build's tasks, the live proofs);
//! - `limits` ([`ProverLimits`], [`REVISION`]): what a search may spend and
//!   how it searches, and the revision a build keys its kept tasks on;
//! - `proof_numbers`: proof numbers and how a node's follow from its
//!   children's;
//! - `proof_table`: a fixed-size cache of proof numbers by canonical board;
//! - `leaves` ([`Leaves`]): positions known won for X, where a search ends;
//! - `images`: a board's 192 images, from which its children's canonical
//!   forms follow;
//! - `move_order`: the attacker's move order at narrowed OR nodes;
//! - `stats` ([`ProverStats`]) and `trace` ([`TraceLine`]): what a search
//!   counts and reports (the prover prints nothing).

mod deepening;
mod dfpn;
mod images;
mod leaves;
mod limits;
mod move_order;
mod proof_numbers;
mod proof_table;
mod stats;
mod trace;

#[cfg(test)]
mod tests;

pub use deepening::{Deepened, prove_deepening};
pub use dfpn::{Prover, StateError};
pub use leaves::Leaves;
pub use limits::{ProverLimits, REVISION};
pub use proof_numbers::{INFINITE, ProofNumber};
pub use stats::ProverStats;
pub use trace::TraceLine;

/// Which side the prover tries to prove a win for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Attacker {
    /// X, the first player.
    X,
    /// O.
    O,
}

/// What a proof search found about a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The attacker wins.
    Proved,
    /// The attacker does not win (the defender wins or it is a draw).
    Disproved,
}
