//! The exception classes, the one mapping from a lookup error to them, and
//! the per-row error object of the batch calls.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use solvedb_lookup::{Error as LookupError, ErrorKind};

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
create_exception!(
    solvedb,
    InputError,
    Error,
    "An argument of the wrong type, shape or range; the message names it."
);

/// The one mapping from a lookup error to a Python exception: by its kind.
pub fn to_py_err(error: LookupError) -> PyErr {
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

/// An [`InputError`] about the argument `name`.
pub fn input_error(name: &str, message: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{name}: {message}"))
}

/// What became of one row of a batch: its answer is known, unknown within
/// the search budget, or the row is not a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStatus {
    Known = 0,
    Unknown = 1,
    BadInput = 2,
}

impl RowStatus {
    /// The status of a row whose answer failed with `error`; `None` for
    /// an error that is not the row's own (a damaged table, a game this
    /// build does not answer, a cancelled search), which fails the batch.
    pub fn of_row(error: &LookupError) -> Option<RowStatus> {
        match (error, error.kind()) {
            (LookupError::Cancelled, _) => None,
            (_, ErrorKind::Budget) => Some(RowStatus::Unknown),
            (_, ErrorKind::Position) => Some(RowStatus::BadInput),
            _ => None,
        }
    }

    fn of(error: &LookupError) -> RowStatus {
        RowStatus::of_row(error).unwrap_or(RowStatus::BadInput)
    }
}

/// A row of a batch that has no answer: its index and the error it raised
/// (a `solvedb.Error`, whose message starts `positions[index]:`).
#[pyclass(frozen, module = "solvedb", name = "RowError")]
#[derive(Debug)]
pub struct PyRowError {
    index: usize,
    status: RowStatus,
    error: PyErr,
}

impl PyRowError {
    /// Row `index`'s failure with `error` (a lookup error).
    pub fn from_lookup(index: usize, error: LookupError) -> PyRowError {
        PyRowError {
            index,
            status: RowStatus::of(&error),
            error: row_error(index, to_py_err(error)),
        }
    }

    /// The row's index (a key to sort and search rows by).
    pub fn index_of(&self) -> usize {
        self.index
    }

    /// Row `index`, which is not a position at all.
    pub fn bad_input(index: usize, error: PyErr) -> PyRowError {
        PyRowError {
            index,
            status: RowStatus::BadInput,
            error,
        }
    }

    /// The error to raise, naming the row.
    pub fn to_err(&self, py: Python<'_>) -> PyErr {
        self.error.clone_ref(py)
    }
}

/// `error` with `positions[index]: ` before its message, same class.
fn row_error(index: usize, error: PyErr) -> PyErr {
    Python::attach(|py| {
        let message = error.value(py).to_string();
        let class = error.get_type(py);
        PyErr::from_type(class, format!("positions[{index}]: {message}"))
    })
}

#[pymethods]
impl PyRowError {
    /// The row's index in the batch.
    #[getter]
    fn index(&self) -> usize {
        self.index
    }

    /// `"unknown"` (the search ran out of its budget) or `"bad input"`.
    #[getter]
    fn status(&self) -> &'static str {
        match self.status {
            RowStatus::Known => "known",
            RowStatus::Unknown => "unknown",
            RowStatus::BadInput => "bad input",
        }
    }

    /// The exception (a `solvedb.Error`) the row raised; `raise
    /// row.error` raises it.
    #[getter]
    fn error(&self, py: Python<'_>) -> Py<PyAny> {
        self.error.clone_ref(py).into_value(py).into_any()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let class = self
            .error
            .get_type(py)
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        format!(
            "RowError(index={}, status='{}', error={class}({:?}))",
            self.index,
            self.status(),
            self.error.value(py).to_string()
        )
    }
}
