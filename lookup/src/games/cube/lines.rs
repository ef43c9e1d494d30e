//! The cube's 49 lines, and the bit-parallel tests of lines and threats
//! over them.

/// Cells on the board.
pub const CELLS: usize = 27;
/// Every cell.
pub(crate) const FULL: u32 = (1 << CELLS) - 1;
/// Number of winning lines.
pub const LINE_COUNT: usize = 49;

pub(crate) const fn cell(x: usize, y: usize, z: usize) -> usize {
    x + 3 * y + 9 * z
}

/// The 49 lines as cell masks: every triple `a, b, c` with `b - a = c - b`
/// as coordinate vectors, each found once from its lower end.
pub const LINES: [u32; LINE_COUNT] = {
    let mut lines = [0u32; LINE_COUNT];
    let mut count = 0;
    let mut a = 0;
    while a < CELLS {
        let (ax, ay, az) = ((a % 3) as i32, ((a / 3) % 3) as i32, (a / 9) as i32);
        let mut d = 0;
        // Directions (dx, dy, dz) in -1..=1, not zero, whose first non-zero
        // component is positive: each line is found once, from one end.
        while d < 27 {
            let (dx, dy, dz) = ((d % 3) - 1, ((d / 3) % 3) - 1, (d / 9) - 1);
            let positive = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
            let (cx, cy, cz) = (ax + 2 * dx, ay + 2 * dy, az + 2 * dz);
            if positive && cx >= 0 && cx < 3 && cy >= 0 && cy < 3 && cz >= 0 && cz < 3 {
                let b = cell((ax + dx) as usize, (ay + dy) as usize, (az + dz) as usize);
                let c = cell(cx as usize, cy as usize, cz as usize);
                lines[count] = 1 << a | 1 << b | 1 << c;
                count += 1;
            }
            d += 1;
        }
        a += 1;
    }
    assert!(count == LINE_COUNT);
    lines
};

/// Calls `f` with every line-free superset of `stones` that adds exactly `k`
/// cells of `available`, each set once; `stones` must be line-free.
///
/// This is the inner loop of the exhaustive check (~10^11 sets), so it keeps
/// the cells that would complete a line out of the candidates as it goes
/// ([`threats`]) and hands out the last cell without recursing.
pub fn for_each_line_free(stones: u32, available: u32, k: u32, f: &mut impl FnMut(u32)) {
    let candidates = available & !stones & !threats(stones, FULL & !stones);
    line_free_from(stones, candidates, k, f);
}

fn line_free_from(stones: u32, candidates: u32, k: u32, f: &mut impl FnMut(u32)) {
    match k {
        0 => f(stones),
        1 => {
            let mut rest = candidates;
            while rest != 0 {
                f(stones | rest & rest.wrapping_neg());
                rest &= rest - 1;
            }
        }
        _ => {
            let mut rest = candidates;
            while rest.count_ones() >= k {
                let with = stones | rest & rest.wrapping_neg();
                rest &= rest - 1;
                line_free_from(with, rest & !threats(with, rest), k - 1, f);
            }
        }
    }
}

/// The lines by direction. In cell numbers every line is `m - k, m, m + k`
/// for its middle cell `m` and a step `k` that depends only on its direction,
/// and the 13 directions have the 13 distinct steps 1..=13. `MIDDLES[k - 1]`
/// holds the middle cells of the lines with step `k`, so shifting a mask by
/// `k` tests every line of a direction at once.
const MIDDLES: [u32; 13] = {
    let mut middles = [0u32; 13];
    let mut l = 0;
    while l < LINE_COUNT {
        let low = LINES[l].trailing_zeros();
        let high = 31 - LINES[l].leading_zeros();
        let middle = (LINES[l] & !(1 << low) & !(1 << high)).trailing_zeros();
        let step = middle - low;
        assert!(high - middle == step && step >= 1 && step <= 13);
        middles[step as usize - 1] |= 1 << middle;
        l += 1;
    }
    middles
};

/// Whether `stones` contain a whole line.
#[inline]
pub fn has_line(stones: u32) -> bool {
    let mut found = 0;
    for (i, &middles) in MIDDLES.iter().enumerate() {
        let k = i + 1;
        found |= stones & stones >> k & stones << k & middles;
    }
    found != 0
}

/// The empty cells that would complete a line of `stones`: two of the
/// line's cells are in `stones`, the third is in `empty`. Bit-parallel over
/// the lines of each direction (see `MIDDLES`): the missing cell is the
/// middle, the low end or the high end.
#[inline]
pub fn threats(stones: u32, empty: u32) -> u32 {
    let mut cells = 0;
    for (i, &middles) in MIDDLES.iter().enumerate() {
        let k = i + 1;
        let (up, down) = (stones >> k, stones << k);
        cells |= up & down & middles;
        cells |= up & stones >> (2 * k) & middles >> k;
        cells |= down & stones << (2 * k) & middles << k;
    }
    cells & empty
}
