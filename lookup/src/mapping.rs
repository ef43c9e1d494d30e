//! Opening table files, three ways: positioned reads of the blocks probes
//! need ([`open_table`], [`TableFile`]: safe, what every face of solvedb
//! uses), a memory mapping ([`map_table`]: the one `unsafe` contract in
//! solvedb, and every `unsafe` block of this crate), or the whole file read
//! into memory ([`read_table`]).
//!
//! # Tables replaced or cut short under a running process
//!
//! solvedb never writes into an existing table file: a build writes a
//! temporary file beside it, syncs it, renames it over the name and syncs
//! the directory ([`write_atomically`](crate::format::write_atomically)).
//! What a process that has the table open sees:
//!
//! - **Positioned reads** ([`TableFile`]) read through the open file, which
//!   names the file that was opened, not its name. A table renamed over it
//!   leaves the old one readable to the end: the process keeps answering from
//!   the table it opened, consistently, until it reopens it
//!   ([`Oracle::reload`](crate::Oracle::reload)). A file written into or cut
//!   short in place (`cp` over it, `truncate`, a failing disk) is another
//!   matter, and still no crash and no wrong answer: a read past the new end
//!   is [`TableError::Truncated`], changed bytes fail the checksum that the
//!   block index read at open records for the block (checked on every read)
//!   and are [`TableError::Checksum`], an I/O error is [`TableError::Read`];
//!   blocks decoded before, which the cache may still hold, were checked
//!   when they were read and belong to the table that was opened. Once the
//!   whole-file check ([`Table::check_file`]) has failed, every probe
//!   returns its error.
//! - **A mapping** ([`map_table`]) shows such changes through the mapping:
//!   a read of a page past a new end raises `SIGBUS`, which kills the
//!   process, and bytes written while a block is copied out of the mapping
//!   may be seen half old, half new. A rename over the name is as harmless
//!   as with positioned reads. That is the contract of the `unsafe fn`, and
//!   the reason none of solvedb's faces maps: a server runs for days, where
//!   one truncation would kill it, and a short-lived command gains nothing
//!   measurable from the mapping (`docs/tables-on-demand.md`).
//! - **A table read whole** ([`read_table`]) is a copy: nothing that happens
//!   to the file afterwards reaches it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;

use crate::error::Error;
use crate::format::{BlockCache, Table, TableData, TableError};

/// A table file, open for positioned reads (`pread`): a [`Table`] over it
/// reads the head at open and one block per probe that misses the cache,
/// never the whole file. Safe whatever happens to the file (see this
/// file's module documentation: tables replaced or cut short).
#[derive(Debug)]
pub struct TableFile {
    file: File,
    len: u64,
    path: PathBuf,
}

impl TableFile {
    /// Opens `path` for reading.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if it cannot be opened or is a directory.
    pub fn open(path: &Path) -> Result<TableFile, Error> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        // A directory opens for reading on Unix; refuse it here, by its
        // name and with the system's own error (a read gives EISDIR),
        // rather than at the first probe.
        if metadata.is_dir() {
            let refused = std::io::Read::read(&mut &file, &mut [0])
                .err()
                .unwrap_or_else(|| std::io::ErrorKind::IsADirectory.into());
            return Err(io(refused));
        }
        let len = metadata.len();
        Ok(TableFile {
            file,
            len,
            path: path.to_owned(),
        })
    }

    /// The path it was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    #[cfg(unix)]
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
    }

    #[cfg(windows)]
    fn read_exact_at(&self, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            match self.file.seek_read(buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl TableData for TableFile {
    /// The length when the file was opened.
    fn byte_len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), TableError> {
        match self.read_exact_at(offset, buf) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(TableError::Truncated {
                    // Cut short since it was opened: say how short it is now.
                    len: self.file.metadata().map_or(0, |m| m.len()),
                    needed: offset.saturating_add(buf.len() as u64),
                })
            }
            Err(e) => Err(TableError::Read {
                offset,
                reason: format!("{}: {e}", self.path.display()),
            }),
        }
    }
}

/// Opens a table file for positioned reads and checks its cheap parts (see
/// [`Table::new`]), with a [`BlockCache`] of its own of the default
/// capacity ([`Table::with_cache`] over a [`TableFile`] shares one). Safe
/// whatever happens to the file later; memory: the block index (24 bytes a
/// block) and the decoded blocks the cache keeps.
///
/// # Errors
///
/// [`Error::Io`] if the file cannot be opened or read, [`Error::Table`] if
/// its bytes are not a valid table.
pub fn open_table(path: &Path) -> Result<Table<TableFile>, Error> {
    Ok(Table::new(TableFile::open(path)?)?)
}

/// Maps a table file into memory and checks its cheap parts (see
/// [`Table::new`]). Only the blocks that probes touch are ever read from disk.
///
/// # Safety
///
/// The file must not be modified or truncated while the table (or anything
/// borrowed from it) is alive. A change shows through the mapping and may be
/// seen half made, and a truncation turns reads into `SIGBUS`. solvedb itself
/// never writes into an existing table: it writes a new file and renames it
/// over the old name ([`write_atomically`](crate::format::write_atomically)),
/// which leaves existing mappings of the old file intact. [`open_table`]
/// reads the same blocks without this contract.
///
/// # Errors
///
/// [`Error::Io`] if the file cannot be opened or mapped, [`Error::Table`] if
/// its bytes are not a valid table.
pub unsafe fn map_table(path: &Path) -> Result<Table<Mmap>, Error> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    // SAFETY: the caller promises the file is not modified while mapped.
    let map = unsafe { Mmap::map(&file) }.map_err(io)?;
    Ok(Table::new(map)?)
}

/// Tables smaller than this stay on 4 KiB pages even where huge pages are
/// asked for: a huge page is zeroed whole when first touched, so a short
/// search over a small table, which touches a few thousand scattered
/// entries, would pay for clearing all of it (fresh searches of a small
/// dots board are measurably slower on huge pages).
pub const HUGE_PAGES_FROM: usize = 128 << 20;

/// Asks Linux to back the 2 MiB-aligned part of `memory` with transparent
/// huge pages (`madvise(MADV_HUGEPAGE)`; the kernel's default on this
/// kind of machine is to do so only where asked). For the dots endgame
/// solver's transposition table, a few hundred MiB probed at random: with
/// 4 KiB pages nearly every probe also misses the TLB. Returns whether the
/// kernel took the advice; without it nothing changes but speed.
#[cfg(target_os = "linux")]
pub fn advise_huge_pages<T>(memory: &[T]) -> bool {
    const HUGE: usize = 2 << 20;
    let start = memory.as_ptr() as usize;
    let end = start + std::mem::size_of_val(memory);
    let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
    if first >= last {
        return false;
    }
    let at = memory
        .as_ptr()
        .cast::<u8>()
        .cast_mut()
        .wrapping_add(first - start);
    // SAFETY: `[first, last)` lies inside `memory`, an allocation this
    // process owns and keeps alive for the call. MADV_HUGEPAGE changes only
    // how the kernel backs those pages (now or when they are first
    // touched), never their contents, so no reference into `memory` (or
    // anywhere else) sees a change.
    unsafe { rustix::mm::madvise(at.cast(), last - first, rustix::mm::Advice::LinuxHugepage) }
        .is_ok()
}

/// Elsewhere there is no such advice: nothing changes.
#[cfg(not(target_os = "linux"))]
pub fn advise_huge_pages<T>(_memory: &[T]) -> bool {
    false
}

/// Asks the processor to start loading the cache line that holds `item`
/// (a hint: nothing is read or written, and a hint for memory the process
/// does not own is as harmless). The dots endgame solver issues one for each
/// child's transposition-table bucket before it probes any of them, so the
/// misses overlap instead of queueing one behind the other.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn prefetch<T>(item: &T) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: `_mm_prefetch` needs SSE, part of every x86-64 processor (the
    // target's baseline), and never dereferences its pointer: a prefetch
    // cannot fault, read or write memory as the program sees it.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast()) }
}

/// Elsewhere no prefetch is issued: nothing changes but speed.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn prefetch<T>(_item: &T) {}

/// Reads a whole table file into memory and checks its cheap parts. Safe,
/// at the cost of reading (and keeping) every byte at open: for jobs that
/// need them all (`verify`, the corruption sweep); probing wants
/// [`open_table`].
///
/// # Errors
///
/// As [`open_table`].
pub fn read_table(path: &Path) -> Result<Table<Vec<u8>>, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(Table::new(bytes)?)
}

/// The bytes of a table as an [`Oracle`](crate::Oracle) opened it: a file
/// read by position, mapped or read whole, or bytes compiled into the
/// program.
#[derive(Debug)]
pub enum TableBytes {
    /// A file read by position ([`open_table`]).
    File(TableFile),
    /// A memory mapping (see [`map_table`] for its contract).
    Mapped(Mmap),
    /// The file's bytes, read at open ([`read_table`]).
    Read(Vec<u8>),
    /// A table's bytes compiled into the program
    /// ([`Oracle::from_static_tables`](crate::Oracle::from_static_tables)).
    Static(&'static [u8]),
}

impl TableData for TableBytes {
    fn byte_len(&self) -> u64 {
        match self {
            TableBytes::File(file) => file.byte_len(),
            TableBytes::Mapped(map) => map.byte_len(),
            TableBytes::Read(bytes) => bytes.byte_len(),
            TableBytes::Static(bytes) => bytes.byte_len(),
        }
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), TableError> {
        match self {
            TableBytes::File(file) => file.read_at(offset, buf),
            TableBytes::Mapped(map) => map.read_at(offset, buf),
            TableBytes::Read(bytes) => bytes.read_at(offset, buf),
            TableBytes::Static(bytes) => bytes.read_at(offset, buf),
        }
    }
}

/// How an [`Oracle`](crate::Oracle) opens its table files.
///
/// `Opener::Map` may only be handed to code by an `unsafe fn` whose caller
/// took on [`map_table`]'s contract for every file it will open
/// ([`Oracle::open_mapped`](crate::Oracle::open_mapped)); that promise is
/// what makes the mapping in [`Opener::open`] sound.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Opener {
    /// Positioned reads of the blocks probes need ([`open_table`]).
    Blocks,
    /// Maps files (see the type's documentation for when it may be used).
    Map,
    /// Reads whole files into memory ([`read_table`]).
    Memory,
}

impl Opener {
    /// Opens one table file, its decoded blocks kept in `cache`.
    ///
    /// # Errors
    ///
    /// As [`open_table`].
    pub(crate) fn open(
        self,
        path: &Path,
        cache: Arc<BlockCache>,
    ) -> Result<Table<TableBytes>, Error> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let bytes = match self {
            Opener::Blocks => TableBytes::File(TableFile::open(path)?),
            Opener::Map => {
                let file = File::open(path).map_err(io)?;
                // SAFETY: `Opener::Map` is only used by `Oracle::open_mapped`,
                // whose caller promised the files it opens are not modified
                // while mapped.
                TableBytes::Mapped(unsafe { Mmap::map(&file) }.map_err(io)?)
            }
            Opener::Memory => TableBytes::Read(std::fs::read(path).map_err(io)?),
        };
        Ok(Table::with_cache(bytes, cache)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{
        FileCheck, GameId, Header, IndexScheme, ValueEncoding, encode_table, write_atomically,
    };

    fn header(entries: u64) -> Header {
        Header {
            game: GameId::TicTacToe,
            index: IndexScheme::Base3Canonical,
            values: ValueEncoding::OutcomePlies,
            entries,
            stored: entries,
            block_entries: 1024,
            generator: "test".into(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("solvedb-mapping-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn every_way_of_opening_reads_the_same_entries() {
        let header = header(5000);
        let entries: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 + 1).collect();
        let dir = scratch("same");
        let path = dir.join("t.sdb");
        write_atomically(&path, &encode_table(&header, &entries, 3)).unwrap();
        // SAFETY: the file is private to this test and not modified while mapped.
        let mapped = unsafe { map_table(&path) }.unwrap();
        let read = read_table(&path).unwrap();
        let file = open_table(&path).unwrap();
        mapped.verify().unwrap();
        file.verify().unwrap();
        assert_eq!(file.file_check(), FileCheck::Passed);
        assert_eq!(file.file_checksum(), read.file_checksum());
        for slot in 0..5000 {
            let want = entries[slot as usize];
            assert_eq!(mapped.entry(slot).unwrap(), want);
            assert_eq!(read.entry(slot).unwrap(), want);
            assert_eq!(file.entry(slot).unwrap(), want);
        }
        assert!(matches!(
            open_table(&dir.join("missing.sdb")),
            Err(Error::Io { .. })
        ));

        // Replacing the file the way solvedb does (write aside, rename over)
        // leaves the open mapping and the open file on the old table, intact.
        let replacement: Vec<u8> = entries.iter().map(|e| e.wrapping_add(1).max(1)).collect();
        write_atomically(&path, &encode_table(&header, &replacement, 3)).unwrap();
        let fresh = open_table(&path).unwrap();
        fresh.check_file().unwrap();
        for slot in 0..5000 {
            assert_eq!(mapped.entry(slot).unwrap(), entries[slot as usize]);
            assert_eq!(fresh.entry(slot).unwrap(), replacement[slot as usize]);
        }
        // The old file is still readable in full through the open handle.
        assert_eq!(file.verify(), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_cut_or_overwritten_in_place_gives_errors_never_wrong_entries() {
        let header = header(64 * 1024);
        // Entries that do not compress, so each block is raw and a cut
        // lands inside blocks.
        let mut state = 7u32;
        let entries: Vec<u8> = (0..64 * 1024)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (state >> 16) as u8 | 1
            })
            .collect();
        let bytes = encode_table(&header, &entries, 3);
        let dir = scratch("cut");
        let path = dir.join("t.sdb");
        std::fs::write(&path, &bytes).unwrap();
        let table = open_table(&path).unwrap();
        assert_eq!(table.entry(0).unwrap(), entries[0]); // block 0 now cached
        let half = bytes.len() as u64 / 2;
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(half)
            .unwrap();
        assert_eq!(
            table.entry(0).unwrap(),
            entries[0],
            "a cached block still answers"
        );
        let last = header.entries - 1;
        assert!(matches!(
            table.entry(last),
            Err(TableError::Truncated { len, .. }) if len == half
        ));
        assert!(matches!(
            table.check_file(),
            Err(TableError::Truncated { .. })
        ));
        // Once the whole-file check has failed, every probe says so.
        assert!(matches!(table.entry(0), Err(TableError::Truncated { .. })));

        // Written over in place with other bytes of the same length: the
        // block checksums from the open refuse every block not yet cached.
        std::fs::write(&path, &bytes).unwrap();
        let table = open_table(&path).unwrap();
        let mut other = bytes.clone();
        for b in &mut other[table.head_len()..] {
            *b ^= 0x5a;
        }
        std::fs::write(&path, &other).unwrap();
        for block in 0..header.blocks() {
            let slot = block * u64::from(header.block_entries);
            assert!(
                matches!(table.entry(slot), Err(TableError::Checksum { .. })),
                "block {block}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
