//! `dsxor report`: files in, SVG and Markdown out, and the regression gate's
//! exit codes (0 within threshold, 1 below it or a failed run, 2 bad input).

use crate::bench_support;
use crate::common;

use bench_support::record;
use std::path::Path;

fn write(dir: &Path, name: &str, rec: &dsxor::report::bench_record::BenchRecord) -> String {
    let p = dir.join(name);
    rec.save(&p).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn renders_svg_and_markdown_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.json",
        &record("2026-11-30T02:00:00Z", "emu", 1.0),
    );
    let b = write(
        dir.path(),
        "b.json",
        &record("2026-12-01T02:00:00Z", "emu", 0.9),
    );
    let svg = dir.path().join("out.svg");
    let md = dir.path().join("out.md");
    let out = common::dsxor(&[
        "report",
        &b,
        &a,
        "--svg",
        svg.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("across 2 record(s)"));
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("## Latest record, 2026-12-01T02:00:00Z"));
    assert!(md.contains("## Across 2 records"));
}

#[test]
fn markdown_goes_to_stdout_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.json",
        &record("2026-11-30T02:00:00Z", "hip", 1.0),
    );
    let out = common::dsxor(&["report", &a]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("| `conflict-free/indep/wave32` |"));
}

#[test]
fn regression_gate() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(
        dir.path(),
        "base.json",
        &record("2026-11-30T02:00:00Z", "emu", 1.0),
    );
    let same = write(
        dir.path(),
        "same.json",
        &record("2026-12-01T02:00:00Z", "emu", 0.95),
    );
    let slow = write(
        dir.path(),
        "slow.json",
        &record("2026-12-01T02:00:00Z", "emu", 0.5),
    );
    let ok = common::dsxor(&["report", &same, "--fail-below", "90", "--baseline", &base]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let bad = common::dsxor(&["report", &slow, "--fail-below", "90", "--baseline", &base]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("REGRESSED") && err.contains("50.0 %"), "{err}");
    // The same slow record passes a looser gate.
    let loose = common::dsxor(&["report", &slow, "--fail-below", "40", "--baseline", &base]);
    assert_eq!(loose.status.code(), Some(0));
}

#[test]
fn failed_run_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(
        dir.path(),
        "base.json",
        &record("2026-11-30T02:00:00Z", "emu", 1.0),
    );
    let mut cur = record("2026-12-01T02:00:00Z", "emu", 1.0);
    cur.runs[3].outcome = "wrong-result".into();
    cur.runs[3].lane_ops_per_second = None;
    cur.all_passed = false;
    let cur = write(dir.path(), "cur.json", &cur);
    let out = common::dsxor(&["report", &cur, "--fail-below", "90", "--baseline", &base]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("FAILED its check"));
}

#[test]
fn bad_input_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"format\": \"something-else\"}").unwrap();
    let out = common::dsxor(&["report", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let missing = common::dsxor(&["report", "/nonexistent/bench.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/bench.json"));
    // A GPU baseline for an emulated record.
    let emu = write(
        dir.path(),
        "emu.json",
        &record("2026-12-01T02:00:00Z", "emu", 1.0),
    );
    let gpu = write(
        dir.path(),
        "gpu.json",
        &record("2026-11-30T02:00:00Z", "hip", 1.0),
    );
    let out = common::dsxor(&["report", &emu, "--fail-below", "90", "--baseline", &gpu]);
    assert_eq!(out.status.code(), Some(2));
    // --fail-below without --baseline is a usage error.
    let out = common::dsxor(&["report", &emu, "--fail-below", "90"]);
    assert_eq!(out.status.code(), Some(2));
    let out = common::dsxor(&["report", &emu, "--fail-below", "-5", "--baseline", &emu]);
    assert_eq!(out.status.code(), Some(2));
}

/// A rate near the limits of a double is refused before plotting (it made
/// the SVG's log axis spin or exhaust memory), within a time limit.
#[test]
fn rates_near_the_limits_of_a_double_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for rate in [1e300, 1e-300] {
        let mut v = serde_json::to_value(record("2026-12-01T02:00:00Z", "emu", 1.0)).unwrap();
        v["runs"][0]["lane_ops_per_second"]["median"] = rate.into();
        let p = dir.path().join("r.json");
        std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
        let svg = dir.path().join("r.svg");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"))
            .args([
                "report",
                p.to_str().unwrap(),
                "--svg",
                svg.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > std::time::Duration::from_secs(20) {
                let _ = child.kill();
                panic!("report --svg with rate {rate:e} still running after 20 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        assert_eq!(status.code(), Some(2), "rate {rate:e}");
    }
}
