//! [`Prover`]: depth-first proof-number search (df-pn) with threat
//! sequences at the nodes, which proves that one side of a Qubic position
//! wins.

use std::time::{Duration, Instant};

use crate::error::Error;
use crate::games::qubic::solver::has_pairing;
use crate::games::qubic::threats::{ThreatLine, ThreatSearch};
use crate::games::qubic::{
    INVERSES, LINE_DEGREE, LINES, LINES_THROUGH, QubicBoard, QubicCell, SYMMETRIES, SYMMETRY_COUNT,
    has_line, line_cells, mask_image,
};

/// A proof or disproof number: the least number of leaves still to be
/// solved to prove (disprove) a node. [`INFINITE`] is a solved node's other
/// number.
pub type ProofNumber = u32;

/// A number too large for any sum: a proved node's disproof number, a
/// disproved node's proof number.
pub const INFINITE: ProofNumber = u32::MAX / 4;

/// Which side the prover tries to prove a win for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Attacker {
    /// X, the first player.
    X,
    /// O.
    O,
}

/// What a proof search found about a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The attacker wins.
    Proved,
    /// The attacker does not win (the defender wins or it is a draw).
    Disproved,
}

/// How a [`Prover`] searches and what it may spend.
#[derive(Copy, Clone, Debug)]
pub struct ProverLimits {
    /// Memory for the proof table, in bytes.
    pub table_bytes: u64,
    /// The most nodes (proof-search nodes and threat-search nodes together)
    /// over the prover's life; `None` for no limit.
    pub nodes: Option<u64>,
    /// The longest one call to [`Prover::prove`] may take.
    pub time: Option<Duration>,
    /// The node budget of one threat search ([`THREAT_BUDGET`] unless
    /// measuring).
    pub threat_budget: u64,
    /// Whether a new AND node's proof number is estimated
    /// (`estimate_defences`) rather than 1.
    pub estimate: bool,
    /// How many of the attacker's moves an OR node searches at first (its
    /// *width*), the most promising by a static score (see `attacker_move_order`); the next
    /// `width` join when every one searched so far is disproved (or all
    /// look worse than [`ProverLimits::widen_pn`]). `0`: every move at
    /// once. Sound for a proof, which needs one winning move per OR node
    /// and every move per AND node; a disproof still covers every move.
    pub width: usize,
    /// The proof number at which an OR node with moves not yet searched
    /// takes the next ones in: when its best child's proof number is at
    /// least this ([`INFINITE`]: only when every child is disproved).
    pub widen_pn: ProofNumber,
    /// The fewest stones on the board at which an OR node is narrowed to
    /// [`ProverLimits::width`]: nearer the root every move is searched (few
    /// nodes, where a choice left out costs most).
    pub narrow_from: u32,
    /// The most stones a position of the proof may have with the attacker
    /// to move and no threat line: such a position is counted as not won
    /// (disproved within the limit), so every line of the search ends
    /// there and a narrowed node whose moves all fail takes more in.
    /// A proof found within the limit is a proof; a disproof only says
    /// that none exists within it. `u32::MAX`: no limit.
    pub max_stones: u32,
    /// Entries of the cache of pass lines (the attacker's threat line
    /// when the defender, to move, passes), a power of two; `0` for none.
    pub pass_cache: usize,
    /// Weak proof numbers (Ueda, Hashimoto, Hashimoto and Iida, "Weak
    /// proof-number search", CG 2008): the sum over an AND node's children
    /// (and the disproof numbers' over an OR node's) becomes the largest
    /// child's number plus one for each other unsolved child, which counts
    /// a subtree shared by transpositions once rather than once per parent.
    /// A node is still proved only when every AND child is (the numbers
    /// only choose where to search).
    pub weak: bool,
    /// How a full bucket of the proof table chooses the entry to replace:
    /// `false`, open entries before solved ones, then the least work;
    /// `true`, the least work alone (a solved leaf that cost one node, such
    /// as a defence outside a line's zone, goes before an open subtree that
    /// cost millions, and is found again at once when it is needed).
    pub replace_by_work: bool,
    /// The ε of the 1 + ε trick in percent: a child is searched until its
    /// number passes the second-best's times 1 + ε (25: the prover's
    /// first setting; larger stays longer in one subtree).
    pub epsilon_percent: u32,
}

/// The revision of the prover's search: raised by every change that alters
/// which nodes a proof visits or the move it finds, the defaults of
/// [`ProverLimits`] included (a change that makes the same search faster
/// keeps it), so that a build resuming from kept tasks takes none that
/// another search proved.
pub const REVISION: u32 = 1;

/// The node budget of every threat search whose result a table relies on:
/// the probe of a strategy resolves the positions the table leaves out with
/// exactly this search, so it is part of the table format.
pub const THREAT_BUDGET: u64 = 20_000;

impl Default for ProverLimits {
    fn default() -> ProverLimits {
        ProverLimits {
            table_bytes: 64 << 20,
            nodes: None,
            time: None,
            threat_budget: THREAT_BUDGET,
            estimate: true,
            width: 0,
            widen_pn: INFINITE,
            narrow_from: 0,
            max_stones: u32::MAX,
            pass_cache: 0,
            weak: false,
            replace_by_work: false,
            epsilon_percent: 25,
        }
    }
}

/// Counters of a [`Prover`], for measuring (serialised in the files a
/// build keeps its proved tasks in).
#[derive(Copy, Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ProverStats {
    /// Calls of the proof search's recursion (`mid`).
    pub mid_calls: u64,
    /// Nodes expanded: their children generated and evaluated.
    pub expansions: u64,
    /// Threat searches started.
    pub threat_searches: u64,
    /// Threat searches that found a line.
    pub threat_wins: u64,
    /// Nodes of every threat search.
    pub threat_nodes: u64,
    /// Defender moves answered by the line found for a pass (a hint that
    /// still worked).
    pub hinted_wins: u64,
    /// Defender moves outside the zone of that line (answered without a
    /// search).
    pub zone_wins: u64,
    /// Pass lines answered by the cache.
    pub pass_cache_hits: u64,
    /// OR nodes that took more moves in (see [`ProverLimits::width`]).
    pub widenings: u64,
}

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
#[derive(Debug)]
pub struct Prover {
    attacker: Attacker,
    limits: ProverLimits,
    table: ProofTable,
    threats: ThreatSearch,
    nodes: u64,
    deadline: Option<Instant>,
    stats: ProverStats,
    depth: usize,
    /// Nodes this shallow print their children's numbers as they change.
    pub trace_depth: usize,
    pass_cache: Vec<PassEntry>,
}

/// A remembered pass line: the position (attacker's and defender's stones,
/// the defender to move) and what [`ThreatSearch::find`] returned for the
/// attacker there. `find` is a pure function of the position and the
/// budget, so the cache changes no result, only the time.
#[derive(Copy, Clone, Debug)]
struct PassEntry {
    attacker: u64,
    defender: u64,
    line: Option<ThreatLine>,
    used: bool,
}

/// One child of a node being searched.
#[derive(Copy, Clone, Debug)]
struct Child {
    /// The move, in the parent's frame.
    cell: u8,
    /// The child's canonical board (its table key).
    key: QubicBoard,
    pn: ProofNumber,
    dn: ProofNumber,
}

/// A board's images under the 192 symmetries (index 0 the board itself):
/// the children's images follow by adding the image of one cell to each,
/// so a child's canonical form costs 192 ORs and compares, not 192 mask
/// maps through lookup tables (which took four fifths of the time).
type Images = [(u64, u64); SYMMETRY_COUNT];

/// The images of a board, by the lookup tables (once per search).
fn images_of(board: QubicBoard) -> Box<Images> {
    let mut images = Box::new([(0, 0); SYMMETRY_COUNT]);
    for (s, image) in images.iter_mut().enumerate() {
        *image = (mask_image(s, board.x), mask_image(s, board.o));
    }
    images
}

/// The images of the board after a move on `cell` by X (`x_moves`) or O.
fn child_images(images: &Images, cell: u8, x_moves: bool, out: &mut Images) {
    for (s, (image, parent)) in out.iter_mut().zip(images).enumerate() {
        let bit = 1u64 << SYMMETRIES[s][usize::from(cell)];
        *image = if x_moves {
            (parent.0 | bit, parent.1)
        } else {
            (parent.0, parent.1 | bit)
        };
    }
}

/// The least image (X's mask first) and a symmetry giving it.
fn least(images: &Images) -> (QubicBoard, usize) {
    least_by(images, |_, image| image)
}

/// The symmetries [`least_after`] visits, in its order. After X's move
/// every image's X mask gains a bit, so all 192 are visited by the image of
/// X's mask (then by number) and the walk stops once an image's X mask
/// alone is at least the best found; after O's move X's masks do not
/// change, so only the symmetries giving the least X mask are kept.
struct Order {
    symmetries: [u8; SYMMETRY_COUNT],
    len: usize,
}

impl Order {
    /// The order for the children of the board whose images are `images`,
    /// X moving (`x_moves`) or O.
    fn new(images: &Images, x_moves: bool) -> Order {
        let mut symmetries = [0u8; SYMMETRY_COUNT];
        if x_moves {
            // Plain integers (X's image above the symmetry's number) sort
            // faster than numbers compared through `images`: this sort was a
            // fifth of a task's time (perf, docs/qubic.md).
            let mut keys: [u128; SYMMETRY_COUNT] =
                std::array::from_fn(|s| u128::from(images[s].0) << 8 | s as u128);
            keys.sort_unstable();
            for (slot, key) in symmetries.iter_mut().zip(keys) {
                *slot = key as u8;
            }
            Order {
                symmetries,
                len: SYMMETRY_COUNT,
            }
        } else {
            let least = images.iter().map(|&(x, _)| x).min().unwrap_or(0);
            let mut len = 0;
            for (s, &(x, _)) in images.iter().enumerate() {
                if x == least {
                    symmetries[len] = s as u8;
                    len += 1;
                }
            }
            Order { symmetries, len }
        }
    }

    fn symmetries(&self) -> &[u8] {
        &self.symmetries[..self.len]
    }
}

/// The least image of the board after a move (X's mask first) and the
/// first symmetry giving it, without building its images: the same answer
/// as `least_after_all` (the tests' reference), which looks at all 192,
/// from the few the [`Order`] allows. `order` must be the board's for the
/// same mover.
fn least_after(images: &Images, order: &Order, cell: u8, x_moves: bool) -> (QubicBoard, usize) {
    let cell = usize::from(cell);
    let mut best = (u64::MAX, u64::MAX, usize::MAX);
    for &s in order.symmetries() {
        let s = usize::from(s);
        let (x, o) = images[s];
        let candidate = if x_moves {
            if x >= best.0 {
                break;
            }
            (x | 1u64 << SYMMETRIES[s][cell], o, s)
        } else {
            (x, o | 1u64 << SYMMETRIES[s][cell], s)
        };
        if candidate < best {
            best = candidate;
        }
    }
    (
        QubicBoard {
            x: best.0,
            o: best.1,
        },
        best.2,
    )
}

/// [`least_after`] by every image (the definition it is tested against).
#[cfg(test)]
fn least_after_all(images: &Images, cell: u8, x_moves: bool) -> (QubicBoard, usize) {
    least_by(images, |s, (x, o)| {
        let bit = 1u64 << SYMMETRIES[s][usize::from(cell)];
        if x_moves { (x | bit, o) } else { (x, o | bit) }
    })
}

/// The least of `image(s, images[s])` over the symmetries `s` (X's mask
/// first), and the first symmetry giving it.
fn least_by(
    images: &Images,
    image: impl Fn(usize, (u64, u64)) -> (u64, u64),
) -> (QubicBoard, usize) {
    let mut best = (u64::MAX, u64::MAX, 0);
    for (s, &pair) in images.iter().enumerate() {
        let (x, o) = image(s, pair);
        if (x, o) < (best.0, best.1) {
            best = (x, o, s);
        }
    }
    (
        QubicBoard {
            x: best.0,
            o: best.1,
        },
        best.2,
    )
}

/// What the evaluation of a node found without searching its children.
enum Evaluation {
    Solved(Verdict, Option<u8>),
    /// Not solved; the moves to search (cell masks of the board as given).
    Open(u64),
}

impl Prover {
    /// A prover of wins for `attacker` within `limits`.
    pub fn new(attacker: Attacker, limits: ProverLimits) -> Prover {
        Prover {
            attacker,
            limits,
            table: ProofTable::new(limits.table_bytes, limits.replace_by_work),
            threats: ThreatSearch::new(limits.threat_budget),
            nodes: 0,
            deadline: None,
            stats: ProverStats::default(),
            depth: 0,
            trace_depth: 0,
            pass_cache: vec![
                PassEntry {
                    attacker: 0,
                    defender: 0,
                    line: None,
                    used: false,
                };
                if limits.pass_cache == 0 {
                    0
                } else {
                    limits.pass_cache.next_power_of_two()
                }
            ],
        }
    }

    /// The attacker's threat line if the defender passed
    /// ([`ThreatSearch::find`]), through the cache of pass lines.
    fn pass_line(&mut self, attacker: u64, defender: u64) -> Option<ThreatLine> {
        let slot = if self.pass_cache.is_empty() {
            None
        } else {
            let h = (attacker.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ defender.wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
                >> 17;
            let slot = h as usize & (self.pass_cache.len() - 1);
            let entry = self.pass_cache[slot];
            if entry.used && entry.attacker == attacker && entry.defender == defender {
                self.stats.pass_cache_hits += 1;
                return entry.line;
            }
            Some(slot)
        };
        self.stats.threat_searches += 1;
        let line = self.threats.find(attacker, defender);
        if line.is_some() {
            self.stats.threat_wins += 1;
        }
        if let Some(slot) = slot {
            self.pass_cache[slot] = PassEntry {
                attacker,
                defender,
                line,
                used: true,
            };
        }
        line
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

    fn attacker_to_move(&self, board: QubicBoard) -> bool {
        board.x_to_move() == (self.attacker == Attacker::X)
    }

    /// The attacker's stones and the defender's.
    fn sides(&self, board: QubicBoard) -> (u64, u64) {
        match self.attacker {
            Attacker::X => (board.x, board.o),
            Attacker::O => (board.o, board.x),
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
        let (pn, dn) = self.mid(&images, INFINITE - 1, INFINITE - 1)?;
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
            if self.prove(board.with_move(QubicCell(cell)))? == Verdict::Proved {
                return Ok(Some(cell));
            }
        }
        Ok(None)
    }

    /// Threat-search nodes of failed calls, and calls that ran out.
    pub fn threat_failures(&self) -> (u64, u64) {
        (self.threats.failed_nodes, self.threats.exhausted)
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

    fn threat_line(&mut self, attacker: u64, defender: u64, hint: &[u8]) -> Option<ThreatLine> {
        self.stats.threat_searches += 1;
        let line = self.threats.find_with_hint(attacker, defender, hint);
        if line.is_some() {
            self.stats.threat_wins += 1;
        }
        line
    }

    /// What the rules and the threat search say about a canonical board
    /// before its children are searched. `hint`: a line to try first at an
    /// OR node.
    fn evaluate(&mut self, board: QubicBoard, hint: &[u8]) -> Evaluation {
        let (attacker, defender) = self.sides(board);
        let empty = !(attacker | defender);
        if empty == 0 {
            return Evaluation::Solved(Verdict::Disproved, None);
        }
        let mine = line_cells(attacker, defender);
        let theirs = line_cells(defender, attacker);
        if self.attacker_to_move(board) {
            if mine.threats != 0 {
                let mv = mine.threats.trailing_zeros() as u8;
                return Evaluation::Solved(Verdict::Proved, Some(mv));
            }
            match theirs.threats.count_ones() {
                0 => {}
                1 => {
                    // The block is the only move; it may still start a line.
                    if theirs.threats & mine.forks != 0 {
                        let mv = theirs.threats.trailing_zeros() as u8;
                        return Evaluation::Solved(Verdict::Proved, Some(mv));
                    }
                    if theirs.threats & mine.pairs != 0 {
                        if let Some(line) = self.threat_line(attacker, defender, hint) {
                            return Evaluation::Solved(Verdict::Proved, Some(line.first()));
                        }
                    }
                    return Evaluation::Open(theirs.threats);
                }
                _ => return Evaluation::Solved(Verdict::Disproved, None),
            }
            if mine.forks != 0 {
                let mv = mine.forks.trailing_zeros() as u8;
                return Evaluation::Solved(Verdict::Proved, Some(mv));
            }
            if mine.live == 0 || has_pairing(attacker, defender) {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            if let Some(line) = self.threat_line(attacker, defender, hint) {
                return Evaluation::Solved(Verdict::Proved, Some(line.first()));
            }
            if board.stones() >= self.limits.max_stones {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            // Dead cells (on no line anyone can complete) are passes, never
            // better than a live cell (see `QubicSolver`).
            Evaluation::Open(mine.live | theirs.live)
        } else {
            if theirs.threats != 0 {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            match mine.threats.count_ones() {
                0 => {}
                1 => return Evaluation::Open(mine.threats),
                _ => return Evaluation::Solved(Verdict::Proved, None),
            }
            if mine.live == 0 || has_pairing(attacker, defender) {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            // Every move of the defender, dead cells too: the strategy must
            // answer each.
            Evaluation::Open(empty)
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
            let after = board.with_move(QubicCell(child.cell));
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

    /// The initial proof number of an open AND node: how many defender
    /// moves look as if they need an answer. One if the attacker threatens
    /// (the block is forced); else, if the attacker has a threat line
    /// after a pass, the cells of its zone (the defences outside it lose to
    /// the line); else every empty cell.
    fn estimate_defences(&mut self, board: QubicBoard) -> ProofNumber {
        let (attacker, defender) = self.sides(board);
        if line_cells(attacker, defender).threats != 0 {
            return 1;
        }
        match self.pass_line(attacker, defender) {
            Some(line) => line.zone(attacker, defender).count_ones().max(1),
            None => board.empty().count_ones(),
        }
    }

    /// [`evaluate`](Prover::evaluate) of an OR node without its threat
    /// search (known to fail).
    fn evaluate_without_threats(&mut self, board: QubicBoard) -> Evaluation {
        let (attacker, defender) = self.sides(board);
        let mine = line_cells(attacker, defender);
        let theirs = line_cells(defender, attacker);
        if mine.threats != 0 {
            return Evaluation::Solved(Verdict::Proved, Some(mine.threats.trailing_zeros() as u8));
        }
        match theirs.threats.count_ones() {
            0 => {}
            1 => return Evaluation::Open(theirs.threats),
            _ => return Evaluation::Solved(Verdict::Disproved, None),
        }
        if mine.forks != 0 {
            return Evaluation::Solved(Verdict::Proved, Some(mine.forks.trailing_zeros() as u8));
        }
        if mine.live == 0 || board.stones() >= self.limits.max_stones {
            return Evaluation::Solved(Verdict::Disproved, None);
        }
        Evaluation::Open(mine.live | theirs.live)
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
        let board = QubicBoard {
            x: images[0].0,
            o: images[0].1,
        };
        let (key, symmetry) = least(images);
        let to_key = |mv: u8| SYMMETRIES[symmetry][usize::from(mv)];
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
            if self.depth < self.trace_depth {
                let summary: Vec<String> = children
                    .iter()
                    .map(|c| format!("{}:{}/{}", c.cell, c.pn, c.dn))
                    .collect();
                eprintln!(
                    "{:indent$}depth {} nodes {} [{}]",
                    "",
                    self.depth,
                    self.nodes(),
                    summary.join(" "),
                    indent = self.depth * 2
                );
            }
        }
    }

    /// [`evaluate`](Prover::evaluate), skipping the threat search of an OR
    /// node that the table has seen (its search failed when it was stored).
    fn evaluate_cached(&mut self, board: QubicBoard, key: QubicBoard) -> Result<Evaluation, Error> {
        if self.attacker_to_move(board) && self.table.get(key).is_some() {
            Ok(self.evaluate_without_threats(board))
        } else {
            Ok(self.evaluate(board, &[]))
        }
    }
}

/// Sorts the attacker's moves (children of an OR node) most promising
/// first by a static score of the cell, ties by the child's canonical board
/// (so the order does not depend on the frame the node was reached in).
/// The score adds, over the lines through the cell: for a line without the
/// defender's stones, a weight growing with the attacker's stones on it (a
/// stone there makes a pair, a threat); for a line without the attacker's,
/// one growing with the defender's (a stone there blocks its pair). The
/// idea of restricting the attacker's moves at OR nodes to a few chosen by
/// such knowledge is Allis's (thesis, 1994, ch. 5 on Qubic and Go-Moku);
/// the weights are this prover's own, not measured beyond the figures in
/// docs/qubic.md.
fn attacker_move_order(attacker: u64, defender: u64, children: &mut [Child]) {
    const OWN: [u32; 4] = [1, 6, 40, 1000];
    const BLOCK: [u32; 4] = [0, 1, 10, 500];
    let score = |cell: u8| -> u32 {
        let cell = usize::from(cell);
        let mut score = 0;
        for &line in &LINES_THROUGH[cell][..usize::from(LINE_DEGREE[cell])] {
            let line = LINES[usize::from(line)];
            let (a, d) = (
                (line & attacker).count_ones() as usize,
                (line & defender).count_ones() as usize,
            );
            if d == 0 {
                score += OWN[a.min(3)];
            } else if a == 0 {
                score += BLOCK[d.min(3)];
            }
        }
        score
    };
    children.sort_by_cached_key(|c| (std::cmp::Reverse(score(c.cell)), c.key.x, c.key.o));
}

/// The numbers of an evaluation: a solved node's, or `(1, 1)`.
fn numbers(evaluation: &Evaluation) -> (ProofNumber, ProofNumber, Option<u8>) {
    match *evaluation {
        Evaluation::Solved(verdict, mv) => {
            let (pn, dn) = solved(verdict);
            (pn, dn, mv)
        }
        Evaluation::Open(_) => (1, 1, None),
    }
}

fn solved(verdict: Verdict) -> (ProofNumber, ProofNumber) {
    match verdict {
        Verdict::Proved => (0, INFINITE),
        Verdict::Disproved => (INFINITE, 0),
    }
}

/// `a - b`, at least 1 (a threshold below 1 would stop at once).
fn sub(a: ProofNumber, b: ProofNumber) -> ProofNumber {
    a.saturating_sub(b).max(1)
}

/// The 1 + ε trick's threshold from the second-best child's number, ε in
/// percent.
fn epsilon(second: ProofNumber, percent: u32) -> ProofNumber {
    if second >= INFINITE {
        return INFINITE;
    }
    let s = u64::from(second);
    (s + (s * u64::from(percent)).div_ceil(100)).min(u64::from(INFINITE)) as ProofNumber
}

/// A node's numbers from its children's, the child to search (the best)
/// and the second-best child's selecting number.
fn combine(
    children: &[Child],
    or_node: bool,
    weak: bool,
) -> (ProofNumber, ProofNumber, usize, ProofNumber) {
    let mut best = 0;
    let mut best_value = INFINITE;
    let mut second = INFINITE;
    let mut total: u64 = 0;
    // Weak numbers: the largest, and the unsolved children besides it.
    let (mut largest, mut unsolved) = (0u64, 0u64);
    for (i, child) in children.iter().enumerate() {
        let (select, add) = if or_node {
            (child.pn, child.dn)
        } else {
            (child.dn, child.pn)
        };
        total += u64::from(add);
        largest = largest.max(u64::from(add));
        unsolved += u64::from(add != 0);
        if select < best_value {
            second = best_value;
            best_value = select;
            best = i;
        } else if select < second {
            second = select;
        }
    }
    if weak && largest < u64::from(INFINITE) {
        total = largest + unsolved.saturating_sub(1);
    }
    let total = total.min(u64::from(INFINITE)) as ProofNumber;
    if or_node {
        (best_value, total, best, second)
    } else {
        (total, best_value, best, second)
    }
}

/// The move of an entry that has none.
const NO_MOVE: u8 = u8::MAX;

/// One proof-table entry: a canonical board and its numbers.
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    x: u64,
    o: u64,
    pn: ProofNumber,
    dn: ProofNumber,
    /// Nodes spent under the entry, for replacement (more is dearer).
    work: u32,
    /// A proved OR node's winning move, or [`NO_MOVE`].
    mv: u8,
    used: bool,
}

/// The proof table: buckets of four entries, the entry that cost the least
/// work replaced first; solved entries are kept over open ones. Any number
/// of buckets: a board's bucket is the high half of its hash times the
/// count (Lemire, "Fast random integer generation in an interval", 2019),
/// which for a power of two is the hash's top bits, as it always was.
///
/// Layout (speed only; which entry a board takes is as before): an entry
/// is four words (X's mask, O's mask, `pn | dn << 32`, `work | mv << 32 |
/// used << 40`), a bucket 128 bytes starting on a 128-byte boundary, so a
/// probe reads one aligned pair of cache lines (which the processor's
/// adjacent-line prefetch fetches together) instead of the three that
/// 32-byte entries at the allocator's 16-byte offset straddled. The words
/// are a zeroed allocation (untouched pages until first used, and an
/// all-zero entry is an unused one), advised onto huge pages: a table of
/// gigabytes probed at random otherwise misses the TLB on nearly every
/// probe (as the dots solver's table did, `crate::mapping`); from
/// [`crate::mapping::HUGE_PAGES_FROM`] on.
#[derive(Debug)]
struct ProofTable {
    words: Box<[u64]>,
    /// The index of the first word of bucket 0 (128-byte aligned).
    base: usize,
    buckets: u64,
    used: usize,
    /// See [`ProverLimits::replace_by_work`].
    by_work: bool,
}

const BUCKET: usize = 4;

/// Words of one entry.
const ENTRY_WORDS: usize = 4;

/// Words of one bucket (128 bytes).
const BUCKET_WORDS: usize = BUCKET * ENTRY_WORDS;

/// Bytes an entry takes in the table.
const ENTRY_BYTES: u64 = (ENTRY_WORDS * size_of::<u64>()) as u64;

impl Entry {
    fn unpack(words: &[u64]) -> Entry {
        Entry {
            x: words[0],
            o: words[1],
            pn: words[2] as u32,
            dn: (words[2] >> 32) as u32,
            work: words[3] as u32,
            mv: (words[3] >> 32) as u8,
            used: words[3] >> 40 & 1 != 0,
        }
    }

    fn pack(&self, words: &mut [u64]) {
        words[0] = self.x;
        words[1] = self.o;
        words[2] = u64::from(self.pn) | u64::from(self.dn) << 32;
        words[3] = u64::from(self.work) | u64::from(self.mv) << 32 | u64::from(self.used) << 40;
    }

    fn holds(words: &[u64], board: QubicBoard) -> bool {
        words[3] >> 40 & 1 != 0 && words[0] == board.x && words[1] == board.o
    }
}

impl ProofTable {
    fn new(bytes: u64, by_work: bool) -> ProofTable {
        let buckets = (bytes / (BUCKET as u64 * ENTRY_BYTES)).max(1);
        let bucket_bytes = BUCKET_WORDS * size_of::<u64>();
        // One bucket more than needed, so that an aligned start fits.
        let words: Box<[u64]> = bytemuck::zeroed_slice_box((buckets as usize + 1) * BUCKET_WORDS);
        let offset =
            (words.as_ptr() as usize).next_multiple_of(bucket_bytes) - words.as_ptr() as usize;
        if size_of_val(&*words) >= crate::mapping::HUGE_PAGES_FROM {
            crate::mapping::advise_huge_pages(&words);
        }
        ProofTable {
            words,
            base: offset / size_of::<u64>(),
            buckets,
            used: 0,
            by_work,
        }
    }

    /// Entries the table holds.
    fn capacity(&self) -> usize {
        self.buckets as usize * BUCKET
    }

    /// The index of the first word of the board's bucket.
    #[inline]
    fn bucket(&self, board: QubicBoard) -> usize {
        let mut h = board.x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ board.o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.base + ((u128::from(h) * u128::from(self.buckets)) >> 64) as usize * BUCKET_WORDS
    }

    fn get(&self, board: QubicBoard) -> Option<Entry> {
        let at = self.bucket(board);
        self.words[at..at + BUCKET_WORDS]
            .chunks_exact(ENTRY_WORDS)
            .find(|words| Entry::holds(words, board))
            .map(Entry::unpack)
    }

    fn put(
        &mut self,
        board: QubicBoard,
        pn: ProofNumber,
        dn: ProofNumber,
        mv: Option<u8>,
        work: u64,
    ) {
        let at = self.bucket(board);
        let by_work = self.by_work;
        let bucket = &mut self.words[at..at + BUCKET_WORDS];
        let entry = Entry {
            x: board.x,
            o: board.o,
            pn,
            dn,
            work: work.min(u64::from(u32::MAX)) as u32,
            mv: mv.unwrap_or(NO_MOVE),
            used: true,
        };
        if let Some(words) = bucket
            .chunks_exact_mut(ENTRY_WORDS)
            .find(|words| Entry::holds(words, board))
        {
            let same = Entry::unpack(words);
            let keep_work = same.work.max(entry.work);
            let keep_move = if entry.mv == NO_MOVE {
                same.mv
            } else {
                entry.mv
            };
            Entry {
                work: keep_work,
                mv: if pn == 0 { keep_move } else { entry.mv },
                ..entry
            }
            .pack(words);
            return;
        }
        if let Some(words) = bucket
            .chunks_exact_mut(ENTRY_WORDS)
            .find(|words| !Entry::unpack(words).used)
        {
            entry.pack(words);
            self.used += 1;
            return;
        }
        // Replace the cheapest, open entries before solved ones.
        let rank = |e: &Entry| {
            let solved = e.pn == 0 || e.dn == 0;
            if by_work {
                (e.work, u32::from(solved))
            } else {
                (u32::from(solved), e.work)
            }
        };
        let victim = bucket
            .chunks_exact_mut(ENTRY_WORDS)
            .min_by_key(|words| rank(&Entry::unpack(words)))
            .expect("a bucket has entries");
        entry.pack(victim);
    }
}

#[cfg(test)]
mod frames {
    use super::*;
    use crate::testkit::Rng;

    #[test]
    fn least_after_by_the_order_is_least_after_by_every_image() {
        // Boards with symmetries of their own (few stones) and without.
        let mut rng = Rng::new(192);
        let mut checked = 0;
        for stones in [0u32, 1, 2, 3, 4, 6, 9, 14, 20, 31] {
            for _ in 0..20 {
                let mut board = QubicBoard { x: 0, o: 0 };
                while board.stones() < stones {
                    let cell = (rng.next_u64() % 64) as u8;
                    if board.empty() >> cell & 1 != 0 {
                        board = board.with_move(QubicCell(cell));
                    }
                }
                let images = images_of(board);
                let x_moves = board.x_to_move();
                let order = Order::new(&images, x_moves);
                let mut empty = board.empty();
                while empty != 0 {
                    let cell = empty.trailing_zeros() as u8;
                    empty &= empty - 1;
                    assert_eq!(
                        least_after(&images, &order, cell, x_moves),
                        least_after_all(&images, cell, x_moves),
                        "{board:?} + {cell}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
    }
}

#[cfg(test)]
mod table {
    use super::*;
    use crate::testkit::Rng;

    fn random_board(rng: &mut Rng) -> QubicBoard {
        let x = rng.next_u64();
        QubicBoard {
            x,
            o: rng.next_u64() & !x,
        }
    }

    #[test]
    fn a_table_of_any_size_fills_every_bucket_and_keeps_what_it_holds() {
        let entry = ENTRY_BYTES;
        for buckets in [1u64, 3, 5, 64, 1000] {
            let mut table = ProofTable::new(buckets * BUCKET as u64 * entry + entry - 1, false);
            assert_eq!(table.capacity() as u64, buckets * BUCKET as u64);
            let mut rng = Rng::new(buckets);
            let mut hit = vec![false; buckets as usize];
            let boards: Vec<QubicBoard> =
                (0..buckets * 64).map(|_| random_board(&mut rng)).collect();
            for &board in &boards {
                let at = table.bucket(board) - table.base;
                assert_eq!(at % BUCKET_WORDS, 0);
                assert_eq!(table.words[table.base..].as_ptr() as usize % 128, 0);
                hit[at / BUCKET_WORDS] = true;
            }
            assert!(hit.iter().all(|&h| h), "{buckets} buckets: some never used");
            // The last board put is always found again.
            for &board in &boards[..100.min(boards.len())] {
                table.put(board, 3, 4, Some(7), 9);
                let entry = table.get(board).expect("just put");
                assert_eq!((entry.pn, entry.dn, entry.mv), (3, 4, 7));
            }
        }
    }

    /// The index of revision 1, which held only powers of two: the same
    /// buckets, so tasks kept by a build before the change stay valid.
    #[test]
    fn a_power_of_two_takes_the_top_bits_of_the_hash() {
        let table = ProofTable::new(1 << 20, false);
        let bits = (table.capacity() as u64).trailing_zeros();
        let mut rng = Rng::new(2);
        for _ in 0..1000 {
            let board = random_board(&mut rng);
            let mut h = board.x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ board.o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            h ^= h >> 29;
            h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            assert_eq!(
                (table.bucket(board) - table.base) / ENTRY_WORDS,
                (h >> (64 - bits)) as usize & !(BUCKET - 1)
            );
        }
    }
}
