//! No module imports a module that imports it back, in any crate of the
//! workspace or the Python package (the check of `module_graph`, run by
//! `cargo test` and so by `scripts/test.sh`).

use std::path::PathBuf;

use solvedb_tests::module_graph::{cycles, documented_layers, layer_violations, sibling_edges};

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    // The check sees the dependencies it should: the games use the table
    // format, the command line the build pipeline, rooms the referee.
    let edge = |parent: &[&str], from: &str, to: &str| {
        let parent: Vec<String> = parent.iter().map(|s| s.to_string()).collect();
        (parent, from.to_owned(), to.to_owned())
    };
    let lookup = sibling_edges(&root.join("lookup/src"));
    assert!(lookup.contains(&edge(&[], "games", "format")), "{lookup:?}");
    let generator = sibling_edges(&root.join("generator/src"));
    assert!(
        generator.contains(&edge(&[], "cli", "build")),
        "{generator:?}"
    );
    let server = sibling_edges(&root.join("server/src"));
    assert!(
        server.contains(&edge(&["http"], "rooms", "referee")),
        "{server:?}"
    );
    let mut found = Vec::new();
    for krate in ["lookup", "generator", "server", "capi", "python", "tests"] {
        found.extend(cycles(&root.join(krate).join("src")));
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

/// ARCHITECTURE.md lists the library's modules in layers, each using only
/// the ones above it (or beside it in its row): the code keeps that order,
/// and every module is listed.
#[test]
fn the_library_keeps_the_layers_architecture_md_lists() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let layers = documented_layers(&map, "### `lookup/src`");
    // The parse sees the table: its first layer holds the values.
    assert!(layers.len() > 5, "{layers:?}");
    let problems = layer_violations(&root.join("lookup/src"), &layers);
    assert!(
        problems.is_empty(),
        "lookup/src against ARCHITECTURE.md's layers:\n{}",
        problems.join("\n")
    );
}
