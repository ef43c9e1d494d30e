//! The answers about one position as small immutable Python objects:
//! `Report`, `MoveReport` and `Mainline`.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use solvedb_lookup::{AnyValue, Mainline as LookupMainline, MoveReport, Report as LookupReport};

/// The value fields of `probe --json`: `result` and `plies` for the
/// tic-tac-toe family, `value` (the margin) for dots-and-boxes.
#[derive(Clone, Debug, Default)]
pub struct ValueFields {
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
pub struct PyMoveReport {
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
pub struct PyReport {
    report: LookupReport,
    fields: ValueFields,
    moves: Py<PyTuple>,
}

impl PyReport {
    /// The best move, `None` when there is none.
    pub fn first_move(&self) -> Option<PyMoveReport> {
        self.report.moves.first().cloned().map(PyMoveReport::from)
    }

    pub fn new(py: Python<'_>, report: LookupReport) -> PyResult<PyReport> {
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

    /// Where the answer came from: `"table"` (the package's built-in
    /// tables, or the tables directory's), `"forced"` (settled by the rules
    /// before any table) or `"search"` (an exact live search: a game or
    /// position no table covers).
    #[getter]
    fn source(&self) -> &'static str {
        self.report.source.as_str()
    }

    /// The moves with their values, best first (a tuple of `MoveReport`);
    /// empty from `probe`. Every legal move whose value is known: every
    /// legal move, except where a winning strategy (Qubic's table) covers
    /// the position but not all of its moves; those are in `unknown`.
    #[getter]
    fn moves(&self, py: Python<'_>) -> Py<PyTuple> {
        self.moves.clone_ref(py)
    }

    /// The legal moves whose values are not known (a tuple of move
    /// strings): those a winning strategy (Qubic's table) does not cover
    /// where it covers the position; empty everywhere else.
    #[getter]
    fn unknown<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.report.unknown)
    }

    /// The moves of `moves` that such a strategy leaves open and a live
    /// search valued within `max_seconds` (a tuple of move strings, in the
    /// game's order); empty where the table valued every move it answers.
    #[getter]
    fn searched<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.report.searched)
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
pub struct PyMainline {
    line: LookupMainline,
    fields: ValueFields,
}

impl PyMainline {
    pub fn new(line: LookupMainline) -> PyMainline {
        PyMainline {
            fields: line.value.into(),
            line,
        }
    }
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
