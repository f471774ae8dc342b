//! `--probe leftover-lds` (LeftoverLocals, CVE-2023-4969): it passes on a
//! device that clears LDS (the software device, and the software HIP
//! runtime by default) and fails, exit 1, naming the leaked bytes, on one
//! that keeps LDS between launches (`DSXOR_HIPSIM_LDS=leftover`).

use std::path::Path;

use crate::common::{self, code, text};

/// The probes of the one results file in `dir`.
fn probes(dir: &Path) -> Vec<serde_json::Value> {
    let files = common::results_json(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    r["probes"].as_array().cloned().unwrap_or_default()
}

fn hip_run(dir: &Path, lds: &str) -> std::process::Output {
    let out = dir.join("out");
    let junit = dir.join("junit.xml");
    common::dsxor_hipsim(
        &[
            "run",
            "--backend",
            "hip",
            "--cases",
            "8",
            "--seed",
            "3",
            "--probe",
            "leftover-lds",
            "--out",
            out.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &[("DSXOR_HIPSIM_LDS", lds)],
    )
}

#[test]
fn a_clearing_software_device_passes_having_read_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::emu("run")
        .seed(3)
        .cases(8)
        .arg("--probe")
        .arg("leftover-lds")
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let p = probes(dir.path());
    // One per code object: both wave sizes, both modes.
    assert_eq!(p.len(), 4, "{p:?}");
    for r in &p {
        assert_eq!(r["verdict"], "passed", "{r}");
        assert_eq!(r["leaked_bytes"], 0, "{r}");
        let groups = r["groups"].as_u64().unwrap();
        assert!(groups >= 4, "{r}");
        assert_eq!(r["bytes_read"].as_u64(), Some(groups * 65536), "{r}");
    }
}

#[test]
fn the_software_hip_runtime_passes_when_it_clears_and_fails_when_it_leaks() {
    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), "cleared");
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(probes(&dir.path().join("out"))
        .iter()
        .all(|r| r["verdict"] == "passed" && r["leaked_bytes"] == 0));

    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), "leftover");
    assert_eq!(code(&o), 1, "{}", text(&o));
    let p = probes(&dir.path().join("out"));
    assert_eq!(p.len(), 4, "{p:?}");
    for r in &p {
        assert_eq!(r["verdict"], "failed", "{r}");
        let leaked = r["leaked_bytes"].as_u64().unwrap();
        // Every byte the fill wrote was still there for the listener.
        assert_eq!(Some(leaked), r["bytes_read"].as_u64(), "{r}");
        assert!(leaked > 0);
        assert!(
            text(&o).contains(&format!("security: {leaked} of {leaked} LDS bytes")),
            "{}",
            text(&o)
        );
    }
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(junit.contains("probe leftover-lds/wave32/wgp"), "{junit}");
    assert!(junit.contains("<failure"), "{junit}");
}

#[test]
fn a_bad_lds_setting_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), "sometimes");
    assert_ne!(code(&o), 0, "{}", text(&o));
    assert!(
        text(&o).contains("DSXOR_HIPSIM_LDS=sometimes"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_users_object_without_the_probes_kernels_is_bad_input_with_aborted_results() {
    // The shipped object with its fill kernel renamed: as a user's build of
    // the conformance kernels alone would be.
    let dir = tempfile::tempdir().unwrap();
    let user = common::without_kernel(
        dir.path(),
        "no-probe.co",
        dsxor::backend::conformance::FILL_KERNEL,
    );
    let out = dir.path().join("out");
    let o = common::emu("run")
        .seed(3)
        .cases(4)
        .arg("--code-object")
        .arg(&user)
        .arg("--probe")
        .arg("leftover-lds")
        .out(&out)
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains("has no kernel `dsxor_lds_fill`"),
        "{}",
        text(&o)
    );
    let files = common::results_json(&out);
    assert_eq!(files.len(), 1, "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    assert_eq!(r["status"], "aborted");
    assert!(
        r["abort_reason"]
            .as_str()
            .unwrap()
            .starts_with("probe leftover-lds:"),
        "{r}"
    );
}
