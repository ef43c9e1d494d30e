//! Threat sequences ([`ThreatSearch`]): Qubic's wins by threats alone, the
//! threat-space search that settles the strategy's positions at probe time
//! and runs at the nodes of the generator's prover.

use super::lines::{LINE_DEGREE, LINES, LINES_THROUGH, line_cells};

/// The node budget of every threat search whose result a table relies on:
/// the probe of a strategy resolves the positions the table leaves out with
/// exactly this search, so it is part of the table format (see
/// [`strategy`](super::strategy)). The generator's prover searches with it
/// unless told otherwise.
pub const THREAT_BUDGET: u64 = 20_000;

/// The most attacker moves a threat line holds: a line adds an attacker
/// stone and a defender stone per step, so 64 cells allow 32.
pub const MAX_LINE: usize = 32;

/// A forced win by threats: the attacker's moves from the position, each
/// but the last threatening to complete a line, so that the defender's
/// reply to each is forced (block or lose at once); the last completes a
/// line. The defender's replies follow from the moves and are not kept.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ThreatLine {
    moves: [u8; MAX_LINE],
    len: u8,
}

impl ThreatLine {
    /// The attacker's moves, the completing one last.
    pub fn moves(&self) -> &[u8] {
        &self.moves[..usize::from(self.len)]
    }

    /// The first move, the one to play now.
    pub fn first(&self) -> u8 {
        self.moves[0]
    }

    /// The *zone* of the line in the position it was found in
    /// (`attacker` to move against `defender`): the empty cells where a
    /// defender stone, placed before the line is played, could change it.
    /// A defender stone anywhere else leaves the line winning as it is, so
    /// a defender move outside the zone is answered by the line without a
    /// search (the relevance zone of threat-space search).
    ///
    /// The zone holds the cells the line plays (the attacker's moves, the
    /// defender's forced replies, both threats of the final fork), which
    /// are all the cells of every line that makes a threat in it; and every
    /// cell of each line without a stone of the attacker before the line
    /// that holds two or more defender stones by its end: only there can
    /// an extra defender stone make three, a threat the attacker would have
    /// to answer, or a line of four. A stone elsewhere makes no defender
    /// threat at any step (a line through it has at most one other defender
    /// stone, or an attacker stone from the start), takes no cell the line
    /// uses, and leaves every threat of the attacker's moves as it was, so
    /// every reply is forced as before.
    pub fn zone(&self, attacker: u64, defender: u64) -> u64 {
        let empty = !(attacker | defender);
        let (mut a, mut d) = (attacker, defender);
        let mut used = 0u64;
        for &cell in self.moves() {
            used |= 1 << cell;
            a |= 1 << cell;
            let threats = line_cells(a, d).threats;
            used |= threats;
            if threats.count_ones() != 1 {
                // The completion (no threats left) or the fork.
                break;
            }
            d |= threats;
        }
        let mut zone = used;
        for &line in &LINES {
            if line & attacker == 0 && (line & d).count_ones() >= 2 {
                zone |= line;
            }
        }
        zone & empty
    }

    /// Plies from the position to the completed line against the longest
    /// defence: the defender's forced reply after every move but the last
    /// (every other reply loses one ply sooner).
    pub fn plies(&self) -> u8 {
        2 * self.len - 1
    }
}

/// The search for a [`ThreatLine`] of the side to move, the *attacker*:
/// Allis's threat-space search (Allis, *Searching for Solutions in Games
/// and Artificial Intelligence*, 1994, ch. 3–4; Allis and Schoo, "Qubic
/// solved again", 1992) where a threat is what it is in Qubic, three stones
/// of a line whose fourth cell is empty. The defender has one reply to a
/// threat that does not lose at once, the block, so the only choices are the
/// attacker's and a line is a proof that the attacker wins:
///
/// - the attacker completes a line if it can (a win in 1);
/// - else, if the defender threatens two cells, there is no line; if it
///   threatens one, the attacker must take that cell, and the line goes on
///   only if that block threatens;
/// - else the attacker plays a cell that makes a threat: one that makes two
///   at once (a *fork*: two lines with two attacker stones and two empty
///   cells meeting there) wins in 3, one that makes one forces the block,
///   and the search goes on from there.
///
/// Depth first, with the positions that have no line remembered for the
/// rest of the call (their subtrees were searched through, so the failure is
/// exact, whatever order reached them). A call is a pure function of the
/// position and the budget: nothing carries over from one call to the next
/// but allocated memory, so the prover and a probe of its strategy find the
/// same line. A call that exceeds its budget finds nothing.
#[derive(Debug)]
pub struct ThreatSearch {
    budget: u64,
    nodes: u64,
    /// Nodes over every call, for measuring.
    total: u64,
    /// Nodes of the calls that found nothing, and calls that ran out.
    pub failed_nodes: u64,
    /// Calls that ran out of budget.
    pub exhausted: u64,
    failed: Vec<Failed>,
    generation: u32,
    line: [u8; MAX_LINE],
    hint: [u8; MAX_LINE],
    hint_len: usize,
    /// The most attacker moves a line may have in this pass.
    limit: usize,
    /// Whether the limit cut a line short in this pass.
    cut: bool,
}

/// A remembered failure: the position and the call it belongs to.
#[derive(Copy, Clone, Debug, Default)]
struct Failed {
    attacker: u64,
    defender: u64,
    generation: u32,
    /// The attacker moves the line could still have had (at most 255).
    room: u8,
}

/// The room of a search without a length limit.
const UNLIMITED: usize = usize::MAX / 2;

/// Remembered failures per call (a power of two; later ones overwrite).
const FAILED_SLOTS: usize = 1 << 12;

/// Why a search stopped without a line: the budget ran out.
struct Exhausted;

impl ThreatSearch {
    /// A search that gives up a call after `budget` nodes.
    pub fn new(budget: u64) -> ThreatSearch {
        ThreatSearch {
            budget,
            nodes: 0,
            total: 0,
            failed_nodes: 0,
            exhausted: 0,
            failed: vec![Failed::default(); FAILED_SLOTS],
            generation: 0,
            line: [0; MAX_LINE],
            hint: [0; MAX_LINE],
            hint_len: 0,
            limit: UNLIMITED,
            cut: false,
        }
    }

    /// Nodes searched over every call.
    pub fn total_nodes(&self) -> u64 {
        self.total
    }

    /// Sets the count of nodes over every call (a prover's saved state
    /// carries it over).
    pub(crate) fn set_total_nodes(&mut self, total: u64) {
        self.total = total;
    }

    /// A threat line of `attacker` (to move) against `defender`, if one
    /// exists within the budget.
    pub fn find(&mut self, attacker: u64, defender: u64) -> Option<ThreatLine> {
        self.find_with_hint(attacker, defender, &[])
    }

    /// As [`find`](ThreatSearch::find), trying the moves of `hint` first (a
    /// line found in a similar position): where it still works, it is found
    /// at once. A hint changes which line is found and how fast, so only the
    /// prover uses one; probes call [`find`](ThreatSearch::find).
    pub fn find_with_hint(
        &mut self,
        attacker: u64,
        defender: u64,
        hint: &[u8],
    ) -> Option<ThreatLine> {
        self.start_call(hint);
        self.limit = UNLIMITED;
        let found = self.attack_root(attacker, defender);
        self.finish_call(found)
    }

    /// A shortest threat line of `attacker` (to move) against `defender`:
    /// the fewest attacker moves, found by iterative deepening on their
    /// number, within the budget over all passes. From the position after
    /// its first move and the block, a shortest line is one move shorter,
    /// so the plies it promises never grow along it: a probe's bounds stay
    /// consistent as the strategy plays them.
    pub fn find_shortest(&mut self, attacker: u64, defender: u64) -> Option<ThreatLine> {
        self.start_call(&[]);
        let mut found = Ok(None);
        for limit in 1..MAX_LINE {
            self.limit = limit;
            self.cut = false;
            found = self.attack_root(attacker, defender);
            if !matches!(found, Ok(None)) || !self.cut {
                break;
            }
        }
        self.limit = UNLIMITED;
        self.finish_call(found)
    }

    fn start_call(&mut self, hint: &[u8]) {
        self.nodes = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Every slot's generation is stale again after a wrap.
            self.failed.fill(Failed::default());
            self.generation = 1;
        }
        self.hint_len = hint.len().min(MAX_LINE);
        self.hint[..self.hint_len].copy_from_slice(&hint[..self.hint_len]);
    }

    fn finish_call(&mut self, found: Result<Option<usize>, Exhausted>) -> Option<ThreatLine> {
        self.total += self.nodes;
        match found {
            Ok(Some(len)) => {
                let mut moves = [0; MAX_LINE];
                moves[..len].copy_from_slice(&self.line[..len]);
                Some(ThreatLine {
                    moves,
                    len: len as u8,
                })
            }
            Ok(None) => {
                self.failed_nodes += self.nodes;
                None
            }
            Err(Exhausted) => {
                self.failed_nodes += self.nodes;
                self.exhausted += 1;
                None
            }
        }
    }

    fn slot(attacker: u64, defender: u64) -> usize {
        let h = attacker.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ defender.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h >> (64 - FAILED_SLOTS.trailing_zeros())) as usize
    }

    /// The length of a line from the position (its moves in `line[0..]`),
    /// or `None`.
    fn attack_root(&mut self, attacker: u64, defender: u64) -> Result<Option<usize>, Exhausted> {
        let threats = line_cells(attacker, defender).threats;
        if threats != 0 {
            self.nodes += 1;
            self.line[0] = threats.trailing_zeros() as u8;
            return Ok(Some(1));
        }
        let theirs = line_cells(defender, attacker).threats;
        self.attack(attacker, defender, theirs, 0)
    }

    /// The length of a line from a position where the attacker, to move,
    /// threatens nothing and the defender threatens `theirs` (its moves in
    /// `line[depth..]`), or `None`.
    fn attack(
        &mut self,
        attacker: u64,
        defender: u64,
        theirs: u64,
        depth: usize,
    ) -> Result<Option<usize>, Exhausted> {
        if self.nodes >= self.budget {
            return Err(Exhausted);
        }
        self.nodes += 1;
        if theirs.count_ones() >= 2 || depth + 2 >= MAX_LINE {
            return Ok(None);
        }
        let mine = line_cells(attacker, defender);
        let candidates = if theirs != 0 {
            theirs & mine.pairs
        } else {
            mine.pairs
        };
        if candidates == 0 {
            return Ok(None);
        }
        // A fork needs two more moves (it and the completion), a single
        // threat at least three (it, then a fork and its completion).
        let room = self.limit.saturating_sub(depth);
        if room < 2 {
            self.cut = true;
            return Ok(None);
        }
        let forks = candidates & mine.forks;
        if forks != 0 {
            // Two threats at once: the defender blocks one (it has no
            // threat to win with first), the other completes.
            let fork = forks.trailing_zeros() as u8;
            self.line[depth] = fork;
            let after = line_cells(attacker | 1 << fork, defender).threats;
            self.line[depth + 1] = (after & !(1 << after.trailing_zeros())).trailing_zeros() as u8;
            return Ok(Some(depth + 2));
        }
        if room < 3 {
            self.cut = true;
            return Ok(None);
        }
        let room = room.min(255) as u8;
        let slot = Self::slot(attacker, defender);
        let seen = self.failed[slot];
        if seen.generation == self.generation
            && seen.attacker == attacker
            && seen.defender == defender
            && seen.room >= room
        {
            return Ok(None);
        }
        // The candidates in order: the hint's move for this depth first,
        // where it is one; then those whose block makes no threat of the
        // defender (the attacker keeps the initiative), then those that
        // turn more of the attacker's open lines with one stone into
        // pairs (more threats later). A block that makes two threats of the
        // defender ends the line: such moves are left out.
        let hinted = (depth < self.hint_len)
            .then(|| self.hint[depth])
            .filter(|&c| c < 64 && candidates >> c & 1 != 0);
        let mut moves = [(0u32, 0u8, 0u64, 0u64); 64];
        let mut count = 0;
        let mut rest = candidates;
        while rest != 0 {
            let cell = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let played = attacker | 1 << cell;
            // One threat (no fork here), on the one line through the cell
            // with two attacker stones and no defender's: the block is
            // forced.
            let block = threat_made(played, defender, cell);
            let blocked = defender | block;
            let after = (theirs & !(1 << cell)) | threats_through(blocked, played, block);
            if after.count_ones() >= 2 {
                continue;
            }
            let key = if Some(cell) == hinted {
                u32::MAX
            } else {
                let quiet = u32::from(after == 0);
                quiet << 8 | open_ones(attacker, blocked, cell)
            };
            moves[count] = (key, cell, blocked, after);
            count += 1;
        }
        let moves = &mut moves[..count];
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, cell, blocked, after) in moves.iter() {
            self.line[depth] = cell;
            if let Some(len) = self.attack(attacker | 1 << cell, blocked, after, depth + 1)? {
                return Ok(Some(len));
            }
        }
        self.failed[slot] = Failed {
            attacker,
            defender,
            generation: self.generation,
            room,
        };
        Ok(None)
    }
}

/// How many lines through `cell` hold exactly one of `stones` and none of
/// `blockers`: lines a stone on `cell` turns into pairs.
#[inline]
fn open_ones(stones: u64, blockers: u64, cell: u8) -> u32 {
    let cell = usize::from(cell);
    let mut count = 0;
    for &line in &LINES_THROUGH[cell][..usize::from(LINE_DEGREE[cell])] {
        let line = LINES[usize::from(line)];
        count += u32::from(line & blockers == 0 && (line & stones).count_ones() == 1);
    }
    count
}

/// The cells where `stones` (just played on `cell`) threaten to complete a
/// line through `cell` against `blockers`: the empty cell of each line
/// through it with three of `stones` and none of `blockers`.
#[inline]
fn threat_made(stones: u64, blockers: u64, cell: u8) -> u64 {
    threats_through(stones, blockers, 1 << cell)
}

/// The threats of `stones` on the lines through the one cell of `at`.
#[inline]
fn threats_through(stones: u64, blockers: u64, at: u64) -> u64 {
    let cell = at.trailing_zeros() as usize;
    let mut threats = 0;
    for &line in &LINES_THROUGH[cell][..usize::from(LINE_DEGREE[cell])] {
        let line = LINES[usize::from(line)];
        if line & blockers == 0 && (line & stones).count_ones() == 3 {
            threats |= line & !stones;
        }
    }
    threats
}
