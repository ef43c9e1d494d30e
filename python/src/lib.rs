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

use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use solvedb_lookup::{
    AnyValue, BoardShape, Columns, Encoded, Error as LookupError, ErrorKind, Game, GameId,
    GameInfo, Mainline as LookupMainline, MoveReport, Oracle as LookupOracle, Positions,
    Report as LookupReport, SearchLimits, TablePlan, catalogue, dataset, with_game,
};

/// The default tables, compiled in by `build.rs` from `tables/MANIFEST`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/tables.rs"));
}

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
        // A request error reaches here only where a live search's table
        // would not fit in memory (`TableMemory`; that kind is otherwise for
        // the faces that parse requests), and `ErrorKind` is non-exhaustive:
        // any other kind is still a `solvedb.Error`.
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
    /// `"exact"`, or `"at_most"` where `plies` is a bound (a Qubic
    /// strategy's); `None` for dots-and-boxes.
    plies_bound: Option<&'static str>,
    value: Option<i32>,
}

impl From<AnyValue> for ValueFields {
    fn from(value: AnyValue) -> ValueFields {
        match value {
            AnyValue::Outcome(o) => ValueFields {
                result: Some(o.wdl.as_str()),
                plies: Some(o.plies),
                plies_bound: Some("exact"),
                value: None,
            },
            AnyValue::AtMost(o) => ValueFields {
                result: Some(o.wdl.as_str()),
                plies: Some(o.plies),
                plies_bound: Some("at_most"),
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
            (Some(result), Some(plies), _) if self.plies_bound == Some("at_most") => {
                format!("result='{result}', plies<={plies}")
            }
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

    /// `"exact"`, or `"at_most"` where `plies` is an upper bound (a Qubic
    /// position answered from its winning strategy); `None` for
    /// dots-and-boxes.
    #[getter]
    fn plies_bound(&self) -> Option<&'static str> {
        self.fields.plies_bound
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

    /// `"exact"`, or `"at_most"` where `plies` is an upper bound (a Qubic
    /// position answered from its winning strategy); `None` for
    /// dots-and-boxes.
    #[getter]
    fn plies_bound(&self) -> Option<&'static str> {
        self.fields.plies_bound
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

    /// `"exact"`, or `"at_most"` where `plies` is an upper bound (a Qubic
    /// position answered from its winning strategy); `None` for
    /// dots-and-boxes.
    #[getter]
    fn plies_bound(&self) -> Option<&'static str> {
        self.fields.plies_bound
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
    #[pyo3(signature = (tables_dir=None, *, max_nodes=None, max_seconds=None))]
    fn new(
        tables_dir: Option<PathBuf>,
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
        let oracle = match tables_dir {
            Some(dir) => LookupOracle::open(&dir),
            None => LookupOracle::from_static_tables(embedded::TABLES),
        };
        let oracle = oracle.map_err(to_py_err)?.with_search_limits(limits);
        Ok(PyOracle { oracle })
    }

    /// The tables directory; `None` for the tables inside the package.
    #[getter]
    fn tables_dir(&self) -> Option<PathBuf> {
        self.oracle.dir().map(ToOwned::to_owned)
    }

    /// Many positions of one game at once, answered in numpy arrays (an
    /// `Arrays`), with the GIL released and no Python object per position.
    /// `positions` is a list or array of strings in solvedb's notation, or
    /// a numpy array of integer codes: shape `(n, 2)`, X's and O's stones
    /// as cell masks for the tic-tac-toe family; shape `(n,)` (or `(n, 2)`
    /// with zeros beside) of drawn-edge masks for dots-and-boxes.
    /// Without `moves`, only the positions' own values (the move arrays
    /// have no columns).
    #[pyo3(signature = (game, positions, *, moves=true))]
    fn probe_arrays(
        &self,
        py: Python<'_>,
        game: &str,
        positions: &Bound<'_, PyAny>,
        moves: bool,
    ) -> PyResult<PyArrays> {
        let game = game_id(game)?;
        let columns = match integer_codes(py, positions)? {
            Some(codes) => py.detach(|| self.oracle.columns(game, Positions::Codes(&codes), moves)),
            None => {
                let texts = positions
                    .try_iter()?
                    .map(|p| p?.extract::<String>())
                    .collect::<PyResult<Vec<String>>>()?;
                py.detach(|| {
                    self.oracle
                        .columns(game, Positions::Notation(&texts), moves)
                })
            }
        };
        PyArrays::new(py, game, columns.map_err(to_py_err)?)
    }

    /// Every position `game`'s table holds, with its value and every
    /// move's (an `Arrays`, in the table's order): the canonical positions,
    /// or with `all_symmetries` every symmetric image too; `sample` keeps
    /// that many, uniformly at random by `seed` (as `solvedb export
    /// --sample N --seed S`).
    #[pyo3(signature = (game, *, all_symmetries=false, sample=None, seed=0))]
    fn table_arrays(
        &self,
        py: Python<'_>,
        game: &str,
        all_symmetries: bool,
        sample: Option<u64>,
        seed: u64,
    ) -> PyResult<PyArrays> {
        let game = game_id(game)?;
        let columns = py.detach(|| {
            let span = 0..self.oracle.table_span(game)?;
            let places = match sample {
                Some(n) => {
                    let total = self
                        .oracle
                        .table_count(game, span.clone(), all_symmetries)?;
                    Some(dataset::sample(total, n, seed))
                }
                None => None,
            };
            self.oracle
                .table_rows(game, span, all_symmetries, places.as_deref(), true)
        });
        PyArrays::new(py, game, columns.map_err(to_py_err)?)
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
        match self.oracle.dir() {
            Some(dir) => format!("Oracle({dir:?})"),
            None => "Oracle()".to_owned(),
        }
    }
}

/// Integer codes from a numpy array of integers, `None` for anything else
/// (strings are read by the caller).
fn integer_codes(py: Python<'_>, positions: &Bound<'_, PyAny>) -> PyResult<Option<Vec<[u64; 2]>>> {
    let numpy = py.import("numpy")?;
    if !positions.is_instance(&numpy.getattr("ndarray")?)? {
        return Ok(None);
    }
    let kind: String = positions.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Ok(None);
    }
    let array = numpy.call_method1("ascontiguousarray", (positions, "uint64"))?;
    let array: PyReadonlyArrayDyn<'_, u64> = array.extract()?;
    let shape = array.shape().to_vec();
    let data = array
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    match shape.as_slice() {
        [_] => Ok(Some(data.iter().map(|&a| [a, 0]).collect())),
        [_, 2] => Ok(Some(data.chunks_exact(2).map(|c| [c[0], c[1]]).collect())),
        _ => Err(PyValueError::new_err(format!(
            "integer positions are codes of shape (n, 2) (or (n,) for dots-and-boxes), not {shape:?}"
        ))),
    }
}

/// The answers about many positions in numpy arrays, one row per position
/// (see `Oracle.probe_arrays`).
#[pyclass(frozen, module = "solvedb", name = "Arrays")]
#[derive(Debug)]
struct PyArrays {
    game: GameId,
    rows: usize,
    move_slots: usize,
    code: Py<PyAny>,
    stored: Py<PyAny>,
    value: Py<PyAny>,
    result: Py<PyAny>,
    plies: Py<PyAny>,
    move_value: Py<PyAny>,
    move_result: Py<PyAny>,
    move_plies: Py<PyAny>,
    legal: Py<PyAny>,
}

/// A vector as a numpy array of `shape`, without copying its elements.
fn array<T: numpy::Element>(py: Python<'_>, data: Vec<T>, shape: &[usize]) -> PyResult<Py<PyAny>> {
    let flat = PyArray1::from_vec(py, data);
    let shaped: Bound<'_, PyArrayDyn<T>> = flat.reshape(shape)?;
    Ok(shaped.into_any().unbind())
}

impl PyArrays {
    fn new(py: Python<'_>, game: GameId, columns: Columns) -> PyResult<PyArrays> {
        let (n, m) = (columns.len(), columns.move_slots);
        let code: Vec<u64> = columns.code.iter().flatten().copied().collect();
        Ok(PyArrays {
            game,
            rows: n,
            move_slots: m,
            code: array(py, code, &[n, 2])?,
            stored: array(py, columns.stored, &[n])?,
            value: array(py, columns.value, &[n])?,
            result: array(py, columns.result, &[n])?,
            plies: array(py, columns.plies, &[n])?,
            move_value: array(py, columns.move_value, &[n, m])?,
            move_result: array(py, columns.move_result, &[n, m])?,
            move_plies: array(py, columns.move_plies, &[n, m])?,
            legal: array(py, columns.legal, &[n, m])?,
        })
    }
}

#[pymethods]
impl PyArrays {
    /// The game.
    #[getter]
    fn game(&self) -> String {
        self.game.to_string()
    }

    /// Move indices per row: the board's cells, or its edges.
    #[getter]
    fn move_slots(&self) -> usize {
        self.move_slots
    }

    /// `(n, 2)` uint64: each position's code (X's and O's stones, or the
    /// drawn edges and 0).
    #[getter]
    fn code(&self, py: Python<'_>) -> Py<PyAny> {
        self.code.clone_ref(py)
    }

    /// `(n,)` bool: whether the table holds an entry of the position's own
    /// (false for a dots-and-boxes free capture, a cube position forced
    /// play settles, or a search).
    #[getter]
    fn stored(&self, py: Python<'_>) -> Py<PyAny> {
        self.stored.clone_ref(py)
    }

    /// `(n,)` int8: the value for the side to move: 1 win, 0 draw, -1 loss
    /// (tic-tac-toe family); the net still unclaimed boxes (dots).
    #[getter]
    fn value(&self, py: Python<'_>) -> Py<PyAny> {
        self.value.clone_ref(py)
    }

    /// `(n,)` int8: the result class, the sign of `value`.
    #[getter]
    fn result(&self, py: Python<'_>) -> Py<PyAny> {
        self.result.clone_ref(py)
    }

    /// `(n,)` uint8: plies to the end under perfect play (dots: the
    /// undrawn edges).
    #[getter]
    fn plies(&self, py: Python<'_>) -> Py<PyAny> {
        self.plies.clone_ref(py)
    }

    /// `(n, move_slots)` int8: each move's value for its mover, from
    /// before the move; 0 where `legal` is false.
    #[getter]
    fn move_value(&self, py: Python<'_>) -> Py<PyAny> {
        self.move_value.clone_ref(py)
    }

    /// `(n, move_slots)` int8: each move's result class.
    #[getter]
    fn move_result(&self, py: Python<'_>) -> Py<PyAny> {
        self.move_result.clone_ref(py)
    }

    /// `(n, move_slots)` uint8: each move's plies to the end.
    #[getter]
    fn move_plies(&self, py: Python<'_>) -> Py<PyAny> {
        self.move_plies.clone_ref(py)
    }

    /// `(n, move_slots)` bool: the legal moves.
    #[getter]
    fn legal(&self, py: Python<'_>) -> Py<PyAny> {
        self.legal.clone_ref(py)
    }

    fn __len__(&self) -> usize {
        self.rows
    }

    fn __repr__(&self) -> String {
        format!(
            "Arrays(game='{}', rows={}, move_slots={})",
            self.game, self.rows, self.move_slots
        )
    }
}

/// The notation of each code of `game` (see `Oracle.probe_arrays` for the
/// codes): a list of strings.
#[pyfunction]
fn notation(game: &str, codes: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let id = game_id(game)?;
    let codes = integer_codes(codes.py(), codes)?
        .ok_or_else(|| PyValueError::new_err("codes are a numpy array of integers"))?;
    with_game!(id, g => codes
        .iter()
        .map(|&code| g.position_of(code).map(|p| g.notation(p)).map_err(LookupError::from))
        .collect::<Result<Vec<_>, LookupError>>())
    .map_err(to_py_err)
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
    module.add_function(wrap_pyfunction!(notation, module)?)?;
    module.add_class::<PyArrays>()?;
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
