//! [`QubicSolver`], Qubic's exact live search: forced play, then
//! alpha-beta over what remains.

use std::time::Instant;

use super::Qubic;
use super::board::QubicBoard;
use super::lines::{CELLS, LineCells, line_cells};
use super::move_order::ordered_moves;
use super::pairing::has_pairing;
use super::transpositions::{Entry, NO_MOVE, Transpositions};
use crate::error::Error;
use crate::game::{ExactSolver, Game, SearchLimits};
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
/// # Why these rules
///
/// Each rule is exact and can be switched off ([`Rules`]), which changes
/// only the work. Deepening pays for long wins, pairing strategies for
/// draws, dead cells for late positions. Threats are tried before fork
/// blocks because a threat forces the reply and so is cheap to refute.
/// Canonical keys (the least of the 192 images) are not used: two lines of
/// play from a position with a few stones almost never reach symmetric
/// images of each other, so they would save almost no nodes and cost more
/// than twice the time.
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
/// switching one off changes only the work, which is what it is for (the
/// solver's tests search with each one off and compare the values).
/// [`Rules::ALL`] is the solver's.
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
            let mut moves = ordered_moves(
                me,
                you,
                &known.mine,
                &known.theirs,
                table_move,
                self.rules.dead_cells,
            );
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
    /// them; 5/8 is where the sum of both kinds of test is least.
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

/// Pairing strategies are looked for in quiet positions with at least this
/// many empty cells (below it they are rare and the search is cheap).
const PAIRING_FROM: u8 = 4;
