//! The arguments: the top-level command, the argument groups several
//! commands share, and the help texts derived from the catalogue. Each
//! command's own arguments are in its module under `cmd/`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};
use solvedb_lookup::{
    BoardShape, GameId, SearchLimits, TablePlan, UnknownGame, catalogue, game_names,
};

use super::cmd;
use super::exit_code_table;

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
        Values are always from the side to move. Tic-tac-toe, cube and Qubic values are win, \
        draw or loss with the plies to the end of the game under perfect play. Dots-and-boxes \
        values are the net number of the still unclaimed boxes the player to move wins.\n\n\
        Example:\n  solvedb build all\n  solvedb probe tictactoe 'X../.O./...'\n  \
        solvedb probe cube '.../.../...//.../.X./...//.../.../...'\n  \
        solvedb probe dots:2x2 '2x2:h0,0 v1,2' --json"
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
    /// Solve every reachable position of a game and write its table.
    ///
    /// Prints the reachable positions per ply (raw and up to symmetry), the
    /// stored entries, the file's size and the time taken, and records the
    /// table in the output directory's MANIFEST.
    Build(cmd::build::Args),
    /// Check a table file: every checksum, then that every stored value equals
    /// the best over its children.
    ///
    /// With `--exhaustive` (cube tables), every reachable non-terminal
    /// position up to symmetry is checked the same way, stored or not, and
    /// the counts per number of stones are printed.
    Verify(cmd::verify::Args),
    /// Mutate a table in every way a disk or a download can (flipped bits,
    /// truncations, appended bytes, another game's header) and check that
    /// each is refused with an error, by open, verify or the probe that
    /// reads the damaged block. Exits non-zero if any goes unnoticed.
    Sweep(cmd::sweep::Args),
    /// Fuzz every notation parser and table open/verify/probe with random
    /// and mutated inputs; exits non-zero on any panic or broken property.
    Fuzz(cmd::fuzz::Args),
    /// Answer JSON-lines requests on standard input, one answer per line on
    /// standard output, until the input ends; or serve the web explorer and
    /// its JSON API over HTTP.
    ///
    /// Request: {"game":"cube","position":"...","want":"moves"} (want: value,
    /// moves or best; an "id" is echoed). Answer: the shape of `probe --json`.
    /// A malformed or illegal request gets {"error":"...","kind":"..."} and
    /// the server goes on.
    Serve(cmd::serve::Args),
    /// Print a table file's header.
    Info(cmd::info::Args),
    /// The value of a position and of every legal move, best first, with a
    /// picture of the board.
    ///
    /// Uses the game's table in the tables directory; without one, an exact
    /// live search answers within the search budget (it says so on standard
    /// error at once), and the output says which. With `-` as the position,
    /// reads one position per line from standard input and answers one per
    /// line.
    Probe(cmd::probe::Args),
    /// Measure probe latency against live search, and build time.
    ///
    /// Every figure is a median over rounds measured side by side in this run.
    Bench(cmd::bench::Args),
    /// The value of a position and of every move by exact live search
    /// alone (no table), as `probe` prints it, with the time taken.
    Search(cmd::search::Args),
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
pub(super) struct OutputArgs {
    /// Answer in JSON (errors too: {"error":"...","kind":"..."} on standard
    /// output, with the kind's exit code).
    #[arg(long)]
    pub json: bool,
    /// Also give the best line to the end of the game (the principal
    /// variation).
    #[arg(long)]
    pub pv: bool,
}

/// Limits on a live search: past them the answer is "unknown within the
/// budget", never a guess.
#[derive(clap::Args, Debug, Clone, Copy)]
pub(super) struct LimitArgs {
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

impl LimitArgs {
    pub fn limits(self) -> SearchLimits {
        SearchLimits {
            nodes: (!self.no_budget).then_some(self.nodes),
            time: self.seconds,
            table_bytes: self.table_mib.map(|mib| mib << 20),
        }
    }
}

/// The tables directory, for the commands that read it.
#[derive(clap::Args, Debug, Clone)]
pub(super) struct TablesArg {
    /// Directory holding the tables (else $SOLVEDB_TABLES, else `tables`).
    #[arg(long, env = TABLES_ENV, default_value = "tables")]
    pub tables: PathBuf,
}

/// A number of seconds that is a duration (not negative, not NaN).
pub(super) fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("{e}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| "not a non-negative number of seconds".into())
}

/// What `build` and `bench` work on: one game, every game, or a face.
#[derive(Clone, Debug)]
pub(super) enum Target {
    /// One game and board.
    One(GameId),
    /// `build all`: every game whose table ships; `bench all`: the
    /// catalogue's benchmarked games.
    All,
    /// `bench http`: the HTTP server against in-process answers.
    Http,
    /// `bench rooms`: rooms under load over WebSockets.
    Rooms,
}

impl std::str::FromStr for Target {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<Target, Self::Err> {
        match s {
            "all" => Ok(Target::All),
            "http" => Ok(Target::Http),
            "rooms" => Ok(Target::Rooms),
            _ => s.parse().map(Target::One),
        }
    }
}

/// The games a list of them names, for help texts: `tictactoe`, ...
fn listed(filter: impl Fn(&solvedb_lookup::GameInfo) -> bool) -> String {
    let names: Vec<String> = catalogue()
        .iter()
        .filter(|game| filter(game))
        .map(|game| game.name())
        .collect();
    names.join(", ")
}

/// How each kind of position is written, one paragraph per family of
/// boards, from the catalogue.
fn notation_help() -> String {
    let mut paragraphs =
        vec!["The position, or `-` for one per line on standard input.".to_owned()];
    let mut seen_dots = false;
    for game in catalogue() {
        match game.board {
            BoardShape::Dots { .. } if seen_dots => continue,
            BoardShape::Dots { .. } => {
                seen_dots = true;
                let help = BoardShape::Dots { rows: 2, cols: 3 }.notation_help();
                paragraphs.push(format!("dots:MxN (for example dots:2x3): {help}."));
            }
            board => paragraphs.push(format!("{}: {}.", game.name(), board.notation_help())),
        }
    }
    paragraphs.join("\n\n")
}

/// The clap command, with the help texts that list games derived from the
/// catalogue and the exit-code table after the help.
pub fn clap_command() -> clap::Command {
    let games = format!("The game: {}.", game_names());
    let default_set = listed(|g| g.table == TablePlan::Default);
    let benched = listed(|g| g.bench);
    let positions = notation_help();
    Cli::command()
        .after_long_help(exit_code_table())
        .mut_subcommand("probe", |c| {
            c.mut_arg("game", |a| a.help(games.clone()))
                .mut_arg("position", |a| a.help(positions.clone()))
        })
        .mut_subcommand("search", |c| {
            c.mut_arg("game", |a| a.help(games.clone()))
                .mut_arg("position", |a| a.help(positions.clone()))
        })
        .mut_subcommand("build", |c| {
            c.mut_arg("game", |a| {
                a.help(format!(
                    "The game ({}), or `all`: every game whose table ships ({default_set}).",
                    game_names()
                ))
            })
        })
        .mut_subcommand("bench", |c| {
            c.mut_arg("game", |a| {
                a.help(format!(
                    "The game ({}): `tictactoe` (table against live search on every \
                     position), `cube` (probe percentiles and the classic heuristic \
                     baseline), `dots:MxN` (generation against the plain baseline, probe \
                     latency, the endgame solver); `all`: {benched} and the sizes of the \
                     tables in `--tables`, in one run; `http`: the HTTP API's throughput \
                     and latency against in-process answers (cube table answers); `rooms`: \
                     many rooms at once, two WebSocket players each, moves per second and \
                     broadcast latency (`--rooms`, `--games`).",
                    game_names()
                ))
            })
        })
}
