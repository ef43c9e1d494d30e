//! The committed cube table against an independent exact search, the
//! symmetries, the reduced exhaustive check and the command line.

use std::collections::HashMap;
use std::path::PathBuf;

use solvedb_generator::games::cube::solve::{check_exhaustive, check_stored};
use solvedb_lookup::testkit::{Rng, playout};
use solvedb_lookup::{
    Cube, CubeBoard, Game, GameOracle, Score, Search, Table, Tabled, WIN_SCORE, read_table,
};

fn table_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables/cube.sdb")
}

fn table() -> Table<Vec<u8>> {
    read_table(&table_path()).expect("tables/cube.sdb (run `solvedb build cube`)")
}

/// An exact search written for this test, sharing nothing with the library
/// but the notation: its own lines (from coordinates), raw boards without
/// symmetry, plain negamax with a memo of exact scores. Two shortcuts, both
/// plainly sound: a move that completes a line is the best possible move,
/// and without one the next best possible is a win on the mover's following
/// move (a player wins only on their own moves), so search stops there.
struct Independent {
    lines: Vec<u32>,
    memo: HashMap<(u32, u32), Score>,
}

impl Independent {
    fn new() -> Self {
        let at = |c: u32| [(c % 3) as i32, (c / 3 % 3) as i32, (c / 9) as i32];
        let mut lines = Vec::new();
        for a in 0..27 {
            for c in a + 1..27 {
                let (pa, pc) = (at(a), at(c));
                if (0..3).all(|i| (pa[i] + pc[i]) % 2 == 0) {
                    let mid: Vec<i32> = (0..3).map(|i| (pa[i] + pc[i]) / 2).collect();
                    let b = (mid[0] + 3 * mid[1] + 9 * mid[2]) as u32;
                    // Equal spacing and three cells in a straight row of the cube.
                    if (0..3).all(|i| (pa[i] - pc[i]).abs() == 2 || pa[i] == pc[i]) {
                        lines.push(1 << a | 1 << b | 1 << c);
                    }
                }
            }
        }
        assert_eq!(lines.len(), 49);
        Independent {
            lines,
            memo: HashMap::new(),
        }
    }

    fn has_line(&self, stones: u32) -> bool {
        self.lines.iter().any(|&l| l & !stones == 0)
    }

    /// Score for the side to move (`mover`), `other` having just moved,
    /// counted from the game start like the library's: a win ending with `n`
    /// stones is `WIN_SCORE - n`.
    fn score(&mut self, mover: u32, other: u32) -> Score {
        let n = (mover | other).count_ones() as Score;
        if self.has_line(other) {
            return -(WIN_SCORE - n);
        }
        let empty = ((1u32 << 27) - 1) & !(mover | other);
        if empty == 0 {
            return 0;
        }
        if let Some(&s) = self.memo.get(&(mover, other)) {
            return s;
        }
        let cells: Vec<u32> = (0..27).filter(|c| empty >> c & 1 != 0).collect();
        let best = if cells.iter().any(|&c| self.has_line(mover | 1 << c)) {
            WIN_SCORE - (n + 1)
        } else {
            let mut best = -WIN_SCORE;
            for &c in &cells {
                best = best.max(-self.score(other, mover | 1 << c));
                if best == WIN_SCORE - (n + 3) {
                    break;
                }
            }
            best
        };
        self.memo.insert((mover, other), best);
        best
    }

    fn board_score(&mut self, board: CubeBoard) -> Score {
        if board.x_to_move() {
            self.score(board.x(), board.o())
        } else {
            self.score(board.o(), board.x())
        }
    }
}

/// Positions from games where each move is random with probability `poor`,
/// else sensible (win if possible, else block, else random); every position
/// of each game, terminal ones included.
fn sample_games(games: usize, poor: f64, seed: u64) -> Vec<CubeBoard> {
    let mut rng = Rng::new(seed);
    (0..games)
        .flat_map(|_| {
            playout(&Cube, &mut rng, |rng, board, _| {
                // `ordered_moves` lists wins, then blocks, first.
                let moves = Cube.ordered_moves(board);
                if rng.chance(poor) {
                    *rng.pick(&moves)
                } else {
                    moves[0]
                }
            })
        })
        .collect()
}

#[test]
fn table_agrees_with_an_independent_search_on_sampled_games() {
    let table = table();
    let mut independent = Independent::new();
    let mut checked = 0;
    for (poor, seed) in [(1.0, 1), (0.5, 2), (0.2, 3), (0.05, 4)] {
        for board in sample_games(150, poor, seed) {
            // Boards with fewer stones cost the plain search the most (all
            // boards with 3+: ~5 s); the empty board and its first moves have
            // their own test, run with `--ignored`.
            if board.stones() < 3 {
                continue;
            }
            let probed = Cube.table_score(&table, board).unwrap();
            assert_eq!(
                Cube.value(board, probed),
                Cube.value(board, independent.board_score(board)),
                "{}",
                Cube.notation(board)
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn the_forced_play_solver_agrees_with_the_table_everywhere_it_is_asked() {
    // The live search without a table (the cube's `ForcedPlaySolver`):
    // the empty cube, every first move, and every position of sampled
    // games, a fresh solver for each group so that none leans on a memo
    // another group filled.
    let table = table();
    let empty = Cube.start();
    let mut groups = vec![vec![empty]];
    groups.push(
        Cube.moves(empty)
            .into_iter()
            .map(|cell| Cube.play(empty, cell).0)
            .collect(),
    );
    for (poor, seed) in [(1.0, 11), (0.5, 12), (0.2, 13), (0.05, 14)] {
        groups.push(sample_games(100, poor, seed));
    }
    let mut checked = 0;
    for group in groups {
        let mut search = Search::new(&Cube);
        for board in group {
            assert_eq!(
                search.score(board).unwrap(),
                Cube.table_score(&table, board).unwrap(),
                "{}",
                Cube.notation(board)
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn every_symmetric_image_probes_equal() {
    let table = table();
    for board in sample_games(60, 0.5, 9) {
        let score = Cube.table_score(&table, board).unwrap();
        for s in 0..48 {
            let image = Cube.image(board, s);
            assert_eq!(Cube.table_score(&table, image).unwrap(), score);
        }
    }
}

/// About 110 s and 2.5 GiB (the plain search has no symmetry and no table),
/// so not in the default run: `cargo test -p solvedb-tests -- --ignored`.
#[test]
#[ignore = "slow: ~110 s, 2.5 GiB"]
fn the_empty_cube_and_its_first_moves_match_the_independent_search() {
    let table = table();
    let oracle = GameOracle::with_table(Cube, table).unwrap();
    let mut independent = Independent::new();
    let start = Cube.start();
    let answer = oracle.answer(start).unwrap();
    assert_eq!(answer.score, independent.board_score(start));
    for m in &answer.moves {
        let child = Cube.play(start, m.mv).0;
        assert_eq!(m.score, -independent.board_score(child), "move {}", m.mv);
    }
}

#[test]
fn reduced_exhaustive_check_passes_and_counts_match_brute_force() {
    let table = table();
    assert_eq!(check_stored(&table).unwrap(), table.header().stored);
    let counts = check_exhaustive(&table, 0..=4, |_| {}).unwrap();
    let counts_high = check_exhaustive(&table, 22..=26, |_| {}).unwrap();
    // Raw and canonical counts by brute force: every board with legal
    // counts and no line, and the set of least images by the cell maps.
    let mut raw = [0u64; 5];
    let mut canonical: Vec<std::collections::HashSet<(u32, u32)>> = vec![Default::default(); 5];
    let maps = solvedb_lookup::games::cube::SYMMETRIES;
    let image = |s: usize, m: u32| {
        (0..27)
            .filter(|c| m >> c & 1 != 0)
            .fold(0u32, |a, c| a | 1 << maps[s][c])
    };
    let mut stack = vec![Cube.start()];
    let mut seen = std::collections::HashSet::new();
    while let Some(b) = stack.pop() {
        if b.stones() > 4 || !seen.insert(b) || Cube.terminal_score(b).is_some() {
            continue;
        }
        raw[b.stones() as usize] += 1;
        let least = (0..48)
            .map(|s| (image(s, b.x()), image(s, b.o())))
            .min()
            .unwrap();
        canonical[b.stones() as usize].insert(least);
        for mv in Cube.moves(b) {
            stack.push(Cube.play(b, mv).0);
        }
    }
    for c in &counts {
        let n = c.stones as usize;
        assert_eq!(
            (c.raw, c.canonical, c.checked),
            (raw[n], canonical[n].len() as u64, c.canonical)
        );
    }
    assert!(counts_high.iter().all(|c| c.checked == c.canonical));
    assert_eq!(
        counts_high.last().unwrap().raw,
        0,
        "26 stones always hold a line"
    );
}

#[test]
fn corrupt_cube_tables_are_errors_not_panics() {
    let bytes = std::fs::read(table_path()).unwrap();
    for at in (0..bytes.len()).step_by(997) {
        let mut broken = bytes.clone();
        broken[at] ^= 0x40;
        if let Ok(table) = Table::new(broken) {
            // A flipped block byte shows when a probe or verify reads it.
            let probes: Result<Vec<Score>, _> = sample_games(3, 1.0, at as u64)
                .into_iter()
                .map(|b| Cube.table_score(&table, b))
                .collect();
            assert!(probes.is_err() || table.verify().is_err(), "byte {at}");
        }
    }
}

#[test]
fn cli_probes_the_cube_in_json() {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let tables = table_path().parent().unwrap().to_owned();
    let code = solvedb_generator::cli::main_with(
        [
            "solvedb",
            "probe",
            "cube",
            ".../.../...//.../.X./...//.../.../...",
            "--json",
            "--tables",
            tables.to_str().unwrap(),
        ],
        &mut out,
        &mut err,
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["game"], "cube");
    assert_eq!(json["to_move"], "O");
    assert_eq!(json["source"], "table");
    assert_eq!(json["moves"].as_array().unwrap().len(), 26);
    assert!(json["result"].is_string() && json["plies"].is_u64());
}

#[test]
fn a_fresh_build_matches_the_committed_table_byte_for_byte() {
    let (solution, bytes) = solvedb_generator::build::build_table(&Cube, 19);
    assert_eq!(solution.stored, table().header().stored);
    assert!(
        bytes == std::fs::read(table_path()).unwrap(),
        "tables/cube.sdb is stale: run `solvedb build cube`"
    );
    // Quiet counts per stone count add up to the stored records.
    assert_eq!(solution.canonical(), solution.stored);
}

#[test]
fn cli_verify_exhaustive_prints_counts_per_stone_count() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let file = table_path();
    let code = solvedb_generator::cli::main_with(
        [
            "solvedb",
            "verify",
            "--exhaustive",
            "--max-stones",
            "3",
            file.to_str().unwrap(),
        ],
        &mut out,
        &mut err,
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("exhaustive check ok"), "{text}");
    // The totals line agrees with the library call (whose counts another
    // test checks against brute force).
    let counts = check_exhaustive(&table(), 0..=3, |_| {}).unwrap();
    let sum = |f: fn(&solvedb_generator::games::cube::solve::StoneCount) -> u64| {
        counts.iter().map(f).sum::<u64>().to_string()
    };
    let total = text
        .lines()
        .find(|l| l.trim_start().starts_with("all"))
        .unwrap();
    let fields: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(
        fields[1..4],
        [sum(|c| c.raw), sum(|c| c.canonical), sum(|c| c.checked)],
        "{text}"
    );
}

/// Rows of `tests/data/cube.counts`: stones, reachable, canonical, quiet,
/// quiet canonical.
fn counts_file() -> Vec<[u64; 5]> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/cube.counts");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let v: Vec<u64> = l.split_whitespace().map(|f| f.parse().unwrap()).collect();
            v.try_into().unwrap()
        })
        .collect()
}

#[test]
fn counts_match_the_counts_file() {
    let rows = counts_file();
    assert_eq!(rows.len(), 28);
    // Every quiet count, from the build.
    let (solution, _) = solvedb_generator::build::build_table(&Cube, 1);
    for (row, layer) in rows.iter().zip(&solution.layers) {
        assert_eq!(
            [row[0], row[3], row[4]],
            [layer.ply as u64, layer.reachable, layer.canonical]
        );
    }
    // The cheap ends of the exhaustive check (the full run is
    // `solvedb verify --exhaustive tables/cube.sdb`, about 3 minutes).
    let table = table();
    for range in [0..=6, 21..=26] {
        for c in check_exhaustive(&table, range, |_| {}).unwrap() {
            let row = rows[c.stones as usize];
            assert_eq!(
                [row[1], row[2]],
                [c.raw, c.canonical],
                "{} stones",
                c.stones
            );
        }
    }
    // The totals are of the scale the design notes expect: ~10^11 raw,
    // ~2·10^9 up to symmetry.
    let raw: u64 = rows.iter().map(|r| r[1]).sum();
    let canonical: u64 = rows.iter().map(|r| r[2]).sum();
    assert!(
        raw > 100_000_000_000 && canonical > 2_000_000_000,
        "{raw} {canonical}"
    );
}
