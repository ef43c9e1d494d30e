//! Serving the router: binding, serving until a shutdown (rooms closed,
//! requests finished within the deadline), reloading tables on SIGHUP,
//! and `solvedb serve --http` itself ([`run`]).

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use solvedb_lookup::Oracle;
use tokio::net::TcpListener;

use super::limits::ServerLimits;
use super::rooms::RoomLimits;
use super::routes::router;
use super::state::AppState;
use super::table_scan::TableScan;
use super::transport;

/// The address served when none is given: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// Where the leaderboard is kept when `--data` is not given: a
/// `solvedb-data` directory next to the tables directory.
pub fn default_data_dir(tables: &Path) -> PathBuf {
    tables
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join("solvedb-data")
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

/// On every SIGHUP, picks up the tables rebuilt since they were opened
/// ([`Oracle::reload`]: a `stat` per opened table; a table renamed over its
/// file, removed or created is opened afresh by the next question about
/// its game, answers in flight finish on the old one), scans the directory
/// again for [`TableScan`], and sends a line saying what it reopened to
/// `said` (which [`run`] writes to its error stream: the process's standard
/// error is locked by the caller). Runs until the runtime stops.
#[cfg(unix)]
async fn reload_on_hangup(
    oracle: Arc<Oracle>,
    tables: Arc<TableScan>,
    said: tokio::sync::mpsc::UnboundedSender<String>,
) {
    let Ok(mut hangups) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
    else {
        return;
    };
    while hangups.recv().await.is_some() {
        let (oracle, tables) = (Arc::clone(&oracle), Arc::clone(&tables));
        // A `stat` per table, then the changed tables' heads read: off the
        // async workers.
        let Ok(games) = tokio::task::spawn_blocking(move || {
            let mut games = oracle.reload();
            for game in tables.rescan() {
                if !games.contains(&game) {
                    games.push(game);
                }
            }
            tables.open_all(&oracle);
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
    tables: &Path,
    data: &Path,
    addr: SocketAddr,
    limits: ServerLimits,
    room_limits: RoomLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    let files = transport::raise_open_files_limit();
    let state = AppState::new(tables, limits)?
        .with_data(data)?
        .with_room_limits(room_limits);
    // Which games the tables answer: a server started from the wrong
    // directory would otherwise search everything without a word.
    let tabled: Vec<String> = solvedb_lookup::catalogue()
        .iter()
        .filter(|g| state.oracle.has_table(g.id))
        .map(|g| g.name())
        .collect();
    let tables_dir = std::path::absolute(tables).unwrap_or_else(|_| tables.to_path_buf());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let served = runtime.block_on(async {
        let (said, mut heard) = tokio::sync::mpsc::unbounded_channel::<String>();
        #[cfg(unix)]
        tokio::spawn(reload_on_hangup(
            Arc::clone(&state.oracle),
            Arc::clone(&state.tables),
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
        if tabled.is_empty() {
            writeln!(
                err,
                "solvedb serve: warning: no tables in {}: every answer is a live search (--tables \
                 or $SOLVEDB_TABLES names the directory; SIGHUP picks up tables added there)",
                tables_dir.display()
            )?;
        } else {
            writeln!(
                err,
                "solvedb serve: tables from {}: {}; other games are searched live",
                tables_dir.display(),
                tabled.join(", ")
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
