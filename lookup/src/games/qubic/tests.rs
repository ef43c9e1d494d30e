use std::collections::{BTreeSet, HashSet};

use super::threats::{ThreatLine, ThreatSearch};
use super::*;
use crate::error::Error;
use crate::format::Header;
use crate::testkit::{Rng, playout, random_game};
use crate::value::Wdl;

const Q: Qubic = Qubic;

/// Every position of `games` random games, terminal ones included.
fn random_positions(games: usize, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    (0..games).flat_map(|_| random_game(&Q, &mut rng)).collect()
}

fn at(c: usize) -> [i32; 3] {
    [(c % 4) as i32, (c / 4 % 4) as i32, (c / 16) as i32]
}

fn cells_of(mask: u64) -> Vec<usize> {
    (0..64).filter(|c| mask >> c & 1 != 0).collect()
}

fn map_mask(map: &[u8; 64], mask: u64) -> u64 {
    cells_of(mask).into_iter().fold(0, |a, c| a | 1 << map[c])
}

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

#[test]
fn symmetries_are_192_distinct_permutations_that_map_lines_onto_lines() {
    let lines: HashSet<u64> = LINES.iter().copied().collect();
    assert_eq!(SYMMETRIES[0], std::array::from_fn(|c| c as u8));
    let mut seen = HashSet::new();
    for map in &SYMMETRIES {
        assert!(seen.insert(*map), "duplicate symmetry");
        let cells: HashSet<u8> = map.iter().copied().collect();
        assert_eq!(cells.len(), 64, "not a permutation");
        let images: HashSet<u64> = LINES.iter().map(|&l| map_mask(map, l)).collect();
        assert_eq!(images, lines);
    }
    assert_eq!(seen.len(), SYMMETRY_COUNT);
    // The group is closed under composition.
    let all: HashSet<[u8; 64]> = SYMMETRIES.iter().copied().collect();
    for a in SYMMETRIES.iter().step_by(7) {
        for b in &SYMMETRIES {
            let ab: [u8; 64] = std::array::from_fn(|c| a[usize::from(b[c])]);
            assert!(all.contains(&ab));
        }
    }
    // The first 48 are the cube's: no renumbering of coordinates.
    for map in &SYMMETRIES[..48] {
        for (c, &to) in map.iter().enumerate() {
            let (mut p, mut q) = (at(c), at(usize::from(to)));
            p.sort_unstable_by_key(|&i| i.min(3 - i));
            q.sort_unstable_by_key(|&i| i.min(3 - i));
            let outer = |v: [i32; 3]| v.map(|i| i.min(3 - i));
            assert_eq!(outer(p), outer(q));
        }
    }
}

#[test]
fn mask_images_follow_the_cell_maps() {
    let mut rng = Rng::new(7);
    for (s, map) in SYMMETRIES.iter().enumerate() {
        for (c, &to) in map.iter().enumerate() {
            assert_eq!(mask_image(s, 1 << c), 1 << to);
        }
        for _ in 0..200 {
            let mask = rng.next_u64();
            assert_eq!(mask_image(s, mask), map_mask(map, mask));
        }
    }
}

/// Every permutation of the 64 cells that maps lines onto lines, by an
/// exhaustive backtracking search. Cells get their images one at a time,
/// in an order where each next cell shares lines with as many earlier
/// ones as possible, and a partial map is abandoned as soon as it breaks
/// a necessary condition of a line-keeping permutation: a cell's image
/// must lie on as many lines as the cell (7 or 4); two cells share a line
/// exactly when their images do (a bijection that maps lines onto lines
/// maps the 76 lines onto all 76, so it keeps both sharing and not
/// sharing); and a line whose four cells all have images must map onto a
/// line. Every permutation that passes all of these to the end is
/// line-keeping (the last check covers every line), and no line-keeping
/// one is cut, so the search finds exactly the group. The conditions bite
/// so early that the search tries about 800,000 candidate images in all
/// (12,500 partial maps), some 10 ms.
fn line_keeping_permutations() -> BTreeSet<[u8; 64]> {
    let collinear: [u64; 64] = std::array::from_fn(|c| {
        LINES
            .iter()
            .filter(|&&l| l >> c & 1 != 0)
            .fold(0, |a, &l| a | l)
            & !(1 << c)
    });
    let degree: [u32; 64] =
        std::array::from_fn(|c| LINES.iter().filter(|&&l| l >> c & 1 != 0).count() as u32);
    let mut order = vec![0usize];
    let mut placed = 1u64;
    while order.len() < 64 {
        let next = (0..64)
            .filter(|&c| placed >> c & 1 == 0)
            .max_by_key(|&c| ((collinear[c] & placed).count_ones(), std::cmp::Reverse(c)))
            .expect("cells remain");
        order.push(next);
        placed |= 1 << next;
    }
    let mut rank = [0usize; 64];
    for (i, &c) in order.iter().enumerate() {
        rank[c] = i;
    }
    // The lines whose last cell in `order` is `order[d]`.
    let mut completed_at = vec![Vec::new(); 64];
    for &line in &LINES {
        let last = cells_of(line).into_iter().map(|c| rank[c]).max().unwrap();
        completed_at[last].push(line);
    }
    let lines: HashSet<u64> = LINES.iter().copied().collect();

    struct Search<'a> {
        order: &'a [usize],
        collinear: &'a [u64; 64],
        degree: &'a [u32; 64],
        completed_at: &'a [Vec<u64>],
        lines: &'a HashSet<u64>,
        map: [u8; 64],
        found: BTreeSet<[u8; 64]>,
    }
    impl Search<'_> {
        fn extend(&mut self, depth: usize, assigned: u64, used: u64) {
            if depth == 64 {
                self.found.insert(self.map);
                return;
            }
            let cell = self.order[depth];
            // The images of the assigned cells that share a line with `cell`:
            // exactly the used cells that share a line with its image.
            let wanted = map_mask(&self.map, self.collinear[cell] & assigned);
            for target in 0..64usize {
                if used >> target & 1 != 0
                    || self.degree[target] != self.degree[cell]
                    || self.collinear[target] & used != wanted
                {
                    continue;
                }
                self.map[cell] = target as u8;
                let keeps = self.completed_at[depth]
                    .iter()
                    .all(|&l| self.lines.contains(&map_mask(&self.map, l)));
                if keeps {
                    self.extend(depth + 1, assigned | 1 << cell, used | 1 << target);
                }
            }
            self.map[cell] = 0;
        }
    }
    let mut search = Search {
        order: &order,
        collinear: &collinear,
        degree: &degree,
        completed_at: &completed_at,
        lines: &lines,
        map: [0; 64],
        found: BTreeSet::new(),
    };
    search.extend(0, 0, 0);
    search.found
}

#[test]
fn the_symmetries_are_exactly_the_permutations_that_keep_lines() {
    let found = line_keeping_permutations();
    let ours: BTreeSet<[u8; 64]> = SYMMETRIES.iter().copied().collect();
    assert_eq!(ours.len(), SYMMETRY_COUNT);
    assert_eq!(found.len(), 192);
    assert_eq!(found, ours);
}

#[test]
fn canonical_is_the_least_image_and_the_same_for_every_image() {
    for board in random_positions(40, 11) {
        let canonical = Q.canonical(board);
        let images: Vec<QubicBoard> = (0..192).map(|s| Q.image(board, s)).collect();
        assert_eq!(Some(&canonical), images.iter().min());
        for image in images.iter().step_by(5) {
            assert_eq!(Q.canonical(*image), canonical);
            assert_eq!(Q.terminal_score(*image), Q.terminal_score(board));
        }
    }
}

#[test]
fn notation_round_trips() {
    for board in random_positions(100, 12) {
        let text = Q.notation(board);
        assert_eq!(text.len(), 64 + 3 * 4 + 3 * 2, "{text}");
        assert_eq!(Q.parse(&text), Ok(board), "{text}");
        let single = text.replace("//", "/");
        assert_eq!(Q.parse(&single), Ok(board), "{single}");
        let bare = text.replace('/', "");
        assert_eq!(Q.parse(&bare), Ok(board), "{bare}");
    }
    for c in 0..64u8 {
        let cell = Q.parse_move(&c.to_string()).unwrap();
        assert_eq!(cell.index(), c);
        assert_eq!(cell.to_string(), c.to_string());
        assert_eq!(QubicCell::new(c), Some(cell));
    }
    assert_eq!(QubicCell::new(64), None);
}

#[test]
fn notation_errors_name_the_problem() {
    let empty = ".".repeat(64);
    assert_eq!(Q.parse(&empty), Ok(Q.start()));
    assert!(matches!(
        Q.parse("X.."),
        Err(PositionError::Length {
            found: 3,
            expected: 64,
            ..
        })
    ));
    assert!(matches!(
        Q.parse(&".".repeat(65)),
        Err(PositionError::Length { found: 65, .. })
    ));
    assert!(matches!(
        Q.parse(&format!("{}Z{}", ".".repeat(5), ".".repeat(58))),
        Err(PositionError::Character {
            found: 'Z',
            at: 5,
            ..
        })
    ));
    assert!(matches!(
        Q.parse(&format!("XX{}", ".".repeat(62))),
        Err(PositionError::Counts { x: 2, o: 0 })
    ));
    assert!(matches!(
        Q.parse(&format!("O{}", ".".repeat(63))),
        Err(PositionError::Counts { x: 0, o: 1 })
    ));
    // X owns the row 0-3 and O the row 4-7.
    assert!(matches!(
        Q.parse(&format!("XXXXOOOO{}", ".".repeat(56))),
        Err(PositionError::BothWin)
    ));
    // X owns a row, but O moved after it.
    assert!(matches!(
        Q.parse(&format!("XXXXOOO.O{}", ".".repeat(55))),
        Err(PositionError::PlayAfterWin { winner: 'X' })
    ));
    // O owns a row, but X moved after it.
    assert!(matches!(
        Q.parse(&format!("OOOOXXX.X.X{}", ".".repeat(53))),
        Err(PositionError::PlayAfterWin { winner: 'O' })
    ));
    // A win with the last stone is a finished game, not an error.
    let won = Q.parse(&format!("XXXXOOO{}", ".".repeat(57))).unwrap();
    assert_eq!(Q.terminal_score(won), Some(-(WIN_SCORE - 7)));
    assert!(Q.moves(won).is_empty());
    // Slashes: only between rows, one between rows, at most two between layers.
    let layer = "..../..../..../....";
    let good = [layer; 4].join("//");
    assert_eq!(Q.parse(&good), Ok(Q.start()));
    for bad in [
        format!("/{good}"),
        format!("{good}/"),
        good.replacen("..../", ".../.", 1),
        good.replacen("....//", "....///", 1),
        good.replacen("..../", "....//", 1),
    ] {
        assert!(
            matches!(
                Q.parse(&bad),
                Err(PositionError::Character { found: '/', .. })
            ),
            "{bad}"
        );
    }
    for bad in ["64", "-1", "x", "", "1000"] {
        assert!(
            matches!(Q.parse_move(bad), Err(PositionError::BadMove { .. })),
            "{bad}"
        );
    }
    let p = Q.play_notation(Q.start(), "21").unwrap();
    assert!(matches!(
        Q.play_notation(p, "21"),
        Err(PositionError::IllegalMove { .. })
    ));
    assert!(matches!(
        Q.parse("0 1 64"),
        Err(PositionError::BadMove { .. })
    ));
    assert!(matches!(
        Q.parse("0 1 0"),
        Err(PositionError::IllegalMove { .. })
    ));
    assert!(matches!(Q.board(1, 1), Err(PositionError::BadMove { .. })));
    assert_eq!(Q.board(1, 2).map(|b| (b.x(), b.o())), Ok((1, 2)));
}

#[test]
fn arbitrary_text_is_parsed_or_refused_never_a_panic() {
    let mut rng = Rng::new(17);
    let alphabet = ['X', 'O', '.', '.', '.', '.', '/', 'Z', ' ', 'é', '1'];
    for _ in 0..20_000 {
        let len = rng.below(90) as usize;
        let text: String = (0..len).map(|_| *rng.pick(&alphabet)).collect();
        if let Ok(board) = Q.parse(&text) {
            assert_eq!(Q.parse(&Q.notation(board)), Ok(board));
        }
    }
}

#[test]
fn the_picture_shows_the_layers_side_by_side() {
    let p = Q.parse("0 21").unwrap();
    let expected = "    z=0             z=1             z=2             z=3\n \
                    X  1  2  3  |  16 17 18 19  |  32 33 34 35  |  48 49 50 51\n \
                    4  5  6  7  |  20  O 22 23  |  36 37 38 39  |  52 53 54 55\n \
                    8  9 10 11  |  24 25 26 27  |  40 41 42 43  |  56 57 58 59\n\
                    12 13 14 15  |  28 29 30 31  |  44 45 46 47  |  60 61 62 63";
    assert_eq!(Q.picture(p), expected);
}

/// Minimax without pruning, memo or rules of thumb, over the game's moves.
fn slow_score(board: QubicBoard) -> Score {
    if let Some(score) = Q.terminal_score(board) {
        return score;
    }
    Q.moves(board)
        .into_iter()
        .map(|m| -slow_score(Q.play(board, m).0))
        .max()
        .expect("a game that is not over has moves")
}

/// Positions with `empties` empty cells, not over, from games in which
/// nobody completes a line while another move is left, and a player often
/// blocks the opponent's threat: uniformly random games seldom last that
/// long (about 2% reach 12 empty cells, 0.01% fill the board).
fn late_positions(count: usize, empties: u32, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let game = playout(&Q, &mut rng, |rng, board, moves| {
            let (me, you) = board.mover_and_other();
            let empty = board.empty();
            let (wins, blocks) = (threats(me, empty), threats(you, empty));
            let pick = |rng: &mut Rng, allowed: u64| {
                let allowed: Vec<QubicCell> = moves
                    .iter()
                    .copied()
                    .filter(|m| allowed >> m.0 & 1 != 0)
                    .collect();
                (!allowed.is_empty()).then(|| *rng.pick(&allowed))
            };
            let blocking = if rng.chance(0.7) {
                pick(rng, blocks & !wins)
            } else {
                None
            };
            blocking
                .or_else(|| pick(rng, !wins))
                .unwrap_or_else(|| *rng.pick(moves))
        });
        if let Some(&p) = game.iter().find(|p| 64 - p.stones() == empties)
            && Q.terminal_score(p).is_none()
        {
            found.push(p);
        }
    }
    found
}

#[test]
fn the_solver_agrees_with_plain_minimax_on_late_positions() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut outcomes = HashSet::new();
    for empties in 1..=7 {
        for board in late_positions(40, empties, 100 + u64::from(empties)) {
            let slow = slow_score(board);
            assert_eq!(solver.score(board).unwrap(), slow, "{}", Q.notation(board));
            // A fresh solver too: the shared table must not be needed.
            let fresh = QubicSolver::new(SearchLimits::default())
                .score(board)
                .unwrap();
            assert_eq!(fresh, slow);
            outcomes.insert(Q.value(board, slow).wdl);
        }
    }
    // The sample covers every kind of value.
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
}

#[test]
fn forced_play_rules_give_exact_values() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut value = |text: &str| {
        let board = Q.parse(text).unwrap();
        let score = solver.score(board).unwrap();
        Q.value(board, score).to_string()
    };
    let rest = |used: usize| ".".repeat(64 - used);
    // X to move with three on the row 0-3 (O has three too): win in 1.
    assert_eq!(value(&format!("XXX.OOO.X...O{}", rest(13))), "win in 1");
    // O to move, X threatens cells 3 (row 0-3) and 12 (column 0-12), O has
    // none: loss in 2.
    assert_eq!(value(&format!("XXX.XOO.X..O{}O", rest(13))), "loss in 2");
    // X to move with a fork at 0: rows 0-3 and 0-12 each hold two X and two
    // empty cells, and O has nothing: win in 3.
    let fork = format!(".XX.X...X..O{}O...O{}O", ".".repeat(40), ".".repeat(6));
    assert_eq!(value(&fork), "win in 3");
}

#[test]
fn every_quiet_bound_holds_on_random_positions() {
    // The static bounds of quiet positions against plain minimax, where
    // it is quick.
    for board in late_positions(300, 8, 9) {
        let (me, you) = board.mover_and_other();
        let (mine, theirs) = (line_cells(me, you), line_cells(you, me));
        if mine.threats != 0 || theirs.threats != 0 {
            continue;
        }
        let score = slow_score(board);
        let stones = board.stones() as Score;
        if mine.forks != 0 {
            assert_eq!(score, WIN_SCORE - (stones + 3));
        } else {
            assert!(score <= WIN_SCORE - (stones + 5), "{}", Q.notation(board));
        }
        let low = if theirs.forks != 0 { 4 } else { 6 };
        assert!(
            score >= -(WIN_SCORE - (stones + low)),
            "{}",
            Q.notation(board)
        );
    }
}

#[test]
fn a_pairing_strategy_means_no_win() {
    use super::solver::has_pairing;
    let (mut for_mover, mut for_other) = (0, 0);
    for board in late_positions(300, 8, 31) {
        let (me, you) = board.mover_and_other();
        let score = slow_score(board);
        if has_pairing(me, you) {
            assert!(score <= 0, "{}", Q.notation(board));
            for_other += 1;
        }
        if has_pairing(you, me) {
            assert!(score >= 0, "{}", Q.notation(board));
            for_mover += 1;
        }
    }
    // Both kinds occur in the sample, and not everywhere.
    assert!((20..280).contains(&for_mover), "{for_mover}");
    assert!((20..280).contains(&for_other), "{for_other}");
    // A line with one empty cell cannot be paired, nor 76 open lines in
    // 64 cells.
    assert!(!has_pairing(0b0111, 0));
    assert!(!has_pairing(0, 0));
}

#[test]
fn a_budget_or_a_deadline_is_an_error_never_a_guess() {
    let mut solver = QubicSolver::new(SearchLimits {
        nodes: Some(1000),
        ..SearchLimits::default()
    });
    assert!(matches!(
        solver.score(Q.start()),
        Err(Error::BudgetExhausted { budget: 1000 })
    ));
    assert_eq!(solver.nodes(), 1000);
    let mut solver = QubicSolver::new(SearchLimits {
        time: Some(std::time::Duration::from_millis(20)),
        ..SearchLimits::default()
    });
    assert!(matches!(
        solver.score(Q.start()),
        Err(Error::TimeExhausted { millis: 20 })
    ));
}

#[test]
fn every_rule_set_gives_the_same_values() {
    let all = Rules::ALL;
    let sets = [
        Rules {
            deepening: false,
            ..all
        },
        Rules {
            sign_tests: false,
            ..all
        },
        Rules {
            pairings: false,
            ..all
        },
        Rules {
            dead_cells: false,
            ..all
        },
        Rules {
            deepening: false,
            sign_tests: false,
            pairings: false,
            dead_cells: false,
        },
    ];
    let mut normal = QubicSolver::new(SearchLimits::default());
    for board in late_positions(40, 11, 41) {
        let score = normal.score(board).unwrap();
        for rules in sets {
            let mut solver = QubicSolver::with_rules(SearchLimits::default(), rules);
            assert_eq!(solver.score(board).unwrap(), score, "{rules:?}");
        }
    }
}

#[test]
fn a_tiny_table_gives_the_same_values() {
    let mut tiny = QubicSolver::new(SearchLimits {
        table_bytes: Some(0),
        ..SearchLimits::default()
    });
    let mut normal = QubicSolver::new(SearchLimits::default());
    for board in late_positions(30, 12, 21) {
        assert_eq!(tiny.score(board).unwrap(), normal.score(board).unwrap());
    }
}

#[test]
fn a_strategy_header_is_accepted_and_other_games_refused() {
    let mut header = Header {
        game: GameId::Qubic,
        index: <Qubic as Tabled>::INDEX,
        values: <Qubic as Tabled>::VALUES,
        entries: 0,
        stored: 0,
        block_entries: crate::games::qubic::strategy::BLOCK_ENTRIES,
        generator: "test".into(),
    };
    assert!(Q.check_header(&header).is_ok());
    header.game = GameId::Cube;
    assert!(matches!(
        Q.check_header(&header),
        Err(TableError::WrongGame {
            expected: GameId::Qubic,
            found: GameId::Cube
        })
    ));
    // Records are two bytes, read through the strategy, never one byte.
    assert!(Q.decode(Q.start(), 0, 1).is_err());
    assert_eq!(GameId::Qubic.to_string(), "qubic");
    assert_eq!("qubic".parse(), Ok(GameId::Qubic));
    assert_eq!(GameId::Qubic.table_file_name(), "qubic.sdb");
    let _ = Wdl::Draw;
}

/// Plays a threat line of `attacker` (to move) against `defender` out against
/// the only replies that do not lose at once: each move but the last makes
/// exactly one threat of the attacker (none of the defender's stands), the
/// defender blocks it, and the last completes a line.
fn plays_out(attacker: u64, defender: u64, line: &ThreatLine) -> bool {
    let (mut a, mut d) = (attacker, defender);
    let moves = line.moves();
    for (i, &cell) in moves.iter().enumerate() {
        if (a | d) >> cell & 1 != 0 {
            return false;
        }
        // Where the defender threatens, the attacker's move must block.
        let theirs = threats(d, !(a | d));
        if theirs != 0 && theirs != 1 << cell && threats(a, !(a | d)) >> cell & 1 == 0 {
            return false;
        }
        a |= 1 << cell;
        if has_line(a) {
            return i + 1 == moves.len();
        }
        let mine = threats(a, !(a | d));
        match mine.count_ones() {
            1 => d |= mine,
            // A fork: the defender blocks one, the next move completes the
            // other (unless the defender wins first: it had no threat).
            2.. if threats(d, !(a | d)) == 0 => {
                let next = moves.get(i + 1).copied();
                return next.is_some_and(|c| mine >> c & 1 != 0) && i + 2 == moves.len();
            }
            _ => return false,
        }
        if has_line(d) {
            return false;
        }
    }
    false
}

#[test]
fn threat_lines_are_wins_the_solver_confirms_and_shortest_ones_are_no_longer() {
    let mut search = ThreatSearch::new(prover::THREAT_BUDGET);
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut found = 0;
    for empties in [16, 24, 30] {
        for board in late_positions(40, empties, 500 + u64::from(empties)) {
            let (me, you) = board.mover_and_other();
            let Some(line) = search.find(me, you) else {
                continue;
            };
            found += 1;
            assert!(plays_out(me, you, &line), "{}", Q.notation(board));
            let score = solver.score(board).unwrap();
            assert!(score > 0, "{}", Q.notation(board));
            let shortest = search.find_shortest(me, you).expect("a line exists");
            assert!(plays_out(me, you, &shortest));
            assert!(shortest.moves().len() <= line.moves().len());
            // The fastest win is no slower than the shortest line.
            let plies = WIN_SCORE - score - board.stones() as Score;
            assert!(
                plies <= Score::from(shortest.plies()),
                "{}",
                Q.notation(board)
            );
            // A defender stone outside the zone leaves the line winning.
            let zone = line.zone(me, you);
            let empty = board.empty();
            if let Some(outside) = (0..64).find(|&c| empty >> c & 1 != 0 && zone >> c & 1 == 0) {
                assert!(
                    plays_out(me, you | 1 << outside, &line),
                    "{} + {outside}",
                    Q.notation(board)
                );
            }
        }
    }
    assert!(found >= 20, "only {found} positions had a line");
}

/// The prover's configurations the tests compare with the solver: the
/// default, and with the attacker's moves restricted at OR nodes (widened
/// only when all are disproved, or sooner; from 50 stones on only), the
/// pass-line cache, weak proof numbers, the proof table's replacement by
/// work and the 1 + ε trick's ε, alone and together.
fn prover_configurations() -> Vec<prover::ProverLimits> {
    let base = prover::ProverLimits {
        table_bytes: 1 << 20,
        ..prover::ProverLimits::default()
    };
    vec![
        base,
        prover::ProverLimits {
            width: 2,
            pass_cache: 1 << 10,
            ..base
        },
        prover::ProverLimits {
            width: 3,
            widen_pn: 6,
            pass_cache: 1 << 4,
            ..base
        },
        prover::ProverLimits {
            width: 1,
            narrow_from: 50,
            ..base
        },
        // Weak numbers, the replacement by work (in a table small enough
        // to replace) and a larger ε, each alone, then all together with
        // the narrowing and the cache.
        prover::ProverLimits { weak: true, ..base },
        prover::ProverLimits {
            table_bytes: 16 << 10,
            replace_by_work: true,
            ..base
        },
        prover::ProverLimits {
            epsilon_percent: 100,
            ..base
        },
        prover::ProverLimits {
            table_bytes: 16 << 10,
            width: 2,
            widen_pn: 6,
            pass_cache: 1 << 10,
            weak: true,
            replace_by_work: true,
            epsilon_percent: 60,
            ..base
        },
    ]
}

/// The prover's winning move in `board`, which it proved, leaves the
/// opponent lost by the solver.
fn assert_its_move_wins(prover: &mut prover::Prover, solver: &mut QubicSolver, board: QubicBoard) {
    let mv = prover.winning_move(board).unwrap().expect("a winning move");
    let (child, _) = Q.play(board, QubicCell(mv));
    let child_score = match Q.terminal_score(child) {
        Some(s) => s,
        None => solver.score(child).unwrap(),
    };
    assert!(child_score < 0, "{} plays {mv}", Q.notation(board));
}

#[test]
fn the_prover_agrees_with_the_solver_and_its_moves_win() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    for limits in prover_configurations() {
        let (mut proved, mut disproved) = (0, 0);
        for (empties, count) in [(6, 30), (14, 30), (22, 20)] {
            for board in late_positions(count, empties, 700 + u64::from(empties)) {
                let score = if empties <= 7 {
                    slow_score(board)
                } else {
                    solver.score(board).unwrap()
                };
                let attacker = if board.x_to_move() {
                    prover::Attacker::X
                } else {
                    prover::Attacker::O
                };
                let mut prover = prover::Prover::new(attacker, limits);
                let verdict = prover.prove(board).unwrap();
                assert_eq!(
                    verdict == prover::Verdict::Proved,
                    score > 0,
                    "{} {limits:?}",
                    Q.notation(board)
                );
                if verdict == prover::Verdict::Proved {
                    proved += 1;
                    assert_its_move_wins(&mut prover, &mut solver, board);
                } else {
                    disproved += 1;
                }
            }
        }
        assert!(
            proved >= 10 && disproved >= 10,
            "{proved} proved, {disproved} disproved with {limits:?}"
        );
    }
}

#[test]
fn a_stone_limit_proves_only_wins() {
    // Within a limit a proof is still a proof: the solver confirms the
    // verdict and the winning move.
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut proved = 0;
    for (empties, count) in [(14, 30), (22, 30)] {
        for board in late_positions(count, empties, 900 + u64::from(empties)) {
            let score = solver.score(board).unwrap();
            let attacker = if board.x_to_move() {
                prover::Attacker::X
            } else {
                prover::Attacker::O
            };
            for extra in [0, 2, 4] {
                let limits = prover::ProverLimits {
                    table_bytes: 1 << 20,
                    max_stones: board.stones() + extra,
                    ..prover::ProverLimits::default()
                };
                let mut prover = prover::Prover::new(attacker, limits);
                if prover.prove(board).unwrap() == prover::Verdict::Proved {
                    assert!(score > 0, "{} {limits:?}", Q.notation(board));
                    assert_its_move_wins(&mut prover, &mut solver, board);
                    proved += 1;
                }
            }
        }
    }
    assert!(proved >= 30, "{proved} proved");
}

#[test]
fn the_pass_cache_changes_the_time_only() {
    // The cache returns what the threat search would: the proof search
    // takes the same steps, with fewer threat-search nodes.
    let mut hits = 0;
    for board in late_positions(40, 30, 4242) {
        let attacker = if board.x_to_move() {
            prover::Attacker::X
        } else {
            prover::Attacker::O
        };
        let limits = prover::ProverLimits {
            table_bytes: 1 << 20,
            nodes: Some(2_000_000),
            ..prover::ProverLimits::default()
        };
        let mut plain = prover::Prover::new(attacker, limits);
        let mut cached = prover::Prover::new(
            attacker,
            prover::ProverLimits {
                pass_cache: 1 << 12,
                nodes: None,
                ..limits
            },
        );
        let Ok(verdict) = plain.prove(board) else {
            continue;
        };
        assert_eq!(
            cached.prove(board).unwrap(),
            verdict,
            "{}",
            Q.notation(board)
        );
        let (p, c) = (plain.stats(), cached.stats());
        assert_eq!(
            (p.mid_calls, p.expansions, p.zone_wins),
            (c.mid_calls, c.expansions, c.zone_wins),
            "{}",
            Q.notation(board)
        );
        assert!(c.threat_nodes <= p.threat_nodes);
        hits += c.pass_cache_hits;
    }
    assert!(hits > 0, "the cache was never used");
}

#[test]
fn a_full_table_replacing_by_work_proves_what_a_large_one_proves() {
    // A table of 64 entries fills on these positions, so its buckets
    // replace entries; the verdicts must be those of a table that does not.
    let mut filled = 0;
    for board in late_positions(20, 44, 977) {
        let attacker = if board.x_to_move() {
            prover::Attacker::X
        } else {
            prover::Attacker::O
        };
        let large = prover::ProverLimits {
            table_bytes: 1 << 22,
            nodes: Some(2_000_000),
            ..prover::ProverLimits::default()
        };
        let Ok(verdict) = prover::Prover::new(attacker, large).prove(board) else {
            continue;
        };
        let mut small = prover::Prover::new(
            attacker,
            prover::ProverLimits {
                table_bytes: 2 << 10,
                replace_by_work: true,
                nodes: None,
                ..large
            },
        );
        assert_eq!(
            small.prove(board).unwrap(),
            verdict,
            "{}",
            Q.notation(board)
        );
        let (used, capacity) = small.table_use();
        filled += usize::from(used == capacity);
    }
    assert!(filled > 0, "the small table never filled");
}
