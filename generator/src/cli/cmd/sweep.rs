//! `solvedb sweep FILE...`: the corruption sweep of table files
//! ([`crate::sweep`]), one file per core.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::cli::Io;
use crate::sweep::{SweepLimits, sweep_file};
use crate::text::seconds;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table files (none is modified), swept at once, one per core;
    /// the reports print in the order given.
    #[arg(required = true)]
    files: Vec<PathBuf>,
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
    // Each file is swept on its own copy of its bytes: the sweeps share
    // nothing, and a file that cannot be swept does not stop the others.
    let results: Vec<_> = args
        .files
        .par_iter()
        .map(|file| {
            let one = Instant::now();
            sweep_file(file, limits).map(|(game, report)| (game, report, one.elapsed()))
        })
        .collect();
    let out = &mut *io.out;
    let mut failed: Vec<anyhow::Error> = Vec::new();
    for (file, result) in args.files.iter().zip(results) {
        match result {
            Ok((game, report, took)) => {
                writeln!(out, "corruption sweep of {} ({game})", file.display())?;
                write!(out, "{}", report.render())?;
                writeln!(out, "swept in {}", seconds(took))?;
                if !report.all_detected() {
                    failed.push(anyhow::anyhow!(
                        "{}: some mutations went unnoticed or panicked",
                        file.display()
                    ));
                }
            }
            Err(e) => failed.push(e),
        }
    }
    if args.files.len() > 1 {
        writeln!(
            out,
            "{} files swept in {}",
            args.files.len(),
            seconds(started.elapsed())
        )?;
    }
    // One failure keeps its kind (and so its exit code: a missing file is
    // an I/O error); several are reported together.
    match failed.len() {
        0 => Ok(()),
        1 => Err(failed.remove(0)),
        _ => {
            let each: Vec<String> = failed.iter().map(crate::cli::error_message).collect();
            bail!(
                "{} of {} files failed:\n{}",
                each.len(),
                args.files.len(),
                each.join("\n")
            )
        }
    }
}
