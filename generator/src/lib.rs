//! The `solvedb` command: builds perfect-play tables, verifies them against
//! the rules, and probes positions. The game rules and the table format live
//! in `solvedb-lookup`; this crate drives them.
//!
//! - [`cli`]: arguments, dispatch and output, nothing else;
//! - [`build`]: the build pipeline (solve, encode, write atomically, MANIFEST);
//! - [`games`]: each game's generator side behind one seam, [`games::GeneratorGame`];
//! - [`verify`], [`bench`](mod@bench), [`fuzz`], [`sweep`]: checking and measuring tables;
//! - [`serve`]: the JSON-lines protocol on standard input and output;
//! - [`text`]: how counts and durations are written.
//! - [`http`]: the web explorer and its JSON API (`serve --http`).
//! - `mpi` (cargo feature `mpi`): the distributed dots build's MPI transport.

#![forbid(unsafe_code)]

pub mod bench;
pub mod build;
pub mod cli;
pub mod fuzz;
pub mod games;
pub mod http;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod progress;
pub mod serve;
pub mod store;
pub mod sweep;
pub mod text;
pub mod verify;
