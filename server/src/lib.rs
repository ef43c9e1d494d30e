//! The servers of solvedb: JSON lines on standard input and output
//! ([`stdio`]), and the web explorer, its JSON API, rooms and the
//! leaderboard over HTTP ([`http`], on axum and tokio, with the
//! leaderboard's SQLite database in [`store`] and the computer's levels in
//! [`computer`]).
//!
//! Every answer comes from one [`Oracle`](solvedb_lookup::Oracle) in the
//! JSON shapes of `solvedb-lookup` ([`Report::to_json_for`],
//! [`error_json`]). The `solvedb` command serves through this crate when
//! built with its default feature `server`; the table tools build without
//! it.
//!
//! [`Report::to_json_for`]: solvedb_lookup::Report::to_json_for
//! [`error_json`]: solvedb_lookup::error_json

#![forbid(unsafe_code)]

mod client_json;
pub mod computer;
pub mod http;
pub mod stdio;
pub mod store;
