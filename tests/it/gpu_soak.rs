//! `dsxor soak --backend hip` on the software HIP runtime: the cases and
//! the soak kernel's launches run in worker processes (batched case
//! launches), a clean device passes, a lost update injected by the runtime
//! fails the soak with a repro, a torn read fails the soak kernel's check,
//! and a device fault in a soak kernel launch is a recorded verdict after
//! which a fresh worker goes on.

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
    // The soak kernel ran beside the cases, through the runtime.
    let k = &t["kernel"];
    assert!(k["launches"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(k["failed"], 0, "{r}");
    assert!(k["verified_lane_ops"].as_u64().unwrap() > 0, "{r}");
}

/// Soak kernel launches only, through the runtime's worker processes.
/// (No repro file: the record is the one file the output directory holds.)
fn kernel_soak(env: &[(&str, &str)], launches: u32) -> common::Logged {
    let n = launches.to_string();
    let args = [
        "soak",
        "--max-repros",
        "0",
        "--backend",
        "hip",
        "--kernel-share",
        "1",
        "--launches",
        n.as_str(),
        "--minimize-budget",
        "0s",
        "--seed",
        "5",
    ];
    common::hipsim_logged(&args, env)
}

#[test]
fn the_soak_kernel_through_hip_passes_and_catches_a_torn_read() {
    let s = kernel_soak(&[], 3);
    assert_eq!(s.code, Some(0), "{}", s.text);
    let k = &s.rec["totals"]["kernel"];
    assert_eq!(
        (k["launches"].as_u64(), k["passed"].as_u64()),
        (Some(3), Some(3)),
        "{}",
        s.text
    );
    // Every launch was the soak kernel's, in a worker process (not the
    // test's, not dsxor's own: the parent never loads the runtime's device).
    let soak: Vec<_> = s
        .launches
        .iter()
        .filter(|(_, k)| k == "dsxor_soak")
        .collect();
    assert_eq!(soak.len(), 3, "{:?}", s.launches);
    assert!(soak.iter().all(|(pid, _)| *pid != std::process::id()));

    let s = kernel_soak(&[("DSXOR_HIPSIM_FAULT", "torn")], 1);
    assert_eq!(s.code, Some(1), "{}", s.text);
    let f = &s.rec["kernel_failures"][0];
    assert_eq!(f["outcome"], "wrong-result", "{}", s.text);
    assert!(f["summary"].as_str().unwrap().contains("rotl32"), "{f}");
}

/// A device fault in the second soak kernel launch of each worker: that
/// launch is a `fault` verdict in the record, its replay as a conformance
/// case (the runtime faults only the soak kernel) passes, and the next
/// launch runs in a fresh worker process.
#[test]
fn a_device_fault_in_a_soak_kernel_launch_is_a_verdict_and_a_fresh_worker_goes_on() {
    let s = kernel_soak(&[("DSXOR_HIPSIM_DEVICE_FAULT", "dsxor_soak:2")], 3);
    assert_eq!(s.code, Some(1), "{}", s.text);
    let k = &s.rec["totals"]["kernel"];
    assert_eq!(k["launches"], 3, "{}", s.text);
    assert_eq!(k["failed"], 1, "{}", s.text);
    let f = &s.rec["kernel_failures"][0];
    assert_eq!(f["launch"], 1, "{f}");
    assert_eq!(f["outcome"], "fault", "{f}");
    assert!(
        f["replay"].as_str().unwrap().contains("not reproduced"),
        "{f}"
    );
    let pids: std::collections::BTreeSet<u32> = s
        .launches
        .iter()
        .filter(|(_, k)| k == "dsxor_soak")
        .map(|(p, _)| *p)
        .collect();
    assert_eq!(pids.len(), 2, "{:?}", s.launches);
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
