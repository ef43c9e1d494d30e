//! Sorted records with wide keys ([`IndexScheme::SortedWideKeys`]): a
//! 128-bit key and two entry bytes per record, for tables whose positions
//! do not fit the 56-bit keys of [`IndexScheme::SortedKeys`] (Qubic: two
//! 64-cell masks). Laid out as the narrow sorted keys are, a fence of each
//! record block's first key, then the records (the byte layout is in the
//! [module documentation](super)).
//!
//! [`IndexScheme::SortedWideKeys`]: super::IndexScheme::SortedWideKeys
//! [`IndexScheme::SortedKeys`]: super::IndexScheme::SortedKeys

use rayon::prelude::*;

use super::cache::Words;
use super::{Header, Table, TableData, TableError};

/// Bytes of a wide key in a record and in the fence.
pub const WIDE_KEY_BYTES: usize = 16;
/// Bytes of a wide record: the key, then the two entry bytes.
pub const WIDE_RECORD_BYTES: usize = WIDE_KEY_BYTES + 2;

/// A wide record: its key and its two entry bytes.
pub type WideRecord = (u128, [u8; 2]);

impl Header {
    /// Wide-keys layout: records per block, record blocks, fence blocks;
    /// `None` for a block size that holds no whole record or sizes that
    /// overflow (a corrupt header).
    pub(crate) fn wide_layout(&self) -> Option<(u64, u64, u64)> {
        let block = u64::from(self.block_entries);
        if block % WIDE_RECORD_BYTES as u64 != 0 || block == 0 {
            return None;
        }
        let records_per_block = block / WIDE_RECORD_BYTES as u64;
        let record_blocks = self.stored.div_ceil(records_per_block);
        let fence_blocks = record_blocks
            .checked_mul(WIDE_KEY_BYTES as u64)?
            .div_ceil(block);
        Some((records_per_block, record_blocks, fence_blocks))
    }

    /// The entry bytes a wide-keys table of this header must have, or
    /// `None` if the header's sizes make no layout.
    pub(crate) fn wide_entries(&self) -> Option<u64> {
        let (_, _, fence_blocks) = self.wide_layout()?;
        fence_blocks
            .checked_mul(u64::from(self.block_entries))?
            .checked_add(self.stored.checked_mul(WIDE_RECORD_BYTES as u64)?)
    }
}

/// The entry bytes of a [`IndexScheme::SortedWideKeys`](super::IndexScheme::SortedWideKeys)
/// table: the fence, its padding and the records.
///
/// # Panics
///
/// If `block_entries` is not a positive multiple of [`WIDE_RECORD_BYTES`]
/// or keys do not ascend strictly: the writer's bugs.
pub fn wide_entries(records: &[WideRecord], block_entries: u32) -> Vec<u8> {
    let block = block_entries as usize;
    assert!(block > 0 && block % WIDE_RECORD_BYTES == 0, "block size");
    let per_block = block / WIDE_RECORD_BYTES;
    let record_blocks = records.len().div_ceil(per_block);
    let fence_blocks = (record_blocks * WIDE_KEY_BYTES).div_ceil(block);
    let mut out = Vec::with_capacity(fence_blocks * block + records.len() * WIDE_RECORD_BYTES);
    for chunk in records.chunks(per_block) {
        out.extend_from_slice(&chunk[0].0.to_le_bytes());
    }
    out.resize(fence_blocks * block, 0);
    for (i, &(key, entry)) in records.iter().enumerate() {
        assert!(i == 0 || records[i - 1].0 < key, "keys ascend");
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&entry);
    }
    out
}

fn key_at(bytes: &[u8], at: usize) -> u128 {
    u128::from_le_bytes(bytes[at..at + WIDE_KEY_BYTES].try_into().expect("16 bytes"))
}

/// The key at byte `at` of a decoded block, `None` past its end.
fn key_in(words: Words<'_>, at: usize) -> Option<u128> {
    (at + WIDE_KEY_BYTES <= words.len()).then(|| {
        let mut bytes = [0u8; WIDE_KEY_BYTES];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = words.byte(at + i);
        }
        u128::from_le_bytes(bytes)
    })
}

fn bad_layout() -> TableError {
    TableError::Header("bad wide-keys layout".into())
}

impl<D: TableData> Table<D> {
    /// Fence key `i`: the first key of record block `i`.
    fn fence_key(&self, i: u64) -> Result<u128, TableError> {
        let block_entries = u64::from(self.header().block_entries);
        let at = i * WIDE_KEY_BYTES as u64;
        let block = at / block_entries;
        let offset = (at % block_entries) as usize;
        // A block holds a whole number of 18-byte records and the fence
        // goes in steps of 16 from 0, so a key may lie across two blocks
        // (blocks of an odd multiple of 8 bytes): then it is read in two
        // pieces.
        let (whole, head) = self.with_block(block, |words| {
            let head: Vec<u8> = (offset..words.len().min(offset + WIDE_KEY_BYTES))
                .map(|j| words.byte(j))
                .collect();
            (key_in(words, offset), head)
        })?;
        if let Some(key) = whole {
            return Ok(key);
        }
        let first = head.len();
        let tail: Vec<u8> = self.with_block(block + 1, |words| {
            (0..words.len().min(WIDE_KEY_BYTES - first))
                .map(|j| words.byte(j))
                .collect()
        })?;
        if first + tail.len() != WIDE_KEY_BYTES {
            return Err(TableError::Size(format!("fence key {i} is past its block")));
        }
        let mut bytes = [0u8; WIDE_KEY_BYTES];
        bytes[..first].copy_from_slice(&head);
        bytes[first..].copy_from_slice(&tail);
        Ok(u128::from_le_bytes(bytes))
    }

    /// The two entry bytes stored with `key` in a
    /// [`IndexScheme::SortedWideKeys`](super::IndexScheme::SortedWideKeys)
    /// table, `None` if the key is not there.
    ///
    /// # Errors
    ///
    /// [`TableError::Header`] if the table is not wide-keyed; a checksum or
    /// decoding error if a block it reads is corrupt.
    pub fn wide_entry(&self, key: u128) -> Result<Option<[u8; 2]>, TableError> {
        if self.header().index != super::IndexScheme::SortedWideKeys {
            return Err(TableError::Header(format!(
                "{:?} tables hold no wide keys",
                self.header().index
            )));
        }
        let (_, record_blocks, fence_blocks) =
            self.header().wide_layout().ok_or_else(bad_layout)?;
        // The last record block whose first key is at most `key`.
        let (mut lo, mut hi) = (0u64, record_blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.fence_key(mid)? <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let Some(record_block) = lo.checked_sub(1) else {
            return Ok(None);
        };
        self.with_block(fence_blocks + record_block, |block| {
            let (mut lo, mut hi) = (0usize, block.len() / WIDE_RECORD_BYTES);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let at = mid * WIDE_RECORD_BYTES;
                match key_in(block, at)?.cmp(&key) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => {
                        let entry = at + WIDE_KEY_BYTES;
                        return Some([block.byte(entry), block.byte(entry + 1)]);
                    }
                }
            }
            None
        })
    }

    /// Record `index` (of `stored`) of a wide-keys table.
    ///
    /// # Errors
    ///
    /// [`TableError::Size`] past the last record or in a table of another
    /// index; a checksum or decoding error if its block is corrupt.
    pub fn wide_record(&self, index: u64) -> Result<WideRecord, TableError> {
        let header = self.header();
        let layout = header
            .wide_layout()
            .filter(|_| header.index == super::IndexScheme::SortedWideKeys);
        let Some((per_block, _, fence_blocks)) = layout.filter(|_| index < header.stored) else {
            return Err(TableError::Size(format!(
                "record {index} of a table with {} wide records",
                header.stored
            )));
        };
        let at = (index % per_block) as usize * WIDE_RECORD_BYTES;
        self.with_block(fence_blocks + index / per_block, |block| {
            let key = key_in(block, at)?;
            let entry = at + WIDE_KEY_BYTES;
            (entry + 2 <= block.len()).then(|| (key, [block.byte(entry), block.byte(entry + 1)]))
        })?
        .ok_or_else(|| TableError::Size(format!("record {index} is past its block")))
    }
}

impl<D: TableData + Send + Sync> Table<D> {
    /// Wide-keys tables: every block decodes, the fence names each record
    /// block's first key and is padded with zeros, and keys ascend strictly
    /// across the whole table.
    pub(super) fn verify_wide(&self) -> Result<(), TableError> {
        let header = self.header();
        let (per_block, record_blocks, fence_blocks) =
            header.wide_layout().ok_or_else(bad_layout)?;
        let bad = |block: u64, reason: String| TableError::Block { block, reason };
        let block_entries = u64::from(header.block_entries);
        for block in 0..fence_blocks {
            let decoded = self.decode_block(block)?;
            let fence_end =
                (record_blocks * WIDE_KEY_BYTES as u64).saturating_sub(block * block_entries);
            if decoded.iter().skip(fence_end as usize).any(|&b| b != 0) {
                return Err(bad(block, "fence padding is not zero".into()));
            }
        }
        (0..record_blocks)
            .into_par_iter()
            .try_for_each(|r| -> Result<(), TableError> {
                let block = fence_blocks + r;
                let decoded = self.decode_block(block)?;
                let count = decoded.len() / WIDE_RECORD_BYTES;
                if decoded.len() % WIDE_RECORD_BYTES != 0 || count as u64 > per_block || count == 0
                {
                    return Err(bad(block, "not a whole number of records".into()));
                }
                if self.fence_key(r)? != key_at(&decoded, 0) {
                    return Err(bad(block, "the fence does not name its first key".into()));
                }
                let mut previous = None;
                for i in 0..count {
                    let key = key_at(&decoded, i * WIDE_RECORD_BYTES);
                    if previous.is_some_and(|p| p >= key) {
                        return Err(bad(block, format!("record {i} is out of order")));
                    }
                    previous = Some(key);
                }
                if r + 1 < record_blocks && self.fence_key(r + 1)? <= previous.expect("a record") {
                    return Err(bad(
                        block,
                        "the next block's first key is not larger".into(),
                    ));
                }
                Ok(())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{GameId, IndexScheme, ValueEncoding, encode_table, test_table};

    fn wide_table(records: &[WideRecord], block_entries: u32) -> (Header, Vec<u8>) {
        test_table(
            GameId::Qubic,
            IndexScheme::SortedWideKeys,
            ValueEncoding::StrategyMoves,
            &wide_entries(records, block_entries),
            records.len(),
            block_entries,
        )
    }

    #[test]
    fn wide_keys_find_every_record_and_nothing_else() {
        // Keys that differ only in their high half as well as only in
        // their low half; blocks of 2 and of 3 records (the second puts
        // fence keys across block boundaries: 54-byte blocks).
        let records: Vec<WideRecord> = (0..500u128)
            .map(|i| {
                (
                    ((i / 7) << 64) | ((i % 7) * 3 + 1),
                    [(i % 64) as u8, (i % 30 * 2 + 3) as u8],
                )
            })
            .collect();
        for block_entries in [36, 54, 18 * 100] {
            let (header, bytes) = wide_table(&records, block_entries);
            let table = Table::new(bytes).unwrap();
            table.verify().unwrap();
            assert_eq!(table.header(), &header);
            for (i, &(key, entry)) in records.iter().enumerate() {
                assert_eq!(
                    table.wide_entry(key).unwrap(),
                    Some(entry),
                    "{block_entries}"
                );
                assert_eq!(table.wide_record(i as u64).unwrap(), (key, entry));
                assert_eq!(table.wide_entry(key + 1).unwrap(), None);
            }
            assert_eq!(table.wide_entry(0).unwrap(), None);
            assert_eq!(table.wide_entry(u128::MAX).unwrap(), None);
            assert!(table.wide_record(500).is_err());
            assert!(table.sorted_entry(5).is_err());
        }
        let (_, bytes) = wide_table(&[], 36);
        let empty = Table::new(bytes).unwrap();
        empty.verify().unwrap();
        assert_eq!(empty.wide_entry(5).unwrap(), None);
    }

    #[test]
    fn wide_keys_out_of_order_or_mislabelled_fail() {
        let records: Vec<WideRecord> = (0..40u128).map(|i| (i << 64 | i, [1, 3])).collect();
        let (mut header, _) = wide_table(&records, 36);
        let mut entries = wide_entries(&records, 36);
        // Swap the two records of the last block: keys no longer ascend.
        let last = entries.len() - 2 * WIDE_RECORD_BYTES;
        for i in 0..WIDE_RECORD_BYTES {
            entries.swap(last + i, last + WIDE_RECORD_BYTES + i);
        }
        header.entries = entries.len() as u64;
        let table = Table::new(encode_table(&header, &entries, 3)).unwrap();
        assert!(matches!(table.verify(), Err(TableError::Block { .. })));
        // Sizes that do not make the layout are refused at open, also when
        // they overflow; so is a block size that holds no whole record.
        for stored in [header.stored + 1, u64::MAX / 3, u64::MAX] {
            let mut header = header.clone();
            header.stored = stored;
            assert!(matches!(
                Table::new(encode_table(&header, &entries, 3)),
                Err(TableError::Header(_))
            ));
        }
        let mut odd = header.clone();
        odd.block_entries = 40;
        odd.entries = entries.len() as u64;
        assert!(matches!(
            Table::new(encode_table(&odd, &entries, 3)),
            Err(TableError::Header(_))
        ));
    }
}
