//! The leaderboard: how people play against perfect play, counted only
//! from games the server refereed — rooms ([`rooms`](super::rooms)) and
//! games against the computer played through a session
//! ([`sessions`](super::sessions)). No route takes a result or a move
//! list from a client.
//!
//! - `GET /api/v1/leaderboard?game=G&per_page=K[&after=C | &page=N]` →
//!   `{"game", "entries": [{"rank", "player", "name", "games", "wins",
//!   "draws", "losses", "moves", "accuracy"}], "computer": [...],
//!   "min_games", "page", "pages", "per_page", "next",
//!   "new_identities_per_hour"}`: a page is read
//!   after the cursor `C` (the `next` of the page before, `null` on the
//!   last page), at any depth for the cost of its own entries; `page=N`
//!   reads by number the pages within the first
//!   [`MAX_OFFSET`](crate::store::MAX_OFFSET) entries (deeper ones are a
//!   400 that says to follow `next`); neither: the first page. `entries` are people,
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
use crate::store::{CursorError, MIN_RANKED_GAMES, TooDeep};

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

/// A read refused for its request (a page too deep, a cursor not this
/// server's) as a 400; any other failure as the database's.
fn refused(e: anyhow::Error) -> ApiError {
    if e.is::<TooDeep>() || e.is::<CursorError>() {
        return ApiError::request(e.to_string());
    }
    failed(e)
}

async fn leaderboard(
    State(state): State<AppState>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let answer = async {
        let params = Params::read(&uri, query, &["game", "page", "per_page", "after"])?;
        let game = match params.get("game") {
            None => None,
            Some(name) => Some(name.parse::<GameId>().map_err(Error::from)?.to_string()),
        };
        let page = number(&params, "page", 1, u64::from(u32::MAX))?;
        let per_page = number(&params, "per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE)?;
        let after = params.get("after").map(str::to_owned);
        if after.is_some() && params.get("page").is_some() {
            return Err(ApiError::request(
                "give either page or after (the cursor of the answer's \"next\"), not both",
            ));
        }
        let store = state.store.clone();
        let wanted = game.clone();
        let board = tokio::task::spawn_blocking(move || match after {
            Some(cursor) => store.leaderboard_after(wanted.as_deref(), &cursor, per_page),
            None => store.leaderboard(wanted.as_deref(), page, per_page),
        })
        .await
        .map_err(failed)?
        .map_err(refused)?;
        Ok::<_, ApiError>((game, board, per_page))
    }
    .await;
    match answer {
        Ok((game, board, per_page)) => axum::Json(LeaderboardPage {
            game,
            entries: board.people.iter().map(LeaderboardEntry::of).collect(),
            computer: board.computer.iter().map(LeaderboardEntry::of).collect(),
            min_games: MIN_RANKED_GAMES,
            page: board.page,
            pages: board.pages,
            per_page,
            next: board.next.clone(),
            new_identities_per_hour: state.limits.new_identities_per_hour,
        })
        .into_response(),
        Err(e) => e.into_response(),
    }
}
