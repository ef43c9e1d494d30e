//! Full consistency check of a table against the rules: every stored value
//! equals the best over its children, and the stored positions are exactly
//! the canonical positions reachable from the start.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use rayon::prelude::*;
use solvedb_lookup::{BlockCache, Error, Score, Table, TableData, TableError, Tabled};

use crate::build::layers::best_score;

/// A table file read whole into memory, every block it decodes kept (the
/// checks read every entry, most of them more than once), or an error
/// naming the file.
///
/// # Errors
///
/// The file cannot be read, or its header or checksums are wrong.
pub fn read_whole(file: &Path) -> anyhow::Result<Table<Vec<u8>>> {
    let open = || -> Result<_, Error> {
        let bytes = std::fs::read(file).map_err(|source| Error::Io {
            path: file.to_owned(),
            source,
        })?;
        Ok(Table::with_cache(bytes, Arc::new(BlockCache::unbounded()))?)
    };
    open().with_context(|| format!("opening {}", file.display()))
}

/// What a consistency check looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consistency {
    /// Positions whose value was recomputed from their children: the stored
    /// ones and the don't-care ones (by their resolution).
    pub checked: u64,
}

/// Checks every stored entry of a table: its slot holds a legal canonical
/// position, its value equals the best over its children (looked up in the
/// same table; terminal positions by the rules), and every child is stored.
/// Don't-care entries (positions the game resolves by rule) are checked by
/// their resolution the same way.
/// With the start position stored, that closure proves every reachable
/// position has an entry.
///
/// # Errors
///
/// The first inconsistency, as a [`TableError::Entry`] naming the slot, or
/// any error reading the table.
pub fn check_consistency<G: Tabled, D: TableData + Send + Sync>(
    game: &G,
    table: &Table<D>,
) -> Result<Consistency, Error> {
    game.check_header(table.header())?;
    let start = game.canonical(game.start());
    game.table_score(table, start)?;
    let checked = if G::INDEX.is_dense() {
        (0..game.slots())
            .into_par_iter()
            .map(|slot| check_entry(game, table, slot, table.entry(slot)?))
            .sum::<Result<u64, Error>>()?
    } else {
        (0..table.header().stored)
            .into_par_iter()
            .map(|record| {
                let (key, entry) = table.sorted_record(record)?;
                check_entry(game, table, key, entry)
            })
            .sum::<Result<u64, Error>>()?
    };
    Ok(Consistency { checked })
}

/// Checks the entry of one slot (or sorted key); an empty one counts 0,
/// unless it is the don't-care entry of a canonical position the game
/// resolves by rule ([`Tabled::resolved_by_rule`]): then the resolution is
/// checked against the children like a stored value, and counts 1.
fn check_entry<G: Tabled, D: TableData>(
    game: &G,
    table: &Table<D>,
    slot: u64,
    entry: u8,
) -> Result<u64, Error> {
    let bad = |reason: String| Error::Table(TableError::Entry { slot, reason });
    if entry == 0 {
        let resolved = game
            .position_at(slot)
            .filter(|&p| game.resolved_by_rule(p) && game.canonical(p) == p);
        return match resolved {
            // Every slot of a game with don't-care entries is reachable
            // (dots-and-boxes); a probe resolves it, so its resolution is
            // what must equal the best over its children.
            Some(position) => check_value(
                game,
                table,
                slot,
                position,
                game.table_score(table, position)?,
            ),
            None => Ok(0),
        };
    }
    let position = game
        .position_at(slot)
        .ok_or_else(|| bad("the slot names no board".into()))?;
    game.parse(&game.notation(position))
        .map_err(|e| bad(format!("stored position is not reachable: {e}")))?;
    if game.canonical(position) != position {
        return Err(bad("stored position is not canonical".into()));
    }
    if game.resolved_by_rule(position) {
        return Err(bad(format!(
            "{} is resolved by rule, its entry must be 0 (don't care)",
            game.notation(position)
        )));
    }
    let stored = game.decode(position, slot, entry)?;
    check_value(game, table, slot, position, stored)
}

/// Checks that `stored`, the value a table gives `position`, equals the
/// best over its children (read from the same table).
fn check_value<G: Tabled, D: TableData>(
    game: &G,
    table: &Table<D>,
    slot: u64,
    position: G::Position,
    stored: Score,
) -> Result<u64, Error> {
    let bad = |reason: String| Error::Table(TableError::Entry { slot, reason });
    let mut missing = None;
    let expected = best_score(game, position, |child| {
        game.table_score(table, child).unwrap_or_else(|e| {
            missing.get_or_insert(e);
            0
        })
    });
    if let Some(e) = missing {
        return Err(bad(format!(
            "a child of {} is not readable: {e}",
            game.notation(position)
        )));
    }
    if stored != expected {
        return Err(bad(format!(
            "{} is stored as {} but its moves give {}",
            game.notation(position),
            game.value(position, stored),
            game.value(position, expected)
        )));
    }
    Ok(1)
}
