//! docs/src/reference/commands.md documents every command and every flag
//! the binary has: each `dsxor <command> --help` flag (aliases included) is
//! named in that command's section.

use crate::common;

fn help(args: &[&str]) -> String {
    let o = common::dsxor(args);
    assert_eq!(o.status.code(), Some(0), "dsxor {args:?}");
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Long flags in a help text: `--name` tokens (the option list and the
/// `[alias: --x]` notes).
fn flags(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_string)
        .filter(|f| f != "--help" && f != "--version")
        .collect();
    v.sort();
    v.dedup();
    v
}

fn named(section: &str, flag: &str) -> bool {
    let needle = format!("`{flag}");
    section.match_indices(&needle).any(|(i, _)| {
        let next = section[i + needle.len()..].chars().next();
        !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[test]
fn every_command_and_flag_is_documented() {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/reference/commands.md"),
    )
    .expect("read commands.md");
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .and_then(|s| s.split("Options:").next())
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    let mut missing = Vec::new();
    for c in &commands {
        let heading = format!("## dsxor {c}\n");
        let Some(start) = page.find(&heading) else {
            missing.push(format!("no section `## dsxor {c}`"));
            continue;
        };
        let body = &page[start + heading.len()..];
        let section = &body[..body.find("\n## ").unwrap_or(body.len())];
        // Only the options part: the description may mention other flags.
        let h = help(&[c.as_str(), "--help"]);
        let options = h.split("Options:").nth(1).unwrap_or("");
        for f in flags(options) {
            if !named(section, &f) {
                missing.push(format!("dsxor {c} {f}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/src/reference/commands.md lacks: {missing:?}"
    );
}
