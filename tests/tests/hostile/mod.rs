//! What the tests of the server under hostile load share: a server with
//! short limits on a loopback port, raw requests on connections of their
//! own from other loopback addresses (all of 127/8 is loopback), and
//! rooms and WebSockets from those addresses.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use solvedb_server::http::rooms::RoomLimits;
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use tokio::io::AsyncReadExt;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;

use crate::roomkit::Player;

pub struct Server {
    pub addr: SocketAddr,
    pub stop: Option<oneshot::Sender<()>>,
    pub task: tokio::task::JoinHandle<Result<(), String>>,
}

pub async fn start(limits: ServerLimits, rooms: RoomLimits) -> Server {
    let state = AppState::new(&committed_tables(), limits)
        .unwrap()
        .with_room_limits(rooms);
    serve(state).await
}

/// A server of `state` on a free loopback port.
pub async fn serve(state: AppState) -> Server {
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
    pub async fn stop(mut self) -> Duration {
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

pub fn me() -> IpAddr {
    "127.0.0.1".parse().unwrap()
}

pub fn other(n: u8) -> IpAddr {
    IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1 + n))
}

pub async fn tcp_from(source: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(source, 0)).unwrap();
    socket.connect(to).await.unwrap()
}

/// Reads until the server closes the connection; what it sent, or `None`
/// if it stayed open for `within`.
pub async fn closed_within(tcp: &mut TcpStream, within: Duration) -> Option<String> {
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
pub async fn request(
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

pub const JSON: (&str, &str) = ("Content-Type", "application/json");

/// A write: a game against the computer begun (`POST /api/v1/sessions`).
pub fn a_write() -> String {
    json!({"game": "tictactoe", "first": "person", "second": "random",
           "player": "hostile-load-test-0001"})
    .to_string()
}

pub fn quick(limits: ServerLimits) -> ServerLimits {
    ServerLimits {
        write_burst: 1000,
        writes_per_second: 1000.0,
        search_burst: 1000,
        searches_per_second: 1000.0,
        ..limits
    }
}

pub async fn post_room(server: &Server, source: IpAddr) -> Value {
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

pub async fn claim(server: &Server, made: &Value) -> (u16, Value) {
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
pub async fn ws_from(
    server: &Server,
    source: IpAddr,
    room: &str,
    origin: Option<&str>,
) -> Result<Player, u16> {
    ws_seat(server, source, room, None, origin).await
}

pub async fn ws_seat(
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
pub async fn close_reason(p: &mut Player) -> (u16, String) {
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

/// A live search of seconds: dots 5x5 from its start.
pub const SEARCH_5X5: &str = "/api/v1/probe?game=dots:5x5&position=5x5:";

/// A server with one search slot (a queue of 4 that waits 3 s, searches of
/// up to a minute), its slot held for 300 ms already by a 5x5 search from
/// another address; the connection that holds it.
pub async fn one_slot_held_by_a_minute_search() -> (Server, TcpStream) {
    let limits = quick(ServerLimits {
        searches: 1,
        search_queue: 4,
        queue_wait: Duration::from_secs(3),
        search_time: Duration::from_secs(60),
        ..ServerLimits::default()
    });
    let server = start(limits, RoomLimits::default()).await;
    let mut busy = tcp_from(other(1), server.addr).await;
    busy.write_all(format!("GET {SEARCH_5X5} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    (server, busy)
}
