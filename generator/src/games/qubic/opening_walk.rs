//! The opening table walked by `solvedb verify` with code of its own
//! ([`walk_opening`]): the builder's enumeration and settling are not used.
//!
//! The positions come from the strategy walk ([`walk`](super::walk), which
//! proved every position it reached won with rules of its own): from the
//! empty board, each X-to-move position with at most the build's stones
//! (the library's `OPENING_STONES`) follows the walk's move, and every O reply
//! leads to the next. At each of them:
//!
//! - every X move either completes a line (by the walk's own lines) or
//!   leads to a position the table holds;
//! - every position after an O reply (the strategy's X-to-move positions)
//!   is held as a win of X by the strategy, with a bound no shorter than
//!   the walk's plies against the longest defence.
//!
//! Each record is checked by what it claims:
//!
//! - **by the strategy**: every O reply leads to a position the walk
//!   proved won (or one X wins at once by the walk's lines), and the bound
//!   is at least one more than the slowest of them;
//! - **by a proof**: proved again by the df-pn prover searching as the
//!   build's ([`OpeningBudget::prove`]) but with the walk's positions as
//!   leaves (not the table's records), within
//!   [`RECHECK_FACTOR`] times the build's node budget;
//! - **O wins** and **X does not win**: proved again by the prover (for O,
//!   and for X without leaves) within the same budget;
//! - **not settled**: nothing is claimed.
//!
//! Every record must be read: a record no position leads to is bytes
//! nobody checked.

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use solvedb_lookup::games::qubic::opening::{OpeningValue, Settlement, decode_opening};
use solvedb_lookup::games::qubic::prover::Leaves;
use solvedb_lookup::games::qubic::strategy::{board_of_key, key};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell, Table};

use super::opening::{BUILD_BUDGET, OpeningBudget};
use super::prover::{Attacker, Verdict};
use super::walk::{Walked, walk_lines};

/// The re-check's node budget, in multiples of the build's.
pub const RECHECK_FACTOR: u64 = 10;

/// What the walk of an opening table found.
#[derive(Clone, Debug, Default)]
pub struct OpeningReport {
    /// X-to-move positions of the strategy walked (up to symmetry).
    pub positions: u64,
    /// Records read, by settlement (in [`Settlement::ALL`]'s order).
    pub records: [u64; 5],
}

impl std::fmt::Display for OpeningReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} positions of the strategy with every X move held; records checked: ",
            self.positions
        )?;
        let parts: Vec<String> = Settlement::ALL
            .iter()
            .map(|s| format!("{} {}", self.records[*s as usize], s.as_str()))
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// The walk's positions as leaves of a proof: each is proved won for X.
struct WalkedWins<'w>(&'w Walked);

impl Leaves for WalkedWins<'_> {
    fn x_wins(&self, canonical: QubicBoard) -> bool {
        self.0.contains_key(&key(canonical))
    }
}

/// Whether `stones` hold a line, by the walk's lines.
fn has_line(lines: &[u64], stones: u64) -> bool {
    lines.iter().any(|&line| line & !stones == 0)
}

/// Whether the side with `stones` completes a line at once against
/// `others`, by the walk's lines.
fn wins_at_once(lines: &[u64], stones: u64, others: u64) -> bool {
    lines
        .iter()
        .any(|&line| line & others == 0 && (line & !stones).count_ones() == 1)
}

fn cells(mask: u64) -> impl Iterator<Item = QubicCell> {
    (0..64u8)
        .filter(move |&c| mask >> c & 1 != 0)
        .map(|c| QubicCell::new(c).expect("a cell"))
}

/// Walks the opening table `opening` of the strategy the walk `walked`
/// covers from `root` (see the [module documentation](self)): its
/// X-to-move positions with at most `budget.stones` stones, proofs within
/// `budget.nodes` times [`RECHECK_FACTOR`].
///
/// # Errors
///
/// The first record that is missing, corrupt, or whose claim does not
/// hold, or a record no position leads to.
pub fn walk_opening(
    opening: &Table<Vec<u8>>,
    walked: &Walked,
    root: QubicBoard,
    budget: OpeningBudget,
) -> Result<OpeningReport> {
    let root = Qubic.canonical(root);
    let lines = walk_lines();
    let mut report = OpeningReport::default();
    // The strategy's X-to-move positions up to the opening's stones.
    let mut positions = BTreeSet::new();
    let mut level = vec![root];
    while let Some(board) = level.pop() {
        if !positions.insert(key(board)) {
            continue;
        }
        if board.stones() + 2 > budget.stones || wins_at_once(&lines, board.x(), board.o()) {
            continue;
        }
        let Some(&(_, cell)) = walked.get(&key(board)) else {
            bail!("the strategy walk did not reach {}", Qubic.notation(board));
        };
        let after = board.with_move(QubicCell::new(cell).context("a cell")?);
        for reply in cells(after.empty()) {
            level.push(Qubic.canonical(after.with_move(reply)));
        }
    }
    report.positions = positions.len() as u64;
    // The positions the table must hold: X-to-move ones by the strategy
    // (all but the root), O-to-move ones after every X move.
    let mut needed: HashSet<u128> = HashSet::new();
    for &position in &positions {
        let board = board_of_key(position);
        if position != key(root) {
            needed.insert(position);
        }
        for cell in cells(board.empty()) {
            let after = board.with_move(cell);
            if !has_line(&lines, after.x()) {
                needed.insert(key(Qubic.canonical(after)));
            }
        }
    }
    let stored = opening.header().stored;
    if needed.len() as u64 != stored {
        bail!(
            "the opening table holds {stored} records, its positions lead to {}",
            needed.len()
        );
    }
    let counts: [AtomicU64; 5] = Default::default();
    (0..stored)
        .into_par_iter()
        .try_for_each(|i| -> Result<()> {
            let (k, entry) = opening.wide_record(i)?;
            let board = board_of_key(k);
            if !needed.contains(&k) {
                bail!("record {i} is no position one move from the strategy's");
            }
            let value = decode_opening(board, entry)?;
            check(&lines, walked, budget, board, value)
                .with_context(|| format!("the opening record of {}", Qubic.notation(board)))?;
            counts[value.settled as usize].fetch_add(1, Ordering::Relaxed);
            Ok(())
        })?;
    report.records = counts.map(AtomicU64::into_inner);
    Ok(report)
}

/// Checks one record's claim (see the [module documentation](self)).
fn check(
    lines: &[u64],
    walked: &Walked,
    budget: OpeningBudget,
    board: QubicBoard,
    value: OpeningValue,
) -> Result<()> {
    if board.x_to_move() {
        // A position of the strategy: the walk's plies.
        let depth = if wins_at_once(lines, board.x(), board.o()) {
            1
        } else {
            match walked.get(&key(board)) {
                Some(&(depth, _)) => depth,
                None => bail!("not a position of the strategy"),
            }
        };
        if value.settled != Settlement::Strategy || value.plies < depth {
            bail!(
                "claims {} in {} plies; the strategy wins in {depth}",
                value.settled.as_str(),
                value.plies
            );
        }
        return Ok(());
    }
    let proved = |attacker: Attacker, leaves: bool| -> Option<Verdict> {
        let wins = WalkedWins(walked);
        let leaves = leaves.then_some(&wins as &dyn Leaves);
        budget
            .prove(board, attacker, leaves, budget.nodes * RECHECK_FACTOR)
            .ok()
    };
    match value.settled {
        Settlement::Unsettled => Ok(()),
        Settlement::Strategy => {
            let mut longest = 0;
            for reply in cells(board.empty()) {
                let next = board.with_move(reply);
                if has_line(lines, next.o()) || next.empty() == 0 {
                    bail!("O's reply {reply} ends the game");
                }
                let depth = if wins_at_once(lines, next.x(), next.o()) {
                    1
                } else {
                    match walked.get(&key(Qubic.canonical(next))) {
                        Some(&(depth, _)) => depth,
                        None => bail!("O's reply {reply} leaves the strategy"),
                    }
                };
                longest = longest.max(depth);
            }
            if value.plies < longest + 1 {
                bail!(
                    "claims {} plies; the strategy needs {}",
                    value.plies,
                    longest + 1
                );
            }
            Ok(())
        }
        Settlement::Proved => match proved(Attacker::X, true) {
            Some(Verdict::Proved) => Ok(()),
            other => bail!("X's win is not proved again ({other:?})"),
        },
        Settlement::OWins => match proved(Attacker::O, false) {
            Some(Verdict::Proved) => Ok(()),
            other => bail!("O's win is not proved again ({other:?})"),
        },
        Settlement::NotXWin => match proved(Attacker::X, false) {
            Some(Verdict::Disproved) => Ok(()),
            other => bail!("X's loss of the win is not proved again ({other:?})"),
        },
    }
}

/// [`walk_opening`] with the build's budget.
///
/// # Errors
///
/// As [`walk_opening`].
pub fn walk_built_opening(opening: &Table<Vec<u8>>, walked: &Walked) -> Result<OpeningReport> {
    walk_opening(opening, walked, Qubic.start(), BUILD_BUDGET)
}
