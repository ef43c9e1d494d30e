//! Qubic's lines and the bit-parallel line cells.

use std::collections::HashSet;

use super::super::lines::DIRECTIONS;
use super::*;

#[test]
fn lines_are_every_straight_line_of_four() {
    // Every cell `a` and step `v` in {-1, 0, 1}^3 (not zero) such that
    // a, a+v, a+2v, a+3v are all on the board: each line twice, once from
    // each end.
    let mut straight = HashSet::new();
    for a in 0..64 {
        for v in 0..27 {
            let v = [v % 3 - 1, v / 3 % 3 - 1, v / 9 - 1];
            if v == [0, 0, 0] {
                continue;
            }
            let p = at(a);
            let cells: Vec<[i32; 3]> = (0..4)
                .map(|k| [p[0] + k * v[0], p[1] + k * v[1], p[2] + k * v[2]])
                .collect();
            if cells.iter().all(|c| c.iter().all(|&i| (0..4).contains(&i))) {
                let mask = cells
                    .iter()
                    .fold(0u64, |m, c| m | 1 << (c[0] + 4 * c[1] + 16 * c[2]));
                straight.insert(mask);
            }
        }
    }
    let lines: HashSet<u64> = LINES.iter().copied().collect();
    assert_eq!(lines.len(), 76);
    assert_eq!(lines, straight);
    // 48 along the axes, 24 plane diagonals, 4 space diagonals: by how
    // many coordinates vary along the line.
    let mut by_varying = [0; 4];
    for &line in &LINES {
        let cells = cells_of(line);
        let (first, second) = (at(cells[0]), at(cells[1]));
        by_varying[(0..3).filter(|&i| first[i] != second[i]).count()] += 1;
    }
    assert_eq!(by_varying, [0, 48, 24, 4]);
}

#[test]
fn cells_lie_on_seven_or_four_lines() {
    for c in 0..64 {
        let through: Vec<u8> = (0..76u8)
            .filter(|&l| LINES[usize::from(l)] >> c & 1 != 0)
            .collect();
        assert_eq!(
            &LINES_THROUGH[c][..usize::from(LINE_DEGREE[c])],
            &through[..]
        );
        let p = at(c);
        let inner = |i: i32| i == 1 || i == 2;
        // Corners (all coordinates outer) and centre cells (all inner).
        let seven = p.iter().all(|&i| inner(i)) || p.iter().all(|&i| !inner(i));
        assert_eq!(LINE_DEGREE[c], if seven { 7 } else { 4 }, "cell {c}");
    }
    // Every direction's lines, by their steps.
    let mut steps: Vec<u32> = DIRECTIONS.iter().map(|d| d.0).collect();
    steps.sort_unstable();
    assert_eq!(steps, [1, 3, 4, 5, 11, 12, 13, 15, 16, 17, 19, 20, 21]);
    let counted: u32 = DIRECTIONS.iter().map(|d| d.1.count_ones()).sum();
    assert_eq!(counted, 76);
}

/// The line cells of `stones` against `blockers`, line by line.
fn slow_line_cells(stones: u64, blockers: u64) -> LineCells {
    let empty = !(stones | blockers);
    let mut cells = LineCells::default();
    let mut pair_lines = [0u32; 64];
    for &line in &LINES {
        if line & blockers != 0 {
            continue;
        }
        cells.live |= line & empty;
        match (line & stones).count_ones() {
            3 => cells.threats |= line & empty,
            2 => {
                for c in cells_of(line & empty) {
                    pair_lines[c] += 1;
                }
            }
            _ => {}
        }
    }
    for (c, &n) in pair_lines.iter().enumerate() {
        if n >= 1 {
            cells.pairs |= 1 << c;
        }
        if n >= 2 {
            cells.forks |= 1 << c;
        }
    }
    cells
}

#[test]
fn bit_parallel_line_cells_match_line_by_line() {
    let mut rng = Rng::new(5);
    for round in 0..30_000 {
        // Dense boards, sparse ones (where pairs and forks abound), and
        // one-sided ones.
        let a = rng.next_u64();
        let b = rng.next_u64() & !a;
        let (stones, blockers) = match round % 3 {
            0 => (a, b),
            1 => (
                a & rng.next_u64() & rng.next_u64(),
                b & rng.next_u64() & rng.next_u64(),
            ),
            _ => (a & rng.next_u64(), 0),
        };
        let fast = line_cells(stones, blockers);
        assert_eq!(
            fast,
            slow_line_cells(stones, blockers),
            "{stones:#x} {blockers:#x}"
        );
        let slow_line = LINES.iter().any(|&l| l & !stones == 0);
        assert_eq!(has_line(stones), slow_line, "{stones:#x}");
        let empty = !(stones | blockers);
        assert_eq!(threats(stones, empty), fast.threats);
    }
}
