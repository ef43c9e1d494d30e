//! The server under hostile load, small and quick (issue 23): slow and idle
//! clients, connection caps, shedding, the request's deadline and the
//! cancellation of its searches, a bounded shutdown, cross-site refusal,
//! write rates, and the rooms' quotas, invite, seat reservation and move
//! clock. Every limit is set short through `ServerLimits` and `RoomLimits`;
//! clients from other addresses bind 127.0.0.x (all of 127/8 is loopback).

mod roomkit;

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use roomkit::Player;
use serde_json::{Value, json};
use solvedb_server::http::rooms::RoomLimits;
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;

struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), String>>,
}

async fn start(limits: ServerLimits, rooms: RoomLimits) -> Server {
    let state = AppState::new(&committed_tables(), limits)
        .unwrap()
        .with_room_limits(rooms);
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        http::serve_until(listener, state, async {
            let _ = stopped.await;
        })
        .await
        .map_err(|e| e.to_string())
    });
    Server {
        addr,
        stop: Some(stop),
        task,
    }
}

impl Server {
    /// Stops the server; how long it took to end.
    async fn stop(mut self) -> Duration {
        let started = Instant::now();
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(20), self.task)
            .await
            .expect("the server stops")
            .unwrap()
            .unwrap();
        started.elapsed()
    }
}

fn me() -> IpAddr {
    "127.0.0.1".parse().unwrap()
}

fn other(n: u8) -> IpAddr {
    IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1 + n))
}

async fn tcp_from(source: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(source, 0)).unwrap();
    socket.connect(to).await.unwrap()
}

/// Reads until the server closes the connection; what it sent, or `None`
/// if it stayed open for `within`.
async fn closed_within(tcp: &mut TcpStream, within: Duration) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(within, async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .ok()?;
    Some(String::from_utf8_lossy(&got).into_owned())
}

/// One request on its own connection from `source`: status, headers
/// (lower case) and the body as JSON (`null` when not JSON).
async fn request(
    server: &Server,
    source: IpAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, Value) {
    let mut tcp = tcp_from(source, server.addr).await;
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {}\r\n", server.addr));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    tcp.write_all(head.as_bytes()).await.unwrap();
    let answer = closed_within(&mut tcp, Duration::from_secs(30))
        .await
        .expect("an answer");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (
        status,
        head.to_ascii_lowercase(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const PROBE: &str = "/api/v1/probe?game=tictactoe&position=X../.O./...";
const SEARCH_5X5: &str = "/api/v1/probe?game=dots:5x5&position=5x5:";

/// A write: a game against the computer begun (`POST /api/v1/sessions`).
fn a_write() -> String {
    json!({"game": "tictactoe", "first": "person", "second": "random",
           "player": "hostile-load-test-0001"})
    .to_string()
}

fn quick(limits: ServerLimits) -> ServerLimits {
    ServerLimits {
        write_burst: 1000,
        writes_per_second: 1000.0,
        ..limits
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_idle_connections_are_closed() {
    let limits = quick(ServerLimits {
        header_read: Duration::from_millis(400),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    // Headers a byte at a time (slowloris): closed at the header deadline.
    let mut slow = tcp_from(other(1), server.addr).await;
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let dripping = async {
        for _ in 0..40 {
            if slow.write_all(b"X").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(3), dripping).await;
    assert!(
        closed_within(&mut slow, Duration::from_secs(3))
            .await
            .is_some(),
        "a slow header is cut off"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    // A keep-alive connection idle after its answer, and one that never
    // sends anything: both closed.
    let mut idle = tcp_from(other(2), server.addr).await;
    idle.write_all(format!("GET {PROBE} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let answer = closed_within(&mut idle, Duration::from_secs(3))
        .await
        .expect("closed once idle");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut silent = tcp_from(other(3), server.addr).await;
    assert!(
        closed_within(&mut silent, Duration::from_secs(3))
            .await
            .is_some()
    );
    // Headers larger than the limit are refused.
    let mut big = tcp_from(other(4), server.addr).await;
    let pad = format!("X-Pad: {}\r\n", "a".repeat(1000));
    let _ = big
        .write_all(format!("GET / HTTP/1.1\r\nHost: x\r\n{}", pad.repeat(40)).as_bytes())
        .await;
    let answer = closed_within(&mut big, Duration::from_secs(3))
        .await
        .expect("closed");
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "{answer}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_body_times_out_and_holds_no_request_slot() {
    let limits = quick(ServerLimits {
        body_read: Duration::from_millis(500),
        in_flight: 1,
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    let mut slow = tcp_from(other(1), server.addr).await;
    slow.write_all(
        format!(
            "POST /api/v1/sessions HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: 100\r\n\r\n{{",
            server.addr
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    // While the body dribbles, the one request slot is free.
    let (status, headers, _) = request(&server, me(), "GET", PROBE, &[], "").await;
    assert_eq!(status, 200);
    assert!(
        headers.contains("x-content-type-options: nosniff"),
        "{headers}"
    );
    let answer = closed_within(&mut slow, Duration::from_secs(3))
        .await
        .expect("answered");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains(r#""kind":"request""#), "{answer}");
    server.stop().await;
}

/// Writes `raw` on a connection of its own; the status line answered.
async fn raw_status(server: &Server, raw: &str) -> String {
    let mut tcp = tcp_from(me(), server.addr).await;
    tcp.write_all(raw.as_bytes()).await.unwrap();
    let answer = closed_within(&mut tcp, Duration::from_secs(5))
        .await
        .unwrap_or_else(|| panic!("an answer within 5 s to {raw:?}"));
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lying_clients_are_refused_at_once() {
    let limits = quick(ServerLimits {
        body_read: Duration::from_secs(30),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    let host = server.addr.to_string();
    let post = |rest: &str| {
        format!(
            "POST /api/v1/sessions HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
             Content-Type: application/json\r\n{rest}"
        )
    };
    let game = a_write();
    let too_big = format!("{:x}\r\n{}\r\n", 3000, " ".repeat(3000));
    for (what, raw) in [
        // A length far past the limit, with a byte sent: refused without
        // waiting for the rest (the body timeout here is 30 s).
        ("a huge length", post("Content-Length: 1000000\r\n\r\n{")),
        // Both a length and chunks (request smuggling).
        (
            "length and chunks",
            post(&format!(
                "Content-Length: {}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                5
            )),
        ),
        // A length shorter than the body sent: the body read is cut JSON.
        (
            "a short length",
            post(&format!("Content-Length: 5\r\n\r\n{game}")),
        ),
        // A body far past the limit, sent whole: its refusal arrives (the
        // server reads what it was sent before it closes, no reset).
        (
            "a big body sent whole",
            post(&format!(
                "Content-Length: 100000\r\n\r\n{}",
                " ".repeat(100_000)
            )),
        ),
        // JSON said, not sent.
        ("not JSON", post("Content-Length: 9\r\n\r\nnot json!")),
        // Chunks that add up past the limit.
        (
            "chunks past the limit",
            post(&format!(
                "Transfer-Encoding: chunked\r\n\r\n{too_big}{too_big}0\r\n\r\n"
            )),
        ),
        // A game against the computer with no computer in it.
        (
            "two people claiming a computer game",
            post(&{
                let body = json!({"game": "tictactoe", "first": "person", "second": "person",
                                  "player": "hostile-load-test-0001"})
                .to_string();
                format!("Content-Length: {}\r\n\r\n{body}", body.len())
            }),
        ),
    ] {
        let started = Instant::now();
        let status = raw_status(&server, &raw).await;
        assert!(status.starts_with("HTTP/1.1 4"), "{what}: {status}");
        assert!(started.elapsed() < Duration::from_secs(3), "{what}");
    }
    // Nothing of those was recorded.
    let (_, _, board) = request(
        &server,
        me(),
        "GET",
        "/api/v1/leaderboard?game=tictactoe",
        &[],
        "",
    )
    .await;
    assert_eq!(board["entries"], json!([]), "{board}");
    // A WebSocket frame of 64 KiB (the limit is 16 KiB): its Close 1009
    // arrives, not a reset.
    let made = post_room(&server, me()).await;
    let mut big = ws_from(&server, me(), made["room"].as_str().unwrap(), None)
        .await
        .unwrap();
    big.send("x".repeat(64 * 1024)).await;
    assert_eq!(close_reason(&mut big).await.0, 1009);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_caps_are_refused_at_once() {
    let limits = quick(ServerLimits {
        connections: 3,
        connections_per_address: 2,
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    let _a = tcp_from(other(1), server.addr).await;
    let _b = tcp_from(other(1), server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A third from the same address: 503 and the error object, at once.
    let started = Instant::now();
    let (status, _, json) = request(&server, other(1), "GET", PROBE, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // Another address is served.
    let (status, _, _) = request(&server, other(2), "GET", PROBE, &[], "").await;
    assert_eq!(status, 200);
    // The global cap: a third connection open, a fourth from anywhere is
    // refused.
    let _c = tcp_from(other(3), server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, _, json) = request(&server, other(4), "GET", PROBE, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_with_half_a_request_ends_within_its_deadline() {
    let limits = quick(ServerLimits {
        header_read: Duration::from_secs(60),
        shutdown: Duration::from_millis(500),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    let mut half = tcp_from(other(1), server.addr).await;
    half.write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
    // And a WebSocket that never reads its Close frame.
    let made = post_room(&server, me()).await;
    let _ws = ws_from(&server, me(), made["room"].as_str().unwrap(), None)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let took = server.stop().await;
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(
        closed_within(&mut half, Duration::from_secs(2))
            .await
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_stops_when_its_request_ends() {
    let limits = quick(ServerLimits {
        searches: 1,
        search_queue: 4,
        queue_wait: Duration::from_secs(3),
        search_time: Duration::from_secs(60),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    // A search that would run a minute, its client gone after 300 ms.
    let mut gone = tcp_from(other(1), server.addr).await;
    gone.write_all(format!("GET {SEARCH_5X5} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(gone);
    // The next search gets the one slot well before the first's minute.
    let late = "/api/v1/probe?game=dots:4x4&position=4x4:1111111111111111111111111111111111110000";
    let started = Instant::now();
    let (status, _, json) = request(&server, me(), "GET", late, &[], "").await;
    assert_eq!(status, 200, "{json}");
    assert!(started.elapsed() < Duration::from_secs(3));
    // The same when the request runs out of its own time.
    let timed = quick(ServerLimits {
        searches: 1,
        search_queue: 4,
        queue_wait: Duration::from_secs(3),
        search_time: Duration::from_secs(60),
        request_time: Duration::from_millis(300),
        ..ServerLimits::default()
    });
    server.stop().await;
    let server = start(timed, RoomLimits::default()).await;
    let started = Instant::now();
    let (status, headers, json) = request(&server, me(), "GET", SEARCH_5X5, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(
        headers.contains("content-type: application/json"),
        "{headers}"
    );
    assert!(
        json["error"].as_str().unwrap().contains("longer than"),
        "{json}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    let (status, _, json) = request(&server, me(), "GET", late, &[], "").await;
    assert_eq!(status, 200, "{json}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_deadline_covers_every_search_of_a_request() {
    let limits = quick(ServerLimits {
        search_time: Duration::from_millis(500),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    for path in [
        SEARCH_5X5.to_owned(),
        "/api/v1/mainline?game=dots:5x5&position=5x5:".to_owned(),
    ] {
        let started = Instant::now();
        let (status, _, json) = request(&server, me(), "GET", &path, &[], "").await;
        assert_eq!(
            (status, json["kind"].as_str()),
            (503, Some("budget")),
            "{json}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{path}");
    }
    // A game against the perfect level on 5x5, the computer first: its
    // move needs a search, stopped by the request's one deadline, and the
    // computer plays its classic level instead, within the deadline.
    let body = json!({"game": "dots:5x5", "first": "perfect", "second": "person",
                      "player": "hostile-load-test-0001"})
    .to_string();
    let started = Instant::now();
    let (status, _, json) =
        request(&server, me(), "POST", "/api/v1/sessions", &[JSON], &body).await;
    assert_eq!(status, 201, "{json}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(json["history"].as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(json["by"][0], "classic", "{json}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_search_queue_sheds_at_once() {
    let limits = quick(ServerLimits {
        searches: 1,
        search_queue: 0,
        search_time: Duration::from_secs(2),
        ..ServerLimits::default()
    });
    let server = std::sync::Arc::new(start(limits, RoomLimits::default()).await);
    let busy = {
        let server = server.clone();
        tokio::spawn(async move { request(&server, other(1), "GET", SEARCH_5X5, &[], "").await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The queue holds nobody: refused at once.
    let started = Instant::now();
    let (status, _, json) = request(&server, other(2), "GET", SEARCH_5X5, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(json["error"].as_str().unwrap().contains("slot"), "{json}");
    assert!(started.elapsed() < Duration::from_millis(1000));
    // Tables answer meanwhile.
    let (status, _, _) = request(&server, me(), "GET", PROBE, &[], "").await;
    assert_eq!(status, 200);
    let _ = busy.await;
    let server = std::sync::Arc::into_inner(server).unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_past_the_in_flight_cap_are_shed_with_the_error_object() {
    let limits = quick(ServerLimits {
        searches: 1,
        search_time: Duration::from_secs(2),
        in_flight: 1,
        ..ServerLimits::default()
    });
    let server = std::sync::Arc::new(start(limits, RoomLimits::default()).await);
    let busy = {
        let server = server.clone();
        tokio::spawn(async move { request(&server, other(1), "GET", SEARCH_5X5, &[], "").await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let (status, headers, json) = request(&server, me(), "GET", PROBE, &[], "").await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(headers.contains("retry-after"), "{headers}");
    assert!(started.elapsed() < Duration::from_millis(1000));
    let (status, _, _) = busy.await.unwrap();
    assert_eq!(status, 503);
    let (status, _, _) = request(&server, me(), "GET", PROBE, &[], "").await;
    assert_eq!(status, 200);
    std::sync::Arc::into_inner(server).unwrap().stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_from_another_site_are_refused() {
    let server = start(quick(ServerLimits::default()), RoomLimits::default()).await;
    let game = a_write();
    let own = format!("http://{}", server.addr);
    for path in ["/api/v1/sessions", "/api/v1/rooms"] {
        let body = if path == "/api/v1/rooms" {
            r#"{"game":"tictactoe"}"#
        } else {
            game.as_str()
        };
        for headers in [
            vec![("Content-Type", "text/plain")],
            vec![],
            vec![JSON, ("Origin", "http://evil.example")],
            vec![JSON, ("Origin", "null")],
            vec![JSON, ("Sec-Fetch-Site", "cross-site")],
            vec![
                JSON,
                ("Host", "evil.example"),
                ("Origin", "http://evil.example"),
            ],
        ] {
            let (status, _, json) = request(&server, me(), "POST", path, &headers, body).await;
            assert_eq!(
                (status, json["kind"].as_str()),
                (400, Some("request")),
                "{path} {headers:?}: {json}"
            );
        }
        let (status, _, json) = request(
            &server,
            me(),
            "POST",
            path,
            &[JSON, ("Origin", own.as_str())],
            body,
        )
        .await;
        assert_eq!(status, 201, "{path}: {json}");
        let (status, _, _) = request(&server, me(), "POST", path, &[JSON], body).await;
        assert_eq!(status, 201, "{path} without Origin (not a browser)");
    }
    // WebSocket upgrades from another site are refused; from this one, not.
    let made = post_room(&server, me()).await;
    let room = made["room"].as_str().unwrap().to_owned();
    assert_eq!(
        ws_from(&server, me(), &room, Some("http://evil.example"))
            .await
            .err(),
        Some(400)
    );
    assert!(ws_from(&server, me(), &room, Some(&own)).await.is_ok());
    // nosniff on every answer: JSON, errors, the page.
    for path in [PROBE, "/api/v1/nothing", "/", "/assets/app.js"] {
        let (_, headers, _) = request(&server, me(), "GET", path, &[], "").await;
        assert!(
            headers.contains("x-content-type-options: nosniff"),
            "{path}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_rate_limited_per_address() {
    let limits = ServerLimits {
        write_burst: 3,
        writes_per_second: 0.01,
        ..ServerLimits::default()
    };
    let server = start(limits, RoomLimits::default()).await;
    let game = a_write();
    for _ in 0..3 {
        let (status, _, json) =
            request(&server, me(), "POST", "/api/v1/sessions", &[JSON], &game).await;
        assert_eq!(status, 201, "{json}");
    }
    let (status, headers, json) =
        request(&server, me(), "POST", "/api/v1/sessions", &[JSON], &game).await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(headers.contains("retry-after"), "{headers}");
    // Reads are not writes; another address has its own bucket.
    let (status, _, _) = request(&server, me(), "GET", PROBE, &[], "").await;
    assert_eq!(status, 200);
    let (status, _, _) = request(
        &server,
        other(1),
        "POST",
        "/api/v1/sessions",
        &[JSON],
        &game,
    )
    .await;
    assert_eq!(status, 201);
    server.stop().await;
}

// ---- rooms ---------------------------------------------------------------------

async fn post_room(server: &Server, source: IpAddr) -> Value {
    let (status, _, made) = request(
        server,
        source,
        "POST",
        "/api/v1/rooms",
        &[JSON],
        r#"{"game":"tictactoe"}"#,
    )
    .await;
    assert_eq!(status, 201, "{made}");
    made
}

async fn claim(server: &Server, made: &Value) -> (u16, Value) {
    let room = made["room"].as_str().unwrap();
    let invite = made["invite"]
        .as_str()
        .unwrap()
        .split("invite=")
        .nth(1)
        .unwrap();
    let (status, _, json) = request(
        server,
        me(),
        "POST",
        &format!("/api/v1/rooms/{room}/claim"),
        &[JSON],
        &json!({ "invite": invite }).to_string(),
    )
    .await;
    (status, json)
}

/// A WebSocket from `source` (a spectator without `token`), with `origin`.
async fn ws_from(
    server: &Server,
    source: IpAddr,
    room: &str,
    origin: Option<&str>,
) -> Result<Player, u16> {
    ws_seat(server, source, room, None, origin).await
}

async fn ws_seat(
    server: &Server,
    source: IpAddr,
    room: &str,
    token: Option<&str>,
    origin: Option<&str>,
) -> Result<Player, u16> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut url = format!("ws://{}/api/v1/rooms/{room}/ws", server.addr);
    if let Some(token) = token {
        // Each seat with a browser identity of its own, so its games count
        // on the leaderboard.
        url.push_str(&format!("?token={token}&player=seat-{token}"));
    }
    let mut request = url.into_client_request().unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("origin", origin.parse().unwrap());
    }
    let tcp = tcp_from(source, server.addr).await;
    match tokio_tungstenite::client_async(request, tokio_tungstenite::MaybeTlsStream::Plain(tcp))
        .await
    {
        Ok((ws, _)) => Ok(Player { ws }),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("connecting: {e}"),
    }
}

/// The reason of the Close frame the server sends next.
async fn close_reason(p: &mut Player) -> (u16, String) {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), p.ws.next())
            .await
            .expect("a Close within 10 s")
        {
            Some(Ok(Message::Close(Some(frame)))) => {
                return (u16::from(frame.code), frame.reason.to_string());
            }
            Some(Ok(_)) => {}
            other => panic!("ended without a Close frame: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_per_address_quota_and_creation_rate() {
    let rooms = RoomLimits {
        per_address: 2,
        create_burst: 3,
        creates_per_second: 0.001,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    post_room(&server, other(1)).await;
    post_room(&server, other(1)).await;
    let (status, _, json) = request(
        &server,
        other(1),
        "POST",
        "/api/v1/rooms",
        &[JSON],
        r#"{"game":"tictactoe"}"#,
    )
    .await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(
        json["error"].as_str().unwrap().contains("rooms open"),
        "{json}"
    );
    // Another address has its own quota; its rate runs out after 3.
    for _ in 0..2 {
        post_room(&server, other(2)).await;
    }
    let many = RoomLimits {
        per_address: 100,
        create_burst: 3,
        creates_per_second: 0.001,
        ..RoomLimits::default()
    };
    server.stop().await;
    let server = start(quick(ServerLimits::default()), many).await;
    for _ in 0..3 {
        post_room(&server, other(3)).await;
    }
    let (status, _, json) = request(
        &server,
        other(3),
        "POST",
        "/api/v1/rooms",
        &[JSON],
        r#"{"game":"tictactoe"}"#,
    )
    .await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    post_room(&server, other(4)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_nobody_joined_expires_sooner() {
    let rooms = RoomLimits {
        unjoined: Duration::from_millis(400),
        idle: Duration::from_secs(60),
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let lonely = post_room(&server, me()).await;
    let joined = post_room(&server, me()).await;
    let (status, _) = claim(&server, &joined).await;
    assert_eq!(status, 200);
    let mut creator = ws_seat(
        &server,
        me(),
        lonely["room"].as_str().unwrap(),
        lonely["token"].as_str(),
        None,
    )
    .await
    .unwrap();
    let (code, why) = close_reason(&mut creator).await;
    assert_eq!(
        (code, why.as_str()),
        (1001, "nobody took the invite in time")
    );
    // The room whose invite was taken stays open.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        ws_from(&server, me(), joined["room"].as_str().unwrap(), None)
            .await
            .is_ok()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_invite_is_claimed_once_and_seats_keep_their_places() {
    let rooms = RoomLimits {
        connections: 4,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let made = post_room(&server, me()).await;
    // The creator gets one seat; the other is behind the invite.
    assert!(made["seats"].get("second").is_none(), "{made}");
    assert!(
        made["links"]["second"]
            .as_str()
            .unwrap()
            .contains("invite=")
    );
    let room = made["room"].as_str().unwrap().to_owned();
    let wrong =
        json!({"room": room, "invite": format!("/play?room={room}&invite={}", "0".repeat(32))});
    assert_eq!(claim(&server, &wrong).await.0, 400);
    let (status, claimed) = claim(&server, &made).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(claimed["seat"], "second");
    let second = claimed["token"].as_str().unwrap().to_owned();
    let (status, again) = claim(&server, &made).await;
    assert_eq!(
        (status, again["kind"].as_str()),
        (400, Some("request")),
        "{again}"
    );
    // Two players, two spectators: the room's 4 connections, and no more
    // spectators; a player who drops comes back.
    let first = made["token"].as_str().unwrap().to_owned();
    let mut x = ws_seat(&server, me(), &room, Some(&first), None)
        .await
        .unwrap();
    let o = ws_seat(&server, me(), &room, Some(&second), None)
        .await
        .unwrap();
    let _s1 = ws_from(&server, other(1), &room, None).await.unwrap();
    let _s2 = ws_from(&server, other(1), &room, None).await.unwrap();
    assert_eq!(
        ws_from(&server, other(1), &room, None).await.err(),
        Some(503)
    );
    drop(o);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        ws_from(&server, other(2), &room, None).await.err(),
        Some(503)
    );
    let mut o = ws_seat(&server, me(), &room, Some(&second), None)
        .await
        .unwrap();
    o.state_with(0).await;
    // A seat opened again elsewhere: the older connection gives way.
    let mut x2 = ws_seat(&server, me(), &room, Some(&first), None)
        .await
        .unwrap();
    let (code, why) = close_reason(&mut x).await;
    assert_eq!(
        (code, why.as_str()),
        (1001, "this seat was opened in another window")
    );
    x2.send_move("4").await;
    assert_eq!(o.state_with(1).await["history"], json!(["4"]));
    // The creator holds only their own seat: the friend's move is not
    // theirs to play.
    x2.send_move("0").await;
    let refused = x2.error().await;
    assert!(
        refused["error"].as_str().unwrap().contains("not your turn"),
        "{refused}"
    );
    o.send_move("0").await;
    assert_eq!(x2.state_with(2).await["history"], json!(["4", "0"]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_clock_forfeits_a_stalling_player_once_both_joined() {
    let data = tempfile::tempdir().unwrap();
    let rooms = RoomLimits {
        move_clock: Some(Duration::from_millis(500)),
        ..RoomLimits::default()
    };
    let state = AppState::new(&committed_tables(), quick(ServerLimits::default()))
        .unwrap()
        .with_room_limits(rooms)
        .with_data(data.path())
        .unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        http::serve_until(listener, state, async {
            let _ = stopped.await;
        })
        .await
        .map_err(|e| e.to_string())
    });
    let server = Server {
        addr,
        stop: Some(stop),
        task,
    };
    let made = post_room(&server, me()).await;
    let room = made["room"].as_str().unwrap().to_owned();
    let first = made["token"].as_str().unwrap().to_owned();
    // Alone in the room, the creator has no clock.
    let mut x = ws_seat(&server, me(), &room, Some(&first), None)
        .await
        .unwrap();
    assert!(x.state_with(0).await["clock"].is_null());
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, claimed) = claim(&server, &made).await;
    let mut o = ws_seat(&server, me(), &room, claimed["token"].as_str(), None)
        .await
        .unwrap();
    let state = o.state_with(0).await;
    assert!(state["result"].is_null(), "{state}");
    assert_eq!(state["clock"]["seat"], "first", "{state}");
    x.send_move("4").await;
    o.state_with(1).await;
    // The second player stalls: they forfeit, and the game is recorded.
    let over = loop {
        let state = x.next().await.expect("open");
        if !state["result"].is_null() {
            break state;
        }
    };
    assert_eq!(over["result"]["winner"], "first", "{over}");
    assert_eq!(over["result"]["forfeit"], "second", "{over}");
    assert_eq!(over["recorded"], true, "{over}");
    let (status, _, board) = request(
        &server,
        me(),
        "GET",
        "/api/v1/leaderboard?game=tictactoe",
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200);
    let tally: Vec<(u64, u64)> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["wins"].as_u64().unwrap(), e["losses"].as_u64().unwrap()))
        .collect();
    assert!(
        tally.len() == 2 && tally.contains(&(1, 0)) && tally.contains(&(0, 1)),
        "the forfeit counts a win and a loss: {board}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websockets_have_a_global_cap() {
    let rooms = RoomLimits {
        websockets: 2,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let a = post_room(&server, me()).await;
    let b = post_room(&server, other(1)).await;
    let _one = ws_from(&server, me(), a["room"].as_str().unwrap(), None)
        .await
        .unwrap();
    let two = ws_from(&server, other(1), b["room"].as_str().unwrap(), None)
        .await
        .unwrap();
    assert_eq!(
        ws_from(&server, other(2), b["room"].as_str().unwrap(), None)
            .await
            .err(),
        Some(503)
    );
    drop(two);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        ws_from(&server, other(2), b["room"].as_str().unwrap(), None)
            .await
            .is_ok()
    );
    server.stop().await;
}
