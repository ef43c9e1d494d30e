//! The HTTP server and its rooms over loopback: the API against the other
//! faces, hostile clients and their limits, rooms, the leaderboard.
//!
//! One test binary, each file a module (see `games.rs` for why); apart from
//! the game tests, whose searches on every core would crowd the deadlines
//! these tests hold a server to. `hostile` and `roomkit` are what the files
//! share: `cargo test -p solvedb-tests --test servers http_limits::`.

mod hostile;
mod roomkit;

mod http_admission;
mod http_api;
mod http_limits;
mod leaderboard;
mod pool_quotas;
mod room_limits;
mod rooms;
mod rooms_load;
