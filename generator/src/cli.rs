//! The `solvedb` command line.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand};
use serde_json::{Map, Value as Json, json};
use solvedb_lookup::format::{FORMAT_VERSION, Header, encode_table, write_atomically};
use solvedb_lookup::{Dots, Game, GameId, Limits, Oracle, Search, Table, TicTacToe, read_table};

use crate::bench;
use crate::consistency::check_consistency;
use crate::games::{CliGame, dots_boards};
use crate::manifest::{self, ManifestEntry};
use crate::progress::Progress;

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
        Values are always from the side to move. Tic-tac-toe values are win, draw or loss \
        with the plies to the end of the game under perfect play.\n\n\
        Dots-and-boxes values are the net number of the still unclaimed boxes the player to \
        move wins.\n\n\
        Example:\n  solvedb build all\n  solvedb probe tictactoe 'X../.O./...'\n  \
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
        /// The game: `tictactoe`, `dots:MxN` (M rows by N columns of boxes),
        /// or `all`: tic-tac-toe and every dots board with at most 24 edges.
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
    Verify {
        /// The table file.
        file: PathBuf,
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
        /// The game: `tictactoe` or `dots:MxN`.
        game: GameId,
        /// The position. Tic-tac-toe: nine cells `X`, `O` or `.` row by row,
        /// `/` between rows allowed, e.g. `X../.O./...`. Dots: `MxN:` and one
        /// `0`/`1` per edge (horizontal edges row by row from the top, then
        /// vertical ones), or `MxN:` and moves like `h0,1 v2,0`.
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
        /// The game: `tictactoe` or `dots:MxN` (generation against the plain
        /// baseline, probe latency, and the endgame solver).
        #[arg(default_value = "tictactoe")]
        game: GameId,
        /// Rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
        /// Dots only: also time the exact solver on this many 4x4 and as
        /// many 5x5 positions with 15-25 undrawn edges.
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
    /// Tic-tac-toe and every dots-and-boxes board with at most
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
    let mut games = vec![GameId::TicTacToe];
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
            GameId::Dots { rows, cols } => match Dots::new(rows, cols) {
                Ok(board) => {
                    let $game = &board;
                    $body
                }
                Err(e) => Err(anyhow!(e)),
            },
            other => Err(anyhow!(
                "{other} is not supported yet (supported: tictactoe, dots:MxN)"
            )),
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
        Command::Verify { file } => verify(&file, out),
        Command::Info { file } => info(&file, out),
        Command::Probe {
            game,
            position,
            tables,
            json,
            limits,
        } => with_game!(game, g => probe(g, &position, &tables, json, limits.limits(), out)),
        Command::Bench {
            game,
            rounds,
            endgame,
        } => match game {
            GameId::Dots { rows, cols } => {
                bench::run_dots(Dots::new(rows, cols)?, rounds, endgame, out)
            }
            _ => with_game!(game, g => bench::run(g, rounds, out)),
        },
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
        entries: game.slots(),
        stored: solution.stored,
        block_entries: game.block_entries(),
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

    writeln!(out, "{}: every reachable position, by ply", game.id())?;
    writeln!(out, "{:>5} {:>12} {:>12}", "ply", "reachable", "canonical")?;
    for layer in &solution.layers {
        writeln!(
            out,
            "{:>5} {:>12} {:>12}",
            layer.ply, layer.reachable, layer.canonical
        )?;
    }
    writeln!(
        out,
        "{:>5} {:>12} {:>12}",
        "all",
        solution.reachable(),
        solution.canonical()
    )?;
    writeln!(
        out,
        "stored entries: {} of {} slots",
        solution.stored,
        game.slots()
    )?;
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

fn verify(file: &Path, out: &mut dyn Write) -> Result<()> {
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

fn probe<G: CliGame>(
    game: &G,
    text: &str,
    tables: &Path,
    json: bool,
    limits: Limits,
    out: &mut dyn Write,
) -> Result<()> {
    let position = game
        .parse(text)
        .with_context(|| format!("reading {} position {text:?}", game.id()))?;
    if tables.exists() && !tables.is_dir() {
        bail!("tables directory {} is not a directory", tables.display());
    }
    let path = tables.join(game.id().table_file_name());
    let oracle = if path.exists() {
        Oracle::with_table(*game, open(&path)?)
            .with_context(|| format!("using {}", path.display()))?
    } else {
        Oracle::search_only(*game).with_search_limits(limits)
    };
    let answer = oracle
        .answer(position)
        .with_context(|| format!("probing {}", game.notation(position)))?;

    if json {
        let mut object = Map::new();
        object.extend(game.game_json().into_iter().map(|(k, v)| (k.to_owned(), v)));
        object.insert("position".into(), json!(game.notation(position)));
        object.extend(
            game.position_json(position)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v)),
        );
        object.extend(
            game.value_json(answer.value)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v)),
        );
        object.insert("source".into(), json!(answer.source.as_str()));
        let moves: Vec<Json> = answer
            .moves
            .iter()
            .map(|m| {
                let mut entry = Map::new();
                entry.insert("move".into(), json!(m.mv.to_string()));
                entry.extend(
                    game.value_json(m.value)
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v)),
                );
                Json::Object(entry)
            })
            .collect();
        object.insert("moves".into(), Json::Array(moves));
        writeln!(out, "{}", Json::Object(object))?;
        return Ok(());
    }
    writeln!(
        out,
        "position {} ({})",
        game.notation(position),
        game.position_summary(position)
    )?;
    let source = match answer.source {
        solvedb_lookup::Source::Table => format!("table {}", path.display()),
        solvedb_lookup::Source::Search => format!("live search, no table at {}", path.display()),
    };
    writeln!(out, "value    {} (from {source})", answer.value)?;
    if answer.moves.is_empty() {
        writeln!(out, "the game is over")?;
    }
    for m in &answer.moves {
        writeln!(out, "  move {:>6}  {}", m.mv.to_string(), m.value)?;
    }
    Ok(())
}
