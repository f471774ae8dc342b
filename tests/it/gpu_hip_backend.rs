//! Tests of the HIP backend on a device: a conformance dispatch, a timing
//! run and the watchdog, through `HipBackend` and the embedded code objects.
//!
//! They run on a real AMD GPU when one is present, else on the HIP
//! simulator (hipsim/, `libdsxor_hipsim.so`), so CI runs every launch path
//! of the backend. A GPU runner sets DSXOR_REQUIRE_GPU=1, which demands a
//! real device: no device (or only the simulator) is then a failure, so a
//! GPU job cannot pass on the simulator. README.md, "Running on a GPU".
//!
//! The expectations are written from the ISA's semantics here, not taken
//! from `model` or `emu`: the device is what is being checked.

use crate::common;

use std::time::Duration;

use dsxor::backend::hip::HipBackend;
use dsxor::backend::{ArgValue, Backend, BackendError, Dispatch, ReadBack};
use dsxor::case::WaveSize;
use dsxor::codeobj::find_embedded;

fn gpu_required() -> bool {
    std::env::var("DSXOR_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The simulator names its devices so (hipsim/src/runtime.rs).
fn simulated(b: &HipBackend) -> bool {
    b.info().name.contains("simulated by dsxor-hipsim")
}

/// The backend on the first usable real device; without one, the
/// simulator's device (DSXOR_REQUIRE_GPU=1: a failure instead).
fn backend() -> Option<HipBackend> {
    let real = dsxor::hip::probe()
        .map_err(|e| e.to_string())
        .and_then(|r| HipBackend::from_report(&r, None).map_err(|e| e.to_string()))
        .and_then(|b| {
            if simulated(&b) {
                Err(format!("{} is the simulator", b.info().name))
            } else {
                Ok(b)
            }
        });
    match real {
        Ok(b) => Some(b),
        Err(e) if gpu_required() => {
            panic!("DSXOR_REQUIRE_GPU=1 but no real HIP device could be opened: {e}")
        }
        Err(e) => {
            eprintln!("no real HIP device ({e}): running on the HIP simulator");
            let hip = dsxor::hip::Hip::load_from(common::hipsim_in_process().to_str().unwrap())
                .expect("the HIP simulator loads");
            let report = dsxor::hip::probe_with(hip);
            let b = HipBackend::from_report(&report, None)
                .expect("the HIP simulator's default device opens");
            assert!(simulated(&b), "{}", b.info().name);
            Some(b)
        }
    }
}

/// The embedded code objects for the device's wave sizes.
fn objects(b: &HipBackend) -> Vec<(WaveSize, &'static [u8])> {
    let target = b.info().target_id.clone();
    let found: Vec<_> = b
        .info()
        .wave_sizes
        .iter()
        .filter_map(|&w| WaveSize::from_lanes(w))
        .filter_map(|w| find_embedded(&target, w).map(|o| (w, o.bytes)))
        .collect();
    if found.is_empty() {
        let msg = format!("no embedded code object for {target}");
        if gpu_required() {
            panic!("DSXOR_REQUIRE_GPU=1 but {msg}");
        }
        eprintln!("SKIPPED: {msg}");
    }
    found
}

fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn le64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn from_le64(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

const POISON: u64 = 0x5555_aaaa_5555_aaaa;

/// One wave, every active lane on one qword: LDS after = before ^ XOR of
/// the active lanes' DATA; each active lane returns the qword as it was
/// just before its own XOR, so the returns chain from the initial value
/// through every lane once (lanes are serialized in some order, ISA:
/// "atomic"); an inactive lane's VDST keeps its value (EXEC off).
#[test]
fn contended_xor_on_one_qword_serializes() {
    let Some(mut b) = backend() else { return };
    for (wave, code) in objects(&b) {
        let lanes = wave.lanes() as usize;
        let lds_qwords = 16u32;
        let init: Vec<u64> = (0..lds_qwords as u64)
            .map(|i| i * 0x0101_0101_0101_0101)
            .collect();
        let target_q = 2usize;
        // (kernel, ADDR value) pairs that reach byte 0x10 = qword 2.
        for (kernel, addr) in [
            ("dsxor_conformance_off0", 0x10u32),
            ("dsxor_conformance_off8", 0x8),
        ] {
            let data: Vec<u64> = (0..lanes).map(|l| 1u64 << l).collect();
            let active: Vec<u32> = (0..lanes).map(|l| u32::from(l != 1)).collect();
            let d = Dispatch {
                code_object: code,
                kernel,
                groups: 1,
                block: wave.lanes(),
                dynamic_lds: lds_qwords * 8,
                buffers: vec![
                    le32(&vec![addr; lanes]),
                    le64(&data),
                    le32(&active),
                    le64(&init),
                    le64(&vec![POISON; lanes]),
                    vec![0; lds_qwords as usize * 8],
                ],
                args: (0..6)
                    .map(ArgValue::Buffer)
                    .chain([ArgValue::U32(lds_qwords)])
                    .collect(),
                timeout: Duration::from_secs(10),
                read_back: ReadBack::All,
            };
            let c = b
                .dispatch(&d)
                .unwrap_or_else(|e| panic!("{kernel} wave{}: {e}", wave.lanes()));
            let ret = from_le64(&c.buffers[4]);
            let lds = from_le64(&c.buffers[5]);
            let xor_all = (0..lanes)
                .filter(|&l| active[l] != 0)
                .fold(0u64, |a, l| a ^ data[l]);
            for (q, (&after, &before)) in lds.iter().zip(&init).enumerate() {
                let want = if q == target_q {
                    before ^ xor_all
                } else {
                    before
                };
                assert_eq!(after, want, "{kernel}: LDS qword {q}");
            }
            assert_eq!(ret[1], POISON, "{kernel}: inactive lane 1's VDST changed");
            // Follow the chain: DATA bits are distinct, so each value has
            // at most one lane that saw it.
            let mut seen = vec![false; lanes];
            let mut cur = init[target_q];
            for _ in 0..lanes - 1 {
                let l = (0..lanes)
                    .find(|&l| active[l] != 0 && !seen[l] && ret[l] == cur)
                    .unwrap_or_else(|| panic!("{kernel}: no lane returned {cur:#x}: {ret:x?}"));
                seen[l] = true;
                cur ^= data[l];
            }
            assert_eq!(
                cur, lds[target_q],
                "{kernel}: chain does not end at the final value"
            );
            eprintln!(
                "{kernel} wave{} on {}: serialized, {:?}",
                wave.lanes(),
                b.info().target_id,
                c.elapsed
            );
        }
    }
}

/// Throughput: `groups` x `block` lanes, each on its own qword. `_dep`:
/// 4095 XORs of d, so each qword ends at d and the fold of returns
/// (0, d, 0, d, ...) is d. `_indep`: 4092 = 1023 rounds of four XORs of d
/// under the chunk masks of kernels/dsxor.hip (DSXOR_INDEP_MASK0..3: all
/// ones, low dword, top 16 bits, both); a round from 0 returns 0, d,
/// d ^ lo32, d ^ lo32 ^ top16, so after an odd number of rounds each qword
/// ends at d and the fold is d & 0x0000_ffff_ffff_ffff.
#[test]
fn timed_throughput_run() {
    let Some(mut b) = backend() else { return };
    // The simulator interprets every lane: two workgroups keep it quick.
    let cus = if simulated(&b) {
        1
    } else {
        b.info().compute_units.max(1)
    };
    for (wave, code) in objects(&b) {
        let block = wave.lanes() * 4;
        let groups = cus * 2;
        let n = (groups * block) as usize;
        for (kernel, iters) in [
            ("dsxor_throughput_dep", 4095u32),
            ("dsxor_throughput_indep", 4092),
        ] {
            let addr: Vec<u32> = (0..n as u32).map(|l| (l % block) * 8).collect();
            let data: Vec<u64> = (0..n as u64).map(|l| 0x9e37_79b9_7f4a_7c15 ^ l).collect();
            let d = Dispatch {
                code_object: code,
                kernel,
                groups,
                block,
                dynamic_lds: block * 8,
                buffers: vec![le32(&addr), le64(&data), vec![0; n * 8], vec![0; n * 8]],
                args: vec![
                    ArgValue::Buffer(0),
                    ArgValue::Buffer(1),
                    ArgValue::Buffer(2),
                    ArgValue::Buffer(3),
                    ArgValue::U32(iters),
                    ArgValue::U64(0),
                    ArgValue::U32(block),
                ],
                timeout: Duration::from_secs(30),
                read_back: ReadBack::All,
            };
            let c = b.dispatch(&d).unwrap_or_else(|e| panic!("{kernel}: {e}"));
            let fold = from_le64(&c.buffers[2]);
            let lds = from_le64(&c.buffers[3]);
            for l in 0..n {
                let (want_lds, want_fold) = if kernel == "dsxor_throughput_dep" {
                    (data[l], data[l])
                } else {
                    (data[l], data[l] & 0x0000_ffff_ffff_ffff)
                };
                assert_eq!(lds[l], want_lds, "{kernel}: LDS of lane {l}");
                assert_eq!(fold[l], want_fold, "{kernel}: fold of lane {l}");
            }
            assert!(c.elapsed > Duration::ZERO, "{kernel}: no device time");
            let ops = n as f64 * f64::from(iters);
            eprintln!(
                "{kernel} wave{} on {} ({groups} x {block}, {iters} iters): {:?}, {:.3e} ds_xor_rtn_b64/s",
                wave.lanes(),
                b.info().target_id,
                c.elapsed,
                ops / c.elapsed.as_secs_f64()
            );
        }
    }
}

/// A launch longer than its timeout is a `Timeout`, the backend refuses
/// new launches while it runs, and works again once it has finished.
#[test]
fn watchdog_times_out_and_recovers() {
    let Some(mut b) = backend() else { return };
    let Some((wave, code)) = objects(&b).into_iter().next() else {
        return;
    };
    let block = wave.lanes();
    let long = |iters: u32, timeout: Duration| Dispatch {
        code_object: code,
        kernel: "dsxor_throughput_dep",
        groups: 1,
        block,
        dynamic_lds: block * 8,
        buffers: vec![
            le32(&(0..block).map(|l| l * 8).collect::<Vec<_>>()),
            le64(&vec![1; block as usize]),
            vec![0; block as usize * 8],
            vec![0; block as usize * 8],
        ],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
            ArgValue::U32(iters),
            ArgValue::U64(0),
            ArgValue::U32(block),
        ],
        timeout,
        read_back: ReadBack::All,
    };
    // ~16M dependent LDS round trips: far beyond 1 ms on any GPU; on the
    // simulator 128K (millions of interpreted instructions) are.
    let iters = if simulated(&b) { 1 << 17 } else { 1 << 24 };
    match b.dispatch(&long(iters, Duration::from_millis(1))) {
        Err(BackendError::Timeout { kernel, .. }) => assert_eq!(kernel, "dsxor_throughput_dep"),
        Ok(c) => panic!(
            "{iters} dependent atomics finished in {:?}, under 1 ms",
            c.elapsed
        ),
        Err(e) => panic!("expected a timeout, got {e}"),
    }
    assert_eq!(b.quarantined(), 1);
    let start = std::time::Instant::now();
    loop {
        match b.dispatch(&long(3, Duration::from_secs(10))) {
            Ok(c) => {
                assert_eq!(from_le64(&c.buffers[3]), vec![1; block as usize]);
                break;
            }
            Err(BackendError::Environment(m)) if m.contains("still running") => {
                assert!(
                    start.elapsed() < Duration::from_secs(300),
                    "still busy after 300 s: {m}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(b.quarantined(), 0);
    eprintln!("watchdog: recovered after {:?}", start.elapsed());
}

/// The backend keeps its device buffers (and the conformance device its
/// host buffers) from launch to launch: no launch may see another's data.
/// A launch whose lanes are all inactive after one whose lanes all wrote
/// returns exactly its own VDST-before and LDS image, never what the
/// earlier launch left in the reused `ret` and `lds_out`; a smaller launch
/// after a larger one gets buffers of its own sizes back, and only the two
/// the conformance ABI reads.
#[test]
fn reused_buffers_never_show_an_earlier_launch() {
    use dsxor::backend::conformance::{
        embedded_objects, CaseDevice, ConformanceDevice, DeviceOutcome, BUF_LDS_OUT, BUF_RET,
    };
    let Some(b) = backend() else { return };
    let objects = embedded_objects(&b.info().target_id);
    if !objects.iter().any(|o| o.wave == WaveSize::Wave32) {
        eprintln!("SKIPPED: no wave32 object for {}", b.info().target_id);
        return;
    }
    let mut dev = ConformanceDevice::with_codeobj(b, objects, Duration::from_secs(30));
    let observe = |dev: &mut ConformanceDevice<HipBackend>, c: &dsxor::case::Case| match dev
        .run_case(c)
        .unwrap_or_else(|e| panic!("case {}: {e}", c.index))
    {
        DeviceOutcome::Completed { observation, .. } => observation,
        other => panic!("case {}: {other:?}", c.index),
    };
    let big = common::one_qword_each(128, true, 1);
    let o = observe(&mut dev, &big);
    // Every lane wrote: its return is the qword before its XOR.
    assert_eq!(o.ret, big.lds_init[0]);
    for (small_lanes, tag) in [(128, 2), (64, 3), (32, 4)] {
        let idle = common::one_qword_each(small_lanes, false, tag);
        let o = observe(&mut dev, &idle);
        let vdst: Vec<u64> = idle.lanes.iter().map(|l| l.vdst_init).collect();
        assert_eq!(o.ret, vdst, "{small_lanes} idle lanes after 128 busy ones");
        assert_eq!(o.lds_final, idle.lds_init, "{small_lanes} idle lanes: LDS");
        // And busy again, on the buffers the idle launch left.
        let busy = common::one_qword_each(small_lanes, true, tag + 16);
        assert_eq!(observe(&mut dev, &busy).ret, busy.lds_init[0]);
    }
    // The raw launch: buffers of this launch's sizes, only ret and lds_out.
    let code = dev.kernel_objects()[0].bytes.clone();
    let small = common::one_qword_each(32, true, 5);
    let d = dsxor::backend::conformance::dispatch_for(
        &small,
        &code,
        "dsxor_conformance_off0",
        Duration::from_secs(30),
    );
    let done = dev.launch(&d).expect("the raw launch completes");
    for (i, (got, sent)) in done.buffers.iter().zip(&d.buffers).enumerate() {
        let want = if i == BUF_RET || i == BUF_LDS_OUT {
            sent.len()
        } else {
            0
        };
        assert_eq!(got.len(), want, "buffer {i}");
    }
}
