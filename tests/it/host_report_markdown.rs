//! `report::markdown` and `bench_record::compare` against hand-made records.

use crate::bench_support;

use bench_support::record;
use dsxor::report::bench_record::{compare, Verdict};
use dsxor::report::markdown::{render, BaselineSection};

#[test]
fn latest_record_table() {
    let rec = record("2026-12-01T20:00:00Z", "emu", 1.0);
    let md = render(std::slice::from_ref(&rec), None);
    assert!(md.contains("emulated lane-operations per second"));
    assert!(md.contains("never a GPU figure"));
    assert!(md.contains("ceiling: none"));
    assert!(md.contains(" host threads, clock"), "{md}");
    let rows: Vec<_> = md.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), rec.runs.len());
    let row = rows
        .iter()
        .find(|l| l.contains("`conflict-free/indep/wave32`"))
        .unwrap();
    // median 2e9, min 2e9/1.2, max 2e9/0.9, IQR 10 % of the median time.
    assert!(
        row.contains("| 2.000 G | 1.667 G | 2.222 G | 10.0 % | 16.000 G |"),
        "{row}"
    );
    assert!(!md.contains("Across"));
}

#[test]
fn gpu_record_has_ceiling_and_fractions() {
    let md = render(&[record("2026-12-01T20:00:00Z", "hip", 1.0)], None);
    assert!(md.contains("ceiling: 3.840 T lane-ops/s = 96 CUs × 2500000 kHz × 16 lanes/clock/CU"));
    assert!(md.contains("source: RDNA3 ISA guide 1.2.2.1"));
    // The device's count is the runtime's, named as such, not called CUs.
    assert!(
        md.contains("multiprocessors (hipDeviceAttributeMultiprocessorCount)"),
        "{md}"
    );
    // 2e9 / 3.84e12 = 0.0521 %
    assert!(md.contains("| 0.0521 % |"), "{md}");
}

#[test]
fn several_records_give_a_trend_table() {
    let recs = vec![
        record("2026-11-30T02:00:00Z", "emu", 1.0),
        record("2026-12-01T02:00:00Z", "emu", 0.5),
    ];
    let md = render(&recs, None);
    assert!(md.contains("## Across 2 records"));
    let across = md.split("## Across").nth(1).unwrap();
    let row = across
        .lines()
        .find(|l| l.starts_with("| `one-address/dep/wave32` |"))
        .unwrap();
    assert!(row.ends_with("| 50.0 % |"), "{row}");
}

#[test]
fn comparison_flags_regressions_and_failures() {
    let base = record("2026-11-30T02:00:00Z", "emu", 1.0);
    let mut cur = record("2026-12-01T02:00:00Z", "emu", 1.0);
    cur.runs[0].lane_ops_per_second.as_mut().unwrap().median *= 0.8;
    cur.runs[1].outcome = "wrong-result".into();
    cur.runs[1].lane_ops_per_second = None;
    cur.runs[2].groups += 1;
    let c = compare(&cur, &base, 90.0).unwrap();
    assert_eq!(c[0].verdict, Verdict::Regressed);
    assert!((c[0].percent.unwrap() - 80.0).abs() < 1e-9);
    assert_eq!(c[1].verdict, Verdict::Failed);
    assert_eq!(c[2].verdict, Verdict::NotCompared);
    assert!(c[3..].iter().all(|x| x.verdict == Verdict::Ok));
    // At 75 % the 80 % run passes.
    assert_eq!(compare(&cur, &base, 75.0).unwrap()[0].verdict, Verdict::Ok);
    let md = render(
        std::slice::from_ref(&cur),
        Some(&BaselineSection {
            baseline: &base,
            fail_below_pct: 90.0,
            comparisons: &c,
        }),
    );
    assert!(md.contains("## Against baseline 2026-11-30T02:00:00Z (fail below 90 %)"));
    assert!(md.contains("| 80.0 % | **regressed** |"));
    assert!(md.contains("**failed its check**"));
}

#[test]
fn emulated_and_gpu_records_are_not_compared() {
    let base = record("2026-11-30T02:00:00Z", "hip", 1.0);
    let cur = record("2026-12-01T02:00:00Z", "emu", 1.0);
    assert!(compare(&cur, &base, 90.0)
        .unwrap_err()
        .contains("no GPU figure"));
}

#[test]
fn trend_skips_runs_of_another_geometry() {
    let mut old = record("2026-11-30T02:00:00Z", "emu", 1.0);
    old.runs
        .iter_mut()
        .find(|r| r.name == "one-address/dep/wave32")
        .unwrap()
        .groups = 99;
    let recs = vec![old, record("2026-12-01T02:00:00Z", "emu", 0.5)];
    let md = render(&recs, None);
    let across = md.split("## Across").nth(1).unwrap();
    let row = across
        .lines()
        .find(|l| l.starts_with("| `one-address/dep/wave32` |"))
        .unwrap();
    assert!(
        row.starts_with("| `one-address/dep/wave32` | — | 7.812 M | — |"),
        "{row}"
    );
}
