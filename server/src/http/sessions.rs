//! Games against the computer, played through the server (the routes are
//! in [`session_routes`](super::session_routes)): a **session**
//! is one rated game of a person against a level of the computer
//! ([`Level`]), from the game's start. The server keeps it, makes the
//! computer's moves itself, referees the person's moves by the game's own
//! rules ([`Match`]), judges every move against the oracle ([`Verdict`])
//! and records the finished game in the leaderboard. Nothing the page says
//! about a result is taken: a result is what the server saw.
//!
//! - `POST /api/v1/sessions` with `{"game", "first", "second", "player",
//!   "name"}` (`first`/`second`: `person` or a level, exactly one
//!   `person`; `player`: the browser's identity, a secret of 16 to 64
//!   letters, digits, `-` or `_`; `name` optional) → 201 and the state
//!   (below), the computer's first moves made if it begins.
//! - `POST /api/v1/sessions/move` with `{"session", "move"}` → the state
//!   after the person's move and the computer's answer (every move the
//!   computer makes before the person's next turn: dots-and-boxes plays on
//!   after a box).
//! - `POST /api/v1/sessions/resign` with `{"session"}` → the state, the
//!   game lost by resignation and recorded.
//! - `POST /api/v1/sessions/state` with `{"session"}` → the state (a page
//!   that was reloaded).
//! - `GET /api/v1/computer?game=G&position=P&level=L` → `{"move", "level",
//!   "by"}`: the computer's move at a level anywhere (the explorer's
//!   unrated play); `by` is the level that chose it (`classic` where
//!   `perfect` was unknown within the budget).
//!
//! The state: `{"session", "game", "start", "position", "history",
//! "movers" (the seat of each move), "by" (per move, the level that chose
//! it, `null` for the person's), "levels" ({"first", "second"}), "you"
//! (the person's seat), "to_move" (a seat, `null` once over), "points",
//! "result" (`null`, then `{"winner": seat or null, "resigned"}`); after the
//! end "verdicts" (each move's `{"move", "seat", "kept", "cost",
//! "before", "played", "best"}`: the value of the position, of the move
//! played and the best move, in the probe's shapes) and "recorded"}`.
//!
//! The session id is a 128-bit secret from the operating system (it is the
//! only key to the session, always in a body, never in a URL). Sessions are
//! bounded ([`SessionLimits`]): in all, per client address, with a reserve
//! that only clients without one open may use; one left without a move
//! for [`SessionLimits::idle`] ends: lost by resignation and recorded, if
//! the person had moved; one where the person never moved ends after
//! [`SessionLimits::unplayed`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use solvedb_lookup::{GameId, Rng};

use super::activity::LastActive;
use super::error::ApiError;
use super::referee::{Match, Verdict};
use super::response::{
    Finished, Levels, MatchView, Points, SessionResult, SessionState, seat_name, to_move,
};
use crate::computer::Level;
use crate::store::{GameRecord, Seat};

/// The bounds on sessions.
#[derive(Copy, Clone, Debug)]
pub struct SessionLimits {
    /// Sessions open at once.
    pub sessions: usize,
    /// Sessions open at once from one client address.
    pub per_client: usize,
    /// Sessions kept for clients with none open: past `sessions` less
    /// this many, only they may begin one.
    pub reserve: usize,
    /// A session without a move for this long ends (resigned).
    pub idle: Duration,
    /// A session where the person has not moved yet ends after this long
    /// (nothing is recorded).
    pub unplayed: Duration,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            sessions: 1000,
            per_client: 8,
            reserve: 100,
            idle: Duration::from_secs(10 * 60),
            unplayed: Duration::from_secs(60),
        }
    }
}

/// Every open session.
#[derive(Debug)]
pub struct Sessions {
    open: Mutex<HashMap<String, Arc<Session>>>,
    /// The bounds.
    pub limits: SessionLimits,
}

#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) id: String,
    /// The client address that began it ([`client_key`](super::rate::client_key)).
    pub(crate) client: std::net::IpAddr,
    /// Held through a request's whole handling: one move at a time.
    pub(crate) play: tokio::sync::Mutex<Play>,
    pub(crate) last_active: LastActive,
}

/// One game of a session.
#[derive(Debug)]
pub(crate) struct Play {
    pub(crate) game: Match,
    /// Each seat's level; `None` for the person.
    pub(crate) levels: [Option<Level>; 2],
    /// The person's identity and name.
    pub(crate) person: Seat,
    /// The person's client address ([`client_key`](super::rate::client_key)).
    pub(crate) client: Option<std::net::IpAddr>,
    /// Per move: the level that chose it (`None`: the person).
    pub(crate) by: Vec<Option<Level>>,
    pub(crate) verdicts: Vec<Verdict>,
    pub(crate) resigned: bool,
    /// The game's record, once written (a failed write is retried until
    /// it is).
    pub(crate) recorded: super::recording::Outcome,
    /// Whether the finished game was handed to be recorded.
    pub(crate) recording_started: bool,
    pub(crate) rng: Rng,
}

impl Play {
    /// A new game of `game` from its start, each seat's level (`None`:
    /// the person) given, the person's client address, the computer's choices among equal moves drawn
    /// from `seed`.
    ///
    /// # Errors
    ///
    /// If the game has no start the referee can follow.
    pub(crate) fn new(
        game: GameId,
        levels: [Option<Level>; 2],
        person: Seat,
        client: Option<std::net::IpAddr>,
        seed: u64,
    ) -> Result<Play, ApiError> {
        Ok(Play {
            game: Match::new(game, None)?,
            levels,
            person,
            client,
            by: Vec::new(),
            verdicts: Vec::new(),
            resigned: false,
            recorded: super::recording::Outcome::default(),
            recording_started: false,
            rng: Rng::new(seed),
        })
    }

    /// The person's seat.
    pub(crate) fn person_seat(&self) -> u8 {
        u8::from(self.levels[0].is_some())
    }

    /// Ends the game: the person resigned (or left it idle).
    pub(crate) fn give_up(&mut self) {
        if self.game.result.is_none() {
            self.game.result = Some(Some(1 - self.person_seat()));
            self.resigned = true;
        }
    }

    /// The leaderboard's record of the finished game.
    pub(crate) fn record(&self) -> GameRecord {
        let players = [0, 1].map(|s| match self.levels[s] {
            None => self.person.clone(),
            Some(level) => Seat::Computer {
                level: self.level_played(s as u8, level).as_str().to_owned(),
            },
        });
        let mut record = self.game.record("computer", players, &self.verdicts);
        let person = usize::from(self.person_seat());
        record.addresses[person] = self.client;
        record
    }

    /// The level the computer in `seat` actually played: the weakest that
    /// chose one of its moves (the perfect level's classic fallback makes
    /// it a classic game), `asked` if it made none.
    pub(crate) fn level_played(&self, seat: u8, asked: Level) -> Level {
        let rank = |l: Level| Level::ALL.iter().position(|&x| x == l).unwrap_or(0);
        self.game
            .movers
            .iter()
            .zip(&self.by)
            .filter(|(mover, _)| **mover == seat)
            .filter_map(|(_, by)| *by)
            .max_by_key(|&l| rank(l))
            .unwrap_or(asked)
    }

    /// The game as the session's routes answer it, under the session's id.
    pub(crate) fn view(&self, id: &str) -> SessionState {
        let m = &self.game;
        let level = |s: usize| self.levels[s].map_or("person", Level::as_str);
        SessionState {
            session: id.to_owned(),
            game: MatchView::of(m),
            movers: m.movers.iter().map(|&s| seat_name(s)).collect(),
            by: self.by.iter().map(|b| b.map(Level::as_str)).collect(),
            levels: Levels {
                first: level(0),
                second: level(1),
            },
            you: seat_name(self.person_seat()),
            to_move: to_move(m),
            points: Points::of(m),
            result: m.result.map(|winner| SessionResult {
                winner: winner.map(seat_name),
                resigned: self.resigned,
            }),
            finished: Finished::of(m, &self.verdicts, self.recorded.get()),
        }
    }
}

impl Sessions {
    /// No sessions yet.
    pub fn new(limits: SessionLimits) -> Sessions {
        Sessions {
            open: Mutex::new(HashMap::new()),
            limits,
        }
    }

    pub(crate) fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sessions open now.
    pub fn count(&self) -> usize {
        self.map().len()
    }

    /// Takes out the sessions idle too long (to be recorded as resigned):
    /// [`SessionLimits::idle`] without a move, or
    /// [`SessionLimits::unplayed`] before the person's first move.
    pub(crate) fn expired(&self) -> Vec<Arc<Session>> {
        let limits = self.limits;
        let mut map = self.map();
        let ids: Vec<String> = map
            .iter()
            .filter(|(_, s)| {
                let idle = s.idle_for();
                idle >= limits.idle || (idle >= limits.unplayed && !s.person_moved())
            })
            .map(|(id, _)| id.clone())
            .collect();
        ids.iter().filter_map(|id| map.remove(id)).collect()
    }

    /// Takes out `client`'s sessions that leave no room under its quota
    /// for one more ([`SessionLimits::per_client`]), the longest idle
    /// first: a client's new game ends its oldest (to be recorded as
    /// resigned), so one address never holds more than its quota.
    pub(crate) fn over_quota(&self, client: std::net::IpAddr) -> Vec<Arc<Session>> {
        let keep = self.limits.per_client.max(1) - 1;
        let mut map = self.map();
        let mut mine: Vec<(Duration, String)> = map
            .iter()
            .filter(|(_, s)| s.client == client)
            .map(|(id, s)| (s.idle_for(), id.clone()))
            .collect();
        if mine.len() <= keep {
            return Vec::new();
        }
        mine.sort_by_key(|m| std::cmp::Reverse(m.0));
        let excess = mine.len() - keep;
        mine.iter()
            .take(excess)
            .filter_map(|(_, id)| map.remove(id))
            .collect()
    }

    /// Why `client` may not begin a session now, if it may not: the pool
    /// is full, or down to its reserve ([`SessionLimits::reserve`]) and
    /// `client` already has one open.
    pub(crate) fn refusal(&self, client: std::net::IpAddr) -> Option<String> {
        let limits = self.limits;
        let map = self.map();
        let mine = map.values().any(|s| s.client == client);
        let open = map.len();
        let reserved = limits.sessions.saturating_sub(limits.reserve);
        if open >= limits.sessions || (open >= reserved && mine) {
            return Some(format!(
                "{open} games against the computer are open, the limit: try again later"
            ));
        }
        None
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.map().get(id).cloned()
    }

    pub(crate) fn remove(&self, id: &str) {
        self.map().remove(id);
    }
}

impl Session {
    pub(crate) fn idle_for(&self) -> Duration {
        self.last_active.idle_for()
    }

    pub(crate) fn touch(&self) {
        self.last_active.touch();
    }

    /// Whether the person has made a move (a session busy with a request
    /// counts as played: it is not taken away under it).
    pub(crate) fn person_moved(&self) -> bool {
        self.play
            .try_lock()
            .map_or(true, |play| play.by.iter().any(Option::is_none))
    }
}
