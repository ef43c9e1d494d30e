//! The routes of games against the computer ([`sessions`](super::sessions)
//! holds the sessions): a session's start, moves, resignation and state,
//! and the computer's move anywhere (`GET /api/v1/computer`). The computer
//! makes its moves here, on a blocking thread, with the oracle's report
//! for the perfect level and for judging each move.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use serde_json::{Map, Value as Json};
use solvedb_lookup::{Error, Game, GameId, Rng, with_game};

use super::activity::LastActive;
use super::admission;
use super::api::{Params, proven_best, report_for_best, report_of, with_search_count};
use super::body::{game_field, json_body, string_field};
use super::error::ApiError;
use super::names::person_name;
use super::rate::client_key;
use super::referee::Verdict;
use super::response::ComputerMove;
use super::secret::secret;
use super::sessions::{Play, Session};
use super::state::AppState;
use crate::computer::{Level, classic_move_until, random_move};
use crate::store::{Seat, is_valid_identity};

/// The sessions' routes and the computer's move.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/sessions", post(create))
        .route("/api/v1/sessions/move", post(play_move))
        .route("/api/v1/sessions/resign", post(resign))
        .route("/api/v1/sessions/state", post(show))
        .route("/api/v1/computer", get(computer))
}

fn reply(status: StatusCode, answer: Result<impl Serialize, ApiError>) -> Response {
    match answer {
        Ok(body) => (status, axum::Json(body)).into_response(),
        Err(e) => e.into_response(),
    }
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
/// chose it: for the perfect level the move `proven` best (the report's
/// first, or one the bounds of a stopped search prove best), else the
/// classic player's.
async fn choose(
    state: &AppState,
    game: GameId,
    position: &str,
    level: Level,
    proven: Option<String>,
    rng: &mut Rng,
) -> Result<(String, Level), ApiError> {
    if level == Level::Perfect
        && let Some(best) = proven
    {
        return Ok((best, Level::Perfect));
    }
    let by = if level == Level::Random {
        Level::Random
    } else {
        Level::Classic
    };
    let mut own = Rng::new(rng.next_u64());
    let mv = match by {
        // A random move takes microseconds: no slot.
        Level::Random => random_move(game, position, &mut own)?,
        // The classic player's search takes a slot like any search, and
        // stops when its request ends.
        _ => {
            let position = position.to_owned();
            admission::run(state, move |_, stop| {
                Ok(classic_move_until(game, &position, &mut own, stop)?)
            })
            .await?
        }
    };
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
        // The report chooses the perfect move and judges the move made:
        // the perfect computer's is the best move, which a table's answer
        // values without a search of the moves the table leaves open.
        let report = if level == Level::Perfect {
            report_for_best(state, game, &position).await
        } else {
            report_of(state, game, &position).await
        };
        let proven = match (&report, level) {
            (Some(r), _) => r.moves.first().map(|m| m.mv.clone()),
            // The bounds a stopped search proved may still hold a best move
            // (kept from the search `report_of` ran).
            (None, Level::Perfect) => proven_best(state, game, &position).await,
            (None, _) => None,
        };
        let (mv, by) = choose(state, game, &position, level, proven, &mut play.rng).await?;
        play.game.play(&mv)?;
        play.verdicts.push(Verdict::of(report.as_ref(), &mv));
        play.by.push(Some(by));
    }
    Ok(())
}

/// Records a finished (or resigned) game once. A write that fails (the
/// database locked past its timeout) is not dropped: it is retried until
/// it is recorded ([`recording`](super::recording)), and the session's
/// state says so from then on.
async fn record(state: &AppState, play: &mut Play) {
    if play.recording_started || play.game.result.is_none() {
        return;
    }
    play.recording_started = true;
    let record = play.record();
    super::recording::record(&state.store, record, &play.recorded, || {}).await;
}

/// Records the sessions that expired, and those of `client` past its
/// quota: resigned, if the person had moved. Whether `client`'s own were
/// ended to make way (its new one then only takes their place).
async fn sweep(state: &AppState, client: std::net::IpAddr) -> bool {
    let mut ended = state.sessions.expired();
    let own = state.sessions.over_quota(client);
    let replacing = !own.is_empty();
    ended.extend(own);
    for session in ended {
        let mut play = session.play.lock().await;
        if play.by.iter().any(Option::is_none) {
            play.give_up();
            record(state, &mut play).await;
        }
    }
    replacing
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
        let client = client_key(admission::client());
        let replacing = sweep(&state, client).await;
        let sessions = &state.sessions;
        let limits = sessions.limits;
        if sessions.count() >= limits.sessions.saturating_sub(limits.reserve) {
            // Finished games make way (their state is only for a review).
            sessions.map().retain(|_, s| {
                s.play
                    .try_lock()
                    .map_or(true, |play| play.game.result.is_none())
            });
        }
        if let Some(why) = sessions.refusal(client).filter(|_| !replacing) {
            return Err(ApiError::budget(why));
        }
        let mut play = Play::new(game, levels, person, Some(client), seed())?;
        advance(&state, &mut play).await?;
        record(&state, &mut play).await;
        let id = secret()?;
        let json = play.view(&id);
        let session = Arc::new(Session {
            id: id.clone(),
            client,
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
        if play.game.result.is_none() && play.game.to_move != play.person_seat() {
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
        Ok::<_, ApiError>(play.view(&session.id))
    }
    .await;
    reply(StatusCode::OK, answer)
}

async fn resign(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let answer = async {
        let object = json_body(body, &["session"])?;
        let session = session_of(&state, &object)?;
        let mut play = session.play.lock().await;
        play.give_up();
        record(&state, &mut play).await;
        state.sessions.remove(&session.id);
        Ok::<_, ApiError>(play.view(&session.id))
    }
    .await;
    reply(StatusCode::OK, answer)
}

async fn show(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let answer = async {
        let object = json_body(body, &["session"])?;
        let session = session_of(&state, &object)?;
        let play = session.play.lock().await;
        Ok::<_, ApiError>(play.view(&session.id))
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
        // Refused before any admission: a malformed position costs nothing.
        with_game!(game, g => g.parse(&position).map(drop).map_err(Error::from))?;
        let level = params.get("level").unwrap_or("classic");
        let level = Level::parse(level).ok_or_else(|| {
            ApiError::request(format!(
                "level must be perfect, classic or random, not {level:?}"
            ))
        })?;
        // The move proved best, from what the probe of this position proved
        // (kept: no second search), else the classic player's.
        let proven = if level == Level::Perfect {
            proven_best(&state, game, &position).await
        } else {
            None
        };
        let mut rng = Rng::new(seed());
        let (mv, by) = choose(&state, game, &position, level, proven, &mut rng).await?;
        Ok::<_, ApiError>(ComputerMove {
            mv,
            level: level.as_str(),
            by: by.as_str(),
        })
    }
    .await;
    with_search_count(&state, reply(StatusCode::OK, answer))
}
