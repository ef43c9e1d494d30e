//! The top plies of a position cut into jobs: the positions a few moves
//! down (the *leaves*), each known by bounds on its margin, and the
//! questions about them a null-window test of the root needs answered.
//!
//! Positions are merged under the board's symmetries (a margin is the same
//! for every image), so the top of the tree is a DAG: two orders of the
//! same quiet moves meet in one leaf. Every move draws one edge, so all
//! nodes `d` plies down have the root's edges and `d` more, and a child
//! always comes after its parent in the node list.
//!
//! A test "is the root's margin above `t`?" is an OR over the root's
//! moves: a move that completes `g > 0` boxes is above `t` when its child
//! (same player to move) is above `t − g`; a quiet move when its child is
//! at most `−t − 1` — the negation of "above `−t − 1`". Inner nodes have no
//! bounds of their own: theirs are the negamax of their children's, so
//! every fact is a leaf's, proved by a job and kept in the checkpoint.

use std::collections::{HashMap, HashSet};

use anyhow::{Result, ensure};
use solvedb_lookup::{Dots, EdgeSymmetries, Game};

/// Bounds `(lower, upper)` on a margin for the player to move.
pub type Bounds = (i32, i32);

/// A job: is the margin of `mask` (a leaf, as its least image) above
/// `threshold`?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Question {
    /// The leaf's least image under the board's symmetries.
    pub mask: u64,
    /// The margin the test is about.
    pub threshold: i32,
}

/// A node: its moves (child index, boxes the move completes), none for a
/// leaf.
#[derive(Debug)]
struct Node {
    mask: u64,
    moves: Vec<(usize, u32)>,
}

/// The top `depth` plies of a position, as a DAG of least images, with
/// the bounds proved so far on every leaf.
#[derive(Debug)]
pub struct SplitTree {
    board: Dots,
    depth: u32,
    nodes: Vec<Node>,
    leaf_bounds: HashMap<u64, Bounds>,
}

/// The most plies split: three plies of a 5x5 middle game are some ten
/// thousand leaves, jobs enough for a thousand ranks.
pub const MAX_DEPTH: u32 = 3;

/// Jobs per rank the automatic depth aims at, so that ranks that finish
/// early find more work.
pub const JOBS_PER_RANK: usize = 8;

/// `value` rounded inwards to `parity` (0 even, 1 odd) from below.
fn up_to_parity(value: i32, parity: i32) -> i32 {
    if (value - parity).rem_euclid(2) == 0 {
        value
    } else {
        value + 1
    }
}

/// A move's bounds from its child's: `gain` boxes taken keep the turn.
fn move_bounds(child: Bounds, gain: u32) -> Bounds {
    if gain > 0 {
        (gain as i32 + child.0, gain as i32 + child.1)
    } else {
        (-child.1, -child.0)
    }
}

/// The threshold of the child's question that answers "is this move above
/// `threshold`?" (for a quiet move the answer is negated: the move is
/// above `threshold` when the child is not above `-threshold - 1`).
fn child_threshold(threshold: i32, gain: u32) -> i32 {
    if gain > 0 {
        threshold - gain as i32
    } else {
        -threshold - 1
    }
}

impl SplitTree {
    /// The top `depth` plies of `root` on `board`.
    pub fn new(board: Dots, root: u64, depth: u32) -> SplitTree {
        let symmetries = board.shared_symmetries();
        let root = symmetries.canonical(root);
        let mut tree = SplitTree {
            board,
            depth,
            nodes: vec![Node {
                mask: root,
                moves: Vec::new(),
            }],
            leaf_bounds: HashMap::new(),
        };
        let mut level = vec![0];
        for _ in 0..depth {
            level = tree.expand(&level, symmetries);
        }
        for node in &tree.nodes {
            if node.moves.is_empty() {
                let boxes = board.remaining_boxes(node.mask) as i32;
                tree.leaf_bounds.insert(node.mask, (-boxes, boxes));
            }
        }
        tree
    }

    /// The tree with the fewest plies (at most [`MAX_DEPTH`]) that has
    /// [`JOBS_PER_RANK`] leaves for each of `ranks`.
    pub fn for_ranks(board: Dots, root: u64, ranks: usize) -> SplitTree {
        let mut depth = 1;
        loop {
            let tree = SplitTree::new(board, root, depth);
            if depth == MAX_DEPTH || tree.leaves() >= JOBS_PER_RANK * ranks {
                return tree;
            }
            depth += 1;
        }
    }

    /// Gives every node of `level` its moves, and returns the next level.
    fn expand(&mut self, level: &[usize], symmetries: &EdgeSymmetries) -> Vec<usize> {
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut next = Vec::new();
        for &n in level {
            let mask = self.nodes[n].mask;
            let free = self.board.full() & !mask;
            let mut moves: Vec<(usize, u32)> = Vec::new();
            for edge in (0..self.board.edges()).filter(|e| free & 1 << e != 0) {
                let (child, gain) = self.board.draw(mask, edge);
                let child = symmetries.canonical(child);
                let c = *index.entry(child).or_insert_with(|| {
                    self.nodes.push(Node {
                        mask: child,
                        moves: Vec::new(),
                    });
                    next.push(self.nodes.len() - 1);
                    self.nodes.len() - 1
                });
                if !moves.contains(&(c, gain)) {
                    moves.push((c, gain));
                }
            }
            self.nodes[n].moves = moves;
        }
        next
    }

    /// The plies split.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The root, as its least image.
    pub fn root(&self) -> u64 {
        self.nodes[0].mask
    }

    /// The number of distinct leaves.
    pub fn leaves(&self) -> usize {
        self.leaf_bounds.len()
    }

    /// Every node's bounds, leaves' from their facts, inner nodes' the
    /// negamax of their children's.
    fn all_bounds(&self) -> Vec<Bounds> {
        let mut bounds = vec![(0, 0); self.nodes.len()];
        for (n, node) in self.nodes.iter().enumerate().rev() {
            bounds[n] = if node.moves.is_empty() {
                self.leaf_bounds[&node.mask]
            } else {
                node.moves
                    .iter()
                    .map(|&(c, gain)| move_bounds(bounds[c], gain))
                    .fold((i32::MIN, i32::MIN), |(lo, hi), (l, h)| {
                        (lo.max(l), hi.max(h))
                    })
            };
        }
        bounds
    }

    /// The bounds proved on the root's margin.
    pub fn root_bounds(&self) -> Bounds {
        self.all_bounds()[0]
    }

    /// The leaf questions still open that the test "is the root above
    /// `threshold`?" depends on, most promising first (at each node the
    /// moves with the highest upper bound first); none once the test is
    /// answered by the bounds.
    pub fn needed(&self, threshold: i32) -> Vec<Question> {
        let bounds = self.all_bounds();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        self.collect(0, threshold, &bounds, &mut seen, &mut out);
        out
    }

    fn collect(
        &self,
        n: usize,
        threshold: i32,
        bounds: &[Bounds],
        seen: &mut HashSet<Question>,
        out: &mut Vec<Question>,
    ) {
        let (lower, upper) = bounds[n];
        if lower > threshold || upper <= threshold {
            return;
        }
        let node = &self.nodes[n];
        if node.moves.is_empty() {
            let question = Question {
                mask: node.mask,
                threshold,
            };
            if seen.insert(question) {
                out.push(question);
            }
            return;
        }
        let mut moves: Vec<(usize, u32, i32)> = node
            .moves
            .iter()
            .map(|&(c, gain)| (c, gain, move_bounds(bounds[c], gain).1))
            .collect();
        moves.sort_by_key(|&(_, _, upper)| std::cmp::Reverse(upper));
        for (c, gain, _) in moves {
            self.collect(c, child_threshold(threshold, gain), bounds, seen, out);
        }
    }

    /// Records a job's fail-soft answer: above the question's threshold a
    /// lower bound on the leaf's margin, else an upper bound; rounded to
    /// the parity of the leaf's unclaimed boxes.
    ///
    /// # Errors
    ///
    /// If the question is about no leaf, or the bounds would cross (a bug
    /// somewhere, never to be papered over).
    pub fn record(&mut self, question: Question, answer: i32) -> Result<()> {
        let (lower, upper) = if answer > question.threshold {
            (answer, i32::MAX)
        } else {
            (i32::MIN, answer)
        };
        self.learn(question.mask, (lower, upper))
    }

    /// Narrows a leaf's bounds by `bounds` (a job's answer, or a fact from
    /// a checkpoint); a position that is no leaf of this tree is passed
    /// over (a checkpoint of a split with other plies).
    ///
    /// # Errors
    ///
    /// If the bounds would cross.
    pub fn learn(&mut self, mask: u64, bounds: Bounds) -> Result<()> {
        let parity = (self.board.remaining_boxes(mask) % 2) as i32;
        let Some(known) = self.leaf_bounds.get_mut(&mask) else {
            return Ok(());
        };
        let lower = up_to_parity(known.0.max(bounds.0), parity);
        let upper = -up_to_parity(-known.1.min(bounds.1), parity);
        ensure!(
            lower <= upper,
            "contradictory bounds on {}: {known:?} and {bounds:?}",
            self.board.notation(solvedb_lookup::Edges(mask))
        );
        *known = (lower, upper);
        Ok(())
    }

    /// The leaves whose bounds are narrower than the board allows: what a
    /// checkpoint keeps.
    pub fn facts(&self) -> Vec<(u64, Bounds)> {
        let mut facts: Vec<(u64, Bounds)> = self
            .leaf_bounds
            .iter()
            .filter(|&(&mask, &(lower, upper))| {
                let boxes = self.board.remaining_boxes(mask) as i32;
                (lower, upper) != (-boxes, boxes)
            })
            .map(|(&mask, &bounds)| (mask, bounds))
            .collect();
        facts.sort_unstable();
        facts
    }

    /// Leaves whose margin is known exactly, of all leaves.
    pub fn exact_leaves(&self) -> usize {
        self.leaf_bounds.values().filter(|(l, u)| l == u).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solvedb_lookup::games::dots::EndgameSolver;
    use solvedb_lookup::testkit::Rng;
    use solvedb_lookup::{Edges, SearchLimits, Stop};

    /// MTD(f) over the tree, every job answered at once by a solver: the
    /// coordinator's logic without messages.
    fn split_value(board: Dots, root: u64, depth: u32) -> i32 {
        let mut tree = SplitTree::new(board, root, depth);
        let mut solver = EndgameSolver::new(board, SearchLimits::default());
        let mut guess = 0;
        loop {
            let (lower, upper) = tree.root_bounds();
            if lower >= upper {
                return lower;
            }
            let t = guess.clamp(lower, upper - 2);
            for q in tree.needed(t) {
                let answer = solver.test(Edges(q.mask), q.threshold, Stop::default());
                tree.record(q, answer.unwrap()).unwrap();
                let (lower, upper) = tree.root_bounds();
                if lower > t || upper <= t {
                    break;
                }
            }
            let (lower, upper) = tree.root_bounds();
            guess = if lower > t { lower } else { upper - 2 };
        }
    }

    #[test]
    fn split_searches_agree_with_the_solver_at_every_depth() {
        let mut rng = Rng::new(46);
        for (rows, cols, undrawn) in [(2, 2, 12), (2, 3, 17), (3, 3, 16), (3, 3, 20), (3, 4, 18)] {
            let board = Dots::new(rows, cols).unwrap();
            for _ in 0..4 {
                let Some(p) = board.random_without_third_sides(&mut rng, undrawn) else {
                    continue;
                };
                let mut solver = EndgameSolver::new(board, SearchLimits::default());
                let expected = solver.solve(p).unwrap();
                for depth in 0..=3 {
                    assert_eq!(
                        split_value(board, p.0, depth),
                        expected,
                        "{} at depth {depth}",
                        board.notation(p)
                    );
                }
            }
        }
    }

    #[test]
    fn transposed_quiet_moves_meet_in_one_leaf() {
        let board = Dots::new(3, 3).unwrap();
        let tree = SplitTree::new(board, 0, 2);
        // 24 edges, 4 first moves up to symmetry; two plies of quiet moves
        // from the empty board reach far fewer than 24 * 23 leaves.
        assert_eq!(tree.nodes[0].moves.len(), 4);
        assert!(tree.leaves() < 24 * 23 / 4, "{}", tree.leaves());
        assert!(tree.facts().is_empty());
    }

    #[test]
    fn crossing_bounds_are_an_error() {
        let board = Dots::new(2, 2).unwrap();
        let mut tree = SplitTree::new(board, 0, 1);
        let leaf = tree.facts().first().map(|f| f.0);
        assert!(leaf.is_none());
        let mask = *tree.leaf_bounds.keys().next().unwrap();
        tree.learn(mask, (2, 4)).unwrap();
        assert!(tree.learn(mask, (-4, 0)).is_err());
    }
}
