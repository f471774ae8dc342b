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
#[command(name = "dsxor", version, about = "Conformance and throughput harness for AMD's LDS atomic ds_xor_rtn_b64")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    // ---- isa commands ----

    // ---- codeobj commands ----

    // ---- hip / backend commands ----
    /// Report the HIP environment: library, versions, devices and their
    /// targets, or the exact reason there are none. Exits 0 whenever it could
    /// report (no library and no device included); with --require-device,
    /// exits 3 when there is no usable device.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Exit 3 (environment) unless a usable HIP device is present.
        #[arg(long)]
        require_device: bool,
    },
    // ---- conformance commands ----

    // ---- model / check commands ----

    // ---- bench / report commands ----
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        // ---- isa dispatch ----

        // ---- codeobj dispatch ----

        // ---- hip / backend dispatch ----
        Command::Info {
            json,
            require_device,
        } => cmd_info(json, require_device),
        // ---- conformance dispatch ----

        // ---- model / check dispatch ----

        // ---- bench / report dispatch ----
    }
}

// ---- isa handlers ----

// ---- codeobj handlers ----

// ---- hip / backend handlers ----
fn cmd_info(json: bool, require_device: bool) -> Outcome {
    let info = dsxor::hip::info::Info::gather();
    if json {
        let text = serde_json::to_string_pretty(&info).map_err(environment)?;
        println!("{text}");
    } else {
        print!("{}", info.render_text());
    }
    if require_device && !info.has_usable_device() {
        let reason = info
            .no_device_reason
            .clone()
            .unwrap_or_else(|| "no usable HIP device".to_string());
        return Err(environment(anyhow::anyhow!(reason)));
    }
    Ok(dsxor::exit::PASS)
}

// ---- conformance handlers ----

// ---- model / check handlers ----

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
