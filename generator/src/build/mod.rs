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
use solvedb_lookup::{Dots, Game, GameId, Table, Tabled};

pub use layers::{LayerCount, Solution};
pub use manifest::{MANIFEST, ManifestEntry, read_manifest};

use crate::build::layers::solve;

/// The program and version written into every table header.
pub const GENERATOR: &str = concat!("solvedb ", env!("CARGO_PKG_VERSION"));

/// The zstd level a table of `entries` entry bytes is compressed at unless
/// the command says otherwise: tables are built once and read often, but
/// the level's cost grows with the table while its gain shrinks once
/// don't-care entries have made the data sparse. Measured on the dots
/// tables with don't-care entries (a shared 2-core machine, so times are
/// rough): 3×3 (2^24 entries) is 1.31 bits per canonical position at level
/// 3, 1.16 at 9, 0.98 at 19, compressing in 0.02 s, 0.1 s and 2.7 s; 3×4
/// (2^31) is 0.586 bits at level 3, 0.567 at 6 and 0.524 at 9, at roughly
/// 3, 7 and 14 CPU seconds per 2^31 bytes. Tables up to 1 MiB (the cube,
/// tic-tac-toe, dots up to 2^20 slots) keep level 19, which costs them
/// little; at 2^22 slots level 19 took 0.25-1.4 s a table (1×7, 2×4, 4×2,
/// 7×1), most of `build all`.
pub fn default_level(entries: u64) -> i32 {
    match entries {
        0..=0x10_0000 => 19,
        0x10_0001..=0x1000_0000 => 9,
        _ => 3,
    }
}

/// `solvedb build all` covers dots boards up to this many edges (3x3, 2^24
/// positions, and everything smaller, rectangles both ways).
pub const ALL_DOTS_MAX_EDGES: u32 = 24;

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
}

/// The games `solvedb build all` builds, in order: tic-tac-toe 3×3 and 4×4,
/// the cube, and every dots board with at most [`ALL_DOTS_MAX_EDGES`] edges.
pub fn default_set() -> Vec<GameId> {
    let mut games = vec![GameId::TicTacToe, GameId::Cube]; // MERGE-4X4
    games.extend(dots_boards(ALL_DOTS_MAX_EDGES).iter().map(|b| b.id()));
    games
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
    let header = Header {
        game: game.id(),
        index: G::INDEX,
        values: G::VALUES,
        entries: solution.entries.len() as u64,
        stored: solution.stored,
        block_entries: G::BLOCK_ENTRIES,
        generator: GENERATOR.to_owned(),
    };
    encode_table(&header, &solution.entries, level)
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
/// If the directory or the files cannot be written.
pub fn build_into<G: Buildable>(game: &G, dir: &Path, level: Option<i32>) -> Result<Built> {
    let started = Instant::now();
    let solution = game.solve_table();
    let solve_time = started.elapsed();
    let level = level.unwrap_or_else(|| default_level(solution.entries.len() as u64));
    let bytes = encode_solution(game, &solution, level);
    let build_time = started.elapsed();

    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = game.id().table_file_name();
    let path = dir.join(&name);
    remove_stale_temporaries(&path)
        .with_context(|| format!("removing interrupted builds' files in {}", dir.display()))?;
    write_atomically(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
    let table = Table::new(bytes.as_slice()).context("reading back the table just built")?;
    manifest::record(
        dir,
        &name,
        ManifestEntry {
            bytes: bytes.len() as u64,
            checksum: table.file_checksum(),
            version: FORMAT_VERSION,
        },
    )?;
    Ok(Built {
        solution,
        path,
        bytes: bytes.len() as u64,
        blocks: table.header().blocks(),
        solve_time,
        build_time,
        level,
    })
}

/// Every dots-and-boxes board with at most `max_edges` edges, rectangles
/// both ways, smallest first.
pub fn dots_boards(max_edges: u32) -> Vec<Dots> {
    let mut boards: Vec<Dots> = (1..=max_edges.min(255) as u8)
        .flat_map(|rows| (1..=max_edges.min(255) as u8).map(move |cols| (rows, cols)))
        .filter_map(|(rows, cols)| Dots::new(rows, cols).ok())
        .filter(|board| board.edges() <= max_edges)
        .collect();
    boards.sort_by_key(|b| (b.edges(), b.rows()));
    boards
}
