//! What bounds the server: [`ServerLimits`] on connections, requests and
//! the live searches they start, and the sizes of a request's query and
//! body.

use std::time::Duration;

/// The longest query string answered; a game name and the longest position
/// notation ([`solvedb_lookup::MAX_NOTATION_LEN`]), percent-encoded, fit
/// with room to spare.
pub const MAX_QUERY_BYTES: usize = 2048;

/// The largest request body read (the API takes none).
pub const MAX_BODY_BYTES: usize = 4096;

/// What bounds the server: connections, requests and the live searches
/// they start. Every field has a default (`solvedb serve --help` and the
/// README state them); tests set short ones.
#[derive(Copy, Clone, Debug)]
pub struct ServerLimits {
    /// Searches running at once (each on a blocking thread).
    pub searches: usize,
    /// Requests that may wait for a search slot; one more is answered 503
    /// at once.
    pub search_queue: usize,
    /// How long a request waits for a search slot before it is refused
    /// with kind `budget`.
    pub queue_wait: Duration,
    /// The time all the live searches of one request may take together
    /// (a probe and each of its moves, a main line, a posted game's
    /// judging).
    pub search_time: Duration,
    /// The positions all the searches of one request may visit together,
    /// if bounded.
    pub search_nodes: Option<u64>,
    /// Memory of one search's transposition table.
    pub search_table_bytes: u64,
    /// Decoded table blocks kept, over all tables (least recently used
    /// go first): with the searches' tables, what bounds the server's
    /// memory however many positions are probed.
    pub table_cache_bytes: usize,
    /// From the moment a connection waits for a request (new, or kept
    /// alive after an answer) to the end of the request's headers: a
    /// connection slower or idle for longer is closed.
    pub header_read: Duration,
    /// The longest a request's body may take to arrive.
    pub body_read: Duration,
    /// The longest a request may take in all; past it the answer is 503
    /// with the error object, and its searches stop.
    pub request_time: Duration,
    /// Requests handled at once; one more is answered 503 at once.
    pub in_flight: usize,
    /// Open connections (WebSockets included); lowered at start to fit the
    /// open-files limit.
    pub connections: usize,
    /// Open connections from one client address (an IPv6 /64).
    pub connections_per_address: usize,
    /// New identities one client address may bring to the leaderboard in
    /// an hour ([`Store::with_new_identities_per_hour`](crate::store::Store::with_new_identities_per_hour)).
    pub new_identities_per_hour: u32,
    /// How long the leaderboard's database waits for another process's
    /// lock before a write fails (and a finished game's record is retried,
    /// see [`recording`](super::recording)).
    pub store_busy_timeout: Duration,
    /// Searches and computer moves one client address may ask for in a
    /// burst (table answers are not counted).
    pub search_burst: u32,
    /// Searches and computer moves one client address may ask for per
    /// second, on average.
    pub searches_per_second: f64,
    /// Bytes of request bodies held at once, over every connection: a body
    /// that would take more is refused (503, the connection closed)
    /// before it is read.
    pub body_bytes: usize,
    /// Writes (POSTs) from one client address in a burst.
    pub write_burst: u32,
    /// Writes from one client address per second, on average.
    pub writes_per_second: f64,
    /// How long a stopping server waits for its connections (WebSockets
    /// included) before it drops them.
    pub shutdown: Duration,
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            searches: 2,
            search_queue: 8,
            queue_wait: Duration::from_secs(2),
            search_time: Duration::from_secs(3),
            search_nodes: None,
            search_table_bytes: 64 << 20,
            table_cache_bytes: solvedb_lookup::BlockCache::DEFAULT_CAPACITY,
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            request_time: Duration::from_secs(10),
            in_flight: 256,
            connections: 4096,
            connections_per_address: 64,
            new_identities_per_hour: crate::store::NEW_IDENTITIES_PER_HOUR,
            store_busy_timeout: crate::store::BUSY_TIMEOUT,
            search_burst: 20,
            searches_per_second: 4.0,
            body_bytes: 4 << 20,
            write_burst: 20,
            writes_per_second: 1.0,
            shutdown: Duration::from_secs(5),
        }
    }
}
