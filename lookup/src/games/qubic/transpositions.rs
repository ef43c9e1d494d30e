//! The live solver's transposition table ([`Transpositions`]): bounds on
//! the scores of quiet positions, keyed by the whole board.

use std::fmt;

/// The move of an entry that has none.
pub(super) const NO_MOVE: u8 = u8::MAX;

/// One transposition-table entry: a quiet position (the mover's stones and
/// the opponent's, the whole key), bounds on its score and the best move
/// found (the move that cut off or was best, [`NO_MOVE`] if every move
/// failed low). `empties == 0` marks an unused entry (a quiet position always has
/// an empty cell).
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Entry {
    pub(super) me: u64,
    pub(super) you: u64,
    pub(super) lower: i16,
    pub(super) upper: i16,
    pub(super) mv: u8,
    pub(super) empties: u8,
}

/// The transposition table: buckets of two entries, the first kept for the
/// position with more empty cells (the larger subtree, dearer to search
/// again), the second for the latest. It starts small and doubles while it
/// is more than half full, up to its memory limit, then replaces.
pub(super) struct Transpositions {
    entries: Vec<Entry>,
    bits: u32,
    max_bits: u32,
    used: usize,
}

/// Sizes only: the entries would be millions of lines.
impl fmt::Debug for Transpositions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transpositions")
            .field("entries", &self.entries.len())
            .field("used", &self.used)
            .field("max_entries", &(1u64 << self.max_bits))
            .finish()
    }
}

/// The table starts with `2^START_BITS` entries (96 KiB).
const START_BITS: u32 = 12;

impl Transpositions {
    pub(super) fn new(max_bytes: u64) -> Transpositions {
        let max_entries = (max_bytes / size_of::<Entry>() as u64).max(2);
        let max_bits = (63 - max_entries.leading_zeros()).min(40);
        let bits = START_BITS.min(max_bits);
        Transpositions {
            entries: vec![Entry::default(); 1 << bits],
            bits,
            max_bits,
            used: 0,
        }
    }

    /// The first entry of the bucket of a position.
    #[inline]
    fn bucket(&self, me: u64, you: u64) -> usize {
        let mut h =
            me.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ you.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (h >> (64 - self.bits)) as usize & !1
    }

    #[inline]
    pub(super) fn get(&self, me: u64, you: u64) -> Option<Entry> {
        let at = self.bucket(me, you);
        self.entries[at..at + 2]
            .iter()
            .find(|e| e.empties != 0 && e.me == me && e.you == you)
            .copied()
    }

    pub(super) fn put(&mut self, entry: Entry) {
        let at = self.bucket(entry.me, entry.you);
        let bucket = &mut self.entries[at..at + 2];
        let fresh = if let Some(same) = bucket
            .iter_mut()
            .find(|e| e.empties != 0 && e.me == entry.me && e.you == entry.you)
        {
            *same = entry;
            false
        } else if bucket[0].empties == 0 {
            bucket[0] = entry;
            true
        } else if entry.empties >= bucket[0].empties {
            let fresh = bucket[1].empties == 0;
            bucket[1] = bucket[0];
            bucket[0] = entry;
            fresh
        } else {
            let fresh = bucket[1].empties == 0;
            bucket[1] = entry;
            fresh
        };
        if fresh {
            self.used += 1;
            if self.used > self.entries.len() / 2 && self.bits < self.max_bits {
                self.grow();
            }
        }
    }

    /// Twice the entries, every entry moved to its new bucket (in one of
    /// the new bucket's two places, as `put` would).
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.entries);
        self.bits += 1;
        self.entries = vec![Entry::default(); 1 << self.bits];
        self.used = 0;
        for entry in old.into_iter().filter(|e| e.empties != 0) {
            self.put(entry);
        }
    }
}
