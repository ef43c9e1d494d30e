//! The leaderboard: how people play against perfect play, counted only
//! from games the server refereed — rooms ([`rooms`](super::rooms)) and
//! games against the computer played through a session
//! ([`sessions`](super::sessions)). No route takes a result or a move
//! list from a client.
//!
//! - `GET /api/v1/leaderboard?game=G&page=N&per_page=K` →
//!   `{"game", "entries": [{"rank", "player", "name", "games", "wins",
//!   "draws", "losses", "moves", "accuracy"}], "computer": [...],
//!   "min_games", "page", "pages", "per_page"}`: `entries` are people,
//!   ranked by accuracy (the share of a player's moves whose value is known
//!   that kept the value of the position) once they have played
//!   `min_games` games, the others after them with `rank` null; `player`
//!   tells apart people of the same name; `computer` lists the computer's
//!   levels, apart, on every page. Without `game`, every game together.
//!   Only the games that rank are counted
//!   ([`ranking`](crate::store::ranking): every move judged, not against
//!   the random level, the game family's minimum of moves by each person).
//! - `/play` and `/leaderboard`: the pages.

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use solvedb_lookup::{Error, ErrorKind, GameId};

use super::api::Params;
use super::error::ApiError;
use super::page;
use super::response::{LeaderboardEntry, LeaderboardPage};
use super::state::AppState;
use crate::store::MIN_RANKED_GAMES;

/// Entries on a page when `per_page` is not given.
pub const DEFAULT_PER_PAGE: u64 = 20;

/// The most entries on one page.
pub const MAX_PER_PAGE: u64 = 100;

/// The leaderboard's route and the two pages.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/leaderboard", get(leaderboard))
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
        let board = tokio::task::spawn_blocking(move || {
            store.leaderboard(wanted.as_deref(), page, per_page)
        })
        .await
        .map_err(failed)?
        .map_err(failed)?;
        Ok::<_, ApiError>((game, board, page, per_page))
    }
    .await;
    match answer {
        Ok((game, board, page, per_page)) => axum::Json(LeaderboardPage {
            game,
            entries: board.people.iter().map(LeaderboardEntry::of).collect(),
            computer: board.computer.iter().map(LeaderboardEntry::of).collect(),
            min_games: MIN_RANKED_GAMES,
            page,
            pages: board.pages,
            per_page,
        })
        .into_response(),
        Err(e) => e.into_response(),
    }
}
