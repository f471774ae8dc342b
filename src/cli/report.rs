//! `dsxor report`.

use super::*;

#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    /// Bench records (`dsxor-bench/1` JSON) or conformance results
    /// (`dsxor-results/1`, the final .json of `dsxor run`), one kind per
    /// call; the newest is the current run, the others make the trend.
    #[arg(required = true)]
    pub(crate) files: Vec<std::path::PathBuf>,
    /// Write the SVG picture here.
    #[arg(long, value_name = "PATH")]
    pub(crate) svg: Option<std::path::PathBuf>,
    /// Write the Markdown summary here (default: print it).
    #[arg(long, value_name = "PATH")]
    pub(crate) markdown: Option<std::path::PathBuf>,
    /// Exit 1 when a run of the newest record has a median rate below PCT %
    /// of the same run in --baseline, or failed its check.
    #[arg(long, value_name = "PCT", requires = "baseline")]
    pub(crate) fail_below: Option<f64>,
    /// The bench record to compare against.
    #[arg(long, value_name = "FILE", requires = "fail_below")]
    pub(crate) baseline: Option<std::path::PathBuf>,
}

/// A file given to `dsxor report`, told apart by its `format` field.
pub(crate) enum ReportInput {
    Bench(dsxor::report::bench_record::BenchRecord),
    Conformance(dsxor::report::results::Results),
}

pub(crate) fn report_input(path: &std::path::Path) -> Result<ReportInput, Failure> {
    use dsxor::report::bench_record::{BenchRecord, BENCH_FORMAT};
    use dsxor::report::results::{Results, RESULTS_FORMAT};
    // A run killed before its .json: its case stream, read as `aborted`.
    if path.to_string_lossy().ends_with(".cases.jsonl") {
        return Results::recover(path)
            .map(ReportInput::Conformance)
            .map_err(bad_input);
    }
    // Bounded, and only the format tag parsed here (no `Value` of the
    // whole file): each reader then reads it by its own rules.
    let text = dsxor::json::read_bounded(path, dsxor::json::MAX_RESULTS_BYTES, "report input")
        .map_err(|e| bad_input(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
    #[derive(serde::Deserialize)]
    struct Tag {
        format: Option<serde_json::Value>,
    }
    let tag: Tag = serde_json::from_str(&text).map_err(|e| {
        bad_input(anyhow::anyhow!(
            "{} is not a JSON bench record or conformance results file: {e}",
            path.display()
        ))
    })?;
    drop(text);
    match tag.format.as_ref().and_then(|f| f.as_str()) {
        Some(BENCH_FORMAT) => Ok(ReportInput::Bench(
            BenchRecord::load(path).map_err(bad_input)?,
        )),
        Some(RESULTS_FORMAT) => Ok(ReportInput::Conformance(
            Results::read(path).map_err(bad_input)?,
        )),
        other => Err(bad_input(anyhow::anyhow!(
            "{}: {}; dsxor report reads `{BENCH_FORMAT}` (dsxor bench) and `{RESULTS_FORMAT}` \
             (the final .json of dsxor run, or the .cases.jsonl of a run killed before it)",
            path.display(),
            match other {
                Some(f) => format!("format `{f}`"),
                None => "no string `format` field".into(),
            }
        ))),
    }
}

/// Write `text` to `path`, or say why not (exit 2 refused, 3 not written).
pub(crate) fn write_report_file(path: &std::path::Path, text: &str) -> Result<(), Failure> {
    // Atomically: a full disk leaves the old file or none, never an empty one.
    dsxor::report::results::write_text_atomic(path, text).map_err(unwritten)?;
    eprintln!("dsxor: wrote {}", path.display());
    Ok(())
}

pub(crate) fn report_cmd(args: ReportArgs) -> Outcome {
    use dsxor::report::bench_record::{compare, BenchRecord};
    use dsxor::report::{markdown, svg};

    // Bad output paths are refused before any work (exit 2).
    for path in [&args.svg, &args.markdown].into_iter().flatten() {
        dsxor::report::results::check_writable(None, Some(path)).map_err(bad_input)?;
    }
    let mut records = Vec::new();
    let mut conformance = Vec::new();
    for path in &args.files {
        match report_input(path)? {
            ReportInput::Bench(r) => records.push((path, r)),
            ReportInput::Conformance(r) => conformance.push((path, r)),
        }
    }
    // Policy: one kind per call. One --svg/--markdown path holds one
    // picture and one summary; a mixed call would also leave unclear what
    // --fail-below judges.
    if let (Some((b, _)), Some((c, _))) = (records.first(), conformance.first()) {
        return Err(bad_input(anyhow::anyhow!(
            "{} is a bench record and {} a conformance results file: dsxor report renders one \
             kind per call; run it once for the bench records and once for the results files",
            b.display(),
            c.display()
        )));
    }
    if !conformance.is_empty() {
        let results: Vec<_> = conformance.into_iter().map(|(_, r)| r).collect();
        return report_conformance(&args, &results);
    }
    let records: Vec<BenchRecord> = records.into_iter().map(|(_, r)| r).collect();
    let baseline = match (&args.baseline, args.fail_below) {
        (Some(path), Some(pct)) => {
            if !(pct.is_finite() && pct > 0.0) {
                return Err(bad_input(anyhow::anyhow!(
                    "--fail-below must be a positive percentage, not {pct}"
                )));
            }
            Some((BenchRecord::load(path).map_err(bad_input)?, pct))
        }
        _ => None,
    };
    let latest = records
        .iter()
        .max_by(|a, b| a.created_utc.cmp(&b.created_utc))
        .ok_or_else(|| bad_input(anyhow::anyhow!("no bench record given")))?;
    let comparisons = match &baseline {
        Some((base, pct)) => {
            Some(compare(latest, base, *pct).map_err(|e| bad_input(anyhow::anyhow!(e)))?)
        }
        None => None,
    };
    let section = match (&baseline, &comparisons) {
        (Some((base, pct)), Some(c)) => Some(markdown::BaselineSection {
            baseline: base,
            fail_below_pct: *pct,
            comparisons: c,
        }),
        _ => None,
    };
    if let Some(path) = &args.svg {
        let picture = svg::render(&records).map_err(bad_input)?;
        write_report_file(path, &picture)?;
        eprintln!("dsxor: wrote {}", path.display());
    }
    let md = markdown::render(&records, section.as_ref());
    match &args.markdown {
        Some(path) => {
            write_report_file(path, &md)?;
            eprintln!("dsxor: wrote {}", path.display());
        }
        None => out!("{md}"),
    }
    if let Some(c) = &comparisons {
        return judge_comparisons(c);
    }
    Ok(dsxor::exit::PASS)
}

/// Conformance results rendered: the SVG and the Markdown summary.
fn report_conformance(args: &ReportArgs, results: &[dsxor::report::results::Results]) -> Outcome {
    use dsxor::report::{markdown, svg};
    if args.fail_below.is_some() {
        return Err(bad_input(anyhow::anyhow!(
            "--fail-below compares bench records; the files given are conformance results \
             (their failures are in the report and in dsxor run's exit code)"
        )));
    }
    if let Some(path) = &args.svg {
        let picture = svg::render_conformance(results).map_err(bad_input)?;
        write_report_file(path, &picture)?;
    }
    let md = markdown::render_conformance(results);
    match &args.markdown {
        Some(path) => write_report_file(path, &md)?,
        None => out!("{md}"),
    }
    Ok(dsxor::exit::PASS)
}

/// The exit code of a comparison with a baseline: FAIL when a run
/// regressed or failed its check (each named on stderr), bad input when
/// the threshold judged nothing.
fn judge_comparisons(c: &[dsxor::report::bench_record::Comparison]) -> Outcome {
    use dsxor::report::bench_record::Verdict;
    let bad: Vec<_> = c
        .iter()
        .filter(|x| matches!(x.verdict, Verdict::Regressed | Verdict::Failed))
        .collect();
    let compared = c
        .iter()
        .filter(|x| x.verdict != Verdict::NotCompared)
        .count();
    for x in &bad {
        eprintln!(
            "dsxor: {} {}: {} of baseline",
            x.name,
            if x.verdict == Verdict::Failed {
                "FAILED its check"
            } else {
                "REGRESSED"
            },
            x.percent
                .map(|p| format!("{p:.1} %"))
                .unwrap_or_else(|| "-".into())
        );
    }
    eprintln!(
        "dsxor: {compared} of {} runs compared with the baseline, {} below threshold or failed",
        c.len(),
        bad.len()
    );
    if !bad.is_empty() {
        return Ok(dsxor::exit::FAIL);
    }
    // A threshold that judged nothing must not pass silently in CI.
    if compared == 0 {
        return Err(bad_input(anyhow::anyhow!(
            "no run of the newest record matches a run of the baseline (name and geometry)"
        )));
    }
    Ok(dsxor::exit::PASS)
}
