//! The GitHub Actions and GitLab CI recipes against their published
//! schemas, offline: `check-jsonschema`'s built-in vendor schemas
//! (`pip install check-jsonschema`; .ci/run installs it). Skipped with a
//! notice when it is missing, mandatory under DSXOR_REQUIRE_TOOLS=1.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn check_jsonschema() -> Option<PathBuf> {
    common::tool(
        "check-jsonschema",
        "DSXOR_CHECK_JSONSCHEMA",
        &["check-jsonschema"],
    )
}

fn validate(tool: &Path, schema: &str, file: &Path) -> (bool, String) {
    let o = Command::new(tool)
        .args(["--builtin-schema", schema])
        .arg(file)
        .output()
        .expect("check-jsonschema runs");
    (
        o.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn the_ci_recipes_match_their_vendors_schemas() {
    let Some(tool) = check_jsonschema() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/ci");
    let tmp = tempfile::tempdir().unwrap();
    for (file, schema, break_it) in [
        (
            "github-actions.yml",
            "vendor.github-workflows",
            ("runs-on:", "runs-where:"),
        ),
        ("gitlab-ci.yml", "vendor.gitlab-ci", ("script:", "scripts:")),
    ] {
        let (ok, out) = validate(&tool, schema, &dir.join(file));
        assert!(ok, "examples/ci/{file} against {schema}:\n{out}");
        // The validation has teeth: the same file with one key misspelt fails.
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains(break_it.0), "{file} has no {}", break_it.0);
        let broken = tmp.path().join(file);
        std::fs::write(&broken, text.replacen(break_it.0, break_it.1, 1)).unwrap();
        let (ok, out) = validate(&tool, schema, &broken);
        assert!(!ok, "{file} with {} passed {schema}:\n{out}", break_it.1);
    }
}
