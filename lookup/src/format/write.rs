//! Writing tables: entry layouts, the encoder (deterministic: the same
//! header and entries give the same bytes), resealing after deliberate
//! edits, and atomic writes (temporary file, fsync, rename).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use bincode::Options;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{
    BlockRecord, CHECKSUM_LEN, FORMAT_VERSION, Header, KEY_LIMIT, MAGIC, MAX_BLOCK_ENTRIES,
    MAX_HEADER_LEN, PREFIX_LEN, RAW, RECORD_BYTES, RECORD_LEN, TableError, ZSTD, header_options,
    read_u32,
};

/// The entry bytes of a [`IndexScheme::SortedKeys`](super::IndexScheme::SortedKeys) table: the fence, its
/// padding and the records (see the [module documentation](super)).
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

/// One block as a table stores it: raw or a zstd frame, whichever is
/// smaller, as [`compress_blocks`] makes it. Blocks are independent, so a
/// table's blocks may be made anywhere (another thread, another machine) and
/// assembled in order by [`assemble_table`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBlock {
    /// The block record's encoding byte (0 raw, 1 zstd).
    pub encoding: u8,
    /// The stored bytes.
    pub bytes: Vec<u8>,
}

/// The stored blocks of `entries`, cut every `block_entries` entries and
/// compressed at zstd `level` (or kept raw where that is smaller). The first
/// entry of `entries` must start a block of the table.
///
/// # Panics
///
/// If `block_entries` is 0.
pub fn compress_blocks(entries: &[u8], block_entries: u32, level: i32) -> Vec<StoredBlock> {
    assert!(block_entries > 0, "block size");
    entries
        .par_chunks(block_entries as usize)
        .map(|chunk| match zstd::bulk::compress(chunk, level) {
            // The buffer has room for the worst case, a whole block: give
            // it back, or a big table keeps one block's worth per block.
            Ok(mut packed) if packed.len() < chunk.len() => {
                packed.shrink_to_fit();
                StoredBlock {
                    encoding: ZSTD,
                    bytes: packed,
                }
            }
            _ => StoredBlock {
                encoding: RAW,
                bytes: chunk.to_vec(),
            },
        })
        .collect()
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
    assemble_table(
        header,
        &compress_blocks(entries, header.block_entries, level),
    )
}

/// The bytes of a table with this header and these stored blocks, in order
/// (as [`compress_blocks`] makes them, possibly a share of the table at a
/// time): what [`encode_table`] writes for the same entries.
///
/// # Panics
///
/// If the number of blocks is not the header's, or the header is invalid
/// (zero block size, too long); these are the writer's bugs.
pub fn assemble_table(header: &Header, blocks: &[StoredBlock]) -> Vec<u8> {
    assert!(
        (1..=MAX_BLOCK_ENTRIES).contains(&header.block_entries),
        "block size"
    );
    assert_eq!(blocks.len() as u64, header.blocks(), "block count");
    let header_bytes = header_options().serialize(header).expect("header encodes");
    assert!(
        header_bytes.len() <= MAX_HEADER_LEN as usize,
        "header too long"
    );

    let stored_len: usize = blocks.iter().map(|b| b.bytes.len()).sum();
    let mut out = Vec::with_capacity(
        PREFIX_LEN + header_bytes.len() + blocks.len() * RECORD_LEN + 3 * CHECKSUM_LEN + stored_len,
    );
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(header_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&header_bytes);
    out.extend_from_slice(&xxh3_64(&out).to_le_bytes());

    let index_start = out.len();
    let mut offset = (index_start + blocks.len() * RECORD_LEN + CHECKSUM_LEN) as u64;
    for block in blocks {
        let record = BlockRecord {
            offset,
            stored_len: u32::try_from(block.bytes.len()).expect("block fits u32"),
            encoding: block.encoding,
            checksum: xxh3_64(&block.bytes),
        };
        record.write(&mut out);
        offset += block.bytes.len() as u64;
    }
    let index_checksum = xxh3_64(&out[index_start..]);
    out.extend_from_slice(&index_checksum.to_le_bytes());
    for block in blocks {
        out.extend_from_slice(&block.bytes);
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
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// As [`write_atomically`], the bytes written by `write` into a buffered
/// temporary file (for contents too large to hold twice in memory, such
/// as a prover's saved state).
///
/// # Errors
///
/// Any I/O error, `write`'s among them; the temporary file is removed on
/// failure.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let temp = temporary_name(dir, name);
    let result = (|| {
        // The name is unique within this process; a file already there was left
        // by a dead process that had the same id.
        let mut file = io::BufWriter::new(File::create(&temp)?);
        write(&mut file)?;
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}
