//! CPU benchmark of the checker (the project's bar: ≥ 20 M lanes per
//! second on heavily contended addresses). One element = one lane judged; figures are per
//! CPU-second of the benchmark thread (`Melem/cpu-s`). Run:
//! `cargo bench --bench check`.

#[path = "support_model/cpu_time.rs"]
mod cpu_time;

use cpu_time::CpuTime;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dsxor::case::{Case, Geometry, LaneInput, Observation, WaveSize};
use dsxor::check::{Checker, DeviceOutcome};
use dsxor::model::{expect, Expected, Order, Policy};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn contended_case(rng: &mut ChaCha8Rng, addresses: u32) -> (Case, Observation) {
    let geometry = Geometry {
        wave_size: WaveSize::Wave64,
        waves_per_group: 16,
        groups: 8,
        mode: dsxor::case::Mode::Wgp,
    };
    let lds_bytes = 4096;
    let case = Case {
        pattern: "bench-contended".into(),
        index: 0,
        geometry,
        lds_bytes,
        offset: 0,
        lds_init: (0..geometry.groups)
            .map(|_| (0..lds_bytes / 8).map(|_| rng.random()).collect())
            .collect(),
        lanes: (0..geometry.total_lanes())
            .map(|_| LaneInput {
                addr: rng.random_range(0..addresses) * 8,
                data: rng.random(),
                active: true,
                vdst_init: rng.random(),
            })
            .collect(),
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    };
    // A random serialization, so the returns follow no lane order.
    let mut perm: Vec<u32> = (0..geometry.lanes_per_group()).collect();
    perm.shuffle(rng);
    let Ok(Expected::Completed(x)) = expect(&case, &Order::Explicit(perm), &Policy::GFX11) else {
        panic!("the bench case is valid and aligned")
    };
    let obs = Observation {
        ret: x.ret,
        lds_final: x.lds_final,
        traffic_verdicts: Vec::new(),
    };
    (case, obs)
}

fn bench_check(c: &mut Criterion<CpuTime>) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let policy = Policy::GFX11;
    let mut g = c.benchmark_group("check");
    // 1024 lanes per group on 1, 4 and 64 addresses (1024, 256, 16 lanes each).
    for addresses in [1u32, 4, 64] {
        let (case, obs) = contended_case(&mut rng, addresses);
        g.throughput(Throughput::Elements(case.lanes.len() as u64));
        let mut checker = Checker::new();
        let v = checker
            .judge(&case, DeviceOutcome::Completed(&obs), &policy)
            .expect("judgeable");
        assert!(v.passed(), "{}", v.explain());
        g.bench_function(
            BenchmarkId::new("judge/contended", format!("{addresses}-addresses")),
            |b| {
                b.iter(|| {
                    let v = checker
                        .judge(&case, DeviceOutcome::Completed(&obs), &policy)
                        .expect("judgeable");
                    black_box(v.passed())
                })
            },
        );
    }
    g.finish();
}

/// The case digest every record carries (`gen::case_digest`), over the
/// default suite's first 400 cases (seed 1): one element = one verified
/// lane-operation (active lanes x rounds), the unit of the host-cost
/// target in docs/src/internals/performance.md.
fn bench_digest(c: &mut Criterion<CpuTime>) {
    use dsxor::gen::{case_digest, Shard, SuiteSpec};
    let spec = SuiteSpec::new(1, 72_000, &[], &[], &[], Shard::WHOLE).unwrap();
    let cases: Vec<Case> = spec
        .plan_iter()
        .step_by(180)
        .take(400)
        .map(|p| spec.generate(p).case)
        .collect();
    let lane_ops: u64 = cases
        .iter()
        .map(|c| (c.lanes.iter().filter(|l| l.active).count() * c.rounds()) as u64)
        .sum();
    let mut g = c.benchmark_group("digest");
    g.throughput(Throughput::Elements(lane_ops));
    g.bench_function("case/400-default-cases", |b| {
        b.iter(|| {
            for c in &cases {
                black_box(case_digest(c));
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    // Per-core figures: the thread's CPU time, not wall time (the machine is shared).
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_check, bench_digest
}
criterion_main!(benches);
