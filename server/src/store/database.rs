//! [`Store`]: the database's connections, one writer and its readers,
//! opened and migrated.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OpenFlags};

use super::migrations::migrate;
use super::readers::{Reader, Readers};

/// The database file's name in the data directory.
pub const FILE_NAME: &str = "leaderboard.sqlite3";

/// Each reading connection's page cache, in KiB (the operating system's
/// file cache is behind it).
const READER_CACHE_KIB: i64 = 512;

/// The database.
#[derive(Debug)]
pub struct Store {
    pub(super) writer: Mutex<Connection>,
    /// Reading connections ([`Readers`]: one per core, first come first
    /// served); none for a database in memory, whose reads share the
    /// writer (a memory database is one connection's).
    pub(super) readers: Readers,
    path: Option<PathBuf>,
    /// New identities a client address may make in an hour.
    pub(super) new_identities_per_hour: u32,
    /// The key the leaderboard's cursors are signed with
    /// ([`cursor`](super::cursor)), kept in the database.
    pub(super) cursor_key: Vec<u8>,
}

/// How long a connection waits for another's lock on the database before
/// its statement fails, unless set otherwise
/// ([`Store::with_busy_timeout`]).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The connection behind `conn`, even after a panic elsewhere.
pub(super) fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding the lock leaves no half-written game: each
    // game is one transaction, so the connection is still sound.
    conn.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub(super) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Opens (or creates) the database in `dir`, creating the directory,
    /// and migrates its schema and data.
    ///
    /// # Errors
    ///
    /// If the directory or file cannot be created or opened, or the file
    /// is not a database of this program (or of a newer version).
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the data directory {}", dir.display()))?;
        let path = dir.join(FILE_NAME);
        let conn =
            Connection::open(&path).with_context(|| format!("opening {}", path.display()))?;
        let store = Store::prepare(conn, Some(path.clone()))
            .with_context(|| format!("preparing {}", path.display()))?;
        Ok(store)
    }

    /// A database in memory, gone with the process: for a server without
    /// a data directory and for tests.
    ///
    /// # Errors
    ///
    /// If SQLite cannot start.
    pub fn in_memory() -> Result<Store> {
        Store::prepare(Connection::open_in_memory()?, None)
    }

    fn prepare(mut conn: Connection, path: Option<PathBuf>) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        if path.is_some() {
            let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                bail!("the database would not switch to WAL mode (it is in {mode})");
            }
        }
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        migrate(&mut conn)?;
        let cursor_key: Vec<u8> =
            conn.query_row("SELECT value FROM keys WHERE name = 'cursor'", [], |r| {
                r.get(0)
            })?;
        let mut readers = Vec::new();
        if let Some(path) = &path {
            for _ in 0..Readers::count() {
                let reader = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .context("opening a reading connection")?;
                reader.busy_timeout(BUSY_TIMEOUT)?;
                reader.pragma_update(None, "cache_size", -READER_CACHE_KIB)?;
                readers.push(reader);
            }
        }
        Ok(Store {
            writer: Mutex::new(conn),
            readers: Readers::new(readers),
            path,
            new_identities_per_hour: super::ranking::NEW_IDENTITIES_PER_HOUR,
            cursor_key,
        })
    }

    /// The same database, each connection waiting up to `timeout` for
    /// another's lock (another process's, on the same file) before a
    /// statement fails.
    ///
    /// # Errors
    ///
    /// If SQLite refuses the setting.
    pub fn with_busy_timeout(self, timeout: Duration) -> Result<Store> {
        lock(&self.writer).busy_timeout(timeout)?;
        for reader in self.readers.each() {
            reader.busy_timeout(timeout)?;
        }
        Ok(self)
    }

    /// The database file, if not in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A reading connection, first come first served ([`Readers`]).
    pub(super) fn reader(&self) -> Reader<'_> {
        if self.readers.is_empty() {
            return Reader::writer(lock(&self.writer));
        }
        self.readers.take()
    }
}
