//! The endgame solver's transposition table: buckets of four 8-byte
//! entries, keyed exactly, shared by the search's threads.
//!
//! A key (a canonical edge mask of `key_bits` bits) is first scrambled by a
//! bijection of `key_bits`-bit numbers; the top bits of the scramble pick a
//! bucket and the rest (the *quotient*) is stored beside the entry's data.
//! Bucket and quotient together give back the scramble, hence the key, so a
//! hit is never a different position (quotienting, Knuth, *TAOCP* vol. 3,
//! §6.4, exercise 13; Cleary, "Compact hash tables using bidirectional
//! linear probing", IEEE Trans. Computers 1984). With 2^25 entries a 4x4
//! key (40 bits) leaves a 17-bit quotient; when the quotient would not fit
//! beside the data (5x5 with a small table), each entry keeps its whole key
//! in a second word instead (16 bytes an entry).
//!
//! The entry word, low bits first: `lower + 64` (7 bits), `upper + 64` (7),
//! the best move (6, [`NO_MOVE`] for none), the work (5: `log2` of the
//! positions its search visited, plus one), then the quotient (up to 39
//! bits). A zero word is an empty slot: a stored `lower + 64` is never 0.
//!
//! Threads share the table without locks: every word is an atomic and
//! holds its own quotient, so a word read is always one whole entry of the
//! key it names (Hyatt and Mann's lockless hashing needs its XOR only
//! because their keys and data are two words). Two threads storing at
//! once may lose one store; a lost store loses work, never correctness,
//! since every stored bound is true. Wide tables (two words an entry) are
//! used by one thread only ([`TranspositionTable::shareable`]).
//!
//! A new table is a zeroed allocation, which the allocator hands out as
//! untouched pages, so a solver asked one small question does not pay for
//! clearing a big table.
//!
//! Replacement: a position already in the bucket has its bounds narrowed;
//! otherwise the new entry takes an empty slot or the slot of least work
//! (the smallest subtree is the cheapest to search again: the
//! "depth-preferred" schemes of Breuker, Uiterwijk and van den Herik,
//! "Replacement schemes for transposition tables", ICCA Journal 17(4),
//! 1994, with subtree size as the measure, their "Big" scheme).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;

/// Entries of one bucket: 32 bytes, half a cache line.
const WAYS: usize = 4;

/// The cache line every bucket lies within: the first bucket starts on
/// such a boundary (the allocator aligns only to 16 bytes, which would put
/// every other bucket across two lines, two misses for one probe).
const CACHE_LINE: usize = 64;

/// The best-move field of an entry without one (no board has 64 edges).
pub(super) const NO_MOVE: u8 = 63;

const DATA_BITS: u32 = 25;

/// What the table knows of a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub lower: i32,
    pub upper: i32,
    /// The best move found, as an edge of the key's position, or
    /// [`NO_MOVE`].
    pub best: u8,
}

/// Zeroed atomic words: `bytemuck`'s zeroed allocation (the system's
/// calloc, so untouched pages until first use) of a type for which all
/// zero bits are a valid value; `None` where the system refuses them.
fn zeroed_words(count: usize) -> Option<Box<[AtomicU64]>> {
    bytemuck::try_zeroed_slice_box(count).ok()
}

#[derive(Debug)]
pub(super) struct TranspositionTable {
    /// Entry words, `WAYS` a bucket from word `first`; empty until
    /// allocated.
    words: Box<[AtomicU64]>,
    /// The word of entry 0, the first on a cache-line boundary.
    first: usize,
    /// Whole keys beside the words when the quotient does not fit (else
    /// empty).
    keys: Box<[AtomicU64]>,
    bucket_bits: u32,
    key_bits: u32,
    /// Whether `store` narrows a stored entry by the new bounds (both
    /// bounds kept), or replaces it with them.
    merge: bool,
    /// Whether the allocation asks for huge pages.
    huge_pages: bool,
}

impl TranspositionTable {
    /// Memory for `2^entry_bits` entries of keys of `key_bits` bits: 8
    /// bytes an entry when the quotient fits, 16 otherwise. Nothing is
    /// allocated until [`TranspositionTable::allocate`].
    pub fn bytes(entry_bits: u32, key_bits: u32) -> u64 {
        let bucket_bits = entry_bits.saturating_sub(WAYS.ilog2());
        let wide = key_bits.saturating_sub(bucket_bits) + DATA_BITS > 64;
        // Saturating: a size beyond u64 is beyond any memory anyway.
        1u64.checked_shl(entry_bits)
            .and_then(|entries| entries.checked_mul(8 << u64::from(wide)))
            .unwrap_or(u64::MAX)
    }

    /// An unallocated table of `2^entry_bits` entries (at least one bucket)
    /// for keys of `key_bits` bits.
    pub fn new(entry_bits: u32, key_bits: u32) -> TranspositionTable {
        TranspositionTable {
            words: Box::new([]),
            keys: Box::new([]),
            first: 0,
            bucket_bits: entry_bits.saturating_sub(WAYS.ilog2()),
            key_bits,
            merge: true,
            huge_pages: true,
        }
    }

    /// Whether a stored entry keeps the bounds of earlier stores of its
    /// position (the default: both bounds, Barker and Korf 2012) or only
    /// the latest search's.
    pub fn set_merge(&mut self, merge: bool) {
        self.merge = merge;
    }

    /// Allocates the table on first use, backed by huge pages where asked
    /// and the kernel agrees.
    ///
    /// # Errors
    ///
    /// [`Error::TableMemory`] where the system will not give the memory
    /// (the table stays unallocated).
    pub fn allocate(&mut self) -> Result<(), Error> {
        if self.words.is_empty() {
            let refused = || Error::TableMemory {
                bytes: TranspositionTable::bytes(self.entry_bits(), self.key_bits),
            };
            // A cache line's worth more, to start entry 0 on a line.
            let words = 1usize
                .checked_shl(self.bucket_bits)
                .and_then(|buckets| buckets.checked_mul(WAYS))
                .and_then(|words| words.checked_add(CACHE_LINE / 8))
                .ok_or_else(refused)?;
            let keys = if self.wide() {
                zeroed_words(words).ok_or_else(refused)?
            } else {
                Box::new([])
            };
            self.words = zeroed_words(words).ok_or_else(refused)?;
            self.keys = keys;
            let address = self.words.as_ptr() as usize;
            self.first = (address.next_multiple_of(CACHE_LINE) - address) / 8;
            if self.huge_pages
                && std::mem::size_of_val(&*self.words) >= crate::mapping::HUGE_PAGES_FROM
            {
                crate::mapping::advise_huge_pages(&self.words);
                crate::mapping::advise_huge_pages(&self.keys);
            }
        }
        Ok(())
    }

    /// Whether [`allocate`](TranspositionTable::allocate) asks for huge
    /// pages (the default).
    pub fn set_huge_pages(&mut self, huge_pages: bool) {
        self.huge_pages = huge_pages;
    }

    /// The number of entries, as an exponent of two.
    pub fn entry_bits(&self) -> u32 {
        self.bucket_bits + WAYS.ilog2()
    }

    /// Whether threads may share the table: entries of one word.
    pub fn shareable(&self) -> bool {
        !self.wide()
    }

    fn word(&self, i: usize) -> u64 {
        self.words
            .get(self.first + i)
            .map_or(0, |w| w.load(Ordering::Relaxed))
    }

    fn set_word(&self, i: usize, word: u64) {
        if let Some(w) = self.words.get(self.first + i) {
            w.store(word, Ordering::Relaxed);
        }
    }

    /// The whole key stored beside entry `i` of a wide table.
    fn key_word(&self, i: usize) -> Option<&AtomicU64> {
        self.keys.get(self.first + i)
    }

    fn quotient_bits(&self) -> u32 {
        self.key_bits.saturating_sub(self.bucket_bits)
    }

    fn wide(&self) -> bool {
        self.quotient_bits() + DATA_BITS > 64
    }

    /// The bucket of `key` and the quotient stored with it (0 in a wide
    /// table, whose entries keep the whole key).
    fn place(&self, key: u64) -> (usize, u64) {
        let n = self.key_bits;
        let mask = if n >= 64 { u64::MAX } else { (1 << n) - 1 };
        // A bijection of n-bit numbers: multiplying by an odd number and
        // xoring in a right shift are each invertible modulo 2^n. The
        // constants are the 64-bit golden ratio and MurmurHash3's fmix64
        // multiplier.
        let mut x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        x ^= x >> (n / 2 + 1);
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD) & mask;
        let q = self.quotient_bits();
        let bucket = (x >> q) as usize;
        let quotient = if self.wide() { 0 } else { x & ((1 << q) - 1) };
        (bucket, quotient)
    }

    /// Whether `word`, read from entry `i`, holds `key`.
    fn holds(&self, i: usize, word: u64, key: u64, quotient: u64) -> bool {
        word != 0
            && word >> DATA_BITS == quotient
            && self
                .key_word(i)
                .is_none_or(|k| k.load(Ordering::Relaxed) == key)
    }

    /// Starts loading `key`'s bucket into the cache, for a
    /// [`probe`](TranspositionTable::probe) soon after.
    pub fn prefetch(&self, key: u64) {
        let (bucket, _) = self.place(key);
        if let Some(word) = self.words.get(self.first + bucket * WAYS) {
            crate::mapping::prefetch(word);
        }
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.probe_with_work(key).map(|(entry, _)| entry)
    }

    /// [`probe`](TranspositionTable::probe), with the entry's work: `log2`
    /// of the positions its search visited, plus one.
    pub fn probe_with_work(&self, key: u64) -> Option<(Entry, u32)> {
        let (bucket, quotient) = self.place(key);
        (bucket * WAYS..(bucket + 1) * WAYS).find_map(|i| {
            let word = self.word(i);
            self.holds(i, word, key, quotient).then(|| unpack(word))
        })
    }

    /// Records bounds on `key`'s value, the best move found and the
    /// positions the search visited.
    pub fn store(&self, key: u64, entry: Entry, nodes: u64) {
        let (bucket, quotient) = self.place(key);
        let work = (nodes + 1).ilog2() + 1;
        let ways = bucket * WAYS..(bucket + 1) * WAYS;
        let found = ways.clone().find_map(|i| {
            let word = self.word(i);
            self.holds(i, word, key, quotient).then_some((i, word))
        });
        if let Some((i, word)) = found {
            let (old, old_work) = unpack(word);
            let merged = if self.merge {
                Entry {
                    lower: entry.lower.max(old.lower),
                    upper: entry.upper.min(old.upper),
                    best: if entry.best == NO_MOVE {
                        old.best
                    } else {
                        entry.best
                    },
                }
            } else {
                entry
            };
            self.set_word(i, pack(merged, work.max(old_work), quotient));
            return;
        }
        let i = ways
            .min_by_key(|&i| match self.word(i) {
                0 => 0,
                word => unpack(word).1 + 1,
            })
            .unwrap_or(0);
        if let Some(k) = self.key_word(i) {
            k.store(key, Ordering::Relaxed);
        }
        self.set_word(i, pack(entry, work, quotient));
    }
}

fn pack(entry: Entry, work: u32, quotient: u64) -> u64 {
    let field = |v: i32| (v + 64).clamp(1, 127) as u64;
    field(entry.lower)
        | field(entry.upper) << 7
        | u64::from(entry.best & 63) << 14
        | u64::from(work.min(31)) << 20
        | quotient << DATA_BITS
}

fn unpack(word: u64) -> (Entry, u32) {
    let entry = Entry {
        lower: (word & 127) as i32 - 64,
        upper: (word >> 7 & 127) as i32 - 64,
        best: (word >> 14 & 63) as u8,
    };
    (entry, (word >> 20 & 31) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_beyond_memory_is_an_error_not_a_panic() {
        // 2^63 entries: more bytes than an allocation can ask for.
        let mut table = TranspositionTable::new(63, 64);
        let error = table.allocate().unwrap_err();
        assert!(
            matches!(error, Error::TableMemory { bytes } if bytes == u64::MAX),
            "{error:?}"
        );
        assert_eq!(error.kind(), crate::ErrorKind::Request);
        assert!(table.words.is_empty());
        // A table that fits is allocated as before.
        let mut table = TranspositionTable::new(6, 12);
        table.allocate().unwrap();
        assert!(table.probe(5).is_none());
    }

    #[test]
    fn bucket_and_quotient_name_one_key() {
        // Every 12-bit key, in a table of 2^6 entries: distinct places.
        let table = TranspositionTable::new(6, 12);
        let mut seen = std::collections::HashSet::new();
        for key in 0..1 << 12 {
            assert!(seen.insert(table.place(key)), "{key}");
        }
    }

    #[test]
    fn entries_round_trip_and_narrow() {
        for (entry_bits, key_bits) in [(8, 40), (4, 60), (16, 4)] {
            let mut table = TranspositionTable::new(entry_bits, key_bits);
            table.allocate().unwrap();
            let key = (1 << key_bits) - 3;
            assert_eq!(table.probe(key), None);
            let entry = Entry {
                lower: -25,
                upper: 25,
                best: 62,
            };
            table.store(key, entry, 1000);
            assert_eq!(table.probe(key), Some(entry));
            assert_eq!(table.probe(key - 1), None);
            let narrower = Entry {
                lower: -3,
                upper: 30,
                best: NO_MOVE,
            };
            table.store(key, narrower, 10);
            let expected = Entry {
                lower: -3,
                upper: 25,
                best: 62,
            };
            assert_eq!(table.probe(key), Some(expected), "{entry_bits} {key_bits}");
        }
    }

    #[test]
    fn a_full_bucket_gives_up_its_least_work() {
        // One bucket: five keys, the one of least work goes.
        let mut table = TranspositionTable::new(2, 30);
        table.allocate().unwrap();
        let entry = Entry {
            lower: 0,
            upper: 0,
            best: NO_MOVE,
        };
        for (key, nodes) in [(1, 100), (2, 5), (3, 1000), (4, 50)] {
            table.store(key, entry, nodes);
        }
        table.store(5, entry, 10);
        let kept: Vec<u64> = (1..=5).filter(|&k| table.probe(k).is_some()).collect();
        assert_eq!(kept, [1, 3, 4, 5]);
    }
}
