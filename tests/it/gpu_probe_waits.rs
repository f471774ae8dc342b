//! `--probe unused-vdst-lanes` and `--probe smem-in-flight`: what a wait
//! covers, where silicon may choose among outcomes. Each passes on every
//! legal outcome and counts which one the device showed, and fails on a
//! device made to differ in just what it probes:
//!
//! - unused VDST lanes written before the wait: the software device keeps
//!   the write, the software HIP runtime with
//!   `DSXOR_HIPSIM_UNUSED_LANES=restored` loses it (both legal: Mesa's
//!   gfx11 warning), and lanes that run with EXEC clear (`ignore-exec`)
//!   break it;
//! - an SMEM load beside the atomic under `lgkmcnt(1)`: the software device
//!   lands SMEM first, so the DS result is out at the partial wait; a device
//!   whose partial wait is one short (`DSXOR_HIPSIM_WAITCNT=one-short`)
//!   leaves both out, which no legal device does.

use std::path::Path;

use crate::common::{self, code, text};

const BOTH: &str = "unused-vdst-lanes,smem-in-flight";

/// Each of the 4 records (both wave sizes, both modes) of `name` has
/// `verdict`, every lane of its grid checked, and, when it passed, exactly
/// `outcomes` (name, share of the lanes: 1 all, 2 half).
fn assert_probe(dir: &Path, name: &str, verdict: &str, outcomes: &[(&str, u64)]) {
    for r in &common::inflight_records(dir, name, verdict) {
        let lanes = r["lanes"].as_u64().unwrap();
        if verdict == "passed" {
            assert_eq!(r["wrong_lanes"], 0, "{r}");
            let want: serde_json::Map<String, serde_json::Value> = outcomes
                .iter()
                .map(|(k, share)| (k.to_string(), (lanes / share).into()))
                .collect();
            assert_eq!(r["outcomes"], serde_json::Value::Object(want), "{r}");
        } else {
            assert!(r["wrong_lanes"].as_u64().unwrap() > 0, "{r}");
        }
    }
}

fn emu_run(dir: &Path, fault: Option<&str>) -> std::process::Output {
    common::probe_on_emu(dir, BOTH, 7, fault)
}

fn hip_run(dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    common::probe_on_hipsim(dir, BOTH, 7, env)
}

#[test]
fn both_pass_on_the_software_device_counting_what_it_showed() {
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), None);
    assert_eq!(code(&o), 0, "{}", text(&o));
    // Odd lanes keep the write (unused-lanes-kept); SMEM lands first at a
    // partial wait (smem-returns-first), so every DS result is still out.
    assert_probe(
        dir.path(),
        "unused-vdst-lanes",
        "passed",
        &[("unused-write-kept", 2)],
    );
    assert_probe(
        dir.path(),
        "smem-in-flight",
        "passed",
        &[("ds-out-at-partial-wait", 1)],
    );
    assert!(
        text(&o).contains("(lanes: unused-write-kept 1024)"),
        "{}",
        text(&o)
    );

    // Lanes that run with EXEC clear: the odd lanes' registers and qwords
    // take the atomic, which neither legal outcome allows.
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), Some("ignore-exec"));
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert_probe(dir.path(), "unused-vdst-lanes", "failed", &[]);
    assert!(
        text(&o).contains("probe unused-vdst-lanes (wave32, wgp mode): FAILED"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_software_hip_runtime_shows_each_legal_device_and_fails_the_one_short() {
    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_probe(
        dir.path(),
        "unused-vdst-lanes",
        "passed",
        &[("unused-write-kept", 2)],
    );

    // The device Mesa's warning allows: the write before the wait is lost.
    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), &[("DSXOR_HIPSIM_UNUSED_LANES", "restored")]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert_probe(
        dir.path(),
        "unused-vdst-lanes",
        "passed",
        &[("unused-write-lost", 2)],
    );

    // A partial lgkmcnt wait that lands neither result: every lane fails,
    // and the full wait still made r and s right.
    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), &[("DSXOR_HIPSIM_WAITCNT", "one-short")]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert_probe(dir.path(), "smem-in-flight", "failed", &[]);
    for r in common::probe_records(dir.path(), "smem-in-flight") {
        assert_eq!(r["wrong_lanes"], r["lanes"], "{r}");
    }
    assert_probe(
        dir.path(),
        "unused-vdst-lanes",
        "passed",
        &[("unused-write-kept", 2)],
    );
}

#[test]
fn a_bad_waitcnt_or_unused_lanes_setting_is_refused_by_name() {
    for (var, value) in [
        ("DSXOR_HIPSIM_WAITCNT", "sometimes"),
        ("DSXOR_HIPSIM_UNUSED_LANES", "maybe"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = hip_run(dir.path(), &[(var, value)]);
        assert_ne!(code(&o), 0, "{}", text(&o));
        assert!(text(&o).contains(&format!("{var}={value}")), "{}", text(&o));
    }
}
