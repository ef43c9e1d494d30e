//! `solvedb bench`: table probes against live search on the same positions,
//! and build time, measured side by side in one run. Medians over rounds,
//! because the machines are noisy.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use solvedb_lookup::{GameOracle, Table};

use crate::cli::build_table;
use crate::games::CliGame;
use crate::solve::reachable_layers;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// Time per item of one pass of `f` over `items`.
fn per_item<T: Copy>(items: &[T], mut f: impl FnMut(T)) -> Duration {
    let started = Instant::now();
    for &item in items {
        f(item);
    }
    started.elapsed() / items.len() as u32
}

/// Runs the benchmark for one game and prints its figures.
///
/// # Errors
///
/// If the table and the search disagree on any position (a bug worth more
/// than any timing), or output fails.
pub fn run<G: CliGame>(game: &G, rounds: u32, out: &mut dyn Write) -> Result<()> {
    let mut build_times = Vec::new();
    let mut bytes = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        bytes = build_table(game, 19).1;
        build_times.push(started.elapsed());
    }
    let table = Table::new(bytes.as_slice())?;
    let with_table = GameOracle::with_table(*game, table)?;
    let search_only = GameOracle::<G, &[u8]>::search_only(*game);

    let positions: Vec<G::Position> = reachable_layers(game).into_iter().flatten().collect();
    // Warm the table (every block decoded) and check both sources agree.
    for &p in &positions {
        if with_table.probe(p)? != search_only.probe(p)? {
            bail!("table and search disagree on {}", game.notation(p));
        }
    }
    let (mut table_times, mut search_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        table_times.push(per_item(&positions, |p| {
            black_box(with_table.probe(p).ok());
        }));
        search_times.push(per_item(&positions, |p| {
            black_box(search_only.probe(p).ok());
        }));
    }
    let (table_time, search_time) = (median(table_times), median(search_times));
    writeln!(out, "{}: {} rounds, medians", game.id(), rounds)?;
    writeln!(
        out,
        "build (solve + compress): {:.2} ms, {} bytes",
        median(build_times).as_secs_f64() * 1e3,
        bytes.len()
    )?;
    writeln!(
        out,
        "positions probed per round: {} (every reachable one)",
        positions.len()
    )?;
    writeln!(
        out,
        "table probe (warm):  {:>10.1} ns per position",
        table_time.as_secs_f64() * 1e9
    )?;
    writeln!(
        out,
        "live search:         {:>10.1} ns per position",
        search_time.as_secs_f64() * 1e9
    )?;
    writeln!(
        out,
        "search / table:      {:>10.1}x",
        search_time.as_secs_f64() / table_time.as_secs_f64()
    )?;
    Ok(())
}
