//! One admission for all the work a request may start: the computer's
//! classic level and the perfect player's fallback take a search slot like
//! a probe, a position is refused before it waits for one, and a session's
//! move runs under one deadline however many searches it makes. Answers
//! sent before a body was read say `Connection: close`, and the bodies
//! held at once are bounded over every connection. The analysis stream
//! takes its slot before it answers and gives it back when its client
//! leaves.

use crate::hostile;

use std::time::{Duration, Instant};

use hostile::{
    JSON, closed_within, me, one_slot_held_by_a_minute_search, other, quick, request, serve, start,
    tcp_from,
};
use serde_json::json;
use solvedb_server::http::rooms::RoomLimits;
use solvedb_server::http::{AppState, ServerLimits};
use solvedb_server::store::Seat;
use solvedb_tests::committed_tables;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CUBE_CLASSIC: &str =
    "/api/v1/computer?game=cube&position=...........................&level=classic";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_classic_computer_waits_for_a_search_slot() {
    let (server, busy) = one_slot_held_by_a_minute_search().await;
    // The one slot is held: the cube's classic move waits in the queue and
    // is refused when the wait is over, like any search.
    let started = Instant::now();
    let (status, _, json) = request(&server, me(), "GET", CUBE_CLASSIC, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(json["error"].as_str().unwrap().contains("slot"), "{json}");
    assert!(started.elapsed() >= Duration::from_secs(2), "it waited");
    // Once the slot is free the classic move is made.
    drop(busy);
    let (status, _, json) = request(&server, me(), "GET", CUBE_CLASSIC, &[], "").await;
    assert_eq!(
        (status, json["by"].as_str()),
        (200, Some("classic")),
        "{json}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_are_rate_limited_per_address() {
    let limits = ServerLimits {
        search_burst: 2,
        searches_per_second: 0.01,
        ..quick(ServerLimits::default())
    };
    let server = start(limits, RoomLimits::default()).await;
    for _ in 0..2 {
        let (status, _, json) = request(&server, me(), "GET", CUBE_CLASSIC, &[], "").await;
        assert_eq!(status, 200, "{json}");
    }
    let (status, _, json) = request(&server, me(), "GET", CUBE_CLASSIC, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    // Table answers are not searches; another address has its own rate.
    let probe = "/api/v1/probe?game=cube&position=...........................";
    let (status, _, _) = request(&server, me(), "GET", probe, &[], "").await;
    assert_eq!(status, 200);
    let (status, _, _) = request(&server, other(1), "GET", CUBE_CLASSIC, &[], "").await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_move_runs_under_one_deadline() {
    let limits = quick(ServerLimits {
        search_time: Duration::from_secs(1),
        ..ServerLimits::default()
    });
    let state = AppState::new(&committed_tables(), limits)
        .unwrap()
        .with_room_limits(RoomLimits::default());
    let store = state.store.clone();
    let server = serve(state).await;
    let body = json!({"game": "dots:5x5", "first": "person", "second": "perfect",
                      "player": "hostile-load-test-0001"})
    .to_string();
    let (status, _, made) =
        request(&server, me(), "POST", "/api/v1/sessions", &[JSON], &body).await;
    assert_eq!(status, 201, "{made}");
    // The person's move is judged by a search and the computer's answer
    // needs another: both share the request's one second.
    let body = json!({"session": made["session"], "move": "h0,0"}).to_string();
    let started = Instant::now();
    let (status, _, json) = request(
        &server,
        me(),
        "POST",
        "/api/v1/sessions/move",
        &[JSON],
        &body,
    )
    .await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["by"][1], "classic", "{json}");
    assert!(took < Duration::from_millis(1800), "{took:?}");
    // The perfect level played its classic fallback: the game is recorded
    // against the classic computer.
    let body = json!({"session": made["session"]}).to_string();
    let (status, _, json) = request(
        &server,
        me(),
        "POST",
        "/api/v1/sessions/resign",
        &[JSON],
        &body,
    )
    .await;
    assert_eq!(status, 200, "{json}");
    // Recorded (not ranked: its moves went unjudged), against the
    // classic computer.
    let game = store.game(1).unwrap().expect("the game is recorded");
    assert!(
        matches!(&game.players[1], Seat::Computer { level } if level == "classic"),
        "{:?}",
        game.players
    );
    server.stop().await;
}

/// Writes `head` (and no body) on a kept-alive connection; the answer's
/// head, and whether the server then closed the connection.
async fn refused_before_the_body(server: &hostile::Server, head: &str) -> (String, bool) {
    let mut tcp = tcp_from(me(), server.addr).await;
    tcp.write_all(head.as_bytes()).await.unwrap();
    let answer = closed_within(&mut tcp, Duration::from_secs(5)).await;
    let closed = answer.is_some();
    let text = answer.unwrap_or_default().to_ascii_lowercase();
    (
        text.split("\r\n\r\n").next().unwrap_or("").to_owned(),
        closed,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_before_the_body_closes_the_connection() {
    let limits = ServerLimits {
        write_burst: 1,
        writes_per_second: 0.01,
        ..ServerLimits::default()
    };
    let server = start(limits, RoomLimits::default()).await;
    let host = format!("Host: {}\r\n", server.addr);
    let post = |extra: &str| {
        format!("POST /api/v1/sessions HTTP/1.1\r\n{host}{extra}Content-Length: 100\r\n\r\n")
    };
    // Cross-site, too long, then over the write rate (the first write
    // takes the one token and waits for its body).
    for head in [
        post("Content-Type: text/plain\r\n"),
        format!(
            "POST /api/v1/sessions HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 99999\r\n\r\n"
        ),
    ] {
        let (answer, closed) = refused_before_the_body(&server, &head).await;
        assert!(answer.starts_with("http/1.1 400"), "{answer}");
        assert!(answer.contains("connection: close"), "{answer}");
        assert!(closed, "{answer}");
    }
    let mut first = tcp_from(me(), server.addr).await;
    first
        .write_all(post("Content-Type: application/json\r\n").as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (answer, closed) =
        refused_before_the_body(&server, &post("Content-Type: application/json\r\n")).await;
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(closed, "{answer}");
    drop(first);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bodies_held_at_once_are_bounded() {
    let limits = quick(ServerLimits {
        body_bytes: 8192,
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    let head = format!(
        "POST /api/v1/sessions HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 4000\r\n\r\n",
        server.addr
    );
    // Two bodies of 4,000 bytes on their way hold all the room there is.
    let mut slow = Vec::new();
    for n in 1..=2 {
        let mut tcp = tcp_from(other(n), server.addr).await;
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(b"{").await.unwrap();
        slow.push(tcp);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (answer, closed) = refused_before_the_body(&server, &head).await;
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(closed);
    // Requests without a body take no room.
    let probe = "/api/v1/probe?game=tictactoe&position=X../.O./...";
    let (status, _, _) = request(&server, me(), "GET", probe, &[], "").await;
    assert_eq!(status, 200);
    // A body that arrives gives its room back.
    drop(slow);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let body = hostile::a_write();
    let (status, _, json) =
        request(&server, me(), "POST", "/api/v1/sessions", &[JSON], &body).await;
    assert_eq!(status, 201, "{json}");
    server.stop().await;
}

const STREAM_5X5: &str = "/api/v1/analysis?game=dots:5x5&position=5x5:";

/// Opens the analysis stream of the empty 5×5 board from `source` and
/// reads its answer's head: the connection and the head.
async fn open_stream(server: &hostile::Server, source: std::net::IpAddr) -> (TcpStream, String) {
    let mut tcp = tcp_from(source, server.addr).await;
    let head = format!("GET {STREAM_5X5} HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr);
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(30), async {
        while !got.ends_with(b"\r\n\r\n") && tcp.read(&mut byte).await.unwrap_or(0) == 1 {
            got.push(byte[0]);
        }
    });
    read.await.expect("a head within 30 s");
    (tcp, String::from_utf8_lossy(&got).to_ascii_lowercase())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_analysis_stream_takes_its_slot_first_and_frees_it_when_its_client_leaves() {
    // One slot; searches and requests that may last minutes, so only the
    // client's leaving can free the slot within the test.
    let limits = quick(ServerLimits {
        searches: 1,
        search_queue: 4,
        queue_wait: Duration::from_secs(3),
        search_time: Duration::from_secs(120),
        request_time: Duration::from_secs(180),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    // A stream starts and its search holds the one slot.
    let (watcher, head) = open_stream(&server, me()).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("text/event-stream"), "{head}");
    // Every slot held: another stream is refused by its status, as a probe
    // is, not inside a 200.
    let (status, _, json) = request(&server, other(2), "GET", STREAM_5X5, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    // Its client leaves: the search stops and the slot comes free, long
    // before the minutes the search may take.
    drop(watcher);
    let left = Instant::now();
    let mut admitted = None;
    for n in 3..7 {
        let (tcp, head) = open_stream(&server, other(n)).await;
        if head.starts_with("http/1.1 200") {
            admitted = Some(tcp);
            break;
        }
    }
    assert!(
        admitted.is_some(),
        "the slot stayed held {:.1} s after its client left",
        left.elapsed().as_secs_f64()
    );
    server.stop().await;
}
