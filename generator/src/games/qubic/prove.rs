//! The proof behind Qubic's table: the first player's win proved by the
//! prover ([`Prover`]) split into independent tasks across threads, each
//! task's strategy extracted from its proof, the strategies merged, and the
//! records the table keeps, with their bounds.
//!
//! # Tasks
//!
//! The root (the empty board, or any position with X to move) is proved by
//! one of X's moves, tried in a fixed order (cells on more lines first:
//! the 16 cells on 7 lines before the 48 on 4, then by number), each up to
//! symmetry: a move is proved when every O reply to it is, and each reply
//! (a position with X to move) is a task, proved by a prover of its own
//! with a fixed memory, so the result of a task does not depend on which
//! thread runs it or when. The first move whose tasks are all proved is the
//! root's. A task is proved within growing stone limits
//! ([`TASK_STONES_AHEAD`]), each attempt with a fresh prover, until one
//! finds a proof.
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
//!
//! # Merging and bounds
//!
//! The tasks' strategies are merged position by position, the first task's
//! move winning: every position a task's strategy reaches is reached with
//! all of that task's answers below it, and the merged strategy at a
//! position takes the move of a task that holds the whole subtree, so the
//! merged strategy answers every defence too (an induction on the empty
//! cells). The merged strategy is then made smaller ([`smaller_strategy`]:
//! at each strategic position, a winning move after which the rules settle
//! every defence, where there is one). One more walk from the root, through
//! that strategy ([`strategy_records`]), gives
//! every position its bound as a probe computes it (1 for a line completed
//! at once, a threat line's plies, 1 + the slowest O reply otherwise) and
//! keeps a record for each position the rules do not settle, and for a
//! settled one where the walk needs more plies than the threat line says
//! (the record, read first, then gives the true bound).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use solvedb_lookup::games::qubic::strategy::{Settled, board_of_key, probe_threats, threat_move};
use solvedb_lookup::games::qubic::threats::ThreatSearch;
use solvedb_lookup::games::qubic::{INVERSES, SYMMETRIES, canonical_with_symmetry};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell, Stop};

use super::parts::{Kept, Settings, TaskStore};
pub use super::parts::{TaskMoves, TaskReport};
use super::prover::{Attacker, Deepened, Prover, ProverLimits, REVISION, Verdict, prove_deepening};
use super::replies::replies;
use super::smaller::{SmallerReport, smaller_strategy};

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
    let pending: Vec<usize> = (0..beside.len())
        .filter(|&i| beside_results[i].is_none())
        .collect();
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

/// The records of a strategy and its figures ([`strategy_records`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyRecords {
    /// Canonical key, move on the canonical board, bound; sorted by key.
    pub records: Vec<(u128, [u8; 2])>,
    /// The bound at the root (the first root).
    pub depth: u8,
    /// The bound at each root, in order ([`strategy_records_from`]).
    pub root_depths: Vec<u8>,
    /// X-to-move positions up to symmetry (but those X wins at once), and
    /// records among them, by stones on the board.
    pub by_stones: Vec<(u32, u64, u64)>,
}

/// The table's records of the strategy `moves` (canonical key → move on
/// the canonical board, at the positions the rules do not settle) from
/// `root`: one walk through it gives every position its bound as a probe
/// computes it, keeping a record where the rules do not settle the
/// position or the walk needs more plies than its threat line says.
///
/// # Errors
///
/// If a position the walk reaches is not answered by `moves` or the rules.
pub fn strategy_records(root: QubicBoard, moves: &HashMap<u128, u8>) -> Result<StrategyRecords> {
    strategy_records_from(&[root], moves, 1)
}

/// [`strategy_records`] from each of `roots`, on up to `threads` threads
/// (each root walked by one; a position two roots reach is counted once):
/// the records of a strategy with more than one root, the bound of each.
/// Every position's record and bound are a function of the position and
/// `moves` alone, so the result does not depend on the threads.
///
/// # Errors
///
/// As [`strategy_records`]; also if `roots` is empty.
pub fn strategy_records_from(
    roots: &[QubicBoard],
    moves: &HashMap<u128, u8>,
    threads: usize,
) -> Result<StrategyRecords> {
    if roots.is_empty() {
        bail!("no root to walk from");
    }
    let next = AtomicUsize::new(0);
    let walk_some = || -> Result<(Bounds<'_>, Vec<(usize, u8)>)> {
        let mut walk = Bounds {
            moves,
            threats: probe_threats(),
            bounds: HashMap::new(),
            records: BTreeMap::new(),
        };
        let mut depths = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&root) = roots.get(i) else {
                return Ok((walk, depths));
            };
            let (root_key, _) = canonical_with_symmetry(root);
            let depth = if solvedb_lookup::games::qubic::threats(root.x(), root.empty()) != 0 {
                1
            } else {
                walk.x_bound(root_key)?
            };
            depths.push((i, depth));
        }
    };
    let walks: Vec<Result<_>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, roots.len()))
            .map(|_| scope.spawn(walk_some))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no walk panics"))
            .collect()
    });
    let mut root_depths = vec![0; roots.len()];
    let mut bounds: HashMap<u128, u8> = HashMap::new();
    let mut records: BTreeMap<u128, [u8; 2]> = BTreeMap::new();
    for walk in walks {
        let (walk, depths) = walk?;
        for (i, depth) in depths {
            root_depths[i] = depth;
        }
        bounds.extend(walk.bounds);
        for (position, record) in walk.records {
            if *records.entry(position).or_insert(record) != record {
                bail!(
                    "two walks disagree at {}",
                    Qubic.notation(board_of_key(position))
                );
            }
        }
    }
    let mut by_stones: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for position in bounds.keys() {
        by_stones.entry(position.count_ones()).or_default().0 += 1;
    }
    for position in records.keys() {
        by_stones.entry(position.count_ones()).or_default().1 += 1;
    }
    Ok(StrategyRecords {
        records: records.into_iter().collect(),
        depth: root_depths[0],
        root_depths,
        by_stones: by_stones
            .into_iter()
            .map(|(stones, (positions, stored))| (stones, positions, stored))
            .collect(),
    })
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

/// The move of a position the rules settle: a line completed at once or a
/// threat line.
fn rules_move(threats: &mut ThreatSearch, board: QubicBoard) -> Option<u8> {
    let win = solvedb_lookup::games::qubic::threats(board.x(), board.empty());
    if win != 0 {
        return Some(win.trailing_zeros() as u8);
    }
    threat_move(threats, board).map(|m| m.cell.index())
}

/// The key of a canonical board.
pub(super) fn key(board: QubicBoard) -> u128 {
    solvedb_lookup::games::qubic::strategy::key(board)
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
fn prove_tasks(
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
    let pending: Vec<usize> = (0..beside.len())
        .filter(|&i| results[i].is_none())
        .collect();
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

/// The final walk through the merged strategy.
struct Bounds<'m> {
    moves: &'m HashMap<u128, u8>,
    threats: ThreatSearch,
    /// Bounds of canonical X-to-move positions, as a probe reports them.
    bounds: HashMap<u128, u8>,
    records: BTreeMap<u128, [u8; 2]>,
}

impl Bounds<'_> {
    /// The bound a probe reports for a canonical X-to-move position that
    /// X does not win at once, keeping its record where it needs one.
    fn x_bound(&mut self, board: QubicBoard) -> Result<u8> {
        let k = key(board);
        if let Some(&bound) = self.bounds.get(&k) {
            return Ok(bound);
        }
        let line = threat_move(&mut self.threats, board);
        let (mv, line_plies) = match (self.moves.get(&k), line) {
            (Some(&mv), _) => (mv, None),
            (None, Some(line)) => (line.cell.index(), Some(line.plies)),
            (None, None) => bail!("{} is not answered by the strategy", Qubic.notation(board)),
        };
        debug_assert!(line.is_none_or(|l| l.settled == Settled::ThreatLine));
        let after = board.with_move(QubicCell::new(mv).expect("a cell"));
        let walked = if solvedb_lookup::games::qubic::has_line(after.x()) {
            1
        } else {
            let mut longest = 1;
            for reply in replies(after)? {
                longest = longest.max(self.x_bound(reply)?);
            }
            // X's move, O's reply, then the reply's bound.
            2 + longest
        };
        let stored = match line_plies {
            Some(plies) if walked <= plies => None,
            _ => Some(walked),
        };
        let bound = stored.unwrap_or_else(|| line_plies.expect("a line"));
        if let Some(plies) = stored {
            self.records.insert(k, [mv, plies]);
        }
        self.bounds.insert(k, bound);
        Ok(bound)
    }
}
