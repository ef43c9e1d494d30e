//! The leaderboard's database: every finished game the server refereed (a
//! room's, or one against the computer played through a session), with its
//! players, result and moves, and for each move whether it kept the value
//! of the position; and per player and game the totals the leaderboard
//! shows, kept in the same transaction as the game, so that reading the
//! leaderboard is one small indexed query.
//!
//! **Players.** A person is known by a per-browser identity (a random
//! secret the page keeps; no accounts) and shown under the name they last
//! gave and the player's number (`players.id`), so two people of the same
//! name, or two anonymous people, are two lines. A seat without an
//! identity is recorded with the game but counted for nobody. The computer
//! has one player per level, listed apart from people. A game whose two
//! seats are the same player counts for nobody either (playing oneself).
//!
//! SQLite through rusqlite with its bundled SQLite (the same SQLite on
//! every machine, no system library), in WAL mode; the schema is migrated
//! by `PRAGMA user_version`, existing data with it. One writing connection
//! behind a mutex serialises this process's writes (a game is one
//! transaction); reads go to connections of their own (read-only, for a
//! database in a file), so a read never waits for a write or a write for a
//! read. Callers on an async runtime run these functions on a blocking
//! thread. `busy_timeout` covers another process on the same file.
//!
//! [`database`] opens the connections ([`Store`]); [`migrations`] brings
//! the schema up to date; [`ranking`] says which games rank; [`writes`]
//! records a game, [`reads`] reads the leaderboard a page at a time (by
//! number near the top, by [`cursor`] anywhere); [`records`] holds what is
//! kept and shown, [`names`] the names shown; [`rejudge`] judged the games
//! of before the ranking rules by them.

pub mod cursor;
pub mod database;
pub mod migrations;
pub mod names;
pub mod ranking;
mod readers;
pub mod reads;
pub mod records;
pub mod rejudge;
pub mod writes;

#[cfg(test)]
mod paging_tests;
#[cfg(test)]
mod read_bench;
#[cfg(test)]
mod rejudge_tests;
#[cfg(test)]
mod tests;

pub use cursor::CursorError;
pub use database::{BUSY_TIMEOUT, FILE_NAME, Store};
pub use names::{ANONYMOUS, computer_name, is_reserved_name, is_valid_identity};
pub use ranking::{ALL_GAMES, MIN_RANKED_GAMES, NEW_IDENTITIES_PER_HOUR, Unranked, min_moves};
pub use reads::{MAX_OFFSET, TooDeep};
pub use records::{Board, Entry, GameRecord, MoveRecord, Seat};
pub use writes::Recorded;
