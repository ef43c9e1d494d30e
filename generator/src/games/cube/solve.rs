//! The cube's solver and exhaustive check. Its tables store only the
//! canonical quiet positions (see `solvedb_lookup::games::cube`), so the
//! generic layer-by-layer solver does not apply: this module enumerates
//! positions orbit by orbit instead of keeping them, which is what lets an
//! exhaustive pass over ~10^11 positions run in bounded memory.

use std::ops::RangeInclusive;

use rayon::prelude::*;
use solvedb_lookup::games::cube::{CELLS, SYMMETRY_COUNT, for_each_line_free, threats};
use solvedb_lookup::{
    Cube, CubeBoard, Game, Resolved, Score, Table, TableData, TableError, Tabled, Transition,
    WIN_SCORE,
};

use crate::progress::Progress;

const FULL: u32 = (1 << CELLS) - 1;

/// Stones of X and O on a board with `stones` stones (X moves first).
fn split(stones: u32) -> (u32, u32) {
    (stones.div_ceil(2), stones / 2)
}

/// An orbit representative X set and its stabilizer (identity excluded).
type XOrbit = (u32, Vec<usize>);

/// One X set per orbit and its stabilizer (identity excluded).
fn orbits(size: u32) -> Vec<XOrbit> {
    Cube.x_orbits(size)
        .into_iter()
        .map(|x| {
            let stabilizer = Cube.stabilizer(x).into_iter().filter(|&s| s != 0).collect();
            (x, stabilizer)
        })
        .collect()
}

/// Whether `o` is least among its images under `stabilizer`, and the size of
/// the board's orbit (48 over the symmetries that fix both sets).
fn canonical_under(o: u32, stabilizer: &[usize]) -> Option<u64> {
    let mut fixing = 1;
    for &s in stabilizer {
        let image = Cube.mask_image(s, o);
        if image < o {
            return None;
        }
        fixing += u64::from(image == o);
    }
    Some(SYMMETRY_COUNT as u64 / fixing)
}

/// Calls `f(o, orbit_size)` for every O set making a canonical board with the
/// X set `x` (an orbit representative with this stabilizer): line-free,
/// containing `required`, `o_stones` stones in all.
fn for_each_o(
    x: u32,
    stabilizer: &[usize],
    required: u32,
    o_stones: u32,
    f: &mut impl FnMut(u32, u64),
) {
    let Some(extra) = o_stones.checked_sub(required.count_ones()) else {
        return;
    };
    if solvedb_lookup::games::cube::has_line(required) {
        return;
    }
    for_each_line_free(required, FULL & !x & !required, extra, &mut |o| {
        if let Some(orbit) = canonical_under(o, stabilizer) {
            f(o, orbit);
        }
    });
}

/// Per number of stones: positions raw and up to symmetry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoneCount {
    /// Stones on the board.
    pub stones: u32,
    /// Positions.
    pub raw: u64,
    /// Positions up to the 48 symmetries.
    pub canonical: u64,
    /// Positions checked (exhaustive check only).
    pub checked: u64,
}

/// The canonical quiet positions with `stones` stones, sorted by key, and
/// how many quiet positions there are without symmetry.
pub fn quiet_positions(stones: u32) -> (Vec<CubeBoard>, u64) {
    let (xs, os) = split(stones);
    let per_orbit: Vec<(Vec<CubeBoard>, u64)> = orbits(xs)
        .into_par_iter()
        .map(|(x, stabilizer)| {
            let mut found = Vec::new();
            let mut raw = 0;
            // Every X threat must be blocked by O for the board to be quiet.
            let required = threats(x, FULL & !x);
            for_each_o(x, &stabilizer, required, os, &mut |o, orbit| {
                if threats(o, FULL & !(x | o)) == 0 {
                    found.push(Cube.board(x, o).expect("line-free sets, legal counts"));
                    raw += orbit;
                }
            });
            (found, raw)
        })
        .collect();
    let raw = per_orbit.iter().map(|(_, r)| r).sum();
    let mut boards: Vec<CubeBoard> = per_orbit.into_iter().flat_map(|(b, _)| b).collect();
    boards.sort_unstable();
    (boards, raw)
}

/// Solved quiet positions, one sorted layer per stone count.
#[derive(Debug, Default)]
pub struct QuietScores {
    layers: Vec<Vec<(u64, i16)>>,
}

impl QuietScores {
    fn score(&self, canonical: CubeBoard) -> Score {
        let layer = &self.layers[canonical.stones() as usize];
        let key = canonical.key();
        let at = layer
            .binary_search_by_key(&key, |&(k, _)| k)
            .unwrap_or_else(|_| panic!("quiet {} solved", Cube.notation(canonical)));
        Score::from(layer[at].1)
    }

    /// The exact score of any legal position, by forced play and the solved
    /// quiet positions with more stones.
    fn resolve(&self, board: CubeBoard) -> Score {
        match Cube.resolve(board) {
            Resolved::Score(score) => score,
            Resolved::Quiet { quiet, negate } => {
                let score = self.score(Cube.canonical(quiet));
                if negate { -score } else { score }
            }
        }
    }
}

/// The score of a quiet position from its children. Nobody threatens, so
/// the best a move can do is two threats at once: win in 3; stop there.
fn quiet_score(scores: &QuietScores, board: CubeBoard) -> Score {
    let stones = board.stones() as Score;
    let best_possible = WIN_SCORE - (stones + 3);
    let mut best = -WIN_SCORE;
    let mut empty = board.empty();
    while empty != 0 {
        let cell = empty.trailing_zeros();
        empty &= empty - 1;
        best = best.max(-scores.resolve(board.with_move(cell)));
        if best >= best_possible {
            break;
        }
    }
    best
}

/// The solved cube: per stone count the quiet positions (raw, canonical),
/// and the table records `(key, entry)` sorted by key.
#[derive(Debug)]
pub struct CubeSolution {
    /// Quiet positions per stone count.
    pub counts: Vec<StoneCount>,
    /// Records for the table, sorted by key.
    pub records: Vec<(u64, u8)>,
}

/// Solves every quiet position, from the fullest boards back to the empty
/// one: each child resolves by forced play to a known score or to a quiet
/// position with more stones, solved before.
pub fn solve_cube() -> CubeSolution {
    let mut scores = QuietScores {
        layers: vec![Vec::new(); CELLS + 1],
    };
    let mut counts = Vec::new();
    let progress = Progress::bar(CELLS as u64 + 1, "solving cube layers".into());
    for stones in (0..=CELLS as u32).rev() {
        let (boards, raw) = quiet_positions(stones);
        let layer: Vec<(u64, i16)> = boards
            .par_iter()
            .map(|&b| {
                let score = quiet_score(&scores, b);
                (b.key(), i16::try_from(score).expect("scores fit i16"))
            })
            .collect();
        counts.push(StoneCount {
            stones,
            raw,
            canonical: boards.len() as u64,
            checked: 0,
        });
        scores.layers[stones as usize] = layer;
        progress.advance(1);
    }
    progress.finish();
    counts.reverse();
    let mut records: Vec<(u64, u8)> = scores
        .layers
        .iter()
        .flatten()
        .map(|&(key, score)| {
            let board = CubeBoard::from_key(key).expect("keys of boards");
            (key, Cube.encode(board, Score::from(score)))
        })
        .collect();
    records.sort_unstable();
    CubeSolution { counts, records }
}

/// A position the exhaustive check found wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{position}: probed {probed}, but the best over its moves is {best}")]
pub struct Inconsistent {
    /// The position, in notation.
    pub position: String,
    /// Its probed value.
    pub probed: String,
    /// The best value over its moves.
    pub best: String,
}

/// The failure of an exhaustive check: a table error or a wrong value.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The table could not answer.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A probed value is not the best over the position's moves.
    #[error(transparent)]
    Inconsistent(#[from] Inconsistent),
}

/// Checks one position: its probed score equals the best over its moves of
/// the negated probed score of the child (terminal children by the rules).
fn check_position<D: TableData>(table: &Table<D>, board: CubeBoard) -> Result<(), CheckError> {
    let probed = Cube.table_score(table, board)?;
    // Nothing beats winning with the next stone: stop there.
    let best_possible = WIN_SCORE - (board.stones() as Score + 1);
    let mut best = -WIN_SCORE;
    if Cube.terminal_score(board).is_none() {
        // The moves most likely best first (as `Cube::ordered_moves`, without
        // allocating): the mover's winning cells, blocks, the rest.
        let empty = board.empty();
        let (mover, other) = board.mover_and_other();
        let wins = threats(mover, empty);
        // A winning cell ends the scan at once, so blocks matter only
        // without one (this is the bulk of the exhaustive check's work).
        let blocks = if wins == 0 { threats(other, empty) } else { 0 };
        'moves: for mut cells in [wins, blocks, empty & !wins & !blocks] {
            while cells != 0 {
                let cell = cells.trailing_zeros();
                cells &= cells - 1;
                let child = board.with_move(cell);
                let child_score = match Cube.terminal_score(child) {
                    Some(score) => score,
                    None => Cube.table_score(table, child)?,
                };
                best = best.max(Transition::PASS.backup(child_score));
                if best >= best_possible {
                    break 'moves;
                }
            }
        }
    }
    if probed != best {
        return Err(Inconsistent {
            position: Cube.notation(board),
            probed: Cube.value(board, probed).to_string(),
            best: Cube.value(board, best).to_string(),
        }
        .into());
    }
    Ok(())
}

/// Checks every reachable non-terminal position with a number of stones in
/// `stones`, one per orbit of the 48 symmetries: its probed value equals the
/// best over its children's probed values. Together with correct terminal
/// values this proves, by induction on the empty cells, that every probe is
/// exact. Positions are enumerated, never stored: for each orbit of X sets
/// (line-free, as no line may stand on a non-terminal board), every
/// line-free O set, kept if it is least under the X set's stabilizer.
///
/// Returns per stone count the positions raw, canonical, and checked, and
/// hands each to `layer_done` as soon as it is known.
///
/// # Errors
///
/// The first table error or inconsistency found.
pub fn check_exhaustive<D: TableData + Send + Sync>(
    table: &Table<D>,
    stones: RangeInclusive<u32>,
    mut layer_done: impl FnMut(&StoneCount),
) -> Result<Vec<StoneCount>, CheckError> {
    Cube.check_header(table.header())?;
    let layers: Vec<(u32, Vec<XOrbit>)> = stones
        .filter(|&n| (n as usize) < CELLS)
        .map(|n| (n, orbits(split(n).0)))
        .collect();
    let total = layers.iter().map(|(_, o)| o.len() as u64).sum();
    let progress = Progress::bar(total, "checking X-set orbits".into());
    let mut counts = Vec::new();
    for (n, orbits) in &layers {
        let o_stones = split(*n).1;
        let (raw, canonical, checked) = orbits
            .par_iter()
            .map(|(x, stabilizer)| {
                let (mut raw, mut canonical, mut checked) = (0u64, 0u64, 0u64);
                let mut failure = None;
                for_each_o(*x, stabilizer, 0, o_stones, &mut |o, orbit| {
                    raw += orbit;
                    canonical += 1;
                    if failure.is_some() {
                        return;
                    }
                    let board = CubeBoard::from_key(u64::from(*x) << CELLS | u64::from(o))
                        .expect("disjoint sets");
                    match check_position(table, board) {
                        Ok(()) => checked += 1,
                        Err(e) => failure = Some(e),
                    }
                });
                progress.advance(1);
                match failure {
                    Some(e) => Err(e),
                    None => Ok((raw, canonical, checked)),
                }
            })
            .try_reduce(|| (0, 0, 0), |a, b| Ok((a.0 + b.0, a.1 + b.1, a.2 + b.2)))?;
        let count = StoneCount {
            stones: *n,
            raw,
            canonical,
            checked,
        };
        layer_done(&count);
        counts.push(count);
    }
    progress.finish();
    Ok(counts)
}

/// Checks every stored record: a legal, canonical, quiet position whose value
/// equals the best over its children. Returns the number checked.
///
/// # Errors
///
/// The first table error or inconsistency found.
pub fn check_stored<D: TableData + Send + Sync>(table: &Table<D>) -> Result<u64, CheckError> {
    Cube.check_header(table.header())?;
    let stored = table.header().stored;
    (0..stored).into_par_iter().try_for_each(|i| {
        let (key, _) = table.sorted_record(i)?;
        let bad = |reason: &str| TableError::Entry {
            slot: key,
            reason: reason.to_owned(),
        };
        let board = CubeBoard::from_key(key).ok_or_else(|| bad("the key names no board"))?;
        let board = Cube
            .board(board.x(), board.o())
            .map_err(|e| bad(&format!("not reachable: {e}")))?;
        if Cube.terminal_score(board).is_some() || !board.is_quiet() {
            return Err(bad("a stored position must be quiet and not over").into());
        }
        if Cube.canonical(board) != board {
            return Err(bad("a stored position must be canonical").into());
        }
        check_position(table, board)
    })?;
    Ok(stored)
}
