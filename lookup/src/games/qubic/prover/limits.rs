//! What a [`Prover`](super::Prover) may spend and how it searches
//! ([`ProverLimits`]), and the revision of its search ([`REVISION`]).

use std::time::Duration;

use crate::games::qubic::threats::THREAT_BUDGET;

use super::proof_numbers::{INFINITE, ProofNumber};

/// How a [`Prover`](super::Prover) searches and what it may spend.
#[derive(Copy, Clone, Debug)]
pub struct ProverLimits {
    /// Memory for the proof table, in bytes.
    pub table_bytes: u64,
    /// The most nodes (proof-search nodes and threat-search nodes together)
    /// over the prover's life; `None` for no limit.
    pub nodes: Option<u64>,
    /// The longest one call to [`Prover::prove`](super::Prover::prove) may take.
    pub time: Option<Duration>,
    /// The node budget of one threat search ([`THREAT_BUDGET`] unless
    /// measuring).
    pub threat_budget: u64,
    /// Whether a new AND node's proof number is estimated
    /// (`estimate_defences`) rather than 1.
    pub estimate: bool,
    /// How many of the attacker's moves an OR node searches at first (its
    /// *width*), the most promising by a static score (see `attacker_move_order`); the next
    /// `width` join when every one searched so far is disproved (or all
    /// look worse than [`ProverLimits::widen_pn`]). `0`: every move at
    /// once. Sound for a proof, which needs one winning move per OR node
    /// and every move per AND node; a disproof still covers every move.
    pub width: usize,
    /// The proof number at which an OR node with moves not yet searched
    /// takes the next ones in: when its best child's proof number is at
    /// least this ([`INFINITE`]: only when every child is disproved).
    pub widen_pn: ProofNumber,
    /// The fewest stones on the board at which an OR node is narrowed to
    /// [`ProverLimits::width`]: nearer the root every move is searched (few
    /// nodes, where a choice left out costs most).
    pub narrow_from: u32,
    /// The most stones a position of the proof may have with the attacker
    /// to move and no threat line: such a position is counted as not won
    /// (disproved within the limit), so every line of the search ends
    /// there and a narrowed node whose moves all fail takes more in.
    /// A proof found within the limit is a proof; a disproof only says
    /// that none exists within it. `u32::MAX`: no limit.
    pub max_stones: u32,
    /// Entries of the cache of pass lines (the attacker's threat line
    /// when the defender, to move, passes), a power of two; `0` for none.
    pub pass_cache: usize,
    /// Weak proof numbers (Ueda, Hashimoto, Hashimoto and Iida, "Weak
    /// proof-number search", CG 2008): the sum over an AND node's children
    /// (and the disproof numbers' over an OR node's) becomes the largest
    /// child's number plus one for each other unsolved child, which counts
    /// a subtree shared by transpositions once rather than once per parent.
    /// A node is still proved only when every AND child is (the numbers
    /// only choose where to search).
    pub weak: bool,
    /// How a full bucket of the proof table chooses the entry to replace:
    /// `false`, open entries before solved ones, then the least work;
    /// `true`, the least work alone (a solved leaf that cost one node, such
    /// as a defence outside a line's zone, goes before an open subtree that
    /// cost millions, and is found again at once when it is needed).
    pub replace_by_work: bool,
    /// The ε of the 1 + ε trick in percent: a child is searched until its
    /// number passes the second-best's times 1 + ε (25 by default;
    /// larger stays longer in one subtree).
    pub epsilon_percent: u32,
}

/// The revision of the prover's search: raised by every change that alters
/// which nodes a proof visits or the move it finds, the defaults of
/// [`ProverLimits`] included (a change that makes the same search faster
/// keeps it), so that a build resuming from kept tasks takes none that
/// another search proved.
pub const REVISION: u32 = 1;

impl Default for ProverLimits {
    fn default() -> ProverLimits {
        ProverLimits {
            table_bytes: 64 << 20,
            nodes: None,
            time: None,
            threat_budget: THREAT_BUDGET,
            estimate: true,
            width: 0,
            widen_pn: INFINITE,
            narrow_from: 0,
            max_stones: u32::MAX,
            pass_cache: 0,
            weak: false,
            replace_by_work: false,
            epsilon_percent: 25,
        }
    }
}
