//! What one solver's table proved, handed to another solver of the same
//! board: the spread search's ranks each keep a table of their own, and a
//! position below two jobs' leaves is otherwise searched on both.
//!
//! A fact is a position (its table key, itself a position: an image with
//! normalised border edges, of the same value) and the bounds the table
//! holds on its margin for the player to move. Every stored bound is
//! proved, so a solver that learns a fact knows no more than is true; a
//! fact learnt is stored like the learner's own entries, narrowing what
//! the learner already knows, with the work the teacher's search spent on
//! it (the replacement scheme's measure).

use std::collections::HashSet;

use super::driver::EndgameSolver;
use super::transposition::Entry;
use super::transposition::NO_MOVE;
use crate::error::Error;
use crate::games::dots::Edges;

/// Bounds proved on one position's margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fact {
    /// The position, as the teacher's table keys it.
    pub mask: u64,
    /// Lower bound on the margin for the player to move.
    pub lower: i32,
    /// Upper bound.
    pub upper: i32,
    /// `log2` of the positions the teacher's search of it visited, plus
    /// one (1 to 31).
    pub work: u32,
}

impl EndgameSolver {
    /// The facts this solver's table holds on the positions 1 to `plies`
    /// moves below `position`, narrower than the boxes left allow and of
    /// at least `min_work` work, one for each key.
    pub fn proved_below(&self, position: Edges, plies: u32, min_work: u32) -> Vec<Fact> {
        let mut level = vec![position.0];
        let mut seen = HashSet::new();
        let mut facts = Vec::new();
        for _ in 0..plies {
            let mut next = Vec::new();
            for mask in level {
                let mut free = self.board.full() & !mask;
                while free != 0 {
                    let edge = free.trailing_zeros();
                    free &= free - 1;
                    let (child, _) = self.board.draw(mask, edge);
                    let key = self.geo.key(child).0;
                    if !seen.insert(key) {
                        continue;
                    }
                    next.push(child);
                    let Some((entry, work)) = self.table.probe_with_work(key) else {
                        continue;
                    };
                    let boxes = self.board.remaining_boxes(child) as i32;
                    let narrower = entry.lower > -boxes || entry.upper < boxes;
                    if narrower && work >= min_work {
                        facts.push(Fact {
                            mask: key,
                            lower: entry.lower,
                            upper: entry.upper,
                            work,
                        });
                    }
                }
            }
            level = next;
        }
        facts
    }

    /// Stores `facts` (proved by a solver of the same board) in this
    /// solver's table.
    ///
    /// # Errors
    ///
    /// [`Error::TableMemory`] when the system will not give the table's
    /// memory.
    pub fn learn(&mut self, facts: &[Fact]) -> Result<(), Error> {
        self.table.allocate()?;
        for fact in facts {
            let entry = Entry {
                lower: fact.lower,
                upper: fact.upper,
                best: NO_MOVE,
            };
            let nodes = (1u64 << fact.work.clamp(1, 31).saturating_sub(1)).saturating_sub(1);
            self.table.store(self.geo.key(fact.mask).0, entry, nodes);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dots::Dots;
    use crate::testkit::Rng;
    use crate::{SearchLimits, Stop};

    fn small() -> SearchLimits {
        SearchLimits {
            threads: Some(1),
            table_bytes: Some(1 << 20),
            ..SearchLimits::default()
        }
    }

    #[test]
    fn facts_are_true_and_save_a_learner_work() {
        let board = Dots::new(3, 3).unwrap();
        let mut rng = Rng::new(77);
        let p = std::iter::repeat_with(|| board.random_without_third_sides(&mut rng, 18))
            .flatten()
            .next()
            .unwrap();
        let mut teacher = EndgameSolver::new(board, small());
        let value = teacher.solve(p).unwrap();
        let facts = teacher.proved_below(p, 2, 1);
        assert!(!facts.is_empty());
        for fact in facts.iter().take(40) {
            let exact = EndgameSolver::new(board, small())
                .solve(Edges(fact.mask))
                .unwrap();
            assert!(
                fact.lower <= exact && exact <= fact.upper,
                "{fact:?} against {exact}"
            );
        }
        let mut alone = EndgameSolver::new(board, small());
        alone.test(p, value, Stop::default()).unwrap();
        let mut learner = EndgameSolver::new(board, small());
        learner.learn(&facts).unwrap();
        let answer = learner.test(p, value, Stop::default()).unwrap();
        assert!(answer <= value, "the margin is not above {value}");
        assert!(learner.nodes() < alone.nodes());
    }
}
