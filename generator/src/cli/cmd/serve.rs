//! `solvedb serve --stdio|--http`: the servers of `solvedb-server`, behind
//! the default feature `server` (a build without it says so).

use std::path::PathBuf;

use anyhow::Result;

use crate::cli::Io;
use crate::cli::args::TablesArg;

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub struct Args {
    /// Serve JSON lines on standard input and output.
    #[arg(long)]
    stdio: bool,
    /// Serve the web explorer and the JSON API (`/api/v1/...`) over
    /// HTTP; prints `listening on http://HOST:PORT/` first. Limits: headers
    /// within 10 s of waiting for a request (so idle keep-alive connections
    /// close after 10 s), bodies (4 KiB) within 10 s, every request within
    /// 10 s; 4,096 connections (fitted to the open-files limit, which is
    /// raised at start) and 64 per client address; 256 requests at once;
    /// 2 live searches at once and 8 requests waiting up to 2 s for one;
    /// all the searches of one request together within 3 s (and the
    /// budget), stopped when the request ends; 20 writes at once and 1 a
    /// second per address; past any of them an immediate 503 with the error
    /// object. Decoded table blocks: 64 MiB (least recently used out).
    /// Rooms: see `--move-clock`, the README for the rest.
    /// Shutdown (Ctrl-C, SIGTERM) within 5 s. SIGHUP picks up tables
    /// rebuilt, added or removed since they were opened.
    #[arg(long, verbatim_doc_comment)]
    http: bool,
    /// With `--http`: the address to listen on (default 127.0.0.1:8080;
    /// port 0 picks a free one). Another address than loopback is
    /// reachable from other machines: the server warns.
    #[arg(long, conflicts_with = "stdio")]
    addr: Option<std::net::SocketAddr>,
    /// With `--http`: seconds a room's player to move has for a move once
    /// both players have joined; past it they forfeit and the game is
    /// recorded (default 300; 0: no clock).
    #[arg(long, requires = "http", value_name = "SECONDS")]
    move_clock: Option<u64>,
    /// With `--http`: seconds a room with nobody connected waits before it
    /// closes (if nobody claimed its invite) or, while the rooms are past
    /// their reserve line, gives way to a new one (default 45; at least 1).
    #[arg(long, requires = "http", value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..))]
    room_empty: Option<u64>,
    #[command(flatten)]
    tables: TablesArg,
    /// With `--http`: the directory of the leaderboard's database
    /// (default: `solvedb-data` next to the tables directory).
    #[arg(long, requires = "http")]
    data: Option<PathBuf>,
    /// Node budget of each live search (default 10000000; with `--http`,
    /// of all the searches of one request together); past it the answer
    /// is an error of kind "budget" (unknown within the budget).
    #[arg(long)]
    budget: Option<u64>,
    /// No budget: live searches run until they know the answer (one
    /// request on a big board can then hold up the stream for hours).
    #[arg(long, conflicts_with = "budget")]
    no_budget: bool,
}

#[cfg(not(feature = "server"))]
pub(crate) fn run(_args: Args, _io: &mut Io<'_>) -> Result<()> {
    anyhow::bail!(
        "this solvedb was built without its servers; build it with the default features \
         (`cargo build --release -p solvedb-generator`)"
    )
}

#[cfg(feature = "server")]
pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    use anyhow::Context;
    use solvedb_lookup::Oracle;
    use solvedb_server::http;

    use crate::cli::args::DEFAULT_SEARCH_NODES;
    use crate::cli::output::budget_words;

    let tables = args.tables.tables;
    let nodes = match args.no_budget {
        true => None,
        false => Some(args.budget.unwrap_or(DEFAULT_SEARCH_NODES)),
    };
    if args.http {
        let limits = http::ServerLimits {
            search_nodes: nodes,
            ..Default::default()
        };
        let addr = match args.addr {
            Some(addr) => addr,
            None => http::DEFAULT_ADDR.parse()?,
        };
        let data = args.data.unwrap_or_else(|| http::default_data_dir(&tables));
        let mut rooms = http::rooms::RoomLimits::default();
        if let Some(seconds) = args.move_clock {
            rooms.move_clock = (seconds > 0).then(|| std::time::Duration::from_secs(seconds));
        }
        if let Some(seconds) = args.room_empty {
            rooms.empty = std::time::Duration::from_secs(seconds);
        }
        return http::run(
            &tables,
            &data,
            addr,
            limits,
            rooms,
            &mut *io.out,
            &mut *io.err,
        );
    }
    let oracle = Oracle::open(&tables)
        .with_context(|| format!("opening tables directory {}", tables.display()))?;
    let oracle = match nodes {
        None => oracle,
        Some(nodes) => oracle.with_search_budget(nodes),
    };
    writeln!(
        io.err,
        "solvedb serve: tables from {}; a game without a table there is searched exactly, {}",
        tables.display(),
        budget_words(oracle.limits())
    )?;
    solvedb_server::stdio::serve(&oracle, &mut *io.input, &mut *io.out)?;
    Ok(())
}
