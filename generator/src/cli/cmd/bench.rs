//! `solvedb bench GAME|all|http|rooms`: the games' benchmarks
//! ([`crate::bench`], each game's own), and the servers' (`solvedb-server`).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use solvedb_lookup::games::dots::Rules;
use solvedb_lookup::{catalogue, with_game};

use crate::bench::{BenchOptions, DEFAULT_POSITIONS, peak_memory, table_sizes};
use crate::cli::Io;
use crate::cli::args::{DEFAULT_SEARCH_NODES, MAX_TABLE_MIB, TablesArg, Target};
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
    /// dots:endgame: the positions file (else the committed one, relative
    /// to the current directory).
    #[arg(long)]
    positions_file: Option<std::path::PathBuf>,
    /// dots:endgame: write the positions the seeded procedure makes to
    /// this file instead of measuring (how the committed file was made).
    #[arg(long)]
    write_positions: Option<std::path::PathBuf>,
    /// dots:endgame: threads of the solver now (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// dots:endgame: run the solver of before on sets of at most this many
    /// undrawn edges.
    #[arg(long, default_value_t = 40)]
    old_up_to: u32,
    /// dots:endgame: skip sets of more undrawn edges.
    #[arg(long, default_value_t = 48)]
    up_to: u32,
    /// dots:endgame: the solver of before on the empty 4x4's every move too
    /// (about a quarter of an hour).
    #[arg(long)]
    old_moves: bool,
    /// dots:endgame: memory of each solver's table, in MiB (default: the
    /// solver's, 256 for 4x4 and larger).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TABLE_MIB))]
    table_mib: Option<u64>,
    /// dots:endgame: switch these rules of the solver now off, to measure
    /// what each gives.
    // The possible values are the solver's own list: help and solver
    // cannot disagree (a hand-kept list here had gone stale).
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(Rules::NAMES))]
    without: Vec<String>,
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
        Target::DotsEndgame => {
            if let Some(path) = &args.write_positions {
                let text = crate::games::dots::endgame::positions_text();
                std::fs::write(path, text)
                    .with_context(|| format!("writing {}", path.display()))?;
                return Ok(());
            }
            let path = args
                .positions_file
                .unwrap_or_else(|| crate::games::dots::endgame::POSITIONS_FILE.into());
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading positions file {}", path.display()))?;
            let options = crate::games::dots::endgame::EndgameOptions {
                threads: args.threads.map(|n| n as usize),
                old_up_to: args.old_up_to,
                up_to: args.up_to,
                moves_up_to_boxes: 16,
                table_bytes: args.table_mib.map(|mib| mib << 20),
                old_moves: args.old_moves,
                rules: args.without.iter().try_fold(Rules::ALL, |rules, name| {
                    rules.switch(name, false).with_context(|| {
                        format!(
                            "--without {name}: no such rule (the rules: {})",
                            Rules::NAMES.join(", ")
                        )
                    })
                })?,
            };
            crate::games::dots::endgame::run(&text, &options, out)
        }
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
