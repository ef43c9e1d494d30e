//! `solvedb verify FILE`: every checksum of a table, then its values
//! against the game's rules ([`GeneratorGame::verify_table`]).

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use solvedb_lookup::{Error, with_game};

use crate::cli::Io;
use crate::games::GeneratorGame;
use crate::text::{count, seconds};
use crate::verify::read_whole as open;

#[derive(clap::Args, Debug)]
pub struct Args {
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
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let stones = args.exhaustive.then_some(args.min_stones..=args.max_stones);
    verify(&args.file, stones, &mut *io.out)
}

fn verify(
    file: &Path,
    exhaustive: Option<RangeInclusive<u32>>,
    out: &mut dyn std::io::Write,
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
    with_game!(game, g => g.verify_file(file, &table, exhaustive, out))
        .with_context(|| format!("checking {} against the rules of {game}", file.display()))?;
    writeln!(out, "verified in {}", seconds(started.elapsed()))?;
    Ok(())
}

/// Whether `verify --exhaustive` works for `game`'s tables.
fn exhaustive_for<G: GeneratorGame>(_game: &G) -> bool {
    G::EXHAUSTIVE
}
