//! `dsxor soak`.

use super::*;

#[derive(clap::Args, Debug)]
#[command(group(
    clap::ArgGroup::new("until")
        .required(true)
        .multiple(true)
        .args(["duration", "chunks", "launches", "stop_on_failure"])
))]
pub(crate) struct SoakArgs {
    #[command(flatten)]
    pub(crate) dev: DeviceArgs,
    /// Run this long (e.g. 30s, 5m, 8h; 1s to 30 days), then stop at the
    /// case in flight. With --resume: this session's length.
    #[arg(long, value_parser = soak_duration_value)]
    pub(crate) duration: Option<std::time::Duration>,
    /// Run this many chunks (this session), then stop: a soak of a fixed
    /// length in cases (chunks × --chunk-cases), the same on every machine.
    #[arg(long, value_parser = chunk_value)]
    pub(crate) chunks: Option<u64>,
    /// Run this many soak kernel launches (this session), then stop.
    #[arg(long, value_parser = chunk_value)]
    pub(crate) launches: Option<u64>,
    /// The soak kernel's share of the soak's cost, 0 to 1 (a launch's wall
    /// or CPU time, whichever is longer, against the CPU time of the
    /// cases): the rest runs the conformance suite's case stream in chunks
    /// (0: cases only; 1: kernel launches only).
    #[arg(long, default_value_t = DEFAULT_KERNEL_SHARE, value_parser = share_value)]
    pub(crate) kernel_share: f64,
    /// Stop at the first failing case (after minimizing it into a repro).
    #[arg(long)]
    pub(crate) stop_on_failure: bool,
    /// Write the record (the checkpoint) at least this often, at the end
    /// of a chunk (1s to 1 day).
    #[arg(long, default_value = "5m", value_parser = checkpoint_value)]
    pub(crate) checkpoint: std::time::Duration,
    /// Continue the soak of this record (`dsxor-soak/1`) at its next chunk,
    /// with its seed and selection; its totals carry on and it is replaced
    /// by the continued record (unless --results names another file).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "pattern", "wave", "mode", "chunk_cases", "kernel_share"])]
    pub(crate) resume: Option<std::path::PathBuf>,
    /// Seed of the chunk seed stream (decimal or 0x-hex); default: a fresh
    /// one, printed and recorded.
    #[arg(long)]
    pub(crate) seed: Option<String>,
    /// Cases per chunk: each chunk is a whole suite run of this many cases
    /// (`run` with the chunk's seed and this case count replays it). 1 to
    /// 10^9.
    #[arg(long, default_value_t = DEFAULT_CHUNK_CASES, value_parser = chunk_value)]
    pub(crate) chunk_cases: u64,
    /// Only these patterns (comma-separated or repeated; default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) pattern: Vec<PatternArg>,
    /// Only these wave sizes (comma-separated; default: every size the
    /// device and the kernels offer).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) wave: Vec<WaveArg>,
    /// Only these wavefront execution modes (comma-separated: cu, wgp).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) mode: Vec<ModeArg>,
    /// Confidence of the fault rate the progress and the record say is
    /// ruled out.
    #[arg(long, default_value_t = 0.999)]
    pub(crate) confidence: f64,
    /// Directory for the record and repro files.
    #[arg(long, default_value = "results")]
    pub(crate) out: std::path::PathBuf,
    /// Write the record here instead of OUT/soak-<UTC>-<backend>-<target>.json
    /// (replaced atomically at each checkpoint).
    #[arg(long, value_name = "PATH")]
    pub(crate) results: Option<std::path::PathBuf>,
    /// Time allowed to minimize each failing case (0s: keep it as found;
    /// at most 1 day).
    #[arg(long, default_value = "20s", value_parser = budget_value)]
    pub(crate) minimize_budget: std::time::Duration,
    /// At most this many repro files in this session: the first failure
    /// of each kind in each (pattern, wave, mode) cell is minimized.
    #[arg(long, default_value_t = 20)]
    pub(crate) max_repros: usize,
    /// Run cases on this many devices side by side, as `run --jobs`
    /// (default: as `run`, but one on the software device while the soak
    /// kernel has a share).
    #[arg(long, value_parser = jobs_value)]
    pub(crate) jobs: Option<usize>,
    /// HIP: up to this many compatible cases in one launch, as `run --batch`.
    #[arg(long, default_value_t = dsxor::backend::conformance::DEFAULT_BATCH, value_parser = super::run::batch_value)]
    pub(crate) batch: usize,
}

/// Policy: the soak kernel gets 90 % of the soak's time. It verifies lane-ops
/// some 40 times faster per CPU-second than the case stream on the software
/// device (docs/src/internals/performance.md, "Soak"), and the 10 % left
/// keeps every return of the case stream judged for exact serializability,
/// which the kernel's own check (a return's bits, not its order) is not.
pub(crate) const DEFAULT_KERNEL_SHARE: f64 = 0.9;

fn share_value(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{text} is not a share from 0 to 1")),
    }
}

/// Policy: a chunk of 4,000 cases is the smallest that gives every
/// (pattern, wave, mode) cell of the default mix a case (occupancy's
/// share is 1 in 1,000, over 4 cells: `gen::suite::DEFAULT_MIX`).
pub(crate) const DEFAULT_CHUNK_CASES: u64 = 4000;

/// Policy: the longest `--duration`, 30 days (a burn-in runs hours to a
/// weekend; the bound keeps `Instant::now() + duration` far from overflow).
const MAX_SOAK: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

fn between(
    text: &str,
    min: std::time::Duration,
    max: std::time::Duration,
) -> Result<std::time::Duration, String> {
    let d = parse_duration(text)?;
    if d < min || d > max {
        return Err(format!(
            "{} is not in {}..={}",
            humantime::format_duration(d),
            humantime::format_duration(min),
            humantime::format_duration(max)
        ));
    }
    Ok(d)
}

/// clap value parser of `--duration`: 1 s to 30 days.
fn soak_duration_value(text: &str) -> Result<std::time::Duration, String> {
    between(text, std::time::Duration::from_secs(1), MAX_SOAK)
}

/// clap value parser of `--checkpoint`: 1 s to one day.
fn checkpoint_value(text: &str) -> Result<std::time::Duration, String> {
    between(text, std::time::Duration::from_secs(1), MAX_DURATION)
}

fn chunk_value(text: &str) -> Result<u64, String> {
    count_in(text, 1, 1_000_000_000).map(|n| n as u64)
}

pub(crate) fn cmd_soak(args: SoakArgs) -> Outcome {
    use dsxor::suite::soak::{SoakOptions, SoakRecord};
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return Err(bad_input(dsxor::gen::odds::OddsError::Confidence(
            args.confidence,
        )));
    }
    let resume = match &args.resume {
        Some(path) => Some(SoakRecord::read(path).map_err(bad_input)?),
        None => None,
    };
    let policy = policy_of(&args.dev)?;
    let waves: Vec<dsxor::case::WaveSize> = match &resume {
        Some(r) => r.chunk_spec.waves.clone(),
        None => args.wave.iter().map(|&w| w.into()).collect(),
    };
    let mut req = device_request(&args.dev, waves)?;
    req.batch = args.batch;
    dsxor::report::results::check_writable(Some(&args.out), args.results.as_deref())
        .map_err(bad_input)?;
    let parameters = dsxor::report::results::Parameters {
        timeout_ms: req.timeout.as_millis() as u64,
        minimize_budget_ms: args.minimize_budget.as_millis() as u64,
        fault: req.fault.as_ref().map(|f| f.to_string()),
        interleave_seed: req.interleave_seed,
        policy: policy.describe(),
    };
    if let Some(r) = &resume {
        // Totals only add up under one fault and one policy.
        if r.parameters.fault != parameters.fault || r.parameters.policy != parameters.policy {
            return Err(bad_input(anyhow::anyhow!(
                "--resume: the record ran with fault {:?} and policy {:?}; give the same \
                 --fault, --out-of-range-return and --lds-granule (now fault {:?}, policy {:?})",
                r.parameters.fault,
                r.parameters.policy,
                parameters.fault,
                parameters.policy
            )));
        }
    }
    dsxor::suite::stop::watch_signals().map_err(environment)?;
    let mut opened = open_device(&req)?;
    let spec = soak_spec(&args, resume.as_ref(), &opened)?;
    let record_path = match (&args.results, &args.resume) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) => p.clone(),
        (None, None) => {
            let info = opened.device.info();
            fresh_path(&args.out, info.backend.name(), &info.target_id)
        }
    };
    let opts = SoakOptions {
        run: dsxor::suite::run::RunOptions {
            spec,
            out_dir: args.out.clone(),
            results_path: None,
            junit: None,
            minimize: dsxor::gen::minimize::Budget {
                time: args.minimize_budget,
                ..Default::default()
            },
            max_repros: args.max_repros,
            parameters,
            selection: opened.selection.reason.clone(),
            interactive: Some(false),
            probes: Vec::new(),
        },
        record_path,
        duration: args.duration,
        chunks: args.chunks,
        launches: args.launches,
        kernel_share: args.kernel_share,
        kernel_pairs: dsxor::suite::soak::kernel::PAIRS,
        launch_timeout: req.timeout,
        stop_on_failure: args.stop_on_failure,
        checkpoint_every: args.checkpoint,
        progress_every: std::time::Duration::from_secs(1),
        confidence: args.confidence,
        resume,
    };
    let judge = dsxor::suite::judge::ModelJudge::new(policy);
    // Kernel launches only: no case runs, so no worker evaluates cases
    // ahead of the soak (they would only spend CPU).
    let share = opts
        .resume
        .as_ref()
        .map_or(args.kernel_share, |r| r.kernel_share);
    // On the software device, with the kernel taking its share, the cases
    // run on the soak's own device unless --jobs says otherwise: a kernel
    // launch already spreads its groups over the cores, the cases' share
    // of the cost keeps one device busy a tenth of the time, and each
    // further job is a whole software device in memory (a 30-minute soak
    // with one per core peaked at 93 MiB; performance.md, "Soak").
    let jobs = match args.jobs {
        None if share > 0.0 && opened.hip_devices() == 0 => Some(1),
        j => j,
    };
    let mut workers = if share >= 1.0 {
        Vec::new()
    } else {
        super::run::workers_for(jobs, &opened, policy)?
    };
    let env = dsxor::suite::run::environment(opened.device.as_ref(), &opts.run.selection);
    let out = dsxor::suite::soak::soak(opened.device.as_mut(), &judge, &opts, &mut workers, env)
        .map_err(|e| match e {
            e if e.failures_found() > 0 => Failure {
                code: dsxor::exit::FAIL,
                error: e.into(),
            },
            dsxor::suite::soak::SoakError::Write(e) => unwritten(e),
            e => environment(e),
        })?;
    print_summary(&out);
    Ok(out.exit_code)
}

/// The chunks' spec: a resumed record's own (after checking that this
/// device offers its backend, target, waves and modes), or a new one from
/// the flags.
fn soak_spec(
    args: &SoakArgs,
    resume: Option<&dsxor::suite::soak::SoakRecord>,
    opened: &dsxor::suite::device::Opened,
) -> Result<dsxor::gen::suite::SuiteSpec, Failure> {
    Ok(match resume {
        Some(r) => {
            let info = opened.device.info();
            let was = &r.environment.device;
            if (was.backend, &was.target_id) != (info.backend, &info.target_id) {
                return Err(bad_input(anyhow::anyhow!(
                    "--resume: the record is of a {} device ({}), this one is {} ({})",
                    was.backend.name(),
                    was.target_id,
                    info.backend.name(),
                    info.target_id
                )));
            }
            let modes = dsxor::suite::device::modes_for(
                opened.device.kernel_objects(),
                &r.chunk_spec.modes,
            )
            .map_err(|e| bad_input(anyhow::anyhow!(e)))?;
            if modes != r.chunk_spec.modes || opened.selection.waves != r.chunk_spec.waves {
                return Err(bad_input(anyhow::anyhow!(
                "--resume: this device's kernels do not offer the record's waves {:?} and modes {:?}",
                r.chunk_spec.waves,
                r.chunk_spec.modes
            )));
            }
            r.chunk_spec.clone()
        }
        None => {
            let patterns = args
                .pattern
                .iter()
                .map(|p| dsxor::gen::suite::parse_pattern(&value_name(p)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(bad_input)?;
            let seed = match &args.seed {
                Some(s) => parse_seed(s)?,
                None => rand::random::<u64>(),
            };
            let asked: Vec<dsxor::case::Mode> = args.mode.iter().map(|&m| m.into()).collect();
            let modes = dsxor::suite::device::modes_for(opened.device.kernel_objects(), &asked)
                .map_err(|e| bad_input(anyhow::anyhow!(e)))?;
            let wgps = dsxor::suite::device::wgps_for(opened.device.info());
            dsxor::gen::suite::SuiteSpec::new(
                seed,
                args.chunk_cases,
                &patterns,
                &[],
                &opened.selection.waves,
                dsxor::gen::Shard::WHOLE,
            )
            .and_then(|s| s.with_modes(&modes))
            .map(|s| s.with_wgps(wgps))
            .map_err(bad_input)?
        }
    })
}

/// The soak's closing lines: its totals, what a pass rules out, the repro
/// files and the record (stdout); an abort's reason (stderr).
fn print_summary(out: &dsxor::suite::soak::SoakOutcome) {
    let r = &out.record;
    let t = &r.totals;
    outln!(
        "soak {}: {} ({}), {} kernel launches ({} failed, {} verified lane-ops), {} cases in {} chunks ({} completed, {} failed, {} verified lane-ops), {} session(s)",
        super::run::value_of(&r.status),
        r.stop_reason.as_deref().unwrap_or(""),
        humantime::format_duration(std::time::Duration::from_secs(r.elapsed_ms / 1000)),
        t.kernel.launches,
        t.kernel.failed,
        t.kernel.verified_lane_ops,
        t.cases,
        r.next_chunk,
        t.chunks_completed,
        t.failed,
        t.verified_lane_ops,
        r.sessions
    );
    if out.exit_code == dsxor::exit::PASS {
        outln!(
            "{}",
            dsxor::gen::odds::pass_statement(
                t.contended_lane_ops + t.kernel.contended_lane_ops,
                r.confidence
            )
        );
    } else if let Some(ruled) = r
        .rules_out
        .as_ref()
        .filter(|_| t.failed + t.kernel.failed == 0)
    {
        outln!(
            "the {} passed cases rule out, with confidence {}, a fault hitting {ruled} contended lane-ops",
            t.passed,
            r.confidence
        );
    }
    for p in &r.repros {
        outln!("repro: {p}");
    }
    outln!("record: {}", out.path.display());
    if out.exit_code == dsxor::exit::ENVIRONMENT || out.exit_code == dsxor::exit::USAGE {
        eprintln!(
            "dsxor: soak aborted: {}",
            r.stop_reason.as_deref().unwrap_or("")
        );
    }
}

/// `OUT/soak-<UTC>-<backend>-<target>.json`, `-2`, `-3`… when taken.
fn fresh_path(out: &std::path::Path, backend: &str, target: &str) -> std::path::PathBuf {
    use dsxor::report::results::{compact_utc, file_safe};
    let base = format!(
        "soak-{}-{}-{}",
        compact_utc(std::time::SystemTime::now()),
        file_safe(backend),
        file_safe(target)
    );
    (1..)
        .map(|n| match n {
            1 => out.join(format!("{base}.json")),
            n => out.join(format!("{base}-{n}.json")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| out.join(format!("{base}.json")))
}
