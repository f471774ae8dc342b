//! CPU benchmark of the model (the project's bar: ≥ 500 M
//! `ds_xor_rtn_b64` lane-operations per second per core). Criterion reports millions of
//! elements per CPU-second of the benchmark thread (`Melem/cpu-s`), one
//! element = one lane's atomic. Run: `cargo bench --bench model`.

#[path = "support_model/cpu_time.rs"]
mod cpu_time;

use cpu_time::CpuTime;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dsxor::case::{Case, Geometry, LaneInput, WaveSize};
use dsxor::model::{ds_xor_rtn_b64, ds_xor_rtn_b64_group, expect, Lds, Order, Policy};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const LDS_BYTES: u32 = 65536;

fn lanes(rng: &mut ChaCha8Rng, n: usize, addresses: u32) -> Vec<LaneInput> {
    (0..n)
        .map(|_| LaneInput {
            addr: rng.random_range(0..addresses) * 8,
            data: rng.random(),
            active: rng.random_bool(0.9),
            vdst_init: rng.random(),
        })
        .collect()
}

fn bench_model(c: &mut Criterion<CpuTime>) {
    let policy = Policy::GFX11;
    let mut rng = ChaCha8Rng::seed_from_u64(7);

    // One lane at a time, the per-lane entry point.
    let n = 1 << 16;
    let addr: Vec<u32> = (0..n)
        .map(|_| rng.random_range(0..LDS_BYTES / 8) * 8)
        .collect();
    let data: Vec<u64> = (0..n).map(|_| rng.random()).collect();
    let mut g = c.benchmark_group("model");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("ds_xor_rtn_b64/lane", |b| {
        let mut lds = Lds::new(LDS_BYTES, &policy).expect("64 KiB is valid");
        b.iter(|| {
            let mut fold = 0u64;
            for (&a, &d) in addr.iter().zip(&data) {
                fold ^= ds_xor_rtn_b64(&mut lds, &policy, a, 0, d, 0).unwrap_or(0);
            }
            black_box(fold)
        })
    });

    // One workgroup instruction: 16 waves of 64 lanes, under three orders and
    // two contention levels (all 8192 qwords; 4 addresses).
    let per_group = 1024usize;
    for addresses in [LDS_BYTES / 8, 4] {
        let group = lanes(&mut rng, per_group, addresses);
        let mut perm: Vec<u32> = (0..per_group as u32).collect();
        perm.shuffle(&mut rng);
        for order in [
            Order::LaneAscending,
            Order::LaneDescending,
            Order::Explicit(perm),
        ] {
            g.throughput(Throughput::Elements(per_group as u64));
            let id = BenchmarkId::new(
                format!("ds_xor_rtn_b64_group/{addresses}-addresses"),
                order.name(),
            );
            g.bench_function(id, |b| {
                let mut lds = Lds::new(LDS_BYTES, &policy).expect("64 KiB is valid");
                let mut ret = vec![0u64; per_group];
                b.iter(|| {
                    ds_xor_rtn_b64_group(
                        &mut lds,
                        &policy,
                        WaveSize::Wave64,
                        &group,
                        0,
                        &order,
                        &mut ret,
                    )
                    .expect("valid order");
                    black_box(ret[0])
                })
            });
        }
    }

    // A whole case through `expect` (allocation of LDS images and returns included).
    let geometry = Geometry {
        wave_size: WaveSize::Wave64,
        waves_per_group: 16,
        groups: 8,
        mode: dsxor::case::Mode::Wgp,
    };
    let case = Case {
        pattern: "bench".into(),
        index: 0,
        geometry,
        lds_bytes: 4096,
        offset: 0,
        lds_init: vec![vec![0; 512]; 8],
        lanes: lanes(&mut rng, geometry.total_lanes(), 512),
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    };
    g.throughput(Throughput::Elements(geometry.total_lanes() as u64));
    g.bench_function("expect/8x1024-lanes-4KiB", |b| {
        b.iter(|| black_box(expect(&case, &Order::LaneAscending, &policy).expect("valid")))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    // Per-core figures: the thread's CPU time, not wall time (the machine is shared).
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_model
}
criterion_main!(benches);
