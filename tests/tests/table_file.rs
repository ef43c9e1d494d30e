//! Table files: determinism, the committed table and its manifest, and every
//! kind of bad file refused with a typed error.

use solvedb_generator::cli::build_table;
use solvedb_generator::manifest::read_manifest;
use solvedb_lookup::format::{FORMAT_VERSION, Header, encode_table};
use solvedb_lookup::{
    Error, Game, GameId, IndexScheme, Oracle, Table, TableError, TicTacToe, ValueEncoding,
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
    let manifest = read_manifest(&dir).unwrap();
    let line = &manifest["tictactoe.sdb"];
    let table = Table::new(committed.as_slice()).unwrap();
    assert_eq!(line.bytes, committed.len() as u64);
    assert_eq!(line.checksum, table.file_checksum());
    assert_eq!(line.version, FORMAT_VERSION);
    table.verify().unwrap();
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
fn every_truncation_is_refused_at_open() {
    let bytes = fresh_table();
    for len in 0..bytes.len() {
        let err = Table::new(&bytes[..len]).unwrap_err();
        assert!(
            matches!(
                err,
                TableError::Truncated { .. } | TableError::Size(_) | TableError::BadMagic
            ),
            "cut at {len}: {err}"
        );
    }
}

#[test]
fn appended_garbage_is_refused_at_open() {
    let mut bytes = fresh_table();
    bytes.extend_from_slice(b"garbage");
    assert!(matches!(Table::new(bytes), Err(TableError::Size(_))));
}

#[test]
fn every_flipped_bit_is_caught_by_open_or_verify() {
    let bytes = fresh_table();
    let mut caught_at_open = 0;
    for bit in 0..bytes.len() * 8 {
        let mut bad = bytes.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        match Table::new(bad.as_slice()) {
            Err(_) => caught_at_open += 1,
            Ok(table) => assert!(table.verify().is_err(), "bit {bit} went unnoticed"),
        }
    }
    // The header, block index and their checksums are checked at open.
    assert!(caught_at_open > 0);
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
    let oracle = Oracle::with_table(TicTacToe, Table::new(bytes).unwrap()).unwrap();
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
    let err = Oracle::with_table(TicTacToe, table).unwrap_err();
    assert_eq!(
        err,
        TableError::WrongGame {
            expected: GameId::TicTacToe,
            found: GameId::Dots { rows: 2, cols: 2 }
        }
    );
}
