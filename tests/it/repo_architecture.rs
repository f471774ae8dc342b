//! ARCHITECTURE.md stays true: its module map names exactly the top-level
//! modules of `src/`, and every path of its "Beyond `src/`" table exists.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The first cell (a backticked name) of each row of the Markdown table that
/// follows `heading_line` in `text`.
fn first_column(text: &str, after: &str) -> Vec<String> {
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no {after:?}"));
    let mut names = Vec::new();
    let mut in_table = false;
    for line in text[start..].lines().skip(1) {
        let line = line.trim();
        if !line.starts_with('|') {
            if in_table {
                break;
            }
            continue;
        }
        in_table = true;
        let cell = line.trim_start_matches('|').split('|').next().unwrap_or("");
        let cell = cell.trim();
        if let Some(name) = cell.strip_prefix('`').and_then(|c| c.strip_suffix('`')) {
            names.push(name.to_string());
        }
    }
    names
}

/// Top-level modules of the crate: `src/NAME.rs` and `src/NAME/mod.rs`,
/// minus the crate roots.
fn src_modules() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("src")).expect("read src/") {
        let path = entry.expect("dir entry").path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if path.join("mod.rs").exists() {
                found.insert(name);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" && name != "main" {
            found.insert(name);
        }
    }
    found
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("read ARCHITECTURE.md")
}

#[test]
fn module_map_names_exactly_the_modules_of_src() {
    let named: BTreeSet<String> = first_column(&architecture(), "## Module map")
        .into_iter()
        .collect();
    let present = src_modules();
    assert!(
        present.len() >= 10,
        "found only {present:?} in src/: is the test looking in the right place?"
    );
    let missing_in_src: Vec<_> = named.difference(&present).collect();
    let missing_in_doc: Vec<_> = present.difference(&named).collect();
    assert!(
        missing_in_src.is_empty() && missing_in_doc.is_empty(),
        "ARCHITECTURE.md's module map and src/ disagree:\n  named but not in src/: {missing_in_src:?}\n  in src/ but not named: {missing_in_doc:?}"
    );
}

#[test]
fn paths_beyond_src_exist() {
    let paths = first_column(&architecture(), "Beyond `src/`:");
    assert!(!paths.is_empty(), "no paths under \"Beyond `src/`\"");
    for p in paths {
        assert!(
            root().join(p.trim_end_matches('/')).exists(),
            "ARCHITECTURE.md names `{p}`, which does not exist"
        );
    }
}

#[test]
fn library_roots_declare_the_mapped_modules() {
    // lib.rs declares the library's modules, main.rs declares `cli`: a file
    // left in src/ but no longer declared is not a module, and the map must
    // not pretend it is.
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("read src/lib.rs");
    let main = std::fs::read_to_string(root().join("src/main.rs")).expect("read src/main.rs");
    for m in src_modules() {
        let decl = format!("mod {m};");
        assert!(
            lib.contains(&decl) || main.contains(&decl),
            "src/{m} exists but neither lib.rs nor main.rs declares `mod {m};`"
        );
    }
}

/// The non-test source of a file: line comments dropped, and everything
/// from the first `#[cfg(test)]` on (unit tests may use anything).
fn code_of(path: &Path) -> String {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The first path segment of every item of a `{…}` use group starting at `s`.
fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for (i, c) in s.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    item_start = true;
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = true,
            _ if depth == 1 && item_start && !c.is_whitespace() => {
                heads.push(ident_at(&s[i..]));
                item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// What `code` (a file of module `module`) names through `prefix`
/// (`crate::` or `super::`): the first segment after it.
fn uses_through(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        let rest = &code[i + prefix.len()..];
        if rest.starts_with('{') {
            found.extend(group_heads(rest));
        } else {
            found.insert(ident_at(rest));
        }
    }
    found.retain(|s| !s.is_empty() && s != "self");
    found
}

fn rs_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let p = entry.expect("dir entry").path();
        if p.is_dir() {
            out.extend(rs_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// Edges `from -> to` that close a cycle in `edges` (empty: acyclic).
fn cycles(edges: &std::collections::BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in edges.keys() {
        // Depth-first search for a path back to `start`.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in edges.get(&node).into_iter().flatten() {
                if next == start {
                    let mut cycle = path.clone();
                    cycle.push(start.clone());
                    // Report each cycle once, from its smallest member.
                    if path.iter().min() == Some(start) {
                        found.push(cycle);
                    }
                } else if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    found
}

#[test]
fn top_level_modules_import_no_cycle() {
    // The module map's "may use" column is a layering: no module may reach
    // back to itself through others (e.g. suite -> mutate::odds -> ... ->
    // suite, before the odds moved down to gen).
    let mut edges: std::collections::BTreeMap<String, BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for m in src_modules() {
        let dir = root().join("src").join(&m);
        let files = if dir.is_dir() {
            rs_files(&dir)
        } else {
            vec![root().join("src").join(format!("{m}.rs"))]
        };
        let mut to = BTreeSet::new();
        for f in files {
            to.extend(uses_through(&code_of(&f), "crate::"));
        }
        to.remove(&m);
        to.retain(|t| src_modules().contains(t));
        edges.insert(m, to);
    }
    assert!(
        edges["suite"].contains("gen"),
        "the scan finds no imports: {edges:?}"
    );
    assert_eq!(
        cycles(&edges),
        Vec::<Vec<String>>::new(),
        "import cycles between modules of src/"
    );
}

#[test]
fn files_within_a_module_import_no_new_cycle() {
    // Known back edges, each closing a cycle that still wants a split:
    // emu's fault injector calls ds's atomic arithmetic while ds calls the
    // injector's hook; gen's pattern builder adds rounds, which name
    // patterns; emu's decoder stores the interpreter's per-instruction
    // pre-resolved instructions (`wave::op_for`), made once at decode time. Without
    // these edges the files of each module must form no cycle.
    let known: BTreeSet<(String, String)> = [
        ("emu/fault", "emu/ds"),
        ("gen/pattern", "gen/rounds"),
        ("emu/decode", "emu/wave"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut edges: std::collections::BTreeMap<String, BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for m in src_modules() {
        let dir = root().join("src").join(&m);
        if !dir.is_dir() {
            continue;
        }
        let files: BTreeSet<String> = rs_files(&dir)
            .iter()
            .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().to_string()))
            .filter(|s| s != "mod")
            .collect();
        for f in &files {
            let code = code_of(&dir.join(format!("{f}.rs")));
            let mut to = uses_through(&code, "super::");
            to.extend(uses_through(&code, &format!("crate::{m}::")));
            to.retain(|t| files.contains(t) && t != f);
            edges.insert(
                format!("{m}/{f}"),
                to.into_iter().map(|t| format!("{m}/{t}")).collect(),
            );
        }
    }
    assert!(
        edges["emu/wave"].contains("emu/ds"),
        "the scan misses wave's use of ds: {:?}",
        edges["emu/wave"]
    );
    for (from, to) in &known {
        assert!(
            edges.get(from).is_some_and(|e| e.contains(to)),
            "the known back edge {from} -> {to} is gone: remove it from `known`"
        );
        edges.get_mut(from).map(|e| e.remove(to));
    }
    let found = cycles(&edges);
    assert!(
        found.is_empty(),
        "new import cycles between files of a module: {found:?}"
    );
}
