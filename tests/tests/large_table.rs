//! A table of several GB probed with memory far below its size: a dots
//! 2×6 table (2^32 one-byte entries, 4 GiB) written as a sparse file, its
//! blocks raw and almost all of them holes, a few planted as zstd frames.
//! The file is written here byte by byte from the format's specification
//! (`lookup/src/format/mod.rs`), not by the library's writer. Its own test
//! binary, so that the resident memory it reads is its own.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

use solvedb_lookup::format::MAGIC;
use std::sync::Arc;

use solvedb_lookup::{
    BlockCache, Dots, Edges, Game, GameId, Oracle, Table, TableFile, Tabled, Want,
};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

const BLOCK: u64 = 1 << 16;
const ENTRIES: u64 = 1 << 32;
const BLOCKS: u64 = ENTRIES / BLOCK;

fn resident_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The header of a dots 2x6 table, fixed-int little-endian as the spec
/// lays it out.
fn header_bytes() -> Vec<u8> {
    let mut h = Vec::new();
    h.extend(2u32.to_le_bytes()); // GameId::Dots
    h.extend([2u8, 6]); // rows, cols
    h.extend(2u32.to_le_bytes()); // IndexScheme::EdgeMaskCanonical
    h.extend(2u32.to_le_bytes()); // ValueEncoding::MarginResolved
    h.extend(ENTRIES.to_le_bytes());
    h.extend(3u64.to_le_bytes()); // stored: the planted entries
    h.extend((BLOCK as u32).to_le_bytes());
    let generator = b"tests/large_table.rs";
    h.extend((generator.len() as u64).to_le_bytes());
    h.extend(generator);
    h
}

/// Writes the table to `file`: every block raw and zero (holes) but the
/// `planted` ones, zstd frames whose slot holds an entry. Returns the
/// length.
fn write_sparse(file: &mut File, planted: &[(u64, u8)]) -> u64 {
    let header = header_bytes();
    let mut head = Vec::new();
    head.extend(MAGIC);
    head.extend(2u32.to_le_bytes()); // format version
    head.extend((header.len() as u32).to_le_bytes());
    head.extend(&header);
    head.extend(xxh3_64(&head).to_le_bytes());
    let index_start = head.len();
    let data_start = (index_start as u64) + BLOCKS * 24 + 8;
    let zeros = vec![0u8; BLOCK as usize];
    let zero_sum = xxh3_64(&zeros);
    let mut frames = Vec::new();
    let mut offset = data_start;
    let mut layout = Vec::new();
    for block in 0..BLOCKS {
        let mine: Vec<_> = planted.iter().filter(|(s, _)| s / BLOCK == block).collect();
        let (encoding, stored) = if mine.is_empty() {
            (0u8, None)
        } else {
            let mut entries = zeros.clone();
            for &&(slot, entry) in &mine {
                entries[(slot % BLOCK) as usize] = entry;
            }
            (1u8, Some(zstd::bulk::compress(&entries, 3).unwrap()))
        };
        let len = stored.as_ref().map_or(BLOCK, |s| s.len() as u64);
        let sum = stored.as_ref().map_or(zero_sum, |s| xxh3_64(s));
        head.extend(offset.to_le_bytes());
        head.extend((len as u32).to_le_bytes());
        head.extend([encoding, 0, 0, 0]);
        head.extend(sum.to_le_bytes());
        layout.push((offset, len, stored.is_some()));
        if let Some(stored) = stored {
            frames.push((offset, stored));
        }
        offset += len;
    }
    let index_sum = xxh3_64(&head[index_start..]);
    head.extend(index_sum.to_le_bytes());
    assert_eq!(head.len() as u64, data_start);
    let total = offset + 8;
    file.set_len(total).unwrap();
    file.write_all_at(&head, 0).unwrap();
    for (at, bytes) in &frames {
        file.write_all_at(bytes, *at).unwrap();
    }
    // The whole-file checksum over the bytes as read back, holes as zeros.
    let mut hasher = Xxh3::new();
    hasher.update(&head);
    let mut frame = frames.iter();
    for &(_, len, is_frame) in &layout {
        match is_frame {
            true => hasher.update(&frame.next().unwrap().1),
            false => hasher.update(&zeros[..len as usize]),
        }
    }
    file.seek(SeekFrom::Start(offset)).unwrap();
    file.write_all(&hasher.digest().to_le_bytes()).unwrap();
    total
}

#[test]
fn a_sparse_four_gib_table_is_probed_in_a_few_mib() {
    let board = Dots::new(2, 6).unwrap();
    assert_eq!(board.slots(), ENTRIES);
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join(GameId::Dots { rows: 2, cols: 6 }.table_file_name());
    // The empty board (slot 0): 6 of its 12 boxes to the player to move, a
    // tie; two more planted far apart, at the end of the table among them.
    let planted = [(0u64, 7u8), (ENTRIES / 2 + 12_345, 9), (ENTRIES - 1, 1)];
    let len = write_sparse(&mut File::create(&path).unwrap(), &planted);
    assert!(len > 4 << 30, "{len}");
    let on_disk = std::fs::metadata(&path).unwrap();
    assert!(
        std::os::unix::fs::MetadataExt::blocks(&on_disk) * 512 < 16 << 20,
        "the file is sparse"
    );

    let before = resident_kb("VmRSS:");
    // An 8 MiB cache: the thousand blocks below would fill the default
    // 64 MiB.
    let cache = Arc::new(BlockCache::new(8 << 20));
    let table = Table::with_cache(TableFile::open(&path).unwrap(), Arc::clone(&cache)).unwrap();
    for &(slot, entry) in &planted {
        assert_eq!(table.entry(slot).unwrap(), entry);
    }
    // A thousand blocks spread over the table: holes read as empty slots.
    for i in 0..1000u64 {
        let slot = i * (ENTRIES / 1000) + 77;
        if !planted.iter().any(|&(s, _)| s == slot) {
            assert_eq!(table.entry(slot).unwrap(), 0, "slot {slot}");
        }
    }
    // The whole-file checksum: 4 GiB read 256 KiB at a time.
    table.check_file().unwrap();
    assert_eq!(table.header().stored, 3);
    assert!(cache.stats().used <= 8 << 20);
    drop(table);

    // The oracle answers the planted position from it, and refuses one
    // whose entry is a hole with a typed error.
    let oracle = Oracle::open(dir.path())
        .unwrap()
        .with_cache_capacity(8 << 20);
    let game = GameId::Dots { rows: 2, cols: 6 };
    let empty = board.notation(board.start());
    let report = oracle.answer(game, &empty, Want::Value).unwrap();
    assert_eq!(report.to_json()["value"], 0, "{}", report.to_json());
    let hole = board.notation(Edges(0b1010_0000_0000_0000_0000_0001_0000_0000));
    assert!(oracle.probe(game, &hole).is_err());
    for i in 0..500u64 {
        let mask = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) & (ENTRIES - 1);
        let _ = oracle.probe(game, &board.notation(Edges(mask)));
    }
    assert!(oracle.cache().stats().used <= 8 << 20);
    let grown_mib = resident_kb("VmRSS:").saturating_sub(before) / 1024;
    let peak_mib = resident_kb("VmHWM:") / 1024;
    assert!(
        grown_mib < 48 && peak_mib < 128,
        "a 4 GiB table probed in {grown_mib} MiB more (peak {peak_mib} MiB)"
    );
    eprintln!(
        "4 GiB table ({} bytes on disk): resident +{grown_mib} MiB, peak {peak_mib} MiB",
        std::os::unix::fs::MetadataExt::blocks(&on_disk) * 512
    );
}
