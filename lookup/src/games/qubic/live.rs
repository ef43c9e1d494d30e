//! The live answer of a Qubic position that the strategy table does not
//! settle ([`live_probe`]): an exact search while it is quick, then df-pn
//! proofs for both players at once, within the request's [`Stop`].
//!
//! 1. **Exact search first** ([`QubicSolver`](super::QubicSolver) through
//!    [`Search`]), within an eighth of the time left (at most
//!    [`EXACT_TIME`]) or of the nodes left: late positions finish in well
//!    under a millisecond, with the exact value.
//! 2. **Proofs for both players** ([`Prover`](super::prover::Prover)):
//!    "X wins" and "O wins", each deepened by stones ([`prove_deepening`]:
//!    within [`STONES_AHEAD`] in turn, then without a limit) with the
//!    attacker's moves narrowed to [`WIDTH`], as the build's tasks are;
//!    each attempt keeps a proof table of [`TABLE_BYTES`]. On two threads
//!    they race, one on each; a thread whose side is disproved goes on to
//!    the other side's plain proof (every move, no stone limit: it finds
//!    some wins and most disproofs sooner), and the first proof ends every
//!    search. With [`SearchLimits::threads`] `Some(1)`, X's proof and then
//!    O's, each in half the time left. The search for X ends at every
//!    position the strategy table holds a record of ([`Leaves`]; the
//!    table's [`Records`](super::strategy::Records)): a record is a proof
//!    that X wins there.
//!
//! The oracle runs it only for a probe whose [`Stop`] has limits (a
//! deadline or a node budget, as the server's): a probe without any is the
//! exact search's alone, however long it takes.
//!
//! What it reports is exact or a true bound: a proved win is "win in at
//! most N", N the empty cells (of the winner's parity: the game ends when
//! the board is full at the latest); both proofs refuted is a draw, which
//! fills the board (exact). Otherwise the search's own error says what
//! stopped it.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::Qubic;
use super::board::QubicBoard;
use super::prover::{Attacker, Leaves, ProverLimits, Verdict, prove_deepening};
use crate::error::Error;
use crate::game::{Probed, SearchLimits};
use crate::search::Search;
use crate::stop::Stop;
use crate::value::{Score, WIN_SCORE};

/// The longest the exact search runs before the proofs start. Late
/// positions finish in well under a millisecond; from 6 to 10 stones the
/// search seldom finishes, and its share was most of an answer's time: on
/// people's positions (`qubic_coverage`, seeds 1 and 3, 3 s) 15 ms against
/// 250 ms took the median at 6–8 stones from 0.26–0.35 s to 0.02–0.11 s and
/// answered as many positions or more at every stone count from 3 to 24
/// (`docs/qubic.md`).
pub const EXACT_TIME: Duration = Duration::from_millis(15);

/// The stone limits a live proof tries in turn before one without a limit,
/// as stones beyond the position ([`prove_deepening`]; the build's tasks
/// use the same). On 20 people's positions a stone count (seed 1, 3 s),
/// the limits took 4 stones from 2 to 14 answered and 7 stones' median
/// from 1.0 s to 0.46 s; limits from 4 or 6 stones ahead did no better
/// (`docs/qubic.md`).
pub const STONES_AHEAD: [u32; 6] = [8, 10, 12, 14, 18, 22];

/// The attacker's moves an OR node searches at first
/// ([`ProverLimits::width`]), as in the build's tasks: with the stone
/// limits, 4 stones 16 of 20 answered (against 14 with every move at
/// once), 5 stones 9 (4), 7 stones 15 (13); 2 and 8 did no better.
pub const WIDTH: usize = 4;

/// Memory of one prover's proof table: two per request.
pub const TABLE_BYTES: u64 = 16 << 20;

/// The value of `canonical` (not over, not settled by the table), found
/// within `limits` (its stop, node budget and threads) as the [module
/// documentation](self) says, the search for X ending at `leaves` (the
/// strategy table's [`Records`](super::strategy::Records)).
///
/// # Errors
///
/// What stopped the searches ([`Error::TimeExhausted`],
/// [`Error::BudgetExhausted`], [`Error::Cancelled`]) when neither the
/// exact value nor a proof was found in time.
pub fn live_probe(
    leaves: Option<&dyn Leaves>,
    canonical: QubicBoard,
    limits: &SearchLimits,
) -> Result<Probed, Error> {
    let stop = &limits.stop;
    // The exact search's share: of the time left where there is a
    // deadline, else of the nodes left (so that a search bounded by nodes
    // alone is a function of the board), else EXACT_TIME.
    let mut exact_limits = limits.clone();
    match (stop.time_left(), stop.nodes_left()) {
        (Some(left), _) => exact_limits.stop = stop.within((left / 8).min(EXACT_TIME)),
        (None, Some(nodes)) => exact_limits.nodes = Some(nodes / 8),
        (None, None) => exact_limits.stop = stop.within(EXACT_TIME),
    }
    match Search::with_limits(&Qubic, exact_limits).score(canonical) {
        Ok(score) => {
            return Ok(Probed {
                score,
                at_most: false,
                by_rules: false,
            });
        }
        // Only the exact search's own share ran out: prove.
        Err(Error::TimeExhausted { .. } | Error::BudgetExhausted { .. })
            if stop.poll().is_ok() && stop.nodes_left() != Some(0) => {}
        Err(other) => return Err(other),
    }
    prove_both(leaves, canonical, limits)
}

/// The proofs alone (step 2 of the [module documentation](self)): the
/// value of `canonical` (not over) by proofs that X wins and that O wins,
/// on two threads or one ([`SearchLimits::threads`]), the search for X
/// ending at `leaves`, within `limits.stop`.
///
/// # Errors
///
/// As [`live_probe`].
pub fn prove_both(
    leaves: Option<&dyn Leaves>,
    canonical: QubicBoard,
    limits: &SearchLimits,
) -> Result<Probed, Error> {
    let stop = &limits.stop;
    let (x, o) = if limits.threads == Some(1) {
        one_after_the_other(canonical, leaves, stop)
    } else {
        side_by_side(canonical, leaves, stop)
    };
    value(canonical, x, o)
}

/// Whether `attacker` wins `board`, within `nodes` (over every attempt)
/// and `stop`: proved within the stone limits of [`STONES_AHEAD`] in turn,
/// then without one, each attacker node narrowed to [`WIDTH`] moves, each
/// attempt with a proof table of `table_bytes`, the proof ending at
/// `leaves`. The live proofs run it with [`TABLE_BYTES`]; the generator's
/// opening table settles and re-checks its moves with it.
///
/// # Errors
///
/// What stopped the proof ([`Error::BudgetExhausted`],
/// [`Error::TimeExhausted`], [`Error::Cancelled`]).
pub fn prove(
    board: QubicBoard,
    attacker: Attacker,
    leaves: Option<&dyn Leaves>,
    table_bytes: u64,
    nodes: Option<u64>,
    stop: &Stop,
) -> Result<Verdict, Error> {
    let limits = ProverLimits {
        table_bytes,
        nodes,
        width: WIDTH,
        ..ProverLimits::default()
    };
    prove_deepening(
        board,
        attacker,
        limits,
        &STONES_AHEAD,
        leaves,
        stop,
        |_, _| {},
    )
    .verdict
}

/// How one of the race's proofs searches ([`side_by_side`]).
#[derive(Clone, Copy, Debug)]
enum Variant {
    /// As [`prove`]: deepened by stones, the attacker's moves narrowed.
    Deepened,
    /// Every move, no stone limit, one attempt: it finds some wins the
    /// deepened proof misses or finds later, and disproves without the
    /// deepened proof's attempts within limits first.
    Plain,
}

/// The proofs each of the two threads runs in turn, skipping those of a
/// side already settled: the deepened proofs first, X's on the calling
/// thread (the only one with the leaves: a table need not be shared
/// between threads) and O's on the other; a thread whose side is
/// disproved goes on to the other side's plain proof, so that a thread is
/// idle only once both sides are settled. The deepened proofs go first
/// because they settle the most: on the 65 positions of seeds 1 and 2
/// (4–11 stones) that they left unknown in 3 s, in 6 s each the deepened
/// proofs settled X 11 and O 4 of them, the plain ones X 5 and O 2; with
/// O's plain proof first on its thread instead, seed 1 lost 4 positions
/// at 4–7 stones, O's wins the deepened proof finds in 0.4 s. Against the
/// deepened proofs alone, seed 2 at 4–11 stones: 121 → 124 of 160
/// answered in 3 s, none lost (`docs/qubic.md`).
const THREAD_JOBS: [[(Attacker, Variant); 2]; 2] = [
    [
        (Attacker::X, Variant::Deepened),
        (Attacker::O, Variant::Plain),
    ],
    [
        (Attacker::O, Variant::Deepened),
        (Attacker::X, Variant::Plain),
    ],
];

/// One side of the race: its verdict once a proof settles it, the first
/// error that stopped one of its proofs, and a stop that ends its proofs
/// still running once it is settled.
struct Side {
    stop: Stop,
    verdict: Mutex<Option<Verdict>>,
    error: Mutex<Option<Error>>,
}

impl Side {
    fn verdict(&self) -> Option<Verdict> {
        *self.verdict.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The side's result: its verdict, else the error that stopped it.
    fn result(&self) -> Result<Verdict, Error> {
        match self.verdict() {
            Some(verdict) => Ok(verdict),
            None => Err(self
                .error
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .unwrap_or(Error::Cancelled)),
        }
    }
}

/// The race of two threads over four proofs ([`THREAD_JOBS`]): the first
/// proof ends every search; a disproof ends the other proof of its side.
fn side_by_side(
    board: QubicBoard,
    leaves: Option<&dyn Leaves>,
    stop: &Stop,
) -> (Result<Verdict, Error>, Result<Verdict, Error>) {
    let side = || Side {
        stop: stop.part(),
        verdict: Mutex::new(None),
        error: Mutex::new(None),
    };
    let (x, o) = (side(), side());
    let of = |attacker| match attacker {
        Attacker::X => &x,
        Attacker::O => &o,
    };
    let run = |jobs: &[(Attacker, Variant)], leaves: Option<&dyn Leaves>| {
        for &(attacker, variant) in jobs {
            let side = of(attacker);
            if side.verdict().is_some() {
                continue;
            }
            let found = match variant {
                Variant::Deepened => prove(board, attacker, leaves, TABLE_BYTES, None, &side.stop),
                Variant::Plain => {
                    let limits = ProverLimits {
                        table_bytes: TABLE_BYTES,
                        ..ProverLimits::default()
                    };
                    prove_deepening(board, attacker, limits, &[], leaves, &side.stop, |_, _| {})
                        .verdict
                }
            };
            match found {
                Ok(verdict) => {
                    side.verdict
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(verdict);
                    side.stop.cancel();
                    if verdict == Verdict::Proved {
                        // The answer: the other side's proofs end too.
                        x.stop.cancel();
                        o.stop.cancel();
                        return;
                    }
                }
                Err(error) => {
                    // What stopped the search (time, nodes, the request
                    // cancelled) over a cancel within the race.
                    let mut kept = side.error.lock().unwrap_or_else(PoisonError::into_inner);
                    if kept.as_ref().is_none_or(|e| matches!(e, Error::Cancelled)) {
                        *kept = Some(error);
                    }
                }
            }
        }
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(|| run(&THREAD_JOBS[1], None));
        run(&THREAD_JOBS[0], leaves);
        // A thread that panicked has settled nothing: its side's error,
        // or Cancelled, says so.
        let _ = other.join();
    });
    (x.result(), o.result())
}

/// X's proof, then O's, each in half the time left (the one-thread
/// baseline of [`side_by_side`]).
fn one_after_the_other(
    board: QubicBoard,
    leaves: Option<&dyn Leaves>,
    stop: &Stop,
) -> (Result<Verdict, Error>, Result<Verdict, Error>) {
    let half = |stop: &Stop| match stop.time_left() {
        Some(left) => stop.within(left / 2),
        None => stop.part(),
    };
    let x = prove(board, Attacker::X, leaves, TABLE_BYTES, None, &half(stop));
    if matches!(x, Ok(Verdict::Proved)) {
        return (x, Err(Error::Cancelled));
    }
    let o = prove(board, Attacker::O, leaves, TABLE_BYTES, None, &stop.part());
    (x, o)
}

/// The value the two proofs give `board`: a win of the side that proved
/// its own (bounded by the empty cells), a draw when both are refuted,
/// else the error that stopped the search still needed.
fn value(
    board: QubicBoard,
    x: Result<Verdict, Error>,
    o: Result<Verdict, Error>,
) -> Result<Probed, Error> {
    let x_moves = board.x_to_move();
    let empty = board.empty().count_ones();
    let stones = board.stones() as Score;
    let win = |mover_wins: bool| {
        // The winner moves on odd plies from here when it is the mover.
        let plies = if (empty % 2 == 1) == mover_wins {
            empty
        } else {
            empty - 1
        };
        let score = WIN_SCORE - (stones + plies as Score);
        Ok(Probed {
            score: if mover_wins { score } else { -score },
            at_most: true,
            by_rules: false,
        })
    };
    match (x, o) {
        (Ok(Verdict::Proved), _) => win(x_moves),
        (_, Ok(Verdict::Proved)) => win(!x_moves),
        (Ok(Verdict::Disproved), Ok(Verdict::Disproved)) => Ok(Probed {
            score: 0,
            at_most: false,
            by_rules: false,
        }),
        (Err(cause), _) | (_, Err(cause)) => Err(cause),
    }
}
