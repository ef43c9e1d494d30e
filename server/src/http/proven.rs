//! What the server has proved about positions it searched: a bounded
//! cache of [`Proven`] answers, one per position, shared by the probe, the
//! computer's move and the hints, so a position off the tables is searched
//! once however many of them ask; and the count of searches run, which
//! answers carry (the header [`SEARCHES_HEADER`]).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value as Json;
use solvedb_lookup::{AnyValue, Bounds, ErrorKind, GameId, Report, Want, bounds_json, error_json};

/// The response header that counts the live searches the server has run
/// since it started (a cached answer runs none).
pub const SEARCHES_HEADER: &str = "x-solvedb-searches";

/// Positions the cache keeps by default: a few thousand answers of a few
/// kilobytes each (a 5×5 dots answer, 60 moves with two bounds each, is
/// about 4 KB of JSON), some megabytes at most.
pub const DEFAULT_CAPACITY: usize = 2048;

/// What a search proved about one position: the whole answer, or bounds
/// on the value and every move where it stopped first.
#[derive(Clone, Debug)]
pub enum Proven {
    /// Every move valued.
    Answer(Report),
    /// Where the search stopped: what it proved, and why it stopped.
    Partial {
        /// Bounds on the value and on every legal move.
        bounds: Bounds,
        /// Why it stopped, as the error said it.
        message: String,
    },
}

impl Proven {
    /// A move proved best: the first of a whole answer; in bounds, a move
    /// whose lower bound reaches the value's upper bound (no move can do
    /// better). `None` where no move is proved best (or none is legal).
    pub fn best_move(&self) -> Option<&str> {
        match self {
            Proven::Answer(report) => report.moves.first().map(|m| m.mv.as_str()),
            Proven::Partial { bounds, .. } => bounds
                .moves
                .iter()
                .filter(|m| rank(m.bounds.lower) >= rank(bounds.value.upper))
                .max_by_key(|m| rank(m.bounds.lower))
                .map(|m| m.mv.as_str()),
        }
    }

    /// The answer as the probe gives it for `want` (moves or the best
    /// one): the report's JSON, or the error of kind `budget` with the
    /// `bounds` proved, and `best_move` (the move proved best, `null` where
    /// none is).
    pub fn to_json_for(&self, want: Want) -> Result<Json, (ErrorKind, Json)> {
        match self {
            Proven::Answer(report) => Ok(report.to_json_for(want)),
            Proven::Partial { bounds, message } => {
                let mut json = error_json(Some(ErrorKind::Budget), message);
                json["bounds"] = bounds_json(bounds);
                json["best_move"] = self.best_move().map_or(Json::Null, Json::from);
                Err((ErrorKind::Budget, json))
            }
        }
    }
}

/// An order on values for the player who has them, larger better: a
/// margin by its size; a win, the faster the better, above a draw, above a
/// loss, the later the better (a strategy's bound read as its plies).
pub fn rank(value: AnyValue) -> i32 {
    match value {
        AnyValue::Margin(m) => m,
        AnyValue::Outcome(o) | AnyValue::AtMost(o) => {
            let plies = i32::from(o.plies);
            match o.wdl {
                solvedb_lookup::Wdl::Win => 1000 - plies,
                solvedb_lookup::Wdl::Draw => 0,
                solvedb_lookup::Wdl::Loss => -1000 + plies,
            }
        }
    }
}

/// The cache: at most `capacity` positions, the oldest dropped first.
#[derive(Debug)]
pub struct ProvenCache {
    capacity: usize,
    entries: Mutex<Entries>,
    searches: AtomicU64,
}

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<(GameId, String), Proven>,
    order: VecDeque<(GameId, String)>,
}

impl ProvenCache {
    /// An empty cache of at most `capacity` positions.
    pub fn new(capacity: usize) -> ProvenCache {
        ProvenCache {
            capacity,
            entries: Mutex::default(),
            searches: AtomicU64::new(0),
        }
    }

    /// What was proved of `position` (in its normal notation), if kept.
    pub fn get(&self, game: GameId, position: &str) -> Option<Proven> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.map.get(&(game, position.to_owned())).cloned()
    }

    /// Keeps what was proved of `position`, dropping the oldest entry when
    /// full.
    pub fn put(&self, game: GameId, position: &str, proven: Proven) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let key = (game, position.to_owned());
        if entries.map.insert(key.clone(), proven).is_none() {
            entries.order.push_back(key);
        }
        while entries.order.len() > self.capacity {
            if let Some(old) = entries.order.pop_front() {
                entries.map.remove(&old);
            }
        }
    }

    /// The positions kept.
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts one more live search run.
    pub fn count_search(&self) {
        self.searches.fetch_add(1, Ordering::Relaxed);
    }

    /// The live searches run so far.
    pub fn searches(&self) -> u64 {
        self.searches.load(Ordering::Relaxed)
    }
}

impl Default for ProvenCache {
    fn default() -> ProvenCache {
        ProvenCache::new(DEFAULT_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_position_goes_first_when_full() {
        let cache = ProvenCache::new(2);
        let partial = || Proven::Partial {
            bounds: Bounds {
                value: solvedb_lookup::ValueBounds {
                    lower: AnyValue::Margin(-1),
                    upper: AnyValue::Margin(2),
                },
                moves: Vec::new(),
            },
            message: "stopped".into(),
        };
        let game = GameId::Qubic;
        for p in ["a", "b", "c"] {
            cache.put(game, p, partial());
        }
        assert_eq!(cache.len(), 2);
        assert!(cache.get(game, "a").is_none());
        assert!(cache.get(game, "c").is_some());
        cache.count_search();
        assert_eq!(cache.searches(), 1);
    }
}
