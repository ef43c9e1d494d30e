//! The `solvedb` command: builds perfect-play tables, verifies them against
//! the rules, and probes positions. The game rules and the table format live
//! in `solvedb-lookup`; this crate drives them.

#![forbid(unsafe_code)]

pub mod bench;
pub mod bench_cube;
pub mod cli;
pub mod consistency;
pub mod cube;
pub mod fuzz;
pub mod games;
pub mod manifest;
pub mod progress;
pub mod retrograde;
pub mod rng;
pub mod serve;
pub mod solve;
pub mod sweep;
