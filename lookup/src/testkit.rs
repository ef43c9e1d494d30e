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
use crate::games::dots::{Dots, Edges};

/// A small, fast, seedable generator (SplitMix64, Steele, Lea and Flood
/// 2014): not for secrets, only for replayable runs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    ///
    /// # Panics
    ///
    /// If `n == 0`.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        self.next_u64() % n
    }

    /// An index into a slice of `len` items.
    ///
    /// # Panics
    ///
    /// If `len == 0`.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// One of `items`.
    ///
    /// # Panics
    ///
    /// If `items` is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// `true` with probability `p` (in steps of 1/2^32).
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 32) as f64) < p * 4_294_967_296.0
    }
}

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

/// A dots-and-boxes position of `board` with `undrawn` edges left, from
/// random play that never draws a box's third side: each edge is drawn
/// uniformly among those that give no box three sides, like a game before
/// its endgame (a uniformly random edge set has most boxes taken and is
/// trivial). `None` when play runs out of such edges first; the caller
/// draws again from the same generator. The committed bench positions
/// (`tests/data/dots-endgame.positions`) are made this way.
pub fn dots_without_third_sides(board: Dots, rng: &mut Rng, undrawn: u32) -> Option<Edges> {
    let box_masks: Vec<u64> = (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| board.box_mask(r, c)))
        .collect();
    let mut mask = 0u64;
    while board.edges() - mask.count_ones() > undrawn {
        let safe: Vec<u32> = (0..board.edges())
            .filter(|&e| mask & 1 << e == 0)
            .filter(|&e| {
                box_masks
                    .iter()
                    .all(|&b| b & 1 << e == 0 || (mask & b).count_ones() < 2)
            })
            .collect();
        if safe.is_empty() {
            return None;
        }
        mask |= 1 << rng.pick(&safe);
    }
    Some(Edges(mask))
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
