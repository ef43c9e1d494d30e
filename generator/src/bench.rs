//! `solvedb bench`: table probes against live search on the same positions,
//! and build time, measured side by side in one run. Medians over rounds,
//! because the machines are noisy.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use rayon::prelude::*;
use solvedb_lookup::games::dots::{EndgameSolver, Rules};
use solvedb_lookup::{Dots, Edges, Game, GameOracle, Limits, Search, Table, Tabled};

use crate::cli::build_table;
use crate::games::CliGame;
use crate::retrograde;
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

/// The plain baseline the issue asks us to beat: one thread, a byte per
/// position, one loop from the full board down to the empty one that reads
/// every child through the rules ([`Dots::draw`]). Kept here, not in the
/// generator, so `solvedb bench` can measure against it in the same run.
pub fn plain_dots_values(board: Dots) -> Vec<u8> {
    let full = board.full();
    let mut values = vec![0u8; full as usize + 1];
    values[full as usize] = 128;
    for mask in (0..full).rev() {
        let mut best = i32::MIN;
        for e in 0..board.edges() {
            if mask & 1 << e != 0 {
                continue;
            }
            let (child, gain) = board.draw(mask, e);
            let child = i32::from(values[child as usize]) - 128;
            let gain = gain as i32;
            best = best.max(if gain > 0 { gain + child } else { -child });
        }
        values[mask as usize] = (best + 128) as u8;
    }
    values
}

/// A small deterministic generator for benchmark positions (xorshift64).
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A position with `drawn` edges in which, as far as possible, no box
    /// is complete: edges are drawn at random among those that complete
    /// nothing, like a game before its endgame (a uniformly random edge set
    /// has most boxes taken and is trivial).
    fn quiet_position(&mut self, board: Dots, drawn: u32) -> u64 {
        let mut mask = 0u64;
        while mask.count_ones() < drawn {
            let free = board.full() & !mask;
            let quiet: u64 = (0..board.edges())
                .filter(|&e| free & 1 << e != 0 && board.draw(mask, e).1 == 0)
                .fold(0, |acc, e| acc | 1 << e);
            let pool = if quiet != 0 { quiet } else { free };
            mask |= self.subset(pool, 1);
        }
        mask
    }

    /// A random set of `count` of the edges in `mask`.
    fn subset(&mut self, mask: u64, count: u32) -> u64 {
        let mut chosen = 0u64;
        while chosen.count_ones() < count {
            let edges: Vec<u32> = (0..64).filter(|&e| mask & !chosen & 1 << e != 0).collect();
            chosen |= 1 << edges[(self.next() % edges.len() as u64) as usize];
        }
        chosen
    }
}

/// Sequential read bandwidth of this machine with every core, in bytes per
/// second: the bound a retrograde pass over a dense table runs into.
fn read_bandwidth(bytes: usize, rounds: u32) -> f64 {
    let buffer = vec![1u8; bytes];
    let mut samples = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        let sum: u64 = buffer
            .par_chunks(1 << 20)
            .map(|c| {
                c.chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                    .fold(0u64, u64::wrapping_add)
            })
            .reduce(|| 0, u64::wrapping_add);
        black_box(sum);
        samples.push(started.elapsed());
    }
    bytes as f64 / median(samples).as_secs_f64()
}

/// `solvedb bench dots:MxN`: the retrograde generator against the plain
/// baseline on the same board in the same run (and checks they agree), the
/// machine's read bandwidth, table probe latency against live search, and,
/// with `endgame > 0`, the exact solver on that many 4x4 and 5x5 positions
/// with 15-25 undrawn edges, drawn so that few boxes are complete.
///
/// # Errors
///
/// If the two generators disagree, or output fails.
pub fn run_dots(board: Dots, rounds: u32, endgame: usize, out: &mut dyn Write) -> Result<()> {
    let positions = board.slots() as f64;
    writeln!(
        out,
        "{}: {} edges, {} positions; medians of {rounds} rounds",
        board.id(),
        board.edges(),
        board.slots()
    )?;
    let (mut plain_times, mut our_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        let plain = plain_dots_values(board);
        plain_times.push(started.elapsed());
        let started = Instant::now();
        let ours = retrograde::solve_values(board);
        our_times.push(started.elapsed());
        if plain != ours {
            bail!("the retrograde pass and the plain baseline disagree");
        }
    }
    let (plain, ours) = (median(plain_times), median(our_times));
    let traffic = retrograde::streamed_bytes(board) as f64;
    let bandwidth = read_bandwidth((board.slots() as usize).clamp(1 << 26, 1 << 30), rounds);
    writeln!(
        out,
        "plain baseline (1 thread, reads every child): {:>9.3} s  {:>8.1} M positions/s",
        plain.as_secs_f64(),
        positions / plain.as_secs_f64() / 1e6
    )?;
    writeln!(
        out,
        "retrograde pass ({} threads, chunked):       {:>9.3} s  {:>8.1} M positions/s  ({:.2}x the baseline)",
        rayon::current_num_threads(),
        ours.as_secs_f64(),
        positions / ours.as_secs_f64() / 1e6,
        plain.as_secs_f64() / ours.as_secs_f64()
    )?;
    writeln!(
        out,
        "memory: the pass streams at least {:.2} GB (chunk writes and cross-chunk reads) = {:.2} GB/s; \
         this machine reads {:.2} GB/s sequentially with every core; the pass needs {:.0}% of it",
        traffic / 1e9,
        traffic / ours.as_secs_f64() / 1e9,
        bandwidth / 1e9,
        100.0 * traffic / ours.as_secs_f64() / bandwidth
    )?;

    // Probe latency: the table in memory against live search.
    let bytes = build_table(&board, 3).1;
    let table = Table::new(bytes.as_slice())?;
    let with_table = GameOracle::with_table(board, table)?;
    let mut random = Xorshift(0x9e37_79b9_7f4a_7c15);
    let sample: Vec<Edges> = (0..2000)
        .map(|_| {
            Edges(random.next() & random.next().rotate_left(17) | random.next() & board.full())
        })
        .map(|e| Edges(e.0 & board.full()))
        .collect();
    let mut search = Search::new(&board);
    for &p in &sample {
        if with_table.probe(p)?.0 != search.score(p)? {
            bail!("table and search disagree on {}", board.notation(p));
        }
    }
    let (mut table_times, mut search_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        table_times.push(per_item(&sample, |p| {
            black_box(with_table.probe(p).ok());
        }));
        search_times.push(per_item(&sample, |p| {
            // A fresh search each time: what a caller without a table pays.
            black_box(Search::new(&board).score(p).ok());
        }));
    }
    let (table_time, search_time) = (median(table_times), median(search_times));
    writeln!(
        out,
        "probe {} random positions: table {:.0} ns, live search {:.0} ns per position ({:.0}x)",
        sample.len(),
        table_time.as_secs_f64() * 1e9,
        search_time.as_secs_f64() * 1e9,
        search_time.as_secs_f64() / table_time.as_secs_f64()
    )?;

    if endgame > 0 {
        for (rows, cols) in [(4, 4), (5, 5)] {
            let big = Dots::new(rows, cols)?;
            let mut times = Vec::new();
            let mut nodes = Vec::new();
            for i in 0..endgame {
                let undrawn = 15 + (i as u32 * 5) % 11;
                let position = Edges(random.quiet_position(big, big.edges() - undrawn));
                // 2^18 entries (4 MiB) suffice for 25 undrawn edges, and
                // clearing the default 256 MiB would dominate the timing.
                let mut solver = EndgameSolver::with_rules(big, Limits::default(), Rules::ALL, 18);
                let started = Instant::now();
                let value = solver.solve(position)?;
                let elapsed = started.elapsed();
                writeln!(
                    out,
                    "  {} ({undrawn} undrawn): {value:+} in {:.1} ms, {} nodes",
                    big.notation(position),
                    elapsed.as_secs_f64() * 1e3,
                    solver.nodes()
                )?;
                times.push(elapsed);
                nodes.push(solver.nodes());
            }
            nodes.sort_unstable();
            writeln!(
                out,
                "endgame solver, {endgame} {rows}x{cols} positions with 15-25 undrawn edges: median {:.1} ms, max {:.1} ms, median {} nodes",
                median(times.clone()).as_secs_f64() * 1e3,
                times.iter().max().expect("positions").as_secs_f64() * 1e3,
                nodes[nodes.len() / 2]
            )?;
        }
    }
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
        let table = solvedb_lookup::read_table(&path)?;
        let h = table.header();
        let bits = table.bytes().len() as f64 * 8.0;
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
            table.bytes().len(),
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
