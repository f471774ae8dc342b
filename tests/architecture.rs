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
