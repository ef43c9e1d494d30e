//! A quota per client on the pool of games against the computer: one
//! address never holds more than its quota (its new game ends its oldest),
//! a reserve is kept for clients with none open, and sessions where the
//! person never moved are taken back soon.

use crate::hostile;

use std::time::Duration;

use hostile::{JSON, Server, a_write, other, quick, request};
use serde_json::{Value, json};
use solvedb_server::http::sessions::SessionLimits;
use solvedb_server::http::{AppState, ServerLimits};
use solvedb_tests::committed_tables;

async fn begin(server: &Server, client: u8) -> (u16, Value) {
    let (status, _, json) = request(
        server,
        other(client),
        "POST",
        "/api/v1/sessions",
        &[JSON],
        &a_write(),
    )
    .await;
    (status, json)
}

async fn state_of(server: &Server, session: &Value) -> u16 {
    let body = json!({ "session": session["session"] }).to_string();
    let path = "/api/v1/sessions/state";
    request(server, other(9), "POST", path, &[JSON], &body)
        .await
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_have_a_quota_per_client_and_a_reserve() {
    let limits = SessionLimits {
        sessions: 6,
        per_client: 2,
        reserve: 2,
        unplayed: Duration::from_millis(500),
        ..SessionLimits::default()
    };
    let state = AppState::new(&committed_tables(), quick(ServerLimits::default()))
        .unwrap()
        .with_session_limits(limits);
    let server = hostile::serve(state).await;
    // One address: its third game ends its first.
    let (_, first) = begin(&server, 1).await;
    for _ in 0..2 {
        assert_eq!(begin(&server, 1).await.0, 201);
    }
    assert_eq!(state_of(&server, &first).await, 400, "the oldest was ended");
    // Four open: the last two are kept for clients with none.
    for _ in 0..2 {
        assert_eq!(begin(&server, 2).await.0, 201);
    }
    let (status, json) = begin(&server, 1).await;
    assert_eq!(status, 201, "its own oldest made way: {json}");
    let (status, json) = begin(&server, 3).await;
    assert_eq!(status, 201, "a new client uses the reserve: {json}");
    let (status, json) = begin(&server, 2).await;
    assert_eq!(status, 201, "its own oldest made way: {json}");
    let (status, json) = begin(&server, 4).await;
    assert_eq!(status, 201, "a new client uses the reserve: {json}");
    let (status, json) = begin(&server, 5).await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    // Sessions where nobody moved are taken back after a while.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let (status, json) = begin(&server, 5).await;
    assert_eq!(status, 201, "{json}");
    server.stop().await;
}
