//! Table files: determinism, the committed table and its manifest, and every
//! kind of bad file refused with a typed error.

use solvedb_generator::build::build_table;
use solvedb_generator::build::read_manifest;
use solvedb_generator::fuzz::{Budget, fuzz};
use solvedb_generator::sweep::{SweepLimits, forge_other_game, sweep};
use solvedb_lookup::format::{FORMAT_VERSION, Header, encode_table};
use solvedb_lookup::{
    Error, Game, GameId, GameOracle, IndexScheme, Table, TableError, TicTacToe, ValueEncoding,
    read_table,
};
use solvedb_tests::committed_tables;

fn fresh_table() -> Vec<u8> {
    build_table(&TicTacToe, 19).1
}

#[test]
fn a_table_built_twice_is_byte_identical_and_matches_the_committed_one() {
    let first = fresh_table();
    assert_eq!(first, fresh_table());
    let dir = committed_tables();
    let committed =
        std::fs::read(dir.join("tictactoe.sdb")).expect("tables/tictactoe.sdb is committed");
    assert!(
        committed == first,
        "tables/tictactoe.sdb is stale: rebuild it with `solvedb build tictactoe`"
    );
    // Its manifest line: `every_committed_table_has_its_manifest_line`.
    Table::new(committed.as_slice()).unwrap().verify().unwrap();
}

#[test]
fn every_committed_table_has_its_manifest_line() {
    // A table copied in from another build directory without its line
    // leaves the manifest stale: every file and every line must agree.
    let dir = committed_tables();
    let manifest = read_manifest(&dir).unwrap();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sdb") {
            files.push(path.file_name().unwrap().to_str().unwrap().to_owned());
        }
    }
    files.sort();
    assert_eq!(
        manifest.keys().cloned().collect::<Vec<_>>(),
        files,
        "tables/MANIFEST and the .sdb files in tables/ differ"
    );
    for name in &files {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let table = Table::new(bytes.as_slice()).unwrap();
        let line = &manifest[name];
        assert_eq!(line.bytes, bytes.len() as u64, "{name}: bytes");
        assert_eq!(line.checksum, table.file_checksum(), "{name}: checksum");
        assert_eq!(line.version, FORMAT_VERSION, "{name}: version");
    }
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let err = read_table(std::path::Path::new("/nonexistent/tictactoe.sdb")).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert!(
        err.to_string().contains("/nonexistent/tictactoe.sdb"),
        "{err}"
    );
}

#[test]
fn the_corruption_sweep_finds_every_mutation_of_the_tictactoe_table() {
    let bytes = fresh_table();
    let foreign = vec![forge_other_game(&bytes).unwrap()];
    let report = sweep(&TicTacToe, bytes.clone(), &foreign, SweepLimits::EXHAUSTIVE).unwrap();
    let row = |kind: &str| report.rows.iter().find(|r| r.kind == kind).unwrap().clone();
    assert!(report.all_detected(), "{}", report.render());
    let table = Table::new(bytes.as_slice()).unwrap();
    // Every bit of the head, refused at open by its checksums.
    let head = row("head bit flips");
    assert_eq!(head.tried, table.head_len() as u64 * 8);
    assert_eq!(head.at_open, head.tried);
    // Every bit of every block, caught by the probe that reads the block.
    let blocks = row("block bit flips");
    let block_bytes = bytes.len() - table.head_len() - 8;
    assert_eq!(blocks.tried, block_bytes as u64 * 8);
    assert_eq!(blocks.by_probe, blocks.tried);
    // Every cut in the head and at each block boundary.
    assert!(row("truncations").tried >= table.head_len() as u64);
    assert_eq!(row("other game's table").at_open, 1);
}

#[test]
fn a_forged_header_is_refused_as_the_wrong_game() {
    let forged = forge_other_game(&fresh_table()).unwrap();
    let table = Table::new(forged).unwrap();
    table.verify().unwrap();
    assert!(matches!(
        GameOracle::with_table(TicTacToe, table),
        Err(TableError::WrongGame {
            found: GameId::Cube,
            ..
        })
    ));
}

/// A short fuzz run of 6,000 executions from `seed`; two of them, one a
/// test, run on the two cores at once (`scripts/test.sh` adds a longer
/// run from a fresh seed).
fn short_fuzz_run(seed: u64) {
    let report = fuzz(Budget::Executions(6_000), seed);
    assert_eq!(report.total(), 6_000);
    assert!(
        report.failures.is_empty(),
        "{:#?}",
        &report.failures[..report.failures.len().min(5)]
    );
}

#[test]
fn a_short_fuzz_run_finds_no_panic_and_no_broken_property() {
    short_fuzz_run(7);
}

#[test]
fn another_short_fuzz_run_finds_none_either() {
    short_fuzz_run(8);
}

#[test]
fn a_corrupt_block_is_caught_by_the_probe_that_reads_it() {
    let mut bytes = fresh_table();
    let table = Table::new(bytes.as_slice()).unwrap();
    // Flip a bit in the last block's stored bytes, just before the trailer,
    // and repair the whole-file checksum so that only the block checksum
    // can notice.
    let at = bytes.len() - 9;
    drop(table);
    bytes[at] ^= 0x10;
    let body = bytes.len() - 8;
    let sum = solvedb_tests::xxh3_64(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
    let oracle = GameOracle::with_table(TicTacToe, Table::new(bytes).unwrap()).unwrap();
    let errors: Vec<Error> = solvedb_tests::plain_tictactoe::reachable()
        .iter()
        .filter_map(|b| {
            let p = TicTacToe
                .parse(&solvedb_tests::plain_tictactoe::notation(b))
                .unwrap();
            oracle.probe(p).err()
        })
        .collect();
    assert!(!errors.is_empty(), "no probe read the corrupt block");
    for e in errors {
        assert!(
            matches!(e, Error::Table(TableError::Checksum { ref part }) if part.starts_with("block")),
            "{e}"
        );
    }
}

#[test]
fn foreign_bytes_are_not_a_table() {
    assert!(matches!(
        Table::new(&b"PK\x03\x04 a zip file, say"[..]),
        Err(TableError::BadMagic)
    ));
    assert!(matches!(
        Table::new(&b""[..]),
        Err(TableError::Truncated { .. })
    ));
}

#[test]
fn a_newer_format_version_is_refused() {
    let mut bytes = fresh_table();
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        Table::new(bytes).unwrap_err(),
        TableError::NewerVersion {
            found: FORMAT_VERSION + 1,
            supported: FORMAT_VERSION
        }
    );
}

#[test]
fn a_version_1_table_is_refused_as_unsupported() {
    // Version 2 added don't-care entries for dots-and-boxes; version 1
    // files are rebuilt, not read (see the format's "Versions").
    assert_eq!(FORMAT_VERSION, 2);
    let mut bytes = fresh_table();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(
        Table::new(bytes).unwrap_err(),
        TableError::UnsupportedVersion {
            found: 1,
            supported: FORMAT_VERSION
        }
    );
}

#[test]
fn another_games_table_is_refused() {
    let header = Header {
        game: GameId::Dots { rows: 2, cols: 2 },
        index: IndexScheme::Base3Canonical,
        values: ValueEncoding::OutcomePlies,
        entries: 4096,
        stored: 0,
        block_entries: 1024,
        generator: "test".into(),
    };
    let table = Table::new(encode_table(&header, &[0; 4096], 3)).unwrap();
    let err = GameOracle::with_table(TicTacToe, table).unwrap_err();
    assert_eq!(
        err,
        TableError::WrongGame {
            expected: GameId::TicTacToe,
            found: GameId::Dots { rows: 2, cols: 2 }
        }
    );
}
