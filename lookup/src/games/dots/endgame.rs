//! The exact dots-and-boxes solver for boards without a table: alpha-beta on
//! the box margin with a transposition table keyed by canonical position,
//! move ordering, and the theory of chains and loops.
//!
//! # Pruning rules, and what each relies on
//!
//! Each rule can be switched off ([`Rules`]); the tests compare every rule,
//! alone and together, with the unpruned search and the retrograde tables on
//! every position of small boards.
//!
//! - **Free captures** ([`Rules::free_captures`]): if an edge completes a box
//!   and does not give a third side to any other box (the box across it has
//!   at most one side drawn, or none exists, or it is completed too), taking
//!   it is optimal, so it is played without branching. Taking such a box
//!   changes nothing else on the board and keeps the move; Berlekamp, *The
//!   Dots and Boxes Game* (2000), ch. 1-2, and Barker & Korf, "Solving
//!   Dots-And-Boxes" (AAAI 2012), §"Capturing boxes".
//! - **Loony moves** ([`Rules::loony_moves`]): when a box can be captured,
//!   only captures and double-dealing moves are searched: declining a
//!   capturable box is only ever right as the last act of a turn that hands
//!   over the last two boxes of a chain (or four of a loop) — Berlekamp ch. 2
//!   ("all-but-two" / "all-but-four"), and Buzzard & Ciere, "Playing simple
//!   loony dots and boxes endgames optimally" (Integers 14, 2014), §2: in a
//!   loony position the only moves worth considering are taking everything or
//!   taking all but two (four in a loop) and double-dealing. The
//!   double-dealing move for a capturable box `A` whose capture edge leads
//!   into a box `B` with two sides is `B`'s other free edge.
//! - **Simple loony endgames** ([`Rules::component_values`]): a position in
//!   which every unclaimed box has exactly two sides drawn is a union of
//!   chains and loops; if every chain has at least three boxes and every
//!   loop at least four, its value follows from the component recursion of
//!   Berlekamp ch. 3 and Buzzard & Ciere §3 without search: the player to
//!   move opens a component, and the opponent either takes it all and moves
//!   next, or takes all but 2 (chain) / 4 (loop) and hands those over.
//! - **Symmetry** ([`Rules::symmetry`]): positions are stored under their
//!   canonical image (4 or 8 symmetries).
//! - **Border edges** ([`Rules::border_edges`]): the border edges of one box
//!   are interchangeable; only the first undrawn one is searched, and the
//!   key counts them.
//! - **Transposition cutoffs** ([`Rules::transposition_cutoffs`]): before
//!   searching the moves of a position with 12 or more undrawn edges, every
//!   child is looked up in the table, and a stored bound that already
//!   refutes the window ends the search (Plaat, Schaeffer, Pijls and de
//!   Bruin 1994). On the empty 4x4 board it cuts the positions searched
//!   3.3-fold and the time 1.4-fold; on the smaller positions of
//!   `examples/endgame_positions.txt` it halves the positions but costs 17%
//!   more time (README, "Performance").
//!
//! Move ordering: the best move of an earlier search of the position, then
//! captures, then moves that give no box a third side, then the rest by how
//! many boxes they expose, each kind from the centre out.
//!
//! # The transposition table
//!
//! Exact: an entry is found only under its own key (quotienting: the bucket
//! and the stored remainder of a scrambled key give the key back), so a
//! table never confuses two positions however full it is. Entries are 8
//! bytes (bounds, best move, and the size of the subtree that proved them)
//! in buckets of four; a new position replaces the entry with the smallest
//! subtree. The memory is advised to use huge pages. Details in the
//! `table` module.

use std::collections::HashMap;
use std::time::Instant;

mod transposition;

use self::transposition::{Entry, NO_MOVE, TranspositionTable};
use super::{Dots, Edges};
use crate::error::Error;
use crate::game::{ExactSolver, Game, SearchLimits};
use crate::games::dots::EdgeSymmetries;
use crate::value::Score;

const NO_BOX: u8 = u8::MAX;

/// More boxes than any board of at most 63 edges has (5x5 has 25).
const MAX_BOXES: usize = 32;

/// Drawn sides of each box, in box order (`r * cols + c`).
type Sides = [u8; MAX_BOXES];

/// Which pruning rules the [`EndgameSolver`] uses (see the
/// endgame module's documentation for what each relies on). All are on by
/// default; tests switch them off one by one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Play captures that expose nothing without branching.
    pub free_captures: bool,
    /// With a capturable box, search only captures and double-deals.
    pub loony_moves: bool,
    /// Value simple loony endgames by the component recursion.
    pub component_values: bool,
    /// Key the transposition table by canonical position.
    pub symmetry: bool,
    /// Treat the border edges of one box as one: only which box an edge
    /// belongs to matters, so the two outer edges of a corner box are
    /// interchangeable (the corner symmetry of Barker & Korf 2012, obvious in
    /// Berlekamp's strings-and-coins view, where both are strings from the
    /// same coin to the ground). Only the first undrawn one is searched, and
    /// the table key counts them instead of naming them.
    pub border_edges: bool,
    /// Before searching a position's moves, look every child up in the
    /// transposition table: one whose stored bound already refutes the
    /// window ends the search here (enhanced transposition cutoffs,
    /// Plaat, Schaeffer, Pijls and de Bruin, "Nearly optimal minimax tree
    /// search?", 1994). Only in positions with 12 or more undrawn edges,
    /// where a search saved is worth the lookups.
    pub transposition_cutoffs: bool,
}

/// The fewest undrawn edges of a position whose children
/// [`Rules::transposition_cutoffs`] looks up.
const CUTOFF_MIN_UNDRAWN: u32 = 12;

impl Rules {
    /// Every rule on.
    pub const ALL: Rules = Rules {
        free_captures: true,
        loony_moves: true,
        component_values: true,
        symmetry: true,
        border_edges: true,
        transposition_cutoffs: true,
    };
    /// Every rule off: plain alpha-beta with a transposition table.
    pub const NONE: Rules = Rules {
        free_captures: false,
        loony_moves: false,
        component_values: false,
        symmetry: false,
        border_edges: false,
        transposition_cutoffs: false,
    };
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::ALL
    }
}

/// An exact solver for one dots-and-boxes board. Keeps its transposition
/// table between calls, so asking about a position and then its children
/// shares work.
///
/// ```
/// use solvedb_lookup::games::dots::EndgameSolver;
/// use solvedb_lookup::{Dots, Game, SearchLimits};
///
/// let board = Dots::new(2, 2)?;
/// let mut solver = EndgameSolver::new(board, SearchLimits::default());
/// assert_eq!(solver.solve(board.start())?, 2);
/// # Ok::<(), solvedb_lookup::Error>(())
/// ```
#[derive(Debug)]
pub struct EndgameSolver {
    board: Dots,
    rules: Rules,
    limits: SearchLimits,
    full: u64,
    box_masks: Vec<u64>,
    edge_boxes: Vec<[u8; 2]>,
    symmetries: EdgeSymmetries,
    /// `edge_maps[s][e]`: where symmetry `s` takes edge `e`.
    edge_maps: Vec<[u8; 64]>,
    /// `inverse_maps[s][e]`: the edge symmetry `s` takes to `e`.
    inverse_maps: Vec<[u8; 64]>,
    /// Edges from the centre of the board outwards: the order moves of one
    /// kind are tried in (Barker & Korf 2012 found centre-first ordering
    /// best).
    centre_first: Vec<u32>,
    /// `centre_rank[e]`: the place of edge `e` in `centre_first`.
    centre_rank: Vec<u32>,
    /// For each box with two or more border edges, those edges, in order.
    border_groups: Vec<Vec<u32>>,
    table: TranspositionTable,
    nodes: u64,
    deadline: Option<Instant>,
    loony_memo: HashMap<Vec<(bool, u8)>, i32>,
}

/// The memory of the transposition table of [`EndgameSolver::new`]:
/// `2^edges` bytes, at least 64 KiB and at most 256 MiB (4x4 and
/// larger): a solver is cheap to make for small boards, big enough for big
/// ones.
fn default_table_bytes(board: Dots) -> u64 {
    1 << board.edges().clamp(16, 28)
}

/// The most entries (a power of two, as its exponent) whose table for
/// `board` fits in `bytes`.
fn entry_bits_within(board: Dots, bytes: u64) -> u32 {
    (2..=40)
        .take_while(|&bits| TranspositionTable::bytes(bits, board.edges()) <= bytes)
        .last()
        .unwrap_or(2)
}

impl EndgameSolver {
    /// A solver with every rule and the default table size.
    pub fn new(board: Dots, limits: SearchLimits) -> EndgameSolver {
        let bytes = limits
            .table_bytes
            .unwrap_or_else(|| default_table_bytes(board));
        let bits = entry_bits_within(board, bytes);
        EndgameSolver::with_rules(board, limits, Rules::ALL, bits)
    }

    /// A solver with chosen rules and a table of `2^table_bits` entries (8
    /// bytes each, 16 where a board's key is too long for the table's
    /// quotient to fit beside the data: see the `table` module).
    pub fn with_rules(
        board: Dots,
        limits: SearchLimits,
        rules: Rules,
        table_bits: u32,
    ) -> EndgameSolver {
        let mut box_masks = Vec::new();
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                box_masks.push(board.box_mask(r, c));
            }
        }
        let edge_boxes = (0..board.edges())
            .map(|e| edge_boxes_of(board, e))
            .collect();
        let mut edge_maps = vec![[NO_MOVE; 64]; board.symmetry_count()];
        let mut inverse_maps = edge_maps.clone();
        for (s, (forward, inverse)) in edge_maps.iter_mut().zip(&mut inverse_maps).enumerate() {
            for e in 0..board.edges() {
                let image = board.edge_image(s, e);
                forward[e as usize] = image as u8;
                inverse[image as usize] = e as u8;
            }
        }
        let mut centre_first: Vec<u32> = (0..board.edges()).collect();
        // Twice the distance of an edge's midpoint from the centre, squared.
        let distance = |e: u32| {
            let edge = board.edge(e);
            let (r, c) = (i64::from(edge.row) * 2, i64::from(edge.col) * 2);
            let (y, x) = if edge.horizontal {
                (r, c + 1)
            } else {
                (r + 1, c)
            };
            let (dy, dx) = (y - i64::from(board.rows()), x - i64::from(board.cols()));
            dy * dy + dx * dx
        };
        centre_first.sort_by_key(|&e| (distance(e), e));
        let mut centre_rank = vec![0; board.edges() as usize];
        for (rank, &e) in centre_first.iter().enumerate() {
            centre_rank[e as usize] = rank as u32;
        }
        let mut border_groups = vec![Vec::new(); board.boxes() as usize];
        for e in 0..board.edges() {
            if let [b, NO_BOX] = edge_boxes_of(board, e) {
                border_groups[b as usize].push(e);
            }
        }
        border_groups.retain(|group| group.len() >= 2);
        EndgameSolver {
            board,
            rules,
            centre_first,
            centre_rank,
            border_groups,
            limits,
            full: board.full(),
            box_masks,
            edge_boxes,
            symmetries: board.symmetries(),
            edge_maps,
            inverse_maps,
            // Allocated by the first search: an oracle that answers from a
            // table never needs it.
            table: TranspositionTable::new(table_bits, board.edges()),
            nodes: 0,
            deadline: None,
            loony_memo: HashMap::new(),
        }
    }

    /// Positions visited so far (captures played without branching count
    /// with the position they start from).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact margin of `position` for the player to move.
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] or [`Error::TimeExhausted`] when the limits
    /// run out first: the answer is unknown within the budget.
    pub fn solve(&mut self, position: Edges) -> Result<Score, Error> {
        self.table.allocate();
        self.deadline = self.limits.time.map(|t| Instant::now() + t);
        let remaining = self.board.remaining_boxes(position.0) as i32;
        // MTD(f) (Plaat et al. 1996) with null windows from a guess of 0:
        // each test "is the margin more than t?" is cheap, and the table
        // keeps the bounds earlier tests proved. Margins have the parity of
        // `remaining`, so tests sit on possible values.
        let (mut lower, mut upper) = (-remaining, remaining);
        let mut test = if remaining % 2 == 0 { 0 } else { -1 };
        while lower < upper {
            let t = test.clamp(lower, upper - 2);
            let v = self.search(position.0, t, t + 1)?;
            if v > t {
                lower = v;
                test = lower;
            } else {
                upper = v;
                test = upper - 2;
            }
        }
        Ok(lower)
    }

    fn check_limits(&self) -> Result<(), Error> {
        // Checked before a position counts: a search that stops has
        // visited exactly its budget.
        if let Some(budget) = self.limits.nodes.filter(|&b| self.nodes >= b) {
            return Err(Error::BudgetExhausted { budget });
        }
        if self.nodes & 0xfff == 0 {
            self.limits.stop.poll()?;
            if let (Some(deadline), Some(time)) = (self.deadline, self.limits.time) {
                if Instant::now() > deadline {
                    return Err(Error::TimeExhausted {
                        millis: time.as_millis() as u64,
                    });
                }
            }
        }
        Ok(())
    }

    fn sides(&self, mask: u64, b: u8) -> u32 {
        (mask & self.box_masks[b as usize]).count_ones()
    }

    /// The same position with each box's drawn border edges moved to the
    /// first of its border edges: an equal value ([`Rules::border_edges`]).
    fn normalise_borders(&self, mask: u64) -> u64 {
        let mut mask = mask;
        for group in &self.border_groups {
            let drawn = group.iter().filter(|&&e| mask & 1 << e != 0).count();
            for (i, &e) in group.iter().enumerate() {
                if i < drawn {
                    mask |= 1 << e;
                } else {
                    mask &= !(1 << e);
                }
            }
        }
        mask
    }

    /// The table key of a position (its canonical image) and a symmetry
    /// that takes the position there.
    fn key(&self, mask: u64) -> (u64, usize) {
        let mask = if self.rules.border_edges {
            self.normalise_borders(mask)
        } else {
            mask
        };
        let mut best = (mask, 0);
        if self.rules.symmetry {
            for s in 1..self.symmetries.count() {
                let image = self.symmetries.image(s, mask);
                if image < best.0 {
                    best = (image, s);
                }
            }
        }
        best
    }

    /// Drawn sides of every box.
    fn sides_of(&self, mask: u64) -> Sides {
        let mut sides = [0u8; MAX_BOXES];
        for (side, &b) in sides.iter_mut().zip(&self.box_masks) {
            *side = (mask & b).count_ones() as u8;
        }
        sides
    }

    /// Boxes edge `e` completes, given the boxes' sides.
    fn gain_with(&self, sides: &Sides, e: u32) -> i32 {
        self.edge_boxes[e as usize]
            .iter()
            .filter(|&&b| b != NO_BOX && sides[b as usize] == 3)
            .count() as i32
    }

    /// Fail-soft alpha-beta: the margin of `mask` for the player to move if
    /// it lies inside `(alpha, beta)`, else a bound on the far side.
    fn search(&mut self, mask: u64, alpha: i32, beta: i32) -> Result<i32, Error> {
        self.check_limits()?;
        self.nodes += 1;
        let mut sides = self.sides_of(mask);
        let (mask, gain) = if self.rules.free_captures {
            self.take_free_captures(mask, &mut sides)
        } else {
            (mask, 0)
        };
        Ok(gain + self.search_after_captures(mask, &sides, alpha - gain, beta - gain)?)
    }

    /// Takes every free capture ([`Rules::free_captures`]): the position
    /// after them, with `sides` brought up to date, and the boxes taken.
    fn take_free_captures(&self, mask: u64, sides: &mut Sides) -> (u64, i32) {
        let mut mask = mask;
        let mut gain = 0;
        'capture: loop {
            for b in 0..self.box_masks.len() {
                if sides[b] != 3 {
                    continue;
                }
                let e = (self.box_masks[b] & !mask).trailing_zeros();
                let [x, y] = self.edge_boxes[e as usize];
                let other = if x as usize == b { y } else { x };
                if other == NO_BOX || sides[other as usize] != 2 {
                    for a in [x, y] {
                        if a != NO_BOX {
                            sides[a as usize] += 1;
                            gain += i32::from(sides[a as usize] == 4);
                        }
                    }
                    mask |= 1 << e;
                    continue 'capture;
                }
            }
            break;
        }
        (mask, gain)
    }

    /// Enhanced transposition cutoff ([`Rules::transposition_cutoffs`]):
    /// a move whose child the table already proves at least `beta` for
    /// the player to move here, and that bound, without searching it.
    fn transposition_cutoff(
        &self,
        mask: u64,
        sides: &Sides,
        moves: &[u32],
        beta: i32,
    ) -> Option<(u32, i32)> {
        for &e in moves {
            let g = self.gain_with(sides, e);
            let mut child_sides = *sides;
            for b in self.edge_boxes[e as usize] {
                if b != NO_BOX {
                    child_sides[b as usize] += 1;
                }
            }
            let (child, taken) = if self.rules.free_captures {
                self.take_free_captures(mask | 1 << e, &mut child_sides)
            } else {
                (mask | 1 << e, 0)
            };
            // The child's value for its mover is `taken` plus the value of
            // `child`, as `search` counts it.
            let (key, _) = self.key(child);
            let Some(entry) = self.table.probe(key) else {
                continue;
            };
            let bound = if g > 0 {
                g + taken + entry.lower
            } else {
                -(taken + entry.upper)
            };
            if bound >= beta {
                return Some((e, bound));
            }
        }
        None
    }

    fn search_after_captures(
        &mut self,
        mask: u64,
        sides: &Sides,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Error> {
        if mask == self.full {
            return Ok(0);
        }
        let boxes = &sides[..self.box_masks.len()];
        let remaining = boxes.iter().filter(|&&s| s != 4).count() as i32;
        if remaining <= alpha {
            return Ok(remaining);
        }
        if -remaining >= beta {
            return Ok(-remaining);
        }
        if self.rules.component_values && boxes.iter().all(|&s| s == 2 || s == 4) {
            if let Some(v) = self.simple_loony_value(mask) {
                return Ok(v);
            }
        }
        let (key, symmetry) = self.key(mask);
        let mut hint = NO_MOVE;
        let nodes_before = self.nodes;
        if let Some(entry) = self.table.probe(key) {
            let (lower, upper) = (entry.lower, entry.upper);
            if lower >= beta || lower == upper {
                return Ok(lower);
            }
            if upper <= alpha {
                return Ok(upper);
            }
            if entry.best != NO_MOVE {
                hint = self.inverse_maps[symmetry][entry.best as usize];
            }
        }

        let (mut moves, count) = self.ordered_moves(mask, sides);
        // The best move of an earlier search of this position goes first.
        if let Some(i) = moves[..count].iter().position(|&m| m == u32::from(hint)) {
            moves[..=i].rotate_right(1);
        }
        if self.rules.transposition_cutoffs
            && (self.full & !mask).count_ones() >= CUTOFF_MIN_UNDRAWN
        {
            if let Some((e, bound)) = self.transposition_cutoff(mask, sides, &moves[..count], beta)
            {
                let entry = Entry {
                    lower: bound,
                    upper: remaining,
                    best: self.edge_maps[symmetry][e as usize],
                };
                self.table.store(key, entry, 0);
                return Ok(bound);
            }
        }
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        let mut low = alpha;
        for &e in &moves[..count] {
            let g = self.gain_with(sides, e);
            let child = mask | 1 << e;
            let v = if g > 0 {
                g + self.search(child, low - g, beta - g)?
            } else {
                -self.search(child, -beta, -low)?
            };
            if v > best {
                best = v;
                best_move = self.edge_maps[symmetry][e as usize];
            }
            low = low.max(v);
            if low >= beta {
                break;
            }
        }
        let (lower, upper) = if best <= alpha {
            (-remaining, best)
        } else if best >= beta {
            (best, remaining)
        } else {
            (best, best)
        };
        let entry = Entry {
            lower,
            upper,
            best: best_move,
        };
        self.table.store(key, entry, self.nodes - nodes_before);
        Ok(best)
    }

    /// The moves worth searching, best first, in a buffer with their count.
    fn ordered_moves(&self, mask: u64, sides: &Sides) -> ([u32; 64], usize) {
        let free = self.full & !mask;
        let mut candidates = free;
        if self.rules.border_edges {
            for group in &self.border_groups {
                let mut undrawn = group.iter().filter(|&&e| free & 1 << e != 0);
                undrawn.next();
                for &e in undrawn {
                    candidates &= !(1 << e);
                }
            }
        }
        let mut moves = [0u32; 64];
        let mut count = 0;
        // Exposure of each non-capturing edge: boxes it gives a third side.
        let mut by_exposure = [0u64; 3];
        let mut captures = 0u64;
        let mut bits = candidates;
        while bits != 0 {
            let e = bits.trailing_zeros();
            bits &= bits - 1;
            let mut exposes = 0;
            let mut completes = false;
            for b in self.edge_boxes[e as usize] {
                if b == NO_BOX {
                    continue;
                }
                match sides[b as usize] {
                    3 => completes = true,
                    2 => exposes += 1,
                    _ => {}
                }
            }
            if completes {
                captures |= 1 << e;
            } else {
                by_exposure[exposes] |= 1 << e;
            }
        }
        let (centre_first, centre_rank) = (&self.centre_first, &self.centre_rank);
        let mut push = |mut set: u64| {
            // Renumber the set by distance from the centre, then read it
            // out in that order.
            let mut ranks = 0u64;
            while set != 0 {
                ranks |= 1 << centre_rank[set.trailing_zeros() as usize];
                set &= set - 1;
            }
            while ranks != 0 {
                moves[count] = centre_first[ranks.trailing_zeros() as usize];
                count += 1;
                ranks &= ranks - 1;
            }
        };
        push(captures);
        if captures != 0 && self.rules.loony_moves {
            // The double-deal for each capturable box A: the other free edge
            // of the two-sided box B its capture edge leads into.
            let mut double_deals = 0u64;
            let mut rest = captures;
            while rest != 0 {
                let e = rest.trailing_zeros();
                rest &= rest - 1;
                for b in self.edge_boxes[e as usize] {
                    if b != NO_BOX && sides[b as usize] == 2 {
                        double_deals |= free & self.box_masks[b as usize] & !(1 << e);
                    }
                }
            }
            push(double_deals & !captures);
            return (moves, count);
        }
        for set in by_exposure {
            push(set);
        }
        (moves, count)
    }

    /// The value of a simple loony endgame (every unclaimed box has two
    /// sides, chains of 3+ and loops of 4+), or `None` for other positions.
    fn simple_loony_value(&mut self, mask: u64) -> Option<i32> {
        let boxes = self.box_masks.len();
        let mut open = 0u64; // unclaimed boxes, as a bit set
        for b in 0..boxes {
            match self.sides(mask, b as u8) {
                2 => open |= 1 << b,
                4 => {}
                _ => return None,
            }
        }
        let free = self.full & !mask;
        // The boxes across each free edge of box b (NO_BOX for the border).
        let neighbours = |b: usize| -> [u8; 2] {
            let mut out = [NO_BOX; 2];
            let mut edges = free & self.box_masks[b];
            let mut i = 0;
            while edges != 0 {
                let e = edges.trailing_zeros();
                edges &= edges - 1;
                let [x, y] = self.edge_boxes[e as usize];
                out[i] = if x as usize == b { y } else { x };
                i += 1;
            }
            out
        };
        let mut components = Vec::new();
        let mut unseen = open;
        // Chains first: start at a box with a free edge on the border.
        for pass in 0..2 {
            let mut candidates = unseen;
            while candidates != 0 {
                let start = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if unseen & 1 << start == 0 {
                    continue;
                }
                if pass == 0 && !neighbours(start).contains(&NO_BOX) {
                    continue;
                }
                let mut length = 0u8;
                let (mut previous, mut current) = (NO_BOX, start as u8);
                loop {
                    unseen &= !(1 << current);
                    length += 1;
                    let next = neighbours(current as usize)
                        .into_iter()
                        .find(|&n| n != previous && n != NO_BOX && unseen & 1 << n != 0);
                    match next {
                        Some(n) => (previous, current) = (current, n),
                        None => break,
                    }
                }
                let is_loop = pass == 1;
                if length < if is_loop { 4 } else { 3 } {
                    return None;
                }
                components.push((is_loop, length));
            }
        }
        components.sort_unstable();
        Some(self.components_value(components))
    }

    /// Berlekamp's recursion for simple loony endgames: the player to move
    /// opens the component that is best for them; the opponent takes it all
    /// and moves next, or takes all but 2 (4 in a loop) and hands them over.
    fn components_value(&mut self, components: Vec<(bool, u8)>) -> i32 {
        if components.is_empty() {
            return 0;
        }
        if let Some(&v) = self.loony_memo.get(&components) {
            return v;
        }
        let mut best = i32::MIN;
        for i in 0..components.len() {
            if i > 0 && components[i] == components[i - 1] {
                continue;
            }
            let (is_loop, length) = components[i];
            let mut rest = components.clone();
            rest.remove(i);
            let after = self.components_value(rest);
            let n = i32::from(length);
            let handed_back = if is_loop { 8 } else { 4 };
            let opponent = (n + after).max(n - handed_back - after);
            best = best.max(-opponent);
        }
        self.loony_memo.insert(components, best);
        best
    }
}

/// The boxes on either side of edge `e`, [`NO_BOX`] for none (a border
/// edge has its box first).
fn edge_boxes_of(board: Dots, e: u32) -> [u8; 2] {
    let mut boxes = [NO_BOX; 2];
    for (slot, (r, c)) in boxes.iter_mut().zip(board.boxes_of(e)) {
        *slot = (r * board.cols() + c) as u8;
    }
    boxes
}

impl ExactSolver<Edges> for EndgameSolver {
    fn score(&mut self, position: Edges) -> Result<Score, Error> {
        self.solve(position)
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position's margin by the plain recursion, full board down.
    fn plain_values(board: Dots) -> Vec<i8> {
        let full = board.full();
        let mut values = vec![0i8; full as usize + 1];
        for mask in (0..full).rev() {
            let mut best = i32::MIN;
            for e in 0..board.edges() {
                if mask & 1 << e == 0 {
                    let (child, gain) = board.draw(mask, e);
                    let child = i32::from(values[child as usize]);
                    let gain = gain as i32;
                    best = best.max(if gain > 0 { gain + child } else { -child });
                }
            }
            values[mask as usize] = best as i8;
        }
        values
    }

    fn configurations() -> Vec<(&'static str, Rules)> {
        let only = |f: fn(&mut Rules)| {
            let mut r = Rules::NONE;
            f(&mut r);
            r
        };
        vec![
            ("none", Rules::NONE),
            ("free captures", only(|r| r.free_captures = true)),
            ("loony moves", only(|r| r.loony_moves = true)),
            ("component values", only(|r| r.component_values = true)),
            ("symmetry", only(|r| r.symmetry = true)),
            ("border edges", only(|r| r.border_edges = true)),
            (
                "transposition cutoffs",
                only(|r| r.transposition_cutoffs = true),
            ),
            ("all", Rules::ALL),
        ]
    }

    #[test]
    fn every_rule_agrees_with_plain_search_on_every_small_position() {
        for (rows, cols) in [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3), (3, 2)] {
            let board = Dots::new(rows, cols).unwrap();
            let truth = plain_values(board);
            for (name, rules) in configurations() {
                let mut solver =
                    EndgameSolver::with_rules(board, SearchLimits::default(), rules, 16);
                for (mask, &expected) in truth.iter().enumerate() {
                    let got = solver.solve(Edges(mask as u64)).unwrap();
                    assert_eq!(
                        got,
                        i32::from(expected),
                        "{rows}x{cols} {name}: {}",
                        board.notation(Edges(mask as u64))
                    );
                }
            }
        }
    }

    #[test]
    fn every_rule_agrees_with_plain_search_on_sampled_3x3_positions() {
        let board = Dots::new(3, 3).unwrap();
        let truth = plain_values(board);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let samples: Vec<u64> = (0..300)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Sparse and dense boards alike: AND or OR two draws.
                let other = state.rotate_left(29);
                let mask = if i % 2 == 0 {
                    state & other
                } else {
                    state | other
                };
                mask & board.full()
            })
            .collect();
        for (name, rules) in configurations() {
            let mut solver = EndgameSolver::with_rules(board, SearchLimits::default(), rules, 18);
            for &mask in &samples {
                let got = solver.solve(Edges(mask)).unwrap();
                assert_eq!(got, i32::from(truth[mask as usize]), "{name}: {mask:#x}");
            }
        }
    }

    #[test]
    fn simple_loony_endgames_are_valued_without_search() {
        // 1x3: a chain of three boxes open at both ends (top and bottom
        // drawn): the mover must open it and loses all three.
        let board = Dots::new(1, 3).unwrap();
        let p = board.parse("1x3:h0,0 h0,1 h0,2 h1,0 h1,1 h1,2").unwrap();
        let mut solver = EndgameSolver::new(board, SearchLimits::default());
        assert_eq!(solver.simple_loony_value(p.0), Some(-3));
        // 2x2 with the outer ring drawn: the four boxes form a loop.
        let board = Dots::new(2, 2).unwrap();
        let ring = board
            .parse("2x2:h0,0 h0,1 h2,0 h2,1 v0,0 v1,0 v0,2 v1,2")
            .unwrap();
        let mut solver = EndgameSolver::new(board, SearchLimits::default());
        assert_eq!(solver.simple_loony_value(ring.0), Some(-4));
        assert_eq!(solver.solve(ring).unwrap(), -4);
    }

    #[test]
    fn budgets_answer_unknown_instead_of_guessing() {
        let board = Dots::new(3, 3).unwrap();
        let limits = SearchLimits {
            nodes: Some(100),
            ..SearchLimits::default()
        };
        let mut solver = EndgameSolver::new(board, limits);
        assert!(matches!(
            solver.solve(board.start()),
            Err(Error::BudgetExhausted { budget: 100 })
        ));
        let limits = SearchLimits {
            time: Some(std::time::Duration::ZERO),
            ..SearchLimits::default()
        };
        let mut solver = EndgameSolver::new(board, limits);
        assert!(matches!(
            solver.solve(board.start()),
            Err(Error::TimeExhausted { millis: 0 })
        ));
        // A budget that suffices gives the exact answer.
        let limits = SearchLimits {
            nodes: Some(10_000_000),
            time: Some(std::time::Duration::from_secs(600)),
            ..SearchLimits::default()
        };
        assert_eq!(
            EndgameSolver::new(board, limits)
                .solve(board.start())
                .unwrap(),
            -3
        );
    }
}
