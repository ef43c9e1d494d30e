//! The strategy of a Qubic table walked against every defence, for `solvedb
//! verify` and `solvedb export`, with rules of its own: the lines are found
//! again here, and a game is judged by them alone. The table gives X's moves
//! (through [`Strategy`], which is what the table means: records and the
//! threat lines a probe plays); nothing of the prover's search is used.
//!
//! From the empty board (and from the table's other roots,
//! [`strategy_roots`]), every X-to-move position reached gets the
//! strategy's move, which must be an empty cell; after it, X has completed
//! a line, or every O reply is played: none may complete a line of O or
//! fill the board, and each leads to the next X-to-move position. The
//! plies to X's win against the longest defence are counted on the way and
//! must not exceed the bound the strategy claims for any position.
//!
//! Positions are walked once up to symmetry: the strategy plays each
//! position on its canonical board and maps the move back, so from a
//! symmetric image it plays the image of the same game; the walk of one
//! image checks them all. The symmetries themselves are proved to be the
//! board's in `lookup` (every permutation of the cells that keeps lines).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Result, bail};
use rayon::prelude::*;
use solvedb_lookup::games::qubic::strategy::{Settled, Strategy, key};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell, Table};

use crate::progress::Progress;

/// The 76 lines of the board, found from scratch: every cell and direction
/// `(dx, dy, dz)` in `{-1, 0, 1}³` whose four steps stay on the board, each
/// line once (from its lower end).
fn lines() -> Vec<u64> {
    let mut lines = Vec::new();
    for start in 0..64i32 {
        let (x, y, z) = (start % 4, start / 4 % 4, start / 16);
        for d in 0..27 {
            let (dx, dy, dz) = (d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1);
            if (dx, dy, dz) == (0, 0, 0) {
                continue;
            }
            let cells: Vec<(i32, i32, i32)> = (0..4)
                .map(|k| (x + k * dx, y + k * dy, z + k * dz))
                .collect();
            if cells
                .iter()
                .all(|&(a, b, c)| (0..4).contains(&a) && (0..4).contains(&b) && (0..4).contains(&c))
            {
                let mask = cells
                    .iter()
                    .fold(0u64, |m, &(a, b, c)| m | 1 << (a + 4 * b + 16 * c));
                if !lines.contains(&mask) {
                    lines.push(mask);
                }
            }
        }
    }
    lines
}

/// What a walk found.
#[derive(Clone, Debug, Default)]
pub struct WalkReport {
    /// X-to-move positions, up to symmetry, where X does not complete a
    /// line at once (the export's lines).
    pub positions: u64,
    /// Of them, settled by a record of the table.
    pub from_records: u64,
    /// Of them, settled by a threat line.
    pub from_threat_lines: u64,
    /// O-to-move positions, up to symmetry, whose every reply was played.
    pub defences: u64,
    /// Plies to X's win against the longest defence, from the start.
    pub depth: u8,
    /// The bound the strategy claims at the start.
    pub claimed: u8,
    /// The table's records the walk read, and how many it holds.
    pub records_read: u64,
}

impl fmt::Display for WalkReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "X wins against every defence, in at most {} plies (the table claims {}); {} \
             positions with X to move up to symmetry ({} from records, {} by threat lines), \
             {} defended positions",
            self.depth,
            self.claimed,
            self.positions,
            self.from_records,
            self.from_threat_lines,
            self.defences,
        )
    }
}

/// Positions with fewer stones than this (X to move) share their O replies
/// among threads; deeper ones are walked on the thread that reached them.
const SHARED_BELOW: u32 = 6;

/// Shards of the shared map: threads seldom wait on one another's lock.
const SHARDS: usize = 64;

/// The walk's state, shared by its threads (rayon's): each thread brings
/// its own [`Strategy`] (its threat search has state), the rest is here.
struct Walker<'t> {
    table: &'t Table<Vec<u8>>,
    lines: Vec<u64>,
    /// Each canonical X-to-move position walked where X does not win at
    /// once (the export's lines): plies to the win, and the strategy's
    /// cell on the canonical board.
    walked: Vec<Mutex<HashMap<u128, (u8, u8)>>>,
    positions: AtomicU64,
    from_records: AtomicU64,
    from_threat_lines: AtomicU64,
    defences: AtomicU64,
    /// The positions walked so far, on a terminal (minutes on the empty
    /// board).
    progress: Progress,
}

fn shard(key: u128) -> usize {
    // The key is a canonical board's bits: mix them so shards fill evenly.
    let folded = (key as u64) ^ (key >> 64) as u64;
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARDS
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<'t> Walker<'t> {
    fn has_line(&self, stones: u64) -> bool {
        self.lines.iter().any(|&line| line & !stones == 0)
    }

    fn strategy(&self) -> Strategy<'t, Vec<u8>> {
        Strategy::new(self.table)
    }

    /// Plies to X's win from an X-to-move position (canonical), following
    /// the strategy against every defence.
    fn x_node(&self, strategy: &mut Strategy<'t, Vec<u8>>, board: QubicBoard) -> Result<u8> {
        let k = key(board);
        if let Some(&(depth, _)) = lock(&self.walked[shard(k)]).get(&k) {
            return Ok(depth);
        }
        let Some(m) = strategy.x_move(board)? else {
            bail!(
                "the strategy has no move in {} (X to move)",
                Qubic.notation(board)
            );
        };
        let cell = m.cell.index();
        if board.empty() >> cell & 1 == 0 {
            bail!(
                "the strategy plays {cell}, which is taken, in {}",
                Qubic.notation(board)
            );
        }
        let after = board.with_move(m.cell);
        let depth = if self.has_line(after.x()) {
            1
        } else {
            if m.settled == Settled::Immediate {
                bail!("{cell} completes no line in {}", Qubic.notation(board));
            }
            // Every reply, each position once up to symmetry.
            let mut replies = Vec::new();
            for reply in 0..64u8 {
                if after.empty() >> reply & 1 == 0 {
                    continue;
                }
                let next = after.with_move(QubicCell::new(reply).expect("a cell"));
                if self.has_line(next.o()) {
                    bail!(
                        "O completes a line: {} (after X's {cell} in {})",
                        Qubic.notation(next),
                        Qubic.notation(board)
                    );
                }
                if next.empty() == 0 {
                    bail!("the board fills without a line: {}", Qubic.notation(next));
                }
                replies.push(Qubic.canonical(next));
            }
            replies.sort_unstable_by_key(|&b| key(b));
            replies.dedup_by_key(|b| key(*b));
            let longest = if board.stones() < SHARED_BELOW {
                replies
                    .into_par_iter()
                    .map(|next| self.x_node(&mut self.strategy(), next))
                    .try_reduce(|| 0, |a, b| Ok(a.max(b)))?
            } else {
                let mut longest = 0;
                for next in replies {
                    longest = longest.max(self.x_node(strategy, next)?);
                }
                longest
            };
            2 + longest
        };
        if depth > m.plies {
            bail!(
                "{} takes {depth} plies against the longest defence, the strategy claims at \
                 most {}",
                Qubic.notation(board),
                m.plies
            );
        }
        // X's immediate wins are many and cheap to find again: not stored.
        if m.settled == Settled::Immediate {
            return Ok(depth);
        }
        // Counted once, by the thread that stores it (two threads may walk
        // the same position at once; they find the same depth).
        if lock(&self.walked[shard(k)])
            .insert(k, (depth, cell))
            .is_none()
        {
            if depth > 1 {
                self.defences.fetch_add(1, Ordering::Relaxed);
            }
            let walked = self.positions.fetch_add(1, Ordering::Relaxed) + 1;
            if walked % (1 << 16) == 0 {
                self.progress.set_message(format!(
                    "walking the strategy: {walked} positions with X to move"
                ));
            }
            match m.settled {
                Settled::Record => &self.from_records,
                _ => &self.from_threat_lines,
            }
            .fetch_add(1, Ordering::Relaxed);
        }
        Ok(depth)
    }
}

/// Walks the strategy of a Qubic table from the empty board against every
/// defence (see the [module documentation](self)); with `export`, also
/// returns each position's move (canonical key, cell on the canonical
/// board). The table's other roots ([`strategy_roots`]) are not walked,
/// nor is every record required to be read: [`walk_roots`] from every
/// root does that (`solvedb verify`).
///
/// # Errors
///
/// The first position where the strategy fails, or a corrupt record.
pub fn walk(
    table: &Table<Vec<u8>>,
    export: bool,
) -> Result<(WalkReport, Option<BTreeMap<u128, u8>>)> {
    let walk = walk_from_roots(table, &[Qubic.start()], false)?;
    let export = export.then(|| {
        walk.walked
            .into_iter()
            .map(|(position, (_, cell))| (position, cell))
            .collect()
    });
    Ok((walk.first, export))
}

/// The roots of a Qubic table's strategy: the empty board, then every
/// position with two stones (one of each, X to move; canonical, by key)
/// the table holds a record of. The corner's strategy reaches the
/// positions after its own first move; the others are the roots the
/// build adds after the other first move (`other_first_move`).
///
/// # Errors
///
/// A corrupt record.
pub fn strategy_roots(table: &Table<Vec<u8>>) -> Result<Vec<QubicBoard>> {
    let strategy = Strategy::new(table);
    let mut roots = vec![Qubic.start()];
    for position in two_stone_positions() {
        if strategy.record(position)?.is_some() {
            roots.push(position);
        }
    }
    Ok(roots)
}

/// The canonical positions with two stones (one X, one O), X to move:
/// where a table's other roots are looked for.
fn two_stone_positions() -> Vec<QubicBoard> {
    let mut positions: Vec<QubicBoard> = (0..64u8)
        .flat_map(|x| (0..64u8).filter(move |&o| o != x).map(move |o| (x, o)))
        .map(|(x, o)| {
            let board = Qubic
                .start()
                .with_move(QubicCell::new(x).expect("a cell"))
                .with_move(QubicCell::new(o).expect("a cell"));
            Qubic.canonical(board)
        })
        .collect();
    positions.sort_by_key(|&board| key(board));
    positions.dedup();
    positions
}

/// [`walk`] from `start` (X to move, not over) instead of the empty
/// board, every record of the table read from it: for tables of a
/// strategy from a later position (the tests' small proofs, a task's).
///
/// # Errors
///
/// As [`walk`], or a record the walk does not read.
pub fn walk_from(
    table: &Table<Vec<u8>>,
    start: QubicBoard,
    export: bool,
) -> Result<(WalkReport, Option<BTreeMap<u128, u8>>)> {
    let (report, walked) = walk_positions(table, start)?;
    let export = export.then(|| {
        walked
            .into_iter()
            .map(|(position, (_, cell))| (position, cell))
            .collect()
    });
    Ok((report, export))
}

/// Every X-to-move position the walk of [`walk_from`] reached (canonical
/// keys; X does not complete a line at once in them): the plies to X's
/// win against the longest defence, and the strategy's cell.
pub type Walked = HashMap<u128, (u8, u8)>;

/// [`walk_from`], with every position it walked ([`Walked`]).
///
/// # Errors
///
/// As [`walk`].
pub fn walk_positions(table: &Table<Vec<u8>>, start: QubicBoard) -> Result<(WalkReport, Walked)> {
    let walk = walk_roots(table, &[start])?;
    Ok((walk.first, walk.walked))
}

/// A walk from more than one root ([`walk_roots`]).
#[derive(Debug)]
pub struct RootsWalk {
    /// The first root's walk.
    pub first: WalkReport,
    /// Every root's, a position two roots reach counted once; its depth
    /// and claim are the first root's.
    pub all: WalkReport,
    /// Each root after the first that the first one's strategy does not
    /// reach (canonical): the plies to X's win against the longest
    /// defence, and the bound the table claims.
    pub others: Vec<(QubicBoard, u8, u8)>,
    /// Every position walked, from any root.
    pub walked: Walked,
    /// The positions walked from the first root.
    pub from_first: HashSet<u128>,
}

/// Walks the strategy from each of `starts` in turn (X to move, not
/// over), a position once however many roots reach it; every record of
/// the table must be read.
///
/// # Errors
///
/// As [`walk`]; also if `starts` is empty, or a record no root's strategy
/// reads.
pub fn walk_roots(table: &Table<Vec<u8>>, starts: &[QubicBoard]) -> Result<RootsWalk> {
    walk_from_roots(table, starts, true)
}

/// [`walk_roots`], requiring every record to be read if `every_record`.
fn walk_from_roots(
    table: &Table<Vec<u8>>,
    starts: &[QubicBoard],
    every_record: bool,
) -> Result<RootsWalk> {
    let Some((&first, others)) = starts.split_first() else {
        bail!("the walk needs a position to start from");
    };
    if starts
        .iter()
        .any(|s| !s.x_to_move() || Qubic.terminal_score(*s).is_some())
    {
        bail!("the walk starts from a position with X to move that is not over");
    }
    let walker = Walker {
        table,
        lines: lines(),
        walked: (0..SHARDS).map(|_| Mutex::default()).collect(),
        positions: AtomicU64::new(0),
        from_records: AtomicU64::new(0),
        from_threat_lines: AtomicU64::new(0),
        defences: AtomicU64::new(0),
        progress: Progress::spinner("walking the strategy".into()),
    };
    if walker.lines.len() != 76 {
        bail!("found {} lines, not 76", walker.lines.len());
    }
    let mut strategy = walker.strategy();
    let mut walk_one = |start: QubicBoard| -> Result<(u8, u8)> {
        let start = Qubic.canonical(start);
        let depth = walker.x_node(&mut strategy, start)?;
        let claimed = strategy.x_move(start)?.map_or(0, |m| m.plies);
        Ok((depth, claimed))
    };
    let (depth, claimed) = walk_one(first)?;
    let report = |depth, claimed| WalkReport {
        positions: walker.positions.load(Ordering::Relaxed),
        from_records: walker.from_records.load(Ordering::Relaxed),
        from_threat_lines: walker.from_threat_lines.load(Ordering::Relaxed),
        defences: walker.defences.load(Ordering::Relaxed),
        depth,
        claimed,
        records_read: walker.from_records.load(Ordering::Relaxed),
    };
    let first_report = report(depth, claimed);
    let from_first: HashSet<u128> = walker
        .walked
        .iter()
        .flat_map(|shard| lock(shard).keys().copied().collect::<Vec<_>>())
        .collect();
    let mut other_roots = Vec::with_capacity(others.len());
    for &start in others {
        // A root the first one's strategy reaches was walked with it.
        if from_first.contains(&key(Qubic.canonical(start))) {
            continue;
        }
        let (depth, claimed) = walk_one(start)?;
        other_roots.push((Qubic.canonical(start), depth, claimed));
    }
    walker.progress.finish();
    let all = report(depth, claimed);
    // Every record must be a position the strategy reaches: a table with
    // records it never reads has bytes nobody checked.
    let stored = table.header().stored;
    if every_record && all.from_records != stored {
        bail!(
            "the strategy reads {} of the table's {stored} records",
            all.from_records
        );
    }
    let walked = walker
        .walked
        .into_iter()
        .flat_map(|shard| {
            shard
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect();
    Ok(RootsWalk {
        first: first_report,
        all,
        others: other_roots,
        walked,
        from_first,
    })
}

/// The 76 lines of the board as the walk finds them (from scratch).
pub fn walk_lines() -> Vec<u64> {
    lines()
}

/// A position with X to move as the export writes it: 64 characters `X`,
/// `O` or `.` (cell `16z + 4y + x`), a space, the cell X plays.
pub fn export_line(position_key: u128, cell: u8) -> String {
    let board = solvedb_lookup::games::qubic::strategy::board_of_key(position_key);
    let mut text: String = (0..64)
        .map(|c| {
            if board.x() >> c & 1 != 0 {
                'X'
            } else if board.o() >> c & 1 != 0 {
                'O'
            } else {
                '.'
            }
        })
        .collect();
    text.push(' ');
    text.push_str(&cell.to_string());
    text
}
