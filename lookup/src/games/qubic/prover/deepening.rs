//! Proofs deepened by stones ([`prove_deepening`]): one position proved
//! within each of a list of stone limits in turn
//! ([`ProverLimits::max_stones`]), then without a limit, until a proof is
//! found.
//!
//! Qubic's wins are short where they exist, and a search without a limit
//! spends itself on long lines first; a limit ends every line at that many
//! stones, so a short win is found in a small tree. A proof within a limit
//! is a proof; a disproof within one only says that no win exists within
//! it, so the next limit is tried, and only a disproof without a limit is
//! a disproof. Each attempt has a fresh proof table (a disproof within a
//! limit is not true without it). `solvedb build qubic`'s tasks and the
//! probe's live proofs both prove this way; the figures that chose their
//! limits are in `docs/qubic.md`.

use crate::error::Error;
use crate::games::qubic::board::QubicBoard;
use crate::stop::Stop;

use super::dfpn::Prover;
use super::leaves::Leaves;
use super::limits::ProverLimits;
use super::{Attacker, Verdict};

/// What [`prove_deepening`] found, and the prover of its last attempt
/// (whose proof table holds the proof, for extracting a strategy).
#[derive(Debug)]
pub struct Deepened<'l> {
    /// The verdict of the last attempt: a proof, a disproof without a
    /// limit, or what stopped the search (the node budget over all the
    /// attempts, the time, the [`Stop`]).
    pub verdict: Result<Verdict, Error>,
    /// The prover of the last attempt.
    pub prover: Prover<'l>,
    /// The stone limit of the last attempt, `None` for none.
    pub stone_limit: Option<u32>,
    /// Nodes (proof and threat search) over every attempt.
    pub nodes: u64,
}

/// Proves that `attacker` wins `board` within each limit of `stones_ahead`
/// (stones beyond the board's own) in turn, then without a limit; every
/// attempt searches as `limits` says, with `limits.nodes` the budget of all
/// of them together, ends at `leaves`, and polls `stop`. `not_within` hears
/// each limit within which the attacker has no win (the limit in stones
/// and the nodes spent so far): a long proof's only sign of life.
pub fn prove_deepening<'l>(
    board: QubicBoard,
    attacker: Attacker,
    limits: ProverLimits,
    stones_ahead: &[u32],
    leaves: Option<&'l dyn Leaves>,
    stop: &Stop,
    mut not_within: impl FnMut(u32, u64),
) -> Deepened<'l> {
    let mut nodes = 0u64;
    let stone_limits = stones_ahead
        .iter()
        .map(|&ahead| Some(board.stones() + ahead))
        .chain([None]);
    for stone_limit in stone_limits {
        let attempt = ProverLimits {
            max_stones: stone_limit.unwrap_or(u32::MAX),
            nodes: limits.nodes.map(|n| n.saturating_sub(nodes)),
            ..limits
        };
        let mut prover = Prover::new(attacker, attempt).with_stop(stop.clone());
        if let Some(leaves) = leaves {
            prover = prover.with_leaves(leaves);
        }
        let verdict = prover.prove(board);
        nodes += prover.nodes();
        match (&verdict, stone_limit) {
            (Ok(Verdict::Disproved), Some(limit)) => not_within(limit, nodes),
            _ => {
                return Deepened {
                    verdict,
                    prover,
                    stone_limit,
                    nodes,
                };
            }
        }
    }
    unreachable!("the attempt without a limit ends the loop")
}
