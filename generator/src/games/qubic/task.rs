//! One task of Qubic's proof: an X-to-move position proved by a prover of
//! its own ([`Prover`]) with a fixed memory and budget ([`ProofOptions`]),
//! so that its result does not depend on which thread runs it or when;
//! kept on disk as it ends ([`TaskStore`]) and taken from there by a build
//! that resumes; and a pool that runs many on a few threads
//! (`prove_tasks`).
//!
//! # Stone limits
//!
//! A task is proved within growing stone limits ([`TASK_STONES_AHEAD`]),
//! each attempt with a fresh prover, until one finds a proof; the node
//! budget covers every attempt.
//!
//! # Extraction
//!
//! A task's strategy is read off its proof by walking it from the task's
//! position against every O reply: an X-to-move position that X wins at
//! once ends the walk; one that the probe's threat search settles
//! ([`threat_move`]) follows the line's move; any other takes the prover's
//! winning move ([`Prover::winning_move`], from its table or proved again)
//! and is remembered. A walk that meets a position the prover cannot prove
//! fails the build (it would be a bug).

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Result, anyhow};
use solvedb_lookup::games::qubic::strategy::{key, probe_threats, threat_move};
use solvedb_lookup::games::qubic::threats::ThreatSearch;
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell, Stop};

use super::parts::{Kept, Settings, TaskMoves, TaskReport, TaskStore};
use super::prover::{Attacker, Deepened, Prover, ProverLimits, REVISION, Verdict, prove_deepening};
use super::replies::replies;

/// How the proof runs. Only `threads` may change without changing the
/// table: a task's result depends on its memory and budget.
#[derive(Copy, Clone, Debug)]
pub struct ProofOptions {
    /// Threads proving tasks at once.
    pub threads: usize,
    /// The proof table of each task, in bytes.
    pub task_table_bytes: u64,
    /// The most nodes a task may take before its move counts as failed.
    pub task_nodes: Option<u64>,
    /// The stone limits a task is proved within in turn, as stones beyond
    /// its position ([`TASK_STONES_AHEAD`] by default).
    pub stones_ahead: &'static [u32],
}

/// The proof table of each task of `solvedb build qubic`: 3.5 GiB, so
/// that the two tasks a 2-core machine proves at once stay within the
/// 8 GiB the build may use (a task's peak is its table, its pass cache and
/// the rest of its prover). More memory buys few nodes: the hard tasks
/// are bound by their search, not their table (docs/qubic.md gives the
/// figures).
pub const TASK_TABLE_BYTES: u64 = 3584 << 20;

/// The most nodes (proof and threat search) a task of `solvedb build
/// qubic` may take before its first move counts as failed: several times
/// what the hardest task needs, so a build that cannot finish says so
/// (after hours) instead of running on.
pub const TASK_NODES: u64 = 40_000_000_000;

/// The attacker's moves an OR node of a task searches at first
/// ([`ProverLimits::width`]): a few of the most promising moves prove the
/// hard tasks where every move at once does not within the budget, and 4
/// does better than 2 or 8 (docs/qubic.md).
pub const TASK_WIDTH: usize = 4;

/// The fewest stones at which a task's OR nodes are narrowed to
/// [`TASK_WIDTH`] ([`ProverLimits::narrow_from`]): X's first two moves of a
/// task (2 and 4 stones) search every move, where a move left out costs
/// most and nodes are few.
pub const TASK_NARROW_FROM: u32 = 6;

/// The node budget of each threat search of a task's prover
/// ([`ProverLimits::threat_budget`]; the probe's own search keeps
/// [`THREAT_BUDGET`](solvedb_lookup::games::qubic::threats::THREAT_BUDGET)):
/// a smaller budget fails sooner where no line exists, and the proof search
/// finds the longer lines itself; below it, too many lines are missed
/// (docs/qubic.md).
pub const TASK_THREAT_BUDGET: u64 = 2_000;

/// Whether a task's proof table replaces by work alone
/// ([`ProverLimits::replace_by_work`]): where a task's table fills, the
/// defences proved at once by a line's zone (millions of one-node entries)
/// do not push out the open subtrees; where the table does not fill
/// nothing changes.
pub const TASK_REPLACE_BY_WORK: bool = true;

/// The stone limits ([`ProverLimits::max_stones`]) a task's proof tries in
/// turn, each with a prover of its own, before one without a limit, as
/// stones beyond the task's position (which has two on the empty board's
/// tasks: limits of 10, 12, 14, 16, 20 and 24 stones). Within a limit, a
/// position with X to move, that many stones or more and no threat line
/// counts as not won, so every line of the search ends there and a
/// narrowed node whose moves all fail takes more in. A proof within a
/// limit is a proof; a task disproved within one is tried with the next.
/// This iterative deepening on the stones is what proves the hardest tasks
/// in seconds rather than hours: their wins are short, and a search
/// without a limit spends itself on long lines first.
pub const TASK_STONES_AHEAD: [u32; 6] = [8, 10, 12, 14, 18, 22];

/// Bytes of a task's proof table per entry of its cache of pass lines
/// ([`ProverLimits::pass_cache`]): 3.5 GiB give 917,504, which the prover
/// rounds up to 2²⁰ entries (56 MiB).
const PASS_CACHE_PER_TABLE_BYTE: u64 = 4096;

impl ProofOptions {
    /// What a task's result depends on besides its position: the limits
    /// a task's prover is given.
    pub fn settings(&self) -> Settings {
        let limits = task_limits(self);
        Settings {
            prover: REVISION,
            table_bytes: limits.table_bytes,
            nodes: limits.nodes,
            width: limits.width,
            narrow_from: limits.narrow_from,
            threat_budget: limits.threat_budget,
            replace_by_work: limits.replace_by_work,
            pass_cache: limits.pass_cache,
            stone_limits: self.stones_ahead.to_vec(),
        }
    }
}

impl Default for ProofOptions {
    fn default() -> ProofOptions {
        ProofOptions {
            threads: 2,
            task_table_bytes: TASK_TABLE_BYTES,
            task_nodes: Some(TASK_NODES),
            stones_ahead: &TASK_STONES_AHEAD,
        }
    }
}

/// The move of a position the rules settle: a line completed at once or a
/// threat line.
pub(super) fn rules_move(threats: &mut ThreatSearch, board: QubicBoard) -> Option<u8> {
    let win = solvedb_lookup::games::qubic::threats(board.x(), board.empty());
    if win != 0 {
        return Some(win.trailing_zeros() as u8);
    }
    threat_move(threats, board).map(|m| m.cell.index())
}

/// How a group of tasks is proved: the options, and where the proved
/// ones are kept (a store made with the options' settings).
#[derive(Copy, Clone, Debug)]
pub struct TaskSetup<'s> {
    pub options: ProofOptions,
    pub store: Option<&'s TaskStore>,
}

/// A task's result: its strategy and figures where it was proved, `None`
/// where it was not (disproved, or not within the node budget).
pub type TaskResult = Option<(TaskMoves, TaskReport)>;

/// Each of `tasks` kept or proved as a task ([`kept_or_proved`]) on
/// `threads` threads, taken in order; `label(i)` names task `i` in the
/// progress lines. A task that fails with an error, or one of the first
/// `must_prove` that is not proved, stops the tasks after it from
/// starting: theirs are `None`.
pub(super) fn prove_tasks(
    tasks: &[(QubicBoard, TaskSetup<'_>)],
    must_prove: usize,
    threads: usize,
    label: &(dyn Fn(usize) -> String + Sync),
    progress: &(dyn Fn(&str) + Sync),
) -> Vec<Option<Result<TaskResult>>> {
    let results = Mutex::new((0..tasks.len()).map(|_| None).collect::<Vec<_>>());
    on_threads(tasks.len(), threads, |i| {
        let (position, setup) = tasks[i];
        let result = kept_or_proved(position, setup.options, setup.store, &|line| {
            progress(&format!("{} {line}", label(i)))
        });
        let go_on = match &result {
            Ok(proved) => proved.is_some() || i >= must_prove,
            Err(_) => false,
        };
        results.lock().expect("no task panics")[i] = Some(result);
        go_on
    });
    results.into_inner().expect("no task panics")
}

/// Runs `run` on the indices `0..count` on `threads` threads, each thread
/// taking the next index in turn, until every index is taken or a run
/// returns false (the runs under way end; no index starts after).
pub(super) fn on_threads(count: usize, threads: usize, run: impl Fn(usize) -> bool + Sync) {
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count || stopped.load(Ordering::Relaxed) {
                        break;
                    }
                    if !run(i) {
                        stopped.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
}

/// A task's result from `store` where it keeps one, else proved (and kept
/// there); `progress` hears what happened.
fn kept_or_proved(
    position: QubicBoard,
    options: ProofOptions,
    store: Option<&TaskStore>,
    progress: &dyn Fn(&str),
) -> Result<Option<(TaskMoves, TaskReport)>> {
    if let Some(store) = store {
        match store.load(position) {
            Ok(Some(Kept::Proved(moves, report))) => {
                progress(&format!(
                    "taken from its file: {} nodes, {:.1} s when proved, {} strategy moves",
                    report.nodes,
                    report.prove.as_secs_f64(),
                    report.moves
                ));
                return Ok(Some((moves, report)));
            }
            Ok(Some(Kept::NotProved)) => {
                progress("taken from its file: not proved with these settings");
                return Ok(None);
            }
            Ok(None) => {}
            Err(e) => progress(&format!("proved again: {e:#}")),
        }
    }
    progress(&format!("started: {}", Qubic.notation(position)));
    let result = run_task(position, options, progress)?;
    match &result {
        Some((moves, report)) => {
            progress(&format!(
                "proved{}: {} nodes, {:.1} s, {} strategy moves",
                within(report.stone_limit),
                report.nodes,
                report.prove.as_secs_f64(),
                report.moves
            ));
            if let Some(store) = store {
                // The proof goes on without its file; a resumed build
                // proves the task again.
                if let Err(e) = store.save(moves, report) {
                    progress(&format!("not kept: {e:#}"));
                }
            }
        }
        None => {
            progress(&format!(
                "not proved: disproved, or not within {} nodes",
                options
                    .task_nodes
                    .map_or("unlimited".into(), |n| n.to_string())
            ));
            if let Some(store) = store {
                if let Err(e) = store.save_not_proved(position) {
                    progress(&format!("not kept: {e:#}"));
                }
            }
        }
    }
    Ok(result)
}

/// " within N stones" for a proof within a stone limit, else nothing.
pub fn within(stone_limit: Option<u32>) -> String {
    stone_limit.map_or(String::new(), |l| format!(" within {l} stones"))
}

/// The limits of a task's prover.
fn task_limits(options: &ProofOptions) -> ProverLimits {
    ProverLimits {
        table_bytes: options.task_table_bytes,
        nodes: options.task_nodes,
        width: TASK_WIDTH,
        narrow_from: TASK_NARROW_FROM,
        threat_budget: TASK_THREAT_BUDGET,
        pass_cache: (options.task_table_bytes / PASS_CACHE_PER_TABLE_BYTE) as usize,
        replace_by_work: TASK_REPLACE_BY_WORK,
        ..ProverLimits::default()
    }
}

/// Proves one task and extracts its strategy; `None` if it is not proved
/// within the options. The task is proved within each limit of the
/// options' `stones_ahead` in turn, then without a limit, until a proof is
/// found; the node budget covers every attempt. `progress` hears each
/// attempt that ends without a proof (a long task's only sign of life).
fn run_task(
    position: QubicBoard,
    options: ProofOptions,
    progress: &dyn Fn(&str),
) -> Result<Option<(TaskMoves, TaskReport)>> {
    let started = Instant::now();
    let Deepened {
        verdict,
        mut prover,
        stone_limit,
        nodes: spent,
    } = prove_deepening(
        position,
        Attacker::X,
        task_limits(&options),
        options.stones_ahead,
        None,
        &Stop::default(),
        |limit, spent| {
            progress(&format!(
                "not won{}: {} nodes, {:.1} s so far",
                within(Some(limit)),
                spent,
                started.elapsed().as_secs_f64()
            ))
        },
    );
    match verdict {
        Ok(Verdict::Proved) => {}
        Ok(Verdict::Disproved) | Err(solvedb_lookup::Error::BudgetExhausted { .. }) => {
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    }
    let proved = started.elapsed();
    let moves = extract(&mut prover, position)?;
    Ok(Some((
        moves.clone(),
        TaskReport {
            position,
            stats: prover.stats(),
            nodes: spent,
            prove: proved,
            extract: started.elapsed() - proved,
            moves: moves.len(),
            stone_limit,
        },
    )))
}

/// The proof table of the prover that settles, without a stone limit, the
/// few positions of a task's strategy that its proof within a limit did
/// not store (see [`extract`]).
const BEYOND_TABLE_BYTES: u64 = 256 << 20;

/// Walks a task's proof from `root` against every O reply (see the
/// [module documentation](self)), returning the positions that took the
/// prover's move.
fn extract(prover: &mut Prover, root: QubicBoard) -> Result<TaskMoves> {
    let mut threats = probe_threats();
    let mut moves = TaskMoves::new();
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    // Positions a proof within a stone limit settled without storing them
    // (inside a threat line found with a hint) and that neither the probe's
    // threat search nor the proof's table answers are proved again by a
    // prover without the limit, made when first needed.
    let mut beyond: Option<Prover> = None;
    while let Some(board) = stack.pop() {
        if !seen.insert(board) {
            continue;
        }
        let mv = match rules_move(&mut threats, board) {
            Some(mv) => mv,
            None => {
                let mut mv = prover.winning_move(board)?;
                if mv.is_none() && prover.limits().max_stones != u32::MAX {
                    let beyond = beyond.get_or_insert_with(|| {
                        Prover::new(
                            Attacker::X,
                            ProverLimits {
                                table_bytes: BEYOND_TABLE_BYTES,
                                max_stones: u32::MAX,
                                ..prover.limits()
                            },
                        )
                    });
                    mv = beyond.winning_move(board)?;
                }
                let mv = mv.ok_or_else(|| anyhow!("{} is not proved", Qubic.notation(board)))?;
                moves.insert(key(board), mv);
                mv
            }
        };
        let after = board.with_move(QubicCell::new(mv).expect("a cell"));
        if solvedb_lookup::games::qubic::has_line(after.x()) {
            continue;
        }
        for reply in replies(after)? {
            stack.push(reply);
        }
    }
    Ok(moves)
}
