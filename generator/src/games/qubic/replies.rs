//! O's replies in a proof's walk: the X-to-move positions after each O
//! move, up to symmetry. Shared by the proof's extraction
//! ([`prove`](super::prove)) and the pass that makes its strategy smaller
//! ([`smaller`](super::smaller)).

use anyhow::{Result, bail};
use solvedb_lookup::games::qubic::{canonical_with_symmetry, threats};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

/// The X-to-move positions after every O move in `after` (O to move, X has
/// no line), canonical, once each, but those X wins at once.
pub(super) fn replies(after: QubicBoard) -> Result<Vec<QubicBoard>> {
    let mut out = Vec::new();
    let mut empty = after.empty();
    if empty == 0 {
        bail!("{}: the board is full", Qubic.notation(after));
    }
    while empty != 0 {
        let c = empty.trailing_zeros() as u8;
        empty &= empty - 1;
        let reply = after.with_move(QubicCell::new(c).expect("a cell"));
        if solvedb_lookup::games::qubic::has_line(reply.o()) {
            bail!("{}: O completes a line", Qubic.notation(reply));
        }
        if reply.empty() == 0 {
            bail!("{}: the board fills", Qubic.notation(reply));
        }
        if threats(reply.x(), reply.empty()) != 0 {
            continue;
        }
        let (canonical, _) = canonical_with_symmetry(reply);
        if !out.contains(&canonical) {
            out.push(canonical);
        }
    }
    Ok(out)
}
