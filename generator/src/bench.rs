//! `solvedb bench`: table probes against live search on the same positions,
//! and build time, measured side by side in one run. Medians over rounds,
//! because the machines are noisy.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{GameOracle, Table};

use crate::build::layers::reachable_layers;
use crate::build::{Buildable, build_table};

/// What `solvedb bench` measures and how often.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Rounds per measurement (the median is reported).
    pub rounds: u32,
    /// Random positions to probe where a game has too many to probe all;
    /// `None`: each benchmark's own default ([`positions_or`](Self::positions_or)).
    pub positions: Option<usize>,
    /// Cube: depths of the classic alpha-beta baseline.
    pub depths: Vec<u32>,
    /// Dots: endgame positions per board for the exact solver (0: none).
    pub endgame: usize,
    /// The node budget of a live search that a face would answer with
    /// (the command line's default), for benchmarks of live search.
    pub search_nodes: u64,
}

impl BenchOptions {
    /// The number of random positions: the one asked for, else `default`
    /// (at least one).
    pub fn positions_or(&self, default: usize) -> usize {
        self.positions.unwrap_or(default).max(1)
    }
}

/// Random positions a benchmark probes when the command names no number.
pub const DEFAULT_POSITIONS: usize = 2000;

/// Games with at most this many table slots are benchmarked on every
/// reachable position; bigger ones on [`BenchOptions::positions`] random
/// positions.
const PROBE_EVERY_POSITION_UP_TO: u64 = 1 << 20;

/// The median of some timings.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// Time per item of one pass of `f` over `items`.
pub fn per_item<T: Copy>(items: &[T], mut f: impl FnMut(T)) -> Duration {
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
pub fn run<G: Buildable>(game: &G, options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
    let rounds = options.rounds;
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

    let every = game.slots() <= PROBE_EVERY_POSITION_UP_TO;
    let positions: Vec<G::Position> = if every {
        reachable_layers(game).into_iter().flatten().collect()
    } else {
        random_positions(
            game,
            &mut Rng::new(0x5eed),
            options.positions_or(DEFAULT_POSITIONS),
        )
    };
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
        "positions probed per round: {} ({})",
        positions.len(),
        if every {
            "every reachable one"
        } else {
            "from random games"
        }
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

/// Prints each table file's size per stored position and per slot.
///
/// # Errors
///
/// If the directory or a table cannot be read.
pub fn table_sizes(dir: &std::path::Path, out: &mut dyn Write) -> Result<()> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sdb"))
        .collect();
    paths.sort();
    writeln!(
        out,
        "{:<16} {:>12} {:>14} {:>16} {:>12} {:>10}",
        "table", "bytes", "stored", "slots", "bits/stored", "bits/slot"
    )?;
    for path in paths {
        let table = solvedb_lookup::open_table(&path)?;
        let h = table.header();
        let bits = table.byte_len() as f64 * 8.0;
        // Sorted-keys tables have no slot per position: their slots are the
        // stored records.
        let slots = if h.index.is_dense() {
            h.entries
        } else {
            h.stored
        };
        writeln!(
            out,
            "{:<16} {:>12} {:>14} {:>16} {:>12.2} {:>10.3}",
            path.file_name().unwrap_or_default().to_string_lossy(),
            table.byte_len(),
            h.stored,
            slots,
            bits / h.stored.max(1) as f64,
            bits / slots.max(1) as f64
        )?;
    }
    Ok(())
}

/// Prints the peak resident memory of this process (Linux: `VmHWM` from
/// `/proc/self/status`; elsewhere it says so).
///
/// # Errors
///
/// If output fails.
pub fn peak_memory(out: &mut dyn Write) -> Result<()> {
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_owned())
        });
    match peak {
        Some(peak) => writeln!(out, "peak memory of this run: {peak}")?,
        None => writeln!(out, "peak memory of this run: not available here")?,
    }
    Ok(())
}
