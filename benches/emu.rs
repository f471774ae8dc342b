//! Throughput of the software device on dsxor's throughput kernels:
//! ds_xor_rtn_b64 lane-operations per second. `cargo bench --bench emu`
//! prints, besides criterion's timing (workgroups spread over all cores), a
//! per-core figure measured on one worker thread against that thread's own
//! CPU time (`/proc/thread-self/schedstat`), so a loaded machine does not
//! understate it:
//! `emu <kernel> <wave>: per core N M lane-ops/s (CPU time); all cores M M lane-ops/s (wall)`.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dsxor::backend::emu::EmuBackend;
use dsxor::backend::{ArgValue, Backend, Dispatch, ReadBack};
use dsxor::case::WaveSize;
use dsxor::codeobj::find_embedded;
use dsxor::emu::EmuConfig;

const GROUPS: u32 = 16;
const ITERS: u32 = 2048;
const LDS_QWORDS: u32 = 512;

fn dispatch<'a>(bytes: &'a [u8], kernel: &'a str, block: u32) -> Dispatch<'a> {
    let n = (GROUPS * block) as usize;
    let addr: Vec<u8> = (0..n as u32)
        .flat_map(|i| (8 * (i % LDS_QWORDS)).to_le_bytes())
        .collect();
    let data: Vec<u8> = (0..n as u64)
        .flat_map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes())
        .collect();
    Dispatch {
        code_object: bytes,
        kernel,
        groups: GROUPS,
        block,
        dynamic_lds: LDS_QWORDS * 8,
        buffers: vec![
            addr,
            data,
            vec![0; n * 8],
            vec![0; (GROUPS * LDS_QWORDS) as usize * 8],
        ],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
            ArgValue::U32(ITERS),
            ArgValue::U64(0),
            ArgValue::U32(LDS_QWORDS),
        ],
        timeout: Duration::from_secs(600),
        read_back: ReadBack::All,
    }
}

/// CPU time of the calling thread in ns (Linux: first field of schedstat).
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn bench(c: &mut Criterion) {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mut g = c.benchmark_group("emu_throughput");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for wave in [WaveSize::Wave32, WaveSize::Wave64] {
        let Some(obj) = find_embedded("gfx1100", wave) else {
            eprintln!("SKIPPED: no gfx1100 {wave:?} code object");
            continue;
        };
        for kernel in ["dsxor_throughput_dep", "dsxor_throughput_indep"] {
            let block = 4 * wave.lanes();
            let d = dispatch(obj.bytes, kernel, block);
            let lane_ops = GROUPS as u64 * block as u64 * ITERS as u64;
            // Per core: one worker thread (the calling one), its CPU time.
            let mut one = EmuBackend::new(EmuConfig {
                threads: Some(1),
                ..Default::default()
            })
            .expect("emu device");
            one.dispatch(&d).expect("warm-up dispatch");
            let c0 = thread_cpu_ns();
            one.dispatch(&d).expect("dispatch");
            let per_core = c0.and_then(|c0| {
                thread_cpu_ns().map(|c1| lane_ops as f64 / ((c1 - c0) as f64 / 1e9))
            });
            let mut dev = EmuBackend::new(EmuConfig::default()).expect("emu device");
            let t = Instant::now();
            dev.dispatch(&d).expect("dispatch");
            let wall = lane_ops as f64 / t.elapsed().as_secs_f64();
            println!(
                "emu {kernel} {wave:?}: per core {} M lane-ops/s (CPU time); all {cores} cores {:.1} M lane-ops/s (wall)",
                per_core.map(|r| format!("{:.1}", r / 1e6)).unwrap_or_else(|| "n/a".into()),
                wall / 1e6
            );
            g.throughput(Throughput::Elements(lane_ops));
            g.bench_function(format!("{kernel}/{wave:?}"), |b| {
                b.iter(|| dev.dispatch(&d).expect("dispatch"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
