//! `solvedb bench cube`: build time, probe latency over random reachable
//! positions (p50/p99), and the classic approach measured against the table
//! in the same run: a depth-limited alpha-beta with a line-count heuristic.
//! The baseline lives here, in benchmark code, not in the library: it is the
//! yardstick, not a way to answer positions.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use solvedb_lookup::games::cube::{LINES, has_line};
use solvedb_lookup::testkit::{Rng, playout, random_positions};
use solvedb_lookup::{
    Cube, CubeBoard, CubeCell, Game, GameOracle, Search, SearchLimits, Table, Tabled,
};

use crate::bench::{BenchOptions, DEFAULT_POSITIONS};
use crate::build::build_table;

/// Quiet positions (nobody threatens a cell) from games of sensible moves:
/// win if possible, else block, else a random cell. These are the positions
/// where play needs judgement rather than tactics.
pub fn sensible_quiet_positions(count: usize, seed: u64) -> Vec<CubeBoard> {
    let mut rng = Rng::new(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let game = playout(&Cube, &mut rng, |rng, board, _| {
            // `ordered_moves` lists wins, then blocks, first.
            let moves = Cube.ordered_moves(board);
            if board.is_quiet() {
                *rng.pick(&moves)
            } else {
                moves[0]
            }
        });
        positions.extend(
            game.into_iter()
                .filter(|&p| p.is_quiet() && Cube.terminal_score(p).is_none()),
        );
    }
    positions.truncate(count);
    positions
}

/// Every non-terminal position with at most `stones` stones, one per orbit
/// of the symmetries: the openings, where the game is decided.
pub fn openings(stones: u32) -> Vec<CubeBoard> {
    let mut layer = vec![Cube.start()];
    let mut all = layer.clone();
    for _ in 0..stones {
        let mut next: Vec<CubeBoard> = layer
            .iter()
            .flat_map(|&p| Cube.moves(p).into_iter().map(move |m| Cube.play(p, m).0))
            .filter(|&p| Cube.terminal_score(p).is_none())
            .map(|p| Cube.canonical(p))
            .collect();
        next.sort_unstable();
        next.dedup();
        all.extend_from_slice(&next);
        layer = next;
    }
    all
}

/// The classic evaluation, from the side to move: per line, +100 for two own
/// stones and an empty cell, +10 for one own stone and two empty cells, −500
/// for two of the opponent's and an empty cell.
fn heuristic(mover: u32, other: u32) -> i32 {
    let mut score = 0;
    for &line in &LINES {
        let (own, theirs) = ((mover & line).count_ones(), (other & line).count_ones());
        match (own, theirs) {
            (2, 0) => score += 100,
            (1, 0) => score += 10,
            (0, 2) => score -= 500,
            _ => {}
        }
    }
    score
}

const MATE: i32 = 1_000_000;

/// Depth-limited negamax with alpha-beta over the heuristic; wins score
/// `MATE` minus the plies to reach them, so faster wins are preferred.
fn alpha_beta(mover: u32, other: u32, depth: u32, ply: i32, mut alpha: i32, beta: i32) -> i32 {
    if has_line(other) {
        return -(MATE - ply);
    }
    let empty = ((1u32 << 27) - 1) & !(mover | other);
    if depth == 0 || empty == 0 {
        return heuristic(mover, other);
    }
    let mut best = -MATE - 1;
    let mut rest = empty;
    while rest != 0 {
        let cell = rest.trailing_zeros();
        rest &= rest - 1;
        let score = -alpha_beta(other, mover | 1 << cell, depth - 1, ply + 1, -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The baseline's move: the best by depth-limited alpha-beta, first in cell
/// order among equals.
pub fn baseline_move(board: CubeBoard, depth: u32) -> CubeCell {
    let (mover, other) = board.mover_and_other();
    let mut best = (-MATE - 2, None);
    let mut rest = board.empty();
    while rest != 0 {
        let cell = rest.trailing_zeros();
        rest &= rest - 1;
        let score = -alpha_beta(other, mover | 1 << cell, depth - 1, 1, -MATE - 1, -best.0);
        if score > best.0 {
            best = (score, Some(cell));
        }
    }
    let cell = best.1.expect("a non-terminal position has a move");
    CubeCell::new(cell as u8).expect("a cell of the board")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn nanos(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

/// Runs the cube benchmark and prints its figures.
///
/// # Errors
///
/// If the table cannot answer a position, or output fails.
pub fn run(options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
    let BenchOptions {
        rounds, ref depths, ..
    } = *options;
    let positions = options.positions_or(DEFAULT_POSITIONS);
    let mut build_times = Vec::new();
    let mut bytes = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        bytes = build_table(&Cube, 19).1;
        build_times.push(started.elapsed());
    }
    build_times.sort_unstable();
    writeln!(
        out,
        "cube: build (solve + compress) median of {rounds}: {:.0} ms, {} bytes",
        percentile(&build_times, 0.5).as_secs_f64() * 1e3,
        bytes.len()
    )?;

    let sample = random_positions(&Cube, &mut Rng::new(0x5eed), positions);
    // Cold: open the table and answer one quiet position (fence block and
    // one record block decoded), as a one-shot `solvedb probe` does.
    let quiet = sample.iter().copied().find(|p| p.is_quiet());
    let mut cold_times = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        let table = Table::new(bytes.as_slice())?;
        if let Some(p) = quiet {
            black_box(Cube.table_score(&table, p)?);
        }
        cold_times.push(started.elapsed());
    }
    cold_times.sort_unstable();
    writeln!(
        out,
        "cold probe (open + first lookup, median of {rounds}): {:.1} us",
        percentile(&cold_times, 0.5).as_secs_f64() * 1e6
    )?;
    let oracle = GameOracle::with_table(Cube, Table::new(bytes.as_slice())?)?;
    // Warm: every block decoded once, as in a long-running engine.
    for &p in &sample {
        oracle.probe(p)?;
    }
    let mut probe_times = Vec::with_capacity(sample.len());
    for _ in 0..rounds {
        for &p in &sample {
            let started = Instant::now();
            black_box(oracle.probe(black_box(p))?);
            probe_times.push(started.elapsed());
        }
    }
    probe_times.sort_unstable();
    writeln!(
        out,
        "probe (warm), {} random reachable positions x {rounds} rounds: p50 {:.0} ns, p99 {:.0} ns, max {:.0} ns (each timed alone, Instant overhead included)",
        sample.len(),
        nanos(percentile(&probe_times, 0.5)),
        nanos(percentile(&probe_times, 0.99)),
        nanos(*probe_times.last().expect("samples")),
    )?;
    let started = Instant::now();
    for &p in &sample {
        black_box(oracle.answer(p)?);
    }
    let answer_time = started.elapsed() / sample.len() as u32;
    writeln!(
        out,
        "best move from the table (value of every move): {:.0} ns per position",
        nanos(answer_time)
    )?;

    live_search(&oracle, &sample, rounds, out)?;

    let sensible = sensible_quiet_positions(positions, 0x5eed + 1);
    let openings = openings(3);
    for (name, set) in [
        ("random reachable positions", &sample),
        ("quiet positions from sensible play", &sensible),
        (
            "openings (every position with 0-3 stones, up to symmetry)",
            &openings,
        ),
    ] {
        writeln!(out, "baseline on {} {name}:", set.len())?;
        for &depth in depths.iter() {
            baseline(&oracle, set, depth, answer_time, out)?;
        }
    }
    Ok(())
}

/// The live search without a table: the generic alpha-beta (the method
/// before `ForcedPlaySolver`) against the forced-play solver with its memo,
/// a fresh search per position, on the random positions with at least
/// `GENERIC_FROM` stones (earlier ones take the generic search minutes);
/// then the forced-play solver alone on the empty cube and on every
/// position with one stone. Both are checked against the table.
fn live_search(
    oracle: &GameOracle<Cube, &[u8]>,
    sample: &[CubeBoard],
    rounds: u32,
    out: &mut dyn Write,
) -> Result<()> {
    const GENERIC_FROM: u32 = 9;
    let late: Vec<CubeBoard> = sample
        .iter()
        .copied()
        .filter(|b| b.stones() >= GENERIC_FROM && Cube.terminal_score(*b).is_none())
        .take(100)
        .collect();
    let (mut old_times, mut new_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds.min(3) {
        let started = Instant::now();
        for &p in &late {
            let score = Search::generic(&Cube, SearchLimits::default()).score(p)?;
            if score != Cube.table_score(oracle.table().expect("a table"), p)? {
                bail!("generic search and table disagree on {}", Cube.notation(p));
            }
        }
        old_times.push(started.elapsed() / late.len().max(1) as u32);
        let started = Instant::now();
        for &p in &late {
            let score = Search::new(&Cube).score(p)?;
            if score != Cube.table_score(oracle.table().expect("a table"), p)? {
                bail!(
                    "forced-play solver and table disagree on {}",
                    Cube.notation(p)
                );
            }
        }
        new_times.push(started.elapsed() / late.len().max(1) as u32);
    }
    old_times.sort_unstable();
    new_times.sort_unstable();
    let (old, new) = (percentile(&old_times, 0.5), percentile(&new_times, 0.5));
    writeln!(
        out,
        "live search without a table, {} random positions with {GENERIC_FROM}+ stones (mean per position, median of {} rounds): \
         generic alpha-beta {:.0} ns, forced play with a memo {:.0} ns ({:.1}x)",
        late.len(),
        old_times.len(),
        nanos(old),
        nanos(new),
        old.as_secs_f64() / new.as_secs_f64()
    )?;
    let empty = Cube.start();
    let mut early = vec![empty];
    early.extend(Cube.moves(empty).into_iter().map(|c| Cube.play(empty, c).0));
    let mut slowest = Duration::ZERO;
    let mut empty_time = Duration::ZERO;
    let mut nodes = 0;
    for &p in &early {
        let mut search = Search::new(&Cube);
        let started = Instant::now();
        let score = search.score(p)?;
        let elapsed = started.elapsed();
        if score != Cube.table_score(oracle.table().expect("a table"), p)? {
            bail!(
                "forced-play solver and table disagree on {}",
                Cube.notation(p)
            );
        }
        if p == empty {
            empty_time = elapsed;
            nodes = search.nodes();
        }
        slowest = slowest.max(elapsed);
    }
    writeln!(
        out,
        "forced play with a memo, fresh each time: the empty cube {:.0} ms ({nodes} quiet positions searched), \
         slowest of it and the 27 first moves {:.0} ms",
        empty_time.as_secs_f64() * 1e3,
        slowest.as_secs_f64() * 1e3
    )?;
    Ok(())
}

/// Plays the baseline at `depth` on every position of `set` and prints how
/// often its move is worse than the table's best, and its time per move.
fn baseline(
    oracle: &GameOracle<Cube, &[u8]>,
    set: &[CubeBoard],
    depth: u32,
    answer_time: Duration,
    out: &mut dyn Write,
) -> Result<()> {
    let started = Instant::now();
    let moves: Vec<CubeCell> = set.iter().map(|&p| baseline_move(p, depth)).collect();
    let baseline_time = started.elapsed() / set.len() as u32;
    let (mut mistakes, mut result_changing) = (0, 0);
    for (&p, &mv) in set.iter().zip(&moves) {
        let answer = oracle.answer(p)?;
        let best = answer.moves[0].value;
        let chosen = answer
            .moves
            .iter()
            .find(|m| m.mv == mv)
            .expect("the baseline plays a legal move")
            .value;
        if chosen != best {
            mistakes += 1;
            result_changing += usize::from(chosen.wdl < best.wdl);
        }
    }
    let n = set.len() as f64;
    writeln!(
        out,
        "  depth {depth}: {:>10.0} ns per move ({:.1}x a table answer); mistakes {mistakes} ({:.1}%), \
         of which throw away a win {result_changing} ({:.1}%)",
        nanos(baseline_time),
        baseline_time.as_secs_f64() / answer_time.as_secs_f64(),
        100.0 * mistakes as f64 / n,
        100.0 * result_changing as f64 / n,
    )?;
    Ok(())
}
