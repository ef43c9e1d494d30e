//! The `solvedb` command line: arguments, dispatch and output. The work
//! itself is done by the build pipeline ([`crate::build`]), the games'
//! generator code ([`crate::games`]) and the library.

use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{ColorChoice, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::Value as Json;
use solvedb_lookup::format::FORMAT_VERSION;
use solvedb_lookup::{
    AnyValue, Dots, Error, ErrorKind, Game, GameId, Limits, Oracle, PositionError, Report, Source,
    Table, TableError, UnknownGame, Wdl, read_table, with_game,
};

use crate::bench::{self, BenchOptions};
use crate::build::{Buildable, LayerCount, build_into, default_set};
use crate::fuzz::{Budget, fuzz};
use crate::games::GeneratorGame;
use crate::progress::Progress;
use crate::serve::{Line, error_json, next_line, serve};
use crate::sweep::{SweepLimits, forge_other_game, sweep};
use crate::text::{count, seconds};

/// The node budget of a live search when none is given: enough for every
/// tic-tac-toe position and every dots board the default tables cover,
/// small enough that a 4x4 or 5x5 dots board or an early cube position
/// stops within seconds with "unknown within the budget" (figures in the
/// README). `--nodes` changes it, `--no-budget` lifts it.
pub const DEFAULT_SEARCH_NODES: u64 = 10_000_000;

/// The environment variable naming the tables directory when `--tables`
/// is not given.
pub const TABLES_ENV: &str = "SOLVEDB_TABLES";

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
        /// HTTP; prints `listening on http://HOST:PORT/` first. Each live
        /// search is also bounded by time (3 s) and memory.
        #[arg(long)]
        http: bool,
        /// With `--http`: the address to listen on (default 127.0.0.1:8080;
        /// port 0 picks a free one).
        #[arg(long, conflicts_with = "stdio")]
        addr: Option<std::net::SocketAddr>,
        /// Directory holding the tables (else $SOLVEDB_TABLES, else `tables`).
        #[arg(long, env = TABLES_ENV, default_value = "tables")]
        tables: PathBuf,
        /// With `--http`: the directory of the leaderboard's database
        /// (default: `solvedb-data` next to the tables directory).
        #[arg(long, requires = "http")]
        data: Option<PathBuf>,
        /// Node budget of each live search (default 10000000); past it the
        /// answer is an error of kind "budget" (unknown within the budget).
        #[arg(long)]
        budget: Option<u64>,
        /// No budget: live searches run until they know the answer (one
        /// request on a big board can then hold up the stream for hours).
        #[arg(long, conflicts_with = "budget")]
        no_budget: bool,
    },
    /// Print a table file's header.
    Info {
        /// The table file.
        file: PathBuf,
    },
    /// The value of a position and of every legal move, best first, with a
    /// picture of the board.
    ///
    /// Uses the game's table in the tables directory; without one, an exact
    /// live search answers within the search budget (it says so on standard
    /// error at once), and the output says which. With `-` as the position,
    /// reads one position per line from standard input and answers one per
    /// line.
    Probe {
        /// The game: `tictactoe`, `cube` or `dots:MxN` (M rows by N columns
        /// of boxes).
        game: GameId,
        /// The position, or `-` for one per line on standard input.
        /// Tic-tac-toe: nine cells `X`, `O` or `.` row by row, `/` between
        /// rows allowed, e.g. `X../.O./...`, or the moves from the start,
        /// cells 0-8, e.g. `0 4`. Cube: 27 cells, layer by layer (z), row by
        /// row (y), x = 0..2; `/` between rows, one or two between layers;
        /// or moves from the start, cells 0-26 = x + 3y + 9z, e.g. `13 0`.
        /// Dots: `MxN:` and one `0`/`1` per edge (horizontal edges row by
        /// row from the top, then vertical ones), or `MxN:` and moves like
        /// `h0,1 v2,0`.
        #[arg(allow_hyphen_values = true)]
        position: String,
        /// Directory holding the tables (else $SOLVEDB_TABLES, else `tables`).
        #[arg(long, env = TABLES_ENV, default_value = "tables")]
        tables: PathBuf,
        #[command(flatten)]
        output: OutputArgs,
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
        /// latency against in-process answers (cube table answers);
        /// `rooms`: many rooms at once, two WebSocket players each, moves
        /// per second and broadcast latency (`--rooms`, `--games`).
        #[arg(default_value = "all")]
        game: Target,
        /// Directory of the tables whose sizes `all` reports (else
        /// $SOLVEDB_TABLES, else `tables`).
        #[arg(long, env = TABLES_ENV, default_value = "tables")]
        tables: PathBuf,
        /// Rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
        /// Cube: random reachable positions to probe and to play the
        /// heuristic baseline on.
        #[arg(long, default_value_t = 2000)]
        positions: usize,
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
    },
    /// The value of a position and of every move by exact live search
    /// alone (no table), as `probe` prints it, with the time taken.
    Search {
        /// The game: `tictactoe`, `cube` or `dots:MxN`.
        game: GameId,
        /// The position, as for `probe` (`-`: one per line on standard input).
        #[arg(allow_hyphen_values = true)]
        position: String,
        #[command(flatten)]
        output: OutputArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Print a completion script for a shell, e.g.
    /// `solvedb completions bash > /etc/bash_completion.d/solvedb`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `solvedb man > solvedb.1`.
    Man,
}

/// How `probe` and `search` print their answers.
#[derive(clap::Args, Debug, Clone, Copy)]
struct OutputArgs {
    /// Answer in JSON (errors too: {"error":"...","kind":"..."} on standard
    /// output, with the kind's exit code).
    #[arg(long)]
    json: bool,
    /// Also give the best line to the end of the game (the principal
    /// variation).
    #[arg(long)]
    pv: bool,
}

/// Limits on a live search: past them the answer is "unknown within the
/// budget", never a guess.
#[derive(clap::Args, Debug, Clone, Copy)]
struct LimitArgs {
    /// Give up after searching this many positions (the default answers
    /// every tic-tac-toe and small dots position and stops a 4x4 dots board
    /// or an early cube position within seconds).
    #[arg(long, default_value_t = DEFAULT_SEARCH_NODES)]
    nodes: u64,
    /// Give up after this many seconds (per position searched).
    #[arg(long, value_parser = parse_seconds)]
    seconds: Option<Duration>,
    /// Memory for the search's transposition table, in MiB (dots: default
    /// 256 for 4x4 and larger).
    #[arg(long)]
    table_mib: Option<u64>,
    /// No node budget: search until the answer is known, however long it
    /// takes (`--seconds` still applies if given).
    #[arg(long, conflicts_with = "nodes")]
    no_budget: bool,
}

/// A number of seconds that is a duration (not negative, not NaN).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("{e}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| "not a non-negative number of seconds".into())
}

impl LimitArgs {
    fn limits(self) -> Result<Limits> {
        Ok(Limits {
            nodes: (!self.no_budget).then_some(self.nodes),
            time: self.seconds,
            table_bytes: self.table_mib.map(|mib| mib << 20),
        })
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
    /// `bench rooms`: rooms under load over WebSockets.
    Rooms,
}

impl std::str::FromStr for Target {
    type Err = solvedb_lookup::UnknownGame;

    fn from_str(s: &str) -> Result<Target, Self::Err> {
        match s {
            "all" => Ok(Target::All),
            "http" => Ok(Target::Http),
            "rooms" => Ok(Target::Rooms),
            _ => s.parse().map(Target::One),
        }
    }
}

/// The exit code of a failure of each [`ErrorKind`]: the command's face of
/// the one error mapping (0 is success, 1 a failure of no other kind; a
/// usage error is a malformed request, 2).
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

/// The exit codes, as `--help` and the README list them: one line per
/// code, from [`exit_code`] of every [`ErrorKind`].
pub fn exit_code_table() -> String {
    let mut lines = vec!["Exit codes:".to_owned(), "  0  success".to_owned()];
    lines.push("  1  a failure of no other kind (kind \"other\")".to_owned());
    for kind in ErrorKind::ALL {
        let what = match kind {
            ErrorKind::Request => "usage: bad arguments or a malformed request",
            ErrorKind::Position => "a malformed or illegal position or move",
            ErrorKind::Unsupported => {
                "an unknown game, or a board this build cannot answer or build"
            }
            ErrorKind::Table => "a damaged, foreign or newer table file",
            ErrorKind::Io => "a file or directory that cannot be read or written",
            ErrorKind::Budget => "unknown within the search budget (--nodes, --seconds)",
            _ => "another kind",
        };
        lines.push(format!("  {}  {what} (kind \"{kind}\")", exit_code(kind)));
    }
    lines.join("\n")
}

/// The clap command, with the exit-code table after the help.
pub fn clap_command() -> clap::Command {
    Cli::command().after_long_help(exit_code_table())
}

/// Where a run's input and output go, and whether they get colour.
#[derive(Debug, Clone, Copy, Default)]
pub struct Terminal {
    /// Colour on standard output (a terminal, `NO_COLOR` unset).
    pub color_out: bool,
    /// Colour on standard error.
    pub color_err: bool,
}

impl Terminal {
    /// Colour where the process's standard output and error are terminals
    /// and `NO_COLOR` is unset (anstream's rules: also `CLICOLOR=0`,
    /// `TERM=dumb` turn it off, `CLICOLOR_FORCE` on).
    pub fn of_process() -> Terminal {
        let on = |choice| choice != anstream::ColorChoice::Never;
        Terminal {
            color_out: on(anstream::AutoStream::choice(&io::stdout())),
            color_err: on(anstream::AutoStream::choice(&io::stderr())),
        }
    }
}

/// Runs the command line `args` (program name first), writing results to
/// `out` and problems to `err`, without colour; standard input is the
/// process's. Returns the process exit code: 0 on success, 2 for a usage
/// error, and for a failure its kind's [`exit_code`] (1 when it has none).
pub fn main_with<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Not `stdin().lock()`: a command that never reads its input must not
    // hold the process's stdin lock (tests run many commands at once).
    main_with_input(
        args,
        &mut io::BufReader::new(io::stdin()),
        out,
        err,
        Terminal::default(),
    )
}

/// As [`main_with`], reading standard input (`probe GAME -`, `serve`) from
/// `input` and colouring as `terminal` says.
pub fn main_with_input<I, T>(
    args: I,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
    terminal: Terminal,
) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let json = args.iter().any(|a| a == "--json");
    let parsed = clap_command()
        .color(if terminal.color_out && terminal.color_err {
            ColorChoice::Always
        } else {
            ColorChoice::Never
        })
        .try_get_matches_from(args)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // A game name that names no game is refused while the arguments
            // are read, but it is an unsupported game, not a usage error.
            let unknown_game = std::error::Error::source(&e).is_some_and(|s| s.is::<UnknownGame>());
            let (kind, code) = match unknown_game {
                true => (ErrorKind::Unsupported, exit_code(ErrorKind::Unsupported)),
                false => (ErrorKind::Request, e.exit_code()),
            };
            if e.use_stderr() && json {
                // The error itself, without the usage hints below it.
                let message = e.render().to_string();
                let message = message.split("\n\n").next().unwrap_or_default();
                let message = message.trim_end().trim_start_matches("error: ");
                let _ = writeln!(out, "{}", error_json(Some(kind), message));
                return code;
            }
            let (sink, color): (&mut dyn Write, bool) = if e.use_stderr() {
                (err, terminal.color_err)
            } else {
                (out, terminal.color_out)
            };
            let _ = if color {
                write!(sink, "{}", e.render().ansi())
            } else {
                write!(sink, "{}", e.render())
            };
            return code;
        }
    };
    let mut io = Io {
        input,
        out,
        err,
        paint: Paint(terminal.color_out),
    };
    match run(cli.command, &mut io) {
        Ok(code) => code,
        Err(e) => {
            let kind = failure_kind(&e);
            let message = error_message(&e);
            if json {
                let _ = writeln!(io.out, "{}", error_json(kind, &message));
            } else {
                let _ = writeln!(io.err, "error: {message}");
            }
            kind.map_or(1, exit_code)
        }
    }
}

/// An error and its causes in one line, each cause once: a cause whose
/// text the line already holds (an OS error a library error quotes) is not
/// repeated.
fn error_message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// A run's streams and colour.
struct Io<'a> {
    input: &'a mut dyn BufRead,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    paint: Paint,
}

/// Colours text for a terminal, or leaves it alone.
#[derive(Debug, Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn styled(self, style: anstyle::Style, text: &str) -> String {
        if self.0 {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// A value, green when it wins, red when it loses.
    fn value(self, value: AnyValue) -> String {
        use anstyle::AnsiColor::{Green, Red};
        let style = match value {
            AnyValue::Outcome(o) if o.wdl == Wdl::Win => Green.on_default(),
            AnyValue::Outcome(o) if o.wdl == Wdl::Loss => Red.on_default(),
            AnyValue::Margin(m) if m > 0 => Green.on_default(),
            AnyValue::Margin(m) if m < 0 => Red.on_default(),
            _ => anstyle::Style::new(),
        };
        self.styled(style, &value.to_string())
    }

    /// A board picture, X and O in colour.
    fn picture(self, picture: &str) -> String {
        if !self.0 {
            return picture.to_owned();
        }
        let x = anstyle::AnsiColor::Red.on_default().bold();
        let o = anstyle::AnsiColor::Blue.on_default().bold();
        picture
            .chars()
            .map(|c| match c {
                'X' => self.styled(x, "X"),
                'O' => self.styled(o, "O"),
                c => c.to_string(),
            })
            .collect()
    }
}

fn run(command: Command, io: &mut Io<'_>) -> Result<i32> {
    let out = &mut *io.out;
    match command {
        Command::Build {
            game,
            out: dir,
            level,
            mpi: true,
            mpi_fail_rank,
        } => {
            let Target::One(game @ GameId::Dots { .. }) = game else {
                bail!("--mpi builds one dots board (dots:MxN)");
            };
            let board = Dots::from_id(game)?;
            // The level the single-process build would choose: the same bytes.
            let level = level.unwrap_or_else(|| crate::build::default_level(1 << board.edges()));
            build_mpi(board, &dir, level, mpi_fail_rank, out)?;
        }
        Command::Build {
            game,
            out: dir,
            level,
            ..
        } => {
            let games = match game {
                Target::One(game) => vec![game],
                Target::All => default_set(),
                Target::Http => bail!("`http` is a bench, not a game to build"),
                Target::Rooms => bail!("`rooms` is a bench, not a game to build"),
            };
            for game in games {
                with_game!(game, g => build(g, &dir, level, out))?;
            }
        }
        Command::Verify {
            file,
            exhaustive,
            min_stones,
            max_stones,
        } => {
            let stones = exhaustive.then_some(min_stones..=max_stones);
            verify(&file, stones, out)?;
        }
        Command::Info { file } => info(&file, out)?,
        Command::Serve {
            http: true,
            addr,
            tables,
            data,
            budget,
            no_budget,
            ..
        } => {
            let limits = crate::http::Limits {
                search_nodes: if no_budget {
                    None
                } else {
                    Some(budget.unwrap_or(DEFAULT_SEARCH_NODES))
                },
                ..Default::default()
            };
            let addr = match addr {
                Some(addr) => addr,
                None => crate::http::DEFAULT_ADDR.parse()?,
            };
            let data = data.unwrap_or_else(|| crate::http::default_data_dir(&tables));
            crate::http::run(&tables, &data, addr, limits, out)?;
        }
        Command::Serve {
            tables,
            budget,
            no_budget,
            ..
        } => {
            let oracle = Oracle::open_reading(&tables)
                .with_context(|| format!("opening tables directory {}", tables.display()))?;
            let oracle = match (budget, no_budget) {
                (_, true) => oracle,
                (nodes, false) => oracle.with_search_budget(nodes.unwrap_or(DEFAULT_SEARCH_NODES)),
            };
            writeln!(
                io.err,
                "solvedb serve: tables from {}; a game without a table there is searched exactly, {}",
                tables.display(),
                budget_words(oracle.limits())
            )?;
            serve(&oracle, &mut *io.input, out)?;
        }
        Command::Sweep {
            file,
            blocks,
            bits_per_block,
        } => sweep_file(&file, blocks, bits_per_block, out)?,
        Command::Fuzz { seconds, seed } => fuzz_for(seconds, seed, out)?,
        Command::Probe {
            game,
            position,
            tables,
            output,
            limits,
        } => {
            let oracle = Oracle::open_reading(&tables)
                .with_context(|| format!("opening tables directory {}", tables.display()))?
                .with_search_limits(limits.limits()?);
            // A board no build answers, or a bad position, is refused
            // before the notice.
            with_game!(game, g => match position.as_str() {
                "-" => Ok(()),
                text => g.parse(text).map(drop).map_err(Error::from),
            })
            .with_context(|| format!("probing {game} position {position:?}"))?;
            if !oracle.has_table(game) {
                let dir = std::path::absolute(&tables).unwrap_or(tables.clone());
                writeln!(
                    io.err,
                    "solvedb: no {game} table in {} (no file {}): searching exactly, {}; \
                     --tables DIR or ${TABLES_ENV} names another directory",
                    dir.display(),
                    game.table_file_name(),
                    budget_words(oracle.limits())
                )?;
            }
            return answer(&oracle, game, &position, output, io);
        }
        Command::Search {
            game,
            position,
            output,
            limits,
        } => {
            let oracle = Oracle::search_only().with_search_limits(limits.limits()?);
            return answer(&oracle, game, &position, output, io);
        }
        Command::Bench {
            game,
            tables,
            rounds,
            positions,
            depths,
            endgame,
            rooms,
            games,
        } => {
            let options = BenchOptions {
                rounds,
                positions: positions.max(1),
                depths,
                endgame,
            };
            match game {
                Target::Http => crate::http::bench::run(&tables, rounds, positions, out)?,
                Target::Rooms => {
                    crate::http::load::run(&tables, rooms as usize, games as usize, rounds, out)?
                }
                Target::One(game) => with_game!(game, g => g.bench(&options, out))?,
                Target::All => bench_all(&options, &tables, out)?,
            }
        }
        Command::Completions { shell } => {
            // `generate` panics when its writer fails (a closed pipe):
            // write into memory, then out, where a failure is an error.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut clap_command(), "solvedb", &mut script);
            out.write_all(&script)?;
        }
        Command::Man => clap_mangen::Man::new(clap_command()).render(out)?,
    }
    Ok(0)
}

/// How a live search is bounded, in words for standard error.
fn budget_words(limits: Limits) -> String {
    let bound = match (limits.nodes, limits.time) {
        (Some(nodes), Some(time)) => format!(
            "giving up after {} or {}",
            count(nodes, "position", "positions"),
            seconds(time)
        ),
        (Some(nodes), None) => format!("giving up after {}", count(nodes, "position", "positions")),
        (None, Some(time)) => format!("giving up after {}", seconds(time)),
        (None, None) => "with no budget: this can take very long".to_owned(),
    };
    format!("{bound} (--nodes N, --seconds S, --no-budget)")
}

/// `probe` and `search`: one position, or with `-` one per line of standard
/// input, answered by `oracle`. Returns the exit code: 0, or for bulk input
/// that of the first line that failed.
fn answer(
    oracle: &Oracle,
    game: GameId,
    position: &str,
    output: OutputArgs,
    io: &mut Io<'_>,
) -> Result<i32> {
    if position != "-" {
        let started = Instant::now();
        let report = oracle
            .moves(game, position)
            .with_context(|| format!("probing {game} position {position:?}"))?;
        let line = match output.pv {
            true => Some(oracle.mainline(game, position)?.moves),
            false => None,
        };
        let elapsed = started.elapsed();
        if output.json {
            writeln!(io.out, "{}", report_json(&report, line))?;
        } else {
            print_report(oracle, &report, line, io)?;
            if oracle.dir().is_none() {
                writeln!(io.out, "searched in {}", seconds(elapsed))?;
            }
        }
        return Ok(0);
    }
    let mut code = 0;
    let mut buffer = Vec::new();
    while let Some(line) = next_line(&mut io.input, &mut buffer)? {
        let answered = match line {
            Line::Text(text) if text.trim().is_empty() => continue,
            Line::Text(text) => oracle
                .moves(game, &text)
                .map_err(|e| (Some(e.kind()), e.to_string(), text)),
            Line::Refused(refusal) => Err((Some(refusal.kind), refusal.message, String::new())),
        };
        match answered {
            Ok(report) => {
                let line = match output.pv {
                    true => Some(oracle.mainline(game, &report.position)?.moves),
                    false => None,
                };
                if output.json {
                    writeln!(io.out, "{}", report_json(&report, line))?;
                } else {
                    writeln!(io.out, "{}", report_line(&report, line, io.paint))?;
                }
            }
            Err((kind, message, text)) => {
                if code == 0 {
                    code = kind.map_or(1, exit_code);
                }
                if output.json {
                    let mut error = error_json(kind, &message);
                    error["position"] = Json::from(text);
                    writeln!(io.out, "{error}")?;
                } else {
                    writeln!(io.out, "{text}  error: {message}")?;
                }
            }
        }
        io.out.flush()?;
    }
    Ok(code)
}

/// The JSON answer, with the best line as `pv` when asked for.
fn report_json(report: &Report, line: Option<Vec<String>>) -> Json {
    let mut json = report.to_json();
    if let Some(line) = line {
        json["pv"] = Json::from(line);
    }
    json
}

/// One line per position, for bulk input: the position, the side to move,
/// the value, the best move and the source.
fn report_line(report: &Report, line: Option<Vec<String>>, paint: Paint) -> String {
    let mut text = report.position.clone();
    if let Some(side) = report.to_move {
        text.push_str(&format!("  {side} to move"));
    }
    text.push_str(&format!("  {}", paint.value(report.value)));
    match (report.moves.first(), line) {
        (None, _) => text.push_str("  game over"),
        (Some(_), Some(line)) => text.push_str(&format!("  best line {}", line.join(" "))),
        (Some(best), None) => text.push_str(&format!("  best {}", best.mv)),
    }
    text.push_str(&format!("  ({})", report.source));
    text
}

/// The full text answer: the picture of the board, the position and side
/// to move, the value and where it came from, every move's value, and the
/// best line when asked for.
fn print_report(
    oracle: &Oracle,
    report: &Report,
    line: Option<Vec<String>>,
    io: &mut Io<'_>,
) -> Result<()> {
    let out = &mut *io.out;
    let paint = io.paint;
    let picture = with_game!(report.game, g => g
        .parse(&report.position)
        .map(|p| g.picture(p))
        .map_err(Error::from))?;
    writeln!(out, "{}", paint.picture(&picture))?;
    match report.to_move {
        Some(side) => writeln!(out, "position {} ({side} to move)", report.position)?,
        None => writeln!(out, "position {}", report.position)?,
    }
    let path = oracle.table_path(report.game);
    let source = match (report.source, path) {
        (Source::Table, Some(path)) => format!("table {}", path.display()),
        (Source::ForcedPlay, Some(path)) => {
            format!("forced play by the rules, table {}", path.display())
        }
        (_, Some(path)) => format!("live search, no table at {}", path.display()),
        (_, None) => "exact live search".to_owned(),
    };
    writeln!(
        out,
        "value    {} (from {source})",
        paint.value(report.value)
    )?;
    if report.moves.is_empty() {
        writeln!(out, "the game is over")?;
    }
    for m in &report.moves {
        writeln!(out, "  move {:>6}  {}", m.mv, paint.value(m.value))?;
    }
    if let Some(line) = line {
        writeln!(
            out,
            "best line ({}): {}",
            count(line.len() as u64, "move", "moves"),
            line.join(" ")
        )?;
    }
    Ok(())
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
    writeln!(out, "bench took {}", seconds(started.elapsed()))?;
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

/// The positions of a build by ply (or edges drawn), raw and canonical, and
/// their sums: one table for `build` and `build --mpi`.
fn write_counts(
    out: &mut dyn Write,
    heading: &str,
    what: &str,
    [layer_head, positions_head, canonical_head]: [&str; 3],
    layers: &[LayerCount],
) -> Result<()> {
    writeln!(out, "{heading}: {what}")?;
    writeln!(
        out,
        "{layer_head:>6} {positions_head:>12} {canonical_head:>12}"
    )?;
    for layer in layers {
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
        layers.iter().map(|l| l.reachable).sum::<u64>(),
        layers.iter().map(|l| l.canonical).sum::<u64>()
    )?;
    Ok(())
}

/// How many positions a dense table stores in how many slots.
fn write_stored(out: &mut dyn Write, stored: u64, slots: u64) -> Result<()> {
    writeln!(
        out,
        "stored: {} in {}",
        count(stored, "position", "positions"),
        count(slots, "slot", "slots")
    )?;
    Ok(())
}

/// The file a build wrote: its size, per stored entry and per canonical
/// position, and its blocks.
fn write_written(
    out: &mut dyn Write,
    path: &Path,
    bytes: u64,
    stored: u64,
    canonical: u64,
    blocks: u64,
) -> Result<()> {
    writeln!(
        out,
        "wrote {}: {}, {:.2} bits per stored entry, {:.3} per canonical position, {}",
        path.display(),
        count(bytes, "byte", "bytes"),
        bytes as f64 * 8.0 / stored.max(1) as f64,
        bytes as f64 * 8.0 / canonical.max(1) as f64,
        count(blocks, "block", "blocks")
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
        &format!("{} on {ranks} MPI ranks", board.id()),
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

fn open(file: &Path) -> Result<Table<Vec<u8>>> {
    read_table(file).with_context(|| format!("opening {}", file.display()))
}

fn verify(
    file: &Path,
    exhaustive: Option<std::ops::RangeInclusive<u32>>,
    out: &mut dyn Write,
) -> Result<()> {
    let table = open(file)?;
    let game = table.header().game;
    // A check the game cannot do is refused before the long ones start.
    if exhaustive.is_some() && !with_game!(game, g => Ok::<_, Error>(exhaustive_for(g)))? {
        bail!(
            "--exhaustive is for cube tables; {} is a {game} table, whose stored positions \
             `verify` always checks in full",
            file.display()
        );
    }
    let started = Instant::now();
    table
        .verify()
        .with_context(|| format!("verifying {}", file.display()))?;
    writeln!(
        out,
        "{}: checksums ok (header, block index, {}, whole file)",
        file.display(),
        count(table.header().blocks(), "block", "blocks")
    )?;
    with_game!(game, g => g.verify_table(&table, exhaustive, out))
        .with_context(|| format!("checking {} against the rules of {game}", file.display()))?;
    writeln!(out, "verified in {}", seconds(started.elapsed()))?;
    Ok(())
}

/// Whether `verify --exhaustive` works for `game`'s tables.
fn exhaustive_for<G: GeneratorGame>(_game: &G) -> bool {
    G::EXHAUSTIVE
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
    writeln!(out, "swept in {}", seconds(started.elapsed()))?;
    if !report.all_detected() {
        bail!("some mutations went unnoticed or panicked");
    }
    Ok(())
}

fn fuzz_for(seconds_given: f64, seed: u64, out: &mut dyn Write) -> Result<()> {
    let budget = Duration::try_from_secs_f64(seconds_given)
        .map_err(|_| anyhow!("--seconds must be a non-negative number, not {seconds_given}"))?;
    let report = fuzz(Budget::Time(budget), seed);
    for (game, target, executions) in &report.executions {
        let game = game.to_string();
        writeln!(out, "{game:<10} {target:<24} {executions:>10} executions")?;
    }
    writeln!(
        out,
        "{} in {} (seed {seed}), {}",
        count(report.total(), "execution", "executions"),
        seconds(report.elapsed),
        count(report.failures.len() as u64, "failure", "failures")
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
    writeln!(out, "index           {}", h.index)?;
    writeln!(out, "values          {}", h.values)?;
    if h.index.is_dense() {
        writeln!(out, "slots           {} (one entry byte each)", h.entries)?;
    } else {
        writeln!(
            out,
            "entry bytes     {} (sorted records with the fence)",
            h.entries
        )?;
    }
    writeln!(out, "stored          {} positions", h.stored)?;
    writeln!(
        out,
        "block entries   {} entry bytes per block",
        h.block_entries
    )?;
    writeln!(out, "blocks          {}", h.blocks())?;
    writeln!(out, "bytes           {}", table.bytes().len())?;
    writeln!(out, "checksum        {:016x}", table.file_checksum())?;
    writeln!(out, "generator       {}", h.generator)?;
    Ok(())
}
