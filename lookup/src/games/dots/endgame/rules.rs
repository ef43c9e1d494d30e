//! The pruning rules of the endgame search: which run, and why each is sound.

/// Which pruning rules the [`EndgameSolver`](super::EndgameSolver) uses, and what each
/// relies on. All are on by default.
///
/// Each rule can be switched off; the tests compare every rule,
/// alone and together, with the unpruned search and the retrograde tables on
/// every position of small boards, and with an independent dense retrograde
/// on random 4x5 and 5x5 positions (`tests/tests/dots_endgame.rs`).
///
/// - **Free captures** ([`Rules::free_captures`]): if an edge completes a box
///   and does not give a third side to any other box (the box across it has
///   at most one side drawn, or none exists, or it is completed too), taking
///   it is optimal, so it is played without branching. Taking such a box
///   changes nothing else on the board and keeps the move; Berlekamp, *The
///   Dots and Boxes Game* (2000), ch. 1-2, and Barker & Korf, "Solving
///   Dots-And-Boxes" (AAAI 2012), §"Capturing boxes".
/// - **Loony moves** ([`Rules::loony_moves`]): when a box can be captured,
///   only captures and double-dealing moves are searched: declining a
///   capturable box is only ever right as the last act of a turn that hands
///   over the last two boxes of a chain (or four of a loop) — Berlekamp ch. 2
///   ("all-but-two" / "all-but-four"), and Buzzard & Ciere, "Playing simple
///   loony dots and boxes endgames optimally" (Integers 14, 2014), §2: in a
///   loony position the only moves worth considering are taking everything or
///   taking all but two (four in a loop) and double-dealing. The
///   double-dealing move for a capturable box `A` whose capture edge leads
///   into a box `B` with two sides is `B`'s other free edge.
/// - **Chain captures** ([`Rules::chain_captures`]): a capturable box `A`
///   whose capture edge leads into a chain of two-sided boxes that ends on
///   the border or at a box with at most one side is taken as a whole turn
///   at once: either the whole chain (and the same player goes on), or all
///   but its last two boxes and the double-dealing move (and the turn
///   passes). Any other way of taking part of the chain and handing over the
///   rest leaves the board the same and gives the opponent at least as much
///   (stopping `j` boxes short of the last two gives the mover `2j - L - 1 -
///   v` at best against `L - 3 - v` for all-but-two, `v` the value of the
///   rest for its mover), and captures commute; so the search visits one
///   node per chain instead of two per box. Where a capturable box heads
///   anything else (a chain open at both ends, an opened loop), every
///   capture and double-deal is searched as before.
/// - **Chain bound** ([`Rules::chain_bound`]): where every capturable box
///   heads such a chain, the player to move gets at least the boxes of all
///   the chains less two (take every chain, the last but for the
///   double-deal: `L - 2 + |v + 2| >= L - 2` for one chain of `L`), so a
///   window whose top is at most that is cut before any child is searched.
///   Seen from the player who gave the boxes: a sacrifice of a chain of `L`
///   is worth at most `2 - L` to them.
/// - **Simple loony endgames** ([`Rules::component_values`]): a position in
///   which every unclaimed box has exactly two sides drawn is a union of
///   chains and loops; if every chain has at least three boxes and every
///   loop at least four, its value follows from the component recursion of
///   Berlekamp ch. 3 and Buzzard & Ciere §3 without search: the player to
///   move opens a component, and the opponent either takes it all and moves
///   next, or takes all but 2 (chain) / 4 (loop) and hands those over.
/// - **Short chains** ([`Rules::short_chains`]): the same recursion with
///   chains of one and two boxes, which the opponent can only take whole (a
///   two-chain opened in its middle, the hard-hearted handout, leaves two
///   free captures; opened at an end it gives the opponent the same choice
///   and a double-deal besides, so the middle is never worse for the opener;
///   Berlekamp ch. 2).
/// - **Isolated components** ([`Rules::isolated_components`]): a chain whose
///   boxes all have two sides and whose ends both lie on the border, or such
///   a loop, is opened at one edge only: a loop at any (its edges are
///   alike), a two-chain in its middle (above), a longer chain at an end (an
///   opening inside gives the opponent the same two choices and more), a
///   one-box chain at either border edge. Two such components of the same
///   kind and length are interchangeable (the strings-and-coins graph has an
///   automorphism swapping them, and the value of a position depends only
///   on that graph: Berlekamp ch. 1), so only one of them is opened.
/// - **Sacrifice caps** ([`Rules::sacrifice_caps`]): opening a chain of
///   `k >= 2` boxes at an end hands the opponent a capturable chain worth
///   at least `k - 2` to them (the chain bound), and opening a loop of `k`
///   one worth at least `k - 4` (take it all, `k + v`, or all but four and
///   hand those over, `k - 8 - v`, `v` the rest's value for the next to
///   move there). So such an opening is worth at most `2 - k` (`4 - k`)
///   to its mover, and where the window's bottom is already that high it
///   is not searched: the bound stands for its value in the fail-soft
///   result, as with the transposition skips below.
/// - **Margin parity** ([`Rules::margin_parity`]): the two players' boxes
///   add up to the unclaimed boxes, so every margin has their parity, and
///   every bound the search proves is rounded to it (the chain bound up, a
///   sacrifice's cap down, a fail-soft result away from its window, and so
///   the table's entries). In a null window one end has the margin's
///   parity; a bound one box short of it now meets it.
/// - **Symmetry** ([`Rules::symmetry`]): positions are stored under their
///   least image (4 or 8 symmetries) at every depth, among the images that
///   can be positions of the search (those that hold the root: from the
///   empty board every image, from a random position few until late).
/// - **Border edges** ([`Rules::border_edges`]): the border edges of one box
///   are interchangeable; only the first undrawn one is searched, and the
///   key counts them.
/// - **Transposition cutoffs** ([`Rules::transposition_cutoffs`]): before
///   searching the moves of a position with 12 or more undrawn edges, every
///   child is looked up in the table, and a stored bound that already
///   refutes the window ends the search (Plaat, Schaeffer, Pijls and de
///   Bruin 1994). A child is keyed from its parent's symmetric images,
///   the edges it adds (a sacrifice and the captures after it) mapped
///   into each, instead of anew.
/// - **Transposition skips** ([`Rules::transposition_skips`]): the same
///   lookups the other way: a move whose child's stored bound proves it at
///   most the best already found (the window's bottom) cannot raise it and
///   is not searched; its bound stands for its value in the fail-soft
///   result, which stays a bound (every move's value is at most its
///   bound). A stored bound is proved whichever search stored it, so the
///   skip is exact.
/// - **Two bounds** ([`Rules::two_bounds`]): a table entry keeps the lower
///   and the upper bound of every search of its position (Barker & Korf
///   2012), instead of the latest search's only.
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
    /// The bench's baseline: every rule but chain captures, the chain
    /// bound, short chains, isolated components, chain ends, sacrifice
    /// caps, margin parity, transposition skips, huge pages and prefetches.
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
