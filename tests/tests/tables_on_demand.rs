//! Tables opened, not read: an oracle over table files keeps its decoded
//! blocks within its cache's bound, answers from the file it opened when a
//! rebuild renames a new one over it (and from the new one after
//! `reload`), and gives typed errors, never a panic or a wrong answer, when
//! a file is cut short or written over in place under it.

use std::fs;
use std::path::{Path, PathBuf};

use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{
    Dots, Error, ErrorKind, FileCheck, Game, GameId, Oracle, TableError, Want,
    format::write_atomically,
};

const DOTS_3X3: GameId = GameId::Dots { rows: 3, cols: 3 };

fn committed_tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tables")
}

/// A directory holding copies of some committed tables.
fn copies(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        fs::copy(committed_tables().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// Random 3x3 positions, about five eighths of the edges drawn.
fn positions(count: usize, seed: u64) -> Vec<String> {
    let board = Dots::new(3, 3).unwrap();
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
            let mask = (a & b.rotate_left(17) | c) & ((1 << board.edges()) - 1);
            board.notation(solvedb_lookup::Edges(mask))
        })
        .collect()
}

/// Waits for the whole-file checks of `oracle`'s open tables to pass (they
/// run in the background from the open).
fn passed(oracle: &Oracle) {
    let started = std::time::Instant::now();
    while !oracle
        .file_checks()
        .iter()
        .all(|(_, check)| *check == FileCheck::Passed)
    {
        assert!(
            started.elapsed().as_secs() < 60,
            "{:?}",
            oracle.file_checks()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn random_probes_stay_within_the_cache_bound_and_agree_with_the_whole_table() {
    // dots 3x3: 2^24 entries in 256 blocks of 64 KiB, 16 MiB decoded; a
    // bound of 1 MiB holds 16 of them.
    let bound = 1 << 20;
    let small = Oracle::open(&committed_tables())
        .unwrap()
        .with_cache_capacity(bound);
    let whole = Oracle::open_in_memory(&committed_tables())
        .unwrap()
        .with_cache(std::sync::Arc::new(solvedb_lookup::BlockCache::unbounded()));
    for position in positions(3000, 11) {
        let got = small.answer(DOTS_3X3, &position, Want::Moves).unwrap();
        let want = whole.answer(DOTS_3X3, &position, Want::Moves).unwrap();
        assert_eq!(got.to_json(), want.to_json(), "{position}");
        let stats = small.cache().stats();
        assert!(stats.used <= bound, "{stats:?}");
    }
    let stats = small.cache().stats();
    assert!(
        stats.evicted > 1000,
        "the bound was reached and kept: {stats:?}"
    );
    assert!(whole.cache().stats().used > 8 * bound);
}

#[test]
fn a_table_renamed_over_is_picked_up_by_reload_and_not_before() {
    let dir = copies(&["dots-3x3.sdb", "tictactoe.sdb"]);
    let table = dir.path().join("dots-3x3.sdb");
    let oracle = Oracle::open(dir.path()).unwrap();
    let sample = positions(50, 3);
    let before: Vec<serde_json::Value> = sample
        .iter()
        .map(|p| oracle.probe(DOTS_3X3, p).unwrap().to_json())
        .collect();
    assert!(oracle.reload().is_empty(), "nothing changed yet");
    // A rebuild's rename over the name (here: another game's table, so the
    // switch shows): the oracle keeps answering from the file it opened,
    // blocks it had not read before included.
    let aside = dir.path().join("aside.sdb");
    fs::copy(&table, &aside).unwrap();
    write_atomically(&table, &fs::read(dir.path().join("tictactoe.sdb")).unwrap()).unwrap();
    for (p, want) in positions(50, 3).iter().zip(&before) {
        assert_eq!(&oracle.probe(DOTS_3X3, p).unwrap().to_json(), want);
    }
    for p in positions(200, 4) {
        oracle.probe(DOTS_3X3, &p).unwrap();
    }
    // Reloaded, it opens the new file, which is refused with a typed error.
    assert_eq!(oracle.reload(), vec![DOTS_3X3]);
    let err = oracle.probe(DOTS_3X3, &sample[0]).unwrap_err();
    assert!(
        matches!(err, Error::Table(TableError::WrongGame { .. })),
        "{err}"
    );
    // The good table back, and a table that appears where there was none.
    fs::rename(&aside, &table).unwrap();
    let cube = dir.path().join("cube.sdb");
    assert!(!oracle.has_table(GameId::Cube));
    let empty = ".".repeat(27);
    assert_eq!(
        oracle.probe(GameId::Cube, &empty).unwrap().source.as_str(),
        "search"
    );
    fs::copy(committed_tables().join("cube.sdb"), &cube).unwrap();
    // Dots 3x3 failed to open, so nothing of it was kept: the next question
    // opens the file again. The cube searched: its new table is a change.
    assert_eq!(oracle.reload(), vec![GameId::Cube]);
    assert_eq!(
        oracle.probe(DOTS_3X3, &sample[0]).unwrap().to_json(),
        before[0]
    );
    assert_eq!(
        oracle.probe(GameId::Cube, &empty).unwrap().source.as_str(),
        "table"
    );
}

#[test]
fn a_table_cut_short_or_overwritten_under_an_open_oracle_gives_typed_errors() {
    let dir = copies(&["dots-3x3.sdb"]);
    let table = dir.path().join("dots-3x3.sdb");
    let whole = Oracle::open_in_memory(&committed_tables()).unwrap();
    let oracle = Oracle::open(dir.path()).unwrap();
    let sample = positions(400, 5);
    let first = &sample[0];
    let want = whole.probe(DOTS_3X3, first).unwrap().to_json();
    assert_eq!(oracle.probe(DOTS_3X3, first).unwrap().to_json(), want);
    passed(&oracle);

    // Cut to half (truncate(1) would do the same; a half keeps some
    // blocks readable): every answer is the right one or a typed error.
    let len = fs::metadata(&table).unwrap().len();
    fs::File::options()
        .write(true)
        .open(&table)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let (mut right, mut refused) = (0, 0);
    for p in &sample {
        match oracle.probe(DOTS_3X3, p) {
            Ok(report) => {
                assert_eq!(
                    report.to_json(),
                    whole.probe(DOTS_3X3, p).unwrap().to_json()
                );
                right += 1;
            }
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Table, "{e}");
                refused += 1;
            }
        }
    }
    assert!(right > 0 && refused > 0, "{right} right, {refused} refused");

    // Written over in place, the same length, other bytes: refused by the
    // block checksums from the open, or once the whole-file check (in the
    // background since the open) has failed, by its error.
    let mut bytes = fs::read(committed_tables().join("dots-3x3.sdb")).unwrap();
    fs::write(&table, &bytes).unwrap();
    let oracle = Oracle::open(dir.path()).unwrap();
    assert_eq!(oracle.probe(DOTS_3X3, first).unwrap().to_json(), want);
    passed(&oracle);
    let head = 4096;
    for b in &mut bytes[head..len as usize - 8] {
        *b = b.wrapping_add(1);
    }
    fs::write(&table, &bytes).unwrap();
    for p in &sample[1..] {
        match oracle.probe(DOTS_3X3, p) {
            Ok(report) => assert_eq!(
                report.to_json(),
                whole.probe(DOTS_3X3, p).unwrap().to_json()
            ),
            Err(e) => assert!(
                matches!(
                    e,
                    Error::Table(TableError::Checksum { .. } | TableError::Truncated { .. })
                ),
                "{e}"
            ),
        }
    }
}

#[test]
fn a_companion_table_that_appears_is_picked_up_by_reload() {
    // Qubic's strategy alone, then its opening table copied in beside it: the
    // game is reopened and answers moves the strategy alone leaves unknown.
    let dir = copies(&["qubic.sdb"]);
    let oracle = Oracle::open(dir.path()).unwrap();
    let position = "0 21 15 1 12 42";
    let bare = oracle.moves(GameId::Qubic, position).unwrap();
    assert!(oracle.reload().is_empty(), "nothing changed yet");
    fs::copy(
        committed_tables().join("qubic-opening.sdb"),
        dir.path().join("qubic-opening.sdb"),
    )
    .unwrap();
    assert_eq!(oracle.reload(), vec![GameId::Qubic]);
    let opened = oracle.moves(GameId::Qubic, position).unwrap();
    assert_eq!(opened.value, bare.value);
    assert!(
        opened.unknown.len() < bare.unknown.len(),
        "{} unknown with the opening table, {} without",
        opened.unknown.len(),
        bare.unknown.len()
    );
    // Removed again: a change too.
    fs::remove_file(dir.path().join("qubic-opening.sdb")).unwrap();
    assert_eq!(oracle.reload(), vec![GameId::Qubic]);
    let again = oracle.moves(GameId::Qubic, position).unwrap();
    assert_eq!(again.unknown, bare.unknown);
}
