//! The HIP layer against the real runtime library (libamdhip64), on a
//! machine with or without a GPU. The runtime is the oracle: its own
//! version string in the file name, its own error names.
//! Without the library: skipped locally, a failure under DSXOR_REQUIRE_TOOLS=1.

use crate::common;

use std::path::{Path, PathBuf};

use dsxor::hip::{Devices, Hip, HipError};

fn hip() -> Option<Hip> {
    match Hip::load() {
        Ok(h) => Some(h),
        Err(e) => {
            common::missing("libamdhip64 (the HIP runtime)", &e.to_string());
            None
        }
    }
}

/// A machine with a GPU has the amdgpu driver's compute node.
fn gpu_machine() -> bool {
    Path::new("/dev/kfd").exists()
}

#[test]
fn library_loads_and_reports_its_version() {
    let Some(hip) = hip() else { return };
    let lib = hip.library();
    let v = hip
        .runtime_version()
        .expect("hipRuntimeGetVersion succeeds without a GPU");
    assert!(v.major() >= 5, "runtime version {v}");
    // The library file's own name carries its version (Debian:
    // libamdhip64.so.5.2.21153; ROCm: libamdhip64.so.6.3.60300 style, whose
    // patch field differs). Where the full x.y.z is in the name, it must be
    // the version the runtime reports.
    if let Some(resolved) = &lib.resolved {
        let name = resolved.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let prefix = format!("libamdhip64.so.{}.{}.", v.major(), v.minor());
        assert!(
            name.starts_with(&prefix) || !name.starts_with("libamdhip64.so."),
            "library file {name} does not carry runtime version {v}"
        );
        if name == format!("libamdhip64.so.{v}") {
            eprintln!("runtime version {v} matches the file name {name}");
        }
    }
}

#[test]
fn no_device_is_hip_error_no_device() {
    let Some(hip) = hip() else { return };
    if gpu_machine() {
        eprintln!("SKIPPED: /dev/kfd exists: this machine may have a GPU; the no-device path is not testable here");
        return;
    }
    let err = hip.device_count().expect_err("no GPU here, so no device");
    assert!(err.is_no_device(), "{err}");
    let status = err.status().expect("a HIP call error");
    assert_eq!(status.code, 100);
    assert_eq!(status.name, "hipErrorNoDevice");
    let text = err.to_string();
    assert!(text.contains("hipGetDeviceCount"), "{text}");
    assert!(text.contains("hipErrorNoDevice"), "{text}");

    let report = dsxor::hip::probe_with(hip.clone());
    assert!(matches!(
        report.devices,
        Devices::None { error: Some(_), .. }
    ));
    assert!(report.usable_devices().is_empty());
    let reason = report.no_device_reason().expect("a reason");
    assert!(reason.contains("hipErrorNoDevice"), "{reason}");
    assert!(reason.contains("/dev/kfd"), "{reason}");
}

#[test]
fn device_queries_without_a_device_are_errors_not_panics() {
    let Some(hip) = hip() else { return };
    if gpu_machine() {
        eprintln!("SKIPPED: /dev/kfd exists; see tests/it/gpu_hip_backend.rs");
        return;
    }
    for result in [
        hip.device(0).map(|_| ()),
        hip.set_device(0),
        hip.alloc(64).map(|_| ()),
        hip.stream().map(|_| ()),
        hip.load_module(b"\x7fELF not really").map(|_| ()),
    ] {
        let e = result.expect_err("no device");
        // HIP names the failure itself; dsxor says what it was doing.
        let s = e.status().map(|s| s.name.clone()).unwrap_or_default();
        assert!(s.starts_with("hipError"), "{e}");
        assert!(e.to_string().contains(" while "), "{e}");
    }
    assert!(matches!(hip.device(u32::MAX), Err(HipError::Invalid(_))));
}

/// `DSXOR_HIP_LIB` / `Hip::load_from` with a bare soname ask the dynamic
/// loader, as dlopen does: the name the default search loaded by must load
/// again the same way, giving the same file.
#[test]
fn a_bare_soname_is_found_by_the_loader() {
    let Some(hip) = hip() else { return };
    let lib = hip.library();
    if lib.candidate.contains('/') {
        eprintln!(
            "SKIPPED: the runtime was found as a path ({}), not by the loader",
            lib.candidate
        );
        return;
    }
    let again = Hip::load_from(&lib.candidate)
        .unwrap_or_else(|e| panic!("{} loaded by the search but not alone: {e}", lib.candidate));
    assert_eq!(again.library().resolved, lib.resolved);
}

#[test]
fn nonexistent_library_is_named_in_the_error() {
    let err = Hip::load_from("/nonexistent/libamdhip64.so").expect_err("no such file");
    let text = err.to_string();
    assert!(text.contains("/nonexistent/libamdhip64.so"), "{text}");
    assert!(text.contains("no such file"), "{text}");
}

#[test]
fn a_file_that_is_not_a_library_gives_the_loaders_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("libamdhip64.so");
    std::fs::write(&path, b"not an ELF file").expect("write");
    let err = Hip::load_from(path.to_str().expect("utf-8 path")).expect_err("not a library");
    let text = err.to_string();
    assert!(text.contains(path.to_str().unwrap_or("?")), "{text}");
    // glibc's dlopen: "invalid ELF header" / "file too short".
    assert!(text.contains("ELF") || text.contains("too short"), "{text}");
}

/// libc is a real shared library with none of HIP's entry points: it
/// loads, and each call reports its missing symbol instead of panicking.
/// This is what the dynamic-loading bindings are for.
#[test]
fn a_library_without_hip_symbols_fails_per_call() {
    let libc = std::fs::read_to_string("/proc/self/maps")
        .ok()
        .and_then(|m| {
            m.lines()
                .filter_map(|l| l.split_whitespace().nth(5))
                .find(|p| {
                    Path::new(p)
                        .file_name()
                        .and_then(|f| f.to_str())
                        .is_some_and(|f| f.starts_with("libc.so") || f.starts_with("libc-"))
                })
                .map(PathBuf::from)
        });
    let Some(libc) = libc else {
        eprintln!("SKIPPED: libc is not a mapped shared library here");
        return;
    };
    let hip = Hip::load_from(libc.to_str().expect("utf-8")).expect("libc loads");
    let err = hip
        .device_count()
        .expect_err("libc has no hipGetDeviceCount");
    match &err {
        HipError::MissingSymbol { symbol, .. } => assert_eq!(*symbol, "hipGetDeviceCount"),
        other => panic!("unexpected {other}"),
    }
    // Error names fall back to the number when hipGetErrorName is missing.
    assert_eq!(hip.status(100).name, "hipError 100");
}

#[test]
fn dsxor_info_reports_the_runtime_and_no_device() {
    if hip().is_none() {
        return;
    }
    let out = common::dsxor(&["info"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("HIP library: "), "{stdout}");
    assert!(stdout.contains("HIP runtime version: "), "{stdout}");
    if gpu_machine() {
        eprintln!("SKIPPED (no-device part): /dev/kfd exists");
        return;
    }
    assert!(stdout.contains("devices: none"), "{stdout}");
    assert!(stdout.contains("hipErrorNoDevice"), "{stdout}");

    let out = common::dsxor(&["info", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("info --json is JSON");
    assert_eq!(v["hip_error"], "hipErrorNoDevice");
    assert!(v["library"].is_string());
    assert_eq!(v["devices"].as_array().map(|a| a.len()), Some(0));

    let out = common::dsxor(&["info", "--require-device"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hipErrorNoDevice"), "{stderr}");
}

#[test]
fn dsxor_info_names_a_nonexistent_dsxor_hip_lib() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(["info", "--require-device"])
        .env("DSXOR_HIP_LIB", "/nonexistent")
        .output()
        .expect("dsxor runs");
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("HIP library: not found"), "{stdout}");
    assert!(stdout.contains("/nonexistent: no such file"), "{stdout}");
    // The candidates are listed once, on stdout; the error says why.
    assert!(
        stderr.contains("libamdhip64 could not be loaded"),
        "{stderr}"
    );
    assert_eq!(
        stdout.matches("/nonexistent: no such file").count(),
        1,
        "{stdout}"
    );
    // Without --require-device the report itself is a success.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .arg("info")
        .env("DSXOR_HIP_LIB", "/nonexistent")
        .output()
        .expect("dsxor runs");
    assert_eq!(out.status.code(), Some(0));
}
