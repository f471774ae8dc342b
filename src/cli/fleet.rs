//! `dsxor fleet`.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct FleetArgs {
    /// Results files of full or sharded runs on any number of devices and
    /// nodes (*.json; a killed run's case stream *.cases.jsonl reads as
    /// `aborted`).
    #[arg(required = true)]
    pub(crate) files: Vec<std::path::PathBuf>,
    /// Write the fleet's verdict as JSON (format `dsxor-fleet/1`) here.
    #[arg(long)]
    pub(crate) json: Option<std::path::PathBuf>,
    /// Write the Markdown report (a table per node, failing GPUs first) here.
    #[arg(long)]
    pub(crate) markdown: Option<std::path::PathBuf>,
    /// Write JUnit XML (one test suite per device) here.
    #[arg(long)]
    pub(crate) junit: Option<std::path::PathBuf>,
    /// Write an SVG of the fleet (a row per node, a square per device) here.
    #[arg(long)]
    pub(crate) svg: Option<std::path::PathBuf>,
}

pub(crate) fn cmd_fleet(args: FleetArgs) -> Outcome {
    use dsxor::report::results::{check_writable, write_atomic, write_text_atomic};
    for p in [&args.json, &args.markdown, &args.junit, &args.svg]
        .into_iter()
        .flatten()
    {
        check_writable(None, Some(p)).map_err(bad_input)?;
    }
    let fleet = dsxor::fleet::fleet(&args.files).map_err(bad_input)?;
    let code = fleet.exit_code();
    // The paths were checked: a write failing now is the machine's trouble
    // (3), unless a device failed: then 1 still.
    let unwritten = |e: anyhow::Error| Failure {
        code: if code == dsxor::exit::FAIL {
            code
        } else {
            dsxor::exit::ENVIRONMENT
        },
        error: e,
    };
    let markdown = dsxor::fleet::render::markdown(&fleet);
    if let Some(p) = &args.json {
        write_atomic(p, &fleet).map_err(|e| unwritten(e.into()))?;
    }
    if let Some(p) = &args.markdown {
        write_text_atomic(p, &markdown).map_err(|e| unwritten(e.into()))?;
    }
    if let Some(p) = &args.junit {
        let xml = dsxor::report::junit::report_xml(&dsxor::fleet::render::junit(&fleet))
            .map_err(|e| unwritten(anyhow::anyhow!(e)))?;
        write_text_atomic(p, &xml).map_err(|e| unwritten(e.into()))?;
    }
    if let Some(p) = &args.svg {
        let svg = dsxor::fleet::render::svg(&fleet).map_err(|e| unwritten(e.into()))?;
        write_text_atomic(p, &svg).map_err(|e| unwritten(e.into()))?;
    }
    out!("{markdown}");
    Ok(code)
}
