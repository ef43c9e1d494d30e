//! Values in columns: for a batch of positions, or for the positions a
//! table holds, the value of each position and of every move by its index
//! ([`Columns`]). What `solvedb export` writes and the Python package's
//! arrays and datasets hold.
//!
//! # Rows
//!
//! One row per position. Its code and move indices are the
//! [`encoding`](crate::Encoded)'s. Every value is seen from the side to move
//! as everywhere in solvedb, a move's from its mover, counted from before
//! the move, in three numbers:
//!
//! - `value`: the tic-tac-toe family's result, `1` win, `0` draw, `-1`
//!   loss; dots-and-boxes' margin, the net number of still unclaimed boxes
//!   (a move's includes the boxes it completes);
//! - `result`: the sign of `value`;
//! - `plies`: plies to the end of the game under perfect play (the winner
//!   fastest, the loser slowest); for dots-and-boxes the undrawn edges, as
//!   every ply draws one.
//!
//! Moves that are not legal have `legal` false and zeros elsewhere.
//!
//! # The positions of a table
//!
//! [`table_positions`] lists a table's positions in the order of its slots
//! (or sorted keys): each canonical position that has an entry of its own,
//! and for dots-and-boxes each canonical position with a *don't-care*
//! entry, whose value the free-capture rule resolves exactly (as every
//! probe does); the cube's table holds only quiet positions, and so does its
//! list. With `all_symmetries`, each is followed by its other distinct
//! symmetric images.

use std::ops::Range;

use rayon::prelude::*;

use crate::encoding::Encoded;
use crate::error::Error;
use crate::format::{Table, TableData, TableError};
use crate::game::Tabled;
use crate::game_oracle::GameOracle;
use crate::rng::Rng;
use crate::stop::Stop;
use crate::value::{AnyValue, Wdl};

/// Rows of values, column by column (see the [module
/// documentation](self)). Per-move columns hold `move_slots` entries per
/// row, row after row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// Move indices per row.
    pub move_slots: usize,
    /// Each position's code.
    pub code: Vec<[u64; 2]>,
    /// Whether the table holds an entry of the position's own: false for a
    /// don't-care entry (dots-and-boxes, a free capture), a position the
    /// rules settle before the table (the cube's forced play), or no table.
    pub stored: Vec<bool>,
    /// The value for the side to move.
    pub value: Vec<i8>,
    /// `1` win, `0` draw, `-1` loss (the sign of `value`).
    pub result: Vec<i8>,
    /// Plies to the end of the game.
    pub plies: Vec<u8>,
    /// Each move's value for its mover, `0` where not legal.
    pub move_value: Vec<i8>,
    /// Each move's result, `0` where not legal.
    pub move_result: Vec<i8>,
    /// Each move's plies to the end, from before the move; `0` where not
    /// legal.
    pub move_plies: Vec<u8>,
    /// Whether each move is legal.
    pub legal: Vec<bool>,
}

impl Columns {
    /// No rows, `move_slots` move indices per row.
    pub fn new(move_slots: usize) -> Columns {
        Columns {
            move_slots,
            ..Columns::default()
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Appends the rows of `other` (with the same move slots).
    pub fn append(&mut self, mut other: Columns) {
        debug_assert_eq!(self.move_slots, other.move_slots);
        self.code.append(&mut other.code);
        self.stored.append(&mut other.stored);
        self.value.append(&mut other.value);
        self.result.append(&mut other.result);
        self.plies.append(&mut other.plies);
        self.move_value.append(&mut other.move_value);
        self.move_result.append(&mut other.move_result);
        self.move_plies.append(&mut other.move_plies);
        self.legal.append(&mut other.legal);
    }

    /// Splits off the rows from `at` on (all of them past the end: none),
    /// which it returns; the first `at` stay.
    pub fn split_off(&mut self, at: usize) -> Columns {
        let at = at.min(self.len());
        let moves = at * self.move_slots;
        Columns {
            move_slots: self.move_slots,
            code: self.code.split_off(at),
            stored: self.stored.split_off(at),
            value: self.value.split_off(at),
            result: self.result.split_off(at),
            plies: self.plies.split_off(at),
            move_value: self.move_value.split_off(moves),
            move_result: self.move_result.split_off(moves),
            move_plies: self.move_plies.split_off(moves),
            legal: self.legal.split_off(moves),
        }
    }

    /// Appends one row for a position with no legal move yet.
    fn push(&mut self, code: [u64; 2], stored: bool, (value, result, plies): (i8, i8, u8)) {
        self.code.push(code);
        self.stored.push(stored);
        self.value.push(value);
        self.result.push(result);
        self.plies.push(plies);
        let slots = self.move_slots;
        self.move_value.resize(self.move_value.len() + slots, 0);
        self.move_result.resize(self.move_result.len() + slots, 0);
        self.move_plies.resize(self.move_plies.len() + slots, 0);
        self.legal.resize(self.legal.len() + slots, false);
    }

    /// Sets move `index` of the last row.
    fn set_move(&mut self, index: usize, (value, result, plies): (i8, i8, u8)) {
        let at = (self.len() - 1) * self.move_slots + index;
        self.move_value[at] = value;
        self.move_result[at] = result;
        self.move_plies[at] = plies;
        self.legal[at] = true;
    }
}

/// A value as the three numbers of a row; `moves` is the number of legal
/// moves of the position it is counted from (a dots-and-boxes game ends
/// after that many plies).
fn numbers(value: AnyValue, moves: usize) -> (i8, i8, u8) {
    match value {
        // A strategy's "at most N plies" keeps its bound as the plies (no
        // table that rows are read from holds one today).
        AnyValue::Outcome(o) | AnyValue::AtMost(o) => {
            let result = match o.wdl {
                Wdl::Win => 1,
                Wdl::Draw => 0,
                Wdl::Loss => -1,
            };
            (result, result, o.plies)
        }
        AnyValue::Margin(m) => {
            // Margins are at most the boxes of a 63-edge board; clamped
            // only to keep the conversion total.
            let m = m.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
            (m, m.signum(), u8::try_from(moves).unwrap_or(u8::MAX))
        }
    }
}

/// Positions per task when rows are computed on several threads.
const CHUNK: usize = 4096;

/// The rows of `positions`, in order, from `oracle` (its table, or its
/// search within its limits); large batches on several threads. Without
/// `moves`, only the positions' own values (no move columns: `move_slots`
/// is 0). Searches also stop when `stop` does.
///
/// # Errors
///
/// The first error of any position's answer (a damaged table, a search out
/// of its budget).
pub fn rows<G, D>(
    oracle: &GameOracle<G, D>,
    positions: &[G::Position],
    moves: bool,
    stop: &Stop,
) -> Result<Columns, Error>
where
    G: Tabled + Encoded,
    D: TableData + Send + Sync,
{
    if positions.len() <= CHUNK {
        return rows_in_order(oracle, positions, moves, stop);
    }
    let parts = positions
        .par_chunks(CHUNK)
        .map(|chunk| rows_in_order(oracle, chunk, moves, stop))
        .collect::<Result<Vec<_>, Error>>()?;
    let mut all = Columns::new(if moves { oracle.game().move_slots() } else { 0 });
    for part in parts {
        all.append(part);
    }
    Ok(all)
}

/// The rows of `positions` on this thread.
fn rows_in_order<G, D>(
    oracle: &GameOracle<G, D>,
    positions: &[G::Position],
    with_moves: bool,
    stop: &Stop,
) -> Result<Columns, Error>
where
    G: Tabled + Encoded,
    D: TableData,
{
    let game = oracle.game();
    let mut columns = Columns::new(if with_moves { game.move_slots() } else { 0 });
    let mut search = oracle.new_search(stop);
    for &position in positions {
        let score = oracle.look_up(position, &mut search)?.0;
        let moves = game.moves(position);
        let value = game.value(position, score).into();
        columns.push(
            game.code(position),
            oracle.stores(position),
            numbers(value, moves.len()),
        );
        if !with_moves {
            continue;
        }
        for &mv in &moves {
            let (child, transition) = game.play(position, mv);
            let score = transition.backup(oracle.look_up(child, &mut search)?.0);
            let value = game.value(position, score).into();
            columns.set_move(game.move_index(mv), numbers(value, moves.len()));
        }
    }
    Ok(columns)
}

/// `n` distinct places out of `0..total`, uniformly at random (all of them
/// if `n >= total`), ascending: a sample of rows, the same for the same
/// seed on every machine (Floyd's algorithm over the [`Rng`] of the test
/// kit).
pub fn sample(total: u64, n: u64, seed: u64) -> Vec<u64> {
    if n >= total {
        return (0..total).collect();
    }
    let mut rng = Rng::new(seed);
    let mut chosen = std::collections::HashSet::with_capacity(n as usize);
    for j in total - n..total {
        let t = rng.below(j + 1);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    let mut places: Vec<u64> = chosen.into_iter().collect();
    places.sort_unstable();
    places
}

/// How many slots (dense tables) or sorted records a table has: the span
/// [`table_positions`] walks.
pub fn table_span<G: Tabled, D: TableData>(game: &G, table: &Table<D>) -> u64 {
    if G::INDEX.is_dense() {
        game.slots()
    } else {
        table.header().stored
    }
}

/// Appends to `out` the positions of `table` whose slots (or sorted
/// records) lie in `span`, in order (see the [module
/// documentation](self#the-positions-of-a-table)); with `all_symmetries`,
/// each canonical position is followed by its other distinct images.
///
/// # Errors
///
/// A [`TableError`] for a damaged block.
pub fn table_positions<G: Tabled, D: TableData>(
    game: &G,
    table: &Table<D>,
    span: Range<u64>,
    all_symmetries: bool,
    out: &mut Vec<G::Position>,
) -> Result<(), Error> {
    let mut push = |position: G::Position| {
        let first = out.len();
        out.push(position);
        if all_symmetries {
            out.extend((1..game.symmetry_count()).map(|s| game.image(position, s)));
            out[first + 1..].sort_unstable();
            let mut images = out.split_off(first + 1);
            images.dedup();
            images.retain(|&p| p != position);
            out.extend(images);
        }
    };
    if G::INDEX.is_dense() {
        // Block by block: each block's entries are read out of the cache
        // once (one lookup, not one per slot), the slots then tested in
        // place.
        let per_block = u64::from(table.header().block_entries.max(1));
        let end = span.end;
        let mut slot = span.start;
        while slot < end {
            let block = slot / per_block;
            let first = block * per_block;
            let stop = (first + per_block).min(end);
            let entries = table.block_entries(block)?;
            for s in slot..stop {
                let Some(position) = game.position_at(s) else {
                    continue;
                };
                let entry = *entries.get((s - first) as usize).ok_or_else(|| {
                    TableError::Size(format!(
                        "slot {s} is past the table's {} entries",
                        table.header().entries
                    ))
                })?;
                let held = if entry != 0 {
                    true
                } else {
                    // A don't-care entry: a canonical position the rules
                    // resolve (every dots-and-boxes mask is reachable).
                    game.resolved_by_rule(position) && game.is_canonical(position)
                };
                if held {
                    push(position);
                }
            }
            slot = stop;
        }
    } else {
        for record in span {
            let (key, _) = table.sorted_record(record)?;
            if let Some(position) = game.position_at(key) {
                push(position);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::dots::Dots;
    use crate::games::tictactoe::TicTacToe;
    use crate::mapping::read_table;

    fn tables() -> std::path::PathBuf {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../tables").into()
    }

    #[test]
    fn rows_are_the_answers_by_move_index() {
        let table = read_table(&tables().join("tictactoe.sdb")).unwrap();
        let oracle = GameOracle::with_table(TicTacToe, table).unwrap();
        let position = TicTacToe.parse("XX./OO./...").unwrap();
        let columns = rows(&oracle, &[position], true, &Stop::default()).unwrap();
        assert_eq!(columns.len(), 1);
        assert_eq!((columns.value[0], columns.plies[0]), (1, 1));
        let answer = oracle.answer(position).unwrap();
        for m in &answer.moves {
            let at = usize::from(m.mv.index());
            assert!(columns.legal[at]);
            let (v, _, p) = numbers(m.value.into(), answer.moves.len());
            assert_eq!((columns.move_value[at], columns.move_plies[at]), (v, p));
        }
        assert_eq!(columns.legal.iter().filter(|&&l| l).count(), 5);
    }

    #[test]
    fn samples_are_distinct_ascending_and_seeded() {
        let a = sample(1000, 100, 7);
        assert_eq!(a.len(), 100);
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a[99] < 1000);
        assert_eq!(a, sample(1000, 100, 7));
        assert_ne!(a, sample(1000, 100, 8));
        assert_eq!(sample(5, 9, 1), vec![0, 1, 2, 3, 4]);
        // Every place is about as likely: 20,000 draws of 10 of 20.
        let mut hits = [0u32; 20];
        for seed in 0..2000 {
            for p in sample(20, 10, seed) {
                hits[p as usize] += 1;
            }
        }
        assert!(hits.iter().all(|&h| (900..1100).contains(&h)), "{hits:?}");
    }

    #[test]
    fn a_table_lists_its_canonical_positions() {
        let table = read_table(&tables().join("tictactoe.sdb")).unwrap();
        let span = 0..table_span(&TicTacToe, &table);
        let mut canonical = Vec::new();
        table_positions(&TicTacToe, &table, span.clone(), false, &mut canonical).unwrap();
        assert_eq!(canonical.len(), 765);
        let mut all = Vec::new();
        table_positions(&TicTacToe, &table, span, true, &mut all).unwrap();
        assert_eq!(all.len(), 5478);

        // The walk by blocks lists what the definition does slot by slot,
        // over spans that start and end inside blocks.
        let by_slot: Vec<_> = (0..TicTacToe.slots())
            .filter_map(|slot| TicTacToe.position_at(slot).map(|p| (slot, p)))
            .filter(|&(slot, _)| table.entry(slot).unwrap() != 0)
            .map(|(_, p)| p)
            .collect();
        assert_eq!(by_slot, canonical);
        let mut pieces = Vec::new();
        let cuts = [0, 1, 999, 4095, 4096, 4097, 12_000, TicTacToe.slots()];
        for span in cuts.windows(2) {
            table_positions(&TicTacToe, &table, span[0]..span[1], false, &mut pieces).unwrap();
        }
        assert_eq!(pieces, canonical);
        // Past the last slot there is no position, as before.
        let mut past = Vec::new();
        table_positions(
            &TicTacToe,
            &table,
            0..TicTacToe.slots() + 9,
            false,
            &mut past,
        )
        .unwrap();
        assert_eq!(past, canonical);

        // Dots: every canonical mask, stored or resolved by a free capture.
        let dots = Dots::new(1, 2).unwrap();
        let table = read_table(&tables().join("dots-1x2.sdb")).unwrap();
        let mut listed = Vec::new();
        table_positions(&dots, &table, 0..dots.slots(), false, &mut listed).unwrap();
        let expected = (0..dots.slots())
            .filter(|&m| dots.canonical(crate::Edges(m)) == crate::Edges(m))
            .count();
        assert_eq!(listed.len(), expected);
    }

    #[test]
    fn columns_split_where_asked() {
        let table = read_table(&tables().join("tictactoe.sdb")).unwrap();
        let oracle = GameOracle::with_table(TicTacToe, table).unwrap();
        let positions: Vec<_> = ["X........", "XO.......", "XX./OO./..."]
            .iter()
            .map(|t| TicTacToe.parse(t).unwrap())
            .collect();
        let mut all = rows(&oracle, &positions, true, &Stop::default()).unwrap();
        let whole = all.clone();
        let rest = all.split_off(1);
        assert_eq!((all.len(), rest.len()), (1, 2));
        assert_eq!(
            all,
            rows(&oracle, &positions[..1], true, &Stop::default()).unwrap()
        );
        assert_eq!(
            rest,
            rows(&oracle, &positions[1..], true, &Stop::default()).unwrap()
        );
        all.append(rest);
        assert_eq!(all, whole);
        assert!(all.split_off(9).is_empty());
    }
}
