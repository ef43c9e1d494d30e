//! The records Qubic's table keeps of a proved strategy, with their
//! bounds: one walk from each root through the strategy's moves gives
//! every X-to-move position its bound as a probe computes it (1 for a line
//! completed at once, a threat line's plies, 2 + the slowest O reply's
//! otherwise) and keeps a record for each position the rules do not
//! settle, and for a settled one where the walk needs more plies than the
//! threat line says (the record, read first, then gives the true bound).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Result, bail};
use solvedb_lookup::games::qubic::canonical_with_symmetry;
use solvedb_lookup::games::qubic::strategy::{
    Settled, board_of_key, key, probe_threats, threat_move,
};
use solvedb_lookup::games::qubic::threats::ThreatSearch;
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

use super::replies::replies;

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
