//! The `solvedb` command line: arguments, dispatch and output. The work
//! itself is done by the build pipeline ([`crate::build`]), the games'
//! generator code ([`crate::games`]) and the library.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand};
use solvedb_lookup::format::FORMAT_VERSION;
use solvedb_lookup::{
    Error, ErrorKind, Game, GameId, Limits, Oracle, PositionError, Search, Source, Table,
    TableError, UnknownGame, read_table, with_game,
};

use crate::bench::{self, BenchOptions};
use crate::build::{Buildable, DEFAULT_LEVEL, build_into, default_set};
use crate::fuzz::{Budget, fuzz};
use crate::games::GeneratorGame;
use crate::progress::Progress;
use crate::serve::serve;
use crate::sweep::{SweepLimits, forge_other_game, sweep};

#[derive(Parser, Debug)]
#[command(
    name = "solvedb",
    version,
    about = "Perfect-play tables for small games: build, check and probe them.",
    long_about = "Perfect-play tables for small games: build, check and probe them.\n\n\
        Values are always from the side to move. Tic-tac-toe and cube values are win, draw or \
        loss with the plies to the end of the game under perfect play. Dots-and-boxes values \
        are the net number of the still unclaimed boxes the player to move wins.\n\n\
        Example:\n  solvedb build all\n  solvedb probe tictactoe 'X../.O./...'\n  \
        solvedb probe cube '.../.../...//.../.X./...//.../.../...'\n  \
        solvedb probe dots:2x2 '2x2:h0,0 v1,2' --json"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve every reachable position of a game and write its table.
    ///
    /// Prints the reachable positions per ply (raw and up to symmetry), the
    /// stored entries, the file's size and the time taken, and records the
    /// table in the output directory's MANIFEST.
    Build {
        /// The game: `tictactoe`, `tictactoe:4x4`, `cube`, `dots:MxN` (M rows
        /// by N columns of boxes), or `all`: tic-tac-toe 3x3 and 4x4, the cube
        /// and every dots board with at most 24 edges.
        #[arg(default_value = "all")]
        game: Target,
        /// Directory to write the table into (created if missing).
        #[arg(long, default_value = "tables")]
        out: PathBuf,
        /// zstd compression level for the blocks (1-22).
        #[arg(long, default_value_t = DEFAULT_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
        level: i32,
    },
    /// Check a table file: every checksum, then that every stored value equals
    /// the best over its children.
    ///
    /// With `--exhaustive` (cube tables), every reachable non-terminal
    /// position up to symmetry is checked the same way, stored or not, and
    /// the counts per number of stones are printed.
    Verify {
        /// The table file.
        file: PathBuf,
        /// Check every reachable position, not only the stored ones (cube).
        #[arg(long)]
        exhaustive: bool,
        /// With `--exhaustive`: only positions with at least this many stones.
        #[arg(long, default_value_t = 0)]
        min_stones: u32,
        /// With `--exhaustive`: only positions with at most this many stones.
        #[arg(long, default_value_t = 26)]
        max_stones: u32,
    },
    /// Mutate a table in every way a disk or a download can (flipped bits,
    /// truncations, appended bytes, another game's header) and check that
    /// each is refused with an error, by open, verify or the probe that
    /// reads the damaged block. Exits non-zero if any goes unnoticed.
    Sweep {
        /// The table file (it is not modified).
        file: PathBuf,
        /// Blocks whose bits are flipped, for big tables.
        #[arg(long, default_value_t = 64)]
        blocks: u64,
        /// Bits flipped per sampled block, for big tables.
        #[arg(long, default_value_t = 256)]
        bits_per_block: u64,
    },
    /// Fuzz every notation parser and table open/verify/probe with random
    /// and mutated inputs; exits non-zero on any panic or broken property.
    Fuzz {
        /// How long to run.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Seed of the run (a run is replayed by its seed and length).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Answer JSON-lines requests on standard input, one answer per line on
    /// standard output, until the input ends.
    ///
    /// Request: {"game":"cube","position":"...","want":"moves"} (want: value,
    /// moves or best; an "id" is echoed). Answer: the shape of `probe --json`.
    /// A malformed or illegal request gets {"error":"...","kind":"..."} and
    /// the server goes on.
    #[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
    Serve {
        /// Serve JSON lines on standard input and output.
        #[arg(long)]
        stdio: bool,
        /// Serve the web explorer and the JSON API (`/api/v1/...`) over
        /// HTTP; prints `listening on http://HOST:PORT/` first.
        #[arg(long)]
        http: bool,
        /// With `--http`: the address to listen on (port 0 picks a free one).
        #[arg(long, requires = "http", default_value = crate::http::DEFAULT_ADDR)]
        addr: std::net::SocketAddr,
        /// Directory holding the tables.
        #[arg(long, default_value = "tables")]
        tables: PathBuf,
        /// With `--http`: the directory of the leaderboard's database
        /// (default: `solvedb-data` next to the tables directory).
        #[arg(long, requires = "http")]
        data: Option<PathBuf>,
        /// Node budget of each live search; past it the answer is an error
        /// of kind "budget" (unknown within the budget).
        #[arg(long)]
        budget: Option<u64>,
    },
    /// Print a table file's header.
    Info {
        /// The table file.
        file: PathBuf,
    },
    /// The value of a position and of every legal move, best first.
    ///
    /// Uses the game's table in the tables directory; without one, an exact
    /// live search answers, and the output says which.
    Probe {
        /// The game: `tictactoe`, `cube` or `dots:MxN`.
        game: GameId,
        /// The position. Tic-tac-toe: nine cells `X`, `O` or `.` row by row,
        /// `/` between rows allowed, e.g. `X../.O./...`. Cube: 27 cells,
        /// layer by layer (z), row by row (y), x = 0..2; `/` between rows,
        /// one or two between layers. Dots: `MxN:` and one `0`/`1` per edge
        /// (horizontal edges row by row from the top, then vertical ones), or
        /// `MxN:` and moves like `h0,1 v2,0`.
        position: String,
        /// Directory holding the tables.
        #[arg(long, default_value = "tables")]
        tables: PathBuf,
        /// Answer in JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Measure probe latency against live search, and build time.
    ///
    /// Every figure is a median over rounds measured side by side in this run.
    Bench {
        /// The game: `tictactoe` (table against live search on every
        /// position), `cube` (probe percentiles and the classic heuristic
        /// baseline), `dots:MxN` (generation against the plain baseline, probe
        /// latency, the endgame solver), or `all`: each of them (dots on 3x3,
        /// with 5 endgame positions per board) and the sizes of the tables in
        /// `--tables`, in one run; `http`: the HTTP API's throughput and
        /// latency against in-process answers (cube table answers).
        #[arg(default_value = "all")]
        game: Target,
        /// Directory of the tables whose sizes `all` reports.
        #[arg(long, default_value = "tables")]
        tables: PathBuf,
        /// Rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
        /// Cube: random reachable positions to probe and to play the
        /// heuristic baseline on.
        #[arg(long, default_value_t = 2000)]
        positions: usize,
        /// Cube: search depths (plies) of the alpha-beta baseline.
        #[arg(long, value_delimiter = ',', default_values_t = [4, 6],
            value_parser = clap::value_parser!(u32).range(1..=9))]
        depths: Vec<u32>,
        /// Dots: also time the exact solver on this many 4x4 and as many 5x5
        /// positions with 15-25 undrawn edges (`all` uses at least 5).
        #[arg(long, default_value_t = 0)]
        endgame: usize,
    },
    /// The exact value of a position by live search alone (no table), with
    /// the positions searched and the time taken.
    Search {
        /// The game: `tictactoe` or `dots:MxN`.
        game: GameId,
        /// The position, as for `probe`.
        position: String,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// Limits on a live search: past them the answer is "unknown within the
/// budget", never a guess.
#[derive(clap::Args, Debug, Clone, Copy)]
struct LimitArgs {
    /// Give up after searching this many positions.
    #[arg(long)]
    nodes: Option<u64>,
    /// Give up after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// Memory for the search's transposition table, in MiB (dots: default
    /// 256 for 4x4 and larger).
    #[arg(long)]
    table_mib: Option<u64>,
}

impl LimitArgs {
    fn limits(self) -> Limits {
        Limits {
            nodes: self.nodes,
            time: self.seconds.map(Duration::from_secs_f64),
            table_bytes: self.table_mib.map(|mib| mib << 20),
        }
    }
}

/// What `solvedb build` builds: one game, or the default set.
#[derive(Clone, Debug)]
enum Target {
    /// One game and board.
    One(GameId),
    /// Tic-tac-toe, the cube and every dots-and-boxes board with at most
    /// [`ALL_DOTS_MAX_EDGES`] edges.
    All,
    /// `bench http`: the HTTP server against in-process answers.
    Http,
}

impl std::str::FromStr for Target {
    type Err = solvedb_lookup::UnknownGame;

    fn from_str(s: &str) -> Result<Target, Self::Err> {
        match s {
            "all" => Ok(Target::All),
            "http" => Ok(Target::Http),
            _ => s.parse().map(Target::One),
        }
    }
}

/// The exit code of a failure of each [`ErrorKind`]: the command's face of
/// the one error mapping (0 is success, 1 a failure of no other kind).
pub fn exit_code(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::Request => 2,
        ErrorKind::Position => 3,
        ErrorKind::Unsupported => 4,
        ErrorKind::Table => 5,
        ErrorKind::Io => 6,
        ErrorKind::Budget => 7,
        _ => 1,
    }
}

/// The kind of a command's failure: that of the first library error in its
/// chain of causes, `None` if there is none.
fn failure_kind(error: &anyhow::Error) -> Option<ErrorKind> {
    error.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<Error>() {
            Some(e.kind())
        } else if cause.is::<PositionError>() {
            Some(ErrorKind::Position)
        } else if cause.is::<TableError>() {
            Some(ErrorKind::Table)
        } else if cause.is::<UnknownGame>() {
            Some(ErrorKind::Unsupported)
        } else if cause.is::<io::Error>() {
            Some(ErrorKind::Io)
        } else {
            None
        }
    })
}

/// Runs the command line `args` (program name first), writing results to
/// `out` and problems to `err`. Returns the process exit code: 0 on success,
/// 2 for a usage error, and for a failure its kind's [`exit_code`] (1 when
/// it has none).
pub fn main_with<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let sink: &mut dyn Write = if e.use_stderr() { err } else { out };
            let _ = write!(sink, "{}", e.render().ansi());
            return e.exit_code();
        }
    };
    match run(cli.command, out) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "error: {e:#}");
            failure_kind(&e).map_or(1, exit_code)
        }
    }
}

fn run(command: Command, out: &mut dyn Write) -> Result<()> {
    match command {
        Command::Build {
            game,
            out: dir,
            level,
        } => {
            let games = match game {
                Target::One(game) => vec![game],
                Target::All => default_set(),
                Target::Http => bail!("`http` is a bench, not a game to build"),
            };
            for game in games {
                with_game!(game, g => build(g, &dir, level, out))?;
            }
            Ok(())
        }
        Command::Verify {
            file,
            exhaustive,
            min_stones,
            max_stones,
        } => {
            let stones = exhaustive.then_some(min_stones..=max_stones);
            verify(&file, stones, out)
        }
        Command::Info { file } => info(&file, out),
        Command::Serve {
            http: true,
            addr,
            tables,
            data,
            budget,
            ..
        } => {
            let limits = crate::http::Limits {
                search_nodes: budget,
                ..Default::default()
            };
            let data = data.unwrap_or_else(|| crate::http::default_data_dir(&tables));
            crate::http::run(&tables, &data, addr, limits, out)
        }
        Command::Serve { tables, budget, .. } => {
            let oracle = Oracle::open_reading(&tables)
                .with_context(|| format!("opening tables directory {}", tables.display()))?;
            let oracle = match budget {
                Some(nodes) => oracle.with_search_budget(nodes),
                None => oracle,
            };
            serve(&oracle, std::io::stdin().lock(), out)?;
            Ok(())
        }
        Command::Sweep {
            file,
            blocks,
            bits_per_block,
        } => sweep_file(&file, blocks, bits_per_block, out),
        Command::Fuzz { seconds, seed } => fuzz_for(seconds, seed, out),
        Command::Probe {
            game,
            position,
            tables,
            json,
            limits,
        } => probe(game, &position, &tables, json, limits.limits(), out),
        Command::Bench {
            game,
            tables,
            rounds,
            positions,
            depths,
            endgame,
        } => {
            let options = BenchOptions {
                rounds,
                positions: positions.max(1),
                depths,
                endgame,
            };
            match game {
                Target::Http => crate::http::bench::run(&tables, rounds, positions, out),
                Target::One(game) => with_game!(game, g => g.bench(&options, out)),
                Target::All => bench_all(&options, &tables, out),
            }
        }
        Command::Search {
            game,
            position,
            limits,
        } => with_game!(game, g => search(g, &position, limits.limits(), out)),
    }
}

/// `solvedb bench all`: each game's figures, the sizes of the tables in
/// `tables` and the peak memory, in one run.
///
/// # Errors
///
/// As the games' benchmarks.
fn bench_all(options: &BenchOptions, tables: &Path, out: &mut dyn Write) -> Result<()> {
    let started = Instant::now();
    let options = BenchOptions {
        endgame: options.endgame.max(5),
        ..options.clone()
    };
    for game in [
        GameId::TicTacToe,
        GameId::Cube,
        GameId::Dots { rows: 3, cols: 3 },
    ] {
        writeln!(out, "\n== {game} ==")?;
        with_game!(game, g => g.bench(&options, out))?;
    }
    writeln!(out, "\n== tables in {} ==", tables.display())?;
    bench::table_sizes(tables, out)?;
    bench::peak_memory(out)?;
    writeln!(out, "bench took {:.1} s", started.elapsed().as_secs_f64())?;
    Ok(())
}

fn build<G: Buildable>(game: &G, dir: &Path, level: i32, out: &mut dyn Write) -> Result<()> {
    let progress = Progress::spinner(format!("solving {}", game.id()));
    let built = build_into(game, dir, level);
    progress.finish();
    let built = built?;
    let solution = &built.solution;

    writeln!(out, "{}: {}", game.id(), G::LAYERS)?;
    let [layer_head, positions_head, canonical_head] = G::COLUMNS;
    writeln!(
        out,
        "{layer_head:>6} {positions_head:>12} {canonical_head:>12}"
    )?;
    for layer in &solution.layers {
        writeln!(
            out,
            "{:>6} {:>12} {:>12}",
            layer.ply, layer.reachable, layer.canonical
        )?;
    }
    writeln!(
        out,
        "{:>6} {:>12} {:>12}",
        "all",
        solution.reachable(),
        solution.canonical()
    )?;
    if G::INDEX.is_dense() {
        writeln!(
            out,
            "stored entries: {} of {} slots",
            solution.stored,
            game.slots()
        )?;
    } else {
        writeln!(
            out,
            "stored entries: {} sorted records ({} entry bytes with the fence)",
            solution.stored,
            solution.entries.len()
        )?;
    }
    writeln!(
        out,
        "wrote {}: {} bytes, {:.2} bits per stored position, {} blocks",
        built.path.display(),
        built.bytes,
        built.bytes as f64 * 8.0 / solution.stored as f64,
        built.blocks
    )?;
    writeln!(
        out,
        "build time: {:.1} ms (solve {:.1} ms, compress at zstd level {level} {:.1} ms)",
        built.build_time.as_secs_f64() * 1e3,
        built.solve_time.as_secs_f64() * 1e3,
        (built.build_time - built.solve_time).as_secs_f64() * 1e3
    )?;
    Ok(())
}

fn open(file: &Path) -> Result<Table<Vec<u8>>> {
    read_table(file).with_context(|| format!("opening {}", file.display()))
}

fn verify(
    file: &Path,
    exhaustive: Option<std::ops::RangeInclusive<u32>>,
    out: &mut dyn Write,
) -> Result<()> {
    let table = open(file)?;
    let started = Instant::now();
    table
        .verify()
        .with_context(|| format!("verifying {}", file.display()))?;
    writeln!(
        out,
        "{}: checksums ok (header, block index, {} blocks, whole file)",
        file.display(),
        table.header().blocks()
    )?;
    let game = table.header().game;
    with_game!(game, g => g.verify_table(&table, exhaustive, out))
        .with_context(|| format!("checking {} against the rules of {game}", file.display()))?;
    writeln!(
        out,
        "verified in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    )?;
    Ok(())
}

fn sweep_file(file: &Path, blocks: u64, bits_per_block: u64, out: &mut dyn Write) -> Result<()> {
    let table = open(file)?;
    let game = table.header().game;
    let bytes = table.bytes().to_vec();
    let mut foreign = vec![forge_other_game(&bytes)?];
    // Real tables of other games beside this one.
    if let Some(dir) = file.parent().filter(|d| d.is_dir()) {
        for entry in fs::read_dir(dir)?.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "sdb") {
                if let Ok(other) = read_table(&path) {
                    if other.header().game != game {
                        foreign.push(other.bytes().to_vec());
                    }
                }
            }
        }
    }
    let limits = SweepLimits {
        blocks,
        bits_per_block,
        head_bytes: 64 * 1024,
    };
    let started = Instant::now();
    let report = with_game!(game, g => anyhow::Ok(sweep(g, bytes, &foreign, limits)?))?;
    writeln!(out, "corruption sweep of {} ({game})", file.display())?;
    write!(out, "{}", report.render())?;
    writeln!(out, "swept in {:.1} s", started.elapsed().as_secs_f64())?;
    if !report.all_detected() {
        bail!("some mutations went unnoticed or panicked");
    }
    Ok(())
}

fn fuzz_for(seconds: f64, seed: u64, out: &mut dyn Write) -> Result<()> {
    let budget = Duration::try_from_secs_f64(seconds)
        .map_err(|_| anyhow!("--seconds must be a non-negative number, not {seconds}"))?;
    let report = fuzz(Budget::Time(budget), seed);
    for (game, target, executions) in &report.executions {
        let game = game.to_string();
        writeln!(out, "{game:<10} {target:<24} {executions:>10} executions")?;
    }
    writeln!(
        out,
        "{} executions in {:.1} s (seed {seed}), {} failures",
        report.total(),
        report.elapsed.as_secs_f64(),
        report.failures.len()
    )?;
    for failure in report.failures.iter().take(10) {
        writeln!(out, "FAILURE {failure}")?;
    }
    if !report.failures.is_empty() {
        bail!("the fuzzer found {} failing inputs", report.failures.len());
    }
    Ok(())
}

fn info(file: &Path, out: &mut dyn Write) -> Result<()> {
    let table = open(file)?;
    let h = table.header();
    writeln!(out, "file            {}", file.display())?;
    writeln!(out, "format version  {FORMAT_VERSION}")?;
    writeln!(out, "game            {}", h.game)?;
    writeln!(out, "index scheme    {:?}", h.index)?;
    writeln!(out, "value encoding  {:?}", h.values)?;
    writeln!(out, "entries         {}", h.entries)?;
    writeln!(out, "stored          {}", h.stored)?;
    writeln!(out, "block entries   {}", h.block_entries)?;
    writeln!(out, "blocks          {}", h.blocks())?;
    writeln!(out, "bytes           {}", table.bytes().len())?;
    writeln!(out, "checksum        {:016x}", table.file_checksum())?;
    writeln!(out, "generator       {}", h.generator)?;
    Ok(())
}

fn search<G: Game>(game: &G, text: &str, limits: Limits, out: &mut dyn Write) -> Result<()> {
    let position = game
        .parse(text)
        .with_context(|| format!("reading {} position {text:?}", game.id()))?;
    let mut search = Search::with_limits(game, limits);
    let started = Instant::now();
    let score = search.score(position);
    let elapsed = started.elapsed();
    let nodes = search.nodes();
    let score = score.with_context(|| {
        format!(
            "searching {} ({nodes} positions in {:.1} s)",
            game.notation(position),
            elapsed.as_secs_f64()
        )
    })?;
    writeln!(out, "position {}", game.notation(position))?;
    writeln!(
        out,
        "value    {} (exact, live search)",
        game.value(position, score)
    )?;
    writeln!(
        out,
        "searched {nodes} positions in {:.3} s",
        elapsed.as_secs_f64()
    )?;
    Ok(())
}

fn probe(
    game: GameId,
    text: &str,
    tables: &Path,
    json: bool,
    limits: Limits,
    out: &mut dyn Write,
) -> Result<()> {
    let oracle = Oracle::open_reading(tables)
        .with_context(|| format!("opening tables directory {}", tables.display()))?
        .with_search_limits(limits);
    let path = tables.join(game.table_file_name());
    let report = oracle
        .moves(game, text)
        .with_context(|| format!("probing {game} position {text:?}"))?;
    if json {
        writeln!(out, "{}", report.to_json())?;
        return Ok(());
    }
    match report.to_move {
        Some(side) => writeln!(out, "position {} ({side} to move)", report.position)?,
        None => writeln!(out, "position {}", report.position)?,
    }
    let source = match report.source {
        Source::Table => format!("table {}", path.display()),
        Source::Search => format!("live search, no table at {}", path.display()),
        Source::ForcedPlay => format!("forced play by the rules, table {}", path.display()),
    };
    writeln!(out, "value    {} (from {source})", report.value)?;
    if report.moves.is_empty() {
        writeln!(out, "the game is over")?;
    }
    for m in &report.moves {
        writeln!(out, "  move {:>6}  {}", m.mv, m.value)?;
    }
    Ok(())
}
