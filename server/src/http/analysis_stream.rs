//! `GET /api/v1/analysis?game=G&position=P`: a position's analysis as it
//! settles, as server-sent events. Where the search runs live, each
//! `bounds` event carries what is proved so far (the probe's error object
//! of kind `budget` with its `bounds` and `best_move`): first what forced
//! play settles, then again after each move the search settles. Where a
//! table answers the position but not every move (Qubic off the
//! strategy's line), a `moves` event first carries the table's answer (a
//! probe's `200` body, the moves not yet valued in `unknown_moves`) while
//! the search settles the rest. The last
//! event, `answer`, is what the probe answers: `{"status": 200 or 503,
//! "body": ..., "searches": N}` (`searches`: the server's count of live
//! searches run). A table's answer, or one kept from an earlier search, is
//! the `answer` event alone.
//!
//! The analysis is the probe's ([`proven_with_progress`]): the same
//! search slot, limits and kept answers; the stream ends within the
//! request's time limit. The slot is taken before the stream's `200`, so
//! a client over its rate, or a server with every slot busy, is refused
//! by status as a probe is; and the search stops when the client leaves.

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::Uri;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value as Json;
use solvedb_lookup::{GameId, Want, error_json_of};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::admission::Admission;
use super::api::{Params, ask, check_before_admission, needs_search, proven_with_progress};
use super::error::{ApiError, status_of};
use super::proven::Proven;
use super::response::StreamAnswer;
use super::state::AppState;

/// The stream's route.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/analysis", get(analysis))
}

async fn analysis(
    State(state): State<AppState>,
    uri: Uri,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let asked = (|| {
        let params = Params::read(&uri, query, &["game", "position"])?;
        let game = params.game()?;
        let position = params.required("position")?.to_owned();
        check_before_admission(&state, game, &position)?;
        Ok::<_, ApiError>((game, position))
    })();
    let (game, position) = match asked {
        Ok(asked) => asked,
        Err(e) => return e.into_response(),
    };
    let admission = Admission::for_current(&state.limits);
    if needs_search(&state, game, &position)
        && let Err(e) = admission.reserve(&state).await
    {
        return e.into_response();
    }
    let (events, received) = unbounded_channel::<Event>();
    let limit = state.limits.request_time;
    tokio::spawn(admission.scope(async move {
        let run = tokio::time::timeout(limit, run(&state, game, &position, events.clone()));
        tokio::select! {
            finished = run => {
                if finished.is_err() {
                    let e = ApiError {
                        kind: solvedb_lookup::ErrorKind::Budget,
                        message: format!(
                            "the request took longer than {} s, the limit",
                            limit.as_secs_f64()
                        ),
                    };
                    send_answer(&state, &events, Err(e));
                }
            }
            // The client left: the scope ends, its admission's stop is
            // cancelled and the search stops at its next poll.
            () = events.closed() => {}
        }
    }));
    let stream = futures_util::stream::unfold(received, |mut received| async move {
        let event = received.recv().await?;
        Some((Ok::<_, Infallible>(event), received))
    });
    // A comment every second: a client that left is noticed when a write
    // fails, so within a second, and its search stops.
    Sse::new(stream)
        .keep_alive(KeepAlive::default().interval(Duration::from_secs(1)))
        .into_response()
}

/// Sends the analysis of `position` to `events`: progress, then the
/// answer.
async fn run(state: &AppState, game: GameId, position: &str, events: UnboundedSender<Event>) {
    let answer = if state.tables.answers_in_place(&game) {
        let text = position.to_owned();
        ask(state, game, move |oracle, stop| {
            let report = oracle.answer_within(game, &text, Want::Moves, stop);
            Ok(match report {
                Ok(report) => Ok(report.to_json()),
                Err(e) => Err((e.kind(), error_json_of(&e))),
            })
        })
        .await
    } else {
        let progress = events.clone();
        proven_with_progress(state, game, position, move |proven: &Proven| {
            let event = match proven.to_json_for(Want::Moves) {
                Err((_, body)) => Event::default().event("bounds").data(body.to_string()),
                Ok(report) => Event::default().event("moves").data(report.to_string()),
            };
            // A client that left stops reading; the search ends at its
            // limits.
            let _ = progress.send(event);
        })
        .await
        .map(|proven| proven.to_json_for(Want::Moves))
    };
    send_answer(state, &events, answer);
}

/// The `answer` event: the probe's status and body, and the count of
/// searches.
fn send_answer(
    state: &AppState,
    events: &UnboundedSender<Event>,
    answer: Result<Result<Json, (solvedb_lookup::ErrorKind, Json)>, ApiError>,
) {
    let (status, body) = match answer {
        Ok(Ok(json)) => (200, json),
        Ok(Err((kind, json))) => (status_of(kind).as_u16(), json),
        Err(e) => (
            status_of(e.kind).as_u16(),
            solvedb_lookup::error_json(Some(e.kind), &e.message),
        ),
    };
    let answer = StreamAnswer {
        status,
        body,
        searches: state.proven.searches(),
    };
    let data = serde_json::to_string(&answer).unwrap_or_default();
    let _ = events.send(Event::default().event("answer").data(data));
}
