//! One module per game: rules, symmetries, notation and table index.

pub mod dots;
pub mod tictactoe;
