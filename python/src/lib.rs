//! `solvedb._solvedb`: the [`solvedb_lookup::Oracle`] for Python.
//!
//! This module only converts: Python arguments to a [`GameId`] and position
//! text, [`Report`]s to small immutable Python objects, and errors — through
//! [`Error::kind`], in [`to_py_err`] alone — to the exception classes. Every
//! rule, value and move comes from the lookup crate. The GIL is released
//! while the oracle works, so Python threads sharing one `Oracle` probe in
//! parallel.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use solvedb_lookup::{
    AnyValue, BoardShape, Error as LookupError, ErrorKind, Game, GameId, GameInfo,
    Mainline as LookupMainline, MoveReport, Oracle as LookupOracle, Report as LookupReport,
    SearchLimits, TablePlan, catalogue, with_game,
};

create_exception!(
    solvedb,
    Error,
    PyException,
    "The base class of every error solvedb raises."
);
create_exception!(
    solvedb,
    PositionError,
    Error,
    "A position or move that is malformed or could not arise in play."
);
create_exception!(
    solvedb,
    TableError,
    Error,
    "A table file that is damaged, foreign or newer than this build."
);
create_exception!(
    solvedb,
    UnsupportedGame,
    Error,
    "A game name or board this build does not answer."
);
create_exception!(
    solvedb,
    BudgetExhausted,
    Error,
    "A live search ran out of its node or time budget: the answer is unknown."
);
create_exception!(
    solvedb,
    IoError,
    Error,
    "A table file or the tables directory cannot be read."
);

/// The one mapping from a lookup error to a Python exception: by its kind.
fn to_py_err(error: LookupError) -> PyErr {
    let message = error.to_string();
    match error.kind() {
        ErrorKind::Position => PositionError::new_err(message),
        ErrorKind::Table => TableError::new_err(message),
        ErrorKind::Unsupported => UnsupportedGame::new_err(message),
        ErrorKind::Budget => BudgetExhausted::new_err(message),
        ErrorKind::Io => IoError::new_err(message),
        // No call of the Oracle makes a request error (that kind is for the
        // faces that parse requests), and `ErrorKind` is non-exhaustive: any
        // other kind is still a `solvedb.Error`.
        _ => Error::new_err(message),
    }
}

/// A game name, one of [`games`] (or any `dots:MxN`).
fn game_id(name: &str) -> PyResult<GameId> {
    name.parse::<GameId>()
        .map_err(|unknown| to_py_err(LookupError::from(unknown)))
}

/// The value fields of `probe --json`: `result` and `plies` for the
/// tic-tac-toe family, `value` (the margin) for dots-and-boxes.
#[derive(Clone, Debug, Default)]
struct ValueFields {
    result: Option<&'static str>,
    plies: Option<u8>,
    value: Option<i32>,
}

impl From<AnyValue> for ValueFields {
    fn from(value: AnyValue) -> ValueFields {
        match value {
            AnyValue::Outcome(o) => ValueFields {
                result: Some(o.wdl.as_str()),
                plies: Some(o.plies),
                value: None,
            },
            AnyValue::Margin(m) => ValueFields {
                value: Some(m),
                ..ValueFields::default()
            },
        }
    }
}

impl ValueFields {
    fn repr(&self) -> String {
        match (self.result, self.plies, self.value) {
            (Some(result), Some(plies), _) => format!("result='{result}', plies={plies}"),
            (_, _, Some(value)) => format!("value={value}"),
            _ => String::new(),
        }
    }
}

/// One move and its value for the player who makes it, counted from before
/// the move: `move` in the game's notation, and `result`/`plies` (tic-tac-toe
/// family) or `value` (dots-and-boxes: the net boxes still to be won,
/// including any the move completes).
#[pyclass(frozen, module = "solvedb", name = "MoveReport")]
#[derive(Clone, Debug)]
struct PyMoveReport {
    mv: String,
    fields: ValueFields,
}

#[pymethods]
impl PyMoveReport {
    /// The move in the game's notation (`"4"`, `"h0,1"`).
    #[getter(r#move)]
    fn mv(&self) -> &str {
        &self.mv
    }

    /// `"win"`, `"draw"` or `"loss"` for the mover; `None` for dots-and-boxes.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        self.fields.result
    }

    /// Plies to the end of the game after perfect play from before the move;
    /// `None` for dots-and-boxes.
    #[getter]
    fn plies(&self) -> Option<u8> {
        self.fields.plies
    }

    /// Dots-and-boxes: the net number of still unclaimed boxes the mover
    /// wins; `None` for the tic-tac-toe family.
    #[getter]
    fn value(&self) -> Option<i32> {
        self.fields.value
    }

    fn __repr__(&self) -> String {
        format!("MoveReport(move='{}', {})", self.mv, self.fields.repr())
    }
}

impl From<MoveReport> for PyMoveReport {
    fn from(report: MoveReport) -> PyMoveReport {
        PyMoveReport {
            mv: report.mv,
            fields: report.value.into(),
        }
    }
}

/// The answer about one position, always from the side to move: the fields
/// of `solvedb probe --json`, and `moves` best first (empty when only the
/// value was asked for).
#[pyclass(frozen, module = "solvedb", name = "Report")]
#[derive(Debug)]
struct PyReport {
    report: LookupReport,
    fields: ValueFields,
    moves: Py<PyTuple>,
}

impl PyReport {
    fn new(py: Python<'_>, report: LookupReport) -> PyResult<PyReport> {
        let moves = PyTuple::new(py, report.moves.iter().cloned().map(PyMoveReport::from))?;
        Ok(PyReport {
            fields: report.value.into(),
            report,
            moves: moves.unbind(),
        })
    }
}

#[pymethods]
impl PyReport {
    /// The game: `tictactoe`, `tictactoe:4x4`, `cube` or `dots:MxN`.
    #[getter]
    fn game(&self) -> String {
        self.report.game.to_string()
    }

    /// The position in solvedb's notation (normalised).
    #[getter]
    fn position(&self) -> &str {
        &self.report.position
    }

    /// `"X"` or `"O"`; `None` for dots-and-boxes.
    #[getter]
    fn to_move(&self) -> Option<String> {
        self.report.to_move.map(String::from)
    }

    /// `"win"`, `"draw"` or `"loss"` for the side to move; `None` for
    /// dots-and-boxes.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        self.fields.result
    }

    /// Plies to the end of the game under perfect play; `None` for
    /// dots-and-boxes.
    #[getter]
    fn plies(&self) -> Option<u8> {
        self.fields.plies
    }

    /// Dots-and-boxes: the net number of still unclaimed boxes the side to
    /// move wins; `None` for the tic-tac-toe family.
    #[getter]
    fn value(&self) -> Option<i32> {
        self.fields.value
    }

    /// Where the answer came from: `"table"`, `"forced"` or `"search"`.
    #[getter]
    fn source(&self) -> &'static str {
        self.report.source.as_str()
    }

    /// Every legal move with its value, best first (a tuple of
    /// `MoveReport`); empty from `probe`.
    #[getter]
    fn moves(&self, py: Python<'_>) -> Py<PyTuple> {
        self.moves.clone_ref(py)
    }

    /// The answer as one line of JSON, the shape of `solvedb probe --json`.
    fn to_json(&self) -> String {
        self.report.to_json().to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(game='{}', position='{}', {}, source='{}', moves={})",
            self.report.game,
            self.report.position,
            self.fields.repr(),
            self.report.source.as_str(),
            self.report.moves.len()
        )
    }
}

/// The best line from a position to the end of the game.
#[pyclass(frozen, module = "solvedb", name = "Mainline")]
#[derive(Debug)]
struct PyMainline {
    line: LookupMainline,
    fields: ValueFields,
}

#[pymethods]
impl PyMainline {
    /// The starting position in solvedb's notation.
    #[getter]
    fn position(&self) -> &str {
        &self.line.position
    }

    /// `"win"`, `"draw"` or `"loss"` for the side to move at the start.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        self.fields.result
    }

    /// Plies to the end of the game (the length of the line).
    #[getter]
    fn plies(&self) -> Option<u8> {
        self.fields.plies
    }

    /// Dots-and-boxes: the net boxes the side to move wins.
    #[getter]
    fn value(&self) -> Option<i32> {
        self.fields.value
    }

    /// `"table"`, `"forced"` or `"search"`.
    #[getter]
    fn source(&self) -> &'static str {
        self.line.source.as_str()
    }

    /// The moves of the line, in order.
    #[getter]
    fn moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.line.moves)
    }

    /// The position at the end of the line, where the game is over.
    #[getter]
    fn last(&self) -> &str {
        &self.line.last
    }

    fn __repr__(&self) -> String {
        format!(
            "Mainline(position='{}', {}, moves={:?}, last='{}')",
            self.line.position,
            self.fields.repr(),
            self.line.moves,
            self.line.last
        )
    }
}

/// Perfect-play answers from a directory of solvedb tables; a game without a
/// table is answered by exact live search within the limits.
#[pyclass(frozen, module = "solvedb", name = "Oracle")]
#[derive(Debug)]
struct PyOracle {
    oracle: LookupOracle,
}

#[pymethods]
impl PyOracle {
    #[new]
    #[pyo3(signature = (tables_dir, *, max_nodes=None, max_seconds=None))]
    fn new(
        tables_dir: PathBuf,
        max_nodes: Option<u64>,
        max_seconds: Option<f64>,
    ) -> PyResult<PyOracle> {
        let time = max_seconds
            .map(|s| {
                Duration::try_from_secs_f64(s).map_err(|e| {
                    PyValueError::new_err(format!("max_seconds={s} is not a duration: {e}"))
                })
            })
            .transpose()?;
        let limits = SearchLimits {
            nodes: max_nodes,
            time,
            ..SearchLimits::default()
        };
        let oracle = LookupOracle::open(&tables_dir)
            .map_err(to_py_err)?
            .with_search_limits(limits);
        Ok(PyOracle { oracle })
    }

    /// The tables directory (always set: the constructor takes one).
    #[getter]
    fn tables_dir(&self) -> PathBuf {
        self.oracle.dir().map(ToOwned::to_owned).unwrap_or_default()
    }

    /// The value of a position (no moves).
    fn probe(&self, py: Python<'_>, game: &str, position: &str) -> PyResult<PyReport> {
        let game = game_id(game)?;
        let report = py.detach(|| self.oracle.probe(game, position));
        PyReport::new(py, report.map_err(to_py_err)?)
    }

    /// The value of a position and of every move, best first.
    fn moves(&self, py: Python<'_>, game: &str, position: &str) -> PyResult<PyReport> {
        let game = game_id(game)?;
        let report = py.detach(|| self.oracle.moves(game, position));
        PyReport::new(py, report.map_err(to_py_err)?)
    }

    /// The best move, or `None` when the game is over.
    fn best_move(
        &self,
        py: Python<'_>,
        game: &str,
        position: &str,
    ) -> PyResult<Option<PyMoveReport>> {
        let game = game_id(game)?;
        let best = py.detach(|| self.oracle.best_move(game, position));
        Ok(best.map_err(to_py_err)?.map(PyMoveReport::from))
    }

    /// The best line from a position to the end of the game.
    fn mainline(&self, py: Python<'_>, game: &str, position: &str) -> PyResult<PyMainline> {
        let game = game_id(game)?;
        let line = py
            .detach(|| self.oracle.mainline(game, position))
            .map_err(to_py_err)?;
        Ok(PyMainline {
            fields: line.value.into(),
            line,
        })
    }

    /// Many positions of one game at once, with the GIL released for the
    /// whole batch: a list of `Report`, in order. `positions` is any iterable
    /// of strings (a list, or a numpy array of strings).
    #[pyo3(signature = (game, positions, *, moves=false))]
    fn probe_many(
        &self,
        py: Python<'_>,
        game: &str,
        positions: &Bound<'_, PyAny>,
        moves: bool,
    ) -> PyResult<Vec<PyReport>> {
        let game = game_id(game)?;
        let texts = positions
            .try_iter()?
            .map(|p| p?.extract::<String>())
            .collect::<PyResult<Vec<String>>>()?;
        let want = if moves {
            solvedb_lookup::Want::Moves
        } else {
            solvedb_lookup::Want::Value
        };
        let reports = py.detach(|| {
            texts
                .iter()
                .map(|text| self.oracle.answer(game, text, want))
                .collect::<Result<Vec<_>, _>>()
        });
        reports
            .map_err(to_py_err)?
            .into_iter()
            .map(|report| PyReport::new(py, report))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("Oracle({:?})", self.oracle.dir())
    }
}

/// One game of the catalogue: what the package's list of games says of it.
#[pyclass(frozen, module = "solvedb", name = "Game")]
#[derive(Debug)]
struct PyGame {
    info: GameInfo,
    start: String,
}

#[pymethods]
impl PyGame {
    /// The name every call takes: `tictactoe`, `dots:2x3`.
    #[getter]
    fn name(&self) -> String {
        self.info.name()
    }

    /// The name people read: `tic-tac-toe 3×3`.
    #[getter]
    fn title(&self) -> &str {
        &self.info.title
    }

    /// `grid`, `layers` or `dots`.
    #[getter]
    fn board(&self) -> &'static str {
        self.info.board.kind().as_str()
    }

    /// The board's size: `(n, n)` cells for a grid, `(n, n, n)` for layers,
    /// `(rows, cols)` of boxes for dots.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let sides = match self.info.board {
            BoardShape::Grid { size } => vec![size, size],
            BoardShape::Layers { size } => vec![size, size, size],
            BoardShape::Dots { rows, cols } => vec![rows, cols],
        };
        PyTuple::new(py, sides)
    }

    /// The moves of the empty board: cells, or edges on dots.
    #[getter]
    fn moves(&self) -> u32 {
        self.info.board.moves()
    }

    /// The start position in solvedb's notation.
    #[getter]
    fn start(&self) -> &str {
        &self.start
    }

    /// Whether the repository ships its table (`default`), builds it on
    /// request (`on request`) or has none (`unavailable`: always searched).
    #[getter]
    fn table(&self) -> &'static str {
        match self.info.table {
            TablePlan::Default => "default",
            TablePlan::OnRequest => "on request",
            TablePlan::Unavailable => "unavailable",
        }
    }

    fn __repr__(&self) -> String {
        format!("Game({:?}, {:?})", self.info.name(), self.info.title)
    }
}

/// Every game solvedb answers by name, as its catalogue lists them: the
/// single boards, then the dots-and-boxes boards whose table ships or that
/// the explorer offers (any other `dots:MxN` up to 63 edges is answered
/// too).
#[pyfunction]
fn games() -> PyResult<Vec<PyGame>> {
    catalogue()
        .iter()
        .map(|info| {
            let start = with_game!(info.id, g => Ok::<_, LookupError>(g.notation(g.start())))
                .map_err(to_py_err)?;
            Ok(PyGame {
                info: info.clone(),
                start,
            })
        })
        .collect()
}

/// The native half of the `solvedb` package.
#[pymodule]
fn _solvedb(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_function(wrap_pyfunction!(games, module)?)?;
    module.add_class::<PyGame>()?;
    module.add_class::<PyOracle>()?;
    module.add_class::<PyReport>()?;
    module.add_class::<PyMoveReport>()?;
    module.add_class::<PyMainline>()?;
    module.add("Error", py.get_type::<Error>())?;
    module.add("PositionError", py.get_type::<PositionError>())?;
    module.add("TableError", py.get_type::<TableError>())?;
    module.add("UnsupportedGame", py.get_type::<UnsupportedGame>())?;
    module.add("BudgetExhausted", py.get_type::<BudgetExhausted>())?;
    module.add("IoError", py.get_type::<IoError>())?;
    Ok(())
}
