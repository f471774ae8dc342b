//! Helpers shared by the integration tests: finding external tools (the
//! oracles) and running the `dsxor` binary.
//!
//! A test that needs a tool calls `tool(...)`: when the tool is missing it
//! prints a notice and returns `None` (the test returns early, skipped), but
//! with `DSXOR_REQUIRE_TOOLS=1` (set by `.ci/run`) a missing tool panics, so
//! CI can never pass by skipping.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// True when CI demands every external tool.
pub fn tools_required() -> bool {
    std::env::var("DSXOR_REQUIRE_TOOLS").is_ok_and(|v| v == "1")
}

/// Report a missing prerequisite: skip locally, fail in CI.
pub fn missing(what: &str, why: &str) {
    if tools_required() {
        panic!("DSXOR_REQUIRE_TOOLS=1 but {what} is unavailable: {why}");
    }
    eprintln!("SKIPPED: {what} is unavailable ({why}); set it up or see README.md");
}

/// Find an executable: `$env_var` if set, else the first of `candidates`
/// that runs with `--version`. `None` (after `missing`) when there is none.
pub fn tool(what: &str, env_var: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env_var) {
        let p = PathBuf::from(p);
        if runs(&p) {
            return Some(p);
        }
        missing(what, &format!("{env_var}={} does not run", p.display()));
        return None;
    }
    for c in candidates {
        let p = PathBuf::from(c);
        if runs(&p) {
            return Some(p);
        }
    }
    missing(
        what,
        &format!("none of {candidates:?} found (or set {env_var})"),
    );
    None
}

fn runs(p: &std::path::Path) -> bool {
    Command::new(p)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// llvm-mc with the AMDGPU target (LLVM 22 preferred; `DSXOR_LLVM_MC` overrides).
pub fn llvm_mc() -> Option<PathBuf> {
    tool(
        "llvm-mc",
        "DSXOR_LLVM_MC",
        &["llvm-mc-22", "/usr/lib/llvm-22/bin/llvm-mc"],
    )
}

/// llvm-objdump (`DSXOR_LLVM_OBJDUMP` overrides).
pub fn llvm_objdump() -> Option<PathBuf> {
    tool(
        "llvm-objdump",
        "DSXOR_LLVM_OBJDUMP",
        &["llvm-objdump-22", "/usr/lib/llvm-22/bin/llvm-objdump"],
    )
}

/// llvm-readelf (`DSXOR_LLVM_READELF` overrides).
pub fn llvm_readelf() -> Option<PathBuf> {
    tool(
        "llvm-readelf",
        "DSXOR_LLVM_READELF",
        &["llvm-readelf-22", "/usr/lib/llvm-22/bin/llvm-readelf"],
    )
}

/// clang with the AMDGPU target (`DSXOR_CLANG` overrides).
pub fn clang() -> Option<PathBuf> {
    tool(
        "clang (AMDGPU)",
        "DSXOR_CLANG",
        &["clang-22", "/usr/lib/llvm-22/bin/clang"],
    )
}

/// Run the dsxor binary built for this test run.
pub fn dsxor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(args)
        .output()
        .expect("the dsxor binary runs")
}

/// Run the dsxor binary with `stdin` as standard input.
pub fn dsxor_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the dsxor binary starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    let data = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(data.as_bytes()));
    let out = child.wait_with_output().expect("the dsxor binary runs");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin written");
    out
}
