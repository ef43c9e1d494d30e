//! [`AppState`]: what every handler shares.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use solvedb_lookup::Oracle;

use super::body_bytes::BodyBytes;
use super::limits::ServerLimits;
use super::proven::ProvenCache;
use super::rate::Buckets;
use super::rooms::{RoomLimits, Rooms};
use super::search_slots::SearchSlots;
use super::sessions::{SessionLimits, Sessions};
use super::table_scan::TableScan;
use crate::store::Store;

/// What every handler shares.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The oracle, over the tables directory.
    pub oracle: Arc<Oracle>,
    /// The games whose table file exists: answered in place, without a
    /// search slot.
    pub tables: Arc<TableScan>,
    /// Slots for live searches, and the requests waiting for one.
    pub searches: Arc<SearchSlots>,
    /// The limits requests and searches run under.
    pub limits: ServerLimits,
    /// Writes per client address.
    pub writes: Arc<Buckets>,
    /// Bytes of request bodies held at once.
    pub body_bytes: Arc<BodyBytes>,
    /// The address served, once bound ([`serve_until`](super::serve_until) sets it).
    pub bound: Option<SocketAddr>,
    /// The open rooms.
    pub rooms: Arc<Rooms>,
    /// The open games against the computer.
    pub sessions: Arc<Sessions>,
    /// The leaderboard's database.
    pub store: Arc<Store>,
    /// What searches proved, by position, and the count of searches run.
    pub proven: Arc<ProvenCache>,
}

impl AppState {
    /// The state for an oracle over `tables`, requests bounded by `limits`.
    ///
    /// # Errors
    ///
    /// If `tables` exists and is not a directory. The leaderboard is kept
    /// in memory until [`with_data`](AppState::with_data) names a directory.
    pub fn new(tables: &Path, limits: ServerLimits) -> Result<AppState> {
        // A search's own time limit is the request's: one deadline (and
        // node budget) for all the searches of a request, set per request
        // by `api::ask`.
        let oracle = Oracle::open(tables)
            .with_context(|| format!("opening tables directory {}", tables.display()))?
            .with_cache_capacity(limits.table_cache_bytes)
            .with_search_limits(solvedb_lookup::SearchLimits {
                table_bytes: Some(limits.search_table_bytes),
                // Each search on every core (dots); at most `searches` at once.
                threads: None,
                ..solvedb_lookup::SearchLimits::default()
            })
            // A dots board's next search starts from the table of the one
            // before (a game's next position is mostly in it): as many
            // kept as searches run at once, so the searches' tables take
            // at most twice `searches` × `search_table_bytes`.
            .with_kept_solvers(limits.searches);
        let scan = TableScan::scan(tables);
        scan.open_all(&oracle);
        Ok(AppState {
            oracle: Arc::new(oracle),
            tables: Arc::new(scan),
            searches: Arc::new(SearchSlots::new(&limits)),
            limits,
            writes: Arc::new(Buckets::new(limits.write_burst, limits.writes_per_second)),
            body_bytes: Arc::new(BodyBytes::new(limits.body_bytes)),
            bound: None,
            rooms: Arc::new(Rooms::new(RoomLimits::default())),
            sessions: Arc::new(Sessions::new(SessionLimits::default())),
            store: Arc::new(
                Store::in_memory()?
                    .with_new_identities_per_hour(limits.new_identities_per_hour)
                    .with_busy_timeout(limits.store_busy_timeout)?,
            ),
            proven: Arc::new(ProvenCache::default()),
        })
    }

    /// The same state with the leaderboard kept in `dir` (created if
    /// missing).
    ///
    /// # Errors
    ///
    /// If the database there cannot be opened or migrated.
    pub fn with_data(mut self, dir: &Path) -> Result<AppState> {
        self.store = Arc::new(
            Store::open(dir)?
                .with_new_identities_per_hour(self.limits.new_identities_per_hour)
                .with_busy_timeout(self.limits.store_busy_timeout)?,
        );
        Ok(self)
    }

    /// The same state with games against the computer bounded by `limits`
    /// (and none open).
    pub fn with_session_limits(mut self, limits: SessionLimits) -> AppState {
        self.sessions = Arc::new(Sessions::new(limits));
        self
    }

    /// The same state with rooms bounded by `limits` (and no rooms open).
    pub fn with_room_limits(mut self, limits: RoomLimits) -> AppState {
        self.rooms = Arc::new(Rooms::new(limits));
        self
    }
}
