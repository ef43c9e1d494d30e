//! The `extern "C"` functions: every `unsafe` operation of the crate is in
//! this file. Each function checks its pointers, then calls the safe logic in
//! `lib.rs` inside [`guarded`] (so no panic unwinds into C), then writes its
//! outputs.
//!
//! The contract C callers keep is written in `include/solvedb.h`; the
//! `# Safety` sections here repeat the part each function relies on.

use std::ffi::{CStr, c_char};
use std::path::PathBuf;

use solvedb_lookup::Oracle;

use crate::{Failure, Handle, Move, Status, Value, games_text, guarded, last_error_ptr};

/// The failure for a NULL `what`.
fn null(what: &str) -> Failure {
    Failure::new(Status::InvalidArgument, format!("{what} is NULL"))
}

/// The C string at `ptr`.
///
/// # Safety
///
/// `ptr` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged for `'a`.
unsafe fn c_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a CStr, Failure> {
    if ptr.is_null() {
        return Err(null(what));
    }
    // SAFETY: not NULL, and the caller promises a NUL-terminated string that
    // outlives 'a.
    Ok(unsafe { CStr::from_ptr(ptr) })
}

/// The UTF-8 text at `ptr`.
///
/// # Safety
///
/// As [`c_str`].
unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    // SAFETY: our caller's promise is c_str's.
    let c = unsafe { c_str(ptr, what) }?;
    c.to_str()
        .map_err(|_| Failure::new(Status::InvalidArgument, format!("{what} is not UTF-8")))
}

/// The handle behind `db`.
///
/// # Safety
///
/// `db` is NULL or a pointer returned by `solvedb_open*` and not yet closed,
/// for `'a`.
unsafe fn handle<'a>(db: *const Handle) -> Result<&'a Handle, Failure> {
    // SAFETY: the caller promises `db` is NULL or a live handle; `as_ref`
    // turns NULL into None.
    unsafe { db.as_ref() }.ok_or_else(|| null("the solvedb handle"))
}

/// The handle, game and position every query starts from.
///
/// # Safety
///
/// As [`handle`] for `db` and [`text`] for `game` and `position`.
unsafe fn request<'a>(
    db: *const Handle,
    game: *const c_char,
    position: *const c_char,
) -> Result<(&'a Handle, &'a str, &'a str), Failure> {
    // SAFETY: the caller promises NULL or a live handle.
    let db = unsafe { handle(db) }?;
    // SAFETY: the caller promises NULL or a NUL-terminated string.
    let game = unsafe { text(game, "the game") }?;
    // SAFETY: as for `game`.
    let position = unsafe { text(position, "the position") }?;
    Ok((db, game, position))
}

/// Writes `value` to `out`, checked to be non-NULL beforehand.
///
/// # Safety
///
/// `out` is valid for writing one `T` and suitably aligned.
unsafe fn put<T>(out: *mut T, value: T) {
    debug_assert!(!out.is_null());
    // SAFETY: the caller promises `out` is valid and aligned; `write` does
    // not read (or drop) the possibly uninitialised old contents.
    unsafe { out.write(value) };
}

/// The directory path in `dir`: its bytes as they are on Unix, UTF-8
/// elsewhere.
fn path(dir: &CStr) -> Result<PathBuf, Failure> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(std::ffi::OsStr::from_bytes(dir.to_bytes()).into())
    }
    #[cfg(not(unix))]
    {
        dir.to_str()
            .map(PathBuf::from)
            .map_err(|_| Failure::new(Status::InvalidArgument, "the tables directory is not UTF-8"))
    }
}

/// Opens `tables_dir` with an optional search budget: the shared body of
/// the two `solvedb_open` functions.
///
/// # Safety
///
/// As [`solvedb_open`].
unsafe fn open(tables_dir: *const c_char, budget: Option<u64>) -> *mut Handle {
    let mut opened = std::ptr::null_mut();
    guarded(|| {
        // SAFETY: the caller promises a NUL-terminated string (or NULL).
        let dir = path(unsafe { c_str(tables_dir, "the tables directory") }?)?;
        let oracle = Oracle::open(&dir)?;
        let oracle = match budget {
            Some(nodes) => oracle.with_search_budget(nodes),
            None => oracle,
        };
        opened = Box::into_raw(Box::new(Handle { oracle }));
        Ok(())
    });
    opened
}

/// Opens a directory of tables; `NULL` on failure.
///
/// # Safety
///
/// `tables_dir` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solvedb_open(tables_dir: *const c_char) -> *mut Handle {
    // SAFETY: our caller's promise is `open`'s.
    unsafe { open(tables_dir, None) }
}

/// As [`solvedb_open`], with every live search limited to `nodes` positions.
///
/// # Safety
///
/// As [`solvedb_open`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solvedb_open_with_budget(
    tables_dir: *const c_char,
    nodes: u64,
) -> *mut Handle {
    // SAFETY: our caller's promise is `open`'s.
    unsafe { open(tables_dir, Some(nodes)) }
}

/// Closes a handle; NULL is ignored.
///
/// # Safety
///
/// `db` is NULL or a handle from `solvedb_open*`, not closed before and not
/// in use by another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solvedb_close(db: *mut Handle) {
    if db.is_null() {
        return;
    }
    guarded(|| {
        // SAFETY: `db` came from `Box::into_raw` in `open`, and the caller
        // promises it is closed once and no longer used.
        drop(unsafe { Box::from_raw(db) });
        Ok(())
    });
}

/// The value of `position` in `game`.
///
/// # Safety
///
/// `db` is NULL or a live handle; `game` and `position` are NULL or
/// NUL-terminated strings; `out` is NULL or valid for writing a `Value`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solvedb_probe(
    db: *const Handle,
    game: *const c_char,
    position: *const c_char,
    out: *mut Value,
) -> Status {
    guarded(|| {
        // SAFETY: the caller promises what `request` needs.
        let (db, game, position) = unsafe { request(db, game, position) }?;
        if out.is_null() {
            return Err(null("the output value"));
        }
        let value = db.probe(game, position)?;
        // SAFETY: `out` is not NULL, and the caller promises it is writable.
        unsafe { put(out, value) };
        Ok(())
    })
}

/// The value of `position` and of every move, best first.
///
/// # Safety
///
/// As [`solvedb_probe`]; `value` is NULL or writable, `out` is valid for
/// writing `capacity` moves (it may be NULL when `capacity` is 0), `count`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solvedb_moves(
    db: *const Handle,
    game: *const c_char,
    position: *const c_char,
    value: *mut Value,
    out: *mut Move,
    capacity: usize,
    count: *mut usize,
) -> Status {
    guarded(|| {
        // SAFETY: the caller promises what `request` needs.
        let (db, game, position) = unsafe { request(db, game, position) }?;
        if count.is_null() {
            return Err(null("the move count"));
        }
        if out.is_null() && capacity > 0 {
            return Err(null("the move buffer"));
        }
        // SAFETY: `count` is not NULL, and the caller promises it is writable.
        unsafe { put(count, 0) };
        let (position_value, moves) = db.moves(game, position)?;
        if !value.is_null() {
            // SAFETY: not NULL, and the caller promises it is writable.
            unsafe { put(value, position_value) };
        }
        let written = moves.len().min(capacity);
        if written > 0 {
            // SAFETY: `out` is not NULL (capacity > 0), the caller promises
            // room for `capacity >= written` moves, and a fresh Vec cannot
            // overlap the caller's buffer.
            unsafe { std::ptr::copy_nonoverlapping(moves.as_ptr(), out, written) };
        }
        // SAFETY: as above.
        unsafe { put(count, moves.len()) };
        if moves.len() > capacity {
            return Err(Failure::new(
                Status::BufferTooSmall,
                format!("{} moves do not fit in a buffer of {capacity}", moves.len()),
            ));
        }
        Ok(())
    })
}

/// The best move of `position` (the first of [`solvedb_moves`]).
///
/// # Safety
///
/// As [`solvedb_probe`], with `out` valid for writing one `Move`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn solvedb_best_move(
    db: *const Handle,
    game: *const c_char,
    position: *const c_char,
    out: *mut Move,
) -> Status {
    guarded(|| {
        // SAFETY: the caller promises what `request` needs.
        let (db, game, position) = unsafe { request(db, game, position) }?;
        if out.is_null() {
            return Err(null("the output move"));
        }
        let best = db.best_move(game, position)?;
        // SAFETY: `out` is not NULL, and the caller promises it is writable.
        unsafe { put(out, best) };
        Ok(())
    })
}

/// The message of the last failed call on this thread (`""` if none). The
/// pointer stays valid until this thread's next failing call.
#[unsafe(no_mangle)]
pub extern "C" fn solvedb_last_error() -> *const c_char {
    last_error_ptr()
}

/// Every game this library answers, one per line: its name (what the
/// queries take), a tab, its title, a tab, and how its positions are
/// written. A static string: never freed, valid for the life of the
/// process.
#[unsafe(no_mangle)]
pub extern "C" fn solvedb_games() -> *const c_char {
    games_text().as_ptr()
}
