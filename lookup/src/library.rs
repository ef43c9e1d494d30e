//! [`Oracle`]: one probe path for every game and board, over a directory of
//! tables that are opened lazily, with game-neutral answers ([`Report`]) and
//! the JSON shape that `solvedb probe --json`, `solvedb serve` and the C ABI
//! share.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value as Json, json};

use crate::error::Error;
use crate::game::{GameId, Tabled};
use crate::games::cube::Cube;
use crate::games::dots::{Dots, Edges};
use crate::games::tictactoe::TicTacToe;
use crate::mapping::{Opener, TableBytes};
use crate::oracle::{GameOracle, Source};
use crate::search::Limits;
use crate::value::{Margin, Outcome};

/// A value in a form that does not depend on the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AnyValue {
    /// Tic-tac-toe family: win, draw or loss and the plies to the end.
    Outcome(Outcome),
    /// Dots-and-boxes: the net number of unclaimed boxes the player wins.
    Margin(i32),
}

impl AnyValue {
    /// The JSON fields of this value: `result` and `plies`, or `value`.
    fn json_fields(self, into: &mut Map<String, Json>) {
        match self {
            AnyValue::Outcome(o) => {
                into.insert("result".into(), json!(o.wdl.as_str()));
                into.insert("plies".into(), json!(o.plies));
            }
            AnyValue::Margin(m) => {
                into.insert("value".into(), json!(m));
            }
        }
    }
}

impl std::fmt::Display for AnyValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyValue::Outcome(o) => o.fmt(f),
            AnyValue::Margin(m) => write!(f, "{m:+}"),
        }
    }
}

/// A game the [`Oracle`] answers for: how its values and positions read
/// without knowing the game.
pub trait ReportGame: Tabled + Copy {
    /// The value in game-neutral form.
    fn any_value(&self, value: Self::Value) -> AnyValue;
    /// `Some('X')` / `Some('O')` where the side to move has a name.
    fn to_move(&self, position: Self::Position) -> Option<char>;
}

impl ReportGame for TicTacToe {
    fn any_value(&self, value: Outcome) -> AnyValue {
        AnyValue::Outcome(value)
    }
    fn to_move(&self, position: Self::Position) -> Option<char> {
        Some(TicTacToe::to_move(*self, position))
    }
}

impl ReportGame for Cube {
    fn any_value(&self, value: Outcome) -> AnyValue {
        AnyValue::Outcome(value)
    }
    fn to_move(&self, position: Self::Position) -> Option<char> {
        Some(Cube::to_move(*self, position))
    }
}

impl ReportGame for Dots {
    fn any_value(&self, value: Margin) -> AnyValue {
        AnyValue::Margin(value.0)
    }
    fn to_move(&self, _: Edges) -> Option<char> {
        None
    }
}

/// One move and its value for the player who makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveReport {
    /// The move in the game's notation.
    pub mv: String,
    /// Its value for the player who makes it, counted from before the move.
    pub value: AnyValue,
}

/// An answer about one position, for any game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The game and board.
    pub game: GameId,
    /// The position in the game's notation (normalised).
    pub position: String,
    /// The side to move, where it has a name.
    pub to_move: Option<char>,
    /// The value for the side to move.
    pub value: AnyValue,
    /// Where the answer came from.
    pub source: Source,
    /// Every legal move, best first (empty when only the value was asked).
    pub moves: Vec<MoveReport>,
}

impl Report {
    /// The answer as one line of JSON, the shape of `solvedb probe --json`:
    /// `{"game":"tictactoe","position":"...","to_move":"X","result":"win",
    /// "plies":3,"source":"table","moves":[{"move":"4","result":"win",
    /// "plies":3}, ...]}`; dots-and-boxes has `"game":"dots","board":"3x3"`
    /// and `value` instead of `result`/`plies`, and no `to_move`.
    pub fn to_json(&self) -> Json {
        let mut object = Map::new();
        match self.game {
            GameId::Dots { rows, cols } => {
                object.insert("game".into(), json!("dots"));
                object.insert("board".into(), json!(format!("{rows}x{cols}")));
            }
            game => {
                object.insert("game".into(), json!(game.to_string()));
            }
        }
        object.insert("position".into(), json!(self.position));
        if let Some(side) = self.to_move {
            object.insert("to_move".into(), json!(side.to_string()));
        }
        self.value.json_fields(&mut object);
        object.insert("source".into(), json!(self.source.as_str()));
        let moves = self
            .moves
            .iter()
            .map(|m| {
                let mut entry = Map::new();
                entry.insert("move".into(), json!(m.mv));
                m.value.json_fields(&mut entry);
                Json::Object(entry)
            })
            .collect();
        object.insert("moves".into(), Json::Array(moves));
        Json::Object(object)
    }
}

/// What to compute about a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// The value only.
    Value,
    /// The value and every move's value.
    Moves,
}

/// The answer for `text` from one game's oracle.
fn report<G: ReportGame, D: AsRef<[u8]>>(
    oracle: &GameOracle<G, D>,
    text: &str,
    want: Want,
) -> Result<Report, Error> {
    let game = oracle.game();
    let position = game.parse(text)?;
    let (value, moves) = match want {
        Want::Value => (oracle.probe(position)?, Vec::new()),
        Want::Moves => {
            let answer = oracle.answer(position)?;
            let moves = answer
                .moves
                .iter()
                .map(|m| MoveReport {
                    mv: m.mv.to_string(),
                    value: game.any_value(m.value),
                })
                .collect();
            (answer.value, moves)
        }
    };
    Ok(Report {
        game: game.id(),
        position: game.notation(position),
        to_move: game.to_move(position),
        value: game.any_value(value),
        source: oracle.source_of(position),
        moves,
    })
}

/// One game's oracle, shared by the threads that probe it.
type Shared<G> = Arc<GameOracle<G, TableBytes>>;

/// One game's oracle, opened on first use.
type Slot<G> = OnceLock<Shared<G>>;

/// Perfect-play answers for every supported game from one directory of
/// tables, for many threads at once.
///
/// Tables are opened on first use; a game without a table file is answered
/// by exact live search, and each [`Report`] says which source answered.
/// A table that exists but is damaged is an error, never a silent fallback.
///
/// One example per game, against the repository's tables:
///
/// ```
/// use solvedb_lookup::{AnyValue, GameId, Oracle, Source, Want, Wdl};
///
/// let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/../tables");
/// let oracle = Oracle::open_reading(tables.as_ref())?;
///
/// // Tic-tac-toe: X to move completes the top row.
/// let report = oracle.answer(GameId::TicTacToe, "XX./OO./...", Want::Moves)?;
/// assert!(matches!(report.value, AnyValue::Outcome(o) if o.wdl == Wdl::Win && o.plies == 1));
/// assert_eq!(report.moves[0].mv, "2");
///
/// // The 3x3x3 cube: the best first move, and the value of the empty cube.
/// let empty = ".".repeat(27);
/// let best = oracle.best_move(GameId::Cube, &empty)?.expect("the game is not over");
/// let value = oracle.probe(GameId::Cube, &empty)?.value;
/// assert_eq!(best.value, value);
/// println!("cube: {value}, best first move {}", best.mv);
///
/// // Dots-and-boxes on 2x2 boxes: the net boxes the player to move wins.
/// let report = oracle.moves(GameId::Dots { rows: 2, cols: 2 }, "2x2:h0,0 v1,2")?;
/// assert_eq!(report.source, Source::Table);
/// println!("dots 2x2: {} for the player to move", report.value);
/// # Ok::<(), solvedb_lookup::Error>(())
/// ```
#[derive(Debug)]
pub struct Oracle {
    dir: PathBuf,
    opener: Opener,
    limits: Limits,
    tictactoe: Slot<TicTacToe>,
    cube: Slot<Cube>,
    /// Dots-and-boxes, one oracle per board, opened on first use.
    dots: Mutex<HashMap<(u8, u8), Shared<Dots>>>,
    /// Serialises first opens, so a table is read or mapped once.
    opening: Mutex<()>,
}

impl Oracle {
    /// An oracle over the tables in `dir`, reading each file into memory on
    /// first use: safe, at the cost of reading whole tables. A `dir` that
    /// does not exist holds no tables (every answer is searched).
    ///
    /// # Errors
    ///
    /// [`Error::NotADirectory`] if `dir` exists but is not a directory.
    pub fn open_reading(dir: &Path) -> Result<Oracle, Error> {
        Oracle::new(dir, Opener::reading())
    }

    /// An oracle over `dir` whose tables `opener` opens (see `Oracle::open`
    /// in `mapping.rs` for the mapping one).
    pub(crate) fn new(dir: &Path, opener: Opener) -> Result<Oracle, Error> {
        // A directory that does not exist holds no tables: every game is
        // searched. A path that is something else is a mistake.
        if dir.exists() && !dir.is_dir() {
            return Err(Error::NotADirectory {
                path: dir.to_owned(),
            });
        }
        Ok(Oracle {
            dir: dir.to_owned(),
            opener,
            limits: Limits::default(),
            tictactoe: OnceLock::new(),
            cube: OnceLock::new(),
            dots: Mutex::default(),
            opening: Mutex::new(()),
        })
    }

    /// Limits every live search to `nodes` positions; past it the answer is
    /// [`Error::BudgetExhausted`] ("unknown within the budget").
    pub fn with_search_budget(mut self, nodes: u64) -> Oracle {
        self.limits.nodes = Some(nodes);
        self
    }

    /// Limits every live search (nodes, time, memory); past them the answer
    /// is [`Error::BudgetExhausted`] or [`Error::TimeExhausted`].
    pub fn with_search_limits(mut self, limits: Limits) -> Oracle {
        self.limits = limits;
        self
    }

    /// The tables directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The value of a position (no moves).
    ///
    /// # Errors
    ///
    /// A [`PositionError`](crate::PositionError) for bad notation, a
    /// [`TableError`](crate::TableError) for a damaged table,
    /// [`Error::BudgetExhausted`] when a budgeted search runs out,
    /// [`Error::Unsupported`] for a game this build cannot answer.
    pub fn probe(&self, game: GameId, position: &str) -> Result<Report, Error> {
        self.answer(game, position, Want::Value)
    }

    /// The value of a position and of every move, best first.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn moves(&self, game: GameId, position: &str) -> Result<Report, Error> {
        self.answer(game, position, Want::Moves)
    }

    /// The best move (the first of [`moves`](Oracle::moves)), `None` when the
    /// game is over.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn best_move(&self, game: GameId, position: &str) -> Result<Option<MoveReport>, Error> {
        Ok(self.moves(game, position)?.moves.into_iter().next())
    }

    /// The answer `want` asks for.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn answer(&self, game: GameId, position: &str, want: Want) -> Result<Report, Error> {
        match game {
            GameId::TicTacToe => report(
                &*self.game_oracle(&self.tictactoe, TicTacToe)?,
                position,
                want,
            ),
            GameId::Cube => report(&*self.game_oracle(&self.cube, Cube)?, position, want),
            GameId::Dots { rows, cols } => {
                let board = Dots::new(rows, cols)?;
                let oracle = {
                    let mut boards = self.dots.lock().unwrap_or_else(|e| e.into_inner());
                    match boards.get(&(rows, cols)) {
                        Some(oracle) => Arc::clone(oracle),
                        None => {
                            let oracle = Arc::new(self.load(board)?);
                            boards.insert((rows, cols), Arc::clone(&oracle));
                            oracle
                        }
                    }
                };
                report(&*oracle, position, want)
            }
        }
    }

    /// The oracle of one game, opening its table on first use.
    fn game_oracle<G: ReportGame>(
        &self,
        slot: &Slot<G>,
        game: G,
    ) -> Result<Arc<GameOracle<G, TableBytes>>, Error> {
        if let Some(oracle) = slot.get() {
            return Ok(Arc::clone(oracle));
        }
        let _opening = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(oracle) = slot.get() {
            return Ok(Arc::clone(oracle));
        }
        let oracle = self.load(game)?;
        Ok(Arc::clone(slot.get_or_init(|| Arc::new(oracle))))
    }

    /// One game's oracle: over its table if the directory has one, else
    /// searching within the limits.
    fn load<G: ReportGame>(&self, game: G) -> Result<GameOracle<G, TableBytes>, Error> {
        let path = self.dir.join(game.id().table_file_name());
        let oracle = if path.exists() {
            GameOracle::with_table(game, self.opener.open(&path)?)?
        } else {
            GameOracle::search_only(game)
        };
        Ok(oracle.with_search_limits(self.limits))
    }
}
