//! Each game's generator side behind one seam, [`GeneratorGame`]: how its
//! table is solved and laid out ([`Buildable`], what the build pipeline
//! needs), how a table is checked against its rules, and how it is
//! benchmarked. A game whose positions fit in memory needs nothing but
//! the defaults; the cube, dots-and-boxes and Qubic have modules of their
//! own. The dispatch from a [`GameId`](solvedb_lookup::GameId) to its game
//! is `solvedb_lookup::with_game!`; the list of games is the catalogue
//! ([`solvedb_lookup::catalogue`]).

pub mod cube;
pub mod dots;
pub mod qubic;

use std::io::Write;
use std::ops::RangeInclusive;

use anyhow::{Result, bail};
use solvedb_lookup::{Oracle, Table, TicTacToe, TicTacToe4x4, ValueEncoding};

use crate::bench::{self, BenchOptions};
use crate::build::Buildable;
use crate::export::{self, Destination, ExportOptions, ExportSummary, Format};
use crate::text::count;
use crate::verify::check_consistency;

/// A game the `solvedb` command can build, verify and benchmark: the one
/// seam of a game's generator code (its build side is [`Buildable`]).
pub trait GeneratorGame: Buildable {
    /// Whether `verify --exhaustive` can check every reachable position of
    /// this game, stored or not (the cube); asked before any work starts.
    const EXHAUSTIVE: bool = false;

    /// Checks a table whose checksums are good against the rules, and says
    /// what it checked. `exhaustive` asks for every reachable position with
    /// that many stones, stored or not, where the game can (the cube); the
    /// default refuses it, since it checks every stored position anyway.
    ///
    /// # Errors
    ///
    /// The first inconsistency, or a refused option.
    fn verify_table(
        &self,
        table: &Table<Vec<u8>>,
        exhaustive: Option<RangeInclusive<u32>>,
        out: &mut dyn Write,
    ) -> Result<()> {
        if exhaustive.is_some() {
            bail!(
                "--exhaustive is for cube tables; {} tables are always checked in full",
                self.id()
            );
        }
        let consistency = check_consistency(self, table)?;
        writeln!(
            out,
            "consistency ok: each of {} equals the best over its children",
            if Self::VALUES == ValueEncoding::MarginResolved {
                count(
                    consistency.checked,
                    "position (stored, or don't-care and resolved by rule)",
                    "positions (stored, or don't-care and resolved by rule)",
                )
            } else {
                count(consistency.checked, "stored position", "stored positions")
            }
        )?;
        Ok(())
    }

    /// [`verify_table`](GeneratorGame::verify_table) of the table read
    /// from `file`, for games whose tables are checked with the files
    /// beside them (Qubic's strategy and opening tables). The default
    /// checks the table alone.
    ///
    /// # Errors
    ///
    /// As [`verify_table`](GeneratorGame::verify_table).
    fn verify_file(
        &self,
        file: &std::path::Path,
        table: &Table<Vec<u8>>,
        exhaustive: Option<RangeInclusive<u32>>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let _ = file;
        self.verify_table(table, exhaustive, out)
    }

    /// `solvedb bench GAME`: the default measures table probes against live
    /// search on the same positions, and the build ([`bench::run`]).
    ///
    /// # Errors
    ///
    /// If the table and the search disagree, or output fails.
    fn bench(&self, options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
        bench::run(self, options, out)
    }

    /// `solvedb export GAME`: the default writes every position of the
    /// game's table with its values, as Parquet or CSV
    /// ([`export::export_table`]); a game with an export of its own (a
    /// strategy as text) overrides it, and may refuse formats it does not
    /// write.
    ///
    /// # Errors
    ///
    /// No table in `oracle`, a damaged one, or a failed write.
    fn export(
        &self,
        oracle: &Oracle,
        options: &ExportOptions,
        out: Destination<'_>,
    ) -> Result<ExportSummary> {
        export::export_table(oracle, self.id(), options, out)
    }

    /// The formats [`export`](GeneratorGame::export) writes, the default
    /// first.
    fn export_formats(&self) -> &'static [Format] {
        &[Format::Parquet, Format::Csv]
    }
}

impl Buildable for TicTacToe {}
impl GeneratorGame for TicTacToe {}

impl Buildable for TicTacToe4x4 {}
impl GeneratorGame for TicTacToe4x4 {}
