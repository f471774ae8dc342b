//! `dsxor soak --backend hip` on the software HIP runtime: the cases run in
//! worker processes (batched launches), a clean device passes, and a lost
//! update injected by the runtime fails the soak with a repro.

use crate::common;

use serde_json::Value;

use common::{code, hip, text_tail};

fn record(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the soak record")).unwrap()
}

#[test]
fn a_short_soak_through_hip_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.json");
    let o = hip("soak")
        .flag("--chunks", 2)
        .flag("--chunk-cases", 40)
        // The small families: the soak's path is the test, not the shapes
        // (gpu_run runs those through the runtime).
        .pattern("uniform,one-address,k-per-address,exec-mask")
        .seed(3)
        .out(dir.path())
        .flag("--results", path.display())
        .on_hipsim(&[]);
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    let r = record(&path);
    assert_eq!(r["status"], "passed");
    assert_eq!(r["environment"]["device"]["backend"], "hip");
    let t = &r["totals"];
    assert_eq!(t["cases"], 80);
    assert_eq!(t["passed"], 80);
    let launches = t["launches"].as_u64().unwrap();
    // Batched: compatible cases share a launch.
    assert!(launches > 0 && launches < 80, "{launches} launches");
    assert!(t["verified_lane_ops"].as_u64().unwrap() > 80);
}

#[test]
fn a_lost_update_through_hip_fails_the_soak_with_a_repro() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.json");
    let o = hip("soak")
        .arg("--stop-on-failure")
        .flag("--duration", "5m")
        .flag("--chunk-cases", 40)
        .flag("--minimize-budget", "1s")
        .pattern("one-address")
        .seed(1)
        .out(dir.path())
        .flag("--results", path.display())
        .on_hipsim(&[("DSXOR_HIPSIM_FAULT", "lost-update")]);
    assert_eq!(code(&o), 1, "{}", text_tail(&o, 20));
    let r = record(&path);
    assert_eq!(r["status"], "failed");
    assert_eq!(r["stop_reason"], "first failure");
    assert_eq!(r["totals"]["failed"], 1);
    let repro = r["failures"][0]["failure"]["repro"]
        .as_str()
        .expect("a repro");
    assert!(std::path::Path::new(repro).exists(), "{repro}");
}
