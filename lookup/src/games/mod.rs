//! One module per game: rules, symmetries, notation and table index.

pub mod cube;
pub mod dots;
pub mod tictactoe;
