//! The `dsxor` command: clap parsing and exit codes, nothing else; the
//! command bodies live in `cli/`, one module per command.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod cli;

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
    /// Assemble DS instructions (the ds_xor family and every other DS opcode
    /// of the target); prints what `llvm-mc -show-encoding` prints:
    /// `TEXT ; encoding: [0x..,...]`.
    ///
    /// Without TEXT, reads one instruction per line from standard input and
    /// answers one line per input line. A refused line is answered with
    /// `; refused: WHY` (and named on stderr); any refusal exits 2.
    Asm {
        /// Target GPU, as LLVM names it (gfx1100, gfx90a, ...).
        #[arg(long)]
        target: String,
        /// One instruction, e.g. `ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:4`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        text: Vec<String>,
    },
    /// Disassemble DS instructions from llvm-mc byte lists to LLVM's canonical
    /// text, e.g. `[0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0x05]`.
    ///
    /// Without BYTES, reads one byte list per line from standard input, as
    /// `asm` does.
    Disasm {
        /// Target GPU, as LLVM names it.
        #[arg(long)]
        target: String,
        /// One instruction's 8 bytes, least significant first.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        bytes: Vec<String>,
    },

    // ---- codeobj commands ----
    /// List the embedded code objects (per target and wave size) with their kernels' metadata.
    Kernels {
        /// Only objects for this processor (e.g. gfx1100).
        #[arg(long)]
        target: Option<String>,
        /// Print the listing as JSON (format `dsxor-kernels/1`).
        #[arg(long)]
        json: bool,
    },
    /// Show any AMDGPU code object (ELF or offload bundle): target, kernels,
    /// descriptors, metadata and the DS instructions of each kernel.
    Inspect {
        /// The code object file.
        file: std::path::PathBuf,
        /// Bundle entry to read, by target id (e.g. gfx90a:xnack-).
        #[arg(long)]
        target: Option<String>,
        /// Print the listing as JSON (format `dsxor-inspect/1`).
        #[arg(long)]
        json: bool,
    },
    // ---- hip / backend commands ----
    /// Report the HIP environment: library, versions, devices and their
    /// targets, or the exact reason there are none. Exits 0 whenever it could
    /// report (no library and no device included); with --require-device or
    /// --device N, exits 3 when that device is not usable.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Exit 3 (environment) unless a usable HIP device is present.
        #[arg(long)]
        require_device: bool,
        /// Also open HIP device N (an ordinal after HIP_VISIBLE_DEVICES) as the
        /// HIP backend would, and exit 3 with the reason if that fails.
        #[arg(long)]
        device: Option<u32>,
    },
    // ---- conformance commands ----
    /// Run the conformance suite: seeded cases of every pattern, wave32 and
    /// wave64, judged against the model; failures minimized into repro files;
    /// results in OUT/<UTC>-<backend>-<target>.json. Exit 0 passed, 1 a
    /// conformance failure, 2 bad input, 3 environment (no device, ...).
    Run(cli::run::RunArgs),
    /// Burn-in: the soak kernel (many rounds per launch, every return
    /// checked on the device) for --kernel-share of the time and the
    /// conformance suite's case stream, chunk after chunk of seeds derived
    /// from --seed, for the rest; for --duration or until the first failure
    /// (--stop-on-failure); failures minimized into repro files, a
    /// dsxor-soak/2 record written every --checkpoint and at the end;
    /// --resume continues it. Exit codes as `run`.
    Soak(cli::soak::SoakArgs),
    /// Replay a repro file on the current backend and say whether it still
    /// fails (exit 1) or passes (exit 0); or export its recorded observation
    /// as a dsxor-observation/1 file (--export, runs nothing).
    Repro(cli::repro::ReproArgs),
    /// Combine the results files of the shards of one run (same seed and
    /// parameters) into one; exit 0 passed, 1 failures, 2 refused, 3 a shard
    /// was aborted.
    Merge(cli::merge::MergeArgs),
    /// Read the results of runs on many devices and nodes (whole runs or
    /// shards) as one fleet: one verdict per device (by its UUID), a table
    /// per node, failing GPUs first; JSON, Markdown, JUnit and SVG. Exit 0
    /// every device passed, 1 a device failed, 2 unreadable or conflicting
    /// records (two claiming one device and shard, disagreeing), 3 a device
    /// was aborted and none failed.
    Fleet(cli::fleet::FleetArgs),
    /// Node health gate: a short fixed check (the conformance smoke) of
    /// every visible GPU within a time budget; one JSON verdict for the
    /// node (format dsxor-gate/1) on stdout, its one-line reason on stderr.
    /// Exit 0 healthy, 1 a GPU failed, 3 environment (no runtime, no GPU,
    /// a check that could not run). For Slurm's HealthCheckProgram, a job
    /// prolog or a Kubernetes init container.
    Gate(cli::gate::GateArgs),
    /// Measure the suite's sensitivity: run it against each mutant (an
    /// injected fault at a rate, under conditions) of the software device
    /// within a budget; report kills, time to first kill, kill rate per
    /// pattern, the mutation score per budget and survivors' detection
    /// floor (mutate-<UTC>.json/.md/.svg in OUT). Exit 0 when it measured.
    Mutate(cli::mutate::MutateArgs),

    // ---- model / check commands ----
    /// Judge a dsxor-observation/1 file without running anything: exit 0
    /// consistent, 1 inconsistent (with a one-paragraph explanation), 2 malformed.
    Check {
        /// The observation file (JSON).
        file: std::path::PathBuf,
        /// What an out-of-range returning atomic must return (an assumption).
        #[arg(long, value_enum, default_value_t = cli::OutOfRangeArg::Zero)]
        out_of_range_return: cli::OutOfRangeArg,
        /// LDS allocation block in bytes (512: LLVM's gfx11 granule; 1024: Mesa's).
        #[arg(long, default_value_t = dsxor::model::policy::LDS_GRANULE_GFX11_LLVM)]
        lds_granule: u32,
        /// Print the verdict as JSON instead of the paragraph.
        #[arg(long)]
        json: bool,
    },
    // ---- bench / report commands ----
    /// Measure ds_xor_rtn_b64 throughput per access pattern, check every
    /// launch's result, and write results/bench-<UTC>-<backend>-<target>.json.
    /// Exit 1 when a run returned a wrong result, timed out or faulted.
    Bench(cli::bench::BenchArgs),
    /// Render bench records, or conformance results, as an SVG and a
    /// Markdown table; with --fail-below (bench records only), exit 1 when
    /// a run fell below PCT % of its baseline.
    Report(cli::report::ReportArgs),
    // ---- qualify commands ----
    /// Qualify the software device against a GPU: a corpus of DS atomic
    /// programs (every integer DS atomic of gfx11: 32 and 64 bits, with and
    /// without return, cmpstore and mskor; EXEC patterns, contention) on
    /// the device and on the software device,
    /// each checked against the ISA pseudocode; every disagreement is
    /// listed with the program and the three answers; the record
    /// (OUT/qualify-<UTC>-<backend>-<target>.json) says which instructions
    /// are qualified on which device and driver. Exit 0 all agree, 1 a
    /// disagreement (a finding, not a ds_xor conformance failure), 3 no device.
    Qualify(cli::qualify::QualifyArgs),
    /// Internal: the worker process of a HIP device (started by `dsxor
    /// run` and `dsxor qualify`; talks binary frames on stdin/stdout, each
    /// a header line tagged with the protocol's version and the sizes of
    /// the two parts that follow, a JSON value, then its buffers as raw
    /// little-endian bytes).
    #[command(hide = true)]
    Worker,

    // ---- packaging commands ----
    /// Print a shell completion script, e.g. `dsxor completions bash >
    /// ~/.local/share/bash-completion/completions/dsxor`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `dsxor man > dsxor.1; man ./dsxor.1`;
    /// `dsxor man run` prints dsxor-run(1).
    Man {
        /// A command whose own page to print.
        command: Option<String>,
    },
}

fn run(args: Cli) -> cli::Outcome {
    match args.command {
        // ---- isa dispatch ----
        Command::Asm { target, text } => cli::isa::isa_lines(&target, &text, |t, line| {
            dsxor::isa::assemble_line(t, line).map(|l| l.show_encoding())
        }),
        Command::Disasm { target, bytes } => {
            cli::isa::isa_lines(&target, &bytes, dsxor::isa::disassemble_line)
        }

        // ---- codeobj dispatch ----
        Command::Kernels { target, json } => cli::codeobj::cmd_kernels(target.as_deref(), json),
        Command::Inspect { file, target, json } => {
            cli::codeobj::cmd_inspect(&file, target.as_deref(), json)
        }
        // ---- hip / backend dispatch ----
        Command::Info {
            json,
            require_device,
            device,
        } => cli::info::cmd_info(json, require_device, device),
        // ---- conformance dispatch ----
        Command::Run(args) => cli::run::cmd_run(args),
        Command::Soak(args) => cli::soak::cmd_soak(args),
        Command::Repro(args) => cli::repro::cmd_repro(args),
        Command::Merge(args) => cli::merge::cmd_merge(args),
        Command::Fleet(args) => cli::fleet::cmd_fleet(args),
        Command::Gate(args) => cli::gate::cmd_gate(args),
        Command::Mutate(args) => cli::mutate::cmd_mutate(args),

        // ---- model / check dispatch ----
        Command::Check {
            file,
            out_of_range_return,
            lds_granule,
            json,
        } => cli::check::check_file(&file, out_of_range_return, lds_granule, json),
        // ---- bench / report dispatch ----
        Command::Bench(args) => cli::bench::bench_cmd(args),
        Command::Report(args) => cli::report::report_cmd(args),
        Command::Qualify(args) => cli::qualify::cmd_qualify(args),
        Command::Worker => cli::worker::cmd_worker(),
        // ---- packaging dispatch ----
        Command::Completions { shell } => cli::package::completions(shell, Cli::command()),
        Command::Man { command } => cli::package::man(Cli::command(), command.as_deref()),
    }
}

fn main() -> ExitCode {
    cli::retain_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version go to stdout with exit 0, as clap does.
        Err(e) if !e.use_stderr() => e.exit(),
        // Usage errors (clap's own, exit 2) read like every other error.
        Err(e) => {
            eprint!("dsxor: {}", e.render());
            return ExitCode::from(dsxor::exit::USAGE);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            cli::json_failure(&failure);
            eprintln!("dsxor: error: {:#}", failure.error);
            ExitCode::from(failure.code)
        }
    }
}
