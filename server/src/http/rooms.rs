//! Rooms: two people play one game through the server, which referees
//! every move by the game's own rules ([`Match`]) and broadcasts the state
//! to everyone in the room.
//!
//! - `POST /api/v1/rooms` with `{"game": G, "position": optional start,
//!   "hints": optional bool}` → `{"room", "seat": "first", "token",
//!   "seats": {"first"}, "invite", "url", "links": {"first", "second"}}`:
//!   the room's id and the creator's seat token, 128 bits each from the
//!   operating system's CSPRNG, in hex, and the friend's one-time invite
//!   link (`links.second` = `invite` = `/play?room=ID&invite=CODE`).
//! - `POST /api/v1/rooms/ID/claim` with `{"invite": CODE}` →
//!   `{"room", "seat": "second", "token", "link"}` once; the same invite
//!   again is refused. (A POST from the page, not the link itself: link
//!   previews fetch links, and would take the seat.)
//! - `GET /api/v1/rooms/ID/ws?token=T&name=N&player=P` (a WebSocket; no
//!   token: a spectator; `player`: the browser's identity, which the
//!   leaderboard counts the seat's game for). The client sends `{"type": "move", "move": M}`; everyone
//!   gets `{"type": "state", ...}` (see `Room::snapshot`); a refused
//!   message gets `{"type": "error", "kind", "error"}` to its sender only,
//!   and the game goes on. A reconnect with a seat's token resumes it; the
//!   seat's older connection is closed (1001).
//! - The oracle's values of the position are sent to spectators, and to
//!   the players only in a room created with `"hints": true`. After the
//!   game, everyone gets each move's verdict against perfect play, and the
//!   game goes into the leaderboard ([`store`](crate::store)).
//!
//! Bounded ([`RoomLimits`]): rooms in all and per creating address, room
//! creations per address, connections per room (one kept for each seat),
//! WebSockets in all, a frame's and a message's size (a longer frame is
//! answered with Close 1009), each connection's message rate; a room idle
//! for [`RoomLimits::idle`] closes, one whose invite nobody claimed after
//! [`RoomLimits::unjoined`]; once both players joined, the player to move
//! who lets [`RoomLimits::move_clock`] pass forfeits and the game is
//! recorded.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{Extensions, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde_json::{Map, Value as Json, json};
use solvedb_lookup::{Error, ErrorKind, GameId, Report, Want};
use tokio::sync::{Notify, broadcast};

use super::api::{Params, ask};
use super::rate::{Bucket, Buckets, client_key};
use super::referee::{Match, SEATS, judge};
use super::transport::Ticket;
use super::{ApiError, AppState, LastActive, MAX_BODY_BYTES};
use crate::store::{GameRecord, Seat, is_reserved_name, is_valid_identity};

/// The bounds on rooms.
#[derive(Copy, Clone, Debug)]
pub struct RoomLimits {
    /// Rooms open at once.
    pub rooms: usize,
    /// Rooms open at once that one client address (an IPv6 /64) created.
    pub per_address: usize,
    /// Rooms one address may create in a burst.
    pub create_burst: u32,
    /// Rooms one address may create per second, on average.
    pub creates_per_second: f64,
    /// WebSocket connections to one room at once (players and spectators);
    /// one is kept for each seat, so spectators get two fewer.
    pub connections: usize,
    /// WebSocket connections to all rooms at once.
    pub websockets: usize,
    /// A room with no move and no new connection for this long is closed.
    pub idle: Duration,
    /// A room whose invite nobody claimed is closed after this long
    /// without a move or a new connection.
    pub unjoined: Duration,
    /// Once both players have joined, the time the player to move has for
    /// a move before they forfeit (`None`: no clock). It never runs before
    /// the friend joins or after the game.
    pub move_clock: Option<Duration>,
    /// The largest message answered; a longer one is refused with an error.
    pub message_bytes: usize,
    /// The largest frame or message read at all; a longer one closes that
    /// connection with Close 1009 (the protocol's limit, not the room's).
    pub frame_bytes: usize,
    /// Messages a connection may send in a burst.
    pub burst: u32,
    /// Messages per second a connection may send on average.
    pub per_second: f64,
}

impl Default for RoomLimits {
    fn default() -> RoomLimits {
        RoomLimits {
            rooms: 1000,
            per_address: 20,
            create_burst: 10,
            creates_per_second: 0.1,
            connections: 16,
            websockets: 2048,
            idle: Duration::from_secs(30 * 60),
            unjoined: Duration::from_secs(5 * 60),
            move_clock: Some(Duration::from_secs(5 * 60)),
            message_bytes: 1024,
            frame_bytes: 16 * 1024,
            burst: 20,
            per_second: 10.0,
        }
    }
}

/// The longest name kept, in characters; longer names are cut.
pub const MAX_NAME_CHARS: usize = 40;

/// The name of a player who gave none.
pub const ANONYMOUS: &str = crate::store::ANONYMOUS;

/// States a connection may fall behind by before it is sent the newest
/// one directly (states are whole, so nothing is lost by skipping).
const BACKLOG: usize = 64;

/// A WebSocket's read buffer: frames are small (a move is tens of bytes),
/// and the library's default of 128 KiB per connection was most of a
/// WebSocket's memory.
const READ_BUFFER_BYTES: usize = 4096;

/// The most a WebSocket's unsent states may take before it is closed (a
/// client that stopped reading).
const MAX_WRITE_BUFFER_BYTES: usize = 256 * 1024;

/// Every open room.
#[derive(Debug)]
pub struct Rooms {
    open: Mutex<HashMap<String, Arc<Room>>>,
    /// The bounds.
    pub limits: RoomLimits,
    /// Room creations per address.
    creations: Buckets,
    /// Set by [`close_all`](Rooms::close_all): no room is made or joined
    /// any more.
    closing: AtomicBool,
    /// WebSocket connections running (or accepted and upgrading), in every
    /// room.
    live: AtomicUsize,
    /// Each connection's number, to tell a seat's newest from its older.
    connection_ids: AtomicU64,
}

/// Why every room closes when the server stops.
const SHUTTING_DOWN: &str = "the server is shutting down";

/// Why a seat's older connection closes.
const SEAT_TAKEN: &str = "this seat was opened in another window";

/// A hex string of 128 bits from the operating system's CSPRNG.
///
/// # Errors
///
/// If the operating system gives no random bytes.
pub fn secret() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ApiError {
        kind: ErrorKind::Io,
        message: format!("no random bytes from the operating system: {e}"),
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal strings, compared in time that depends only on their lengths, so
/// a token cannot be guessed byte by byte from the answer's timing.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn refused(message: String) -> ApiError {
    ApiError {
        kind: ErrorKind::Budget,
        message,
    }
}

impl Rooms {
    /// No rooms yet.
    pub fn new(limits: RoomLimits) -> Rooms {
        Rooms {
            open: Mutex::new(HashMap::new()),
            limits,
            creations: Buckets::new(limits.create_burst, limits.creates_per_second),
            closing: AtomicBool::new(false),
            live: AtomicUsize::new(0),
            connection_ids: AtomicU64::new(1),
        }
    }

    /// Closes every room for a server that stops: each connection is sent
    /// a Close frame (1001, "the server is shutting down") and ends, and
    /// rooms are neither made nor joined any more.
    pub fn close_all(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let rooms: Vec<Arc<Room>> = self.map().drain().map(|(_, room)| room).collect();
        for room in rooms {
            room.close(SHUTTING_DOWN);
        }
    }

    /// Waits until every connection has ended, at most `bound`; returns
    /// how many are still open then.
    pub async fn drained(&self, bound: Duration) -> usize {
        let deadline = Instant::now() + bound;
        loop {
            let live = self.live.load(Ordering::SeqCst);
            if live == 0 || Instant::now() >= deadline {
                return live;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// WebSocket connections open now, in every room.
    pub fn websockets(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }

    fn refuse_if_closing(&self) -> Result<(), ApiError> {
        if self.closing.load(Ordering::SeqCst) {
            return Err(refused(SHUTTING_DOWN.into()));
        }
        Ok(())
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Room>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Rooms open now.
    pub fn count(&self) -> usize {
        self.map().len()
    }

    fn get(&self, id: &str) -> Option<Arc<Room>> {
        self.map().get(id).cloned()
    }

    /// Closes the rooms that have expired.
    fn sweep(&self) {
        let expired: Vec<Arc<Room>> = {
            let mut map = self.map();
            let ids: Vec<String> = map
                .iter()
                .filter(|(_, room)| room.expired(&self.limits).is_some())
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for room in expired {
            let why = room.expired(&self.limits).unwrap_or(IDLE);
            room.close(why);
        }
    }

    /// Closes `room` if it has expired; whether it did.
    fn expire(&self, room: &Room) -> bool {
        let Some(why) = room.expired(&self.limits) else {
            return false;
        };
        self.map().remove(&room.id);
        room.close(why);
        true
    }

    /// Whether `client` may create a room now: its rate and its quota of
    /// open rooms (checked again, with the global limit, on insert).
    fn may_create(&self, client: IpAddr) -> Result<(), ApiError> {
        self.refuse_if_closing()?;
        let mine = self.map().values().filter(|r| r.creator == client).count();
        if mine >= self.limits.per_address {
            return Err(refused(format!(
                "your address has {mine} rooms open, the most one address may: finish or leave one"
            )));
        }
        if !self.creations.take(client) {
            return Err(refused(format!(
                "your address created {} rooms in a short time, the most it may: try again later",
                self.limits.create_burst
            )));
        }
        Ok(())
    }

    fn insert(&self, room: Arc<Room>) -> Result<(), ApiError> {
        self.refuse_if_closing()?;
        self.sweep();
        let mut map = self.map();
        if map.len() >= self.limits.rooms {
            // Finished games nobody is looking at any more make way: a
            // finished room otherwise stays open (for its review) until
            // idle.
            map.retain(|_, open| {
                let gone = open.state().game.result.is_some()
                    && open.connections.load(Ordering::SeqCst) == 0;
                if gone {
                    open.close(IDLE);
                }
                !gone
            });
        }
        if map.len() >= self.limits.rooms {
            return Err(refused(format!(
                "{} rooms are open, the limit: try again later",
                map.len()
            )));
        }
        let mine = map.values().filter(|r| r.creator == room.creator).count();
        if mine >= self.limits.per_address {
            return Err(refused(format!(
                "your address has {mine} rooms open, the most one address may"
            )));
        }
        map.insert(room.id.clone(), room);
        Ok(())
    }
}

/// Why an idle room closes.
const IDLE: &str = "the room was idle too long";

/// Why a room nobody joined closes.
const UNJOINED: &str = "nobody took the invite in time";

/// One room: its seats, its game and who is connected.
#[derive(Debug)]
pub struct Room {
    id: String,
    tokens: [String; 2],
    /// The friend's invite until claimed.
    invite: Mutex<Option<String>>,
    /// Who made the room ([`client_key`]), for the per-address quota.
    creator: IpAddr,
    hints: bool,
    game: Mutex<GameState>,
    /// Held through a move's whole handling (the rules, the oracle, the
    /// record, the broadcast), so moves are refereed one at a time, in the
    /// order they arrive, each against the values of its own position.
    turn: tokio::sync::Mutex<()>,
    updates: broadcast::Sender<Update>,
    last_active: LastActive,
    connections: AtomicUsize,
    /// Spectators' connections, counted when accepted (before their
    /// upgrade), so that two arriving at once cannot both take the last
    /// place.
    spectating: AtomicUsize,
    /// Tells the room's watcher that its times changed or it closed.
    wake: Notify,
    closed: AtomicBool,
}

/// What connections are told: a new state, that a seat's newest
/// connection is another, or that the room closed.
#[derive(Clone, Debug)]
enum Update {
    State(Arc<Snapshot>),
    SeatTaken { seat: u8, by: u64 },
    Closed(&'static str),
}

/// A state as sent, less what depends on who receives it.
#[derive(Debug)]
pub struct Snapshot {
    common: Map<String, Json>,
    values: Option<Json>,
}

/// The game and the people of a room.
#[derive(Debug)]
struct GameState {
    game: Match,
    names: [Option<String>; 2],
    /// Each seat's per-browser identity, as its last connection gave it.
    identities: [Option<String>; 2],
    online: [usize; 2],
    /// Whether each seat has ever been connected.
    joined: [bool; 2],
    spectators: usize,
    /// The oracle's report of the position now (`None`: unknown within the
    /// budget, or the game is over).
    report: Option<Report>,
    /// Each move's verdict: kept the value, and what it gave away.
    verdicts: Vec<(Option<bool>, Option<i64>)>,
    /// The leaderboard's id of the finished game.
    recorded: Option<i64>,
    /// When the player to move forfeits, while the clock runs.
    clock: Option<Instant>,
    /// The seat that forfeited, if the game ended so.
    forfeited: Option<u8>,
}

impl GameState {
    /// Starts or stops the move clock for the position now: it runs while
    /// the game goes on and both players have joined.
    fn set_clock(&mut self, limits: &RoomLimits) {
        self.clock = match limits.move_clock {
            Some(clock) if self.game.result.is_none() && self.joined == [true, true] => {
                Some(Instant::now() + clock)
            }
            _ => None,
        };
    }
}

impl Room {
    fn idle_for(&self) -> Duration {
        self.last_active.idle_for()
    }

    fn touch(&self) {
        self.last_active.touch();
        self.wake.notify_one();
    }

    fn invite_open(&self) -> bool {
        self.invite
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// How long this room may stay idle: shorter while nobody took its
    /// invite.
    fn idle_limit(&self, limits: &RoomLimits) -> Duration {
        if self.invite_open() {
            limits.unjoined.min(limits.idle)
        } else {
            limits.idle
        }
    }

    /// Why the room should close now, if it should.
    fn expired(&self, limits: &RoomLimits) -> Option<&'static str> {
        let limit = self.idle_limit(limits);
        (self.idle_for() >= limit).then_some(if self.invite_open() { UNJOINED } else { IDLE })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, GameState> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn close(&self, why: &'static str) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake.notify_one();
        let _ = self.updates.send(Update::Closed(why));
    }

    fn seat_of(&self, token: &str) -> Option<u8> {
        // Both compared, whichever matches, so the time says nothing either.
        let matches = [
            same_secret(&self.tokens[0], token),
            same_secret(&self.tokens[1], token),
        ];
        matches.iter().position(|&m| m).map(|s| s as u8)
    }

    /// The state everyone is sent: `{"type": "state", "room", "game",
    /// "start", "position", "history", "to_move" (a seat; null once
    /// over), "result" (null until the end, then `{"winner": seat or
    /// null}`, with `"forfeit": seat` if the game ended on the clock),
    /// "clock" (null, or `{"seat", "ms"}`: the player to move and the
    /// milliseconds left), "points", "players" (`{"first": {"name",
    /// "online"}, ...}`), "spectators", "hints"}`; after the game also
    /// "verdicts" (each move's `{"move", "seat", "kept", "cost"}`) and
    /// "recorded". Each receiver adds "you" (its seat or "spectator") and,
    /// where allowed, "values" (the oracle's [`Report::to_json`] of the
    /// position).
    fn snapshot(&self, st: &GameState) -> Arc<Snapshot> {
        let m = &st.game;
        let seat = |s: u8| json!(SEATS[usize::from(s)]);
        let mut common = Map::new();
        common.insert("type".into(), json!("state"));
        common.insert("room".into(), json!(self.id));
        common.insert("game".into(), json!(m.game.to_string()));
        common.insert("start".into(), json!(m.start));
        common.insert("position".into(), json!(m.position));
        common.insert("history".into(), json!(m.history));
        let over = m.result.is_some();
        common.insert(
            "to_move".into(),
            if over { Json::Null } else { seat(m.to_move) },
        );
        common.insert(
            "result".into(),
            match m.result {
                None => Json::Null,
                Some(winner) => {
                    let mut result = json!({"winner": winner.map(seat)});
                    if let Some(loser) = st.forfeited {
                        result["forfeit"] = seat(loser);
                    }
                    result
                }
            },
        );
        common.insert(
            "clock".into(),
            match st.clock {
                Some(at) => json!({
                    "seat": seat(m.to_move),
                    "ms": at.saturating_duration_since(Instant::now()).as_millis() as u64,
                }),
                None => Json::Null,
            },
        );
        common.insert(
            "points".into(),
            json!({"first": m.points[0], "second": m.points[1]}),
        );
        let player = |s: usize| {
            json!({
                "name": st.names[s].as_deref().unwrap_or(ANONYMOUS),
                "online": st.online[s] > 0,
            })
        };
        common.insert(
            "players".into(),
            json!({"first": player(0), "second": player(1)}),
        );
        common.insert("spectators".into(), json!(st.spectators));
        common.insert("hints".into(), json!(self.hints));
        if over {
            let verdicts: Vec<Json> = st
                .verdicts
                .iter()
                .zip(&m.history)
                .zip(&m.movers)
                .map(|(((kept, cost), mv), &s)| {
                    json!({"move": mv, "seat": seat(s), "kept": kept, "cost": cost})
                })
                .collect();
            common.insert("verdicts".into(), Json::Array(verdicts));
            common.insert("recorded".into(), json!(st.recorded.is_some()));
        }
        Arc::new(Snapshot {
            common,
            values: st.report.as_ref().map(Report::to_json),
        })
    }

    fn broadcast(&self, st: &GameState) {
        // No receivers is fine: nobody to tell.
        let _ = self.updates.send(Update::State(self.snapshot(st)));
    }
}

impl Snapshot {
    /// The message for one receiver.
    fn message_for(&self, seat: Option<u8>, hints: bool) -> String {
        let mut object = self.common.clone();
        object.insert(
            "you".into(),
            json!(seat.map_or("spectator", |s| SEATS[usize::from(s)])),
        );
        if seat.is_none() || hints {
            object.insert("values".into(), self.values.clone().unwrap_or(Json::Null));
        }
        Json::Object(object).to_string()
    }
}

/// The rooms' routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/rooms", post(create))
        .route("/api/v1/rooms/{id}/claim", post(claim))
        .route("/api/v1/rooms/{id}/ws", get(connect))
}

/// The oracle's report of `position`, or `None` where it is unknown within
/// the budget (or the oracle fails: the game goes on without values).
async fn report_of(state: &AppState, game: GameId, position: &str) -> Option<Report> {
    let position = position.to_owned();
    ask(state, game, move |oracle, stop| {
        oracle.answer_within(game, &position, Want::Moves, stop)
    })
    .await
    .ok()
}

/// Reads a JSON object body with only the `known` fields.
pub(super) fn json_body(
    body: Result<Bytes, BytesRejection>,
    known: &[&str],
) -> Result<Map<String, Json>, ApiError> {
    let body = body.map_err(|e| {
        ApiError::request(format!(
            "the body could not be read ({}): at most {MAX_BODY_BYTES} bytes",
            e.body_text()
        ))
    })?;
    let value: Json = serde_json::from_slice(&body)
        .map_err(|e| ApiError::request(format!("the body is not JSON: {e}")))?;
    let Json::Object(object) = value else {
        return Err(ApiError::request("the body must be a JSON object"));
    };
    if let Some(name) = object.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(ApiError::request(format!(
            "unknown field {name:?}: expected {}",
            known.join(", ")
        )));
    }
    Ok(object)
}

/// A string field, if present.
pub(super) fn string_field<'a>(
    object: &'a Map<String, Json>,
    name: &str,
) -> Result<Option<&'a str>, ApiError> {
    match object.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        Some(other) => Err(ApiError::request(format!(
            "field {name:?} must be a string, not {other}"
        ))),
    }
}

/// The game a request names: one of the explorer's games (the page can
/// draw nothing else), else an error of kind `unsupported`.
pub(super) fn game_field(object: &Map<String, Json>) -> Result<GameId, ApiError> {
    let name =
        string_field(object, "game")?.ok_or_else(|| ApiError::request("missing field \"game\""))?;
    let game = name.parse::<GameId>().map_err(Error::from)?;
    if !super::api::explorer_games().any(|offered| offered.id == game) {
        return Err(ApiError {
            kind: ErrorKind::Unsupported,
            message: format!("{game} is not one of the games played here (GET /api/v1/games)"),
        });
    }
    Ok(game)
}

/// The client a request came from ([`client_key`]), as the transport put
/// it in the request.
fn client(extensions: &Extensions) -> IpAddr {
    let ip = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    client_key(ip)
}

async fn create(
    State(state): State<AppState>,
    extensions: Extensions,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let made = async {
        let object = json_body(body, &["game", "position", "hints"])?;
        let game = game_field(&object)?;
        let start = string_field(&object, "position")?;
        let hints = match object.get("hints") {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(other) => {
                return Err(ApiError::request(format!(
                    "field \"hints\" must be true or false, not {other}"
                )));
            }
        };
        let game = Match::new(game, start)?;
        let creator = client(&extensions);
        state.rooms.may_create(creator)?;
        let report = report_of(&state, game.game, &game.position).await;
        let (updates, _) = broadcast::channel(BACKLOG);
        let room = Arc::new(Room {
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
                online: [0, 0],
                joined: [false, false],
                spectators: 0,
                report,
                verdicts: Vec::new(),
                recorded: None,
                clock: None,
                forfeited: None,
            }),
            updates,
            last_active: LastActive::now(),
            connections: AtomicUsize::new(0),
            spectating: AtomicUsize::new(0),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
        });
        let id = room.id.clone();
        let token = room.tokens[0].clone();
        let invite = room
            .invite
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default();
        state.rooms.insert(Arc::clone(&room))?;
        tokio::spawn(watch(state.clone(), room));
        let invite = format!("/play?room={id}&invite={invite}");
        Ok::<_, ApiError>(json!({
            "room": id,
            "seat": SEATS[0],
            "token": token,
            "seats": {"first": token},
            "invite": invite,
            "url": format!("/play?room={id}"),
            "links": {"first": format!("/play?room={id}&token={token}"), "second": invite},
        }))
    }
    .await;
    match made {
        Ok(json) => (StatusCode::CREATED, axum::Json(json)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The friend takes the second seat with the invite, once.
async fn claim(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let claimed = (|| {
        let object = json_body(body, &["invite"])?;
        let code = string_field(&object, "invite")?
            .ok_or_else(|| ApiError::request("missing field \"invite\""))?;
        let room = state
            .rooms
            .get(&id)
            .ok_or_else(|| ApiError::request(format!("no open room {id:?}")))?;
        let mut invite = room.invite.lock().unwrap_or_else(|e| e.into_inner());
        match invite.as_deref() {
            Some(open) if same_secret(open, code) => {}
            Some(_) => return Err(ApiError::request("that is not this room's invite")),
            None => {
                return Err(ApiError::request(
                    "this room's invite was already used: ask for the second seat's link",
                ));
            }
        }
        *invite = None;
        drop(invite);
        room.touch();
        let token = room.tokens[1].clone();
        Ok::<_, ApiError>(json!({
            "room": id,
            "seat": SEATS[1],
            "token": token,
            "link": format!("/play?room={id}&token={token}"),
        }))
    })();
    match claimed {
        Ok(json) => axum::Json(json).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The room's timers, until it closes: its expiry (idle, or nobody took
/// the invite) and the move clock.
async fn watch(state: AppState, room: Arc<Room>) {
    let limits = state.rooms.limits;
    loop {
        if room.closed.load(Ordering::SeqCst) {
            return;
        }
        let expires = room.idle_limit(&limits).saturating_sub(room.idle_for());
        let clock = room
            .state()
            .clock
            .map(|at| at.saturating_duration_since(Instant::now()));
        let next = clock.map_or(expires, |c| c.min(expires));
        tokio::select! {
            () = tokio::time::sleep(next) => {}
            () = room.wake.notified() => continue,
        }
        if state.rooms.expire(&room) {
            return;
        }
        let due = room.state().clock.is_some_and(|at| at <= Instant::now());
        if due {
            forfeit(&state, &room).await;
        }
    }
}

/// The player to move let the clock pass: they lose, and the game is
/// recorded.
async fn forfeit(state: &AppState, room: &Room) {
    let _turn = room.turn.lock().await;
    let record = {
        let mut st = room.state();
        match st.clock {
            Some(at) if at <= Instant::now() && st.game.result.is_none() => {}
            _ => return,
        }
        let loser = st.game.to_move;
        st.game.result = Some(Some(1 - loser));
        st.forfeited = Some(loser);
        st.clock = None;
        st.report = None;
        record_of(&st)
    };
    let store = state.store.clone();
    let recorded = match tokio::task::spawn_blocking(move || store.record(&record)).await {
        Ok(Ok(id)) => Some(id),
        _ => None,
    };
    room.touch();
    let mut st = room.state();
    st.recorded = recorded;
    room.broadcast(&st);
}

/// A WebSocket counted in its room and among all the server's, until it
/// is dropped (its connection ended, or its upgrade failed).
struct Counted {
    rooms: Arc<Rooms>,
    room: Arc<Room>,
    /// Whether it is counted among the room's spectators too.
    spectator: bool,
    /// The connection it came on, counted against its address.
    _ticket: Option<Arc<Ticket>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.room.connections.fetch_sub(1, Ordering::SeqCst);
        if self.spectator {
            self.room.spectating.fetch_sub(1, Ordering::SeqCst);
        }
        self.rooms.live.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn connect(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ticket: Option<Extension<Arc<Ticket>>>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let accepted = (|| {
        let params = Params::read(&uri, query, &["token", "name", "player"])?;
        state.rooms.refuse_if_closing()?;
        let upgrade = upgrade.map_err(|e| {
            ApiError::request(format!("not a WebSocket request: {}", e.body_text()))
        })?;
        let room = state
            .rooms
            .get(&id)
            .ok_or_else(|| ApiError::request(format!("no open room {id:?}")))?;
        let seat = match params.get("token") {
            None => None,
            Some(token) => Some(
                room.seat_of(token)
                    .ok_or_else(|| ApiError::request("that token holds no seat of this room"))?,
            ),
        };
        let name = params
            .get("name")
            .map(|n| n.trim().chars().take(MAX_NAME_CHARS).collect::<String>())
            .filter(|n| !n.is_empty() && !is_reserved_name(n));
        let identity = params
            .get("player")
            .filter(|p| is_valid_identity(p))
            .map(str::to_owned);
        let limits = state.rooms.limits;
        // Counted first, checked after: two connections at once cannot
        // both take the last place.
        room.connections.fetch_add(1, Ordering::SeqCst);
        state.rooms.live.fetch_add(1, Ordering::SeqCst);
        let mut counted = Counted {
            rooms: Arc::clone(&state.rooms),
            room: Arc::clone(&room),
            spectator: false,
            _ticket: ticket.map(|Extension(t)| t),
        };
        if state.rooms.live.load(Ordering::SeqCst) > limits.websockets {
            return Err(refused(format!(
                "the server has {} WebSockets open, the limit: try again later",
                limits.websockets
            )));
        }
        // A seat always gets in (its older connection closes); spectators
        // leave one place for each seat.
        if seat.is_none() {
            // Counted first, checked after, as above.
            let spectators = room.spectating.fetch_add(1, Ordering::SeqCst);
            counted.spectator = true;
            let places = limits.connections.saturating_sub(SEATS.len());
            if spectators >= places {
                return Err(refused(format!(
                    "the room has {places} spectators, the most it takes beside its two players"
                )));
            }
        }
        Ok((upgrade, room, seat, (name, identity), counted))
    })();
    match accepted {
        Err(e) => e.into_response(),
        Ok((upgrade, room, seat, who, counted)) => {
            let frame = state.rooms.limits.frame_bytes;
            upgrade
                .max_message_size(frame)
                .max_frame_size(frame)
                .read_buffer_size(READ_BUFFER_BYTES)
                .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
                .on_upgrade(move |socket| async move {
                    connection(socket, state, room, seat, who).await;
                    drop(counted);
                })
        }
    }
}

fn error_message(e: &ApiError) -> Message {
    Message::text(json!({"type": "error", "kind": e.kind.as_str(), "error": e.message}).to_string())
}

/// Whether a read error is a frame or message over the size limit.
fn too_big(e: axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error as WsError;
    e.into_inner()
        .downcast_ref::<WsError>()
        .is_some_and(|e| matches!(e, WsError::Capacity(_)))
}

/// One connection, from its upgrade to its end.
async fn connection(
    mut socket: WebSocket,
    state: AppState,
    room: Arc<Room>,
    seat: Option<u8>,
    (name, identity): (Option<String>, Option<String>),
) {
    let limits = state.rooms.limits;
    let me = state.rooms.connection_ids.fetch_add(1, Ordering::SeqCst);
    let mut updates = room.updates.subscribe();
    // A connection that subscribed after `close_all` sent its Close to the
    // room's subscribers sees the flag it set first.
    if state.rooms.closing.load(Ordering::SeqCst) {
        let _ = socket
            .send(Message::Close(Some(CloseFrame {
                code: 1001,
                reason: SHUTTING_DOWN.into(),
            })))
            .await;
        return;
    }
    {
        let mut st = room.state();
        match seat {
            Some(s) => {
                st.online[usize::from(s)] += 1;
                if name.is_some() {
                    st.names[usize::from(s)] = name;
                }
                if identity.is_some() {
                    st.identities[usize::from(s)] = identity;
                }
                if !st.joined[usize::from(s)] {
                    st.joined[usize::from(s)] = true;
                    st.set_clock(&limits);
                }
                // This seat's older connections give way.
                let _ = room.updates.send(Update::SeatTaken { seat: s, by: me });
            }
            None => st.spectators += 1,
        }
        room.touch();
        room.broadcast(&st);
    }
    let mut bucket = Bucket::new(limits.burst, limits.per_second);
    loop {
        let reply = tokio::select! {
            frame = socket.recv() => match frame {
                None | Some(Ok(Message::Close(_))) => break,
                Some(Err(e)) => {
                    if too_big(e) {
                        let _ = socket
                            .send(Message::Close(Some(CloseFrame {
                                code: 1009,
                                reason: format!("a frame or message longer than {} bytes", limits.frame_bytes).into(),
                            })))
                            .await;
                    }
                    break;
                }
                Some(Ok(Message::Text(text))) => {
                    if !bucket.take() {
                        Some(ApiError {
                            kind: ErrorKind::Budget,
                            message: format!(
                                "more than {} messages a second: this one was dropped",
                                limits.per_second
                            ),
                        })
                    } else if text.len() > limits.message_bytes {
                        Some(ApiError::request(format!(
                            "a message of {} bytes is longer than the limit of {}",
                            text.len(),
                            limits.message_bytes
                        )))
                    } else {
                        handle(&state, &room, seat, text.as_str()).await.err()
                    }
                }
                Some(Ok(Message::Binary(_))) => Some(ApiError::request("only text messages (JSON) are read")),
                Some(Ok(_)) => None, // ping and pong: answered by the library
            },
            update = updates.recv() => {
                let update = match update {
                    Ok(update) => update,
                    // Fell behind: the newest state says everything.
                    Err(broadcast::error::RecvError::Lagged(_)) => Update::State(room.snapshot(&room.state())),
                    Err(broadcast::error::RecvError::Closed) => Update::Closed("the room closed"),
                };
                match update {
                    Update::State(snapshot) => {
                        let text = snapshot.message_for(seat, room.hints);
                        if socket.send(Message::text(text)).await.is_err() {
                            break;
                        }
                        None
                    }
                    Update::SeatTaken { seat: taken, by } if Some(taken) == seat && by != me => {
                        let _ = socket
                            .send(Message::Close(Some(CloseFrame { code: 1001, reason: SEAT_TAKEN.into() })))
                            .await;
                        break;
                    }
                    Update::SeatTaken { .. } => None,
                    Update::Closed(why) => {
                        let _ = socket
                            .send(Message::Close(Some(CloseFrame { code: 1001, reason: why.into() })))
                            .await;
                        break;
                    }
                }
            }
        };
        if let Some(e) = reply
            && socket.send(error_message(&e)).await.is_err()
        {
            break;
        }
    }
    let mut st = room.state();
    match seat {
        Some(s) => st.online[usize::from(s)] -= 1,
        None => st.spectators -= 1,
    }
    room.broadcast(&st);
}

/// Handles one message from a connection: only `{"type": "move", "move": M}`.
async fn handle(
    state: &AppState,
    room: &Room,
    seat: Option<u8>,
    text: &str,
) -> Result<(), ApiError> {
    let object = serde_json::from_str::<Json>(text)
        .map_err(|e| ApiError::request(format!("the message is not JSON: {e}")))
        .and_then(|value| match value {
            Json::Object(object) => Ok(object),
            _ => Err(ApiError::request("the message must be a JSON object")),
        })?;
    match object.get("type").and_then(Json::as_str) {
        Some("move") => {}
        Some(other) => {
            return Err(ApiError::request(format!(
                "unknown message type {other:?}: expected \"move\""
            )));
        }
        None => return Err(ApiError::request("the message has no \"type\"")),
    }
    if let Some(extra) = object.keys().find(|k| *k != "type" && *k != "move") {
        return Err(ApiError::request(format!(
            "unknown field {extra:?} in a move"
        )));
    }
    let mv = object.get("move").and_then(Json::as_str).ok_or_else(|| {
        ApiError::request("a move needs \"move\": the move in the game's notation")
    })?;
    let Some(seat) = seat else {
        return Err(ApiError::request("spectators cannot move"));
    };
    let _turn = room.turn.lock().await;
    // The referee: seat, turn and the game's rules.
    let (game, position, over) = {
        let mut st = room.state();
        if st.game.result.is_none() && st.game.to_move != seat {
            return Err(ApiError::request(format!(
                "not your turn: {} is to move",
                SEATS[usize::from(st.game.to_move)]
            )));
        }
        st.game.play(mv)?;
        let before = st.report.take();
        let played = st.game.history.last().cloned().unwrap_or_default();
        let verdict = judge(before.as_ref(), &played);
        st.verdicts.push(verdict);
        st.set_clock(&state.rooms.limits);
        room.touch();
        (
            st.game.game,
            st.game.position.clone(),
            st.game.result.is_some(),
        )
    };
    // The oracle's values of the new position (or the record of the
    // finished game), then the state to everyone. Without a table the
    // values are a live search of up to seconds: the move goes out first,
    // its values after.
    if !over && !state.tabled.answers_in_place(&game) {
        room.broadcast(&room.state());
    }
    let report = if over {
        None
    } else {
        report_of(state, game, &position).await
    };
    let record = if over {
        Some(record_of(&room.state()))
    } else {
        None
    };
    let recorded = match record {
        Some(record) => {
            let store = state.store.clone();
            match tokio::task::spawn_blocking(move || store.record(&record)).await {
                Ok(Ok(id)) => Some(id),
                _ => None,
            }
        }
        None => None,
    };
    let mut st = room.state();
    st.report = report;
    st.recorded = recorded;
    room.broadcast(&st);
    Ok(())
}

/// The leaderboard's record of a room's finished game.
fn record_of(st: &GameState) -> GameRecord {
    let players = [0, 1].map(|s| Seat::Person {
        identity: st.identities[s].clone(),
        name: st.names[s].clone().unwrap_or_default(),
    });
    st.game.record("room", players, &st.verdicts)
}
