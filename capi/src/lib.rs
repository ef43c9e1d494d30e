//! A C ABI for solvedb: open a directory of tables, ask for the value of a
//! position, the value of every move, or the best move.
//!
//! The C declarations are in `include/solvedb.h`, kept by hand next to the
//! `#[repr(C)]` types here; `tests/c_program.rs` compiles a C program against
//! that header, links it to the `cdylib` cargo builds, and checks every answer
//! against [`Oracle`].
//!
//! ```c
//! #include <stdio.h>
//! #include "solvedb.h"
//!
//! int main(void) {
//!     solvedb *db = solvedb_open("tables"); /* tables are opened on first use */
//!     solvedb_value value;
//!     solvedb_move moves[32];
//!     size_t count;
//!     if (db == NULL ||
//!         solvedb_moves(db, "tictactoe", "X../.O./...", &value, moves, 32,
//!                       &count) != SOLVEDB_OK) {
//!         fprintf(stderr, "solvedb: %s\n", solvedb_last_error());
//!         return 1;
//!     }
//!     printf("result %d in %d plies, from the %s\n", value.result, value.plies,
//!            value.source == SOLVEDB_SOURCE_TABLE ? "table" : "search");
//!     for (size_t i = 0; i < count; i++) /* best first */
//!         printf("  move %s: %d in %d\n", moves[i].name, moves[i].value.result,
//!                moves[i].value.plies);
//!     solvedb_close(db);
//!     return 0;
//! }
//! ```
//!
//! Built with `cargo build --release -p solvedb-capi`, then
//! `cc -I capi/include example.c -L target/release -lsolvedb_capi`.
//!
//! The Rust side is split in two: this file holds the types and the safe
//! logic (one [`Oracle`] per handle, errors to [`Status`] codes and
//! messages), `ffi.rs` the `extern "C"` functions and all of the crate's
//! `unsafe` code (pointer reads and writes).
//!
//! # Quirks
//!
//! - A panic never crosses the boundary: it becomes
//!   [`Status::Internal`]. Built with `panic = "abort"`, it aborts instead.
//! - Tables are read by position, a block at a time ([`Oracle::open`]), never
//!   mapped: a table file replaced by rename keeps answering from the old
//!   file, one truncated or written over in place gives table errors, never a
//!   crash.

#![deny(missing_docs)]

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::sync::OnceLock;

use solvedb_lookup::{
    AnyValue, Error, ErrorKind, GameId, MoveReport, Oracle, Report, Source, Wdl, catalogue,
};

mod ffi;

pub use ffi::{
    solvedb_best_move, solvedb_close, solvedb_last_error, solvedb_moves, solvedb_open,
    solvedb_open_with_budget, solvedb_probe,
};

/// The result of every call: `SOLVEDB_OK` or what went wrong. The message of
/// the last failure on the calling thread is [`solvedb_last_error`].
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A NULL pointer where one is not allowed, or text that is not UTF-8.
    InvalidArgument = 1,
    /// A game name that is unknown, or a game or board this build cannot answer.
    UnsupportedGame = 2,
    /// A position whose notation is malformed or that no game can reach.
    BadPosition = 3,
    /// A table file that is damaged, foreign, for another game or too new.
    BadTable = 4,
    /// A file or directory that cannot be read.
    Io = 5,
    /// A budgeted live search ran out before it knew the answer.
    UnknownWithinBudget = 6,
    /// More moves than the buffer holds; the count says how many there are.
    BufferTooSmall = 7,
    /// The game is over: there is no best move.
    GameOver = 8,
    /// A bug in solvedb (a caught panic, or an error this version of the
    /// ABI has no code for).
    Internal = 9,
}

impl Status {
    /// The name of the C constant: `SOLVEDB_OK`, `SOLVEDB_ERR_BAD_POSITION`, ...
    pub fn c_name(self) -> &'static str {
        match self {
            Status::Ok => "SOLVEDB_OK",
            Status::InvalidArgument => "SOLVEDB_ERR_INVALID_ARGUMENT",
            Status::UnsupportedGame => "SOLVEDB_ERR_UNSUPPORTED_GAME",
            Status::BadPosition => "SOLVEDB_ERR_BAD_POSITION",
            Status::BadTable => "SOLVEDB_ERR_BAD_TABLE",
            Status::Io => "SOLVEDB_ERR_IO",
            Status::UnknownWithinBudget => "SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET",
            Status::BufferTooSmall => "SOLVEDB_ERR_BUFFER_TOO_SMALL",
            Status::GameOver => "SOLVEDB_ERR_GAME_OVER",
            Status::Internal => "SOLVEDB_ERR_INTERNAL",
        }
    }
}

/// The status a library error is reported with: the C face of the one
/// mapping from errors to kinds ([`Error::kind`]).
pub fn status_of(error: &Error) -> Status {
    match error.kind() {
        ErrorKind::Request => Status::InvalidArgument,
        ErrorKind::Position => Status::BadPosition,
        ErrorKind::Unsupported => Status::UnsupportedGame,
        ErrorKind::Table => Status::BadTable,
        ErrorKind::Io => Status::Io,
        ErrorKind::Budget => Status::UnknownWithinBudget,
        _ => Status::Internal,
    }
}

/// What kind of value a [`Value`] holds.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Win, draw or loss and plies to the end (the tic-tac-toe family).
    Outcome = 0,
    /// The net number of unclaimed boxes won (dots-and-boxes).
    Margin = 1,
}

/// Where an answer came from (`solvedb_source`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceCode {
    /// A precomputed table.
    Table = 0,
    /// An exact live search (no table for the game in the directory).
    Search = 1,
    /// The rules, by forced play, with a table loaded (cube).
    Forced = 2,
}

impl From<Source> for SourceCode {
    fn from(source: Source) -> SourceCode {
        match source {
            Source::Table => SourceCode::Table,
            Source::Search => SourceCode::Search,
            Source::ForcedPlay => SourceCode::Forced,
        }
    }
}

/// A value for the side to move (`solvedb_value`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// Outcome or margin.
    pub kind: Kind,
    /// -1 loss, 0 draw, 1 win (for a margin: its sign).
    pub result: i32,
    /// Outcome: plies to the end under perfect play; margin: 0.
    pub plies: i32,
    /// Margin: net unclaimed boxes won; outcome: 0.
    pub margin: i32,
    /// Where the value came from.
    pub source: SourceCode,
}

impl Value {
    /// The C form of a game-neutral value.
    pub fn new(value: AnyValue, source: Source) -> Value {
        let source = source.into();
        match value {
            AnyValue::Outcome(o) | AnyValue::AtMost(o) => Value {
                kind: Kind::Outcome,
                result: match o.wdl {
                    Wdl::Loss => -1,
                    Wdl::Draw => 0,
                    Wdl::Win => 1,
                },
                plies: i32::from(o.plies),
                margin: 0,
                source,
            },
            AnyValue::Margin(m) => Value {
                kind: Kind::Margin,
                result: m.signum(),
                plies: 0,
                margin: m,
                source,
            },
        }
    }
}

/// The most legal moves of any position of any supported game
/// (`SOLVEDB_MAX_MOVES`): Qubic's 64 cells, one more than the most edges of
/// a dots board ([`MAX_EDGES`](solvedb_lookup::games::dots::MAX_EDGES));
/// the header test checks every game of the catalogue against it.
pub const MAX_MOVES: usize = {
    let (cells, edges) = (
        solvedb_lookup::games::qubic::CELLS,
        solvedb_lookup::games::dots::MAX_EDGES as usize,
    );
    if cells > edges { cells } else { edges }
};

/// Bytes in a move name, the terminating NUL included
/// (`SOLVEDB_MOVE_NAME_SIZE`).
pub const MOVE_NAME_SIZE: usize = 16;

/// One move and its value for the player who makes it (`solvedb_move`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// The move in the game's notation, NUL-terminated.
    pub name: [c_char; MOVE_NAME_SIZE],
    /// Its value for the player who makes it.
    pub value: Value,
}

impl Move {
    /// The C form of a move of a report from `source`.
    ///
    /// # Errors
    ///
    /// [`Status::Internal`] if the name does not fit (no game has such moves).
    fn new(report: &MoveReport, source: Source) -> Result<Move, Failure> {
        let bytes = report.mv.as_bytes();
        if bytes.len() >= MOVE_NAME_SIZE || bytes.contains(&0) {
            return Err(Failure::new(
                Status::Internal,
                format!("move name {:?} does not fit a solvedb_move", report.mv),
            ));
        }
        let mut name = [0 as c_char; MOVE_NAME_SIZE];
        for (to, &from) in name.iter_mut().zip(bytes) {
            *to = from as c_char;
        }
        Ok(Move {
            name,
            value: Value::new(report.value, source),
        })
    }

    /// The name as text.
    pub fn name(&self) -> String {
        let bytes: Vec<u8> = self
            .name
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// A failed call: the status returned and the message kept for
/// [`solvedb_last_error`].
#[derive(Debug)]
pub(crate) struct Failure {
    status: Status,
    message: String,
}

impl Failure {
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::new(status_of(&error), error.to_string())
    }
}

thread_local! {
    /// The message of the last failure on this thread.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Runs `body` with panics caught, keeps the message of a failure for
/// [`solvedb_last_error`], and returns the status.
pub(crate) fn guarded(body: impl FnOnce() -> Result<(), Failure>) -> Status {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    let failure = match outcome {
        Ok(Ok(())) => return Status::Ok,
        Ok(Err(failure)) => failure,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Failure::new(Status::Internal, format!("internal error (panic): {what}"))
        }
    };
    set_last_error(&failure.message);
    failure.status
}

/// The games this library answers, as `solvedb_games` gives them to C:
/// one line per game of the catalogue, in its order — the name queries
/// take, a tab, the title people read, a tab, and how its positions are
/// written (the text of `solvedb probe --help`) — each line ending in
/// `\n`. Built once; the pointer stays valid for the life of the process.
pub fn games_text() -> &'static CStr {
    static TEXT: OnceLock<CString> = OnceLock::new();
    TEXT.get_or_init(|| {
        let lines: String = catalogue()
            .iter()
            .map(|game| {
                format!(
                    "{}\t{}\t{}\n",
                    game.name(),
                    game.title,
                    game.board.notation_help()
                )
            })
            .collect();
        // The catalogue's texts hold no NUL byte; were one there, the list
        // would be empty rather than cut.
        CString::new(lines).unwrap_or_default()
    })
}

/// Keeps `message` as this thread's last error.
fn set_last_error(message: &str) {
    // A message with a NUL byte (none of ours has one) is cut there.
    let message = message.split('\0').next().unwrap_or_default();
    let message = CString::new(message).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
}

/// A pointer to this thread's last error message, valid until the thread's
/// next failing call.
fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// What a `solvedb *` points to: one oracle, shared by every thread that
/// holds the handle.
#[derive(Debug)]
pub struct Handle {
    oracle: Oracle,
}

// The header promises that threads may share a handle.
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<Handle>();
};

impl Handle {
    /// The game named `game`.
    fn game(game: &str) -> Result<GameId, Failure> {
        game.parse()
            .map_err(|e: solvedb_lookup::UnknownGame| Failure::from(Error::from(e)))
    }

    /// The value of a position.
    fn probe(&self, game: &str, position: &str) -> Result<Value, Failure> {
        let report = self.oracle.probe(Handle::game(game)?, position)?;
        Ok(Value::new(report.value, report.source))
    }

    /// The value of a position and every move, best first.
    fn moves(&self, game: &str, position: &str) -> Result<(Value, Vec<Move>), Failure> {
        let report: Report = self.oracle.moves(Handle::game(game)?, position)?;
        let moves = report
            .moves
            .iter()
            .map(|m| Move::new(m, report.source))
            .collect::<Result<_, _>>()?;
        Ok((Value::new(report.value, report.source), moves))
    }

    /// The best move, `GameOver` when there is none.
    fn best_move(&self, game: &str, position: &str) -> Result<Move, Failure> {
        let report = self.oracle.moves(Handle::game(game)?, position)?;
        match report.moves.first() {
            Some(best) => Move::new(best, report.source),
            None => Err(Failure::new(
                Status::GameOver,
                format!("the game is over in {position}: there is no move"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_error() -> String {
        LAST_ERROR.with(|last| last.borrow().to_string_lossy().into_owned())
    }

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let status = guarded(|| panic!("a bug"));
        assert_eq!(status, Status::Internal);
        assert_eq!(last_error(), "internal error (panic): a bug");
    }

    #[test]
    fn success_keeps_the_last_error_and_failure_replaces_it() {
        assert_eq!(
            guarded(|| Err(Failure::new(Status::BadPosition, "first"))),
            Status::BadPosition
        );
        assert_eq!(guarded(|| Ok(())), Status::Ok);
        assert_eq!(last_error(), "first");
        guarded(|| Err(Failure::new(Status::Io, "with\0nul")));
        assert_eq!(last_error(), "with");
    }

    #[test]
    fn move_names_that_do_not_fit_are_refused() {
        let value = AnyValue::Margin(3);
        let fits = MoveReport {
            mv: "x".repeat(MOVE_NAME_SIZE - 1),
            value,
        };
        let c = Move::new(&fits, Source::Table).unwrap();
        assert_eq!(c.name(), fits.mv);
        assert_eq!(
            (c.value.kind, c.value.result, c.value.margin),
            (Kind::Margin, 1, 3)
        );
        let too_long = MoveReport {
            mv: "x".repeat(MOVE_NAME_SIZE),
            value,
        };
        assert_eq!(
            Move::new(&too_long, Source::Table).unwrap_err().status,
            Status::Internal
        );
    }
}
