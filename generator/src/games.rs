//! What the command line needs to know about each game beyond the `Game`
//! abstraction: how its table is solved and laid out, and how its build
//! report reads.

use solvedb_lookup::format::sorted_entries;
use solvedb_lookup::{Cube, Dots, Tabled, TicTacToe};

use crate::cube::solve_cube;
use crate::retrograde;
use crate::solve::{LayerCount, Solution, solve};

/// A game the `solvedb` command can build, verify and probe.
pub trait CliGame: Tabled + Copy {
    /// Entry bytes per table block: small enough that a probe decodes
    /// little, large enough for zstd to find the repetition.
    const BLOCK_ENTRIES: u32 = 4096;

    /// What the counts of [`Solution::layers`] count, for the build report.
    const LAYERS: &'static str = "every reachable position, by ply";

    /// Column heads of the build report: the layer, its positions, and its
    /// positions up to symmetry.
    const COLUMNS: [&'static str; 3] = ["ply", "reachable", "canonical"];

    /// Solves the game for its table. The default enumerates the reachable
    /// positions layer by layer in memory ([`solve`]); games whose tables are
    /// too big for that (dense edge sets of dots-and-boxes) override it.
    fn solve_table(&self) -> Solution {
        solve(self)
    }
}

impl CliGame for TicTacToe {}

impl CliGame for Cube {
    /// 2048 sorted records of 8 bytes: a probe decodes 16 KiB.
    const BLOCK_ENTRIES: u32 = 16384;

    const LAYERS: &'static str =
        "the stored (quiet) positions, by stones on the board; all others resolve by forced play";

    const COLUMNS: [&'static str; 3] = ["stones", "quiet", "canonical"];

    fn solve_table(&self) -> Solution {
        let solution = solve_cube();
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
        }
    }
}

impl CliGame for Dots {
    /// Dense tables are big (2^31 slots for 3x4): 64 KiB blocks keep the
    /// block index at 24 bytes per 65,536 slots while a probe still decodes
    /// only 64 KiB.
    const BLOCK_ENTRIES: u32 = 1 << 16;

    const COLUMNS: [&'static str; 3] = ["edges", "positions", "canonical"];

    /// Retrograde analysis over the dense array of all edge sets
    /// ([`retrograde`]) instead of the generic layer-by-layer hash maps.
    fn solve_table(&self) -> Solution {
        retrograde::solve(*self)
    }
}

/// Every dots-and-boxes board with at most `max_edges` edges, rectangles
/// both ways, smallest first.
pub fn dots_boards(max_edges: u32) -> Vec<Dots> {
    let mut boards: Vec<Dots> = (1..=max_edges.min(255) as u8)
        .flat_map(|rows| (1..=max_edges.min(255) as u8).map(move |cols| (rows, cols)))
        .filter_map(|(rows, cols)| Dots::new(rows, cols).ok())
        .filter(|board| board.edges() <= max_edges)
        .collect();
    boards.sort_by_key(|b| (b.edges(), b.rows()));
    boards
}
