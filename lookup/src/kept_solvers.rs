//! Solvers kept between live searches ([`KeptSolvers`]): a game's own
//! solver whose transposition table is worth keeping
//! ([`ExactSolver::keep`]: the dots endgame solver's) is given back when
//! its search ends and lent to the next search of the same board, which
//! finds the positions the searches before it proved. Along one game of
//! 5×5 dots the positions after the first take 4–6× less time
//! (`docs/dots-and-boxes.md`, the `dots_game` example).
//!
//! Kept solvers hold memory (a table each), so there are at most
//! `capacity` of them over all the games of an oracle, the last given back
//! first: a server keeps as many as it runs searches at once.

use std::any::Any;
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use crate::format::GameId;
use crate::game::ExactSolver;

/// At most `capacity` solvers, each for one game (a dots board), lent to
/// one search at a time.
pub struct KeptSolvers {
    capacity: usize,
    /// The most recently given back first; each a `Box<dyn
    /// ExactSolver<P>>` of its game's position type `P`.
    kept: Mutex<VecDeque<(GameId, Box<dyn Any + Send>)>>,
}

impl KeptSolvers {
    /// Room for `capacity` solvers (0: none is kept).
    pub fn new(capacity: usize) -> KeptSolvers {
        KeptSolvers {
            capacity,
            kept: Mutex::new(VecDeque::new()),
        }
    }

    /// How many it holds now (none of them lent).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(GameId, Box<dyn Any + Send>)>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The solver kept for `game`, taken out (lent) until
    /// [`give_back`](Self::give_back).
    pub(crate) fn take<P: 'static>(&self, game: GameId) -> Option<Box<dyn ExactSolver<P>>> {
        let mut kept = self.lock();
        let at = kept.iter().position(|(id, _)| *id == game)?;
        let (_, solver) = kept.remove(at)?;
        solver
            .downcast::<Box<dyn ExactSolver<P>>>()
            .ok()
            .map(|solver| *solver)
    }

    /// Keeps `solver` for `game`, unless one is kept for it already; the
    /// least recently given back goes where there are more than the
    /// capacity.
    pub(crate) fn give_back<P: 'static>(&self, game: GameId, solver: Box<dyn ExactSolver<P>>) {
        if self.capacity == 0 {
            return;
        }
        let mut kept = self.lock();
        if kept.iter().any(|(id, _)| *id == game) {
            return;
        }
        kept.push_front((game, Box::new(solver)));
        let keep = kept.len().min(self.capacity);
        let gone = kept.split_off(keep);
        drop(kept);
        // Their tables are unmapped outside the lock.
        drop(gone);
    }
}

impl Default for KeptSolvers {
    /// Room for one solver: a game's next search on its own oracle, or the
    /// last game searched on a directory's.
    fn default() -> KeptSolvers {
        KeptSolvers::new(1)
    }
}

impl fmt::Debug for KeptSolvers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let games: Vec<GameId> = self.lock().iter().map(|(id, _)| *id).collect();
        f.debug_struct("KeptSolvers")
            .field("capacity", &self.capacity)
            .field("games", &games)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::value::Score;

    /// A solver that says which one it is through its node count.
    #[derive(Debug)]
    struct Named(u64);

    impl ExactSolver<u8> for Named {
        fn score(&mut self, _: u8) -> Result<Score, Error> {
            Ok(0)
        }
        fn nodes(&self) -> u64 {
            self.0
        }
    }

    fn board(cols: u8) -> GameId {
        GameId::Dots { rows: 1, cols }
    }

    fn take(kept: &KeptSolvers, cols: u8) -> Option<u64> {
        kept.take::<u8>(board(cols)).map(|s| s.nodes())
    }

    #[test]
    fn it_lends_each_games_solver_once_and_keeps_the_last_given_back() {
        let kept = KeptSolvers::new(2);
        kept.give_back::<u8>(board(1), Box::new(Named(1)));
        kept.give_back::<u8>(board(1), Box::new(Named(10))); // one a game
        kept.give_back::<u8>(board(2), Box::new(Named(2)));
        assert_eq!(kept.len(), 2);
        assert_eq!(take(&kept, 1), Some(1));
        assert_eq!(take(&kept, 1), None, "lent");
        kept.give_back::<u8>(board(1), Box::new(Named(1)));
        kept.give_back::<u8>(board(3), Box::new(Named(3)));
        // Board 2 was given back longest ago.
        assert_eq!(
            (take(&kept, 2), take(&kept, 1), take(&kept, 3)),
            (None, Some(1), Some(3))
        );
        assert!(kept.is_empty());
    }

    #[test]
    fn it_keeps_nothing_without_room_or_for_another_position_type() {
        let none = KeptSolvers::new(0);
        none.give_back::<u8>(board(1), Box::new(Named(1)));
        assert_eq!(take(&none, 1), None);
        let kept = KeptSolvers::new(1);
        kept.give_back::<u8>(board(1), Box::new(Named(1)));
        assert!(kept.take::<u16>(board(1)).is_none(), "another type");
    }
}
