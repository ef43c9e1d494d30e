//! The decoded-block cache: a bound, in bytes, on the blocks that tables
//! keep decoded, shared by every table (and thread) that holds it.
//!
//! A probe decodes one block; decoding a 64 KiB dots block costs tens of
//! microseconds, reading an entry from a decoded one a few nanoseconds, so
//! tables keep the blocks they decode. Before this cache they kept every one
//! (a server probing a big table grew toward its decoded size, 2 GiB for
//! dots 3×4); now a [`BlockCache`] bounds the bytes all its tables keep.
//!
//! Each table keeps its decoded blocks in *frames* of its block size, as
//! many as the bound allows; when the bound is reached the table reuses its
//! own least recently used frame (CLOCK, second chance). A hit takes no lock
//! and writes nothing shared but a flag: the frame is a seqlock (a version,
//! odd while the frame is rewritten, read before and after the entries),
//! and its bytes are atomics read with relaxed loads, so a reader that
//! overlaps a rewrite sees a changed version and takes the miss path, which
//! decodes the block itself. (An `Arc` per block under an atomic swap would
//! cost two atomic read-modify-writes per hit.)

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence};
use std::sync::{Mutex, OnceLock, PoisonError};

/// A bounded cache of decoded table blocks, shared by the tables opened
/// with it (one per [`Oracle`](crate::Oracle) unless given one) and by
/// threads.
///
/// The capacity counts decoded bytes (a dots block is 65,536 bytes, most
/// others 4,096). A table takes frames for its blocks while the bound
/// allows, and then reuses its own least recently used ones; a table that
/// has none yet takes one even past the bound, so the bound can be passed
/// by at most one block per open table. Frames are given back when their
/// table is dropped. Besides the frames, each table keeps 28 bytes per
/// block (its block index and its slots) whatever the capacity.
///
/// ```
/// use std::sync::Arc;
/// use solvedb_lookup::format::BlockCache;
///
/// let cache = Arc::new(BlockCache::new(256 << 20)); // 256 MiB
/// assert_eq!(cache.capacity(), 256 << 20);
/// assert_eq!(cache.stats().used, 0);
/// assert_eq!(BlockCache::default().capacity(), BlockCache::DEFAULT_CAPACITY);
/// ```
pub struct BlockCache {
    capacity: usize,
    used: AtomicUsize,
    decoded: AtomicU64,
    evicted: AtomicU64,
}

/// What a [`BlockCache`] holds and has done.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// The most decoded bytes it keeps (see [`BlockCache`] for the one
    /// block per table it may pass this by).
    pub capacity: usize,
    /// Bytes of frames its tables hold now.
    pub used: usize,
    /// Blocks decoded since it was made (every miss decodes one).
    pub decoded: u64,
    /// Blocks whose frame was reused for another block.
    pub evicted: u64,
}

impl BlockCache {
    /// The capacity of [`BlockCache::default`] and of every oracle not
    /// given one: 64 MiB, which holds every committed table decoded (about
    /// 20 MiB in all) and 1,024 of the 32,768 blocks of dots 3×4.
    pub const DEFAULT_CAPACITY: usize = 64 << 20;

    /// A cache that keeps at most `capacity` decoded bytes (0: none; every
    /// probe decodes its block).
    pub fn new(capacity: usize) -> BlockCache {
        BlockCache {
            capacity,
            used: AtomicUsize::new(0),
            decoded: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
        }
    }

    /// A cache that keeps every block it is given: for jobs that read a
    /// whole table more than once (`verify`, benchmarks of warm probes),
    /// never for a server.
    pub fn unbounded() -> BlockCache {
        BlockCache::new(usize::MAX)
    }

    /// The most decoded bytes this cache keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// What the cache holds now and how many blocks it has decoded.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            capacity: self.capacity,
            used: self.used.load(Ordering::Relaxed),
            decoded: self.decoded.load(Ordering::Relaxed),
            evicted: self.evicted.load(Ordering::Relaxed),
        }
    }

    /// Takes `bytes` of the bound if they fit.
    fn reserve(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&n| n <= self.capacity)
            })
            .is_ok()
    }
}

impl Default for BlockCache {
    /// A cache of [`BlockCache::DEFAULT_CAPACITY`].
    fn default() -> BlockCache {
        BlockCache::new(BlockCache::DEFAULT_CAPACITY)
    }
}

impl fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockCache")
            .field("stats", &self.stats())
            .finish()
    }
}

/// A decoded block as its frame holds it: the bytes packed little-endian
/// into words, read with relaxed atomic loads.
#[derive(Copy, Clone)]
pub(super) struct Words<'a> {
    words: &'a [AtomicU64],
    len: usize,
}

impl Words<'_> {
    /// The number of bytes.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Byte `i` (below [`len`](Words::len)).
    #[inline]
    pub(super) fn byte(&self, i: usize) -> u8 {
        (self.words[i / 8].load(Ordering::Relaxed) >> (8 * (i % 8))) as u8
    }

    /// The little-endian `u64` at byte `at`, a multiple of 8 at most
    /// `len() - 8`.
    #[inline]
    pub(super) fn u64_at(&self, at: usize) -> u64 {
        self.words[at / 8].load(Ordering::Relaxed)
    }

    /// All the bytes, copied out (a word at a time).
    pub(super) fn to_vec(self) -> Vec<u8> {
        let mut bytes: Vec<u8> = self
            .words
            .iter()
            .flat_map(|w| w.load(Ordering::Relaxed).to_le_bytes())
            .collect();
        bytes.truncate(self.len);
        bytes
    }
}

/// `bytes` packed into fresh words (a block read without a frame).
fn pack(bytes: &[u8]) -> Box<[AtomicU64]> {
    bytes
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            AtomicU64::new(u64::from_le_bytes(word))
        })
        .collect()
}

/// One table's decoded blocks: which frame holds each block, and the
/// frames.
pub(super) struct Frames {
    cache: std::sync::Arc<BlockCache>,
    /// For each block, 1 + the frame holding it, or 0.
    slots: Box<[AtomicU32]>,
    frames: Box<[Frame]>,
    words_per_frame: usize,
    /// Frames taken so far (a prefix of `frames`) and the clock hand;
    /// every change to a frame or a slot is made under it.
    clock: Mutex<Clock>,
}

#[derive(Default)]
struct Clock {
    taken: usize,
    hand: usize,
}

struct Frame {
    /// Even while the frame is stable, odd while it is rewritten.
    version: AtomicU64,
    /// The block it holds (`u64::MAX`: none).
    block: AtomicU64,
    /// Read since the clock hand last passed.
    referenced: AtomicBool,
    words: OnceLock<Box<[AtomicU64]>>,
}

impl Frames {
    /// The frames of a table of `blocks` blocks of at most `block_len`
    /// bytes, within `cache`'s bound.
    pub(super) fn new(
        cache: std::sync::Arc<BlockCache>,
        blocks: usize,
        block_len: usize,
    ) -> Frames {
        let words_per_frame = block_len.div_ceil(8).max(1);
        let frame_bytes = words_per_frame * 8;
        let most = (cache.capacity / frame_bytes).min(blocks);
        Frames {
            cache,
            slots: (0..blocks).map(|_| AtomicU32::new(0)).collect(),
            frames: (0..most.min(u32::MAX as usize - 1))
                .map(|_| Frame {
                    version: AtomicU64::new(0),
                    block: AtomicU64::new(u64::MAX),
                    referenced: AtomicBool::new(false),
                    words: OnceLock::new(),
                })
                .collect(),
            words_per_frame,
            clock: Mutex::default(),
        }
    }

    /// The cache these frames count against.
    pub(super) fn cache(&self) -> &std::sync::Arc<BlockCache> {
        &self.cache
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Clock> {
        // The clock's invariants hold between statements that cannot
        // panic, so a poisoned lock is still a consistent one.
        self.clock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `read` of block `block` (of `len` bytes) from its frame, if a frame
    /// holds it and was not rewritten meanwhile; `None` sends the caller
    /// to [`install`](Frames::install).
    #[inline]
    pub(super) fn read<R>(
        &self,
        block: usize,
        len: usize,
        read: impl Fn(Words<'_>) -> R,
    ) -> Option<R> {
        let frame = self
            .frames
            .get((self.slots[block].load(Ordering::Acquire) as usize).checked_sub(1)?)?;
        let version = frame.version.load(Ordering::Acquire);
        if version % 2 == 1 || frame.block.load(Ordering::Relaxed) != block as u64 {
            return None;
        }
        let words = frame.words.get()?;
        let result = read(Words { words, len });
        // The entries read above happen before the version read below: if
        // a rewrite started meanwhile, the version says so.
        fence(Ordering::Acquire);
        if frame.version.load(Ordering::Relaxed) != version {
            return None;
        }
        if !frame.referenced.load(Ordering::Relaxed) {
            frame.referenced.store(true, Ordering::Relaxed);
        }
        Some(result)
    }

    /// Puts `decoded`, just decoded for block `block`, in a frame (a new
    /// one while the bound allows, else this table's least recently used)
    /// and returns `read` of it.
    pub(super) fn install<R>(
        &self,
        block: usize,
        decoded: &[u8],
        read: impl Fn(Words<'_>) -> R,
    ) -> R {
        self.cache.decoded.fetch_add(1, Ordering::Relaxed);
        let len = decoded.len();
        if self.frames.is_empty() || len > self.words_per_frame * 8 {
            return read(Words {
                words: &pack(decoded),
                len,
            });
        }
        let mut clock = self.lock();
        // Frames change only under this lock, so while it is held frames
        // are read without the version check.
        if let Some(f) = (self.slots[block].load(Ordering::Relaxed) as usize).checked_sub(1) {
            let words = self.frames[f]
                .words
                .get()
                .expect("a frame in a slot has words");
            return read(Words { words, len });
        }
        let frame_bytes = self.words_per_frame * 8;
        let f = if clock.taken < self.frames.len()
            && (clock.taken == 0 || self.cache.reserve(frame_bytes))
        {
            if clock.taken == 0 && !self.cache.reserve(frame_bytes) {
                // A table's first frame is taken past the bound.
                self.cache.used.fetch_add(frame_bytes, Ordering::Relaxed);
            }
            clock.taken += 1;
            clock.taken - 1
        } else {
            self.evict(&mut clock)
        };
        let frame = &self.frames[f];
        // Open the seqlock: readers that overlap what follows see an odd
        // or a changed version.
        frame.version.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::Release);
        let old = frame.block.swap(block as u64, Ordering::Relaxed);
        if let Some(old_slot) = usize::try_from(old).ok().and_then(|b| self.slots.get(b)) {
            old_slot.store(0, Ordering::Relaxed);
        }
        let words = frame.words.get_or_init(|| {
            (0..self.words_per_frame)
                .map(|_| AtomicU64::new(0))
                .collect()
        });
        for (word, chunk) in words.iter().zip(decoded.chunks(8)) {
            let mut bytes = [0u8; 8];
            bytes[..chunk.len()].copy_from_slice(chunk);
            word.store(u64::from_le_bytes(bytes), Ordering::Relaxed);
        }
        frame.referenced.store(false, Ordering::Relaxed);
        frame.version.fetch_add(1, Ordering::Release);
        self.slots[block].store(f as u32 + 1, Ordering::Release);
        read(Words { words, len })
    }

    /// The first taken frame at or after the hand that no probe read since
    /// the hand last passed it, clearing the flags it passes.
    fn evict(&self, clock: &mut Clock) -> usize {
        loop {
            if clock.hand >= clock.taken {
                clock.hand = 0;
            }
            let f = clock.hand;
            clock.hand += 1;
            if !self.frames[f].referenced.swap(false, Ordering::Relaxed) {
                self.cache.evicted.fetch_add(1, Ordering::Relaxed);
                return f;
            }
        }
    }
}

impl Drop for Frames {
    fn drop(&mut self) {
        let taken = self
            .clock
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .taken;
        self.cache
            .used
            .fetch_sub(taken * self.words_per_frame * 8, Ordering::Relaxed);
    }
}

impl fmt::Debug for Frames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frames")
            .field("blocks", &self.slots.len())
            .field("frames", &self.frames.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn first_byte(frames: &Frames, block: usize) -> Option<u8> {
        frames.read(block, 100, |w| w.byte(0))
    }

    #[test]
    fn keeps_at_most_its_capacity_and_reuses_the_unused_first() {
        let cache = Arc::new(BlockCache::new(312));
        let frames = Frames::new(Arc::clone(&cache), 10, 100); // 104-byte frames: 3
        for b in 0..3u8 {
            assert_eq!(frames.install(b.into(), &[b; 100], |w| w.byte(99)), b);
        }
        assert_eq!(cache.stats().used, 312);
        // Block 0 is read again; block 1 is not: its frame goes first.
        assert_eq!(first_byte(&frames, 0), Some(0));
        assert_eq!(frames.install(3, &[3; 100], |w| w.byte(0)), 3);
        let stats = cache.stats();
        assert_eq!((stats.used, stats.decoded, stats.evicted), (312, 4, 1));
        assert_eq!(first_byte(&frames, 1), None);
        assert_eq!(first_byte(&frames, 0), Some(0));
        assert_eq!(first_byte(&frames, 3), Some(3));
        // The same block twice is kept once.
        frames.install(3, &[3; 100], |_| ());
        assert_eq!(cache.stats().used, 312);
        // Words read bytes and u64s little-endian.
        let bytes: Vec<u8> = (1..=16).collect();
        assert_eq!(
            frames.install(5, &bytes, |w| (w.len(), w.byte(9), w.u64_at(8))),
            (16, 10, u64::from_le_bytes(bytes[8..].try_into().unwrap()))
        );
        drop(frames);
        assert_eq!(cache.stats().used, 0);
    }

    #[test]
    fn a_zero_capacity_keeps_nothing_and_a_table_gets_one_frame_past_the_bound() {
        let cache = Arc::new(BlockCache::new(0));
        let frames = Frames::new(Arc::clone(&cache), 1, 8);
        assert_eq!(frames.install(0, &[1; 8], |w| w.byte(0)), 1);
        assert_eq!(frames.read(0, 8, |w| w.byte(0)), None);
        assert_eq!(cache.stats().decoded, 1);
        // Two tables of one 100-byte frame each in a bound of 150: the
        // second gets its first frame past it.
        let cache = Arc::new(BlockCache::new(150));
        let one = Frames::new(Arc::clone(&cache), 2, 100);
        let two = Frames::new(Arc::clone(&cache), 2, 100);
        one.install(0, &[1; 100], |_| ());
        two.install(0, &[2; 100], |_| ());
        assert_eq!(cache.stats().used, 208);
        one.install(1, &[3; 100], |_| ());
        assert_eq!(first_byte(&one, 0), None, "one reused its frame");
        assert_eq!(first_byte(&two, 0), Some(2));
    }

    #[test]
    fn threads_share_one_bound_and_never_read_a_torn_block() {
        let cache = Arc::new(BlockCache::new(64 * 10));
        let frames = Frames::new(Arc::clone(&cache), 100, 64);
        std::thread::scope(|s| {
            for t in 0..4usize {
                let frames = &frames;
                s.spawn(move || {
                    for i in 0..20_000usize {
                        let b = (i * 7 + t) % 100;
                        // Every byte of block b is b: a read that mixed two
                        // blocks would see two values.
                        let read = |w: Words<'_>| (0..w.len()).all(|j| w.byte(j) == b as u8);
                        let whole = match frames.read(b, 64, read) {
                            Some(whole) => whole,
                            None => frames.install(b, &[b as u8; 64], read),
                        };
                        assert!(whole, "block {b}");
                    }
                });
            }
        });
        assert!(cache.stats().used <= 640, "{:?}", cache.stats());
    }
}
