//! `solvedb export GAME`: every position of a table with its value and
//! every move's, as Parquet or CSV ([`crate::export`]), through the game's
//! [`GeneratorGame::export`]; with `--card`, the dataset card's figures.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use solvedb_lookup::{BoardKind, GameId, Oracle, TablePlan, catalogue, with_game};

use crate::cli::Io;
use crate::cli::args::TablesArg;
use crate::export::{CARD_HEADERS, Destination, ExportOptions, Format, card_row};
use crate::games::GeneratorGame;
use crate::text::seconds;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game, whose table must be in the tables directory; `all` with
    /// `--card`: every game whose table ships.
    game: String,
    #[command(flatten)]
    tables: TablesArg,
    /// The file to write (`-`: standard output, CSV only). Default: the
    /// table's name with `.parquet` or `.csv`, in the current directory.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// `parquet` or `csv` (a table's positions), `text` (Qubic's
    /// strategy); default: by the extension of `--out`, else the game's
    /// first (Parquet; text for Qubic).
    #[arg(long, value_parser = ["parquet", "csv", "text"])]
    format: Option<String>,
    /// Every symmetric image of each position, not only the canonical one.
    #[arg(long)]
    all_symmetries: bool,
    /// Keep this many rows, uniformly at random.
    #[arg(long)]
    sample: Option<u64>,
    /// The seed of `--sample` (the same seed, the same rows).
    #[arg(long, default_value_t = 0, requires = "sample")]
    seed: u64,
    /// Rows per Parquet row group.
    #[arg(long, default_value_t = 1 << 18, value_parser = clap::value_parser!(u64).range(1..))]
    row_group: u64,
    /// Decoded table blocks to keep, in MiB. A move's value is read from
    /// anywhere in the table, so an export decodes a block again for every
    /// probe that misses: the default keeps a dots 3×4 table whole (2 GiB
    /// decoded; smaller tables take only what they are).
    #[arg(long, default_value_t = 2560)]
    cache_mib: usize,
    /// Print the dataset card's figures (counts and class balance, the
    /// computed tables of docs/datasets.md) instead of exporting.
    #[arg(long)]
    card: bool,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let tables = &args.tables.tables;
    let oracle = Oracle::open(tables)
        .with_context(|| format!("opening tables directory {}", tables.display()))?
        .with_cache_capacity(args.cache_mib.saturating_mul(1 << 20));
    if args.card {
        return print_card(&oracle, &args.game, io);
    }
    let game: GameId = args.game.parse()?;
    let formats = with_game!(game, g => Ok::<_, anyhow::Error>(g.export_formats()))?;
    let named = |name: &str| Format::named(name).filter(|f| formats.contains(f));
    let refuse = |name: &str| {
        let names: Vec<_> = formats
            .iter()
            .map(|f| format!("{f:?}").to_lowercase())
            .collect();
        anyhow::anyhow!("{game} exports as {}, not {name}", names.join(" or "))
    };
    let format = match (args.format.as_deref(), &args.out) {
        (Some(name), _) => named(name).ok_or_else(|| refuse(name))?,
        (None, Some(out)) if out.as_os_str() == "-" => {
            named("csv").or_else(|| named("text")).unwrap_or(formats[0])
        }
        (None, Some(out)) => match out.extension().and_then(|e| e.to_str()) {
            // A format's extension names that format: a file called
            // `.parquet` never holds text.
            Some(name) if Format::named(name).is_some() => {
                named(name).ok_or_else(|| refuse(name))?
            }
            _ => formats[0],
        },
        (None, None) => formats[0],
    };
    let options = ExportOptions {
        format,
        all_symmetries: args.all_symmetries,
        sample: args.sample,
        seed: args.seed,
        row_group: usize::try_from(args.row_group).unwrap_or(usize::MAX),
        ..ExportOptions::default()
    };
    let started = Instant::now();
    let out = args.out.unwrap_or_else(|| {
        let stem = game.table_file_name().trim_end_matches(".sdb").to_owned();
        PathBuf::from(format!("{stem}.{}", format.extension()))
    });
    if out.as_os_str() == "-" {
        let summary =
            with_game!(game, g => g.export(&oracle, &options, Destination::Stream(&mut *io.out)))
                .with_context(|| format!("exporting {game}"))?;
        writeln!(
            io.err,
            "exported {} rows of {game} in {}",
            summary.rows,
            seconds(started.elapsed())
        )?;
        return Ok(());
    }
    // Written aside and renamed, so a file of that name is always whole.
    let partial = partial_name(&out);
    let file = std::fs::File::create(&partial)
        .with_context(|| format!("creating {}", partial.display()))?;
    let summary = with_game!(game, g => g.export(&oracle, &options, Destination::File(file)))
        .with_context(|| format!("exporting {game} to {}", out.display()));
    let summary = match summary {
        Ok(summary) => summary,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, &out)
        .with_context(|| format!("renaming {} to {}", partial.display(), out.display()))?;
    let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    writeln!(
        io.out,
        "exported {} rows of {game} to {} ({bytes} bytes) in {}",
        summary.rows,
        out.display(),
        seconds(started.elapsed())
    )?;
    Ok(())
}

/// `FILE.partial` beside `FILE`.
fn partial_name(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// The card's figures: one game's row, or with `all` both tables for every
/// game whose table ships, as docs/datasets.md holds them.
fn print_card(oracle: &Oracle, game: &str, io: &mut Io<'_>) -> Result<()> {
    if game != "all" {
        let game: GameId = game.parse()?;
        writeln!(io.out, "{}", card_row(oracle, game)?)?;
        return Ok(());
    }
    let shipped: Vec<_> = catalogue()
        .iter()
        .filter(|g| g.table == TablePlan::Default)
        .collect();
    if shipped.iter().any(|g| !oracle.has_table(g.id)) {
        bail!("--card all needs every default table in the tables directory (`solvedb build all`)");
    }
    for (header, dots) in CARD_HEADERS.iter().zip([false, true]) {
        writeln!(io.out, "{header}")?;
        for g in shipped
            .iter()
            .filter(|g| (g.board.kind() == BoardKind::Dots) == dots)
        {
            writeln!(io.out, "{}", card_row(oracle, g.id)?)?;
        }
        if !dots {
            writeln!(io.out)?;
        }
    }
    Ok(())
}
