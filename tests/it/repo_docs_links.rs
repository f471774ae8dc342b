//! The documents hold together: every relative link and anchor in
//! README.md, ARCHITECTURE.md and the book (docs/src) resolves, the book's
//! SUMMARY.md lists every page, and every file has an even number of code
//! fences (an unclosed fence swallows the rest of the page when rendered).
//! Markdown is read with pulldown-cmark, so links inside code are not links.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn book_pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read docs/src") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join("docs/src"), &mut v);
    v.sort();
    v
}

fn documents() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    v.extend(book_pages());
    v
}

/// mdBook's heading id: lowercase alphanumerics, `_` and `-` kept,
/// whitespace to `-`, everything else dropped (mdbook `utils::normalize_id`).
fn normalize_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

struct Doc {
    links: Vec<String>,
    anchors: BTreeSet<String>,
}

fn parse(path: &Path) -> Doc {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut links = Vec::new();
    let mut anchors = BTreeSet::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut heading: Option<String> = None;
    for ev in Parser::new_ext(&text, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string());
            }
            Event::Start(Tag::Heading { .. }) => {
                heading = Some(String::new());
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    // mdBook makes repeated ids unique with -1, -2, ...
                    let id = normalize_id(&h);
                    let n = counts.entry(id.clone()).or_insert(0);
                    anchors.insert(if *n == 0 {
                        id.clone()
                    } else {
                        format!("{id}-{n}")
                    });
                    *n += 1;
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                // Explicit anchors: <a id="..."> / <a name="...">.
                for attr in ["id=\"", "name=\""] {
                    let mut rest: &str = &h;
                    while let Some(i) = rest.find(attr) {
                        rest = &rest[i + attr.len()..];
                        if let Some(end) = rest.find('"') {
                            anchors.insert(rest[..end].to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Doc { links, anchors }
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let docs = documents();
    let parsed: BTreeMap<PathBuf, Doc> = docs.iter().map(|p| (p.clone(), parse(p))).collect();
    let mut broken = Vec::new();
    let mut checked = 0;
    for (path, doc) in &parsed {
        let dir = path.parent().expect("a parent dir");
        for link in &doc.links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                path.clone()
            } else {
                dir.join(file)
            };
            checked += 1;
            if !target.exists() {
                broken.push(format!("{}: `{link}`: no such file", path.display()));
                continue;
            }
            if let Some(a) = anchor {
                let target = target.canonicalize().expect("canonical path");
                let anchors = parsed
                    .iter()
                    .find(|(p, _)| p.canonicalize().ok().as_ref() == Some(&target))
                    .map(|(_, d)| &d.anchors);
                match anchors {
                    Some(set) if set.contains(a) => {}
                    Some(set) => broken.push(format!(
                        "{}: `{link}`: no anchor `{a}` (there: {set:?})",
                        path.display()
                    )),
                    None => broken.push(format!(
                        "{}: `{link}`: anchors are checked only into README.md, ARCHITECTURE.md and docs/src",
                        path.display()
                    )),
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} relative links found: is the parser reading the files?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn summary_lists_every_page_of_the_book() {
    let src = root().join("docs/src");
    let summary = parse(&src.join("SUMMARY.md"));
    let listed: BTreeSet<PathBuf> = summary
        .links
        .iter()
        .map(|l| src.join(l.split('#').next().unwrap_or("")))
        .collect();
    let unlisted: Vec<_> = book_pages()
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md") && !listed.contains(p))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages of docs/src that SUMMARY.md does not list: {unlisted:?}"
    );
    assert!(
        root().join("docs/book.toml").exists(),
        "docs/book.toml (the mdBook configuration) is missing"
    );
}

#[test]
fn code_fences_are_closed() {
    for path in documents() {
        let text = std::fs::read_to_string(&path).expect("read");
        let fences = text
            .lines()
            .filter(|l| l.trim_start().starts_with("```"))
            .count();
        assert!(
            fences % 2 == 0,
            "{}: {fences} code fence lines: one is not closed",
            path.display()
        );
    }
}

#[test]
fn no_document_cites_the_shared_design_file() {
    // The design lives in the repository now (ARCHITECTURE.md, docs/src).
    let mut offenders = Vec::new();
    let mut stack = vec![
        root().join("src"),
        root().join("tests"),
        root().join("docs"),
    ];
    let mut files = documents();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
                files.push(p);
            }
        }
    }
    let needle = ["shared/", "DESIGN", ".md"].concat();
    let needle2 = ["DESIGN", ".md"].concat();
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if text.contains(&needle) || text.contains(&needle2) {
            offenders.push(p.display().to_string());
        }
    }
    assert!(
        offenders.is_empty(),
        "still citing the shared design file: {offenders:?}"
    );
}
