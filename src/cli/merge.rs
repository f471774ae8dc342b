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
}

pub(crate) fn cmd_merge(args: MergeArgs) -> Outcome {
    use dsxor::report::results::Status;
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
    dsxor::report::results::write_atomic(&out, &merged).map_err(environment)?;
    if let Some(j) = &args.junit {
        dsxor::report::junit::write_junit(j, &merged).map_err(environment)?;
    }
    out!("{}", dsxor::report::console::summary_table(&merged));
    outln!("merged {} shards: {}", args.files.len(), out.display());
    // Failures any shard found decide the code, aborted shards or not.
    Ok(match merged.status {
        _ if merged.failed > 0 => dsxor::exit::FAIL,
        Status::Passed => dsxor::exit::PASS,
        Status::Failed => dsxor::exit::FAIL,
        Status::Aborted => dsxor::exit::ENVIRONMENT,
    })
}
