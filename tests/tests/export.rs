//! `solvedb export`: exported rows equal probes, samples are seeded
//! subsets, symmetric images are all there, and the dataset card's figures
//! in docs/datasets.md are what the tables give today.

use std::collections::HashMap;

use solvedb_generator::export::{Destination, ExportOptions, Format, export_table};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{AnyValue, Encoded, Error, Game, GameId, Oracle, Wdl, with_game};
use solvedb_tests::{committed_tables, solvedb};

/// An export of `game` as CSV: the header's names and each row's fields.
fn csv(game: GameId, options: ExportOptions) -> (Vec<String>, Vec<Vec<String>>) {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let mut bytes = Vec::new();
    let options = ExportOptions {
        format: Format::Csv,
        row_group: 1000,
        ..options
    };
    let summary = export_table(&oracle, game, &options, Destination::Stream(&mut bytes)).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert_eq!(rows.len() as u64, summary.rows);
    (header, rows)
}

/// The numbers a probe gives one position's value and each move's, by the
/// export's column names.
fn probed(oracle: &Oracle, game: GameId, position: &str) -> HashMap<String, String> {
    let report = oracle.moves(game, position).unwrap();
    let mut fields = HashMap::new();
    let numbers = |value: AnyValue| match value {
        AnyValue::Outcome(o) => {
            let r = match o.wdl {
                Wdl::Win => 1,
                Wdl::Draw => 0,
                Wdl::Loss => -1,
            };
            (r.to_string(), Some(o.plies.to_string()))
        }
        AnyValue::Margin(m) => (m.to_string(), None),
        AnyValue::AtMost(o) => panic!("{game}: a table of rows holds no bounds, probed {o:?}"),
    };
    let (value, plies) = numbers(report.value);
    let dots = matches!(game, GameId::Dots { .. });
    fields.insert(if dots { "value" } else { "result" }.to_owned(), value);
    if let Some(plies) = plies {
        fields.insert("plies".to_owned(), plies);
    }
    for m in &report.moves {
        let index = with_game!(game, g => g
            .parse_move(&m.mv)
            .map(|mv| g.move_index(mv))
            .map_err(Error::from))
        .unwrap();
        let (value, plies) = numbers(m.value);
        fields.insert(
            format!("m{index}_{}", if dots { "value" } else { "result" }),
            value,
        );
        if let Some(plies) = plies {
            fields.insert(format!("m{index}_plies"), plies);
        }
    }
    fields
}

#[test]
fn exported_rows_equal_probes_on_random_rows() {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let mut rng = Rng::new(24);
    for game in [
        "tictactoe",
        "tictactoe:4x4",
        "cube",
        "dots:2x2",
        "dots:2x3",
        "dots:3x3",
    ] {
        let game: GameId = game.parse().unwrap();
        let (header, rows) = csv(
            game,
            ExportOptions {
                sample: Some(300),
                seed: 5,
                ..ExportOptions::default()
            },
        );
        assert_eq!(rows.len(), 300, "{game}");
        for _ in 0..60 {
            let row = &rows[rng.index(rows.len())];
            assert_eq!(row.len(), header.len());
            let expected = probed(&oracle, game, &row[0]);
            for (name, field) in header.iter().zip(row) {
                let is_value = name == "value"
                    || name == "result"
                    || name == "plies"
                    || name.starts_with('m') && name.contains('_');
                if !is_value {
                    continue;
                }
                // An empty move column is a move that is not legal.
                assert_eq!(
                    expected.get(name).map(String::as_str).unwrap_or(""),
                    field,
                    "{game} {} {name}",
                    row[0]
                );
            }
        }
    }
}

#[test]
fn samples_are_seeded_subsets_and_every_image_is_listed() {
    let game = GameId::TicTacToe;
    let (_, all) = csv(game, ExportOptions::default());
    assert_eq!(all.len(), 765);
    let sample = |seed| {
        csv(
            game,
            ExportOptions {
                sample: Some(50),
                seed,
                ..ExportOptions::default()
            },
        )
        .1
    };
    let (a, b, c) = (sample(1), sample(1), sample(2));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.iter().all(|row| all.contains(row)));
    // Every one of the 5,478 positions, each once, with the canonical
    // form's value.
    let (header, images) = csv(
        game,
        ExportOptions {
            all_symmetries: true,
            ..ExportOptions::default()
        },
    );
    assert_eq!(images.len(), 5478);
    let mut positions: Vec<&String> = images.iter().map(|r| &r[0]).collect();
    positions.sort();
    positions.dedup();
    assert_eq!(positions.len(), 5478);
    let result = header.iter().position(|h| h == "result").unwrap();
    let oracle = Oracle::open(&committed_tables()).unwrap();
    for row in images.iter().step_by(97) {
        let value = probed(&oracle, game, &row[0]);
        assert_eq!(value["result"], row[result]);
    }
}

#[test]
fn the_command_writes_parquet_and_csv_files_and_refuses_what_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let tables = committed_tables().to_str().unwrap().to_owned();
    let parquet = dir.path().join("t.parquet");
    let (code, stdout, stderr) = solvedb(&[
        "export",
        "dots:2x2",
        "--tables",
        &tables,
        "--out",
        parquet.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("rows of dots:2x2"), "{stdout}");
    let bytes = std::fs::read(&parquet).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
    let csv_file = dir.path().join("t.csv");
    let (code, _, stderr) = solvedb(&[
        "export",
        "tictactoe",
        "--tables",
        &tables,
        "--out",
        csv_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&csv_file).unwrap().lines().count(),
        766
    );
    // No table: an unsupported game (exit 4), and no file is left behind.
    let empty = tempfile::tempdir().unwrap();
    let missing = dir.path().join("q.txt");
    let (code, _, stderr) = solvedb(&[
        "export",
        "qubic",
        "--tables",
        empty.path().to_str().unwrap(),
        "--out",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 4, "{stderr}");
    assert!(!missing.exists() && !dir.path().join("q.txt.partial").exists());
    // A file named for a format the game does not export is refused before
    // any work (Qubic's strategy is text), not filled with another format.
    let misnamed = dir.path().join("q.parquet");
    let (code, _, stderr) = solvedb(&[
        "export",
        "qubic",
        "--tables",
        &tables,
        "--out",
        misnamed.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("qubic exports as text, not parquet"),
        "{stderr}"
    );
    assert!(!misnamed.exists() && !dir.path().join("q.parquet.partial").exists());
    // Parquet to standard output is refused (CSV is not).
    let (code, _, _) = solvedb(&[
        "export",
        "tictactoe",
        "--tables",
        &tables,
        "--out",
        "-",
        "--format",
        "parquet",
    ]);
    assert_ne!(code, 0);
    let (code, stdout, _) = solvedb(&["export", "tictactoe", "--tables", &tables, "--out", "-"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("position,x,o,ply,to_move,stored,result,plies,m0_result,m0_plies,"));
}

#[test]
fn the_dataset_card_figures_are_computed() {
    let doc = std::fs::read_to_string(committed_tables().join("../docs/datasets.md")).unwrap();
    let begin = "<!-- computed by `solvedb export all --card`: begin -->\n";
    let end = "<!-- computed: end -->";
    let from = doc.find(begin).expect("the card's computed block") + begin.len();
    let to = from + doc[from..].find(end).expect("its end");
    let tables = committed_tables().to_str().unwrap().to_owned();
    let (code, stdout, stderr) = solvedb(&["export", "all", "--card", "--tables", &tables]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        doc[from..to].trim(),
        stdout.trim(),
        "docs/datasets.md is stale: regenerate it"
    );
}

/// A Parquet export of `game` as `options` say, as bytes.
fn parquet(game: GameId, options: &ExportOptions) -> Vec<u8> {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.parquet");
    let file = std::fs::File::create(&path).unwrap();
    export_table(&oracle, game, options, Destination::File(file)).unwrap();
    std::fs::read(path).unwrap()
}

#[test]
fn exports_are_the_same_bytes_every_run_however_the_work_is_cut() {
    // dots 2×3: 2^17 slots, in pieces of 256 (512 pieces, 32 windows of
    // them valued at once) and of the default 65,536 (2 pieces, 1 window);
    // row groups of 1,000 rows, cut across pieces.
    let game: GameId = "dots:2x3".parse().unwrap();
    let small = ExportOptions {
        row_group: 1000,
        piece: 256,
        ..ExportOptions::default()
    };
    let whole = ExportOptions {
        piece: ExportOptions::default().piece,
        ..small.clone()
    };
    let a = parquet(game, &small);
    assert_eq!(a, parquet(game, &small));
    assert_eq!(a, parquet(game, &whole));
    let (_, rows) = csv(game, small.clone());
    assert_eq!(rows, csv(game, whole.clone()).1);
    // One row per canonical edge set, ascending (the table's order).
    let dots = solvedb_lookup::Dots::new(2, 3).unwrap();
    let canonical = (0..1u64 << dots.edges())
        .filter(|&m| dots.canonical(solvedb_lookup::Edges(m)) == solvedb_lookup::Edges(m))
        .count();
    assert_eq!(rows.len(), canonical);
    let edges: Vec<u64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    assert!(edges.windows(2).all(|w| w[0] < w[1]));
    // A sample is the same rows whatever the pieces, and a seed's own.
    let sample = |options: &ExportOptions, seed| {
        csv(
            game,
            ExportOptions {
                sample: Some(777),
                seed,
                ..options.clone()
            },
        )
        .1
    };
    let s = sample(&small, 3);
    assert_eq!(s.len(), 777);
    assert_eq!(s, sample(&whole, 3));
    assert_ne!(s, sample(&small, 4));
    assert!(s.iter().all(|row| {
        let at = edges.binary_search(&row[1].parse().unwrap());
        at.is_ok_and(|at| rows[at] == *row)
    }));
}
