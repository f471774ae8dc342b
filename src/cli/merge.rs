//! `dsxor merge`.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct MergeArgs {
    /// The shards' results files (*.json); for a shard killed before it
    /// wrote one, its case stream (*.cases.jsonl), read as `aborted`.
    #[arg(required = true)]
    pub(crate) files: Vec<std::path::PathBuf>,
    /// Where to write the merged results (default: beside the first, `-merged.json`).
    #[arg(long)]
    pub(crate) out: Option<std::path::PathBuf>,
    /// Also write JUnit XML here.
    #[arg(long)]
    pub(crate) junit: Option<std::path::PathBuf>,
    /// Print a machine-readable summary (format `dsxor-merge/1`) on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn cmd_merge(args: MergeArgs) -> Outcome {
    use dsxor::report::results::Status;
    if args.json {
        json_mode("dsxor-merge/1");
    }
    let merged = dsxor::suite::merge::merge(&args.files).map_err(bad_input)?;
    let out = match &args.out {
        Some(p) => p.clone(),
        None => {
            let first = args.files.first().cloned().unwrap_or_default();
            let stem = first
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "results".into());
            // Drop the shard suffix of the first file's name.
            let stem = match stem.find("-shard") {
                Some(i) => stem[..i].to_string(),
                None => stem,
            };
            first.with_file_name(format!("{stem}-merged.json"))
        }
    };
    dsxor::report::results::check_writable(None, Some(&out)).map_err(bad_input)?;
    if let Some(j) = &args.junit {
        dsxor::report::results::check_writable(None, Some(j)).map_err(bad_input)?;
    }
    // Failures any shard found decide the code, aborted shards or not.
    let code = match merged.status {
        _ if merged.failed > 0 => dsxor::exit::FAIL,
        Status::Passed => dsxor::exit::PASS,
        Status::Failed => dsxor::exit::FAIL,
        Status::Aborted => dsxor::exit::ENVIRONMENT,
    };
    // A write failing now (the paths were checked) is the machine's
    // trouble (3), unless the shards failed: then 1 still.
    let unwritten = |e: dsxor::report::results::ResultsError| Failure {
        code: if code == dsxor::exit::FAIL {
            code
        } else {
            dsxor::exit::ENVIRONMENT
        },
        error: e.into(),
    };
    dsxor::report::results::write_atomic(&out, &merged).map_err(unwritten)?;
    if let Some(j) = &args.junit {
        dsxor::report::junit::write_junit(j, &merged).map_err(unwritten)?;
    }
    out!("{}", dsxor::report::console::summary_table(&merged));
    outln!("merged {} shards: {}", args.files.len(), out.display());
    if args.json {
        print_json(
            &super::run::value_of(&merged.status),
            code,
            serde_json::json!({
                "results": out,
                "junit": args.junit,
                "shards": args.files,
                "seed": merged.spec.seed,
                "total": merged.total,
                "passed": merged.passed,
                "failed": merged.failed,
                "abort_reason": merged.abort_reason,
            }),
        );
    }
    Ok(code)
}
