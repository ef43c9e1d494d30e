//! The rules of a game on integer codes, for environments that play it:
//! the legal moves, a move played, and the end of the game. Every rule is
//! the lookup crate's.

use pyo3::prelude::*;

use solvedb_lookup::{Encoded, Error as LookupError, Game, with_game};

use crate::errors::{input_error, to_py_err};
use crate::input::{count_arg, game_arg};

/// A code argument: a pair of ints (X's and O's stones, or the drawn edges
/// and 0).
fn code_arg(code: &Bound<'_, PyAny>) -> PyResult<[u64; 2]> {
    let pair: (Bound<'_, PyAny>, Bound<'_, PyAny>) = code.extract().map_err(|_| {
        input_error(
            "code",
            "a pair of ints (X's and O's stones, or edges and 0)",
        )
    })?;
    Ok([
        count_arg(&pair.0, "code[0]")?,
        count_arg(&pair.1, "code[1]")?,
    ])
}

/// The legal moves of the position `code` stands for, as move indices (the
/// cells, or the edges: OpenSpiel's action ids), ascending; empty when the
/// game is over.
#[pyfunction]
pub fn legal_moves(game: &Bound<'_, PyAny>, code: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let id = game_arg(game)?;
    let code = code_arg(code)?;
    with_game!(id, g => (|| {
        let position = g.position_of(code).map_err(LookupError::from)?;
        let mut moves: Vec<usize> = if g.terminal_score(position).is_some() {
            Vec::new()
        } else {
            g.moves(position).into_iter().map(|m| g.move_index(m)).collect()
        };
        moves.sort_unstable();
        Ok::<_, LookupError>(moves)
    })())
    .map_err(to_py_err)
}

/// The move `index` played in the position `code` stands for: the new
/// code, whether the mover moves again (dots: it completed a box) and what
/// the move earned it (dots: the boxes it completed; 0 otherwise).
#[pyfunction]
pub fn play(
    game: &Bound<'_, PyAny>,
    code: &Bound<'_, PyAny>,
    index: &Bound<'_, PyAny>,
) -> PyResult<((u64, u64), bool, i32)> {
    let id = game_arg(game)?;
    let code = code_arg(code)?;
    let index = count_arg(index, "index")?;
    let played = with_game!(id, g => (|| {
        let position = g.position_of(code).map_err(LookupError::from)?;
        let over = g.terminal_score(position).is_some();
        let mv = g
            .moves(position)
            .into_iter()
            .find(|&m| !over && g.move_index(m) as u64 == index);
        Ok::<_, LookupError>(mv.map(|mv| {
            let (next, transition) = g.play(position, mv);
            let [a, b] = g.code(next);
            ((a, b), transition.same_mover, transition.gain)
        }))
    })())
    .map_err(to_py_err)?;
    played.ok_or_else(|| input_error("index", format!("move {index} is not legal here")))
}

/// `None` while moves remain; at the end of the game the result for the
/// side that would move: -1 it lost, 0 a draw (dots-and-boxes: always 0,
/// the boxes are counted by whoever plays).
#[pyfunction]
pub fn outcome(game: &Bound<'_, PyAny>, code: &Bound<'_, PyAny>) -> PyResult<Option<i32>> {
    let id = game_arg(game)?;
    let code = code_arg(code)?;
    with_game!(id, g => (|| {
        let position = g.position_of(code).map_err(LookupError::from)?;
        Ok::<_, LookupError>(g.terminal_score(position).map(i32::signum))
    })())
    .map_err(to_py_err)
}
