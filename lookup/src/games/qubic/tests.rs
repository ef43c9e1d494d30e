//! Tests of Qubic's rules, notation, live solver and threat search, by
//! subject; the helpers they share are here.

mod lines;
mod notation;
mod solver;
mod strategy;
mod symmetry;
mod threats;

use super::*;
use crate::testkit::{Rng, random_game};

const Q: Qubic = Qubic;

/// Every position of `games` random games, terminal ones included.
fn random_positions(games: usize, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    (0..games).flat_map(|_| random_game(&Q, &mut rng)).collect()
}

/// The coordinates of cell `c`.
fn at(c: usize) -> [i32; 3] {
    [(c % 4) as i32, (c / 4 % 4) as i32, (c / 16) as i32]
}

/// The cells of a mask.
fn cells_of(mask: u64) -> Vec<usize> {
    (0..64).filter(|c| mask >> c & 1 != 0).collect()
}

/// The image of a mask under a cell map.
fn map_mask(map: &[u8; 64], mask: u64) -> u64 {
    cells_of(mask).into_iter().fold(0, |a, c| a | 1 << map[c])
}
