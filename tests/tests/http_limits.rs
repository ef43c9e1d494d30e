//! The server under hostile load, small and quick: slow and idle
//! clients, connection caps, shedding, the request's deadline and the
//! cancellation of its searches, a bounded shutdown, cross-site refusal
//! and write rates (the rooms' limits are in `room_limits.rs`). Every
//! limit is set short through `ServerLimits`; clients from other addresses
//! bind 127.0.0.x (all of 127/8 is loopback).

use crate::hostile;

use std::time::{Duration, Instant};

use hostile::{
    JSON, SEARCH_5X5, Server, a_write, close_reason, closed_within, me,
    one_slot_held_by_a_minute_search, other, post_room, quick, request, start, tcp_from, ws_from,
};
use serde_json::json;
use solvedb_server::http::ServerLimits;
use solvedb_server::http::rooms::RoomLimits;
use tokio::io::AsyncWriteExt;

const PROBE: &str = "/api/v1/probe?game=tictactoe&position=X../.O./...";

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
        // A good body with a field given twice: read one way by the server
        // and another by whatever stands before it.
        (
            "a field given twice",
            post(&{
                let body = format!("{},\"game\":\"tictactoe\"}}", game.trim_end_matches('}'));
                format!("Content-Length: {}\r\n\r\n{body}", body.len())
            }),
        ),
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
    // Frames that break RFC 6455, written past the client library: the
    // Close its section 7.4.1 names arrives, not a bare end of connection.
    for (what, raw, code) in [
        ("an unmasked frame", &[0x81u8, 0x02, b'{', b'}'][..], 1002),
        ("a reserved opcode", &[0x83, 0x80, 0, 0, 0, 0], 1002),
        // Masked with a key of zeros: the bytes as they are.
        (
            "text that is not UTF-8",
            &[0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe],
            1007,
        ),
    ] {
        let mut broken = ws_from(&server, me(), made["room"].as_str().unwrap(), None)
            .await
            .unwrap();
        let tokio_tungstenite::MaybeTlsStream::Plain(tcp) = broken.ws.get_mut() else {
            unreachable!("the tests connect without TLS")
        };
        tcp.write_all(raw).await.unwrap();
        assert_eq!(close_reason(&mut broken).await.0, code, "{what}");
    }
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
    // A search that would run a minute, its client gone after 300 ms.
    let (server, gone) = one_slot_held_by_a_minute_search().await;
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
async fn a_malformed_position_is_refused_before_it_waits_for_a_search() {
    let (server, busy) = one_slot_held_by_a_minute_search().await;
    for path in [
        "/api/v1/probe?game=qubic&position=XX",
        "/api/v1/probe?game=dots:5x5&position=5x5:h9,9",
        "/api/v1/mainline?game=dots:4x4&position=4x4:101",
        "/api/v1/computer?game=qubic&position=XX&level=classic",
        "/api/v1/computer?game=dots:5x5&position=5x5:h9,9&level=perfect",
        "/api/v1/computer?game=cube&position=XX&level=random",
    ] {
        let started = Instant::now();
        let (status, _, json) = request(&server, me(), "GET", path, &[], "").await;
        assert_eq!(
            (status, json["kind"].as_str()),
            (400, Some("position")),
            "{path}: {json}"
        );
        // At once, not after the queue's three seconds.
        assert!(started.elapsed() < Duration::from_secs(1), "{path}");
    }
    drop(busy);
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
