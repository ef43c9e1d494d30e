//! The proof behind Qubic's table: the first player's win proved as
//! independent tasks across threads ([`task`](super::task)), the tasks'
//! strategies merged and made smaller, and the records the table keeps
//! ([`records`](super::records)).
//!
//! # Moves and tasks
//!
//! The root (the empty board, or any position with X to move) is proved by
//! one of X's moves, tried in a fixed order (cells on more lines first:
//! the 16 cells on 7 lines before the 48 on 4, then by number), each up to
//! symmetry: a move is proved when every O reply to it is, and each reply
//! (a position with X to move) is a task. The first move whose tasks are
//! all proved is the root's.
//!
//! # Merging
//!
//! The tasks' strategies are merged position by position, the first task's
//! move winning: every position a task's strategy reaches is reached with
//! all of that task's answers below it, and the merged strategy at a
//! position takes the move of a task that holds the whole subtree, so the
//! merged strategy answers every defence too (an induction on the empty
//! cells). The merged strategy is then made smaller ([`smaller_strategy`]:
//! at each strategic position, a winning move after which the rules settle
//! every defence, where there is one), and one more walk from the root
//! through it gives the records and their bounds ([`strategy_records`]).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use solvedb_lookup::games::qubic::strategy::{key, probe_threats};
use solvedb_lookup::games::qubic::{INVERSES, SYMMETRIES, canonical_with_symmetry};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

use super::parts::{TaskMoves, TaskReport, TaskStore};
use super::records::strategy_records;
use super::smaller::{SmallerReport, smaller_strategy};
use super::task::{ProofOptions, TaskResult, TaskSetup, on_threads, prove_tasks, rules_move};

/// A proved strategy and the figures of its proof.
#[derive(Clone, Debug)]
pub struct ProvedStrategy {
    /// The root position (X to move).
    pub root: QubicBoard,
    /// The root's move.
    pub first: u8,
    /// The records of the table: canonical key, move on the canonical
    /// board, bound; sorted by key.
    pub records: Vec<(u128, [u8; 2])>,
    /// The bound at the root: the plies to X's win against the longest
    /// defence, following the strategy.
    pub depth: u8,
    /// X-to-move positions of the strategy up to symmetry (but those X
    /// wins at once), and records among them, by stones on the board.
    pub by_stones: Vec<(u32, u64, u64)>,
    /// The tasks of the first move that was proved, in order.
    pub tasks: Vec<TaskReport>,
    /// First moves tried and given up, with their failing task.
    pub failed_moves: Vec<(u8, QubicBoard)>,
    /// The proof's moves, merged, before the pass that makes the strategy
    /// smaller: canonical key → move on the canonical board.
    pub proved_moves: HashMap<u128, u8>,
    /// The strategy's moves where the rules do not settle the position
    /// (after the pass that makes it smaller): what the records come from.
    pub moves: HashMap<u128, u8>,
    /// What the pass that makes the strategy smaller did
    /// ([`smaller_strategy`]).
    pub smaller: SmallerReport,
    /// Wall time of the proof and extraction.
    pub prove_time: Duration,
    /// Wall time of the merge and the smaller strategy's pass.
    pub smaller_time: Duration,
    /// Wall time of the final walk.
    pub merge_time: Duration,
}

impl ProvedStrategy {
    /// X-to-move positions of the strategy (up to symmetry, X not winning at
    /// once).
    pub fn positions(&self) -> u64 {
        self.by_stones.iter().map(|&(_, p, _)| p).sum()
    }

    /// Nodes over every task.
    pub fn nodes(&self) -> u64 {
        self.tasks.iter().map(|t| t.nodes).sum()
    }
}

/// X's moves from `board` up to symmetry, one cell per class, in the order
/// they are tried: cells on more lines first, then by number.
fn first_moves(board: QubicBoard) -> Vec<u8> {
    let mut seen = HashSet::new();
    let mut moves: Vec<u8> = (0..64u8)
        .filter(|&c| board.empty() >> c & 1 != 0)
        .filter(|&c| {
            seen.insert(
                canonical_with_symmetry(board.with_move(QubicCell::new(c).expect("a cell"))).0,
            )
        })
        .collect();
    moves.sort_by_key(|&c| (std::cmp::Reverse(lines_through(c)), c));
    moves
}

/// Lines through a cell: 7 for the corners and the centre cells, else 4.
pub(super) fn lines_through(cell: u8) -> u32 {
    solvedb_lookup::games::qubic::LINES
        .iter()
        .filter(|&&line| line >> cell & 1 != 0)
        .count() as u32
}

/// Proves that X wins `root` (X to move, not over) and returns the
/// strategy's records and figures. `progress` hears of each task as it
/// ends.
///
/// # Errors
///
/// If no move of X is proved within the options' budget, or a strategy
/// walk meets a position the proof does not answer (a bug).
pub fn prove_strategy(
    root: QubicBoard,
    options: ProofOptions,
    store: Option<&TaskStore>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<ProvedStrategy> {
    let setup = TaskSetup { options, store };
    Ok(prove_strategy_beside(root, setup, &[], setup, progress)?.0)
}

/// [`prove_strategy`] (its tasks as `setup` says), with the tasks `beside`
/// (X-to-move positions, canonical; their labels in progress lines; as
/// `beside_setup` says) proved in the same pool
/// after the first move's own, so that no thread idles while the longest
/// of those runs, and their strategies made smaller in the same pool as
/// the root's; each is tried whether or not another is proved. Returns
/// them in order, `None` for one not proved.
///
/// # Errors
///
/// As [`prove_strategy`], or a task of `beside` that fails with an error.
pub fn prove_strategy_beside(
    root: QubicBoard,
    setup: TaskSetup<'_>,
    beside: &[(String, QubicBoard)],
    beside_setup: TaskSetup<'_>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(ProvedStrategy, Vec<Option<ProvedBeside>>)> {
    let threads = setup.options.threads;
    if !root.x_to_move() || Qubic.terminal_score(root).is_some() {
        bail!("the root must be a position with X to move that is not over");
    }
    let started = Instant::now();
    let mut failed_moves = Vec::new();
    let mut threats = probe_threats();
    let mut beside_results: Vec<Option<TaskResult>> = vec![None; beside.len()];
    // A root that the rules settle needs no proof.
    let settled = rules_move(&mut threats, root);
    let (first, maps, tasks) = if let Some(settled) = settled {
        (settled, Vec::new(), Vec::new())
    } else {
        let mut proved = None;
        for first in first_moves(root) {
            let after = root.with_move(QubicCell::new(first).expect("a cell"));
            let result = prove_move(
                after,
                setup,
                (beside, beside_setup),
                &mut beside_results,
                progress,
            )?;
            match result {
                Ok((maps, tasks)) => {
                    proved = Some((first, maps, tasks));
                    break;
                }
                Err(failed) => {
                    progress(&format!(
                        "move {first} not proved: {}",
                        Qubic.notation(failed)
                    ));
                    failed_moves.push((first, failed));
                }
            }
        }
        proved.ok_or_else(|| anyhow!("no move of X was proved within the budget"))?
    };
    // The tasks beside that no move's pool reached.
    let pending = not_in_yet(&beside_results);
    let positions: Vec<_> = pending
        .iter()
        .map(|&i| (beside[i].1, beside_setup))
        .collect();
    let label = |j: usize| beside[pending[j]].0.clone();
    for (&i, result) in pending
        .iter()
        .zip(prove_tasks(&positions, 0, threads, &label, progress))
    {
        beside_results[i] = Some(result.ok_or_else(|| anyhow!("a task was not tried"))??);
    }
    let beside_results: Vec<TaskResult> = beside_results.into_iter().flatten().collect();
    let prove_time = started.elapsed();
    let started = Instant::now();
    let mut merged: HashMap<u128, u8> = HashMap::new();
    for map in maps {
        for (key, mv) in map {
            merged.entry(key).or_insert(mv);
        }
    }
    let (root_key, symmetry) = canonical_with_symmetry(root);
    if settled.is_none() {
        merged.insert(key(root_key), SYMMETRIES[symmetry][usize::from(first)]);
    }
    // The passes that make the strategies smaller, the root's and each
    // proved task's beside it, in one pool (the root's first: the
    // longest).
    let mut passes: Vec<(Option<usize>, QubicBoard, &HashMap<u128, u8>)> = Vec::new();
    if settled.is_none() {
        passes.push((None, root_key, &merged));
    }
    for (i, result) in beside_results.iter().enumerate() {
        if let Some((moves, _)) = result {
            passes.push((Some(i), beside[i].1, moves));
        }
    }
    let passed = Mutex::new((0..passes.len()).map(|_| None).collect::<Vec<_>>());
    on_threads(passes.len(), threads, |j| {
        let (of, board, moves) = passes[j];
        let pass = Instant::now();
        let result = smaller_strategy(board, moves);
        if let (Some(i), Ok((_, report))) = (of, &result) {
            progress(&format!(
                "{} made smaller: {} strategic positions, {} given another move, {:.1} s",
                beside[i].0,
                report.strategic,
                report.changed,
                pass.elapsed().as_secs_f64()
            ));
        }
        let ok = result.is_ok();
        passed.lock().expect("no pass panics")[j] = Some(result);
        ok
    });
    let order: Vec<Option<usize>> = passes.iter().map(|&(of, _, _)| of).collect();
    drop(passes);
    let mut first = first;
    let mut smaller = SmallerReport::default();
    let mut moves = HashMap::new();
    let mut proved_beside: Vec<Option<ProvedBeside>> = vec![None; beside.len()];
    let mut beside_results = beside_results;
    for (of, result) in order
        .iter()
        .zip(passed.into_inner().expect("no pass panics"))
    {
        let (pass_moves, report) = result.ok_or_else(|| anyhow!("a pass did not run"))??;
        match of {
            None => {
                first = INVERSES[symmetry][usize::from(pass_moves[&key(root_key)])];
                (moves, smaller) = (pass_moves, report);
            }
            Some(i) => {
                let (_, task) = beside_results[*i].take().expect("a proved task");
                proved_beside[*i] = Some(ProvedBeside {
                    task,
                    moves: pass_moves,
                    smaller: report,
                });
            }
        }
    }
    let smaller_time = started.elapsed();
    let started = Instant::now();
    let walked = strategy_records(root, &moves)?;
    let proved = ProvedStrategy {
        root,
        first,
        records: walked.records,
        depth: walked.depth,
        by_stones: walked.by_stones,
        tasks,
        failed_moves,
        proved_moves: merged,
        moves,
        smaller,
        prove_time,
        smaller_time,
        merge_time: started.elapsed(),
    };
    Ok((proved, proved_beside))
}

/// A task proved beside a strategy ([`prove_strategy_beside`]).
#[derive(Clone, Debug)]
pub struct ProvedBeside {
    /// The task's figures.
    pub task: TaskReport,
    /// Its strategy, made smaller ([`smaller_strategy`]): canonical key →
    /// move on the canonical board where the rules do not settle the
    /// position.
    pub moves: HashMap<u128, u8>,
    /// What that pass did.
    pub smaller: SmallerReport,
}

/// Proves (or fails to prove) X's move `first` from `root` on its own:
/// every O reply a task as in [`prove_strategy`], the tasks' figures
/// returned whether or not the move is proved. `Ok(Err(task))`: the first
/// task that was not proved (disproved, or not within the options' node
/// budget); the tasks after it are not run.
///
/// # Errors
///
/// If `root` is not a position with X to move, `first` is not empty, or a
/// task fails (a bug).
#[allow(clippy::type_complexity)]
pub fn prove_first_move(
    root: QubicBoard,
    first: u8,
    options: ProofOptions,
    store: Option<&TaskStore>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<std::result::Result<Vec<TaskReport>, QubicBoard>> {
    if !root.x_to_move() || first >= 64 || root.empty() >> first & 1 == 0 {
        bail!("the root must have X to move and the move an empty cell");
    }
    let after = root.with_move(QubicCell::new(first).expect("a cell"));
    let setup = TaskSetup { options, store };
    let no_beside = (&[][..], setup);
    Ok(prove_move(after, setup, no_beside, &mut [], progress)?.map(|(_, reports)| reports))
}

/// The tasks of X's move (`after`: O to move): each O reply up to
/// symmetry, canonical, with a cell O plays for it; replies on the cells of
/// seven lines first (O's strongest, which are the hardest tasks:
/// docs/qubic.md). `Err(reply)`: a reply after which O has a line or the
/// board is full, so the move is not a win.
pub(super) fn tasks_of(
    after: QubicBoard,
) -> std::result::Result<Vec<(u8, QubicBoard)>, QubicBoard> {
    let mut seen = HashSet::new();
    let mut positions: Vec<(u8, QubicBoard)> = Vec::new();
    for c in 0..64u8 {
        if after.empty() >> c & 1 == 0 {
            continue;
        }
        let reply = after.with_move(QubicCell::new(c).expect("a cell"));
        if solvedb_lookup::games::qubic::has_line(reply.o()) || reply.empty() == 0 {
            return Err(reply);
        }
        let (canonical, _) = canonical_with_symmetry(reply);
        if seen.insert(canonical) {
            positions.push((c, canonical));
        }
    }
    positions.sort_by_key(|&(cell, board)| (std::cmp::Reverse(lines_through(cell)), board));
    Ok(positions)
}

/// Every task of X's first move `first` from `root` (or those of the O
/// replies on the cells `only` lists, where it lists any), each kept or
/// proved as a build's task is (within `options`' node budget a task),
/// without stopping at one that is not proved, easiest first (replies on
/// cells of four lines before those of seven), on `options.threads`
/// threads: each O reply's cell, its task, and the task's report where it
/// was proved. How far a first move's proof gets within a budget
/// (`qubic_first_move CELL --survey`).
#[allow(clippy::type_complexity)]
pub fn survey_first_move(
    root: QubicBoard,
    first: u8,
    only: &[u8],
    options: ProofOptions,
    store: Option<&TaskStore>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Vec<(u8, QubicBoard, Option<TaskReport>)>> {
    if !root.x_to_move() || first >= 64 || root.empty() >> first & 1 == 0 {
        bail!("the root must have X to move and the move an empty cell");
    }
    let after = root.with_move(QubicCell::new(first).expect("a cell"));
    let mut tasks = match tasks_of(after) {
        Ok(tasks) => tasks,
        Err(reply) => bail!("{} wins for O or fills the board", Qubic.notation(reply)),
    };
    tasks.reverse();
    if !only.is_empty() {
        tasks.retain(|(cell, _)| only.contains(cell));
    }
    let count = tasks.len();
    let setup = TaskSetup { options, store };
    let positions: Vec<_> = tasks.iter().map(|&(_, task)| (task, setup)).collect();
    let label = |i: usize| format!("task {}/{count} (O on {})", i + 1, tasks[i].0);
    let results = prove_tasks(&positions, 0, options.threads, &label, progress);
    let mut surveyed = Vec::with_capacity(count);
    for ((cell, task), result) in tasks.into_iter().zip(results) {
        match result {
            Some(Ok(proved)) => surveyed.push((cell, task, proved.map(|(_, report)| report))),
            Some(Err(e)) => return Err(e),
            // Not run: another task failed with an error, returned here.
            None => {}
        }
    }
    if surveyed.len() < count {
        bail!("tasks were skipped without an error");
    }
    Ok(surveyed)
}

/// Proves every O reply to X's move (`after`: O to move), one task each,
/// and in the same pool the tasks of `beside` whose `results` are not in
/// yet (filled in as they end). `Ok(Err(task))`: a task of the move that
/// was not proved.
#[allow(clippy::type_complexity)]
fn prove_move(
    after: QubicBoard,
    setup: TaskSetup<'_>,
    (beside, beside_setup): (&[(String, QubicBoard)], TaskSetup<'_>),
    results: &mut [Option<TaskResult>],
    progress: &(dyn Fn(&str) + Sync),
) -> Result<std::result::Result<(Vec<TaskMoves>, Vec<TaskReport>), QubicBoard>> {
    // Replies up to symmetry; a reply X answers at once is no task. The
    // long tasks start at once on every thread; each task's result does
    // not depend on when it runs.
    let mut positions: Vec<(QubicBoard, TaskSetup<'_>)> = match tasks_of(after) {
        Ok(tasks) => tasks.into_iter().map(|(_, board)| (board, setup)).collect(),
        // O wins, or the board fills: the move is not a win.
        Err(reply) => return Ok(Err(reply)),
    };
    let count = positions.len();
    let pending = not_in_yet(results);
    positions.extend(pending.iter().map(|&i| (beside[i].1, beside_setup)));
    let label = |i: usize| match i.checked_sub(count) {
        None => format!("task {}/{count}", i + 1),
        Some(j) => beside[pending[j]].0.clone(),
    };
    // Until a task of the move is not proved: the move is then not proved.
    let threads = setup.options.threads;
    let mut proved = prove_tasks(&positions, count, threads, &label, progress);
    for (&i, result) in pending.iter().zip(proved.drain(count..)) {
        if let Some(result) = result {
            results[i] = Some(result?);
        }
    }
    let mut maps = Vec::with_capacity(count);
    let mut reports = Vec::with_capacity(count);
    for (i, result) in proved.into_iter().enumerate() {
        match result {
            Some(Ok(Some((map, report)))) => {
                maps.push(map);
                reports.push(report);
            }
            Some(Ok(None)) => return Ok(Err(positions[i].0)),
            Some(Err(e)) => return Err(e),
            // Not run: an earlier task failed.
            None => {}
        }
    }
    if maps.len() < count {
        // Unreachable: a skipped task implies a failed one, returned above.
        bail!("tasks were skipped without a failure");
    }
    Ok(Ok((maps, reports)))
}

/// The indices of the tasks beside whose results are not in yet.
fn not_in_yet(results: &[Option<TaskResult>]) -> Vec<usize> {
    (0..results.len())
        .filter(|&i| results[i].is_none())
        .collect()
}
