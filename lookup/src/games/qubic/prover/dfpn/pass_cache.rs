//! The cache of pass lines: the attacker's threat line where the defender,
//! to move, passes, remembered by position
//! ([`ProverLimits::pass_cache`](super::super::ProverLimits::pass_cache)).

use crate::games::qubic::threats::ThreatLine;

use super::Prover;

/// A remembered pass line: the position (attacker's and defender's stones,
/// the defender to move) and what [`ThreatSearch::find`] returned for the
/// attacker there. `find` is a pure function of the position and the
/// budget, so the cache changes no result, only the time.
#[derive(Copy, Clone, Debug)]
pub(super) struct PassEntry {
    attacker: u64,
    defender: u64,
    line: Option<ThreatLine>,
    used: bool,
}

/// An empty cache of `entries` entries, rounded up to a power of two (none
/// for `0`).
pub(super) fn pass_cache(entries: usize) -> Vec<PassEntry> {
    vec![
        PassEntry {
            attacker: 0,
            defender: 0,
            line: None,
            used: false,
        };
        if entries == 0 {
            0
        } else {
            entries.next_power_of_two()
        }
    ]
}

impl Prover<'_> {
    /// The attacker's threat line if the defender passed
    /// ([`ThreatSearch::find`]), through the cache of pass lines.
    pub(super) fn pass_line(&mut self, attacker: u64, defender: u64) -> Option<ThreatLine> {
        let slot = if self.pass_cache.is_empty() {
            None
        } else {
            let h = (attacker.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ defender.wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
                >> 17;
            let slot = h as usize & (self.pass_cache.len() - 1);
            let entry = self.pass_cache[slot];
            if entry.used && entry.attacker == attacker && entry.defender == defender {
                self.stats.pass_cache_hits += 1;
                return entry.line;
            }
            Some(slot)
        };
        self.stats.threat_searches += 1;
        let line = self.threats.find(attacker, defender);
        if line.is_some() {
            self.stats.threat_wins += 1;
        }
        if let Some(slot) = slot {
            self.pass_cache[slot] = PassEntry {
                attacker,
                defender,
                line,
                used: true,
            };
        }
        line
    }
}
