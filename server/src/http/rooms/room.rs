//! [`Room`]: one room's seats, its game and who is connected, and the
//! state it sends them ([`RoomState`]).

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use solvedb_lookup::Report;
use tokio::sync::{Notify, broadcast};

use super::limits::RoomLimits;
use crate::http::activity::LastActive;
use crate::http::error::ApiError;
use crate::http::names::ANONYMOUS;
use crate::http::referee::{Match, Verdict};
use crate::http::response::{
    Clock, Finished, MatchView, Player, Players, Points, RoomMessage, RoomResult, RoomState,
    seat_name, to_move,
};
use crate::http::secret::{same_secret, secret};
use crate::store::{GameRecord, Seat, Store};

/// States a connection may fall behind by before it is sent the newest
/// one directly (states are whole, so nothing is lost by skipping).
const BACKLOG: usize = 64;

/// Why an idle room closes.
pub(crate) const IDLE: &str = "the room was idle too long";

/// Why a room nobody joined closes.
pub(crate) const UNJOINED: &str = "nobody took the invite in time";

/// One room: its seats, its game and who is connected.
#[derive(Debug)]
pub struct Room {
    pub(crate) id: String,
    pub(crate) tokens: [String; 2],
    /// The friend's invite until claimed.
    pub(crate) invite: Mutex<Option<String>>,
    /// Who made the room ([`client_key`](crate::http::rate::client_key)), for the per-address quota.
    pub(crate) creator: IpAddr,
    pub(crate) hints: bool,
    pub(crate) game: Mutex<GameState>,
    /// Held through a move's whole handling (the rules, the oracle, the
    /// record, the broadcast), so moves are refereed one at a time, in the
    /// order they arrive, each against the values of its own position.
    pub(crate) turn: tokio::sync::Mutex<()>,
    pub(crate) updates: broadcast::Sender<Update>,
    pub(crate) last_active: LastActive,
    pub(crate) connections: AtomicUsize,
    /// Spectators' connections, counted when accepted (before their
    /// upgrade), so that two arriving at once cannot both take the last
    /// place.
    pub(crate) spectating: AtomicUsize,
    /// Tells the room's watcher that its times changed or it closed.
    pub(crate) wake: Notify,
    pub(crate) closed: AtomicBool,
}

/// What connections are told: a new state, that a seat's newest
/// connection is another, or that the room closed.
#[derive(Clone, Debug)]
pub(crate) enum Update {
    State(Arc<Snapshot>),
    SeatTaken { seat: u8, by: u64 },
    Closed(&'static str),
}

/// A state as sent, less what depends on who receives it.
#[derive(Debug)]
pub struct Snapshot {
    common: RoomState,
    values: Option<Json>,
}

/// The game and the people of a room.
#[derive(Debug)]
pub(crate) struct GameState {
    pub(crate) game: Match,
    pub(crate) names: [Option<String>; 2],
    /// Each seat's per-browser identity, as its last connection gave it.
    pub(crate) identities: [Option<String>; 2],
    /// Each seat's client address ([`client_key`](crate::http::rate::client_key)),
    /// as the connection that gave its identity came from.
    pub(crate) addresses: [Option<std::net::IpAddr>; 2],
    pub(crate) online: [usize; 2],
    /// Whether each seat has ever been connected.
    pub(crate) joined: [bool; 2],
    pub(crate) spectators: usize,
    /// The oracle's report of the position now (`None`: unknown within the
    /// budget, or the game is over).
    pub(crate) report: Option<Report>,
    /// Each move's verdict: kept the value, and what it gave away.
    pub(crate) verdicts: Vec<Verdict>,
    /// The finished game's record, once written (a failed write is
    /// retried until it is).
    pub(crate) recorded: crate::http::recording::Outcome,
    /// When the player to move forfeits, while the clock runs.
    pub(crate) clock: Option<Instant>,
    /// The seat that forfeited, if the game ended so.
    pub(crate) forfeited: Option<u8>,
}

impl GameState {
    /// Starts or stops the move clock for the position now: it runs while
    /// the game goes on and both players have joined.
    pub(crate) fn set_clock(&mut self, limits: &RoomLimits) {
        self.clock = match limits.move_clock {
            Some(clock) if self.game.result.is_none() && self.joined == [true, true] => {
                Some(Instant::now() + clock)
            }
            _ => None,
        };
    }
}

impl Room {
    /// A new room for `game`, made by `creator`, with the oracle's
    /// `report` of its start: its id, both seat tokens and the friend's
    /// invite fresh secrets ([`secret`]).
    ///
    /// # Errors
    ///
    /// If the operating system gives no random bytes.
    pub(crate) fn new(
        game: Match,
        creator: IpAddr,
        hints: bool,
        report: Option<Report>,
    ) -> Result<Room, ApiError> {
        let (updates, _) = broadcast::channel(BACKLOG);
        Ok(Room {
            id: secret()?,
            tokens: [secret()?, secret()?],
            invite: Mutex::new(Some(secret()?)),
            creator,
            hints,
            turn: tokio::sync::Mutex::new(()),
            game: Mutex::new(GameState {
                game,
                names: [None, None],
                identities: [None, None],
                addresses: [None, None],
                online: [0, 0],
                joined: [false, false],
                spectators: 0,
                report,
                verdicts: Vec::new(),
                recorded: crate::http::recording::Outcome::default(),
                clock: None,
                forfeited: None,
            }),
            updates,
            last_active: LastActive::now(),
            connections: AtomicUsize::new(0),
            spectating: AtomicUsize::new(0),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
        })
    }

    pub(crate) fn idle_for(&self) -> Duration {
        self.last_active.idle_for()
    }

    pub(crate) fn touch(&self) {
        self.last_active.touch();
        self.wake.notify_one();
    }

    pub(crate) fn invite_open(&self) -> bool {
        self.invite
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// How long this room may stay idle: shorter while nobody took its
    /// invite, shorter still while nobody is connected to it either.
    pub(crate) fn idle_limit(&self, limits: &RoomLimits) -> Duration {
        if !self.invite_open() {
            limits.idle
        } else if self.is_empty() {
            limits.empty.min(limits.unjoined).min(limits.idle)
        } else {
            limits.unjoined.min(limits.idle)
        }
    }

    /// Whether nobody is connected (or accepted and upgrading).
    pub(crate) fn is_empty(&self) -> bool {
        self.connections.load(Ordering::SeqCst) == 0
    }

    /// Whether the room may make way for a new one when the rooms are
    /// short: nobody is connected, and its game is over or nothing
    /// happened in it for [`RoomLimits::empty`].
    pub(crate) fn reclaimable(&self, limits: &RoomLimits) -> bool {
        self.is_empty() && (self.state().game.result.is_some() || self.idle_for() >= limits.empty)
    }

    /// Why the room should close now, if it should.
    pub(crate) fn expired(&self, limits: &RoomLimits) -> Option<&'static str> {
        let limit = self.idle_limit(limits);
        (self.idle_for() >= limit).then_some(if self.invite_open() { UNJOINED } else { IDLE })
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, GameState> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the room's finished game in `store`; a record the database
    /// refused is retried until written (`http::recording`), and the room's
    /// state goes out again then, so that the players see it recorded.
    pub(crate) async fn record_finished(self: &Arc<Self>, store: &Arc<Store>) {
        let (record, outcome) = {
            let st = self.state();
            (st.record(), st.recorded.clone())
        };
        let room = Arc::clone(self);
        crate::http::recording::record(store, record, &outcome, move || {
            room.broadcast(&room.state());
        })
        .await;
    }

    pub(crate) fn close(&self, why: &'static str) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake.notify_one();
        let _ = self.updates.send(Update::Closed(why));
    }

    pub(crate) fn seat_of(&self, token: &str) -> Option<u8> {
        // Both compared, whichever matches, so the time says nothing either.
        let matches = [
            same_secret(&self.tokens[0], token),
            same_secret(&self.tokens[1], token),
        ];
        matches.iter().position(|&m| m).map(|s| s as u8)
    }

    /// The state everyone is sent ([`RoomState`]); each receiver adds its
    /// seat and, where allowed, the oracle's values of the position
    /// ([`Report::to_json`]).
    pub(crate) fn snapshot(&self, st: &GameState) -> Arc<Snapshot> {
        let m = &st.game;
        let player = |s: usize| Player {
            name: st.names[s].as_deref().unwrap_or(ANONYMOUS).to_owned(),
            online: st.online[s] > 0,
        };
        let common = RoomState {
            kind: "state",
            room: self.id.clone(),
            game: MatchView::of(m),
            to_move: to_move(m),
            result: m.result.map(|winner| RoomResult {
                winner: winner.map(seat_name),
                forfeit: st.forfeited.map(seat_name),
            }),
            clock: st.clock.map(|at| Clock {
                seat: seat_name(m.to_move),
                ms: at.saturating_duration_since(Instant::now()).as_millis() as u64,
            }),
            points: Points::of(m),
            players: Players {
                first: player(0),
                second: player(1),
            },
            spectators: st.spectators,
            hints: self.hints,
            finished: Finished::of(m, &st.verdicts, st.recorded.get()),
        };
        Arc::new(Snapshot {
            common,
            values: st.report.as_ref().map(Report::to_json),
        })
    }

    pub(crate) fn broadcast(&self, st: &GameState) {
        // No receivers is fine: nobody to tell.
        let _ = self.updates.send(Update::State(self.snapshot(st)));
    }
}

impl Snapshot {
    /// The message for one receiver.
    pub(crate) fn message_for(&self, seat: Option<u8>, hints: bool) -> String {
        let message = RoomMessage {
            state: &self.common,
            you: seat.map_or("spectator", seat_name),
            values: (seat.is_none() || hints).then_some(self.values.as_ref()),
        };
        serde_json::to_string(&message).unwrap_or_default()
    }
}

impl GameState {
    /// The leaderboard's record of the room's finished game.
    pub(crate) fn record(&self) -> GameRecord {
        let players = [0, 1].map(|s| Seat::Person {
            identity: self.identities[s].clone(),
            name: self.names[s].clone().unwrap_or_default(),
        });
        let mut record = self.game.record("room", players, &self.verdicts);
        record.addresses = self.addresses;
        record
    }
}
