//! Pairing strategies ([`has_pairing`]): a proof that a side cannot win,
//! used by the live solver and by the generator's prover.

use super::lines::{CELLS, LINES};

/// Whether the defender has a *pairing strategy* against every line the
/// attacker can still complete (every line without a stone of the
/// defender): two empty cells of each such line, the pairs all disjoint.
/// The defender then answers a stone on one cell of a pair with the other
/// (and plays anywhere when the attacker's stone is on no pair, or its
/// partner is already the defender's, or it is the defender's turn), so
/// every such line soon holds a stone of the defender and the attacker
/// completes none: the attacker cannot win, whoever is to move.
///
/// Two lines share at most one cell, so a pair lies on one line only, and
/// a pairing is a matching of two copies of each line to distinct empty
/// cells of the line: Kuhn's augmenting paths over cell masks.
pub fn has_pairing(attacker: u64, defender: u64) -> bool {
    let empty = !(attacker | defender);
    // The empty cells of each line copy.
    let mut need = [0u64; 2 * LINES.len()];
    let mut count = 0;
    let mut cover = 0;
    for &line in &LINES {
        if line & defender == 0 {
            let cells = line & empty;
            if cells.count_ones() < 2 {
                return false;
            }
            need[count] = cells;
            need[count + 1] = cells;
            count += 2;
            cover |= cells;
        }
    }
    if count as u32 > cover.count_ones() {
        return false;
    }
    // `owner[c]`: the line copy that holds cell `c`.
    let mut owner = [u8::MAX; CELLS];
    for u in 0..count {
        let mut seen = 0u64;
        if !augment(u, &need, &mut owner, &mut seen) {
            return false;
        }
    }
    true
}

/// Finds line copy `u` a cell: a free one, or one whose holder can move
/// to another cell (not yet `seen` on this path).
fn augment(u: usize, need: &[u64], owner: &mut [u8; CELLS], seen: &mut u64) -> bool {
    let mut cells = need[u] & !*seen;
    while cells != 0 {
        let c = cells.trailing_zeros() as usize;
        cells &= cells - 1;
        *seen |= 1 << c;
        if owner[c] == u8::MAX || augment(usize::from(owner[c]), need, owner, seen) {
            owner[c] = u as u8;
            return true;
        }
    }
    false
}
