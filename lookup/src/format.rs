//! The table file format, version 1: reading and writing, in one place.
//!
//! A table is a flat array of one-byte entries, one per *slot*; the game's
//! [`Tabled`] implementation maps positions to slots and
//! entries to values. The array is cut into blocks of `block_entries` entries
//! (the last may be shorter), each stored zstd-compressed or raw, whichever is
//! smaller, so that a probe decodes exactly one block.
//!
//! # Byte layout
//!
//! All integers are little-endian. `H` is the header length, `B` the number
//! of blocks, `ceil(entries / block_entries)`.
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `53 4F 4C 56 45 44 42 1A` (`SOLVEDB` and `^Z`) |
//! | 8 | 4 | format version, `u32` (this module writes [`FORMAT_VERSION`]) |
//! | 12 | 4 | `H`, `u32`, at most [`MAX_HEADER_LEN`] |
//! | 16 | `H` | the [`Header`], encoded as below |
//! | 16+H | 8 | XXH3-64 (seed 0) of bytes `0 .. 16+H` |
//! | 24+H | 24·B | the block index: one record per block, below |
//! | 24+H+24·B | 8 | XXH3-64 of the block index |
//! | 32+H+24·B | … | the blocks' stored bytes, in order, back to back |
//! | end−8 | 8 | XXH3-64 of every byte before it |
//!
//! A block record is `offset: u64` (from the start of the file),
//! `stored_len: u32`, `encoding: u8` (0 = raw, 1 = zstd frame), three zero
//! bytes, and `checksum: u64`, the XXH3-64 of the block's stored bytes.
//!
//! The header is the [`Header`] struct in bincode 1.3.3's fixed-int
//! little-endian encoding, fields in declaration order: `game` (a `u32`
//! variant index, 0 tic-tac-toe, 1 cube, 2 dots followed by `rows: u8`,
//! `cols: u8`), `index` (`u32` variant of [`IndexScheme`]), `values` (`u32`
//! variant of [`ValueEncoding`]), `entries: u64`, `stored: u64` (entries that
//! hold a position), `block_entries: u32`, `generator` (a `u64` byte length
//! and UTF-8 bytes). Index schemes: 0 = `Base3Canonical`, 1 =
//! `SortedKeys`, 2 = `EdgeMaskCanonical`; value encodings: 0 = `OutcomePlies`, 1 = `Margin`
//! (see [`IndexScheme`] and [`ValueEncoding`] for what their slots and bytes
//! mean). A test pins these bytes, so the format never silently
//! depends on a crate's defaults.
//!
//! # Entries
//!
//! With a dense index ([`IndexScheme::Base3Canonical`], variant 0) entry
//! `i` is the byte of slot `i` and `entries` is the number of slots; a 0
//! byte is an empty slot.
//!
//! With [`IndexScheme::SortedKeys`] (variant 1) the entry bytes hold
//! `stored` = `N` records. `block_entries` = `E` must be a multiple of 8; a
//! block then holds `R = E / 8` records, and there are `F = ceil(N / R)`
//! record blocks. The entry bytes are, in order:
//!
//! | entry bytes | content |
//! |---|---|
//! | `0 .. 8F` | the fence: `F` keys, `u64`, the first key of each record block |
//! | `8F .. P·E` | zero padding, up to the next whole block (`P = ceil(8F / E)`) |
//! | `P·E .. P·E+8N` | `N` records, `u64`: `key \| entry << 56` |
//!
//! Keys are below `2^56` and strictly ascending; entry bytes are never 0.
//! `entries` = `P·E + 8N`. A probe reads the fence (its `P` blocks, kept once
//! decoded), then decodes the one record block that can hold the key and
//! searches it. Adding this scheme left the layout of dense tables as it was,
//! so the format version stayed 1; a reader that predates it refuses such a
//! table's header as malformed.
//!
//! # Checks
//!
//! [`Table::new`] is cheap: it checks the magic, the version (a newer one is
//! refused with [`TableError::NewerVersion`]), the header checksum and
//! contents, the block index checksum, and that the blocks tile the file
//! exactly. A probe checks the checksum of the one block it decodes.
//! [`Table::verify`] checks everything: the whole-file checksum and every
//! block. Any change to this layout bumps [`FORMAT_VERSION`].
//!
//! # Determinism
//!
//! [`encode_table`] is a pure function of the header and entries (blocks are
//! compressed independently, in parallel, and assembled in order), so the
//! same build writes the same bytes. [`write_atomically`] writes a temporary
//! file, syncs it and renames it over the final name.

use std::fs::{self, File};
use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use bincode::Options;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::TableError;
use crate::game::{GameId, IndexScheme, Tabled, ValueEncoding};

/// Bytes per record of a [`IndexScheme::SortedKeys`] table.
pub const RECORD_BYTES: usize = 8;
/// Keys of a [`IndexScheme::SortedKeys`] table are below this.
pub const KEY_LIMIT: u64 = 1 << 56;

/// The first eight bytes of every table.
pub const MAGIC: [u8; 8] = *b"SOLVEDB\x1a";
/// The format version this library writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The longest header a reader accepts, in bytes.
pub const MAX_HEADER_LEN: u32 = 4096;
/// The most entries a block may hold; keeps a corrupt header from asking for
/// a huge allocation.
pub const MAX_BLOCK_ENTRIES: u32 = 1 << 24;

const PREFIX_LEN: usize = 16;
const CHECKSUM_LEN: usize = 8;
const RECORD_LEN: usize = 24;
const RAW: u8 = 0;
const ZSTD: u8 = 1;

/// What a table holds; see the [module documentation](self) for its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The game and board.
    pub game: GameId,
    /// How positions map to slots.
    pub index: IndexScheme,
    /// How entry bytes encode values.
    pub values: ValueEncoding,
    /// Slots in the table.
    pub entries: u64,
    /// Slots that hold a position (the rest are 0).
    pub stored: u64,
    /// Entries per block.
    pub block_entries: u32,
    /// The program and version that wrote the table.
    pub generator: String,
}

impl Header {
    /// The number of blocks.
    pub fn blocks(&self) -> u64 {
        self.entries.div_ceil(u64::from(self.block_entries.max(1)))
    }

    /// Sorted-keys layout: records per block, record blocks, fence blocks.
    fn sorted_layout(&self) -> Option<(u64, u64, u64)> {
        let records_per_block = u64::from(self.block_entries) / RECORD_BYTES as u64;
        if self.block_entries as usize % RECORD_BYTES != 0 || records_per_block == 0 {
            return None;
        }
        // Checked: the header may come from a corrupt file.
        let record_blocks = self.stored.div_ceil(records_per_block);
        let fence_blocks = record_blocks
            .checked_mul(RECORD_BYTES as u64)?
            .div_ceil(u64::from(self.block_entries));
        Some((records_per_block, record_blocks, fence_blocks))
    }

    /// Entries in block `block` (the last block may be short).
    fn block_len(&self, block: u64) -> usize {
        let start = block * u64::from(self.block_entries);
        (self.entries - start).min(u64::from(self.block_entries)) as usize
    }

    /// Refuses a header that does not describe a table of `game`.
    ///
    /// # Errors
    ///
    /// [`TableError::WrongGame`] or [`TableError::Size`].
    pub fn check_game<G: Tabled>(&self, game: &G) -> Result<(), TableError> {
        if self.game != game.id() {
            return Err(TableError::WrongGame {
                expected: game.id(),
                found: self.game,
            });
        }
        if self.index != G::INDEX || self.values != G::VALUES {
            return Err(TableError::Header(format!(
                "{} tables use {:?} with {:?}, this one {:?} with {:?}",
                self.game,
                G::INDEX,
                G::VALUES,
                self.index,
                self.values
            )));
        }
        if G::INDEX.is_dense() && self.entries != game.slots() {
            return Err(TableError::Size(format!(
                "{} needs {} slots, the header says {}",
                self.game,
                game.slots(),
                self.entries
            )));
        }
        Ok(())
    }
}

fn header_options() -> impl Options {
    bincode::options()
        .with_fixint_encoding()
        .with_little_endian()
        .with_limit(u64::from(MAX_HEADER_LEN))
        .reject_trailing_bytes()
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// One block's place and encoding, from the block index.
#[derive(Copy, Clone, Debug)]
struct BlockRecord {
    offset: u64,
    stored_len: u32,
    encoding: u8,
    checksum: u64,
}

impl BlockRecord {
    fn parse(bytes: &[u8]) -> BlockRecord {
        BlockRecord {
            offset: read_u64(bytes, 0),
            stored_len: read_u32(bytes, 8),
            encoding: bytes[12],
            checksum: read_u64(bytes, 16),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.stored_len.to_le_bytes());
        out.extend_from_slice(&[self.encoding, 0, 0, 0]);
        out.extend_from_slice(&self.checksum.to_le_bytes());
    }
}

/// A table over any bytes: a `Vec<u8>` in tests, a memory mapping in use
/// (see [`map_table`](crate::map_table)).
///
/// Opening is cheap and probing decodes one block, which is then kept:
/// memory grows to at most the uncompressed table size (one byte per slot)
/// if every block is touched. `Table` is `Send + Sync` when `D` is, so many
/// threads can probe one mapping.
///
/// ```
/// use solvedb_lookup::format::{encode_table, Header, Table, FORMAT_VERSION};
/// use solvedb_lookup::{GameId, IndexScheme, ValueEncoding};
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
/// # Ok::<(), solvedb_lookup::TableError>(())
/// ```
#[derive(Debug)]
pub struct Table<D> {
    data: D,
    header: Header,
    index_start: usize,
    decoded: Box<[OnceLock<Box<[u8]>>]>,
}

impl<D: AsRef<[u8]>> Table<D> {
    /// Checks the cheap parts of a table (magic, version, header, block
    /// index) and wraps its bytes.
    ///
    /// # Errors
    ///
    /// A [`TableError`] for truncated, foreign, newer, or corrupted bytes.
    pub fn new(data: D) -> Result<Self, TableError> {
        let bytes = data.as_ref();
        let len = bytes.len() as u64;
        let need = |needed: u64| {
            if len < needed {
                Err(TableError::Truncated { len, needed })
            } else {
                Ok(())
            }
        };
        need(MAGIC.len() as u64)?;
        if bytes[..MAGIC.len()] != MAGIC {
            return Err(TableError::BadMagic);
        }
        need(PREFIX_LEN as u64)?;
        let version = read_u32(bytes, 8);
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
        let header_len = read_u32(bytes, 12);
        if header_len > MAX_HEADER_LEN {
            return Err(TableError::Header(format!(
                "header length {header_len} exceeds {MAX_HEADER_LEN}"
            )));
        }
        let header_end = PREFIX_LEN + header_len as usize;
        need((header_end + CHECKSUM_LEN) as u64)?;
        if xxh3_64(&bytes[..header_end]) != read_u64(bytes, header_end) {
            return Err(TableError::Checksum {
                part: "header".into(),
            });
        }
        let header: Header = header_options()
            .deserialize(&bytes[PREFIX_LEN..header_end])
            .map_err(|e| TableError::Header(e.to_string()))?;
        if header.block_entries == 0 || header.block_entries > MAX_BLOCK_ENTRIES {
            return Err(TableError::Header(format!(
                "block size {} outside 1..={MAX_BLOCK_ENTRIES}",
                header.block_entries
            )));
        }
        if !header.index.is_dense() {
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
        let index_start = header_end + CHECKSUM_LEN;
        let blocks = header.blocks();
        // Bounded by the file length before anything is allocated.
        let index_len = blocks
            .checked_mul(RECORD_LEN as u64)
            .filter(|&n| n <= len)
            .ok_or(TableError::Truncated {
                len,
                needed: blocks.saturating_mul(RECORD_LEN as u64),
            })?;
        let data_start = index_start as u64 + index_len + CHECKSUM_LEN as u64;
        need(data_start + CHECKSUM_LEN as u64)?;
        let index_end = index_start + index_len as usize;
        if xxh3_64(&bytes[index_start..index_end]) != read_u64(bytes, index_end) {
            return Err(TableError::Checksum {
                part: "block index".into(),
            });
        }
        let mut table = Table {
            data,
            header,
            index_start,
            decoded: Box::default(),
        };
        let mut expected_offset = data_start;
        for block in 0..blocks {
            let record = table.record(block);
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
        table.decoded = (0..blocks).map(|_| OnceLock::new()).collect();
        Ok(table)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The bytes the table was made from.
    pub fn bytes(&self) -> &[u8] {
        self.data.as_ref()
    }

    /// The whole-file checksum stored in the last 8 bytes (XXH3-64 of all
    /// bytes before them), as recorded in `tables/MANIFEST`. Not recomputed
    /// here: [`verify`](Table::verify) does that.
    pub fn file_checksum(&self) -> u64 {
        let bytes = self.bytes();
        read_u64(bytes, bytes.len() - CHECKSUM_LEN)
    }

    /// The entry byte in `slot`, decoding (and keeping) its block on first use.
    ///
    /// # Errors
    ///
    /// [`TableError::Size`] for a slot past the end; a checksum or decoding
    /// error if the block is corrupt.
    pub fn entry(&self, slot: u64) -> Result<u8, TableError> {
        if slot >= self.header.entries {
            return Err(TableError::Size(format!(
                "slot {slot} is past the table's {} entries",
                self.header.entries
            )));
        }
        let block_entries = u64::from(self.header.block_entries);
        let block = self.block(slot / block_entries)?;
        Ok(block[(slot % block_entries) as usize])
    }

    /// The length of the table's head: everything before the first block
    /// (prefix, header, block index and their checksums).
    pub fn head_len(&self) -> usize {
        self.index_start + self.decoded.len() * RECORD_LEN + CHECKSUM_LEN
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

    fn record(&self, block: u64) -> BlockRecord {
        let at = self.index_start + block as usize * RECORD_LEN;
        BlockRecord::parse(&self.bytes()[at..at + RECORD_LEN])
    }

    fn block(&self, block: u64) -> Result<&[u8], TableError> {
        let cell = &self.decoded[block as usize];
        if let Some(decoded) = cell.get() {
            return Ok(decoded);
        }
        let decoded = self.decode_block(block)?;
        // Another thread may have won the race; its bytes are the same.
        Ok(cell.get_or_init(|| decoded))
    }

    /// The `u64` at entry byte `at` (a multiple of 8, so never split
    /// between blocks when blocks hold whole records).
    fn entry_u64(&self, at: u64) -> Result<u64, TableError> {
        let block_entries = u64::from(self.header.block_entries);
        let block = self.block(at / block_entries)?;
        let offset = (at % block_entries) as usize;
        block
            .get(offset..offset + RECORD_BYTES)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .ok_or_else(|| TableError::Size(format!("entry byte {at} is past its block")))
    }

    /// The entry byte stored with `key` in a [`IndexScheme::SortedKeys`]
    /// table, `None` if the key is not there.
    ///
    /// # Errors
    ///
    /// [`TableError::Header`] if the table is not sorted-keys; a checksum or
    /// decoding error if a block it reads is corrupt.
    pub fn sorted_entry(&self, key: u64) -> Result<Option<u8>, TableError> {
        if self.header.index.is_dense() {
            return Err(TableError::Header(format!(
                "{:?} tables hold no sorted keys",
                self.header.index
            )));
        }
        let (per_block, record_blocks, fence_blocks) = self
            .header
            .sorted_layout()
            .ok_or_else(|| TableError::Header("bad sorted-keys layout".into()))?;
        // The last record block whose first key is at most `key`.
        let (mut lo, mut hi) = (0u64, record_blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry_u64(mid * RECORD_BYTES as u64)? <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let Some(record_block) = lo.checked_sub(1) else {
            return Ok(None);
        };
        let block = self.block(fence_blocks + record_block)?;
        let records = block.len() as u64 / RECORD_BYTES as u64;
        debug_assert!(records <= per_block);
        let record = |i: usize| {
            let at = i * RECORD_BYTES;
            u64::from_le_bytes(block[at..at + RECORD_BYTES].try_into().expect("8 bytes"))
        };
        let (mut lo, mut hi) = (0usize, records as usize);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let found = record(mid) & (KEY_LIMIT - 1);
            match found.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some((record(mid) >> 56) as u8)),
            }
        }
        Ok(None)
    }

    /// Record `index` (of `stored`) of a [`IndexScheme::SortedKeys`] table:
    /// its key and entry byte.
    ///
    /// # Errors
    ///
    /// [`TableError::Size`] past the last record or in a dense table; a
    /// checksum or decoding error if its block is corrupt.
    pub fn sorted_record(&self, index: u64) -> Result<(u64, u8), TableError> {
        let layout = self
            .header
            .sorted_layout()
            .filter(|_| !self.header.index.is_dense());
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

    fn decode_block(&self, block: u64) -> Result<Box<[u8]>, TableError> {
        let record = self.record(block);
        let start = record.offset as usize;
        let stored = &self.bytes()[start..start + record.stored_len as usize];
        if xxh3_64(stored) != record.checksum {
            return Err(TableError::Checksum {
                part: format!("block {block}"),
            });
        }
        let expected = self.header.block_len(block);
        let bad = |reason: String| TableError::Block { block, reason };
        let decoded = match record.encoding {
            RAW => stored.to_vec(),
            _ => zstd::bulk::decompress(stored, expected).map_err(|e| bad(e.to_string()))?,
        };
        if decoded.len() != expected {
            return Err(bad(format!(
                "{} entries, expected {expected}",
                decoded.len()
            )));
        }
        Ok(decoded.into_boxed_slice())
    }
}

impl<D: AsRef<[u8]> + Sync> Table<D> {
    /// Checks every checksum and decodes every block, and that the number of
    /// non-empty entries matches the header.
    ///
    /// # Errors
    ///
    /// The first problem found.
    pub fn verify(&self) -> Result<(), TableError> {
        let bytes = self.bytes();
        let body = bytes.len() - CHECKSUM_LEN;
        if xxh3_64(&bytes[..body]) != read_u64(bytes, body) {
            return Err(TableError::Checksum {
                part: "file".into(),
            });
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
}

impl<D: AsRef<[u8]> + Sync> Table<D> {
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
        // Each record block, with the key before it (from the block before).
        (0..record_blocks)
            .into_par_iter()
            .try_for_each(|r| -> Result<(), TableError> {
                let block = fence_blocks + r;
                let decoded = self.decode_block(block)?;
                let mut previous: Option<u64> = None;
                if self.entry_u64(r * RECORD_BYTES as u64)?
                    != u64::from_le_bytes(decoded[..RECORD_BYTES].try_into().expect("8 bytes"))
                        & (KEY_LIMIT - 1)
                {
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
                if r + 1 < record_blocks
                    && self.entry_u64((r + 1) * RECORD_BYTES as u64)?
                        <= previous.expect("a full block")
                {
                    return Err(bad(
                        block,
                        "the next block's first key is not larger".into(),
                    ));
                }
                if decoded.len() / RECORD_BYTES > per_block as usize {
                    return Err(bad(block, "too many records".into()));
                }
                Ok(())
            })
    }
}

/// The entry bytes of a [`IndexScheme::SortedKeys`] table: the fence, its
/// padding and the records (see the [module documentation](self)).
///
/// # Panics
///
/// If `block_entries` is not a positive multiple of 8, a key is not below
/// [`KEY_LIMIT`], keys do not ascend strictly, or an entry byte is 0: the
/// writer's bugs.
pub fn sorted_entries(records: &[(u64, u8)], block_entries: u32) -> Vec<u8> {
    let block = block_entries as usize;
    assert!(block > 0 && block % RECORD_BYTES == 0, "block size");
    let per_block = block / RECORD_BYTES;
    let record_blocks = records.len().div_ceil(per_block);
    let fence_blocks = (record_blocks * RECORD_BYTES).div_ceil(block);
    let mut out = Vec::with_capacity(fence_blocks * block + records.len() * RECORD_BYTES);
    for chunk in records.chunks(per_block) {
        out.extend_from_slice(&chunk[0].0.to_le_bytes());
    }
    out.resize(fence_blocks * block, 0);
    for (i, &(key, entry)) in records.iter().enumerate() {
        assert!(key < KEY_LIMIT && entry != 0, "record {i}");
        assert!(i == 0 || records[i - 1].0 < key, "keys ascend");
        out.extend_from_slice(&(key | u64::from(entry) << 56).to_le_bytes());
    }
    out
}

/// The entry byte stored with `key` in a sorted-keys table
/// ([`Table::sorted_entry`]).
///
/// # Errors
///
/// As [`Table::sorted_entry`].
pub fn sorted_lookup<D: AsRef<[u8]>>(table: &Table<D>, key: u64) -> Result<Option<u8>, TableError> {
    table.sorted_entry(key)
}

/// The bytes of a table with this header and these entries, blocks compressed
/// at zstd `level` (or stored raw where that is smaller).
///
/// # Panics
///
/// If `entries.len()` differs from `header.entries`, or the header is
/// invalid (zero block size, too long); these are the writer's bugs.
pub fn encode_table(header: &Header, entries: &[u8], level: i32) -> Vec<u8> {
    assert_eq!(entries.len() as u64, header.entries, "entry count");
    assert!(
        (1..=MAX_BLOCK_ENTRIES).contains(&header.block_entries),
        "block size"
    );
    let header_bytes = header_options().serialize(header).expect("header encodes");
    assert!(
        header_bytes.len() <= MAX_HEADER_LEN as usize,
        "header too long"
    );

    let blocks: Vec<(u8, Vec<u8>)> = entries
        .par_chunks(header.block_entries as usize)
        .map(|chunk| match zstd::bulk::compress(chunk, level) {
            // The buffer has room for the worst case, a whole block: give
            // it back, or a big table keeps one block's worth per block.
            Ok(mut packed) if packed.len() < chunk.len() => {
                packed.shrink_to_fit();
                (ZSTD, packed)
            }
            _ => (RAW, chunk.to_vec()),
        })
        .collect();

    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(header_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&header_bytes);
    out.extend_from_slice(&xxh3_64(&out).to_le_bytes());

    let index_start = out.len();
    let mut offset = (index_start + blocks.len() * RECORD_LEN + CHECKSUM_LEN) as u64;
    for (encoding, stored) in &blocks {
        let record = BlockRecord {
            offset,
            stored_len: u32::try_from(stored.len()).expect("block fits u32"),
            encoding: *encoding,
            checksum: xxh3_64(stored),
        };
        record.write(&mut out);
        offset += stored.len() as u64;
    }
    let index_checksum = xxh3_64(&out[index_start..]);
    out.extend_from_slice(&index_checksum.to_le_bytes());
    for (_, stored) in &blocks {
        out.extend_from_slice(stored);
    }
    out.extend_from_slice(&xxh3_64(&out).to_le_bytes());
    out
}

/// Recomputes every checksum of a table whose structure is intact, after a
/// deliberate edit: for the fuzzer and the corruption tests, which must get
/// past the checksums to reach the checks behind them.
///
/// # Errors
///
/// If the bytes are too damaged to locate the checksums (the checksums that
/// could be located are resealed all the same).
pub fn reseal(bytes: &mut [u8]) -> Result<(), TableError> {
    let len = bytes.len() as u64;
    let truncated = |needed: usize| TableError::Truncated {
        len,
        needed: needed as u64,
    };
    if bytes.len() < PREFIX_LEN {
        return Err(truncated(PREFIX_LEN));
    }
    let header_end = PREFIX_LEN + (read_u32(bytes, 12) as usize).min(MAX_HEADER_LEN as usize);
    if bytes.len() < header_end + CHECKSUM_LEN {
        return Err(truncated(header_end + CHECKSUM_LEN));
    }
    let sum = xxh3_64(&bytes[..header_end]);
    bytes[header_end..header_end + CHECKSUM_LEN].copy_from_slice(&sum.to_le_bytes());
    let header: Header = header_options()
        .deserialize(&bytes[PREFIX_LEN..header_end])
        .map_err(|e| TableError::Header(e.to_string()))?;
    let index_start = header_end + CHECKSUM_LEN;
    let blocks = usize::try_from(header.blocks()).map_err(|_| truncated(usize::MAX))?;
    let index_end = blocks
        .checked_mul(RECORD_LEN)
        .and_then(|n| n.checked_add(index_start))
        .filter(|&end| end + 2 * CHECKSUM_LEN <= bytes.len())
        .ok_or_else(|| truncated(usize::MAX))?;
    for block in 0..blocks {
        let at = index_start + block * RECORD_LEN;
        let record = BlockRecord::parse(&bytes[at..at + RECORD_LEN]);
        let start = record.offset as usize;
        if let Some(stored) = bytes.get(start..start.saturating_add(record.stored_len as usize)) {
            let sum = xxh3_64(stored);
            bytes[at + 16..at + RECORD_LEN].copy_from_slice(&sum.to_le_bytes());
        }
    }
    let sum = xxh3_64(&bytes[index_start..index_end]);
    bytes[index_end..index_end + CHECKSUM_LEN].copy_from_slice(&sum.to_le_bytes());
    let body = bytes.len() - CHECKSUM_LEN;
    let sum = xxh3_64(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
    Ok(())
}

/// A fresh temporary name for [`write_atomically`]: `.NAME.PID-N.tmp`, with
/// `N` counting the writes of this process, so that neither concurrent
/// writers nor a file left by an earlier process of the same id collide.
fn temporary_name(dir: &Path, name: &std::ffi::OsStr) -> std::path::PathBuf {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!(
        ".{}.{}-{n}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ))
}

/// Removes temporary files that interrupted [`write_atomically`] calls for
/// `path` left behind (a build killed mid-write): those of processes that no
/// longer run (checked via
/// `/proc`, so only on systems that have it). Returns how many it removed.
///
/// # Errors
///
/// If the directory cannot be read or a file cannot be removed.
pub fn remove_stale_temporaries(path: &Path) -> io::Result<usize> {
    let (dir, Some(name)) = (parent_dir(path), path.file_name()) else {
        return Ok(0);
    };
    if !Path::new("/proc/self").exists() {
        return Ok(0);
    }
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let pid = file_name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        if let Some(pid) = pid {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                fs::remove_file(entry.path())?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` so that `path` either keeps its old contents or
/// has all the new ones: a temporary file in the same directory is written,
/// synced and renamed over `path`, then the directory is synced.
///
/// # Errors
///
/// Any I/O error; the temporary file is removed on failure.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let temp = temporary_name(dir, name);
    let result = (|| {
        // The name is unique within this process; a file already there was left
        // by a dead process that had the same id.
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_header(entries: u64, block_entries: u32) -> Header {
        Header {
            game: GameId::Dots { rows: 2, cols: 3 },
            index: IndexScheme::Base3Canonical,
            values: ValueEncoding::OutcomePlies,
            entries,
            stored: 0,
            block_entries,
            generator: "test".into(),
        }
    }

    #[test]
    fn header_bytes_are_pinned() {
        let bytes = header_options()
            .serialize(&sample_header(0x0102, 7))
            .unwrap();
        let mut expected = vec![2, 0, 0, 0, 2, 3]; // Dots { rows: 2, cols: 3 }
        expected.extend([0, 0, 0, 0]); // Base3Canonical
        expected.extend([0, 0, 0, 0]); // OutcomePlies
        expected.extend(0x0102u64.to_le_bytes());
        expected.extend(0u64.to_le_bytes());
        expected.extend(7u32.to_le_bytes());
        expected.extend(4u64.to_le_bytes());
        expected.extend(b"test");
        assert_eq!(bytes, expected);
    }

    #[test]
    fn later_variants_are_pinned() {
        let mut header = sample_header(0, 7);
        header.index = IndexScheme::SortedKeys;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[6..10], &[1, 0, 0, 0]);
        header.index = IndexScheme::EdgeMaskCanonical;
        header.values = ValueEncoding::Margin;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[6..14], &[2, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn round_trip_with_raw_and_compressed_blocks() {
        // A compressible run, then bytes zstd cannot shrink.
        let mut entries = vec![7u8; 1000];
        let mut state = 1u32;
        entries.extend((0..1000).map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        }));
        let mut header = sample_header(entries.len() as u64, 300);
        header.stored = entries.iter().filter(|&&e| e != 0).count() as u64;
        let bytes = encode_table(&header, &entries, 19);
        assert_eq!(bytes, encode_table(&header, &entries, 19));
        let table = Table::new(bytes).unwrap();
        table.verify().unwrap();
        assert_eq!(table.header(), &header);
        for (slot, &e) in entries.iter().enumerate() {
            assert_eq!(table.entry(slot as u64).unwrap(), e);
        }
        assert!(table.entry(entries.len() as u64).is_err());
        let encodings: Vec<u8> = (0..header.blocks())
            .map(|b| table.record(b).encoding)
            .collect();
        assert!(
            encodings.contains(&RAW) && encodings.contains(&ZSTD),
            "{encodings:?}"
        );
    }

    fn sorted_table(records: &[(u64, u8)], block_entries: u32) -> (Header, Vec<u8>) {
        let entries = sorted_entries(records, block_entries);
        let header = Header {
            game: GameId::Cube,
            index: IndexScheme::SortedKeys,
            values: ValueEncoding::OutcomePlies,
            entries: entries.len() as u64,
            stored: records.len() as u64,
            block_entries,
            generator: "test".into(),
        };
        (header.clone(), encode_table(&header, &entries, 3))
    }

    #[test]
    fn sorted_keys_find_every_record_and_nothing_else() {
        // 1000 records, 4 per block: 250 record blocks behind a fence of
        // 250 keys (63 blocks of 32 bytes, the last one padded).
        let records: Vec<(u64, u8)> = (0..1000u64)
            .map(|i| (i * 7 + 3, (i % 200 + 1) as u8))
            .collect();
        let (header, bytes) = sorted_table(&records, 32);
        let table = Table::new(bytes).unwrap();
        table.verify().unwrap();
        assert_eq!(table.header(), &header);
        for (i, &(key, entry)) in records.iter().enumerate() {
            assert_eq!(table.sorted_entry(key).unwrap(), Some(entry));
            assert_eq!(table.sorted_record(i as u64).unwrap(), (key, entry));
            assert_eq!(table.sorted_entry(key + 1).unwrap(), None);
        }
        assert_eq!(table.sorted_entry(0).unwrap(), None);
        assert_eq!(table.sorted_entry(KEY_LIMIT - 1).unwrap(), None);
        assert!(table.sorted_record(1000).is_err());
        assert!(table.entry(0).is_ok());
        // An empty table answers "absent".
        let (_, bytes) = sorted_table(&[], 32);
        let empty = Table::new(bytes).unwrap();
        empty.verify().unwrap();
        assert_eq!(empty.sorted_entry(5).unwrap(), None);
    }

    #[test]
    fn sorted_keys_out_of_order_or_mislabelled_fail_verify() {
        let records: Vec<(u64, u8)> = (0..64u64).map(|i| (i * 2, 1)).collect();
        let (mut header, _) = sorted_table(&records, 32);
        let mut entries = sorted_entries(&records, 32);
        // Swap two records inside a block: keys no longer ascend.
        let first = entries.len() - 64 * 8;
        let (a, b) = (first + 8, first + 16);
        for i in 0..8 {
            entries.swap(a + i, b + i);
        }
        header.entries = entries.len() as u64;
        let table = Table::new(encode_table(&header, &entries, 3)).unwrap();
        assert!(matches!(table.verify(), Err(TableError::Block { .. })));
        // A header whose sizes do not fit the layout is refused at open,
        // also when they overflow.
        for stored in [header.stored + 1, u64::MAX / 3, u64::MAX] {
            header.stored = stored;
            assert!(matches!(
                Table::new(encode_table(&header, &entries, 3)),
                Err(TableError::Header(_))
            ));
        }
    }
}
