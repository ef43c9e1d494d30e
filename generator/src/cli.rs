//! The `solvedb` command line.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand};
use solvedb_lookup::format::{
    FORMAT_VERSION, Header, encode_table, remove_stale_temporaries, write_atomically,
};
use solvedb_lookup::{
    Cube, Dots, Game, GameId, Limits, Oracle, Search, Source, Table, TicTacToe, read_table,
};

use crate::bench;
use crate::bench_cube;
use crate::consistency::check_consistency;
use crate::cube;
use crate::fuzz::{Budget, fuzz};
use crate::games::{CliGame, dots_boards};
use crate::manifest::{self, ManifestEntry};
use crate::progress::Progress;
use crate::serve::serve;
use crate::sweep::{SweepLimits, forge_other_game, sweep};

/// The program and version written into every table header.
pub const GENERATOR: &str = concat!("solvedb ", env!("CARGO_PKG_VERSION"));

/// Tables are built once and read often, so they get zstd's strongest
/// regular level.
const DEFAULT_LEVEL: i32 = 19;

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
        /// The game: `tictactoe`, `cube`, `dots:MxN` (M rows by N columns of
        /// boxes), or `all`: tic-tac-toe, the cube and every dots board with
        /// at most 24 edges.
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
    Serve {
        /// Serve on standard input and output (the only transport).
        #[arg(long, required = true)]
        stdio: bool,
        /// Directory holding the tables.
        #[arg(long, default_value = "tables")]
        tables: PathBuf,
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
        /// `--tables`, in one run.
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
}

impl std::str::FromStr for Target {
    type Err = solvedb_lookup::UnknownGame;

    fn from_str(s: &str) -> Result<Target, Self::Err> {
        match s {
            "all" => Ok(Target::All),
            _ => s.parse().map(Target::One),
        }
    }
}

/// `solvedb build all` covers dots boards up to this many edges (3x3, 2^24
/// positions, and everything smaller, rectangles both ways).
pub const ALL_DOTS_MAX_EDGES: u32 = 24;

/// The games `solvedb build all` builds, in order.
pub fn default_set() -> Vec<GameId> {
    let mut games = vec![GameId::TicTacToe, GameId::Cube];
    games.extend(dots_boards(ALL_DOTS_MAX_EDGES).iter().map(|b| b.id()));
    games
}

/// Runs the game-generic body `$body` with `$game` bound to the game `$id`
/// names, or fails for games the command does not support yet.
macro_rules! with_game {
    ($id:expr, $game:ident => $body:expr) => {
        match $id {
            GameId::TicTacToe => {
                let $game = &TicTacToe;
                $body
            }
            GameId::Cube => {
                let $game = &Cube;
                $body
            }
            GameId::Dots { rows, cols } => match Dots::new(rows, cols) {
                Ok(board) => {
                    let $game = &board;
                    $body
                }
                Err(e) => Err(anyhow!(e)),
            },
        }
    };
}

/// Runs the command line `args` (program name first), writing results to
/// `out` and problems to `err`. Returns the process exit code: 0 on success,
/// 1 when the command failed, 2 for a usage error.
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
            1
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
            stdio: _,
            tables,
            budget,
        } => {
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
            let one = |game: GameId, endgame: usize, out: &mut dyn Write| match game {
                // Too many positions to probe them all: a sample, and the
                // classic heuristic search to compare against.
                GameId::Cube => bench_cube::run(rounds, positions.max(1), &depths, out),
                GameId::Dots { rows, cols } => {
                    bench::run_dots(Dots::new(rows, cols)?, rounds, endgame, out)
                }
                _ => with_game!(game, g => bench::run(g, rounds, out)),
            };
            match game {
                Target::One(game) => one(game, endgame, out),
                Target::All => {
                    let started = Instant::now();
                    for game in [
                        GameId::TicTacToe,
                        GameId::Cube,
                        GameId::Dots { rows: 3, cols: 3 },
                    ] {
                        writeln!(out, "\n== {game} ==")?;
                        one(game, endgame.max(5), out)?;
                    }
                    writeln!(out, "\n== tables in {} ==", tables.display())?;
                    bench::table_sizes(&tables, out)?;
                    bench::peak_memory(out)?;
                    writeln!(out, "bench took {:.1} s", started.elapsed().as_secs_f64())?;
                    Ok(())
                }
            }
        }
        Command::Search {
            game,
            position,
            limits,
        } => with_game!(game, g => search(g, &position, limits.limits(), out)),
    }
}

/// The bytes of a game's table, built from scratch, with the solution's
/// counts.
pub fn build_table<G: CliGame>(game: &G, level: i32) -> (crate::solve::Solution, Vec<u8>) {
    let solution = game.solve_table();
    let bytes = encode_solution(game, &solution, level);
    (solution, bytes)
}

/// The table bytes of a solution: header, then blocks compressed at zstd
/// `level`.
pub fn encode_solution<G: CliGame>(
    game: &G,
    solution: &crate::solve::Solution,
    level: i32,
) -> Vec<u8> {
    let header = Header {
        game: game.id(),
        index: G::INDEX,
        values: G::VALUES,
        entries: solution.entries.len() as u64,
        stored: solution.stored,
        block_entries: G::BLOCK_ENTRIES,
        generator: GENERATOR.to_owned(),
    };
    encode_table(&header, &solution.entries, level)
}

fn build<G: CliGame>(game: &G, dir: &Path, level: i32, out: &mut dyn Write) -> Result<()> {
    let progress = Progress::spinner(format!("solving {}", game.id()));
    let started = Instant::now();
    let solution = game.solve_table();
    let solved = started.elapsed();
    let bytes = encode_solution(game, &solution, level);
    let elapsed = started.elapsed();
    progress.finish();

    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = game.id().table_file_name();
    let path = dir.join(&name);
    remove_stale_temporaries(&path)
        .with_context(|| format!("removing interrupted builds' files in {}", dir.display()))?;
    write_atomically(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
    let table = Table::new(bytes.as_slice()).context("reading back the table just built")?;
    manifest::record(
        dir,
        &name,
        ManifestEntry {
            bytes: bytes.len() as u64,
            checksum: table.file_checksum(),
            version: FORMAT_VERSION,
        },
    )?;

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
        path.display(),
        bytes.len(),
        bytes.len() as f64 * 8.0 / solution.stored as f64,
        table.header().blocks()
    )?;
    writeln!(
        out,
        "build time: {:.1} ms (solve {:.1} ms, compress at zstd level {level} {:.1} ms)",
        elapsed.as_secs_f64() * 1e3,
        solved.as_secs_f64() * 1e3,
        (elapsed - solved).as_secs_f64() * 1e3
    )?;
    Ok(())
}

fn open(file: &Path) -> Result<Table<Vec<u8>>> {
    read_table(file).with_context(|| format!("opening {}", file.display()))
}

fn verify(file: &Path, exhaustive: Option<RangeInclusive<u32>>, out: &mut dyn Write) -> Result<()> {
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
    if game == GameId::Cube {
        return verify_cube(file, &table, exhaustive, started, out);
    }
    if exhaustive.is_some() {
        bail!("--exhaustive is for cube tables; {game} tables are always checked in full");
    }
    let consistency = with_game!(game, g => check_consistency(g, &table)
        .with_context(|| format!("checking {} against the rules of {game}", file.display())))?;
    writeln!(
        out,
        "consistency ok: each of {} stored positions equals the best over its children",
        consistency.checked
    )?;
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
    let report = with_game!(game, g => Ok(sweep(g, bytes, &foreign, limits)?))?;
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

fn verify_cube(
    file: &Path,
    table: &Table<Vec<u8>>,
    exhaustive: Option<RangeInclusive<u32>>,
    started: Instant,
    out: &mut dyn Write,
) -> Result<()> {
    let checking = || format!("checking {} against the rules of the cube", file.display());
    let stored = cube::check_stored(table).with_context(checking)?;
    writeln!(
        out,
        "consistency ok: each of {stored} stored positions is canonical, quiet and equals the best over its children"
    )?;
    if let Some(stones) = exhaustive {
        writeln!(
            out,
            "every reachable non-terminal position, by stones on the board:"
        )?;
        writeln!(
            out,
            "{:>6} {:>14} {:>12} {:>12} {:>9}",
            "stones", "raw", "canonical", "checked", "seconds"
        )?;
        // Each layer is printed when done, so a long run shows how far it got.
        let mut layer_started = Instant::now();
        let mut printed: std::io::Result<()> = Ok(());
        let counts = cube::check_exhaustive(table, stones, |c| {
            if printed.is_err() {
                return;
            }
            printed = (|| {
                writeln!(
                    out,
                    "{:>6} {:>14} {:>12} {:>12} {:>9.1}",
                    c.stones,
                    c.raw,
                    c.canonical,
                    c.checked,
                    layer_started.elapsed().as_secs_f64()
                )?;
                out.flush()
            })();
            layer_started = Instant::now();
        })
        .with_context(checking)?;
        printed?;
        let sum = |f: fn(&cube::StoneCount) -> u64| counts.iter().map(f).sum::<u64>();
        writeln!(
            out,
            "{:>6} {:>14} {:>12} {:>12}",
            "all",
            sum(|c| c.raw),
            sum(|c| c.canonical),
            sum(|c| c.checked)
        )?;
        writeln!(
            out,
            "exhaustive check ok: every checked position's probed value equals the best over its children"
        )?;
    }
    writeln!(out, "verified in {:.1} s", started.elapsed().as_secs_f64())?;
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

fn search<G: CliGame>(game: &G, text: &str, limits: Limits, out: &mut dyn Write) -> Result<()> {
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
