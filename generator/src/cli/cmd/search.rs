//! `solvedb search GAME POSITION`: as `probe`, by exact live search alone,
//! with the time taken; with `--mpi`, one dots position's value by the
//! search spread over MPI ranks.

use std::path::PathBuf;

use anyhow::{Result, bail};
use solvedb_lookup::{GameId, Oracle};

use super::probe::answer;
use crate::cli::Io;
use crate::cli::args::{LimitArgs, OutputArgs};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game (the list is derived from the catalogue).
    game: GameId,
    /// The position, as for `probe` (`-`: one per line on standard input).
    #[arg(allow_hyphen_values = true)]
    position: String,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    spread: SpreadArgs,
}

/// The search spread over MPI ranks.
#[derive(clap::Args, Debug)]
pub struct SpreadArgs {
    /// Dots only, under `mpirun -n K`: the position's value (not every
    /// move's) by the search spread over the K ranks, its first plies cut
    /// into jobs that every rank searches with its own table (`--threads`
    /// and `--table-mib` are each rank's; it searches to the end, without
    /// `--nodes` or `--seconds`). Needs a solvedb built with `--features
    /// mpi`.
    #[arg(long)]
    pub mpi: bool,
    /// With `--mpi`: keep the bounds finished jobs proved in this
    /// directory, and start from those it holds (a stopped search run
    /// again with the same directory goes on where it stopped).
    #[arg(long, requires = "mpi")]
    pub checkpoint: Option<PathBuf>,
    /// With `--mpi`: the plies cut into jobs (default: the checkpoint's,
    /// else the fewest that give 8 jobs a rank, at most 3).
    #[arg(long, requires = "mpi", value_parser = clap::value_parser!(u32).range(0..=3))]
    pub split_depth: Option<u32>,
    /// With `--mpi`: after each job a rank sends the bounds its table
    /// proved on the positions this many plies below the job's leaf (0:
    /// none), which the others learn before their next job.
    #[arg(long, requires = "mpi", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=3))]
    pub share_plies: u32,
    /// With `--mpi` and `--share-plies`: only positions whose search
    /// visited at least 2^(N-1) positions.
    #[arg(long, requires = "mpi", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=31))]
    pub share_min_work: u32,
    /// With `--mpi`: this rank aborts at its first job (tests).
    #[arg(long, hide = true, requires = "mpi")]
    pub mpi_fail_rank: Option<usize>,
    /// With `--mpi`: the coordinator aborts after this many answers,
    /// written to the checkpoint (tests of a stopped search).
    #[arg(long, hide = true, requires = "mpi")]
    pub mpi_stop_after: Option<u64>,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<i32> {
    let limits = args.limits.limits();
    if args.spread.mpi {
        let GameId::Dots { .. } = args.game else {
            bail!("--mpi searches dots positions (dots:MxN)");
        };
        if args.output.json || args.output.pv {
            bail!("--mpi prints the value alone (no --json or --pv)");
        }
        return spread(args.game, &args.position, limits, args.spread, io);
    }
    let oracle = Oracle::search_only().with_search_limits(limits);
    answer(&oracle, args.game, &args.position, args.output, io, |_| {
        Ok(())
    })
}

#[cfg(not(feature = "mpi"))]
fn spread(
    _game: GameId,
    _position: &str,
    _limits: solvedb_lookup::SearchLimits,
    _args: SpreadArgs,
    _io: &mut Io<'_>,
) -> Result<i32> {
    bail!(
        "this solvedb was built without MPI; build it with \
         `cargo build --release -p solvedb-generator --features mpi`"
    )
}

/// `solvedb search dots:MxN POS --mpi`: rank 0 prints the value and the
/// search's figures.
#[cfg(feature = "mpi")]
fn spread(
    game: GameId,
    position: &str,
    limits: solvedb_lookup::SearchLimits,
    args: SpreadArgs,
    io: &mut Io<'_>,
) -> Result<i32> {
    use solvedb_lookup::{Dots, Game, SearchLimits};

    use crate::mpi_search::{SearchArgs, search};
    use crate::text::seconds;

    let board = Dots::from_id(game)?;
    let root = board.parse(position)?;
    let search_args = SearchArgs {
        limits: SearchLimits {
            nodes: None,
            time: None,
            ..limits
        },
        depth: args.split_depth,
        checkpoint: args.checkpoint.as_deref(),
        fail_rank: args.mpi_fail_rank,
        stop_after: args.mpi_stop_after,
        sharing: crate::games::dots::spread::worker::Sharing {
            plies: args.share_plies,
            min_work: args.share_min_work,
        },
    };
    let Some(report) = search(board, root, search_args)? else {
        return Ok(0);
    };
    let out = &mut *io.out;
    let ranks = report.workers.len();
    let nodes: u64 = report.workers.iter().map(|w| w.nodes).sum();
    let cancelled: u64 = report.workers.iter().map(|w| w.cancelled_nodes).sum();
    writeln!(out, "position {}", board.notation(root))?;
    writeln!(
        out,
        "value    {:+} (exact search on {ranks} MPI ranks)",
        report.value
    )?;
    writeln!(
        out,
        "split    {} plies, {} leaves ({} known exactly), {} tests of the root",
        report.depth, report.leaves, report.exact_leaves, report.tests
    )?;
    writeln!(
        out,
        "jobs     {} ({} cancelled); {} from the checkpoint",
        report.jobs, report.cancelled, report.resumed
    )?;
    writeln!(
        out,
        "nodes    {nodes} ({cancelled} in cancelled jobs); per rank {}",
        report
            .workers
            .iter()
            .map(|w| w.nodes.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    writeln!(
        out,
        "cpu      {} s; peak per rank {} KiB",
        report
            .workers
            .iter()
            .map(|w| format!("{:.2}", w.cpu_centis as f64 / 100.0))
            .collect::<Vec<_>>()
            .join(" "),
        report
            .workers
            .iter()
            .map(|w| w.peak_kib.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    writeln!(
        out,
        "bytes    {} sent and received by rank 0 ({:.1} a job)",
        report.bytes,
        report.bytes as f64 / report.jobs.max(1) as f64
    )?;
    writeln!(out, "facts    {} relayed between ranks", report.facts)?;
    writeln!(out, "searched in {}", seconds(report.wall))?;
    Ok(0)
}
