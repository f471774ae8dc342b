//! `dsxor run`.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) dev: DeviceArgs,
    /// Total cases over every (pattern, wave) cell.
    #[arg(long, default_value_t = dsxor::gen::suite::DEFAULT_CASES)]
    pub(crate) cases: u64,
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
    /// Run shard K of N (1-based): cases with index % N == K-1. Without it,
    /// SHARD_INDEX (0-based) and TOTAL_SHARDS from the environment (as
    /// ROCm's CI sets them) choose the shard.
    #[arg(long)]
    pub(crate) shard: Option<String>,
    /// Directory for the results, case stream and repro files.
    #[arg(long, default_value = "results")]
    pub(crate) out: std::path::PathBuf,
    /// Also write JUnit XML here.
    #[arg(long)]
    pub(crate) junit: Option<std::path::PathBuf>,
    /// Opt-in probes that can fault real hardware (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub(crate) probe: Vec<ProbeArg>,
    /// Time allowed to minimize each failing case (0s: keep it as found).
    #[arg(long, default_value = "20s")]
    pub(crate) minimize_budget: String,
    /// At most this many repro files: the first failure of each kind in each
    /// (pattern, wave) cell is minimized; later ones point to it.
    #[arg(long, default_value_t = 20)]
    pub(crate) max_repros: usize,
    /// Software device only: run cases on this many devices side by side
    /// (default: the host's cores). Records stay in case order; HIP runs
    /// one device.
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
}

pub(crate) fn cmd_run(args: RunArgs) -> Outcome {
    use dsxor::gen::suite::{parse_pattern, parse_probe, SuiteSpec};
    let patterns = args
        .pattern
        .iter()
        .map(|p| parse_pattern(&value_name(p)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let probes = args
        .probe
        .iter()
        .map(|p| parse_probe(&value_name(p)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let waves = args.wave.iter().map(|&w| w.into()).collect();
    let shard = shard_of(
        args.shard.as_deref(),
        std::env::var("SHARD_INDEX").ok().as_deref(),
        std::env::var("TOTAL_SHARDS").ok().as_deref(),
    )?;
    let seed = match &args.seed {
        Some(s) => parse_seed(s)?,
        None => rand::random::<u64>(),
    };
    let policy = policy_of(&args.dev)?;
    let minimize_time = parse_duration("minimize-budget", &args.minimize_budget)?;
    let req = device_request(&args.dev, waves)?;
    let mut opened = open_device(&req)?;
    // The device decides the wave sizes (the request ∩ what it and the kernels offer).
    let spec = SuiteSpec::new(
        seed,
        args.cases,
        &patterns,
        &probes,
        &opened.selection.waves,
        shard,
    )
    .map_err(bad_input)?;
    let opts = dsxor::suite::run::RunOptions {
        spec,
        out_dir: args.out.clone(),
        junit: args.junit.clone(),
        minimize: dsxor::gen::minimize::Budget {
            time: minimize_time,
            ..Default::default()
        },
        max_repros: args.max_repros,
        parameters: dsxor::report::results::Parameters {
            timeout_ms: req.timeout.as_millis() as u64,
            minimize_budget_ms: minimize_time.as_millis() as u64,
            fault: req.fault.map(|f| f.name().to_string()),
            interleave_seed: req.interleave_seed,
            policy: policy.describe(),
        },
        selection: opened.selection.reason.clone(),
        interactive: None,
    };
    let judge = dsxor::suite::judge::ModelJudge::new(policy);
    if args.jobs == Some(0) {
        return Err(bad_input(anyhow::anyhow!("--jobs 0: expected at least 1")));
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    // One job: the opened device runs everything (no worker threads).
    let devices = if jobs > 1 {
        opened.emu_workers(jobs).map_err(|e| match e {
            dsxor::suite::device::OpenError::Usage(m) => bad_input(anyhow::anyhow!(m)),
            dsxor::suite::device::OpenError::Environment(m) => environment(anyhow::anyhow!(m)),
        })?
    } else {
        Vec::new()
    };
    if !devices.is_empty() {
        eprintln!(
            "dsxor: running cases on {} software devices side by side",
            devices.len()
        );
    }
    let workers: Vec<dsxor::suite::run::Worker> = devices
        .into_iter()
        .map(|d| {
            (
                d,
                Box::new(dsxor::suite::judge::ModelJudge::new(policy))
                    as Box<dyn dsxor::suite::Judge + Send>,
            )
        })
        .collect();
    let out = dsxor::suite::run::run_suite_with(opened.device.as_mut(), &judge, &opts, workers)
        .map_err(|e| {
            bad_input(anyhow::anyhow!(e).context(format!("--out {}", args.out.display())))
        })?;
    if let Some(reason) = &out.results.abort_reason {
        eprintln!("dsxor: run aborted: {reason}");
    }
    Ok(out.exit_code)
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
