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

    // ---- conformance commands ----

    // ---- model / check commands ----

    // ---- bench / report commands ----
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        // ---- isa dispatch ----

        // ---- codeobj dispatch ----

        // ---- hip / backend dispatch ----

        // ---- conformance dispatch ----

        // ---- model / check dispatch ----

        // ---- bench / report dispatch ----
    }
}

// ---- isa handlers ----

// ---- codeobj handlers ----

// ---- hip / backend handlers ----

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
