//! Reading tables: the bytes wherever they are ([`TableData`]: memory or a
//! file read by position), a cheap open that reads and checks the head,
//! probes that decode one block each through a bounded [`BlockCache`], the
//! whole-file checksum (once, on demand or in the background) and the full
//! [`Table::verify`].

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use bincode::Options;
use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::cache::{BlockCache, Frames, Words};
use super::{
    BlockRecord, CHECKSUM_LEN, FORMAT_VERSION, Header, IndexScheme, KEY_LIMIT, MAGIC,
    MAX_BLOCK_ENTRIES, MAX_HEADER_LEN, PREFIX_LEN, RAW, RECORD_BYTES, RECORD_LEN, TableError, ZSTD,
    header_options, read_u32, read_u64,
};

/// Where a table's bytes are: in memory (`Vec<u8>`, `&[u8]`, a memory
/// mapping: anything that is `AsRef<[u8]>`) or in a file read by position
/// ([`TableFile`](crate::TableFile)). A [`Table`] reads only its head at
/// open and then one block per probe that misses its cache, always through
/// [`read_at`](TableData::read_at), so every kind of bytes takes the same
/// path (and the corruption sweep and the fuzzer, which run on memory,
/// test the path files take).
pub trait TableData {
    /// The number of bytes.
    fn byte_len(&self) -> u64;

    /// Fills `buf` with the bytes that start at `offset`.
    ///
    /// # Errors
    ///
    /// [`TableError::Truncated`] if there are fewer bytes than that (a file
    /// cut short since it was opened); [`TableError::Read`] if they cannot
    /// be read.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), TableError>;
}

impl<T: AsRef<[u8]> + ?Sized> TableData for T {
    fn byte_len(&self) -> u64 {
        self.as_ref().len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), TableError> {
        let bytes = self.as_ref();
        let end = offset.checked_add(buf.len() as u64);
        match end.filter(|&end| end <= bytes.len() as u64) {
            Some(end) => {
                buf.copy_from_slice(&bytes[offset as usize..end as usize]);
                Ok(())
            }
            None => Err(TableError::Truncated {
                len: bytes.len() as u64,
                needed: end.unwrap_or(u64::MAX),
            }),
        }
    }
}

/// Where the whole-file checksum of a table stands ([`Table::check_file`],
/// [`Table::check_file_in_background`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileCheck {
    /// Not asked for yet.
    NotStarted,
    /// Being computed.
    Running,
    /// The file's bytes match their checksum.
    Passed,
    /// They do not (or could not be read): every probe of the table now
    /// returns this error.
    Failed(TableError),
}

/// The whole-file check's state, shared with the thread that runs it.
#[derive(Debug)]
struct FileCheckState {
    state: Mutex<FileCheck>,
    finished: Condvar,
    /// Set with the state when the check fails: the one thing the probe
    /// path reads (an atomic load, no lock).
    failed: AtomicBool,
}

impl FileCheckState {
    fn lock(&self) -> std::sync::MutexGuard<'_, FileCheck> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks the check running; false if it already ran or is running.
    fn start(&self) -> bool {
        let mut state = self.lock();
        if *state != FileCheck::NotStarted {
            return false;
        }
        *state = FileCheck::Running;
        true
    }

    fn finish(&self, result: Result<(), TableError>) {
        let mut state = self.lock();
        *state = match result {
            Ok(()) => FileCheck::Passed,
            Err(error) => {
                self.failed.store(true, Ordering::Release);
                FileCheck::Failed(error)
            }
        };
        self.finished.notify_all();
    }

    fn wait(&self) -> FileCheck {
        let mut state = self.lock();
        while *state == FileCheck::Running {
            state = self
                .finished
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.clone()
    }
}

/// Bytes the whole-file checksum reads at a time.
const CHECK_CHUNK: usize = 1 << 18;

/// Whether the XXH3-64 of every byte but the last 8 of `data` is `expected`,
/// read [`CHECK_CHUNK`] bytes at a time (memory: one chunk, whatever the size).
fn check_whole_file<D: TableData + ?Sized>(
    data: &D,
    len: u64,
    expected: u64,
) -> Result<(), TableError> {
    let body = len - CHECKSUM_LEN as u64;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; CHECK_CHUNK.min(body as usize)];
    let mut at = 0;
    while at < body {
        let n = (body - at).min(CHECK_CHUNK as u64) as usize;
        data.read_at(at, &mut buf[..n])?;
        hasher.update(&buf[..n]);
        at += n as u64;
    }
    if hasher.digest() != expected {
        return Err(TableError::Checksum {
            part: "file".into(),
        });
    }
    Ok(())
}

thread_local! {
    /// Each thread's zstd decoding context, made once: a fresh one per block
    /// (what `zstd::bulk::decompress` does) is an allocation big enough to
    /// be mapped and unmapped by the allocator every time.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// A zstd frame of at most `capacity` bytes, decoded.
fn decompress(frame: &[u8], capacity: usize) -> std::io::Result<Vec<u8>> {
    DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        let decompressor = match &mut *cell {
            Some(decompressor) => decompressor,
            empty => empty.insert(zstd::bulk::Decompressor::new()?),
        };
        decompressor.decompress(frame, capacity)
    })
}

/// A table over any bytes ([`TableData`]): a `Vec<u8>` in tests, a file
/// read by position or a memory mapping in use (see
/// [`open_table`](crate::open_table), [`map_table`](crate::map_table)).
///
/// Opening reads and checks the head (prefix, header, block index); a probe
/// decodes one block and keeps it in the table's [`BlockCache`], which
/// bounds the decoded bytes kept (shared with other tables, by default
/// [`BlockCache::DEFAULT_CAPACITY`] of its own). Besides the cache the
/// table keeps 40 bytes per block (its index record and its cache slot).
/// `Table` is `Send + Sync` when `D` is, so many threads can probe one.
///
/// ```
/// use solvedb_lookup::format::{encode_table, Header, Table, FORMAT_VERSION};
/// use solvedb_lookup::format::{GameId, IndexScheme, ValueEncoding};
///
/// let header = Header {
///     game: GameId::TicTacToe,
///     index: IndexScheme::Base3Canonical,
///     values: ValueEncoding::OutcomePlies,
///     entries: 10,
///     stored: 1,
///     block_entries: 4,
///     generator: "example".into(),
/// };
/// let mut entries = vec![0u8; 10];
/// entries[7] = 0x49;
/// let table = Table::new(encode_table(&header, &entries, 3))?;
/// assert_eq!(table.entry(7)?, 0x49);
/// table.verify()?;
/// # Ok::<(), solvedb_lookup::format::TableError>(())
/// ```
pub struct Table<D> {
    data: Arc<D>,
    header: Header,
    len: u64,
    /// Where the first block starts: the length of the head.
    data_start: u64,
    index: Box<[BlockRecord]>,
    file_checksum: u64,
    /// The decoded blocks this table keeps, within its cache's bound.
    frames: Frames,
    /// Sorted-keys tables: the first key of each record block, read once.
    fence: OnceLock<Box<[u64]>>,
    file_check: Arc<FileCheckState>,
}

impl<D: TableData> Table<D> {
    /// Reads and checks the cheap parts of a table (magic, version, header,
    /// block index, that the blocks tile the bytes) and wraps its bytes,
    /// with a [`BlockCache`] of its own of the default capacity.
    ///
    /// # Errors
    ///
    /// A [`TableError`] for truncated, foreign, newer, corrupted or
    /// unreadable bytes.
    pub fn new(data: D) -> Result<Self, TableError> {
        Table::with_cache(data, Arc::new(BlockCache::default()))
    }

    /// As [`new`](Table::new), keeping decoded blocks in `cache` (which
    /// other tables may share: one bound for all).
    ///
    /// # Errors
    ///
    /// As [`new`](Table::new).
    pub fn with_cache(data: D, cache: Arc<BlockCache>) -> Result<Self, TableError> {
        let len = data.byte_len();
        let need = |needed: u64| {
            if len < needed {
                Err(TableError::Truncated { len, needed })
            } else {
                Ok(())
            }
        };
        need(MAGIC.len() as u64)?;
        let mut prefix = [0u8; PREFIX_LEN];
        data.read_at(0, &mut prefix[..MAGIC.len()])?;
        if prefix[..MAGIC.len()] != MAGIC {
            return Err(TableError::BadMagic);
        }
        need(PREFIX_LEN as u64)?;
        data.read_at(0, &mut prefix)?;
        let version = read_u32(&prefix, 8);
        if version > FORMAT_VERSION {
            return Err(TableError::NewerVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        if version < FORMAT_VERSION {
            return Err(TableError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let header_len = read_u32(&prefix, 12);
        if header_len > MAX_HEADER_LEN {
            return Err(TableError::Header(format!(
                "header length {header_len} exceeds {MAX_HEADER_LEN}"
            )));
        }
        let header_end = PREFIX_LEN + header_len as usize;
        need((header_end + CHECKSUM_LEN) as u64)?;
        let mut head = vec![0u8; header_end + CHECKSUM_LEN];
        data.read_at(0, &mut head)?;
        if xxh3_64(&head[..header_end]) != read_u64(&head, header_end) {
            return Err(TableError::Checksum {
                part: "header".into(),
            });
        }
        let header: Header = header_options()
            .deserialize(&head[PREFIX_LEN..header_end])
            .map_err(|e| TableError::Header(e.to_string()))?;
        if header.block_entries == 0 || header.block_entries > MAX_BLOCK_ENTRIES {
            return Err(TableError::Header(format!(
                "block size {} outside 1..={MAX_BLOCK_ENTRIES}",
                header.block_entries
            )));
        }
        if header.index == IndexScheme::SortedWideKeys {
            if header.wide_entries() != Some(header.entries) {
                return Err(TableError::Header(format!(
                    "{} wide records in blocks of {} bytes do not make {} entry bytes",
                    header.stored, header.block_entries, header.entries
                )));
            }
        } else if !header.index.is_dense() {
            let expected = header.sorted_layout().and_then(|(_, _, fence_blocks)| {
                fence_blocks
                    .checked_mul(u64::from(header.block_entries))?
                    .checked_add(header.stored.checked_mul(RECORD_BYTES as u64)?)
            });
            if expected != Some(header.entries) {
                return Err(TableError::Header(format!(
                    "{} sorted records in blocks of {} bytes do not make {} entry bytes",
                    header.stored, header.block_entries, header.entries
                )));
            }
        }
        if header.stored > header.entries {
            return Err(TableError::Header(format!(
                "{} stored entries in {} slots",
                header.stored, header.entries
            )));
        }
        let index_start = (header_end + CHECKSUM_LEN) as u64;
        let blocks = header.blocks();
        // Bounded by the length before anything is allocated.
        let index_len = blocks
            .checked_mul(RECORD_LEN as u64)
            .filter(|&n| n <= len)
            .ok_or(TableError::Truncated {
                len,
                needed: blocks.saturating_mul(RECORD_LEN as u64),
            })?;
        let data_start = index_start + index_len + CHECKSUM_LEN as u64;
        need(data_start + CHECKSUM_LEN as u64)?;
        // Read and parsed a piece at a time: the records are kept, the
        // bytes are not.
        let mut index = Vec::with_capacity(blocks as usize);
        let mut hasher = Xxh3::new();
        let mut piece = vec![0u8; (RECORD_LEN << 12).min(index_len as usize)];
        let mut at = 0;
        while at < index_len {
            let n = (index_len - at).min(piece.len() as u64) as usize;
            data.read_at(index_start + at, &mut piece[..n])?;
            hasher.update(&piece[..n]);
            index.extend(piece[..n].chunks_exact(RECORD_LEN).map(BlockRecord::parse));
            at += n as u64;
        }
        let mut stored_sum = [0u8; CHECKSUM_LEN];
        data.read_at(index_start + index_len, &mut stored_sum)?;
        if hasher.digest() != u64::from_le_bytes(stored_sum) {
            return Err(TableError::Checksum {
                part: "block index".into(),
            });
        }
        let index = index.into_boxed_slice();
        let mut expected_offset = data_start;
        for (block, record) in index.iter().enumerate() {
            if record.offset != expected_offset || record.encoding > ZSTD {
                return Err(TableError::Size(format!(
                    "block {block} record does not follow the previous block"
                )));
            }
            expected_offset += u64::from(record.stored_len);
        }
        if expected_offset + CHECKSUM_LEN as u64 != len {
            return Err(TableError::Size(format!(
                "blocks end at byte {expected_offset}, file has {len} bytes (8 are the checksum)"
            )));
        }
        let mut tail = [0u8; CHECKSUM_LEN];
        data.read_at(len - CHECKSUM_LEN as u64, &mut tail)?;
        Ok(Table {
            data: Arc::new(data),
            frames: Frames::new(cache, index.len(), header.block_entries as usize),
            header,
            len,
            data_start,
            index,
            file_checksum: u64::from_le_bytes(tail),
            fence: OnceLock::new(),
            file_check: Arc::new(FileCheckState {
                state: Mutex::new(FileCheck::NotStarted),
                finished: Condvar::new(),
                failed: AtomicBool::new(false),
            }),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The bytes the table reads from.
    pub fn data(&self) -> &D {
        &self.data
    }

    /// The table's length in bytes (as it was when it was opened).
    pub fn byte_len(&self) -> u64 {
        self.len
    }

    /// The cache that keeps this table's decoded blocks.
    pub fn cache(&self) -> &Arc<BlockCache> {
        self.frames.cache()
    }

    /// The whole-file checksum stored in the last 8 bytes (XXH3-64 of all
    /// bytes before them), as recorded in `tables/MANIFEST`. Read at open,
    /// not recomputed: [`check_file`](Table::check_file) does that.
    pub fn file_checksum(&self) -> u64 {
        self.file_checksum
    }

    /// The entry byte in `slot`, decoding its block (and keeping it in the
    /// cache) unless the cache holds it.
    ///
    /// # Errors
    ///
    /// [`TableError::Size`] for a slot past the end; a checksum, decoding or
    /// reading error if the block is corrupt or cannot be read; the
    /// whole-file check's error once it has failed.
    #[inline]
    pub fn entry(&self, slot: u64) -> Result<u8, TableError> {
        if slot >= self.header.entries {
            return Err(TableError::Size(format!(
                "slot {slot} is past the table's {} entries",
                self.header.entries
            )));
        }
        let block_entries = u64::from(self.header.block_entries);
        let at = (slot % block_entries) as usize;
        self.with_block(slot / block_entries, |block| block.byte(at))
    }

    /// The decoded entries of block `block` (the slots
    /// [`block_span`](Table::block_span) gives), copied out of its frame in
    /// the cache, or decoded and kept there: for code that reads every
    /// entry of a block, one cache lookup instead of one per entry.
    ///
    /// # Errors
    ///
    /// As [`entry`](Table::entry): a block past the end, a corrupt or
    /// unreadable block, the whole-file check's error once it has failed.
    pub fn block_entries(&self, block: u64) -> Result<Vec<u8>, TableError> {
        self.with_block(block, |words| words.to_vec())
    }

    /// The length of the table's head: everything before the first block
    /// (prefix, header, block index and their checksums).
    pub fn head_len(&self) -> usize {
        self.data_start as usize
    }

    /// The bytes block `block` occupies in the file, and the slots it holds.
    ///
    /// # Panics
    ///
    /// If `block >= header().blocks()`.
    pub fn block_span(&self, block: u64) -> (Range<usize>, Range<u64>) {
        let record = self.record(block);
        let start = record.offset as usize;
        let first = block * u64::from(self.header.block_entries);
        (
            start..start + record.stored_len as usize,
            first..first + self.header.block_len(block) as u64,
        )
    }

    pub(super) fn record(&self, block: u64) -> BlockRecord {
        self.index[block as usize]
    }

    /// `read` of the decoded bytes of block `block`: from its frame in the
    /// cache, or read, checked, decoded and put in a frame. `read` may be
    /// called twice (a frame rewritten while it was read is read again from
    /// the block decoded afresh), and may see bytes that are not the
    /// block's the first time, whose result is then thrown away: it must
    /// only read (indices checked against `len()`).
    #[inline]
    pub(super) fn with_block<R>(
        &self,
        block: u64,
        read: impl Fn(Words<'_>) -> R,
    ) -> Result<R, TableError> {
        if self.file_check.failed.load(Ordering::Acquire) {
            return Err(self.file_check_error());
        }
        let b = usize::try_from(block)
            .ok()
            .filter(|&b| b < self.index.len())
            .ok_or_else(|| TableError::Size(format!("block {block} is past the table's end")))?;
        let len = self.header.block_len(block);
        if let Some(result) = self.frames.read(b, len, &read) {
            return Ok(result);
        }
        Ok(self.frames.install(b, &self.decode_block(block)?, &read))
    }

    #[cold]
    fn file_check_error(&self) -> TableError {
        match self.file_check.wait() {
            FileCheck::Failed(error) => error,
            _ => TableError::Checksum {
                part: "file".into(),
            },
        }
    }

    /// The `u64` at entry byte `at` (a multiple of 8, so never split
    /// between blocks when blocks hold whole records).
    fn entry_u64(&self, at: u64) -> Result<u64, TableError> {
        let block_entries = u64::from(self.header.block_entries);
        let offset = (at % block_entries) as usize;
        self.with_block(at / block_entries, |block| {
            (offset + RECORD_BYTES <= block.len()).then(|| block.u64_at(offset))
        })?
        .ok_or_else(|| TableError::Size(format!("entry byte {at} is past its block")))
    }

    /// The fence of a sorted-keys table (the first key of each record
    /// block), decoded on first use and kept outside the cache: every probe
    /// searches it. 8 bytes per record block.
    fn fence(&self) -> Result<&[u64], TableError> {
        if let Some(fence) = self.fence.get() {
            return Ok(fence);
        }
        let (_, record_blocks, fence_blocks) = self
            .header
            .sorted_layout()
            .ok_or_else(|| TableError::Header("bad sorted-keys layout".into()))?;
        let mut fence = Vec::new();
        for block in 0..fence_blocks {
            let decoded = self.decode_block(block)?;
            fence.extend(
                decoded
                    .chunks_exact(RECORD_BYTES)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            );
        }
        fence.truncate(usize::try_from(record_blocks).unwrap_or(usize::MAX));
        Ok(self.fence.get_or_init(|| fence.into_boxed_slice()))
    }

    /// The entry byte stored with `key` in a [`IndexScheme::SortedKeys`]
    /// table, `None` if the key is not there.
    ///
    /// # Errors
    ///
    /// [`TableError::Header`] if the table is not sorted-keys; a checksum,
    /// decoding or reading error if a block it reads is corrupt.
    pub fn sorted_entry(&self, key: u64) -> Result<Option<u8>, TableError> {
        if self.header.index != IndexScheme::SortedKeys {
            return Err(TableError::Header(format!(
                "{:?} tables hold no sorted keys",
                self.header.index
            )));
        }
        let (_, _, fence_blocks) = self
            .header
            .sorted_layout()
            .ok_or_else(|| TableError::Header("bad sorted-keys layout".into()))?;
        // The last record block whose first key is at most `key`.
        let Some(record_block) = self.fence()?.partition_point(|&k| k <= key).checked_sub(1) else {
            return Ok(None);
        };
        self.with_block(fence_blocks + record_block as u64, |block| {
            let record = |i: usize| block.u64_at(i * RECORD_BYTES);
            let (mut lo, mut hi) = (0usize, block.len() / RECORD_BYTES);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let found = record(mid) & (KEY_LIMIT - 1);
                match found.cmp(&key) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return Some((record(mid) >> 56) as u8),
                }
            }
            None
        })
    }

    /// Record `index` (of `stored`) of a [`IndexScheme::SortedKeys`] table:
    /// its key and entry byte.
    ///
    /// # Errors
    ///
    /// [`TableError::Size`] past the last record or in a dense table; a
    /// checksum, decoding or reading error if its block is corrupt.
    pub fn sorted_record(&self, index: u64) -> Result<(u64, u8), TableError> {
        let layout = self
            .header
            .sorted_layout()
            .filter(|_| self.header.index == IndexScheme::SortedKeys);
        let Some((_, _, fence_blocks)) = layout.filter(|_| index < self.header.stored) else {
            return Err(TableError::Size(format!(
                "record {index} of a table with {} sorted records",
                self.header.stored
            )));
        };
        let at = fence_blocks * u64::from(self.header.block_entries) + index * RECORD_BYTES as u64;
        let record = self.entry_u64(at)?;
        Ok((record & (KEY_LIMIT - 1), (record >> 56) as u8))
    }

    /// Block `block` read, checked against its checksum and decoded (not
    /// cached).
    pub(super) fn decode_block(&self, block: u64) -> Result<Vec<u8>, TableError> {
        let record = self.record(block);
        let mut stored = vec![0u8; record.stored_len as usize];
        self.data.read_at(record.offset, &mut stored)?;
        if xxh3_64(&stored) != record.checksum {
            return Err(TableError::Checksum {
                part: format!("block {block}"),
            });
        }
        let expected = self.header.block_len(block);
        let bad = |reason: String| TableError::Block { block, reason };
        let decoded = match record.encoding {
            RAW => stored,
            _ => decompress(&stored, expected).map_err(|e| bad(e.to_string()))?,
        };
        if decoded.len() != expected {
            return Err(bad(format!(
                "{} entries, expected {expected}",
                decoded.len()
            )));
        }
        Ok(decoded)
    }

    /// Checks the whole-file checksum now, reading the bytes 256 KiB at a
    /// time (memory: one such buffer, whatever the table's size), unless
    /// it was checked before; waits for a check already running. After a
    /// failure every probe of the table returns the error.
    ///
    /// # Errors
    ///
    /// [`TableError::Checksum`] (`file`) if the bytes do not match, or the
    /// error that kept them from being read.
    pub fn check_file(&self) -> Result<(), TableError> {
        if self.file_check.start() {
            let result = check_whole_file(&*self.data, self.len, self.file_checksum);
            self.file_check.finish(result);
        }
        match self.file_check.wait() {
            FileCheck::Failed(error) => Err(error),
            _ => Ok(()),
        }
    }

    /// Where the whole-file check stands, without waiting.
    pub fn file_check(&self) -> FileCheck {
        self.file_check.lock().clone()
    }
}

impl<D: TableData + Send + Sync + 'static> Table<D> {
    /// Starts [`check_file`](Table::check_file) on a thread of its own
    /// (named `solvedb-check`) unless it ran or is running, and returns at
    /// once: probes are answered meanwhile, each block checked by its own
    /// checksum, and once the check fails every probe returns its error.
    /// If no thread can be started the check is simply not made.
    pub fn check_file_in_background(&self) {
        if !self.file_check.start() {
            return;
        }
        let (data, state) = (Arc::clone(&self.data), Arc::clone(&self.file_check));
        let (len, expected) = (self.len, self.file_checksum);
        let spawned = std::thread::Builder::new()
            .name("solvedb-check".into())
            .spawn(move || {
                lowest_priority();
                state.finish(check_whole_file(&*data, len, expected));
            });
        if spawned.is_err() {
            *self.file_check.lock() = FileCheck::NotStarted;
            self.file_check.finished.notify_all();
        }
    }
}

/// Puts the calling thread at the lowest CPU priority (nice 19), where the
/// system allows it: a check in the background must not slow the probes
/// it runs beside (measured: on a busy 2-core machine, a first answer
/// took 6 ms instead of 2 while the check ran at the same priority).
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    {
        // Per thread on Linux: `setpriority` of a thread id.
        let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19);
    }
}

impl<D: AsRef<[u8]>> Table<D> {
    /// The bytes of a table held in memory.
    pub fn bytes(&self) -> &[u8] {
        (*self.data).as_ref()
    }
}

impl<D> fmt::Debug for Table<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("header", &self.header)
            .field("bytes", &self.len)
            .field("cache", self.frames.cache())
            .finish_non_exhaustive()
    }
}

impl<D: TableData + Send + Sync> Table<D> {
    /// Checks every checksum (the whole file's, then every block's) and
    /// decodes every block (not through the cache), and that the number of
    /// non-empty entries matches the header.
    ///
    /// # Errors
    ///
    /// The first problem found.
    pub fn verify(&self) -> Result<(), TableError> {
        self.check_file()?;
        if self.header.index == IndexScheme::SortedWideKeys {
            return self.verify_wide();
        }
        if !self.header.index.is_dense() {
            return self.verify_sorted();
        }
        let stored = (0..self.header.blocks())
            .into_par_iter()
            .map(|block| {
                let decoded = self.decode_block(block)?;
                Ok(decoded.iter().filter(|&&e| e != 0).count() as u64)
            })
            .sum::<Result<u64, TableError>>()?;
        if stored != self.header.stored {
            return Err(TableError::Size(format!(
                "{stored} entries hold positions, the header says {}",
                self.header.stored
            )));
        }
        Ok(())
    }

    /// Sorted-keys tables: every block decodes, the fence names each record
    /// block's first key, keys ascend strictly and no entry byte is 0.
    fn verify_sorted(&self) -> Result<(), TableError> {
        let (per_block, record_blocks, fence_blocks) = self
            .header
            .sorted_layout()
            .ok_or_else(|| TableError::Header("bad sorted-keys layout".into()))?;
        let bad = |block: u64, reason: String| TableError::Block { block, reason };
        for block in 0..fence_blocks {
            let decoded = self.decode_block(block)?;
            let fence_end = (record_blocks * RECORD_BYTES as u64)
                .saturating_sub(block * u64::from(self.header.block_entries));
            if decoded.iter().skip(fence_end as usize).any(|&b| b != 0) {
                return Err(bad(block, "fence padding is not zero".into()));
            }
        }
        let fence = self.fence()?;
        // Each record block, with the key before it (from the block before).
        (0..record_blocks)
            .into_par_iter()
            .try_for_each(|r| -> Result<(), TableError> {
                let block = fence_blocks + r;
                let decoded = self.decode_block(block)?;
                let mut previous: Option<u64> = None;
                let first = decoded
                    .get(..RECORD_BYTES)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) & (KEY_LIMIT - 1));
                if fence.get(r as usize).copied() != first {
                    return Err(bad(block, "the fence does not name its first key".into()));
                }
                for (i, chunk) in decoded.chunks_exact(RECORD_BYTES).enumerate() {
                    let record = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                    let key = record & (KEY_LIMIT - 1);
                    if record >> 56 == 0 {
                        return Err(bad(block, format!("record {i} has entry byte 0")));
                    }
                    // Keys ascend within a block; across blocks the fence
                    // orders them (checked after the loop).
                    if previous.is_some_and(|p| p >= key) {
                        return Err(bad(block, format!("record {i} is out of order")));
                    }
                    previous = Some(key);
                }
                if let Some(&next) = fence.get(r as usize + 1) {
                    if previous.is_none_or(|last| next <= last) {
                        return Err(bad(
                            block,
                            "the next block's first key is not larger".into(),
                        ));
                    }
                }
                if decoded.len() / RECORD_BYTES > per_block as usize {
                    return Err(bad(block, "too many records".into()));
                }
                Ok(())
            })
    }
}
