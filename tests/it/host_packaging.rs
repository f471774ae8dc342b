//! `dsxor completions SHELL` and `dsxor man [COMMAND]`: generated from the
//! clap definition, checked by the shells' and groff's own parsers.

use crate::common;

use std::process::{Command, Stdio};

fn ok_stdout(args: &[&str]) -> String {
    let o = common::dsxor(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "dsxor {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8 output")
}

fn subcommands() -> Vec<String> {
    // The commands as `dsxor --help` lists them (the oracle is the binary's
    // own parser, not a list kept here).
    let help = ok_stdout(&["--help"]);
    let list = help
        .split("Commands:")
        .nth(1)
        .expect("a Commands: section")
        .split("Options:")
        .next()
        .unwrap_or("");
    let names: Vec<String> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    assert!(names.len() >= 10, "too few commands in --help: {names:?}");
    names
}

#[test]
fn bash_completion_parses_and_knows_every_command_and_flag() {
    let script = ok_stdout(&["completions", "bash"]);
    for c in subcommands() {
        assert!(script.contains(&c), "bash completion lacks `{c}`");
    }
    for flag in ["--out-of-range-return", "--minimize-budget", "--fail-below"] {
        assert!(script.contains(flag), "bash completion lacks {flag}");
    }
    // bash -n: parse without running.
    let mut child = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin
            .write_all(script.as_bytes())
            .expect("write the script");
    }
    let o = child.wait_with_output().expect("bash -n finishes");
    assert!(
        o.status.success(),
        "bash -n refused the completion script: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn every_shell_clap_offers_generates() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok_stdout(&["completions", shell]);
        assert!(
            script.contains("dsxor"),
            "{shell}: no `dsxor` in the script"
        );
    }
    let o = common::dsxor(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "an unknown shell is bad usage");
}

#[test]
fn man_pages_render_with_groff() {
    let page = ok_stdout(&["man"]);
    assert!(
        page.contains(".TH dsxor 1"),
        "not a section-1 page:\n{page}"
    );
    for c in subcommands() {
        assert!(page.contains(&c), "the man page does not mention `{c}`");
    }
    let run = ok_stdout(&["man", "run"]);
    assert!(run.contains(".TH dsxor-run 1"), "{run}");
    assert!(run.contains("out\\-of\\-range\\-return"), "{run}");
    let o = common::dsxor(&["man", "no-such-command"]);
    assert_eq!(o.status.code(), Some(2));

    let Some(groff) = common::tool("groff", "DSXOR_GROFF", &["groff"]) else {
        return;
    };
    for roff in [page, run] {
        let mut child = Command::new(&groff)
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("groff runs");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("piped stdin");
            stdin.write_all(roff.as_bytes()).expect("write the page");
        }
        let o = child.wait_with_output().expect("groff finishes");
        let warnings = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && warnings.trim().is_empty(),
            "groff -ww warned about the man page: {warnings}"
        );
    }
}

/// `repository`, `homepage` and `documentation` are URLs that crates.io and
/// docs.rs link; the project has no public URL yet (Cargo.toml says so), so
/// either a key is absent or it is an https URL, never a path in the clone.
fn metadata_url_problems(cargo_toml: &str) -> Vec<String> {
    let mut in_package = false;
    let mut problems = Vec::new();
    for line in cargo_toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        for key in ["repository", "homepage", "documentation"] {
            let Some(rest) = line.strip_prefix(key) else {
                continue;
            };
            let Some(value) = rest.trim_start().strip_prefix('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            if !value.starts_with("https://") || value.contains(' ') {
                problems.push(format!("{key} = {value:?} is not an https URL"));
            }
        }
    }
    problems
}

#[test]
fn package_links_are_urls_or_absent() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    assert_eq!(metadata_url_problems(&text), Vec::<String>::new());
    // The check has teeth: a book path is refused, a URL is not.
    let bad = "[package]\nname = \"x\"\ndocumentation = \"docs/src/SUMMARY.md\"\n[dependencies]\nrepository = \"a\"\n";
    assert_eq!(
        metadata_url_problems(bad).len(),
        1,
        "{:?}",
        metadata_url_problems(bad)
    );
    assert!(
        metadata_url_problems("[package]\nrepository = \"https://example.org/dsxor\"\n").is_empty()
    );
}
