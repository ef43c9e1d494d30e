//! `solvedb fuzz`: every parser and table of the catalogue's fuzz targets
//! ([`crate::fuzz`]), for a time, from a seed.

use std::time::Duration;

use anyhow::{Result, anyhow, bail};

use crate::cli::Io;
use crate::fuzz::{Budget, fuzz};
use crate::text::{count, seconds};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How long to run.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Seed of the run (a run is replayed by its seed and length).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let Args {
        seconds: given,
        seed,
    } = args;
    let budget = Duration::try_from_secs_f64(given)
        .map_err(|_| anyhow!("--seconds must be a non-negative number, not {given}"))?;
    let report = fuzz(Budget::Time(budget), seed);
    let out = &mut *io.out;
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
