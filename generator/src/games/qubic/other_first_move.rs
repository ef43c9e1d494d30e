//! The strategy's other roots: positions after X's other first move (a
//! cell of four lines) and an O reply that `solvedb build qubic` proves
//! won and stores beside the corner's strategy, so that a game opened on
//! a cell of four lines is answered once O has replied on one too.
//!
//! Whether X wins after a first move on a cell of four lines is not known
//! here: of O's 23 replies to X on cell 1 (up to symmetry), the 16 on
//! cells of four lines are proved within 12 stones by the build's own
//! tasks; of the 7 on cells of seven lines, O on 26 is won within 18
//! stones (800 s of one core, beyond the build's time: the build takes it
//! from its certificate, [`certified`](super::certified)) and the other 6
//! are not won within 16 stones, hours of one core each (docs/qubic.md,
//! "The other first move"). The build proves the 16 as
//! tasks in the corner's pool ([`prove`](super::prove); each a
//! [`task`](super::task) with the same settings but a stone schedule from
//! 12, [`ROOT_STONES_AHEAD`]; kept in the same task directory so that a
//! build resumes), makes each strategy smaller
//! ([`smaller`](super::smaller)), and stores their records in the one
//! table.
//!
//! A position two strategies reach gets one move: the corner's strategy
//! first, then the roots in order. Every strategy is closed under its own
//! moves (each of its positions holds its whole subtree), so the merged
//! moves answer every defence from every root, and the corner's records
//! stay what they were. The table's walker ([`walk`](super::walk)) takes
//! the empty board and every record with two stones as its roots and
//! reads every record from them.

use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

use super::certified::Certificate;
use super::parts::TaskReport;
use super::prove::{ProvedStrategy, lines_through, prove_strategy_beside, tasks_of};
use super::records::strategy_records_from;
use super::smaller::SmallerReport;
use super::task::{ProofOptions, TaskSetup};

/// X's other first move: the first cell of four lines by number (every
/// cell of four lines is an image of it).
pub const OTHER_FIRST_MOVE: u8 = 1;

/// The stone limits a root is proved within, as stones beyond it: the
/// corner's tasks' ([`TASK_STONES_AHEAD`](super::task::TASK_STONES_AHEAD))
/// but the first. Half the roots are not won within 10 stones, and that
/// attempt was most of their time; within 12 from the start (`qubic_prove 1 C --mib 3584 --pass-cache 917504
/// --width 4 --narrow-from 6 --threats 2000 --replace-by-work
/// --max-stones 12`, one core each) O on 29 took 52.5 s against 275 s
/// with the attempt within 10 first, O on 4 25.3 s against 161 s, O on 2
/// 15.8 s against 54 s, and O on 7, won within 10, 24.3 s against 44 s.
pub const ROOT_STONES_AHEAD: [u32; 5] = [10, 12, 14, 18, 22];

/// The options of the roots' tasks: `options` with
/// [`ROOT_STONES_AHEAD`].
pub fn root_options(options: ProofOptions) -> ProofOptions {
    ProofOptions {
        stones_ahead: &ROOT_STONES_AHEAD,
        ..options
    }
}

/// The roots the build proves after [`OTHER_FIRST_MOVE`]: each O reply
/// on a cell of four lines, up to symmetry (the cell O plays, the
/// canonical position), in the order of the corner's tasks.
pub fn other_roots() -> Vec<(u8, QubicBoard)> {
    let after = Qubic
        .start()
        .with_move(QubicCell::new(OTHER_FIRST_MOVE).expect("a cell"));
    let mut roots = tasks_of(after).expect("no single O reply wins or fills the board");
    roots.retain(|&(cell, _)| lines_through(cell) == 4);
    roots
}

/// What adding the roots did.
#[derive(Clone, Debug, Default)]
pub struct AddedRoots {
    /// Each root proved: the O reply's cell as the roots listed it, the
    /// task's figures (with its canonical position) and the plies to X's
    /// win from it against the longest defence.
    pub proved: Vec<(u8, TaskReport, u8)>,
    /// Each root not proved within the options (its cell and canonical
    /// position).
    pub not_proved: Vec<(u8, QubicBoard)>,
    /// Each root taken from its certificate ([`certified`](super::certified)):
    /// the O reply's cell, the figures of the proof made beforehand and
    /// the plies to X's win from it against the longest defence.
    pub certified: Vec<(u8, TaskReport, u8)>,
    /// The pass that made the roots' strategies smaller, over all of them.
    pub smaller: SmallerReport,
    /// Records the table gains, and X-to-move positions (up to symmetry)
    /// the roots add to the corner's.
    pub records: u64,
    pub positions: u64,
    /// Wall time of the proofs and of the smaller strategies (each the
    /// root's and the roots' together, in one pool), and of the walk that
    /// gives the records.
    pub prove_time: Duration,
    pub smaller_time: Duration,
    pub records_time: Duration,
}

/// Proves `root` as [`prove_strategy`](super::prove::prove_strategy) does
/// (its tasks as `setup` says) and, in the same pool of tasks, each of
/// `roots` (X to move, taken on its canonical board; the cell is only for
/// the report; as `roots_setup` says), then makes each
/// proved root's strategy smaller and adds its records to the strategy's
/// (its `records`, `by_stones` and `moves`; `root`'s own records are
/// checked unchanged). A root not proved is left out. Then the roots of
/// `certified`, proved beforehand, are added as they are, after the
/// proved ones, and walked with them.
///
/// # Errors
///
/// As `prove_strategy`; also if a task or a walk fails (a bug: a proved
/// task's strategy answers every defence; a certificate whose strategy
/// does not is refused here), or if a certificate's root is `root` or one
/// of `roots`.
pub fn prove_with_roots(
    root: QubicBoard,
    setup: TaskSetup<'_>,
    roots: &[(u8, QubicBoard)],
    roots_setup: TaskSetup<'_>,
    certified: &[Certificate],
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(ProvedStrategy, AddedRoots)> {
    // Tasks are proved and kept on their canonical boards.
    let roots: Vec<(u8, QubicBoard)> = roots
        .iter()
        .map(|&(cell, root)| (cell, Qubic.canonical(root)))
        .collect();
    let count = roots.len();
    let beside: Vec<(String, QubicBoard)> = roots
        .iter()
        .enumerate()
        .map(|(i, &(cell, root))| (format!("root {}/{count} (O on {cell})", i + 1), root))
        .collect();
    let (mut proved, results) = prove_strategy_beside(root, setup, &beside, roots_setup, progress)?;
    let mut added = AddedRoots {
        prove_time: proved.prove_time,
        smaller_time: proved.smaller_time,
        ..AddedRoots::default()
    };
    let mut won = Vec::new();
    // A position two strategies reach takes the first one's move.
    let mut merged = proved.moves.clone();
    for (&(cell, root), result) in roots.iter().zip(results) {
        let Some(beside) = result else {
            added.not_proved.push((cell, root));
            continue;
        };
        for (&position, &mv) in &beside.moves {
            merged.entry(position).or_insert(mv);
        }
        added.smaller += beside.smaller;
        won.push((cell, root, beside.task));
    }
    let proved_roots = won.len();
    for certificate in certified {
        let position = certificate.report.position;
        if position == Qubic.canonical(proved.root) || roots.iter().any(|r| r.1 == position) {
            return Err(anyhow!(
                "the certificate of O on {} is for a root the build proves: {}",
                certificate.cell,
                Qubic.notation(position)
            ));
        }
        for (&position, &mv) in &certificate.moves {
            merged.entry(position).or_insert(mv);
        }
        won.push((certificate.cell, position, certificate.report.clone()));
    }

    let started = Instant::now();
    let mut starts = vec![proved.root];
    starts.extend(won.iter().map(|w| w.1));
    let walked = strategy_records_from(&starts, &merged, setup.options.threads)?;
    if let Some(changed) = proved
        .records
        .iter()
        .find(|record| walked.records.binary_search(record).is_err())
    {
        return Err(anyhow!(
            "the roots changed the record of {}",
            Qubic.notation(solvedb_lookup::games::qubic::strategy::board_of_key(
                changed.0
            ))
        ));
    }
    let positions = |by_stones: &[(u32, u64, u64)]| by_stones.iter().map(|r| r.1).sum::<u64>();
    added.records = (walked.records.len() - proved.records.len()) as u64;
    added.positions = positions(&walked.by_stones) - positions(&proved.by_stones);
    for (i, ((cell, _, report), &depth)) in
        won.into_iter().zip(&walked.root_depths[1..]).enumerate()
    {
        if i < proved_roots {
            added.proved.push((cell, report, depth));
        } else {
            added.certified.push((cell, report, depth));
        }
    }
    proved.records = walked.records;
    proved.by_stones = walked.by_stones;
    proved.moves = merged;
    added.records_time = started.elapsed();
    Ok((proved, added))
}
