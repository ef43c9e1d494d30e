//! `solvedb build GAME|all`: solve and write tables through the build
//! pipeline ([`crate::build`]), one process or (`--mpi`) across MPI ranks.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use solvedb_lookup::{Dots, GameId, with_game};

use crate::build::{Buildable, build_into, default_level, default_set};
use crate::cli::Io;
use crate::cli::args::Target;
use crate::cli::output::{write_counts, write_stored, write_written};
use crate::progress::Progress;
use crate::text::{count, seconds};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game, or `all` (the list is derived from the catalogue).
    #[arg(default_value = "all")]
    game: Target,
    /// Directory to write the table into (created if missing).
    #[arg(long, default_value = "tables")]
    out: PathBuf,
    /// zstd compression level for the blocks (1-22); by default 19 for
    /// tables up to 1 MiB of entries, 9 up to 256 MiB, 3 above.
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=22))]
    level: Option<i32>,
    /// Dots boards only, under `mpirun -n K` (K a power of two): run the
    /// retrograde pass across the K ranks, each holding 1/K of the
    /// positions; rank 0 writes the table (the same bytes as without
    /// `--mpi`). Needs a solvedb built with `--features mpi`.
    #[arg(long)]
    mpi: bool,
    /// With `--mpi`: this rank aborts halfway through the pass (tests).
    #[arg(long, hide = true)]
    mpi_fail_rank: Option<usize>,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let out = &mut *io.out;
    if args.mpi {
        let Target::One(game @ GameId::Dots { .. }) = args.game else {
            bail!("--mpi builds one dots board (dots:MxN)");
        };
        let board = Dots::from_id(game)?;
        // The level the single-process build would choose: the same bytes.
        let level = args
            .level
            .unwrap_or_else(|| default_level(1 << board.edges()));
        return build_mpi(board, &args.out, level, args.mpi_fail_rank, out);
    }
    let games = match args.game {
        Target::One(game) => vec![game],
        Target::All => default_set(),
        Target::Http => bail!("`http` is a bench, not a game to build"),
        Target::Rooms => bail!("`rooms` is a bench, not a game to build"),
        Target::DotsEndgame => bail!("`dots:endgame` is a bench, not a game to build"),
    };
    for game in games {
        with_game!(game, g => build(g, &args.out, args.level, out))?;
    }
    Ok(())
}

fn build<G: Buildable>(
    game: &G,
    dir: &Path,
    level: Option<i32>,
    out: &mut dyn Write,
) -> Result<()> {
    let progress = Progress::spinner(format!("solving {}", game.id()));
    let built = build_into(game, dir, level);
    progress.finish();
    let built = built?;
    let solution = &built.solution;

    write_counts(
        out,
        &game.id().to_string(),
        G::LAYERS,
        G::COLUMNS,
        &solution.layers,
    )?;
    if G::INDEX.is_dense() {
        write_stored(out, solution.stored, game.slots())?;
    } else {
        writeln!(
            out,
            "stored: {} as sorted records ({} with the fence)",
            count(solution.stored, "position", "positions"),
            count(solution.entries.len() as u64, "entry byte", "entry bytes")
        )?;
    }
    for note in &solution.notes {
        writeln!(out, "{note}")?;
    }
    write_written(
        out,
        &built.path,
        built.bytes,
        solution.stored,
        solution.canonical(),
        built.blocks,
    )?;
    writeln!(
        out,
        "build time: {} (solve {}, compress at zstd level {} {})",
        seconds(built.build_time),
        seconds(built.solve_time),
        built.level,
        seconds(built.build_time - built.solve_time)
    )?;
    Ok(())
}

#[cfg(not(feature = "mpi"))]
fn build_mpi(
    _board: Dots,
    _dir: &Path,
    _level: i32,
    _fail_rank: Option<usize>,
    _out: &mut dyn Write,
) -> Result<()> {
    bail!(
        "this solvedb was built without MPI; build it with \
         `cargo build --release -p solvedb-generator --features mpi`"
    )
}

/// `solvedb build dots:MxN --mpi`: the distributed build, and rank 0's
/// report: counts, the file, and each rank's time, memory and traffic.
#[cfg(feature = "mpi")]
fn build_mpi(
    board: Dots,
    dir: &Path,
    level: i32,
    fail_rank: Option<usize>,
    out: &mut dyn Write,
) -> Result<()> {
    let Some(built) = crate::mpi::build(board, dir, level, fail_rank)? else {
        return Ok(());
    };
    let table = &built.table;
    let ranks = table.ranks.len();
    write_counts(
        out,
        &format!("{} on {ranks} MPI ranks", solvedb_lookup::Game::id(&board)),
        Dots::LAYERS,
        Dots::COLUMNS,
        &table.layers,
    )?;
    write_stored(out, table.stored, solvedb_lookup::Tabled::slots(&board))?;
    write_written(
        out,
        &built.path,
        table.bytes.len() as u64,
        table.stored,
        table.layers.iter().map(|l| l.canonical).sum(),
        built.blocks,
    )?;
    writeln!(
        out,
        "wall time on rank 0: {:.3} s (zstd level {level})",
        built.wall.as_secs_f64()
    )?;
    writeln!(
        out,
        "{:>5} {:>10} {:>10} {:>11} {:>10} {:>14} {:>14} {:>14}",
        "rank",
        "solve s",
        "encode s",
        "solve CPU s",
        "CPU s",
        "peak RSS KiB",
        "bytes sent",
        "bytes recv"
    )?;
    for (rank, stats) in table.ranks.iter().enumerate() {
        writeln!(
            out,
            "{rank:>5} {:>10.3} {:>10.3} {:>11.2} {:>10.2} {:>14} {:>14} {:>14}",
            stats.solve.as_secs_f64(),
            stats.encode.as_secs_f64(),
            stats.solve_cpu_centis as f64 / 100.0,
            stats.cpu_centis as f64 / 100.0,
            stats.peak_rss_kib,
            stats.sent.iter().sum::<u64>(),
            stats.received.iter().sum::<u64>()
        )?;
    }
    let layers = table.ranks.first().map_or(0, |s| s.sent.len());
    write!(
        out,
        "bytes of each layer's chunks sent, by rank\n{:>6}",
        "layer"
    )?;
    for rank in 0..ranks {
        write!(out, " {:>12}", format!("rank {rank}"))?;
    }
    writeln!(out)?;
    for layer in (0..layers).rev() {
        write!(out, "{layer:>6}")?;
        for stats in &table.ranks {
            write!(out, " {:>12}", stats.sent[layer])?;
        }
        writeln!(out)?;
    }
    Ok(())
}
