//! The arguments: the top-level command and the help texts derived from
//! the catalogue. Each command's own arguments are in its module under
//! `cmd/`, the groups several commands share in `args`.

use clap::{CommandFactory, Parser, Subcommand};
use solvedb_lookup::{BoardShape, TablePlan, catalogue, game_names};

use super::cmd;
use super::exit_code_table;

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
    /// Write every position of a game's table with its value and every
    /// move's value, one row per position, as Parquet or CSV (a dataset for
    /// learning programs; the columns are in docs/datasets.md).
    ///
    /// Positions are the table's canonical ones in its order, or with
    /// `--all-symmetries` every symmetric image; `--sample N --seed S`
    /// keeps N of them, uniformly at random. Rows are streamed in row
    /// groups; the file is written aside and renamed when whole.
    Export(cmd::export::Args),
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
