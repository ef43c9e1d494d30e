//! A bounded load test of rooms over loopback, run by hand:
//! `cargo test --release -p solvedb-tests --test rooms_load -- --ignored --nocapture`.
//! Many rooms at once, each playing tic-tac-toe games between two
//! WebSocket clients as fast as the server answers; prints the rooms,
//! moves per second and the broadcast latency (a move sent by one player
//! to the state seen by the other), and fails if any state is lost or out
//! of order. No timing is asserted: the figures are for the notes.

mod roomkit;

use std::time::{Duration, Instant};

use roomkit::{Player, Server};
use solvedb_generator::http::rooms::RoomLimits;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Error, Game, GameId, with_game};

/// Rooms playing at once.
const ROOMS: usize = 200;
/// Games each room's pair of players plays, one room each.
const GAMES: usize = 5;

async fn worker(server: std::net::SocketAddr, seed: u64) -> (usize, Vec<Duration>) {
    let server = Server::at(server);
    let mut rng = Rng::new(seed);
    let mut latencies = Vec::new();
    let mut states = 0;
    for _ in 0..GAMES {
        let made = server.create("tictactoe", false).await;
        let room = made["room"].as_str().unwrap();
        let mut players = [
            Player::connect(
                server.addr,
                room,
                made["seats"]["first"].as_str(),
                Some("a"),
            )
            .await
            .unwrap(),
            Player::connect(
                server.addr,
                room,
                made["seats"]["second"].as_str(),
                Some("b"),
            )
            .await
            .unwrap(),
        ];
        let game = GameId::TicTacToe;
        let mut position = with_game!(game, g => Ok::<_, Error>(g.notation(g.start()))).unwrap();
        let mut seat = 0;
        let mut n = 0;
        loop {
            let moves = with_game!(game, g => Ok::<_, Error>(g.moves(g.parse(&position).unwrap()).iter().map(ToString::to_string).collect::<Vec<_>>())).unwrap();
            if moves.is_empty() {
                break;
            }
            let mv = rng.pick(&moves).clone();
            let sent = Instant::now();
            players[seat].send_move(&mv).await;
            n += 1;
            // The other player first: the broadcast's latency.
            let seen = players[1 - seat].state_with(n).await;
            latencies.push(sent.elapsed());
            let mine = players[seat].state_with(n).await;
            assert_eq!(seen["position"], mine["position"]);
            // Nothing lost, nothing out of order: every move's state, in turn.
            assert_eq!(
                seen["history"].as_array().unwrap().last().unwrap(),
                mv.as_str()
            );
            states += 2;
            position = seen["position"].as_str().unwrap().to_owned();
            seat = 1 - seat;
        }
    }
    (states, latencies)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test for the notes: run by hand with --release --ignored --nocapture"]
async fn rooms_under_load_over_loopback() {
    let limits = RoomLimits {
        // Finished rooms stay open (for their review) until idle.
        rooms: ROOMS * GAMES,
        burst: 1000,
        per_second: 1000.0,
        ..RoomLimits::default()
    };
    let server = Server::start(None, limits).await;
    let started = Instant::now();
    let handles: Vec<_> = (0..ROOMS)
        .map(|k| tokio::spawn(worker(server.addr, 7000 + k as u64)))
        .collect();
    let mut latencies = Vec::new();
    let mut states = 0;
    for h in handles {
        let (s, l) = tokio::time::timeout(Duration::from_secs(300), h)
            .await
            .expect("the load test ends within its bound")
            .unwrap();
        states += s;
        latencies.extend(l);
    }
    let wall = started.elapsed();
    latencies.sort_unstable();
    let at = |f: f64| latencies[((latencies.len() - 1) as f64 * f).round() as usize];
    let moves = latencies.len();
    println!(
        "rooms at once: {ROOMS} ({} connections), games: {}, moves: {moves}, states received: {states} of {} (none lost)",
        ROOMS * 2,
        ROOMS * GAMES,
        moves * 2
    );
    println!(
        "wall {:.2} s, {:.0} moves/s, broadcast latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        wall.as_secs_f64(),
        moves as f64 / wall.as_secs_f64(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        latencies[moves - 1].as_secs_f64() * 1e3
    );
    assert_eq!(states, moves * 2);
    server.stop().await;
}
