//! The `dsxor` command: clap commands and exit codes, nothing else.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// An error with the exit code it stands for (DESIGN.md: 2 bad usage or
/// input, 3 environment).
struct Failure {
    code: u8,
    error: anyhow::Error,
}

#[allow(dead_code)]
fn bad_input(error: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: dsxor::exit::USAGE,
        error: error.into(),
    }
}

#[allow(dead_code)]
fn environment(error: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: dsxor::exit::ENVIRONMENT,
        error: error.into(),
    }
}

/// A command's outcome: Ok(exit code 0 or 1) or a failure with its code.
type Outcome = Result<u8, Failure>;

#[derive(Parser)]
#[command(
    name = "dsxor",
    version,
    about = "Conformance and throughput harness for AMD's LDS atomic ds_xor_rtn_b64"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    // ---- isa commands ----

    // ---- codeobj commands ----

    // ---- hip / backend commands ----

    // ---- conformance commands ----

    // ---- model / check commands ----

    // ---- bench / report commands ----
    /// Render bench records as an SVG and a Markdown table; with
    /// --fail-below, exit 1 when a run fell below PCT % of its baseline.
    Report(ReportArgs),
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        // ---- isa dispatch ----

        // ---- codeobj dispatch ----

        // ---- hip / backend dispatch ----

        // ---- conformance dispatch ----

        // ---- model / check dispatch ----

        // ---- bench / report dispatch ----
        Command::Report(args) => report_cmd(args),
    }
}

// ---- isa handlers ----

// ---- codeobj handlers ----

// ---- hip / backend handlers ----

// ---- conformance handlers ----

// ---- model / check handlers ----

// ---- bench / report handlers ----
#[derive(clap::Args)]
struct ReportArgs {
    /// Bench records (`dsxor-bench/1` JSON); the newest is the current run,
    /// the others make the trend.
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
    /// Write the SVG picture here.
    #[arg(long, value_name = "PATH")]
    svg: Option<std::path::PathBuf>,
    /// Write the Markdown summary here (default: print it).
    #[arg(long, value_name = "PATH")]
    markdown: Option<std::path::PathBuf>,
    /// Exit 1 when a run of the newest record has a median rate below PCT %
    /// of the same run in --baseline, or failed its check.
    #[arg(long, value_name = "PCT", requires = "baseline")]
    fail_below: Option<f64>,
    /// The bench record to compare against.
    #[arg(long, value_name = "FILE", requires = "fail_below")]
    baseline: Option<std::path::PathBuf>,
}

fn report_cmd(args: ReportArgs) -> Outcome {
    use dsxor::report::bench_record::{compare, BenchRecord, Verdict};
    use dsxor::report::{markdown, svg};

    let records = args
        .files
        .iter()
        .map(|p| BenchRecord::load(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
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
        std::fs::write(path, picture)
            .map_err(|e| environment(anyhow::anyhow!("cannot write {}: {e}", path.display())))?;
        eprintln!("dsxor: wrote {}", path.display());
    }
    let md = markdown::render(&records, section.as_ref());
    match &args.markdown {
        Some(path) => {
            std::fs::write(path, &md).map_err(|e| {
                environment(anyhow::anyhow!("cannot write {}: {e}", path.display()))
            })?;
            eprintln!("dsxor: wrote {}", path.display());
        }
        None => print!("{md}"),
    }
    if let Some(c) = &comparisons {
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
    }
    Ok(dsxor::exit::PASS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            eprintln!("dsxor: error: {error:#}");
            ExitCode::from(code)
        }
    }
}
