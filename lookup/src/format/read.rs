//! Reading tables: a cheap open that checks the head, probes that decode
//! one block each, and the full [`Table::verify`].

use std::ops::Range;
use std::sync::OnceLock;

use bincode::Options;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{
    BlockRecord, IndexScheme, CHECKSUM_LEN, FORMAT_VERSION, Header, KEY_LIMIT, MAGIC, MAX_BLOCK_ENTRIES,
    MAX_HEADER_LEN, PREFIX_LEN, RAW, RECORD_BYTES, RECORD_LEN, TableError, ZSTD, header_options,
    read_u32, read_u64,
};

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

    pub(super) fn record(&self, block: u64) -> BlockRecord {
        let at = self.index_start + block as usize * RECORD_LEN;
        BlockRecord::parse(&self.bytes()[at..at + RECORD_LEN])
    }

    pub(super) fn block(&self, block: u64) -> Result<&[u8], TableError> {
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

    /// The entry byte stored with `key` in a [`IndexScheme::SortedKeys`](super::IndexScheme::SortedKeys)
    /// table, `None` if the key is not there.
    ///
    /// # Errors
    ///
    /// [`TableError::Header`] if the table is not sorted-keys; a checksum or
    /// decoding error if a block it reads is corrupt.
    pub fn sorted_entry(&self, key: u64) -> Result<Option<u8>, TableError> {
        if self.header.index != IndexScheme::SortedKeys {
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

    /// Record `index` (of `stored`) of a [`IndexScheme::SortedKeys`](super::IndexScheme::SortedKeys) table:
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

    pub(super) fn decode_block(&self, block: u64) -> Result<Box<[u8]>, TableError> {
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
