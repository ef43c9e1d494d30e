//! Opening table files: by memory mapping (the one `unsafe` contract in
//! solvedb, and every `unsafe` block of this crate) or by reading them into
//! memory.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use crate::error::Error;
use crate::format::Table;

/// Maps a table file into memory and checks its cheap parts (see
/// [`Table::new`]). Only the blocks that probes touch are ever read from disk.
///
/// # Safety
///
/// The file must not be modified or truncated while the table (or anything
/// borrowed from it) is alive. A change shows through the mapping and may
/// break invariants `Table` checked when it opened, and a truncation turns
/// reads into `SIGBUS`. solvedb itself never writes into an existing table: it
/// writes a new file and renames it over the old name
/// ([`write_atomically`](crate::format::write_atomically)), which leaves
/// existing mappings of the old file intact.
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

/// The bytes of a table file: mapped, or read into memory.
#[derive(Debug)]
pub enum TableBytes {
    /// A memory mapping (see [`map_table`] for its contract).
    Mapped(Mmap),
    /// The file's bytes, read at open.
    Read(Vec<u8>),
    /// A table's bytes compiled into the program
    /// ([`Oracle::from_static_tables`](crate::Oracle::from_static_tables)).
    Static(&'static [u8]),
}

impl AsRef<[u8]> for TableBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            TableBytes::Mapped(map) => map,
            TableBytes::Read(bytes) => bytes,
            TableBytes::Static(bytes) => bytes,
        }
    }
}

/// Opens table files the way an [`Oracle`](crate::Oracle) was asked to: by
/// mapping them or by reading them.
///
/// `Opener::MAP` may only be handed to code by an `unsafe fn` whose caller
/// took on [`map_table`]'s contract for every file it will open
/// ([`Oracle::open`](crate::Oracle::open)); that promise is what makes the
/// mapping in [`Opener::open`] sound.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Opener {
    map: bool,
}

impl Opener {
    /// Maps files (see the type's documentation for when it may be used).
    pub(crate) const MAP: Opener = Opener { map: true };

    /// Reads files into memory.
    pub(crate) const READ: Opener = Opener { map: false };

    /// Opens one table file.
    ///
    /// # Errors
    ///
    /// As [`map_table`].
    pub(crate) fn open(self, path: &Path) -> Result<Table<TableBytes>, Error> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let bytes = if self.map {
            let file = File::open(path).map_err(io)?;
            // SAFETY: `Opener::MAP` is only used by `Oracle::open`, whose
            // caller promised the files it opens are not modified while mapped.
            TableBytes::Mapped(unsafe { Mmap::map(&file) }.map_err(io)?)
        } else {
            TableBytes::Read(std::fs::read(path).map_err(io)?)
        };
        Ok(Table::new(bytes)?)
    }
}

/// Reads a whole table file into memory and checks its cheap parts. Safe
/// where [`map_table`] is not, at the cost of reading every byte at open.
///
/// # Errors
///
/// As [`map_table`].
pub fn read_table(path: &Path) -> Result<Table<Vec<u8>>, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(Table::new(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{GameId, Header, IndexScheme, ValueEncoding, encode_table};

    #[test]
    fn a_mapped_table_reads_like_its_bytes() {
        let header = Header {
            game: GameId::TicTacToe,
            index: IndexScheme::Base3Canonical,
            values: ValueEncoding::OutcomePlies,
            entries: 5000,
            stored: 5000,
            block_entries: 1024,
            generator: "test".into(),
        };
        let entries: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 + 1).collect();
        let dir = std::env::temp_dir().join(format!("solvedb-mapping-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sdb");
        crate::format::write_atomically(&path, &encode_table(&header, &entries, 3)).unwrap();
        // SAFETY: the file is private to this test and not modified while mapped.
        let mapped = unsafe { map_table(&path) }.unwrap();
        let read = read_table(&path).unwrap();
        mapped.verify().unwrap();
        for slot in 0..5000 {
            assert_eq!(mapped.entry(slot).unwrap(), entries[slot as usize]);
            assert_eq!(read.entry(slot).unwrap(), entries[slot as usize]);
        }
        assert!(matches!(
            read_table(&dir.join("missing.sdb")),
            Err(Error::Io { .. })
        ));

        // Replacing the file the way solvedb does (write aside, rename over)
        // leaves the open mapping on the old file, intact.
        let replacement: Vec<u8> = entries.iter().map(|e| e.wrapping_add(1).max(1)).collect();
        crate::format::write_atomically(&path, &encode_table(&header, &replacement, 3)).unwrap();
        mapped.verify().unwrap();
        for slot in 0..5000 {
            assert_eq!(mapped.entry(slot).unwrap(), entries[slot as usize]);
        }
        // SAFETY: as above.
        let remapped = unsafe { map_table(&path) }.unwrap();
        assert_eq!(remapped.entry(0).unwrap(), replacement[0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
