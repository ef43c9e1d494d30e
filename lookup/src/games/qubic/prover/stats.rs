//! What a [`Prover`](super::Prover) counts ([`ProverStats`]).

/// Counters of a [`Prover`](super::Prover), for measuring (serialised in the files a
/// build keeps its proved tasks in).
#[derive(Copy, Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ProverStats {
    /// Calls of the proof search's recursion (`mid`).
    pub mid_calls: u64,
    /// Nodes expanded: their children generated and evaluated.
    pub expansions: u64,
    /// Threat searches started.
    pub threat_searches: u64,
    /// Threat searches that found a line.
    pub threat_wins: u64,
    /// Nodes of every threat search.
    pub threat_nodes: u64,
    /// Defender moves answered by the line found for a pass (a hint that
    /// still worked).
    pub hinted_wins: u64,
    /// Defender moves outside the zone of that line (answered without a
    /// search).
    pub zone_wins: u64,
    /// Pass lines answered by the cache.
    pub pass_cache_hits: u64,
    /// OR nodes that took more moves in (see [`ProverLimits::width`](super::ProverLimits::width)).
    pub widenings: u64,
}
