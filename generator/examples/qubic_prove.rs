//! Experiments with the Qubic prover (the command line: [`USAGE`], or
//! `--help`).

use std::cell::Cell;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use solvedb_generator::games::qubic::prover::{Attacker, Leaves, Prover, ProverLimits, Verdict};
use solvedb_generator::verify::read_whole;
use solvedb_lookup::format::{GameId, ValueEncoding, write_atomically_with};
use solvedb_lookup::games::qubic::samples::urgent_cells;
use solvedb_lookup::games::qubic::strategy::Records;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{ExactSolver, Game, Qubic, QubicBoard, QubicSolver, SearchLimits};

/// Careful random play (complete, block, else random) to `stones` stones.
fn careful(rng: &mut Rng, stones: u32) -> Option<QubicBoard> {
    let mut board = Qubic.start();
    while board.stones() < stones {
        let moves = Qubic.moves(board);
        if moves.is_empty() {
            return None;
        }
        let mv = match urgent_cells(board) {
            Some(cells) => *rng.pick(
                &moves
                    .iter()
                    .copied()
                    .filter(|m| cells >> m.index() & 1 != 0)
                    .collect::<Vec<_>>(),
            ),
            None => *rng.pick(&moves),
        };
        board = Qubic.play(board, mv).0;
    }
    Qubic.terminal_score(board).is_none().then_some(board)
}

fn check(stones: u32, count: usize, limits: ProverLimits) {
    let mut rng = Rng::new(u64::from(stones) * 7919);
    let (mut done, mut agree, mut unknown) = (0, 0, 0);
    let (mut solver_time, mut prover_time) = (0.0, 0.0);
    while done < count {
        let Some(board) = careful(&mut rng, stones) else {
            continue;
        };
        let started = Instant::now();
        let mut solver = QubicSolver::new(SearchLimits {
            nodes: Some(20_000_000),
            ..SearchLimits::default()
        });
        let Ok(score) = solver.score(board) else {
            continue;
        };
        solver_time += started.elapsed().as_secs_f64();
        done += 1;
        let attacker = if board.x_to_move() {
            Attacker::X
        } else {
            Attacker::O
        };
        let mut prover = Prover::new(attacker, limits);
        let started = Instant::now();
        let verdict = prover.prove(board);
        prover_time += started.elapsed().as_secs_f64();
        match verdict {
            Ok(v) => {
                if (v == Verdict::Proved) == (score > 0) {
                    agree += 1;
                } else {
                    println!(
                        "DISAGREE {} score {score} verdict {v:?}",
                        Qubic.notation(board)
                    );
                }
                if v == Verdict::Proved {
                    let mv = prover.winning_move(board).unwrap().unwrap();
                    let child = Qubic
                        .play(board, solvedb_lookup::QubicCell::new(mv).unwrap())
                        .0;
                    let mut solver = QubicSolver::new(SearchLimits::default());
                    let child_score = solver.score(child).unwrap();
                    if child_score >= 0 {
                        println!(
                            "BAD MOVE {} move {mv} child {child_score}",
                            Qubic.notation(board)
                        );
                    }
                }
            }
            Err(e) => {
                unknown += 1;
                println!("unknown {}: {e}", Qubic.notation(board));
            }
        }
    }
    println!(
        "{done} positions with {stones} stones: {agree} agree, {unknown} unknown; solver {solver_time:.2} s, prover {prover_time:.2} s"
    );
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    let mut limits = ProverLimits::default();
    let mut moves = String::new();
    let mut trace = 0;
    let mut checkpoint: Option<PathBuf> = None;
    let mut every = Duration::from_secs(15 * 60);
    let mut leaves_file: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--mib" => {
                limits.table_bytes = value::<u64>(&args, i + 1)? << 20;
                i += 1;
            }
            "--threats" => {
                limits.threat_budget = value(&args, i + 1)?;
                i += 1;
            }
            "--no-estimate" => limits.estimate = false,
            "--weak" => limits.weak = true,
            "--epsilon" => {
                limits.epsilon_percent = value(&args, i + 1)?;
                i += 1;
            }
            "--replace-by-work" => limits.replace_by_work = true,
            "--width" => {
                limits.width = value(&args, i + 1)?;
                i += 1;
            }
            "--widen-pn" => {
                limits.widen_pn = value(&args, i + 1)?;
                i += 1;
            }
            "--max-stones" => {
                limits.max_stones = value(&args, i + 1)?;
                i += 1;
            }
            "--narrow-from" => {
                limits.narrow_from = value(&args, i + 1)?;
                i += 1;
            }
            "--pass-cache" => {
                limits.pass_cache = value(&args, i + 1)?;
                i += 1;
            }
            "--checkpoint" => {
                checkpoint = Some(PathBuf::from(value::<String>(&args, i + 1)?));
                i += 1;
            }
            "--every" => {
                every = Duration::from_secs_f64(60.0 * value::<f64>(&args, i + 1)?);
                i += 1;
            }
            "--leaves" => {
                leaves_file = Some(PathBuf::from(value::<String>(&args, i + 1)?));
                i += 1;
            }
            "--trace" => {
                trace = value(&args, i + 1)?;
                i += 1;
            }
            "--nodes" => {
                limits.nodes = Some(value(&args, i + 1)?);
                i += 1;
            }
            "--suite" => {
                let stones: u32 = value(&args, i + 1)?;
                let count: usize = value(&args, i + 2)?;
                suite(stones, count, limits);
                return Ok(());
            }
            "--tasks" => {
                // `--tasks PART PARTS MOVES...`: the O replies to the
                // position after MOVES (O to move), up to symmetry, each
                // proved by a prover of its own; this process takes every
                // PARTS-th task from PART.
                let part: usize = value(&args, i + 1)?;
                let parts: usize = value(&args, i + 2)?;
                let moves = args[i + 3..].join(" ");
                return tasks(&moves, part, parts, limits);
            }
            "--x-moves" => {
                // `--x-moves MOVES...`: X's moves in the position after
                // MOVES (X to move), up to symmetry, each position after
                // one (O to move) proved by a prover of its own.
                let moves = args[i + 1..].join(" ");
                return x_moves(&moves, limits);
            }
            "--check" => {
                let stones: u32 = value(&args, i + 1)?;
                let count: usize = value(&args, i + 2)?;
                check(stones, count, limits);
                return Ok(());
            }
            m => {
                moves.push_str(m);
                moves.push(' ');
            }
        }
        i += 1;
    }
    let board = if moves.trim().is_empty() {
        Qubic.start()
    } else {
        Qubic.parse(moves.trim())?
    };
    if checkpoint.is_some() {
        limits.time = Some(every);
    }
    if checkpoint.is_some() && leaves_file.is_some() {
        // A saved state names the prover's settings, not the leaves its
        // proof ended at: a state with one and without the other would mix.
        anyhow::bail!("--checkpoint and --leaves cannot be used together\n{USAGE}");
    }
    let table = leaves_file.as_deref().map(read_whole).transpose()?;
    if let (Some(table), Some(path)) = (&table, &leaves_file) {
        let header = table.header();
        if header.game != GameId::Qubic || header.values != ValueEncoding::StrategyMoves {
            anyhow::bail!(
                "--leaves {}: not a Qubic strategy table (game {:?}, values {:?})",
                path.display(),
                header.game,
                header.values
            );
        }
    }
    let records = table.as_ref().map(Records);
    let counted = records.as_ref().map(|records| CountedLeaves {
        leaves: records,
        asked: Cell::new(0),
        won: Cell::new(0),
    });
    let mut prover = Prover::new(Attacker::X, limits);
    if let Some(counted) = &counted {
        prover = prover.with_leaves(counted);
    }
    prover.trace(trace, |line| eprintln!("{line}"));
    let started = Instant::now();
    if let Some(path) = &checkpoint {
        take_up(&mut prover, board, path)?;
    }
    let verdict = loop {
        match (prover.prove(board), &checkpoint) {
            (Err(solvedb_lookup::Error::TimeExhausted { .. }), Some(path)) => {
                save(&prover, board, path)?;
                eprintln!(
                    "{:.0?}: {} nodes, {:?} table entries; saved to {}",
                    started.elapsed(),
                    prover.nodes(),
                    prover.table_use(),
                    path.display()
                );
            }
            (verdict, _) => break verdict,
        }
    };
    println!("{verdict:?} in {:.2?}", started.elapsed());
    println!("{:?}", prover.stats());
    println!("table {:?}", prover.table_use());
    println!(
        "threat failures (nodes, exhausted) {:?}",
        prover.threat_failures()
    );
    if let Some(counted) = &counted {
        println!(
            "leaves: {} asked, {} won for X",
            counted.asked.get(),
            counted.won.get()
        );
    }
    Ok(())
}

/// A database of X's wins that counts the questions and the wins.
struct CountedLeaves<'l> {
    leaves: &'l dyn Leaves,
    asked: Cell<u64>,
    won: Cell<u64>,
}

impl Leaves for CountedLeaves<'_> {
    fn x_wins(&self, canonical: QubicBoard) -> bool {
        self.asked.set(self.asked.get() + 1);
        let won = self.leaves.x_wins(canonical);
        self.won.set(self.won.get() + u64::from(won));
        won
    }
}

/// Takes up the proof saved in `path`, if there is one.
fn take_up(prover: &mut Prover, board: QubicBoard, path: &Path) -> anyhow::Result<()> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("no {} yet: the proof starts afresh", path.display());
            return Ok(());
        }
        Err(e) => return Err(e).with_context(|| format!("opening {}", path.display())),
    };
    prover
        .load_state(board, BufReader::new(file))
        .with_context(|| format!("taking up the proof saved in {}", path.display()))?;
    eprintln!(
        "taken up from {}: {} nodes, {:?} table entries",
        path.display(),
        prover.nodes(),
        prover.table_use()
    );
    Ok(())
}

/// Saves the prover's state to `path`, atomically.
fn save(prover: &Prover, board: QubicBoard, path: &Path) -> anyhow::Result<()> {
    write_atomically_with(path, |file| prover.save_state(board, file))
        .with_context(|| format!("saving the proof to {}", path.display()))
}

/// The command line, for `--help` and for a value that is missing.
const USAGE: &str = "qubic_prove [MOVES] [--mib N] [--threats N] [--nodes N] [--width K] \
[--widen-pn P] [--narrow-from STONES] [--max-stones STONES] [--pass-cache ENTRIES] [--weak] \
[--epsilon PERCENT] [--replace-by-work] [--no-estimate] [--trace DEPTH] \
[--checkpoint FILE [--every MINUTES]] [--leaves TABLE] \
[--suite STONES COUNT] [--check STONES COUNT] [--tasks PART PARTS MOVES...] [--x-moves MOVES...]
MOVES: cells in Qubic's notation, X first (e.g. `1 26`: X on cell 1, O on cell 26).
--checkpoint FILE: the proof of MOVES takes up the state saved in FILE (if any; it must be of
the same position and settings) and saves its state there every MINUTES (15 by default), so
that a proof longer than its process goes on from the last save when run again.
--leaves TABLE: the proof ends at the X-to-move positions TABLE (a Qubic strategy table, e.g.
tables/qubic.sdb) holds a record of, as the probe's live proofs do; prints how often it asked
and how often a record was there. Not with --checkpoint (a saved state does not name its leaves).";

/// Argument `i` as a `T`, or an error that names it.
fn value<T: std::str::FromStr>(args: &[String], i: usize) -> anyhow::Result<T>
where
    T::Err: std::fmt::Display,
{
    let Some(text) = args.get(i) else {
        anyhow::bail!("{} needs a value\n{USAGE}", args[i - 1]);
    };
    text.parse()
        .map_err(|e| anyhow::anyhow!("{} {text}: {e}\n{USAGE}", args[i - 1]))
}

/// Calm positions with X to move from careful play, each proved within
/// the limits: totals, for comparing versions of the prover.
fn suite(stones: u32, count: usize, limits: ProverLimits) {
    let mut rng = Rng::new(u64::from(stones) * 104_729);
    let mut done = 0;
    let (mut proved, mut disproved, mut unknown, mut nodes, mut mids) = (0, 0, 0, 0u64, 0u64);
    let started = Instant::now();
    while done < count {
        let Some(board) = careful(&mut rng, stones) else {
            continue;
        };
        if !board.x_to_move() || urgent_cells(board).is_some() {
            continue;
        }
        done += 1;
        let mut prover = Prover::new(Attacker::X, limits);
        let verdict = prover.prove(board);
        nodes += prover.nodes();
        mids += prover.stats().mid_calls;
        match verdict {
            Ok(Verdict::Proved) => proved += 1,
            Ok(Verdict::Disproved) => disproved += 1,
            Err(_) => unknown += 1,
        }
    }
    println!(
        "{count} positions with {stones} stones: {proved} proved, {disproved} disproved, {unknown} unknown; {nodes} nodes, {mids} mid calls, {:.2?}",
        started.elapsed()
    );
}

/// The O replies to the position after `moves` (O to move), up to
/// symmetry and in canonical order, each proved by a prover of its own
/// within the limits (every `parts`-th from `part`): per-task figures.
fn tasks(moves: &str, part: usize, parts: usize, limits: ProverLimits) -> anyhow::Result<()> {
    let after = Qubic.parse(moves)?;
    assert!(!after.x_to_move(), "the moves must leave O to move");
    let mut replies: Vec<QubicBoard> = Vec::new();
    for mv in Qubic.moves(after) {
        let reply = Qubic.play(after, mv).0;
        let (canonical, _) = solvedb_lookup::games::qubic::canonical_with_symmetry(reply);
        if !replies.contains(&canonical) {
            replies.push(canonical);
        }
    }
    replies.sort();
    let started = Instant::now();
    let (mut proved, mut nodes) = (0, 0u64);
    for (i, &reply) in replies.iter().enumerate() {
        if i % parts != part {
            continue;
        }
        let mut prover = Prover::new(Attacker::X, limits);
        let t = Instant::now();
        let verdict = prover.prove(reply);
        let stats = prover.stats();
        nodes += prover.nodes();
        proved += u32::from(matches!(verdict, Ok(Verdict::Proved)));
        println!(
            "task {}/{}: {:?} {} nodes ({} mid, {} threat) {:.2?} table {:?} | {}",
            i + 1,
            replies.len(),
            verdict,
            prover.nodes(),
            stats.mid_calls,
            stats.threat_nodes,
            t.elapsed(),
            prover.table_use(),
            Qubic.notation(reply)
        );
    }
    println!(
        "part {part}/{parts}: {proved} proved, {nodes} nodes, {:.2?}",
        started.elapsed()
    );
    Ok(())
}

/// X's moves in the position after `moves` (X to move), up to symmetry
/// and in canonical order, each position after one (O to move) proved by a
/// prover of its own within the limits: per-move figures.
fn x_moves(moves: &str, limits: ProverLimits) -> anyhow::Result<()> {
    let before = Qubic.parse(moves)?;
    anyhow::ensure!(
        before.x_to_move(),
        "--x-moves: the moves must leave X to move"
    );
    let mut children: Vec<(QubicBoard, String)> = Vec::new();
    for mv in Qubic.moves(before) {
        let child = Qubic.play(before, mv).0;
        let (canonical, _) = solvedb_lookup::games::qubic::canonical_with_symmetry(child);
        if !children.iter().any(|(c, _)| *c == canonical) {
            children.push((canonical, Qubic.notation(child)));
        }
    }
    for (child, notation) in children {
        let mut prover = Prover::new(Attacker::X, limits);
        let t = Instant::now();
        let verdict = prover.prove(child);
        let stats = prover.stats();
        println!(
            "{notation}: {:?} {} nodes ({} mid) {:.2?}",
            verdict.map_err(|_| "budget"),
            prover.nodes(),
            stats.mid_calls,
            t.elapsed(),
        );
    }
    Ok(())
}
