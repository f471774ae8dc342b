//! `dsxor bench`.

use super::*;

#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// Refuse to run anywhere but on a GPU (the software device and a
    /// simulated HIP device exit 3).
    #[arg(long, env = "DSXOR_REQUIRE_GPU", value_parser = clap::builder::BoolishValueParser::new())]
    pub(crate) require_gpu: bool,
    /// auto: a HIP GPU with kernels for its target; the software device only
    /// when no GPU and no /dev/kfd is present (a GPU dsxor cannot use exits 3).
    #[arg(long, value_enum, env = "DSXOR_BACKEND", default_value_t = BackendArg::Auto)]
    pub(crate) backend: BackendArg,
    /// HIP device index (with --backend hip or auto).
    #[arg(long)]
    pub(crate) device: Option<u32>,
    /// CI-sized runs: 1 workgroup of 64 lanes per CU, 31 (dep) / 28 (indep)
    /// instructions per lane, 1 warm-up + 5 timed launches (full: 4 x 256
    /// lanes per CU, 1023 / 1020 instructions, 3 + 30 launches).
    #[arg(long)]
    pub(crate) quick: bool,
    /// Directory of the record (created when missing).
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub(crate) out: std::path::PathBuf,
    /// Timed launches per run.
    #[arg(long)]
    pub(crate) reps: Option<u32>,
    /// Checked but untimed launches before the timed ones.
    #[arg(long)]
    pub(crate) warmup: Option<u32>,
    /// Instructions per lane of the independent chain (a multiple of 4; 4 mod
    /// 8 for a strong check, else its expected values are all 0 and the
    /// record says "weak"); the dependent chain runs one fewer (3 mod 4).
    #[arg(long)]
    pub(crate) iters: Option<u32>,
    /// Workgroups per CU of the pattern runs.
    #[arg(long, value_name = "N")]
    pub(crate) workgroups_per_cu: Option<u32>,
    /// Lanes per workgroup of the pattern runs (a multiple of 64, up to 1024).
    #[arg(long, value_name = "N")]
    pub(crate) lanes_per_group: Option<u32>,
    /// Seed of the DATA values (decimal or 0x-hex).
    #[arg(long, default_value = "1")]
    pub(crate) seed: String,
    /// Only runs whose name contains this (`one-address`, `wave64`, `occupancy`).
    #[arg(long, value_name = "SUBSTR")]
    pub(crate) filter: Option<String>,
    /// Wave sizes to run (comma-separated).
    #[arg(long, visible_alias = "waves", value_enum, value_delimiter = ',', default_values_t = [WaveArg::W32, WaveArg::W64])]
    pub(crate) wave: Vec<WaveArg>,
    /// A launch still running after this long is a timeout (e.g. 120s, 2m;
    /// a bare number is seconds); 100ms to 1 day.
    #[arg(long, default_value = "120s", value_parser = timeout_value)]
    pub(crate) timeout: std::time::Duration,
    /// Software device only: inject a named misbehaviour (to see the check
    /// refuse the rate of a wrong result).
    #[arg(long, value_name = "NAME")]
    pub(crate) fault: Option<String>,
    /// Print a machine-readable summary (format `dsxor-bench/1`: verdict,
    /// exit code, record path, each run's outcome and rate) on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn bench_cmd(args: BenchArgs) -> Outcome {
    use dsxor::bench::run::Provenance;
    use dsxor::bench::run_bench;
    use dsxor::report::bench_record::Rate;
    use dsxor::report::svg::si;

    if args.json {
        json_mode("dsxor-bench/1");
    }
    let mut settings = settings_of(&args)?;
    // Before the first launch: an --out that cannot take the record would
    // otherwise be found after every run was measured.
    dsxor::report::results::check_writable(Some(&args.out), None).map_err(bad_input)?;
    let (mut device, selection) = open_bench_device(&args)?;
    let objects = throughput_objects(&selection);
    settings.waves = objects.iter().map(|o| o.wave).collect();
    let emulated = device.backend().info().backend == dsxor::backend::BackendKind::Emu;
    let unit = if emulated {
        "emulated lane-ops/s"
    } else {
        "lane-ops/s"
    };
    outln!(
        "{}",
        if emulated {
            "rates: EMULATED lane-operations per second, the software device's own speed on this host, not a GPU figure"
        } else {
            "rates: ds_xor_rtn_b64 lane-operations per second on the GPU (HIP event time per launch)"
        }
    );
    let provenance = Provenance {
        command: std::env::args().collect(),
        selection: selection.reason.clone(),
        timeout: Some(args.timeout),
    };
    let ran = run_bench(
        device.backend(),
        &objects,
        &settings,
        &provenance,
        &mut |run| {
            let rate = match run.lane_ops_per_second {
                Some(Rate { median, min, max }) => format!(
                    "{} {unit} (min {}, max {}){}",
                    si(median),
                    si(min),
                    si(max),
                    run.fraction_of_ceiling
                        .map(|f| format!(", {} of ceiling", dsxor::report::svg::percent(f)))
                        .unwrap_or_default()
                ),
                None => format!(
                    "{}: no rate counted ({})",
                    run.outcome.to_uppercase(),
                    run.error.as_deref().unwrap_or("")
                ),
            };
            outln!("{:<44} {rate}", run.name);
        },
    );
    let code_of = |e: &dsxor::bench::BenchError| {
        if e.is_environment() {
            dsxor::exit::ENVIRONMENT
        } else {
            dsxor::exit::USAGE
        }
    };
    let (mut record, ended) = match ran {
        Ok(record) => (record, None),
        // The runs before the error are written all the same, and the
        // record says `aborted`.
        Err(dsxor::bench::BenchError::Aborted { record, cause }) => {
            let code = code_of(&cause);
            (*record, Some(code))
        }
        Err(e) => {
            return Err(Failure {
                code: code_of(&e),
                error: e.into(),
            })
        }
    };
    if let BenchDevice::Workers(w) = &device {
        record.worker_processes = Some(w.processes_started());
    }
    report_bench(&args, &record, ended)
}

/// Where the bench's launches run.
enum BenchDevice {
    /// In this process: the software device, or HIP when this binary cannot
    /// start itself as a worker.
    Here(Box<dyn dsxor::backend::Backend>),
    /// In worker processes of this binary, one after another: a device
    /// fault (ROCm 6 `abort()`s the process that saw it) or a hung launch
    /// ends a worker, not the bench.
    Workers(Box<dsxor::suite::worker::ThroughputWorker>),
}

impl BenchDevice {
    fn backend(&mut self) -> &mut dyn dsxor::backend::Backend {
        match self {
            BenchDevice::Here(b) => b.as_mut(),
            BenchDevice::Workers(w) => w.as_mut(),
        }
    }
}

/// The bench's settings from its flags (`--quick`, then each override).
fn settings_of(args: &BenchArgs) -> Result<dsxor::bench::Settings, Failure> {
    let mut settings = dsxor::bench::Settings::new(args.quick);
    settings.seed = parse_seed(&args.seed)?;
    if let Some(r) = args.reps {
        settings.reps = r;
    }
    if let Some(w) = args.warmup {
        settings.warmup = w;
    }
    if let Some(i) = args.iters {
        if i < 4 || i % 4 != 0 {
            return Err(bad_input(anyhow::anyhow!(
                "--iters must be a positive multiple of 4, not {i}"
            )));
        }
        settings.iters_indep = i;
        settings.iters_dep = i - 1;
    }
    if let Some(n) = args.workgroups_per_cu {
        settings.workgroups_per_cu = n;
    }
    if let Some(n) = args.lanes_per_group {
        settings.lanes_per_group = n;
    }
    settings.filter = args.filter.clone();
    settings.validate().map_err(bad_input)?;
    Ok(settings)
}

/// The device the bench runs on (HIP probed once unless the software
/// device was asked for) and why it was chosen: a HIP device in worker
/// processes, as `run`'s and `qualify`'s HIP launches; the software device
/// in this process (its faults are values, never a dead process).
fn open_bench_device(
    args: &BenchArgs,
) -> Result<(BenchDevice, dsxor::backend::select::Selection), Failure> {
    use dsxor::backend::select::{select, BackendChoice, HipView};
    use dsxor::backend::{emu::EmuBackend, hip::HipBackend, BackendError};
    use dsxor::case::WaveSize;
    use dsxor::codeobj::embedded::find_embedded;
    let choice: BackendChoice = args.backend.into();
    let waves: Vec<WaveSize> = args.wave.iter().map(|&w| w.into()).collect();
    let fault = match &args.fault {
        Some(name) => Some(name.parse::<dsxor::emu::FaultSpec>().map_err(bad_input)?),
        None => None,
    };
    if fault.is_some() && choice != BackendChoice::Emu {
        return Err(bad_input(anyhow::anyhow!("--fault needs --backend emu")));
    }
    let probe = (choice != BackendChoice::Emu).then(dsxor::hip::probe);
    let view = probe.as_ref().map(HipView::from_probe);
    let selection = select(choice, view.as_ref(), &waves, args.device, |p, w| {
        find_embedded(p, w).is_some()
    })
    .map_err(environment)?;
    if args.require_gpu {
        dsxor::backend::select::require_hardware(&selection, view.as_ref()).map_err(environment)?;
    }
    eprintln!("dsxor: {}", selection.reason);
    let backend_err = |e: BackendError| {
        if e.is_bad_input() {
            bad_input(e)
        } else {
            environment(e)
        }
    };
    let device = match (selection.hip_device, &probe) {
        (Some(index), Some(Ok(report))) => match hip_workers(report, index, args.timeout) {
            Some(w) => BenchDevice::Workers(Box::new(w.map_err(backend_err)?)),
            None => BenchDevice::Here(Box::new(
                HipBackend::from_report(report, Some(index)).map_err(backend_err)?,
            )),
        },
        (Some(index), _) => BenchDevice::Here(Box::new(
            HipBackend::open(Some(index)).map_err(backend_err)?,
        )),
        (None, _) => BenchDevice::Here(Box::new(
            EmuBackend::new(dsxor::emu::EmuConfig {
                fault,
                ..Default::default()
            })
            .map_err(backend_err)?,
        )),
    };
    Ok((device, selection))
}

/// HIP device `index` of the probe as worker processes of this binary
/// (`suite::worker`, one `Throughput` request per launch); `None` when this
/// binary's path is unknown, so it cannot start itself.
fn hip_workers(
    report: &dsxor::hip::HipReport,
    index: u32,
    timeout: std::time::Duration,
) -> Option<Result<dsxor::suite::worker::ThroughputWorker, dsxor::backend::BackendError>> {
    use dsxor::backend::hip::{choose_device, device_info};
    use dsxor::suite::worker::{visible_entry, ThroughputWorker, WorkerPlan, VISIBLE_DEVICES};
    let exe = std::env::current_exe().ok()?;
    let props = match choose_device(report, Some(index)) {
        Ok(p) => p,
        Err(e) => return Some(Err(dsxor::backend::BackendError::Environment(e))),
    };
    let hip_visible = std::env::var(VISIBLE_DEVICES).ok();
    let cuda_visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    Some(Ok(ThroughputWorker::new(WorkerPlan {
        exe,
        visible: visible_entry(props.index, hip_visible.as_deref(), cuda_visible.as_deref()),
        info: device_info(report, props),
        // Each launch carries its code object (sent once per child).
        objects: Vec::new(),
        timeout,
        label: format!("HIP device {}", props.index),
        batch: 1,
    })))
}

/// The embedded objects holding the throughput kernels, one per selected
/// wave size, each with the mode its kernel's descriptor states.
fn throughput_objects(
    selection: &dsxor::backend::select::Selection,
) -> Vec<dsxor::bench::KernelObject<'static>> {
    selection
        .waves
        .iter()
        .filter_map(|&w| dsxor::codeobj::embedded::find_embedded(&selection.target, w))
        .map(|o| dsxor::bench::KernelObject {
            target: o.target.to_string(),
            wave: o.wave,
            origin: o.origin.name().to_string(),
            source: format!("embedded:{}", o.file_name),
            compiler: Some(o.compiler.to_string()),
            mode: dsxor::codeobj::CodeObject::parse(o.bytes)
                .ok()
                .and_then(|co| co.mode_of("dsxor_throughput_dep"))
                .unwrap_or_default(),
            bytes: o.bytes,
        })
        .collect()
}

/// The ceiling, skipped runs and verdict on the console, the record
/// written, `--json`'s summary; the exit code. `aborted`: the exit code of
/// the error that ended the bench early (the record's `aborted`), which
/// decides unless a run before it failed its check (1: a finding is never
/// hidden behind the environment's trouble, as `run` does when its results
/// cannot be written).
fn report_bench(
    args: &BenchArgs,
    record: &dsxor::report::bench_record::BenchRecord,
    aborted: Option<u8>,
) -> Outcome {
    use dsxor::report::svg::si;
    match &record.ceiling {
        Some(c) => outln!(
            "ceiling: {} lane-ops/s = {} CUs x {} kHz x {} lanes/clock/CU\n  {}\n  sources: {}",
            si(c.lane_ops_per_second),
            c.compute_units,
            c.clock_khz,
            c.lanes_per_clock_per_cu,
            c.formula,
            c.sources.join("; ")
        ),
        None => outln!(
            "ceiling: none ({})",
            record.no_ceiling_reason.as_deref().unwrap_or("unknown")
        ),
    }
    for s in &record.skipped {
        outln!("skipped {}: {}", s.name, s.reason);
    }
    let failed = record.runs.iter().filter(|r| r.outcome != "pass").count();
    let code = match aborted {
        _ if failed > 0 => dsxor::exit::FAIL,
        Some(code) => code,
        None if record.all_passed => dsxor::exit::PASS,
        None => dsxor::exit::FAIL,
    };
    // --out was checked before the first launch: a write failing now is the
    // machine's (a full disk, 3), unless a run was wrong (1 still).
    let unwritten = |e: anyhow::Error| Failure {
        code: if code == dsxor::exit::FAIL {
            code
        } else {
            dsxor::exit::ENVIRONMENT
        },
        error: e,
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| unwritten(anyhow::anyhow!("cannot create {}: {e}", args.out.display())))?;
    let path = record
        .save_new(&args.out)
        .map_err(|e| unwritten(e.into()))?;
    outln!(
        "{} runs, {} passed their check, {failed} failed; record: {}",
        record.runs.len(),
        record.runs.len() - failed,
        path.display()
    );
    if let Some(reason) = &record.aborted {
        eprintln!("dsxor: bench aborted (the record holds the runs before): {reason}");
    }
    if args.json {
        let runs: Vec<serde_json::Value> = record
            .runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "outcome": r.outcome,
                    "lane_ops_per_second": r.lane_ops_per_second.as_ref().map(|x| x.median),
                    "error": r.error,
                })
            })
            .collect();
        print_json(
            if record.aborted.is_some() && failed == 0 {
                "error"
            } else if record.all_passed {
                "passed"
            } else {
                "failed"
            },
            code,
            serde_json::json!({
                "record": path,
                "metric": record.metric,
                "backend": record.environment.device.backend.name(),
                "target": record.environment.device.target_id,
                "runs": runs,
                "passed": record.runs.len() - failed,
                "failed": failed,
                "skipped": record.skipped.iter().map(|s| &s.name).collect::<Vec<_>>(),
                "worker_processes": record.worker_processes,
                "aborted": record.aborted,
            }),
        );
    }
    Ok(code)
}
