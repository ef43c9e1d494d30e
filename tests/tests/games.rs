//! The games, their tables and the command line: every game against an
//! independent search, the table files, the CLI and its scripts.
//!
//! One test binary for many files: each file is a module here, so the
//! workspace's code is linked once rather than once per file (36 binaries
//! took 3.5 minutes of a CI run to build), and libtest runs the files'
//! tests side by side. The server tests (`servers.rs`, whose deadlines a
//! game's search on the other core would crowd), the browser tests
//! (`browser.rs`) and `large_table.rs` (which reads its own resident
//! memory) are binaries of their own. Run one file's tests with its
//! module's name: `cargo test -p solvedb-tests --test games dots_endgame::`.

mod catalogue;
mod cli;
mod cube;
mod dots;
mod dots_endgame;
mod export;
mod module_graph;
mod oracle;
mod pictures;
mod qubic;
mod qubic_forced_wins;
mod qubic_live;
mod qubic_opening;
mod qubic_patashnik;
mod qubic_smaller;
mod scripting;
mod table_file;
mod tables_on_demand;
mod tictactoe;
mod tictactoe_4x4;
