//! Dots-and-boxes on the generator side: the retrograde pass over the dense
//! array of edge sets ([`retrograde`]), and its benchmark against the plain
//! baseline, with probe latency and the endgame solver.

pub mod distributed;
pub mod retrograde;

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use anyhow::{Result, bail};
use rayon::prelude::*;
use solvedb_lookup::format::{decode_margin, encode_margin};
use solvedb_lookup::games::dots::{EndgameSolver, Rules};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Dots, Edges, Game, GameOracle, Limits, Search, Table, Tabled};

use crate::bench::{BenchOptions, median, per_item};
use crate::build::Buildable;
use crate::build::{Solution, build_table};
use crate::games::GeneratorGame;

impl Buildable for Dots {
    /// Dense tables are big (2^31 slots for 3x4): 64 KiB blocks keep the
    /// block index at 24 bytes per 65,536 slots while a probe still decodes
    /// only 64 KiB.
    const BLOCK_ENTRIES: u32 = 1 << 16;

    const COLUMNS: [&'static str; 3] = ["edges", "positions", "canonical"];

    /// Retrograde analysis over the dense array of all edge sets
    /// ([`retrograde`]) instead of the generic layer-by-layer hash maps.
    fn solve_table(&self) -> Solution {
        retrograde::solve(*self)
    }
}

impl GeneratorGame for Dots {
    /// The generator against the plain baseline, probes against live
    /// search, and the endgame solver on bigger boards.
    fn bench(&self, options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
        run(*self, options, out)
    }
}

/// The plain baseline the issue asks us to beat: one thread, a byte per
/// position, one loop from the full board down to the empty one that reads
/// every child through the rules ([`Dots::draw`]). Kept here, not in the
/// generator, so `solvedb bench` can measure against it in the same run.
pub fn plain_dots_values(board: Dots) -> Vec<u8> {
    let full = board.full();
    let mut values = vec![0u8; full as usize + 1];
    values[full as usize] = encode_margin(0);
    for mask in (0..full).rev() {
        let mut best = i32::MIN;
        for e in 0..board.edges() {
            if mask & 1 << e != 0 {
                continue;
            }
            let (child, gain) = board.draw(mask, e);
            let child = decode_margin(values[child as usize]);
            let gain = gain as i32;
            best = best.max(if gain > 0 { gain + child } else { -child });
        }
        values[mask as usize] = encode_margin(best);
    }
    values
}

/// A position with `drawn` edges in which, as far as possible, no box is
/// complete: edges are drawn at random among those that complete nothing,
/// like a game before its endgame (a uniformly random edge set has most
/// boxes taken and is trivial).
fn quiet_position(rng: &mut Rng, board: Dots, drawn: u32) -> u64 {
    let mut mask = 0u64;
    while mask.count_ones() < drawn {
        let free: Vec<u32> = (0..board.edges()).filter(|&e| mask & 1 << e == 0).collect();
        let quiet: Vec<u32> = free
            .iter()
            .copied()
            .filter(|&e| board.draw(mask, e).1 == 0)
            .collect();
        let pool = if quiet.is_empty() { &free } else { &quiet };
        mask |= 1 << rng.pick(pool);
    }
    mask
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
pub fn run(board: Dots, options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
    let BenchOptions {
        rounds, endgame, ..
    } = *options;
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
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    // Edge sets about five eighths full: mostly undecided boxes.
    let sample: Vec<Edges> = (0..2000)
        .map(|_| {
            let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
            Edges((a & b.rotate_left(17) | c) & board.full())
        })
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
                let position = Edges(quiet_position(&mut rng, big, big.edges() - undrawn));
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
