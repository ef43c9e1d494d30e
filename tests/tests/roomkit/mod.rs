//! What the room tests share: a server on a loopback port (with or without
//! a data directory), a raw HTTP POST, and WebSocket players.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use solvedb_server::http::rooms::RoomLimits;
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Room limits for tests: the defaults, with the per-address creation rate
/// and quota lifted (every test is on 127.0.0.1).
pub fn limits() -> RoomLimits {
    http::load::load_limits(1, 1)
}

/// A server on a free loopback port.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), String>>>,
}

impl Server {
    /// A server whose limits per address are lifted (the tests are all
    /// on 127.0.0.1), rooms bounded by `limits`.
    pub async fn start(data: Option<&Path>, limits: RoomLimits) -> Server {
        Server::start_with(data, http::load::load_server_limits(64), limits).await
    }

    pub async fn start_with(
        data: Option<&Path>,
        server_limits: ServerLimits,
        limits: RoomLimits,
    ) -> Server {
        let mut state = AppState::new(&committed_tables(), server_limits)
            .unwrap()
            .with_room_limits(limits);
        if let Some(dir) = data {
            state = state.with_data(dir).unwrap();
        }
        Server::serve(state).await
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
            task: Some(task),
        }
    }

    /// A handle on a server started elsewhere (it cannot stop it).
    pub fn at(addr: SocketAddr) -> Server {
        Server {
            addr,
            stop: None,
            task: None,
        }
    }

    /// Stops the server and waits until it has.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        // The server closes its open WebSockets and waits for them (at
        // most `http::WEBSOCKET_DRAIN`).
        tokio::time::timeout(Duration::from_secs(10), self.task.take().unwrap())
            .await
            .expect("the server stops")
            .unwrap()
            .unwrap();
    }

    /// `POST path` with a JSON body: the status and the JSON answer.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_raw(path, body.to_string().as_bytes()).await
    }

    /// `POST path` with `body` as it is: the status and the JSON answer
    /// (`null` for an empty one, as a 405's).
    pub async fn post_raw(&self, path: &str, body: &[u8]) -> (u16, Value) {
        let (status, text) = self.request("POST", path, body).await;
        if text.is_empty() {
            return (status, Value::Null);
        }
        let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
        (status, json)
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let (status, text) = self.request("GET", path, b"").await;
        let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
        (status, json)
    }

    /// One HTTP/1.1 request on its own connection (`Connection: close`).
    async fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        let answer = String::from_utf8(answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_owned()
        };
        (status, body)
    }

    /// Both seats' tokens of a room: the creator's, and the friend's by
    /// claiming the invite.
    pub async fn tokens(&self, made: &Value) -> [String; 2] {
        let room = made["room"].as_str().unwrap();
        let invite = made["invite"]
            .as_str()
            .unwrap()
            .split("invite=")
            .nth(1)
            .unwrap();
        let (status, claimed) = self
            .post(
                &format!("/api/v1/rooms/{room}/claim"),
                &json!({ "invite": invite }),
            )
            .await;
        assert_eq!(status, 200, "{claimed}");
        [
            made["token"].as_str().unwrap().to_owned(),
            claimed["token"].as_str().unwrap().to_owned(),
        ]
    }

    /// Creates a room; returns its answer.
    pub async fn create(&self, game: &str, hints: bool) -> Value {
        let (status, made) = self
            .post("/api/v1/rooms", &json!({"game": game, "hints": hints}))
            .await;
        assert_eq!(status, 201, "{made}");
        made
    }
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    out
}

/// The identity the tests give a player of `name`: 16 characters or more
/// of letters, digits and `-`, as a browser's would be.
pub fn identity_of(name: &str) -> String {
    let plain: String = format!("identity-{name}")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    format!("{plain:0<16}")
}

/// One WebSocket connection to a room.
pub struct Player {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// How long a test waits for a message before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

impl Player {
    /// Connects to `room` with `token` (a spectator without) and `name`,
    /// and an identity of that name's own (the leaderboard counts games
    /// for identities); the HTTP status if the server refuses the upgrade.
    pub async fn connect(
        addr: SocketAddr,
        room: &str,
        token: Option<&str>,
        name: Option<&str>,
    ) -> Result<Player, u16> {
        let identity = name.map(identity_of);
        Player::connect_as(addr, room, token, name, identity.as_deref()).await
    }

    /// As [`connect`](Player::connect), with the identity given (or none).
    pub async fn connect_as(
        addr: SocketAddr,
        room: &str,
        token: Option<&str>,
        name: Option<&str>,
        identity: Option<&str>,
    ) -> Result<Player, u16> {
        let mut url = format!("ws://{addr}/api/v1/rooms/{room}/ws");
        let mut sep = '?';
        for (key, value) in [("token", token), ("name", name), ("player", identity)] {
            if let Some(value) = value {
                url.push_str(&format!("{sep}{key}={value}"));
                sep = '&';
            }
        }
        match tokio_tungstenite::connect_async(url).await {
            Ok((ws, _)) => Ok(Player { ws }),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(e) => panic!("connecting: {e}"),
        }
    }

    pub async fn send(&mut self, text: impl Into<String>) {
        self.ws.send(Message::text(text.into())).await.unwrap();
    }

    pub async fn send_move(&mut self, mv: &str) {
        self.send(json!({"type": "move", "move": mv}).to_string())
            .await;
    }

    /// The next JSON message; `None` when the server closed the socket.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a message within the wait");
            match message {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
                Some(Ok(Message::Text(text))) => {
                    return Some(serde_json::from_str(&text).unwrap());
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// Reads states until one with `moves` moves; fails on an error
    /// message (errors go to their sender only, and this player sent none).
    pub async fn state_with(&mut self, moves: usize) -> Value {
        loop {
            let message = self.next().await.expect("the socket stays open");
            assert_eq!(message["type"], "state", "unexpected {message}");
            if message["history"].as_array().unwrap().len() == moves {
                return message;
            }
        }
    }

    /// Reads messages until an error, skipping states; returns it.
    pub async fn error(&mut self) -> Value {
        loop {
            let message = self.next().await.expect("the socket stays open");
            if message["type"] == "error" {
                return message;
            }
        }
    }
}
