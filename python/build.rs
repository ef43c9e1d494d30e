//! Embeds the default tables in the extension module: every table file
//! `tables/MANIFEST` lists (what `solvedb build all` writes and the
//! repository commits), as `include_bytes!` of the files themselves, so a
//! rebuilt table is picked up by the next build.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let tables = Path::new(&manifest_dir).join("../tables");
    let manifest = tables.join("MANIFEST");
    println!("cargo:rerun-if-changed={}", manifest.display());
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", manifest.display()));
    let mut code = String::from(
        "/// Every table tables/MANIFEST lists, compiled in.\npub static TABLES: &[&[u8]] = &[\n",
    );
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let name = line
            .split_whitespace()
            .next()
            .expect("a non-empty line has a word");
        let path = tables.join(name);
        let path = path.canonicalize().unwrap_or_else(|e| {
            panic!(
                "MANIFEST lists {}, which cannot be read: {e}",
                path.display()
            )
        });
        writeln!(
            code,
            "    include_bytes!({:?}),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("tables.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
