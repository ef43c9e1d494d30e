//! Rooms: two people play one game through the server, which referees
//! every move by the game's own rules ([`Match`]) and broadcasts the state
//! to everyone in the room.
//!
//! - `POST /api/v1/rooms` with `{"game": G, "position": optional start,
//!   "hints": optional bool}` → `{"room", "seats": {"first", "second"},
//!   "url", "links": {"first", "second"}}`: the room's id and one token per
//!   seat, 128 bits each from the operating system's CSPRNG, in hex.
//! - `GET /api/v1/rooms/ID/ws?token=T&name=N&player=P` (a WebSocket; no
//!   token: a spectator; `player`: the browser's identity, which the
//!   leaderboard counts the seat's game for). The client sends `{"type": "move", "move": M}`; everyone
//!   gets `{"type": "state", ...}` (see `Room::snapshot`); a refused
//!   message gets `{"type": "error", "kind", "error"}` to its sender only,
//!   and the game goes on. A reconnect with a seat's token resumes it.
//! - The oracle's values of the position are sent to spectators, and to
//!   the players only in a room created with `"hints": true`. After the
//!   game, everyone gets each move's verdict against perfect play, and the
//!   game goes into the leaderboard ([`store`](crate::store)).
//!
//! Bounded: rooms ([`RoomLimits::rooms`]), connections per room, a frame's
//! and a message's size, each connection's message rate (a token bucket);
//! a room nobody has moved or joined in for [`RoomLimits::idle`] is closed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value as Json, json};
use solvedb_lookup::{Error, ErrorKind, GameId, Report};
use tokio::sync::broadcast;

use super::api::{Params, ask};
use super::referee::{Match, SEATS, judge};
use super::{ApiError, AppState, MAX_BODY_BYTES};
use crate::store::{GameRecord, Seat, is_reserved_name, is_valid_identity};

/// The bounds on rooms.
#[derive(Copy, Clone, Debug)]
pub struct RoomLimits {
    /// Rooms open at once.
    pub rooms: usize,
    /// WebSocket connections to one room at once (players and spectators).
    pub connections: usize,
    /// A room with no move and no new connection for this long is closed.
    pub idle: Duration,
    /// The largest message answered; a longer one is refused with an error.
    pub message_bytes: usize,
    /// The largest frame or message read at all; a longer one closes that
    /// connection (the protocol's limit, not the room's).
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
            connections: 16,
            idle: Duration::from_secs(30 * 60),
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

/// Every open room.
#[derive(Debug)]
pub struct Rooms {
    open: Mutex<HashMap<String, Arc<Room>>>,
    /// The bounds.
    pub limits: RoomLimits,
    /// Set by [`close_all`](Rooms::close_all): no room is made or joined
    /// any more.
    closing: AtomicBool,
    /// WebSocket connections running, in every room.
    live: AtomicUsize,
}

/// Why every room closes when the server stops.
const SHUTTING_DOWN: &str = "the server is shutting down";

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

impl Rooms {
    /// No rooms yet.
    pub fn new(limits: RoomLimits) -> Rooms {
        Rooms {
            open: Mutex::new(HashMap::new()),
            limits,
            closing: AtomicBool::new(false),
            live: AtomicUsize::new(0),
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

    fn refuse_if_closing(&self) -> Result<(), ApiError> {
        if self.closing.load(Ordering::SeqCst) {
            return Err(ApiError {
                kind: ErrorKind::Budget,
                message: SHUTTING_DOWN.into(),
            });
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

    /// Closes the rooms idle for longer than the limit.
    fn sweep(&self) {
        let idle = self.limits.idle;
        let expired: Vec<Arc<Room>> = {
            let mut map = self.map();
            let ids: Vec<String> = map
                .iter()
                .filter(|(_, room)| room.idle_for() >= idle)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for room in expired {
            room.close("the room was idle too long");
        }
    }

    /// Closes `room` if it has been idle too long; whether it did.
    fn expire(&self, room: &Room) -> bool {
        if room.idle_for() < self.limits.idle {
            return false;
        }
        self.map().remove(&room.id);
        room.close("the room was idle too long");
        true
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
                !(open.state().game.result.is_some()
                    && open.connections.load(Ordering::SeqCst) == 0)
            });
        }
        if map.len() >= self.limits.rooms {
            return Err(ApiError {
                kind: ErrorKind::Budget,
                message: format!("{} rooms are open, the limit: try again later", map.len()),
            });
        }
        map.insert(room.id.clone(), room);
        Ok(())
    }
}

/// One room: its seats, its game and who is connected.
#[derive(Debug)]
pub struct Room {
    id: String,
    tokens: [String; 2],
    hints: bool,
    game: Mutex<GameState>,
    /// Held through a move's whole handling (the rules, the oracle, the
    /// record, the broadcast), so moves are refereed one at a time, in the
    /// order they arrive, each against the values of its own position.
    turn: tokio::sync::Mutex<()>,
    updates: broadcast::Sender<Update>,
    last_active: Mutex<Instant>,
    connections: AtomicUsize,
}

/// What connections are told: a new state, or that the room closed.
#[derive(Clone, Debug)]
enum Update {
    State(Arc<Snapshot>),
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
    spectators: usize,
    /// The oracle's report of the position now (`None`: unknown within the
    /// budget, or the game is over).
    report: Option<Report>,
    /// Each move's verdict: kept the value, and what it gave away.
    verdicts: Vec<(Option<bool>, Option<i64>)>,
    /// The leaderboard's id of the finished game.
    recorded: Option<i64>,
}

impl Room {
    fn idle_for(&self) -> Duration {
        self.last_active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }

    fn touch(&self) {
        *self.last_active.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn state(&self) -> std::sync::MutexGuard<'_, GameState> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn close(&self, why: &'static str) {
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
    /// null}`), "points", "players" (`{"first": {"name", "online"}, ...}`),
    /// "spectators", "hints"}`; after the game also "verdicts" (each move's
    /// `{"move", "seat", "kept", "cost"}`) and "recorded". Each receiver
    /// adds "you" (its seat or "spectator") and, where allowed, "values"
    /// (the oracle's [`Report::to_json`] of the position).
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
                Some(winner) => json!({"winner": winner.map(seat)}),
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
        .route("/api/v1/rooms/{id}/ws", get(connect))
}

/// The oracle's report of `position`, or `None` where it is unknown within
/// the budget (or the oracle fails: the game goes on without values).
async fn report_of(state: &AppState, game: GameId, position: &str) -> Option<Report> {
    let position = position.to_owned();
    ask(state, game, move |oracle| oracle.moves(game, &position))
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

/// The game named by field `game`.
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

async fn create(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
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
        let report = report_of(&state, game.game, &game.position).await;
        let (updates, _) = broadcast::channel(BACKLOG);
        let room = Arc::new(Room {
            id: secret()?,
            tokens: [secret()?, secret()?],
            hints,
            turn: tokio::sync::Mutex::new(()),
            game: Mutex::new(GameState {
                game,
                names: [None, None],
                identities: [None, None],
                online: [0, 0],
                spectators: 0,
                report,
                verdicts: Vec::new(),
                recorded: None,
            }),
            updates,
            last_active: Mutex::new(Instant::now()),
            connections: AtomicUsize::new(0),
        });
        let id = room.id.clone();
        let tokens = room.tokens.clone();
        state.rooms.insert(room)?;
        let link = |token: &str| format!("/play?room={id}&token={token}");
        Ok::<_, ApiError>(json!({
            "room": id,
            "seats": {"first": tokens[0], "second": tokens[1]},
            "url": format!("/play?room={id}"),
            "links": {"first": link(&tokens[0]), "second": link(&tokens[1])},
        }))
    }
    .await;
    match made {
        Ok(json) => (StatusCode::CREATED, axum::Json(json)).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn connect(
    State(state): State<AppState>,
    Path(id): Path<String>,
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
        let limit = state.rooms.limits.connections;
        let taken = room.connections.fetch_add(1, Ordering::SeqCst);
        if taken >= limit {
            room.connections.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError {
                kind: ErrorKind::Budget,
                message: format!("the room has {limit} connections, the limit"),
            });
        }
        Ok((upgrade, room, seat, (name, identity)))
    })();
    match accepted {
        Err(e) => e.into_response(),
        Ok((upgrade, room, seat, name)) => {
            let frame = state.rooms.limits.frame_bytes;
            upgrade
                .max_message_size(frame)
                .max_frame_size(frame)
                .on_upgrade(move |socket| async move {
                    let rooms = Arc::clone(&state.rooms);
                    rooms.live.fetch_add(1, Ordering::SeqCst);
                    connection(socket, state, room.clone(), seat, name).await;
                    room.connections.fetch_sub(1, Ordering::SeqCst);
                    rooms.live.fetch_sub(1, Ordering::SeqCst);
                })
        }
    }
}

/// A token bucket: `burst` messages at once, `per_second` on average.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
    burst: f64,
    per_second: f64,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn error_message(e: &ApiError) -> Message {
    Message::text(json!({"type": "error", "kind": e.kind.as_str(), "error": e.message}).to_string())
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
            }
            None => st.spectators += 1,
        }
        room.touch();
        room.broadcast(&st);
    }
    let mut bucket = Bucket {
        tokens: f64::from(limits.burst),
        at: Instant::now(),
        burst: f64::from(limits.burst),
        per_second: limits.per_second,
    };
    loop {
        let idle_left = limits.idle.saturating_sub(room.idle_for());
        let reply = tokio::select! {
            frame = socket.recv() => match frame {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
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
                    Update::Closed(why) => {
                        let _ = socket
                            .send(Message::Close(Some(CloseFrame { code: 1001, reason: why.into() })))
                            .await;
                        break;
                    }
                }
            }
            () = tokio::time::sleep(idle_left) => {
                if state.rooms.expire(&room) {
                    let _ = socket
                        .send(Message::Close(Some(CloseFrame { code: 1001, reason: "the room was idle too long".into() })))
                        .await;
                    break;
                }
                None
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
    if !over && !state.tabled.contains(&game) {
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
