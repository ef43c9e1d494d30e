//! `solvedb._solvedb`: the [`solvedb_lookup::Oracle`] for Python.
//!
//! This module only converts: Python arguments to a [`GameId`] and position
//! text (`input`), [`Report`]s to small immutable Python objects (`values`,
//! `arrays`), and errors — through [`Error::kind`], in `errors` alone — to
//! the exception classes. Every rule, value and move comes from the lookup
//! crate. The GIL is released while the oracle works, so Python threads
//! sharing one `Oracle` probe in parallel; a search runs where Ctrl-C
//! reaches it (`interrupt`).
//!
//! [`GameId`]: solvedb_lookup::GameId
//! [`Report`]: solvedb_lookup::Report
//! [`Error::kind`]: solvedb_lookup::Error::kind

#![forbid(unsafe_code)]

use pyo3::prelude::*;

mod arrays;
mod batch;
mod catalogue;
mod errors;
mod input;
mod interrupt;
mod oracle;
mod rules;
mod values;

/// The default tables, compiled in by `build.rs` from `tables/MANIFEST`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/tables.rs"));
}

/// The native half of the `solvedb` package.
#[pymodule]
fn _solvedb(module: &Bound<'_, PyModule>) -> PyResult<()> {
    use errors::{
        BudgetExhausted, Error, InputError, IoError, PositionError, TableError, UnsupportedGame,
    };
    let py = module.py();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("DEFAULT_MAX_NODES", oracle::DEFAULT_MAX_NODES)?;
    module.add_function(wrap_pyfunction!(catalogue::games, module)?)?;
    module.add_function(wrap_pyfunction!(catalogue::notation, module)?)?;
    module.add_function(wrap_pyfunction!(catalogue::canonical_codes, module)?)?;
    module.add_function(wrap_pyfunction!(rules::legal_moves, module)?)?;
    module.add_function(wrap_pyfunction!(rules::play, module)?)?;
    module.add_function(wrap_pyfunction!(rules::outcome, module)?)?;
    module.add_class::<arrays::PyArrays>()?;
    module.add_class::<catalogue::PyGame>()?;
    module.add_class::<oracle::PyOracle>()?;
    module.add_class::<values::PyReport>()?;
    module.add_class::<values::PyMoveReport>()?;
    module.add_class::<values::PyMainline>()?;
    module.add_class::<errors::PyRowError>()?;
    module.add("Error", py.get_type::<Error>())?;
    module.add("PositionError", py.get_type::<PositionError>())?;
    module.add("TableError", py.get_type::<TableError>())?;
    module.add("UnsupportedGame", py.get_type::<UnsupportedGame>())?;
    module.add("BudgetExhausted", py.get_type::<BudgetExhausted>())?;
    module.add("IoError", py.get_type::<IoError>())?;
    module.add("InputError", py.get_type::<InputError>())?;
    Ok(())
}
