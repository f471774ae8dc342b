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
    /// List the embedded code objects (per target and wave size) with their kernels' metadata.
    Kernels {
        /// Only objects for this processor (e.g. gfx1100).
        #[arg(long)]
        target: Option<String>,
    },
    /// Show any AMDGPU code object (ELF or offload bundle): target, kernels,
    /// descriptors, metadata and the DS instructions of each kernel.
    Inspect {
        /// The code object file.
        file: std::path::PathBuf,
        /// Bundle entry to read, by target id (e.g. gfx90a:xnack-).
        #[arg(long)]
        target: Option<String>,
    },
    // ---- hip / backend commands ----

    // ---- conformance commands ----

    // ---- model / check commands ----

    // ---- bench / report commands ----
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        // ---- isa dispatch ----

        // ---- codeobj dispatch ----
        Command::Kernels { target } => cmd_kernels(target.as_deref()),
        Command::Inspect { file, target } => cmd_inspect(&file, target.as_deref()),
        // ---- hip / backend dispatch ----

        // ---- conformance dispatch ----

        // ---- model / check dispatch ----

        // ---- bench / report dispatch ----
    }
}

// ---- isa handlers ----

// ---- codeobj handlers ----
fn cmd_kernels(target: Option<&str>) -> Outcome {
    use dsxor::codeobj::{describe::describe, embedded, CodeObject};
    let objects: Vec<_> = embedded()
        .iter()
        .filter(|o| target.map_or(true, |t| o.target == t))
        .collect();
    if objects.is_empty() {
        return Err(environment(anyhow::anyhow!(
            "no embedded code object for target {}",
            target.unwrap_or("(any)")
        )));
    }
    use std::io::Write;
    // Write errors (a closed pipe under `| head`) end the listing quietly.
    let mut so = std::io::stdout().lock();
    for o in objects {
        // An embedded object that does not parse is a broken build, not bad input.
        let co = CodeObject::parse(o.bytes).map_err(|e| {
            environment(anyhow::Error::new(e).context(format!("embedded {}", o.file_name)))
        })?;
        let _ = writeln!(
            so,
            "{} wave{}  {}  {} bytes  from {} ({})",
            o.target,
            o.wave.lanes(),
            o.file_name,
            o.bytes.len(),
            o.origin.name(),
            o.compiler
        );
        let _ = write!(so, "{}", describe(&co, false).map_err(environment)?);
    }
    Ok(dsxor::exit::PASS)
}

fn cmd_inspect(file: &std::path::Path, target: Option<&str>) -> Outcome {
    use dsxor::codeobj::{describe::describe, CodeObject, CodeObjectError, TargetId};
    let data = std::fs::read(file).map_err(|e| {
        bad_input(CodeObjectError::Io {
            path: file.to_path_buf(),
            error: e,
        })
    })?;
    let in_file = |e: CodeObjectError| {
        bad_input(CodeObjectError::InFile {
            path: file.to_path_buf(),
            error: Box::new(e),
        })
    };
    let co = match target {
        Some(t) => {
            let t = TargetId::parse(t).map_err(bad_input)?;
            CodeObject::parse_for_target(&data, &t)
        }
        None => CodeObject::parse(&data),
    }
    .map_err(in_file)?;
    use std::io::Write;
    let text = describe(&co, true).map_err(in_file)?;
    let mut so = std::io::stdout().lock();
    let _ = writeln!(so, "{}", file.display());
    let _ = write!(so, "{text}");
    Ok(dsxor::exit::PASS)
}

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
