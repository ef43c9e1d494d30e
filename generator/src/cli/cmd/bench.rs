//! `solvedb bench GAME|all|http|rooms`: the games' benchmarks
//! ([`crate::bench`], each game's own), and the servers' (`solvedb-server`).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use solvedb_lookup::{catalogue, with_game};

use crate::bench::{BenchOptions, DEFAULT_POSITIONS, peak_memory, table_sizes};
use crate::cli::Io;
use crate::cli::args::{DEFAULT_SEARCH_NODES, TablesArg, Target};
use crate::games::GeneratorGame;
use crate::text::seconds;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to measure (the list is derived from the catalogue).
    #[arg(default_value = "all")]
    game: Target,
    /// Directory of the tables whose sizes `all` reports and the servers
    /// serve (else $SOLVEDB_TABLES, else `tables`).
    #[command(flatten)]
    tables: TablesArg,
    /// Rounds per measurement (the median is reported).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rounds: u32,
    /// Random positions to measure on: the cube's and `http`'s probes and
    /// the cube's heuristic baseline (default 2000), Qubic's live search
    /// per stone count (default 25).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    positions: Option<u64>,
    /// Cube: search depths (plies) of the alpha-beta baseline.
    #[arg(long, value_delimiter = ',', num_args = 1.., default_values_t = [4, 6],
        value_parser = clap::value_parser!(u32).range(1..=9))]
    depths: Vec<u32>,
    /// Dots: also time the exact solver on this many 4x4 and as many 5x5
    /// positions with 15-25 undrawn edges (`all` uses at least 5).
    #[arg(long, default_value_t = 0)]
    endgame: usize,
    /// Rooms: rooms playing at once (two WebSockets each).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    rooms: u64,
    /// Rooms: games each room's players play in turn.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=1000))]
    games: u64,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let out = &mut *io.out;
    let tables = &args.tables.tables;
    let options = BenchOptions {
        rounds: args.rounds,
        positions: args.positions.map(|n| n as usize),
        depths: args.depths,
        endgame: args.endgame,
        search_nodes: DEFAULT_SEARCH_NODES,
    };
    match args.game {
        Target::One(game) => with_game!(game, g => g.bench(&options, out)),
        Target::All => bench_all(&options, tables, out),
        Target::Http => servers::http(
            tables,
            args.rounds,
            options.positions_or(DEFAULT_POSITIONS),
            out,
        ),
        Target::Rooms => servers::rooms(
            tables,
            args.rooms as usize,
            args.games as usize,
            args.rounds,
            out,
        ),
    }
}

/// `solvedb bench all`: each benchmarked game's figures (the catalogue's
/// [`GameInfo::bench`](solvedb_lookup::GameInfo::bench)), the sizes of the
/// tables in `tables` and the peak memory, in one run.
fn bench_all(options: &BenchOptions, tables: &Path, out: &mut dyn Write) -> Result<()> {
    let started = Instant::now();
    let options = BenchOptions {
        endgame: options.endgame.max(5),
        ..options.clone()
    };
    for game in catalogue().iter().filter(|g| g.bench) {
        writeln!(out, "\n== {} ==", game.id)?;
        with_game!(game.id, g => g.bench(&options, out))?;
    }
    writeln!(out, "\n== tables in {} ==", tables.display())?;
    table_sizes(tables, out)?;
    peak_memory(out)?;
    writeln!(out, "bench took {}", seconds(started.elapsed()))?;
    Ok(())
}

/// The servers' benchmarks, in `solvedb-server`.
#[cfg(feature = "server")]
mod servers {
    use std::io::Write;
    use std::path::Path;

    use anyhow::Result;
    use solvedb_server::http;

    pub fn http(tables: &Path, rounds: u32, positions: usize, out: &mut dyn Write) -> Result<()> {
        http::bench::run(tables, rounds, positions, out)
    }

    pub fn rooms(
        tables: &Path,
        rooms: usize,
        games: usize,
        rounds: u32,
        out: &mut dyn Write,
    ) -> Result<()> {
        http::load::run(tables, rooms, games, rounds, out)
    }
}

/// Without the servers, their benchmarks say how to get them.
#[cfg(not(feature = "server"))]
mod servers {
    use std::io::Write;
    use std::path::Path;

    use anyhow::{Result, bail};

    const WITHOUT: &str = "this solvedb was built without its servers; build it with the \
                           default features (`cargo build --release -p solvedb-generator`)";

    pub fn http(_: &Path, _: u32, _: usize, _: &mut dyn Write) -> Result<()> {
        bail!("bench http: {WITHOUT}")
    }

    pub fn rooms(_: &Path, _: usize, _: usize, _: u32, _: &mut dyn Write) -> Result<()> {
        bail!("bench rooms: {WITHOUT}")
    }
}
