//! Python arguments to what the lookup crate takes, every wrong type,
//! shape or range an `InputError` naming the argument.

use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use solvedb_lookup::{Error as LookupError, GameId};

use crate::errors::{PyRowError, input_error, to_py_err};

/// A game name, one of `games()` (or any `dots:MxN`).
pub fn game_arg(game: &Bound<'_, PyAny>) -> PyResult<GameId> {
    let name = text_arg(game, "game")?;
    name.parse::<GameId>()
        .map_err(|unknown| to_py_err(LookupError::from(unknown)))
}

/// A string argument.
pub fn text_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(text) => text.extract::<String>(),
        Err(_) => Err(input_error(
            name,
            format!("a str, not {}", type_name(value)),
        )),
    }
}

/// A count or budget: a non-negative int (not a bool).
pub fn count_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(input_error(
            name,
            format!("an int, not {}", type_name(value)),
        ));
    }
    value
        .extract::<u64>()
        .map_err(|_| input_error(name, format!("a count, 0 or more, not {value}")))
}

/// A number of seconds: a non-negative, finite int or float.
pub fn seconds_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    let number = value.is_instance_of::<PyFloat>()
        || (value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>());
    let seconds = if number {
        value.extract::<f64>()?
    } else {
        return Err(input_error(
            name,
            format!("a number of seconds, not {}", type_name(value)),
        ));
    };
    if seconds.is_finite() && seconds >= 0.0 {
        Ok(seconds)
    } else {
        Err(input_error(
            name,
            format!("a number of seconds, 0 or more, not {seconds}"),
        ))
    }
}

/// The name of `value`'s type, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// The positions of a batch: integer codes from a numpy array of
/// integers, or one string per row (a row that is not a string is a
/// `RowError` of its own, in `bad`, and an empty string in `texts`).
#[derive(Debug)]
pub enum Batch {
    Codes(Vec<[u64; 2]>),
    Texts {
        texts: Vec<String>,
        bad: Vec<PyRowError>,
    },
}

impl Batch {
    pub fn len(&self) -> usize {
        match self {
            Batch::Codes(codes) => codes.len(),
            Batch::Texts { texts, .. } => texts.len(),
        }
    }

    /// Whether row `index` was not a string.
    pub fn is_bad(&self, index: usize) -> bool {
        match self {
            Batch::Codes(_) => false,
            Batch::Texts { bad, .. } => bad
                .binary_search_by_key(&index, PyRowError::index_of)
                .is_ok(),
        }
    }
}

/// `positions` of `game`, named `name` in errors: a numpy array of integer
/// codes, or an iterable of strings (a list, a numpy array of strings).
pub fn batch_arg(game: GameId, positions: &Bound<'_, PyAny>, name: &str) -> PyResult<Batch> {
    if positions.is_instance_of::<PyString>() {
        return Err(input_error(
            name,
            "a list of positions, not one str (wrap it in a list)",
        ));
    }
    if let Some(codes) = codes_arg(game, positions, name)? {
        return Ok(Batch::Codes(codes));
    }
    let rows = positions.try_iter().map_err(|_| {
        input_error(
            name,
            format!("an iterable of str, not {}", type_name(positions)),
        )
    })?;
    let (mut texts, mut bad) = (Vec::new(), Vec::new());
    for (index, row) in rows.enumerate() {
        match text_arg(&row?, &format!("{name}[{index}]")) {
            Ok(text) => texts.push(text),
            Err(error) => {
                texts.push(String::new());
                bad.push(PyRowError::bad_input(index, error));
            }
        }
    }
    Ok(Batch::Texts { texts, bad })
}

/// Integer codes from a numpy array of integers; `None` for a numpy array
/// of strings or anything that is not a numpy array; an `InputError` for
/// an array of another kind (floats, bools) or shape.
///
/// Tic-tac-toe family codes are X's and O's stones, shape `(n, 2)`;
/// dots-and-boxes codes are drawn edges, shape `(n,)` or `(n, 2)` with
/// zeros beside.
pub fn codes_arg(
    game: GameId,
    positions: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Option<Vec<[u64; 2]>>> {
    let py = positions.py();
    let numpy = py.import("numpy")?;
    if !positions.is_instance(&numpy.getattr("ndarray")?)? {
        return Ok(None);
    }
    let dtype = positions.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    match kind.as_str() {
        "U" | "S" | "O" => return Ok(None),
        "i" | "u" => {}
        _ => {
            return Err(input_error(
                name,
                format!(
                    "an array of {} is neither integer codes nor strings of positions",
                    dtype.str()?
                ),
            ));
        }
    }
    if kind == "i" {
        let negative: bool = positions
            .call_method0("min")
            .and_then(|m| m.lt(0))
            .unwrap_or(false);
        if negative {
            return Err(input_error(
                name,
                "codes are bit masks: no negative integer",
            ));
        }
    }
    let array = numpy.call_method1("ascontiguousarray", (positions, "uint64"))?;
    let array: PyReadonlyArrayDyn<'_, u64> = array.extract()?;
    let shape = array.shape().to_vec();
    let data = array.as_slice().map_err(|e| input_error(name, e))?;
    let dots = matches!(game, GameId::Dots { .. });
    match shape.as_slice() {
        [_] if dots => Ok(Some(data.iter().map(|&a| [a, 0]).collect())),
        [_, 2] => Ok(Some(data.chunks_exact(2).map(|c| [c[0], c[1]]).collect())),
        [_] => Err(input_error(
            name,
            format!(
                "{game} codes have shape (n, 2), X's and O's stones (a 1-D array is for \
                 dots-and-boxes' drawn edges), not {shape:?}"
            ),
        )),
        _ => Err(input_error(
            name,
            format!("codes have shape (n, 2) (or (n,) for dots-and-boxes), not {shape:?}"),
        )),
    }
}
