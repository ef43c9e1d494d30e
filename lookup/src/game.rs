//! The abstraction every game implements: rules, symmetry, notation, the
//! layout of its table ([`Tabled`]) and, optionally, a solver of its own
//! ([`ExactSolver`], within [`SearchLimits`]).

use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use crate::error::{Error, PositionError};
use crate::format::{GameId, Header, IndexScheme, Table, TableData, TableError, ValueEncoding};
use crate::stop::Stop;
use crate::value::{AnyValue, Score, Transition};

/// The longest notation of a position or move list any parser reads; longer
/// input is refused at once with [`PositionError::TooLong`].
pub const MAX_NOTATION_LEN: usize = 4096;

/// Refuses text longer than [`MAX_NOTATION_LEN`], for every game's parser.
///
/// # Errors
///
/// [`PositionError::TooLong`].
pub fn check_notation_length(text: &str) -> Result<(), PositionError> {
    if text.len() > MAX_NOTATION_LEN {
        return Err(PositionError::TooLong {
            found: text.len(),
            max: MAX_NOTATION_LEN,
        });
    }
    Ok(())
}

/// A two-player game of perfect information with no chance, solved by
/// negamax over [`Score`]s.
///
/// Positions are small `Copy` values. Every position a game hands out (from
/// [`start`](Game::start), [`parse`](Game::parse) or [`play`](Game::play)) is
/// legal and reachable; the side to move follows from the position itself.
pub trait Game: fmt::Debug + Send + Sync {
    /// A position, including whose turn it is.
    type Position: Copy + Eq + Ord + Hash + fmt::Debug + Send + Sync + 'static;
    /// A move.
    type Move: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync;
    /// The value of a position for the side to move; greater is better.
    type Value: Copy + Eq + Ord + fmt::Debug + fmt::Display + Into<AnyValue>;

    /// Which game and board this is.
    fn id(&self) -> GameId;

    /// The position before the first move.
    fn start(&self) -> Self::Position;

    /// Reads a position from its notation, refusing malformed text and
    /// positions that no game can reach.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] naming the problem.
    fn parse(&self, text: &str) -> Result<Self::Position, PositionError>;

    /// The notation of a position; [`parse`](Game::parse) reads it back.
    fn notation(&self, position: Self::Position) -> String;

    /// Reads a move from its notation (it may still be illegal in a position).
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] when the text names no move of this board.
    fn parse_move(&self, text: &str) -> Result<Self::Move, PositionError>;

    /// The legal moves; empty exactly when the game is over.
    fn moves(&self, position: Self::Position) -> Vec<Self::Move>;

    /// Plays a legal move. The result of playing an illegal one is
    /// unspecified (but memory-safe).
    fn play(&self, position: Self::Position, mv: Self::Move) -> (Self::Position, Transition);

    /// The score of a finished game, `None` while moves remain.
    fn terminal_score(&self, position: Self::Position) -> Option<Score>;

    /// Converts a score of the side to move at `position` to a value.
    fn value(&self, position: Self::Position, score: Score) -> Self::Value;

    /// `Some('X')` or `Some('O')` where the side to move has a name; `None`
    /// (the default) where it does not matter (dots-and-boxes values do not
    /// depend on whose turn it is).
    fn side_to_move(&self, position: Self::Position) -> Option<char> {
        let _ = position;
        None
    }

    /// A solver of this game's own, used by [`Search`](crate::Search)
    /// instead of the generic alpha-beta; `None` (the default) keeps the
    /// generic one.
    fn exact_solver(&self, limits: SearchLimits) -> Option<Box<dyn ExactSolver<Self::Position>>> {
        let _ = limits;
        None
    }

    /// Number of symmetries of the board, the identity included.
    fn symmetry_count(&self) -> usize;

    /// The image of a position under symmetry `index` (`0` is the identity).
    ///
    /// # Panics
    ///
    /// If `index >= symmetry_count()`.
    fn image(&self, position: Self::Position, index: usize) -> Self::Position;

    /// The least of all symmetric images: equal for positions that are
    /// symmetric to each other, and the same game value.
    fn canonical(&self, position: Self::Position) -> Self::Position {
        (1..self.symmetry_count())
            .map(|s| self.image(position, s))
            .fold(position, Ord::min)
    }

    /// Whether `position` is its own [`canonical`](Game::canonical) form
    /// (games may answer faster than by computing it).
    fn is_canonical(&self, position: Self::Position) -> bool {
        self.canonical(position) == position
    }

    /// A picture of the position for people: the board in text lines, one
    /// per row, in the game's own layout (see each game). The default is
    /// the notation; games draw their boards.
    fn picture(&self, position: Self::Position) -> String {
        self.notation(position)
    }

    /// The position reached by playing `moves` from the start: move
    /// notations separated by spaces, commas or semicolons, each checked to
    /// be legal where it is played. The tic-tac-toe family reads a position
    /// that starts with a digit this way (`4 0 8`).
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] or [`PositionError::IllegalMove`] for the
    /// first move that is not one.
    fn play_from_start(&self, moves: &str) -> Result<Self::Position, PositionError> {
        check_notation_length(moves)?;
        moves
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
            .filter(|m| !m.is_empty())
            .try_fold(self.start(), |position, mv| {
                self.play_notation(position, mv)
            })
    }

    /// Plays a move given in notation, checking that it is legal.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] or [`PositionError::IllegalMove`].
    fn play_notation(
        &self,
        position: Self::Position,
        text: &str,
    ) -> Result<Self::Position, PositionError> {
        let mv = self.parse_move(text)?;
        if !self.moves(position).contains(&mv) {
            return Err(PositionError::IllegalMove {
                mv: mv.to_string(),
                reason: if self.terminal_score(position).is_some() {
                    "the game is over"
                } else {
                    "it is already taken"
                },
            });
        }
        Ok(self.play(position, mv).0)
    }
}

/// A game whose solved positions fit a table of one byte per slot.
pub trait Tabled: Game {
    /// The index scheme this game's tables use.
    const INDEX: IndexScheme;
    /// The value encoding this game's tables use.
    const VALUES: ValueEncoding;

    /// Number of slots in the table; for [`IndexScheme::SortedKeys`] the
    /// size of the key space (the file holds only the stored keys).
    fn slots(&self) -> u64;

    /// The slot (for sorted keys: the key) of a canonical position.
    fn slot(&self, canonical: Self::Position) -> u64;

    /// The position a slot stands for, if the slot names a well-formed board
    /// (it need not be reachable or canonical).
    fn position_at(&self, slot: u64) -> Option<Self::Position>;

    /// The entry byte (never 0) for a position with the given score.
    fn encode(&self, position: Self::Position, score: Score) -> u8;

    /// The score an entry byte gives a position.
    ///
    /// # Errors
    ///
    /// [`TableError::Entry`] if the byte is empty or cannot hold a value of
    /// this position.
    fn decode(&self, position: Self::Position, slot: u64, entry: u8) -> Result<Score, TableError>;

    /// Whether the rules settle `position`'s value by forced play, so that
    /// a table of this game does not hold it and is not consulted (the cube:
    /// wins in one, losses in two). The default: never, the table holds
    /// every position.
    fn settled_by_rules(&self, position: Self::Position) -> bool {
        let _ = position;
        false
    }

    /// Whether a table of this game holds a *don't-care* entry (0) for
    /// `position` (canonical), because [`table_score`](Tabled::table_score)
    /// resolves it by one exact rule into a position it does hold
    /// (dots-and-boxes: a free capture, [`ValueEncoding::MarginResolved`]).
    /// [`check_consistency`] in the generator checks these positions by their
    /// resolution. The default: never.
    ///
    /// [`check_consistency`]: https://docs.rs/solvedb-generator
    fn resolved_by_rule(&self, position: Self::Position) -> bool {
        let _ = position;
        false
    }

    /// The score a table of this game gives any legal position: one
    /// canonicalisation, one slot (or key), one entry. Games that settle some
    /// positions before the lookup override it (the cube resolves forced play
    /// first).
    ///
    /// # Errors
    ///
    /// A [`TableError`] if the entry is missing or corrupt.
    fn table_score<D: TableData>(
        &self,
        table: &Table<D>,
        position: Self::Position,
    ) -> Result<Score, TableError> {
        let canonical = self.canonical(position);
        let slot = self.slot(canonical);
        let entry = if Self::INDEX.is_dense() {
            table.entry(slot)?
        } else {
            table.sorted_entry(slot)?.ok_or_else(|| TableError::Entry {
                slot,
                reason: format!("{} is not in the table", self.notation(canonical)),
            })?
        };
        self.decode(canonical, slot, entry)
    }

    /// What a table of this game says about any legal position: its score
    /// and how it is known, or `None` where the table does not cover the
    /// position (a table of part of the game: Qubic's holds the first
    /// player's winning strategy), which is then searched. The default: the
    /// table covers every position, exactly ([`table_score`](Tabled::table_score)).
    ///
    /// # Errors
    ///
    /// A [`TableError`] if an entry the probe reads is corrupt.
    fn table_probe<D: TableData>(
        &self,
        table: &Table<D>,
        position: Self::Position,
    ) -> Result<Option<Probed>, TableError> {
        Ok(Some(Probed {
            score: self.table_score(table, position)?,
            at_most: false,
            by_rules: self.settled_by_rules(position),
        }))
    }

    /// A second table beside the game's own, which answers positions the
    /// first does not cover: its value encoding and its file name in a
    /// tables directory (Qubic's opening table,
    /// [`opening`](crate::games::qubic::opening)). `None` (the default):
    /// the game has none.
    const COMPANION: Option<(ValueEncoding, &'static str)> = None;

    /// What the companion table ([`COMPANION`](Tabled::COMPANION)) says of
    /// a position the game's own table does not cover (`None`: nothing).
    ///
    /// # Errors
    ///
    /// A [`TableError`] if an entry the probe reads is corrupt.
    fn companion_probe<D: TableData>(
        &self,
        _companion: &Table<D>,
        _position: Self::Position,
    ) -> Result<Option<Probed>, TableError> {
        Ok(None)
    }

    /// A live proof for a canonical position that no table settles, run
    /// instead of the exact search where the request's stop has limits (a
    /// deadline or a node budget in `limits.stop`): its answer is exact or a
    /// true bound (`Probed::at_most`). `None` (the default): the game has
    /// none, the exact search answers. Qubic's proves wins for both
    /// players with the strategy table as leaves
    /// ([`live`](crate::games::qubic::live)).
    fn live_probe<D: TableData>(
        &self,
        _table: Option<&Table<D>>,
        _canonical: Self::Position,
        _limits: &SearchLimits,
    ) -> Option<Result<Probed, Error>> {
        None
    }

    /// Refuses a table header that does not describe a table of this game.
    ///
    /// # Errors
    ///
    /// [`TableError::WrongGame`], [`TableError::Header`] or
    /// [`TableError::Size`].
    fn check_header(&self, header: &Header) -> Result<(), TableError> {
        if header.game != self.id() {
            return Err(TableError::WrongGame {
                expected: self.id(),
                found: header.game,
            });
        }
        if header.index != Self::INDEX || header.values != Self::VALUES {
            return Err(TableError::Header(format!(
                "{} tables use {:?} with {:?}, this one {:?} with {:?}",
                header.game,
                Self::INDEX,
                Self::VALUES,
                header.index,
                header.values
            )));
        }
        if Self::INDEX.is_dense() && header.entries != self.slots() {
            return Err(TableError::Size(format!(
                "{} needs {} slots, the header says {}",
                header.game,
                self.slots(),
                header.entries
            )));
        }
        Ok(())
    }
}

/// What a table says about a position it covers ([`Tabled::table_probe`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Probed {
    /// The score for the side to move: exact, or with [`at_most`](Probed::at_most)
    /// the score of the slowest end the table promises.
    pub score: Score,
    /// Whether the plies are an upper bound: the result is exact and the
    /// game ends no later than the score says, by a winning strategy (the
    /// winner may win sooner). A bounded loss means the winner's strategy
    /// ends the game within that many plies, whatever the loser plays.
    pub at_most: bool,
    /// Whether the rules settled the position by forced play (a source of
    /// [`Source::ForcedPlay`](crate::Source::ForcedPlay)) rather than a
    /// stored entry.
    pub by_rules: bool,
}

/// How much a live search may spend before it answers "unknown within the
/// budget" ([`Error::BudgetExhausted`] or [`Error::TimeExhausted`]) instead
/// of guessing. The default is no limit.
///
/// Not `Copy`: [`stop`](SearchLimits::stop) is shared with whoever may stop
/// the search from outside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// The most positions to visit, over the search's life.
    pub nodes: Option<u64>,
    /// The longest time one call may search.
    pub time: Option<Duration>,
    /// Memory for a transposition table, in bytes, for solvers with a
    /// fixed-size one (dots-and-boxes); `None` lets the solver choose.
    pub table_bytes: Option<u64>,
    /// Threads for solvers that search in parallel (dots-and-boxes);
    /// `None` uses every core.
    pub threads: Option<usize>,
    /// A deadline, node budget and cancellation shared with other searches
    /// (those of one request). Every solver polls its deadline and
    /// cancellation where it reads its clock; its node budget reaches a
    /// solver through [`Search`](crate::Search), which caps the search's
    /// own `nodes` at what is left and charges what it visited. A solver
    /// made directly (such as `QubicSolver::new`) counts only `nodes`.
    pub stop: Stop,
}

/// A game's own exact solver (see [`Game::exact_solver`]), which
/// [`Search`](crate::Search) uses instead of its generic alpha-beta.
pub trait ExactSolver<P>: fmt::Debug + Send {
    /// The exact score of `position` for the side to move.
    ///
    /// # Errors
    ///
    /// [`Error::BudgetExhausted`] or [`Error::TimeExhausted`] when the
    /// limits run out first.
    fn score(&mut self, position: P) -> Result<Score, Error>;

    /// Positions visited so far.
    fn nodes(&self) -> u64;

    /// Readies the solver to be kept for later searches
    /// ([`renew`](ExactSolver::renew)) once its search has ended: it lets
    /// go of what was the search's own (the request's [`Stop`], whose
    /// listener may hold the request's stream open) and says whether it is
    /// worth keeping. An oracle keeps such solvers and lends each to one
    /// search at a time. `false` (the default): each search makes its own.
    fn keep(&mut self) -> bool {
        false
    }

    /// Takes the `limits` of a new search, keeping what the solver learnt
    /// in the searches before (its transposition table), and counts its
    /// positions from zero again; `false`, changing nothing, where it
    /// cannot (the default, or limits that ask for another table), and the
    /// caller makes a new solver.
    fn renew(&mut self, limits: SearchLimits) -> bool {
        let _ = limits;
        false
    }

    /// The score of `position` and of each of its moves, in the order of
    /// [`Game::moves`], each for the player who makes it, counted from
    /// before the move, from one search; `None` (the default) where the
    /// solver has no such search, and the moves are scored one by one.
    /// Where the limits run out first, what the search proved by then
    /// ([`MoveScores::unknown`] says why the bounds did not meet).
    /// `report` is told the bounds proved as they narrow, between the
    /// search's own steps (never inside them).
    fn score_moves(
        &mut self,
        position: P,
        report: &mut dyn FnMut(&MoveScores),
    ) -> Option<MoveScores> {
        let _ = (position, report);
        None
    }
}

/// What [`ExactSolver::score_moves`] proved: bounds on the score of a
/// position and of each of its moves; all exact when
/// [`unknown`](MoveScores::unknown) is `None`.
#[derive(Debug)]
pub struct MoveScores {
    /// The position's score lies in `value.0..=value.1`.
    pub value: (Score, Score),
    /// Each move's score (in the order of [`Game::moves`], for the player
    /// who makes it, counted from before the move) lies in its range.
    pub moves: Vec<(Score, Score)>,
    /// Why the search stopped before every bound met: the limits
    /// ([`Error::BudgetExhausted`], [`Error::TimeExhausted`],
    /// [`Error::Cancelled`]), or [`Error::TableMemory`] for a search that
    /// could not start.
    pub unknown: Option<Error>,
}
