//! `solvedb serve --http`: the web explorer and its JSON API, on axum and
//! hyper over tokio, with one [`Oracle`] shared by every request.
//!
//! - [`router`] composes the areas: the API under `/api/v1` ([`api`]),
//!   the page and its assets ([`page`]), rooms ([`rooms`]), games against
//!   the computer ([`sessions`]) and the leaderboard ([`leaderboard`]),
//!   each one `merge`, inside the
//!   [`layers`] every route gets (nosniff, cross-site refusal, write rates,
//!   the body's timeout, load shedding, the request's deadline).
//! - [`transport`] serves it: connection caps, header-read and idle
//!   timeouts, a shutdown within its deadline.
//! - [`status_of`] is the HTTP face of the one error mapping
//!   ([`Error::kind`](solvedb_lookup::Error::kind)): each [`ErrorKind`] has
//!   one status.
//! - Every request is bounded ([`ServerLimits`]): its headers' size and
//!   time, its body's, the query's length ([`MAX_QUERY_BYTES`]), requests in
//!   flight, and one deadline and node budget for all the live searches it
//!   starts, which stop when it ends ([`api::ask`]); table answers take no
//!   search slot.
//! - [`bench`](mod@bench) measures the server against in-process calls,
//!   quiet and under hostile load.
//! - [`rooms`] (play a friend: rooms, WebSockets, the [`referee`]),
//!   [`sessions`] (games against the computer, played through the server)
//!   and [`leaderboard`] (SQLite through [`Store`]) are three more areas.

pub mod api;
pub mod bench;
pub mod client;
pub mod layers;
pub mod leaderboard;
pub mod load;
pub mod page;
pub mod rate;
pub mod referee;
pub mod rooms;
pub mod sessions;
pub mod transport;

use std::collections::HashSet;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use solvedb_lookup::{ErrorKind, Game, GameId, Oracle, with_game};
use tokio::net::TcpListener;

use crate::store::Store;

/// The address served when none is given: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The longest query string answered; a game name and the longest position
/// notation ([`solvedb_lookup::MAX_NOTATION_LEN`]), percent-encoded, fit
/// with room to spare.
pub const MAX_QUERY_BYTES: usize = 2048;

/// The largest request body read (the API takes none).
pub const MAX_BODY_BYTES: usize = 4096;

/// What bounds the server: connections, requests and the live searches
/// they start. Every field has a default (`solvedb serve --help` and the
/// README state them); tests set short ones.
#[derive(Copy, Clone, Debug)]
pub struct ServerLimits {
    /// Searches running at once (each on a blocking thread).
    pub searches: usize,
    /// Requests that may wait for a search slot; one more is answered 503
    /// at once.
    pub search_queue: usize,
    /// How long a request waits for a search slot before it is refused
    /// with kind `budget`.
    pub queue_wait: Duration,
    /// The time all the live searches of one request may take together
    /// (a probe and each of its moves, a main line, a posted game's
    /// judging).
    pub search_time: Duration,
    /// The positions all the searches of one request may visit together,
    /// if bounded.
    pub search_nodes: Option<u64>,
    /// Memory of one search's transposition table.
    pub search_table_bytes: u64,
    /// Decoded table blocks kept, over all tables (least recently used
    /// go first): with the searches' tables, what bounds the server's
    /// memory however many positions are probed.
    pub table_cache_bytes: usize,
    /// From the moment a connection waits for a request (new, or kept
    /// alive after an answer) to the end of the request's headers: a
    /// connection slower or idle for longer is closed.
    pub header_read: Duration,
    /// The longest a request's body may take to arrive.
    pub body_read: Duration,
    /// The longest a request may take in all; past it the answer is 503
    /// with the error object, and its searches stop.
    pub request_time: Duration,
    /// Requests handled at once; one more is answered 503 at once.
    pub in_flight: usize,
    /// Open connections (WebSockets included); lowered at start to fit the
    /// open-files limit.
    pub connections: usize,
    /// Open connections from one client address (an IPv6 /64).
    pub connections_per_address: usize,
    /// Writes (POSTs) from one client address in a burst.
    pub write_burst: u32,
    /// Writes from one client address per second, on average.
    pub writes_per_second: f64,
    /// How long a stopping server waits for its connections (WebSockets
    /// included) before it drops them.
    pub shutdown: Duration,
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            searches: 2,
            search_queue: 8,
            queue_wait: Duration::from_secs(2),
            search_time: Duration::from_secs(3),
            search_nodes: None,
            search_table_bytes: 64 << 20,
            table_cache_bytes: solvedb_lookup::BlockCache::DEFAULT_CAPACITY,
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            request_time: Duration::from_secs(10),
            in_flight: 256,
            connections: 4096,
            connections_per_address: 64,
            write_burst: 20,
            writes_per_second: 1.0,
            shutdown: Duration::from_secs(5),
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
    pub tabled: Arc<Tabled>,
    /// Slots for live searches, and the requests waiting for one.
    pub searches: Arc<api::SearchSlots>,
    /// The limits requests and searches run under.
    pub limits: ServerLimits,
    /// Writes per client address.
    pub writes: Arc<rate::Buckets>,
    /// The address served, once bound ([`serve_until`] sets it).
    pub bound: Option<SocketAddr>,
    /// The open rooms.
    pub rooms: Arc<rooms::Rooms>,
    /// The open games against the computer.
    pub sessions: Arc<sessions::Sessions>,
    /// The leaderboard's database.
    pub store: Arc<Store>,
}

impl AppState {
    /// The state for an oracle over `tables`, requests bounded by `limits`.
    ///
    /// # Errors
    ///
    /// If `tables` exists and is not a directory. The leaderboard is kept
    /// in memory until [`with_data`](AppState::with_data) names a directory.
    pub fn new(tables: &std::path::Path, limits: ServerLimits) -> Result<AppState> {
        // A search's own time limit is the request's: one deadline (and
        // node budget) for all the searches of a request, set per request
        // by `api::ask`.
        let oracle = Oracle::open(tables)
            .with_context(|| format!("opening tables directory {}", tables.display()))?
            .with_cache_capacity(limits.table_cache_bytes)
            .with_search_limits(solvedb_lookup::SearchLimits {
                table_bytes: Some(limits.search_table_bytes),
                // Each search on every core (dots); at most `searches` at once.
                threads: None,
                ..solvedb_lookup::SearchLimits::default()
            });
        let tabled = Tabled::scan(tables);
        tabled.open_all(&oracle);
        Ok(AppState {
            oracle: Arc::new(oracle),
            tabled: Arc::new(tabled),
            searches: Arc::new(api::SearchSlots::new(&limits)),
            limits,
            writes: Arc::new(rate::Buckets::new(
                limits.write_burst,
                limits.writes_per_second,
            )),
            bound: None,
            rooms: Arc::new(rooms::Rooms::new(rooms::RoomLimits::default())),
            sessions: Arc::new(sessions::Sessions::new(sessions::SessionLimits::default())),
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

    /// The same state with games against the computer bounded by `limits`
    /// (and none open).
    pub fn with_session_limits(mut self, limits: sessions::SessionLimits) -> AppState {
        self.sessions = Arc::new(sessions::Sessions::new(limits));
        self
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

/// The whole server: every area inside the [`layers`] that bound every
/// request and refuse writes from other sites.
pub fn router(state: AppState) -> Router {
    use axum::error_handling::HandleErrorLayer;
    use axum::extract::DefaultBodyLimit;
    use axum::http::{HeaderValue, header};
    use axum::middleware::from_fn_with_state;
    use tower::ServiceBuilder;
    use tower::limit::GlobalConcurrencyLimitLayer;
    use tower_http::set_header::SetResponseHeaderLayer;

    let shedding = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(layers::overloaded))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(
            state.limits.in_flight.max(1),
        ));
    // Each `layer` wraps the ones before it: the last is the outermost.
    Router::new()
        .merge(api::router())
        .merge(page::router())
        .merge(rooms::router())
        .merge(sessions::router())
        .merge(leaderboard::router())
        .fallback(page::not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(from_fn_with_state(state.clone(), layers::deadline))
        .layer(shedding)
        .layer(from_fn_with_state(state.clone(), layers::read_body))
        .layer(from_fn_with_state(state.clone(), layers::write_rate))
        .layer(from_fn_with_state(state.clone(), layers::same_site))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .with_state(state)
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

/// Serves `state` on `listener` until `shutdown` resolves; then accepts
/// nothing new, closes every room (each WebSocket is sent a Close frame,
/// 1001), lets the requests in flight finish and drops whatever is still
/// open at [`ServerLimits::shutdown`]. A game's result is recorded before
/// its last state is sent, so a stop loses none.
///
/// # Errors
///
/// If the listener's address cannot be read.
pub async fn serve_until(
    listener: TcpListener,
    mut state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let local = listener.local_addr().context("reading the bound address")?;
    state.bound = Some(local);
    let limits = state.limits;
    let connections = Arc::new(transport::Connections::new(
        transport::fitted_connections(&limits, transport::open_files_limit()),
        limits.connections_per_address,
    ));
    let rooms = Arc::clone(&state.rooms);
    let closing = Arc::clone(&rooms);
    let told = Arc::new(std::sync::Mutex::new(None));
    let told_at = Arc::clone(&told);
    transport::serve(
        listener,
        router(state),
        limits,
        connections,
        shutdown,
        move || {
            *told_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::time::Instant::now());
            // Upgraded connections are no longer hyper's to wait for.
            closing.close_all();
        },
    )
    .await?;
    // The WebSockets were told with the connections: they share what is
    // left of the same deadline.
    let since = told
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .map_or(Duration::ZERO, |at| at.elapsed());
    rooms.drained(limits.shutdown.saturating_sub(since)).await;
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

/// The games whose table file is in the tables directory, as last scanned
/// (at start and on each reload). Where such a table answers every
/// position ([`GameId::table_covers_every_position`]), answers take
/// microseconds and run in place on the async workers; every other game's
/// answers may be searches (Qubic's strategy table covers only its
/// strategy's positions), which wait for a search slot and stop at the
/// request's deadline. Kept true on reload so that a game whose table was
/// removed is searched under those limits, never in place.
#[derive(Debug)]
pub struct Tabled {
    dir: std::path::PathBuf,
    games: std::sync::RwLock<HashSet<GameId>>,
}

impl Tabled {
    /// The games of the catalogue whose table file is in `dir`.
    pub fn scan(dir: &std::path::Path) -> Tabled {
        Tabled {
            dir: dir.to_owned(),
            games: std::sync::RwLock::new(Tabled::present(dir)),
        }
    }

    fn present(dir: &std::path::Path) -> HashSet<GameId> {
        solvedb_lookup::catalogue()
            .iter()
            .map(|game| game.id)
            .filter(|game| dir.join(game.table_file_name()).is_file())
            .collect()
    }

    /// Whether every answer about `game` is a table answer, which runs in
    /// place: its table was there at the last scan and answers every
    /// position.
    pub fn answers_in_place(&self, game: &GameId) -> bool {
        game.table_covers_every_position() && self.contains(game)
    }

    /// Whether `game`'s table was there at the last scan.
    pub fn contains(&self, game: &GameId) -> bool {
        self.games
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(game)
    }

    /// Scans the directory again (after [`Oracle::reload`]); returns the
    /// games whose table appeared or vanished since the last scan.
    pub fn rescan(&self) -> Vec<GameId> {
        let now = Tabled::present(&self.dir);
        let mut games = self
            .games
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changed = games.symmetric_difference(&now).copied().collect();
        *games = now;
        changed
    }

    /// Opens every table now, so that no request waits for a table's head
    /// to be read (table answers run on the async workers). A damaged table
    /// is reported by the answers that need it, as everywhere.
    pub fn open_all(&self, oracle: &Oracle) {
        let games: Vec<GameId> = self
            .games
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .copied()
            .collect();
        for game in games {
            let _ = with_game!(game, g => oracle.probe(game, &g.notation(g.start())));
        }
    }
}

/// On every SIGHUP, picks up the tables rebuilt since they were opened
/// ([`Oracle::reload`]: a `stat` per opened table; a table renamed over its
/// file, removed or created is opened afresh by the next question about
/// its game, answers in flight finish on the old one), scans the directory
/// again for [`Tabled`], and sends a line saying what it reopened to
/// `said` (which [`run`] writes to its error stream: the process's standard
/// error is locked by the caller). Runs until the runtime stops.
#[cfg(unix)]
async fn reload_on_hangup(
    oracle: Arc<Oracle>,
    tabled: Arc<Tabled>,
    said: tokio::sync::mpsc::UnboundedSender<String>,
) {
    let Ok(mut hangups) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
    else {
        return;
    };
    while hangups.recv().await.is_some() {
        let (oracle, tabled) = (Arc::clone(&oracle), Arc::clone(&tabled));
        // A `stat` per table, then the changed tables' heads read: off the
        // async workers.
        let Ok(games) = tokio::task::spawn_blocking(move || {
            let mut games = oracle.reload();
            for game in tabled.rescan() {
                if !games.contains(&game) {
                    games.push(game);
                }
            }
            tabled.open_all(&oracle);
            games
        })
        .await
        else {
            continue;
        };
        let names: Vec<String> = games.iter().map(ToString::to_string).collect();
        let line = if names.is_empty() {
            "solvedb serve: SIGHUP: no table changed".to_owned()
        } else {
            format!(
                "solvedb serve: SIGHUP: reopening the tables of {}",
                names.join(", ")
            )
        };
        if said.send(line).is_err() {
            return;
        }
    }
}

/// `solvedb serve --http`: raises the open-files limit, binds `addr`,
/// prints `listening on http://HOST:PORT/` as the first line of `out` (and
/// to `err` the limits in force, with a warning for an address other than
/// loopback), and serves until Ctrl-C or SIGTERM; SIGHUP picks up rebuilt
/// tables ([`Oracle::reload`]). The leaderboard is kept in `data`.
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
    room_limits: rooms::RoomLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    let files = transport::raise_open_files_limit();
    let state = AppState::new(tables, limits)?
        .with_data(data)?
        .with_room_limits(room_limits);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let served = runtime.block_on(async {
        let (said, mut heard) = tokio::sync::mpsc::unbounded_channel::<String>();
        #[cfg(unix)]
        tokio::spawn(reload_on_hangup(
            Arc::clone(&state.oracle),
            Arc::clone(&state.tabled),
            said,
        ));
        #[cfg(not(unix))]
        drop(said);
        let listener = bind(addr).await?;
        let local = listener.local_addr().context("reading the bound address")?;
        writeln!(out, "listening on http://{local}/")?;
        out.flush()?;
        if !local.ip().is_loopback() {
            writeln!(
                err,
                "solvedb serve: warning: {local} is reachable from other machines; the server has \
                 no accounts or TLS, and counts limits per client address (behind a proxy every \
                 client is the proxy)"
            )?;
        }
        writeln!(
            err,
            "solvedb serve: at most {} connections ({} per address; open files {}), {} requests \
             at once, {} live searches ({} waiting, {} s each request's searches together)",
            transport::fitted_connections(&limits, files),
            limits.connections_per_address,
            files.map_or_else(|| "unknown".to_owned(), |f| f.to_string()),
            limits.in_flight,
            limits.searches,
            limits.search_queue,
            limits.search_time.as_secs_f64(),
        )?;
        let serving = serve_until(listener, state, shutdown_signal());
        tokio::pin!(serving);
        loop {
            tokio::select! {
                served = &mut serving => break served,
                Some(line) = heard.recv() => {
                    writeln!(err, "{line}")?;
                    err.flush()?;
                }
            }
        }
    });
    // A search still running stops at its next poll (its request was
    // dropped); a record in progress is one transaction either way.
    runtime.shutdown_timeout(Duration::from_secs(2));
    served
}

/// When something (a room, a session) was last used: what the sweeps that
/// end idle ones read.
#[derive(Debug)]
pub(crate) struct LastActive(std::sync::Mutex<Instant>);

impl LastActive {
    /// Used now.
    pub(crate) fn now() -> LastActive {
        LastActive(std::sync::Mutex::new(Instant::now()))
    }

    /// How long since it was last used.
    pub(crate) fn idle_for(&self) -> Duration {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).elapsed()
    }

    /// Marks it used now.
    pub(crate) fn touch(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }
}
