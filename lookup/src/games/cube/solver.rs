//! [`ForcedPlaySolver`], the cube's exact live search.

use std::collections::HashMap;
use std::time::Instant;

use super::Cube;
use super::board::CubeBoard;
use super::forced_play::Resolved;
use crate::error::Error;
use crate::game::{ExactSolver, Game, SearchLimits};
use crate::value::Score;

/// The cube's exact live solver, for positions without a table: forced
/// play ([`Cube::resolve`]: a threat wins, a double threat loses, a single
/// one must be blocked) settles most positions at once, and the quiet
/// positions it reaches are searched over every move and remembered by
/// canonical form. Quiet positions are few (the table holds them all, about
/// 10^5 up to symmetry), so even the empty cube is solved by visiting each
/// at most once. Keeps its memo between calls, so the moves of a position
/// cost little after the position.
#[derive(Debug)]
pub struct ForcedPlaySolver {
    memo: HashMap<u64, Score>,
    limits: SearchLimits,
    nodes: u64,
    deadline: Option<Instant>,
}

impl ForcedPlaySolver {
    /// A solver with an empty memo, within `limits` (nodes are quiet
    /// positions searched; `table_bytes` is not used: the memo holds at
    /// most the quiet positions).
    pub fn new(limits: SearchLimits) -> ForcedPlaySolver {
        ForcedPlaySolver {
            memo: HashMap::new(),
            limits,
            nodes: 0,
            deadline: None,
        }
    }

    fn solve(&mut self, board: CubeBoard) -> Result<Score, Error> {
        match Cube.resolve(board) {
            Resolved::Score(score) => Ok(score),
            Resolved::Quiet { quiet, negate } => {
                let score = self.quiet(quiet)?;
                Ok(if negate { -score } else { score })
            }
        }
    }

    fn quiet(&mut self, board: CubeBoard) -> Result<Score, Error> {
        let key = Cube.canonical(board).key();
        if let Some(&score) = self.memo.get(&key) {
            return Ok(score);
        }
        self.nodes += 1;
        if let Some(budget) = self.limits.nodes.filter(|&b| self.nodes > b) {
            return Err(Error::BudgetExhausted { budget });
        }
        if self.nodes & 0xff == 0 {
            self.limits.stop.poll()?;
        }
        if let (Some(deadline), Some(time)) = (self.deadline, self.limits.time) {
            if self.nodes & 0xff == 0 && Instant::now() > deadline {
                return Err(Error::TimeExhausted {
                    millis: time.as_millis() as u64,
                });
            }
        }
        let mut best = Score::MIN;
        for cell in Cube.moves(board) {
            let (child, transition) = Cube.play(board, cell);
            best = best.max(transition.backup(self.solve(child)?));
        }
        self.memo.insert(key, best);
        Ok(best)
    }
}

impl ExactSolver<CubeBoard> for ForcedPlaySolver {
    fn score(&mut self, board: CubeBoard) -> Result<Score, Error> {
        self.deadline = self.limits.time.map(|t| Instant::now() + t);
        self.solve(board)
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}
