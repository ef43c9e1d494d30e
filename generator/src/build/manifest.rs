//! `tables/MANIFEST`: one line per table with its name, size, whole-file
//! checksum and format version, sorted by name so that it is deterministic.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use anyhow::{Context, Result, bail};
use solvedb_lookup::format::{remove_stale_temporaries, write_atomically};

/// The manifest's file name inside a tables directory.
pub const MANIFEST: &str = "MANIFEST";

const PREAMBLE: &str = "# solvedb tables: file name, bytes, XXH3-64 of all bytes but the last 8 (hex), format version\n";

/// One table's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// Size of the file in bytes.
    pub bytes: u64,
    /// The file's stored whole-file checksum.
    pub checksum: u64,
    /// The table format version.
    pub version: u32,
}

/// Reads a manifest; a missing file is an empty manifest.
///
/// # Errors
///
/// If the file cannot be read or a line is malformed.
pub fn read_manifest(dir: &Path) -> Result<BTreeMap<String, ManifestEntry>> {
    let path = dir.join(MANIFEST);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut entries = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parsed = match fields.as_slice() {
            [name, bytes, checksum, version] => (|| {
                Some((
                    name.to_string(),
                    ManifestEntry {
                        bytes: bytes.parse().ok()?,
                        checksum: u64::from_str_radix(checksum, 16).ok()?,
                        version: version.parse().ok()?,
                    },
                ))
            })(),
            _ => None,
        };
        let Some((name, entry)) = parsed else {
            bail!("{}:{}: malformed line {line:?}", path.display(), number + 1);
        };
        entries.insert(name, entry);
    }
    Ok(entries)
}

/// Records one table in the manifest of `dir`, keeping the other lines.
///
/// # Errors
///
/// If the manifest cannot be read or written.
pub fn record(dir: &Path, name: &str, entry: ManifestEntry) -> Result<()> {
    let mut entries = read_manifest(dir)?;
    entries.insert(name.to_owned(), entry);
    let mut text = String::from(PREAMBLE);
    for (name, e) in &entries {
        text.push_str(&format!(
            "{name} {} {:016x} {}\n",
            e.bytes, e.checksum, e.version
        ));
    }
    let path = dir.join(MANIFEST);
    remove_stale_temporaries(&path)
        .with_context(|| format!("removing interrupted writes of {}", path.display()))?;
    write_atomically(&path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}
