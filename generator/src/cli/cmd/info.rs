//! `solvedb info FILE`: a table file's header, for people.

use std::path::PathBuf;

use anyhow::{Context, Result};
use solvedb_lookup::format::FORMAT_VERSION;
use solvedb_lookup::open_table;

use crate::cli::Io;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table file.
    file: PathBuf,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let (file, out) = (&args.file, &mut *io.out);
    // The head only: the header, the block index and the stored checksum.
    let table = open_table(file).with_context(|| format!("opening {}", file.display()))?;
    let h = table.header();
    writeln!(out, "file            {}", file.display())?;
    writeln!(out, "format version  {FORMAT_VERSION}")?;
    writeln!(out, "game            {}", h.game)?;
    writeln!(out, "index           {}", h.index)?;
    writeln!(out, "values          {}", h.values)?;
    if h.index.is_dense() {
        writeln!(out, "slots           {} (one entry byte each)", h.entries)?;
    } else {
        writeln!(
            out,
            "entry bytes     {} (sorted records with the fence)",
            h.entries
        )?;
    }
    writeln!(out, "stored          {} positions", h.stored)?;
    writeln!(
        out,
        "block entries   {} entry bytes per block",
        h.block_entries
    )?;
    writeln!(out, "blocks          {}", h.blocks())?;
    writeln!(out, "bytes           {}", table.byte_len())?;
    writeln!(out, "checksum        {:016x}", table.file_checksum())?;
    writeln!(out, "generator       {}", h.generator)?;
    Ok(())
}
