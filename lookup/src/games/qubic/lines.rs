//! Qubic's 76 lines of four and what they say about a board: whether a
//! player owns a line, and the cells where a stone completes, starts or
//! forks one ([`line_cells`]), bit-parallel over the 13 directions.

/// Cells on the board.
pub const CELLS: usize = 64;
/// Cells on a side.
pub(crate) const SIDE: usize = 4;
/// Every cell.
pub(crate) const FULL: u64 = u64::MAX;
/// Number of winning lines.
pub const LINE_COUNT: usize = 76;

/// The cell at `(x, y, z)`.
pub(crate) const fn cell(x: usize, y: usize, z: usize) -> usize {
    x + SIDE * y + SIDE * SIDE * z
}

/// The coordinates `[x, y, z]` of cell `c`.
pub(crate) const fn coords(c: usize) -> [usize; 3] {
    [c % SIDE, (c / SIDE) % SIDE, c / (SIDE * SIDE)]
}

/// The 76 lines as cell masks. A line of four on a side of four spans the
/// board in every direction it moves in, so each direction `(dx, dy, dz)`
/// in `-1..=1` (not zero; the first non-zero component positive, so each
/// line is found once) gives one line from every cell `a` for which
/// `a + 3d` is still on the board.
pub const LINES: [u64; LINE_COUNT] = {
    let mut lines = [0u64; LINE_COUNT];
    let mut count = 0;
    let mut a = 0;
    while a < CELLS {
        let [ax, ay, az] = coords(a);
        let (ax, ay, az) = (ax as i32, ay as i32, az as i32);
        let mut d = 0;
        while d < 27 {
            let (dx, dy, dz) = ((d % 3) - 1, ((d / 3) % 3) - 1, (d / 9) - 1);
            let positive = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
            let (ex, ey, ez) = (ax + 3 * dx, ay + 3 * dy, az + 3 * dz);
            let side = SIDE as i32;
            if positive && ex >= 0 && ex < side && ey >= 0 && ey < side && ez >= 0 && ez < side {
                let mut line = 0u64;
                let mut k = 0;
                while k < 4 {
                    let c = cell(
                        (ax + k * dx) as usize,
                        (ay + k * dy) as usize,
                        (az + k * dz) as usize,
                    );
                    line |= 1 << c;
                    k += 1;
                }
                lines[count] = line;
                count += 1;
            }
            d += 1;
        }
        a += 1;
    }
    assert!(count == LINE_COUNT);
    lines
};

/// Number of directions lines run in: 3 axes, 6 plane diagonals, 4 space
/// diagonals.
const DIRECTION_COUNT: usize = 13;

/// The lines by direction. In cell numbers a line is `s, s + k, s + 2k,
/// s + 3k` from its lowest cell `s`, for a step `k` that depends only on its
/// direction, and the 13 directions have 13 distinct steps (1, 3, 4, 5, 11,
/// 12, 13, 15, 16, 17, 19, 20, 21). `DIRECTIONS[i] = (k, starts)`, `starts`
/// the lowest cells of that direction's lines: shifting a mask by `k`,
/// `2k` and `3k` lines up the cells of every line of the direction at
/// their start, so one word operation tests them all.
pub(super) const DIRECTIONS: [(u32, u64); DIRECTION_COUNT] = {
    let mut directions = [(0u32, 0u64); DIRECTION_COUNT];
    let mut found = 0;
    let mut l = 0;
    while l < LINE_COUNT {
        let line = LINES[l];
        let low = line.trailing_zeros();
        let step = (line & !(1 << low)).trailing_zeros() - low;
        assert!(
            line == 1 << low | 1 << (low + step) | 1 << (low + 2 * step) | 1 << (low + 3 * step)
        );
        let mut i = 0;
        while i < found && directions[i].0 != step {
            i += 1;
        }
        if i == found {
            directions[i].0 = step;
            found += 1;
        }
        directions[i].1 |= 1 << low;
        l += 1;
    }
    assert!(found == DIRECTION_COUNT);
    directions
};

/// Whether `stones` contain a whole line.
#[inline]
pub fn has_line(stones: u64) -> bool {
    let mut found = 0;
    for &(k, starts) in &DIRECTIONS {
        found |= stones & stones >> k & stones >> (2 * k) & stones >> (3 * k) & starts;
    }
    found != 0
}

/// What the lines say about one player's stones: the cells that would
/// complete a line, that would make a line three strong, and that would do
/// that twice at once.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LineCells {
    /// Empty cells that complete a line of the player: the line's other
    /// three cells are the player's.
    pub threats: u64,
    /// Empty cells of lines with exactly two of the player's stones and two
    /// empty cells: playing one makes a threat at the other.
    pub pairs: u64,
    /// Empty cells on two or more such lines: playing one makes two threats
    /// at two different cells (two lines meet in at most one cell), a win
    /// in three unless the opponent wins first.
    pub forks: u64,
    /// Empty cells on lines without the opponent's stones: the only cells
    /// where a stone of the player can still help it complete a line.
    pub live: u64,
}

/// [`LineCells`] of `stones` against the opponent's `blockers` (disjoint),
/// bit-parallel over each direction's lines (see `DIRECTIONS`): the four
/// cells of every line of a direction are added up at the line's start
/// with a carry-save adder, then spread back to the empty cells. This is
/// the live solver's inner loop, twice per position: a word operation per
/// direction rather than two popcounts per line.
#[inline]
pub fn line_cells(stones: u64, blockers: u64) -> LineCells {
    let empty = !(stones | blockers);
    let (mut threats, mut pairs, mut forks, mut live) = (0, 0, 0, 0);
    for &(k, starts) in &DIRECTIONS {
        let (s0, s1, s2, s3) = (stones, stones >> k, stones >> (2 * k), stones >> (3 * k));
        let blocked = blockers | blockers >> k | blockers >> (2 * k) | blockers >> (3 * k);
        let open = starts & !blocked;
        // The count of s0..s3 in binary: `odd` its bit 0, `twos` its bit 1
        // (a count of 4 has neither).
        let (x01, a01, x23, a23) = (s0 ^ s1, s0 & s1, s2 ^ s3, s2 & s3);
        let odd = x01 ^ x23;
        let twos = a01 ^ a23 ^ (x01 & x23);
        let three = open & odd & twos;
        let two = open & !odd & twos;
        threats |= (three | three << k | three << (2 * k) | three << (3 * k)) & empty;
        // A cell lies on at most one line of each direction.
        let pair = (two | two << k | two << (2 * k) | two << (3 * k)) & empty;
        forks |= pairs & pair;
        pairs |= pair;
        live |= open | open << k | open << (2 * k) | open << (3 * k);
    }
    LineCells {
        threats,
        pairs,
        forks,
        live: live & empty,
    }
}

/// The empty cells (of `empty`) that would complete a line of `stones`.
#[inline]
pub fn threats(stones: u64, empty: u64) -> u64 {
    line_cells(stones, !(stones | empty)).threats & empty
}

/// `LINES_THROUGH[c]`: the lines through cell `c` (indices into [`LINES`]),
/// `LINE_DEGREE[c]` of them: 7 through the 8 corners and the 8 centre cells
/// (three axes, three plane diagonals, one space diagonal), 4 through the
/// other 48.
pub const LINES_THROUGH: [[u8; 7]; CELLS] = {
    let mut through = [[0u8; 7]; CELLS];
    let mut degree = [0usize; CELLS];
    let mut l = 0;
    while l < LINE_COUNT {
        let mut c = 0;
        while c < CELLS {
            if LINES[l] >> c & 1 != 0 {
                through[c][degree[c]] = l as u8;
                degree[c] += 1;
            }
            c += 1;
        }
        l += 1;
    }
    through
};

/// Lines through each cell (see `LINES_THROUGH`).
pub const LINE_DEGREE: [u8; CELLS] = {
    let mut degree = [0u8; CELLS];
    let mut l = 0;
    while l < LINE_COUNT {
        let mut c = 0;
        while c < CELLS {
            if LINES[l] >> c & 1 != 0 {
                degree[c] += 1;
            }
            c += 1;
        }
        l += 1;
    }
    degree
};
