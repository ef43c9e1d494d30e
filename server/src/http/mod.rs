//! `solvedb serve --http`: the web explorer and its JSON API, on axum and
//! tokio, with one [`Oracle`] shared by every request.
//!
//! - [`router`] composes the areas: the API under `/api/v1` ([`api`]),
//!   the page and its assets ([`page`]), rooms ([`rooms`]) and the
//!   leaderboard ([`leaderboard`]), each one `merge`.
//! - [`status_of`] is the HTTP face of the one error mapping
//!   ([`Error::kind`](solvedb_lookup::Error::kind)): each [`ErrorKind`] has
//!   one status.
//! - Every request is bounded: the query's length ([`MAX_QUERY_BYTES`]),
//!   the body ([`MAX_BODY_BYTES`]), requests in flight
//!   ([`MAX_REQUESTS_IN_FLIGHT`]), live searches at once
//!   ([`ServerLimits::searches`]) and each search's time and memory; a request
//!   that still takes longer than [`REQUEST_TIMEOUT`] is answered 503.
//! - [`bench`](mod@bench) measures the server against in-process calls.
//! - [`rooms`] (play a friend: rooms, WebSockets, the [`referee`]) and
//!   [`leaderboard`] (SQLite through [`Store`]) are two more areas.

pub mod api;
pub mod bench;
pub mod client;
pub mod leaderboard;
pub mod load;
pub mod page;
pub mod referee;
pub mod rooms;

use std::collections::HashSet;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use solvedb_lookup::{ErrorKind, Game, GameId, Oracle, with_game};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::store::Store;

/// The address served when none is given: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The longest query string answered; a game name and the longest position
/// notation ([`solvedb_lookup::MAX_NOTATION_LEN`]), percent-encoded, fit
/// with room to spare.
pub const MAX_QUERY_BYTES: usize = 2048;

/// The largest request body read (the API takes none).
pub const MAX_BODY_BYTES: usize = 4096;

/// Requests handled at once; more wait for a slot (the listener's backlog
/// holds them), so a flood cannot grow memory without bound.
pub const MAX_REQUESTS_IN_FLIGHT: usize = 256;

/// The longest a request may take; past it the answer is 503.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// How live searches are bounded: every answer without a table is a search.
#[derive(Copy, Clone, Debug)]
pub struct ServerLimits {
    /// Searches running at once (each on a blocking thread).
    pub searches: usize,
    /// How long a request waits for a search slot before it is refused
    /// with kind `budget`.
    pub queue_wait: Duration,
    /// The time limit of one search.
    pub search_time: Duration,
    /// A node limit of one search, if any.
    pub search_nodes: Option<u64>,
    /// Memory of one search's transposition table.
    pub search_table_bytes: u64,
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            searches: 2,
            queue_wait: Duration::from_secs(5),
            search_time: Duration::from_secs(3),
            search_nodes: None,
            search_table_bytes: 64 << 20,
        }
    }
}

/// What every handler shares.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The oracle, over the tables directory.
    pub oracle: Arc<Oracle>,
    /// The games whose table file exists: answered in place, without a
    /// search slot.
    pub tabled: Arc<HashSet<GameId>>,
    /// Slots for live searches.
    pub searches: Arc<Semaphore>,
    /// The limits searches run under.
    pub limits: ServerLimits,
    /// The open rooms.
    pub rooms: Arc<rooms::Rooms>,
    /// The leaderboard's database.
    pub store: Arc<Store>,
}

impl AppState {
    /// The state for an oracle over `tables`, searches bounded by `limits`.
    ///
    /// # Errors
    ///
    /// If `tables` exists and is not a directory. The leaderboard is kept
    /// in memory until [`with_data`](AppState::with_data) names a directory.
    pub fn new(tables: &std::path::Path, limits: ServerLimits) -> Result<AppState> {
        let oracle = Oracle::open(tables)
            .with_context(|| format!("opening tables directory {}", tables.display()))?
            .with_search_limits(solvedb_lookup::SearchLimits {
                nodes: limits.search_nodes,
                time: Some(limits.search_time),
                table_bytes: Some(limits.search_table_bytes),
                // Each search on every core (dots); at most `searches` at once.
                threads: None,
            });
        let tabled: HashSet<GameId> = solvedb_lookup::catalogue()
            .iter()
            .map(|game| game.id)
            .filter(|game| tables.join(game.table_file_name()).is_file())
            .collect();
        // Open every table now, so that no request waits for a table to be
        // read (table answers run on the async workers). A damaged table
        // is reported by the answers that need it, as everywhere.
        for &game in &tabled {
            let _ = with_game!(game, g => oracle.probe(game, &g.notation(g.start())));
        }
        Ok(AppState {
            oracle: Arc::new(oracle),
            tabled: Arc::new(tabled),
            searches: Arc::new(Semaphore::new(limits.searches.max(1))),
            limits,
            rooms: Arc::new(rooms::Rooms::new(rooms::RoomLimits::default())),
            store: Arc::new(Store::in_memory()?),
        })
    }

    /// The same state with the leaderboard kept in `dir` (created if
    /// missing).
    ///
    /// # Errors
    ///
    /// If the database there cannot be opened or migrated.
    pub fn with_data(mut self, dir: &std::path::Path) -> Result<AppState> {
        self.store = Arc::new(Store::open(dir)?);
        Ok(self)
    }

    /// The same state with rooms bounded by `limits` (and no rooms open).
    pub fn with_room_limits(mut self, limits: rooms::RoomLimits) -> AppState {
        self.rooms = Arc::new(rooms::Rooms::new(limits));
        self
    }
}

/// Where the leaderboard is kept when `--data` is not given: a
/// `solvedb-data` directory next to the tables directory.
pub fn default_data_dir(tables: &std::path::Path) -> std::path::PathBuf {
    tables
        .parent()
        .unwrap_or_else(|| std::path::Path::new(""))
        .join("solvedb-data")
}

/// The HTTP status of an error of each kind: the server's face of the one
/// error mapping.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Request | ErrorKind::Position | ErrorKind::Unsupported => {
            StatusCode::BAD_REQUEST
        }
        ErrorKind::Budget => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An error answer: the `serve --stdio` error object with its kind's status.
#[derive(Debug)]
pub struct ApiError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong, for people.
    pub message: String,
}

impl ApiError {
    /// A malformed request (kind `request`).
    pub fn request(message: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::Request,
            message: message.into(),
        }
    }
}

impl From<solvedb_lookup::Error> for ApiError {
    fn from(e: solvedb_lookup::Error) -> ApiError {
        ApiError {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = solvedb_lookup::error_json(Some(self.kind), &self.message);
        (status_of(self.kind), axum::Json(body)).into_response()
    }
}

/// The whole server: every area, and the limits that bound each request.
pub fn router(state: AppState) -> Router {
    use axum::extract::DefaultBodyLimit;
    use tower::limit::GlobalConcurrencyLimitLayer;
    use tower_http::timeout::TimeoutLayer;

    Router::new()
        .merge(api::router())
        .merge(page::router())
        .merge(rooms::router())
        .merge(leaderboard::router())
        .fallback(not_found)
        .with_state(state)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            REQUEST_TIMEOUT,
        ))
        .layer(GlobalConcurrencyLimitLayer::new(MAX_REQUESTS_IN_FLIGHT))
}

async fn not_found(uri: axum::http::Uri) -> Response {
    let body = solvedb_lookup::error_json(
        Some(ErrorKind::Request),
        &format!("no such path {}", uri.path()),
    );
    (StatusCode::NOT_FOUND, axum::Json(body)).into_response()
}

/// Binds `addr` (a port of 0 picks a free one).
///
/// # Errors
///
/// If the address cannot be bound.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener> {
    TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr}"))
}

/// How long a stopping server waits for its WebSocket connections to end
/// after telling them it stops.
pub const WEBSOCKET_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves `state` on `listener` until `shutdown` resolves; then accepts
/// nothing new, finishes the requests in flight, closes every room (each
/// WebSocket is sent a Close frame, 1001) and waits up to
/// [`WEBSOCKET_DRAIN`] for the connections to end. A game's result is
/// recorded before its last state is sent, so a stop loses none.
///
/// # Errors
///
/// I/O errors of the listener.
pub async fn serve_until(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let rooms = Arc::clone(&state.rooms);
    let closing = Arc::clone(&rooms);
    // Small writes go out at once: a move's state is one small frame, and
    // Nagle's algorithm would hold it for the client's delayed ACK (tens of
    // milliseconds).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Upgraded connections are no longer axum's to wait for.
            closing.close_all();
        })
        .await
        .context("serving HTTP")?;
    rooms.drained(WEBSOCKET_DRAIN).await;
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

/// `solvedb serve --http`: binds `addr`, prints `listening on
/// http://HOST:PORT/` as the first line of `out`, and serves until Ctrl-C
/// or SIGTERM. The leaderboard is kept in `data`.
///
/// # Errors
///
/// If the tables directory is not one, the address cannot be bound, or
/// serving fails.
pub fn run(
    tables: &std::path::Path,
    data: &std::path::Path,
    addr: SocketAddr,
    limits: ServerLimits,
    out: &mut dyn Write,
) -> Result<()> {
    let state = AppState::new(tables, limits)?.with_data(data)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    runtime.block_on(async {
        let listener = bind(addr).await?;
        let local = listener.local_addr().context("reading the bound address")?;
        writeln!(out, "listening on http://{local}/")?;
        out.flush()?;
        serve_until(listener, state, shutdown_signal()).await
    })
}
