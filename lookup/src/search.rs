//! Exact live search: negamax with alpha-beta pruning and a transposition
//! table keyed by canonical position. It answers where no table does.

use std::collections::HashMap;
use std::time::Instant;

use crate::error::Error;
use crate::format::GameId;
use crate::game::{ExactSolver, Game, MoveScores, SearchLimits};
use crate::kept_solvers::KeptSolvers;
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
    limits: SearchLimits,
    deadline: Option<Instant>,
    /// The game's own solver, made on first use: an oracle that answers
    /// from a table makes a `Search` per probe and never uses it.
    dedicated: Option<Box<dyn ExactSolver<G::Position>>>,
    dedicated_made: bool,
    /// Where the game's solver is borrowed from and given back to, and
    /// the game it is kept under.
    kept: Option<(&'g KeptSolvers, GameId)>,
}

impl<'g, G: Game> Search<'g, G> {
    /// A search without a node budget: it always finishes with the exact score.
    pub fn new(game: &'g G) -> Self {
        Search::with_limits(game, SearchLimits::default())
    }

    /// A search that gives up after visiting `nodes` positions in total.
    pub fn with_budget(game: &'g G, nodes: u64) -> Self {
        Search::with_limits(
            game,
            SearchLimits {
                nodes: Some(nodes),
                ..SearchLimits::default()
            },
        )
    }

    /// A search that gives up when `limits` run out. A node budget shared
    /// through [`SearchLimits::stop`] caps this search's own at what is left
    /// of it.
    pub fn with_limits(game: &'g G, mut limits: SearchLimits) -> Self {
        if let Some(left) = limits.stop.nodes_left() {
            limits.nodes = Some(limits.nodes.map_or(left, |n| n.min(left)));
        }
        Search {
            game,
            table: HashMap::new(),
            nodes: 0,
            limits,
            deadline: None,
            dedicated: None,
            dedicated_made: false,
            kept: None,
        }
    }

    /// The search borrows the game's solver from `kept` (under `game`)
    /// where one is there and gives it its limits ([`ExactSolver::renew`]),
    /// and gives it (or the one it made) back when it ends.
    pub(crate) fn keeping(mut self, kept: &'g KeptSolvers, game: GameId) -> Self {
        self.kept = Some((kept, game));
        self
    }

    /// The game's own solver, made (or borrowed) on first use.
    fn dedicated(&mut self) -> Option<&mut Box<dyn ExactSolver<G::Position>>> {
        if !self.dedicated_made {
            self.dedicated_made = true;
            self.dedicated = self
                .kept
                .and_then(|(kept, game)| kept.take(game))
                .and_then(|mut lent| lent.renew(self.limits.clone()).then_some(lent))
                .or_else(|| self.game.exact_solver(self.limits.clone()));
        }
        self.dedicated.as_mut()
    }

    /// The generic alpha-beta alone, even for a game with a solver of its
    /// own ([`Game::exact_solver`]): the baseline that benchmarks measure
    /// those solvers against.
    pub fn generic(game: &'g G, limits: SearchLimits) -> Self {
        let mut search = Search::with_limits(game, limits);
        search.dedicated_made = true;
        search
    }

    /// The limits it searches within.
    pub fn limits(&self) -> &SearchLimits {
        &self.limits
    }

    /// Positions visited so far.
    pub fn nodes(&self) -> u64 {
        match &self.dedicated {
            Some(solver) => solver.nodes(),
            None => self.nodes,
        }
    }

    /// The exact score of `position` for the side to move.
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] if the node budget runs out first.
    pub fn score(&mut self, position: G::Position) -> Result<Score, Error> {
        self.limits.stop.poll()?;
        let before = self.nodes();
        let score = self.score_within_limits(position);
        // What this call visited counts against the shared budget too.
        self.limits.stop.charge(self.nodes() - before);
        score
    }

    fn score_within_limits(&mut self, position: G::Position) -> Result<Score, Error> {
        if let Some(solver) = self.dedicated() {
            return solver.score(position);
        }
        self.deadline = self.limits.time.map(|t| Instant::now() + t);
        self.negamax(position, -INFINITY, INFINITY)
    }

    /// The score of `position` and of each of its moves (in the order of
    /// [`Game::moves`]) from one search, or the bounds it proved within the
    /// limits, where the game's own solver has one
    /// ([`ExactSolver::score_moves`]); `None` otherwise. `report` is told
    /// the bounds as they narrow.
    ///
    /// # Errors
    ///
    /// The request's [`Stop`](crate::Stop) already stopped, before any
    /// search.
    pub fn score_moves(
        &mut self,
        position: G::Position,
        report: &mut dyn FnMut(&MoveScores),
    ) -> Result<Option<MoveScores>, Error> {
        self.limits.stop.poll()?;
        let Some(solver) = self.dedicated() else {
            return Ok(None);
        };
        let before = solver.nodes();
        let scores = solver.score_moves(position, report);
        let visited = solver.nodes() - before;
        self.limits.stop.charge(visited);
        Ok(scores)
    }

    fn negamax(
        &mut self,
        position: G::Position,
        alpha: Score,
        beta: Score,
    ) -> Result<Score, Error> {
        // The budget is checked before a position counts, so a search that
        // stops reports exactly the budget it had.
        if let Some(budget) = self.limits.nodes.filter(|&b| self.nodes >= b) {
            return Err(Error::BudgetExhausted { budget });
        }
        self.nodes += 1;
        if self.nodes % 1024 == 0 {
            self.limits.stop.poll()?;
        }
        if let (Some(deadline), Some(time)) = (self.deadline, self.limits.time) {
            if self.nodes % 1024 == 0 && Instant::now() > deadline {
                return Err(Error::TimeExhausted {
                    millis: time.as_millis() as u64,
                });
            }
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

impl<G: Game> Drop for Search<'_, G> {
    /// Gives the game's solver back to the oracle it came from (or that
    /// lent the search nothing), unless the search is unwinding from a
    /// panic or the solver is not one to keep.
    fn drop(&mut self) {
        let (Some((kept, game)), Some(mut solver)) = (self.kept, self.dedicated.take()) else {
            return;
        };
        if !std::thread::panicking() && solver.keep() {
            kept.give_back(game, solver);
        }
    }
}
