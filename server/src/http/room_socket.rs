//! A room's WebSocket, `GET /api/v1/rooms/ID/ws`: the connection from its
//! upgrade to its end, counted against the room's and the server's limits,
//! and the messages it reads (`{"type": "move", "move": M}`, refereed one
//! at a time) and sends (each state, and errors to their sender only).

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Extension;
use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{Extensions, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value as Json;
use tokio::sync::broadcast;

use super::admission;
use super::api::{Params, report_of};
use super::error::ApiError;
use super::names::given_name;
use super::rate::{Bucket, client_in, client_key};
use super::referee::{SEATS, Verdict};
use super::response::SocketError;
use super::rooms::{Room, RoomLimits, Rooms, SHUTTING_DOWN, Update};
use super::state::AppState;
use super::transport::Ticket;
use crate::client_json::{ObjectError, client_object};
use crate::store::{is_reserved_name, is_valid_identity};

/// A WebSocket's read buffer: frames are small (a move is tens of bytes),
/// and the library's default of 128 KiB per connection would be most of
/// a WebSocket's memory.
const READ_BUFFER_BYTES: usize = 4096;

/// The most a WebSocket's unsent states may take before it is closed (a
/// client that stopped reading).
const MAX_WRITE_BUFFER_BYTES: usize = 256 * 1024;

/// Why a seat's older connection closes.
const SEAT_TAKEN: &str = "this seat was opened in another window";

/// Who a connection is: the name and identity it gave, its client address.
type Who = (Option<String>, Option<String>, IpAddr);

/// A WebSocket counted in its room and among all the server's, until it
/// is dropped (its connection ended, or its upgrade failed).
struct Counted {
    rooms: Arc<Rooms>,
    room: Arc<Room>,
    /// Whether it is counted among the seats' connections.
    seated: bool,
    /// The address it is counted against among the spectators, if it is
    /// a spectator's.
    spectator: Option<IpAddr>,
    /// The connection it came on, counted against its address.
    _ticket: Option<Arc<Ticket>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.room.connections.fetch_sub(1, Ordering::SeqCst);
        if let Some(client) = self.spectator {
            self.room.spectating.fetch_sub(1, Ordering::SeqCst);
            self.rooms.spectator_left(client);
        }
        if self.seated {
            self.rooms.seated.fetch_sub(1, Ordering::SeqCst);
        }
        self.rooms.live.fetch_sub(1, Ordering::SeqCst);
        // A room's times run from the last connection leaving too (one
        // left empty closes sooner: [`RoomLimits::empty`]).
        self.room.touch();
    }
}

pub(crate) async fn connect(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ticket: Option<Extension<Arc<Ticket>>>,
    extensions: Extensions,
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
            .map(given_name)
            .filter(|n| !n.is_empty() && !is_reserved_name(n));
        let identity = params
            .get("player")
            .filter(|p| is_valid_identity(p))
            .map(str::to_owned);
        let counted = count_in(&state, &room, seat, client_in(&extensions), ticket)?;
        let address = client_key(admission::client());
        Ok::<_, ApiError>((upgrade, room, seat, (name, identity, address), counted))
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

/// Counts a new connection in, or refuses it: a seat's against the
/// seats' cap only (a seat always gets in otherwise: its older
/// connection closes), a spectator's against its address's quota, the
/// spectators' pool and the room's places, one kept for each seat.
fn count_in(
    state: &AppState,
    room: &Arc<Room>,
    seat: Option<u8>,
    client: IpAddr,
    ticket: Option<Extension<Arc<Ticket>>>,
) -> Result<Counted, ApiError> {
    let limits = state.rooms.limits;
    // Counted first, checked after: two connections at once cannot both
    // take the last place.
    room.connections.fetch_add(1, Ordering::SeqCst);
    state.rooms.live.fetch_add(1, Ordering::SeqCst);
    let mut counted = Counted {
        rooms: Arc::clone(&state.rooms),
        room: Arc::clone(room),
        seated: false,
        spectator: None,
        _ticket: ticket.map(|Extension(t)| t),
    };
    if seat.is_some() {
        counted.seated = true;
        if state.rooms.seated.fetch_add(1, Ordering::SeqCst) >= limits.websockets {
            return Err(ApiError::budget(format!(
                "the server has {} players connected, the limit: try again later",
                limits.websockets
            )));
        }
        return Ok(counted);
    }
    state.rooms.admit_spectator(client)?;
    counted.spectator = Some(client);
    // Counted first, checked after, as above.
    let spectators = room.spectating.fetch_add(1, Ordering::SeqCst);
    let places = limits.connections.saturating_sub(SEATS.len());
    if spectators >= places {
        return Err(ApiError::budget(format!(
            "the room has {places} spectators, the most it takes beside its two players"
        )));
    }
    Ok(counted)
}

fn error_message(e: &ApiError) -> Message {
    let error = SocketError {
        tag: "error",
        kind: e.kind.as_str(),
        error: &e.message,
    };
    Message::text(serde_json::to_string(&error).unwrap_or_default())
}

/// The Close a read error calls for (RFC 6455 §7.4.1), where the client
/// broke the protocol: 1009 for a frame or message over the size limit,
/// 1002 for a frame the protocol does not allow, 1007 for text that is not
/// UTF-8. Other errors (the connection reset or closed) end it silently.
fn close_for(e: axum::Error, frame_bytes: usize) -> Option<(u16, String)> {
    use tokio_tungstenite::tungstenite::Error as WsError;
    use tokio_tungstenite::tungstenite::error::ProtocolError;
    match e.into_inner().downcast_ref::<WsError>()? {
        // The library files a reset under protocol errors: nobody to tell.
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
        WsError::Capacity(_) => Some((
            1009,
            format!("a frame or message longer than {frame_bytes} bytes"),
        )),
        WsError::Protocol(broken) => Some((1002, format!("protocol error: {broken}"))),
        WsError::Utf8(_) => Some((1007, "a text message that is not UTF-8".into())),
        _ => None,
    }
}

/// What a connection does after a frame or an update: goes on (sending
/// its sender an error, if any) or ends.
enum Step {
    Go(Option<ApiError>),
    End,
}

/// Sends a Close frame; the connection ends either way. The reason is cut
/// to the 123 bytes a Close frame holds (RFC 6455 §5.5).
async fn close(socket: &mut WebSocket, code: u16, mut reason: String) {
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    reason.truncate(end);
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
}

/// One connection, from its upgrade to its end.
async fn connection(
    mut socket: WebSocket,
    state: AppState,
    room: Arc<Room>,
    seat: Option<u8>,
    who: Who,
) {
    let limits = state.rooms.limits;
    let me = state.rooms.connection_ids.fetch_add(1, Ordering::SeqCst);
    let mut updates = room.updates.subscribe();
    // A connection that subscribed after `close_all` sent its Close to the
    // room's subscribers sees the flag it set first.
    if state.rooms.closing.load(Ordering::SeqCst) {
        close(&mut socket, 1001, SHUTTING_DOWN.into()).await;
        return;
    }
    join(&room, seat, who, me, &limits);
    let mut bucket = Bucket::new(limits.burst, limits.per_second);
    loop {
        let step = tokio::select! {
            frame = socket.recv() => {
                on_frame(&mut socket, &state, &room, seat, &mut bucket, frame).await
            }
            update = updates.recv() => on_update(&mut socket, &room, seat, me, update).await,
        };
        match step {
            Step::End => break,
            Step::Go(None) => {}
            Step::Go(Some(e)) => {
                if socket.send(error_message(&e)).await.is_err() {
                    break;
                }
            }
        }
    }
    leave(&room, seat);
}

/// Counts a new connection in its room: a seat's (its name and identity
/// as given now, the clock started once both seats have joined, its older
/// connections told to give way) or a spectator's; then tells everyone.
fn join(
    room: &Room,
    seat: Option<u8>,
    (name, identity, address): Who,
    me: u64,
    limits: &RoomLimits,
) {
    let mut st = room.state();
    match seat {
        Some(s) => {
            st.online[usize::from(s)] += 1;
            if name.is_some() {
                st.names[usize::from(s)] = name;
            }
            if identity.is_some() {
                st.identities[usize::from(s)] = identity;
                st.addresses[usize::from(s)] = Some(address);
            }
            if !st.joined[usize::from(s)] {
                st.joined[usize::from(s)] = true;
                st.set_clock(limits);
            }
            // This seat's older connections give way.
            let _ = room.updates.send(Update::SeatTaken { seat: s, by: me });
        }
        None => st.spectators += 1,
    }
    room.touch();
    room.broadcast(&st);
}

/// Counts a connection out of its room and tells everyone.
fn leave(room: &Room, seat: Option<u8>) {
    let mut st = room.state();
    match seat {
        Some(s) => st.online[usize::from(s)] -= 1,
        None => st.spectators -= 1,
    }
    room.broadcast(&st);
}

/// A frame from the client: a message within the rate and the size
/// limits is handled; a frame over the protocol's limit, or one that breaks
/// the protocol, closes the connection with its code ([`close_for`]).
async fn on_frame(
    socket: &mut WebSocket,
    state: &AppState,
    room: &Arc<Room>,
    seat: Option<u8>,
    bucket: &mut Bucket,
    frame: Option<Result<Message, axum::Error>>,
) -> Step {
    let limits = state.rooms.limits;
    match frame {
        None | Some(Ok(Message::Close(_))) => Step::End,
        Some(Err(e)) => {
            if let Some((code, reason)) = close_for(e, limits.frame_bytes) {
                close(socket, code, reason).await;
            }
            Step::End
        }
        Some(Ok(Message::Text(text))) => Step::Go(if !bucket.take() {
            Some(ApiError::budget(format!(
                "more than {} messages a second: this one was dropped",
                limits.per_second
            )))
        } else if text.len() > limits.message_bytes {
            Some(ApiError::request(format!(
                "a message of {} bytes is longer than the limit of {}",
                text.len(),
                limits.message_bytes
            )))
        } else {
            handle(state, room, seat, text.as_str()).await.err()
        }),
        Some(Ok(Message::Binary(_))) => Step::Go(Some(ApiError::request(
            "only text messages (JSON) are read",
        ))),
        Some(Ok(_)) => Step::Go(None), // ping and pong: answered by the library
    }
}

/// An update of the room: a state is sent; a newer connection of this
/// seat, or the room's end, closes this one with 1001.
async fn on_update(
    socket: &mut WebSocket,
    room: &Room,
    seat: Option<u8>,
    me: u64,
    update: Result<Update, broadcast::error::RecvError>,
) -> Step {
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
                return Step::End;
            }
            Step::Go(None)
        }
        Update::SeatTaken { seat: taken, by } if Some(taken) == seat && by != me => {
            close(socket, 1001, SEAT_TAKEN.into()).await;
            Step::End
        }
        Update::SeatTaken { .. } => Step::Go(None),
        Update::Closed(why) => {
            close(socket, 1001, why.into()).await;
            Step::End
        }
    }
}

/// Handles one message from a connection: only `{"type": "move", "move": M}`.
async fn handle(
    state: &AppState,
    room: &Arc<Room>,
    seat: Option<u8>,
    text: &str,
) -> Result<(), ApiError> {
    let object = client_object(text.as_bytes()).map_err(|e| match e {
        ObjectError::NotObject => ApiError::request("the message must be a JSON object"),
        e => ApiError::request(format!("the message is {e}")),
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
        let verdict = Verdict::of(before.as_ref(), &played);
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
    if !over && !state.tables.answers_in_place(&game) {
        room.broadcast(&room.state());
    }
    let report = if over {
        None
    } else {
        report_of(state, game, &position).await
    };
    if over {
        room.record_finished(&state.store).await;
    }
    let mut st = room.state();
    st.report = report;
    room.broadcast(&st);
    Ok(())
}
