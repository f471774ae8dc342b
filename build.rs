//! Build script: compiles kernels/ for every target (issue: kernels and code
//! objects) and, with the `bindgen` feature, regenerates src/hip/sys.rs.
//!
//! Kernels: `kernels/dsxor.hip` is compiled once per (target, wave size) in
//! `OBJECTS` into a plain AMDGPU ELF code object in `OUT_DIR` (plain ELF, not
//! a clang offload bundle: `hipModuleLoadData` and the emulator both take it
//! as is; `codeobj` still reads bundles from users). `$OUT_DIR/embedded.rs`
//! lists them for `codeobj::embedded`.
//!
//! Compiler discovery (first that compiles a gfx1100 HIP probe): `DSXOR_CLANG`,
//! `$HIP_CLANG_PATH/clang`, `$ROCM_PATH/llvm/bin/clang`, `clang-22` …
//! `clang-16`, `clang` on PATH. Without one, the checked-in objects in
//! `kernels/prebuilt/` are embedded instead, with a `cargo:warning` when
//! `kernels/dsxor.hip` changed since they were made (their manifest records
//! the source's sha256, the compiler version and the flags of each object).
//!
//! Environment:
//! - `DSXOR_KERNELS=prebuilt`: embed the prebuilt objects even if a clang exists.
//! - `DSXOR_REGENERATE_PREBUILT=1`: after compiling, copy the objects into
//!   `kernels/prebuilt/` and rewrite its manifest (`kernels/regenerate.sh`).

// The clang device-compile line, shared with the integration tests.
#[path = "build/hip_device.rs"]
mod hip_device;

// ---- hip: bindings hook (HIP helper; feature `bindgen` only) ----
#[cfg(feature = "bindgen")]
#[path = "build/hip_bindgen.rs"]
mod hip_bindgen;
// ---- end hip ----

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

/// (target id, wave size, CU mode). gfx1100 wave32 is HIP's default there;
/// wave64 on gfx10+/gfx11/gfx12 needs `-mwavefrontsize64`; gfx9 (gfx90a,
/// gfx942) is wave64 only (`hip_device::wave_size_arg`). The third field adds `-mcumode`: on gfx10+ the compiler's
/// default is WGP mode (descriptor COMPUTE_PGM_RSRC1.WGP_MODE = 1, the
/// waves of a workgroup spread over both CUs of a WGP), `-mcumode` clears
/// the bit (AMDGPUUsage.rst, "compute_pgm_rsrc1 for GFX6-GFX12", bit 29;
/// clang's Options.td: "CU wavefront execution mode is used"). gfx1100 ships
/// both modes so every case can run in either.
const OBJECTS: &[(&str, u32, bool)] = &[
    ("gfx1100", 32, false),
    ("gfx1100", 64, false),
    ("gfx1100", 32, true),
    ("gfx1100", 64, true),
    ("gfx1030", 64, false),
    ("gfx1200", 64, false),
    ("gfx90a", 64, false),
    ("gfx942", 64, false),
];

const SOURCE: &str = "kernels/dsxor.hip";
const PREBUILT: &str = "kernels/prebuilt";
const MANIFEST: &str = "kernels/prebuilt/manifest.json";

fn object_file_name(target: &str, wave: u32, cumode: bool) -> String {
    let mode = if cumode { "-cu" } else { "" };
    format!("dsxor-{target}-w{wave}{mode}.co")
}

/// The compiler arguments for one object, minus the output path
/// (`hip_device::device_object_args` and the shipped kernels' own flags). The same
/// list is written to the manifest, so the staleness test rebuilds with
/// exactly these.
///
/// `-cuid=dsxor` fixes the `__hip_cuid_*` symbol, which otherwise hashes the
/// source path into the object (builds would differ between checkouts).
/// `-mcode-object-version=5` is pinned so every compiler gives the same
/// hidden-argument layout (AMDGPUUsage.rst, "Code Object V5 Metadata").
fn compile_args(target: &str, wave: u32, cumode: bool) -> Vec<String> {
    let mut args = hip_device::device_object_args(target, "-O2");
    args.push("-mcode-object-version=5".to_string());
    args.push("-cuid=dsxor".to_string());
    if let Some(flag) = hip_device::wave_size_arg(target, wave) {
        args.push(flag.to_string());
    }
    if cumode {
        args.push("-mcumode".to_string());
    }
    args.push(SOURCE.to_string());
    args
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed={PREBUILT}");
    for var in [
        "DSXOR_CLANG",
        "HIP_CLANG_PATH",
        "ROCM_PATH",
        "DSXOR_KERNELS",
        "DSXOR_REGENERATE_PREBUILT",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    if let Err(e) = kernels() {
        panic!("dsxor build.rs (kernels): {e}");
    }

    // ---- hip: bindings hook ----
    #[cfg(feature = "bindgen")]
    hip_bindgen::build_script_hook();
    // ---- end hip ----
}

fn kernels() -> Result<(), String> {
    let out_dir = PathBuf::from(env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?);
    let manifest_dir = PathBuf::from(
        env::var("CARGO_MANIFEST_DIR").map_err(|e| format!("CARGO_MANIFEST_DIR: {e}"))?,
    );
    let source =
        fs::read(manifest_dir.join(SOURCE)).map_err(|e| format!("reading {SOURCE}: {e}"))?;
    let source_sha = hex::encode(Sha256::digest(&source));

    let force_prebuilt = env::var("DSXOR_KERNELS").is_ok_and(|v| v == "prebuilt");
    let regenerate = env::var("DSXOR_REGENERATE_PREBUILT").is_ok_and(|v| v == "1");
    let explicit = env::var_os("DSXOR_CLANG").is_some();

    let clang = if force_prebuilt && !regenerate {
        None
    } else {
        find_clang(&manifest_dir)
    };
    match &clang {
        // A compiler upgrade in place must rebuild the kernels. Cargo takes
        // the path as a file relative to the package: a bare `clang-22`
        // would be "missing" and rerun this script (and rebuild the crate)
        // on every build, so name the file the loader would run.
        Some(c) => println!("cargo:rerun-if-changed={}", resolve(&c.path).display()),
        // No compiler found: installing one (a new PATH) must be noticed.
        // Only here, so builds with a compiler do not rerun on PATH changes.
        None if !force_prebuilt => println!("cargo:rerun-if-env-changed=PATH"),
        None => {}
    }

    let compiled = match &clang {
        Some(c) => match compile_all(c, &manifest_dir, &out_dir) {
            Ok(v) => Some(v),
            Err(e) if !explicit && !regenerate => {
                println!(
                    "cargo:warning=dsxor: {} failed to build the kernels ({e}); using {PREBUILT}",
                    c.path.display()
                );
                None
            }
            Err(e) => return Err(e),
        },
        None if regenerate => {
            return Err("DSXOR_REGENERATE_PREBUILT=1 but no clang with the AMDGPU target was found (set DSXOR_CLANG)".into())
        }
        None => None,
    };

    let entries: Vec<Entry> = match compiled {
        Some(objects) => {
            let c = clang
                .as_ref()
                .ok_or("internal: compiled without a compiler")?;
            if regenerate {
                write_prebuilt(&manifest_dir, &objects, c, &source_sha)?;
            }
            objects
                .into_iter()
                .map(|o| Entry {
                    target: o.target,
                    wave: o.wave,
                    cumode: o.cumode,
                    path: o.path,
                    origin: "Source",
                    compiler: c.version.clone(),
                })
                .collect()
        }
        None => prebuilt_entries(&manifest_dir, &source_sha)?,
    };

    write_embedded(&out_dir, &entries)
}

struct Clang {
    path: PathBuf,
    /// First line of `--version`.
    version: String,
}

struct Built {
    target: &'static str,
    wave: u32,
    cumode: bool,
    path: PathBuf,
}

struct Entry {
    target: &'static str,
    wave: u32,
    cumode: bool,
    path: PathBuf,
    origin: &'static str,
    compiler: String,
}

fn find_clang(manifest_dir: &Path) -> Option<Clang> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = env::var_os("DSXOR_CLANG") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(p) = env::var_os("HIP_CLANG_PATH") {
        candidates.push(PathBuf::from(p).join("clang"));
    }
    if let Some(p) = env::var_os("ROCM_PATH") {
        candidates.push(PathBuf::from(p).join("llvm/bin/clang"));
    }
    for v in (16..=22).rev() {
        candidates.push(PathBuf::from(format!("clang-{v}")));
    }
    candidates.push(PathBuf::from("clang"));
    let explicit = env::var_os("DSXOR_CLANG").map(PathBuf::from);
    candidates.into_iter().find_map(|p| {
        let found = probe_clang(&p, manifest_dir);
        if found.is_none() && explicit.as_ref() == Some(&p) {
            println!(
                "cargo:warning=dsxor: DSXOR_CLANG={} does not compile HIP for gfx1100; trying the others",
                p.display()
            );
        }
        found
    })
}

/// The file `Command::new(program)` runs: a bare name is looked up on PATH
/// as the OS does, then symlinks are followed (`/usr/bin/clang-22` links
/// into `/usr/lib/llvm-22/bin`, where an upgrade changes the file).
fn resolve(program: &Path) -> PathBuf {
    let found = if program.components().count() > 1 {
        Some(program.to_path_buf())
    } else {
        env::var_os("PATH").and_then(|paths| {
            env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
        })
    };
    found
        .and_then(|p| fs::canonicalize(&p).ok().or(Some(p)))
        .unwrap_or_else(|| program.to_path_buf())
}

/// A clang is usable when it compiles a trivial HIP kernel for gfx1100.
fn probe_clang(path: &Path, dir: &Path) -> Option<Clang> {
    let version = Command::new(path).arg("--version").output().ok()?;
    if !version.status.success() {
        return None;
    }
    let version = String::from_utf8_lossy(&version.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let mut child = Command::new(path)
        .args(hip_device::device_object_args("gfx1100", "-O2"))
        .args(["-fsyntax-only", "-"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    {
        use std::io::Write;
        let mut stdin = child.stdin.take()?;
        stdin
            .write_all(b"extern \"C\" __attribute__((global)) void probe() {}\n")
            .ok()?;
    }
    let status = child.wait().ok()?;
    status.success().then(|| Clang {
        path: path.to_path_buf(),
        version,
    })
}

fn compile_all(clang: &Clang, manifest_dir: &Path, out_dir: &Path) -> Result<Vec<Built>, String> {
    // All at once: each compile is one process, ~0.1 s of CPU.
    let mut running = Vec::new();
    for &(target, wave, cumode) in OBJECTS {
        let path = out_dir.join(object_file_name(target, wave, cumode));
        let child = Command::new(&clang.path)
            .args(compile_args(target, wave, cumode))
            .arg("-o")
            .arg(&path)
            .current_dir(manifest_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", clang.path.display()))?;
        running.push((target, wave, cumode, path, child));
    }
    let mut built = Vec::new();
    let mut errors = Vec::new();
    for (target, wave, cumode, path, child) in running {
        match child.wait_with_output() {
            Ok(o) if o.status.success() => built.push(Built {
                target,
                wave,
                cumode,
                path,
            }),
            Ok(o) => errors.push(format!(
                "{target} wave{wave}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => errors.push(format!("{target} wave{wave}: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(built)
    } else {
        Err(errors.join("; "))
    }
}

fn write_prebuilt(
    manifest_dir: &Path,
    objects: &[Built],
    clang: &Clang,
    source_sha: &str,
) -> Result<(), String> {
    let dir = manifest_dir.join(PREBUILT);
    fs::create_dir_all(&dir).map_err(|e| format!("creating {PREBUILT}: {e}"))?;
    let mut json = String::new();
    json.push_str("{\n");
    json.push_str("  \"format\": \"dsxor-prebuilt/1\",\n");
    let _ = writeln!(json, "  \"source\": {},", json_str(SOURCE));
    let _ = writeln!(json, "  \"source_sha256\": {},", json_str(source_sha));
    let _ = writeln!(json, "  \"compiler\": {},", json_str(&clang.version));
    json.push_str("  \"regenerate\": \"kernels/regenerate.sh\",\n");
    json.push_str("  \"objects\": [\n");
    for (i, o) in objects.iter().enumerate() {
        let name = object_file_name(o.target, o.wave, o.cumode);
        let bytes = fs::read(&o.path).map_err(|e| format!("reading {}: {e}", o.path.display()))?;
        fs::write(dir.join(&name), &bytes)
            .map_err(|e| format!("writing {PREBUILT}/{name}: {e}"))?;
        let args: Vec<String> = compile_args(o.target, o.wave, o.cumode)
            .iter()
            .map(|a| json_str(a))
            .collect();
        let _ = write!(
            json,
            "    {{ \"file\": {}, \"target\": {}, \"wave\": {}, \"cumode\": {}, \"bytes\": {}, \"sha256\": {},\n      \"args\": [{}] }}",
            json_str(&name),
            json_str(o.target),
            o.wave,
            o.cumode,
            bytes.len(),
            json_str(&hex::encode(Sha256::digest(&bytes))),
            args.join(", ")
        );
        json.push_str(if i + 1 < objects.len() { ",\n" } else { "\n" });
    }
    json.push_str("  ]\n}\n");
    fs::write(manifest_dir.join(MANIFEST), json).map_err(|e| format!("writing {MANIFEST}: {e}"))
}

/// Only ASCII paths and flags go in here; escape what JSON requires anyway.
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The value of `"key": "..."` in the manifest (written by `write_prebuilt`,
/// one known layout, so a string search suffices and build.rs needs no JSON
/// parser).
fn manifest_field<'a>(manifest: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\": \"");
    let start = manifest.find(&pat)? + pat.len();
    let len = manifest[start..].find('"')?;
    Some(&manifest[start..start + len])
}

fn prebuilt_entries(manifest_dir: &Path, source_sha: &str) -> Result<Vec<Entry>, String> {
    let manifest = fs::read_to_string(manifest_dir.join(MANIFEST)).map_err(|e| {
        format!("no clang with the AMDGPU target was found and {MANIFEST} is unreadable: {e}")
    })?;
    let compiler = manifest_field(&manifest, "compiler")
        .unwrap_or("unknown")
        .to_string();
    match manifest_field(&manifest, "source_sha256") {
        Some(s) if s == source_sha => {}
        recorded => println!(
            "cargo:warning=dsxor: {SOURCE} changed since {PREBUILT} was made (sha256 {source_sha}, manifest {}); the embedded kernels are the old ones — run kernels/regenerate.sh with clang installed",
            recorded.unwrap_or("missing")
        ),
    }
    let mut entries = Vec::new();
    for &(target, wave, cumode) in OBJECTS {
        let name = object_file_name(target, wave, cumode);
        let path = manifest_dir.join(PREBUILT).join(&name);
        let bytes = fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let sha = hex::encode(Sha256::digest(&bytes));
        if !manifest.contains(&format!("\"sha256\": \"{sha}\"")) {
            println!(
                "cargo:warning=dsxor: {PREBUILT}/{name} does not match the sha256 in {MANIFEST}"
            );
        }
        entries.push(Entry {
            target,
            wave,
            cumode,
            path,
            origin: "Prebuilt",
            compiler: compiler.clone(),
        });
    }
    Ok(entries)
}

fn write_embedded(out_dir: &Path, entries: &[Entry]) -> Result<(), String> {
    let mut rs = String::from("// Generated by build.rs: the embedded code objects.\n");
    rs.push_str("pub static EMBEDDED: &[EmbeddedObject] = &[\n");
    for e in entries {
        let path = e
            .path
            .to_str()
            .ok_or_else(|| format!("non-UTF-8 path {}", e.path.display()))?;
        let wave = if e.wave == 64 { "Wave64" } else { "Wave32" };
        let _ = writeln!(
            rs,
            "    EmbeddedObject {{ target: {:?}, wave: crate::case::WaveSize::{wave}, cumode: {}, bytes: include_bytes!({:?}), origin: Origin::{}, compiler: {:?}, file_name: {:?} }},",
            e.target,
            e.cumode,
            path,
            e.origin,
            e.compiler,
            object_file_name(e.target, e.wave, e.cumode),
        );
    }
    rs.push_str("];\n");
    fs::write(out_dir.join("embedded.rs"), rs).map_err(|e| format!("writing embedded.rs: {e}"))
}
