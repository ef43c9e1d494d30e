//! `Oracle`: the lookup crate's oracle, its searches within a budget and
//! interruptible, its batches answered row by row.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::prelude::*;

use solvedb_lookup::{GameId, Oracle as LookupOracle, SearchLimits, Stop, Want, dataset};

use crate::arrays::PyArrays;
use crate::batch;
use crate::embedded;
use crate::errors::{IoError, PyRowError, RowStatus, input_error, to_py_err};
use crate::input::{Batch, batch_arg, count_arg, game_arg, seconds_arg, text_arg, type_name};
use crate::interrupt::interruptible;
use crate::values::{PyMainline, PyMoveReport, PyReport};

/// The node budget of a live search when none is given: the CLI's
/// (`solvedb probe --nodes`, `DEFAULT_SEARCH_NODES` in the generator),
/// enough for every tic-tac-toe position and every dots board the default
/// tables cover, small enough that an early Qubic or cube search stops
/// within seconds with `BudgetExhausted`.
pub const DEFAULT_MAX_NODES: u64 = 10_000_000;

/// Perfect-play answers from solvedb tables: the built-in tables (inside
/// the package) by default, or a tables directory's. A game or position no
/// table covers is answered by exact live search, within `max_nodes`
/// positions (by default the CLI's budget, `DEFAULT_MAX_NODES`; `None`
/// lifts it) and `max_seconds`; past them the answer is `BudgetExhausted`
/// ("unknown within the budget"), never a guess. With `max_seconds`, a
/// Qubic position the strategy answers has the moves it leaves open
/// searched too, within that time together (the rest stay unknown).
/// Ctrl-C interrupts a search (`KeyboardInterrupt`). One `Oracle` may be shared by threads:
/// the GIL is released while it works.
///
/// >>> import solvedb
/// >>> oracle = solvedb.Oracle()  # the built-in tables
/// >>> oracle.best_move("tictactoe", "X../.O./...").result
/// 'draw'
/// >>> oracle.max_nodes == solvedb.DEFAULT_MAX_NODES
/// True
#[pyclass(frozen, module = "solvedb", name = "Oracle")]
#[derive(Debug)]
pub struct PyOracle {
    oracle: LookupOracle,
}

/// `max_nodes`: a count, or `None` for no budget.
#[derive(Clone, Copy, Debug)]
pub struct NodesArg(Option<u64>);

impl<'a, 'py> FromPyObject<'a, 'py> for NodesArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<NodesArg> {
        if obj.is_none() {
            return Ok(NodesArg(None));
        }
        count_arg(&obj.to_owned(), "max_nodes").map(|n| NodesArg(Some(n)))
    }
}

/// Seconds as a duration, for `max_seconds`.
fn duration(seconds: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Duration>> {
    seconds
        .map(|s| {
            let s = seconds_arg(s, "max_seconds")?;
            Duration::try_from_secs_f64(s).map_err(|e| input_error("max_seconds", e))
        })
        .transpose()
}

impl PyOracle {
    /// Whether answers about `game` may search (and so need a budget and
    /// Ctrl-C): no table covers every position of it.
    fn may_search(&self, game: GameId) -> bool {
        !(self.oracle.has_table(game) && game.table_covers_every_position())
    }

    /// `work` with a fresh stop: on a thread Ctrl-C interrupts where the
    /// game may search, directly where a table answers everything.
    fn run<T, F>(&self, py: Python<'_>, game: GameId, work: F) -> PyResult<T>
    where
        F: FnOnce(&Stop) -> T + Send,
        T: Send,
    {
        let stop = Stop::new(None, None);
        if self.may_search(game) {
            interruptible(py, &stop, || work(&stop))
        } else {
            Ok(py.detach(|| work(&stop)))
        }
    }

    fn answer(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
        want: Want,
    ) -> PyResult<PyReport> {
        let game = game_arg(game)?;
        let text = text_arg(position, "position")?;
        let report = self.run(py, game, |stop| {
            self.oracle.answer_within(game, &text, want, stop)
        })?;
        PyReport::new(py, report.map_err(to_py_err)?)
    }
}

#[pymethods]
impl PyOracle {
    #[new]
    #[pyo3(
        signature = (tables_dir=None, *, max_nodes=NodesArg(Some(DEFAULT_MAX_NODES)), max_seconds=None),
        text_signature = "(tables_dir=None, *, max_nodes=10000000, max_seconds=None)"
    )]
    fn new(
        tables_dir: Option<Bound<'_, PyAny>>,
        max_nodes: NodesArg,
        max_seconds: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyOracle> {
        let tables_dir = tables_dir
            .filter(|d| !d.is_none())
            .map(|d| {
                d.extract::<PathBuf>().map_err(|_| {
                    input_error("tables_dir", format!("a path, not {}", type_name(&d)))
                })
            })
            .transpose()?;
        let limits = SearchLimits {
            nodes: max_nodes.0,
            time: duration(max_seconds.as_ref())?,
            ..SearchLimits::default()
        };
        let oracle = match tables_dir {
            Some(dir) if !dir.is_dir() => {
                let what = if dir.exists() {
                    "is not a directory"
                } else {
                    "does not exist"
                };
                return Err(IoError::new_err(format!(
                    "tables_dir: {} {what} (Oracle() answers from the built-in tables)",
                    dir.display()
                )));
            }
            Some(dir) => LookupOracle::open(&dir),
            None => LookupOracle::from_static_tables(embedded::TABLES),
        };
        let oracle = oracle.map_err(to_py_err)?.with_search_limits(limits);
        Ok(PyOracle { oracle })
    }

    /// The tables directory; `None` for the built-in tables.
    #[getter]
    fn tables_dir(&self) -> Option<PathBuf> {
        self.oracle.dir().map(ToOwned::to_owned)
    }

    /// The node budget of every live search; `None`: no budget.
    #[getter]
    fn max_nodes(&self) -> Option<u64> {
        self.oracle.limits().nodes
    }

    /// The time budget of every live search, in seconds; `None`: none.
    #[getter]
    fn max_seconds(&self) -> Option<f64> {
        self.oracle.limits().time.map(|t| t.as_secs_f64())
    }

    /// The value of a position (no moves).
    fn probe(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<PyReport> {
        self.answer(py, game, position, Want::Value)
    }

    /// The value of a position and of every move, best first.
    fn moves(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<PyReport> {
        self.answer(py, game, position, Want::Moves)
    }

    /// The best move, or `None` when the game is over.
    fn best_move(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyMoveReport>> {
        let report = self.answer(py, game, position, Want::Moves)?;
        Ok(report.first_move())
    }

    /// The best line from a position to the end of the game.
    fn mainline(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<PyMainline> {
        let game = game_arg(game)?;
        let text = text_arg(position, "position")?;
        let line = self.run(py, game, |stop| {
            self.oracle.mainline_within(game, &text, stop)
        })?;
        Ok(PyMainline::new(line.map_err(to_py_err)?))
    }

    /// Many positions of one game at once, with the GIL released for the
    /// whole batch: one entry per row, in order, a `Report`, or a
    /// `RowError` for a row without an answer (not a position: status
    /// `"bad input"`; a search out of its budget: `"unknown"`). With
    /// `errors="raise"`, the first such row's error is raised instead (its
    /// message starts `positions[i]:`). `positions` is any iterable of
    /// strings (a list, or a numpy array of strings).
    #[pyo3(signature = (game, positions, *, moves=false, errors="row"))]
    fn probe_many(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        moves: bool,
        errors: &str,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let raise = errors_arg(errors)?;
        let game = game_arg(game)?;
        let Batch::Texts { texts, bad } = batch_arg(game, positions, "positions")? else {
            return Err(input_error(
                "positions",
                "strings in solvedb's notation (integer codes go to probe_arrays)",
            ));
        };
        let want = if moves { Want::Moves } else { Want::Value };
        let answers = self.run(py, game, |stop| {
            let mut bad = bad.iter().map(PyRowError::index_of).peekable();
            let mut answers = Vec::with_capacity(texts.len());
            for (index, text) in texts.iter().enumerate() {
                if bad.next_if_eq(&index).is_some() {
                    continue;
                }
                match self.oracle.answer_within(game, text, want, stop) {
                    Err(error) if RowStatus::of_row(&error).is_none() => return Err(error),
                    answer => answers.push(answer),
                }
            }
            Ok(answers)
        })?;
        let mut answers = answers.map_err(to_py_err)?.into_iter();
        let mut bad = bad.into_iter().peekable();
        let mut out = Vec::with_capacity(texts.len());
        for index in 0..texts.len() {
            let row = match bad.next_if(|row| row.index_of() == index) {
                Some(row) => Err(row),
                None => match answers.next() {
                    Some(Ok(report)) => Ok(report),
                    Some(Err(error)) => Err(PyRowError::from_lookup(index, error)),
                    None => break,
                },
            };
            match row {
                Ok(report) => out.push(Py::new(py, PyReport::new(py, report)?)?.into_any()),
                Err(row) if raise => return Err(row.to_err(py)),
                Err(row) => out.push(Py::new(py, row)?.into_any()),
            }
        }
        Ok(out)
    }

    /// Many positions of one game at once, answered in numpy arrays (an
    /// `Arrays`), with the GIL released and no Python object per position.
    /// `positions` is a list or array of strings in solvedb's notation, or
    /// a numpy array of integer codes: shape `(n, 2)`, X's and O's stones
    /// as cell masks for the tic-tac-toe family; shape `(n,)` (or `(n, 2)`
    /// with zeros beside) of drawn-edge masks for dots-and-boxes.
    /// Without `moves`, only the positions' own values (the move arrays
    /// have no columns). A row without an answer has its status in
    /// `Arrays.status` and its error in `Arrays.errors`; with
    /// `errors="raise"` the first one is raised instead.
    #[pyo3(signature = (game, positions, *, moves=true, errors="row"))]
    fn probe_arrays(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        moves: bool,
        errors: &str,
    ) -> PyResult<PyArrays> {
        let raise = errors_arg(errors)?;
        let game = game_arg(game)?;
        let batch = batch_arg(game, positions, "positions")?;
        let per_row = self.may_search(game);
        let rows = self.run(py, game, |stop| {
            batch::rows(&self.oracle, game, &batch, moves, per_row, stop)
        })?;
        let rows = rows.map_err(to_py_err)?;
        let bad = batch::bad_rows(batch, rows.failed);
        if raise {
            if let Some(first) = bad.first() {
                return Err(first.to_err(py));
            }
        }
        PyArrays::new(py, game, rows.columns, rows.status, bad)
    }

    /// Every position `game`'s table holds, with its value and every
    /// move's (an `Arrays`, in the table's order): the canonical positions,
    /// or with `all_symmetries` every symmetric image too; `sample` keeps
    /// that many (1 or more), uniformly at random by `seed` (as `solvedb
    /// export --sample N --seed S`). Without `moves`, only the positions'
    /// own values (the move arrays have no columns).
    #[pyo3(
        signature = (game, *, all_symmetries=false, sample=None, seed=None, moves=true),
        text_signature = "(self, game, *, all_symmetries=False, sample=None, seed=0, moves=True)"
    )]
    fn table_arrays(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        all_symmetries: bool,
        sample: Option<Bound<'_, PyAny>>,
        seed: Option<Bound<'_, PyAny>>,
        moves: bool,
    ) -> PyResult<PyArrays> {
        let game = game_arg(game)?;
        let sample = sample
            .filter(|s| !s.is_none())
            .map(|s| count_arg(&s, "sample"))
            .transpose()?;
        if sample == Some(0) {
            return Err(input_error(
                "sample",
                "the number of rows to keep, 1 or more, not 0 (None keeps every row)",
            ));
        }
        let seed = seed.map_or(Ok(0), |s| count_arg(&s, "seed"))?;
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
                .table_rows(game, span, all_symmetries, places.as_deref(), moves)
        });
        PyArrays::known(py, game, columns.map_err(to_py_err)?)
    }

    fn __repr__(&self) -> String {
        match self.oracle.dir() {
            Some(dir) => format!("Oracle({dir:?})"),
            None => "Oracle()".to_owned(),
        }
    }
}

/// `errors="row"` (false) or `errors="raise"` (true).
fn errors_arg(errors: &str) -> PyResult<bool> {
    match errors {
        "row" => Ok(false),
        "raise" => Ok(true),
        other => Err(input_error(
            "errors",
            format!("\"row\" or \"raise\", not {other:?}"),
        )),
    }
}
