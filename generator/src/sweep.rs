//! The corruption sweep: mutate a good table in every way a disk, a download
//! or a user can (flipped bits, truncation, appended bytes, another game's
//! file) and check that each mutation is refused with a typed error, by
//! `open`, by `verify`, or at the latest by the probe that reads the damaged
//! block, and that none panics.

use std::fmt::Write as _;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use anyhow::Context;
use rayon::prelude::*;
use solvedb_lookup::format::reseal;
use solvedb_lookup::{GameId, Header, Table, TableError, Tabled, read_table, with_game};

/// How thoroughly to sweep a big table; small tables get every bit.
#[derive(Copy, Clone, Debug)]
pub struct SweepLimits {
    /// Blocks whose bits are flipped (first, last and evenly spaced between).
    pub blocks: u64,
    /// Bits flipped per sampled block (evenly spaced); every bit if the block
    /// has fewer.
    pub bits_per_block: u64,
    /// Bytes of the head (header and block index) whose every bit is flipped
    /// and that are cut at; past it, the index is sampled like blocks.
    pub head_bytes: usize,
}

impl SweepLimits {
    /// Every bit of every part, for small tables and tests.
    pub const EXHAUSTIVE: SweepLimits = SweepLimits {
        blocks: u64::MAX,
        bits_per_block: u64::MAX,
        head_bytes: usize::MAX,
    };
}

/// How one kind of mutation fared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepRow {
    /// The kind of mutation.
    pub kind: &'static str,
    /// Mutations tried.
    pub tried: u64,
    /// Refused by `Table::new` (or the game check that follows it).
    pub at_open: u64,
    /// Opened, then refused by `Table::verify`.
    pub by_verify: u64,
    /// Opened, then refused by the probe that reads the damaged block.
    pub by_probe: u64,
    /// Not noticed at all: a bug.
    pub undetected: u64,
    /// Panicked instead of returning an error: a bug.
    pub panics: u64,
}

impl SweepRow {
    fn new(kind: &'static str) -> SweepRow {
        SweepRow {
            kind,
            ..SweepRow::default()
        }
    }

    /// Adds `other`'s counts to these.
    fn add(&mut self, other: &SweepRow) {
        self.tried += other.tried;
        self.at_open += other.at_open;
        self.by_verify += other.by_verify;
        self.by_probe += other.by_probe;
        self.undetected += other.undetected;
        self.panics += other.panics;
    }

    /// Counts one mutation by what `check` says of it; a panic is counted,
    /// not propagated.
    fn tally(&mut self, check: impl FnOnce() -> Verdict) {
        self.tried += 1;
        match catch_unwind(AssertUnwindSafe(check)) {
            Ok(Verdict::Open) => self.at_open += 1,
            Ok(Verdict::Verify) => self.by_verify += 1,
            Ok(Verdict::Probe) => self.by_probe += 1,
            Ok(Verdict::Undetected) => self.undetected += 1,
            Err(_) => self.panics += 1,
        }
    }
}

/// The outcome of a sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepReport {
    /// One row per kind of mutation.
    pub rows: Vec<SweepRow>,
}

impl SweepReport {
    /// Whether every mutation was refused without a panic.
    pub fn all_detected(&self) -> bool {
        self.rows.iter().all(|r| r.undetected == 0 && r.panics == 0)
    }

    /// The report as a table for people.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{:<28} {:>9} {:>9} {:>9} {:>9} {:>11} {:>7}\n",
            "mutation", "tried", "at open", "verify", "probe", "undetected", "panics"
        );
        let mut total = SweepRow::new("total");
        for r in &self.rows {
            total.add(r);
        }
        for r in self.rows.iter().chain([&total]) {
            let _ = writeln!(
                out,
                "{:<28} {:>9} {:>9} {:>9} {:>9} {:>11} {:>7}",
                r.kind, r.tried, r.at_open, r.by_verify, r.by_probe, r.undetected, r.panics
            );
        }
        out
    }
}

/// How far a mutated table got before something refused it.
enum Verdict {
    Open,
    Verify,
    Probe,
    Undetected,
}

/// Evenly spaced picks of at most `most` of `0..n`, always including the
/// first and the last.
fn spread(n: u64, most: u64) -> Vec<u64> {
    if n <= most {
        return (0..n).collect();
    }
    let most = most.max(2);
    (0..most).map(|i| i * (n - 1) / (most - 1)).collect()
}

/// Mutations judged per copy of the table's bytes when they are spread
/// over the cores: a copy per thread would do, but chunks this size keep
/// every core busy to the end and the copies cost little beside the opens.
const CHUNK: usize = 1024;

/// Flips each of `bits` in turn (with the slot a probe then reads, if
/// any), judges the table, and flips it back; each chunk of bits on its
/// own copy of `bytes`.
fn tally_bit_flips<G: Tabled>(
    kind: &'static str,
    game: &G,
    bytes: &[u8],
    full_verify: bool,
    bits: &[(u64, Option<u64>)],
) -> SweepRow {
    tally_in_chunks(kind, bits, |chunk, row| {
        let mut copy = bytes.to_vec();
        for &(bit, slot) in chunk {
            let (at, mask) = ((bit / 8) as usize, 1u8 << (bit % 8));
            copy[at] ^= mask;
            row.tally(|| judge(game, &copy, full_verify, slot.as_slice()));
            copy[at] ^= mask;
        }
    })
}

/// One row of `kind` counting `items`, spread over the cores in chunks of
/// [`CHUNK`]: `each` tallies a chunk into its own row, and the rows are
/// added up.
fn tally_in_chunks<T: Sync>(
    kind: &'static str,
    items: &[T],
    each: impl Fn(&[T], &mut SweepRow) + Sync,
) -> SweepRow {
    items
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut row = SweepRow::new(kind);
            each(chunk, &mut row);
            row
        })
        .reduce(
            || SweepRow::new(kind),
            |mut a, b| {
                a.add(&b);
                a
            },
        )
}

/// Whether `header` is a table of `game`'s oracle: its own table, or the
/// companion it opens beside it ([`Tabled::COMPANION`]: Qubic's opening
/// table), which the sweep treats alike.
fn check_header<G: Tabled>(game: &G, header: &Header) -> Result<(), TableError> {
    match G::COMPANION {
        Some((values, _)) if header.game == game.id() && header.values == values => Ok(()),
        _ => game.check_header(header),
    }
}

/// Opens mutated bytes as a table of `game`, probes the slots in
/// `probe_slots`, then verifies it (if `full_verify`).
fn judge<G: Tabled>(game: &G, bytes: &[u8], full_verify: bool, probe_slots: &[u64]) -> Verdict {
    let table = match Table::new(bytes) {
        Ok(t) => t,
        Err(_) => return Verdict::Open,
    };
    if check_header(game, table.header()).is_err() {
        return Verdict::Open;
    }
    // The probe first: it is the last line of defence for a damaged block
    // in a table that was opened without a full verify.
    if probe_slots.iter().any(|&s| table.entry(s).is_err()) {
        return Verdict::Probe;
    }
    if full_verify && table.verify().is_err() {
        return Verdict::Verify;
    }
    Verdict::Undetected
}

/// A copy of a good table that claims another game or board: the game in
/// its header changed (tic-tac-toe to cube and back, or one more row of
/// dots) and every checksum resealed, so only the game check can refuse it.
///
/// # Errors
///
/// If the bytes are not a table whose checksums can be located.
pub fn forge_other_game(bytes: &[u8]) -> Result<Vec<u8>, TableError> {
    // The header starts at byte 16 with the game's u32 variant index, then
    // the board for dots (see the format documentation).
    let mut forged = bytes.to_vec();
    let variant = forged.get(16..20).ok_or(TableError::Truncated {
        len: bytes.len() as u64,
        needed: 20,
    })?;
    match u32::from_le_bytes(variant.try_into().expect("4 bytes")) {
        2 => forged[20] = forged[20].wrapping_add(1),
        v => forged[16..20].copy_from_slice(&(1 - v.min(1)).to_le_bytes()),
    }
    reseal(&mut forged)?;
    Ok(forged)
}

/// Sweeps the table `bytes` of `game`; `foreign` holds tables of other games
/// (or other boards) that must be refused as tables of `game`.
///
/// # Errors
///
/// If `bytes` is not a good table of `game` to begin with.
pub fn sweep<G: Tabled>(
    game: &G,
    mut bytes: Vec<u8>,
    foreign: &[Vec<u8>],
    limits: SweepLimits,
) -> Result<SweepReport, TableError> {
    let (head_len, spans) = {
        let table = Table::new(bytes.as_slice())?;
        check_header(game, table.header())?;
        table.verify()?;
        let picks = spread(table.header().blocks(), limits.blocks);
        let spans: Vec<_> = picks.iter().map(|&b| table.block_span(b)).collect();
        (table.head_len(), spans)
    };
    // Small tables are verified in full after every mutation; for big ones
    // the whole-file pass per mutation would take hours, and the cheaper
    // checks must catch everything on their own.
    let full_verify = bytes.len() <= 1 << 20;
    let mut report = SweepReport::default();

    let head_bits: Vec<(u64, Option<u64>)> = if head_len <= limits.head_bytes {
        (0..head_len as u64 * 8).map(|bit| (bit, None)).collect()
    } else {
        // The fixed prefix and header in full, the block index sampled.
        let dense = limits.head_bytes as u64 * 8;
        let rest = spread(head_len as u64 * 8 - dense, limits.blocks * 8);
        (0..dense)
            .chain(rest.into_iter().map(|b| b + dense))
            .map(|bit| (bit, None))
            .collect()
    };
    report.rows.push(tally_bit_flips(
        "head bit flips",
        game,
        &bytes,
        full_verify,
        &head_bits,
    ));

    // A flipped bit in a block is looked for by the probe of the block's
    // first slot.
    let block_bits: Vec<(u64, Option<u64>)> = spans
        .iter()
        .flat_map(|(stored, slots)| {
            let first = stored.start as u64 * 8;
            spread((stored.len() * 8) as u64, limits.bits_per_block)
                .into_iter()
                .map(move |bit| (first + bit, Some(slots.start)))
        })
        .collect();
    report.rows.push(tally_bit_flips(
        "block bit flips",
        game,
        &bytes,
        full_verify,
        &block_bits,
    ));

    let mut cut_at: Vec<usize> = (0..head_len.min(limits.head_bytes)).collect();
    cut_at.extend(
        spans
            .iter()
            .flat_map(|(stored, _)| [stored.start, stored.end]),
    );
    cut_at.push(bytes.len() - 1);
    cut_at.sort_unstable();
    cut_at.dedup();
    cut_at.retain(|&l| l < bytes.len());
    report
        .rows
        .push(tally_in_chunks("truncations", &cut_at, |chunk, row| {
            for &len in chunk {
                row.tally(|| judge(game, &bytes[..len], full_verify, &[]));
            }
        }));

    let mut appended = SweepRow::new("appended bytes");
    for extra in [1usize, 7, 8, 4096] {
        let original = bytes.len();
        bytes.extend((0..extra).map(|i| i as u8));
        appended.tally(|| judge(game, &bytes, full_verify, &[]));
        bytes.truncate(original);
    }
    report.rows.push(appended);

    let mut others = SweepRow::new("other game's table");
    for other in foreign {
        others.tally(|| judge(game, other, full_verify, &[]));
    }
    report.rows.push(others);
    Ok(report)
}

/// Sweeps the table file `file` ([`sweep`]), with the real tables of other
/// games in its directory (and one forged from it) as the foreign tables
/// it must refuse. Returns the game the table is for and the report.
///
/// # Errors
///
/// If the file cannot be read or is not a good table to begin with.
pub fn sweep_file(file: &Path, limits: SweepLimits) -> anyhow::Result<(GameId, SweepReport)> {
    read_and_sweep(file, limits).with_context(|| format!("sweeping {}", file.display()))
}

fn read_and_sweep(file: &Path, limits: SweepLimits) -> anyhow::Result<(GameId, SweepReport)> {
    let table = read_table(file)?;
    let game = table.header().game;
    let bytes = table.bytes().to_vec();
    let mut foreign = vec![forge_other_game(&bytes)?];
    if let Some(dir) = file.parent().filter(|d| d.is_dir()) {
        let mut paths: Vec<PathBuf> = fs::read_dir(dir)?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "sdb"))
            .collect();
        paths.sort();
        for path in paths {
            if let Ok(other) = read_table(&path) {
                if other.header().game != game {
                    foreign.push(other.bytes().to_vec());
                }
            }
        }
    }
    let report = with_game!(game, g => anyhow::Ok(sweep(g, bytes, &foreign, limits)?))?;
    Ok((game, report))
}
