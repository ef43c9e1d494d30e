//! Dots-and-boxes on the generator side: the retrograde pass over the dense
//! array of edge sets ([`retrograde`]), and its benchmark against the plain
//! baseline, with probe latency and the endgame solver.

pub mod distributed;
pub mod endgame;
pub mod retrograde;
pub mod spread;

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use rayon::prelude::*;
use solvedb_lookup::format::{decode_margin, encode_margin, encode_table};
use solvedb_lookup::games::dots::{EndgameSolver, Rules};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{
    BlockCache, Dots, Edges, Game, GameOracle, Header, IndexScheme, Search, SearchLimits, Table,
    Tabled, ValueEncoding,
};

use crate::bench::{BenchOptions, median, per_item};
use crate::build::Buildable;
use crate::build::{Solution, default_level, encode_solution};
use crate::games::GeneratorGame;
use retrograde::InRun;

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

/// The plain baseline the retrograde pass is measured against in the same
/// run of `solvedb bench`: one thread, a byte per position, one loop from
/// the full board down to the empty one that reads every child through the
/// rules ([`Dots::draw`]).
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

/// Format version 1's entries, the baseline of the coding bench: the
/// retrograde pass's margin bytes for every canonical position, 0 for the
/// rest.
fn version_1_entries(board: Dots, values: &[u8]) -> Vec<u8> {
    let symmetries = board.shared_symmetries();
    values
        .par_iter()
        .enumerate()
        .map(|(mask, &v)| {
            if symmetries.is_canonical(mask as u64) {
                v
            } else {
                0
            }
        })
        .collect()
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

/// The largest board the plain baseline runs on in the bench (3x3: 2^24
/// positions, seconds; 3x4's 2^31 would take minutes).
const PLAIN_BASELINE_EDGES: u32 = 24;

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
    // The plain baseline reads every child through the rules on one
    // thread: minutes on 3x4, so it runs on boards of at most 24 edges.
    let plain = (board.edges() <= PLAIN_BASELINE_EDGES).then(|| {
        let mut times = Vec::new();
        let mut values = Vec::new();
        for _ in 0..rounds {
            let started = Instant::now();
            values = plain_dots_values(board);
            times.push(started.elapsed());
        }
        (median(times), values)
    });
    let (mut old_times, mut new_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        let old = retrograde::solve_values_with(board, InRun::Recursive);
        old_times.push(started.elapsed());
        let started = Instant::now();
        let new = retrograde::solve_values_with(board, InRun::Unrolled);
        new_times.push(started.elapsed());
        if old != new || plain.as_ref().is_some_and(|(_, plain)| *plain != new) {
            bail!("the retrograde passes and the plain baseline disagree");
        }
    }
    let (old, ours) = (median(old_times), median(new_times));
    let traffic = retrograde::streamed_bytes(board) as f64;
    let bandwidth = read_bandwidth((board.slots() as usize).clamp(1 << 26, 1 << 30), rounds);
    let threads = rayon::current_num_threads();
    let rate = |t: std::time::Duration| positions / t.as_secs_f64() / 1e6;
    match &plain {
        Some((plain, _)) => writeln!(
            out,
            "{:<56}{:>9.3} s  {:>8.1} M positions/s",
            "plain baseline (1 thread, reads every child):",
            plain.as_secs_f64(),
            rate(*plain)
        )?,
        None => writeln!(
            out,
            "plain baseline: not run on boards of more than {PLAIN_BASELINE_EDGES} edges"
        )?,
    }
    writeln!(
        out,
        "{:<56}{:>9.3} s  {:>8.1} M positions/s",
        format!("retrograde pass before ({threads} threads, recursive in runs):"),
        old.as_secs_f64(),
        rate(old)
    )?;
    writeln!(
        out,
        "{:<56}{:>9.3} s  {:>8.1} M positions/s  ({:.2}x the pass before{})",
        format!("retrograde pass now ({threads} threads, unrolled in runs):"),
        ours.as_secs_f64(),
        rate(ours),
        old.as_secs_f64() / ours.as_secs_f64(),
        match &plain {
            Some((plain, _)) => format!(
                ", {:.2}x the baseline",
                plain.as_secs_f64() / ours.as_secs_f64()
            ),
            None => String::new(),
        }
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

    // The table coding: format version 1's (every canonical position a
    // margin byte, zstd level 19) against don't-care entries and boxes-won
    // bytes at the default level, on the same solve.
    let mut values = retrograde::solve_values(board);
    let old_entries = version_1_entries(board, &values);
    let canonical = old_entries.iter().filter(|&&e| e != 0).count() as u64;
    let old_header = Header {
        game: board.id(),
        index: IndexScheme::EdgeMaskCanonical,
        values: ValueEncoding::Margin,
        entries: board.slots(),
        stored: canonical,
        block_entries: Dots::BLOCK_ENTRIES,
        generator: "version 1 coding, for the bench".into(),
    };
    // The rest of the build after the pass: clearing the non-canonical and
    // don't-care entries and recoding the kept ones.
    let started = Instant::now();
    let (layers, stored) = retrograde::keep_canonical(board, &mut values);
    writeln!(
        out,
        "canonical and don't-care pass (once): {:.3} s",
        started.elapsed().as_secs_f64()
    )?;
    let new_solution = Solution {
        layers,
        entries: values,
        stored,
        notes: Vec::new(),
    };
    let level = default_level(board.slots());
    let coding_rounds = rounds.min(3);
    let (mut old_times, mut new_times) = (Vec::new(), Vec::new());
    let (mut old_bytes, mut bytes) = (Vec::new(), Vec::new());
    for _ in 0..coding_rounds {
        let started = Instant::now();
        old_bytes = encode_table(&old_header, &old_entries, 19);
        old_times.push(started.elapsed());
        let started = Instant::now();
        bytes = encode_solution(&board, &new_solution, level);
        new_times.push(started.elapsed());
    }
    let bits = |b: &[u8]| b.len() as f64 * 8.0 / canonical as f64;
    writeln!(
        out,
        "table coding, {canonical} canonical positions (medians of {coding_rounds}): \
         old (all stored, margin bytes, level 19) {} bytes = {:.3} bits/position, compressed in {:.3} s; \
         new (don't-care for {} free captures, boxes-won bytes, level {level}) {} bytes = {:.3} bits/position, \
         compressed in {:.3} s ({:.2}x smaller)",
        old_bytes.len(),
        bits(&old_bytes),
        median(old_times).as_secs_f64(),
        canonical - new_solution.stored,
        bytes.len(),
        bits(&bytes),
        median(new_times).as_secs_f64(),
        old_bytes.len() as f64 / bytes.len() as f64
    )?;
    drop((old_entries, new_solution));

    // Probe latency: the table in memory against live search, and the new
    // coding's probe against the old one's on the same positions.
    // Warm probes: caches that keep every block the sample touches (up to
    // 2,000 blocks of 64 KiB for 3x4, more than the default 64 MiB).
    let keep_all = || Arc::new(BlockCache::unbounded());
    let old_table = Table::with_cache(old_bytes.as_slice(), keep_all())?;
    let table = Table::with_cache(bytes.as_slice(), keep_all())?;
    let with_table =
        GameOracle::with_table(board, Table::with_cache(bytes.as_slice(), keep_all())?)?;
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    // Edge sets about five eighths full: mostly undecided boxes.
    let sample: Vec<Edges> = (0..2000)
        .map(|_| {
            let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
            Edges((a & b.rotate_left(17) | c) & board.full())
        })
        .collect();
    // Version 1's `table_score`: canonical form, one entry, the margin
    // checked against the unclaimed boxes.
    let old_probe = |p: Edges| -> Result<i32> {
        let slot = board.canonical(p).0;
        let margin = decode_margin(old_table.entry(slot)?);
        let remaining = board.remaining_boxes(slot) as i32;
        if margin.abs() > remaining || (margin - remaining) % 2 != 0 {
            bail!("bad entry at slot {slot}");
        }
        Ok(margin)
    };
    for &p in &sample {
        if board.table_score(&table, p)? != old_probe(p)? {
            bail!(
                "the old and the new coding disagree on {}",
                board.notation(p)
            );
        }
    }
    let resolved = sample
        .iter()
        .filter(|p| board.free_capture(p.0).is_some())
        .count();
    // Each method's rounds together, so that a probe is timed warm, not
    // after another method has pushed its lines out of the caches; at least
    // three, so that the median is not the first round, whose reads of a
    // big table's decoded blocks miss the caches.
    let probe_rounds = rounds.max(3);
    let old_times: Vec<_> = (0..probe_rounds)
        .map(|_| {
            per_item(&sample, |p| {
                black_box(old_probe(p).ok());
            })
        })
        .collect();
    let new_times: Vec<_> = (0..probe_rounds)
        .map(|_| {
            per_item(&sample, |p| {
                black_box(board.table_score(&table, p).ok());
            })
        })
        .collect();
    let first_round = new_times[0];
    let (old_time, new_time) = (median(old_times), median(new_times));
    writeln!(
        out,
        "warm table lookup, {} positions ({resolved} with a free capture, resolved first), \
         median of {probe_rounds} rounds: old coding {:.0} ns, new coding {:.0} ns per position \
         ({:.2}x); the new coding's first round, its entries read from memory, {:.0} ns",
        sample.len(),
        old_time.as_secs_f64() * 1e9,
        new_time.as_secs_f64() * 1e9,
        old_time.as_secs_f64() / new_time.as_secs_f64(),
        first_round.as_secs_f64() * 1e9
    )?;
    let mut search = Search::new(&board);
    for &p in &sample {
        if with_table.probe(p)?.0 != search.score(p)? {
            bail!("table and search disagree on {}", board.notation(p));
        }
    }
    let table_times: Vec<_> = (0..probe_rounds)
        .map(|_| {
            per_item(&sample, |p| {
                black_box(with_table.probe(p).ok());
            })
        })
        .collect();
    let search_times: Vec<_> = (0..rounds)
        .map(|_| {
            per_item(&sample, |p| {
                // A fresh search each time: what a caller without a table
                // pays.
                black_box(Search::new(&board).score(p).ok());
            })
        })
        .collect();
    let (table_time, search_time) = (median(table_times), median(search_times));
    writeln!(
        out,
        "probe {} random positions through the oracle: table (warm) {:.0} ns, live search {:.0} ns per position ({:.0}x)",
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
                // 2^18 entries (2 MiB) suffice for 25 undrawn edges, and
                // clearing the default 256 MiB would dominate the timing.
                let mut solver =
                    EndgameSolver::with_rules(big, SearchLimits::default(), Rules::ALL, 18);
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
