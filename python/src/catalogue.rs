//! The catalogue of games and the notation of integer codes.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use solvedb_lookup::{
    BoardShape, Encoded, Error as LookupError, Game, GameInfo, Oracle as LookupOracle, TablePlan,
    catalogue, with_game,
};

use crate::arrays::array;
use crate::embedded;
use crate::errors::{input_error, to_py_err};
use crate::input::{codes_arg, game_arg};

/// The notation of each code of `game` (see `Oracle.probe_arrays` for the
/// codes): a list of strings.
#[pyfunction]
pub fn notation(game: &Bound<'_, PyAny>, codes: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let id = game_arg(game)?;
    let codes = codes_arg(id, codes, "codes")?
        .ok_or_else(|| input_error("codes", "a numpy array of integer codes"))?;
    with_game!(id, g => codes
        .iter()
        .map(|&code| g.position_of(code).map(|p| g.notation(p)).map_err(LookupError::from))
        .collect::<Result<Vec<_>, LookupError>>())
    .map_err(to_py_err)
}

/// The code of each position's canonical image (the one of its symmetry
/// class the tables store), shape `(n, 2)` uint64 like the codes given:
/// two positions are images of each other exactly when their canonical
/// codes are equal.
#[pyfunction]
pub fn canonical_codes(game: &Bound<'_, PyAny>, codes: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let py = game.py();
    let id = game_arg(game)?;
    let codes = codes_arg(id, codes, "codes")?
        .ok_or_else(|| input_error("codes", "a numpy array of integer codes"))?;
    let canonical = py
        .detach(|| {
            with_game!(id, g => codes
                .iter()
                .map(|&code| {
                    let position = g.position_of(code)?;
                    Ok(g.code(g.canonical(position)))
                })
                .collect::<Result<Vec<[u64; 2]>, LookupError>>())
        })
        .map_err(to_py_err)?;
    let n = canonical.len();
    array(py, canonical.into_iter().flatten().collect(), &[n, 2])
}

/// One game of the catalogue: what the package's list of games says of it.
#[pyclass(frozen, module = "solvedb", name = "Game")]
#[derive(Debug)]
pub struct PyGame {
    info: GameInfo,
    start: String,
    built_in: bool,
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

    /// Whether the package holds its table (`default`: the built-in
    /// tables), `solvedb build` makes it on request (`on request`: pass
    /// its directory to `Oracle`) or there is none (`unavailable`: always
    /// searched).
    #[getter]
    fn table(&self) -> &'static str {
        if self.built_in {
            return "default";
        }
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
pub fn games() -> PyResult<Vec<PyGame>> {
    let built_in = LookupOracle::from_static_tables(embedded::TABLES).map_err(to_py_err)?;
    catalogue()
        .iter()
        .map(|info| {
            let start = with_game!(info.id, g => Ok::<_, LookupError>(g.notation(g.start())))
                .map_err(to_py_err)?;
            Ok(PyGame {
                info: info.clone(),
                start,
                built_in: built_in.has_table(info.id),
            })
        })
        .collect()
}
