//! Seeded randomness for tests, benchmarks and the fuzzer: one generator and
//! random playouts for any [`Game`], so that every run replays from its seed.
//!
//! ```
//! use solvedb_lookup::testkit::{Rng, random_positions};
//! use solvedb_lookup::{Game, TicTacToe};
//!
//! let positions = random_positions(&TicTacToe, &mut Rng::new(7), 100);
//! assert_eq!(positions.len(), 100);
//! assert!(positions.iter().all(|&p| TicTacToe.terminal_score(p).is_none()));
//! ```

use crate::game::Game;
pub use crate::rng::Rng;

/// Every position of one game played from the start to its end, each move
/// chosen by `choose` from the legal ones (never empty), the final position
/// included.
pub fn playout<G: Game>(
    game: &G,
    rng: &mut Rng,
    mut choose: impl FnMut(&mut Rng, G::Position, &[G::Move]) -> G::Move,
) -> Vec<G::Position> {
    let mut position = game.start();
    let mut positions = vec![position];
    loop {
        let moves = game.moves(position);
        if moves.is_empty() {
            return positions;
        }
        position = game.play(position, choose(rng, position, &moves)).0;
        positions.push(position);
    }
}

/// Every position of one game of uniformly random moves, from the start to
/// the end.
pub fn random_game<G: Game>(game: &G, rng: &mut Rng) -> Vec<G::Position> {
    playout(game, rng, |rng, _, moves| *rng.pick(moves))
}

/// `count` positions that are not over, from games of uniformly random
/// moves (every such position of each game, in order): the positions poor
/// play reaches.
pub fn random_positions<G: Game>(game: &G, rng: &mut Rng, count: usize) -> Vec<G::Position> {
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let game_positions = random_game(game, rng);
        let playing = game_positions.len() - 1;
        positions.extend_from_slice(&game_positions[..playing]);
    }
    positions.truncate(count);
    positions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TicTacToe;

    #[test]
    fn a_seed_replays_and_draws_cover_the_range() {
        let (mut a, mut b) = (Rng::new(3), Rng::new(3));
        let mut seen = [0u32; 10];
        for _ in 0..10_000 {
            let n = a.below(10);
            assert_eq!(n, b.below(10));
            seen[n as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
        let heads = (0..10_000).filter(|_| a.chance(0.25)).count();
        assert!((2_200..2_800).contains(&heads), "{heads}");
    }

    #[test]
    fn playouts_follow_the_rules_to_the_end() {
        let mut rng = Rng::new(1);
        for _ in 0..100 {
            let game = random_game(&TicTacToe, &mut rng);
            assert_eq!(game[0], TicTacToe.start());
            assert!(TicTacToe.terminal_score(*game.last().unwrap()).is_some());
            for pair in game.windows(2) {
                let reached = TicTacToe
                    .moves(pair[0])
                    .into_iter()
                    .any(|m| TicTacToe.play(pair[0], m).0 == pair[1]);
                assert!(reached);
            }
        }
    }
}
