//! `solvedb serve --http`: the web explorer and its JSON API, on axum and
//! hyper over tokio, with one [`Oracle`](solvedb_lookup::Oracle) shared by
//! every request.
//!
//! - [`router`] composes the areas: the API under
//!   `/api/v1` ([`api`]), the page and its assets ([`page`]), rooms
//!   ([`room_routes`]), games against the computer ([`session_routes`]) and
//!   the leaderboard ([`leaderboard`]), each one `merge`, inside the
//!   [`layers`] every route gets (nosniff, cross-site refusal, write rates,
//!   the body's timeout, load shedding, the request's deadline).
//! - [`serve`](mod@serve) binds and serves it until a shutdown, and reloads
//!   tables on SIGHUP; [`transport`] holds the connections: caps,
//!   header-read and idle timeouts, a shutdown within its deadline.
//! - [`state`] holds what every handler shares ([`AppState`]); [`limits`]
//!   what bounds the server ([`ServerLimits`]); [`error`] the error answer
//!   ([`ApiError`]) and [`status_of`], the HTTP face of the one error
//!   mapping ([`Error::kind`](solvedb_lookup::Error::kind)): each
//!   [`ErrorKind`](solvedb_lookup::ErrorKind) has one status.
//! - Every request is bounded ([`ServerLimits`]): its headers' size and
//!   time, its body's, the query's length ([`MAX_QUERY_BYTES`]), requests
//!   in flight, and one deadline and node budget for all the live searches
//!   it starts ([`search_slots`]), which stop when it ends ([`api::ask`]);
//!   table answers take no search slot ([`table_scan`]).
//! - Answers are typed ([`response`]); bodies are read by [`body`].
//! - A position no complete table answers is settled by [`analysis`]
//!   (forced play first, then the search move by move) once: what it
//!   proved is kept in [`proven`], shared by the probe, the computer's
//!   move and the next request; [`analysis_stream`] streams it as it
//!   settles (server-sent events).
//! - [`bench`](mod@bench) measures the server against in-process calls,
//!   quiet and under hostile load; [`load`] plays rooms under load.
//! - Play a friend: [`rooms`] holds the rooms, [`room_routes`] makes and
//!   joins them, [`room_socket`] is a room's WebSocket, and the
//!   [`referee`] follows each game by its rules. Games against the
//!   computer: [`sessions`] holds them, [`session_routes`] plays them. The
//!   [`leaderboard`] reads SQLite through [`Store`](crate::store::Store).

pub mod activity;
pub mod admission;
pub mod analysis;
pub mod analysis_stream;
pub mod api;
pub mod bench;
pub mod body;
pub mod body_bytes;
pub mod client;
pub mod error;
pub mod layers;
pub mod leaderboard;
pub mod limits;
pub mod load;
pub mod names;
pub mod page;
pub mod proven;
pub mod rate;
pub mod recording;
pub mod referee;
pub mod response;
pub mod room_routes;
pub mod room_socket;
pub mod rooms;
pub mod routes;
pub mod search_slots;
pub mod secret;
pub mod serve;
pub mod session_routes;
pub mod sessions;
pub mod state;
pub mod table_scan;
pub mod transport;

pub use error::{ApiError, status_of};
pub use limits::{MAX_BODY_BYTES, MAX_QUERY_BYTES, ServerLimits};
pub use routes::router;
pub use serve::{DEFAULT_ADDR, bind, default_data_dir, run, serve_until};
pub use state::AppState;
pub use table_scan::TableScan;
