//! What the leaderboard keeps and shows: a finished game as recorded
//! ([`GameRecord`], its [`Seat`]s and [`MoveRecord`]s) and a page of
//! totals ([`Board`] of [`Entry`]s).

use std::net::IpAddr;

use super::names::{ANONYMOUS, computer_name};

/// One move of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Who made it: 0 the first seat, 1 the second.
    pub seat: u8,
    /// The move in the game's notation.
    pub mv: String,
    /// Whether it kept the value of the position (`None`: the value was
    /// unknown within the search budget).
    pub kept: Option<bool>,
    /// What it gave away: result classes for the tic-tac-toe family (a win
    /// turned into a draw is 1), boxes for dots-and-boxes.
    pub cost: Option<i64>,
}

impl MoveRecord {
    /// The moves of the recorded game `id`, in the order they were
    /// played.
    ///
    /// # Errors
    ///
    /// If SQLite cannot read them.
    pub(super) fn of_game(
        conn: &rusqlite::Connection,
        id: i64,
    ) -> rusqlite::Result<Vec<MoveRecord>> {
        conn.prepare_cached(
            "SELECT seat, mv, kept, cost FROM moves WHERE game_id = ?1 ORDER BY ply",
        )?
        .query_map([id], |r| {
            Ok(MoveRecord {
                seat: r.get(0)?,
                mv: r.get(1)?,
                kept: r.get(2)?,
                cost: r.get(3)?,
            })
        })?
        .collect()
    }
}

/// Who sat in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person: their browser's identity (without one, the game counts
    /// for nobody in this seat) and the name they gave (empty: none).
    Person {
        /// The per-browser secret the page keeps, if it sent one.
        identity: Option<String>,
        /// The name given, trimmed; empty for none.
        name: String,
    },
    /// The computer at a level (`perfect`, `classic`, `random`).
    Computer {
        /// The level's name.
        level: String,
    },
}

impl Seat {
    /// The name the game shows for this seat.
    pub fn shown_name(&self) -> String {
        match self {
            Seat::Person { name, .. } if name.is_empty() => ANONYMOUS.to_owned(),
            Seat::Person { name, .. } => name.clone(),
            Seat::Computer { level } => computer_name(level),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's name (`GameId`'s `Display`).
    pub game: String,
    /// `room` (two people in a room) or `computer` (a person against the
    /// computer, through a session); `posted` for the games of version 1
    /// that the page posted (read back only).
    pub kind: &'static str,
    /// The position the game started from.
    pub start: String,
    /// Who sat in each seat, first then second.
    pub players: [Seat; 2],
    /// The winning seat, `None` for a draw.
    pub winner: Option<u8>,
    /// Every move in order.
    pub moves: Vec<MoveRecord>,
    /// Each seat's client address ([`client_key`]'s), where known: a new
    /// identity counts against its address
    /// ([`NEW_IDENTITIES_PER_HOUR`](super::ranking::NEW_IDENTITIES_PER_HOUR)).
    /// Not stored with the game (read back as `None`).
    ///
    /// [`client_key`]: crate::http::rate::client_key
    pub addresses: [Option<IpAddr>; 2],
}

/// One player's line of the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The player's number: tells apart people of the same name.
    pub player: i64,
    /// The name last given (`anonymous` for none).
    pub name: String,
    /// The place among ranked players, `None` before
    /// [`MIN_RANKED_GAMES`](super::MIN_RANKED_GAMES) games with a rated move (and for the computer).
    pub rank: Option<u64>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Moves whose value is known.
    pub rated_moves: u64,
    /// Of those, the moves that kept the value.
    pub kept_moves: u64,
}

impl Entry {
    /// The share of the player's rated moves that kept the value, `None`
    /// before any.
    pub fn accuracy(&self) -> Option<f64> {
        (self.rated_moves > 0).then(|| self.kept_moves as f64 / self.rated_moves as f64)
    }
}

/// A page of the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    /// People, ranked first (best accuracy first, then wins, then games),
    /// then those without a rank yet (most games first).
    pub people: Vec<Entry>,
    /// Pages of people (at least 1).
    pub pages: u64,
    /// This page's number (from 1): where it starts, in pages.
    pub page: u64,
    /// The cursor of the page after this one, if there are more people.
    pub next: Option<String>,
    /// The computer's levels, apart from people (every level, on every page).
    pub computer: Vec<Entry>,
}
