//! The routes of rooms: two people play one game through the server, which
//! referees every move by the game's own rules ([`Match`]) and broadcasts
//! the state to everyone in the room ([`rooms`](super::rooms) holds the
//! rooms, [`room_socket`](super::room_socket) their WebSockets).
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
//!   gets `{"type": "state", ...}` ([`RoomState`](super::response::RoomState)); a refused
//!   message gets `{"type": "error", "kind", "error"}` to its sender only,
//!   and the game goes on. A reconnect with a seat's token resumes it; the
//!   seat's older connection is closed (1001).
//! - The oracle's values of the position are sent to spectators, and to
//!   the players only in a room created with `"hints": true`. After the
//!   game, everyone gets each move's verdict against perfect play, and the
//!   game goes into the leaderboard ([`store`](crate::store)).
//!
//! Bounded ([`RoomLimits`](super::rooms::RoomLimits)): rooms in all and per creating address, with
//! a reserve for addresses that have none, room creations per address,
//! connections per room (one kept for each seat), players' WebSockets in
//! all, spectators' apart from them (in all, per address, with a reserve), a frame's and a message's size (a longer frame is
//! answered with Close 1009), each connection's message rate; a room idle
//! for [`RoomLimits::idle`](super::rooms::RoomLimits::idle) closes, one whose invite nobody claimed after
//! [`RoomLimits::unjoined`](super::rooms::RoomLimits::unjoined), sooner still with nobody connected
//! ([`RoomLimits::empty`](super::rooms::RoomLimits::empty)); once both players joined, the player to move
//! who lets [`RoomLimits::move_clock`](super::rooms::RoomLimits::move_clock) pass forfeits and the game is
//! recorded.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{Extensions, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value as Json;

use super::admission::Admission;
use super::api::report_of;
use super::body::{game_field, json_body, string_field};
use super::error::ApiError;
use super::rate::client_in;
use super::referee::{Match, SEATS};
use super::response::{RoomClaimed, RoomCreated, SeatLinks, SeatTokens};
use super::room_socket::connect;
use super::rooms::Room;
use super::secret::same_secret;
use super::state::AppState;

/// The rooms' routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/rooms", post(create))
        .route("/api/v1/rooms/{id}/claim", post(claim))
        .route("/api/v1/rooms/{id}/ws", get(connect))
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
        let creator = client_in(&extensions);
        state.rooms.may_create(creator)?;
        // A table answers the start at once; off the complete tables its
        // values take a search, run once the room is made.
        let in_place = state.tables.answers_in_place(&game.game);
        let report = if in_place {
            report_of(&state, game.game, &game.position).await
        } else {
            None
        };
        let room = Arc::new(Room::new(game, creator, hints, report)?);
        let id = room.id.clone();
        let token = room.tokens[0].clone();
        let invite = room
            .invite
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default();
        state.rooms.insert(Arc::clone(&room))?;
        if !in_place {
            values_of_the_start(&state, &room).await;
        }
        tokio::spawn(watch(state.clone(), room));
        let invite = format!("/play?room={id}&invite={invite}");
        Ok::<_, ApiError>(RoomCreated {
            url: format!("/play?room={id}"),
            links: SeatLinks {
                first: format!("/play?room={id}&token={token}"),
                second: invite.clone(),
            },
            room: id,
            seat: SEATS[0],
            seats: SeatTokens {
                first: token.clone(),
            },
            token,
            invite,
        })
    }
    .await;
    match made {
        Ok(json) => (StatusCode::CREATED, axum::Json(json)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// Works out the values of a new room's start position by a search (up
/// to the server's search time), so that its creator does not wait for
/// them: the room's turn is taken before its id is told to anyone and
/// held until they are in, so that the first move is judged by them, and
/// everyone connected by then is sent them. The search is the creator's
/// (their rate, a deadline of its own).
async fn values_of_the_start(state: &AppState, room: &Arc<Room>) {
    let (held, turn_taken) = tokio::sync::oneshot::channel();
    let (state, room) = (state.clone(), Arc::clone(room));
    let admission = Admission::for_current(&state.limits);
    tokio::spawn(async move {
        let _turn = room.turn.lock().await;
        let _ = held.send(());
        let (game, position) = {
            let st = room.state();
            (st.game.game, st.game.position.clone())
        };
        let report = admission.scope(report_of(&state, game, &position)).await;
        let mut st = room.state();
        st.report = report;
        room.broadcast(&st);
    });
    let _ = turn_taken.await;
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
        Ok::<_, ApiError>(RoomClaimed {
            link: format!("/play?room={id}&token={token}"),
            room: id,
            seat: SEATS[1],
            token,
        })
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
async fn forfeit(state: &AppState, room: &Arc<Room>) {
    let _turn = room.turn.lock().await;
    {
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
    }
    room.record_finished(&state.store).await;
    room.touch();
    let st = room.state();
    room.broadcast(&st);
}
