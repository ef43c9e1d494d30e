//! The decoded-block cache: a bound, in bytes, on the blocks that tables
//! keep decoded, shared by every table (and thread) that holds it.
//!
//! A probe decodes one block; decoding a 64 KiB dots block costs tens of
//! microseconds, reading an entry from a decoded one a few nanoseconds, so
//! tables keep the blocks they decode. Before this cache they kept every one
//! (a server probing a big table grew toward its decoded size, 2 GiB for
//! dots 3×4); now a [`BlockCache`] holds at most its capacity and evicts by
//! CLOCK (second chance), the usual approximation of least-recently-used
//! whose hit needs no lock.
//!
//! The hit path is one lock-free load of the block's slot (an
//! [`ArcSwapOption`]) and one flag set. Misses, insertions and evictions
//! take the cache's mutex; the block is decoded before it is taken, so
//! threads that miss decode in parallel.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::{ArcSwapOption, Guard};

/// A decoded block.
pub(super) type Decoded = Box<[u8]>;

/// A bounded cache of decoded table blocks, shared by the tables opened
/// with it (one per [`Oracle`](crate::Oracle) unless given one) and by
/// threads.
///
/// The capacity counts decoded bytes (a dots block is 65,536 bytes, most
/// others 4,096); a block is kept only if it fits. Besides the blocks, each
/// table keeps 16 bytes per block for its slots and 24 for its block index
/// whatever the capacity. While threads still read a block the cache has
/// just evicted, its bytes live on until they finish: the bound can be
/// passed by at most one block per reading thread.
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
    clock: Mutex<Clock>,
    decoded: AtomicU64,
    evicted: AtomicU64,
}

/// What a [`BlockCache`] holds and has done.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// The most decoded bytes it keeps.
    pub capacity: usize,
    /// Decoded bytes it keeps now.
    pub used: usize,
    /// Blocks it keeps now.
    pub blocks: usize,
    /// Blocks decoded since it was made (every miss decodes one).
    pub decoded: u64,
    /// Blocks evicted to make room.
    pub evicted: u64,
}

/// The blocks in the cache, in CLOCK order.
#[derive(Default)]
struct Clock {
    ring: Vec<Resident>,
    hand: usize,
    used: usize,
}

/// One cached block: whose, which, and how big.
struct Resident {
    slots: Arc<Slots>,
    block: usize,
    len: usize,
}

/// One table's slots: for each block, its decoded bytes while the cache
/// holds them, and whether a probe used it since the clock hand last passed.
pub(super) struct Slots {
    blocks: Box<[Slot]>,
}

#[derive(Default)]
struct Slot {
    decoded: ArcSwapOption<Decoded>,
    referenced: AtomicBool,
}

impl Slots {
    /// Empty slots for `blocks` blocks.
    pub(super) fn new(blocks: usize) -> Arc<Slots> {
        Arc::new(Slots {
            blocks: (0..blocks).map(|_| Slot::default()).collect(),
        })
    }

    /// Block `block`'s bytes if the cache holds them (marked as used).
    #[inline]
    pub(super) fn cached(&self, block: usize) -> Guard<Option<Arc<Decoded>>> {
        let slot = &self.blocks[block];
        let guard = slot.decoded.load();
        // A load first: a flag already set is not written again, so a hot
        // block's cache line is not written on every probe by every core.
        if guard.is_some() && !slot.referenced.load(Ordering::Relaxed) {
            slot.referenced.store(true, Ordering::Relaxed);
        }
        guard
    }
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
            clock: Mutex::default(),
            decoded: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
        }
    }

    /// A cache that keeps every block it is given: for jobs that read a
    /// whole table more than once (`verify`), never for a server.
    pub fn unbounded() -> BlockCache {
        BlockCache::new(usize::MAX)
    }

    /// The most decoded bytes this cache keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// What the cache holds now and how many blocks it has decoded.
    pub fn stats(&self) -> CacheStats {
        let clock = self.lock();
        CacheStats {
            capacity: self.capacity,
            used: clock.used,
            blocks: clock.ring.len(),
            decoded: self.decoded.load(Ordering::Relaxed),
            evicted: self.evicted.load(Ordering::Relaxed),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Clock> {
        // The clock's invariants hold between statements that cannot
        // panic, so a poisoned lock is still a consistent one.
        self.clock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `decoded`, just decoded for block `block` of `slots`, if it
    /// fits, evicting as needed; returns the bytes to use (another thread's,
    /// if it cached the same block first).
    pub(super) fn insert(
        &self,
        slots: &Arc<Slots>,
        block: usize,
        decoded: Decoded,
    ) -> Arc<Decoded> {
        self.decoded.fetch_add(1, Ordering::Relaxed);
        let len = decoded.len();
        let decoded = Arc::new(decoded);
        if len > self.capacity {
            return decoded;
        }
        let mut clock = self.lock();
        let slot = &slots.blocks[block];
        // Slots change only under this lock, so this is the final word.
        if let Some(cached) = slot.decoded.load_full() {
            return cached;
        }
        while clock.used + len > self.capacity {
            self.evict_one(&mut clock);
        }
        slot.decoded.store(Some(Arc::clone(&decoded)));
        slot.referenced.store(false, Ordering::Relaxed);
        clock.used += len;
        clock.ring.push(Resident {
            slots: Arc::clone(slots),
            block,
            len,
        });
        decoded
    }

    /// Evicts the first block at or after the hand that no probe used
    /// since the hand last passed it, clearing the flags it passes.
    fn evict_one(&self, clock: &mut Clock) {
        loop {
            if clock.hand >= clock.ring.len() {
                clock.hand = 0;
            }
            let resident = &clock.ring[clock.hand];
            let slot = &resident.slots.blocks[resident.block];
            if slot.referenced.swap(false, Ordering::Relaxed) {
                clock.hand += 1;
                continue;
            }
            slot.decoded.store(None);
            clock.used -= resident.len;
            // The last resident takes the evicted one's place, under the
            // hand, which looks at it next.
            clock.ring.swap_remove(clock.hand);
            self.evicted.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }

    /// Drops every block of `slots` (a table that is going away).
    pub(super) fn forget(&self, slots: &Arc<Slots>) {
        let mut clock = self.lock();
        let mut freed = 0;
        clock.ring.retain(|resident| {
            let theirs = Arc::ptr_eq(&resident.slots, slots);
            if theirs {
                freed += resident.len;
                resident.slots.blocks[resident.block].decoded.store(None);
            }
            !theirs
        });
        clock.used -= freed;
        clock.hand = 0;
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

impl fmt::Debug for Slots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slots")
            .field("blocks", &self.blocks.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(len: usize, byte: u8) -> Decoded {
        vec![byte; len].into_boxed_slice()
    }

    impl Slots {
        fn with_cached<R>(&self, block: usize, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
            self.cached(block).as_deref().map(|d| f(d))
        }
    }

    #[test]
    fn keeps_at_most_its_capacity_and_evicts_the_unused_first() {
        let cache = BlockCache::new(300);
        let slots = Slots::new(10);
        for b in 0..3 {
            cache.insert(&slots, b, block(100, b as u8));
        }
        assert_eq!(cache.stats().used, 300);
        // Block 0 is used again; block 1 is not: it goes first.
        assert_eq!(slots.with_cached(0, |d| d[0]), Some(0));
        cache.insert(&slots, 3, block(100, 3));
        let stats = cache.stats();
        assert_eq!((stats.used, stats.blocks, stats.evicted), (300, 3, 1));
        assert_eq!(slots.with_cached(1, |d| d[0]), None);
        assert_eq!(slots.with_cached(0, |d| d[0]), Some(0));
        assert_eq!(slots.with_cached(3, |d| d[0]), Some(3));
        // A block bigger than the whole cache is used, not kept.
        let big = cache.insert(&slots, 4, block(301, 4));
        assert_eq!(big.len(), 301);
        assert_eq!(slots.with_cached(4, |d| d[0]), None);
        // The same block twice is kept once.
        let first = cache.insert(&slots, 5, block(100, 5));
        let second = cache.insert(&slots, 5, block(100, 5));
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(cache.stats().used, 300);
        cache.forget(&slots);
        assert_eq!(cache.stats().used, 0);
        assert_eq!(slots.with_cached(5, |d| d[0]), None);
    }

    #[test]
    fn a_zero_capacity_keeps_nothing() {
        let cache = BlockCache::new(0);
        let slots = Slots::new(1);
        assert_eq!(cache.insert(&slots, 0, block(8, 1))[0], 1);
        assert_eq!(slots.with_cached(0, |d| d[0]), None);
        assert_eq!(cache.stats().decoded, 1);
    }

    #[test]
    fn threads_share_one_bound() {
        let cache = Arc::new(BlockCache::new(64 * 10));
        let tables: Vec<_> = (0..4).map(|_| Slots::new(100)).collect();
        std::thread::scope(|s| {
            for (t, slots) in tables.iter().enumerate() {
                let cache = &cache;
                s.spawn(move || {
                    for i in 0..1000usize {
                        let b = (i * 7 + t) % 100;
                        if slots.with_cached(b, |d| d[0]).is_none() {
                            cache.insert(slots, b, block(64, b as u8));
                        }
                        assert!(cache.stats().used <= 640);
                    }
                });
            }
        });
        let stats = cache.stats();
        assert!(stats.used <= 640 && stats.blocks <= 10, "{stats:?}");
    }
}
