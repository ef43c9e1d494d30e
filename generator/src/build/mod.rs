//! The build pipeline, in one place: solve a game ([`Buildable::solve_table`]),
//! encode its table ([`encode_solution`]), write it atomically and record it
//! in the directory's MANIFEST ([`build_into`]). The command line, the
//! benchmarks, the fuzzer and the tests all build through here.

pub mod layers;
pub mod manifest;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use solvedb_lookup::format::{
    FORMAT_VERSION, Header, encode_table, remove_stale_temporaries, write_atomically,
};
use solvedb_lookup::{GameId, Table, TablePlan, Tabled, catalogue};

pub use layers::{LayerCount, Solution};
pub use manifest::{MANIFEST, ManifestEntry, read_manifest};

use crate::build::layers::solve;

/// The program and version written into every table header.
pub const GENERATOR: &str = concat!("solvedb ", env!("CARGO_PKG_VERSION"));

/// The zstd level a table of `entries` entry bytes is compressed at unless
/// the command says otherwise: tables are built once and read often, but
/// the level's cost grows with the table while its gain shrinks once
/// don't-care entries have made the data sparse. Tables up to 1 MiB (the
/// cube, tic-tac-toe, dots up to 2^20 slots) keep level 19, which costs
/// them little; bigger ones gain a few hundredths of a bit per position
/// from it at many times the time (the figures per board and level are in
/// `docs/table-coding.md`).
pub fn default_level(entries: u64) -> i32 {
    match entries {
        0..=0x10_0000 => 19,
        0x10_0001..=0x1000_0000 => 9,
        _ => 3,
    }
}

/// What the build pipeline needs of a game: its table's block size, how
/// its build report reads, and how it is solved.
pub trait Buildable: Tabled + Copy {
    /// Entry bytes per table block: small enough that a probe decodes
    /// little, large enough for zstd to find the repetition.
    const BLOCK_ENTRIES: u32 = 4096;

    /// What the counts of [`Solution::layers`] count, for the build report.
    const LAYERS: &'static str = "every reachable position, by ply";

    /// Column heads of the build report: the layer, its positions, and its
    /// positions up to symmetry.
    const COLUMNS: [&'static str; 3] = ["ply", "reachable", "canonical"];

    /// Solves the game for its table. The default enumerates the reachable
    /// positions layer by layer in memory ([`solve`]); games whose tables are
    /// too big for that override it.
    fn solve_table(&self) -> Solution {
        solve(self, Self::BLOCK_ENTRIES)
    }

    /// [`solve_table`](Buildable::solve_table) for games whose solve can
    /// fail (Qubic's proof); what the pipeline calls, with the directory
    /// the table goes to, where a long solve may keep its work while it
    /// runs. The default cannot fail and keeps nothing.
    ///
    /// # Errors
    ///
    /// The solve's failure.
    fn try_solve_table(&self, _out: &Path) -> Result<Solution> {
        Ok(self.solve_table())
    }

    /// The memory the solve needs at least, in bytes, checked before a
    /// build starts ([`check_memory`]). The default: a byte per slot for
    /// dense tables (both the layer-by-layer solve and the dots retrograde
    /// pass keep one), nothing to speak of for sparse ones, whose solvers
    /// keep only the positions they store.
    /// Builds and installs in `dir` the table beside the game's own
    /// (`Tabled::COMPANION`) from the
    /// bytes of the game's table just written; returns the build report's
    /// lines. The default: the game has none.
    ///
    /// # Errors
    ///
    /// The companion's build, or writing its file.
    fn build_companion(&self, dir: &Path, table: &[u8]) -> Result<Vec<String>> {
        let _ = (dir, table);
        Ok(Vec::new())
    }

    fn build_memory(&self) -> u64 {
        if Self::INDEX.is_dense() {
            self.slots()
        } else {
            0
        }
    }
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`),
/// `None` where it cannot be read.
pub fn physical_memory() -> Option<u64> {
    let meminfo = fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Bytes in the binary units people read: `512 B`, `4.0 GiB`, `1.0 TiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Refuses, before anything is allocated, a build whose solve needs more
/// memory ([`Buildable::build_memory`]) than `available` bytes (the
/// machine's, [`physical_memory`]) or than the address space holds.
///
/// # Errors
///
/// [`Error::Unsupported`](solvedb_lookup::Error::Unsupported), naming the
/// memory needed and what to do instead.
pub fn check_memory<G: Buildable>(
    game: &G,
    available: Option<u64>,
) -> Result<(), solvedb_lookup::Error> {
    let needed = game.build_memory();
    let limit = available.unwrap_or(u64::MAX).min(usize::MAX as u64);
    if needed <= limit {
        return Ok(());
    }
    let has = match available {
        Some(bytes) => format!("this machine has {}", human_bytes(bytes)),
        None => "this machine's memory is unknown".to_owned(),
    };
    Err(solvedb_lookup::Error::Unsupported {
        game: game.id(),
        reason: format!(
            "building its table needs at least {} of memory ({needed} bytes, one per slot) \
             and {has}. A dots board can be built across machines that hold the table \
             between them (`mpirun -n K solvedb build {} --mpi`, README: the distributed \
             build). Its positions are still answered exactly by live search: \
             `solvedb probe {} POSITION` (bound it with --nodes or --seconds)",
            human_bytes(needed),
            game.id(),
            game.id()
        ),
    })
}

/// Refuses a game that has no table format ([`TablePlan::Unavailable`]
/// in the catalogue): there is nothing to build, and every position of it
/// is answered by live search.
///
/// # Errors
///
/// [`Error::Unsupported`](solvedb_lookup::Error::Unsupported), saying so.
pub fn check_table_format(game: GameId) -> Result<(), solvedb_lookup::Error> {
    if game.info().table != TablePlan::Unavailable {
        return Ok(());
    }
    Err(solvedb_lookup::Error::Unsupported {
        game,
        reason: format!(
            "{game} has no table format yet; every position is answered by live search: \
             `solvedb probe {game} POSITION` (bound it with --nodes or --seconds)"
        ),
    })
}

/// The games `solvedb build all` builds, in the catalogue's order: those
/// whose table ships ([`TablePlan::Default`]).
pub fn default_set() -> Vec<GameId> {
    catalogue()
        .iter()
        .filter(|game| game.table == TablePlan::Default)
        .map(|game| game.id)
        .collect()
}

/// The bytes of a game's table, built from scratch, with the solution's
/// counts.
pub fn build_table<G: Buildable>(game: &G, level: i32) -> (Solution, Vec<u8>) {
    let solution = game.solve_table();
    let bytes = encode_solution(game, &solution, level);
    (solution, bytes)
}

/// The table bytes of a solution: header, then blocks compressed at zstd
/// `level`.
pub fn encode_solution<G: Buildable>(game: &G, solution: &Solution, level: i32) -> Vec<u8> {
    let header = table_header(game, solution.entries.len() as u64, solution.stored);
    encode_table(&header, &solution.entries, level)
}

/// The header of `game`'s table with `entries` entries, `stored` of which
/// hold a position: what [`encode_solution`] writes, and what a build that
/// encodes its blocks elsewhere (the distributed dots build) assembles with.
pub fn table_header<G: Buildable>(game: &G, entries: u64, stored: u64) -> Header {
    Header {
        game: game.id(),
        index: G::INDEX,
        values: G::VALUES,
        entries,
        stored,
        block_entries: G::BLOCK_ENTRIES,
        generator: GENERATOR.to_owned(),
    }
}

/// A table built and written by [`build_into`].
#[derive(Debug)]
pub struct Built {
    /// The solution's counts and entries.
    pub solution: Solution,
    /// Where the table was written.
    pub path: PathBuf,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Blocks in the file.
    pub blocks: u64,
    /// Time to solve.
    pub solve_time: Duration,
    /// Time to solve and encode (compress).
    pub build_time: Duration,
    /// The zstd level the blocks were compressed at.
    pub level: i32,
}

/// Solves `game`, writes its table into `dir` (created if missing) under
/// its file name, atomically, and records it in `dir`'s MANIFEST. The
/// blocks are compressed at zstd `level`, by default [`default_level`].
///
/// # Errors
///
/// [`check_table_format`]'s refusal of a game without a table format,
/// [`check_memory`]'s refusal of a board too big for this machine, or if
/// the directory or the files cannot be written.
pub fn build_into<G: Buildable>(game: &G, dir: &Path, level: Option<i32>) -> Result<Built> {
    check_table_format(game.id())?;
    check_memory(game, physical_memory())?;
    let started = Instant::now();
    let mut solution = game.try_solve_table(dir)?;
    let solve_time = started.elapsed();
    let level = level.unwrap_or_else(|| default_level(solution.entries.len() as u64));
    let bytes = encode_solution(game, &solution, level);

    let (path, blocks) = install_table(game.id(), dir, &bytes)?;
    solution.notes.extend(game.build_companion(dir, &bytes)?);
    let build_time = started.elapsed();
    Ok(Built {
        solution,
        path,
        bytes: bytes.len() as u64,
        blocks,
        solve_time,
        build_time,
        level,
    })
}

/// Writes the bytes of `game`'s table into `dir` (created if missing) under
/// its file name, atomically, removing what interrupted builds left there,
/// and records it in `dir`'s MANIFEST. Returns the path and the number of
/// blocks.
///
/// # Errors
///
/// If the directory or the files cannot be written, or the bytes are not a
/// table.
pub fn install_table(game: GameId, dir: &Path, bytes: &[u8]) -> Result<(PathBuf, u64)> {
    install_file(&game.table_file_name(), dir, bytes)
}

/// [`install_table`] under the file name `name` (a game's companion
/// table, `Tabled::COMPANION`).
///
/// # Errors
///
/// As [`install_table`].
pub fn install_file(name: &str, dir: &Path, bytes: &[u8]) -> Result<(PathBuf, u64)> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = name.to_owned();
    let path = dir.join(&name);
    remove_stale_temporaries(&path)
        .with_context(|| format!("removing interrupted builds' files in {}", dir.display()))?;
    write_atomically(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    let table = Table::new(bytes).context("reading back the table just built")?;
    manifest::record(
        dir,
        &name,
        ManifestEntry {
            bytes: bytes.len() as u64,
            checksum: table.file_checksum(),
            version: FORMAT_VERSION,
        },
    )?;
    Ok((path, table.header().blocks()))
}
