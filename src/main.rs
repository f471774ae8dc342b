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
    /// Judge a dsxor-observation/1 file without running anything: exit 0
    /// consistent, 1 inconsistent (with a one-paragraph explanation), 2 malformed.
    Check {
        /// The observation file (JSON).
        file: std::path::PathBuf,
        /// What an out-of-range returning atomic must return (an assumption):
        /// zero, vdst-unchanged or any.
        #[arg(long, default_value = "zero")]
        out_of_range_return: String,
        /// LDS allocation block in bytes (512: LLVM's gfx11 granule; 1024: Mesa's).
        #[arg(long, default_value_t = dsxor::model::policy::LDS_GRANULE_GFX11_LLVM)]
        lds_granule: u32,
        /// Print the verdict as JSON instead of the paragraph.
        #[arg(long)]
        json: bool,
    },
    // ---- bench / report commands ----
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        // ---- isa dispatch ----

        // ---- codeobj dispatch ----

        // ---- hip / backend dispatch ----

        // ---- conformance dispatch ----

        // ---- model / check dispatch ----
        Command::Check {
            file,
            out_of_range_return,
            lds_granule,
            json,
        } => check_file(&file, &out_of_range_return, lds_granule, json),
        // ---- bench / report dispatch ----
    }
}

// ---- isa handlers ----

// ---- codeobj handlers ----

// ---- hip / backend handlers ----

// ---- conformance handlers ----

// ---- model / check handlers ----
fn check_file(file: &std::path::Path, oor: &str, lds_granule: u32, json: bool) -> Outcome {
    use dsxor::model::{OutOfRangeReturn, Policy};
    let out_of_range_return = OutOfRangeReturn::parse(oor).ok_or_else(|| {
        bad_input(anyhow::anyhow!(
            "--out-of-range-return {oor:?}: expected zero, vdst-unchanged or any"
        ))
    })?;
    if !lds_granule.is_power_of_two() {
        return Err(bad_input(anyhow::anyhow!(
            "--lds-granule {lds_granule}: expected a power of two"
        )));
    }
    let policy = Policy {
        lds_granule,
        out_of_range_return,
    };
    let obs = dsxor::check::file::ObservationFile::read(file).map_err(bad_input)?;
    let verdict = obs.judge(&policy);
    if json {
        let text = serde_json::to_string_pretty(&verdict).map_err(bad_input)?;
        println!("{text}");
    } else {
        println!("{}: {}", file.display(), verdict.explain());
    }
    Ok(if verdict.passed() {
        dsxor::exit::PASS
    } else {
        dsxor::exit::FAIL
    })
}

// ---- bench / report handlers ----

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
