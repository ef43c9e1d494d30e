//! A database of positions known won for X ([`Leaves`]), where a proof
//! search ends: the strategy table's records are one.

use crate::games::qubic::board::QubicBoard;

/// Positions known won for X, asked about canonical X-to-move boards.
pub trait Leaves {
    /// Whether X, to move on the canonical board `canonical`, is known to
    /// win. `false` says only that the database does not know.
    fn x_wins(&self, canonical: QubicBoard) -> bool;
}
