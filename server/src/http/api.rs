//! The JSON API, `/api/v1/...`:
//!
//! - `GET /api/v1/probe?game=G&position=P[&want=value|moves|best]`: the
//!   shape of `solvedb probe --json` (with `want`, that of `serve --stdio`);
//! - `GET /api/v1/mainline?game=G&position=P`: the best line to the end
//!   ([`Mainline::to_json`](solvedb_lookup::Mainline::to_json));
//! - `GET /api/v1/check?game=G&position=P[&moves=M]`: whether a position
//!   is legal (read by the rules only, no search), `{"game", "position"}`
//!   normalised; with `moves` (moves separated by spaces), whether each can
//!   be played in turn from there, adding `"moves"` (normalised) and
//!   `"final"`; the first that cannot is the error, with `"move"` its
//!   index (from 0) and `"reason"` the rules' reason alone ("it is
//!   already taken");
//! - `GET /api/v1/games`: the games the explorer offers, from the
//!   catalogue ([`solvedb_lookup::catalogue`]): each one's name, the name
//!   people read (`title`), its board (`kind` and `board`: size, or rows and
//!   columns of boxes), the names of its sides, its start position and
//!   whether a table answers it. The page keeps no list of its own.
//!
//! Errors are the `serve --stdio` error object with [`status_of`]
//! its kind's status. A probe whose live search ran out of its limits
//! having proved bounds (dots-and-boxes) is the error of kind `budget` with
//! `"bounds"` added ([`bounds_json`](solvedb_lookup::bounds_json)).

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value as Json;
use solvedb_lookup::{
    Error, ErrorKind, Game, GameId, GameInfo, Oracle, PositionError, Report, Stop, Want, catalogue,
    error_json_of, with_game,
};

use super::admission;
use super::analysis::{Progress, settle};
use super::error::{ApiError, status_of};
use super::limits::MAX_QUERY_BYTES;
use super::proven::{Proven, SEARCHES_HEADER};
use super::response::{BoardView, CheckRefused, Checked, GameEntry, GameList};
use super::state::AppState;

/// The API's routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/probe", get(probe))
        .route("/api/v1/mainline", get(mainline))
        .route("/api/v1/check", get(check))
        .route("/api/v1/games", get(games))
}

/// The games the explorer offers, in the menu's order: the catalogue's
/// explorer games.
pub fn explorer_games() -> impl Iterator<Item = &'static GameInfo> {
    catalogue().iter().filter(|game| game.explorer)
}

/// A query's parameters, checked: only the names a route knows, each once.
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    pub(crate) fn read(
        uri: &Uri,
        query: Result<Query<Vec<(String, String)>>, QueryRejection>,
        known: &[&str],
    ) -> Result<Params, ApiError> {
        let length = uri.query().map_or(0, str::len);
        if length > MAX_QUERY_BYTES {
            return Err(ApiError::request(format!(
                "query of {length} bytes is longer than the limit of {MAX_QUERY_BYTES}"
            )));
        }
        let Query(pairs) =
            query.map_err(|e| ApiError::request(format!("malformed query: {}", e.body_text())))?;
        for (i, (name, _)) in pairs.iter().enumerate() {
            if !known.contains(&name.as_str()) {
                return Err(ApiError::request(format!(
                    "unknown parameter {name:?}: expected {}",
                    known.join(", ")
                )));
            }
            if pairs[..i].iter().any(|(other, _)| other == name) {
                return Err(ApiError::request(format!("parameter {name:?} given twice")));
            }
        }
        Ok(Params(pairs))
    }

    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.get(name)
            .ok_or_else(|| ApiError::request(format!("missing parameter {name:?}")))
    }

    pub(crate) fn game(&self) -> Result<GameId, ApiError> {
        Ok(self.required("game")?.parse().map_err(Error::from)?)
    }
}

/// Runs `ask` on the oracle. A game with a table is answered in place; a
/// game without one is searched on a blocking thread once the request is
/// admitted ([`admission::run`]: a search slot, the client's rate, and the
/// request's one stop for everything it searches — its deadline and node
/// budget, cancelled when the request ends — so no search outlives its
/// request).
pub async fn ask<T: Send + 'static>(
    state: &AppState,
    game: GameId,
    ask: impl FnOnce(&Oracle, &Stop) -> Result<T, Error> + Send + 'static,
) -> Result<T, ApiError> {
    if state.tables.answers_in_place(&game) {
        // A table answer takes microseconds (the tables were opened when
        // the server started): answered right here on the async worker,
        // without the hand-off to a blocking thread, which costs more than
        // the answer (measured by `solvedb bench http`).
        return Ok(ask(&state.oracle, &Stop::default())?);
    }
    admission::run(state, move |oracle, stop| Ok(ask(oracle, stop)?)).await
}

/// Refuses a position the game's rules cannot read before it waits for a
/// search slot: a malformed position is the client's error, answered at
/// once, however busy the searches are. A table answered in place needs no
/// check (the oracle reads it there and then).
pub(crate) fn check_before_admission(
    state: &AppState,
    game: GameId,
    position: &str,
) -> Result<(), ApiError> {
    if state.tables.answers_in_place(&game) {
        return Ok(());
    }
    with_game!(game, g => g.parse(position).map(drop).map_err(Error::from))?;
    Ok(())
}

/// The oracle's report of `position`, or `None` where it is unknown within
/// the budget (or the oracle fails: a room's game goes on without values,
/// a session's move goes unjudged). Off the complete tables it is what
/// [`proven_of`] settled, searched once per position.
pub async fn report_of(state: &AppState, game: GameId, position: &str) -> Option<Report> {
    if state.tables.answers_in_place(&game) {
        let position = position.to_owned();
        return ask(state, game, move |oracle, stop| {
            oracle.answer_within(game, &position, Want::Moves, stop)
        })
        .await
        .ok();
    }
    match proven_of(state, game, position).await {
        Ok(Proven::Answer(report)) => Some(report),
        _ => None,
    }
}

/// [`report_of`] for the move of a computer that plays the best move:
/// where a table answers the position, its answer as the tables give it
/// (their best move, without the search of the moves they leave open,
/// which the computer would wait for and not use).
pub async fn report_for_best(state: &AppState, game: GameId, position: &str) -> Option<Report> {
    if state.tables.answers_in_place(&game) {
        return report_of(state, game, position).await;
    }
    match proven_for(state, game, position, Want::Best, |_| {}).await {
        Ok(Proven::Answer(report)) => Some(report),
        _ => None,
    }
}

/// What is proved of `position` off the complete tables: kept from an
/// earlier request, else settled now ([`settle`]: forced play first, then
/// the search) within a search slot and the request's limits, as every
/// search is ([`ask`]), and kept. A search stopped because its request
/// ended is not kept (it proved less than a whole search would).
pub async fn proven_of(state: &AppState, game: GameId, position: &str) -> Result<Proven, ApiError> {
    proven_with_progress(state, game, position, |_| {}).await
}

/// `position` in the game's own notation, as the kept answers are keyed.
fn normal_form(game: GameId, position: &str) -> Result<String, ApiError> {
    Ok(with_game!(game, g => g.parse(position).map(|p| g.notation(p)).map_err(Error::from))?)
}

/// Whether answering `position` takes a live search: no table answers it
/// in place and no answer to it is kept.
pub(crate) fn needs_search(state: &AppState, game: GameId, position: &str) -> bool {
    !state.tables.answers_in_place(&game)
        && normal_form(game, position).is_ok_and(|normal| state.proven.get(game, &normal).is_none())
}

/// [`proven_of`], `progress` told what is proved as the search goes (after
/// forced play, and after each move it settles), on the search's thread.
pub async fn proven_with_progress(
    state: &AppState,
    game: GameId,
    position: &str,
    progress: impl FnMut(&Proven) + Send + 'static,
) -> Result<Proven, ApiError> {
    proven_for(state, game, position, Want::Moves, progress).await
}

/// [`proven_with_progress`] for what `want` needs ([`settle`]): a table's
/// answer that [`Want::Best`] took without searching the moves it leaves
/// open is not kept, so a later request for every move searches them.
async fn proven_for(
    state: &AppState,
    game: GameId,
    position: &str,
    want: Want,
    progress: impl FnMut(&Proven) + Send + 'static,
) -> Result<Proven, ApiError> {
    let normal = normal_form(game, position)?;
    if let Some(proven) = state.proven.get(game, &normal) {
        return Ok(proven);
    }
    let time = state.limits.search_time;
    let text = normal.clone();
    // Told from the search's thread, one call at a time.
    let progress = std::sync::Mutex::new(progress);
    let progress: Progress = std::sync::Arc::new(move |proven: &Proven| {
        (progress
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner))(proven);
    });
    let (settled, cancelled) = ask(state, game, move |oracle, stop| {
        let settled = settle(oracle, game, &text, want, stop, time, progress)?;
        Ok((settled, stop.is_cancelled()))
    })
    .await?;
    if settled.searched {
        state.proven.count_search();
    }
    let moves_left_open =
        want == Want::Best && matches!(&settled.proven, Proven::Answer(r) if !r.unknown.is_empty());
    if !cancelled && !moves_left_open {
        state.proven.put(game, &normal, settled.proven.clone());
    }
    Ok(settled.proven)
}

/// A move proved best at `position`: the first move of a whole answer,
/// or one whose proved lower bound reaches the value's upper bound
/// ([`Proven::best_move`]); `None` where none is proved within the limits.
pub async fn proven_best(state: &AppState, game: GameId, position: &str) -> Option<String> {
    if state.tables.answers_in_place(&game) {
        let report = report_of(state, game, position).await?;
        return report.moves.first().map(|m| m.mv.clone());
    }
    let proven = proven_for(state, game, position, Want::Best, |_| {})
        .await
        .ok()?;
    proven.best_move().map(str::to_owned)
}

/// The header that counts the server's searches ([`SEARCHES_HEADER`]).
pub fn with_search_count(state: &AppState, mut response: Response) -> Response {
    response.headers_mut().insert(
        SEARCHES_HEADER,
        axum::http::HeaderValue::from(state.proven.searches()),
    );
    response
}

fn reply(answer: Result<Json, ApiError>) -> Response {
    match answer {
        Ok(json) => axum::Json(json).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn probe(
    State(state): State<AppState>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let response = reply_bounded(
        async {
            let params = Params::read(&uri, query, &["game", "position", "want"])?;
            let game = params.game()?;
            let position = params.required("position")?.to_owned();
            let want = match params.get("want") {
                None => Want::Moves,
                Some(word) => Want::parse(word).ok_or_else(|| ApiError::request(Want::EXPECTED))?,
            };
            check_before_admission(&state, game, &position)?;
            if want != Want::Value && !state.tables.answers_in_place(&game) {
                // Off the complete tables: settled once, forced play first.
                return Ok(proven_for(&state, game, &position, want, |_| {})
                    .await?
                    .to_json_for(want));
            }
            // A search that stopped having proved bounds answers with them:
            // the error object of kind `budget` and its `bounds`.
            let answer = ask(&state, game, move |oracle, stop| {
                match oracle.answer_within(game, &position, want, stop) {
                    Ok(report) => Ok(Ok(report.to_json_for(want))),
                    Err(e) if e.bounds().is_some() => Ok(Err((e.kind(), error_json_of(&e)))),
                    Err(e) => Err(e),
                }
            })
            .await?;
            Ok(answer)
        }
        .await,
    );
    with_search_count(&state, response)
}

/// [`reply`] for an answer that may be an error with bounds.
fn reply_bounded(answer: Result<Result<Json, (ErrorKind, Json)>, ApiError>) -> Response {
    match answer {
        Ok(Ok(json)) => axum::Json(json).into_response(),
        Ok(Err((kind, body))) => (status_of(kind), axum::Json(body)).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn mainline(
    State(state): State<AppState>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    reply(
        async {
            let params = Params::read(&uri, query, &["game", "position"])?;
            let game = params.game()?;
            let position = params.required("position")?.to_owned();
            check_before_admission(&state, game, &position)?;
            ask(&state, game, move |oracle, stop| {
                Ok(oracle.mainline_within(game, &position, stop)?.to_json())
            })
            .await
        }
        .await,
    )
}

/// Why a check failed: the error, and the index of the move that could
/// not be played and the rules' reason (none if the position itself is
/// refused).
struct Refused {
    at: Option<(usize, String)>,
    error: ApiError,
}

impl From<Error> for Refused {
    fn from(e: Error) -> Refused {
        Refused {
            at: None,
            error: e.into(),
        }
    }
}

impl From<ApiError> for Refused {
    fn from(error: ApiError) -> Refused {
        Refused { at: None, error }
    }
}

/// A position and the moves played from it, by the rules: the position
/// and the moves normalised, and the position reached.
fn replay(
    game: GameId,
    position: &str,
    moves: &[&str],
) -> Result<(String, Vec<String>, String), Refused> {
    with_game!(game, g => {
        let start = g.parse(position).map_err(Error::from)?;
        let mut at = start;
        let mut played = Vec::new();
        for (i, &text) in moves.iter().enumerate() {
            let next = g.parse_move(text).and_then(|m| Ok((m, g.play_notation(at, text)?)));
            let (m, next) = next.map_err(|e| {
                // The rules' reason alone, for a page that names the move its own way.
                let reason = match &e {
                    PositionError::BadMove { reason, .. } => reason.clone(),
                    PositionError::IllegalMove { reason, .. } => (*reason).to_owned(),
                    other => other.to_string(),
                };
                let e = ApiError::from(Error::from(e));
                let message = format!("move {} of {} ({text}): {}", i + 1, moves.len(), e.message);
                Refused { at: Some((i, reason)), error: ApiError { message, ..e } }
            })?;
            played.push(m.to_string());
            at = next;
        }
        Ok((g.notation(start), played, g.notation(at)))
    })
}

async fn check(uri: Uri, query: Result<Query<Vec<(String, String)>>, QueryRejection>) -> Response {
    let answer = (|| -> Result<Checked, Refused> {
        let params = Params::read(&uri, query, &["game", "position", "moves"])?;
        let game = params.game()?;
        let position = params.required("position")?;
        let moves = params.get("moves");
        let list: Vec<&str> = moves.unwrap_or("").split_whitespace().collect();
        let (normal, played, last) = replay(game, position, &list)?;
        let (moves, last) = match moves {
            Some(_) => (Some(played), Some(last)),
            None => (None, None),
        };
        Ok(Checked {
            game: game.to_string(),
            position: normal,
            moves,
            last,
        })
    })();
    match answer {
        Ok(checked) => axum::Json(checked).into_response(),
        Err(Refused { at, error }) => {
            let (at, reason) = at.unzip();
            let body = CheckRefused {
                error: solvedb_lookup::error_json(Some(error.kind), &error.message),
                at,
                reason,
            };
            (status_of(error.kind), axum::Json(body)).into_response()
        }
    }
}

async fn games(State(state): State<AppState>) -> Response {
    let games: Vec<GameEntry> = explorer_games()
        .filter_map(|game| {
            let start = with_game!(game.id, g => Ok::<_, Error>(g.notation(g.start()))).ok()?;
            let sides: Vec<String> = game.board.sides().iter().map(char::to_string).collect();
            Some(GameEntry {
                game: game.name(),
                title: game.title.clone(),
                kind: game.board.kind().as_str(),
                board: BoardView::of(game.board),
                sides,
                start,
                table: state.tables.contains(&game.id),
                table_covers_every_position: state.tables.answers_in_place(&game.id),
            })
        })
        .collect();
    axum::Json(GameList {
        games,
        search_seconds: state.limits.search_time.as_secs_f64(),
    })
    .into_response()
}
