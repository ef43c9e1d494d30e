//! [`TableScan`]: which games have a table file in the tables directory,
//! and so which answers run in place.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock};

use solvedb_lookup::{Game, GameId, Oracle, with_game};

/// The games whose table file is in the tables directory, as last scanned
/// (at start and on each reload). Where such a table answers every
/// position ([`GameId::table_covers_every_position`]), answers take
/// microseconds and run in place on the async workers; every other game's
/// answers may be searches (Qubic's strategy table covers only its
/// strategy's positions), which wait for a search slot and stop at the
/// request's deadline. Kept true on reload so that a game whose table was
/// removed is searched under those limits, never in place.
#[derive(Debug)]
pub struct TableScan {
    dir: PathBuf,
    games: RwLock<HashSet<GameId>>,
}

impl TableScan {
    /// The games of the catalogue whose table file is in `dir`.
    pub fn scan(dir: &Path) -> TableScan {
        TableScan {
            dir: dir.to_owned(),
            games: RwLock::new(TableScan::present(dir)),
        }
    }

    fn present(dir: &Path) -> HashSet<GameId> {
        solvedb_lookup::catalogue()
            .iter()
            .map(|game| game.id)
            .filter(|game| dir.join(game.table_file_name()).is_file())
            .collect()
    }

    /// Whether every answer about `game` is a table answer, which runs in
    /// place: its table was there at the last scan and answers every
    /// position.
    pub fn answers_in_place(&self, game: &GameId) -> bool {
        game.table_covers_every_position() && self.contains(game)
    }

    /// Whether `game`'s table was there at the last scan.
    pub fn contains(&self, game: &GameId) -> bool {
        self.games
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(game)
    }

    /// Scans the directory again (after [`Oracle::reload`]); returns the
    /// games whose table appeared or vanished since the last scan.
    pub fn rescan(&self) -> Vec<GameId> {
        let now = TableScan::present(&self.dir);
        let mut games = self.games.write().unwrap_or_else(PoisonError::into_inner);
        let changed = games.symmetric_difference(&now).copied().collect();
        *games = now;
        changed
    }

    /// Opens every table now, so that no request waits for a table's head
    /// to be read (table answers run on the async workers). A damaged table
    /// is reported by the answers that need it, as everywhere.
    pub fn open_all(&self, oracle: &Oracle) {
        let games: Vec<GameId> = self
            .games
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .copied()
            .collect();
        for game in games {
            let _ = with_game!(game, g => oracle.probe(game, &g.notation(g.start())));
        }
    }
}
