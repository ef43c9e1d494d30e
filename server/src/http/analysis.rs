//! Settling a position no complete table answers ([`settle`]): what the
//! rules force first, then the search, move by move, so that what is
//! proved by the deadline is kept and said ([`Proven`]).
//!
//! For the tic-tac-toe family (Qubic off its strategy) the order is:
//!
//! 1. forced play, by the rules alone: a move that ends the game (a win in
//!    one, or the last cell) is exact; a move after which the opponent
//!    completes a line at once is exact too (a loss in 2: the fastest win
//!    is the opponent's best), so a threat that must be blocked leaves only
//!    the blocks open;
//! 2. the table: a move to a position the strategy's table answers takes
//!    its value from there (a proof by the strategy); at a position the
//!    table answers, its answer is told first and the moves it does not
//!    cover are searched as in 3 ([`GameOracle::answer_within`](solvedb_lookup::GameOracle::answer_within));
//! 3. the search, one move at a time, each given an equal share of the
//!    time left, then the rest of the time to those still open.
//!
//! A move not settled keeps bounds the rules prove: it neither wins at
//! once nor lets the opponent win at once, so its value lies between a
//! loss in 4 and a win in 3. Dots-and-boxes positions are scored by the
//! game's own solver in one search, which proves bounds on the value and
//! on every move as it goes ([`Oracle::answer_within`]) and reports them
//! to the request's stop ([`Stop::reporting`]) after each of its tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use solvedb_lookup::{
    AnyValue, BoardKind, BoundedMove, Bounds, Error, ErrorKind, Game, GameId, MoveReport, Oracle,
    Outcome, Report, Source, Stop, Transition, ValueBounds, Want, Wdl, with_game,
};

use super::proven::{Proven, rank};

/// What [`settle`] found, and whether it ran a search to find it.
#[derive(Debug)]
pub struct Settled {
    /// What was proved.
    pub proven: Proven,
    /// Whether a live search ran (not only the rules and the tables).
    pub searched: bool,
}

/// Settles `position` of `game` within `stop` (the request's stop) and
/// `time` (the request's search time): forced play first, then the
/// search, as the [module](self) says. For [`Want::Best`] a table's
/// answer is taken as it is: its best move is the table's, so the moves
/// it leaves open are not searched. `progress` is told what is proved
/// after forced play and after each move the search settles (dots: after
/// each test of its search), before the final answer is returned, on the
/// search's thread.
///
/// # Errors
///
/// A malformed position, a table that fails, a search that cannot start.
pub fn settle(
    oracle: &Oracle,
    game: GameId,
    position: &str,
    want: Want,
    stop: &Stop,
    time: Duration,
    progress: Progress,
) -> Result<Settled, Error> {
    if game.info().board.kind() == BoardKind::Dots {
        return settle_in_one_search(oracle, game, position, stop, progress);
    }
    // A position the tables answer needs no search but for the moves they
    // do not cover (Qubic off the strategy's line), which the oracle
    // searches within the time; `progress` hears the tables' answer first.
    if let Ok(report) = oracle.answer_within(game, position, Want::Moves, &table_only()) {
        if report.unknown.is_empty() || time.is_zero() || want == Want::Best {
            return Ok(Settled {
                proven: Proven::Answer(report),
                searched: false,
            });
        }
        progress(&Proven::Answer(report));
        let report = oracle.answer_within(game, position, Want::Moves, &stop.within(time))?;
        return Ok(Settled {
            proven: Proven::Answer(report),
            searched: true,
        });
    }
    let deadline = Instant::now() + time;
    with_game!(game, g => settle_lines(g, oracle, position, stop, deadline, &*progress))
}

/// A stop that lets no search start: a probe with it answers from the
/// tables and the rules alone.
fn table_only() -> Stop {
    let stop = Stop::new(None, None);
    stop.cancel();
    stop
}

/// Who is told what is proved part way ([`settle`]).
pub type Progress = Arc<dyn Fn(&Proven) + Send + Sync>;

/// The game's own answer: every move scored in one search, or the bounds
/// it proved where it stopped; `progress` told the bounds the search
/// reports as it goes.
fn settle_in_one_search(
    oracle: &Oracle,
    game: GameId,
    position: &str,
    stop: &Stop,
    progress: Progress,
) -> Result<Settled, Error> {
    let stop = stop.reporting(move |bounds: &Bounds| {
        progress(&Proven::Partial {
            bounds: bounds.clone(),
            message: "the search is still running: these bounds are proved so far".into(),
        });
    });
    let proven = match oracle.answer_within(game, position, Want::Moves, &stop) {
        Ok(report) => Proven::Answer(report),
        Err(e) => match e.bounds() {
            Some(bounds) => Proven::Partial {
                bounds: bounds.clone(),
                message: e.to_string(),
            },
            None => return Err(e),
        },
    };
    Ok(Settled {
        proven,
        searched: true,
    })
}

/// A move's value for the player who makes it from the value of the
/// position it leads to, for the player to move there: the result turned
/// over, one ply more.
fn through_move(child: AnyValue) -> AnyValue {
    let turn = |o: Outcome| Outcome {
        wdl: -o.wdl,
        plies: o.plies.saturating_add(1),
    };
    match child {
        AnyValue::Outcome(o) => AnyValue::Outcome(turn(o)),
        AnyValue::AtMost(o) => AnyValue::AtMost(turn(o)),
        AnyValue::Margin(m) => AnyValue::Margin(-m),
    }
}

/// What is known of one move: its value, or bounds on it.
#[derive(Clone, Copy)]
enum Known {
    Exact(AnyValue),
    Between(AnyValue, AnyValue),
}

impl Known {
    fn bounds(self) -> ValueBounds {
        match self {
            Known::Exact(v) => ValueBounds { lower: v, upper: v },
            Known::Between(lower, upper) => ValueBounds { lower, upper },
        }
    }
}

fn settle_lines<G: Game>(
    g: &G,
    oracle: &Oracle,
    position: &str,
    stop: &Stop,
    deadline: Instant,
    progress: &(dyn Fn(&Proven) + Send + Sync),
) -> Result<Settled, Error> {
    let game = g.id();
    let p = g.parse(position)?;
    let moves = g.moves(p);
    if moves.is_empty() {
        // The game is over: the rules answer.
        let report = oracle.answer_within(game, position, Want::Moves, stop)?;
        return Ok(Settled {
            proven: Proven::Answer(report),
            searched: false,
        });
    }
    let children: Vec<(G::Position, Transition)> = moves.iter().map(|&mv| g.play(p, mv)).collect();
    let mut known: Vec<Known> = children
        .iter()
        .map(|&(child, t)| forced(g, oracle, p, child, t))
        .collect();
    let mut searched = false;
    progress(&proven_now(g, p, &moves, &known, searched));
    // The search, move by move: an equal share of the time left each,
    // then what is left to the moves still open.
    for _pass in 0..2 {
        let open: Vec<usize> = (0..known.len())
            .filter(|&i| matches!(known[i], Known::Between(..)))
            .collect();
        for (done, &i) in open.iter().enumerate() {
            if stop.poll().is_err() {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let share = left / u32::try_from(open.len() - done).unwrap_or(u32::MAX);
            if share.is_zero() {
                break;
            }
            searched = true;
            let child_stop = stop.within(share);
            let text = g.notation(children[i].0);
            match oracle.answer_within(game, &text, Want::Value, &child_stop) {
                Ok(report) => {
                    known[i] = Known::Exact(through_move(report.value));
                    progress(&proven_now(g, p, &moves, &known, searched));
                }
                Err(e) if matches!(e.kind(), ErrorKind::Budget) => {}
                Err(e) => return Err(e),
            }
        }
    }
    let proven = proven_now(g, p, &moves, &known, searched);
    Ok(Settled { proven, searched })
}

/// What `known` proves of `p` (moves in the game's order): the whole
/// answer where every move is exact, else the bounds.
fn proven_now<G: Game>(
    g: &G,
    p: G::Position,
    moves: &[G::Move],
    known: &[Known],
    searched: bool,
) -> Proven {
    let game = g.id();
    if known.iter().all(|k| matches!(k, Known::Exact(_))) {
        let mut valued: Vec<MoveReport> = moves
            .iter()
            .zip(known)
            .map(|(mv, k)| MoveReport {
                mv: mv.to_string(),
                value: k.bounds().lower,
            })
            .collect();
        valued.sort_by_key(|m| std::cmp::Reverse(rank(m.value)));
        Proven::Answer(Report {
            game,
            position: g.notation(p),
            to_move: g.side_to_move(p),
            value: valued[0].value,
            source: if searched {
                Source::Search
            } else {
                Source::ForcedPlay
            },
            moves: valued,
            unknown: Vec::new(),
            searched: Vec::new(),
        })
    } else {
        let moves: Vec<BoundedMove> = moves
            .iter()
            .zip(known)
            .map(|(mv, k)| BoundedMove {
                mv: mv.to_string(),
                bounds: k.bounds(),
            })
            .collect();
        let value = value_bounds(&moves);
        Proven::Partial {
            bounds: Bounds { value, moves },
            message: format!(
                "the search stopped at its limits before it settled every move ({} of {} settled)",
                known
                    .iter()
                    .filter(|k| matches!(k, Known::Exact(_)))
                    .count(),
                known.len()
            ),
        }
    }
}

/// The bounds on a position's value from its moves': the best lower
/// bound, the best upper bound.
fn value_bounds(moves: &[BoundedMove]) -> ValueBounds {
    let lower = moves
        .iter()
        .map(|m| m.bounds.lower)
        .max_by_key(|&v| rank(v))
        .expect("a position with moves");
    let upper = moves
        .iter()
        .map(|m| m.bounds.upper)
        .max_by_key(|&v| rank(v))
        .expect("a position with moves");
    ValueBounds { lower, upper }
}

/// What the rules and the tables alone prove of the move from `p` to
/// `child`: its exact value where the game ends with it, where the
/// opponent then completes a line at once, or where a table answers the
/// child; else the bounds of a move that does none of these.
fn forced<G: Game>(
    g: &G,
    oracle: &Oracle,
    p: G::Position,
    child: G::Position,
    t: Transition,
) -> Known {
    let mover_score = |score| -> AnyValue { g.value(p, score).into() };
    // The move ends the game: a win, or a draw on the last cell.
    if let Some(score) = g.terminal_score(child) {
        return Known::Exact(mover_score(t.backup(score)));
    }
    // The opponent completes a line at once.
    for reply in g.moves(child) {
        let (end, reply_t) = g.play(child, reply);
        if let Some(score) = g.terminal_score(end) {
            let theirs = reply_t.backup(score);
            if theirs > 0 {
                return Known::Exact(mover_score(t.backup(theirs)));
            }
        }
    }
    // A table answers the position the move leads to.
    if let Ok(report) = oracle.answer_within(g.id(), &g.notation(child), Want::Value, &table_only())
    {
        return Known::Exact(through_move(report.value));
    }
    Known::Between(
        AnyValue::Outcome(Outcome {
            wdl: Wdl::Loss,
            plies: 4,
        }),
        AnyValue::Outcome(Outcome {
            wdl: Wdl::Win,
            plies: 3,
        }),
    )
}
