//! A Markdown summary of bench records: the latest record's runs in one
//! table, a run-by-record table when given several records, and the
//! comparison with a baseline when one was asked for; and a summary of
//! conformance results (`render_conformance`).

use std::fmt::Write;

use crate::report::bench_record::{BenchRecord, Comparison, Verdict};
use crate::report::results::{Results, Status};
use crate::report::svg::{percent, si};

/// A baseline comparison to include: the baseline, the threshold in percent,
/// and the per-run verdicts (`bench_record::compare`).
pub struct BaselineSection<'a> {
    pub baseline: &'a BenchRecord,
    pub fail_below_pct: f64,
    pub comparisons: &'a [Comparison],
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn opt_si(x: Option<f64>) -> String {
    x.map(si).unwrap_or_else(|| "—".to_string())
}

/// Render `records` (sorted by creation time here; the newest is "latest").
pub fn render(records: &[BenchRecord], baseline: Option<&BaselineSection<'_>>) -> String {
    let mut sorted: Vec<&BenchRecord> = records.iter().collect();
    sorted.sort_by(|a, b| a.created_utc.cmp(&b.created_utc));
    let mut md = String::from("# dsxor bench report\n\n");
    let Some(latest) = sorted.last().copied() else {
        md.push_str("No bench record given.\n");
        return md;
    };
    let (unit, bytes) = if latest.is_emulated() {
        ("emulated lane-ops/s", "emulated LDS bytes/s")
    } else {
        ("lane-ops/s", "LDS bytes/s")
    };
    latest_header(&mut md, latest);
    runs_table(&mut md, latest, unit, bytes);
    if sorted.len() > 1 {
        across_records(&mut md, &sorted, latest, unit);
    }
    if let Some(b) = baseline {
        against_baseline(&mut md, b);
    }
    md
}

/// The latest record's device, metric, settings, ceiling and verdict.
fn latest_header(md: &mut String, latest: &BenchRecord) {
    let d = &latest.environment.device;
    let _ = writeln!(md, "## Latest record, {}\n", latest.created_utc);
    let _ = writeln!(
        md,
        "- device: {} (`{}`), backend `{}`, {}, clock {}",
        escape(&d.name),
        escape(&d.target_id),
        d.backend.name(),
        d.units_text(),
        d.clock_khz
            .map(|c| format!("{c} kHz"))
            .unwrap_or_else(|| "unknown".into())
    );
    if latest.is_emulated() {
        md.push_str(
            "- metric: **emulated lane-operations per second** — the software device's own speed on this host, \
             never a GPU figure\n",
        );
    } else {
        md.push_str(
            "- metric: `ds_xor_rtn_b64` lane-operations per second on the GPU (HIP event time)\n",
        );
    }
    let s = &latest.settings;
    let _ = writeln!(
        md,
        "- settings: {}, seed {}, {} warm-up + {} timed launches per run, timing `{}`",
        if s.quick { "quick" } else { "full" },
        s.seed,
        s.warmup,
        s.reps,
        escape(&s.timing)
    );
    match (&latest.ceiling, &latest.no_ceiling_reason) {
        (Some(c), _) => {
            let _ = writeln!(
                md,
                "- ceiling: {} lane-ops/s = {} CUs × {} kHz × {} lanes/clock/CU ({})",
                si(c.lane_ops_per_second),
                c.compute_units,
                c.clock_khz,
                c.lanes_per_clock_per_cu,
                escape(&c.formula)
            );
            if let Some(from) = &c.compute_units_from {
                let _ = writeln!(md, "  - CUs: {}", escape(from));
            }
            for src in &c.sources {
                let _ = writeln!(md, "  - source: {}", escape(src));
            }
        }
        (None, Some(why)) => {
            let _ = writeln!(md, "- ceiling: none — {}", escape(why));
        }
        (None, None) => md.push_str("- ceiling: none\n"),
    }
    let _ = writeln!(
        md,
        "- verdict: {}\n",
        if latest.all_passed {
            "every run completed and passed its check"
        } else {
            "**some run failed** (its rate is not counted)"
        }
    );
}

/// The latest record's runs, one row each, and what it skipped.
fn runs_table(md: &mut String, latest: &BenchRecord, unit: &str, bytes: &str) {
    let _ = writeln!(
        md,
        "| run | groups × waves | lane-ops/launch | median {unit} | min | max | IQR/median time | {bytes} | % of ceiling | check |"
    );
    md.push_str("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for run in &latest.runs {
        let rate = run.lane_ops_per_second;
        let spread = run
            .seconds
            .filter(|t| t.median > 0.0)
            .map(|t| format!("{:.1} %", (t.q3 - t.q1) / t.median * 100.0))
            .unwrap_or_else(|| "—".into());
        let check = if run.outcome == "pass" {
            format!(
                "pass ({} launches, {} folds exact, {} in span{})",
                run.check.launches_checked,
                run.check.folds_exact,
                run.check.folds_in_span,
                if run.check.expected_all_zero {
                    "; all expected values 0: weak"
                } else {
                    ""
                }
            )
        } else {
            format!(
                "**{}**: {}",
                run.outcome,
                escape(run.error.as_deref().unwrap_or(""))
            )
        };
        let _ = writeln!(
            md,
            "| `{}` | {} × {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            escape(&run.name),
            run.groups,
            run.waves_per_group,
            run.lane_ops_per_launch,
            opt_si(rate.map(|r| r.median)),
            opt_si(rate.map(|r| r.min)),
            opt_si(rate.map(|r| r.max)),
            spread,
            opt_si(run.lds_bytes_per_second),
            run.fraction_of_ceiling
                .map(percent)
                .unwrap_or_else(|| "—".into()),
            check
        );
    }
    for sk in &latest.skipped {
        let _ = writeln!(
            md,
            "\nSkipped `{}`: {}",
            escape(&sk.name),
            escape(&sk.reason)
        );
    }
}

/// The latest record's runs across all records, oldest to newest.
fn across_records(md: &mut String, sorted: &[&BenchRecord], latest: &BenchRecord, unit: &str) {
    let _ = writeln!(
    md,
    "\n## Across {} records (median {unit}, oldest to newest; — where a record has no run of the same geometry)\n",
    sorted.len()
);
    md.push_str("| run |");
    for r in sorted {
        let _ = write!(md, " {} |", escape(&r.created_utc));
    }
    md.push_str(" newest / oldest |\n| --- |");
    for _ in sorted {
        md.push_str(" ---: |");
    }
    md.push_str(" ---: |\n");
    for run in &latest.runs {
        let series: Vec<Option<f64>> = sorted
            .iter()
            .map(|r| {
                r.comparable_run(run)
                    .and_then(|x| x.lane_ops_per_second)
                    .map(|x| x.median)
            })
            .collect();
        let _ = write!(md, "| `{}` |", escape(&run.name));
        for v in &series {
            let _ = write!(md, " {} |", opt_si(*v));
        }
        let change = match (
            series.first().copied().flatten(),
            series.last().copied().flatten(),
        ) {
            (Some(a), Some(b)) if a > 0.0 => format!("{:.1} %", b / a * 100.0),
            _ => "—".into(),
        };
        let _ = writeln!(md, " {change} |");
    }
}

/// The comparison with a baseline record, run by run.
fn against_baseline(md: &mut String, b: &BaselineSection<'_>) {
    let _ = writeln!(
        md,
        "\n## Against baseline {} (fail below {} %)\n",
        escape(&b.baseline.created_utc),
        b.fail_below_pct
    );
    md.push_str("| run | baseline | current | % of baseline | verdict |\n| --- | ---: | ---: | ---: | --- |\n");
    for c in b.comparisons {
        let verdict = match c.verdict {
            Verdict::Ok => "ok",
            Verdict::Regressed => "**regressed**",
            Verdict::Failed => "**failed its check**",
            Verdict::NotCompared => "not compared",
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {verdict} |",
            escape(&c.name),
            opt_si(c.baseline),
            opt_si(c.current),
            c.percent
                .map(|p| format!("{p:.1} %"))
                .unwrap_or_else(|| "—".into())
        );
    }
}

/// Render conformance results (`dsxor-results/1`; sorted by start time
/// here, the newest is "latest"): a header naming what decided the cases
/// and where they ran, the latest run's (pattern, wave) table, its
/// failures, and a run-by-run table when given several runs.
pub fn render_conformance(results: &[Results]) -> String {
    let mut sorted: Vec<&Results> = results.iter().collect();
    sorted.sort_by(|a, b| a.started_utc.cmp(&b.started_utc));
    let mut md = String::from("# dsxor conformance report\n\n");
    let Some(r) = sorted.last().copied() else {
        md.push_str("No conformance results given.\n");
        return md;
    };
    let d = &r.environment.device;
    let status = match r.status {
        Status::Passed => "passed".to_string(),
        Status::Failed => "**failed**".to_string(),
        Status::Aborted => format!(
            "**aborted**: {}",
            escape(r.abort_reason.as_deref().unwrap_or("no reason recorded"))
        ),
    };
    let _ = writeln!(
        md,
        "## Latest run, {} to {}\n",
        r.started_utc, r.finished_utc
    );
    let _ = writeln!(
        md,
        "- status: {status}; {} of {} cases passed, {} failed, wall time {} ms",
        r.passed, r.total, r.failed, r.wall_ms
    );
    let _ = writeln!(
        md,
        "- seed {}, generator version {}, shard {}/{}, {} cases planned",
        r.spec.seed, r.spec.generator_version, r.spec.shard.index, r.spec.shard.count, r.spec.cases
    );
    let _ = writeln!(
        md,
        "- backend `{}`, device {} (`{}`), {}",
        d.backend.name(),
        escape(&d.name),
        escape(&d.target_id),
        d.units_text()
    );
    for co in &r.environment.code_objects {
        let _ = writeln!(
            md,
            "- code object wave{}: `{}` sha256 `{}` ({})",
            co.wave.lanes(),
            escape(&co.source),
            escape(&co.sha256),
            escape(&co.origin)
        );
    }
    // The recorded description already starts with `policy:` today.
    let policy = r.parameters.policy.as_str();
    let policy = policy.strip_prefix("policy:").unwrap_or(policy).trim();
    let _ = writeln!(md, "- model policy: {}", escape(policy));
    if let Some(f) = &r.parameters.fault {
        let _ = writeln!(md, "- injected fault (emu `--fault`): `{}`", escape(f));
    }
    let _ = writeln!(md, "- dsxor {}\n", escape(&r.dsxor_version));
    md.push_str("| pattern | wave | cases | passed | failed | time |\n");
    md.push_str("| --- | --- | ---: | ---: | ---: | ---: |\n");
    for c in &r.patterns {
        let failed = if c.failed > 0 {
            format!("**{}**", c.failed)
        } else {
            "0".into()
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {failed} | {} ms |",
            c.pattern.name(),
            c.wave.lanes(),
            c.cases,
            c.passed,
            c.wall_ms
        );
    }
    if !r.failures.is_empty() {
        failures_table(&mut md, r);
    }
    if sorted.len() > 1 {
        let _ = writeln!(md, "\n## Across {} runs (oldest to newest)\n", sorted.len());
        md.push_str("| started | seed | backend | target | cases | passed | failed | status |\n");
        md.push_str("| --- | ---: | --- | --- | ---: | ---: | ---: | --- |\n");
        for x in &sorted {
            let _ = writeln!(
                md,
                "| {} | {} | `{}` | `{}` | {} | {} | {} | {} |",
                escape(&x.started_utc),
                x.spec.seed,
                x.environment.device.backend.name(),
                escape(&x.environment.device.target_id),
                x.total,
                x.passed,
                x.failed,
                match x.status {
                    Status::Passed => "passed",
                    Status::Failed => "**failed**",
                    Status::Aborted => "**aborted**",
                }
            );
        }
    }
    md
}

/// A conformance run's failures, one row each, with its repro.
fn failures_table(md: &mut String, r: &Results) {
    let _ = writeln!(md, "\n### Failures ({})\n", r.failures.len());
    md.push_str("| index | pattern | wave | kind | summary | repro |\n");
    md.push_str("| ---: | --- | --- | --- | --- | --- |\n");
    for f in &r.failures {
        let repro = match (&f.repro, f.same_kind_as) {
            (Some(p), _) => format!("`{}`", escape(p)),
            (None, Some(i)) => format!("same kind as {i}"),
            (None, None) => "—".into(),
        };
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | `{}` | {} | {repro} |",
            f.index,
            f.pattern.name(),
            f.wave.lanes(),
            escape(&f.kind),
            escape(&f.summary)
        );
    }
}
