//! The proof table ([`ProofTable`]): proof numbers by canonical board, in a
//! fixed memory.

use crate::games::qubic::board::QubicBoard;
use crate::mapping::{HUGE_PAGES_FROM, advise_huge_pages};

use super::proof_numbers::ProofNumber;

/// The move of an entry that has none.
pub(super) const NO_MOVE: u8 = u8::MAX;

/// One proof-table entry: a canonical board and its numbers.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Entry {
    x: u64,
    o: u64,
    pub(super) pn: ProofNumber,
    pub(super) dn: ProofNumber,
    /// Nodes spent under the entry, for replacement (more is dearer).
    work: u32,
    /// A proved OR node's winning move, or [`NO_MOVE`].
    pub(super) mv: u8,
    used: bool,
}

/// The proof table: buckets of four entries, the entry that cost the least
/// work replaced first; solved entries are kept over open ones. Any number
/// of buckets: a board's bucket is the high half of its hash times the
/// count (Lemire, "Fast random integer generation in an interval", 2019),
/// which for a power of two is the hash's top bits: the index that
/// [`REVISION`](super::REVISION) 1 is defined with.
///
/// Layout (for speed only: it does not change which entry a board takes):
/// an entry is four words (X's mask, O's mask, `pn | dn << 32`, `work | mv
/// << 32 | used << 40`), a bucket 128 bytes starting on a 128-byte
/// boundary, so a probe reads one aligned pair of cache lines (which the
/// processor's adjacent-line prefetch fetches together). The words are a
/// zeroed allocation (untouched pages until first used, and an all-zero
/// entry is an unused one), advised onto huge pages
/// ([`advise_huge_pages`], from [`HUGE_PAGES_FROM`] on): a table of
/// gigabytes probed at random otherwise misses the TLB on nearly every
/// probe.
#[derive(Debug)]
pub(super) struct ProofTable {
    words: Box<[u64]>,
    /// The index of the first word of bucket 0 (128-byte aligned).
    base: usize,
    buckets: u64,
    pub(super) used: usize,
    /// See [`ProverLimits::replace_by_work`].
    by_work: bool,
}

const BUCKET: usize = 4;

/// Words of one entry.
const ENTRY_WORDS: usize = 4;

/// Words of one bucket (128 bytes).
const BUCKET_WORDS: usize = BUCKET * ENTRY_WORDS;

/// Bytes an entry takes in the table.
const ENTRY_BYTES: u64 = (ENTRY_WORDS * size_of::<u64>()) as u64;

impl Entry {
    fn unpack(words: &[u64]) -> Entry {
        Entry {
            x: words[0],
            o: words[1],
            pn: words[2] as u32,
            dn: (words[2] >> 32) as u32,
            work: words[3] as u32,
            mv: (words[3] >> 32) as u8,
            used: words[3] >> 40 & 1 != 0,
        }
    }

    fn pack(&self, words: &mut [u64]) {
        words[0] = self.x;
        words[1] = self.o;
        words[2] = u64::from(self.pn) | u64::from(self.dn) << 32;
        words[3] = u64::from(self.work) | u64::from(self.mv) << 32 | u64::from(self.used) << 40;
    }

    fn holds(words: &[u64], board: QubicBoard) -> bool {
        words[3] >> 40 & 1 != 0 && words[0] == board.x() && words[1] == board.o()
    }
}

impl ProofTable {
    pub(super) fn new(bytes: u64, by_work: bool) -> ProofTable {
        let buckets = (bytes / (BUCKET as u64 * ENTRY_BYTES)).max(1);
        let bucket_bytes = BUCKET_WORDS * size_of::<u64>();
        // One bucket more than needed, so that an aligned start fits.
        let words: Box<[u64]> =
            vec![0u64; (buckets as usize + 1) * BUCKET_WORDS].into_boxed_slice();
        let offset =
            (words.as_ptr() as usize).next_multiple_of(bucket_bytes) - words.as_ptr() as usize;
        if size_of_val(&*words) >= HUGE_PAGES_FROM {
            advise_huge_pages(&words);
        }
        ProofTable {
            words,
            base: offset / size_of::<u64>(),
            buckets,
            used: 0,
            by_work,
        }
    }

    /// Entries the table holds.
    pub(super) fn capacity(&self) -> usize {
        self.buckets as usize * BUCKET
    }

    /// The words of every bucket, in order: what a saved state holds
    /// ([`Prover::save_state`](super::Prover::save_state)).
    pub(super) fn bucket_words(&self) -> &[u64] {
        &self.words[self.base..self.base + self.buckets as usize * BUCKET_WORDS]
    }

    /// The words of every bucket, to be filled from a saved state, with the
    /// count of entries in use they hold.
    pub(super) fn bucket_words_mut(&mut self, used: usize) -> &mut [u64] {
        self.used = used;
        let end = self.base + self.buckets as usize * BUCKET_WORDS;
        &mut self.words[self.base..end]
    }

    /// Forgets every entry.
    pub(super) fn clear(&mut self) {
        self.words.fill(0);
        self.used = 0;
    }

    /// The index of the first word of the board's bucket.
    #[inline]
    fn bucket(&self, board: QubicBoard) -> usize {
        let mut h = board.x().wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ board.o().wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.base + ((u128::from(h) * u128::from(self.buckets)) >> 64) as usize * BUCKET_WORDS
    }

    pub(super) fn get(&self, board: QubicBoard) -> Option<Entry> {
        let at = self.bucket(board);
        self.words[at..at + BUCKET_WORDS]
            .chunks_exact(ENTRY_WORDS)
            .find(|words| Entry::holds(words, board))
            .map(Entry::unpack)
    }

    pub(super) fn put(
        &mut self,
        board: QubicBoard,
        pn: ProofNumber,
        dn: ProofNumber,
        mv: Option<u8>,
        work: u64,
    ) {
        let at = self.bucket(board);
        let by_work = self.by_work;
        let bucket = &mut self.words[at..at + BUCKET_WORDS];
        let entry = Entry {
            x: board.x(),
            o: board.o(),
            pn,
            dn,
            work: work.min(u64::from(u32::MAX)) as u32,
            mv: mv.unwrap_or(NO_MOVE),
            used: true,
        };
        if let Some(words) = bucket
            .chunks_exact_mut(ENTRY_WORDS)
            .find(|words| Entry::holds(words, board))
        {
            let same = Entry::unpack(words);
            let keep_work = same.work.max(entry.work);
            let keep_move = if entry.mv == NO_MOVE {
                same.mv
            } else {
                entry.mv
            };
            Entry {
                work: keep_work,
                mv: if pn == 0 { keep_move } else { entry.mv },
                ..entry
            }
            .pack(words);
            return;
        }
        if let Some(words) = bucket
            .chunks_exact_mut(ENTRY_WORDS)
            .find(|words| !Entry::unpack(words).used)
        {
            entry.pack(words);
            self.used += 1;
            return;
        }
        // Replace the cheapest, open entries before solved ones.
        let rank = |e: &Entry| {
            let solved = e.pn == 0 || e.dn == 0;
            if by_work {
                (e.work, u32::from(solved))
            } else {
                (u32::from(solved), e.work)
            }
        };
        let victim = bucket
            .chunks_exact_mut(ENTRY_WORDS)
            .min_by_key(|words| rank(&Entry::unpack(words)))
            .expect("a bucket has entries");
        entry.pack(victim);
    }
}

#[cfg(test)]
mod table {
    use super::*;
    use crate::testkit::Rng;

    fn random_board(rng: &mut Rng) -> QubicBoard {
        let x = rng.next_u64();
        QubicBoard::from_masks(x, rng.next_u64() & !x)
    }

    #[test]
    fn a_table_of_any_size_fills_every_bucket_and_keeps_what_it_holds() {
        let entry = ENTRY_BYTES;
        for buckets in [1u64, 3, 5, 64, 1000] {
            let mut table = ProofTable::new(buckets * BUCKET as u64 * entry + entry - 1, false);
            assert_eq!(table.capacity() as u64, buckets * BUCKET as u64);
            let mut rng = Rng::new(buckets);
            let mut hit = vec![false; buckets as usize];
            let boards: Vec<QubicBoard> =
                (0..buckets * 64).map(|_| random_board(&mut rng)).collect();
            for &board in &boards {
                let at = table.bucket(board) - table.base;
                assert_eq!(at % BUCKET_WORDS, 0);
                assert_eq!(table.words[table.base..].as_ptr() as usize % 128, 0);
                hit[at / BUCKET_WORDS] = true;
            }
            assert!(hit.iter().all(|&h| h), "{buckets} buckets: some never used");
            // The last board put is always found again.
            for &board in &boards[..100.min(boards.len())] {
                table.put(board, 3, 4, Some(7), 9);
                let entry = table.get(board).expect("just put");
                assert_eq!((entry.pn, entry.dn, entry.mv), (3, 4, 7));
            }
        }
    }

    /// A power of two indexes by the hash's top bits, as revision 1 of the
    /// prover defines it: the tasks a build keeps stay valid.
    #[test]
    fn a_power_of_two_takes_the_top_bits_of_the_hash() {
        let table = ProofTable::new(1 << 20, false);
        let bits = (table.capacity() as u64).trailing_zeros();
        let mut rng = Rng::new(2);
        for _ in 0..1000 {
            let board = random_board(&mut rng);
            let mut h = board.x().wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ board.o().wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            h ^= h >> 29;
            h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            assert_eq!(
                (table.bucket(board) - table.base) / ENTRY_WORDS,
                (h >> (64 - bits)) as usize & !(BUCKET - 1)
            );
        }
    }
}
