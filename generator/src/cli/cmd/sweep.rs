//! `solvedb sweep FILE`: the corruption sweep of a table file
//! ([`crate::sweep`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use crate::cli::Io;
use crate::sweep::{SweepLimits, sweep_file};
use crate::text::seconds;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table file (it is not modified).
    file: PathBuf,
    /// Blocks whose bits are flipped, for big tables.
    #[arg(long, default_value_t = 64)]
    blocks: u64,
    /// Bits flipped per sampled block, for big tables.
    #[arg(long, default_value_t = 256)]
    bits_per_block: u64,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let limits = SweepLimits {
        blocks: args.blocks,
        bits_per_block: args.bits_per_block,
        head_bytes: 64 * 1024,
    };
    let started = Instant::now();
    let (game, report) = sweep_file(&args.file, limits)?;
    let out = &mut *io.out;
    writeln!(out, "corruption sweep of {} ({game})", args.file.display())?;
    write!(out, "{}", report.render())?;
    writeln!(out, "swept in {}", seconds(started.elapsed()))?;
    if !report.all_detected() {
        bail!("some mutations went unnoticed or panicked");
    }
    Ok(())
}
