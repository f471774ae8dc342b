//! The software device end to end: dsxor's own gfx1100 code objects (wave32
//! and wave64), launched through the `Backend` trait exactly as the HIP
//! backend would be, with results checked against values worked out here
//! from the kernel ABI (docs/src/internals/kernel-abi.md) and the ISA's ds_xor_rtn_b64 semantics.

use std::time::Duration;

use dsxor::backend::emu::EmuBackend;
use dsxor::backend::{ArgValue, Backend, BackendError, Dispatch, ReadBack};
use dsxor::case::WaveSize;
use dsxor::codeobj::find_embedded;
use dsxor::emu::{EmuConfig, Fault};

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn to_u64s(b: &[u8]) -> Vec<u64> {
    b.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

struct Conf {
    groups: u32,
    block: u32,
    lds_qwords: u32,
    addr: Vec<u32>,
    data: Vec<u64>,
    active: Vec<u32>,
    lds_init: Vec<u64>,
    ret_init: Vec<u64>,
}

fn run_conformance(
    wave: WaveSize,
    kernel: &str,
    c: &Conf,
    config: EmuConfig,
) -> Result<(Vec<u64>, Vec<u64>), BackendError> {
    let obj = find_embedded("gfx1100", wave).expect("gfx1100 code object is shipped");
    let mut dev = EmuBackend::new(config)?;
    let d = Dispatch {
        code_object: obj.bytes,
        kernel,
        groups: c.groups,
        block: c.block,
        dynamic_lds: c.lds_qwords * 8,
        buffers: vec![
            u32s(&c.addr),
            u64s(&c.data),
            u32s(&c.active),
            u64s(&c.lds_init),
            u64s(&c.ret_init),
            vec![0u8; c.lds_init.len() * 8],
        ],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
            ArgValue::Buffer(4),
            ArgValue::Buffer(5),
            ArgValue::U32(c.lds_qwords),
        ],
        timeout: Duration::from_secs(20),
        read_back: ReadBack::All,
    };
    let done = dev.dispatch(&d)?;
    Ok((to_u64s(&done.buffers[4]), to_u64s(&done.buffers[5])))
}

/// Serial execution in lane order (the default order of the software device).
fn expected(c: &Conf, offset: u32) -> (Vec<u64>, Vec<u64>) {
    let mut lds = c.lds_init.clone();
    let mut ret = c.ret_init.clone();
    let q = c.lds_qwords as usize;
    for g in 0..c.groups as usize {
        for t in 0..c.block as usize {
            let i = g * c.block as usize + t;
            if c.active[i] == 0 {
                continue;
            }
            let a = (c.addr[i] + offset) as usize;
            if a < q * 8 {
                let old = lds[g * q + a / 8];
                lds[g * q + a / 8] = old ^ c.data[i];
                ret[i] = old;
            } else {
                ret[i] = 0;
            }
        }
    }
    (ret, lds)
}

fn contended_case(groups: u32, block: u32, lds_qwords: u32) -> Conf {
    let n = (groups * block) as usize;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    Conf {
        groups,
        block,
        lds_qwords,
        addr: (0..n).map(|i| 8 * (i as u32 % 3)).collect(),
        data: (0..n).map(|_| next()).collect(),
        active: (0..n).map(|i| (i % 5 != 1) as u32).collect(),
        lds_init: (0..groups * lds_qwords).map(|_| next()).collect(),
        ret_init: (0..n).map(|i| 0xdead_0000 + i as u64).collect(),
    }
}

#[test]
fn conformance_kernel_wave32_and_wave64_match_serial_semantics() {
    for wave in [WaveSize::Wave32, WaveSize::Wave64] {
        // Two waves per group, three groups, contended addresses, inactive lanes.
        let c = contended_case(3, 2 * wave.lanes(), 64);
        let (ret, lds) = run_conformance(wave, "dsxor_conformance_off0", &c, EmuConfig::default())
            .expect("runs");
        let (eret, elds) = expected(&c, 0);
        assert_eq!(ret, eret, "{wave:?} returns");
        assert_eq!(lds, elds, "{wave:?} LDS");
    }
}

#[test]
fn offset_kernels_add_their_offset_and_out_of_range_reads_zero() {
    for (kernel, off) in [
        ("dsxor_conformance_off8", 8),
        ("dsxor_conformance_off4096", 4096),
        ("dsxor_conformance_off65528", 65528),
    ] {
        let c = contended_case(2, 32, 1024);
        let (ret, lds) =
            run_conformance(WaveSize::Wave32, kernel, &c, EmuConfig::default()).expect("runs");
        let (eret, elds) = expected(&c, off);
        assert_eq!(ret, eret, "{kernel}");
        assert_eq!(lds, elds, "{kernel}");
    }
}

#[test]
fn misaligned_address_is_a_fault_naming_pc_lane_and_address() {
    let mut c = contended_case(1, 32, 64);
    c.addr[5] = 12;
    c.active[5] = 1;
    match run_conformance(
        WaveSize::Wave32,
        "dsxor_conformance_off0",
        &c,
        EmuConfig::default(),
    ) {
        Err(BackendError::Fault(m)) => {
            assert!(
                m.contains("MEMVIOL")
                    && m.contains("lane 5")
                    && m.contains("0xc")
                    && m.contains("pc 0x"),
                "{m}"
            );
        }
        other => panic!("expected a MEMVIOL fault, got {other:?}"),
    }
}

#[test]
fn every_fault_changes_the_result_of_a_contended_case() {
    let mut c = contended_case(1, 64, 64);
    // Lane 0 is inactive; the others use offsets below 256 so drop-offset1 shows only with offset1.
    c.active[0] = 0;
    for fault in Fault::ALL {
        let kernel = if fault == Fault::DropOffset1 {
            "dsxor_conformance_off4096"
        } else {
            "dsxor_conformance_off0"
        };
        let good =
            run_conformance(WaveSize::Wave32, kernel, &c, EmuConfig::default()).expect("runs");
        match run_conformance(
            WaveSize::Wave32,
            kernel,
            &c,
            EmuConfig {
                fault: Some(fault.into()),
                ..Default::default()
            },
        ) {
            Ok(bad) => assert_ne!(good, bad, "fault {fault} changed nothing"),
            // ignore-exec runs inactive lanes with whatever their ADDR register
            // holds, which here is misaligned: a MEMVIOL is a caught fault too.
            Err(BackendError::Fault(m)) if fault == Fault::IgnoreExec => {
                assert!(m.contains("MEMVIOL"), "{m}")
            }
            Err(e) => panic!("fault {fault}: {e}"),
        }
    }
}

#[test]
fn interleave_seed_changes_the_order_but_not_the_xor_of_everything() {
    let c = contended_case(2, 64, 64);
    let (r0, l0) = run_conformance(
        WaveSize::Wave32,
        "dsxor_conformance_off0",
        &c,
        EmuConfig::default(),
    )
    .expect("runs");
    let mut orders = std::collections::BTreeSet::new();
    for seed in 1..4 {
        let cfg = EmuConfig {
            interleave_seed: Some(seed),
            ..Default::default()
        };
        let (r, l) = run_conformance(WaveSize::Wave32, "dsxor_conformance_off0", &c, cfg.clone())
            .expect("runs");
        // XOR commutes: the final LDS is the same under any order.
        assert_eq!(l, l0);
        let again =
            run_conformance(WaveSize::Wave32, "dsxor_conformance_off0", &c, cfg).expect("runs");
        assert_eq!(again.0, r, "same seed, same order");
        orders.insert(r);
    }
    orders.insert(r0);
    assert!(orders.len() > 1, "seeds produced no other order");
}

#[test]
fn instruction_budget_is_a_timeout_naming_the_pc() {
    let c = contended_case(1, 32, 64);
    let cfg = EmuConfig {
        instruction_budget: Some(50),
        ..Default::default()
    };
    match run_conformance(WaveSize::Wave32, "dsxor_conformance_off0", &c, cfg) {
        Err(BackendError::Timeout {
            pc: Some(pc),
            kernel,
            ..
        }) => {
            assert!(pc > 0);
            assert_eq!(kernel, "dsxor_conformance_off0");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn throughput_kernels_leave_the_checkable_lds_image() {
    for wave in [WaveSize::Wave32, WaveSize::Wave64] {
        for kernel in ["dsxor_throughput_dep", "dsxor_throughput_indep"] {
            let obj = find_embedded("gfx1100", wave).expect("shipped");
            let (groups, block, q) = (4u32, 2 * wave.lanes(), 16u32);
            let n = (groups * block) as usize;
            let addr: Vec<u32> = (0..n).map(|i| 8 * (i as u32 % 5)).collect();
            let data: Vec<u64> = (0..n)
                .map(|i| (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            for iters in [4u32, 8, 12] {
                let mut dev = EmuBackend::new(EmuConfig::default()).expect("emu");
                let d = Dispatch {
                    code_object: obj.bytes,
                    kernel,
                    groups,
                    block,
                    dynamic_lds: q * 8,
                    buffers: vec![
                        u32s(&addr),
                        u64s(&data),
                        vec![0; n * 8],
                        vec![0; (groups * q) as usize * 8],
                    ],
                    args: vec![
                        ArgValue::Buffer(0),
                        ArgValue::Buffer(1),
                        ArgValue::Buffer(2),
                        ArgValue::Buffer(3),
                        ArgValue::U32(iters),
                        ArgValue::U64(0),
                        ArgValue::U32(q),
                    ],
                    timeout: Duration::from_secs(20),
                    read_back: ReadBack::All,
                };
                let done = dev.dispatch(&d).expect("runs");
                let lds = to_u64s(&done.buffers[3]);
                // XOR commutes: each qword ends at the XOR of every value
                // issued there, whatever the order. _dep xors d each time;
                // _indep d under four 16-bit chunk masks per round, which
                // XOR to all ones (kernels/dsxor.hip, DSXOR_INDEP_MASK0..3).
                let issued_xor = |d: u64| -> u64 {
                    if kernel == "dsxor_throughput_dep" {
                        (0..iters).fold(0, |acc, _| acc ^ d)
                    } else {
                        const MASKS: [u64; 4] = [
                            u64::MAX,
                            0x0000_0000_ffff_ffff,
                            0xffff_0000_0000_0000,
                            0xffff_0000_ffff_ffff,
                        ];
                        (0..iters as usize).fold(0, |acc, k| acc ^ (d & MASKS[k % 4]))
                    }
                };
                let mut want = vec![0u64; (groups * q) as usize];
                for i in 0..n {
                    want[(i / block as usize) * q as usize + addr[i] as usize / 8] ^=
                        issued_xor(data[i]);
                }
                if kernel == "dsxor_throughput_indep" && iters % 8 == 4 {
                    // An odd number of rounds: the image is not all zero.
                    assert!(want.iter().any(|&x| x != 0));
                }
                assert_eq!(lds, want, "{kernel} {wave:?} iters {iters}");
                let st = dev.last_stats().expect("stats");
                assert_eq!(
                    st.ds_atomic_lane_ops,
                    n as u64 * iters as u64,
                    "{kernel} {wave:?}"
                );
            }
        }
    }
}

#[test]
fn a_global_access_past_a_buffer_is_a_fault_not_host_memory() {
    let obj = find_embedded("gfx1100", WaveSize::Wave32).expect("shipped");
    let c = contended_case(1, 32, 8);
    let mut dev = EmuBackend::new(EmuConfig::default()).expect("emu");
    let d = Dispatch {
        code_object: obj.bytes,
        kernel: "dsxor_conformance_off0",
        groups: 1,
        block: 32,
        dynamic_lds: 64,
        buffers: vec![
            u32s(&c.addr),
            u64s(&c.data),
            u32s(&c.active),
            u64s(&c.lds_init),
            // ret holds 31 of the 32 lanes' values: lane 31 reads past its end.
            u64s(&c.ret_init[..31]),
            vec![0u8; 64],
        ],
        args: (0..6)
            .map(ArgValue::Buffer)
            .chain([ArgValue::U32(8)])
            .collect(),
        timeout: Duration::from_secs(20),
        read_back: ReadBack::All,
    };
    match dev.dispatch(&d) {
        Err(BackendError::Fault(m)) => {
            assert!(
                m.contains("global memory fault")
                    && m.contains("lane 31")
                    && m.contains("no buffer"),
                "{m}"
            )
        }
        other => panic!(
            "expected a global memory fault, got {:?}",
            other.map(|_| ())
        ),
    }
}

#[test]
fn lds_granule_sets_the_in_range_slack() {
    // 512 bytes requested; lanes 0 and 1 both XOR at byte 520: in the slack
    // of a 1024-byte block, out of range with the default 512-byte block.
    let mut c = contended_case(1, 32, 64);
    for l in 0..32 {
        c.active[l] = (l < 2) as u32;
        c.addr[l] = 520;
    }
    let ret1 = |granule: Option<u32>| {
        let cfg = EmuConfig {
            lds_granule: granule,
            ..Default::default()
        };
        run_conformance(WaveSize::Wave32, "dsxor_conformance_off0", &c, cfg)
            .expect("runs")
            .0[1]
    };
    assert_eq!(ret1(None), 0, "out of range reads 0");
    assert_eq!(
        ret1(Some(1024)),
        c.data[0],
        "in the slack lane 1 sees lane 0's update"
    );
    assert!(EmuBackend::new(EmuConfig {
        lds_granule: Some(3),
        ..Default::default()
    })
    .is_err());
}
