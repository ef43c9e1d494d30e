//! Exact live search: negamax with alpha-beta pruning and a transposition
//! table keyed by canonical position. It answers where no table does.

use std::collections::HashMap;

use crate::error::Error;
use crate::game::Game;
use crate::value::Score;

/// Beyond every score any game produces.
const INFINITY: Score = 1 << 24;

#[derive(Copy, Clone, Debug)]
enum Bound {
    Exact,
    /// The true score is at least this.
    Lower,
    /// The true score is at most this.
    Upper,
}

/// An exact alpha-beta search over one game, keeping its transposition table
/// between calls so that a position's moves share work.
///
/// ```
/// use solvedb_lookup::{Game, Search, TicTacToe};
///
/// let mut search = Search::new(&TicTacToe);
/// let score = search.score(TicTacToe.start())?;
/// assert_eq!(TicTacToe.value(TicTacToe.start(), score).to_string(), "draw in 9");
/// # Ok::<(), solvedb_lookup::Error>(())
/// ```
#[derive(Debug)]
pub struct Search<'g, G: Game> {
    game: &'g G,
    table: HashMap<G::Position, (Score, Bound)>,
    nodes: u64,
    budget: Option<u64>,
}

impl<'g, G: Game> Search<'g, G> {
    /// A search without a node budget: it always finishes with the exact score.
    pub fn new(game: &'g G) -> Self {
        Search {
            game,
            table: HashMap::new(),
            nodes: 0,
            budget: None,
        }
    }

    /// A search that gives up after visiting `nodes` positions in total.
    pub fn with_budget(game: &'g G, nodes: u64) -> Self {
        Search {
            budget: Some(nodes),
            ..Search::new(game)
        }
    }

    /// Positions visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact score of `position` for the side to move.
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] if the node budget runs out first.
    pub fn score(&mut self, position: G::Position) -> Result<Score, Error> {
        self.negamax(position, -INFINITY, INFINITY)
    }

    fn negamax(
        &mut self,
        position: G::Position,
        alpha: Score,
        beta: Score,
    ) -> Result<Score, Error> {
        self.nodes += 1;
        if let Some(budget) = self.budget.filter(|&b| self.nodes > b) {
            return Err(Error::BudgetExhausted { budget });
        }
        if let Some(score) = self.game.terminal_score(position) {
            return Ok(score);
        }
        let key = self.game.canonical(position);
        if let Some(&(score, bound)) = self.table.get(&key) {
            match bound {
                Bound::Exact => return Ok(score),
                Bound::Lower if score >= beta => return Ok(score),
                Bound::Upper if score <= alpha => return Ok(score),
                _ => {}
            }
        }
        let mut best = -INFINITY;
        let mut low = alpha;
        for mv in self.game.moves(position) {
            let (child, transition) = self.game.play(position, mv);
            let (child_alpha, child_beta) = transition.child_window(low, beta);
            let child_score = self.negamax(child, child_alpha, child_beta)?;
            let score = transition.backup(child_score);
            best = best.max(score);
            low = low.max(score);
            if low >= beta {
                break;
            }
        }
        let bound = if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(key, (best, bound));
        Ok(best)
    }
}
