//! What the command line needs to know about each game beyond the `Game`
//! abstraction: how its values and positions read in text and JSON.

use serde_json::{Value as Json, json};
use solvedb_lookup::{Board, Dots, Edges, Margin, Outcome, Tabled, TicTacToe};

use crate::retrograde;
use crate::solve::{Solution, solve};

/// A game the `solvedb` command can build, verify and probe.
pub trait CliGame: Tabled + Copy {
    /// The fields that name the game in JSON: `game`, and `board` where the
    /// game has sizes.
    fn game_json(&self) -> Vec<(&'static str, Json)> {
        vec![("game", json!(self.id().to_string()))]
    }

    /// Entries per table block: what one probe decodes.
    fn block_entries(&self) -> u32 {
        4096
    }

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

impl CliGame for Dots {
    fn game_json(&self) -> Vec<(&'static str, Json)> {
        vec![
            ("game", json!("dots")),
            ("board", json!(format!("{}x{}", self.rows(), self.cols()))),
        ]
    }

    /// Dense tables are big (2^31 slots for 3x4): 64 KiB blocks keep the
    /// block index at 24 bytes per 65,536 slots while a probe still decodes
    /// only 64 KiB.
    fn block_entries(&self) -> u32 {
        1 << 16
    }

    fn value_json(&self, value: Margin) -> Vec<(&'static str, Json)> {
        vec![("value", json!(value.0))]
    }

    fn position_json(&self, _position: Edges) -> Vec<(&'static str, Json)> {
        Vec::new()
    }

    fn position_summary(&self, position: Edges) -> String {
        format!(
            "{} of {} edges drawn, {} of {} boxes unclaimed; values are net boxes for the player to move",
            position.count(),
            self.edges(),
            self.remaining_boxes(position.mask()),
            self.boxes()
        )
    }

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
