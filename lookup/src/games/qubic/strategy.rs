//! Qubic's table: the first player's winning strategy ([`Strategy`]), its
//! records, and how a probe resolves the positions the table leaves out.
//!
//! # What the table holds
//!
//! One record per X-to-move position of the strategy that the rules do not
//! settle at probe time: its canonical board as the key (`x << 64 | o`,
//! [`key`]), the strategy's move on that board and an upper bound on the
//! plies to the win ([`ValueEncoding::StrategyMoves`], with
//! [`IndexScheme::SortedWideKeys`]). A probe settles an X-to-move position
//! by, in order:
//!
//! 1. a line X completes at once: a win in 1 (exact);
//! 2. the record of its canonical board: the move (mapped back) and its
//!    bound;
//! 3. a shortest threat line on the canonical board of X ([`ThreatSearch::find_shortest`] within
//!    [`THREAT_BUDGET`] nodes): its first move
//!    and its plies (every defence but the block loses sooner; after the
//!    block a line one move shorter is left, so the bounds shrink along
//!    it).
//!
//! The build stores exactly the positions of the strategy that the first
//! and third do not settle, so a position of the strategy is always
//! settled, and its bound is the one the build computed. The threat
//! search and its budget are therefore part of the format: a change to them
//! that settles fewer positions needs a rebuilt table (`verify` says so).
//!
//! An O-to-move position is covered when every O move leads to an X-to-move
//! position that is settled: O loses, in at most one ply more than the
//! slowest of them. Where X has left the strategy, an O-to-move position
//! is also answered when O wins by force: a line completed at once, or a
//! shortest threat line of O on the canonical board (the same search as
//! X's, with the roles swapped), "win in at most N".
//!

use super::Qubic;
use super::board::{QubicBoard, QubicCell};
pub use super::board::{board_of_key, key};
use super::lines::{CELLS, line_cells};
use super::live::live_probe;
use super::opening::{OPENING_FILE, opening_probe};
use super::prover::Leaves;
use super::symmetry::{INVERSES, canonical_with_symmetry};
use super::threats::{THREAT_BUDGET, ThreatSearch};
use crate::error::Error;
use crate::format::{IndexScheme, Table, TableData, TableError, ValueEncoding, encode_outcome};
use crate::game::{Game, Probed, SearchLimits, Tabled};
use crate::value::{Score, WIN_SCORE};

/// Entry bytes per block of a Qubic table: 256 records of 18 bytes.
pub const BLOCK_ENTRIES: u32 = 18 * 256;

/// How a strategy position is settled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    /// X completes a line at once.
    Immediate,
    /// The table's record.
    Record,
    /// A threat line of X.
    ThreatLine,
}

/// The strategy's move in an X-to-move position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StrategyMove {
    /// The move, on the board as given.
    pub cell: QubicCell,
    /// The plies to the win, at most (exactly 1 for [`Settled::Immediate`]).
    pub plies: u8,
    /// How it was found.
    pub settled: Settled,
}

/// The two entry bytes of a record: the move on the canonical board and
/// the bound.
pub fn encode_record(cell: u8, plies: u8) -> [u8; 2] {
    [cell, plies]
}

/// The move and bound a record holds for the canonical board `board`.
///
/// # Errors
///
/// [`TableError::Entry`] unless the board could be a stored position (X
/// to move, legal, no line X completes at once) and the move is one of its
/// empty cells, with an odd bound of at least 3 plies and no more than the
/// empty cells.
pub fn decode_record(board: QubicBoard, entry: [u8; 2]) -> Result<(u8, u8), TableError> {
    let bad = |reason: String| TableError::Entry {
        slot: board.x,
        reason: format!("qubic record {:016x}{:016x}: {reason}", board.x, board.o),
    };
    let [cell, plies] = entry;
    if board.x & board.o != 0 || !board.x_to_move() {
        return Err(bad("not a position with X to move".into()));
    }
    if line_cells(board.x, board.o).threats != 0 {
        return Err(bad("X completes a line at once: no record is stored".into()));
    }
    if usize::from(cell) >= CELLS || board.empty() >> cell & 1 == 0 {
        return Err(bad(format!("move {cell} is not an empty cell")));
    }
    if plies < 3 || plies % 2 == 0 || u32::from(plies) > board.empty().count_ones() {
        return Err(bad(format!("{plies} plies is no bound of a win here")));
    }
    Ok((cell, plies))
}

/// The move of a shortest threat line of X in an X-to-move position, as
/// every probe finds it (`threats` within [`THREAT_BUDGET`], on the
/// canonical board): what the build leaves out of the table is what this
/// settles on canonical boards.
pub fn threat_move(threats: &mut ThreatSearch, board: QubicBoard) -> Option<StrategyMove> {
    threats
        .find_shortest(board.x, board.o)
        .map(|line| StrategyMove {
            cell: QubicCell(line.first()),
            plies: line.plies(),
            settled: Settled::ThreatLine,
        })
}

/// A threat search as probes run it.
pub fn probe_threats() -> ThreatSearch {
    ThreatSearch::new(THREAT_BUDGET)
}

/// A strategy table's records as a database of X's wins ([`Leaves`]):
/// each record is a canonical X-to-move position from which the strategy
/// wins, where a live proof for X ends.
#[derive(Debug)]
pub struct Records<'t, D>(pub &'t Table<D>);

impl<D: TableData> Leaves for Records<'_, D> {
    fn x_wins(&self, canonical: QubicBoard) -> bool {
        // A corrupt record is no proof (the table's checks report it).
        matches!(self.0.wide_entry(key(canonical)),
            Ok(Some(entry)) if decode_record(canonical, entry).is_ok())
    }
}

/// A strategy table and the threat search its probes use.
#[derive(Debug)]
pub struct Strategy<'t, D> {
    table: &'t Table<D>,
    threats: ThreatSearch,
}

impl<'t, D: TableData> Strategy<'t, D> {
    /// The strategy of a Qubic table (whose header the caller checked).
    pub fn new(table: &'t Table<D>) -> Strategy<'t, D> {
        Strategy {
            table,
            threats: probe_threats(),
        }
    }

    /// The table's record for a canonical board: its move and bound.
    ///
    /// # Errors
    ///
    /// A [`TableError`] if the record or its block is corrupt.
    pub fn record(&self, canonical: QubicBoard) -> Result<Option<(u8, u8)>, TableError> {
        match self.table.wide_entry(key(canonical))? {
            Some(entry) => Ok(Some(decode_record(canonical, entry)?)),
            None => Ok(None),
        }
    }

    /// The strategy's move in an X-to-move position that is not over, if
    /// the strategy settles it (see the [module documentation](self)). The
    /// move is found on the canonical board and mapped back, so the
    /// strategy plays symmetric positions symmetrically: checking it on
    /// one image of each position checks it on all.
    ///
    /// # Errors
    ///
    /// A [`TableError`] if a record it reads is corrupt.
    pub fn x_move(&mut self, board: QubicBoard) -> Result<Option<StrategyMove>, TableError> {
        debug_assert!(board.x_to_move());
        let threats = line_cells(board.x, board.o).threats;
        if threats != 0 {
            return Ok(Some(StrategyMove {
                cell: QubicCell(threats.trailing_zeros() as u8),
                plies: 1,
                settled: Settled::Immediate,
            }));
        }
        let (canonical, symmetry) = canonical_with_symmetry(board);
        let found = match self.record(canonical)? {
            Some((cell, plies)) => Some(StrategyMove {
                cell: QubicCell(cell),
                plies,
                settled: Settled::Record,
            }),
            None => threat_move(&mut self.threats, canonical),
        };
        Ok(found.map(|m| StrategyMove {
            cell: QubicCell(INVERSES[symmetry][usize::from(m.cell.0)]),
            ..m
        }))
    }

    /// The most plies X's strategy needs from an O-to-move position that is
    /// not over, whatever O plays, if it covers every O move; and whether
    /// every one of them is settled by the rules alone (no record read).
    ///
    /// # Errors
    ///
    /// A [`TableError`] if a record it reads is corrupt.
    pub fn o_bound(&mut self, board: QubicBoard) -> Result<Option<(u8, bool)>, TableError> {
        debug_assert!(!board.x_to_move());
        if line_cells(board.o, board.x).threats != 0 {
            // O completes a line.
            return Ok(None);
        }
        let mut longest = 0;
        let mut by_rules = true;
        let mut moves = board.empty();
        while moves != 0 {
            let cell = QubicCell(moves.trailing_zeros() as u8);
            moves &= moves - 1;
            let child = board.with_move(cell);
            if child.empty() == 0 {
                // O fills the board without a line: a draw.
                return Ok(None);
            }
            let Some(reply) = self.x_move(child)? else {
                return Ok(None);
            };
            longest = longest.max(reply.plies);
            by_rules &= reply.settled != Settled::Record;
        }
        Ok(Some((longest + 1, by_rules)))
    }

    /// The plies within which O wins an O-to-move position by force: 1
    /// where O completes a line at once (exact), else a shortest threat
    /// line of O on the canonical board (a bound: every X reply but the
    /// block loses sooner), as X's threat lines are found.
    pub fn o_forced_win(&mut self, board: QubicBoard) -> Option<u8> {
        debug_assert!(!board.x_to_move());
        if line_cells(board.o, board.x).threats != 0 {
            return Some(1);
        }
        let (canonical, _) = canonical_with_symmetry(board);
        self.threats
            .find_shortest(canonical.o, canonical.x)
            .map(|line| line.plies())
    }
}

/// Qubic's table is the first player's winning strategy (this module):
/// it covers the positions the strategy reaches, X's with the strategy's
/// move and a bound on the plies to the win, O's through their moves; every
/// other position is searched. Values from it are wins and losses "in at
/// most N plies" (`Probed::at_most`), exact only for a line completed at
/// once.
impl Tabled for Qubic {
    const INDEX: IndexScheme = IndexScheme::SortedWideKeys;
    const VALUES: ValueEncoding = ValueEncoding::StrategyMoves;

    /// The opening table ([`opening`](super::opening)): every move's value
    /// at the strategy's early positions.
    const COMPANION: Option<(ValueEncoding, &'static str)> =
        Some((ValueEncoding::OpeningValues, OPENING_FILE));

    /// [`opening_probe`]: a position one move from an early position of
    /// the strategy, settled when the table was built.
    fn companion_probe<D: TableData>(
        &self,
        companion: &Table<D>,
        board: QubicBoard,
    ) -> Result<Option<Probed>, TableError> {
        if self.terminal_score(board).is_some() {
            return Ok(None);
        }
        opening_probe(companion, board)
    }

    /// The key space does not fit a `u64` (keys are 128 bits,
    /// [`key`]): the largest `u64`, which no dense check uses.
    fn slots(&self) -> u64 {
        u64::MAX
    }

    /// X's mask: the high half of the key ([`key`] is the whole
    /// key), for messages.
    fn slot(&self, board: QubicBoard) -> u64 {
        board.x
    }

    /// A slot (half a key) names no board.
    fn position_at(&self, _slot: u64) -> Option<QubicBoard> {
        None
    }

    /// Entries of a Qubic table are records of two bytes
    /// ([`encode_record`]), not outcome bytes; this is the
    /// family's outcome byte, for the generic code that asks.
    fn encode(&self, board: QubicBoard, score: Score) -> u8 {
        encode_outcome(self.value(board, score))
    }

    /// Refuses every single entry byte: a Qubic record is two bytes, read
    /// by [`table_probe`](Tabled::table_probe).
    fn decode(&self, _board: QubicBoard, slot: u64, _entry: u8) -> Result<Score, TableError> {
        Err(TableError::Entry {
            slot,
            reason: "qubic records are two bytes, read through the strategy".into(),
        })
    }

    /// The strategy's value: see the [module documentation](self). A position it does not
    /// cover is an error here; [`table_probe`](Tabled::table_probe) says
    /// `None` instead, and the oracle searches it.
    fn table_score<D: TableData>(
        &self,
        table: &Table<D>,
        board: QubicBoard,
    ) -> Result<Score, TableError> {
        self.table_probe(table, board)?
            .map(|probed| probed.score)
            .ok_or_else(|| TableError::Entry {
                slot: board.x,
                reason: format!("{} is not a position of the strategy", self.notation(board)),
            })
    }

    /// [`live::live_probe`](super::live::live_probe): an exact search
    /// while it is quick, then proofs for both players with the strategy's
    /// records as leaves.
    fn live_probe<D: TableData>(
        &self,
        table: Option<&Table<D>>,
        canonical: QubicBoard,
        limits: &SearchLimits,
    ) -> Option<Result<Probed, Error>> {
        let records = table.map(Records);
        let leaves = records.as_ref().map(|r| r as &dyn Leaves);
        Some(live_probe(leaves, canonical, limits))
    }

    fn table_probe<D: TableData>(
        &self,
        table: &Table<D>,
        board: QubicBoard,
    ) -> Result<Option<Probed>, TableError> {
        if let Some(score) = self.terminal_score(board) {
            return Ok(Some(Probed {
                score,
                at_most: false,
                by_rules: true,
            }));
        }
        let stones = board.stones() as Score;
        let mut strategy = Strategy::new(table);
        if board.x_to_move() {
            Ok(strategy.x_move(board)?.map(|m| Probed {
                score: WIN_SCORE - (stones + Score::from(m.plies)),
                at_most: m.settled != Settled::Immediate,
                by_rules: m.settled != Settled::Record,
            }))
        } else if let Some((plies, by_rules)) = strategy.o_bound(board)? {
            Ok(Some(Probed {
                score: -(WIN_SCORE - (stones + Score::from(plies))),
                // Every move lets X complete a line at once: exact.
                at_most: plies > 2,
                by_rules,
            }))
        } else {
            // Off the strategy (X left it), O may win by force.
            Ok(strategy.o_forced_win(board).map(|plies| Probed {
                score: WIN_SCORE - (stones + Score::from(plies)),
                at_most: plies > 1,
                by_rules: true,
            }))
        }
    }
}
