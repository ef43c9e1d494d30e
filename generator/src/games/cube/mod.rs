//! The cube's generator side: its solver of quiet positions, its checks
//! (every stored position, or every reachable one with `--exhaustive`), and
//! its benchmark against the classic heuristic search.

pub mod bench;
pub mod solve;

use std::io::Write;
use std::ops::RangeInclusive;
use std::time::Instant;

use anyhow::Result;
use solvedb_lookup::Table;
use solvedb_lookup::{Cube, format::sorted_entries};

use crate::bench::BenchOptions;
use crate::build::Buildable;
use crate::build::{LayerCount, Solution};
use crate::games::GeneratorGame;
use crate::text::count;

impl Buildable for Cube {
    /// 2048 sorted records of 8 bytes: a probe decodes 16 KiB.
    const BLOCK_ENTRIES: u32 = 16384;

    const LAYERS: &'static str =
        "the stored (quiet) positions, by stones on the board; all others resolve by forced play";

    const COLUMNS: [&'static str; 3] = ["stones", "quiet", "canonical"];

    fn solve_table(&self) -> Solution {
        let solution = solve::solve_cube();
        Solution {
            layers: solution
                .counts
                .iter()
                .map(|c| LayerCount {
                    ply: c.stones as usize,
                    reachable: c.raw,
                    canonical: c.canonical,
                })
                .collect(),
            entries: sorted_entries(&solution.records, Self::BLOCK_ENTRIES),
            stored: solution.records.len() as u64,
            notes: Vec::new(),
        }
    }
}

impl GeneratorGame for Cube {
    const EXHAUSTIVE: bool = true;

    /// Every stored position is canonical, quiet and equals the best over
    /// its children; with `exhaustive`, every reachable non-terminal
    /// position with that many stones is checked the same way, layer by
    /// layer, printing each layer's counts as it finishes.
    fn verify_table(
        &self,
        table: &Table<Vec<u8>>,
        exhaustive: Option<RangeInclusive<u32>>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let stored = solve::check_stored(table)?;
        writeln!(
            out,
            "consistency ok: each of {} is canonical, quiet and equals the best over its children",
            count(stored, "stored position", "stored positions")
        )?;
        let Some(stones) = exhaustive else {
            return Ok(());
        };
        writeln!(
            out,
            "every reachable non-terminal position, by stones on the board:"
        )?;
        writeln!(
            out,
            "{:>6} {:>14} {:>12} {:>12} {:>9}",
            "stones", "raw", "canonical", "checked", "seconds"
        )?;
        // Each layer is printed when done, so a long run shows how far it got.
        let mut layer_started = Instant::now();
        let mut printed: std::io::Result<()> = Ok(());
        let counts = solve::check_exhaustive(table, stones, |c| {
            if printed.is_err() {
                return;
            }
            printed = (|| {
                writeln!(
                    out,
                    "{:>6} {:>14} {:>12} {:>12} {:>9.1}",
                    c.stones,
                    c.raw,
                    c.canonical,
                    c.checked,
                    layer_started.elapsed().as_secs_f64()
                )?;
                out.flush()
            })();
            layer_started = Instant::now();
        })?;
        printed?;
        let sum = |f: fn(&solve::StoneCount) -> u64| counts.iter().map(f).sum::<u64>();
        writeln!(
            out,
            "{:>6} {:>14} {:>12} {:>12}",
            "all",
            sum(|c| c.raw),
            sum(|c| c.canonical),
            sum(|c| c.checked)
        )?;
        writeln!(
            out,
            "exhaustive check ok: every checked position's probed value equals the best over its children"
        )?;
        Ok(())
    }

    /// Probe percentiles over a sample (too many positions to probe them
    /// all), and the classic heuristic search measured against the table.
    fn bench(&self, options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
        bench::run(options, out)
    }
}
