//! `dsxor soak` on the software device: a short soak passes with its
//! numbers in the record (soak kernel launches and conformance cases), a
//! lost update fails it (exit 1) with a repro that still fails,
//! `--stop-on-failure` stops at the first one, `--resume` continues the
//! same seed stream at the next chunk and kernel launch with the totals of
//! one uninterrupted soak, SIGTERM leaves a final record, and bad durations
//! are refused with exit 2. The soak kernel's own check (`--kernel-share
//! 1`: no conformance case runs) catches every fault class of the software
//! device, and its failures are replayed as conformance cases.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{code, emu, text, text_tail};
use serde_json::Value;

fn record(path: &Path) -> Value {
    let t = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read the soak record {}: {e}", path.display()));
    let v: Value = serde_json::from_str(&t).expect("the record is JSON");
    assert_eq!(v["format"], "dsxor-soak/2");
    v
}

fn n(v: &Value, key: &str) -> u64 {
    v["totals"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("totals.{key} in {v}"))
}

/// `dsxor repro` of `repro` fails (exit 1) with `fault` on the software
/// device and passes without it.
fn fails_under_the_fault_only(repro: &str, fault: &str) {
    let again = common::dsxor(&["repro", repro, "--backend", "emu", "--fault", fault]);
    assert_eq!(code(&again), 1, "{}", text_tail(&again, 10));
    let clean = common::dsxor(&["repro", repro, "--backend", "emu"]);
    assert_eq!(code(&clean), 0, "{}", text_tail(&clean, 10));
}

#[test]
fn a_short_soak_passes_and_records_what_it_verified() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.json");
    let started = Instant::now();
    let o = emu("soak")
        .flag("--duration", "3s")
        .flag("--chunk-cases", 200)
        .seed(1)
        .out(dir.path())
        .flag("--results", path.display())
        .output();
    let wall = started.elapsed();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    let r = record(&path);
    assert_eq!(r["status"], "passed");
    assert_eq!(r["stop_reason"], "duration 3s elapsed");
    assert_eq!(r["seed"], 1);
    assert_eq!(r["chunk_spec"]["cases"], 200);
    let cases = n(&r, "cases");
    assert!(cases > 0, "{r}");
    assert_eq!(n(&r, "passed"), cases);
    assert_eq!(n(&r, "failed"), 0);
    // The software device runs one case per launch.
    assert_eq!(n(&r, "launches"), cases);
    assert!(n(&r, "verified_lane_ops") >= cases, "{r}");
    assert!(n(&r, "contended_lane_ops") > 0, "{r}");
    // The chunk in flight at the deadline is begun, not completed.
    let next = r["next_chunk"].as_u64().unwrap();
    assert!(n(&r, "chunks_completed") + 1 >= next && next >= 1, "{r}");
    assert!(n(&r, "chunks_completed") * 200 <= cases, "{r}");
    assert!(r["rules_out"].as_str().unwrap().starts_with("1 in "), "{r}");
    // Most of the time went to the soak kernel, which verified more.
    assert_eq!(r["kernel_share"], 0.9);
    let k = &r["totals"]["kernel"];
    let launches = k["launches"].as_u64().unwrap();
    assert!(launches > 0, "{r}");
    assert_eq!(k["passed"].as_u64(), Some(launches), "{r}");
    assert_eq!(k["failed"], 0);
    assert_eq!(r["next_launch"].as_u64(), Some(launches));
    assert!(
        k["verified_lane_ops"].as_u64().unwrap() > n(&r, "verified_lane_ops"),
        "{r}"
    );
    assert!(k["contended_lane_ops"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["kernel_failures"].as_array().map(Vec::len), Some(0));
    let elapsed = r["elapsed_ms"].as_u64().unwrap();
    assert!((3000..20_000).contains(&elapsed), "elapsed {elapsed} ms");
    assert!(wall < Duration::from_secs(30), "took {wall:?}");
    let all = text(&o);
    assert!(all.contains("verified lane-ops/s"), "{all}");
    assert!(all.contains("rules out 1 in "), "{all}");
    assert!(all.contains("this pass rules out"), "{all}");
}

#[test]
fn a_lost_update_fails_the_soak_stops_it_and_leaves_a_repro_that_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.json");
    let started = Instant::now();
    // Conformance cases only: this is the chunk path's test.
    let o = emu("soak")
        .fault("lost-update:0.01")
        .flag("--kernel-share", 0)
        .flag("--duration", "10m")
        .arg("--stop-on-failure")
        .flag("--chunk-cases", 200)
        .flag("--minimize-budget", "2s")
        .seed(1)
        .out(dir.path())
        .flag("--results", path.display())
        .output();
    assert_eq!(code(&o), 1, "{}", text_tail(&o, 20));
    // It stopped at the first failure, not at the 10 minutes.
    assert!(started.elapsed() < Duration::from_secs(60));
    let r = record(&path);
    assert_eq!(r["status"], "failed");
    assert_eq!(r["stop_reason"], "first failure");
    assert_eq!(n(&r, "failed"), 1);
    assert_eq!(n(&r, "passed") + 1, n(&r, "cases"));
    let failures = r["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{r}");
    let f = &failures[0];
    assert_eq!(f["chunk"], 0);
    let repro = f["failure"]["repro"].as_str().expect("a repro path");
    assert!(repro.contains(".chunk-0.repro-"), "{repro}");
    assert_eq!(r["repros"][0].as_str(), Some(repro));
    // The repro is a normal one, of the chunk's seed: it fails again under
    // the fault and passes without it.
    let rep: Value = serde_json::from_str(&std::fs::read_to_string(repro).unwrap()).unwrap();
    assert_eq!(rep["seed"], f["chunk_seed"]);
    fails_under_the_fault_only(repro, "lost-update:0.01");

    // Without --stop-on-failure the soak runs on and still exits 1.
    let path2 = dir.path().join("soak2.json");
    let o = emu("soak")
        .fault("lost-update:0.01")
        .flag("--kernel-share", 0)
        .flag("--chunks", 1)
        .flag("--chunk-cases", 60)
        .flag("--minimize-budget", "0s")
        .flag("--max-repros", 1)
        .seed(1)
        .out(dir.path())
        .flag("--results", path2.display())
        .output();
    assert_eq!(code(&o), 1, "{}", text_tail(&o, 20));
    let r = record(&path2);
    assert_eq!(r["status"], "failed");
    assert_eq!(n(&r, "cases"), 60, "{r}");
    assert!(n(&r, "failed") > 1, "{r}");
    assert_eq!(
        r["failures"].as_array().unwrap().len() as u64,
        n(&r, "failed")
    );
}

#[test]
fn resume_continues_at_the_next_chunk_and_the_totals_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let soak = |chunks: u64, results: &Path| {
        // Conformance cases only: with the kernel interleaved by time, a
        // chunk's count of kernel launches is not fixed.
        emu("soak")
            .flag("--kernel-share", 0)
            .flag("--chunks", chunks)
            .flag("--chunk-cases", 60)
            .flag("--jobs", 1)
            .out(dir.path())
            .flag("--results", results.display())
    };
    let a = dir.path().join("a.json");
    let o = soak(2, &a).seed(9).output();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    let first = record(&a);
    assert_eq!(first["next_chunk"], 2);
    assert_eq!(n(&first, "cases"), 120);
    assert_eq!(n(&first, "chunks_completed"), 2);

    // The record names the seed and selection: a --seed beside --resume is refused.
    let o = emu("soak")
        .flag("--chunks", 1)
        .flag("--resume", a.display())
        .seed(9)
        .output();
    assert_eq!(code(&o), 2, "{}", text_tail(&o, 10));

    let o = emu("soak")
        .flag("--chunks", 3)
        .flag("--jobs", 1)
        .flag("--resume", a.display())
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    assert!(text(&o).contains("from chunk 2,"), "{}", text_tail(&o, 20));
    let resumed = record(&a);
    assert_eq!(resumed["next_chunk"], 5);
    assert_eq!(resumed["sessions"], 2);
    assert_eq!(resumed["seed"], 9);
    assert_eq!(n(&resumed, "cases"), 300);
    assert_eq!(n(&resumed, "chunks_completed"), 5);
    assert_eq!(resumed["started_utc"], first["started_utc"]);
    assert!(
        resumed["elapsed_ms"].as_u64().unwrap() >= first["elapsed_ms"].as_u64().unwrap(),
        "{resumed}"
    );

    // One uninterrupted soak of 5 chunks of the same seed ran the same
    // cases: every total is equal.
    let b = dir.path().join("b.json");
    let o = soak(5, &b).seed(9).output();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    let whole = record(&b);
    for key in [
        "cases",
        "passed",
        "launches",
        "verified_lane_ops",
        "contended_lane_ops",
        "chunks_completed",
    ] {
        assert_eq!(n(&resumed, key), n(&whole, key), "{key}");
    }
    assert!(n(&first, "verified_lane_ops") < n(&whole, "verified_lane_ops"));
    assert_eq!(resumed["rules_out"], whole["rules_out"]);
}

#[test]
fn sigterm_writes_a_final_record_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.json");
    let mut child = emu("soak")
        .flag("--duration", "1h")
        .flag("--chunk-cases", 100)
        .flag("--checkpoint", "1h")
        .seed(2)
        .out(dir.path())
        .flag("--results", path.display())
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The record is written when the soak starts; let it run a little.
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "no record");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(record(&path)["status"], "running");
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("still running 30 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(3));
    let r = record(&path);
    assert_eq!(r["status"], "aborted");
    assert!(
        r["stop_reason"]
            .as_str()
            .unwrap()
            .starts_with("stopped by SIGTERM"),
        "{r}"
    );
    assert!(n(&r, "cases") > 0, "{r}");
    assert_eq!(n(&r, "failed"), 0);
}

#[test]
fn bad_limits_exit_2_with_the_flag_named() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, value) in [
        ("--duration", "soon"),
        ("--duration", "0s"),
        ("--duration", "31days"),
        ("--duration", "18446744073709551615"),
        ("--checkpoint", "0s"),
        ("--checkpoint", "forever"),
        ("--checkpoint", "2days"),
        ("--chunk-cases", "0"),
        ("--kernel-share", "1.5"),
        ("--kernel-share", "nan"),
        ("--launches", "0"),
    ] {
        let mut args = emu("soak").flag(flag, value).out(dir.path());
        if flag != "--duration" {
            args = args.flag("--duration", "1s");
        }
        let o = args.output();
        let t = text(&o);
        assert_eq!(code(&o), 2, "{flag} {value}: {t}");
        assert!(t.contains(flag), "{flag} {value}: {t}");
        assert!(!t.contains("panicked"), "{flag} {value}: {t}");
    }
    // No limit at all: refused, naming what would give one.
    let o = emu("soak").out(dir.path()).output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("--duration"), "{}", text(&o));
    // A results file is not a soak record.
    let other = dir.path().join("other.json");
    std::fs::write(&other, r#"{"format": "dsxor-results/1"}"#).unwrap();
    let o = emu("soak")
        .flag("--duration", "1s")
        .flag("--resume", other.display())
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("dsxor-soak/2"), "{}", text(&o));
    assert!(!text(&o).contains("panicked"));
    // A record of the format before the soak kernel: refused, saying why.
    let old = dir.path().join("old.json");
    std::fs::write(&old, r#"{"format": "dsxor-soak/1"}"#).unwrap();
    let o = emu("soak")
        .flag("--duration", "1s")
        .flag("--resume", old.display())
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("start a new soak"), "{}", text(&o));
}

/// Kernel launches only: `--launches N` soaks of one seed.
fn kernel_soak(dir: &Path, results: &Path) -> crate::common::EmuArgs {
    emu("soak")
        .flag("--kernel-share", 1)
        .out(dir)
        .flag("--results", results.display())
}

/// Every fault class of the software device fails the first soak kernel
/// launch by the kernel's check alone: `--kernel-share 1` runs no
/// conformance case, so the failure is the kernel's (the replay after it is
/// recorded beside it). The launch is wave32 WGP mode, 2 groups of 32 waves
/// (seed 1's launch 0), with lone lanes, contended qwords, inactive lanes
/// and neighbouring qwords in use.
#[test]
fn the_soak_kernel_alone_catches_every_fault_class() {
    let dir = tempfile::tempdir().unwrap();
    for fault in [
        "lost-update",
        "return-new",
        "ignore-exec",
        "drop-offset1",
        "swap-dwords",
        "low-dword-only",
        "cross-wave-lost-update",
        "return-stale",
        "torn",
        "drop-write",
        "stray-write",
    ] {
        let path = dir.path().join(format!("{fault}.json"));
        let o = kernel_soak(dir.path(), &path)
            .fault(fault)
            .flag("--minimize-budget", "0s")
            .flag("--launches", 4)
            .arg("--stop-on-failure")
            .seed(1)
            .output();
        assert_eq!(code(&o), 1, "{fault}: {}", text_tail(&o, 20));
        let r = record(&path);
        assert_eq!(r["status"], "failed", "{fault}");
        assert_eq!(r["stop_reason"], "first failure", "{fault}");
        assert_eq!(n(&r, "cases"), 0, "{fault}: no conformance case ran");
        let k = &r["totals"]["kernel"];
        assert_eq!(
            (k["launches"].as_u64(), k["failed"].as_u64()),
            (Some(1), Some(1)),
            "{fault}"
        );
        let f = &r["kernel_failures"][0];
        assert_eq!(f["launch"], 0, "{fault}");
        assert_eq!(f["outcome"], "wrong-result", "{fault}");
        assert!(
            f["replay"]
                .as_str()
                .unwrap()
                .starts_with("failed as a conformance case"),
            "{fault}: {f}"
        );
    }
}

/// A kernel failure's replay is minimized into a normal repro file, which
/// fails again under the fault and passes without it.
#[test]
fn a_kernel_failure_leaves_a_repro_that_fails_under_the_fault_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.json");
    let o = kernel_soak(dir.path(), &path)
        .fault("return-stale")
        .flag("--minimize-budget", "3s")
        .flag("--launches", 4)
        .arg("--stop-on-failure")
        .seed(2)
        .output();
    assert_eq!(code(&o), 1, "{}", text_tail(&o, 20));
    let r = record(&path);
    let f = &r["kernel_failures"][0];
    let repro = f["repro"].as_str().expect("a repro path");
    assert!(repro.contains(".launch-0.repro.json"), "{repro}");
    assert_eq!(r["repros"][0].as_str(), Some(repro));
    assert!(
        f["replay"].as_str().unwrap().contains("minimized to"),
        "{f}"
    );
    fails_under_the_fault_only(repro, "return-stale");
}

/// Kernel launches are fixed by the seed and the launch index: 3 then 2
/// more launches resumed add up to one soak of 5.
#[test]
fn resume_continues_at_the_next_kernel_launch() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let o = kernel_soak(dir.path(), &a)
        .flag("--launches", 3)
        .seed(4)
        .output();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    assert_eq!(record(&a)["next_launch"], 3);
    let o = emu("soak")
        .flag("--launches", 2)
        .flag("--resume", a.display())
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    assert!(text(&o).contains("from launch 3,"), "{}", text_tail(&o, 20));
    let resumed = record(&a);
    let b = dir.path().join("b.json");
    let o = kernel_soak(dir.path(), &b)
        .flag("--launches", 5)
        .seed(4)
        .output();
    assert_eq!(code(&o), 0, "{}", text_tail(&o, 20));
    let whole = record(&b);
    assert_eq!(resumed["next_launch"], 5);
    assert_eq!(resumed["kernel_share"], 1.0);
    for key in [
        "launches",
        "passed",
        "verified_lane_ops",
        "contended_lane_ops",
    ] {
        assert_eq!(
            resumed["totals"]["kernel"][key], whole["totals"]["kernel"][key],
            "{key}"
        );
    }
    assert_eq!(n(&resumed, "cases"), 0);
}
