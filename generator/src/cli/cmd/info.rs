//! `solvedb info FILE`: a table file's header, for people.

use std::path::PathBuf;

use anyhow::Result;
use solvedb_lookup::format::FORMAT_VERSION;

use super::verify::open;
use crate::cli::Io;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table file.
    file: PathBuf,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<()> {
    let (file, out) = (&args.file, &mut *io.out);
    let table = open(file)?;
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
    writeln!(out, "bytes           {}", table.bytes().len())?;
    writeln!(out, "checksum        {:016x}", table.file_checksum())?;
    writeln!(out, "generator       {}", h.generator)?;
    Ok(())
}
