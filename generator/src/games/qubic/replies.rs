//! O's replies in a proof's walk: the X-to-move positions after each O
//! move, up to symmetry. Shared by a task's extraction
//! ([`task`](super::task)), the walk that gives the records
//! ([`records`](super::records)) and the pass that makes a strategy
//! smaller ([`smaller`](super::smaller)).

use anyhow::{Result, bail};
use solvedb_lookup::games::qubic::{canonical_with_symmetry, has_line, threats};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

/// One O reply, as a walk of X's strategy sees it.
pub(super) enum Reply {
    /// O completes a line or fills the board: X's move did not win.
    NotWon(QubicBoard),
    /// X completes a line at once.
    WonAtOnce,
    /// Any other: the X-to-move position, canonical.
    Open(QubicBoard),
}

/// O's replies in `after` (O to move) on the empty cells of `cells`, in
/// cell order.
pub(super) fn each_reply(after: QubicBoard, cells: u64) -> impl Iterator<Item = Reply> {
    let mut cells = cells & after.empty();
    std::iter::from_fn(move || {
        if cells == 0 {
            return None;
        }
        let c = cells.trailing_zeros() as u8;
        cells &= cells - 1;
        let reply = after.with_move(QubicCell::new(c).expect("a cell"));
        Some(if has_line(reply.o()) || reply.empty() == 0 {
            Reply::NotWon(reply)
        } else if threats(reply.x(), reply.empty()) != 0 {
            Reply::WonAtOnce
        } else {
            Reply::Open(canonical_with_symmetry(reply).0)
        })
    })
}

/// The X-to-move positions after every O move in `after` (O to move, X has
/// no line), canonical, once each, but those X wins at once.
pub(super) fn replies(after: QubicBoard) -> Result<Vec<QubicBoard>> {
    if after.empty() == 0 {
        bail!("{}: the board is full", Qubic.notation(after));
    }
    let mut out = Vec::new();
    for reply in each_reply(after, after.empty()) {
        match reply {
            Reply::NotWon(reply) if has_line(reply.o()) => {
                bail!("{}: O completes a line", Qubic.notation(reply))
            }
            Reply::NotWon(reply) => bail!("{}: the board fills", Qubic.notation(reply)),
            Reply::WonAtOnce => {}
            Reply::Open(canonical) => {
                if !out.contains(&canonical) {
                    out.push(canonical);
                }
            }
        }
    }
    Ok(out)
}
