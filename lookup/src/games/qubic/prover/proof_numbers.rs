//! Proof and disproof numbers: what they are, and how a node's follow
//! from its children's (with weak numbers and the 1 + ε trick's
//! thresholds).

use crate::games::qubic::board::QubicBoard;

use super::Verdict;

/// A proof or disproof number: the least number of leaves still to be
/// solved to prove (disprove) a node. [`INFINITE`] is a solved node's other
/// number.
pub type ProofNumber = u32;

/// A number too large for any sum: a proved node's disproof number, a
/// disproved node's proof number.
pub const INFINITE: ProofNumber = u32::MAX / 4;

/// One child of a node being searched.
#[derive(Copy, Clone, Debug)]
pub(super) struct Child {
    /// The move, in the parent's frame.
    pub(super) cell: u8,
    /// The child's canonical board (its table key).
    pub(super) key: QubicBoard,
    pub(super) pn: ProofNumber,
    pub(super) dn: ProofNumber,
}

/// The numbers of a solved node.
pub(super) fn solved(verdict: Verdict) -> (ProofNumber, ProofNumber) {
    match verdict {
        Verdict::Proved => (0, INFINITE),
        Verdict::Disproved => (INFINITE, 0),
    }
}

/// `a - b`, at least 1 (a threshold below 1 would stop at once).
pub(super) fn sub(a: ProofNumber, b: ProofNumber) -> ProofNumber {
    a.saturating_sub(b).max(1)
}

/// The 1 + ε trick's threshold from the second-best child's number, ε in
/// percent.
pub(super) fn epsilon(second: ProofNumber, percent: u32) -> ProofNumber {
    if second >= INFINITE {
        return INFINITE;
    }
    let s = u64::from(second);
    (s + (s * u64::from(percent)).div_ceil(100)).min(u64::from(INFINITE)) as ProofNumber
}

/// A node's numbers from its children's, the child to search (the best)
/// and the second-best child's selecting number.
pub(super) fn combine(
    children: &[Child],
    or_node: bool,
    weak: bool,
) -> (ProofNumber, ProofNumber, usize, ProofNumber) {
    let mut best = 0;
    let mut best_value = INFINITE;
    let mut second = INFINITE;
    let mut total: u64 = 0;
    // Weak numbers: the largest, and the unsolved children besides it.
    let (mut largest, mut unsolved) = (0u64, 0u64);
    for (i, child) in children.iter().enumerate() {
        let (select, add) = if or_node {
            (child.pn, child.dn)
        } else {
            (child.dn, child.pn)
        };
        total += u64::from(add);
        largest = largest.max(u64::from(add));
        unsolved += u64::from(add != 0);
        if select < best_value {
            second = best_value;
            best_value = select;
            best = i;
        } else if select < second {
            second = select;
        }
    }
    if weak && largest < u64::from(INFINITE) {
        total = largest + unsolved.saturating_sub(1);
    }
    let total = total.min(u64::from(INFINITE)) as ProofNumber;
    if or_node {
        (best_value, total, best, second)
    } else {
        (total, best_value, best, second)
    }
}
