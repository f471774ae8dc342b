//! `--probe back-to-back` and `--probe exec-zero-in-flight`: three
//! `ds_xor_rtn_b64` of a wave with no wait between them, on a qword each
//! lane owns. Each passes on the software device and through the software
//! HIP runtime, which complete DS instructions in issue order and run an
//! atomic under EXEC = 0 on no lane, and fails, exit 1, on a device made to
//! differ in just what it probes: returns that do not chain (`return-stale`)
//! and lanes that run with their EXEC bit clear (`ignore-exec`).

use std::path::Path;

use crate::common::{self, code, text};

const BOTH: &str = "back-to-back,exec-zero-in-flight";

/// Each record of `name` (one per code object: both wave sizes, both
/// modes) has the verdict `verdict`, every lane of its grid checked, and
/// all or none of them wrong.
fn assert_probe(dir: &Path, name: &str, verdict: &str) {
    for r in &common::inflight_records(dir, name, verdict) {
        let lanes = r["lanes"].as_u64().unwrap();
        let wrong = if verdict == "passed" { 0 } else { lanes };
        assert_eq!(r["wrong_lanes"].as_u64(), Some(wrong), "{r}");
    }
}

fn emu_run(dir: &Path, fault: Option<&str>) -> std::process::Output {
    common::probe_on_emu(dir, BOTH, 5, fault)
}

#[test]
fn both_pass_on_the_software_device_and_each_catches_its_own_deviant() {
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), None);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_probe(dir.path(), "back-to-back", "passed");
    assert_probe(dir.path(), "exec-zero-in-flight", "passed");

    // Lanes whose EXEC bit is clear run the atomic anyway: only the probe
    // of EXEC = 0 can tell (its lanes own their qwords, so chaining holds).
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), Some("ignore-exec"));
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert_probe(dir.path(), "back-to-back", "passed");
    assert_probe(dir.path(), "exec-zero-in-flight", "failed");
    assert!(
        text(&o).contains("probe exec-zero-in-flight (wave64, wgp mode): FAILED"),
        "{}",
        text(&o)
    );

    // A return from before the previous update: the chain breaks.
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), Some("return-stale"));
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert_probe(dir.path(), "back-to-back", "failed");
}

#[test]
fn the_software_hip_runtime_passes_and_fails_as_the_software_device() {
    for (fault, verdict) in [("", "passed"), ("return-stale", "failed")] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let junit = dir.path().join("junit.xml");
        let mut env = vec![];
        if !fault.is_empty() {
            env.push(("DSXOR_HIPSIM_FAULT", fault));
        }
        let o = common::hip("run")
            .cases(4)
            .seed(5)
            .flag("--minimize-budget", "0s")
            .flag("--probe", "back-to-back")
            .out(&out)
            .arg("--junit")
            .arg(&junit)
            .on_hipsim(&env);
        assert_eq!(code(&o), i32::from(verdict == "failed"), "{}", text(&o));
        assert_probe(&out, "back-to-back", verdict);
        let junit = std::fs::read_to_string(junit).unwrap();
        assert!(junit.contains("probe back-to-back/wave64/cu"), "{junit}");
        assert_eq!(junit.contains("<failure"), verdict == "failed", "{junit}");
    }
}

#[test]
fn a_users_object_without_the_probes_kernel_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let user = common::without_kernel(dir.path(), "no-probe.co", "dsxor_probe_exec_zero");
    let out = dir.path().join("out");
    let o = common::emu("run")
        .seed(5)
        .cases(4)
        .arg("--code-object")
        .arg(&user)
        .arg("--probe")
        .arg("exec-zero-in-flight")
        .out(&out)
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains("has no kernel `dsxor_probe_exec_zero`"),
        "{}",
        text(&o)
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&common::results_json(&out)[0]).unwrap())
            .unwrap();
    assert_eq!(r["status"], "aborted");
}
