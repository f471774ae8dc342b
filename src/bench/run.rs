//! Executing a plan on a backend: launch, check, time, summarise, record.

use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::backend::{
    ArgValue, Backend, BackendError, BackendKind, DeviceInfo, Dispatch, ReadBack,
};
use crate::bench::expect::{self, CheckOutcome, POISON};
use crate::bench::pattern::{lane_data, Layout};
use crate::bench::plan::{plan, RunSpec, Settings};
use crate::bench::stats::Summary;
use crate::bench::{ceiling, BenchError};
use crate::case::{Mode, WaveSize};
use crate::report::bench_record::{
    BenchRecord, CeilingRecord, CheckRecord, CodeObjectRecord, Environment, Rate, RunRecord,
    Skipped, Spread, BENCH_FORMAT, METRIC_EMULATED, METRIC_GPU,
};

/// A code object holding the throughput kernels for one (target, wave size).
#[derive(Clone, Debug)]
pub struct KernelObject<'a> {
    pub target: String,
    pub wave: WaveSize,
    /// `source`, `prebuilt` or `file`.
    pub origin: String,
    /// `embedded:<file>` or a path.
    pub source: String,
    /// The compiler's version line, when known.
    pub compiler: Option<String>,
    /// The mode its throughput kernel's descriptor states
    /// (COMPUTE_PGM_RSRC1.WGP_MODE), read by whoever loaded the object.
    pub mode: Mode,
    pub bytes: &'a [u8],
}

/// What else a record should say about how it was made.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    pub command: Vec<String>,
    /// Why this backend was chosen (backend selection's notice).
    pub selection: String,
    /// Per launch; a launch still running then is a timeout.
    pub timeout: Option<Duration>,
}

/// Default launch budget: generous, since the software device is slow.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Run every run of `settings`' plan on `backend`, calling `on_run` after
/// each (for progress output), and return the record.
///
/// A run that times out, faults or returns a wrong result is recorded with
/// that outcome and no rate; the bench goes on. Environment trouble (no
/// device, library) and invalid dispatches end it with an error; once the
/// plan is made, that error is `BenchError::Aborted`, carrying the record
/// of the runs before it.
pub fn run_bench(
    backend: &mut dyn Backend,
    objects: &[KernelObject<'_>],
    settings: &Settings,
    provenance: &Provenance,
    on_run: &mut dyn FnMut(&RunRecord),
) -> Result<BenchRecord, BenchError> {
    let info = backend.info().clone();
    let specs = plan(settings, info.compute_units)?;
    if objects.is_empty() {
        return Err(BenchError::Environment(format!(
            "no code object with the throughput kernels for target `{}`",
            info.target_id
        )));
    }
    let ceiling = ceiling::for_device(&info);
    let ceiling_rate = ceiling.as_ref().ok().map(|c| c.lane_ops_per_second);
    let timeout = provenance.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    let mut ended = None;
    for spec in &specs {
        let Some(object) = objects.iter().find(|o| o.wave == spec.wave) else {
            skipped.push(Skipped {
                name: spec.name.clone(),
                reason: format!("no code object for wave{}", spec.wave.lanes()),
            });
            continue;
        };
        if !info.wave_sizes.contains(&spec.wave.lanes()) {
            skipped.push(Skipped {
                name: spec.name.clone(),
                reason: format!("device does not run wave{}", spec.wave.lanes()),
            });
            continue;
        }
        let layout = match Layout::new(spec.pattern, spec.lanes_per_group(), info.lds_per_block) {
            Ok(l) => l,
            Err(BenchError::Plan(reason)) => {
                skipped.push(Skipped {
                    name: spec.name.clone(),
                    reason,
                });
                continue;
            }
            Err(e) => {
                ended = Some(e);
                break;
            }
        };
        match run_one(
            backend,
            object,
            spec,
            &layout,
            settings,
            timeout,
            ceiling_rate,
        ) {
            Ok(run) => {
                on_run(&run);
                runs.push(run);
            }
            Err(e) => {
                ended = Some(e);
                break;
            }
        }
    }
    let all_passed =
        ended.is_none() && !runs.is_empty() && runs.iter().all(|r| r.outcome == "pass");
    let emulated = info.backend == BackendKind::Emu;
    let record = BenchRecord {
        format: BENCH_FORMAT.to_string(),
        dsxor_version: env!("CARGO_PKG_VERSION").to_string(),
        created_utc: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        command: provenance.command.clone(),
        environment: environment(&info, objects, provenance),
        settings: crate::report::bench_record::Settings {
            quick: settings.quick,
            seed: settings.seed,
            warmup: settings.warmup,
            reps: settings.reps,
            timing: if emulated { "host-clock" } else { "hip-events" }.to_string(),
        },
        metric: if emulated {
            METRIC_EMULATED
        } else {
            METRIC_GPU
        }
        .to_string(),
        no_ceiling_reason: ceiling.as_ref().err().map(|e| e.to_string()),
        ceiling: ceiling.ok().map(|c| CeilingRecord {
            lane_ops_per_second: c.lane_ops_per_second,
            lds_bytes_per_second: c.lds_bytes_per_second,
            compute_units: c.compute_units,
            compute_units_from: c.compute_units_from,
            clock_khz: c.clock_khz,
            lanes_per_clock_per_cu: c.lanes_per_clock_per_cu,
            formula: c.formula,
            sources: c.sources,
        }),
        runs,
        skipped,
        all_passed,
        worker_processes: None,
        aborted: ended.as_ref().map(|e| e.to_string()),
        extra: clock_state(&info),
    };
    match ended {
        None => Ok(record),
        Some(cause) => Err(BenchError::Aborted {
            record: Box::new(record),
            cause: Box::new(cause),
        }),
    }
}

fn environment(
    info: &DeviceInfo,
    objects: &[KernelObject<'_>],
    provenance: &Provenance,
) -> Environment {
    let host = crate::backend::HostDriver::read();
    Environment {
        device: info.clone(),
        selection: provenance.selection.clone(),
        code_objects: objects
            .iter()
            .map(|o| CodeObjectRecord {
                wave: o.wave,
                mode: o.mode,
                source: o.source.clone(),
                sha256: hex::encode(Sha256::digest(o.bytes)),
                origin: o.origin.clone(),
                compiler: o.compiler.clone(),
                // The embedded table's target is the object's own (build.rs
                // compiles each for exactly that --offload-arch).
                target: Some(o.target.clone()),
            })
            .collect(),
        host_os: std::env::consts::OS.to_string(),
        host_arch: std::env::consts::ARCH.to_string(),
        host_cpus: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        devices: Vec::new(),
        hsa_override_gfx_version: host.hsa_override_gfx_version,
        amdgpu_driver_version: host.amdgpu_driver_version,
    }
}

/// The device's current shader clock and DPM level (amdgpu sysfs), taken
/// after the runs, beside the peak clock the ceiling uses: a device held
/// below peak shows it here. HIP exposes no current clock.
fn clock_state(info: &DeviceInfo) -> std::collections::BTreeMap<String, serde_json::Value> {
    let mut extra = std::collections::BTreeMap::new();
    if info.backend != BackendKind::Hip {
        return extra;
    }
    let value = match info.clock_state() {
        Some(c) => serde_json::to_value(c).unwrap_or(serde_json::Value::Null),
        None => serde_json::json!({
            "unavailable": format!(
                "no amdgpu pp_dpm_sclk in sysfs for PCI {}",
                info.pci_bus_id.as_deref().unwrap_or("(unknown)")
            )
        }),
    };
    extra.insert("clock_state".to_string(), value);
    extra
}

/// A stable per-run seed, so every run's DATA differs but a seed fixes all.
fn run_seed(seed: u64, name: &str) -> u64 {
    // FNV-1a: tiny, stable across platforms and Rust versions.
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64 ^ seed, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn u64s_to_bytes(v: impl IntoIterator<Item = u64>) -> Vec<u8> {
    v.into_iter().flat_map(u64::to_le_bytes).collect()
}

fn bytes_to_u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| {
            let mut q = [0u8; 8];
            q.copy_from_slice(c);
            u64::from_le_bytes(q)
        })
        .collect()
}

fn run_one(
    backend: &mut dyn Backend,
    object: &KernelObject<'_>,
    spec: &RunSpec,
    layout: &Layout,
    settings: &Settings,
    timeout: Duration,
    ceiling_rate: Option<f64>,
) -> Result<RunRecord, BenchError> {
    let groups = spec.groups as usize;
    let n_lanes = groups * layout.lanes_per_group();
    let data = lane_data(run_seed(settings.seed, &spec.name), n_lanes);
    let qwords = layout.lds_qwords as usize;
    let issued = spec.chain.issued(spec.iters);
    // Inputs are built once; each launch gets a copy (the Dispatch owns its
    // buffers), so memory does not grow with the repetition count.
    let addr_bytes: Vec<u8> = (0..groups)
        .flat_map(|_| layout.addr.iter().flat_map(|a| a.to_le_bytes()))
        .collect();
    let data_bytes = u64s_to_bytes(data.iter().copied());
    let fold_poison = u64s_to_bytes(std::iter::repeat_n(POISON, n_lanes));
    let lds_poison = u64s_to_bytes(std::iter::repeat_n(POISON, groups * qwords));
    let inputs = [addr_bytes, data_bytes, fold_poison, lds_poison];
    let kernel = spec.chain.kernel();
    let backend_err = |cause| BenchError::Backend {
        run: spec.name.clone(),
        kernel: kernel.to_string(),
        cause,
    };

    let mut check = CheckRecord {
        expected_all_zero: expect::all_exact_zero(layout, groups, spec.chain, &data, issued),
        ..CheckRecord::default()
    };
    let mut samples = Vec::with_capacity(settings.reps as usize);
    let mut outcome = "pass";
    let mut error = None;
    for launch in 0..settings.warmup + settings.reps {
        let dispatch = launch_of(object, spec, layout, &inputs, timeout);
        let completion = match backend.dispatch(&dispatch) {
            Ok(c) => c,
            Err(e @ BackendError::Timeout { .. }) => {
                outcome = "timeout";
                error = Some(e.to_string());
                break;
            }
            Err(e @ BackendError::Fault(_)) => {
                outcome = "fault";
                error = Some(e.to_string());
                break;
            }
            Err(source) => return Err(backend_err(source)),
        };
        let (fold, lds_out) = match completion.buffers.as_slice() {
            [_, _, fold, lds] => (bytes_to_u64s(fold), bytes_to_u64s(lds)),
            other => {
                return Err(backend_err(BackendError::Invalid(format!(
                    "backend returned {} buffers, 4 were sent",
                    other.len()
                ))))
            }
        };
        let c: CheckOutcome =
            expect::check(layout, groups, spec.chain, &data, issued, &fold, &lds_out);
        let mismatches = c.mismatches;
        if !tally(&mut check, c, launch) {
            outcome = "wrong-result";
            error = Some(format!(
                "{mismatches} output values differ from the expected ones"
            ));
            break;
        }
        if launch >= settings.warmup {
            samples.push(completion.elapsed.as_secs_f64());
        }
    }

    let launched = Launched {
        check,
        samples,
        outcome,
        error,
    };
    Ok(run_record(spec, layout, ceiling_rate, launched))
}

/// One launch of the run's kernel: ADDR, DATA and the poisoned fold and
/// LDS buffers (`inputs`, in that order) copied in, fold and LDS read back.
fn launch_of<'a>(
    object: &KernelObject<'a>,
    spec: &RunSpec,
    layout: &Layout,
    inputs: &[Vec<u8>; 4],
    timeout: Duration,
) -> Dispatch<'a> {
    Dispatch {
        code_object: object.bytes,
        kernel: spec.chain.kernel(),
        groups: spec.groups,
        block: spec.lanes_per_group(),
        dynamic_lds: layout.lds_qwords * 8,
        // A copy each (the Dispatch owns its buffers).
        buffers: inputs.to_vec(),
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
            ArgValue::U32(spec.iters),
            // dep_mask: the ABI's host passes 0 (DATA stays fixed).
            ArgValue::U64(0),
            ArgValue::U32(layout.lds_qwords),
        ],
        timeout,
        // The check reads fold and LDS out; ADDR and DATA are inputs.
        // (Through worker processes, only these cross the pipe back.)
        read_back: ReadBack::Only(&[2, 3]),
    }
}
/// What a run's launches gave: the check's counts, the timed launches'
/// seconds, and the outcome (`pass`, `timeout`, `fault`, `wrong-result`)
/// with its error.
struct Launched {
    check: CheckRecord,
    samples: Vec<f64>,
    outcome: &'static str,
    error: Option<String>,
}

/// Add one launch's check to the run's; whether the launch passed. The
/// first 8 mismatches of the run are kept, each naming its launch.
fn tally(check: &mut CheckRecord, c: CheckOutcome, launch: u32) -> bool {
    check.launches_checked += 1;
    check.lds_qwords_checked += c.lds_qwords_checked;
    check.folds_exact += c.folds_exact;
    check.folds_in_span += c.folds_in_span;
    check.mismatches += c.mismatches;
    let passed = c.passed();
    for m in c.first_mismatches {
        if check.first_mismatches.len() < 8 {
            check.first_mismatches.push(format!("launch {launch}: {m}"));
        }
    }
    passed
}

/// The run's record: its shape, what its launches gave, and its rate when
/// it passed.
fn run_record(
    spec: &RunSpec,
    layout: &Layout,
    ceiling_rate: Option<f64>,
    launched: Launched,
) -> RunRecord {
    let Launched {
        check,
        samples,
        outcome,
        mut error,
    } = launched;
    let n_lanes = spec.groups as usize * layout.lanes_per_group();
    let issued = spec.chain.issued(spec.iters);
    let kernel = spec.chain.kernel();
    let lane_ops = n_lanes as u64 * issued as u64;
    let summary = Summary::of(&samples);
    // A rate counts only for a run that passed every check, with a nonzero
    // median time (a timer that cannot resolve the launch gives no rate).
    let rate = summary
        .filter(|s| outcome == "pass" && s.median > 0.0 && s.min > 0.0)
        .map(|s| Rate {
            median: lane_ops as f64 / s.median,
            min: lane_ops as f64 / s.max,
            max: lane_ops as f64 / s.min,
        });
    if outcome == "pass" && rate.is_none() {
        error = Some("launch time below the timer's resolution: no rate".into());
    }
    RunRecord {
        name: spec.name.clone(),
        sweep: spec.sweep.to_string(),
        pattern: spec.pattern.name(),
        conflict_ways: spec.pattern.conflict_ways(),
        chain: spec.chain.name().to_string(),
        kernel: kernel.to_string(),
        wave: spec.wave.lanes(),
        groups: spec.groups,
        waves_per_group: spec.waves_per_group,
        workgroups_per_cu: spec.workgroups_per_cu,
        iters: spec.iters,
        issued_per_lane: issued,
        lanes: n_lanes as u64,
        lane_ops_per_launch: lane_ops,
        lds_bytes_per_group: layout.lds_qwords * 8,
        outcome: outcome.to_string(),
        error,
        check,
        seconds: summary.map(|s| Spread {
            count: s.count,
            median: s.median,
            min: s.min,
            max: s.max,
            q1: s.q1,
            q3: s.q3,
            mad: s.mad,
        }),
        samples_seconds: samples,
        lds_bytes_per_second: rate.map(|r| r.median * ceiling::BYTES_PER_LANE_OP as f64),
        fraction_of_ceiling: rate.and_then(|r| ceiling_rate.map(|c| r.median / c)),
        lane_ops_per_second: rate,
    }
}
