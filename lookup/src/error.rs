//! The library's errors, and the one mapping from an error to its
//! [`ErrorKind`] that every face reports (JSON `kind`, exit codes, C
//! statuses, HTTP statuses).

use std::io;
use std::path::PathBuf;

use crate::bounds::Bounds;
use crate::format::{GameId, TableError, UnknownGame};

/// Everything that can go wrong in `solvedb-lookup`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A position or move given in notation is malformed or illegal.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// A table's bytes are not a valid table for the game asked for.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A table file could not be read.
    #[error("cannot read table {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The tables directory given is a file (or something else).
    #[error("tables directory {path} is not a directory")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// A game name that names no game.
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    /// A game or board this build has no rules for.
    #[error("{game} is not supported: {reason}")]
    Unsupported {
        /// The game asked for.
        game: GameId,
        /// Why not.
        reason: String,
    },
    /// A live search's transposition table is larger than the memory the
    /// system would give this process.
    #[error(
        "cannot allocate a {} MiB transposition table for the search: ask for a smaller one",
        .bytes.div_ceil(1 << 20)
    )]
    TableMemory {
        /// The bytes asked for.
        bytes: u64,
    },
    /// A live search ran out of its node budget before it knew the answer.
    #[error("unknown within the budget of {budget} nodes")]
    BudgetExhausted {
        /// The node budget that was used up.
        budget: u64,
    },
    /// A live search ran out of its time budget before it knew the answer.
    #[error("unknown within the time budget of {millis} ms")]
    TimeExhausted {
        /// The time budget, in milliseconds.
        millis: u64,
    },
    /// A live search was stopped because the request it answered ended
    /// ([`Stop::cancel`](crate::Stop::cancel)).
    #[error("unknown: the search was stopped when its request ended")]
    Cancelled,
    /// A live search ran out of its limits (`cause`: one of the three
    /// above) before it knew the answer, having proved `bounds` on the
    /// value and on every move's (a solver that proves bounds as it goes:
    /// dots-and-boxes). Its message is the cause's.
    #[error("{cause}")]
    Bounded {
        /// Why the search stopped.
        cause: Box<Error>,
        /// What it proved by then.
        bounds: Box<Bounds>,
    },
}

/// What kind of failure an [`Error`] is, as every face reports it: the
/// `kind` of a JSON error object, the exit code of the command, the status
/// of the C ABI and of the HTTP API each follow from it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request itself is malformed (not the position in it).
    Request,
    /// A position or move that is malformed or illegal.
    Position,
    /// A game or board this build does not answer.
    Unsupported,
    /// A table file that is damaged, foreign or newer.
    Table,
    /// A file or directory that cannot be read.
    Io,
    /// A live search ran out of its budget: the answer is unknown.
    Budget,
}

impl ErrorKind {
    /// Every kind, in a fixed order.
    pub const ALL: [ErrorKind; 6] = [
        ErrorKind::Request,
        ErrorKind::Position,
        ErrorKind::Unsupported,
        ErrorKind::Table,
        ErrorKind::Io,
        ErrorKind::Budget,
    ];

    /// The word in JSON error objects: `request`, `position`,
    /// `unsupported`, `table`, `io`, `budget`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Request => "request",
            ErrorKind::Position => "position",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Table => "table",
            ErrorKind::Io => "io",
            ErrorKind::Budget => "budget",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    /// The kind of this error: the one mapping every face uses.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Position(_) => ErrorKind::Position,
            // The table's size is a parameter of the request.
            Error::TableMemory { .. } => ErrorKind::Request,
            Error::Table(e) => table_error_kind(e),
            Error::Io { .. } | Error::NotADirectory { .. } => ErrorKind::Io,
            Error::UnknownGame(_) | Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::BudgetExhausted { .. } | Error::TimeExhausted { .. } | Error::Cancelled => {
                ErrorKind::Budget
            }
            Error::Bounded { cause, .. } => cause.kind(),
        }
    }

    /// The kind of the first error of the library in a chain of causes
    /// (an `anyhow` error's `chain()`, or `source()` links): an [`Error`],
    /// or one of the errors it wraps met on its own ([`PositionError`],
    /// [`TableError`], [`UnknownGame`], an [`io::Error`]). `None` when the
    /// chain holds none. The command line maps its failures through this,
    /// so that a wrapped error has the kind [`Error::kind`] gives it.
    pub fn kind_in_chain<'a>(
        chain: impl IntoIterator<Item = &'a (dyn std::error::Error + 'static)>,
    ) -> Option<ErrorKind> {
        chain.into_iter().find_map(|cause| {
            if let Some(e) = cause.downcast_ref::<Error>() {
                Some(e.kind())
            } else if cause.is::<PositionError>() {
                Some(ErrorKind::Position)
            } else if let Some(e) = cause.downcast_ref::<TableError>() {
                Some(table_error_kind(e))
            } else if cause.is::<UnknownGame>() {
                Some(ErrorKind::Unsupported)
            } else if cause.is::<io::Error>() {
                Some(ErrorKind::Io)
            } else {
                None
            }
        })
    }

    /// The bounds a search proved before it stopped, where it proved any
    /// ([`Error::Bounded`]).
    pub fn bounds(&self) -> Option<&Bounds> {
        match self {
            Error::Bounded { bounds, .. } => Some(bounds),
            _ => None,
        }
    }
}

/// The kind of a table error: one that could not be read from disk is the
/// disk's or the system's failure ([`ErrorKind::Io`]), every other one the
/// table's.
fn table_error_kind(error: &TableError) -> ErrorKind {
    match error {
        TableError::Read { .. } => ErrorKind::Io,
        _ => ErrorKind::Table,
    }
}

/// A position or move that cannot be read or could not arise in play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionError {
    /// A board size that is not supported, or a position written for
    /// another board.
    #[error("bad board {input:?}: {reason}")]
    Board {
        /// The board as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The notation has the wrong number of cells (or edges).
    #[error("{game} positions have {expected} {unit}, found {found}")]
    Length {
        /// The game.
        game: &'static str,
        /// What is counted: `cells`, `edges`.
        unit: &'static str,
        /// Cells the board has.
        expected: usize,
        /// Cells found in the input.
        found: usize,
    },
    /// Longer than the notation of any position of any supported board;
    /// refused before it is read.
    #[error("{found} bytes is longer than any position's notation (at most {max})")]
    TooLong {
        /// Bytes given.
        found: usize,
        /// The most any notation takes.
        max: usize,
    },
    /// A character that is not part of the notation.
    #[error("unexpected character {found:?} at byte {at}: expected one of {expected}")]
    Character {
        /// The character.
        found: char,
        /// Its byte offset in the input.
        at: usize,
        /// The characters that would be accepted.
        expected: &'static str,
    },
    /// Stone counts no game can produce (X moves first, so X has as many
    /// stones as O or one more).
    #[error(
        "impossible stone counts: X has {x}, O has {o} (X moves first, so X must have as many as O or one more)"
    )]
    Counts {
        /// Stones of X.
        x: u32,
        /// Stones of O.
        o: u32,
    },
    /// Both players own a complete line.
    #[error("both X and O have a complete line")]
    BothWin,
    /// The winner's line was complete before the last move, or the loser moved
    /// after the game had ended.
    #[error("play continued after {winner} had won")]
    PlayAfterWin {
        /// The player who owns the line.
        winner: char,
    },
    /// A move that does not name a cell or edge of the board.
    #[error("{input:?} is not a move: {reason}")]
    BadMove {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A move that is well-formed but not legal in the position.
    #[error("move {mv} is not legal here: {reason}")]
    IllegalMove {
        /// The move in notation.
        mv: String,
        /// Why not.
        reason: &'static str,
    },
}
