//! `Arrays`: the answers about many positions in numpy arrays.

use numpy::{PyArray1, PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;

use pyo3::types::PyTuple;

use solvedb_lookup::{Columns, GameId};

use crate::errors::PyRowError;

/// The answers about many positions in numpy arrays, one row per position
/// (see `Oracle.probe_arrays`), and each row's status.
#[pyclass(frozen, module = "solvedb", name = "Arrays")]
#[derive(Debug)]
pub struct PyArrays {
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
    status: Py<PyAny>,
    errors: Py<PyTuple>,
}

/// A vector as a numpy array of `shape`, without copying its elements.
pub fn array<T: numpy::Element>(
    py: Python<'_>,
    data: Vec<T>,
    shape: &[usize],
) -> PyResult<Py<PyAny>> {
    let flat = PyArray1::from_vec(py, data);
    let shaped: Bound<'_, PyArrayDyn<T>> = flat.reshape(shape)?;
    Ok(shaped.into_any().unbind())
}

impl PyArrays {
    /// The arrays of `columns`, every row known.
    pub fn known(py: Python<'_>, game: GameId, columns: Columns) -> PyResult<PyArrays> {
        let status = vec![0; columns.len()];
        PyArrays::new(py, game, columns, status, Vec::new())
    }

    /// The arrays of `columns` with each row's status (see `RowStatus`)
    /// and the rows without an answer.
    pub fn new(
        py: Python<'_>,
        game: GameId,
        columns: Columns,
        status: Vec<u8>,
        errors: Vec<PyRowError>,
    ) -> PyResult<PyArrays> {
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
            status: array(py, status, &[n])?,
            errors: PyTuple::new(py, errors)?.unbind(),
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

    /// `(n,)` uint8: each row's status: 0 known, 1 unknown (a live search
    /// ran out of its budget), 2 bad input (not a position of the game).
    /// The other arrays hold zeros in a row that is not known.
    #[getter]
    fn status(&self, py: Python<'_>) -> Py<PyAny> {
        self.status.clone_ref(py)
    }

    /// The rows that are not known, in order: a tuple of `RowError`.
    #[getter]
    fn errors(&self, py: Python<'_>) -> Py<PyTuple> {
        self.errors.clone_ref(py)
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
