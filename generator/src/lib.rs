//! The `solvedb` command: builds perfect-play tables, verifies them against
//! the rules, and probes positions. The game rules and the table format live
//! in `solvedb-lookup`; this crate drives them.
//!
//! - [`cli`]: the command line: arguments, one module per command, output;
//! - [`build`]: the build pipeline (solve, encode, write atomically, MANIFEST);
//! - [`games`]: each game's generator side behind one seam, [`games::GeneratorGame`];
//! - [`verify`], [`bench`](mod@bench), [`fuzz`], [`sweep`]: checking and measuring tables;
//! - [`export`]: every position of a table with its values, as Parquet or CSV, and the dataset card's figures;
//! - [`progress`], [`text`]: progress on standard error, how counts and durations are written;
//! - `mpi` (cargo feature `mpi`): the distributed dots build's MPI transport;
//! - `mpi_search` (cargo feature `mpi`): the spread dots search's.
//!
//! The servers (`solvedb serve`, `solvedb bench http|rooms`) are the crate
//! `solvedb-server`, behind the default feature `server`: `cargo build -p
//! solvedb-generator --no-default-features` builds the table tools without
//! axum, tokio or SQLite.

#![forbid(unsafe_code)]

pub mod bench;
pub mod build;
pub mod cli;
pub mod export;
pub mod fuzz;
pub mod games;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(feature = "mpi")]
pub mod mpi_search;
pub mod progress;
pub mod sweep;
pub mod text;
pub mod verify;
