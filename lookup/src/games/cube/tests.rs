use std::collections::HashSet;

use super::lines::{FULL, LINES, for_each_line_free, has_line, threats};
use super::symmetry::{SYMMETRIES, image};
use super::*;
use crate::error::PositionError;
use crate::game::Game;
use crate::testkit::{Rng, random_game};

/// Every position of `games` random games, terminal ones included.
fn random_positions(games: usize, seed: u64) -> Vec<CubeBoard> {
    let mut rng = Rng::new(seed);
    (0..games)
        .flat_map(|_| random_game(&Cube, &mut rng))
        .collect()
}

fn coords(c: u32) -> [i32; 3] {
    [(c % 3) as i32, (c / 3 % 3) as i32, (c / 9) as i32]
}

#[test]
fn lines_are_every_straight_triple() {
    // All triples of distinct cells whose middle is the mean of the ends.
    let mut triples = HashSet::new();
    for a in 0..27 {
        for b in 0..27 {
            for c in a + 1..27 {
                let (pa, pb, pc) = (coords(a), coords(b), coords(c));
                if b != a && b != c && (0..3).all(|i| pa[i] + pc[i] == 2 * pb[i]) {
                    triples.insert(1u32 << a | 1 << b | 1 << c);
                }
            }
        }
    }
    let lines: HashSet<u32> = LINES.iter().copied().collect();
    assert_eq!(lines.len(), 49);
    assert_eq!(lines, triples);
    // 27 along the axes, 18 plane diagonals, 4 space diagonals.
    let mut by_axes = [0; 4];
    for &line in &LINES {
        let cells: Vec<[i32; 3]> = (0..27).filter(|c| line >> c & 1 != 0).map(coords).collect();
        let varying = (0..3).filter(|&i| cells[0][i] != cells[1][i]).count();
        by_axes[varying] += 1;
    }
    assert_eq!(by_axes, [0, 27, 18, 4]);
}

#[test]
fn bit_parallel_line_tests_match_line_by_line() {
    let mut rng = Rng::new(5);
    for _ in 0..20_000 {
        let a = rng.next_u64() as u32 & FULL;
        let b = rng.next_u64() as u32 & FULL & !a;
        // Sparse sets too, where lines are rare.
        let sparse = a & rng.next_u64() as u32;
        for stones in [a, sparse] {
            let empty = FULL & !stones & !b;
            let slow_line = LINES.iter().any(|&l| l & !stones == 0);
            let slow_threats = LINES
                .iter()
                .filter(|&&l| (l & !stones).count_ones() == 1 && l & !stones & empty != 0)
                .fold(0, |acc, &l| acc | (l & !stones));
            assert_eq!(has_line(stones), slow_line, "{stones:#x}");
            assert_eq!(threats(stones, empty), slow_threats, "{stones:#x}");
        }
    }
}

#[test]
fn line_free_supersets_are_every_one_once() {
    let mut rng = Rng::new(3);
    for _ in 0..40 {
        // A line-free start and a random pool of 14 other cells.
        let mut stones = 0;
        for _ in 0..4 {
            let c = rng.below(27) as u32;
            if !has_line(stones | 1 << c) {
                stones |= 1 << c;
            }
        }
        let available = rng.next_u64() as u32 & FULL & !stones;
        for k in 0..5 {
            let mut found = Vec::new();
            for_each_line_free(stones, available, k, &mut |s| found.push(s));
            let mut expected = Vec::new();
            let pool: Vec<u32> = (0..27).filter(|c| available >> c & 1 != 0).collect();
            for subset in 0u64..1 << pool.len() {
                if subset.count_ones() == k {
                    let add = pool
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| subset >> i & 1 != 0)
                        .fold(0, |a, (_, &c)| a | 1 << c);
                    if !has_line(stones | add) {
                        expected.push(stones | add);
                    }
                }
            }
            found.sort_unstable();
            expected.sort_unstable();
            assert_eq!(found, expected, "k={k}");
        }
    }
}

#[test]
fn symmetries_are_48_distinct_and_map_lines_onto_lines() {
    let lines: HashSet<u32> = LINES.iter().copied().collect();
    let mut seen = HashSet::new();
    assert_eq!(SYMMETRIES[0], std::array::from_fn(|c| c as u8));
    for map in &SYMMETRIES {
        assert!(seen.insert(*map), "duplicate symmetry");
        let cells: HashSet<u8> = map.iter().copied().collect();
        assert_eq!(cells.len(), 27, "not a permutation");
        let images: HashSet<u32> = LINES
            .iter()
            .map(|&l| {
                (0..27)
                    .filter(|c| l >> c & 1 != 0)
                    .fold(0, |a, c| a | 1 << map[c])
            })
            .collect();
        assert_eq!(images, lines);
    }
    assert_eq!(seen.len(), 48);
    // The byte tables agree with the cell maps.
    let mut rng = Rng::new(7);
    for _ in 0..2000 {
        let mask = rng.next_u64() as u32 & FULL;
        for (s, map) in SYMMETRIES.iter().enumerate() {
            let slow = (0..27)
                .filter(|c| mask >> c & 1 != 0)
                .fold(0, |a, c| a | 1 << map[c]);
            assert_eq!(image(s, mask), slow);
        }
    }
}

#[test]
fn canonical_is_the_least_image_and_the_same_for_every_image() {
    for board in random_positions(300, 11) {
        let canonical = Cube.canonical(board);
        let images: Vec<CubeBoard> = (0..48).map(|s| Cube.image(board, s)).collect();
        assert_eq!(Some(&canonical), images.iter().min());
        for image in images {
            assert_eq!(Cube.canonical(image), canonical);
            assert_eq!(image.is_quiet(), board.is_quiet());
        }
    }
}

#[test]
fn notation_round_trips() {
    for board in random_positions(300, 12) {
        let text = Cube.notation(board);
        assert_eq!(Cube.parse(&text), Ok(board), "{text}");
        let single = text.replace("//", "/");
        assert_eq!(Cube.parse(&single), Ok(board), "{single}");
        let bare = text.replace('/', "");
        assert_eq!(Cube.parse(&bare), Ok(board), "{bare}");
    }
    for c in 0..27u8 {
        let cell = Cube.parse_move(&c.to_string()).unwrap();
        assert_eq!(cell.index(), c);
        assert_eq!(cell.to_string(), c.to_string());
    }
}

#[test]
fn notation_errors_name_the_problem() {
    let c = Cube;
    let empty = ".".repeat(27);
    assert!(c.parse(&empty).is_ok());
    assert!(matches!(
        c.parse("X.."),
        Err(PositionError::Length {
            found: 3,
            expected: 27,
            ..
        })
    ));
    assert!(matches!(
        c.parse(&format!("{}Z{}", ".".repeat(5), ".".repeat(21))),
        Err(PositionError::Character {
            found: 'Z',
            at: 5,
            ..
        })
    ));
    assert!(matches!(
        c.parse(&format!("XX{}", ".".repeat(25))),
        Err(PositionError::Counts { x: 2, o: 0 })
    ));
    // X owns the row 0-1-2 and O the row 3-4-5.
    assert!(matches!(
        c.parse(&format!("XXXOOO{}", ".".repeat(21))),
        Err(PositionError::BothWin)
    ));
    // X owns a row, but O moved after it.
    assert!(matches!(
        c.parse(&format!("XXXOO.O{}", ".".repeat(20))),
        Err(PositionError::PlayAfterWin { winner: 'X' })
    ));
    // Slashes: only between rows, one between rows, at most two between layers.
    assert!(c.parse(".../.../...//.../.../...//.../.../...").is_ok());
    for bad in [
        "/.../.../...//.../.../...//.../.../...",
        "..././.../...//.../.../...//.../.../...",
        "...//.../...//.../.../...//.../.../...",
        ".../.../...///.../.../...//.../.../...",
        ".../.../...//.../.../...//.../.../.../",
    ] {
        assert!(
            matches!(
                c.parse(bad),
                Err(PositionError::Character { found: '/', .. })
            ),
            "{bad}"
        );
    }
    for bad in ["27", "-1", "x", ""] {
        assert!(
            matches!(c.parse_move(bad), Err(PositionError::BadMove { .. })),
            "{bad}"
        );
    }
    let p = c.play_notation(c.start(), "13").unwrap();
    assert!(matches!(
        c.play_notation(p, "13"),
        Err(PositionError::IllegalMove { .. })
    ));
}

#[test]
fn arbitrary_text_is_parsed_or_refused_never_a_panic() {
    let mut rng = Rng::new(17);
    let alphabet = ['X', 'O', '.', '.', '.', '/', 'Z', ' ', 'é'];
    for _ in 0..50_000 {
        let len = rng.below(40) as usize;
        let text: String = (0..len).map(|_| *rng.pick(&alphabet)).collect();
        if let Ok(board) = Cube.parse(&text) {
            assert_eq!(Cube.parse(&Cube.notation(board)), Ok(board));
        }
    }
}

#[test]
fn resolve_applies_the_forced_play_rules() {
    let c = Cube;
    // X to move with two on the row 0-1-2 (O threatens too): win in 1.
    let p = c.parse(&format!("XX.OO.O.X{}", ".".repeat(18))).unwrap();
    assert_eq!(c.to_move(p), 'X');
    assert_eq!(c.value(p, c.resolve_score(p)).to_string(), "win in 1");
    // O to move, X threatens cells 2 and 7 (0-1-2 and 1-4-7), O none: lost in 2.
    let p = c.parse(&format!("XX.OX.O..{}", ".".repeat(18))).unwrap();
    assert_eq!(c.to_move(p), 'O');
    assert_eq!(c.value(p, c.resolve_score(p)).to_string(), "loss in 2");
    // The quiet empty board stays where it is.
    assert_eq!(
        c.resolve(c.start()),
        Resolved::Quiet {
            quiet: c.start(),
            negate: false
        }
    );
    // Every position resolves to a known score or a quiet position, and
    // forced play never meets a terminal position it did not start at.
    for board in random_positions(300, 13) {
        match c.resolve(board) {
            Resolved::Score(_) => {}
            Resolved::Quiet { quiet, .. } => {
                assert!(quiet.is_quiet() && c.terminal_score(quiet).is_none());
                assert_eq!(quiet.x() & board.x(), board.x());
                assert_eq!(quiet.o() & board.o(), board.o());
            }
        }
    }
}
