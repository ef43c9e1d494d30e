//! The order [`QubicSolver`](super::QubicSolver) searches a quiet
//! position's moves in: rules of thumb that find the best move soonest.

use super::lines::{CELLS, LINE_DEGREE, LINES, LINES_THROUGH, LineCells};

/// The moves of a position, each with its key: the rule-of-thumb score,
/// shifted up, and `63 - cell` below it, so that keys are distinct and ties
/// go to the lower cell. The best is picked when it is wanted: a search
/// that cuts off after a move or two never orders the rest.
pub(super) struct Moves {
    keys: [u32; CELLS],
    len: usize,
}

impl Moves {
    /// The best move left, taken out.
    #[inline]
    pub(super) fn pop_best(&mut self) -> Option<u8> {
        let keys = &mut self.keys[..self.len];
        let (at, &key) = keys.iter().enumerate().max_by_key(|&(_, &k)| k)?;
        keys[at] = keys[keys.len() - 1];
        self.len -= 1;
        Some(63 - (key & 63) as u8)
    }
}

/// Weights of a cell's lines for move ordering, by the stones on the line:
/// `OWN[k]` for a line with `k` of the mover's stones and none of the
/// opponent's, `OPPONENT[k]` for one with `k` of the opponent's and none of
/// the mover's (occupying it takes the line from them). Lines held by both
/// count nothing.
const OWN: [u32; 4] = [1, 4, 16, 0];
const OPPONENT: [u32; 4] = [1, 5, 25, 0];

/// `LINE_WEIGHTS[own][other]`: the weight of a line with `own` of the
/// mover's stones and `other` of the opponent's, from `OWN` and `OPPONENT`.
const LINE_WEIGHTS: [[u32; 5]; 5] = {
    let mut table = [[0u32; 5]; 5];
    let mut k = 0;
    while k < 4 {
        table[k][0] += OWN[k];
        table[0][k] += OPPONENT[k];
        k += 1;
    }
    table
};

/// The moves of a quiet position, best first by the rules of thumb in
/// [`QubicSolver`](super::QubicSolver)'s documentation.
pub(super) fn ordered_moves(
    me: u64,
    you: u64,
    mine: &LineCells,
    theirs: &LineCells,
    table_move: Option<u8>,
    skip_dead: bool,
) -> Moves {
    let mut keys = [0u32; CELLS];
    let mut len = 0;
    // Dead cells, on no line that either player can still complete, are
    // left out: see `QubicSolver`.
    let mut rest = if skip_dead {
        mine.live | theirs.live
    } else {
        !(me | you)
    };
    // The table's move is searched already.
    if let Some(cell) = table_move {
        rest &= !(1 << cell);
    }
    // Each line's weight once, then each cell's sum over its lines.
    let mut weights = [0u32; LINES.len()];
    for (weight, &line) in weights.iter_mut().zip(&LINES) {
        let (own, other) = ((line & me).count_ones(), (line & you).count_ones());
        *weight = LINE_WEIGHTS[own as usize][other as usize];
    }
    while rest != 0 {
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let bit = 1u64 << cell;
        let mut key = 0;
        for &line in &LINES_THROUGH[cell][..usize::from(LINE_DEGREE[cell])] {
            key += weights[usize::from(line)];
        }
        if mine.pairs & bit != 0 {
            key += 1 << 12;
        }
        if theirs.forks & bit != 0 {
            key += 1 << 10;
        }
        keys[len] = key << 6 | (63 - cell as u32);
        len += 1;
    }
    Moves { keys, len }
}
