//! Helpers shared by the integration tests: finding external tools (the
//! oracles) and running the `dsxor` binary.
//!
//! A test that needs a tool calls `tool(...)`: when the tool is missing it
//! prints a notice and returns `None` (the test returns early, skipped), but
//! with `DSXOR_REQUIRE_TOOLS=1` (set by `.ci/run`) a missing tool panics, so
//! CI can never pass by skipping.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
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

/// xmllint (Debian's libxml2-utils; `DSXOR_XMLLINT` overrides): the XSD
/// validator of the JUnit files.
pub fn xmllint() -> Option<PathBuf> {
    tool("xmllint", "DSXOR_XMLLINT", &["xmllint", "/usr/bin/xmllint"])
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

/// The HIP simulator (`hipsim/`, a workspace member): its cdylib beside
/// the dsxor binary of this test run, built first if needed. `cargo test`
/// builds it with the workspace; `cargo test --test NAME` builds only this
/// package's targets, so the library is built here (a no-op when current).
/// It is part of this repository, so failing to build it is a failure,
/// never a skip.
pub fn hipsim_lib() -> PathBuf {
    use std::sync::OnceLock;
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_dsxor"));
        let dir = exe.parent().expect("the dsxor binary is in a directory");
        let target_dir = dir.parent().expect("target/<profile> has a parent");
        let profile = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a profile directory name");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(&cargo);
        cmd.args(["build", "--quiet", "-p", "dsxor-hipsim", "--lib"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("CARGO_TARGET_DIR", target_dir);
        match profile {
            "debug" => {}
            "release" => {
                cmd.arg("--release");
            }
            other => {
                cmd.args(["--profile", other]);
            }
        }
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("running {cargo} to build the HIP simulator: {e}"));
        assert!(
            out.status.success(),
            "building the HIP simulator (cargo build -p dsxor-hipsim) failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lib = dir.join("libdsxor_hipsim.so");
        assert!(
            lib.exists(),
            "{} is missing after building dsxor-hipsim",
            lib.display()
        );
        lib
    })
    .clone()
}

/// Run the dsxor binary on the HIP simulator, with `env` added to its
/// environment (DSXOR_HIPSIM_* configure the simulator).
pub fn dsxor_hipsim(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dsxor"));
    cmd.args(args).env("DSXOR_HIP_LIB", hipsim_lib());
    // Only the configuration the test gives (ROCm's GPU_ENABLE_WGP_MODE,
    // which the simulator honours, included).
    for (k, _) in std::env::vars() {
        if k.starts_with("DSXOR_HIPSIM_") || k == "GPU_ENABLE_WGP_MODE" {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the dsxor binary runs")
}

/// The exit code of a finished dsxor process (-1: killed by a signal).
pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn text(o: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

pub fn results_json(dir: &Path) -> Vec<PathBuf> {
    files(dir, ".json")
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains(".repro-"))
        .collect()
}

/// The embedded gfx1100 wave32 object with `edit(bytes, file offset of the
/// site)` applied at every conformance kernel's `ds_xor_rtn_b64` site,
/// written to `dir/name`. For deliberately broken user builds.
pub fn edit_conformance_sites(dir: &Path, name: &str, edit: impl Fn(&mut [u8], usize)) -> PathBuf {
    use dsxor::codeobj::{patch::find_ds_xor_site, CodeObject};
    let obj = dsxor::codeobj::find_embedded("gfx1100", dsxor::case::WaveSize::Wave32)
        .expect("an embedded gfx1100 wave32 object");
    let co = CodeObject::parse(obj.bytes).unwrap();
    let mut bytes = co.elf_bytes().to_vec();
    let mut patched = 0;
    for k in co
        .kernels
        .iter()
        .filter(|k| k.name.starts_with("dsxor_conformance_"))
    {
        let site = find_ds_xor_site(&co, &k.name).unwrap();
        let off = co.file_offset(site, 8).unwrap() as usize;
        edit(&mut bytes, off);
        patched += 1;
    }
    assert!(patched >= 2, "one-round and rounds kernels");
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Assemble gfx1100 source with llvm-mc and return the machine code bytes
/// (from `-show-encoding`, so no ELF reader is involved); None (skipped)
/// without llvm-mc.
pub fn assemble_gfx1100(src: &str, wave64: bool) -> Option<Vec<u8>> {
    let mc = llvm_mc()?;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.s");
    std::fs::write(&path, src).expect("write asm");
    let mut cmd = Command::new(mc);
    cmd.args(["-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"]);
    // +real-true16: 16-bit operands are written as `.l`/`.h` halves (the
    // 32-bit forms assemble the same either way).
    if wave64 {
        cmd.arg("-mattr=+real-true16,+wavefrontsize64");
    } else {
        cmd.arg("-mattr=+real-true16");
    }
    let out = cmd.arg(&path).output().expect("run llvm-mc");
    assert!(
        out.status.success(),
        "llvm-mc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut bytes = Vec::new();
    for line in text.lines() {
        if let Some(i) = line.find("encoding: [") {
            let rest = &line[i + 11..];
            let rest = &rest[..rest.find(']').expect("closing bracket")];
            for b in rest.split(',') {
                bytes.push(
                    u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex byte"),
                );
            }
        }
    }
    Some(bytes)
}
