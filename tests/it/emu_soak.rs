//! `dsxor soak` on the software device: a short soak passes with its
//! numbers in the record, a lost update fails it (exit 1) with a repro that
//! still fails, `--stop-on-failure` stops at the first one, `--resume`
//! continues the same seed stream at the next chunk with the totals of one
//! uninterrupted soak, SIGTERM leaves a final record, and bad durations are
//! refused with exit 2.

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
    assert_eq!(v["format"], "dsxor-soak/1");
    v
}

fn n(v: &Value, key: &str) -> u64 {
    v["totals"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("totals.{key} in {v}"))
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
    let o = emu("soak")
        .fault("lost-update:0.01")
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
    let again = common::dsxor(&[
        "repro",
        repro,
        "--backend",
        "emu",
        "--fault",
        "lost-update:0.01",
    ]);
    assert_eq!(code(&again), 1, "{}", text_tail(&again, 10));
    let clean = common::dsxor(&["repro", repro, "--backend", "emu"]);
    assert_eq!(code(&clean), 0, "{}", text_tail(&clean, 10));

    // Without --stop-on-failure the soak runs on and still exits 1.
    let path2 = dir.path().join("soak2.json");
    let o = emu("soak")
        .fault("lost-update:0.01")
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
        emu("soak")
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
    assert!(text(&o).contains("dsxor-soak/1"), "{}", text(&o));
    assert!(!text(&o).contains("panicked"));
}
