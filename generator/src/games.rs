//! What the command line needs to know about each game beyond the `Game`
//! abstraction: how its values and positions read in text and JSON.

use serde_json::{Value as Json, json};
use solvedb_lookup::format::sorted_entries;
use solvedb_lookup::{Board, Cube, CubeBoard, Outcome, Tabled, TicTacToe};

use crate::cube::solve_cube;
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

    /// Fields describing a value in JSON (`result` and `plies`, or `value`).
    fn value_json(&self, value: Self::Value) -> Vec<(&'static str, Json)>;

    /// Fields describing a position beyond its notation (`to_move`).
    fn position_json(&self, position: Self::Position) -> Vec<(&'static str, Json)>;

    /// A short line about the position for people (`X to move`).
    fn position_summary(&self, position: Self::Position) -> String;

    /// Solves the game for its table. The default enumerates the reachable
    /// positions layer by layer in memory ([`solve`]); games whose tables are
    /// too big for that (dense edge sets of dots-and-boxes) override it.
    fn solve_table(&self) -> Solution {
        solve(self)
    }
}

impl CliGame for TicTacToe {
    fn value_json(&self, value: Outcome) -> Vec<(&'static str, Json)> {
        vec![
            ("result", json!(value.wdl.as_str())),
            ("plies", json!(value.plies)),
        ]
    }

    fn position_json(&self, board: Board) -> Vec<(&'static str, Json)> {
        vec![("to_move", json!(self.to_move(board).to_string()))]
    }

    fn position_summary(&self, board: Board) -> String {
        format!("{} to move", self.to_move(board))
    }
}

impl CliGame for Cube {
    /// 2048 sorted records of 8 bytes: a probe decodes 16 KiB.
    const BLOCK_ENTRIES: u32 = 16384;

    const LAYERS: &'static str =
        "the stored (quiet) positions, by stones on the board; all others resolve by forced play";

    const COLUMNS: [&'static str; 3] = ["stones", "quiet", "canonical"];

    fn value_json(&self, value: Outcome) -> Vec<(&'static str, Json)> {
        TicTacToe.value_json(value)
    }

    fn position_json(&self, board: CubeBoard) -> Vec<(&'static str, Json)> {
        vec![("to_move", json!(self.to_move(board).to_string()))]
    }

    fn position_summary(&self, board: CubeBoard) -> String {
        format!("{} to move", self.to_move(board))
    }

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
