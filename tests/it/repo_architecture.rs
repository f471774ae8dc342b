//! ARCHITECTURE.md stays true: its module map names exactly the top-level
//! modules of `src/`, every module names only what its "may use" column
//! allows, no modules or files form an import cycle, and every path of its
//! "Beyond `src/`" table exists. Sources are read with `syn`, so a use in an
//! expression, a type or a macro counts as much as a `use` item.

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

/// A file's module path under `src/`: `src/emu/wave/salu.rs` is
/// `[emu, wave, salu]`, a `mod.rs` is its directory's.
fn module_path(file: &Path) -> Vec<String> {
    let rel = file
        .strip_prefix(root().join("src"))
        .expect("a file under src/");
    let mut path: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|c| c.to_string_lossy().to_string())
        .collect();
    if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    path
}

/// Whether `item` is compiled only for unit tests (`#[cfg(test)]`): unit
/// tests may use anything.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(l) => l.path.is_ident("cfg") && l.tokens.to_string().trim() == "test",
        _ => false,
    })
}

/// Collects every module path one file names, resolved from `crate::`,
/// `super::`, `self::` (and `dsxor::` in the binary), in `use` items, in
/// expression and type paths, and inside macro invocations; items under
/// `#[cfg(test)]` are skipped.
struct Refs {
    /// The module the visitor is in: the file's, then any inline `mod`.
    here: Vec<String>,
    binary: bool,
    found: BTreeSet<Vec<String>>,
}

impl Refs {
    /// The absolute path `segments` names (modules, then perhaps an item),
    /// or `None` for a path that does not start inside the crate.
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let abs: Vec<String> = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "dsxor" if self.binary => segments[1..].to_vec(),
            "self" => [&self.here[..], &segments[1..]].concat(),
            "super" => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let base = self.here.get(..self.here.len().checked_sub(ups)?)?;
                [base, &segments[ups..]].concat()
            }
            _ => return None,
        };
        (!abs.is_empty()).then_some(abs)
    }

    fn add(&mut self, segments: &[String]) {
        if let Some(p) = self.resolve(segments) {
            self.found.insert(p);
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.add(prefix);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.add(prefix);
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.add(prefix),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// `a :: b :: c` sequences in a macro's tokens.
    fn tokens(&mut self, stream: proc_macro2::TokenStream) {
        let mut path: Vec<String> = Vec::new();
        let mut colons = 0;
        for tt in stream {
            match tt {
                proc_macro2::TokenTree::Group(g) => {
                    self.flush(&mut path);
                    self.tokens(g.stream());
                }
                proc_macro2::TokenTree::Ident(i) => {
                    if colons != 2 {
                        self.flush(&mut path);
                    }
                    path.push(i.to_string());
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' && !path.is_empty() => {
                    colons += 1
                }
                _ => {
                    self.flush(&mut path);
                    colons = 0;
                }
            }
        }
        self.flush(&mut path);
    }

    fn flush(&mut self, path: &mut Vec<String>) {
        if path.len() > 1 {
            self.add(path);
        }
        path.clear();
    }
}

impl<'ast> syn::visit::Visit<'ast> for Refs {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        if test_only(attrs) {
            return;
        }
        match item {
            // An inline module: `self::`/`super::` inside it start there.
            syn::Item::Mod(m) if m.content.is_some() => {
                self.here.push(m.ident.to_string());
                syn::visit::visit_item(self, item);
                self.here.pop();
            }
            _ => syn::visit::visit_item(self, item),
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.add(&segments);
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// The paths the non-test code of `file` names, from the crate root.
fn references(file: &Path) -> BTreeSet<Vec<String>> {
    let text =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    references_in(&text, &module_path(file))
        .unwrap_or_else(|e| panic!("parse {}: {e}", file.display()))
}

/// [`references`] of source `text` read as the file of module path `here`.
fn references_in(text: &str, here: &[String]) -> syn::Result<BTreeSet<Vec<String>>> {
    let ast = syn::parse_file(text)?;
    let mut refs = Refs {
        binary: here.first().is_some_and(|m| m == "cli"),
        here: here.to_vec(),
        found: BTreeSet::new(),
    };
    syn::visit::Visit::visit_file(&mut refs, &ast);
    Ok(refs.found)
}

/// The files of top-level module `m`.
fn module_files(m: &str) -> Vec<std::path::PathBuf> {
    let dir = root().join("src").join(m);
    if dir.is_dir() {
        rs_files(&dir)
    } else {
        vec![root().join("src").join(format!("{m}.rs"))]
    }
}

/// The other top-level modules of `src/` that module `m` names.
fn modules_named(m: &str) -> BTreeSet<String> {
    let mut to = BTreeSet::new();
    for f in module_files(m) {
        to.extend(references(&f).into_iter().map(|p| p[0].clone()));
    }
    to.remove(m);
    to
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
        let mut to = modules_named(&m);
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

/// The edges between the children of the module directory `dir` into
/// `edges`, keyed `path/child`, and those of every module directory below.
fn file_edges(dir: &Path, edges: &mut std::collections::BTreeMap<String, BTreeSet<String>>) {
    let files = rs_files(dir);
    let Some(prefix) = files.first().map(|f| {
        let depth = dir
            .strip_prefix(root().join("src"))
            .expect("under src/")
            .iter()
            .count();
        module_path(f)[..depth].to_vec()
    }) else {
        return;
    };
    let k = prefix.len();
    let child_of = |f: &Path| module_path(f).get(k).cloned();
    let children: BTreeSet<String> = files.iter().filter_map(|f| child_of(f)).collect();
    // The directory's own mod.rs is not a node: its items are shared by
    // its children, and it may call them. A name it imports from a child
    // (`pub use child::Name;`) counts as that child's, so `super::Name`
    // from a sibling is an edge to `child`.
    let own = files
        .iter()
        .find(|f| child_of(f).is_none())
        .map(|f| imported_from_children(f, &children))
        .unwrap_or_default();
    for f in &files {
        let Some(child) = child_of(f) else {
            continue; // the directory's own mod.rs
        };
        let to = edges
            .entry(format!("{}/{child}", prefix.join("/")))
            .or_default();
        for p in references(f) {
            if p.len() <= k || p[..k] != prefix[..] {
                continue;
            }
            let named = if children.contains(&p[k]) {
                Some(&p[k])
            } else {
                own.get(&p[k])
            };
            if let Some(c) = named.filter(|c| **c != child) {
                to.insert(format!("{}/{c}", prefix.join("/")));
            }
        }
    }
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let p = entry.expect("dir entry").path();
        if p.is_dir() {
            file_edges(&p, edges);
        }
    }
}

/// The names a directory's `mod.rs` imports from its `children`
/// (`use child::{A, B as C}`, `pub` or not: both are visible to the
/// children), each with the child it comes from. A glob import would hide
/// which names those are, so a `mod.rs` may not have one.
fn imported_from_children(
    mod_rs: &Path,
    children: &BTreeSet<String>,
) -> std::collections::BTreeMap<String, String> {
    fn leaves(tree: &syn::UseTree, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
        match tree {
            syn::UseTree::Path(p) => {
                path.push(p.ident.to_string());
                leaves(&p.tree, path, out);
                path.pop();
            }
            syn::UseTree::Name(n) => out.push((path.clone(), n.ident.to_string())),
            syn::UseTree::Rename(r) => out.push((path.clone(), r.rename.to_string())),
            syn::UseTree::Glob(_) => out.push((path.clone(), "*".into())),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, path, out)),
        }
    }
    let text = std::fs::read_to_string(mod_rs)
        .unwrap_or_else(|e| panic!("read {}: {e}", mod_rs.display()));
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("parse {}: {e}", mod_rs.display()));
    let mut out = std::collections::BTreeMap::new();
    for item in &ast.items {
        let syn::Item::Use(u) = item else { continue };
        if test_only(&u.attrs) {
            continue;
        }
        let mut found = Vec::new();
        leaves(&u.tree, &mut Vec::new(), &mut found);
        for (path, name) in found {
            let path = path
                .strip_prefix(&["self".to_string()][..])
                .unwrap_or(&path);
            let Some(child) = path.first().filter(|c| children.contains(*c)) else {
                continue;
            };
            assert!(
                name != "*",
                "{} imports `{child}::*`: name the items, so the file edges through it show",
                mod_rs.display()
            );
            out.insert(name, child.clone());
        }
    }
    out
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
        ("gen/pattern", "gen/traffic"),
        ("emu/decode", "emu/wave"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut edges: std::collections::BTreeMap<String, BTreeSet<String>> =
        std::collections::BTreeMap::new();
    // In every module directory (`src/emu/`, `src/suite/worker/`, ...) a
    // node is one of its children (a file, or a directory of files seen as
    // one); an edge is a file under one child naming another child.
    for m in src_modules() {
        let dir = root().join("src").join(&m);
        if dir.is_dir() {
            file_edges(&dir, &mut edges);
        }
    }
    assert!(
        edges["emu/wave"].contains("emu/ds"),
        "the scan misses wave's use of ds: {:?}",
        edges["emu/wave"]
    );
    assert!(
        edges["suite/worker/parent"].contains("suite/worker/wire"),
        "the scan misses the files of a module directory: {:?}",
        edges.get("suite/worker/parent")
    );
    assert!(
        edges["check/traffic"].contains("check/verdict"),
        "the scan misses a name mod.rs imports from a child (`super::Finding`): {:?}",
        edges.get("check/traffic")
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

/// The module map's rows in order: (module, the modules it may use).
/// "—" is none; "everything above" is every module of an earlier row; a
/// backticked name with a parenthesis after it ("`report` (the record
/// type)") counts as that module, whatever the parenthesis narrows.
fn may_use() -> Vec<(String, BTreeSet<String>)> {
    let text = architecture();
    let start = text
        .find("## Module map")
        .expect("ARCHITECTURE.md has no \"## Module map\"");
    let mut rows: Vec<(String, BTreeSet<String>)> = Vec::new();
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
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Some(name) = cells
            .first()
            .and_then(|c| c.strip_prefix('`'))
            .and_then(|c| c.strip_suffix('`'))
        else {
            continue; // the header and its rule
        };
        let column = cells.last().copied().unwrap_or("");
        let allowed: BTreeSet<String> = if column == "everything above" {
            rows.iter().map(|(m, _)| m.clone()).collect()
        } else {
            column
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        rows.push((name.to_string(), allowed));
    }
    rows
}

#[test]
fn every_module_uses_only_what_its_row_allows() {
    let rows = may_use();
    let present = src_modules();
    assert_eq!(
        rows.iter().map(|(m, _)| m.clone()).collect::<BTreeSet<_>>(),
        present,
        "the module map's rows and src/'s modules differ"
    );
    assert!(
        rows.iter()
            .any(|(m, a)| m == "backend" && a.contains("emu")),
        "the \"may use\" column did not parse: {rows:?}"
    );
    let uses = rows
        .iter()
        .map(|(m, _)| (m.clone(), modules_named(m)))
        .collect();
    let broken = violations(&rows, &uses, &present);
    assert!(
        broken.is_empty(),
        "uses outside ARCHITECTURE.md's \"may use\" column: {broken:?}"
    );
}

/// Each "`m` uses `n`" where module `m` names module `n` (in `uses`) and
/// its row does not allow it. Only the modules of the map count: the
/// crate root's inline `exit` table of exit codes is there for every
/// module.
fn violations(
    rows: &[(String, BTreeSet<String>)],
    uses: &std::collections::BTreeMap<String, BTreeSet<String>>,
    present: &BTreeSet<String>,
) -> Vec<String> {
    let mut broken = Vec::new();
    for (m, allowed) in rows {
        for used in uses.get(m).into_iter().flatten() {
            if present.contains(used) && !allowed.contains(used) {
                broken.push(format!("{m} uses {used}"));
            }
        }
    }
    broken
}

/// The check has teeth: `backend` (whose row does not allow `model`, by
/// the independence rule) given one more file that names `model` in each
/// way code can (a `use`, a path in an expression, a type, a path inside
/// a macro, `super::` from a nested module) is reported, and the same
/// names in `#[cfg(test)]` code are not.
#[test]
fn a_planted_use_outside_the_row_is_caught() {
    let rows = may_use();
    let present = src_modules();
    let real: std::collections::BTreeMap<String, BTreeSet<String>> = rows
        .iter()
        .map(|(m, _)| (m.clone(), modules_named(m)))
        .collect();
    assert!(violations(&rows, &real, &present).is_empty());
    let backend_row = &rows.iter().find(|(m, _)| m == "backend").unwrap().1;
    assert!(!backend_row.contains("model"), "{backend_row:?}");
    let here = ["backend".to_string(), "planted".to_string()];
    let planted = [
        ("a use", "use crate::model::Policy;"),
        (
            "an expression path",
            "fn f() { let _ = crate::model::Policy::default(); }",
        ),
        ("a type", "fn f(_: &crate::model::Policy) {}"),
        (
            "a macro's tokens",
            "fn f() { println!(\"{:?}\", crate::model::Policy::default()); }",
        ),
        (
            "super:: from a nested module",
            "mod inner { use super::super::super::model::Policy; }",
        ),
    ];
    for (how, text) in planted {
        let mut uses = real.clone();
        let found = references_in(text, &here).expect("planted source parses");
        uses.get_mut("backend")
            .unwrap()
            .extend(found.into_iter().map(|p| p[0].clone()));
        assert_eq!(
            violations(&rows, &uses, &present),
            ["backend uses model"],
            "planted through {how}: {text}"
        );
    }
    let test_only = "#[cfg(test)]\nmod tests { use crate::model::Policy; }";
    let found = references_in(test_only, &here).expect("parses");
    assert!(
        !found.iter().any(|p| p[0] == "model"),
        "test-only code was counted: {found:?}"
    );
}
