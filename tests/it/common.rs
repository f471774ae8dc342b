//! Helpers shared by the integration tests: finding external tools (the
//! oracles) and running the `dsxor` binary.
//!
//! A test that needs a tool calls `tool(...)`: when the tool is missing it
//! prints a notice and returns `None` (the test returns early, skipped), but
//! with `DSXOR_REQUIRE_TOOLS=1` (set by `.ci/run`) a missing tool panics, so
//! CI can never pass by skipping.

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

/// Compile the HIP source file `source` for gfx1100's device at `opt`
/// with `extra` flags (build.rs's compile line, `crate::hip_device`) and
/// return the code object. `None` (skipped) without clang; a failed
/// compile fails the test with clang's message.
pub fn compile_hip_file(source: &Path, opt: &str, extra: &[&str]) -> Option<Vec<u8>> {
    let clang = clang()?;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("k.co");
    let o = Command::new(clang)
        .args(crate::hip_device::device_object_args("gfx1100", opt))
        .args(extra)
        .arg(source)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run clang");
    assert!(
        o.status.success(),
        "clang {opt} {extra:?} {}: {}",
        source.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    Some(std::fs::read(&out).expect("read the code object"))
}

/// `compile_hip_file` of the HIP source text `source`.
pub fn compile_hip(source: &str, opt: &str, extra: &[&str]) -> Option<Vec<u8>> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("k.hip");
    std::fs::write(&path, source).expect("write the HIP source");
    compile_hip_file(&path, opt, extra)
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

/// The HIP simulator for loading into this process. It reads its
/// configuration (`DSXOR_HIPSIM_*`, ROCm's `GPU_ENABLE_WGP_MODE`) once per
/// process, and every test of this binary shares the process, so the
/// in-process tests need its default device (one gfx1100): with any of the
/// variables set the test fails here, naming it, instead of later with a
/// device nobody asked for. Tests that configure the simulator do it in a
/// child process.
pub fn hipsim_in_process() -> PathBuf {
    let set: Vec<String> = std::env::vars()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("DSXOR_HIPSIM_") || k == "GPU_ENABLE_WGP_MODE")
        .collect();
    assert!(
        set.is_empty(),
        "unset {set:?}: the HIP simulator in the test process runs its default configuration"
    );
    hipsim_lib()
}

/// Run the dsxor binary on the HIP simulator, with `env` added to its
/// environment (DSXOR_HIPSIM_* configure the simulator).
pub fn dsxor_hipsim(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dsxor"));
    cmd.args(args).env("DSXOR_HIP_LIB", hipsim_lib());
    // Only the configuration the test gives: the simulator's own variables,
    // ROCm's GPU_ENABLE_WGP_MODE, HSA_OVERRIDE_GFX_VERSION and
    // HIP_VISIBLE_DEVICES (which the simulator honours), and dsxor's backend
    // and GPU requirements.
    for (k, _) in std::env::vars() {
        if k.starts_with("DSXOR_HIPSIM_")
            || [
                "GPU_ENABLE_WGP_MODE",
                "HSA_OVERRIDE_GFX_VERSION",
                "HIP_VISIBLE_DEVICES",
                "DSXOR_BACKEND",
                "DSXOR_REQUIRE_GPU",
            ]
            .contains(&k.as_str())
        {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the dsxor binary runs")
}

/// A dsxor command line on the software device (`dsxor COMMAND --backend
/// emu`), built flag by flag: `emu("run").fault("lost-update").cases(3)`.
#[derive(Clone, Debug)]
pub struct EmuArgs {
    args: Vec<String>,
}

/// `dsxor <command> --backend emu` and nothing else yet.
pub fn emu(command: &str) -> EmuArgs {
    EmuArgs {
        args: vec![command.into(), "--backend".into(), "emu".into()],
    }
}

/// `dsxor <command> --backend hip`, to run on the software HIP runtime
/// with [`EmuArgs::on_hipsim`].
pub fn hip(command: &str) -> EmuArgs {
    EmuArgs {
        args: vec![command.into(), "--backend".into(), "hip".into()],
    }
}

impl EmuArgs {
    /// Any further argument (a positional one, or a flag without a value).
    pub fn arg(mut self, a: impl AsRef<std::ffi::OsStr>) -> EmuArgs {
        let a = a.as_ref().to_str().expect("UTF-8 arguments");
        self.args.push(a.to_string());
        self
    }

    /// `name value`.
    pub fn flag(self, name: &str, value: impl std::fmt::Display) -> EmuArgs {
        self.arg(name).arg(value.to_string())
    }

    /// `--fault SPEC`: a fault of the software device (`emu::Fault`'s name,
    /// with a rate and condition where given).
    pub fn fault(self, spec: &str) -> EmuArgs {
        self.flag("--fault", spec)
    }
    pub fn pattern(self, patterns: &str) -> EmuArgs {
        self.flag("--pattern", patterns)
    }
    pub fn wave(self, size: u32) -> EmuArgs {
        self.flag("--wave", size)
    }
    /// `--mode`: `cu`, `wgp` or both.
    pub fn mode(self, modes: &str) -> EmuArgs {
        self.flag("--mode", modes)
    }
    pub fn cases(self, n: impl std::fmt::Display) -> EmuArgs {
        self.flag("--cases", n)
    }
    pub fn seed(self, seed: impl std::fmt::Display) -> EmuArgs {
        self.flag("--seed", seed)
    }
    pub fn jobs(self, n: impl std::fmt::Display) -> EmuArgs {
        self.flag("--jobs", n)
    }
    pub fn out(self, dir: impl AsRef<Path>) -> EmuArgs {
        self.arg("--out").arg(dir.as_ref())
    }

    /// The arguments, for `dsxor(&…)` or a `Command`.
    pub fn args(&self) -> Vec<&str> {
        self.args.iter().map(String::as_str).collect()
    }

    /// Run it to the end.
    pub fn output(&self) -> Output {
        dsxor(&self.args())
    }

    /// Run it to the end on the software HIP runtime, `env` added
    /// ([`dsxor_hipsim`]).
    pub fn on_hipsim(&self, env: &[(&str, &str)]) -> Output {
        dsxor_hipsim(&self.args(), env)
    }

    /// The command, not started (to spawn it, or to add to its environment).
    pub fn command(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_dsxor"));
        c.args(&self.args);
        c
    }
}

/// A lost update among two contenders, seen in the first few cases: `dsxor
/// run` with it fails (exit 1) and writes a minimized repro into `out`.
pub fn lost_update_run(out: impl AsRef<Path>) -> EmuArgs {
    emu("run")
        .fault("lost-update")
        .pattern("one-address")
        .wave(32)
        // WGP mode's cases are generator version 2's, which these fixtures
        // were chosen from: one of the three fails.
        .mode("wgp")
        .cases(3)
        .seed(7)
        .out(out)
}

/// A fault visible within one round (`swap-dwords`), so the minimized repro
/// has one round and exports to an observation file (a lost update before
/// the last round shows only in the next round's returns).
pub fn one_round_fault_run() -> EmuArgs {
    emu("run")
        .fault("swap-dwords")
        .pattern("one-address,data")
        .wave(32)
        .mode("wgp")
        .cases(6)
        .seed(3)
}

/// The exit code of a finished dsxor process (-1: killed by a signal).
pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// A finished process for an assertion message (and for `contains`
/// checks over both streams): its exit status, stdout and stderr.
pub fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `text` with only the last `lines` lines of stdout, for runs that print a
/// line per case (the verdict and the summary are at the end).
pub fn text_tail(o: &Output, lines: usize) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let tail: Vec<&str> = out.lines().rev().take(lines).collect();
    format!(
        "exit {:?}\nstdout (tail):\n{}\nstderr:\n{}",
        o.status.code(),
        tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
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

/// The records of device probe `name` (`probes[]`) in the one results file
/// in `dir`.
pub fn probe_records(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    let files = results_json(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    r["probes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p["probe"] == name)
        .collect()
}

/// The one file in `dir`, parsed as JSON (`text`: the run's output, for
/// the failure message).
pub fn only_record(dir: &Path, text: &str) -> serde_json::Value {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("no record directory ({e}): {text}"))
        .collect();
    assert_eq!(files.len(), 1, "one record: {text}");
    let path = files[0].as_ref().unwrap().path();
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What a command run through the software HIP runtime with a launch log
/// left behind: its exit code, its output, the one record it wrote and the
/// launch log's lines as (process id, kernel), one per accepted launch.
pub struct Logged {
    pub code: Option<i32>,
    pub text: String,
    pub rec: serde_json::Value,
    pub launches: Vec<(u32, String)>,
}

/// Run `dsxor <args> --out DIR` on the software HIP runtime with `env` and
/// `DSXOR_HIPSIM_LAUNCH_LOG`, in a fresh directory; the one file DIR holds
/// afterwards is the record.
pub fn hipsim_logged(args: &[&str], env: &[(&str, &str)]) -> Logged {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("launches.log");
    let out = dir.path().join("out");
    let mut args = args.to_vec();
    args.extend(["--out", out.to_str().unwrap()]);
    let mut env = env.to_vec();
    env.push(("DSXOR_HIPSIM_LAUNCH_LOG", log.to_str().unwrap()));
    let o = dsxor_hipsim(&args, &env);
    let text = text(&o);
    let rec = only_record(&out, &text);
    let launches = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut f = l.split(' ');
            let pid = f.next().unwrap().parse().unwrap();
            (pid, f.next().unwrap_or_default().to_string())
        })
        .collect();
    Logged {
        code: o.status.code(),
        text,
        rec,
        launches,
    }
}

/// `dsxor run --probe <probes>` of 4 cases on the software device, no
/// minimizing, with `--fault` when given; records into `dir`.
pub fn probe_on_emu(dir: &Path, probes: &str, seed: u64, fault: Option<&str>) -> Output {
    let mut args = emu("run")
        .seed(seed)
        .cases(4)
        .arg("--probe")
        .arg(probes)
        .arg("--minimize-budget")
        .arg("0s");
    if let Some(f) = fault {
        args = args.arg("--fault").arg(f);
    }
    args.out(dir).output()
}

/// The same run through the software HIP runtime, configured by `env`.
pub fn probe_on_hipsim(dir: &Path, probes: &str, seed: u64, env: &[(&str, &str)]) -> Output {
    hip("run")
        .cases(4)
        .seed(seed)
        .flag("--minimize-budget", "0s")
        .flag("--probe", probes)
        .out(dir)
        .on_hipsim(env)
}

/// The records of in-flight probe `name` in `dir`'s results, checked for
/// what every such probe shares: one per code object (both wave sizes,
/// both modes), each with `verdict` and every lane of its grid (256 per
/// workgroup) checked.
pub fn inflight_records(dir: &Path, name: &str, verdict: &str) -> Vec<serde_json::Value> {
    let p = probe_records(dir, name);
    assert_eq!(p.len(), 4, "{p:?}");
    for r in &p {
        assert_eq!(r["verdict"], verdict, "{r}");
        let lanes = r["lanes"].as_u64().unwrap();
        assert_eq!(Some(lanes), r["groups"].as_u64().map(|g| g * 256), "{r}");
    }
    p
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

/// The embedded gfx1100 wave32 object as a user's build without kernel
/// `kernel`, written to `dir/name`: every occurrence of the name (symbol
/// table, metadata) gets its last letter changed, same length, so the
/// object still parses and only that kernel is gone.
pub fn without_kernel(dir: &Path, name: &str, kernel: &str) -> PathBuf {
    let user = edit_conformance_sites(dir, name, |_, _| {});
    let mut bytes = std::fs::read(&user).unwrap();
    let from = kernel.as_bytes();
    let mut to = from.to_vec();
    *to.last_mut().expect("a kernel name") ^= 0x01;
    let mut n = 0;
    while let Some(at) = bytes.windows(from.len()).position(|w| w == from) {
        bytes[at..at + from.len()].copy_from_slice(&to);
        n += 1;
    }
    assert!(n > 0, "{kernel} is not in the object");
    std::fs::write(&user, &bytes).unwrap();
    user
}

/// Run llvm-mc with `args` on `text` given on its stdin (written from a
/// thread, so a large input cannot deadlock against its output), and
/// return what it printed.
pub fn llvm_mc_stdin(mc: &Path, args: &[&str], text: &str) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(mc)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc starts");
    let mut stdin = child.stdin.take().expect("stdin piped");
    let text = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc runs");
    writer
        .join()
        .expect("writer thread")
        .expect("write to llvm-mc");
    out
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

/// A one-group wave32 case on `lanes` lanes, lane i on qword i, DATA and
/// VDST-before and the LDS image all drawn from `tag`.
pub fn one_qword_each(lanes: u32, active: bool, tag: u64) -> dsxor::case::Case {
    use dsxor::case::{Case, Geometry, LaneInput, Mode};
    Case {
        pattern: "reuse".into(),
        index: tag,
        geometry: Geometry {
            wave_size: dsxor::case::WaveSize::Wave32,
            waves_per_group: lanes / 32,
            groups: 1,
            mode: Mode::Wgp,
        },
        lds_bytes: lanes * 8,
        offset: 0,
        lds_init: vec![(0..u64::from(lanes)).map(|q| tag << 32 | q).collect()],
        lanes: (0..lanes)
            .map(|i| LaneInput {
                addr: i * 8,
                data: tag << 48 | u64::from(i),
                active,
                vdst_init: !(tag << 40 | u64::from(i)),
            })
            .collect(),
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}
