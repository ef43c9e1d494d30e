//! The opening table's build ([`build_opening`]): every move's value at
//! the early X-to-move positions of a strategy table, as the library's
//! [`opening`](solvedb_lookup::games::qubic::opening) module lays it out.
//!
//! 1. **The positions** ([`strategy_positions`]): the strategy followed
//!    from a root (the empty board) against every O reply, up to symmetry,
//!    keeping its X-to-move positions with at most a given number of
//!    stones (the library's `OPENING_STONES`) and the O-to-move positions
//!    its moves lead to.
//! 2. **The children**: every position one X move from one of those,
//!    once up to symmetry (the moves that are images of one another under
//!    the position's own symmetries, and transpositions, share one);
//!    those X completes a line in are settled by the rules and not stored.
//!    The strategy's X-to-move positions themselves (the children of its
//!    O-to-move positions) are stored with the strategy's move's bound.
//! 3. **Each child settled** ([`settle`]), a pure function of the child
//!    and the budget (so the bytes do not depend on threads): a position
//!    of the strategy, with its bound (`Strategy::o_bound`); O's line at
//!    once or O's shortest threat line; else the df-pn prover for X
//!    ([`OpeningBudget::prove`]: deepened by stones, the strategy's
//!    records as leaves, fresh proof tables) within
//!    [`OpeningBudget::nodes`]: proved, refuted, or not settled.
//!
//! The children are settled on every core (rayon), then written sorted by
//! key: the same bytes every build.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use rayon::prelude::*;
use solvedb_lookup::format::{
    GameId, Header, IndexScheme, ValueEncoding, WideRecord, encode_table, wide_entries,
};
use solvedb_lookup::games::qubic::has_line;
use solvedb_lookup::games::qubic::opening::{
    OPENING_FILE, OpeningValue, Settlement, encode_opening,
};
use solvedb_lookup::games::qubic::strategy::{self, Records, Settled, Strategy, board_of_key, key};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell, Stop, Table};

use super::prover::{Attacker, Leaves, Verdict};
use crate::build::{GENERATOR, LayerCount, install_file};
use crate::progress::Progress;
use solvedb_lookup::games::qubic::live;

/// What the build of an opening table may spend on each child.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpeningBudget {
    /// X-to-move positions of the strategy with at most this many stones
    /// have every move settled.
    pub stones: u32,
    /// Nodes (proof and threat search) of the df-pn proof of one child.
    pub nodes: u64,
    /// The proof table of one child's prover, in bytes.
    pub table_bytes: u64,
}

impl OpeningBudget {
    /// Whether `attacker` wins `board`, within `nodes` and this budget's
    /// proof table, the proof ending at `leaves`, searched as the probe's
    /// live proofs are ([`live::prove`]: deepened by stones, the
    /// attacker's moves narrowed); what stopped it, if anything did. The
    /// build settles a child with this, and the walker proves it again
    /// with this and more nodes.
    pub fn prove(
        &self,
        board: QubicBoard,
        attacker: Attacker,
        leaves: Option<&dyn Leaves>,
        nodes: u64,
    ) -> Result<Verdict, solvedb_lookup::Error> {
        let stop = Stop::default();
        live::prove(
            board,
            attacker,
            leaves,
            self.table_bytes,
            Some(nodes),
            &stop,
        )
    }
}

/// The budget of `solvedb build qubic` (`docs/qubic.md` has the measured
/// time and the counts it settles).
pub const BUILD_BUDGET: OpeningBudget = OpeningBudget {
    stones: solvedb_lookup::games::qubic::opening::OPENING_STONES,
    nodes: 2_000,
    table_bytes: 1 << 20,
};

/// The strategy's positions up to a number of stones.
#[derive(Debug, Default)]
pub struct StrategyPositions {
    /// X-to-move positions (canonical keys) with their strategy move's
    /// bound.
    pub x_to_move: BTreeMap<u128, u8>,
    /// O-to-move positions after the strategy's moves (canonical keys).
    pub after_strategy: BTreeSet<u128>,
}

/// The strategy of `table` followed from `root` (X to move, not over)
/// against every O reply, up to `stones` stones (see the [module
/// documentation](self)).
///
/// # Errors
///
/// A corrupt record, or a position the strategy does not settle.
pub fn strategy_positions(
    table: &Table<Vec<u8>>,
    root: QubicBoard,
    stones: u32,
) -> Result<StrategyPositions> {
    let mut found = StrategyPositions::default();
    let mut level: Vec<QubicBoard> = vec![Qubic.canonical(root)];
    while !level.is_empty() {
        let settled: Vec<Result<(QubicBoard, u8, Option<QubicBoard>)>> = level
            .par_iter()
            .map_init(
                || Strategy::new(table),
                |strategy, &board| {
                    let Some(m) = strategy.x_move(board)? else {
                        bail!("the strategy does not settle {}", Qubic.notation(board));
                    };
                    let after = board.with_move(m.cell);
                    let next = (m.settled != Settled::Immediate).then(|| Qubic.canonical(after));
                    Ok((board, m.plies, next))
                },
            )
            .collect();
        let mut next_level = BTreeSet::new();
        for result in settled {
            let (board, plies, after) = result?;
            found.x_to_move.insert(key(board), plies);
            let Some(after) = after else { continue };
            found.after_strategy.insert(key(after));
            if after.stones() + 1 > stones {
                continue;
            }
            for reply in cells(after.empty()) {
                let next = after.with_move(reply);
                if !has_line(next.o()) && next.empty() != 0 {
                    next_level.insert(key(Qubic.canonical(next)));
                }
            }
        }
        level = next_level.into_iter().map(board_of_key).collect();
    }
    Ok(found)
}

/// The cells of a mask.
fn cells(mask: u64) -> impl Iterator<Item = QubicCell> {
    (0..64u8)
        .filter(move |&c| mask >> c & 1 != 0)
        .map(|c| QubicCell::new(c).expect("a cell"))
}

/// The value of the O-to-move `child` (canonical, not over): see the
/// [module documentation](self), step 3.
///
/// # Errors
///
/// A corrupt record.
pub fn settle(
    table: &Table<Vec<u8>>,
    strategy: &mut Strategy<'_, Vec<u8>>,
    positions: &StrategyPositions,
    budget: OpeningBudget,
    child: QubicBoard,
) -> Result<OpeningValue> {
    let value = |settled, plies| OpeningValue { settled, plies };
    if positions.after_strategy.contains(&key(child)) {
        let Some((plies, _)) = strategy.o_bound(child)? else {
            bail!(
                "a position of the strategy it does not cover: {}",
                Qubic.notation(child)
            );
        };
        return Ok(value(Settlement::Strategy, plies));
    }
    if let Some(plies) = strategy.o_forced_win(child) {
        return Ok(value(Settlement::OWins, plies));
    }
    let verdict = budget.prove(child, Attacker::X, Some(&Records(table)), budget.nodes);
    Ok(match verdict {
        Ok(Verdict::Proved) => value(Settlement::Proved, x_win_bound(child)),
        Ok(Verdict::Disproved) => value(Settlement::NotXWin, 0),
        Err(_) => value(Settlement::Unsettled, 0),
    })
}

/// The plies within which X, having won `board` (O to move), completes its
/// line: the board fills at the latest, and X moves on even plies from
/// here.
pub fn x_win_bound(board: QubicBoard) -> u8 {
    let empty = board.empty().count_ones() as u8;
    if board.x_to_move() == (empty % 2 == 1) {
        empty
    } else {
        empty - 1
    }
}

/// An opening table's records and what the build counts.
#[derive(Debug)]
pub struct Opening {
    /// The records, sorted by key.
    pub records: Vec<WideRecord>,
    /// X-to-move positions of the strategy covered, by stones.
    pub positions_by_stones: BTreeMap<u32, u64>,
    /// X moves settled, up to each position's symmetries, by stones of the
    /// position and settlement; the moves that complete a line under
    /// `None`.
    pub moves: BTreeMap<(u32, Option<Settlement>), u64>,
    /// Children settled by the budget's proofs (distinct positions).
    pub children: u64,
    /// Wall time of the children's settling.
    pub settle_time: Duration,
}

impl Opening {
    /// The build report's lines.
    pub fn notes(&self, budget: OpeningBudget) -> Vec<String> {
        let mut notes = vec![format!(
            "opening table: {} records; {} positions one X move from the strategy's, settled in {:.1} s (df-pn {} nodes, {} MiB of proof table a position)",
            self.records.len(),
            self.children,
            self.settle_time.as_secs_f64(),
            budget.nodes,
            budget.table_bytes >> 20
        )];
        for (&stones, &positions) in &self.positions_by_stones {
            let of = |settled: Option<Settlement>| {
                self.moves.get(&(stones, settled)).copied().unwrap_or(0)
            };
            notes.push(format!(
                "opening, {stones} stones: {positions} positions with X to move; their X moves up to symmetry: {} win at once, {} by the strategy, {} by a proof, {} lose (O wins), {} do not win, {} not settled",
                of(None),
                of(Some(Settlement::Strategy)),
                of(Some(Settlement::Proved)),
                of(Some(Settlement::OWins)),
                of(Some(Settlement::NotXWin)),
                of(Some(Settlement::Unsettled)),
            ));
        }
        notes
    }

    /// The build report's layers: X-to-move positions by stones, and the
    /// records stored of their moves.
    pub fn layers(&self) -> Vec<LayerCount> {
        self.positions_by_stones
            .iter()
            .map(|(&stones, &positions)| LayerCount {
                ply: stones as usize,
                reachable: positions,
                canonical: self
                    .moves
                    .iter()
                    .filter(|((s, settled), _)| *s == stones && settled.is_some())
                    .map(|(_, n)| n)
                    .sum(),
            })
            .collect()
    }
}

/// The opening table of the strategy `table` from `root`, within `budget`:
/// see the [module documentation](self). `report` is told how many
/// children are settled so far.
///
/// # Errors
///
/// A corrupt record, or a position the strategy does not settle.
pub fn build_opening(
    table: &Table<Vec<u8>>,
    root: QubicBoard,
    budget: OpeningBudget,
) -> Result<Opening> {
    let positions = strategy_positions(table, root, budget.stones)?;
    // Each X-to-move position's moves, once up to its own symmetries.
    let mut children = BTreeSet::new();
    let mut moves_of: Vec<(u32, Vec<Option<u128>>)> = Vec::new();
    let mut positions_by_stones = BTreeMap::new();
    for &position in positions.x_to_move.keys() {
        let board = board_of_key(position);
        *positions_by_stones.entry(board.stones()).or_insert(0) += 1;
        let mut seen = BTreeSet::new();
        let mut moves = Vec::new();
        for cell in cells(board.empty()) {
            let after = board.with_move(cell);
            let child = Qubic.canonical(after);
            if !seen.insert(key(child)) {
                continue;
            }
            if has_line(after.x()) {
                moves.push(None);
            } else {
                children.insert(key(child));
                moves.push(Some(key(child)));
            }
        }
        moves_of.push((board.stones(), moves));
    }
    let started = Instant::now();
    let done = AtomicU64::new(0);
    let progress = Progress::bar(children.len() as u64, "settling the opening's moves".into());
    let children: Vec<u128> = children.into_iter().collect();
    let settled: Vec<Result<(u128, OpeningValue)>> = children
        .par_iter()
        .map_init(
            || Strategy::new(table),
            |strategy, &child| {
                let value = settle(table, strategy, &positions, budget, board_of_key(child))?;
                if done.fetch_add(1, Ordering::Relaxed) % 256 == 0 {
                    progress.advance(256);
                }
                Ok((child, value))
            },
        )
        .collect();
    progress.finish();
    let settle_time = started.elapsed();
    let mut values = BTreeMap::new();
    for result in settled {
        let (child, value) = result?;
        values.insert(child, value);
    }
    let mut moves = BTreeMap::new();
    for (stones, children) in &moves_of {
        for child in children {
            let settled = child.map(|c| values[&c].settled);
            *moves.entry((*stones, settled)).or_insert(0) += 1;
        }
    }
    // The strategy's own X-to-move positions (what O's moves lead to),
    // but the root, which no move leads to.
    let root_key = key(Qubic.canonical(root));
    for (&position, &plies) in &positions.x_to_move {
        if position != root_key {
            values.insert(
                position,
                OpeningValue {
                    settled: Settlement::Strategy,
                    plies,
                },
            );
        }
    }
    let records = values
        .into_iter()
        .map(|(k, value)| (k, encode_opening(value)))
        .collect();
    Ok(Opening {
        records,
        positions_by_stones,
        moves,
        children: children.len() as u64,
        settle_time,
    })
}

/// The bytes of an opening table: the strategy's block size and format,
/// [`ValueEncoding::OpeningValues`], blocks compressed at zstd `level`.
pub fn opening_bytes(opening: &Opening, level: i32) -> Vec<u8> {
    let entries = wide_entries(&opening.records, strategy::BLOCK_ENTRIES);
    let header = Header {
        game: GameId::Qubic,
        index: IndexScheme::SortedWideKeys,
        values: ValueEncoding::OpeningValues,
        entries: entries.len() as u64,
        stored: opening.records.len() as u64,
        block_entries: strategy::BLOCK_ENTRIES,
        generator: GENERATOR.to_owned(),
    };
    encode_table(&header, &entries, level)
}

/// Builds the opening table of the strategy `table` (from the empty
/// board) within `budget` and writes it into `dir` as
/// [`OPENING_FILE`], atomically, recorded in the MANIFEST; returns the
/// build report's lines.
///
/// # Errors
///
/// As [`build_opening`], and if the file cannot be written.
pub fn install_opening(
    table: &Table<Vec<u8>>,
    dir: &Path,
    budget: OpeningBudget,
) -> Result<Vec<String>> {
    let opening = build_opening(table, Qubic.start(), budget)?;
    let bytes = opening_bytes(&opening, OPENING_LEVEL);
    let (path, _) = install_file(OPENING_FILE, dir, &bytes)?;
    let mut notes = opening.notes(budget);
    notes.push(format!(
        "opening table: {} bytes in {}",
        bytes.len(),
        path.display()
    ));
    Ok(notes)
}

/// The zstd level of the opening table (small: level 19 costs little).
pub const OPENING_LEVEL: i32 = 19;
