//! `dsxor run`.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) dev: DeviceArgs,
    /// Total cases over every (pattern, wave) cell [default: 72000, or
    /// sized by --rate].
    #[arg(long)]
    pub(crate) cases: Option<u64>,
    /// Size the run to a claim instead of a case count: enough contended
    /// lane-ops to see a fault hitting this fraction of them (e.g. 1e-5)
    /// with --confidence; ceil(-ln(1-C)/R) lane-ops.
    #[arg(long, conflicts_with = "cases")]
    pub(crate) rate: Option<f64>,
    /// Confidence of the claim a pass states (and --rate sizes to).
    #[arg(long, default_value_t = 0.999)]
    pub(crate) confidence: f64,
    /// Seed (decimal or 0x-hex); default: a fresh one, printed and recorded.
    #[arg(long)]
    pub(crate) seed: Option<String>,
    /// Only these patterns (comma-separated or repeated; default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) pattern: Vec<PatternArg>,
    /// Only these wave sizes (comma-separated; default: every size the
    /// device and the kernels offer).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) wave: Vec<WaveArg>,
    /// Only these wavefront execution modes (comma-separated: cu, wgp;
    /// default: every mode the device's kernels offer, both on gfx1100).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) mode: Vec<ModeArg>,
    /// Run shard K of N (1-based): cases with index % N == K-1. Without it,
    /// SHARD_INDEX (0-based) and TOTAL_SHARDS from the environment (as
    /// ROCm's CI sets them) choose the shard.
    #[arg(long)]
    pub(crate) shard: Option<String>,
    /// Directory for the results, case stream and repro files.
    #[arg(long, default_value = "results")]
    pub(crate) out: std::path::PathBuf,
    /// Write the results file here instead of OUT/<UTC>-<backend>-<target>.json
    /// (replaced atomically if it exists); the case stream and repro files
    /// stay in --out.
    #[arg(long, value_name = "PATH")]
    pub(crate) results: Option<std::path::PathBuf>,
    /// Also write JUnit XML here.
    #[arg(long)]
    pub(crate) junit: Option<std::path::PathBuf>,
    /// Print a machine-readable summary (format `dsxor-run/1`: verdict,
    /// exit code, file paths, counts) on stdout; the display text goes to
    /// stderr.
    #[arg(long)]
    pub(crate) json: bool,
    /// Opt-in probes that can fault real hardware (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) probe: Vec<ProbeArg>,
    /// Time allowed to minimize each failing case (0s: keep it as found;
    /// at most 1 day). A signal (TERM, HUP, INT) cuts it short.
    #[arg(long, default_value = "20s", value_parser = budget_value)]
    pub(crate) minimize_budget: std::time::Duration,
    /// At most this many repro files: the first failure of each kind in each
    /// (pattern, wave) cell is minimized; later ones point to it.
    #[arg(long, default_value_t = 20)]
    pub(crate) max_repros: usize,
    /// Run cases on this many devices side by side: software devices
    /// (default: the host's cores) or HIP worker processes (default: one
    /// per visible device of the selected device's target; more than the
    /// devices share them round robin). Records stay in case order. 1 to 256.
    #[arg(long, value_parser = jobs_value)]
    pub(crate) jobs: Option<usize>,
    /// HIP: put up to this many compatible cases (same kernel, wave size,
    /// waves per group, rounds and LDS size class) in one launch, each in
    /// workgroups of its own; 1 is one case per launch. A batch that faults
    /// or times out is run again one case per launch. The software device
    /// always runs one case per launch. 1 to 256 (the cases a batch is
    /// drawn from).
    #[arg(long, default_value_t = dsxor::backend::conformance::DEFAULT_BATCH, value_parser = batch_value)]
    pub(crate) batch: usize,
}

pub(crate) fn cmd_run(args: RunArgs) -> Outcome {
    use dsxor::gen::suite::SuiteSpec;
    if args.json {
        json_mode("dsxor-run/1");
    }
    let sel = selection(&args)?;
    let policy = policy_of(&args.dev)?;
    let waves = args.wave.iter().map(|&w| w.into()).collect();
    let mut req = device_request(&args.dev, waves)?;
    req.batch = args.batch;
    dsxor::report::results::check_writable(Some(&args.out), args.junit.as_deref())
        .map_err(bad_input)?;
    dsxor::report::results::check_writable(None, args.results.as_deref()).map_err(bad_input)?;
    let parameters = dsxor::report::results::Parameters {
        timeout_ms: req.timeout.as_millis() as u64,
        minimize_budget_ms: args.minimize_budget.as_millis() as u64,
        fault: req.fault.as_ref().map(|f| f.to_string()),
        interleave_seed: req.interleave_seed,
        policy: policy.describe(),
    };
    // From here on the run writes an `aborted` results file whatever stops it.
    dsxor::suite::stop::watch_signals().map_err(environment)?;
    let mut opened = match open_device(&req) {
        Ok(o) => o,
        Err(f) if f.code == dsxor::exit::ENVIRONMENT => {
            return unopened(&args, &sel, &req, parameters, f)
        }
        Err(f) => return Err(f),
    };
    // The kernels decide the modes (the request ∩ what they offer).
    let modes = dsxor::suite::device::modes_for(opened.device.kernel_objects(), &sel.modes)
        .map_err(|e| bad_input(anyhow::anyhow!(e)))?;
    let wgps = dsxor::suite::device::wgps_for(opened.device.info());
    let cases = cases_for(&args, &sel, &opened.selection.waves, &modes, wgps)?;
    // The device decides the wave sizes (the request ∩ what it and the kernels offer).
    let spec = SuiteSpec::new(
        sel.seed,
        cases,
        &sel.patterns,
        &sel.probes,
        &opened.selection.waves,
        sel.shard,
    )
    .and_then(|s| s.with_modes(&modes))
    .map(|s| s.with_wgps(wgps))
    .map_err(bad_input)?;
    let mut opts = dsxor::suite::run::RunOptions {
        spec,
        out_dir: args.out.clone(),
        results_path: args.results.clone(),
        junit: args.junit.clone(),
        minimize: dsxor::gen::minimize::Budget {
            time: args.minimize_budget,
            ..Default::default()
        },
        max_repros: args.max_repros,
        parameters,
        selection: opened.selection.reason.clone(),
        interactive: None,
        probes: Vec::new(),
    };
    for &probe in &sel.kernel_probes {
        let records = kernel_probe(probe, &mut opened, sel.seed, req.timeout, &opts)?;
        opts.probes.extend(records);
    }
    let judge = dsxor::suite::judge::ModelJudge::new(policy);
    let workers = workers_for(args.jobs, &opened, policy)?;
    let out = dsxor::suite::run::run_suite_with(opened.device.as_mut(), &judge, &opts, workers)
        // The paths were checked before the first case: a write failing now
        // is the machine's trouble (a full disk), not the user's input;
        // conformance failures found before it still decide the code.
        .map_err(|e| {
            let code = if e.failures_found() > 0 {
                dsxor::exit::FAIL
            } else if e.is_refusal() {
                // A path refused only when written (a FIFO whose reader
                // went away): still the user's path.
                dsxor::exit::USAGE
            } else {
                dsxor::exit::ENVIRONMENT
            };
            Failure {
                code,
                error: e.into(),
            }
        })?;
    if let Some(reason) = &out.results.abort_reason {
        eprintln!("dsxor: run aborted: {reason}");
    }
    let claim = state_claim(&args, &out);
    if args.json {
        run_json(&out, claim.as_deref(), args.junit.as_deref());
    }
    Ok(out.exit_code)
}

/// What `run`'s flags select, refused before anything runs where it
/// cannot make a run (each would otherwise be found late, or pass a run
/// that checked nothing).
struct Asked {
    patterns: Vec<dsxor::gen::Pattern>,
    /// The probes that are case families.
    probes: Vec<dsxor::gen::Pattern>,
    /// `--probe leftover-lds` and the others that run kernels of their own
    /// (`suite::probe`), in the order given.
    kernel_probes: Vec<dsxor::suite::probe::KernelProbe>,
    modes: Vec<dsxor::case::Mode>,
    shard: dsxor::gen::suite::Shard,
    seed: u64,
    /// `--rate`: the contended lane-ops the claim needs.
    needed: Option<u64>,
}

fn selection(args: &RunArgs) -> Result<Asked, Failure> {
    use dsxor::gen::suite::{parse_pattern, parse_probe};
    let patterns = args
        .pattern
        .iter()
        .map(|p| parse_pattern(&value_name(p)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let probes = args
        .probe
        .iter()
        .filter(|p| p.kernel_probe().is_none())
        .map(|p| parse_probe(&value_name(p)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let shard = shard_of(
        args.shard.as_deref(),
        std::env::var("SHARD_INDEX").ok().as_deref(),
        std::env::var("TOTAL_SHARDS").ok().as_deref(),
    )?;
    if args.cases == Some(0) {
        return Err(bad_input(anyhow::anyhow!(
            "--cases 0: a run that checks no case cannot pass; give at least 1"
        )));
    }
    if let Some(cases) = args.cases.filter(|&c| u64::from(shard.index) > c) {
        return Err(bad_input(anyhow::anyhow!(
            "--shard {shard} of --cases {cases}: that shard has no cases"
        )));
    }
    let seed = match &args.seed {
        Some(s) => parse_seed(s)?,
        // Each shard would draw its own seed, and merge would refuse them
        // only after every shard ran.
        None if shard.count > 1 => {
            return Err(bad_input(anyhow::anyhow!(
                "--shard {shard} needs --seed: every shard of a run must generate from the same \
                 seed (give all of them the same --seed)"
            )))
        }
        None => rand::random::<u64>(),
    };
    use dsxor::gen::odds;
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return Err(bad_input(odds::OddsError::Confidence(args.confidence)));
    }
    let needed = match args.rate {
        Some(r) => Some(odds::events_needed(r, args.confidence).map_err(bad_input)?),
        None => None,
    };
    Ok(Asked {
        patterns,
        probes,
        kernel_probes: kernel_probes(&args.probe),
        modes: args.mode.iter().map(|&m| m.into()).collect(),
        shard,
        seed,
        needed,
    })
}

/// No device could be opened (environment, `f`): the run still writes its
/// `aborted` results file, case stream and JUnit, naming the device asked
/// for, then fails with `f`.
fn unopened(
    args: &RunArgs,
    sel: &Asked,
    req: &dsxor::suite::device::DeviceRequest,
    parameters: dsxor::report::results::Parameters,
    f: Failure,
) -> Outcome {
    let spec = dsxor::gen::suite::SuiteSpec::new(
        sel.seed,
        args.cases.unwrap_or(dsxor::gen::suite::DEFAULT_CASES),
        &sel.patterns,
        &sel.probes,
        &req.waves,
        sel.shard,
    )
    .and_then(|s| s.with_modes(&sel.modes))
    .map_err(bad_input)?;
    let reason = format!("{:#}", f.error);
    let opts = dsxor::suite::run::RunOptions {
        spec,
        out_dir: args.out.clone(),
        results_path: args.results.clone(),
        junit: args.junit.clone(),
        minimize: dsxor::gen::minimize::Budget::default(),
        max_repros: args.max_repros,
        parameters,
        selection: reason.clone(),
        interactive: None,
        probes: Vec::new(),
    };
    let backend = match req.choice {
        dsxor::backend::select::BackendChoice::Emu => dsxor::backend::BackendKind::Emu,
        _ => dsxor::backend::BackendKind::Hip,
    };
    let info = dsxor::backend::DeviceInfo {
        backend,
        name: "none (no device opened)".into(),
        target_id: "unknown".into(),
        wave_sizes: Vec::new(),
        compute_units: 0,
        clock_khz: None,
        lds_per_block: 0,
        runtime_version: None,
        driver_version: None,
        pci_bus_id: None,
        uuid: None,
        placement: Some(Box::new(dsxor::backend::Placement::current())),
    };
    match dsxor::suite::run::write_unstarted(&opts, info, &reason, f.code) {
        Ok(out) if args.json => {
            eprintln!("dsxor: error: {:#}", f.error);
            run_json(&out, None, args.junit.as_deref());
            return Ok(f.code);
        }
        Ok(_) => {}
        Err(e) => eprintln!("dsxor: error: cannot write the aborted results: {e}"),
    }
    Err(f)
}

/// The run's case count: `--cases`, the default, or as many as `--rate`'s
/// claim needs at this selection's mean contention.
fn cases_for(
    args: &RunArgs,
    sel: &Asked,
    waves: &[dsxor::case::WaveSize],
    modes: &[dsxor::case::Mode],
    wgps: u32,
) -> Result<u64, Failure> {
    use dsxor::gen::{odds, suite::SuiteSpec};
    let Some(events) = sel.needed else {
        return Ok(args.cases.unwrap_or(dsxor::gen::suite::DEFAULT_CASES));
    };
    let sample = SuiteSpec::new(sel.seed, 3600, &sel.patterns, &sel.probes, waves, sel.shard)
        .and_then(|s| s.with_modes(modes))
        .map(|s| s.with_wgps(wgps))
        .map_err(bad_input)?;
    let cases = odds::cases_for_events(&sample, events).ok_or_else(|| {
        bad_input(anyhow::anyhow!(
            "--rate: the selected patterns have no contended lane-op; no run length shows such a fault"
        ))
    })?;
    if cases == u64::MAX {
        return Err(bad_input(anyhow::anyhow!(
            "--rate {:e}: the claim needs {events} contended lane-ops, more cases than a \
             run can count at this selection's mean; choose a larger rate",
            args.rate.unwrap_or(1.0)
        )));
    }
    eprintln!(
        "dsxor: sized to the claim: a fault hitting {} contended lane-ops shows with \
         probability {} in {events} of them: about {cases} cases of this selection",
        odds::one_in(args.rate.unwrap_or(1.0)),
        args.confidence
    );
    Ok(cases)
}

/// The probes with kernels of their own, each once, in the order given.
fn kernel_probes(asked: &[ProbeArg]) -> Vec<dsxor::suite::probe::KernelProbe> {
    let mut probes = Vec::new();
    for p in asked.iter().filter_map(|p| p.kernel_probe()) {
        if !probes.contains(&p) {
            probes.push(p);
        }
    }
    probes
}

/// A probe with kernels of its own (`--probe leftover-lds`, …), before the
/// cases: its lines are in the summary; a failed probe fails the run with
/// exit code 1, the cases' verdicts still recorded. A probe that cannot run
/// stops the run with its `aborted` results, as a device that cannot open
/// does.
fn kernel_probe(
    probe: dsxor::suite::probe::KernelProbe,
    opened: &mut dsxor::suite::device::Opened,
    seed: u64,
    timeout: std::time::Duration,
    opts: &dsxor::suite::run::RunOptions,
) -> Result<Vec<dsxor::report::results::ProbeRecord>, Failure> {
    dsxor::suite::probe::run(probe, opened.device.as_mut(), seed, timeout).map_err(|e| {
        let f = match e {
            dsxor::backend::BackendError::Invalid(_) => bad_input(e),
            e => environment(e),
        };
        let reason = format!("probe {}: {:#}", probe.name(), f.error);
        let info = opened.device.info().clone();
        if let Err(e) = dsxor::suite::run::write_unstarted(opts, info, &reason, f.code) {
            eprintln!("dsxor: error: cannot write the aborted results: {e}");
        }
        f
    })
}

/// The devices that run cases side by side (`--jobs`); none: the opened
/// device runs everything.
pub(crate) fn workers_for(
    jobs: Option<usize>,
    opened: &dsxor::suite::device::Opened,
    policy: dsxor::model::Policy,
) -> Result<Vec<dsxor::suite::run::Worker>, Failure> {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let hip_devices = opened.hip_devices();
    let jobs = match jobs {
        // Each software-device job holds a whole device: more jobs than
        // cores only costs memory (--jobs 100000 took 4 GB before its first
        // case). HIP jobs are worker processes sharing the visible devices.
        Some(j) if hip_devices == 0 && j > cores => {
            eprintln!("dsxor: --jobs {j} capped at {cores}, the host's cores");
            cores
        }
        Some(j) => j,
        // One worker per visible device on HIP; one device per core on emu.
        None if hip_devices > 0 => hip_devices,
        None => cores,
    };
    // One job: the opened device runs everything (no worker threads).
    let devices = if jobs > 1 {
        opened.workers(jobs).map_err(|e| match e {
            dsxor::suite::device::OpenError::Usage(m) => bad_input(anyhow::anyhow!(m)),
            dsxor::suite::device::OpenError::Environment(m) => environment(anyhow::anyhow!(m)),
        })?
    } else {
        Vec::new()
    };
    if !devices.is_empty() {
        eprintln!(
            "dsxor: running cases on {} {} side by side",
            devices.len(),
            if hip_devices > 0 {
                "HIP worker processes"
            } else {
                "software devices"
            }
        );
    }
    Ok(devices
        .into_iter()
        .map(|d| {
            (
                d,
                Box::new(dsxor::suite::judge::ModelJudge::new(policy))
                    as Box<dyn dsxor::suite::Judge + Send>,
            )
        })
        .collect())
}

/// A passing run's claim (what fault rate it rules out), printed; None
/// when the run did not pass.
fn state_claim(args: &RunArgs, out: &dsxor::suite::run::RunOutcome) -> Option<String> {
    use dsxor::gen::odds;
    let claim = (out.exit_code == dsxor::exit::PASS)
        .then(|| odds::pass_statement(out.contended_lane_ops, args.confidence))?;
    outln!("{claim}");
    if let Some(r) = args.rate {
        outln!(
            "claim: a fault hitting {} contended lane-ops would have shown with probability {:.4}",
            odds::one_in(r),
            odds::detection_probability(r, out.contended_lane_ops)
        );
    }
    Some(claim)
}

/// clap value parser of `--batch`: 1 (one case per launch) to
/// `BATCH_WINDOW`, the run of consecutive cases a batch is drawn from (a
/// larger value would batch no more).
pub(crate) fn batch_value(text: &str) -> Result<usize, String> {
    count_in(text, 1, dsxor::backend::conformance::BATCH_WINDOW)
}

/// `run --json`: the run's verdict, exit code, files and counts.
fn run_json(
    out: &dsxor::suite::run::RunOutcome,
    claim: Option<&str>,
    junit: Option<&std::path::Path>,
) {
    let r = &out.results;
    let cases_stream = r.cases_file.as_ref().map(|c| {
        out.results_path
            .parent()
            .map(|d| d.join(c))
            .unwrap_or_else(|| c.into())
    });
    print_json(
        &value_of(&r.status),
        out.exit_code,
        serde_json::json!({
            "results": out.results_path,
            "cases_file": cases_stream,
            "junit": junit,
            "repros": out.repros,
            "seed": r.spec.seed,
            "shard": r.spec.shard.to_string(),
            "backend": r.environment.device.backend.name(),
            "target": r.environment.device.target_id,
            "total": r.total,
            "passed": r.passed,
            "failed": r.failed,
            "abort_reason": r.abort_reason,
            "verified_lane_ops": r.verified_lane_ops,
            "contended_lane_ops": out.contended_lane_ops,
            "claim": claim,
        }),
    );
}

/// A serde enum's name as it appears in the files (`passed`, ...).
pub(crate) fn value_of(v: &impl serde::Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The shard to run: `--shard K/N` when given; else `SHARD_INDEX` (0-based)
/// and `TOTAL_SHARDS`, the variables TheRock (ROCm's own CI) sets for its
/// shard matrices; else the whole run. One variable without the other is
/// bad input rather than a silent whole run on every shard.
fn shard_of(
    flag: Option<&str>,
    index: Option<&str>,
    total: Option<&str>,
) -> Result<dsxor::gen::Shard, Failure> {
    use dsxor::gen::Shard;
    if let Some(s) = flag {
        return Shard::parse(s).map_err(bad_input);
    }
    match (index, total) {
        (None, None) => Ok(Shard::WHOLE),
        (Some(k), Some(n)) => {
            let k0: u32 = k.trim().parse().map_err(|_| {
                bad_input(anyhow::anyhow!(
                    "SHARD_INDEX={k:?}: expected a 0-based shard index"
                ))
            })?;
            let text = format!("{}/{}", u64::from(k0) + 1, n.trim());
            let shard = Shard::parse(&text).map_err(|e| {
                bad_input(anyhow::anyhow!(
                    "SHARD_INDEX={k:?} TOTAL_SHARDS={n:?} (shard {text}): {e}"
                ))
            })?;
            eprintln!("dsxor: shard {shard} from SHARD_INDEX={k} TOTAL_SHARDS={n}");
            Ok(shard)
        }
        (Some(_), None) | (None, Some(_)) => Err(bad_input(anyhow::anyhow!(
            "SHARD_INDEX and TOTAL_SHARDS must be set together (or use --shard K/N)"
        ))),
    }
}
