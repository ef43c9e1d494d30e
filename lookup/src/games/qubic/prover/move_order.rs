//! The order an OR node searches the attacker's moves in where it is
//! narrowed ([`ProverLimits::width`](super::ProverLimits::width)).

use crate::games::qubic::lines::{LINE_DEGREE, LINES, LINES_THROUGH};

use super::proof_numbers::Child;

/// Sorts the attacker's moves (children of an OR node) most promising
/// first by a static score of the cell, ties by the child's canonical board
/// (so the order does not depend on the frame the node was reached in).
/// The score adds, over the lines through the cell: for a line without the
/// defender's stones, a weight growing with the attacker's stones on it (a
/// stone there makes a pair, a threat); for a line without the attacker's,
/// one growing with the defender's (a stone there blocks its pair). The
/// idea of restricting the attacker's moves at OR nodes to a few chosen by
/// such knowledge is Allis's (thesis, 1994, ch. 5 on Qubic and Go-Moku);
/// the weights are this prover's own.
pub(super) fn attacker_move_order(attacker: u64, defender: u64, children: &mut [Child]) {
    const OWN: [u32; 4] = [1, 6, 40, 1000];
    const BLOCK: [u32; 4] = [0, 1, 10, 500];
    let score = |cell: u8| -> u32 {
        let cell = usize::from(cell);
        let mut score = 0;
        for &line in &LINES_THROUGH[cell][..usize::from(LINE_DEGREE[cell])] {
            let line = LINES[usize::from(line)];
            let (a, d) = (
                (line & attacker).count_ones() as usize,
                (line & defender).count_ones() as usize,
            );
            if d == 0 {
                score += OWN[a.min(3)];
            } else if a == 0 {
                score += BLOCK[d.min(3)];
            }
        }
        score
    };
    children.sort_by_cached_key(|c| (std::cmp::Reverse(score(c.cell)), c.key.x(), c.key.o()));
}
