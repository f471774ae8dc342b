//! `dsxor bench` end to end on the software device: the real code object
//! on the RDNA3 interpreter, every launch checked, a record written that
//! `dsxor report` draws; an injected fault gets no rate and exit 1.

use crate::common;

use dsxor::report::bench_record::{BenchRecord, METRIC_EMULATED};
use std::path::{Path, PathBuf};

fn records_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

#[test]
fn quick_bench_on_emu_writes_a_record_report_can_draw() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = common::dsxor(&["bench", "--backend", "emu", "--quick", "--out", out]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("EMULATED lane-operations per second"));
    assert!(stdout.contains("ceiling: none (the software device is not a GPU"));
    let files = records_in(dir.path());
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with("bench-") && name.ends_with("-emu-gfx1100.json"),
        "{name}"
    );
    let rec = BenchRecord::load(&files[0]).unwrap();
    assert_eq!(rec.metric, METRIC_EMULATED);
    assert!(rec.all_passed);
    assert_eq!(rec.runs.len(), 36);
    assert_eq!(rec.environment.code_objects.len(), 2);
    assert!(rec
        .runs
        .iter()
        .all(|r| r.lane_ops_per_second.is_some() && r.check.launches_checked == 6));

    let svg = dir.path().join("bench.svg");
    let rep = common::dsxor(&[
        "report",
        files[0].to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(
        rep.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rep.stderr)
    );
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("one-address/indep/wave64"));
    assert!(svg.contains("EMULATED lane-ops/s"));
}

#[test]
fn injected_lost_update_gets_no_rate_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::emu("bench")
        .arg("--quick")
        .out(dir.path())
        .fault("lost-update")
        .flag("--filter", "one-address/dep")
        .output();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rec = BenchRecord::load(&records_in(dir.path())[0]).unwrap();
    assert_eq!(rec.runs.len(), 2);
    for r in &rec.runs {
        assert_eq!(r.outcome, "wrong-result", "{}", r.name);
        assert!(r.lane_ops_per_second.is_none());
    }
    assert!(String::from_utf8_lossy(&run.stdout).contains("WRONG-RESULT: no rate counted"));
}

/// The independent chain's check is not vacuous: each fault the emulator
/// can inject into 64-bit DS atomics fails its runs (exit 1), where the old
/// kernel (the same DATA four times per round: every expected value 0)
/// passed them. Without a fault the same runs pass.
#[test]
fn injected_faults_fail_the_independent_chain() {
    let run = |fault: Option<&str>, filter: &str| {
        let dir = tempfile::tempdir().unwrap();
        let mut args = common::emu("bench")
            .arg("--quick")
            .out(dir.path())
            .flag("--filter", filter);
        if let Some(f) = fault {
            args = args.fault(f);
        }
        let o = args.output();
        let rec = BenchRecord::load(&records_in(dir.path())[0]).unwrap();
        (o, rec)
    };
    for (fault, filter) in [
        ("swap-dwords", "conflict-free/indep/wave32"),
        ("return-new", "conflict-free/indep/wave32"),
        ("low-dword-only", "bank-conflict-4way/indep/wave64"),
        ("lost-update", "one-address/indep/wave64"),
    ] {
        let (o, rec) = run(Some(fault), filter);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{fault}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert_eq!(rec.runs.len(), 1, "{fault}");
        let r = &rec.runs[0];
        assert_eq!(r.outcome, "wrong-result", "{fault}: {}", r.name);
        assert!(r.lane_ops_per_second.is_none() && r.check.mismatches > 0);
        assert!(!r.check.expected_all_zero);
    }
    let (o, rec) = run(None, "indep/wave32");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(rec.all_passed && rec.runs.iter().all(|r| !r.check.expected_all_zero));
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["bench", "--backend", "emu", "--iters", "6"][..],
        &["bench", "--backend", "gpu"],
        &["bench", "--backend", "emu", "--waves", "16"],
        &["bench", "--backend", "emu", "--fault", "no-such-fault"],
        &["bench", "--backend", "hip", "--fault", "lost-update"],
        &["bench", "--backend", "emu", "--filter", "no-such-run"],
        &["bench", "--backend", "emu", "--lanes-per-group", "100"],
        &["bench", "--backend", "emu", "--reps", "0"],
    ] {
        let out = common::dsxor(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
