//! One module per command: its arguments (`Args`, read by clap) and `run`,
//! which calls the library and prints.

pub mod bench;
pub mod build;
pub mod export;
pub mod fuzz;
pub mod info;
pub mod probe;
pub mod search;
pub mod serve;
pub mod sweep;
pub mod verify;
