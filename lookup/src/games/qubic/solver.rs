//! [`QubicSolver`], Qubic's exact live search: forced play, then
//! alpha-beta over what remains.

use std::fmt;
use std::time::Instant;

use crate::error::Error;
use crate::game::{ExactSolver, Game, SearchLimits};
use crate::games::qubic::{
    CELLS, LINE_DEGREE, LINES, LINES_THROUGH, LineCells, Qubic, QubicBoard, line_cells,
};
use crate::value::{Score, WIN_SCORE};

/// Beyond every score: a win scores at most `WIN_SCORE - 7`.
const INFINITY: Score = WIN_SCORE;

/// The exact value of a win for the side to move that ends the game with
/// `stones` stones on the board (scores count from the start, see
/// [`Score`]); its negation is the matching loss.
#[inline]
fn win_at(stones: Score) -> Score {
    WIN_SCORE - stones
}

/// Qubic's exact live solver.
///
/// # Forced play
///
/// Every position is first taken through forced play, with the rules of
/// the cube's [`resolve`](crate::Cube::resolve) for lines of four. A player
/// *threatens* a cell when the other three cells of a line through it are
/// theirs. Then, exactly:
///
/// - the side to move threatens a cell: it wins in 1, the fastest any win
///   can be;
/// - otherwise, the opponent threatens two or more cells: whatever the side
///   to move plays (it cannot complete a line), one threat stays open and
///   the opponent completes it, a loss in 2, and no move loses more slowly
///   (the opponent wins on its next move anyway);
/// - otherwise, the opponent threatens exactly one cell: every other move
///   loses in 2, while the block cannot lose in 2 (it takes the only
///   threatened cell and gives the opponent no stone), so the block is the
///   best move and the value is the block's.
///
/// A block fills a cell, so forced play ends after at most 64 steps.
///
/// # Quiet positions
///
/// What forced play leaves is *quiet*: nobody threatens a cell. There the
/// side to move wins in 3 exactly if it has a *fork* cell, one that lies on
/// two lines each holding two of its stones and two empty cells: the move
/// makes two threats at two cells (two lines share at most one cell), the
/// opponent has no threat to answer with and can block one, and nothing
/// faster exists (a player wins only on its own moves, and not in 1 here).
/// Without a fork a win takes at least 5 plies; and the opponent cannot win
/// in 2 (it has no threat, and the mover's stone makes none), in 4 only if
/// it has a fork cell now (the mover's move takes cells, it never adds to
/// the opponent's lines), in 6 at the earliest otherwise. These bounds (and
/// the empty cells left: no win at ply `k` with fewer than `k` empty cells)
/// narrow the window before any move is searched, which is mate-distance
/// pruning made sharper by the rules. A player without a line free of the
/// opponent's stones cannot win at all; where neither has one, the game is
/// a draw.
///
/// Where the window asks whether a side wins, the solver looks for a
/// *pairing strategy* of the other side (`has_pairing`): two empty cells
/// on each line the first side can still complete, all the pairs disjoint,
/// so that answering one cell of a pair with the other blocks every such
/// line. It proves that side cannot win, which settles most draws without
/// a search.
///
/// A *dead* cell, on no line that either player can still complete, is
/// never searched while a live cell is empty: a stone there changes no
/// line, so it is a pass, and a pass is never better than a stone on a
/// live cell `c`. (Strategy stealing: play the pass position's best
/// strategy with the stone on `c` in hand, answering its wish to play `c`
/// by playing the dead cell, and taking an opponent's stone on the dead
/// cell for one on `c`; move by move the mover's lines hold at least the
/// stones, and the opponent's at most the stones, that they hold in the
/// game being copied, so every win comes no later and every loss no
/// sooner.) The values of the moves themselves are asked of the solver one
/// by one, so a dead move still gets its exact value when it is asked for.
///
/// # Search
///
/// A position's value is found by iterative deepening on the length of
/// the game, null-window tests of "does it end within `d` plies?"
/// (`deepening`), so that a short win costs a short search. Quiet positions
/// are searched by negamax with alpha-beta over exact scores, with a
/// transposition table of lower and upper bounds keyed by the whole board
/// (`Transpositions`: exact keys, so an entry is never another
/// position's). Moves are tried in an order that finds the best soonest:
/// the table's best move, then moves that make a threat (they force the
/// reply, so they are cheap to search and win or hold most often), moves on
/// the opponent's fork cells, and the rest by how many open lines they lie
/// on, weighted by the stones already in them.
///
/// The node budget and the time are checked as the search goes; when either
/// runs out the answer is an error, never a guess. The table is kept
/// between calls, so the moves of a position cost little after it.
///
/// # Measured
///
/// With `qubic_search` (release build, a shared 2-core machine: times are
/// rough) on two sets: *late*, 120 calm positions with 32, 36 and 40 stones
/// and every move of each (`40 --calm --moves --stones=32,36,40`), and
/// *early*, 48 calm positions with 8, 12, 16 and 20 stones, values only,
/// 10,000,000 nodes each (`12 --calm --stones=8,12,16,20`). Each rule
/// switched off ([`Rules`]):
///
/// | | late: nodes | time | early: answered | nodes | time |
/// |---|---|---|---|---|---|
/// | every rule | 1.59M | 0.34 s | 42 | 68.9M | 18.3 s |
/// | no deepening | 1.45M | 0.37 s | 36 | 125.7M | 41.4 s |
/// | no sign tests | 1.93M | 0.39 s | 42 | 68.9M | 18.2 s |
/// | no pairings | 19.4M | 5.35 s | 42 | 68.9M | 18.3 s |
/// | no dead cells | 1.72M | 0.37 s | 42 | 68.9M | 19.0 s |
///
/// Deepening pays for long wins, pairings for draws. Trying threats before
/// fork blocks took 42% fewer nodes than the other way round (late set,
/// before pairings); the weights of the lines matter a few per cent.
/// Canonical keys (the least of the 192 images) would save almost nothing:
/// two lines of play from a position with a few stones almost never reach
/// symmetric images of each other. They saved 0.15% of the nodes on the
/// late set and 0.002% on the early one, at 2.7 and 2.2 times the time.
#[derive(Debug)]
pub struct QubicSolver {
    limits: SearchLimits,
    /// `limits.nodes`, or no limit.
    budget: u64,
    nodes: u64,
    deadline: Option<Instant>,
    table: Transpositions,
    rules: Rules,
}

/// Which of [`QubicSolver`]'s rules are on: every one is exact, so
/// switching one off changes only the work, which is what it is for
/// (`qubic_search -RULE` measures them). [`Rules::ALL`] is the solver's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Iterative deepening on the length of the game; without it, one
    /// search over the full window.
    pub deepening: bool,
    /// With deepening, the sign settled by two tests past 5/8 of the empty
    /// cells; without it, tests of every depth.
    pub sign_tests: bool,
    /// Pairing strategies prove that a side cannot win.
    pub pairings: bool,
    /// Dead cells are not searched.
    pub dead_cells: bool,
}

impl Rules {
    /// Every rule on.
    pub const ALL: Rules = Rules {
        deepening: true,
        sign_tests: true,
        pairings: true,
        dead_cells: true,
    };
}

/// The transposition table's memory where [`SearchLimits::table_bytes`] does not
/// say: 64 MiB, the table grows to it from a few KiB as the search needs,
/// so a late position costs a small table.
const DEFAULT_TABLE_BYTES: u64 = 64 << 20;

impl QubicSolver {
    /// A solver within `limits`: nodes are the positions visited, forced
    /// ones included; the transposition table grows up to
    /// `limits.table_bytes` (by default 64 MiB).
    pub fn new(limits: SearchLimits) -> QubicSolver {
        QubicSolver::with_rules(limits, Rules::ALL)
    }

    /// A solver with only some of its rules, for measuring them.
    pub fn with_rules(limits: SearchLimits, rules: Rules) -> QubicSolver {
        QubicSolver {
            limits: limits.clone(),
            budget: limits.nodes.unwrap_or(u64::MAX),
            nodes: 0,
            deadline: None,
            table: Transpositions::new(limits.table_bytes.unwrap_or(DEFAULT_TABLE_BYTES)),
            rules,
        }
    }

    /// Counts a position visited, and stops the search when the budget or
    /// the time has run out. The budget is checked before a position
    /// counts, so a search that stops reports exactly the budget it had;
    /// the clock is read every 1024 positions.
    #[inline]
    fn visit(&mut self) -> Result<(), Error> {
        if self.nodes >= self.budget {
            return Err(Error::BudgetExhausted {
                budget: self.budget,
            });
        }
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 {
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

    /// The exact score of the position where `me` is to move against
    /// `you`, within the window `(alpha, beta)`: the score itself if it lies
    /// inside, else a bound on the side of the window it lies on (fail-soft).
    fn search(&mut self, me: u64, you: u64, alpha: Score, beta: Score) -> Result<Score, Error> {
        self.visit()?;
        let empty = !(me | you);
        if empty == 0 {
            // Full, and the last move made no line (moves that do are
            // never played: a threat wins at once, below).
            return Ok(0);
        }
        let stones = (me | you).count_ones() as Score;
        let empties = CELLS as Score - stones;
        let mine = line_cells(me, you);
        if mine.threats != 0 {
            return Ok(win_at(stones + 1));
        }
        let theirs = line_cells(you, me);
        match theirs.threats.count_ones() {
            0 => {}
            1 => {
                let block = theirs.threats;
                return Ok(-self.search(you, me | block, -beta, -alpha)?);
            }
            _ => return Ok(-win_at(stones + 2)),
        }
        if mine.forks != 0 {
            return Ok(win_at(stones + 3));
        }
        if mine.live | theirs.live == 0 {
            // No line can be completed any more: a draw.
            return Ok(0);
        }
        // The bounds of a quiet position without a fork (see the type's
        // documentation).
        let high = match (mine.live != 0, empties) {
            (true, 5..) => win_at(stones + 5),
            _ => 0,
        };
        let low = match (theirs.live != 0, theirs.forks != 0, empties) {
            (true, true, 4..) => -win_at(stones + 4),
            (true, false, 6..) => -win_at(stones + 6),
            _ => 0,
        };
        self.quiet(
            me,
            you,
            alpha,
            beta,
            Quiet {
                empties: empties as u8,
                low,
                high,
                mine,
                theirs,
            },
        )
    }

    /// [`search`](QubicSolver::search) of a quiet position, whose value
    /// lies in `known.low ..= known.high`.
    fn quiet(
        &mut self,
        me: u64,
        you: u64,
        alpha: Score,
        beta: Score,
        known: Quiet,
    ) -> Result<Score, Error> {
        let (mut low, mut high) = (known.low, known.high);
        // The rules' bounds first: where they settle the search, the table
        // (a cache miss, most of the time) is not read.
        if low >= beta || low == high {
            return Ok(low);
        }
        if high <= alpha {
            return Ok(high);
        }
        let mut table_move = None;
        if let Some(entry) = self.table.get(me, you) {
            low = low.max(Score::from(entry.lower));
            high = high.min(Score::from(entry.upper));
            table_move = (entry.mv != NO_MOVE).then_some(entry.mv);
        }
        // Pairing strategies, where the window asks whether a side wins:
        // a defender's pairing proves that side cannot.
        if self.rules.pairings && known.empties >= PAIRING_FROM {
            if high > 0 && beta > 0 && has_pairing(me, you) {
                high = 0;
            }
            if low < 0 && alpha < 0 && has_pairing(you, me) {
                low = 0;
            }
        }
        // Narrowing the window to what is known is exact: a search that
        // fails low on `max(alpha, low)` proves the value is `low`.
        if low >= beta || low == high {
            return Ok(low);
        }
        if high <= alpha {
            return Ok(high);
        }
        let alpha = alpha.max(low);
        let beta = beta.min(high);

        let mut best = Best {
            score: -INFINITY,
            cell: 0,
            floor: alpha,
            beta,
        };
        // The table's move first, before the others are ordered: where it
        // cuts off (most null-window searches that revisit a position), the
        // ordering is never needed.
        let mut cut = false;
        if let Some(cell) = table_move {
            let score = -self.search(you, me | 1 << cell, -beta, -best.floor)?;
            cut = best.offer(score, cell);
        }
        if !cut {
            let mut moves = ordered_moves(me, you, &known, table_move, self.rules.dead_cells);
            while let Some(cell) = moves.pop_best() {
                let score = -self.search(you, me | 1 << cell, -beta, -best.floor)?;
                if best.offer(score, cell) {
                    break;
                }
            }
        }
        let (best, mut best_move) = (best.score, best.cell);
        // What the search proved, with what was known.
        if best <= alpha {
            high = high.min(best);
            // Every move failed low: which scored "best" says nothing.
            best_move = table_move.unwrap_or(NO_MOVE);
        } else if best >= beta {
            low = low.max(best);
        } else {
            (low, high) = (best, best);
        }
        self.table.put(Entry {
            me,
            you,
            lower: low as i16,
            upper: high as i16,
            mv: best_move,
            empties: known.empties,
        });
        Ok(best)
    }

    /// The exact score of a position that is not over, by tests of "does
    /// the game end within `d` plies?" for `d = 1, 2, 3, …`: for odd `d`
    /// whether the side to move wins by then, for even `d` whether it loses
    /// by then. The first test that succeeds gives the exact value (the
    /// tests before it ruled out every faster end, and a player wins only on
    /// its own moves), and if none does the game is a draw. Each test is a
    /// null-window search, and the bounds of the quiet positions cut it off
    /// at depth `d`: a short win is found without proving the value of
    /// every longer line first, which a search over the full window would
    /// do for each move it tries before the best. The tests share the
    /// transposition table (its bounds hold for any window).
    ///
    /// Once `d` passes 5/8 of the empty cells, two tests without a depth,
    /// "does the side to move win?" and "does it lose?", settle the sign
    /// first: a draw is then proved by them alone, and a win (loss) needs
    /// only the tests of the remaining odd (even) depths. Deep tests of
    /// both kinds cost about what these two cost, and a draw needs all of
    /// them. (Measured on the late set of [`QubicSolver`] before pairing
    /// strategies, when draws were dear: 33.6M nodes with depth tests only,
    /// 19.4M with the sign settled at 5/8 of the empty cells; 26.5M at 3/8,
    /// 24.9M at 6/8, 24.2M to 25.1M at a fixed 15 to 19 plies.)
    fn deepening(&mut self, me: u64, you: u64) -> Result<Score, Error> {
        let stones = (me | you).count_ones() as Score;
        let empties = CELLS as Score - stones;
        let mut winning = None;
        for plies in 1..=empties {
            if winning.is_none() && self.rules.sign_tests && plies > empties * 5 / 8 {
                if self.search(me, you, 0, 1)? >= 1 {
                    winning = Some(true);
                } else if self.search(me, you, -1, 0)? < 0 {
                    winning = Some(false);
                } else {
                    return Ok(0);
                }
            }
            let mover_wins = plies % 2 == 1;
            if winning.is_some_and(|w| w != mover_wins) {
                continue;
            }
            if mover_wins {
                let win = win_at(stones + plies);
                if self.search(me, you, win - 1, win)? >= win {
                    return Ok(win);
                }
            } else {
                let loss = -win_at(stones + plies);
                if self.search(me, you, loss, loss + 1)? <= loss {
                    return Ok(loss);
                }
            }
        }
        // No test succeeded: a draw. (With the sign tests a draw returns
        // above.)
        Ok(0)
    }
}

/// What [`QubicSolver::search`] knows of a quiet position before its moves
/// are searched.
#[derive(Copy, Clone, Debug)]
struct Quiet {
    empties: u8,
    /// A lower bound on the score.
    low: Score,
    /// An upper bound on the score.
    high: Score,
    /// The lines of the side to move and of the opponent.
    mine: LineCells,
    theirs: LineCells,
}

/// The best move of a position so far, and the window its remaining moves
/// are searched in.
struct Best {
    score: Score,
    cell: u8,
    /// The window's lower end: `alpha`, or the best score once above it.
    floor: Score,
    beta: Score,
}

impl Best {
    /// Takes a move's score; whether it cuts the search off.
    #[inline]
    fn offer(&mut self, score: Score, cell: u8) -> bool {
        if score > self.score {
            self.score = score;
            self.cell = cell;
            self.floor = self.floor.max(score);
        }
        self.floor >= self.beta
    }
}

/// The moves of a position, each with its key: the rule-of-thumb score,
/// shifted up, and `63 - cell` below it, so that keys are distinct and ties
/// go to the lower cell. The best is picked when it is wanted: a search
/// that cuts off after a move or two never orders the rest.
struct Moves {
    keys: [u32; CELLS],
    len: usize,
}

impl Moves {
    /// The best move left, taken out.
    #[inline]
    fn pop_best(&mut self) -> Option<u8> {
        let keys = &mut self.keys[..self.len];
        let (at, &key) = keys.iter().enumerate().max_by_key(|&(_, &k)| k)?;
        keys[at] = keys[keys.len() - 1];
        self.len -= 1;
        Some(63 - (key & 63) as u8)
    }
}

/// Weights of a cell's lines for move ordering, by the stones on the line:
/// `OWN[k]` for a line with `k` of the mover's stones and none of the
/// opponent's, `OPPONENT[k]` for one with `k` of the opponent's and none of
/// the mover's (occupying it takes the line from them). Lines held by both
/// count nothing.
const OWN: [u32; 4] = [1, 4, 16, 0];
const OPPONENT: [u32; 4] = [1, 5, 25, 0];

/// `LINE_WEIGHTS[own][other]`: the weight of a line with `own` of the
/// mover's stones and `other` of the opponent's, from `OWN` and `OPPONENT`.
const LINE_WEIGHTS: [[u32; 5]; 5] = {
    let mut table = [[0u32; 5]; 5];
    let mut k = 0;
    while k < 4 {
        table[k][0] += OWN[k];
        table[0][k] += OPPONENT[k];
        k += 1;
    }
    table
};

/// The moves of a quiet position, best first by the rules of thumb in
/// [`QubicSolver`]'s documentation.
fn ordered_moves(
    me: u64,
    you: u64,
    known: &Quiet,
    table_move: Option<u8>,
    skip_dead: bool,
) -> Moves {
    let mut keys = [0u32; CELLS];
    let mut len = 0;
    // Dead cells, on no line that either player can still complete, are
    // left out: see `QubicSolver`.
    let mut rest = if skip_dead {
        known.mine.live | known.theirs.live
    } else {
        !(me | you)
    };
    // The table's move is searched already.
    if let Some(cell) = table_move {
        rest &= !(1 << cell);
    }
    // Each line's weight once, then each cell's sum over its lines.
    let mut weights = [0u32; LINES.len()];
    for (weight, &line) in weights.iter_mut().zip(&LINES) {
        let (own, other) = ((line & me).count_ones(), (line & you).count_ones());
        *weight = LINE_WEIGHTS[own as usize][other as usize];
    }
    while rest != 0 {
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let bit = 1u64 << cell;
        let mut key = 0;
        for &line in &LINES_THROUGH[cell][..usize::from(LINE_DEGREE[cell])] {
            key += weights[usize::from(line)];
        }
        if known.mine.pairs & bit != 0 {
            key += 1 << 12;
        }
        if known.theirs.forks & bit != 0 {
            key += 1 << 10;
        }
        keys[len] = key << 6 | (63 - cell as u32);
        len += 1;
    }
    Moves { keys, len }
}

impl ExactSolver<QubicBoard> for QubicSolver {
    fn score(&mut self, board: QubicBoard) -> Result<Score, Error> {
        self.deadline = self.limits.time.map(|t| Instant::now() + t);
        if let Some(score) = Qubic.terminal_score(board) {
            return Ok(score);
        }
        let (me, you) = board.mover_and_other();
        if self.rules.deepening {
            self.deepening(me, you)
        } else {
            self.search(me, you, -INFINITY, INFINITY)
        }
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// The move of an entry that has none.
const NO_MOVE: u8 = u8::MAX;

/// One transposition-table entry: a quiet position (the mover's stones and
/// the opponent's, the whole key), bounds on its score and the best move
/// found (the move that cut off or was best, [`NO_MOVE`] if every move
/// failed low). `empties == 0` marks an unused entry (a quiet position always has
/// an empty cell).
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    me: u64,
    you: u64,
    lower: i16,
    upper: i16,
    mv: u8,
    empties: u8,
}

/// The transposition table: buckets of two entries, the first kept for the
/// position with more empty cells (the larger subtree, dearer to search
/// again), the second for the latest. It starts small and doubles while it
/// is more than half full, up to its memory limit, then replaces.
struct Transpositions {
    entries: Vec<Entry>,
    bits: u32,
    max_bits: u32,
    used: usize,
}

/// Sizes only: the entries would be millions of lines.
impl fmt::Debug for Transpositions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transpositions")
            .field("entries", &self.entries.len())
            .field("used", &self.used)
            .field("max_entries", &(1u64 << self.max_bits))
            .finish()
    }
}

/// The table starts with `2^START_BITS` entries (96 KiB).
const START_BITS: u32 = 12;

impl Transpositions {
    fn new(max_bytes: u64) -> Transpositions {
        let max_entries = (max_bytes / size_of::<Entry>() as u64).max(2);
        let max_bits = (63 - max_entries.leading_zeros()).min(40);
        let bits = START_BITS.min(max_bits);
        Transpositions {
            entries: vec![Entry::default(); 1 << bits],
            bits,
            max_bits,
            used: 0,
        }
    }

    /// The first entry of the bucket of a position.
    #[inline]
    fn bucket(&self, me: u64, you: u64) -> usize {
        let mut h =
            me.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ you.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (h >> (64 - self.bits)) as usize & !1
    }

    #[inline]
    fn get(&self, me: u64, you: u64) -> Option<Entry> {
        let at = self.bucket(me, you);
        self.entries[at..at + 2]
            .iter()
            .find(|e| e.empties != 0 && e.me == me && e.you == you)
            .copied()
    }

    fn put(&mut self, entry: Entry) {
        let at = self.bucket(entry.me, entry.you);
        let bucket = &mut self.entries[at..at + 2];
        let fresh = if let Some(same) = bucket
            .iter_mut()
            .find(|e| e.empties != 0 && e.me == entry.me && e.you == entry.you)
        {
            *same = entry;
            false
        } else if bucket[0].empties == 0 {
            bucket[0] = entry;
            true
        } else if entry.empties >= bucket[0].empties {
            let fresh = bucket[1].empties == 0;
            bucket[1] = bucket[0];
            bucket[0] = entry;
            fresh
        } else {
            let fresh = bucket[1].empties == 0;
            bucket[1] = entry;
            fresh
        };
        if fresh {
            self.used += 1;
            if self.used > self.entries.len() / 2 && self.bits < self.max_bits {
                self.grow();
            }
        }
    }

    /// Twice the entries, every entry moved to its new bucket (in one of
    /// the new bucket's two places, as `put` would).
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.entries);
        self.bits += 1;
        self.entries = vec![Entry::default(); 1 << self.bits];
        self.used = 0;
        for entry in old.into_iter().filter(|e| e.empties != 0) {
            self.put(entry);
        }
    }
}

/// Pairing strategies are looked for in quiet positions with at least this
/// many empty cells (below it they are rare and the search is cheap).
const PAIRING_FROM: u8 = 4;

/// Whether the defender has a *pairing strategy* against every line the
/// attacker can still complete (every line without a stone of the
/// defender): two empty cells of each such line, the pairs all disjoint.
/// The defender then answers a stone on one cell of a pair with the other
/// (and plays anywhere when the attacker's stone is on no pair, or its
/// partner is already the defender's, or it is the defender's turn), so
/// every such line soon holds a stone of the defender and the attacker
/// completes none: the attacker cannot win, whoever is to move.
///
/// Two lines share at most one cell, so a pair lies on one line only, and
/// a pairing is a matching of two copies of each line to distinct empty
/// cells of the line: Kuhn's augmenting paths over cell masks.
pub(crate) fn has_pairing(attacker: u64, defender: u64) -> bool {
    let empty = !(attacker | defender);
    // The empty cells of each line copy.
    let mut need = [0u64; 2 * LINES.len()];
    let mut count = 0;
    let mut cover = 0;
    for &line in &LINES {
        if line & defender == 0 {
            let cells = line & empty;
            if cells.count_ones() < 2 {
                return false;
            }
            need[count] = cells;
            need[count + 1] = cells;
            count += 2;
            cover |= cells;
        }
    }
    if count as u32 > cover.count_ones() {
        return false;
    }
    // `owner[c]`: the line copy that holds cell `c`.
    let mut owner = [u8::MAX; CELLS];
    for u in 0..count {
        let mut seen = 0u64;
        if !augment(u, &need, &mut owner, &mut seen) {
            return false;
        }
    }
    true
}

/// Finds line copy `u` a cell: a free one, or one whose holder can move
/// to another cell (not yet `seen` on this path).
fn augment(u: usize, need: &[u64], owner: &mut [u8; CELLS], seen: &mut u64) -> bool {
    let mut cells = need[u] & !*seen;
    while cells != 0 {
        let c = cells.trailing_zeros() as usize;
        cells &= cells - 1;
        *seen |= 1 << c;
        if owner[c] == u8::MAX || augment(usize::from(owner[c]), need, owner, seen) {
            owner[c] = u as u8;
            return true;
        }
    }
    false
}
