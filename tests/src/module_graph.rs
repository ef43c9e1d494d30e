//! The module graph of a crate, read from its sources, and the cycles in
//! it: the check that no module imports a module that imports it back.
//!
//! Modules come from the file tree (`a.rs`, `a/mod.rs`, `a/b.rs`; `lib.rs`
//! over `main.rs` as the root), and `mod name { ... }` blocks are not split
//! further. A module depends on another where its code names it by a path
//! (`crate::a::b`, `super::b`, `self::b`, in `use` trees and in
//! expressions), outside comments, string literals and inline
//! `#[cfg(test)]` items; tests in files of their own (`#[cfg(test)] mod
//! tests;`) are read as the modules they are. A dependency counts between
//! the two modules' branches below their deepest common ancestor: `a::x`
//! naming `b::y` makes `a` depend on `b`, while a module naming its own
//! parent or child is how Rust modules are built and counts for nothing. A
//! cycle is then a set of sibling modules that depend on each other in a
//! circle, at any depth.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A module's path from the crate root: `["games", "dots"]`.
pub type ModulePath = Vec<String>;

/// The modules of the crate whose sources are in `src` (its `lib.rs` or
/// `main.rs` is the root, `[]`), with their code.
///
/// # Panics
///
/// If the directory cannot be read.
pub fn modules(src: &Path) -> BTreeMap<ModulePath, String> {
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<ModulePath, String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(root, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap().with_extension("");
        let mut segments: ModulePath = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            segments.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            segments.pop();
        }
        // A crate with both keeps `lib.rs` (sorted first) as its root: the
        // binary's `main.rs` uses the library by its name, not by modules.
        out.entry(segments)
            .or_insert_with(|| fs::read_to_string(&path).unwrap());
    }
}

/// The code without comments, string and character literals, and
/// `#[cfg(test)]` items (a module or function of tests).
pub fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |end| end + 2);
        } else if let Some(raw) = rest.strip_prefix("r#\"") {
            i += 3 + raw.find("\"#").map_or(raw.len(), |end| end + 2);
            out.push_str("\"\"");
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i += (j + 1).min(rest.len());
            out.push_str("\"\"");
        } else if let Some(literal) = char_literal(rest) {
            i += literal;
            out.push_str("' '");
        } else {
            let ch = rest.chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    without_test_items(&out)
}

/// The length of a character literal at the start of `text` (`'a'`,
/// `'\n'`, `'\''`), `None` for a lifetime or anything else.
fn char_literal(text: &str) -> Option<usize> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let (_, first) = chars.next()?;
    if first == '\\' {
        let end = text[2..].find('\'')?;
        return Some(end + 3);
    }
    let (at, close) = chars.next()?;
    (close == '\'').then_some(at + 1)
}

/// Removes each `#[cfg(test)]` attribute and the item after it, up to its
/// closing brace or semicolon.
fn without_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let (mut depth, mut end) = (0usize, item.len());
        for (i, ch) in item.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Every path a module's code names from `crate`, `super` or `self`,
/// resolved to a path from the crate root (the named item included).
pub fn named_paths(module: &[String], code: &str) -> Vec<ModulePath> {
    let mut paths = Vec::new();
    for tree in use_trees(code) {
        expand(&tree, &mut Vec::new(), &mut paths);
    }
    let tokens: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|t| !t.is_empty())
        .collect();
    for token in tokens {
        let segments: Vec<String> = token.split("::").map(str::to_owned).collect();
        if segments.len() > 1 && matches!(segments[0].as_str(), "crate" | "super" | "self") {
            paths.push(segments);
        }
    }
    paths
        .into_iter()
        .filter_map(|path| resolve(module, &path))
        .collect()
}

/// The text of every `use` declaration's tree (after `use`, before `;`).
fn use_trees(code: &str) -> Vec<String> {
    let mut trees = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(end) = rest.find(';') {
            trees.push(rest[..end].split_whitespace().collect::<String>());
            rest = &rest[end..];
        }
    }
    trees
}

/// Expands a use tree (`crate::{a::b,c::{d,e}}`) into its paths.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let (head, group) = match tree.find('{') {
        Some(open) if tree.ends_with('}') => (&tree[..open], Some(&tree[open + 1..tree.len() - 1])),
        _ => (tree, None),
    };
    let pushed: Vec<String> = head
        .split("::")
        .filter(|s| !s.is_empty())
        .map(|s| s.split(" as ").next().unwrap_or(s).to_owned())
        .collect();
    let depth = prefix.len();
    prefix.extend(pushed);
    match group {
        None => out.push(prefix.clone()),
        Some(inner) => {
            for part in split_top_level(inner) {
                expand(part, prefix, out);
            }
        }
    }
    prefix.truncate(depth);
}

/// Splits a group's inside at its top-level commas.
fn split_top_level(group: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, ch) in group.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// A path as the crate root sees it, `None` if it does not start at
/// `crate`, `super` or `self`. `super` of a file module `a/b.rs` is `a`.
fn resolve(module: &[String], path: &[String]) -> Option<ModulePath> {
    let mut base: Vec<String> = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" | "super" => module.to_vec(),
        _ => return None,
    };
    let mut rest = path;
    if rest[0] == "crate" || rest[0] == "self" {
        rest = &rest[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "*").cloned());
    Some(base)
}

/// The deepest module of `modules` that `path` lies in.
fn module_of<'a>(modules: &'a BTreeSet<ModulePath>, path: &[String]) -> &'a ModulePath {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]))
        .expect("the crate root is a module")
}

/// The dependencies between sibling modules: `(parent, from, to)` where
/// `parent::from` (or a module inside it) names `parent::to` (or inside it).
pub fn sibling_edges(src: &Path) -> BTreeSet<(ModulePath, String, String)> {
    edges_from(src, |_| true)
}

/// [`sibling_edges`] of the modules `from` keeps.
fn edges_from(
    src: &Path,
    from: impl Fn(&ModulePath) -> bool,
) -> BTreeSet<(ModulePath, String, String)> {
    let mut modules = modules(src);
    modules.retain(|module, _| from(module));
    let names: BTreeSet<ModulePath> = modules.keys().cloned().collect();
    let mut edges = BTreeSet::new();
    for (module, text) in &modules {
        for path in named_paths(module, &code_only(text)) {
            let target = module_of(&names, &path);
            let common = module
                .iter()
                .zip(target)
                .take_while(|(a, b)| a == b)
                .count();
            if common < module.len() && common < target.len() {
                edges.insert((
                    module[..common].to_vec(),
                    module[common].clone(),
                    target[common].clone(),
                ));
            }
        }
    }
    edges
}

/// Every cycle among sibling modules, each as the parent and the circle of
/// its children (`games: a -> b -> a`); empty when the graph has none.
pub fn cycles(src: &Path) -> Vec<String> {
    let mut by_parent: BTreeMap<ModulePath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (parent, from, to) in sibling_edges(src) {
        by_parent
            .entry(parent)
            .or_default()
            .entry(from)
            .or_default()
            .insert(to);
    }
    let mut found = Vec::new();
    for (parent, graph) in &by_parent {
        let mut done = BTreeSet::new();
        for start in graph.keys() {
            let mut stack = Vec::new();
            visit(start, graph, &mut stack, &mut done, &mut |circle| {
                let place = if parent.is_empty() {
                    "crate".to_owned()
                } else {
                    parent.join("::")
                };
                found.push(format!(
                    "{}: {place}: {}",
                    src.display(),
                    circle.join(" -> ")
                ));
            });
        }
    }
    found
}

fn visit(
    node: &str,
    graph: &BTreeMap<String, BTreeSet<String>>,
    stack: &mut Vec<String>,
    done: &mut BTreeSet<String>,
    report: &mut dyn FnMut(Vec<String>),
) {
    if done.contains(node) {
        return;
    }
    if let Some(at) = stack.iter().position(|n| n == node) {
        let mut circle = stack[at..].to_vec();
        circle.push(node.to_owned());
        report(circle);
        return;
    }
    stack.push(node.to_owned());
    for next in graph.get(node).into_iter().flatten() {
        visit(next, graph, stack, done, report);
    }
    stack.pop();
    done.insert(node.to_owned());
}

/// The layers a code map lists for a crate's top-level modules, top first:
/// one per row of the Markdown table that follows the line `heading`
/// (up to the next heading), each the names written in backticks in the
/// row's first cell (`value.rs`, `format/`: the module `value`, `format`).
pub fn documented_layers(map: &str, heading: &str) -> Vec<Vec<String>> {
    let section = map
        .split_once(&format!("\n{heading}"))
        .map_or("", |(_, rest)| rest.split("\n#").next().unwrap_or(""));
    section
        .lines()
        .filter_map(|line| line.strip_prefix('|')?.split('|').next())
        .map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(|name| {
                    let name = name.trim_end_matches('/');
                    name.strip_suffix(".rs").unwrap_or(name).to_owned()
                })
                .collect::<Vec<_>>()
        })
        .filter(|names| !names.is_empty())
        .collect()
}

/// Where the top-level modules of the crate in `src` break the order of
/// `layers` (top first): every module of the crate must be in a layer,
/// and a module may use only those of its own layer or of layers above it
/// (its tests excepted). Each problem is a line; empty when the code keeps
/// the order.
pub fn layer_violations(src: &Path, layers: &[Vec<String>]) -> Vec<String> {
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |name| (name.as_str(), i)))
        .collect();
    let mut problems: Vec<String> = modules(src)
        .keys()
        .filter(|module| module.len() == 1 && !layer_of.contains_key(module[0].as_str()))
        .map(|module| format!("{} is in no layer", module[0]))
        .collect();
    // Tests in files of their own (`tests.rs`, `tests/`) may use any layer:
    // the test kit sits below the games it plays.
    let not_tests = |module: &ModulePath| !module.iter().any(|name| name == "tests");
    for (parent, from, to) in edges_from(src, not_tests) {
        if !parent.is_empty() {
            continue;
        }
        if let (Some(&at), Some(&used)) = (layer_of.get(from.as_str()), layer_of.get(to.as_str()))
            && used > at
        {
            problems.push(format!(
                "{from} (layer {at}) uses {to}, of a layer below it ({used})"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_trees_expand_and_resolve() {
        let mut out = Vec::new();
        expand("crate::{a::b,c::{d,e as f},g}", &mut Vec::new(), &mut out);
        let got: Vec<String> = out.iter().map(|p| p.join("::")).collect();
        assert_eq!(
            got,
            ["crate::a::b", "crate::c::d", "crate::c::e", "crate::g"]
        );
        let module = vec!["http".to_owned(), "api".to_owned()];
        let path = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(
            resolve(&module, &path("super::rooms::x")),
            Some(path("http::rooms::x"))
        );
        assert_eq!(resolve(&module, &path("crate::store")), Some(path("store")));
        assert_eq!(resolve(&module, &path("std::io")), None);
    }

    #[test]
    fn comments_strings_and_tests_are_not_code() {
        let code = "use crate::a; // crate::b\n/* crate::c */ let s = \"crate::d\";\n\
                    let c = '}';\n#[cfg(test)]\nmod tests { use crate::e; }\nfn f<'a>() {}";
        let code = code_only(code);
        assert!(code.contains("crate::a") && code.contains("fn f<'a>"));
        for gone in ["crate::b", "crate::c", "crate::d", "crate::e"] {
            assert!(!code.contains(gone), "{gone} in {code}");
        }
    }

    #[test]
    fn a_cycle_of_siblings_is_found_and_a_parent_child_pair_is_not() {
        let dir = std::env::temp_dir().join(format!("module-graph-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("a")).unwrap();
        fs::write(dir.join("lib.rs"), "mod a; mod b; use crate::a::x;").unwrap();
        fs::write(dir.join("a/mod.rs"), "mod inner; use self::inner::y;").unwrap();
        fs::write(dir.join("a/inner.rs"), "use super::z; use crate::b::w;").unwrap();
        fs::write(dir.join("b.rs"), "pub fn w() {}").unwrap();
        assert!(cycles(&dir).is_empty(), "{:?}", cycles(&dir));
        fs::write(dir.join("b.rs"), "use crate::a::inner::q;").unwrap();
        let found = cycles(&dir);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].ends_with("crate: a -> b -> a"), "{found:?}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn layers_are_read_from_a_code_map_table() {
        let map = "# Map\n\n### `a/src`\n\n| module | holds |\n|---|---|\n\
                   | `value.rs`, `rng.rs` | values |\n| `format/` | bytes, not `x.rs` |\n\n\
                   ### `b/src`\n\n| `other.rs` | no |\n";
        assert_eq!(
            documented_layers(map, "### `a/src`"),
            vec![vec!["value", "rng"], vec!["format"]]
        );
        assert!(documented_layers(map, "### `c/src`").is_empty());
    }
}
