//! The argument groups several commands share: how answers are printed,
//! how a live search is bounded, the tables directory, and what `build`
//! and `bench` work on.

use std::path::PathBuf;
use std::time::Duration;

use solvedb_lookup::{GameId, SearchLimits, UnknownGame};

/// The node budget of a live search when none is given: enough for every
/// tic-tac-toe position and every dots board the default tables cover,
/// small enough that a 4x4 or 5x5 dots board or an early cube position
/// stops within seconds with "unknown within the budget" (figures in the
/// README). `--nodes` changes it, `--no-budget` lifts it.
pub const DEFAULT_SEARCH_NODES: u64 = 10_000_000;

/// The largest `--table-mib` taken (1 TiB): beyond any machine's memory,
/// and far enough from `u64::MAX >> 20` that the size in bytes cannot
/// overflow. A table the system will not give is an error of its own.
pub const MAX_TABLE_MIB: u64 = 1 << 20;

/// The environment variable naming the tables directory when `--tables`
/// is not given.
pub const TABLES_ENV: &str = "SOLVEDB_TABLES";

/// How `probe` and `search` print their answers.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct OutputArgs {
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
pub struct LimitArgs {
    /// Give up after searching this many positions (the default answers
    /// every tic-tac-toe and small dots position and stops a 4x4 dots board
    /// or an early cube position within seconds).
    #[arg(long, default_value_t = DEFAULT_SEARCH_NODES)]
    nodes: u64,
    /// Give up after this many seconds (per position searched; at a Qubic
    /// position the strategy answers, the moves it leaves open are searched
    /// within this time, all together).
    #[arg(long, value_parser = parse_seconds)]
    seconds: Option<Duration>,
    /// Memory for the search's transposition table, in MiB (dots: default
    /// 256 for 4x4 and larger without a node budget; with one, 8 bytes a
    /// position it allows, rounded up to a power of two, at least 64: 128
    /// for the default budget).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TABLE_MIB))]
    table_mib: Option<u64>,
    /// No node budget: search until the answer is known, however long it
    /// takes (`--seconds` still applies if given).
    #[arg(long, conflicts_with = "nodes")]
    no_budget: bool,
    /// Threads of the search (dots; default: every core).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
}

impl LimitArgs {
    pub fn limits(self) -> SearchLimits {
        SearchLimits {
            nodes: (!self.no_budget).then_some(self.nodes),
            time: self.seconds,
            table_bytes: self.table_mib.map(|mib| mib << 20),
            threads: self.threads.map(|n| n as usize),
            ..SearchLimits::default()
        }
    }
}

/// The tables directory, for the commands that read it.
#[derive(clap::Args, Debug, Clone)]
pub struct TablesArg {
    /// Directory holding the tables (else $SOLVEDB_TABLES, else `tables`).
    #[arg(long, env = TABLES_ENV, default_value = "tables")]
    pub tables: PathBuf,
}

/// A number of seconds that is a duration (not negative, not NaN).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("{e}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| "not a non-negative number of seconds".into())
}

/// What `build` and `bench` work on: one game, every game, or a face.
#[derive(Clone, Debug)]
pub enum Target {
    /// One game and board.
    One(GameId),
    /// `build all`: every game whose table ships; `bench all`: the
    /// catalogue's benchmarked games.
    All,
    /// `bench http`: the HTTP server against in-process answers.
    Http,
    /// `bench rooms`: rooms under load over WebSockets.
    Rooms,
    /// `bench dots:endgame`: the dots endgame solver before and now on
    /// the committed positions.
    DotsEndgame,
}

impl std::str::FromStr for Target {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<Target, Self::Err> {
        match s {
            "all" => Ok(Target::All),
            "http" => Ok(Target::Http),
            "rooms" => Ok(Target::Rooms),
            "dots:endgame" => Ok(Target::DotsEndgame),
            _ => s.parse().map(Target::One),
        }
    }
}
