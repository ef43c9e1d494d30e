//! Dots-and-boxes in a table: a slot per edge mask, and positions with a
//! free capture left out.

use super::board::{Dots, Edges};
use crate::format::{
    IndexScheme, Table, TableData, TableError, ValueEncoding, decode_boxes_won, encode_boxes_won,
};
use crate::game::{Game, Tabled};
use crate::value::Score;

impl Tabled for Dots {
    const INDEX: IndexScheme = IndexScheme::EdgeMaskCanonical;
    const VALUES: ValueEncoding = ValueEncoding::MarginResolved;

    fn slots(&self) -> u64 {
        1 << self.edges()
    }

    fn slot(&self, canonical: Edges) -> u64 {
        canonical.0
    }

    fn position_at(&self, slot: u64) -> Option<Edges> {
        (slot <= self.full()).then_some(Edges(slot))
    }

    fn encode(&self, position: Edges, score: Score) -> u8 {
        encode_boxes_won(score, self.remaining_boxes(position.0))
    }

    /// Positions with a free capture ([`Dots::free_capture`]) are not
    /// stored: their value is the boxes taken plus the value after them.
    fn resolved_by_rule(&self, position: Edges) -> bool {
        self.free_capture(position.0).is_some()
    }

    /// Every free capture first ([`Dots::take_free_captures`]: bit
    /// operations on the mask, no table access), then one canonical form and
    /// one entry, so a probe still reads one block. The image of a position
    /// without a free capture has none either, so the entry read is never a
    /// don't-care one.
    fn table_score<D: TableData>(
        &self,
        table: &Table<D>,
        position: Edges,
    ) -> Result<Score, TableError> {
        let (after, gained) = self.take_free_captures(position.0);
        let canonical = self.canonical(Edges(after));
        let slot = self.slot(canonical);
        Ok(gained + self.decode(canonical, slot, table.entry(slot)?)?)
    }

    fn decode(&self, position: Edges, slot: u64, entry: u8) -> Result<Score, TableError> {
        decode_boxes_won(entry, self.remaining_boxes(position.0), slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margins_encode_and_decode() {
        let board = Dots::new(1, 1).unwrap();
        for m in [-1, 1] {
            let e = board.encode(Edges(0), m);
            assert_eq!(board.decode(Edges(0), 0, e), Ok(m));
        }
        assert!(board.decode(Edges(0), 0, 0).is_err());
        assert!(board.decode(Edges(0), 0, 3).is_err());
        assert!(board.decode(Edges(0), 0, 200).is_err());
    }
}
