//! Which recorded games rank. A game is always recorded; it counts in its
//! players' totals (and so on the leaderboard) only when it says something
//! about how they play against perfect play:
//!
//! - every move was judged against perfect play ([`Unranked::Unjudged`]
//!   otherwise: a move whose value was unknown within the search budget is
//!   never taken as accurate);
//! - no seat was the computer's random level ([`Unranked::Random`]: wins
//!   against it say nothing);
//! - every person made at least [`min_moves`] moves of their own
//!   ([`Unranked::Short`]: a game resigned after one easy move would
//!   otherwise be a perfect score);
//! - the two seats were not the same player ([`Unranked::Oneself`]).
//!
//! Games recorded before these rules were judged again by them when the
//! schema went to version 4 ([`rejudge`](super::rejudge)); the page's
//! posted move lists of version 1 rank for nobody ([`Unranked::Posted`]).

use super::records::{GameRecord, Seat};

/// Games a person plays (of a game, or in all) before they get a rank;
/// until then they are listed after the ranked players, without a rank.
pub const MIN_RANKED_GAMES: u64 = 3;

/// The game under which the totals over every game are kept.
pub const ALL_GAMES: &str = "*";

/// Counts the people listed per game afresh (`listed` from `totals`: the
/// people with totals of a ranked game).
pub(super) const COUNT_LISTED: &str = "DELETE FROM listed;
     INSERT INTO listed (game, people)
     SELECT game, COUNT(*) FROM totals WHERE person = 1 GROUP BY game;";

/// New identities a client address may bring to the leaderboard in an
/// hour, unless set otherwise ([`Store::with_new_identities_per_hour`](super::Store::with_new_identities_per_hour));
/// past them its new identities' games count for nobody in their seat
/// (the game is still recorded, and counts for the other seat).
pub const NEW_IDENTITIES_PER_HOUR: u32 = 5;

/// Why a recorded game does not rank (stored in `games.unranked`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unranked {
    /// A move was not judged against perfect play.
    Unjudged,
    /// The computer played at its random level.
    Random,
    /// A person made fewer than [`min_moves`] moves.
    Short,
    /// Both seats were the same player.
    Oneself,
    /// A move list the page posted (before the server refereed games), not
    /// a game the server saw played.
    Posted,
}

impl Unranked {
    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Unranked::Unjudged => "unjudged",
            Unranked::Random => "random",
            Unranked::Short => "short",
            Unranked::Oneself => "oneself",
            Unranked::Posted => "posted",
        }
    }

    /// What the reason means, in a sentence people read.
    pub fn explained(self) -> &'static str {
        match self {
            Unranked::Unjudged => {
                "a move could not be judged against perfect play in time, and an unjudged move is never counted as accurate"
            }
            Unranked::Random => "games against the computer's random level do not rank",
            Unranked::Short => "a player made fewer than the game's minimum of moves",
            Unranked::Oneself => "both seats were the same player",
            Unranked::Posted => "a move list the page posted, not a game the server refereed",
        }
    }
}

/// The moves a person makes in a game of `game` (its name) for the game to
/// rank: the marks of a line in the tic-tac-toe family (3 on 3×3 and the
/// 3×3×3 cube, 4 on 4×4 and Qubic: fewer cannot make a line of one's own),
/// 3 in dots-and-boxes.
pub fn min_moves(game: &str) -> usize {
    match game {
        "tictactoe:4x4" | "qubic" => 4,
        _ => 3,
    }
}

/// Why `game` does not rank, or `None` if it ranks (playing oneself is
/// told by the players' numbers, see [`Unranked::Oneself`]).
pub fn unranked(game: &GameRecord) -> Option<Unranked> {
    if game.moves.iter().any(|m| m.kept.is_none()) {
        return Some(Unranked::Unjudged);
    }
    let random = |s: &Seat| matches!(s, Seat::Computer { level } if level == "random");
    if game.players.iter().any(random) {
        return Some(Unranked::Random);
    }
    let short = (0..2u8).any(|seat| {
        matches!(game.players[usize::from(seat)], Seat::Person { .. })
            && game.moves.iter().filter(|m| m.seat == seat).count() < min_moves(&game.game)
    });
    short.then_some(Unranked::Short)
}
