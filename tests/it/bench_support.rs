//! Shared by `host_bench_run` and the `host_report_*` tests: hand-made bench records, and a
//! simulated device that executes the throughput kernel ABI on the host
//! (optionally with an injected fault), so the bench machinery is tested
//! without a GPU or the emulator.

use std::collections::BTreeMap;
use std::time::Duration;

use dsxor::backend::{
    ArgValue, Backend, BackendError, BackendKind, Completion, DeviceInfo, Dispatch,
};
use dsxor::report::bench_record::*;

pub fn device(backend: &str) -> DeviceInfo {
    let emu = backend == "emu";
    DeviceInfo {
        backend: if emu {
            BackendKind::Emu
        } else {
            BackendKind::Hip
        },
        name: if emu {
            "dsxor emu gfx11".into()
        } else {
            "AMD Radeon RX 7900 XTX".into()
        },
        target_id: "gfx1100".into(),
        wave_sizes: vec![32, 64],
        compute_units: if emu { 1 } else { 96 },
        clock_khz: if emu { None } else { Some(2_500_000) },
        lds_per_block: 65536,
        runtime_version: None,
        driver_version: None,
        pci_bus_id: None,
        uuid: None,
        placement: None,
    }
}

/// One run record at `median` lane-ops/s (None: a failed run).
pub fn run(
    name: &str,
    sweep: &str,
    wave: u32,
    waves: u32,
    per_cu: u32,
    median: Option<f64>,
) -> RunRecord {
    let parts: Vec<&str> = name.split('/').collect();
    let (pattern, chain) = if sweep == "patterns" {
        (parts[0].to_string(), parts[1].to_string())
    } else {
        ("conflict-free".to_string(), "indep".to_string())
    };
    let lane_ops = 1_000_000u64;
    RunRecord {
        name: name.into(),
        sweep: sweep.into(),
        pattern,
        conflict_ways: 1,
        kernel: format!("dsxor_throughput_{chain}"),
        chain,
        wave,
        groups: per_cu,
        waves_per_group: waves,
        workgroups_per_cu: per_cu,
        iters: 1024,
        issued_per_lane: 1024,
        lanes: 1000,
        lane_ops_per_launch: lane_ops,
        lds_bytes_per_group: 8192,
        outcome: if median.is_some() {
            "pass".into()
        } else {
            "wrong-result".into()
        },
        error: median
            .is_none()
            .then(|| "3 output values differ from the expected ones".into()),
        check: CheckRecord {
            launches_checked: 6,
            ..Default::default()
        },
        seconds: median.map(|m| {
            let t = lane_ops as f64 / m;
            Spread {
                count: 5,
                median: t,
                min: t * 0.9,
                max: t * 1.2,
                q1: t * 0.95,
                q3: t * 1.05,
                mad: t * 0.03,
            }
        }),
        samples_seconds: vec![],
        lane_ops_per_second: median.map(|m| Rate {
            median: m,
            min: m / 1.2,
            max: m / 0.9,
        }),
        lds_bytes_per_second: median.map(|m| m * 8.0),
        fraction_of_ceiling: None,
    }
}

/// A record made at `created` on `backend`, with pattern rates scaled by `scale`.
pub fn record(created: &str, backend: &str, scale: f64) -> BenchRecord {
    let mut runs = Vec::new();
    for wave in [32, 64] {
        for chain in ["dep", "indep"] {
            for (k, p) in [
                "conflict-free",
                "bank-conflict-2way",
                "bank-conflict-32way",
                "one-address",
            ]
            .iter()
            .enumerate()
            {
                let rate =
                    scale * 1e9 / (1 << (2 * k)) as f64 * if chain == "indep" { 2.0 } else { 1.0 };
                runs.push(run(
                    &format!("{p}/{chain}/wave{wave}"),
                    "patterns",
                    wave,
                    2,
                    1,
                    Some(rate),
                ));
            }
        }
    }
    for wave in [32, 64] {
        for per_cu in [1, 2] {
            for waves in [1, 4] {
                let rate = scale * 1e8 * waves as f64 * per_cu as f64;
                runs.push(run(
                    &format!("occupancy/wave{wave}/{per_cu}wg-per-cu/{waves}waves"),
                    "occupancy",
                    wave,
                    waves,
                    per_cu,
                    Some(rate),
                ));
            }
        }
    }
    let emulated = backend == "emu";
    let ceiling = (!emulated).then(|| CeilingRecord {
        lane_ops_per_second: 3.84e12,
        lds_bytes_per_second: 3.84e12 * 8.0,
        compute_units: 96,
        compute_units_from: None,
        clock_khz: 2_500_000,
        lanes_per_clock_per_cu: 16,
        formula: "ceiling = compute_units x clock_hz x 16".into(),
        sources: vec!["RDNA3 ISA guide 1.2.2.1".into()],
    });
    if let Some(c) = &ceiling {
        for r in &mut runs {
            r.fraction_of_ceiling = r
                .lane_ops_per_second
                .map(|x| x.median / c.lane_ops_per_second);
        }
    }
    BenchRecord {
        format: BENCH_FORMAT.into(),
        dsxor_version: "0.1.0".into(),
        created_utc: created.into(),
        command: vec!["dsxor".into(), "bench".into()],
        environment: Environment {
            device: device(backend),
            selection: "test".into(),
            code_objects: vec![],
            host_os: "linux".into(),
            host_arch: "x86_64".into(),
            host_cpus: 2,
            devices: vec![],
            hsa_override_gfx_version: None,
            amdgpu_driver_version: None,
        },
        settings: Settings {
            quick: true,
            seed: 1,
            warmup: 1,
            reps: 5,
            timing: "host-clock".into(),
        },
        metric: if emulated {
            METRIC_EMULATED.into()
        } else {
            METRIC_GPU.into()
        },
        no_ceiling_reason: emulated.then(|| "the software device is not a GPU".into()),
        ceiling,
        runs,
        skipped: vec![],
        all_passed: true,
        worker_processes: None,
        aborted: None,
        extra: BTreeMap::new(),
    }
}

/// How the simulated device misbehaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fault {
    None,
    /// Lane 0 of every workgroup loses its last xor (a lost update).
    LostUpdate,
    /// The kernel never writes `fold`.
    NoFold,
    /// Every launch times out.
    Timeout,
}

/// DATA of the `_indep` kernel's four in-flight instructions: `d` under
/// these masks (kernels/dsxor.hip, DSXOR_INDEP_MASK0..3), restated here so
/// the simulated device does not borrow the checker's code.
const INDEP_MASKS: [u64; 4] = [
    u64::MAX,
    0x0000_0000_ffff_ffff,
    0xffff_0000_0000_0000,
    0xffff_0000_ffff_ffff,
];

/// A host-side executor of the throughput kernel ABI: LDS zeroed, `n`
/// instructions per lane in round-robin order (instruction `k` of `_indep`
/// xors `d & INDEP_MASKS[k % 4]`, of `_dep` `d`), folds, LDS dump.
pub struct SimDevice {
    pub info: DeviceInfo,
    pub fault: Fault,
    pub launches: u32,
}

impl SimDevice {
    pub fn new(fault: Fault) -> SimDevice {
        SimDevice {
            info: DeviceInfo {
                backend: BackendKind::Emu,
                name: "simulated ABI device (test)".into(),
                target_id: "gfx1100".into(),
                wave_sizes: vec![32, 64],
                compute_units: 2,
                clock_khz: None,
                lds_per_block: 65536,
                runtime_version: None,
                driver_version: None,
                pci_bus_id: None,
                uuid: None,
                placement: None,
            },
            fault,
            launches: 0,
        }
    }
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

impl Backend for SimDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    #[allow(clippy::needless_range_loop)] // t indexes lanes of several arrays
    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        self.launches += 1;
        if self.fault == Fault::Timeout {
            return Err(BackendError::Timeout {
                kernel: d.kernel.into(),
                limit: d.timeout,
                pc: None,
            });
        }
        let (iters, dep_mask, lds_qwords) = match d.args.as_slice() {
            [ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2), ArgValue::Buffer(3), ArgValue::U32(i), ArgValue::U64(m), ArgValue::U32(q)] => {
                (*i, *m, *q as usize)
            }
            other => return Err(BackendError::Invalid(format!("unexpected args {other:?}"))),
        };
        if dep_mask != 0 {
            return Err(BackendError::Invalid(
                "the host must pass dep_mask = 0".into(),
            ));
        }
        if d.dynamic_lds as usize != lds_qwords * 8 {
            return Err(BackendError::Invalid(
                "dynamic LDS differs from lds_qwords".into(),
            ));
        }
        let (n, masks): (u32, &[u64]) = match d.kernel {
            "dsxor_throughput_dep" => (iters, &[u64::MAX]),
            "dsxor_throughput_indep" => (iters / 4 * 4, &INDEP_MASKS),
            k => return Err(BackendError::Invalid(format!("no kernel {k}"))),
        };
        let addr: Vec<u32> = d.buffers[0]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let data = u64s(&d.buffers[1]);
        let block = d.block as usize;
        let mut fold = u64s(&d.buffers[2]);
        let mut lds_out = vec![0u64; d.groups as usize * lds_qwords];
        for g in 0..d.groups as usize {
            let mut lds = vec![0u64; lds_qwords];
            let mut f = vec![0u64; block];
            for k in 0..n {
                for t in 0..block {
                    let lane = g * block + t;
                    if self.fault == Fault::LostUpdate && t == 0 && k + 1 == n {
                        continue;
                    }
                    let q = (addr[lane] / 8) as usize;
                    let r = lds[q];
                    lds[q] ^= data[lane] & masks[k as usize % masks.len()];
                    f[t] ^= r;
                }
            }
            if self.fault != Fault::NoFold {
                fold[g * block..(g + 1) * block].copy_from_slice(&f);
            }
            lds_out[g * lds_qwords..(g + 1) * lds_qwords].copy_from_slice(&lds);
        }
        let mut buffers = d.buffers.clone();
        buffers[2] = fold.iter().flat_map(|x| x.to_le_bytes()).collect();
        buffers[3] = lds_out.iter().flat_map(|x| x.to_le_bytes()).collect();
        Ok(Completion {
            buffers,
            elapsed: Duration::from_micros(100 + n as u64),
            wgp_mode: None,
        })
    }
}
