//! The leaderboard: how people play against perfect play.
//!
//! - `GET /api/v1/leaderboard?game=G&page=N&per_page=K` →
//!   `{"game", "entries": [{"name", "games", "wins", "draws", "losses",
//!   "moves", "accuracy"}], "page", "pages", "per_page"}`: `accuracy` is the
//!   share of a player's moves (whose value is known) that kept the value
//!   of the position, `null` before any; best accuracy first. Without
//!   `game`, every game together.
//! - `POST /api/v1/games` with `{"game", "position": optional start,
//!   "moves": [...], "players": {"first": NAME, "second": NAME}}`: records
//!   a finished game against the computer's levels (the page plays them).
//!   The server replays it by the rules ([`Match`]) and judges every move
//!   with the oracle, as in rooms; answers `{"recorded": id, "result",
//!   "verdicts"}`.
//! - `/play` and `/leaderboard`: the pages.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value as Json, json};
use solvedb_lookup::{Error, ErrorKind, GameId, Want};

use super::api::{Params, ask};
use super::referee::{Match, SEATS, judge};
use super::rooms::{ANONYMOUS, MAX_NAME_CHARS, game_field, json_body, string_field};
use super::{ApiError, AppState, page};

/// Entries on a page when `per_page` is not given.
pub const DEFAULT_PER_PAGE: u64 = 20;

/// The most entries on one page.
pub const MAX_PER_PAGE: u64 = 100;

/// The most moves a recorded game may have (a 5×5 dots board has 60).
pub const MAX_MOVES: usize = 200;

/// The leaderboard's routes and the two pages.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/leaderboard", get(leaderboard))
        .route("/api/v1/games", post(record_game))
        .route("/play", get(|| async { page::html(PLAY_HTML) }))
        .route(
            "/leaderboard",
            get(|| async { page::html(LEADERBOARD_HTML) }),
        )
}

/// The "play a friend" page.
pub const PLAY_HTML: &str = include_str!("assets/play.html");

/// The leaderboard page.
pub const LEADERBOARD_HTML: &str = include_str!("assets/leaderboard.html");

fn number(params: &Params, name: &str, default: u64, max: u64) -> Result<u64, ApiError> {
    match params.get(name) {
        None => Ok(default),
        Some(text) => match text.parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::request(format!(
                "{name} must be a whole number from 1 to {max}, not {text:?}"
            ))),
        },
    }
}

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        kind: ErrorKind::Io,
        message: format!("the leaderboard's database failed: {e}"),
    }
}

async fn leaderboard(
    State(state): State<AppState>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let answer = async {
        let params = Params::read(&uri, query, &["game", "page", "per_page"])?;
        let game = match params.get("game") {
            None => None,
            Some(name) => Some(name.parse::<GameId>().map_err(Error::from)?.to_string()),
        };
        let page = number(&params, "page", 1, u64::from(u32::MAX))?;
        let per_page = number(&params, "per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE)?;
        let store = state.store.clone();
        let wanted = game.clone();
        let (entries, pages) = tokio::task::spawn_blocking(move || {
            store.leaderboard(wanted.as_deref(), page, per_page)
        })
        .await
        .map_err(failed)?
        .map_err(failed)?;
        let entries: Vec<Json> = entries
            .iter()
            .map(|e| {
                json!({
                    "name": e.name,
                    "games": e.games,
                    "wins": e.wins,
                    "draws": e.draws,
                    "losses": e.losses,
                    "moves": e.rated_moves,
                    "accuracy": e.accuracy(),
                })
            })
            .collect();
        Ok::<_, ApiError>(json!({
            "game": game,
            "entries": entries,
            "page": page,
            "pages": pages,
            "per_page": per_page,
        }))
    }
    .await;
    match answer {
        Ok(json) => axum::Json(json).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn record_game(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let answer = async {
        let object = json_body(body, &["game", "position", "moves", "players"])?;
        let game = game_field(&object)?;
        let mut m = Match::new(game, string_field(&object, "position")?)?;
        let moves = match object.get("moves") {
            Some(Json::Array(moves)) if moves.len() <= MAX_MOVES => moves,
            Some(Json::Array(moves)) => {
                return Err(ApiError::request(format!(
                    "{} moves: more than any game here has ({MAX_MOVES})",
                    moves.len()
                )));
            }
            _ => return Err(ApiError::request("field \"moves\" must be a list of moves")),
        };
        for mv in moves {
            let mv = mv
                .as_str()
                .ok_or_else(|| ApiError::request(format!("a move must be a string, not {mv}")))?;
            m.play(mv)?;
        }
        if m.result.is_none() {
            return Err(ApiError::request(
                "the game is not over: only finished games are recorded",
            ));
        }
        let names = match object.get("players") {
            Some(Json::Object(players)) => {
                if let Some(extra) = players.keys().find(|k| !SEATS.contains(&k.as_str())) {
                    return Err(ApiError::request(format!(
                        "unknown seat {extra:?} in \"players\""
                    )));
                }
                let name = |seat: &str| -> Result<String, ApiError> {
                    let given = string_field(players, seat)?.unwrap_or("").trim();
                    Ok(if given.is_empty() {
                        ANONYMOUS.to_owned()
                    } else {
                        given.chars().take(MAX_NAME_CHARS).collect()
                    })
                };
                [name("first")?, name("second")?]
            }
            None => [ANONYMOUS.to_owned(), ANONYMOUS.to_owned()],
            Some(other) => {
                return Err(ApiError::request(format!(
                    "field \"players\" must be {{\"first\": NAME, \"second\": NAME}}, not {other}"
                )));
            }
        };
        // Every position's values in one task (one search slot for a game
        // without a table) under the request's one deadline and budget; a
        // position unknown within them leaves its move unjudged. The last
        // positions first: they are the cheap ones.
        let positions = m.positions.clone();
        let reports = ask(&state, game, move |oracle, stop| {
            let mut reports: Vec<_> = positions
                .iter()
                .rev()
                .map(|p| oracle.answer_within(game, p, Want::Moves, stop).ok())
                .collect();
            reports.reverse();
            Ok(reports)
        })
        .await?;
        let verdicts: Vec<(Option<bool>, Option<i64>)> = reports
            .iter()
            .zip(&m.history)
            .map(|(report, mv)| judge(report.as_ref(), mv))
            .collect();
        let record = m.record("computer", names, &verdicts);
        let store = state.store.clone();
        let id = tokio::task::spawn_blocking(move || store.record(&record))
            .await
            .map_err(failed)?
            .map_err(failed)?;
        let winner = m.result.flatten().map(|s| SEATS[usize::from(s)]);
        let verdicts: Vec<Json> = verdicts
            .iter()
            .zip(&m.history)
            .map(|(&(kept, cost), mv)| json!({"move": mv, "kept": kept, "cost": cost}))
            .collect();
        Ok::<_, ApiError>(json!({
            "recorded": id,
            "result": {"winner": winner},
            "verdicts": verdicts,
        }))
    }
    .await;
    match answer {
        Ok(json) => (axum::http::StatusCode::CREATED, axum::Json(json)).into_response(),
        Err(e) => e.into_response(),
    }
}
