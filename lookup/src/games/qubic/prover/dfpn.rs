//! The proof search ([`Prover`]): df-pn over canonical Qubic boards, the
//! proof table's bookkeeping, and the extraction of a winning move.

mod evaluation;
mod pass_cache;
mod state;

use std::time::Instant;

use crate::error::Error;
use crate::games::qubic::board::{QubicBoard, QubicCell};
use crate::games::qubic::lines::has_line;
use crate::games::qubic::symmetry::{INVERSES, SYMMETRIES, SYMMETRY_COUNT};
use crate::games::qubic::threats::{ThreatLine, ThreatSearch};
use crate::stop::Stop;

use super::images::{Images, Order, child_images, images_of, least, least_after};
use super::leaves::Leaves;
use super::limits::ProverLimits;
use super::move_order::attacker_move_order;
use super::proof_numbers::{Child, INFINITE, ProofNumber, combine, epsilon, solved, sub};
use super::proof_table::{NO_MOVE, ProofTable};
use super::stats::ProverStats;
use super::trace::{Trace, TraceLine};
use super::{Attacker, Verdict};
use evaluation::{Evaluation, numbers};
use pass_cache::{PassEntry, pass_cache};
pub use state::StateError;

/// Depth-first proof-number search (Nagai 2002, "Df-pn algorithm for
/// searching AND/OR trees and its applications"; as surveyed by Kishimoto,
/// Winands, Müller and Saito, "Game-tree search using proof numbers: the
/// first twenty years", ICGA Journal 35(3), 2012) over Qubic positions, in
/// which a node of the attacker (an OR node) is proved by a threat line
/// where one exists ([`ThreatSearch`], Allis's threat-space search), and a
/// node of the defender (an AND node) has as children only the defender's
/// moves that the attacker's threat line for a pass does not still beat.
///
/// - **OR nodes** (the attacker to move): a win in 1, a fork, or a threat
///   line proves the node; a defender with two threats, or a pairing
///   strategy of the defender against every line the attacker can still
///   complete, disproves it; a single threat of the defender leaves the
///   block as the only move; otherwise every empty cell on a line someone
///   can still complete is a move.
/// - **AND nodes** (the defender to move): a win of the defender in 1
///   disproves the node; two threats of the attacker prove it, one leaves the
///   block as the only move; otherwise each defender move is a child, and a
///   child is proved at once when the attacker has a threat line after it.
///   The line the attacker would have if the defender passed is tried first
///   (Allis's null move: a defender stone never helps the attacker, so if
///   the attacker has no line after a pass it has none after any move, and
///   no child is searched for one).
/// - **Transpositions** by the canonical form under the 192 symmetries: every
///   node is the least image of its board, so symmetric moves are one child.
/// - **Thresholds** with the 1 + ε trick (Pawlewicz and Lew 2007) against
///   the thrashing of plain df-pn.
/// - **Memory**: a table of fixed size ([`ProverLimits::table_bytes`]); a
///   node that lost its entry is searched again when it is needed.
/// - **Leaves** ([`Prover::with_leaves`]): a database of positions known
///   won for X (the strategy table's records) ends the search there: a
///   proved node for X, a disproved one for O.
/// - **Stopping**: besides its own limits, a [`Stop`] shared with a
///   request ([`Prover::with_stop`]), polled at every node and charged
///   the nodes spent.
pub struct Prover<'l> {
    attacker: Attacker,
    leaves: Option<&'l dyn Leaves>,
    stop: Stop,
    /// Nodes charged to `stop` so far.
    charged: u64,
    limits: ProverLimits,
    table: ProofTable,
    threats: ThreatSearch,
    nodes: u64,
    deadline: Option<Instant>,
    stats: ProverStats,
    depth: usize,
    /// Where nodes near the root report their children's numbers.
    trace: Trace,
    pass_cache: Vec<PassEntry>,
}

impl std::fmt::Debug for Prover<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prover")
            .field("attacker", &self.attacker)
            .field("limits", &self.limits)
            .field("leaves", &self.leaves.is_some())
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

impl<'l> Prover<'l> {
    /// A prover of wins for `attacker` within `limits`.
    pub fn new(attacker: Attacker, limits: ProverLimits) -> Prover<'l> {
        Prover {
            attacker,
            leaves: None,
            stop: Stop::default(),
            charged: 0,
            limits,
            table: ProofTable::new(limits.table_bytes, limits.replace_by_work),
            threats: ThreatSearch::new(limits.threat_budget),
            nodes: 0,
            deadline: None,
            stats: ProverStats::default(),
            depth: 0,
            trace: Trace::default(),
            pass_cache: pass_cache(limits.pass_cache),
        }
    }

    /// The prover, ending its search at the positions `leaves` knows won
    /// for X.
    pub fn with_leaves(mut self, leaves: &'l dyn Leaves) -> Prover<'l> {
        self.leaves = Some(leaves);
        self
    }

    /// The prover, stopped also by `stop` (polled at every node, and
    /// charged the nodes spent).
    pub fn with_stop(mut self, stop: Stop) -> Prover<'l> {
        self.stop = stop;
        self
    }

    /// What the leaves say of a canonical board: X-to-move positions they
    /// know won for X are proved for X and disproved for O.
    fn leaf(&self, key: QubicBoard) -> Option<Verdict> {
        let leaves = self.leaves?;
        (key.x_to_move() && leaves.x_wins(key)).then_some(match self.attacker {
            Attacker::X => Verdict::Proved,
            Attacker::O => Verdict::Disproved,
        })
    }

    /// Reports, after each child searched at a node shallower than
    /// `depth`, the node's children with their numbers ([`TraceLine`]);
    /// `0` reports nothing.
    pub fn trace(&mut self, depth: usize, report: impl FnMut(&TraceLine<'_>) + Send + 'static) {
        self.trace = Trace::new(depth, report);
    }

    /// The limits it searches within.
    pub fn limits(&self) -> ProverLimits {
        self.limits
    }

    /// The counters so far.
    pub fn stats(&self) -> ProverStats {
        let mut stats = self.stats;
        stats.threat_nodes = self.threats.total_nodes();
        stats
    }

    /// Entries in use in the proof table, and its capacity.
    pub fn table_use(&self) -> (usize, usize) {
        (self.table.used, self.table.capacity())
    }

    /// Nodes spent so far (proof-search and threat-search nodes).
    pub fn nodes(&self) -> u64 {
        self.nodes + self.threats.total_nodes()
    }

    /// Threat-search nodes of failed calls, and calls that ran out.
    pub fn threat_failures(&self) -> (u64, u64) {
        (self.threats.failed_nodes, self.threats.exhausted)
    }

    fn attacker_to_move(&self, board: QubicBoard) -> bool {
        board.x_to_move() == (self.attacker == Attacker::X)
    }

    /// The attacker's stones and the defender's.
    fn sides(&self, board: QubicBoard) -> (u64, u64) {
        match self.attacker {
            Attacker::X => (board.x(), board.o()),
            Attacker::O => (board.o(), board.x()),
        }
    }

    /// Whether the attacker wins `board` (which must not be over).
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] or [`Error::TimeExhausted`] when the
    /// limits run out first.
    pub fn prove(&mut self, board: QubicBoard) -> Result<Verdict, Error> {
        self.deadline = self.limits.time.map(|t| Instant::now() + t);
        let (attacker, defender) = self.sides(board);
        if has_line(defender) || board.empty() == 0 {
            return Ok(Verdict::Disproved);
        }
        if has_line(attacker) {
            return Ok(Verdict::Proved);
        }
        let images = images_of(board);
        let searched = self.mid(&images, INFINITE - 1, INFINITE - 1);
        self.charge();
        let (pn, dn) = searched?;
        if pn == 0 {
            Ok(Verdict::Proved)
        } else if dn == 0 {
            Ok(Verdict::Disproved)
        } else {
            // Thresholds of INFINITE - 1 are only reached by a solved node.
            Err(Error::BudgetExhausted {
                budget: self.nodes(),
            })
        }
    }

    /// A winning move of the attacker (to move) in a position it wins, in
    /// the frame of the board given: from the table, or by proving the
    /// position again where the table lost it. `None` if the attacker does
    /// not win, or (with [`ProverLimits::max_stones`]) if no proof is found
    /// within the limit: a position the search settled by a threat line
    /// found with a hint, which the proof did not store, can be at the
    /// limit and without a line the unhinted search finds.
    ///
    /// # Errors
    ///
    /// As [`prove`](Prover::prove).
    pub fn winning_move(&mut self, board: QubicBoard) -> Result<Option<u8>, Error> {
        let images = images_of(board);
        let (key, symmetry) = least(&images);
        let inverse = &INVERSES[symmetry];
        let stored = |table: &ProofTable| {
            table
                .get(key)
                .filter(|e| e.pn == 0 && e.mv != NO_MOVE)
                .map(|e| inverse[usize::from(e.mv)])
        };
        if let Some(mv) = stored(&self.table) {
            return Ok(Some(mv));
        }
        if let Evaluation::Solved(verdict, mv) = self.evaluate(board, &[]) {
            return Ok(mv.filter(|_| verdict == Verdict::Proved));
        }
        if self.prove(board)? == Verdict::Disproved {
            return Ok(None);
        }
        if let Some(mv) = stored(&self.table) {
            return Ok(Some(mv));
        }
        // Proved, but the table kept no move: find one among the children.
        let (attacker, defender) = self.sides(board);
        let mut moves = !(attacker | defender);
        while moves != 0 {
            let cell = moves.trailing_zeros() as u8;
            moves &= moves - 1;
            if self.prove(board.with_move(QubicCell::new(cell).expect("a cell")))?
                == Verdict::Proved
            {
                return Ok(Some(cell));
            }
        }
        Ok(None)
    }

    /// Charges the stop the nodes spent since it was last charged (proof
    /// and threat search).
    fn charge(&mut self) {
        let nodes = self.nodes();
        self.stop.charge(nodes - self.charged);
        self.charged = nodes;
    }

    /// Counts a node and checks the limits.
    fn visit(&mut self) -> Result<(), Error> {
        self.nodes += 1;
        self.stats.mid_calls += 1;
        if let Some(limit) = self.limits.nodes {
            if self.nodes() > limit {
                return Err(Error::BudgetExhausted { budget: limit });
            }
        }
        // Every node: one node's threat searches can take milliseconds.
        self.charge();
        self.stop.poll()?;
        if let Some(0) = self.stop.nodes_left() {
            return Err(Error::BudgetExhausted {
                budget: self.nodes(),
            });
        }
        if self.nodes & 0xff == 0 {
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

    /// The multiple iterative deepening of df-pn at the board whose images
    /// are `images`: searches until its proof number reaches `thpn` or its
    /// disproof number `thdn`, and returns both.
    fn mid(
        &mut self,
        images: &Images,
        thpn: ProofNumber,
        thdn: ProofNumber,
    ) -> Result<(ProofNumber, ProofNumber), Error> {
        self.visit()?;
        let board = QubicBoard::from_masks(images[0].0, images[0].1);
        let (key, symmetry) = least(images);
        let to_key = |mv: u8| SYMMETRIES[symmetry][usize::from(mv)];
        if let Some(verdict) = self.leaf(key) {
            let (pn, dn) = solved(verdict);
            self.table.put(key, pn, dn, None, 1);
            return Ok((pn, dn));
        }
        let moves = match self.evaluate_cached(board, key)? {
            Evaluation::Solved(verdict, mv) => {
                let (pn, dn) = solved(verdict);
                self.table.put(key, pn, dn, mv.map(to_key), 1);
                return Ok((pn, dn));
            }
            Evaluation::Open(moves) => moves,
        };
        let start = self.nodes();
        let order = Order::new(images, board.x_to_move());
        let (mut children, mut pending) = self.expand(board, images, &order, moves);
        let or_node = self.attacker_to_move(board);
        let x_moves = board.x_to_move();
        let mut next: Images = [(0, 0); SYMMETRY_COUNT];
        loop {
            let (pn, mut dn, best, mut second) = combine(&children, or_node, self.limits.weak);
            if !pending.is_empty() {
                // The moves not searched yet stand as one more child, with
                // the proof number at which they are taken in and one
                // disproof each.
                if pn >= self.limits.widen_pn {
                    self.stats.widenings += 1;
                    let from = children.len();
                    for _ in 0..self.limits.width {
                        match pending.pop() {
                            Some(child) => children.push(child),
                            None => break,
                        }
                    }
                    self.fill(board, images, &order, &mut children[from..]);
                    continue;
                }
                dn = (u64::from(dn) + pending.len() as u64).min(u64::from(INFINITE)) as ProofNumber;
                second = second.min(self.limits.widen_pn);
            }
            if pn >= thpn || dn >= thdn || pn == 0 || dn == 0 {
                let mv = (or_node && pn == 0).then(|| to_key(children[best].cell));
                let work = self.nodes() - start;
                self.table.put(key, pn, dn, mv, work);
                return Ok((pn, dn));
            }
            let child = children[best];
            let (thpn_child, thdn_child) = if or_node {
                (
                    thpn.min(epsilon(second, self.limits.epsilon_percent)),
                    sub(thdn, dn.saturating_sub(child.dn)),
                )
            } else {
                (
                    sub(thpn, pn.saturating_sub(child.pn)),
                    thdn.min(epsilon(second, self.limits.epsilon_percent)),
                )
            };
            child_images(images, child.cell, x_moves, &mut next);
            self.depth += 1;
            let result = self.mid(&next, thpn_child, thdn_child);
            self.depth -= 1;
            let (cpn, cdn) = result?;
            children[best].pn = cpn;
            children[best].dn = cdn;
            if self.depth < self.trace.depth {
                let line = TraceLine {
                    depth: self.depth,
                    nodes: self.nodes(),
                    children: &children,
                };
                self.trace.report(&line);
            }
        }
    }

    /// The children of a board whose evaluation left `moves` open, each
    /// once up to symmetry, with their numbers from the table or from their
    /// own evaluation (stored).
    fn expand(
        &mut self,
        board: QubicBoard,
        images: &Images,
        order: &Order,
        moves: u64,
    ) -> (Vec<Child>, Vec<Child>) {
        self.stats.expansions += 1;
        let or_node = self.attacker_to_move(board);
        let x_moves = board.x_to_move();
        let mut children: Vec<Child> = Vec::with_capacity(moves.count_ones() as usize);
        let mut rest = moves;
        while rest != 0 {
            let cell = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let (key, _) = least_after(images, order, cell, x_moves);
            if children.iter().any(|c| c.key == key) {
                continue;
            }
            children.push(Child {
                cell,
                key,
                pn: 1,
                dn: 1,
            });
        }
        let mut pending = Vec::new();
        if or_node
            && self.limits.width > 0
            && children.len() > self.limits.width
            && board.stones() >= self.limits.narrow_from
        {
            let (attacker, defender) = self.sides(board);
            attacker_move_order(attacker, defender, &mut children);
            pending = children.split_off(self.limits.width);
            // Taken from the back when widening.
            pending.reverse();
        }
        self.fill(board, images, order, &mut children);
        (children, pending)
    }

    /// The numbers of new children of `board`: from the table, or from their
    /// own evaluation (stored).
    fn fill(&mut self, board: QubicBoard, images: &Images, order: &Order, children: &mut [Child]) {
        let or_node = self.attacker_to_move(board);
        let x_moves = board.x_to_move();
        // The attacker's line for a pass, tried first in every child of a
        // defender's node (only needed for children the table has not seen).
        let mut pass_line: Option<Option<ThreatLine>> = None;
        let mut pass_zone: Option<u64> = None;
        for child in children.iter_mut() {
            if let Some(entry) = self.table.get(child.key) {
                (child.pn, child.dn) = (entry.pn, entry.dn);
                continue;
            }
            if let Some(verdict) = self.leaf(child.key) {
                (child.pn, child.dn) = solved(verdict);
                self.table.put(child.key, child.pn, child.dn, None, 1);
                continue;
            }
            let after = board.with_move(QubicCell::new(child.cell).expect("a cell"));
            let hint: Option<ThreatLine> = if or_node {
                None
            } else {
                *pass_line.get_or_insert_with(|| {
                    let (attacker, defender) = self.sides(board);
                    let line = self.pass_line(attacker, defender);
                    if let Some(line) = &line {
                        pass_zone = Some(line.zone(attacker, defender));
                    }
                    line
                })
            };
            if let Some((line, zone)) = hint.as_ref().zip(pass_zone) {
                if zone >> child.cell & 1 == 0 {
                    // Outside the line's zone: the line still wins.
                    self.stats.zone_wins += 1;
                    let (_, symmetry) = least_after(images, order, child.cell, x_moves);
                    let mv = SYMMETRIES[symmetry][usize::from(line.first())];
                    (child.pn, child.dn) = (0, INFINITE);
                    self.table.put(child.key, 0, INFINITE, Some(mv), 1);
                    continue;
                }
            }
            let evaluation = if !or_node && hint.is_none() {
                // No line after a pass: none after any defender move
                // either, so the child's threat search is skipped.
                self.evaluate_without_threats(after)
            } else {
                let evaluation = self.evaluate(after, hint.as_ref().map_or(&[], |l| l.moves()));
                if hint.is_some() && matches!(evaluation, Evaluation::Solved(Verdict::Proved, _)) {
                    self.stats.hinted_wins += 1;
                }
                evaluation
            };
            let (mut pn, dn, mv) = numbers(&evaluation);
            if or_node && self.limits.estimate && matches!(evaluation, Evaluation::Open(_)) {
                pn = self.estimate_defences(after);
            }
            (child.pn, child.dn) = (pn, dn);
            let mv = mv.map(|m| {
                let (_, symmetry) = least_after(images, order, child.cell, x_moves);
                SYMMETRIES[symmetry][usize::from(m)]
            });
            self.table.put(child.key, pn, dn, mv, 1);
        }
    }
}
