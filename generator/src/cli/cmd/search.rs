//! `solvedb search GAME POSITION`: as `probe`, by exact live search alone,
//! with the time taken.

use anyhow::Result;
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
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<i32> {
    let oracle = Oracle::search_only().with_search_limits(args.limits.limits());
    answer(&oracle, args.game, &args.position, args.output, io, |_| {
        Ok(())
    })
}
