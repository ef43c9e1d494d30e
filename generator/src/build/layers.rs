//! Solving every reachable position of a game whose reachable set fits in
//! memory, by layers from the start position, and laying the results out as
//! table entries.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;
use solvedb_lookup::format::sorted_entries;
use solvedb_lookup::{Game, Score, Tabled};

/// Positions reached after one number of moves, like a perft line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerCount {
    /// Moves played from the start.
    pub ply: usize,
    /// Distinct positions.
    pub reachable: u64,
    /// Distinct positions up to symmetry.
    pub canonical: u64,
}

/// A solved game: counts, and one entry byte per table slot.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Positions per ply, raw and up to symmetry.
    pub layers: Vec<LayerCount>,
    /// Table entry bytes: for dense indexes `game.slots()` of them, 0 where
    /// no position is stored; for sorted keys the fence and the records.
    pub entries: Vec<u8>,
    /// Non-zero entries: the canonical reachable positions, but for the
    /// don't-care ones of games that resolve some by rule.
    pub stored: u64,
    /// Lines the build report adds after the counts (Qubic: the proof's
    /// figures); empty for most games.
    pub notes: Vec<String>,
}

impl Solution {
    /// The solution of a game whose stored positions and scores are
    /// `scores` (canonical positions), laid out as its index scheme asks:
    /// a dense array of `game.slots()` entries, or sorted records in blocks
    /// of `block_entries`.
    pub fn from_scores<G: Tabled>(
        game: &G,
        layers: Vec<LayerCount>,
        scores: impl IntoIterator<Item = (G::Position, Score)>,
        block_entries: u32,
    ) -> Solution {
        let mut stored = 0;
        let entries = if G::INDEX.is_dense() {
            let slots = usize::try_from(game.slots()).expect("table fits memory");
            let mut entries = vec![0u8; slots];
            for (p, score) in scores {
                entries[game.slot(p) as usize] = game.encode(p, score);
                stored += 1;
            }
            entries
        } else {
            let mut records: Vec<(u64, u8)> = scores
                .into_iter()
                .map(|(p, score)| (game.slot(p), game.encode(p, score)))
                .collect();
            records.sort_unstable();
            stored = records.len() as u64;
            sorted_entries(&records, block_entries)
        };
        Solution {
            layers,
            entries,
            stored,
            notes: Vec::new(),
        }
    }

    /// Reachable positions in all layers.
    pub fn reachable(&self) -> u64 {
        self.layers.iter().map(|l| l.reachable).sum()
    }

    /// Reachable positions up to symmetry in all layers.
    pub fn canonical(&self) -> u64 {
        self.layers.iter().map(|l| l.canonical).sum()
    }
}

/// Every position reachable from the start, layer by layer: layer `k` holds
/// the positions that `k` moves reach. Each position lies in one layer (true
/// of games where every move adds a stone or an edge).
pub fn reachable_layers<G: Game>(game: &G) -> Vec<Vec<G::Position>> {
    let mut layers = vec![vec![game.start()]];
    loop {
        let last = layers.last().expect("at least the start layer");
        let next: HashSet<G::Position> = last
            .par_iter()
            .flat_map_iter(|&p| game.moves(p).into_iter().map(move |m| game.play(p, m).0))
            .collect();
        if next.is_empty() {
            return layers;
        }
        let mut next: Vec<_> = next.into_iter().collect();
        next.sort_unstable();
        layers.push(next);
    }
}

/// The canonical positions reachable from the start, layer by layer
/// (layer `k` is what `k` moves reach, up to symmetry): each layer grows
/// from the canonical forms of the last one's children, so the work is that
/// of the positions up to symmetry, not of every position.
pub fn canonical_layers<G: Game>(game: &G) -> Vec<Vec<G::Position>> {
    let mut layers = vec![vec![game.canonical(game.start())]];
    loop {
        let last = layers.last().expect("at least the start layer");
        let next: HashSet<G::Position> = last
            .par_iter()
            .flat_map_iter(|&p| {
                game.moves(p)
                    .into_iter()
                    .map(move |m| game.canonical(game.play(p, m).0))
            })
            .collect();
        if next.is_empty() {
            return layers;
        }
        let mut next: Vec<_> = next.into_iter().collect();
        next.sort_unstable();
        layers.push(next);
    }
}

/// How many positions are symmetric images of `position` (itself included):
/// the size of its orbit under the game's symmetries.
pub fn orbit_size<G: Game>(game: &G, position: G::Position) -> u64 {
    let mut images: Vec<G::Position> = (0..game.symmetry_count())
        .map(|s| game.image(position, s))
        .collect();
    images.sort_unstable();
    images.dedup();
    images.len() as u64
}

/// Solves every reachable position, from the last layer back to the start:
/// a position's score is its terminal score or the best backed-up score of
/// its moves. Only canonical positions are kept and solved; children are
/// looked up by their canonical form; a layer's count of all positions is
/// the sum of its canonical positions' orbits. Sorted-keys tables get blocks
/// of `block_entries`.
pub fn solve<G: Tabled>(game: &G, block_entries: u32) -> Solution {
    let layers = canonical_layers(game);
    let mut scores: HashMap<G::Position, Score> = HashMap::new();
    let mut counts = Vec::with_capacity(layers.len());
    for (ply, layer) in layers.iter().enumerate().rev() {
        let solved: Vec<(G::Position, Score)> = layer
            .par_iter()
            .map(|&p| {
                (
                    p,
                    best_score(game, p, |child| scores[&game.canonical(child)]),
                )
            })
            .collect();
        counts.push(LayerCount {
            ply,
            reachable: layer.par_iter().map(|&p| orbit_size(game, p)).sum(),
            canonical: layer.len() as u64,
        });
        scores.extend(solved);
    }
    counts.reverse();

    Solution::from_scores(game, counts, scores, block_entries)
}

/// The score of a position from its children's scores: the terminal score,
/// or the best backed-up score over the legal moves.
pub fn best_score<G: Game>(
    game: &G,
    position: G::Position,
    mut child_score: impl FnMut(G::Position) -> Score,
) -> Score {
    if let Some(score) = game.terminal_score(position) {
        return score;
    }
    game.moves(position)
        .into_iter()
        .map(|mv| {
            let (child, transition) = game.play(position, mv);
            transition.backup(child_score(child))
        })
        .max()
        .expect("a position that is not terminal has a move")
}
