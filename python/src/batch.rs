//! The rows of a batch one status each: answered in large pieces (the
//! lookup crate spreads a piece over threads), a piece that fails answered
//! row by row so that only the rows without an answer are marked.

use std::ops::Range;

use solvedb_lookup::{
    Columns, Encoded, Error as LookupError, GameId, Oracle as LookupOracle, Positions, Stop,
    with_game,
};

use crate::errors::{PyRowError, RowStatus};
use crate::input::Batch;

/// Rows answered in one piece, when no row of it fails.
const PIECE: usize = 1 << 16;

/// A batch's rows: their columns (zeros in a row without an answer), each
/// row's status (`RowStatus` as a byte), and the rows whose answer failed.
#[derive(Debug)]
pub struct Rows {
    pub columns: Columns,
    pub status: Vec<u8>,
    pub failed: Vec<(usize, LookupError)>,
}

/// The rows of `batch`; `one_by_one` where every row may search (each row
/// its own search, so one out of budget fails only itself).
///
/// # Errors
///
/// An error that is no row's own (see `RowStatus::of_row`): a damaged
/// table, a game this build does not answer, `stop` cancelled.
pub fn rows(
    oracle: &LookupOracle,
    game: GameId,
    batch: &Batch,
    moves: bool,
    one_by_one: bool,
    stop: &Stop,
) -> Result<Rows, LookupError> {
    let slots = if moves {
        with_game!(game, g => Ok::<_, LookupError>(g.move_slots()))?
    } else {
        0
    };
    let n = batch.len();
    let mut rows = Rows {
        columns: Columns::new(slots),
        status: Vec::with_capacity(n),
        failed: Vec::new(),
    };
    let piece = if one_by_one { 1 } else { PIECE };
    for start in (0..n).step_by(piece) {
        let range = start..(start + piece).min(n);
        let whole = (range.len() == 1 || !range.clone().any(|i| batch.is_bad(i)))
            .then(|| columns(oracle, game, batch, range.clone(), moves, stop));
        match whole {
            Some(Ok(part)) => {
                rows.columns.append(part);
                rows.status.resize(range.end, RowStatus::Known as u8);
            }
            Some(Err(error)) if range.len() == 1 => rows.fail(range.start, error, batch)?,
            _ => {
                for i in range {
                    match columns(oracle, game, batch, i..i + 1, moves, stop) {
                        Ok(part) => {
                            rows.columns.append(part);
                            rows.status.push(RowStatus::Known as u8);
                        }
                        Err(error) => rows.fail(i, error, batch)?,
                    }
                }
            }
        }
        if stop.is_cancelled() {
            return Err(LookupError::Cancelled);
        }
    }
    Ok(rows)
}

/// The answers about `range` of `batch`; a row that is not a string is a
/// position error.
fn columns(
    oracle: &LookupOracle,
    game: GameId,
    batch: &Batch,
    range: Range<usize>,
    moves: bool,
    stop: &Stop,
) -> Result<Columns, LookupError> {
    let positions = match batch {
        Batch::Codes(codes) => Positions::Codes(&codes[range]),
        Batch::Texts { texts, .. } => Positions::Notation(&texts[range]),
    };
    oracle.columns_within(game, positions, moves, stop)
}

impl Rows {
    /// Row `index` failed with `error`: zeros and its status, or the
    /// error itself where it is not the row's own.
    fn fail(&mut self, index: usize, error: LookupError, batch: &Batch) -> Result<(), LookupError> {
        let status = if batch.is_bad(index) {
            RowStatus::BadInput
        } else {
            match RowStatus::of_row(&error) {
                Some(status) => status,
                None => return Err(error),
            }
        };
        let code = match batch {
            Batch::Codes(codes) => codes[index],
            Batch::Texts { .. } => [0, 0],
        };
        let c = &mut self.columns;
        let slots = c.move_slots;
        c.code.push(code);
        c.stored.push(false);
        c.value.push(0);
        c.result.push(0);
        c.plies.push(0);
        c.move_value.resize(c.move_value.len() + slots, 0);
        c.move_result.resize(c.move_result.len() + slots, 0);
        c.move_plies.resize(c.move_plies.len() + slots, 0);
        c.legal.resize(c.legal.len() + slots, false);
        self.status.push(status as u8);
        if !batch.is_bad(index) {
            self.failed.push((index, error));
        }
        Ok(())
    }
}

/// The rows without an answer, in order: those that were not strings and
/// those whose answer failed.
pub fn bad_rows(batch: Batch, failed: Vec<(usize, LookupError)>) -> Vec<PyRowError> {
    let mut rows: Vec<PyRowError> = failed
        .into_iter()
        .map(|(index, error)| PyRowError::from_lookup(index, error))
        .collect();
    if let Batch::Texts { bad, .. } = batch {
        rows.extend(bad);
    }
    rows.sort_by_key(PyRowError::index_of);
    rows
}
