//! What the command line needs to know about each game beyond the `Game`
//! abstraction: how its values and positions read in text and JSON.

use serde_json::{Value as Json, json};
use solvedb_lookup::{Board, Outcome, Tabled, TicTacToe};

use crate::solve::{Solution, solve};

/// A game the `solvedb` command can build, verify and probe.
pub trait CliGame: Tabled + Copy {
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
