//! `--probe vdst-out-of-range`: a `ds_xor_rtn_b64` whose VDST lies past the
//! wave's VGPR allocation is issued as if EXEC were 0 (RDNA3 ISA guide
//! §3.3.3), so it must change nothing, and an in-range atomic after it
//! must return the qword's value. It passes on the software device and the
//! software HIP runtime (policy `vdst-out-of-range-nullified`), and fails
//! on every lane of a device without the rule
//! (`DSXOR_HIPSIM_VDST_RANGE=unchecked`) and of one whose lanes run with
//! EXEC clear (`--fault ignore-exec`).

use std::path::Path;

use crate::common::{self, code, text};

const PROBE: &str = "vdst-out-of-range";

fn hip_run(dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    common::probe_on_hipsim(dir, PROBE, 7, env)
}

fn emu_run(dir: &Path, fault: Option<&str>) -> std::process::Output {
    common::probe_on_emu(dir, PROBE, 7, fault)
}

/// Every record failed, on every lane.
fn all_lanes_wrong(dir: &Path) {
    for r in &common::inflight_records(dir, PROBE, "failed") {
        assert_eq!(r["wrong_lanes"], r["lanes"], "{r}");
    }
}

#[test]
fn passes_where_the_rule_holds_and_fails_where_the_atomic_lands() {
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), None);
    assert_eq!(code(&o), 0, "{}", text(&o));
    for r in &common::inflight_records(dir.path(), PROBE, "passed") {
        assert_eq!(r["wrong_lanes"], 0, "{r}");
    }
    assert!(
        text(&o).contains("probe vdst-out-of-range (wave64, cu mode): passed"),
        "{}",
        text(&o)
    );

    // The nullified atomic is EXEC = 0; lanes that ignore EXEC run it.
    let dir = tempfile::tempdir().unwrap();
    let o = emu_run(dir.path(), Some("ignore-exec"));
    assert_eq!(code(&o), 1, "{}", text(&o));
    all_lanes_wrong(dir.path());
}

#[test]
fn the_software_hip_runtime_passes_and_fails_a_device_without_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    common::inflight_records(dir.path(), PROBE, "passed");

    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), &[("DSXOR_HIPSIM_VDST_RANGE", "unchecked")]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    all_lanes_wrong(dir.path());
    assert!(
        text(&o).contains("changing nothing"),
        "the failure names the rule: {}",
        text(&o)
    );

    let dir = tempfile::tempdir().unwrap();
    let o = hip_run(dir.path(), &[("DSXOR_HIPSIM_VDST_RANGE", "sometimes")]);
    assert_ne!(code(&o), 0, "{}", text(&o));
    assert!(
        text(&o).contains("DSXOR_HIPSIM_VDST_RANGE=sometimes"),
        "{}",
        text(&o)
    );
}
