//! `solvedb bench dots:endgame`: a baseline endgame solver (the rules of
//! `Rules::BEFORE`, one thread, every move searched on its own) against
//! the solver with every rule on a fixed set of positions, in one run.
//!
//! The positions are committed (`tests/data/dots-endgame.positions`) and
//! made by [`positions_text`]: for each board and number `U` of undrawn
//! edges, random play from the empty board that never draws a box's third
//! side (`Dots::random_without_third_sides`) until `U` edges are left,
//! from one seeded generator per set, drawing again when play runs out of
//! such edges first. A test checks the file is what the procedure makes.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use solvedb_lookup::games::dots::{EndgameSolver, NodeCounts, Rules};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Dots, Edges, Game, SearchLimits};

use crate::bench::{median, peak_memory};

/// The seed of every set (changing it changes the committed positions).
pub const SEED: u64 = 21;

/// The sets: board (rows, columns), undrawn edges, positions.
pub const SETS: [((u8, u8), u32, usize); 9] = [
    ((5, 5), 36, 7),
    ((5, 5), 40, 7),
    ((5, 5), 44, 5),
    ((5, 5), 48, 3),
    ((5, 5), 52, 3),
    ((4, 5), 40, 5),
    ((4, 5), 44, 3),
    ((4, 5), 49, 1),
    ((4, 4), 40, 1),
];

/// The committed file the bench reads, relative to the workspace.
pub const POSITIONS_FILE: &str = "tests/data/dots-endgame.positions";

/// The positions file as [`SETS`] and [`SEED`] make it: a comment with the
/// procedure, then one position per line in the board's notation. A set
/// whose `U` is the board's every edge is the empty board.
pub fn positions_text() -> String {
    let mut text = String::from(
        "# The positions of `solvedb bench dots:endgame`, made by\n\
         # generator/src/games/dots/endgame.rs (positions_text): for each set, a\n\
         # generator seeded with 21 xor (rows << 16 | cols << 8 | undrawn) plays\n\
         # random edges from the empty board that give no box a third side until\n\
         # the stated number of edges is undrawn, drawing again when it runs out\n\
         # of such edges first. Checked by tests/tests/dots_endgame.rs.\n",
    );
    for ((rows, cols), undrawn, count) in SETS {
        let board = Dots::new(rows, cols).expect("a board of the sets");
        text.push_str(&format!("# {rows}x{cols}, {undrawn} undrawn\n"));
        let mut rng =
            Rng::new(SEED ^ (u64::from(rows) << 16 | u64::from(cols) << 8 | u64::from(undrawn)));
        let mut made = 0;
        while made < count {
            if let Some(p) = board.random_without_third_sides(&mut rng, undrawn) {
                text.push_str(&board.notation(p));
                text.push('\n');
                made += 1;
            }
        }
    }
    text
}

/// The positions of a positions file, in order.
///
/// # Errors
///
/// A line that is no dots position.
pub fn read_positions(text: &str) -> Result<Vec<(Dots, Edges)>> {
    let mut positions = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let size = line.split(':').next().unwrap_or_default();
        let (rows, cols) = size
            .split_once('x')
            .with_context(|| format!("line {}: want MxN:edges", n + 1))?;
        let board = Dots::new(rows.parse()?, cols.parse()?)?;
        let position = board
            .parse(line)
            .with_context(|| format!("line {}", n + 1))?;
        positions.push((board, position));
    }
    Ok(positions)
}

/// How `run` measures.
#[derive(Clone, Debug)]
pub struct EndgameOptions {
    /// Threads of the solver now (`None`: every core).
    pub threads: Option<usize>,
    /// The old solver runs on sets of at most this many undrawn edges (it
    /// takes minutes beyond).
    pub old_up_to: u32,
    /// Sets of more undrawn edges are skipped.
    pub up_to: u32,
    /// Every move's value too, not only the position's, on boards of at
    /// most this many boxes (the empty 4x4).
    pub moves_up_to_boxes: u32,
    /// Memory of each solver's table, in bytes (`None`: the default).
    pub table_bytes: Option<u64>,
    /// Whether the old solver runs on the sets of every move's value too
    /// (the empty 4x4: a quarter of an hour).
    pub old_moves: bool,
    /// The rules of the solver now ([`Rules::ALL`] unless a rule is
    /// switched off to measure what it gives).
    pub rules: Rules,
}

/// One solve: the value (and with `moves`, every move's), positions
/// visited, time.
struct Solve {
    value: i32,
    moves: Option<Vec<i32>>,
    /// With `moves`, the nodes and time until the value alone was known.
    value_alone: Option<(u64, Duration)>,
    nodes: u64,
    time: Duration,
    /// How the nodes ended (the solver now only).
    counts: NodeCounts,
}

fn solve_now(board: Dots, p: Edges, moves: bool, options: &EndgameOptions) -> Result<Solve> {
    let limits = SearchLimits {
        threads: options.threads,
        table_bytes: options.table_bytes,
        ..SearchLimits::default()
    };
    let bits = EndgameSolver::new(board, limits.clone()).table_bits();
    let mut solver = EndgameSolver::with_rules(board, limits, options.rules, bits);
    let started = Instant::now();
    let (value, moves, value_alone) = if moves {
        let analysis = solver.analyse(p);
        if let Some(e) = analysis.unknown {
            return Err(e.into());
        }
        let values = analysis.moves.iter().map(|m| m.lower).collect();
        let alone = (analysis.value_nodes, analysis.value_time);
        (analysis.lower, Some(values), Some(alone))
    } else {
        (solver.solve(p)?, None, None)
    };
    Ok(Solve {
        value,
        moves,
        value_alone,
        nodes: solver.nodes(),
        time: started.elapsed(),
        counts: solver.node_counts(),
    })
}

/// The solver of before: its rules, one thread, and every move searched
/// on its own with the table kept (what `GameOracle::answer` did).
fn solve_before(board: Dots, p: Edges, moves: bool, options: &EndgameOptions) -> Result<Solve> {
    let limits = SearchLimits {
        threads: Some(1),
        table_bytes: options.table_bytes,
        ..SearchLimits::default()
    };
    let bits = EndgameSolver::new(board, limits.clone()).table_bits();
    // The same table memory as the solver now, on its rules.
    let mut solver = EndgameSolver::with_rules(board, limits, Rules::BEFORE, bits);
    let started = Instant::now();
    let value = solver.solve(p)?;
    let moves = if moves {
        let mut values = Vec::new();
        let free = board.full() & !p.0;
        for e in (0..board.edges()).filter(|e| free & 1 << e != 0) {
            let (child, gain) = board.draw(p.0, e);
            let child_value = solver.solve(Edges(child))?;
            values.push(if gain > 0 {
                gain as i32 + child_value
            } else {
                -child_value
            });
        }
        Some(values)
    } else {
        None
    };
    Ok(Solve {
        value,
        moves,
        value_alone: None,
        nodes: solver.nodes(),
        time: started.elapsed(),
        counts: NodeCounts::default(),
    })
}

fn seconds(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// `solvedb bench dots:endgame`: every set of the positions file, the
/// solver now and (up to [`EndgameOptions::old_up_to`]) the solver of
/// before, per position and as medians and ranges per set, then the peak
/// memory of the run.
///
/// # Errors
///
/// A bad positions file, or the two solvers disagreeing.
pub fn run(text: &str, options: &EndgameOptions, out: &mut dyn Write) -> Result<()> {
    let positions = read_positions(text)?;
    let threads = options
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    writeln!(
        out,
        "dots endgame solver: now ({threads} threads, {}) against before \
         (one thread, the baseline rules Rules::BEFORE, each move its own search) on {} positions",
        if options.rules == Rules::ALL {
            "every rule".to_string()
        } else {
            let off: Vec<&str> = Rules::NAMES
                .into_iter()
                .filter(|name| options.rules.switch(name, true) != Some(options.rules))
                .collect();
            format!("every rule but {}", off.join(", "))
        },
        positions.len()
    )?;
    let mut i = 0;
    while i < positions.len() {
        let (board, first) = positions[i];
        let undrawn = board.edges() - first.count();
        let set: Vec<Edges> = positions[i..]
            .iter()
            .take_while(|(b, p)| *b == board && board.edges() - p.count() == undrawn)
            .map(|&(_, p)| p)
            .collect();
        i += set.len();
        if undrawn > options.up_to {
            writeln!(out, "{}, {undrawn} undrawn: skipped (--up-to)", board.id())?;
            continue;
        }
        let moves = board.boxes() <= options.moves_up_to_boxes;
        let what = if moves {
            "value and every move"
        } else {
            "value"
        };
        writeln!(
            out,
            "{}, {undrawn} undrawn, {} positions, {what}:",
            board.id(),
            set.len()
        )?;
        let (mut now_times, mut old_times) = (Vec::new(), Vec::new());
        let mut counts = NodeCounts::default();
        for &p in &set {
            let now = solve_now(board, p, moves, options)?;
            let old = if undrawn <= options.old_up_to && (!moves || options.old_moves) {
                let old = solve_before(board, p, moves, options)?;
                if old.value != now.value || old.moves != now.moves {
                    bail!(
                        "the solvers disagree on {}: before {} {:?}, now {} {:?}",
                        board.notation(p),
                        old.value,
                        old.moves,
                        now.value,
                        now.moves
                    );
                }
                Some(old)
            } else {
                None
            };
            write!(
                out,
                "  {:+3}  now {:9.3} s {:>13} nodes",
                now.value,
                seconds(now.time),
                now.nodes
            )?;
            if let Some(old) = &old {
                write!(
                    out,
                    "  before {:9.3} s {:>13} nodes  ({:.1}x)",
                    seconds(old.time),
                    old.nodes,
                    seconds(old.time) / seconds(now.time)
                )?;
                old_times.push(old.time);
            }
            writeln!(out, "  {}", board.notation(p))?;
            if let Some((nodes, time)) = now.value_alone {
                writeln!(
                    out,
                    "       the value alone {:9.3} s {nodes:>13} nodes (then every move's)",
                    seconds(time)
                )?;
            }
            now_times.push(now.time);
            counts += now.counts;
        }
        let range = |t: &[Duration]| {
            let min = t.iter().min().copied().unwrap_or_default();
            let max = t.iter().max().copied().unwrap_or_default();
            format!("{:.3}-{:.3} s", seconds(min), seconds(max))
        };
        write!(
            out,
            "  median now {:.3} s (range {})",
            seconds(median(now_times.clone())),
            range(&now_times)
        )?;
        if !old_times.is_empty() {
            write!(
                out,
                ", before {:.3} s (range {}), {:.1}x",
                seconds(median(old_times.clone())),
                range(&old_times),
                seconds(median(old_times.clone())) / seconds(median(now_times.clone()))
            )?;
        }
        writeln!(out)?;
        write_counts(out, &counts)?;
    }
    peak_memory(out)?;
    Ok(())
}

/// How the solver now's nodes of a set ended, as shares of them.
fn write_counts(out: &mut dyn Write, counts: &NodeCounts) -> Result<()> {
    let total = counts.total().max(1) as f64;
    let share = |n: u64| 100.0 * n as f64 / total;
    writeln!(
        out,
        "  nodes ended: settled {:.1}%, chain bound {:.1}%, table {:.1}%, best move {:.1}%, \
         transposition cutoff {:.1}%, refuted {:.1}% (by the first move {:.1}%, by a sacrifice \
         {:.1}%), failed low {:.1}%",
        share(counts.settled),
        share(counts.chain_bound),
        share(counts.table),
        share(counts.best_move),
        share(counts.transposition_cutoffs),
        share(counts.refuted),
        share(counts.refuted_first),
        share(counts.refuted_by_sacrifice),
        share(counts.failed_low),
    )?;
    Ok(())
}
