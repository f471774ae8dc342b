//! The conformance path end to end, as `dsxor run` drives it on the
//! software device: generate a case of the default suite, launch it, judge
//! it, record it (its case digest and JSON record). `cargo bench --bench
//! conformance` reports criterion's time per 90 cases (ten of each default
//! pattern) with throughput in verified lane-operations (active lanes x
//! rounds), plus a line measured against this thread's own CPU time
//! (`/proc/thread-self/schedstat`), so a loaded machine does not understate it:
//! `conformance: N verified lane-ops per CPU-second (M cases, K lane-ops)`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dsxor::backend::conformance::{embedded_objects, CaseDevice, ConformanceDevice};
use dsxor::backend::emu::EmuBackend;
use dsxor::emu::EmuConfig;
use dsxor::gen::suite::Planned;
use dsxor::gen::{case_digest, Pattern, Shard, SuiteSpec};
use dsxor::model::Policy;
use dsxor::suite::judge::ModelJudge;
use dsxor::suite::Judge;

fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Ten cases of every default pattern, both wave sizes alternating.
fn plan() -> (SuiteSpec, Vec<Planned>) {
    let spec = SuiteSpec::new(1, 90 * 40, &[], &[], &[], Shard::WHOLE).unwrap();
    let all = spec.plan();
    let per_cell = all.len() / spec.cells().len();
    let picked = Pattern::DEFAULT
        .iter()
        .flat_map(|p| {
            all.iter()
                .filter(move |c| c.id.pattern == *p)
                .step_by(per_cell / 5)
                .take(10)
        })
        .copied()
        .collect();
    (spec, picked)
}

/// One pass: every planned case generated, run, judged and recorded.
/// Returns verified lane-operations.
fn pass(
    device: &mut dyn CaseDevice,
    judge: &ModelJudge,
    spec: &SuiteSpec,
    plan: &[Planned],
) -> u64 {
    let mut ops = 0;
    let mut sink = Vec::new();
    for p in plan {
        let g = spec.generate(*p);
        let outcome = device.run_case(&g.case).unwrap();
        let j = judge.judge(&g.case, &outcome).unwrap();
        assert!(j.passed, "{}", j.summary);
        sink.clear();
        serde_json::to_writer(
            &mut sink,
            &serde_json::json!({ "index": p.index, "digest": case_digest(&g.case), "passed": j.passed }),
        )
        .unwrap();
        ops += g.case.lane_ops();
    }
    ops
}

fn bench(c: &mut Criterion) {
    let backend = EmuBackend::new(EmuConfig {
        threads: Some(1),
        lds_granule: Some(512),
        ..EmuConfig::default()
    })
    .unwrap();
    let mut device = ConformanceDevice::with_codeobj(
        backend,
        embedded_objects("gfx1100"),
        Duration::from_secs(60),
    );
    let judge = ModelJudge::new(Policy::GFX11);
    let (spec, plan) = plan();
    let ops = pass(&mut device, &judge, &spec, &plan);
    if let (Some(t0), _, Some(t1)) = (
        thread_cpu_ns(),
        pass(&mut device, &judge, &spec, &plan),
        thread_cpu_ns(),
    ) {
        println!(
            "conformance: {:.2} M verified lane-ops per CPU-second ({} cases, {ops} lane-ops)",
            ops as f64 / ((t1 - t0) as f64 / 1e9) / 1e6,
            plan.len()
        );
    }
    let mut g = c.benchmark_group("conformance");
    g.throughput(Throughput::Elements(ops));
    g.sample_size(10);
    g.bench_function("default-suite-sample/generate-launch-judge-record", |b| {
        b.iter(|| pass(&mut device, &judge, &spec, &plan))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
