//! `dsxor mutate`.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct MutateArgs {
    /// Seed of the cases (decimal or 0x-hex).
    #[arg(long, default_value = "1")]
    pub(crate) seed: String,
    /// Mutants, as --fault texts (repeatable; default: the built-in set of
    /// classes x rates x conditions).
    #[arg(long = "mutant", value_name = "NAME[:RATE][@COND]")]
    pub(crate) mutants: Vec<String>,
    /// Only these patterns (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub(crate) pattern: Vec<String>,
    /// Only these wave sizes: 32, 64.
    #[arg(long, value_delimiter = ',')]
    pub(crate) wave: Vec<String>,
    /// Budgets (case-seconds per mutant) at which to report the score; the
    /// largest is how long each mutant runs at most.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16,64")]
    pub(crate) budgets: Vec<f64>,
    /// Cases per mutant at most.
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) max_cases: u64,
    /// Stop a mutant once every pattern has killed it this many times (0: never).
    #[arg(long, default_value_t = 3)]
    pub(crate) kills_per_pattern: u64,
    /// Do not rerun survivors at higher rates for their detection floor.
    #[arg(long)]
    pub(crate) no_floor: bool,
    /// Software devices side by side (default: the host's cores); 1 to 256.
    #[arg(long, value_parser = jobs_value)]
    pub(crate) jobs: Option<usize>,
    /// Directory for mutate-<UTC>.json, .md and .svg.
    #[arg(long, default_value = "results")]
    pub(crate) out: std::path::PathBuf,
    /// A launch not complete after this long is a timeout verdict (a kill);
    /// 100ms to 1 day.
    #[arg(long, default_value = "10s", value_parser = timeout_value)]
    pub(crate) timeout: std::time::Duration,
    /// Run nothing: read this dsxor-mutate/1 record, print the mix its kill
    /// rates suggest and write its Markdown and SVG again into OUT.
    #[arg(long, value_name = "FILE")]
    pub(crate) from: Option<std::path::PathBuf>,
}

pub(crate) fn cmd_mutate(args: MutateArgs) -> Outcome {
    use dsxor::gen::suite::{parse_pattern, parse_wave};
    use dsxor::mutate::{self, MutateError, MutateOptions};
    let patterns = args
        .pattern
        .iter()
        .map(|p| parse_pattern(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let waves = args
        .wave
        .iter()
        .map(|w| parse_wave(w))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let most = MAX_DURATION.as_secs_f64();
    if let Some(b) = args
        .budgets
        .iter()
        .find(|b| !(b.is_finite() && **b > 0.0 && **b <= most))
    {
        return Err(bad_input(anyhow::anyhow!(
            "--budgets: {b} is not a number of seconds in (0, {most}] (one day at most)"
        )));
    }
    if args.budgets.is_empty() || args.max_cases == 0 {
        return Err(bad_input(anyhow::anyhow!(
            "--budgets and --max-cases must allow at least one case"
        )));
    }
    if let Some(path) = &args.from {
        let record = read_mutate_record(path)?;
        let budget = record
            .scores
            .first()
            .map_or(record.max_seconds, |s| s.budget_seconds);
        for (p, s) in mutate::suggested_mix(&record, budget, 0.04) {
            outln!("{:<14} {:>4} per 1000", p.name(), (s * 1000.0).round());
        }
        return write_record(&args.out, &record, false);
    }
    let opts = MutateOptions {
        seed: parse_seed(&args.seed)?,
        patterns,
        waves,
        mutants: mutate::parse_mutants(&args.mutants).map_err(bad_input)?,
        max_seconds: args.budgets.iter().copied().fold(0.0, f64::max),
        max_cases: args.max_cases,
        budgets: args.budgets.clone(),
        kills_per_pattern: args.kills_per_pattern,
        floor: !args.no_floor,
        jobs: args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        }),
        policy: dsxor::model::Policy::default(),
        timeout: args.timeout,
    };
    eprintln!(
        "dsxor mutate: {} mutants, up to {} case-s or {} cases each, {} job(s)",
        opts.mutants.len(),
        opts.max_seconds,
        opts.max_cases,
        opts.jobs
    );
    let record = mutate::run(&opts, |m| {
        outln!(
            "{:<44} {}",
            m.fault,
            match &m.first_kill {
                Some(k) => format!(
                    "killed after {} case(s), {:.3} case-s, by {}/{}",
                    k.cases_before + 1,
                    k.seconds,
                    k.pattern,
                    k.variant
                ),
                None => format!(
                    "SURVIVED {} cases, {:.1} case-s{}",
                    m.cases_run,
                    m.seconds_run,
                    m.detection_floor
                        .map(|f| format!("; killed at rate {f}"))
                        .unwrap_or_default()
                ),
            }
        );
    })
    .map_err(|e| match e {
        MutateError::Usage(_) => bad_input(e),
        MutateError::Environment(_) => environment(e),
    })?;
    for s in &record.scores {
        outln!(
            "mutation score at {} case-s: {}/{} ({:.1} %)",
            s.budget_seconds,
            s.killed,
            s.total,
            s.score * 100.0
        );
    }
    write_record(&args.out, &record, true)
}

/// A `dsxor-mutate/1` record read back (`--from`): bounded, without
/// duplicate keys, of this format.
fn read_mutate_record(path: &std::path::Path) -> Result<dsxor::mutate::MutateRecord, Failure> {
    use dsxor::mutate;
    let text = dsxor::json::read_bounded(path, dsxor::json::MAX_DOCUMENT_BYTES, "mutate record")
        .map_err(|e| bad_input(anyhow::anyhow!("{}: {e}", path.display())))?;
    dsxor::json::refuse_duplicate_keys(&text)
        .map_err(|e| bad_input(anyhow::anyhow!("{}: {e}", path.display())))?;
    let record: mutate::MutateRecord = serde_json::from_str(&text).map_err(|e| {
        bad_input(anyhow::anyhow!(
            "{}: not a dsxor-mutate/1 record: {e}",
            path.display()
        ))
    })?;
    if record.format != mutate::MUTATE_FORMAT {
        return Err(bad_input(anyhow::anyhow!(
            "{}: format {:?}, expected {}",
            path.display(),
            record.format,
            mutate::MUTATE_FORMAT
        )));
    }
    Ok(record)
}

/// Write the record's JSON (when `json`), Markdown and SVG into `out`.
fn write_record(
    out: &std::path::Path,
    record: &dsxor::mutate::MutateRecord,
    json: bool,
) -> Outcome {
    std::fs::create_dir_all(out)
        .map_err(|e| bad_input(anyhow::anyhow!("--out {}: {e}", out.display())))?;
    let stem = format!(
        "mutate-{}",
        record.started_utc.replace([':', '-'], "").replace('T', "-")
    );
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| bad_input(anyhow::anyhow!("serializing the record: {e}")))?;
    let md = dsxor::mutate::report::markdown(record);
    let svg = dsxor::mutate::report::render(record).map_err(bad_input)?;
    for (ext, body) in [("json", &text), ("md", &md), ("svg", &svg)] {
        if ext == "json" && !json {
            continue;
        }
        let path = out.join(format!("{stem}.{ext}"));
        dsxor::report::results::write_text_atomic(&path, body).map_err(unwritten)?;
        outln!("wrote {}", path.display());
    }
    Ok(dsxor::exit::PASS)
}
