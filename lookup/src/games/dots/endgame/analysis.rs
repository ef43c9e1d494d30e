//! Every move's value.
//!
//! [`EndgameSolver::analyse`] finds the value of a position and then of
//! each of its moves, once per class of moves whose children are symmetric
//! images: each move starts from the bounds the table already holds for its
//! child after the root's search and from the root's value (no move is
//! better), and is narrowed by null-window tests, the first at the root's
//! value (most moves that are not sacrifices tie with the best). A search
//! that runs out of its limits still says what it proved: bounds on the
//! value and on every move, and [`EndgameSolver::analyse_reporting`] says
//! it as it goes: after each of the root's tests (every move is at most
//! the root's upper bound) and after each test of a move, between tests,
//! never inside one, so the search runs as fast as without.

use std::time::Instant;

use super::EndgameSolver;
use super::parity::to_parity;
use super::step::Step;
use crate::error::Error;
use crate::game::MoveScores;
use crate::games::dots::Edges;
use crate::value::Score;

/// Bounds on the value of one move, for the player who makes it, counted
/// from before the move; exact when `lower == upper`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveBounds {
    /// The edge drawn.
    pub edge: u32,
    /// The value is at least this.
    pub lower: Score,
    /// The value is at most this.
    pub upper: Score,
}

/// What [`EndgameSolver::analyse`] proved about a position and its moves.
#[derive(Debug)]
pub struct Analysis {
    /// The position's value is at least this.
    pub lower: Score,
    /// The position's value is at most this.
    pub upper: Score,
    /// Every legal move, in edge order, with bounds on its value.
    pub moves: Vec<MoveBounds>,
    /// Why the analysis stopped before every bound met (`None`: the value
    /// and every move's value are exact).
    pub unknown: Option<Error>,
    /// Positions visited and time taken until the root's own tests ended,
    /// before the moves' (the bench's "value alone").
    pub value_nodes: u64,
    /// See [`Analysis::value_nodes`].
    pub value_time: std::time::Duration,
}

/// A class of moves whose children are symmetric images: its children's
/// key, the step of its first move, which stands for it, and bounds on its
/// value.
type MoveClass = (u64, Step, (i32, i32));

impl EndgameSolver {
    /// Narrows each class of moves (`(key, step, bounds)`, its first step
    /// standing for it) from `mask` to its value: each test at the top of
    /// its bounds (the first: is the move as good as the best?), MTD(f)
    /// from above. With
    /// [`pairs_at`](EndgameSolver::pairs_at) two classes at a time, each
    /// on its own thread to begin with; bounds narrow as tests prove, so a
    /// search stopped by its limits leaves what it knew.
    /// `proved` is told the classes' bounds after each round of tests.
    fn settle_classes(
        &mut self,
        mask: u64,
        classes: &mut [MoveClass],
        deadline: Option<Instant>,
        proved: &mut dyn FnMut(&[MoveClass]),
    ) -> Result<(), Error> {
        let parity = (self.board.remaining_boxes(mask) as i32).rem_euclid(2);
        let at_once = if self.pairs_at(mask) { 2 } else { 1 };
        loop {
            // The next test of each open class, as a search of its child.
            let tests: Vec<(usize, i32, (u64, i32, i32))> = (0..classes.len())
                .filter(|&i| classes[i].2.0 < classes[i].2.1)
                .take(at_once)
                .map(|i| {
                    let (_, step, bounds) = classes[i];
                    // Just below the top: a move is mostly worth about as
                    // much as the best, and a failed test's fail-soft bound
                    // may drop further at once (halving the range after
                    // the first test searches more positions).
                    let t = bounds.1 - 2;
                    let child = mask | step.edges;
                    let window = if step.keeps_turn {
                        (child, t - step.gain, t + 1 - step.gain)
                    } else {
                        (child, step.gain - t - 1, step.gain - t)
                    };
                    (i, t, window)
                })
                .collect();
            let results = match tests[..] {
                [] => return Ok(()),
                [(_, _, (child, alpha, beta))] => vec![self.run(child, alpha, beta, deadline)],
                [(_, _, first), (_, _, second), ..] => self.run_pair([first, second]).into(),
            };
            for ((i, t, _), result) in tests.into_iter().zip(results) {
                let step = classes[i].1;
                let v = result?;
                let v = if step.keeps_turn {
                    step.gain + v
                } else {
                    step.gain - v
                };
                let bounds = &mut classes[i].2;
                if v > t {
                    bounds.0 = bounds.0.max(v);
                } else {
                    bounds.1 = bounds.1.min(v);
                }
                *bounds = to_parity(*bounds, parity);
            }
            proved(classes);
        }
    }

    /// The value of `position` and of every move, from one search: the
    /// position's value first, then each class of moves whose children are
    /// symmetric, starting from the bounds the table holds for its child
    /// and at most the position's value. Within the limits; what is not
    /// known when they run out is left as bounds
    /// ([`Analysis::unknown`] says why).
    pub fn analyse(&mut self, position: Edges) -> Analysis {
        self.analyse_reporting(position, &mut |_| {})
    }

    /// [`analyse`](EndgameSolver::analyse), `report` told what is proved
    /// after each test (the value's bounds and every move's, in edge
    /// order, as [`MoveScores`] with no `unknown`).
    pub fn analyse_reporting(
        &mut self,
        position: Edges,
        report: &mut dyn FnMut(&MoveScores),
    ) -> Analysis {
        // A table that cannot be had leaves every bound open, with why (an
        // unallocated table holds nothing).
        let mut unknown = self.table.allocate().err();
        self.geo.set_root(position.0);
        let (started, nodes_before) = (Instant::now(), self.nodes);
        let deadline = self.limits.time.map(|t| started + t);
        let mask = position.0;
        let remaining = self.board.remaining_boxes(mask) as i32;
        let mut root = (-remaining, remaining);
        let guess = if remaining % 2 == 0 { 0 } else { -1 };
        let test = |solver: &mut EndgameSolver, t| solver.run(mask, t, t + 1, deadline);
        // While the root is searched, every move is at most its value.
        let free = self.geo.full & !mask;
        let mut root_proved = |root: (i32, i32)| {
            let each = to_parity((-remaining, root.1), remaining.rem_euclid(2));
            report(&MoveScores {
                value: root,
                moves: vec![each; free.count_ones() as usize],
                unknown: None,
            });
        };
        if unknown.is_none() && self.limited() {
            unknown = self.outside_in(&mut root, test, &mut root_proved).err();
        }
        if unknown.is_none() {
            unknown = self
                .narrow(&mut root, guess, mask, deadline, &mut root_proved)
                .err();
        }
        let (value_nodes, value_time) = (self.nodes - nodes_before, started.elapsed());
        let (mut classes, class_of) = self.move_classes(mask, root.1);
        if unknown.is_none() {
            let mut classes_proved = |classes: &[MoveClass]| {
                let (value, moves) = proved(root, classes, &class_of);
                report(&MoveScores {
                    value,
                    moves: moves.iter().map(|m| (m.lower, m.upper)).collect(),
                    unknown: None,
                });
            };
            unknown = self
                .settle_classes(mask, &mut classes, deadline, &mut classes_proved)
                .err();
        }
        let (value, moves) = proved(root, &classes, &class_of);
        Analysis {
            lower: value.0,
            upper: value.1,
            moves,
            unknown,
            value_nodes,
            value_time,
        }
    }

    /// The classes of the moves of `mask` whose children are symmetric
    /// images (the same key, so the same gain and value), the first move of
    /// each standing for it, each `(key, step, bounds)` with the bounds the
    /// table holds for its child, at most `top` (the position's value's);
    /// and each move's edge with its class.
    fn move_classes(&self, mask: u64, top: i32) -> (Vec<MoveClass>, Vec<(u32, usize)>) {
        let remaining = self.board.remaining_boxes(mask) as i32;
        let sides = self.geo.sides_of(mask);
        let free = self.geo.full & !mask;
        let mut classes: Vec<MoveClass> = Vec::new();
        let mut class_of = Vec::new();
        let mut bits = free;
        while bits != 0 {
            let e = bits.trailing_zeros();
            bits &= bits - 1;
            let step = self.geo.edge_step(&sides, e);
            let (child, taken) = self.geo.child_after_captures(mask, &step);
            let key = self.geo.key(child).0;
            let index = match classes
                .iter()
                .position(|c| c.0 == key && c.1.gain == step.gain)
            {
                Some(i) => i,
                None => {
                    let mut bounds = (-remaining, top.min(remaining));
                    if let Some(entry) = self.table.probe(key) {
                        let (lo, hi) = (taken + entry.lower, taken + entry.upper);
                        let (lo, hi) = if step.keeps_turn {
                            (step.gain + lo, step.gain + hi)
                        } else {
                            (step.gain - hi, step.gain - lo)
                        };
                        bounds = (bounds.0.max(lo), bounds.1.min(hi));
                    }
                    classes.push((key, step, to_parity(bounds, remaining.rem_euclid(2))));
                    classes.len() - 1
                }
            };
            class_of.push((e, index));
        }
        (classes, class_of)
    }
}

/// What the root's bounds and its classes of moves prove: bounds on the
/// value and on each move (`class_of`: each move's edge and class). The
/// value is the best move's: at least the best lower bound of a move and
/// at most the best upper bound (the root's bounds already cap the moves'
/// tops).
fn proved(
    root: (i32, i32),
    classes: &[MoveClass],
    class_of: &[(u32, usize)],
) -> ((i32, i32), Vec<MoveBounds>) {
    let mut value = root;
    if let Some(best_lower) = classes.iter().map(|c| c.2.0).max() {
        value.0 = value.0.max(best_lower);
    }
    if let Some(best_upper) = classes.iter().map(|c| c.2.1).max() {
        value.1 = value.1.min(best_upper);
    }
    let moves = class_of
        .iter()
        .map(|&(edge, i)| MoveBounds {
            edge,
            lower: classes[i].2.0,
            upper: classes[i].2.1,
        })
        .collect();
    (value, moves)
}
