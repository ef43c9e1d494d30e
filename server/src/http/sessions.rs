//! Games against the computer, played through the server: a **session**
//! is one rated game of a person against a level of the computer
//! ([`Level`]), from the game's start. The server keeps it, makes the
//! computer's moves itself, referees the person's moves by the game's own
//! rules ([`Match`]), judges every move against the oracle ([`judge`]) and
//! records the finished game in the leaderboard. Nothing the page says
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
//! bounded ([`SessionLimits`]); one left without a move for
//! [`SessionLimits::idle`] ends: lost by resignation and recorded, if the
//! person had moved.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value as Json, json};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Error, ErrorKind, GameId, Report, Want};

use super::api::{Params, ask};
use super::referee::{Match, SEATS, judge};
use super::rooms::{MAX_NAME_CHARS, game_field, json_body, secret, string_field};
use super::{ApiError, AppState, LastActive};
use crate::computer::{Level, classic_move, random_move};
use crate::store::{Seat, is_reserved_name, is_valid_identity};

/// The bounds on sessions.
#[derive(Copy, Clone, Debug)]
pub struct SessionLimits {
    /// Sessions open at once.
    pub sessions: usize,
    /// A session without a move for this long ends (resigned).
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            sessions: 1000,
            idle: Duration::from_secs(10 * 60),
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
struct Session {
    id: String,
    /// Held through a request's whole handling: one move at a time.
    play: tokio::sync::Mutex<Play>,
    last_active: LastActive,
}

/// One game of a session.
#[derive(Debug)]
struct Play {
    game: Match,
    /// Each seat's level; `None` for the person.
    levels: [Option<Level>; 2],
    /// The person's identity and name.
    person: Seat,
    /// Per move: the level that chose it (`None`: the person).
    by: Vec<Option<Level>>,
    verdicts: Vec<Verdict>,
    resigned: bool,
    recorded: Option<i64>,
    rng: Rng,
}

/// A move against perfect play.
#[derive(Clone, Debug, Default)]
struct Verdict {
    kept: Option<bool>,
    cost: Option<i64>,
    /// The value of the position the move was played in, of the move and
    /// of the best move, in the probe's JSON shapes.
    before: Option<Json>,
    played: Option<Json>,
    best: Option<Json>,
}

impl Verdict {
    fn of(report: Option<&Report>, mv: &str) -> Verdict {
        let (kept, cost) = judge(report, mv);
        let Some(report) = report else {
            return Verdict::default();
        };
        let json = report.to_json();
        let moves = json["moves"].as_array().cloned().unwrap_or_default();
        let mut before = json.as_object().cloned().unwrap_or_default();
        for key in ["game", "position", "to_move", "source", "moves"] {
            before.remove(key);
        }
        Verdict {
            kept,
            cost,
            before: Some(Json::Object(before)),
            played: moves.iter().find(|m| m["move"] == mv).cloned(),
            best: moves.first().cloned(),
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

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sessions open now.
    pub fn count(&self) -> usize {
        self.map().len()
    }

    /// Takes out the sessions idle too long (to be recorded as resigned).
    fn expired(&self) -> Vec<Arc<Session>> {
        let idle = self.limits.idle;
        let mut map = self.map();
        let ids: Vec<String> = map
            .iter()
            .filter(|(_, s)| s.idle_for() >= idle)
            .map(|(id, _)| id.clone())
            .collect();
        ids.iter().filter_map(|id| map.remove(id)).collect()
    }

    fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.map().get(id).cloned()
    }

    fn remove(&self, id: &str) {
        self.map().remove(id);
    }
}

impl Session {
    fn idle_for(&self) -> Duration {
        self.last_active.idle_for()
    }

    fn touch(&self) {
        self.last_active.touch();
    }
}

/// The sessions' routes and the computer's move.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/sessions", post(create))
        .route("/api/v1/sessions/move", post(play_move))
        .route("/api/v1/sessions/resign", post(resign))
        .route("/api/v1/sessions/state", post(show))
        .route("/api/v1/computer", get(computer))
}

fn reply(status: StatusCode, answer: Result<Json, ApiError>) -> Response {
    match answer {
        Ok(json) => (status, axum::Json(json)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The oracle's report of `position`, `None` where it is unknown within
/// the budget (or the oracle fails: the move goes unjudged).
async fn report_of(state: &AppState, game: GameId, position: &str) -> Option<Report> {
    let position = position.to_owned();
    ask(state, game, move |oracle, stop| {
        oracle.answer_within(game, &position, Want::Moves, stop)
    })
    .await
    .ok()
}

/// A seed for a session's or a request's choices among equal moves.
fn seed() -> u64 {
    let mut bytes = [0u8; 8];
    // Without random bytes the choice is still a legal move: only
    // variety is lost.
    let _ = getrandom::fill(&mut bytes);
    u64::from_le_bytes(bytes)
}

/// The computer's move at `position` for `level`, and the level that
/// chose it: the classic player's where the perfect one has no report.
async fn choose(
    game: GameId,
    position: &str,
    level: Level,
    report: Option<&Report>,
    rng: &mut Rng,
) -> Result<(String, Level), ApiError> {
    if level == Level::Perfect
        && let Some(best) = report.and_then(|r| r.moves.first())
    {
        return Ok((best.mv.clone(), Level::Perfect));
    }
    let by = if level == Level::Random {
        Level::Random
    } else {
        Level::Classic
    };
    let position = position.to_owned();
    let mut own = Rng::new(rng.next_u64());
    let mv = tokio::task::spawn_blocking(move || match by {
        Level::Random => random_move(game, &position, &mut own),
        _ => classic_move(game, &position, &mut own),
    })
    .await
    .map_err(|e| ApiError {
        kind: ErrorKind::Io,
        message: format!("the computer's task failed: {e}"),
    })??;
    Ok((mv, by))
}

/// Makes the computer's moves until the person is to move or the game is
/// over.
async fn advance(state: &AppState, play: &mut Play) -> Result<(), ApiError> {
    while play.game.result.is_none() {
        let Some(level) = play.levels[usize::from(play.game.to_move)] else {
            return Ok(());
        };
        let game = play.game.game;
        let position = play.game.position.clone();
        // The report chooses the perfect move and judges the move made.
        let report = report_of(state, game, &position).await;
        let (mv, by) = choose(game, &position, level, report.as_ref(), &mut play.rng).await?;
        play.game.play(&mv)?;
        play.verdicts.push(Verdict::of(report.as_ref(), &mv));
        play.by.push(Some(by));
    }
    Ok(())
}

/// Records a finished (or resigned) game once.
async fn record(state: &AppState, play: &mut Play) {
    if play.recorded.is_some() || play.game.result.is_none() {
        return;
    }
    let players = [0, 1].map(|s| match play.levels[s] {
        None => play.person.clone(),
        Some(level) => Seat::Computer {
            level: level.as_str().to_owned(),
        },
    });
    let verdicts: Vec<(Option<bool>, Option<i64>)> =
        play.verdicts.iter().map(|v| (v.kept, v.cost)).collect();
    let record = play.game.record("computer", players, &verdicts);
    let store = state.store.clone();
    if let Ok(Ok(id)) = tokio::task::spawn_blocking(move || store.record(&record)).await {
        play.recorded = Some(id);
    }
}

/// The person's seat.
fn person_seat(play: &Play) -> u8 {
    u8::from(play.levels[0].is_some())
}

/// Ends the game: the person resigned (or left it idle).
fn give_up(play: &mut Play) {
    if play.game.result.is_none() {
        play.game.result = Some(Some(1 - person_seat(play)));
        play.resigned = true;
    }
}

/// Records the sessions that expired: resigned, if the person had moved.
async fn sweep(state: &AppState) {
    for session in state.sessions.expired() {
        let mut play = session.play.lock().await;
        if play.by.iter().any(Option::is_none) {
            give_up(&mut play);
            record(state, &mut play).await;
        }
    }
}

fn state_json(id: &str, play: &Play) -> Json {
    let m = &play.game;
    let seat = |s: u8| json!(SEATS[usize::from(s)]);
    let level = |s: usize| json!(play.levels[s].map_or("person", Level::as_str));
    let mut object = Map::new();
    object.insert("session".into(), json!(id));
    object.insert("game".into(), json!(m.game.to_string()));
    object.insert("start".into(), json!(m.start));
    object.insert("position".into(), json!(m.position));
    object.insert("history".into(), json!(m.history));
    object.insert(
        "movers".into(),
        json!(m.movers.iter().map(|&s| seat(s)).collect::<Vec<_>>()),
    );
    object.insert(
        "by".into(),
        json!(
            play.by
                .iter()
                .map(|b| b.map(Level::as_str))
                .collect::<Vec<_>>()
        ),
    );
    object.insert(
        "levels".into(),
        json!({"first": level(0), "second": level(1)}),
    );
    object.insert("you".into(), seat(person_seat(play)));
    let over = m.result.is_some();
    object.insert(
        "to_move".into(),
        if over { Json::Null } else { seat(m.to_move) },
    );
    object.insert(
        "points".into(),
        json!({"first": m.points[0], "second": m.points[1]}),
    );
    object.insert(
        "result".into(),
        match m.result {
            None => Json::Null,
            Some(winner) => json!({"winner": winner.map(seat), "resigned": play.resigned}),
        },
    );
    if over {
        let verdicts: Vec<Json> = play
            .verdicts
            .iter()
            .zip(&m.history)
            .zip(&m.movers)
            .map(|((v, mv), &s)| {
                json!({
                    "move": mv, "seat": seat(s), "kept": v.kept, "cost": v.cost,
                    "before": v.before, "played": v.played, "best": v.best,
                })
            })
            .collect();
        object.insert("verdicts".into(), Json::Array(verdicts));
        object.insert("recorded".into(), json!(play.recorded.is_some()));
    }
    Json::Object(object)
}

/// A seat's field: `person` or a level.
fn seat_field(object: &Map<String, Json>, name: &str) -> Result<Option<Level>, ApiError> {
    let text = string_field(object, name)?.ok_or_else(|| {
        ApiError::request(format!(
            "missing field {name:?}: \"person\" or a level (perfect, classic, random)"
        ))
    })?;
    if text == "person" {
        return Ok(None);
    }
    Level::parse(text).map(Some).ok_or_else(|| {
        ApiError::request(format!(
            "field {name:?} must be \"person\" or a level (perfect, classic, random), not {text:?}"
        ))
    })
}

/// The identity field: the browser's secret, if given.
fn identity_field(object: &Map<String, Json>) -> Result<Option<String>, ApiError> {
    let Some(text) = string_field(object, "player")? else {
        return Ok(None);
    };
    if !is_valid_identity(text) {
        return Err(ApiError::request(
            "field \"player\" must be 16 to 64 letters, digits, '-' or '_' (the browser's identity)",
        ));
    }
    Ok(Some(text.to_owned()))
}

/// The name a person gave: trimmed, cut to [`MAX_NAME_CHARS`]; the
/// computer's names are refused.
///
/// # Errors
///
/// A name reserved for the computer (kind `request`).
pub fn person_name(given: Option<&str>) -> Result<String, ApiError> {
    let name: String = given
        .unwrap_or("")
        .trim()
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    if is_reserved_name(&name) {
        return Err(ApiError::request(format!(
            "the name {name:?} is reserved for the computer: choose another"
        )));
    }
    Ok(name)
}

async fn create(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let made = async {
        let object = json_body(body, &["game", "first", "second", "player", "name"])?;
        let game = game_field(&object)?;
        let levels = [
            seat_field(&object, "first")?,
            seat_field(&object, "second")?,
        ];
        if levels.iter().filter(|l| l.is_none()).count() != 1 {
            return Err(ApiError::request(
                "a session is one person against the computer: exactly one seat is \"person\"",
            ));
        }
        let person = Seat::Person {
            identity: identity_field(&object)?,
            name: person_name(string_field(&object, "name")?)?,
        };
        sweep(&state).await;
        let sessions = &state.sessions;
        if sessions.count() >= sessions.limits.sessions {
            // Finished games make way (their state is only for a review).
            sessions.map().retain(|_, s| {
                s.play
                    .try_lock()
                    .map_or(true, |play| play.game.result.is_none())
            });
        }
        if sessions.count() >= sessions.limits.sessions {
            return Err(ApiError {
                kind: ErrorKind::Budget,
                message: format!(
                    "{} games against the computer are open, the limit: try again later",
                    sessions.count()
                ),
            });
        }
        let mut play = Play {
            game: Match::new(game, None)?,
            levels,
            person,
            by: Vec::new(),
            verdicts: Vec::new(),
            resigned: false,
            recorded: None,
            rng: Rng::new(seed()),
        };
        advance(&state, &mut play).await?;
        record(&state, &mut play).await;
        let id = secret()?;
        let json = state_json(&id, &play);
        let session = Arc::new(Session {
            id: id.clone(),
            play: tokio::sync::Mutex::new(play),
            last_active: LastActive::now(),
        });
        sessions.map().insert(id, session);
        Ok::<_, ApiError>(json)
    }
    .await;
    reply(StatusCode::CREATED, made)
}

/// The session a body names.
fn session_of(state: &AppState, object: &Map<String, Json>) -> Result<Arc<Session>, ApiError> {
    let id = string_field(object, "session")?
        .ok_or_else(|| ApiError::request("missing field \"session\""))?;
    state.sessions.get(id).ok_or_else(|| {
        ApiError::request(
            "no such game against the computer (it ended, expired or the server restarted)",
        )
    })
}

async fn play_move(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let answer = async {
        let object = json_body(body, &["session", "move"])?;
        let session = session_of(&state, &object)?;
        let mv = string_field(&object, "move")?
            .ok_or_else(|| ApiError::request("missing field \"move\""))?;
        let mut play = session.play.lock().await;
        session.touch();
        if play.game.result.is_none() && play.game.to_move != person_seat(&play) {
            // Only after a failure in the computer's turn: make it now.
            advance(&state, &mut play).await?;
        }
        let game = play.game.game;
        let position = play.game.position.clone();
        // Checked before any search: a refused move costs nothing.
        let mut next = play.game.clone();
        next.play(mv)?;
        let report = report_of(&state, game, &position).await;
        let played = next.history.last().cloned().unwrap_or_default();
        play.game = next;
        play.verdicts.push(Verdict::of(report.as_ref(), &played));
        play.by.push(None);
        advance(&state, &mut play).await?;
        record(&state, &mut play).await;
        session.touch();
        Ok::<_, ApiError>(state_json(&session.id, &play))
    }
    .await;
    reply(StatusCode::OK, answer)
}

async fn resign(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let answer = async {
        let object = json_body(body, &["session"])?;
        let session = session_of(&state, &object)?;
        let mut play = session.play.lock().await;
        give_up(&mut play);
        record(&state, &mut play).await;
        state.sessions.remove(&session.id);
        Ok::<_, ApiError>(state_json(&session.id, &play))
    }
    .await;
    reply(StatusCode::OK, answer)
}

async fn show(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let answer = async {
        let object = json_body(body, &["session"])?;
        let session = session_of(&state, &object)?;
        let play = session.play.lock().await;
        Ok::<_, ApiError>(state_json(&session.id, &play))
    }
    .await;
    reply(StatusCode::OK, answer)
}

async fn computer(
    State(state): State<AppState>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let answer = async {
        let params = Params::read(&uri, query, &["game", "position", "level"])?;
        let game: GameId = params
            .get("game")
            .ok_or_else(|| ApiError::request("missing parameter \"game\""))?
            .parse()
            .map_err(Error::from)?;
        let position = params
            .get("position")
            .ok_or_else(|| ApiError::request("missing parameter \"position\""))?
            .to_owned();
        let level = params.get("level").unwrap_or("classic");
        let level = Level::parse(level).ok_or_else(|| {
            ApiError::request(format!(
                "level must be perfect, classic or random, not {level:?}"
            ))
        })?;
        let report = if level == Level::Perfect {
            let text = position.clone();
            match ask(&state, game, move |oracle, stop| {
                oracle.answer_within(game, &text, Want::Moves, stop)
            })
            .await
            {
                Ok(report) => Some(report),
                Err(e) if e.kind == ErrorKind::Budget => None,
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        let mut rng = Rng::new(seed());
        let (mv, by) = choose(game, &position, level, report.as_ref(), &mut rng).await?;
        Ok::<_, ApiError>(json!({"move": mv, "level": level.as_str(), "by": by.as_str()}))
    }
    .await;
    reply(StatusCode::OK, answer)
}
