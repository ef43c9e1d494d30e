//! `solvedb bench rooms`: rooms under load over loopback. Many rooms at
//! once, each with two WebSocket players who play whole tic-tac-toe games
//! as fast as the server answers; measures moves per second and the
//! broadcast latency (a move sent by one player until the other sees its
//! state), and fails if a state is lost or arrives out of order.
//!
//! The server runs on its own two-thread runtime, the players on another,
//! both in this process: the figures include the players' own cost. The room tests run the same load, small.

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Game, TicTacToe};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::bench::{BenchServer, two_threads};
use super::client::Client;
use super::limits::ServerLimits;
use super::rooms::RoomLimits;
use super::state::AppState;

/// How long a player waits for a message before the run fails.
const WAIT: Duration = Duration::from_secs(30);

/// What one load run did and how fast.
#[derive(Clone, Debug)]
pub struct LoadFigures {
    /// Rooms playing at once.
    pub rooms: usize,
    /// Games played in all.
    pub games: usize,
    /// Moves played in all.
    pub moves: usize,
    /// States the players received, each move's by both.
    pub states: usize,
    /// The whole run.
    pub wall: Duration,
    /// Broadcast latencies, sorted.
    pub latencies: Vec<Duration>,
}

impl LoadFigures {
    /// The latency at `fraction` (0.5 the median).
    pub fn latency(&self, fraction: f64) -> Duration {
        let last = self.latencies.len().saturating_sub(1);
        self.latencies
            .get((last as f64 * fraction).round() as usize)
            .copied()
            .unwrap_or_default()
    }
}

/// One player's WebSocket.
struct Player {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Player {
    async fn connect(addr: SocketAddr, room: &str, token: &str, name: &str) -> Result<Player> {
        let url = format!("ws://{addr}/api/v1/rooms/{room}/ws?token={token}&name={name}");
        // No Nagle delay on the players' side either, as browsers do.
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url.as_str(), None, true)
            .await
            .with_context(|| format!("connecting to {url}"))?;
        Ok(Player { ws })
    }

    async fn send_move(&mut self, mv: &str) -> Result<()> {
        let text = json!({"type": "move", "move": mv}).to_string();
        self.ws.send(Message::text(text)).await?;
        Ok(())
    }

    /// Reads states until the one after `moves` moves.
    ///
    /// # Errors
    ///
    /// On an error message, a closed socket, a wait past [`WAIT`], or a
    /// state further on than `moves` (one was skipped).
    async fn state_with(&mut self, moves: usize) -> Result<Value> {
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .context("no message within the wait")?;
            let text = match message {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(_))) | None => bail!("the server closed the socket"),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
            };
            let message: Value = serde_json::from_str(&text)?;
            ensure!(message["type"] == "state", "unexpected message {message}");
            let seen = message["history"].as_array().map_or(0, Vec::len);
            ensure!(
                seen <= moves,
                "a state after {seen} moves while waiting for {moves}"
            );
            if seen == moves {
                return Ok(message);
            }
        }
    }
}

/// The second seat's token, from the invite of a room's create answer.
///
/// # Errors
///
/// If the answer has no invite or the server refuses the claim.
pub async fn claim(client: &Client, addr: SocketAddr, made: &Value) -> Result<String> {
    let room = made["room"].as_str().context("a room id")?;
    let invite = made["invite"]
        .as_str()
        .and_then(|link| link.split("invite=").nth(1))
        .context("an invite link")?;
    let (status, body) = client
        .post_json(
            &format!("http://{addr}/api/v1/rooms/{room}/claim"),
            &json!({ "invite": invite }).to_string(),
        )
        .await?;
    ensure!(status == 200, "claiming the invite: {status} {body}");
    let claimed: Value = serde_json::from_str(&body)?;
    Ok(claimed["token"]
        .as_str()
        .context("the second seat's token")?
        .to_owned())
}

/// `games` games of tic-tac-toe in new rooms, one after the other, between
/// two players who pick random legal moves; the states received and each
/// move's broadcast latency.
async fn play_rooms(addr: SocketAddr, games: usize, seed: u64) -> Result<(usize, Vec<Duration>)> {
    let client = Client::new();
    let mut rng = Rng::new(seed);
    let (mut states, mut latencies) = (0, Vec::new());
    for _ in 0..games {
        let (status, body) = client
            .post_json(
                &format!("http://{addr}/api/v1/rooms"),
                &json!({"game": "tictactoe", "hints": false}).to_string(),
            )
            .await?;
        ensure!(status == 201, "creating a room: {status} {body}");
        let made: Value = serde_json::from_str(&body)?;
        let room = made["room"].as_str().context("a room id")?;
        let first = made["token"].as_str().context("the creator's seat token")?;
        let second = claim(&client, addr, &made).await?;
        let mut players = [
            Player::connect(addr, room, first, "a").await?,
            Player::connect(addr, room, &second, "b").await?,
        ];
        let mut position = TicTacToe.start();
        let mut turn = 0;
        for n in 1.. {
            let moves = TicTacToe.moves(position);
            if moves.is_empty() {
                break;
            }
            let mv = *rng.pick(&moves);
            let sent = Instant::now();
            players[turn].send_move(&mv.to_string()).await?;
            // The other player first: the broadcast's latency.
            let seen = players[1 - turn].state_with(n).await?;
            latencies.push(sent.elapsed());
            let mine = players[turn].state_with(n).await?;
            position = TicTacToe.play(position, mv).0;
            let expected = TicTacToe.notation(position);
            for state in [&seen, &mine] {
                ensure!(
                    state["position"] == expected.as_str()
                        && state["history"].as_array().and_then(|h| h.last())
                            == Some(&json!(mv.to_string())),
                    "after {n} moves the room shows {state}, the rules {expected}"
                );
            }
            states += 2;
            turn = 1 - turn;
        }
    }
    Ok((states, latencies))
}

/// `rooms` rooms at once against the server at `addr`, each playing
/// `games` games in turn.
///
/// # Errors
///
/// If any room cannot be made or joined, or any state is lost, out of
/// order or not the rules' (a bug worth more than any figure).
pub async fn load(addr: SocketAddr, rooms: usize, games: usize) -> Result<LoadFigures> {
    let started = Instant::now();
    let tasks: Vec<_> = (0..rooms)
        .map(|k| tokio::spawn(play_rooms(addr, games, 7000 + k as u64)))
        .collect();
    let (mut states, mut latencies) = (0, Vec::new());
    for task in tasks {
        let (s, l) = task.await??;
        states += s;
        latencies.extend(l);
    }
    let wall = started.elapsed();
    latencies.sort_unstable();
    let moves = latencies.len();
    ensure!(
        states == 2 * moves,
        "{states} states received for {moves} moves"
    );
    Ok(LoadFigures {
        rooms,
        games: rooms * games,
        moves,
        states,
        wall,
        latencies,
    })
}

/// The room limits of a load run: the per-connection message rate and the
/// per-address creation rate and quota are lifted (every player is on
/// 127.0.0.1 and moves as fast as the server answers) and finished rooms,
/// which stay open for review until idle, all fit.
pub fn load_limits(rooms: usize, games: usize) -> RoomLimits {
    let all = (rooms * games).max(RoomLimits::default().rooms);
    RoomLimits {
        rooms: all,
        per_address: all,
        create_burst: u32::try_from(all).unwrap_or(u32::MAX),
        creates_per_second: 1e6,
        websockets: (4 * rooms).max(RoomLimits::default().websockets),
        burst: 1000,
        per_second: 1000.0,
        ..RoomLimits::default()
    }
}

/// The server limits of a load run: one address (loopback) opens every
/// connection and makes every write.
pub fn load_server_limits(rooms: usize) -> ServerLimits {
    let defaults = ServerLimits::default();
    ServerLimits {
        connections: defaults.connections.max(4 * rooms + 64),
        connections_per_address: defaults.connections.max(4 * rooms + 64),
        new_identities_per_hour: u32::MAX,
        write_burst: 1_000_000,
        writes_per_second: 1e6,
        ..defaults
    }
}

/// Runs the rooms bench against a server on the tables in `tables` and
/// prints its figures: the median round by moves per second.
///
/// # Errors
///
/// If the server cannot start or a load run fails ([`load`]).
pub fn run(
    tables: &Path,
    rooms: usize,
    games: usize,
    rounds: u32,
    out: &mut dyn Write,
) -> Result<()> {
    let state = AppState::new(tables, load_server_limits(rooms))?
        .with_room_limits(load_limits(rooms, games * rounds as usize));
    let server = BenchServer::start(state)?;
    let players = two_threads()?;
    let mut runs = Vec::new();
    for _ in 0..rounds.max(1) {
        runs.push(players.block_on(load(server.addr, rooms, games))?);
    }
    runs.sort_by_key(|run| run.wall);
    let figures = &runs[runs.len() / 2];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    writeln!(
        out,
        "rooms: {} rooms at once ({} WebSockets), {} tic-tac-toe games, {} moves; \
         median of {} rounds",
        figures.rooms,
        2 * figures.rooms,
        figures.games,
        figures.moves,
        runs.len()
    )?;
    writeln!(
        out,
        "{:.0} moves/s ({:.2} s); broadcast latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; \
         {} of {} states received, none lost or out of order",
        figures.moves as f64 / figures.wall.as_secs_f64(),
        figures.wall.as_secs_f64(),
        ms(figures.latency(0.5)),
        ms(figures.latency(0.99)),
        ms(figures.latency(1.0)),
        figures.states,
        2 * figures.moves
    )?;
    server.stop()
}
