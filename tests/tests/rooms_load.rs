//! The rooms bench's load, small: `solvedb bench rooms` runs the same
//! code ([`solvedb_server::http::load`]) with 200 rooms at once; here 12
//! rooms of two WebSocket players each play 3 tic-tac-toe games at once
//! against one in-process server, and every state must arrive, in order,
//! equal to the rules'. No timing is asserted: the figures are the bench's.

use crate::roomkit;

use roomkit::Server;
use solvedb_server::http::load::{load, load_limits};

const ROOMS: usize = 12;
const GAMES: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_under_load_lose_no_state() {
    let server = Server::start(None, load_limits(ROOMS, GAMES)).await;
    let figures = load(server.addr, ROOMS, GAMES).await.unwrap();
    assert_eq!(figures.games, ROOMS * GAMES);
    // A game of tic-tac-toe has 5 to 9 moves.
    assert!((5 * ROOMS * GAMES..=9 * ROOMS * GAMES).contains(&figures.moves));
    assert_eq!(figures.states, 2 * figures.moves);
    assert_eq!(figures.latencies.len(), figures.moves);
    server.stop().await;
}
