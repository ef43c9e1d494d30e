//! Answers for positions: from a table where one is loaded, from an exact
//! live search where not.

use std::fmt;
use std::sync::Arc;

use crate::bounds::{BoundedMove, Bounds, ValueBounds};
use crate::error::{Error, ErrorKind};
use crate::format::{Table, TableData, TableError};
use crate::game::{Game, MoveScores, Probed, SearchLimits, Tabled};
use crate::kept_solvers::KeptSolvers;
use crate::search::Search;
use crate::stop::Stop;
use crate::value::Score;

/// Where an answer came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Looked up in a precomputed table.
    Table,
    /// Computed by an exact live search.
    Search,
    /// Settled by the rules through forced play, before any table lookup
    /// (the cube: a win in one, a loss in two), with a table loaded.
    ForcedPlay,
}

impl Source {
    /// `table`, `search` or `forced`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Table => "table",
            Source::Search => "search",
            Source::ForcedPlay => "forced",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One legal move and its value for the player who makes it.
#[derive(Debug)]
pub struct MoveValue<G: Tabled> {
    /// The move.
    pub mv: G::Move,
    /// Its value for the player who makes it, counted from before the move.
    pub value: G::Value,
    /// The same as a [`Score`] of the position before the move.
    pub score: Score,
    /// Whether the plies are an upper bound (a strategy's; the result is
    /// exact): see `Probed::at_most`.
    pub at_most: bool,
}

/// A position's value alone, and how it is known.
#[derive(Debug)]
pub struct Probe<G: Tabled> {
    /// Its value for the side to move.
    pub value: G::Value,
    /// The same as a [`Score`].
    pub score: Score,
    /// Whether the plies are an upper bound (see [`Probed::at_most`]).
    pub at_most: bool,
    /// Where the value came from.
    pub source: Source,
}

/// Everything known about a position: its value and every move's.
#[derive(Debug)]
pub struct Answer<G: Tabled> {
    /// The position asked about.
    pub position: G::Position,
    /// Its value for the side to move.
    pub value: G::Value,
    /// The same as a [`Score`].
    pub score: Score,
    /// Every legal move whose value is known, best first (ties in move
    /// order): every legal move, but where a table covers the position and
    /// not all of its moves (a strategy covers the moves it plays, and the
    /// defences to them).
    pub moves: Vec<MoveValue<G>>,
    /// Where the values came from.
    pub source: Source,
    /// Whether the value's plies are an upper bound (see `Probed::at_most`).
    pub at_most: bool,
    /// The legal moves missing from [`moves`](Answer::moves): those a table
    /// that covers the position does not cover, and a live search within
    /// the caller's deadline did not settle.
    pub unknown: Vec<G::Move>,
    /// The moves of [`moves`](Answer::moves) a table that covers the
    /// position left open and a live search valued within the caller's
    /// deadline ([`answer_within`](GameOracle::answer_within)), in the
    /// game's order; empty where the table valued every move it answers or
    /// no table answered (then `source` is already `Search`).
    pub searched: Vec<G::Move>,
}

/// Perfect-play answers for one game: from its table if one was given, from
/// an exact alpha-beta search otherwise. `Send + Sync` when the table's bytes
/// are, so threads can share one.
///
/// ```
/// use solvedb_lookup::{Game, GameOracle, Source, TicTacToe};
///
/// let oracle = GameOracle::<_, Vec<u8>>::search_only(TicTacToe);
/// let position = TicTacToe.parse("X../.O./..X")?;
/// let answer = oracle.answer(position)?;
/// assert_eq!(answer.source, Source::Search);
/// println!("{} to move: {}", TicTacToe.to_move(position), answer.value);
/// for m in &answer.moves {
///     println!("  {}: {}", m.mv, m.value);
/// }
/// # Ok::<(), solvedb_lookup::Error>(())
/// ```
#[derive(Debug)]
pub struct GameOracle<G: Game, D> {
    game: G,
    table: Option<Table<D>>,
    /// The table beside the game's own ([`Tabled::COMPANION`]), if loaded.
    companion: Option<Table<D>>,
    limits: SearchLimits,
    /// The game's own solver between live searches, where it keeps what
    /// it learnt ([`ExactSolver::keep`](crate::ExactSolver::keep): the
    /// dots endgame solver's transposition table); shared by the games of
    /// a directory's [`Oracle`](crate::Oracle).
    kept: Arc<KeptSolvers>,
}

impl<G: Tabled, D: TableData> GameOracle<G, D> {
    /// An oracle that answers from `table`.
    ///
    /// # Errors
    ///
    /// [`TableError::WrongGame`] and friends if the table is not for `game`.
    pub fn with_table(game: G, table: Table<D>) -> Result<Self, TableError> {
        game.check_header(table.header())?;
        Ok(GameOracle {
            game,
            table: Some(table),
            companion: None,
            limits: SearchLimits::default(),
            kept: Arc::default(),
        })
    }

    /// The oracle, answering also from `companion`, the table beside the
    /// game's own ([`Tabled::COMPANION`]), where its own table does not
    /// cover a position.
    ///
    /// # Errors
    ///
    /// [`TableError::WrongGame`] or [`TableError::Header`] if the table is
    /// not the game's companion, or the oracle has no table of its own to
    /// stand beside.
    pub fn with_companion(mut self, companion: Table<D>) -> Result<Self, TableError> {
        let header = companion.header();
        if header.game != self.game.id() {
            return Err(TableError::WrongGame {
                expected: self.game.id(),
                found: header.game,
            });
        }
        match G::COMPANION {
            Some((values, _)) if values == header.values && self.table.is_some() => {}
            _ => {
                return Err(TableError::Header(format!(
                    "{} has no companion table of {:?} here",
                    header.game, header.values
                )));
            }
        }
        self.companion = Some(companion);
        Ok(self)
    }

    /// The companion table, if one is loaded.
    pub fn companion(&self) -> Option<&Table<D>> {
        self.companion.as_ref()
    }

    /// What the tables say of `position`: the game's own, then its
    /// companion where the first does not cover it.
    fn covered(
        &self,
        table: &Table<D>,
        position: G::Position,
    ) -> Result<Option<Probed>, TableError> {
        match self.game.table_probe(table, position)? {
            Some(probed) => Ok(Some(probed)),
            None => match &self.companion {
                Some(companion) => self.game.companion_probe(companion, position),
                None => Ok(None),
            },
        }
    }

    /// An oracle without a table: every answer comes from live search.
    pub fn search_only(game: G) -> Self {
        GameOracle {
            game,
            table: None,
            companion: None,
            limits: SearchLimits::default(),
            kept: Arc::default(),
        }
    }

    /// Limits each live search to `nodes` positions; past it an answer is
    /// [`Error::BudgetExhausted`] instead of a guess.
    pub fn with_search_budget(mut self, nodes: u64) -> Self {
        self.limits.nodes = Some(nodes);
        self
    }

    /// Limits each live search (nodes, time); past them an answer is
    /// [`Error::BudgetExhausted`] or [`Error::TimeExhausted`] instead of a
    /// guess.
    pub fn with_search_limits(mut self, limits: SearchLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Keeps the game's solver between live searches in `kept` (shared
    /// with other oracles, within its capacity) instead of a room of its
    /// own for one; `KeptSolvers::new(0)` keeps none, so each search makes
    /// its own (and its table) anew.
    pub fn with_kept_solvers(mut self, kept: Arc<KeptSolvers>) -> Self {
        self.kept = kept;
        self
    }

    /// The game.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The table, if one is loaded.
    pub fn table(&self) -> Option<&Table<D>> {
        self.table.as_ref()
    }

    /// Where answers come from.
    pub fn source(&self) -> Source {
        match self.table {
            Some(_) => Source::Table,
            None => Source::Search,
        }
    }

    /// Where the value of `position` comes from: [`Source::ForcedPlay`]
    /// where the rules settle it without the table, [`Source::Search`]
    /// where no table covers it, else [`Source::Table`]. (It probes the
    /// table; [`answer`](GameOracle::answer) and
    /// [`probe_value`](GameOracle::probe_value) say it too.)
    pub fn source_of(&self, position: G::Position) -> Source {
        match &self.table {
            Some(table) => match self.covered(table, position) {
                Ok(Some(probed)) => source(probed),
                Ok(None) => Source::Search,
                Err(_) => Source::Table,
            },
            None => Source::Search,
        }
    }

    /// The value of a position for the side to move.
    ///
    /// # Errors
    ///
    /// A [`TableError`] if the table is corrupt where the position lies,
    /// [`Error::BudgetExhausted`] if a budgeted search runs out.
    pub fn probe(&self, position: G::Position) -> Result<G::Value, Error> {
        self.probe_within(position, &Stop::default())
    }

    /// [`probe`](GameOracle::probe), its search also stopped by `stop`
    /// (shared with other searches: one request's deadline and budget).
    ///
    /// # Errors
    ///
    /// As [`probe`](GameOracle::probe), and [`Error::Cancelled`] or
    /// [`Error::TimeExhausted`] when `stop` says so.
    pub fn probe_within(&self, position: G::Position, stop: &Stop) -> Result<G::Value, Error> {
        Ok(self.probe_value_within(position, stop)?.value)
    }

    /// The value of a position for the side to move, whether its plies are
    /// a bound, and where it came from.
    ///
    /// # Errors
    ///
    /// As [`probe`](GameOracle::probe).
    pub fn probe_value(&self, position: G::Position) -> Result<Probe<G>, Error> {
        self.probe_value_within(position, &Stop::default())
    }

    /// [`probe_value`](GameOracle::probe_value), its search also stopped
    /// by `stop`.
    ///
    /// # Errors
    ///
    /// As [`probe_within`](GameOracle::probe_within).
    pub fn probe_value_within(
        &self,
        position: G::Position,
        stop: &Stop,
    ) -> Result<Probe<G>, Error> {
        // A table answer builds no search (what a warm probe costs).
        let (score, at_most, source) = match self.table_answer(position)? {
            Some(answer) => answer,
            None => self.searched(position, &mut self.new_search(stop))?,
        };
        Ok(Probe {
            value: self.game.value(position, score),
            score,
            at_most,
            source,
        })
    }

    /// The value of a position and of every legal move, best first. Where
    /// a table covers the position, the moves are those it covers (every
    /// move, but for a table of part of the game); where none does, every
    /// move is searched.
    ///
    /// # Errors
    ///
    /// As [`probe`](GameOracle::probe).
    pub fn answer(&self, position: G::Position) -> Result<Answer<G>, Error> {
        self.answer_within(position, &Stop::default())
    }

    /// [`answer`](GameOracle::answer), its searches also stopped by `stop`;
    /// where a table answers the position but not every move, the moves it
    /// leaves open are searched within the deadline (`search_uncovered`).
    ///
    /// # Errors
    ///
    /// As [`probe_within`](GameOracle::probe_within); where the game's own
    /// solver proved bounds before its limits ran out (dots-and-boxes
    /// without a table), [`Error::Bounded`] with them.
    pub fn answer_within(&self, position: G::Position, stop: &Stop) -> Result<Answer<G>, Error> {
        self.answer_searching(position, stop, true)
    }

    /// [`answer_within`](GameOracle::answer_within), but where a table
    /// answers the position, only the moves the tables cover are valued
    /// (no search for the others): what a best move or a main line needs,
    /// since the table's best move reaches the value the table gives the
    /// position and keeps to the positions it answers.
    ///
    /// # Errors
    ///
    /// As [`answer_within`](GameOracle::answer_within).
    pub fn answer_covered_within(
        &self,
        position: G::Position,
        stop: &Stop,
    ) -> Result<Answer<G>, Error> {
        self.answer_searching(position, stop, false)
    }

    fn answer_searching(
        &self,
        position: G::Position,
        stop: &Stop,
        uncovered: bool,
    ) -> Result<Answer<G>, Error> {
        let mut search = self.new_search(stop);
        // Without a table, a game's own solver may score every move in one
        // search (dots-and-boxes: the root's bounds narrow each move's).
        // A search that stops early says what it proved (bounds on the
        // value and on every move), carried by `Error::Bounded`.
        let together = match self.table {
            None => {
                // What the search proves part way goes to the stop's
                // listener, if any, in move notation.
                let mut report = |scores: &MoveScores| {
                    if stop.is_listened() {
                        stop.report(&self.bounds_of(position, scores.value, &scores.moves));
                    }
                };
                search.score_moves(position, &mut report)?
            }
            Some(_) => None,
        };
        let (score, at_most, source, move_scores) = match together {
            // A search that could not start (its table would not fit in
            // memory) proved nothing.
            Some(MoveScores {
                unknown: Some(cause),
                ..
            }) if cause.kind() != ErrorKind::Budget => return Err(cause),
            Some(MoveScores {
                unknown: Some(cause),
                value,
                moves,
            }) => return Err(self.bounded(position, cause, value, &moves)),
            Some(MoveScores { value, moves, .. }) => (
                value.0,
                false,
                Source::Search,
                Some(moves.iter().map(|m| m.0).collect::<Vec<_>>()),
            ),
            None => {
                let (score, at_most, source) = self.look_up(position, &mut search)?;
                (score, at_most, source, None)
            }
        };
        let mut moves = Vec::new();
        let mut unknown = Vec::new();
        for (i, mv) in self.game.moves(position).into_iter().enumerate() {
            let (child, transition) = self.game.play(position, mv);
            let child = match (&move_scores, &self.table, source) {
                (Some(scores), _, _) => (scores[i], false),
                (None, Some(table), Source::Table | Source::ForcedPlay) => {
                    match self.covered(table, child)? {
                        Some(probed) => (probed.score, probed.at_most),
                        None => {
                            unknown.push(mv);
                            continue;
                        }
                    }
                }
                (None, _, _) => {
                    let (score, at_most, _) = self.look_up(child, &mut search)?;
                    (score, at_most)
                }
            };
            // `score_moves` gives the moves' scores already backed up.
            let move_score = if move_scores.is_some() {
                child.0
            } else {
                transition.backup(child.0)
            };
            moves.push(MoveValue {
                mv,
                value: self.game.value(position, move_score),
                score: move_score,
                at_most: child.1,
            });
        }
        let mut searched = Vec::new();
        if uncovered && !unknown.is_empty() {
            let before = unknown.clone();
            self.search_uncovered(position, &mut moves, &mut unknown, stop)?;
            searched = before
                .into_iter()
                .filter(|mv| !unknown.contains(mv))
                .collect();
        }
        // Stable: of moves alike, the table's stay first.
        moves.sort_by_key(|m| std::cmp::Reverse(m.score));
        Ok(Answer {
            position,
            value: self.game.value(position, score),
            score,
            moves,
            source,
            at_most,
            unknown,
            searched,
        })
    }

    /// The moves of a table's answer that no table covers (`unknown`: Qubic
    /// off the strategy's line), searched live within a deadline: the
    /// caller's `stop`'s, else the oracle's time limit
    /// ([`SearchLimits::time`], the command line's `--seconds`) for all of
    /// them together. One search for the moves whose positions are images
    /// of one another, each search an equal share of the time left, then
    /// the time still left shared among those still open; a move settled
    /// joins `moves`. Without a deadline they stay unknown: an unbounded
    /// search of an opening position would not end, and a node budget
    /// per search would multiply by the moves.
    fn search_uncovered(
        &self,
        position: G::Position,
        moves: &mut Vec<MoveValue<G>>,
        unknown: &mut Vec<G::Move>,
        stop: &Stop,
    ) -> Result<(), Error> {
        let stop = match (stop.time_left(), self.limits.time) {
            (Some(_), _) => stop.clone(),
            (None, Some(time)) => stop.within(time),
            (None, None) => return Ok(()),
        };
        let stop = &stop;
        // The moves by the canonical image of their position, in the
        // order of their first move.
        let mut classes: Vec<(G::Position, Vec<G::Move>)> = Vec::new();
        for &mv in unknown.iter() {
            let canonical = self.game.canonical(self.game.play(position, mv).0);
            match classes.iter_mut().find(|(c, _)| *c == canonical) {
                Some((_, class)) => class.push(mv),
                None => classes.push((canonical, vec![mv])),
            }
        }
        for _pass in 0..2 {
            let open = std::mem::take(&mut classes);
            for (done, (canonical, class)) in open.iter().enumerate() {
                let left = stop.time_left().unwrap_or_default();
                let share = left / u32::try_from(open.len() - done).unwrap_or(u32::MAX);
                if share.is_zero() || stop.poll().is_err() {
                    classes.extend_from_slice(&open[done..]);
                    break;
                }
                let child_stop = stop.within(share);
                match self.look_up(*canonical, &mut self.new_search(&child_stop)) {
                    Ok((score, at_most, _)) => {
                        for &mv in class {
                            let score = self.game.play(position, mv).1.backup(score);
                            moves.push(MoveValue {
                                mv,
                                value: self.game.value(position, score),
                                score,
                                at_most,
                            });
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::Budget => {
                        classes.push((*canonical, class.clone()))
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        // What is still open, in the game's order.
        unknown.retain(|mv| classes.iter().any(|(_, class)| class.contains(mv)));
        Ok(())
    }

    /// The score of a position, whether it is a bound, and where it came
    /// from: the table where it covers the position, else `search` of its
    /// canonical image, so that every image of a position takes the same
    /// search and, under a budget, answers or stops alike (the fuzzer
    /// caught two images of a Qubic position, one answered and one out of
    /// its budget).
    pub(crate) fn look_up(
        &self,
        position: G::Position,
        search: &mut Search<'_, G>,
    ) -> Result<(Score, bool, Source), Error> {
        match self.table_answer(position)? {
            Some(answer) => Ok(answer),
            None => self.searched(position, search),
        }
    }

    /// The score of a position no table covers, whether it is a bound:
    /// the game's live proof ([`Tabled::live_probe`]) where the request's
    /// [`Stop`] has a deadline or a node budget and the game has one, else
    /// `search` of its canonical image.
    fn searched(
        &self,
        position: G::Position,
        search: &mut Search<'_, G>,
    ) -> Result<(Score, bool, Source), Error> {
        let canonical = self.game.canonical(position);
        let limits = search.limits();
        if limits.stop.is_limited() {
            if let Some(probed) = self.game.live_probe(self.table.as_ref(), canonical, limits) {
                let probed = probed?;
                return Ok((probed.score, probed.at_most, Source::Search));
            }
        }
        Ok((search.score(canonical)?, false, Source::Search))
    }

    /// What the table says of `position` (its score, whether the plies are
    /// a bound, where it came from), or `None` where no table covers it.
    fn table_answer(&self, position: G::Position) -> Result<Option<(Score, bool, Source)>, Error> {
        let Some(table) = &self.table else {
            return Ok(None);
        };
        Ok(self
            .covered(table, position)?
            .map(|probed| (probed.score, probed.at_most, source(probed))))
    }

    /// The error of a search stopped by `cause` that proved `value` and
    /// `moves` (score bounds, moves in the order of [`Game::moves`](crate::Game::moves)).
    fn bounded(
        &self,
        position: G::Position,
        cause: Error,
        value: (Score, Score),
        moves: &[(Score, Score)],
    ) -> Error {
        Error::Bounded {
            cause: Box::new(cause),
            bounds: Box::new(self.bounds_of(position, value, moves)),
        }
    }

    /// Bounds on the scores of `position` and of its moves (in the order
    /// of [`Game::moves`]) as bounds on their values, the moves named.
    fn bounds_of(
        &self,
        position: G::Position,
        value: (Score, Score),
        moves: &[(Score, Score)],
    ) -> Bounds {
        let game = &self.game;
        let bounds = |(lower, upper): (Score, Score)| ValueBounds {
            lower: game.value(position, lower).into(),
            upper: game.value(position, upper).into(),
        };
        let moves = game
            .moves(position)
            .into_iter()
            .zip(moves)
            .map(|(mv, &scores)| BoundedMove {
                mv: mv.to_string(),
                bounds: bounds(scores),
            })
            .collect();
        Bounds {
            value: bounds(value),
            moves,
        }
    }

    pub(crate) fn new_search(&self, stop: &Stop) -> Search<'_, G> {
        let mut limits = self.limits.clone();
        if *stop != Stop::default() {
            limits.stop = stop.clone();
        }
        Search::with_limits(&self.game, limits).keeping(&self.kept, self.game.id())
    }

    /// Whether the table holds an entry of `position`'s own: not a
    /// don't-care entry, not a position the rules settle first, and there
    /// is a table.
    pub(crate) fn stores(&self, position: G::Position) -> bool {
        self.table.is_some()
            && !self.game.settled_by_rules(position)
            && !self.game.resolved_by_rule(self.game.canonical(position))
    }
}

/// Where a table's answer came from.
fn source(probed: Probed) -> Source {
    if probed.by_rules {
        Source::ForcedPlay
    } else {
        Source::Table
    }
}
