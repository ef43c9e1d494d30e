//! Dots-and-boxes across crates: retrograde tables against an independent
//! plain search written here, the endgame solver against the tables,
//! symmetric images, determinism, and the CLI.

use std::path::PathBuf;

use solvedb_generator::build::{build_table, encode_solution};
use solvedb_generator::cli::main_with;
use solvedb_generator::verify::check_consistency;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Dots, Edges, Game, GameOracle, Table};

/// The rules again, from the issue's text rather than from `lookup`: a
/// board of `m`×`n` boxes, horizontal edges row by row, then vertical ones.
struct PlainRules {
    edges: u32,
    /// The four edges of each box.
    boxes: Vec<u64>,
}

impl PlainRules {
    fn new(m: u32, n: u32) -> PlainRules {
        let h = |r: u32, c: u32| r * n + c;
        let v = |r: u32, c: u32| (m + 1) * n + r * (n + 1) + c;
        let mut boxes = Vec::new();
        for r in 0..m {
            for c in 0..n {
                boxes.push(1 << h(r, c) | 1 << h(r + 1, c) | 1 << v(r, c) | 1 << v(r, c + 1));
            }
        }
        PlainRules {
            edges: (m + 1) * n + m * (n + 1),
            boxes,
        }
    }

    fn completed(&self, mask: u64) -> i32 {
        self.boxes.iter().filter(|&&b| mask & b == b).count() as i32
    }

    /// Plain negamax over every move, memoised by mask (`i8::MIN` unknown).
    fn value(&self, mask: u64, memo: &mut [i8]) -> i32 {
        if memo[mask as usize] != i8::MIN {
            return i32::from(memo[mask as usize]);
        }
        let mut best = if mask.count_ones() == self.edges {
            0
        } else {
            i32::MIN
        };
        for e in 0..self.edges {
            if mask & 1 << e == 0 {
                let child = mask | 1 << e;
                let gain = self.completed(child) - self.completed(mask);
                let rest = self.value(child, memo);
                best = best.max(if gain > 0 { gain + rest } else { -rest });
            }
        }
        memo[mask as usize] = best as i8;
        best
    }
}

fn table_of(board: Dots) -> Table<Vec<u8>> {
    Table::new(build_table(&board, 3).1).unwrap()
}

#[test]
fn empty_boards_up_to_3x3_agree_with_a_plain_search() {
    let mut values = Vec::new();
    for (m, n) in [
        (1, 1),
        (1, 2),
        (2, 1),
        (1, 3),
        (2, 2),
        (1, 4),
        (2, 3),
        (3, 2),
        (3, 3),
    ] {
        let board = Dots::new(m, n).unwrap();
        let rules = PlainRules::new(u32::from(m), u32::from(n));
        let mut memo = vec![i8::MIN; 1 << rules.edges];
        let plain = rules.value(0, &mut memo);
        let oracle = GameOracle::with_table(board, table_of(board)).unwrap();
        assert_eq!(oracle.probe(board.start()).unwrap().0, plain, "{m}x{n}");
        values.push(format!("{m}x{n}:{plain:+}"));
        if m * n <= 6 {
            // Small boards: every position, not just the empty one, and so
            // every don't-care entry (resolved at probe time).
            let dont_care = (0..1u64 << rules.edges)
                .filter(|&mask| {
                    board.canonical(Edges(mask)) == Edges(mask)
                        && board.free_capture(mask).is_some()
                })
                .count();
            assert!(dont_care > 0, "{m}x{n}");
            for mask in 0..1u64 << rules.edges {
                assert_eq!(
                    oracle.probe(Edges(mask)).unwrap().0,
                    rules.value(mask, &mut memo),
                    "{}",
                    board.notation(Edges(mask))
                );
            }
        }
    }
    // Printed for the record (cargo test -- --nocapture).
    println!(
        "empty-board margins for the first player: {}",
        values.join(" ")
    );
}

#[test]
fn table_and_endgame_search_agree_on_random_3x3_2x4_and_4x2_positions() {
    for (m, n) in [(3, 3), (2, 4), (4, 2)] {
        let board = Dots::new(m, n).unwrap();
        let oracle = GameOracle::with_table(board, table_of(board)).unwrap();
        let search = GameOracle::<_, Vec<u8>>::search_only(board);
        let mut rng = Rng::new(0x1234_5678_9abc_def1);
        for i in 0..150 {
            let a = rng.next_u64();
            // From a third to all of the edges drawn.
            let mask = if i % 3 == 0 { a } else { a | rng.next_u64() } & board.full();
            let p = Edges(mask);
            assert_eq!(
                oracle.probe(p).unwrap(),
                search.probe(p).unwrap(),
                "{}",
                board.notation(p)
            );
        }
    }
}

#[test]
fn symmetric_images_probe_equal() {
    for (m, n) in [(3, 3), (2, 3), (3, 2), (2, 4)] {
        let board = Dots::new(m, n).unwrap();
        let oracle = GameOracle::with_table(board, table_of(board)).unwrap();
        let mut rng = Rng::new(0xdead_beef_0bad_cafe);
        for _ in 0..500 {
            let p = Edges(rng.next_u64() & board.full());
            let value = oracle.probe(p).unwrap();
            for s in 0..board.symmetry_count() {
                let image = board.image(p, s);
                assert_eq!(oracle.probe(image).unwrap(), value, "{m}x{n} {s}");
            }
        }
    }
}

#[test]
fn tables_are_deterministic_and_consistent() {
    let board = Dots::new(2, 3).unwrap();
    let (solution, first) = build_table(&board, 19);
    assert_eq!(first, build_table(&board, 19).1);
    // The committed table is the one this code builds.
    let committed = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables/dots-2x3.sdb");
    assert_eq!(std::fs::read(committed).unwrap(), first);
    let table = Table::new(first).unwrap();
    table.verify().unwrap();
    // Every canonical position is checked: the stored ones by their entry,
    // the don't-care ones by their resolution.
    let checked = check_consistency(&board, &table).unwrap().checked;
    assert_eq!(checked, solution.canonical());
    assert!(
        table.header().stored < checked / 2,
        "most entries are don't-care"
    );
}

#[test]
fn verify_refuses_a_wrong_value_in_a_stored_or_a_dont_care_entry() {
    let board = Dots::new(2, 3).unwrap();
    let (solution, _) = build_table(&board, 3);
    let canonical = |mask: u64| board.canonical(Edges(mask)) == Edges(mask);
    let dont_care = (0..=board.full())
        .find(|&m| canonical(m) && board.free_capture(m).is_some() && m.count_ones() < 10)
        .unwrap();
    let stored = (0..=board.full())
        .find(|&m| solution.entries[m as usize] > 1 && m.count_ones() > 2)
        .unwrap();
    for (slot, entry) in [
        (dont_care, 1u8),
        (stored, solution.entries[stored as usize] - 1),
    ] {
        let mut bad = solution.clone();
        bad.entries[slot as usize] = entry;
        bad.stored = bad.entries.iter().filter(|&&e| e != 0).count() as u64;
        let table = Table::new(encode_solution(&board, &bad, 3)).unwrap();
        table.verify().unwrap(); // the checksums are good
        let err = check_consistency(&board, &table).unwrap_err().to_string();
        assert!(err.contains("slot"), "{err}");
    }
}

#[test]
fn probe_prints_the_json_the_issue_asks_for() {
    let tables = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables");
    let run = |position: &str, tables: &str| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = main_with(
            [
                "solvedb", "probe", "dots:2x2", position, "--json", "--tables", tables,
            ],
            &mut out,
            &mut err,
        );
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
        serde_json::from_slice::<serde_json::Value>(&out).unwrap()
    };
    let json = run("2x2:h0,0 v0,0 h1,0", tables.to_str().unwrap());
    // The name requests take, so the answer can be sent back as a request.
    assert_eq!(json["game"], "dots:2x2");
    assert_eq!(json.get("board"), None);
    assert_eq!(json["position"], "2x2:101000100000");
    assert_eq!(json["source"], "table");
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 9);
    // Box (0,0) has three sides and taking it exposes nothing: v0,1 is a
    // best move.
    let take = moves.iter().find(|m| m["move"] == "v0,1").unwrap();
    assert_eq!(json["value"], moves[0]["value"]);
    assert_eq!(take["value"], json["value"]);
    let values: Vec<i64> = moves.iter().map(|m| m["value"].as_i64().unwrap()).collect();
    assert!(
        values.windows(2).all(|w| w[0] >= w[1]),
        "best first: {values:?}"
    );
    // Without a table the search answers the same.
    let searched = run("2x2:h0,0 v0,0 h1,0", "/nonexistent-solvedb-tables");
    assert_eq!(searched["source"], "search");
    assert_eq!(searched["value"], json["value"]);
    assert_eq!(searched["moves"], json["moves"]);
}

#[test]
fn bad_positions_fail_with_a_clear_message() {
    for (position, expected) in [
        ("2x2:0101", "have 12 edges, found 4"),
        ("3x3:", "expected this board, 2x2"),
        ("2x2:01010101010x", "unexpected character 'x'"),
        ("2x2:h9,0", "rows 0..=2"),
    ] {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = main_with(
            ["solvedb", "probe", "dots:2x2", position],
            &mut out,
            &mut err,
        );
        assert_eq!(code, 3, "a position error");
        let err = String::from_utf8_lossy(&err);
        assert!(err.contains(expected), "{position}: {err}");
    }
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        main_with(["solvedb", "probe", "dots:9x9", "9x9:"], &mut out, &mut err),
        4,
        "an unsupported board"
    );
    assert!(String::from_utf8_lossy(&err).contains("at most 63"));
}

#[test]
fn search_answers_exactly_or_says_unknown_within_the_budget() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main_with(
        ["solvedb", "search", "dots:2x3", "2x3:"],
        &mut out,
        &mut err,
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8_lossy(&out);
    let table =
        GameOracle::with_table(Dots::new(2, 3).unwrap(), table_of(Dots::new(2, 3).unwrap()))
            .unwrap()
            .probe(Edges(0))
            .unwrap();
    assert!(
        out.contains(&format!("value    {table} (from exact live search)")),
        "{out}"
    );

    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main_with(
        [
            "solvedb",
            "search",
            "dots:4x4",
            "4x4:",
            "--nodes",
            "1000",
            "--table-mib",
            "1",
        ],
        &mut out,
        &mut err,
    );
    assert_eq!(code, 7, "a budget stop");
    let err = String::from_utf8_lossy(&err);
    assert!(
        err.contains("unknown within the budget of 1000 nodes"),
        "{err}"
    );
}
