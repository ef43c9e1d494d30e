//! The library's error types.

use std::io;
use std::path::PathBuf;

use crate::GameId;

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
    /// A game or board this build has no rules for.
    #[error("{game} is not supported")]
    Unsupported {
        /// The game asked for.
        game: GameId,
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

/// A table file that cannot be used: truncated, corrupted, foreign, or made
/// for another game or by a newer format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// Fewer bytes than the fixed-size parts of the format need.
    #[error("table is truncated: {len} bytes, at least {needed} needed")]
    Truncated {
        /// Bytes present.
        len: u64,
        /// Bytes the format needs at this point.
        needed: u64,
    },
    /// The file does not start with the solvedb magic bytes.
    #[error("not a solvedb table (bad magic bytes)")]
    BadMagic,
    /// Written by a newer solvedb than this one.
    #[error(
        "table format version {found} is newer than the supported version {supported}: upgrade solvedb"
    )]
    NewerVersion {
        /// Version in the file.
        found: u32,
        /// Newest version this library reads.
        supported: u32,
    },
    /// An old format version this library no longer reads.
    #[error(
        "table format version {found} is not supported (this solvedb reads version {supported})"
    )]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this library reads.
        supported: u32,
    },
    /// A stored checksum does not match the bytes it covers.
    #[error("checksum mismatch in {part}: the table is corrupted")]
    Checksum {
        /// Which part: `header`, `block index`, `block N`, `file`.
        part: String,
    },
    /// The header checksummed correctly but does not decode or is inconsistent.
    #[error("malformed table header: {0}")]
    Header(String),
    /// The table is for another game or board.
    #[error("table is for {found}, not {expected}")]
    WrongGame {
        /// The game asked for.
        expected: GameId,
        /// The game in the file.
        found: GameId,
    },
    /// A size in the header disagrees with the game or with the file length.
    #[error("table size mismatch: {0}")]
    Size(String),
    /// A block's bytes are not valid compressed data of the expected length.
    #[error("block {block} cannot be decoded: {reason}")]
    Block {
        /// The block number.
        block: u64,
        /// What went wrong.
        reason: String,
    },
    /// An entry holds a byte that the value encoding does not allow, or a
    /// position the table should hold is missing.
    #[error("bad entry at slot {slot}: {reason}")]
    Entry {
        /// The slot.
        slot: u64,
        /// What is wrong with it.
        reason: String,
    },
}
