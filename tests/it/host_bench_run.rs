//! `bench::run_bench` over a simulated device that executes the throughput
//! kernel ABI on the host: every launch is checked, a wrong answer gets no
//! rate, failures are outcomes (not crashes), and the record round-trips.

use crate::bench_support;

use bench_support::{Fault, SimDevice};
use dsxor::bench::run::Provenance;
use dsxor::bench::{run_bench, KernelObject, Settings};
use dsxor::case::WaveSize;
use dsxor::report::bench_record::{BenchRecord, METRIC_EMULATED};

const FAKE_OBJECT: &[u8] = b"not a code object: the simulated device ignores it";

fn objects() -> Vec<KernelObject<'static>> {
    [WaveSize::Wave32, WaveSize::Wave64]
        .into_iter()
        .map(|wave| KernelObject {
            target: "gfx1100".into(),
            wave,
            origin: "file".into(),
            source: "test".into(),
            compiler: None,
            mode: dsxor::case::Mode::Wgp,
            bytes: FAKE_OBJECT,
        })
        .collect()
}

fn bench(fault: Fault, settings: &Settings) -> (BenchRecord, u32) {
    let mut dev = SimDevice::new(fault);
    let mut seen = 0;
    let rec = run_bench(
        &mut dev,
        &objects(),
        settings,
        &Provenance::default(),
        &mut |_| seen += 1,
    )
    .unwrap();
    assert_eq!(seen, rec.runs.len());
    (rec, dev.launches)
}

#[test]
fn correct_device_passes_every_run_with_rates() {
    let s = Settings::new(true);
    let (rec, launches) = bench(Fault::None, &s);
    assert!(rec.all_passed);
    assert_eq!(rec.runs.len(), 36);
    assert_eq!(launches, 36 * (s.warmup + s.reps));
    assert_eq!(rec.metric, METRIC_EMULATED);
    assert!(rec.ceiling.is_none());
    assert!(rec
        .no_ceiling_reason
        .as_deref()
        .unwrap()
        .contains("not a GPU"));
    for r in &rec.runs {
        assert_eq!(
            r.outcome, "pass",
            "{}: {:?}",
            r.name, r.check.first_mismatches
        );
        assert_eq!(r.check.launches_checked, s.warmup + s.reps);
        assert_eq!(r.samples_seconds.len(), s.reps as usize);
        let rate = r.lane_ops_per_second.unwrap();
        assert!(rate.min <= rate.median && rate.median <= rate.max);
        // Simulated launch time is 100 + n microseconds.
        let t = 1e-6 * (100 + r.issued_per_lane) as f64;
        assert!((rate.median - r.lane_ops_per_launch as f64 / t).abs() / rate.median < 1e-9);
        assert_eq!(r.lds_bytes_per_second, Some(rate.median * 8.0));
        assert!(r.fraction_of_ceiling.is_none());
        if r.pattern == "one-address" {
            assert!(r.check.folds_in_span > 0 && r.check.folds_exact == 0);
        } else {
            assert!(r.check.folds_exact > 0 && r.check.folds_in_span == 0);
        }
    }
    for r in &rec.runs {
        // 31 dependent instructions, 28 independent ones (7 rounds of 4):
        // LDS and uncontended folds are nonzero for both chains.
        assert!(!r.check.expected_all_zero, "{}", r.name);
    }
    let r = rec.run("conflict-free/indep/wave32").unwrap();
    assert_eq!((r.iters, r.issued_per_lane), (28, 28));
    let r = rec.run("one-address/dep/wave64").unwrap();
    assert_eq!(
        (
            r.groups,
            r.waves_per_group,
            r.lanes,
            r.iters,
            r.issued_per_lane
        ),
        (2, 1, 128, 31, 31)
    );
}

#[test]
fn even_round_count_is_marked_weak() {
    // 32 independent instructions: 8 rounds, every exact expectation 0 (the
    // record says so); the dependent chain's 31 stay strong.
    let mut s = Settings::new(true);
    s.iters_indep = 32;
    s.filter = Some("wave32".into());
    let (rec, _) = bench(Fault::None, &s);
    assert!(rec.all_passed);
    for r in &rec.runs {
        assert_eq!(r.check.expected_all_zero, r.chain == "indep", "{}", r.name);
    }
}

#[test]
fn record_round_trips_through_json() {
    let (rec, _) = bench(Fault::None, &Settings::new(true));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(rec.file_name());
    rec.save(&path).unwrap();
    let back = BenchRecord::load(&path).unwrap();
    // serde_json's default float parsing may differ from the written value
    // in the last ulp; everything else is exact.
    assert_eq!(back.runs.len(), rec.runs.len());
    for (a, b) in back.runs.iter().zip(&rec.runs) {
        assert_eq!(
            (&a.name, &a.outcome, &a.check),
            (&b.name, &b.outcome, &b.check)
        );
        let (x, y) = (
            a.lane_ops_per_second.unwrap().median,
            b.lane_ops_per_second.unwrap().median,
        );
        assert!((x - y).abs() <= y * 1e-14);
    }
    assert_eq!(
        (&back.environment, &back.settings, &back.metric),
        (&rec.environment, &rec.settings, &rec.metric)
    );
    let name = rec.file_name();
    assert!(
        name.starts_with("bench-") && name.ends_with("-emu-gfx1100.json"),
        "{name}"
    );
    assert!(!name.contains(':'));
}

#[test]
fn lost_update_is_a_wrong_result_without_rate() {
    let (rec, _) = bench(Fault::LostUpdate, &Settings::new(true));
    assert!(!rec.all_passed);
    for r in &rec.runs {
        assert_eq!(r.outcome, "wrong-result", "{}", r.name);
        assert!(r.lane_ops_per_second.is_none() && r.lds_bytes_per_second.is_none());
        assert!(r.check.mismatches > 0);
        assert!(!r.check.first_mismatches.is_empty());
        // The first failing launch ends the run.
        assert_eq!(r.check.launches_checked, 1);
    }
}

#[test]
fn unwritten_fold_is_caught_by_the_poison() {
    let (rec, _) = bench(Fault::NoFold, &Settings::new(true));
    assert!(rec.runs.iter().all(|r| r.outcome == "wrong-result"));
    let r = rec.run("conflict-free/indep/wave32").unwrap();
    assert!(
        r.check.first_mismatches[0].contains("fold"),
        "{:?}",
        r.check.first_mismatches
    );
}

#[test]
fn timeout_is_an_outcome() {
    let (rec, launches) = bench(Fault::Timeout, &Settings::new(true));
    assert_eq!(launches, 36);
    assert!(rec
        .runs
        .iter()
        .all(|r| r.outcome == "timeout" && r.error.as_deref().unwrap().contains("timeout")));
    assert!(!rec.all_passed);
}

#[test]
fn missing_wave64_object_skips_its_runs() {
    let mut dev = SimDevice::new(Fault::None);
    let only32: Vec<_> = objects()
        .into_iter()
        .filter(|o| o.wave == WaveSize::Wave32)
        .collect();
    let rec = run_bench(
        &mut dev,
        &only32,
        &Settings::new(true),
        &Provenance::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(rec.runs.len(), 18);
    assert_eq!(rec.skipped.len(), 18);
    assert!(rec
        .skipped
        .iter()
        .all(|s| s.name.contains("wave64") && s.reason.contains("code object")));
}

#[test]
fn no_objects_is_an_environment_error() {
    let mut dev = SimDevice::new(Fault::None);
    let e = run_bench(
        &mut dev,
        &[],
        &Settings::new(true),
        &Provenance::default(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.is_environment());
}

#[test]
fn invalid_settings_are_input_errors() {
    let mut s = Settings::new(true);
    s.iters_indep = 30;
    let mut dev = SimDevice::new(Fault::None);
    let e = run_bench(
        &mut dev,
        &objects(),
        &s,
        &Provenance::default(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(!e.is_environment());
    assert!(e.to_string().contains("multiple of 4"));
}
