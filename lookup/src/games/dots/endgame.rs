//! The exact dots-and-boxes solver for boards without a table: alpha-beta on
//! the box margin with a transposition table keyed by canonical position,
//! move ordering, the theory of chains and loops, and every core.
//!
//! # Pruning rules, and what each relies on
//!
//! Each rule can be switched off ([`Rules`]); the tests compare every rule,
//! alone and together, with the unpruned search and the retrograde tables on
//! every position of small boards, and with an independent dense retrograde
//! on random 4x5 and 5x5 positions (`tests/tests/dots_endgame.rs`).
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
//! - **Chain captures** ([`Rules::chain_captures`]): a capturable box `A`
//!   whose capture edge leads into a chain of two-sided boxes that ends on
//!   the border or at a box with at most one side is taken as a whole turn
//!   at once: either the whole chain (and the same player goes on), or all
//!   but its last two boxes and the double-dealing move (and the turn
//!   passes). Any other way of taking part of the chain and handing over the
//!   rest leaves the board the same and gives the opponent at least as much
//!   (stopping `j` boxes short of the last two gives the mover `2j - L - 1 -
//!   v` at best against `L - 3 - v` for all-but-two, `v` the value of the
//!   rest for its mover), and captures commute; so the search visits one
//!   node per chain instead of two per box. Where a capturable box heads
//!   anything else (a chain open at both ends, an opened loop), every
//!   capture and double-deal is searched as before.
//! - **Chain bound** ([`Rules::chain_bound`]): where every capturable box
//!   heads such a chain, the player to move gets at least the boxes of all
//!   the chains less two (take every chain, the last but for the
//!   double-deal: `L - 2 + |v + 2| >= L - 2` for one chain of `L`), so a
//!   window whose top is at most that is cut before any child is searched.
//!   Seen from the player who gave the boxes: a sacrifice of a chain of `L`
//!   is worth at most `2 - L` to them.
//! - **Simple loony endgames** ([`Rules::component_values`]): a position in
//!   which every unclaimed box has exactly two sides drawn is a union of
//!   chains and loops; if every chain has at least three boxes and every
//!   loop at least four, its value follows from the component recursion of
//!   Berlekamp ch. 3 and Buzzard & Ciere §3 without search: the player to
//!   move opens a component, and the opponent either takes it all and moves
//!   next, or takes all but 2 (chain) / 4 (loop) and hands those over.
//! - **Short chains** ([`Rules::short_chains`]): the same recursion with
//!   chains of one and two boxes, which the opponent can only take whole (a
//!   two-chain opened in its middle, the hard-hearted handout, leaves two
//!   free captures; opened at an end it gives the opponent the same choice
//!   and a double-deal besides, so the middle is never worse for the opener;
//!   Berlekamp ch. 2).
//! - **Isolated components** ([`Rules::isolated_components`]): a chain whose
//!   boxes all have two sides and whose ends both lie on the border, or such
//!   a loop, is opened at one edge only: a loop at any (its edges are
//!   alike), a two-chain in its middle (above), a longer chain at an end (an
//!   opening inside gives the opponent the same two choices and more), a
//!   one-box chain at either border edge. Two such components of the same
//!   kind and length are interchangeable (the strings-and-coins graph has an
//!   automorphism swapping them, and the value of a position depends only
//!   on that graph: Berlekamp ch. 1), so only one of them is opened.
//! - **Sacrifice caps** ([`Rules::sacrifice_caps`]): opening a chain of
//!   `k >= 2` boxes at an end hands the opponent a capturable chain worth
//!   at least `k - 2` to them (the chain bound), and opening a loop of `k`
//!   one worth at least `k - 4` (take it all, `k + v`, or all but four and
//!   hand those over, `k - 8 - v`, `v` the rest's value for the next to
//!   move there). So such an opening is worth at most `2 - k` (`4 - k`)
//!   to its mover, and where the window's bottom is already that high it
//!   is not searched: the bound stands for its value in the fail-soft
//!   result, as with the transposition skips below.
//! - **Margin parity** ([`Rules::margin_parity`]): the two players' boxes
//!   add up to the unclaimed boxes, so every margin has their parity, and
//!   every bound the search proves is rounded to it (the chain bound up, a
//!   sacrifice's cap down, a fail-soft result away from its window, and so
//!   the table's entries). In a null window one end has the margin's
//!   parity; a bound one box short of it now meets it.
//! - **Symmetry** ([`Rules::symmetry`]): positions are stored under their
//!   least image (4 or 8 symmetries) at every depth, among the images that
//!   can be positions of the search (those that hold the root: from the
//!   empty board every image, from a random position few until late).
//! - **Border edges** ([`Rules::border_edges`]): the border edges of one box
//!   are interchangeable; only the first undrawn one is searched, and the
//!   key counts them.
//! - **Transposition cutoffs** ([`Rules::transposition_cutoffs`]): before
//!   searching the moves of a position with 12 or more undrawn edges, every
//!   child is looked up in the table, and a stored bound that already
//!   refutes the window ends the search (Plaat, Schaeffer, Pijls and de
//!   Bruin 1994). A child is keyed from its parent's symmetric images,
//!   the edges it adds (a sacrifice and the captures after it) mapped
//!   into each, instead of anew. Looking up only the children of quiet
//!   moves in positions with 20 or more undrawn edges (the form of the
//!   eleventh to thirteenth sessions) visited 2.3 times the positions on
//!   4x4 with the sacrifice caps, and took 1.1 to 1.3 times the time
//!   once sacrifices' children were keyed this way (docs/dots-and-boxes.md,
//!   "Fourteenth session").
//! - **Transposition skips** ([`Rules::transposition_skips`]): the same
//!   lookups the other way: a move whose child's stored bound proves it at
//!   most the best already found (the window's bottom) cannot raise it and
//!   is not searched; its bound stands for its value in the fail-soft
//!   result, which stays a bound (every move's value is at most its
//!   bound). A stored bound is proved whichever search stored it, so the
//!   skip is exact.
//! - **Two bounds** ([`Rules::two_bounds`]): a table entry keeps the lower
//!   and the upper bound of every search of its position (Barker & Korf
//!   2012), instead of the latest search's only.
//!
//! Move ordering: the best move of an earlier search of the position, then
//! captures, then moves that give no box a third side, then the openings of
//! isolated components from the smallest, then the rest by how many boxes
//! they expose, each kind from the centre out.
//!
//! # Threads
//!
//! Every null-window test of a position with enough undrawn edges runs on
//! all of the solver's threads over the one shared transposition table
//! (Lazy SMP): each thread searches the same window, and a thread that
//! reaches a position whose first move another thread is searching defers
//! the moves others are busy with to the end of its list (the deferral of
//! ABDADA, Weill 1996, through a small table of positions being searched,
//! by canonical key where the child has one, so two images of one
//! position count as one), so the threads spread over different subtrees
//! and share what they prove. The first thread to finish answers; the
//! others stop. Every thread's result is exact, so the answer does not
//! depend on which.
//!
//! Without limits (no node budget, time or cancellation), two tests run at
//! once instead where two are due: MTD(f)'s first two (those that prove a
//! margin of 0, or +1 with an odd number of boxes left), and the tests of
//! two classes of moves; each starts on its own thread, and a thread whose
//! test is answered helps with the other. From the empty 4x4, Lazy SMP on
//! one test searched two fifths more positions than one thread; two tests
//! side by side search about as many (docs/dots-and-boxes.md, "Tenth
//! session").
//!
//! # Every move's value
//!
//! [`EndgameSolver::analyse`] finds the value of a position and then of
//! each of its moves, once per class of moves whose children are symmetric
//! images: each move starts from the bounds the table already holds for its
//! child after the root's search and from the root's value (no move is
//! better), and is narrowed by null-window tests, the first at the root's
//! value (most moves that are not sacrifices tie with the best). A search
//! that runs out of its limits still says what it proved: bounds on the
//! value and on every move.
//!
//! # The transposition table
//!
//! Exact: an entry is found only under its own key (quotienting: the bucket
//! and the stored remainder of a scrambled key give the key back), so a
//! table never confuses two positions however full it is. Entries are 8
//! bytes (bounds, best move, and the size of the subtree that proved them)
//! in buckets of four; a new position replaces the entry with the smallest
//! subtree. Threads share it without locks. With [`Rules::huge_pages`] the
//! table asks Linux for transparent huge pages (`madvise`, the one call
//! in `mapping.rs`): probes at random into hundreds of MiB then miss the
//! TLB far less. With [`Rules::prefetch`] a position keys its quiet
//! children itself and asks the processor to load their buckets (the
//! children of a position looked up for transposition cutoffs all at once,
//! so the misses overlap), and hands each child its key: on 4×4 positions
//! near the opening, where most children miss the table, about a tenth
//! less time on two threads (the empty 4×4's value 9% less). Buckets start
//! on cache lines. Details in the `transposition` module.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

mod transposition;

use self::transposition::{Entry, NO_MOVE, TranspositionTable};
use super::{Dots, Edges};
use crate::error::Error;
use crate::game::{ExactSolver, Game, MoveScores, SearchLimits};
use crate::games::dots::EdgeSymmetries;
use crate::value::Score;

const NO_BOX: u8 = u8::MAX;

/// More boxes than any board of at most 63 edges has (5x5 has 25).
const MAX_BOXES: usize = 32;

/// Drawn sides of every box, bit-sliced: bit `b` of `bits[i]` is bit `i`
/// of the count of box `b` (`r * cols + c`, below [`MAX_BOXES`]), 0 to 4.
/// What the search asks of the counts is which boxes have two sides,
/// three or four: one or two operations on the words, where an array of
/// counts took a pass over every box (half of `take_free_captures`' time
/// on a 5x5 position with 44 undrawn edges). The first 5x5 position
/// with 40 undrawn edges of the committed set, one thread: 3.39 G
/// instructions against 4.29 G with the array (valgrind's count).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Sides {
    bits: [u32; 3],
}

impl Sides {
    /// The drawn sides of box `b` (the search asks only for sets).
    #[cfg(test)]
    fn count(&self, b: u8) -> u8 {
        let bit = |i: usize| (self.bits[i] >> b & 1) as u8;
        bit(0) | bit(1) << 1 | bit(2) << 2
    }

    /// The boxes with two sides drawn.
    fn two(&self) -> u32 {
        self.bits[1] & !self.bits[0]
    }

    /// The boxes with three sides drawn: those that can be captured.
    fn three(&self) -> u32 {
        self.bits[1] & self.bits[0]
    }

    /// The boxes with all four sides drawn: claimed.
    fn four(&self) -> u32 {
        self.bits[2]
    }

    /// The boxes with at least two sides drawn.
    fn two_or_more(&self) -> u32 {
        self.bits[1] | self.bits[2]
    }

    /// One more side for box `b` (which has at most three): a binary
    /// increment of its bits.
    fn add(&mut self, b: u8) {
        let carry = self.bits[0] & 1 << b;
        self.bits[0] ^= 1 << b;
        self.bits[2] |= self.bits[1] & carry;
        self.bits[1] ^= carry;
    }
}

/// Whether some box has three sides drawn (can be captured).
fn any_capturable(sides: &Sides) -> bool {
    sides.three() != 0
}

/// The members of a bit set of boxes, lowest first.
fn members(set: u32) -> impl Iterator<Item = u8> {
    let mut rest = set;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let b = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            b
        })
    })
}

/// Which pruning rules the [`EndgameSolver`] uses (see the
/// endgame module's documentation for what each relies on). All are on by
/// default; tests switch them off one by one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Play captures that expose nothing without branching.
    pub free_captures: bool,
    /// With a capturable box, search only captures and double-deals.
    pub loony_moves: bool,
    /// Take a capturable chain in one step: all of it, or all but two and
    /// the double-deal.
    pub chain_captures: bool,
    /// Bound a position with capturable chains from below by the boxes of
    /// all of them less two, before searching it.
    pub chain_bound: bool,
    /// Value simple loony endgames by the component recursion.
    pub component_values: bool,
    /// Let that recursion take chains of one and two boxes too.
    pub short_chains: bool,
    /// Open each isolated chain or loop at one edge, and only one of
    /// several alike.
    pub isolated_components: bool,
    /// Open a chain that is not isolated (boxes of two sides in a row,
    /// from the border or a box of at most one side to another) at one
    /// end only. Its two ends are one move: after either, taking the whole
    /// chain leaves the same position, and taking all but two and handing
    /// them over leaves the two at one end or the other, which the next
    /// player takes at once. An inner edge of a chain of three or more is
    /// no better than an end: there the opponent can first take the boxes
    /// between it and that end and reach what taking them after the end's
    /// opening reaches, where the chain rule takes them anyway, and has
    /// more choice besides. A chain of two keeps its middle edge (the
    /// hard-hearted handout). So one edge of each such chain is searched,
    /// two of a chain of two, instead of every edge.
    pub chain_ends: bool,
    /// Do not search the opening of a chain of two or more boxes at an end
    /// or of a loop where the window's bottom is already at least what it
    /// can be worth: `2 - k` for a chain of `k` (the chain bound: the
    /// opponent gets `k - 2` or more), `4 - k` for a loop. The bound
    /// stands for the move's value in the fail-soft result. The child's
    /// chain bound would refute it at once; this saves the node.
    pub sacrifice_caps: bool,
    /// Round every bound the search proves to the parity of the position's
    /// unclaimed boxes: the two players' boxes add up to them, so every
    /// margin has their parity, and a bound of the other parity is one box
    /// loose. The chain bound rounds up, a sacrifice's cap down, and a
    /// fail-soft result away from the window (and so the table's entries);
    /// a bound one below a window's top of the margin's parity then meets
    /// it.
    pub margin_parity: bool,
    /// Key the transposition table by the least image of a position among
    /// those that can be positions of the search.
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
    /// search?", 1994). Only in positions with 12 or more undrawn edges.
    pub transposition_cutoffs: bool,
    /// Keep both bounds of a position in its table entry, narrowed by each
    /// search, instead of the latest search's bounds.
    pub two_bounds: bool,
    /// With [`Rules::transposition_cutoffs`]: a move whose child's looked-up
    /// bound proves it cannot raise the window's bottom is not searched,
    /// and counts with that bound.
    pub transposition_skips: bool,
    /// Not a pruning rule: back the transposition table with huge pages
    /// (Linux's `madvise(MADV_HUGEPAGE)`), so that a probe at random into
    /// hundreds of MiB does not also miss the TLB; tables under 128 MiB
    /// stay on small pages (a short search would pay for zeroing whole
    /// huge pages). Speed only.
    pub huge_pages: bool,
    /// Not a pruning rule: a position keys the children of its quiet moves
    /// itself and asks the processor to load their table buckets before
    /// searching them (all at once before the transposition cutoffs'
    /// probes), so the child's probe finds its bucket in the cache or on
    /// its way. Speed only.
    pub prefetch: bool,
}

/// The fewest undrawn edges of a position whose children
/// [`Rules::transposition_cutoffs`] looks up.
const CUTOFF_MIN_UNDRAWN: u32 = 12;

/// The fewest undrawn edges of a position searched on more than one
/// thread: below it a search takes milliseconds, less than starting
/// threads is worth.
const PARALLEL_MIN_UNDRAWN: u32 = 26;

/// The fewest undrawn edges of a node at which threads defer the moves
/// another thread is searching: below it subtrees are too small to share.
const DEFER_MIN_UNDRAWN: u32 = 16;

/// Slots of the table of positions being searched (ABDADA's marks).
const BUSY_SLOTS: usize = 1 << 16;

/// Nodes a thread counts before it adds them to the shared count and looks
/// at the clock and the stop flag.
const TICK: u64 = 1024;

impl Rules {
    /// Every rule on.
    pub const ALL: Rules = Rules {
        free_captures: true,
        loony_moves: true,
        chain_captures: true,
        chain_bound: true,
        component_values: true,
        short_chains: true,
        isolated_components: true,
        chain_ends: true,
        sacrifice_caps: true,
        margin_parity: true,
        symmetry: true,
        border_edges: true,
        transposition_cutoffs: true,
        two_bounds: true,
        transposition_skips: true,
        huge_pages: true,
        prefetch: true,
    };
    /// Every rule off: plain alpha-beta with a transposition table of the
    /// latest bound of each position.
    pub const NONE: Rules = Rules {
        free_captures: false,
        loony_moves: false,
        chain_captures: false,
        chain_bound: false,
        component_values: false,
        short_chains: false,
        isolated_components: false,
        chain_ends: false,
        sacrifice_caps: false,
        margin_parity: false,
        symmetry: false,
        border_edges: false,
        transposition_cutoffs: false,
        two_bounds: false,
        transposition_skips: false,
        huge_pages: false,
        prefetch: false,
    };
    /// The rules of the solver before issue 21 (no chain captures, short
    /// chains, isolated components, chain ends, sacrifice caps, margin
    /// parity, transposition skips, huge pages or prefetches), the bench's
    /// baseline.
    pub const BEFORE: Rules = Rules {
        chain_captures: false,
        chain_bound: false,
        short_chains: false,
        isolated_components: false,
        chain_ends: false,
        sacrifice_caps: false,
        margin_parity: false,
        transposition_skips: false,
        huge_pages: false,
        prefetch: false,
        ..Rules::ALL
    };
}

impl Rules {
    /// The rules' names, as [`Rules::switch`] takes them.
    pub const NAMES: [&'static str; 17] = [
        "free-captures",
        "loony-moves",
        "chain-captures",
        "chain-bound",
        "component-values",
        "short-chains",
        "isolated-components",
        "chain-ends",
        "sacrifice-caps",
        "margin-parity",
        "symmetry",
        "border-edges",
        "transposition-cutoffs",
        "two-bounds",
        "transposition-skips",
        "huge-pages",
        "prefetch",
    ];

    /// These rules with the one named (one of [`Rules::NAMES`]) switched
    /// on or off; `None` for a name that is no rule.
    pub fn switch(self, name: &str, on: bool) -> Option<Rules> {
        let mut rules = self;
        let field = match name {
            "free-captures" => &mut rules.free_captures,
            "loony-moves" => &mut rules.loony_moves,
            "chain-captures" => &mut rules.chain_captures,
            "chain-bound" => &mut rules.chain_bound,
            "component-values" => &mut rules.component_values,
            "short-chains" => &mut rules.short_chains,
            "isolated-components" => &mut rules.isolated_components,
            "chain-ends" => &mut rules.chain_ends,
            "sacrifice-caps" => &mut rules.sacrifice_caps,
            "margin-parity" => &mut rules.margin_parity,
            "symmetry" => &mut rules.symmetry,
            "border-edges" => &mut rules.border_edges,
            "transposition-cutoffs" => &mut rules.transposition_cutoffs,
            "two-bounds" => &mut rules.two_bounds,
            "transposition-skips" => &mut rules.transposition_skips,
            "huge-pages" => &mut rules.huge_pages,
            "prefetch" => &mut rules.prefetch,
            _ => return None,
        };
        *field = on;
        Some(rules)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::ALL
    }
}

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

/// The board's fixed facts the search reads: masks, symmetry maps, move
/// orders. Shared by every thread.
#[derive(Debug)]
struct Geometry {
    rules: Rules,
    full: u64,
    box_masks: Vec<u64>,
    /// The board's rows and columns of boxes, for
    /// [`Geometry::sides_of`].
    rows: u32,
    cols: u32,
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
    /// For each box with two or more border edges, those edges.
    border_groups: Vec<BorderGroup>,
    /// `border_group_of[e]`: the index in `border_groups` of edge `e`'s
    /// group, [`NO_GROUP`] for an edge in none.
    border_group_of: Vec<u8>,
    /// `image_needs[s]`: the edges a position must have drawn for its
    /// image under symmetry `s` to hold the search's root (see
    /// [`Geometry::set_root`]); none until a root is set.
    image_needs: Vec<u64>,
}

/// The border edges of one box ([`Rules::border_edges`]), as masks: all
/// of them, and for each count `c` the first `c` of them (by number),
/// where a position's `c` drawn ones are moved to.
#[derive(Clone, Copy, Debug)]
struct BorderGroup {
    edges: u64,
    first: [u64; 5],
}

/// [`Geometry::border_group_of`] of an edge in no group.
const NO_GROUP: u8 = u8::MAX;

/// The most symmetries a board has (a square's eight).
const MAX_SYMMETRIES: usize = 8;

/// A position's mask as [`Geometry::key`] normalises it and that mask's
/// image under every symmetry. The key of a child follows from these with
/// the child's few more edges in each image
/// ([`Geometry::descendant_key`]), where keying each child from scratch
/// maps all its edges through every symmetry again: the transposition
/// cutoffs and prefetch key most of a node's quiet children, and on the
/// empty 4×4 the key was an eighth of the search's time.
#[derive(Copy, Clone, Debug)]
struct Images {
    normalised: u64,
    images: [u64; MAX_SYMMETRIES],
    /// The symmetries (bit `s`, `s` at least 1) whose root the position
    /// lacks at most one edge of: the only images a quiet child's key can
    /// be (none for most positions from a random 5x5 root).
    near: u8,
}

/// One branch of the search: edges drawn in one turn or part of one.
#[derive(Copy, Clone, Debug)]
struct Step {
    edges: u64,
    /// Boxes the step completes.
    gain: i32,
    /// Whether the same player moves after it.
    keeps_turn: bool,
    /// The edge that names the step in the table's best-move field.
    hint: u8,
    /// An upper bound on the step's value for the player making it, known
    /// before its search ([`Rules::sacrifice_caps`]), or [`NO_CAP`].
    cap: i8,
}

/// [`Step::cap`] of a step without one.
const NO_CAP: i8 = i8::MAX;

impl Default for Step {
    fn default() -> Step {
        Step {
            edges: 0,
            gain: 0,
            keeps_turn: false,
            hint: 0,
            cap: NO_CAP,
        }
    }
}

/// Room for the moves of one position, best first: a search node's own
/// (one of its thread's [`Worker::frames`]), filled in place by
/// [`Geometry::chain_steps`] or [`Geometry::ordered_moves`] (returned by
/// value, the kilobyte was copied twice a node).
type Steps = [Step; 64];

/// A child's table key and the symmetry that takes it there, worked out by
/// its parent for a quiet step (whose child has no free captures, so its
/// search probes this very mask): the child does not key itself again, and
/// the load of its bucket began before the child's first checks.
#[derive(Copy, Clone, Debug)]
struct Keyed {
    mask: u64,
    key: u64,
    symmetry: usize,
}

/// Boxes of two sides joined by undrawn edges, as the search opens them:
/// an isolated chain or loop ([`Rules::isolated_components`]) or a chain
/// from the border or a box of at most one side to another
/// ([`Rules::chain_ends`]).
#[derive(Copy, Clone, Debug, Default)]
struct Component {
    is_loop: bool,
    isolated: bool,
    boxes: u8,
    /// Its undrawn edges (an isolated one's twins' too): out of the move
    /// list, where it stands for them with its opening (and handout).
    edges: u64,
    /// The edge it is opened at: the one end searched of a chain that is
    /// not isolated.
    opening: u32,
    /// A chain of two that is not isolated: its middle edge (the
    /// hard-hearted handout), searched before its end.
    handout: Option<u32>,
}

impl Component {
    /// An upper bound on the value of opening this component at
    /// [`Component::opening`] for the player who opens it
    /// ([`Rules::sacrifice_caps`]), or [`NO_CAP`]. A chain of `k >= 2`
    /// opened at an end hands the opponent a capturable chain of `k`
    /// boxes, worth at least `k - 2` to them (the chain bound: take all,
    /// `k + v`, or all but two, `k - 4 - v`, `v` the rest's value for the
    /// one who moves next, and the larger is `k - 2 + |v + 2|`); a loop of
    /// `k` opened anywhere, at least `k - 4` (all, `k + v`, or all but
    /// four, `k - 8 - v`). The opening of an isolated chain of two is its
    /// middle edge, which hands over two single boxes: no cap. With the
    /// `parity` of the position's margins ([`Rules::margin_parity`]) the
    /// cap rounds down to it.
    fn sacrifice_cap(&self, parity: Option<i8>) -> i8 {
        let k = self.boxes as i8;
        let cap = match (self.is_loop, self.isolated, k) {
            (true, _, _) => 4 - k,
            (false, true, 3..) | (false, false, 2..) => 2 - k,
            _ => return NO_CAP,
        };
        // Caps lie within -30..=0, so the rounded cap fits an i8 again.
        parity.map_or(cap, |p| down_to_parity(cap.into(), p.into()) as i8)
    }
}

/// Room for a position's components ([`Geometry::two_sided_components`]).
type Components = [Component; MAX_BOXES];

/// Why a search stopped without a value.
#[derive(Debug)]
enum Halt {
    /// The node or time limit: the answer is unknown within the limits.
    Limit(Error),
    /// Another thread answered first.
    Stopped,
}

/// What the threads of one search share besides the table.
#[derive(Debug)]
struct Shared<'a> {
    table: &'a TranspositionTable,
    limits: SearchLimits,
    deadline: Option<Instant>,
    /// Nodes visited over the solver's life, as the threads have added
    /// them.
    nodes: AtomicU64,
    stop: AtomicBool,
    /// Positions some thread is searching (their key, or mask where they
    /// have none, plus one), by hash; empty with one thread.
    busy: &'a [AtomicU64],
    /// The first answer (or limit) any thread reached.
    result: Mutex<Option<Result<i32, Error>>>,
}

/// One thread's search.
#[derive(Debug)]
struct Worker<'a> {
    geo: &'a Geometry,
    shared: &'a Shared<'a>,
    /// Nodes this thread visited, and how many of them it has added to the
    /// shared count.
    count: u64,
    flushed: u64,
    loony_memo: HashMap<Vec<(bool, u8)>, i32>,
    /// Each search node's moves, in the buffer of its number of undrawn
    /// edges (a child has fewer, so no two nodes on one path share one).
    /// A buffer on each node's stack frame was a kilobyte to set at
    /// every node, most of which return before they need it: 8% of the
    /// search's time.
    frames: Box<[Steps]>,
    /// [`Geometry::ordered_moves`]'s components, likewise not set anew
    /// (nor copied out) at every node.
    components: Box<Components>,
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
    geo: Geometry,
    limits: SearchLimits,
    threads: usize,
    table: TranspositionTable,
    busy: Box<[AtomicU64]>,
    nodes: u64,
    loony_memo: HashMap<Vec<(bool, u8)>, i32>,
}

/// The memory of the transposition table of [`EndgameSolver::new`]:
/// `2^edges` bytes, at least 64 KiB and at most 256 MiB (4x4 and
/// larger): a solver is cheap to make for small boards, big enough for big
/// ones. A search with a node budget stores at most that many entries, so
/// its table need hold no more than the budget's next power of two of
/// 8-byte entries; it keeps at least 64 MiB where the board's own size is
/// more (a 5x5 table's least with one word an entry, which threads can
/// share). The server's and the CLI's budget of 10,000,000 positions so
/// takes 128 MiB instead of 256, and a small budget 64 MiB on small pages:
/// a request pays for every page its search touches, and on a virtual
/// machine the first touch of a huge page costs about 10 ms (a 4x4 probe
/// of a few thousand positions took 0.8 s wall, 1.5 s of system time, with
/// 256 MiB; 0.3 s with the default budget's 128 MiB).
fn default_table_bytes(board: Dots, budget: Option<u64>) -> u64 {
    let for_board: u64 = 1 << board.edges().clamp(16, 28);
    let Some(nodes) = budget else {
        return for_board;
    };
    let for_budget = nodes
        .checked_next_power_of_two()
        .map_or(u64::MAX, |entries| entries.saturating_mul(8));
    for_board.min(for_budget.max(64 << 20))
}

/// The most entries (a power of two, as its exponent) whose table for
/// `board` fits in `bytes`.
fn entry_bits_within(board: Dots, bytes: u64) -> u32 {
    (2..=40)
        .take_while(|&bits| TranspositionTable::bytes(bits, board.edges()) <= bytes)
        .last()
        .unwrap_or(2)
}

/// The least margin of the given parity (0 or 1) at least `v`.
fn up_to_parity(v: i32, parity: i32) -> i32 {
    v + (v - parity).rem_euclid(2)
}

/// The greatest margin of the given parity (0 or 1) at most `v`.
fn down_to_parity(v: i32, parity: i32) -> i32 {
    v - (v - parity).rem_euclid(2)
}

/// `bounds` rounded inwards to margins of the given parity.
fn to_parity(bounds: (i32, i32), parity: i32) -> (i32, i32) {
    (
        up_to_parity(bounds.0, parity),
        down_to_parity(bounds.1, parity),
    )
}

/// `steps[from..count]` with the best move of the table (`hint`) out of
/// it if it was searched already, else first among them (a chain node's
/// two steps); the new count.
fn place_hint(steps: &mut Steps, (from, count): (usize, usize), hint: u8, searched: bool) -> usize {
    let Some(i) = steps[from..count].iter().position(|s| s.hint == hint) else {
        return count;
    };
    if searched {
        steps[from + i..count].rotate_left(1);
        count - 1
    } else {
        steps[from..=from + i].rotate_right(1);
        count
    }
}

/// The threads `limits` ask for: all cores unless said.
fn threads_of(limits: &SearchLimits) -> usize {
    limits
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

impl Geometry {
    fn new(board: Dots, rules: Rules) -> Geometry {
        let mut box_masks = Vec::new();
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                box_masks.push(board.box_mask(r, c));
            }
        }
        let edge_boxes: Vec<[u8; 2]> = (0..board.edges())
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
        let mut border_edges = vec![Vec::new(); board.boxes() as usize];
        for e in 0..board.edges() {
            if let [b, NO_BOX] = edge_boxes[e as usize] {
                border_edges[b as usize].push(e);
            }
        }
        border_edges.retain(|edges| edges.len() >= 2);
        let mut border_group_of = vec![NO_GROUP; board.edges() as usize];
        let mut border_groups = Vec::new();
        for (g, edges) in border_edges.iter().enumerate() {
            let mut group = BorderGroup {
                edges: 0,
                first: [0; 5],
            };
            for (i, &e) in edges.iter().enumerate() {
                border_group_of[e as usize] = g as u8;
                group.edges |= 1 << e;
                group.first[i + 1] = group.edges;
            }
            border_groups.push(group);
        }
        assert!(board.symmetry_count() <= MAX_SYMMETRIES);
        Geometry {
            rules,
            full: board.full(),
            box_masks,
            rows: board.rows(),
            cols: board.cols(),
            edge_boxes,
            symmetries: board.symmetries(),
            edge_maps,
            inverse_maps,
            centre_first,
            centre_rank,
            border_groups,
            border_group_of,
            image_needs: vec![0; board.symmetry_count()],
        }
    }

    fn boxes(&self) -> usize {
        self.box_masks.len()
    }

    /// The drawn sides of box `b`, counted on its own: the plain count the
    /// tests hold [`Geometry::sides_of`] to.
    #[cfg(test)]
    fn sides(&self, mask: u64, b: u8) -> u32 {
        (mask & self.box_masks[b as usize]).count_ones()
    }

    /// The box across edge `e` from box `b` ([`NO_BOX`] for the border).
    fn across(&self, e: u32, b: u8) -> u8 {
        let [x, y] = self.edge_boxes[e as usize];
        if x == b { y } else { x }
    }

    /// The same position with each box's drawn border edges moved to the
    /// first of its border edges: an equal value ([`Rules::border_edges`]).
    fn normalise_borders(&self, mask: u64) -> u64 {
        let mut mask = mask;
        for group in &self.border_groups {
            let drawn = (mask & group.edges).count_ones() as usize;
            mask = mask & !group.edges | group.first[drawn];
        }
        mask
    }

    /// Sets the root of the searches to come. A position of a search holds
    /// the root; so does its image under symmetry `s` only if it holds the
    /// image of the root under the inverse of `s`, and only such images can
    /// be met again, so [`Geometry::key`] looks at no others. From the
    /// empty board every image is a position of the search; from a random
    /// position few are until late (on 4×4 positions 8 edges from the
    /// empty board, all images cost ~10% of the time and saved 1% of the
    /// positions).
    ///
    /// Any image of a position is a position of the same value, so a key
    /// chosen among fewer images is as sound; an entry stored under one
    /// root is found under another where both choose the same image.
    fn set_root(&mut self, root: u64) {
        let root = self.normalised(root);
        for (need, inverse) in self.image_needs.iter_mut().zip(&self.inverse_maps) {
            let mut edges = root;
            *need = 0;
            while edges != 0 {
                *need |= 1 << inverse[edges.trailing_zeros() as usize];
                edges &= edges - 1;
            }
        }
    }

    /// The table key of a position (its least image among those that hold
    /// the root, see [`Geometry::set_root`]) and a symmetry that takes the
    /// position there.
    fn key(&self, mask: u64) -> (u64, usize) {
        let mask = self.normalised(mask);
        self.least_image(mask, |s| self.symmetries.image(s, mask))
    }

    /// `mask` with its border edges normalised where the rules say so.
    fn normalised(&self, mask: u64) -> u64 {
        if self.rules.border_edges {
            self.normalise_borders(mask)
        } else {
            mask
        }
    }

    /// The least of the images of the normalised `mask` (`image(s)` under
    /// symmetry `s`) that hold the root, and its symmetry: the key.
    #[inline]
    fn least_image(&self, mask: u64, image: impl Fn(usize) -> u64) -> (u64, usize) {
        let others = if self.rules.symmetry {
            ((1u32 << self.symmetries.count()) - 2) as u8
        } else {
            0
        };
        self.least_image_among(mask, others, image)
    }

    /// [`Geometry::least_image`] among the images under the symmetries
    /// `among` (bit `s` for symmetry `s`) and the mask itself.
    #[inline]
    fn least_image_among(
        &self,
        mask: u64,
        among: u8,
        image: impl Fn(usize) -> u64,
    ) -> (u64, usize) {
        let mut best = (mask, 0);
        let mut rest = among;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let need = self.image_needs[s];
            if mask & need == need {
                let image = image(s);
                if image < best.0 {
                    best = (image, s);
                }
            }
        }
        best
    }

    /// The position's normalised mask and its images, for
    /// [`Geometry::descendant_key`]: those a child one edge away can hold
    /// the root in. An image whose root needs two or more edges the
    /// position lacks is never a quiet child's key (from a random 5×5 root,
    /// most are so), so it is left as the mask itself, and worked out
    /// whole for a descendant that holds its root.
    fn images(&self, mask: u64) -> Images {
        let normalised = self.normalised(mask);
        let mut images = [normalised; MAX_SYMMETRIES];
        let mut near = 0;
        if self.rules.symmetry {
            for (s, image) in images.iter_mut().enumerate() {
                let lacking = self
                    .image_needs
                    .get(s)
                    .map(|need| (need & !normalised).count_ones());
                if s > 0 && lacking.is_some_and(|n| n <= 1) {
                    *image = self.symmetries.image(s, normalised);
                    near |= 1 << s;
                }
            }
        }
        Images {
            normalised,
            images,
            near,
        }
    }

    /// [`Geometry::key`] of the position `parent` describes with the edges
    /// `added` drawn too, from the parent's images: each edge normalised in
    /// turn as [`Geometry::normalise_borders`] would (the next undrawn edge
    /// of its border group), then added to each image where symmetry takes
    /// it. An image [`Geometry::images`] left out (its root needed two or
    /// more edges the parent lacks) that the descendant now holds the root
    /// in is worked out whole.
    fn descendant_key(&self, parent: &Images, added: u64) -> (u64, usize) {
        let mut child = parent.normalised;
        let mut bits = added;
        while bits != 0 {
            let mut e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.rules.border_edges && self.border_group_of[e] != NO_GROUP {
                let group = &self.border_groups[usize::from(self.border_group_of[e])];
                let drawn = (child & group.edges).count_ones() as usize;
                e = (group.first[drawn + 1] & !group.first[drawn]).trailing_zeros() as usize;
            }
            child |= 1 << e;
        }
        let new = child & !parent.normalised;
        // A quiet child (the most keyed): an image the parent left out
        // needs two edges more, so the child never holds its root there.
        if new.count_ones() == 1 {
            let e = new.trailing_zeros() as usize;
            return self.least_image_among(child, parent.near, |s| {
                parent.images[s] | 1 << self.edge_maps[s][e]
            });
        }
        self.least_image(child, |s| {
            let lacked = self.image_needs[s] & !parent.normalised;
            if lacked.count_ones() > 1 {
                return self.symmetries.image(s, child);
            }
            let mut image = parent.images[s];
            let mut bits = new;
            while bits != 0 {
                image |= 1 << self.edge_maps[s][bits.trailing_zeros() as usize];
                bits &= bits - 1;
            }
            image
        })
    }

    /// A quiet step's child before any captures there, keyed from its
    /// parent's images.
    fn quiet_child(&self, parent: &Images, mask: u64, step: &Step) -> Keyed {
        self.descendant(parent, mask, mask | step.edges)
    }

    /// A descendant `child` of the position `parent` describes (`mask`),
    /// keyed from the parent's images.
    fn descendant(&self, parent: &Images, mask: u64, child: u64) -> Keyed {
        let (key, symmetry) = self.descendant_key(parent, child & !mask);
        Keyed {
            mask: child,
            key,
            symmetry,
        }
    }

    /// A position with its key worked out anew.
    fn keyed(&self, mask: u64) -> Keyed {
        let (key, symmetry) = self.key(mask);
        Keyed {
            mask,
            key,
            symmetry,
        }
    }

    /// Whether `step` is one edge that gives no box a third side (nor
    /// completes one): its child has no capturable box the parent did not
    /// have, so no free captures.
    fn is_quiet(&self, sides: &Sides, step: &Step) -> bool {
        step.edges.count_ones() == 1
            && self.edge_boxes[usize::from(step.hint)]
                .iter()
                .all(|&b| b == NO_BOX || sides.two_or_more() & 1 << b == 0)
    }

    /// Drawn sides of every box: each box's top, bottom, left and right
    /// edge gathered into a bit set of boxes (the horizontal edges are
    /// numbered as the boxes are, a row of vertical edges is a row of
    /// boxes and one more), then added bit by bit.
    fn sides_of(&self, mask: u64) -> Sides {
        let (rows, cols) = (self.rows, self.cols);
        let boxes = (1u64 << (rows * cols)) - 1;
        let top = (mask & boxes) as u32;
        let bottom = (mask >> cols & boxes) as u32;
        let (mut left, mut right) = (0u32, 0u32);
        let row = (1u64 << cols) - 1;
        let mut vertical = mask >> ((rows + 1) * cols);
        for r in 0..rows {
            left |= ((vertical & row) as u32) << (r * cols);
            right |= ((vertical >> 1 & row) as u32) << (r * cols);
            vertical >>= cols + 1;
        }
        // Two half adders and the carries: count = (a + 2 ab) + (c + 2 cd).
        let (a, ab) = (top ^ bottom, top & bottom);
        let (c, cd) = (left ^ right, left & right);
        Sides {
            bits: [a ^ c, ab ^ cd ^ (a & c), ab & cd],
        }
    }

    /// The boxes not yet claimed, given the boxes' sides.
    fn unclaimed(&self, sides: &Sides) -> i32 {
        (self.boxes() - sides.four().count_ones() as usize) as i32
    }

    /// Boxes edge `e` completes, given the boxes' sides.
    fn gain_with(&self, sides: &Sides, e: u32) -> i32 {
        self.edge_boxes[e as usize]
            .iter()
            .filter(|&&b| b != NO_BOX && sides.three() & 1 << b != 0)
            .count() as i32
    }

    /// The single-edge step along `e`.
    fn edge_step(&self, sides: &Sides, e: u32) -> Step {
        let gain = self.gain_with(sides, e);
        Step {
            edges: 1 << e,
            gain,
            keeps_turn: gain > 0,
            hint: e as u8,
            cap: NO_CAP,
        }
    }

    /// Takes every free capture ([`Rules::free_captures`]): the position
    /// after them, with `sides` brought up to date, and the boxes taken.
    fn take_free_captures(&self, mask: u64, sides: &mut Sides) -> (u64, i32) {
        let mut mask = mask;
        let mut gain = 0;
        // Each capture starts the search again from the first capturable
        // box, as the order of captures can matter: a capture that gives a
        // box its second side makes a capture into that box no longer free.
        'capture: loop {
            for b in members(sides.three()) {
                let e = (self.box_masks[usize::from(b)] & !mask).trailing_zeros();
                let other = self.across(e, b);
                if other == NO_BOX || sides.two() & 1 << other == 0 {
                    for a in self.edge_boxes[e as usize] {
                        if a != NO_BOX {
                            sides.add(a);
                            gain += i32::from(sides.four() & 1 << a != 0);
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

    /// The position after `step` with its free captures taken, and the
    /// boxes those took: where the search of the child starts.
    fn child_after_captures(&self, mask: u64, step: &Step) -> (u64, i32) {
        self.child_after_captures_with(mask, &self.sides_of(mask), step)
    }

    /// [`Geometry::child_after_captures`] given the position's `sides`.
    fn child_after_captures_with(&self, mask: u64, sides: &Sides, step: &Step) -> (u64, i32) {
        let child = mask | step.edges;
        if !self.rules.free_captures {
            return (child, 0);
        }
        let mut sides = *sides;
        let mut bits = step.edges;
        while bits != 0 {
            for b in self.edge_boxes[bits.trailing_zeros() as usize] {
                if b != NO_BOX {
                    sides.add(b);
                }
            }
            bits &= bits - 1;
        }
        self.take_free_captures(child, &mut sides)
    }

    /// [`Rules::chain_captures`]: both turns for every capturable box, if
    /// each heads a chain that ends on the border or at a box of at most
    /// one side; `None` if some capturable box heads anything else.
    fn chain_steps(&self, mask: u64, sides: &Sides, steps: &mut Steps) -> Option<(usize, i32)> {
        let free = self.full & !mask;
        let mut count = 0;
        let mut all_boxes = 0;
        for a in members(sides.three()) {
            let first = (free & self.box_masks[a as usize]).trailing_zeros();
            let mut current = self.across(first, a);
            if current == NO_BOX || sides.two() & 1 << current == 0 {
                return None;
            }
            // Boxes a = b0, b1, ..., bk along edges e0 .. ek; `before_last`
            // is e(k-1), between the last two boxes.
            let (mut edges, mut last) = (1u64 << first, first);
            let mut before_last;
            let mut boxes = 1;
            loop {
                boxes += 1;
                let out = (free & self.box_masks[current as usize] & !edges).trailing_zeros();
                (before_last, last) = (last, out);
                edges |= 1 << out;
                let next = self.across(out, current);
                if next == NO_BOX {
                    break;
                }
                if sides.two() & 1 << next != 0 {
                    current = next;
                } else if sides.two_or_more() & 1 << next == 0 {
                    break;
                } else {
                    return None;
                }
            }
            steps[count] = Step {
                edges,
                gain: boxes,
                keeps_turn: true,
                hint: first as u8,
                cap: NO_CAP,
            };
            steps[count + 1] = Step {
                edges: edges & !(1 << before_last),
                gain: boxes - 2,
                keeps_turn: false,
                hint: last as u8,
                cap: NO_CAP,
            };
            count += 2;
            all_boxes += boxes;
        }
        Some((count, all_boxes))
    }

    /// The components of a position without capturable boxes made of
    /// boxes with two sides, joined by their undrawn edges, fewest boxes
    /// first: the isolated chains and loops, one of each kind and length
    /// ([`Rules::isolated_components`]), and the other chains
    /// ([`Rules::chain_ends`]).
    fn two_sided_components(&self, mask: u64, sides: &Sides, out: &mut Components) -> usize {
        let free = self.full & !mask;
        let mut count = 0;
        let mut seen = 0u64;
        for start in members(sides.two()) {
            if seen & 1 << start != 0 {
                continue;
            }
            let (mut stack, mut depth) = ([0u8; MAX_BOXES], 1);
            stack[0] = start;
            seen |= 1 << start;
            let (mut boxes, mut edges, mut links, mut ground, mut isolated) =
                (0u8, 0u64, 0u64, 0u64, true);
            while depth > 0 {
                depth -= 1;
                let b = stack[depth];
                boxes += 1;
                let mut own = free & self.box_masks[b as usize];
                edges |= own;
                while own != 0 {
                    let e = own.trailing_zeros();
                    own &= own - 1;
                    let other = self.across(e, b);
                    if other == NO_BOX {
                        ground |= 1 << e;
                    } else if sides.two() & 1 << other == 0 {
                        isolated = false;
                    } else {
                        links |= 1 << e;
                        if seen & 1 << other == 0 {
                            seen |= 1 << other;
                            stack[depth] = other;
                            depth += 1;
                        }
                    }
                }
            }
            if !isolated {
                // A chain from a box of at most one side or the border to
                // another (a component that is not isolated has an end, so
                // it is a path). Its two ends are one move and its inner
                // edges no better (`Rules::chain_ends`); a chain of two
                // keeps its middle edge, the hard-hearted handout.
                if self.rules.chain_ends {
                    let opening = (edges & !links).trailing_zeros();
                    let handout = (boxes == 2).then(|| links.trailing_zeros());
                    out[count] = Component {
                        is_loop: false,
                        isolated: false,
                        boxes,
                        edges,
                        opening,
                        handout,
                    };
                    count += 1;
                }
                continue;
            }
            if !self.rules.isolated_components {
                continue;
            }
            let is_loop = ground == 0;
            let opening = if is_loop || boxes == 1 {
                edges.trailing_zeros()
            } else if boxes == 2 {
                // The edge between the two boxes: the hard-hearted handout.
                (edges & !ground).trailing_zeros()
            } else {
                ground.trailing_zeros()
            };
            let component = Component {
                is_loop,
                isolated: true,
                boxes,
                edges,
                opening,
                handout: None,
            };
            if let Some(twin) = out[..count]
                .iter_mut()
                .find(|c| c.isolated && c.is_loop == is_loop && c.boxes == boxes)
            {
                // Alike: only the first is opened; the twin's edges are
                // dropped as well.
                twin.edges |= edges;
                continue;
            }
            out[count] = component;
            count += 1;
        }
        out[..count].sort_unstable_by_key(|c| (c.boxes, c.is_loop));
        count
    }

    /// The moves worth searching, best first, in a buffer with their count:
    /// at a position with a capturable box the captures and the
    /// double-deals they allow (without [`Rules::loony_moves`], the captures
    /// and then every other move by how many boxes it gives a third side),
    /// otherwise [`safe_moves`](Geometry::safe_moves) and then
    /// [`sacrifices`](Geometry::sacrifices).
    fn ordered_moves(
        &self,
        mask: u64,
        sides: &Sides,
        steps: &mut Steps,
        components: &mut Components,
    ) -> usize {
        let sets = self.move_sets(mask, sides);
        if !any_capturable(sides) {
            let count = self.safe_moves(&sets, sides, steps);
            return self.sacrifices(mask, sides, &sets, (steps, count), components);
        }
        let mut count = 0;
        self.push_from_centre(sets.captures, sides, steps, &mut count);
        let quiet = sets.candidates & !sets.captures;
        if self.rules.loony_moves && sets.captures != 0 {
            // The double-deal for each capturable box A: the other free edge
            // of the two-sided box B its capture edge leads into.
            let free = self.full & !mask;
            let mut double_deals = 0u64;
            let mut rest = sets.captures;
            while rest != 0 {
                let e = rest.trailing_zeros();
                rest &= rest - 1;
                for b in self.edge_boxes[e as usize] {
                    if b != NO_BOX && sides.two() & 1 << b != 0 {
                        double_deals |= free & self.box_masks[b as usize] & !(1 << e);
                    }
                }
            }
            self.push_from_centre(double_deals & !sets.captures, sides, steps, &mut count);
            return count;
        }
        for set in [
            quiet & !sets.once,
            quiet & sets.once & !sets.twice,
            quiet & sets.twice,
        ] {
            self.push_from_centre(set, sides, steps, &mut count);
        }
        count
    }

    /// The moves of `mask` sorted by what they do (see [`MoveSets`]).
    fn move_sets(&self, mask: u64, sides: &Sides) -> MoveSets {
        let free = self.full & !mask;
        let mut candidates = free;
        if self.rules.border_edges {
            for group in &self.border_groups {
                // All but the first undrawn one.
                let undrawn = group.edges & free;
                candidates &= !(undrawn & undrawn.wrapping_sub(1));
            }
        }
        // Exposure of each non-capturing edge: boxes it gives a third side.
        // Worked out box by box (a two-sided box exposes each of its
        // undrawn edges, an edge between two such boxes both), not edge by
        // edge through both boxes of each.
        let (mut once, mut twice, mut captures) = (0u64, 0u64, 0u64);
        for b in members(sides.two()) {
            let undrawn = self.box_masks[usize::from(b)] & free;
            twice |= once & undrawn;
            once |= undrawn;
        }
        for b in members(sides.three()) {
            captures |= self.box_masks[usize::from(b)] & free;
        }
        MoveSets {
            candidates,
            captures: captures & candidates,
            once,
            twice,
        }
    }

    /// The first moves of a position without a capturable box, from the
    /// centre outwards: those that give no box a third side. Their count.
    fn safe_moves(&self, sets: &MoveSets, sides: &Sides, steps: &mut Steps) -> usize {
        let mut count = 0;
        self.push_from_centre(sets.candidates & !sets.once, sides, steps, &mut count);
        count
    }

    /// The moves of a position without a capturable box after its
    /// [`safe_moves`](Geometry::safe_moves) (the first `count` of
    /// `steps`): the sacrifices, appended; the new count. A component at a
    /// time from the fewest boxes handed over: one box, two (the
    /// hard-hearted handout first), ... By exposure alone (the edges
    /// giving one box a third side, then those giving two) the search
    /// visited 9% more positions on 4x4 and 19% more on 5x5 with
    /// [`Rules::chain_ends`]; a chain of two's end before its middle, 3.5%
    /// and 5.5% more.
    fn sacrifices(
        &self,
        mask: u64,
        sides: &Sides,
        sets: &MoveSets,
        (steps, count): (&mut Steps, usize),
        components: &mut Components,
    ) -> usize {
        let mut count = count;
        let component_count = if self.rules.isolated_components || self.rules.chain_ends {
            self.two_sided_components(mask, sides, components)
        } else {
            0
        };
        // Every move's value here has the parity of the unclaimed boxes
        // ([`Rules::margin_parity`]): caps round down to it.
        let parity = self
            .rules
            .margin_parity
            .then(|| (self.unclaimed(sides) & 1) as i8);
        let mut rest = sets.candidates & sets.once;
        for c in &components[..component_count] {
            rest &= !c.edges;
            for e in c.handout.into_iter().chain([c.opening]) {
                steps[count] = self.edge_step(sides, e);
                count += 1;
            }
            if self.rules.sacrifice_caps {
                steps[count - 1].cap = c.sacrifice_cap(parity);
            }
        }
        // The sacrifices no component above stands for: every one without
        // [`Rules::chain_ends`] and [`Rules::isolated_components`].
        self.push_from_centre(rest & !sets.twice, sides, steps, &mut count);
        self.push_from_centre(rest & sets.twice, sides, steps, &mut count);
        count
    }

    /// Appends the single-edge steps of `set` to `steps`, from the centre
    /// outwards: the set renumbered by distance from the centre, then read
    /// out in that order.
    fn push_from_centre(&self, set: u64, sides: &Sides, steps: &mut Steps, count: &mut usize) {
        let mut ranks = 0u64;
        let mut set = set;
        while set != 0 {
            ranks |= 1 << self.centre_rank[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        while ranks != 0 {
            let e = self.centre_first[ranks.trailing_zeros() as usize];
            steps[*count] = self.edge_step(sides, e);
            *count += 1;
            ranks &= ranks - 1;
        }
    }
}

/// The moves of a position by what they do, for
/// [`Geometry::ordered_moves`]: `candidates` are the undrawn edges worth
/// a look (a box's border edges stand for one another,
/// [`Rules::border_edges`]); `captures` complete a box; `once` give some
/// box a third side, `twice` two boxes.
struct MoveSets {
    candidates: u64,
    captures: u64,
    once: u64,
    twice: u64,
}

impl EndgameSolver {
    /// A solver with every rule and the default table size.
    pub fn new(board: Dots, limits: SearchLimits) -> EndgameSolver {
        let bytes = limits
            .table_bytes
            .unwrap_or_else(|| default_table_bytes(board, limits.nodes));
        let bits = entry_bits_within(board, bytes);
        EndgameSolver::with_rules(board, limits, Rules::ALL, bits)
    }

    /// A solver with chosen rules and a table of `2^table_bits` entries (8
    /// bytes each, 16 where a board's key is too long for the table's
    /// quotient to fit beside the data: see the `transposition` module).
    pub fn with_rules(
        board: Dots,
        limits: SearchLimits,
        rules: Rules,
        table_bits: u32,
    ) -> EndgameSolver {
        // Allocated by the first search: an oracle that answers from a
        // table never needs it.
        let mut table = TranspositionTable::new(table_bits, board.edges());
        table.set_merge(rules.two_bounds);
        table.set_huge_pages(rules.huge_pages);
        EndgameSolver {
            board,
            geo: Geometry::new(board, rules),
            threads: threads_of(&limits),
            limits,
            table,
            busy: Box::new([]),
            nodes: 0,
            loony_memo: HashMap::new(),
        }
    }

    /// The table's size, as the exponent of its entries.
    pub fn table_bits(&self) -> u32 {
        self.table.entry_bits()
    }

    /// Positions visited so far, by all threads (captures played without
    /// branching count with the position they start from).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The threads a search of a position with `undrawn` edges runs on.
    fn threads_for(&self, undrawn: u32) -> usize {
        if undrawn < PARALLEL_MIN_UNDRAWN || !self.table.shareable() {
            1
        } else {
            self.threads
        }
    }

    /// One null-window (or any-window) search of `mask` on the solver's
    /// threads: fail-soft, the value if inside `(alpha, beta)`, else a
    /// bound on the far side.
    fn run(
        &mut self,
        mask: u64,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Result<i32, Error> {
        let threads = self.threads_for((self.geo.full & !mask).count_ones());
        if threads > 1 && self.busy.is_empty() {
            self.busy = bytemuck::zeroed_slice_box(BUSY_SLOTS);
        }
        let shared = Shared {
            table: &self.table,
            limits: self.limits.clone(),
            deadline,
            nodes: AtomicU64::new(self.nodes),
            stop: AtomicBool::new(false),
            busy: if threads > 1 { &self.busy } else { &[] },
            result: Mutex::new(None),
        };
        let geo = &self.geo;
        let memo = std::mem::take(&mut self.loony_memo);
        let memo = std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| {
                    let mut helper = Worker::new(geo, &shared, HashMap::new());
                    let result = helper.search(mask, alpha, beta);
                    helper.finish(result);
                });
            }
            let mut main = Worker::new(geo, &shared, memo);
            let result = main.search(mask, alpha, beta);
            main.finish(result);
            main.loony_memo
        });
        self.loony_memo = memo;
        self.nodes = shared.nodes.load(Ordering::Relaxed);
        let result = shared
            .result
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The main thread always records a result unless another did.
        result.unwrap_or(Err(Error::BudgetExhausted { budget: 0 }))
    }

    /// Two searches at once, each of a position and a window `(mask,
    /// alpha, beta)`, the threads split between them over the one table:
    /// a thread whose search is answered helps with the other (as in
    /// [`run`](EndgameSolver::run)) until that is answered too. Only for
    /// searches without limits ([`EndgameSolver::pairs_at`]): a node
    /// budget is one shared count.
    fn run_pair(&mut self, searches: [(u64, i32, i32); 2]) -> [Result<i32, Error>; 2] {
        let undrawn = searches.map(|(mask, ..)| (self.geo.full & !mask).count_ones());
        let threads = self.threads_for(undrawn[0].min(undrawn[1]));
        if threads > 1 && self.busy.is_empty() {
            self.busy = bytemuck::zeroed_slice_box(BUSY_SLOTS);
        }
        let shared = searches.map(|_| Shared {
            table: &self.table,
            limits: self.limits.clone(),
            deadline: None,
            nodes: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            busy: if threads > 1 { &self.busy } else { &[] },
            result: Mutex::new(None),
        });
        let geo = &self.geo;
        // Each thread's searches, its own first; one already answered is
        // passed over.
        let search = |first: usize, memo: HashMap<Vec<(bool, u8)>, i32>| {
            let mut memo = memo;
            for i in [first, 1 - first] {
                if shared[i].stop.load(Ordering::Relaxed) {
                    continue;
                }
                let (mask, alpha, beta) = searches[i];
                let mut worker = Worker::new(geo, &shared[i], memo);
                let result = worker.search(mask, alpha, beta);
                worker.finish(result);
                memo = worker.loony_memo;
            }
            memo
        };
        let memo = std::mem::take(&mut self.loony_memo);
        let memo = std::thread::scope(|scope| {
            for thread in 1..threads {
                scope.spawn(move || search(thread % 2, HashMap::new()));
            }
            search(0, memo)
        });
        self.loony_memo = memo;
        self.nodes += shared
            .iter()
            .map(|s| s.nodes.load(Ordering::Relaxed))
            .sum::<u64>();
        shared.map(|s| {
            let result = s
                .result
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // Every search has a thread that went on to its end: without
            // limits none stops before its answer.
            result.unwrap_or(Err(Error::BudgetExhausted { budget: 0 }))
        })
    }

    /// Whether two tests of `mask` or of its moves may run at once
    /// ([`run_pair`](EndgameSolver::run_pair)): with two threads or more
    /// and no limits. Lazy SMP on one test keeps two threads busy at the
    /// cost of positions both search; two tests at once give each its own
    /// thread.
    fn pairs_at(&self, mask: u64) -> bool {
        !self.limited() && self.threads_for((self.geo.full & !mask).count_ones()) >= 2
    }

    /// The MTD(f) loop (Plaat et al. 1996): null windows on `mask` from a
    /// guess until the bounds meet, narrowing `lower`/`upper` as tests
    /// prove. Margins have the parity of the remaining boxes, so tests sit
    /// on possible values. With [`pairs_at`](EndgameSolver::pairs_at) the
    /// first two tests run at once: the two that prove a margin of 0 where
    /// the boxes left are even (tests at 0 and -2), of +1 where they are
    /// odd (-1 and +1). Measured, not derived: pairs all the way (each
    /// test beside the next in the direction the last went), or the first
    /// test beside the one below it on odd positions too, searched a fifth
    /// more positions on a 5x5 position worth +1, each pair's second test
    /// wasted; these two cost none there and prove the empty 4x4's 0.
    fn narrow(
        &mut self,
        bounds: &mut (i32, i32),
        mut guess: i32,
        mask: u64,
        deadline: Option<Instant>,
    ) -> Result<(), Error> {
        let parity = bounds.1.rem_euclid(2);
        let mut pair = self.pairs_at(mask);
        while bounds.0 < bounds.1 {
            let t = guess.clamp(bounds.0, bounds.1 - 2);
            // Around a margin of 0 (an even number of boxes left) or +1.
            let beside = if parity == 0 { t - 2 } else { t + 2 };
            let first = std::mem::take(&mut pair);
            let (v, other) = if first && bounds.0 <= beside && beside <= bounds.1 - 2 {
                let [v, w] = self.run_pair([(mask, t, t + 1), (mask, beside, beside + 1)]);
                (v?, Some((beside, w?)))
            } else {
                (self.run(mask, t, t + 1, deadline)?, None)
            };
            for (t, v) in std::iter::once((t, v)).chain(other) {
                if v > t {
                    bounds.0 = v.max(bounds.0);
                } else {
                    bounds.1 = v.min(bounds.1);
                }
            }
            guess = if v > t { bounds.0 } else { bounds.1 - 2 };
            // A fail-soft bound need not be a possible margin (the chain
            // bound is not); the margin has the parity of the remaining
            // boxes, so the bounds round inwards to it.
            *bounds = to_parity(*bounds, parity);
        }
        Ok(())
    }

    /// Narrows each class of moves (`(key, step, bounds)`, its first step
    /// standing for it) from `mask` to its value: each test at the top of
    /// its bounds (the first: is the move as good as the best?), MTD(f)
    /// from above. With
    /// [`pairs_at`](EndgameSolver::pairs_at) two classes at a time, each
    /// on its own thread to begin with; bounds narrow as tests prove, so a
    /// search stopped by its limits leaves what it knew.
    fn settle_classes(
        &mut self,
        mask: u64,
        classes: &mut [(u64, Step, (i32, i32))],
        deadline: Option<Instant>,
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
                    // may drop further at once. (Halving the range after
                    // the first test took 15% more positions on the moves
                    // of the four 4x4 positions with 32 undrawn edges.)
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
        }
    }

    /// Whether a node budget, a time limit or a request's deadline may stop
    /// the search.
    fn limited(&self) -> bool {
        self.limits.nodes.is_some() || self.limits.time.is_some() || self.limits.stop.is_limited()
    }

    /// Where the limits may stop the search before it knows the value:
    /// null-window tests from both ends inwards, 0, 2, 6, 14 and 30 boxes
    /// from each end while they stay clear of each other, so a search that
    /// stops has narrowed the value from both sides. (MTD(f)'s first test,
    /// in the middle, is the hardest, and a search stopped in it has proved
    /// nothing.) Every test is exact: the bounds are only ever narrowed to
    /// what a test proved, as in [`narrow`](EndgameSolver::narrow).
    fn outside_in(
        &mut self,
        bounds: &mut (i32, i32),
        test: impl Fn(&mut EndgameSolver, i32) -> Result<i32, Error>,
    ) -> Result<(), Error> {
        let parity = bounds.1.rem_euclid(2);
        for d in [0, 2, 6, 14, 30] {
            for low_side in [true, false] {
                if bounds.1 - bounds.0 < 2 * d + 4 {
                    return Ok(());
                }
                let t = if low_side {
                    bounds.0 + d
                } else {
                    bounds.1 - 2 - d
                };
                let v = test(self, t)?;
                if v > t {
                    bounds.0 = v.max(bounds.0);
                } else {
                    bounds.1 = v.min(bounds.1);
                }
                *bounds = to_parity(*bounds, parity);
            }
        }
        Ok(())
    }

    /// The exact margin of `position` for the player to move.
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] or [`Error::TimeExhausted`] when the limits
    /// run out first: the answer is unknown within the budget;
    /// [`Error::TableMemory`] when the system will not give the
    /// transposition table's memory.
    pub fn solve(&mut self, position: Edges) -> Result<Score, Error> {
        self.table.allocate()?;
        self.geo.set_root(position.0);
        let deadline = self.limits.time.map(|t| Instant::now() + t);
        let remaining = self.board.remaining_boxes(position.0) as i32;
        let mut bounds = (-remaining, remaining);
        let guess = if remaining % 2 == 0 { 0 } else { -1 };
        let mask = position.0;
        self.narrow(&mut bounds, guess, mask, deadline)?;
        Ok(bounds.0)
    }

    /// The value of `position` and of every move, from one search: the
    /// position's value first, then each class of moves whose children are
    /// symmetric, starting from the bounds the table holds for its child
    /// and at most the position's value. Within the limits; what is not
    /// known when they run out is left as bounds
    /// ([`Analysis::unknown`] says why).
    pub fn analyse(&mut self, position: Edges) -> Analysis {
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
        if unknown.is_none() && self.limited() {
            unknown = self.outside_in(&mut root, test).err();
        }
        if unknown.is_none() {
            unknown = self.narrow(&mut root, guess, mask, deadline).err();
        }
        let (value_nodes, value_time) = (self.nodes - nodes_before, started.elapsed());
        let sides = self.geo.sides_of(mask);
        let free = self.geo.full & !mask;
        // Classes of moves with symmetric children (the same key, so the
        // same gain and value): the first move of each stands for it.
        let mut classes: Vec<(u64, Step, (i32, i32))> = Vec::new();
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
                    let mut bounds = (-remaining, root.1.min(remaining));
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
        if unknown.is_none() {
            unknown = self.settle_classes(mask, &mut classes, deadline).err();
        }
        // The value is the best move's: at least the best lower bound of a
        // move and at most the best upper bound (the root's bounds already
        // cap the moves' tops).
        if let Some(best_lower) = classes.iter().map(|c| c.2.0).max() {
            root.0 = root.0.max(best_lower);
        }
        if let Some(best_upper) = classes.iter().map(|c| c.2.1).max() {
            root.1 = root.1.min(best_upper);
        }
        let moves = class_of
            .into_iter()
            .map(|(edge, i)| MoveBounds {
                edge,
                lower: classes[i].2.0,
                upper: classes[i].2.1,
            })
            .collect();
        Analysis {
            lower: root.0,
            upper: root.1,
            moves,
            unknown,
            value_nodes,
            value_time,
        }
    }
}

#[cfg(test)]
impl EndgameSolver {
    /// The component recursion alone, for tests.
    fn simple_loony_value(&mut self, mask: u64) -> Option<i32> {
        let shared = Shared {
            table: &self.table,
            limits: self.limits.clone(),
            deadline: None,
            nodes: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            busy: &[],
            result: Mutex::new(None),
        };
        let sides = self.geo.sides_of(mask);
        Worker::new(&self.geo, &shared, HashMap::new()).simple_loony_value(mask, &sides)
    }
}

impl<'a> Worker<'a> {
    fn new(
        geo: &'a Geometry,
        shared: &'a Shared<'a>,
        loony_memo: HashMap<Vec<(bool, u8)>, i32>,
    ) -> Worker<'a> {
        Worker {
            geo,
            shared,
            count: 0,
            flushed: 0,
            loony_memo,
            frames: vec![[Step::default(); 64]; 64].into_boxed_slice(),
            components: Box::new([Component::default(); MAX_BOXES]),
        }
    }

    fn flush(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.count - self.flushed, Ordering::Relaxed);
        self.flushed = self.count;
    }

    /// Adds this thread's nodes to the count and records its result if it
    /// is the first.
    fn finish(&mut self, result: Result<i32, Halt>) {
        self.flush();
        let result = match result {
            Ok(v) => Ok(v),
            Err(Halt::Limit(e)) => Err(e),
            Err(Halt::Stopped) => return,
        };
        let mut first = self
            .shared
            .result
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if first.is_none() {
            *first = Some(result);
        }
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// Counts a node. Under a node budget every node is claimed on the
    /// shared count before it is visited (a compare-and-swap, where a
    /// search without a budget counts locally and flushes now and then), so
    /// a search that stops has visited exactly its budget, on any number
    /// of threads.
    fn tick(&mut self) -> Result<(), Halt> {
        let claimed = match self.shared.limits.nodes {
            Some(budget) => {
                let claim =
                    self.shared
                        .nodes
                        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                            (n < budget).then_some(n + 1)
                        });
                if claim.is_err() {
                    return Err(Halt::Limit(Error::BudgetExhausted { budget }));
                }
                true
            }
            None => false,
        };
        if self.count % TICK == 0 {
            self.flush();
            if self.shared.stop.load(Ordering::Relaxed) {
                return Err(Halt::Stopped);
            }
            // The request's deadline or cancellation (shared with its
            // other searches).
            self.shared.limits.stop.poll().map_err(Halt::Limit)?;
            if let (Some(deadline), Some(time)) = (self.shared.deadline, self.shared.limits.time) {
                if Instant::now() > deadline {
                    return Err(Halt::Limit(Error::TimeExhausted {
                        millis: time.as_millis() as u64,
                    }));
                }
            }
        }
        self.count += 1;
        if claimed {
            // Already on the shared count.
            self.flushed = self.count;
        }
        Ok(())
    }

    /// Fail-soft alpha-beta: the margin of `mask` for the player to move if
    /// it lies inside `(alpha, beta)`, else a bound on the far side.
    fn search(&mut self, mask: u64, alpha: i32, beta: i32) -> Result<i32, Halt> {
        self.search_keyed(mask, alpha, beta, None)
    }

    /// [`Worker::search`], with the key its parent may have worked out.
    fn search_keyed(
        &mut self,
        mask: u64,
        alpha: i32,
        beta: i32,
        keyed: Option<Keyed>,
    ) -> Result<i32, Halt> {
        self.tick()?;
        let mut sides = self.geo.sides_of(mask);
        let (mask, gain) = if self.geo.rules.free_captures {
            self.geo.take_free_captures(mask, &mut sides)
        } else {
            (mask, 0)
        };
        Ok(gain + self.search_after_captures(mask, &sides, alpha - gain, beta - gain, keyed)?)
    }

    /// The value of `step` from `mask` for the player to move there.
    fn step_value(
        &mut self,
        mask: u64,
        step: &Step,
        low: i32,
        beta: i32,
        keyed: Option<Keyed>,
    ) -> Result<i32, Halt> {
        let child = mask | step.edges;
        let g = step.gain;
        Ok(if step.keeps_turn {
            g + self.search_keyed(child, low - g, beta - g, keyed)?
        } else {
            g - self.search_keyed(child, g - beta, g - low, keyed)?
        })
    }

    /// The key of a quiet step's child (before any captures there), its
    /// bucket's load started; `images` are its parent's.
    fn key_child(&self, images: &Images, mask: u64, step: &Step) -> Keyed {
        let child = self.geo.quiet_child(images, mask, step);
        self.shared.table.prefetch(child.key);
        child
    }

    /// The key of a quiet step's child with [`Rules::prefetch`], its
    /// bucket's load started (`None` for other steps); `images` are this
    /// position's, worked out where first needed.
    fn prefetched_child(
        &self,
        images: &mut Option<Images>,
        mask: u64,
        sides: &Sides,
        step: &Step,
    ) -> Option<Keyed> {
        (self.geo.rules.prefetch && self.geo.is_quiet(sides, step)).then(|| {
            let images = images.get_or_insert_with(|| self.geo.images(mask));
            self.key_child(images, mask, step)
        })
    }

    /// Enhanced transposition cutoff ([`Rules::transposition_cutoffs`]):
    /// a step whose child the table already proves at least `beta` for
    /// the player to move here, and that bound, without searching it. The
    /// upper bounds the table proves on the steps looked up before it are
    /// left in `uppers` (for [`Rules::transposition_skips`]), and with
    /// [`Rules::prefetch`] the children's keys in `keyed` for their
    /// searches.
    #[allow(clippy::too_many_arguments)]
    fn transposition_cutoff(
        &self,
        mask: u64,
        sides: &Sides,
        calm: Option<&Images>,
        steps: &[Step],
        (low, beta): (i32, i32),
        keyed: &mut [Option<Keyed>],
        uppers: &mut [i32],
    ) -> Option<(u8, i32)> {
        if !self.geo.rules.prefetch {
            // One child at a time: keyed, probed, and no more keys once
            // one cuts.
            return steps.iter().zip(uppers).find_map(|(step, upper)| {
                let (child, taken) = self.cutoff_child(mask, sides, calm, step, low)?;
                self.cutoff_bound(step, child.key, taken, beta, upper)
            });
        }
        // Every child's key first, each bucket's load started as soon as
        // its key is known, then the probes: the cache misses overlap
        // instead of each waiting for the one before.
        let mut taken = [None; 64];
        for (i, step) in steps.iter().enumerate() {
            if let Some((child, boxes)) = self.cutoff_child(mask, sides, calm, step, low) {
                self.shared.table.prefetch(child.key);
                keyed[i] = Some(child);
                taken[i] = Some((child.key, boxes));
            }
        }
        steps
            .iter()
            .zip(&taken)
            .zip(uppers)
            .find_map(|((step, looked_up), upper)| {
                let (key, boxes) = (*looked_up)?;
                self.cutoff_bound(step, key, boxes, beta, upper)
            })
    }

    /// The child a transposition cutoff looks up for `step`, keyed, and the
    /// boxes its free captures take; `None` for a step whose sacrifice cap
    /// is at most `low`: it is not searched, so neither bound of its child
    /// could matter. `calm` are the images of a position without a
    /// capturable box: its children are keyed from them, a quiet one's
    /// with its edge, a sacrifice's with the edges it and the free
    /// captures after it draw.
    fn cutoff_child(
        &self,
        mask: u64,
        sides: &Sides,
        calm: Option<&Images>,
        step: &Step,
        low: i32,
    ) -> Option<(Keyed, i32)> {
        if i32::from(step.cap) <= low {
            return None;
        }
        if let Some(images) = calm.filter(|_| self.geo.is_quiet(sides, step)) {
            return Some((self.geo.quiet_child(images, mask, step), 0));
        }
        let (child, taken) = self.geo.child_after_captures_with(mask, sides, step);
        let keyed = match calm {
            Some(images) => self.geo.descendant(images, mask, child),
            None => self.geo.keyed(child),
        };
        Some((keyed, taken))
    }

    /// The step and the lower bound the table proves on it for the player
    /// to move here, if that is at least `beta`; the upper bound it proves
    /// goes to `upper` either way. The child's value for its mover is
    /// `taken` plus the value the table holds for its key, as `search`
    /// counts it.
    fn cutoff_bound(
        &self,
        step: &Step,
        key: u64,
        taken: i32,
        beta: i32,
        upper: &mut i32,
    ) -> Option<(u8, i32)> {
        let entry = self.shared.table.probe(key)?;
        let (child_lower, child_upper) = (taken + entry.lower, taken + entry.upper);
        let lower = if step.keeps_turn {
            *upper = step.gain + child_upper;
            step.gain + child_lower
        } else {
            *upper = step.gain - child_lower;
            step.gain - child_upper
        };
        (lower >= beta).then_some((step.hint, lower))
    }

    /// The slot of the busy table for a child (its key or mask, plus one).
    fn busy_slot(&self, child: u64) -> &AtomicU64 {
        let hash = child.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48;
        &self.shared.busy[hash as usize % self.shared.busy.len()]
    }

    fn search_after_captures(
        &mut self,
        mask: u64,
        sides: &Sides,
        alpha: i32,
        beta: i32,
        keyed: Option<Keyed>,
    ) -> Result<i32, Halt> {
        let geo = self.geo;
        if mask == geo.full {
            return Ok(0);
        }
        let remaining = geo.unclaimed(sides);
        if remaining <= alpha {
            return Ok(remaining);
        }
        if -remaining >= beta {
            return Ok(-remaining);
        }
        if geo.rules.component_values {
            if let Some(v) = self.simple_loony_value(mask, sides) {
                return Ok(v);
            }
        }
        // Chain steps and their bound come before the table: the bound
        // often settles a sacrifice's refutation without the canonical key
        // and a probe.
        let undrawn = (geo.full & !mask).count_ones();
        let frame = undrawn as usize;
        let capturable = any_capturable(sides);
        let chain = if geo.rules.chain_captures && capturable {
            geo.chain_steps(mask, sides, &mut self.frames[frame])
        } else {
            None
        };
        let table = self.shared.table;
        // The parity of every margin here ([`Rules::margin_parity`]), or
        // `None` where bounds are not rounded.
        let parity = geo.rules.margin_parity.then_some(remaining & 1);
        if let Some((_, chain_boxes)) = chain.filter(|_| geo.rules.chain_bound) {
            let bound = chain_boxes - 2;
            let bound = parity.map_or(bound, |p| up_to_parity(bound, p));
            if bound >= beta {
                return Ok(bound);
            }
        }
        let (key, symmetry) = match keyed {
            Some(k) if k.mask == mask => (k.key, k.symmetry),
            _ => geo.key(mask),
        };
        let mut hint = NO_MOVE;
        let nodes_before = self.count;
        if let Some(entry) = table.probe(key) {
            let (lower, upper) = (entry.lower, entry.upper);
            if lower >= beta || lower == upper {
                return Ok(lower);
            }
            if upper <= alpha {
                return Ok(upper);
            }
            if entry.best != NO_MOVE {
                hint = geo.inverse_maps[symmetry][entry.best as usize];
            }
        }

        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        let mut low = alpha;
        // This position's images, for its quiet children's keys: worked
        // out once where the first is needed.
        let mut images = None;
        // The best move of an earlier search of this position is searched
        // before the others are generated: where it refutes the window
        // again, neither the move list nor the cutoffs' lookups are needed
        // (on one thread 4-8% less time, 4% more positions, the cutoffs no
        // longer finding a refutation before it). Chain nodes have their
        // two steps at once. The best move is an edge of the key's
        // position, whose border edges are normalised: it may be drawn
        // here, where an interchangeable one stands for it in the list.
        // The moves' search; a refutation leaves it for the store below.
        'moves: {
            let mut searched_hint = false;
            if chain.is_none() && hint != NO_MOVE && (geo.full & !mask) & 1 << hint != 0 {
                let step = geo.edge_step(sides, u32::from(hint));
                let child_key = self.prefetched_child(&mut images, mask, sides, &step);
                let v = self.step_value(mask, &step, low, beta, child_key)?;
                best = v;
                best_move = geo.edge_maps[symmetry][usize::from(hint)];
                low = low.max(v);
                if low >= beta {
                    break 'moves;
                }
                searched_hint = true;
            }
            // At a position without a capturable box where the cutoffs run,
            // the safe moves are listed and looked up first, the sacrifices
            // only where no safe move's child is a cutoff: a third of the
            // positions end in a cutoff (the 4x4 U=32 set), and one found
            // among the safe moves needs neither the components nor the
            // sacrifices' children keyed. The same search (the list's order
            // is unchanged), 3.5% faster on a 5x5 position with 44 undrawn
            // edges.
            let cutoffs = geo.rules.transposition_cutoffs && undrawn >= CUTOFF_MIN_UNDRAWN;
            let mut sacrifices_due = None;
            let count = match chain {
                Some((count, _)) => count,
                None if cutoffs && !capturable => {
                    let sets = geo.move_sets(mask, sides);
                    let count = geo.safe_moves(&sets, sides, &mut self.frames[frame]);
                    sacrifices_due = Some(sets);
                    count
                }
                None => {
                    geo.ordered_moves(mask, sides, &mut self.frames[frame], &mut self.components)
                }
            };
            let mut count = place_hint(&mut self.frames[frame], (0, count), hint, searched_hint);
            // What the cutoffs' lookups found on each move (upper bounds, no
            // bound being i32::MAX) and the children's keys they worked out;
            // two kilobytes, so set only where they run.
            let (mut keyed_here, mut uppers_here);
            let (mut keyed, mut uppers): (&[Option<Keyed>], &[i32]) = (&[], &[]);
            if cutoffs {
                (keyed_here, uppers_here) = ([None; 64], [i32::MAX; 64]);
                let calm = (!capturable).then(|| *images.get_or_insert_with(|| geo.images(mask)));
                let mut from = 0;
                loop {
                    let found = self.transposition_cutoff(
                        mask,
                        sides,
                        calm.as_ref(),
                        &self.frames[frame][from..count],
                        (low, beta),
                        &mut keyed_here[from..],
                        &mut uppers_here[from..],
                    );
                    if let Some((e, bound)) = found {
                        let entry = Entry {
                            lower: bound,
                            upper: remaining,
                            best: geo.edge_maps[symmetry][e as usize],
                        };
                        table.store(key, entry, 0);
                        return Ok(bound);
                    }
                    let Some(sets) = sacrifices_due.take() else {
                        break;
                    };
                    from = count;
                    count = geo.sacrifices(
                        mask,
                        sides,
                        &sets,
                        (&mut self.frames[frame], count),
                        &mut self.components,
                    );
                    count = place_hint(&mut self.frames[frame], (from, count), hint, searched_hint);
                }
                keyed = &keyed_here;
                if geo.rules.transposition_skips {
                    uppers = &uppers_here;
                }
            }
            let defer = !self.shared.busy.is_empty() && undrawn >= DEFER_MIN_UNDRAWN;
            let mut order = [0u8; 64];
            for (i, slot) in order[..count].iter_mut().enumerate() {
                *slot = i as u8;
            }
            let mut len = count;
            'passes: for pass in 0..2 {
                let mut deferred = [0u8; 64];
                let mut deferred_count = 0;
                for &i in &order[..len] {
                    let step = self.frames[frame][usize::from(i)];
                    let proved = uppers.get(usize::from(i)).copied().unwrap_or(i32::MAX);
                    let cap = i32::from(step.cap).min(proved);
                    if cap <= low {
                        // The table ([`Rules::transposition_skips`]) or the
                        // chain bound ([`Rules::sacrifice_caps`]) proves this
                        // move cannot raise the window's bottom.
                        if cap > best {
                            best = cap;
                            best_move = geo.edge_maps[symmetry][step.hint as usize];
                        }
                        continue;
                    }
                    // A quiet child is keyed here, so that the load of its
                    // bucket overlaps the first checks of its search.
                    let child_key = keyed
                        .get(usize::from(i))
                        .copied()
                        .flatten()
                        .or_else(|| self.prefetched_child(&mut images, mask, sides, &step));
                    // Young brothers another thread is searching wait for the
                    // second pass (ABDADA); the eldest is always searched. A
                    // child is busy by its key where it has one: symmetric
                    // children (the moves of the empty board's classes) are
                    // one position, and two threads searching two images of it
                    // at once would each search it whole.
                    let busy = child_key
                        .map_or(mask | step.edges, |k| k.key)
                        .wrapping_add(1);
                    let marked = if defer && (i > 0 || searched_hint) {
                        let slot = self.busy_slot(busy);
                        if pass == 0 && slot.load(Ordering::Relaxed) == busy {
                            deferred[deferred_count] = i;
                            deferred_count += 1;
                            continue;
                        }
                        slot.store(busy, Ordering::Relaxed);
                        true
                    } else {
                        false
                    };
                    let value = self.step_value(mask, &step, low, beta, child_key);
                    if marked {
                        let _ = self.busy_slot(busy).compare_exchange(
                            busy,
                            0,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                    }
                    let v = value?;
                    if v > best {
                        best = v;
                        best_move = geo.edge_maps[symmetry][step.hint as usize];
                    }
                    low = low.max(v);
                    if low >= beta {
                        break 'passes;
                    }
                }
                if deferred_count == 0 {
                    break;
                }
                order = deferred;
                len = deferred_count;
            }
        }
        let best = match parity {
            Some(p) if best <= alpha => down_to_parity(best, p),
            Some(p) if best >= beta => up_to_parity(best, p),
            _ => best,
        };
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
        table.store(key, entry, self.count - nodes_before);
        Ok(best)
    }

    /// The value of a simple loony endgame (every unclaimed box has two
    /// sides, chains of 3+ and loops of 4+, or chains of any length with
    /// [`Rules::short_chains`]), or `None` for other positions.
    fn simple_loony_value(&mut self, mask: u64, sides: &Sides) -> Option<i32> {
        let geo = self.geo;
        if geo.unclaimed(sides) != sides.two().count_ones() as i32 {
            return None;
        }
        let open = u64::from(sides.two()); // unclaimed boxes, as a bit set
        let free = geo.full & !mask;
        // The boxes across each free edge of box b (NO_BOX for the border).
        let neighbours = |b: usize| -> [u8; 2] {
            let mut out = [NO_BOX; 2];
            let mut edges = free & geo.box_masks[b];
            let mut i = 0;
            while edges != 0 {
                let e = edges.trailing_zeros();
                edges &= edges - 1;
                out[i] = geo.across(e, b as u8);
                i += 1;
            }
            out
        };
        let shortest_chain = if geo.rules.short_chains { 1 } else { 3 };
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
                if length < if is_loop { 4 } else { shortest_chain } {
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
    /// and moves next, or takes all but 2 (4 in a loop) and hands them over
    /// (not possible in a chain of one or two: a two-chain is opened in its
    /// middle).
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
            let opponent = match (is_loop, length) {
                (true, _) => (n + after).max(n - 8 - after),
                (false, 3..) => (n + after).max(n - 4 - after),
                (false, _) => n + after,
            };
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

    /// [`EndgameSolver::analyse`]: the moves in edge order, the order of
    /// [`Dots::moves`](Game::moves).
    fn score_moves(&mut self, position: Edges) -> Option<MoveScores> {
        let analysis = self.analyse(position);
        Some(MoveScores {
            value: (analysis.lower, analysis.upper),
            moves: analysis.moves.iter().map(|m| (m.lower, m.upper)).collect(),
            unknown: analysis.unknown,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

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

    /// [`plain_values`] of 3x3, worked out once for the tests that need
    /// them (sixteen million positions).
    fn plain_values_3x3() -> &'static [i8] {
        static VALUES: std::sync::OnceLock<Vec<i8>> = std::sync::OnceLock::new();
        VALUES.get_or_init(|| plain_values(Dots::new(3, 3).unwrap()))
    }

    fn configurations() -> Vec<(&'static str, Rules)> {
        // The rules named on, the others off.
        let only = |names: &[&str]| {
            names.iter().fold(Rules::NONE, |rules, name| {
                rules.switch(name, true).expect("a rule's name")
            })
        };
        vec![
            ("none", Rules::NONE),
            ("free captures", only(&["free-captures"])),
            ("loony moves", only(&["loony-moves"])),
            ("chain captures", only(&["chain-captures"])),
            ("chain bound", only(&["chain-captures", "chain-bound"])),
            ("component values", only(&["component-values"])),
            ("short chains", only(&["component-values", "short-chains"])),
            ("isolated components", only(&["isolated-components"])),
            ("chain ends", only(&["chain-ends"])),
            (
                "chain ends with isolated components",
                only(&["chain-ends", "isolated-components"]),
            ),
            (
                "sacrifice caps with chain ends",
                only(&["chain-ends", "sacrifice-caps"]),
            ),
            (
                // Isolated chains and loops only.
                "sacrifice caps with isolated components",
                only(&["isolated-components", "sacrifice-caps"]),
            ),
            ("margin parity", only(&["margin-parity"])),
            (
                // Rounded chain bounds and caps.
                "margin parity with chain bounds and sacrifice caps",
                only(&[
                    "chain-captures",
                    "chain-bound",
                    "chain-ends",
                    "sacrifice-caps",
                    "margin-parity",
                ]),
            ),
            ("two bounds", only(&["two-bounds"])),
            ("symmetry", only(&["symmetry"])),
            ("border edges", only(&["border-edges"])),
            ("transposition cutoffs", only(&["transposition-cutoffs"])),
            (
                "transposition skips",
                only(&["transposition-cutoffs", "transposition-skips"]),
            ),
            (
                // The lookups all made before the skips, as with every rule.
                "transposition skips with prefetch",
                only(&["transposition-cutoffs", "transposition-skips", "prefetch"]),
            ),
            ("huge pages", only(&["huge-pages"])),
            ("prefetch", only(&["prefetch"])),
            (
                // Capped steps left out of the lookups, their caps standing
                // for them beside the looked-up bounds.
                "transposition skips with sacrifice caps",
                only(&[
                    "transposition-cutoffs",
                    "transposition-skips",
                    "chain-ends",
                    "sacrifice-caps",
                ]),
            ),
            (
                // Keys handed to children under symmetry and border
                // normalisation, with every child looked up.
                "prefetch with keyed cutoffs",
                only(&[
                    "prefetch",
                    "symmetry",
                    "border-edges",
                    "transposition-cutoffs",
                ]),
            ),
            ("before", Rules::BEFORE),
            ("all", Rules::ALL),
        ]
    }

    #[test]
    fn every_rule_agrees_with_plain_search_on_every_small_position() {
        for (rows, cols) in [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3), (3, 2)] {
            let board = Dots::new(rows, cols).unwrap();
            let truth = plain_values(board);
            // Each configuration its own solver, on every core: this and the
            // sampled 3x3 test are the crate's longest.
            configurations().into_par_iter().for_each(|(name, rules)| {
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
            });
        }
    }

    #[test]
    fn every_rule_agrees_with_plain_search_on_sampled_3x3_positions() {
        let board = Dots::new(3, 3).unwrap();
        let truth = plain_values_3x3();
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
        configurations().into_par_iter().for_each(|(name, rules)| {
            let mut solver = EndgameSolver::with_rules(board, SearchLimits::default(), rules, 18);
            for &mask in &samples {
                let got = solver.solve(Edges(mask)).unwrap();
                assert_eq!(got, i32::from(truth[mask as usize]), "{name}: {mask:#x}");
            }
        });
    }

    /// The value of drawing `e` in `mask` for the player who draws it,
    /// by the plain recursion's values.
    fn plain_move_value(board: Dots, values: &[i8], mask: u64, e: u32) -> i32 {
        let (child, gain) = board.draw(mask, e);
        let child = i32::from(values[child as usize]);
        let gain = gain as i32;
        if gain > 0 { gain + child } else { -child }
    }

    /// [`Rules::chain_ends`] on every 3x3 position without a capturable
    /// box, against the plain recursion: the test finds each chain of
    /// two-sided boxes itself, checks that its two ends are worth the same
    /// and its inner edges (in a chain of three or more) no more, and that
    /// the rule drops exactly the rest of each chain that is not isolated.
    #[test]
    fn a_chains_two_ends_are_worth_the_same_and_its_inner_edges_no_more() {
        let board = Dots::new(3, 3).unwrap();
        let values = plain_values_3x3();
        let geo = Geometry::new(
            board,
            Rules {
                chain_ends: true,
                ..Rules::NONE
            },
        );
        let bits = |mut set: u64| {
            std::iter::from_fn(move || {
                (set != 0).then(|| {
                    let e = set.trailing_zeros();
                    set &= set - 1;
                    e
                })
            })
        };
        // Chains seen, by length (1, 2, 3 or more), that the rule cut down.
        let seen = (0..board.full())
            .into_par_iter()
            .map(|mask| {
                let mut seen = [0u64; 3];
                let sides = geo.sides_of(mask);
                if any_capturable(&sides) {
                    return seen;
                }
                let mut components = [Component::default(); MAX_BOXES];
                let count = geo.two_sided_components(mask, &sides, &mut components);
                // What the rule leaves out: the edges of each chain but
                // those it searches.
                let unsearched = components[..count].iter().fold(0, |acc, c| {
                    acc | c.edges & !(1 << c.opening) & !c.handout.map_or(0, |e| 1 << e)
                });
                let free = geo.full & !mask;
                let value = |e| plain_move_value(board, values, mask, e);
                let (mut expected, mut visited) = (0u64, 0u64);
                for start in 0..geo.boxes() {
                    if sides.count(start as u8) != 2 || visited & 1 << start != 0 {
                        continue;
                    }
                    let (mut chain, mut frontier) = (1u64 << start, 1u64 << start);
                    while frontier != 0 {
                        let b = frontier.trailing_zeros() as u8;
                        frontier &= frontier - 1;
                        for e in bits(free & geo.box_masks[b as usize]) {
                            let other = geo.across(e, b);
                            if other != NO_BOX && sides.count(other) == 2 && chain & 1 << other == 0
                            {
                                chain |= 1 << other;
                                frontier |= 1 << other;
                            }
                        }
                    }
                    visited |= chain;
                    let edges =
                        bits(chain).fold(0, |acc, b| acc | free & geo.box_masks[b as usize]);
                    let inner = bits(edges)
                        .filter(|&e| {
                            geo.edge_boxes[e as usize]
                                .iter()
                                .all(|&b| b != NO_BOX && chain & 1 << b != 0)
                        })
                        .fold(0u64, |acc, e| acc | 1 << e);
                    let ends = edges & !inner;
                    let isolated = bits(ends).all(|e| geo.edge_boxes[e as usize].contains(&NO_BOX));
                    if isolated {
                        continue;
                    }
                    let name = board.notation(Edges(mask));
                    let [a, b] = [ends.trailing_zeros(), 63 - ends.leading_zeros()];
                    assert_eq!(ends.count_ones(), 2, "{name}: a chain has two ends");
                    assert_eq!(value(a), value(b), "{name}: ends {a} and {b}");
                    let boxes = chain.count_ones();
                    if boxes >= 3 {
                        for e in bits(inner) {
                            assert!(value(e) <= value(a), "{name}: inner edge {e}");
                        }
                    }
                    let kept = if boxes == 2 { 1 << a | inner } else { 1 << a };
                    expected |= edges & !kept;
                    seen[boxes.min(3) as usize - 1] += 1;
                }
                assert_eq!(unsearched, expected, "{}", board.notation(Edges(mask)));
                seen
            })
            .reduce(|| [0; 3], |x, y| [x[0] + y[0], x[1] + y[1], x[2] + y[2]]);
        assert!(seen.iter().all(|&n| n > 10_000), "{seen:?}");
    }

    /// [`Rules::sacrifice_caps`] on every 3x3 position without a
    /// capturable box: each capped opening is worth at most its cap and at
    /// most the cap rounded down to the margins' parity
    /// ([`Rules::margin_parity`]), and each kind of cap (a chain opened at
    /// an end, a loop), rounded or not, is reached somewhere, so neither
    /// is looser than it need be.
    #[test]
    fn a_sacrifices_cap_bounds_its_value_and_is_reached() {
        let board = Dots::new(3, 3).unwrap();
        let values = plain_values_3x3();
        let geo = Geometry::new(
            board,
            Rules {
                chain_ends: true,
                isolated_components: true,
                sacrifice_caps: true,
                ..Rules::NONE
            },
        );
        // Openings capped, caps reached and caps rounded to the margins'
        // parity reached: chains, then loops.
        let counts = (0..board.full())
            .into_par_iter()
            .map(|mask| {
                let mut counts = [[0u64; 3]; 2];
                let sides = geo.sides_of(mask);
                if any_capturable(&sides) {
                    return counts;
                }
                let parity = (board.remaining_boxes(mask) % 2) as i8;
                let mut components = [Component::default(); MAX_BOXES];
                let count = geo.two_sided_components(mask, &sides, &mut components);
                for c in &components[..count] {
                    let (cap, rounded) = (c.sacrifice_cap(None), c.sacrifice_cap(Some(parity)));
                    if cap == NO_CAP {
                        assert_eq!(rounded, NO_CAP);
                        continue;
                    }
                    let value = plain_move_value(board, values, mask, c.opening);
                    let name = board.notation(Edges(mask));
                    assert!(value <= i32::from(rounded), "{name}: {c:?} worth {value}");
                    assert!(rounded <= cap && cap - rounded <= 1, "{name}: {c:?}");
                    let kind = &mut counts[usize::from(c.is_loop)];
                    kind[0] += 1;
                    kind[1] += u64::from(value == i32::from(cap));
                    kind[2] += u64::from(value == i32::from(rounded));
                }
                counts
            })
            .reduce(
                || [[0; 3]; 2],
                |x, y| [0, 1].map(|k| [0, 1, 2].map(|i| x[k][i] + y[k][i])),
            );
        assert!(counts.iter().flatten().all(|&n| n > 0), "{counts:?}");
    }

    #[test]
    fn side_counts_agree_with_counting_each_box() {
        let mut rng = crate::rng::Rng::new(3);
        for (rows, cols) in [
            (1, 1),
            (1, 5),
            (2, 3),
            (3, 3),
            (4, 4),
            (4, 5),
            (5, 5),
            (1, 20),
        ] {
            let board = Dots::new(rows, cols).unwrap();
            let geo = Geometry::new(board, Rules::ALL);
            let boxes = geo.boxes() as u8;
            // The boxes of `mask` whose sides `keep` accepts, box by box.
            let plain = |mask: u64, keep: &dyn Fn(u32) -> bool| {
                (0..boxes)
                    .filter(|&b| keep(geo.sides(mask, b)))
                    .fold(0u32, |set, b| set | 1 << b)
            };
            for round in 0..2000 {
                // Sparse and dense positions, and the full board.
                let mask = match round {
                    0 => board.full(),
                    _ => rng.next_u64() & rng.next_u64() >> (round % 3) & board.full(),
                };
                let sides = geo.sides_of(mask);
                for b in 0..boxes {
                    assert_eq!(u32::from(sides.count(b)), geo.sides(mask, b));
                }
                assert_eq!(sides.two(), plain(mask, &|n| n == 2), "{mask:#x}");
                assert_eq!(sides.three(), plain(mask, &|n| n == 3), "{mask:#x}");
                assert_eq!(sides.four(), plain(mask, &|n| n == 4), "{mask:#x}");
                assert_eq!(sides.two_or_more(), plain(mask, &|n| n >= 2), "{mask:#x}");
                assert_eq!(any_capturable(&sides), plain(mask, &|n| n == 3) != 0);
                let listed: Vec<u8> = members(sides.two()).collect();
                assert!(listed.windows(2).all(|w| w[0] < w[1]));
                assert_eq!(listed.len(), sides.two().count_ones() as usize);
                assert!(listed.iter().all(|&b| sides.count(b) == 2));
                // One more side for a box, as drawing an edge gives it.
                for b in (0..boxes).filter(|&b| sides.count(b) < 4) {
                    let mut more = sides;
                    more.add(b);
                    for o in 0..boxes {
                        let want = sides.count(o) + u8::from(o == b);
                        assert_eq!(more.count(o), want, "{mask:#x} box {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_rule_has_a_name() {
        for name in Rules::NAMES {
            let on = Rules::NONE.switch(name, true).unwrap();
            assert_ne!(on, Rules::NONE, "{name}");
            assert_eq!(on.switch(name, false), Some(Rules::NONE), "{name}");
        }
        // Every rule on one by one is every rule.
        let all = Rules::NAMES
            .iter()
            .fold(Rules::NONE, |r, name| r.switch(name, true).unwrap());
        assert_eq!(all, Rules::ALL);
        assert_eq!(Rules::ALL.switch("no such rule", false), None);
    }

    /// A random root set on `geo` (the empty board every third round) and a
    /// random position that holds it, both sparse.
    fn rooted_position(geo: &mut Geometry, rng: &mut crate::rng::Rng, round: usize) -> (u64, u64) {
        let full = geo.full;
        let mut sparse = || rng.next_u64() & rng.next_u64() & rng.next_u64() & full;
        let root = if round % 3 == 0 { 0 } else { sparse() };
        geo.set_root(root);
        (root, root | sparse() | sparse())
    }

    #[test]
    fn keys_look_only_at_images_that_hold_the_root_and_agree_on_them() {
        // On 3x3 and 4x4, from random roots: a position's key is one of its
        // images, and every image that holds the root has the same key (so
        // a symmetric transposition within the search is never missed);
        // from the empty board, every image.
        let mut rng = crate::rng::Rng::new(21);
        for (rows, cols) in [(3, 3), (4, 4), (2, 3)] {
            let board = Dots::new(rows, cols).unwrap();
            let rules = Rules {
                border_edges: false,
                ..Rules::ALL
            };
            let mut geo = Geometry::new(board, rules);
            let symmetries = board.symmetries();
            for round in 0..300 {
                let (root, position) = rooted_position(&mut geo, &mut rng, round);
                let (key, symmetry) = geo.key(position);
                assert_eq!(key, symmetries.image(symmetry, position));
                for s in 0..symmetries.count() {
                    let image = symmetries.image(s, position);
                    if image & root == root {
                        assert_eq!(geo.key(image).0, key, "{rows}x{cols} {root:b} {image:b}");
                    }
                }
                if root == 0 {
                    assert_eq!(key, symmetries.canonical(position));
                }
            }
        }
    }

    #[test]
    fn a_childs_key_from_its_parents_images_is_its_own_key() {
        // Every undrawn edge of random positions under random roots, with
        // and without symmetry and border normalisation, on square and
        // oblong boards: the key and symmetry from the parent's images are
        // those `key` works out for the child itself.
        let mut rng = crate::rng::Rng::new(2111);
        for (rows, cols) in [(3, 3), (4, 4), (4, 5), (5, 5), (2, 3)] {
            let board = Dots::new(rows, cols).unwrap();
            for (symmetry, border_edges) in [(true, true), (true, false), (false, true)] {
                let rules = Rules {
                    symmetry,
                    border_edges,
                    ..Rules::ALL
                };
                let mut geo = Geometry::new(board, rules);
                for round in 0..200 {
                    let (root, position) = rooted_position(&mut geo, &mut rng, round);
                    let images = geo.images(position);
                    let mut undrawn = geo.full & !position;
                    while undrawn != 0 {
                        let e = undrawn.trailing_zeros();
                        undrawn &= undrawn - 1;
                        assert_eq!(
                            geo.descendant_key(&images, 1 << e),
                            geo.key(position | 1 << e),
                            "{rows}x{cols} {rules:?} root {root:b} position {position:b} edge {e}"
                        );
                    }
                    // Several edges at once, as a sacrifice and the
                    // captures after it draw.
                    for _ in 0..8 {
                        let added = rng.next_u64() & rng.next_u64() & geo.full & !position;
                        assert_eq!(
                            geo.descendant_key(&images, added),
                            geo.key(position | added),
                            "{rows}x{cols} {rules:?} root {root:b} position {position:b} added {added:b}"
                        );
                    }
                }
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

    #[test]
    fn a_table_beyond_memory_leaves_the_answer_unknown_with_why() {
        let board = Dots::new(2, 2).unwrap();
        let mut solver = EndgameSolver::new(board, SearchLimits::default());
        // 2^63 entries, more than an allocation can ask for (limits size a
        // table at 2^40 entries at most, which a system may still refuse).
        solver.table = TranspositionTable::new(63, board.edges());
        assert!(matches!(
            solver.solve(board.start()),
            Err(Error::TableMemory { .. })
        ));
        let analysis = solver.analyse(board.start());
        assert!(matches!(analysis.unknown, Some(Error::TableMemory { .. })));
        let open = (-4, 4);
        assert_eq!((analysis.lower, analysis.upper), open);
        assert_eq!(analysis.moves.len(), board.edges() as usize);
        assert!(analysis.moves.iter().all(|m| (m.lower, m.upper) == open));
    }

    /// A budget sizes the table: room for an entry per position it allows,
    /// never more than the board's own size, and never so little that a
    /// 5x5 table's entries take two words (which threads cannot share).
    #[test]
    fn a_node_budget_sizes_the_table() {
        let solver = |rows, cols, nodes| {
            let limits = SearchLimits {
                nodes,
                ..SearchLimits::default()
            };
            EndgameSolver::new(Dots::new(rows, cols).unwrap(), limits)
        };
        for (rows, cols) in [(4, 4), (4, 5), (5, 5)] {
            let unlimited = solver(rows, cols, None);
            assert_eq!(unlimited.table_bits(), 25, "{rows}x{cols}");
            let server = solver(rows, cols, Some(10_000_000));
            assert!(1 << server.table_bits() >= 10_000_000, "{rows}x{cols}");
            assert!(
                server.table_bits() < unlimited.table_bits(),
                "{rows}x{cols}"
            );
            for nodes in [1, 3_000, 10_000_000, u64::MAX] {
                let s = solver(rows, cols, Some(nodes));
                assert!(s.table.shareable(), "{rows}x{cols} {nodes}");
                assert!(
                    s.table_bits() <= unlimited.table_bits(),
                    "{rows}x{cols} {nodes}"
                );
            }
        }
        // Small boards keep their own, smaller size.
        let small = solver(3, 3, Some(10_000_000));
        assert_eq!(small.table_bits(), solver(3, 3, None).table_bits());
    }
}
