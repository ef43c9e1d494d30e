//! Qubic's opening table: the value of every move at the early positions
//! of the strategy, not only the strategy's own.
//!
//! # What the table holds
//!
//! The strategy table ([`strategy`](super::strategy)) gives X one move per
//! position, so at a position of the strategy every other X move would be
//! unknown. The opening table is built beside it (`solvedb build qubic`)
//! for every X-to-move position of the strategy with at most
//! [`OPENING_STONES`] stones (up to symmetry): one record per position one
//! move away, keyed by its canonical board ([`key`]),
//! so that the moves of a position that are images of one another under
//! its own symmetries share a record, and so do transpositions. A record's
//! two entry bytes are how the position is settled ([`Settlement`]) and a
//! bound on the plies to the win from it:
//!
//! - [`Settlement::Strategy`]: X wins by the strategy. The position after
//!   the strategy's move, or one every O reply of which leads to a
//!   position of the strategy (a transposition), with the strategy's
//!   bound; and the positions after O's moves at the O-to-move positions
//!   of the strategy, which are the strategy's own X-to-move positions.
//! - [`Settlement::Proved`]: X wins by a df-pn proof
//!   ([`Prover`](super::prover::Prover), the strategy's records as
//!   leaves) within the build's node budget; the bound is the empty cells
//!   (of X's parity), the only bound a proof-number search gives.
//! - [`Settlement::OWins`]: O wins (a line completed at once, or a shortest
//!   threat line of O), with that line's plies.
//! - [`Settlement::NotXWin`]: the proof for X was refuted: X does not win
//!   (a draw or a loss; which is not known).
//! - [`Settlement::Unsettled`]: not settled within the build's budget.
//!
//! Positions the rules settle (X completes a line) are not stored. The
//! table's own walker (`solvedb verify`, the generator's
//! `games/qubic/opening_walk`) checks every record again without the
//! builder's code.

use super::board::{QubicBoard, key};
use super::lines::{has_line, line_cells};
use super::symmetry::canonical_with_symmetry;
use crate::format::{Table, TableData, TableError};
use crate::game::Probed;
use crate::value::{Score, WIN_SCORE};

/// The most stones of an X-to-move position of the strategy whose every
/// move the opening table holds.
pub const OPENING_STONES: u32 = 6;

/// The file of the opening table, beside the strategy's `qubic.sdb`.
pub const OPENING_FILE: &str = "qubic-opening.sdb";

/// How a position of the opening table is settled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Settlement {
    /// Not settled within the build's budget.
    Unsettled = 0,
    /// X wins by the strategy table.
    Strategy = 1,
    /// X wins by a df-pn proof within the build's budget.
    Proved = 2,
    /// O wins: a line at once or a threat line.
    OWins = 3,
    /// X does not win (the proof for X was refuted).
    NotXWin = 4,
}

impl Settlement {
    /// All of them, in the order of their bytes.
    pub const ALL: [Settlement; 5] = [
        Settlement::Unsettled,
        Settlement::Strategy,
        Settlement::Proved,
        Settlement::OWins,
        Settlement::NotXWin,
    ];

    /// In words, for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Settlement::Unsettled => "not settled",
            Settlement::Strategy => "X wins by the strategy",
            Settlement::Proved => "X wins by a proof",
            Settlement::OWins => "O wins",
            Settlement::NotXWin => "X does not win",
        }
    }

    /// Whether the plies are a bound on someone's win.
    pub fn has_plies(self) -> bool {
        matches!(
            self,
            Settlement::Strategy | Settlement::Proved | Settlement::OWins
        )
    }

    /// Whether X is the winner it settles.
    pub fn x_wins(self) -> bool {
        matches!(self, Settlement::Strategy | Settlement::Proved)
    }
}

/// One record's value: how the position is settled and, for a win, at most
/// how many plies it takes from the position (0 otherwise).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpeningValue {
    /// How it is settled.
    pub settled: Settlement,
    /// The plies to the winner's line, at most (0 where nobody's win is
    /// known).
    pub plies: u8,
}

/// The two entry bytes of a record.
pub fn encode_opening(value: OpeningValue) -> [u8; 2] {
    [value.settled as u8, value.plies]
}

/// The plies of a win from `board` of the winner `x_wins`: odd when the
/// winner moves, even otherwise.
fn winner_parity(board: QubicBoard, x_wins: bool, plies: u8) -> bool {
    (plies % 2 == 1) == (board.x_to_move() == x_wins)
}

/// The value a record holds for the canonical board `board`.
///
/// # Errors
///
/// [`TableError::Entry`] unless the board is a legal position that is not
/// over, the settlement is known, and the plies are 0 where no win is
/// claimed, else of the winner's parity and within the empty cells.
pub fn decode_opening(board: QubicBoard, entry: [u8; 2]) -> Result<OpeningValue, TableError> {
    let bad = |reason: String| TableError::Entry {
        slot: board.x,
        reason: format!(
            "qubic opening record {:016x}{:016x}: {reason}",
            board.x, board.o
        ),
    };
    let (x, o) = (board.x.count_ones(), board.o.count_ones());
    if board.x & board.o != 0 || !(x == o || x == o + 1) {
        return Err(bad("not a legal position".into()));
    }
    if has_line(board.x) || has_line(board.o) || board.empty() == 0 {
        return Err(bad("a position that is over".into()));
    }
    let [settled, plies] = entry;
    let Some(&settled) = Settlement::ALL.get(usize::from(settled)) else {
        return Err(bad(format!("settlement {settled} is unknown")));
    };
    let fits = if settled.has_plies() {
        plies >= 1
            && u32::from(plies) <= board.empty().count_ones()
            && winner_parity(board, settled.x_wins(), plies)
    } else {
        plies == 0
    };
    if !fits {
        return Err(bad(format!(
            "{plies} plies do not fit {}",
            settled.as_str()
        )));
    }
    Ok(OpeningValue { settled, plies })
}

/// The opening table's record of a canonical board, if it has one.
///
/// # Errors
///
/// A [`TableError`] if the record or its block is corrupt.
pub fn opening_record<D: TableData>(
    table: &Table<D>,
    canonical: QubicBoard,
) -> Result<Option<OpeningValue>, TableError> {
    match table.wide_entry(key(canonical))? {
        Some(entry) => Ok(Some(decode_opening(canonical, entry)?)),
        None => Ok(None),
    }
}

/// The value the opening table gives `board` (any image; not over), for
/// the side to move: a win or a loss "in at most N plies", or `None` where
/// it holds no record or no winner.
///
/// # Errors
///
/// As [`opening_record`].
pub fn opening_probe<D: TableData>(
    table: &Table<D>,
    board: QubicBoard,
) -> Result<Option<Probed>, TableError> {
    let (canonical, _) = canonical_with_symmetry(board);
    let Some(value) = opening_record(table, canonical)? else {
        return Ok(None);
    };
    if !value.settled.has_plies() {
        return Ok(None);
    }
    let score = WIN_SCORE - (board.stones() as Score + Score::from(value.plies));
    let mover_wins = board.x_to_move() == value.settled.x_wins();
    // A line completed at once by the mover is exact; the rest are bounds.
    let exact = value.plies == 1 && line_cells(mover(board).0, mover(board).1).threats != 0;
    Ok(Some(Probed {
        score: if mover_wins { score } else { -score },
        at_most: !exact,
        by_rules: false,
    }))
}

/// The mover's stones and the other side's.
fn mover(board: QubicBoard) -> (u64, u64) {
    if board.x_to_move() {
        (board.x, board.o)
    } else {
        (board.o, board.x)
    }
}
