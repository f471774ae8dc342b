//! The `dsxor` command: clap commands and exit codes, nothing else.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `println!`/`print!` that ignore a closed stdout (`dsxor run | head`): the
/// results live in files, and losing display lines must not panic the run.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

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
    Run(RunArgs),
    /// Replay a repro file on the current backend and say whether it still
    /// fails (exit 1) or passes (exit 0); or export its recorded observation
    /// as a dsxor-observation/1 file (--export, runs nothing).
    Repro(ReproArgs),
    /// Combine the results files of the shards of one run (same seed and
    /// parameters) into one; exit 0 passed, 1 failures, 2 refused, 3 a shard
    /// was aborted.
    Merge(MergeArgs),

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
    /// Measure ds_xor_rtn_b64 throughput per access pattern, check every
    /// launch's result, and write results/bench-<UTC>-<backend>-<target>.json.
    /// Exit 1 when a run returned a wrong result, timed out or faulted.
    Bench(BenchArgs),
    /// Render bench records, or conformance results, as an SVG and a
    /// Markdown table; with --fail-below (bench records only), exit 1 when
    /// a run fell below PCT % of its baseline.
    Report(ReportArgs),
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        // ---- isa dispatch ----
        Command::Asm { target, text } => isa_lines(&target, &text, |t, line| {
            dsxor::isa::assemble_line(t, line).map(|l| l.show_encoding())
        }),
        Command::Disasm { target, bytes } => {
            isa_lines(&target, &bytes, dsxor::isa::disassemble_line)
        }

        // ---- codeobj dispatch ----
        Command::Kernels { target } => cmd_kernels(target.as_deref()),
        Command::Inspect { file, target } => cmd_inspect(&file, target.as_deref()),
        // ---- hip / backend dispatch ----
        Command::Info {
            json,
            require_device,
            device,
        } => cmd_info(json, require_device, device),
        // ---- conformance dispatch ----
        Command::Run(args) => cmd_run(args),
        Command::Repro(args) => cmd_repro(args),
        Command::Merge(args) => cmd_merge(args),

        // ---- model / check dispatch ----
        Command::Check {
            file,
            out_of_range_return,
            lds_granule,
            json,
        } => check_file(&file, &out_of_range_return, lds_granule, json),
        // ---- bench / report dispatch ----
        Command::Bench(args) => bench_cmd(args),
        Command::Report(args) => report_cmd(args),
    }
}

// ---- isa handlers ----
/// `asm` / `disasm`: one item from the command line, or one per line from
/// stdin with one answer line per input line. Blank and comment-only lines
/// are echoed as blank lines, so output line N always answers input line N.
fn isa_lines(
    target: &str,
    item: &[String],
    answer: impl Fn(dsxor::isa::Target, &str) -> Result<String, dsxor::isa::IsaError>,
) -> Outcome {
    use std::io::{BufRead, Write};
    let target = dsxor::isa::target(target).map_err(bad_input)?;
    if !item.is_empty() {
        let line = item.join(" ");
        let text = answer(target, &line)
            .map_err(|e| bad_input(anyhow::anyhow!("`{}`: {e}", line.trim())))?;
        writeln!(std::io::stdout(), "{text}")
            .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
        return Ok(dsxor::exit::PASS);
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut items, mut refused) = (0usize, 0usize);
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.map_err(|e| bad_input(anyhow::anyhow!("reading standard input: {e}")))?;
        let trimmed = line.trim();
        let reply = if trimmed.is_empty()
            || trimmed.starts_with(';')
            || trimmed.starts_with("//")
            || trimmed.starts_with('#')
        {
            String::new()
        } else {
            items += 1;
            match answer(target, &line) {
                Ok(text) => text,
                Err(e) => {
                    refused += 1;
                    eprintln!("dsxor: line {}: `{trimmed}`: {e}", n + 1);
                    format!("; refused: {e}")
                }
            }
        };
        writeln!(out, "{reply}")
            .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
    }
    out.flush()
        .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
    if refused > 0 {
        return Err(bad_input(anyhow::anyhow!(
            "{refused} of {items} lines refused for {target} (each named above)"
        )));
    }
    Ok(dsxor::exit::PASS)
}

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
fn cmd_info(json: bool, require_device: bool, device: Option<u32>) -> Outcome {
    use std::io::Write;
    let info = dsxor::hip::info::Info::gather();
    // Write errors (a closed pipe under `| head`) are ignored, as `kernels`
    // does: the exit code still reports the device check below.
    let mut so = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(&info).map_err(environment)?;
        let _ = writeln!(so, "{text}");
    } else {
        let _ = write!(so, "{}", info.render_text());
    }
    if let Some(n) = device {
        use dsxor::backend::Backend;
        let backend = dsxor::backend::hip::HipBackend::open(Some(n)).map_err(environment)?;
        let d = backend.info();
        if !json {
            let _ = writeln!(
                so,
                "device {n} opened: {} ({}), runs {:?}",
                d.name, d.target_id, d.wave_sizes
            );
        }
    } else if require_device && !info.has_usable_device() {
        let reason = info
            .no_device_reason
            .clone()
            .unwrap_or_else(|| "no usable HIP device".to_string());
        return Err(environment(anyhow::anyhow!(reason)));
    }
    Ok(dsxor::exit::PASS)
}

// ---- conformance handlers ----
/// Options of every command that runs conformance kernels.
#[derive(clap::Args, Debug)]
struct DeviceArgs {
    /// auto (a HIP device with a kernel for its target, else the software
    /// device), hip, or emu.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// HIP device ordinal (after HIP_VISIBLE_DEVICES).
    #[arg(long)]
    device: Option<u32>,
    /// Use this code object (ELF or offload bundle with the
    /// dsxor_conformance_off* kernels) instead of the embedded ones.
    #[arg(long)]
    code_object: Option<std::path::PathBuf>,
    /// Software device only: inject a named fault (lost-update, return-new,
    /// ignore-exec, drop-offset1, swap-dwords, low-dword-only).
    #[arg(long)]
    fault: Option<String>,
    /// Software device only: seed of its lane/wave interleaving.
    #[arg(long)]
    interleave_seed: Option<u64>,
    /// A launch not complete after this long is a timeout verdict (e.g. 10s, 500ms).
    #[arg(long, default_value = "10s")]
    timeout: String,
    /// What an out-of-range returning atomic must return (an assumption):
    /// zero, vdst-unchanged or any.
    #[arg(long, default_value = "zero")]
    out_of_range_return: String,
    /// LDS allocation block in bytes (512: LLVM's gfx11 granule; 1024: Mesa's).
    #[arg(long, default_value_t = dsxor::model::policy::LDS_GRANULE_GFX11_LLVM)]
    lds_granule: u32,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    dev: DeviceArgs,
    /// Total cases over every (pattern, wave) cell.
    #[arg(long, default_value_t = dsxor::gen::suite::DEFAULT_CASES)]
    cases: u64,
    /// Seed (decimal or 0x-hex); default: a fresh one, printed and recorded.
    #[arg(long)]
    seed: Option<String>,
    /// Only these patterns (comma-separated or repeated): uniform,
    /// one-address, k-per-address, cross-wave, bank-stride, exec-mask,
    /// offset, alloc-edge, data.
    #[arg(long, value_delimiter = ',')]
    pattern: Vec<String>,
    /// Only these wave sizes: 32, 64.
    #[arg(long, value_delimiter = ',')]
    wave: Vec<String>,
    /// Run shard K of N (1-based): cases with index % N == K-1.
    #[arg(long)]
    shard: Option<String>,
    /// Directory for the results, case stream and repro files.
    #[arg(long, default_value = "results")]
    out: std::path::PathBuf,
    /// Also write JUnit XML here.
    #[arg(long)]
    junit: Option<std::path::PathBuf>,
    /// Opt-in probes that can fault real hardware: misaligned, out-of-range.
    #[arg(long, value_delimiter = ',')]
    probe: Vec<String>,
    /// Time allowed to minimize each failing case (0s: keep it as found).
    #[arg(long, default_value = "20s")]
    minimize_budget: String,
    /// At most this many repro files: the first failure of each kind in each
    /// (pattern, wave) cell is minimized; later ones point to it.
    #[arg(long, default_value_t = 20)]
    max_repros: usize,
    /// Software device only: run cases on this many devices side by side
    /// (default: the host's cores). Records stay in case order; HIP runs
    /// one device.
    #[arg(long)]
    jobs: Option<usize>,
}

#[derive(clap::Args, Debug)]
struct ReproArgs {
    /// A dsxor-repro/1 file.
    file: std::path::PathBuf,
    #[command(flatten)]
    dev: DeviceArgs,
    /// Write the repro's recorded observation (one workgroup) as a
    /// dsxor-observation/1 file here and exit, running nothing.
    #[arg(long)]
    export: Option<std::path::PathBuf>,
    /// Workgroup to export.
    #[arg(long, default_value_t = 0)]
    group: u32,
}

#[derive(clap::Args, Debug)]
struct MergeArgs {
    /// The shards' results files (*.json, not *.cases.jsonl).
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
    /// Where to write the merged results (default: beside the first, `-merged.json`).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Also write JUnit XML here.
    #[arg(long)]
    junit: Option<std::path::PathBuf>,
}

fn parse_duration(flag: &str, text: &str) -> Result<std::time::Duration, Failure> {
    humantime::parse_duration(text)
        .map_err(|e| bad_input(anyhow::anyhow!("--{flag} {text:?}: {e} (e.g. 10s, 500ms)")))
}

fn parse_seed(text: &str) -> Result<u64, Failure> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|e| {
        bad_input(anyhow::anyhow!(
            "--seed {text:?}: {e} (decimal or 0x-hex u64)"
        ))
    })
}

fn policy_of(dev: &DeviceArgs) -> Result<dsxor::model::Policy, Failure> {
    use dsxor::model::{OutOfRangeReturn, Policy};
    let out_of_range_return =
        OutOfRangeReturn::parse(&dev.out_of_range_return).ok_or_else(|| {
            bad_input(anyhow::anyhow!(
                "--out-of-range-return {:?}: expected zero, vdst-unchanged or any",
                dev.out_of_range_return
            ))
        })?;
    if !dev.lds_granule.is_power_of_two() {
        return Err(bad_input(anyhow::anyhow!(
            "--lds-granule {}: expected a power of two",
            dev.lds_granule
        )));
    }
    Ok(Policy {
        lds_granule: dev.lds_granule,
        out_of_range_return,
    })
}

fn device_request(
    dev: &DeviceArgs,
    waves: Vec<dsxor::case::WaveSize>,
) -> Result<dsxor::suite::device::DeviceRequest, Failure> {
    use dsxor::backend::select::BackendChoice;
    let choice = BackendChoice::parse(&dev.backend).ok_or_else(|| {
        bad_input(anyhow::anyhow!(
            "--backend {:?}: expected auto, hip or emu",
            dev.backend
        ))
    })?;
    let fault = match &dev.fault {
        None => None,
        Some(name) => Some(name.parse::<dsxor::emu::Fault>().map_err(bad_input)?),
    };
    Ok(dsxor::suite::device::DeviceRequest {
        choice,
        device: dev.device,
        waves,
        code_object: dev.code_object.clone(),
        fault,
        interleave_seed: dev.interleave_seed,
        timeout: parse_duration("timeout", &dev.timeout)?,
        lds_granule: dev.lds_granule,
    })
}

fn open_device(
    req: &dsxor::suite::device::DeviceRequest,
) -> Result<dsxor::suite::device::Opened, Failure> {
    use dsxor::suite::device::OpenError;
    let opened = dsxor::suite::device::open(req).map_err(|e| match e {
        OpenError::Usage(m) => bad_input(anyhow::anyhow!(m)),
        OpenError::Environment(m) => environment(anyhow::anyhow!(m)),
    })?;
    // The one-line notice: which device and why (auto's fallback included).
    eprintln!("dsxor: backend: {}", opened.selection.reason);
    Ok(opened)
}

fn cmd_run(args: RunArgs) -> Outcome {
    use dsxor::gen::suite::{parse_pattern, parse_probe, parse_wave, SuiteSpec};
    use dsxor::gen::Shard;
    let patterns = args
        .pattern
        .iter()
        .map(|p| parse_pattern(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let probes = args
        .probe
        .iter()
        .map(|p| parse_probe(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let waves = args
        .wave
        .iter()
        .map(|w| parse_wave(w))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_input)?;
    let shard = match &args.shard {
        Some(s) => Shard::parse(s).map_err(bad_input)?,
        None => Shard::WHOLE,
    };
    let seed = match &args.seed {
        Some(s) => parse_seed(s)?,
        None => rand::random::<u64>(),
    };
    let policy = policy_of(&args.dev)?;
    let minimize_time = parse_duration("minimize-budget", &args.minimize_budget)?;
    let req = device_request(&args.dev, waves)?;
    let mut opened = open_device(&req)?;
    // The device decides the wave sizes (the request ∩ what it and the kernels offer).
    let spec = SuiteSpec::new(
        seed,
        args.cases,
        &patterns,
        &probes,
        &opened.selection.waves,
        shard,
    )
    .map_err(bad_input)?;
    let opts = dsxor::suite::run::RunOptions {
        spec,
        out_dir: args.out.clone(),
        junit: args.junit.clone(),
        minimize: dsxor::gen::minimize::Budget {
            time: minimize_time,
            ..Default::default()
        },
        max_repros: args.max_repros,
        parameters: dsxor::report::results::Parameters {
            timeout_ms: req.timeout.as_millis() as u64,
            minimize_budget_ms: minimize_time.as_millis() as u64,
            fault: req.fault.map(|f| f.name().to_string()),
            interleave_seed: req.interleave_seed,
            policy: policy.describe(),
        },
        selection: opened.selection.reason.clone(),
        interactive: None,
    };
    let judge = dsxor::suite::judge::ModelJudge::new(policy);
    if args.jobs == Some(0) {
        return Err(bad_input(anyhow::anyhow!("--jobs 0: expected at least 1")));
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    // One job: the opened device runs everything (no worker threads).
    let devices = if jobs > 1 {
        opened.emu_workers(jobs).map_err(|e| match e {
            dsxor::suite::device::OpenError::Usage(m) => bad_input(anyhow::anyhow!(m)),
            dsxor::suite::device::OpenError::Environment(m) => environment(anyhow::anyhow!(m)),
        })?
    } else {
        Vec::new()
    };
    if !devices.is_empty() {
        eprintln!(
            "dsxor: running cases on {} software devices side by side",
            devices.len()
        );
    }
    let workers: Vec<dsxor::suite::run::Worker> = devices
        .into_iter()
        .map(|d| {
            (
                d,
                Box::new(dsxor::suite::judge::ModelJudge::new(policy))
                    as Box<dyn dsxor::suite::Judge + Send>,
            )
        })
        .collect();
    let out = dsxor::suite::run::run_suite_with(opened.device.as_mut(), &judge, &opts, workers)
        .map_err(|e| {
            bad_input(anyhow::anyhow!(e).context(format!("--out {}", args.out.display())))
        })?;
    if let Some(reason) = &out.results.abort_reason {
        eprintln!("dsxor: run aborted: {reason}");
    }
    Ok(out.exit_code)
}

fn cmd_repro(args: ReproArgs) -> Outcome {
    use dsxor::backend::conformance::DeviceOutcome;
    let repro = dsxor::suite::repro::Repro::read(&args.file).map_err(bad_input)?;
    outln!(
        "repro {}: {} (seed {}, case {}/{} wave{} #{}), recorded on {} ({}): {}",
        args.file.display(),
        repro.failure.kind,
        repro.seed,
        repro.case_id.pattern,
        repro.variant,
        repro.case_id.wave.lanes(),
        repro.case_id.ordinal,
        repro.device.name,
        repro.device.target_id,
        repro.failure.summary
    );
    if let Some(path) = &args.export {
        let file = repro.to_observation(args.group).map_err(bad_input)?;
        let mut text = file.to_json();
        text.push('\n');
        dsxor::report::results::write_text_atomic(path, &text).map_err(bad_input)?;
        outln!(
            "exported group {} as dsxor-observation/1: {}",
            args.group,
            path.display()
        );
        return Ok(dsxor::exit::PASS);
    }
    let policy = policy_of(&args.dev)?;
    let req = device_request(&args.dev, vec![repro.case.geometry.wave_size])?;
    let mut opened = open_device(&req)?;
    let judge = dsxor::suite::judge::ModelJudge::new(policy);
    let replayed =
        dsxor::suite::run::replay(opened.device.as_mut(), &judge, &repro).map_err(|e| match e {
            dsxor::suite::run::ReplayError::Backend(dsxor::backend::BackendError::Invalid(m)) => {
                bad_input(anyhow::anyhow!(m))
            }
            dsxor::suite::run::ReplayError::Backend(b) => environment(b),
            dsxor::suite::run::ReplayError::Judge(j) => bad_input(j),
        })?;
    if let Some(k) = &replayed.kernel {
        if k.code_object_sha256 != repro.kernel.code_object_sha256 {
            outln!(
                "note: kernel code object differs from the recorded one ({} vs {})",
                k.code_object_sha256,
                repro.kernel.code_object_sha256
            );
        }
    }
    let j = &replayed.judgement;
    let what = match &replayed.outcome {
        DeviceOutcome::Completed { .. } => "completed".to_string(),
        DeviceOutcome::Fault { message } => format!("faulted: {message}"),
        DeviceOutcome::Timeout { message } => format!("timed out: {message}"),
    };
    outln!("replayed on {}: the device {what}", opened.selection.reason);
    if j.passed {
        outln!("PASSES now: {}", j.explanation);
        Ok(dsxor::exit::PASS)
    } else {
        let same = j.kind.as_deref() == Some(repro.failure.kind.as_str());
        outln!(
            "STILL FAILS ({}{}): {}",
            j.kind.as_deref().unwrap_or("unknown"),
            if same {
                ", as recorded"
            } else {
                ", differently from the record"
            },
            j.explanation
        );
        Ok(dsxor::exit::FAIL)
    }
}

fn cmd_merge(args: MergeArgs) -> Outcome {
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
    dsxor::report::results::write_atomic(&out, &merged).map_err(bad_input)?;
    if let Some(j) = &args.junit {
        dsxor::report::junit::write_junit(j, &merged).map_err(bad_input)?;
    }
    out!("{}", dsxor::report::console::summary_table(&merged));
    outln!("merged {} shards: {}", args.files.len(), out.display());
    Ok(match merged.status {
        Status::Passed => dsxor::exit::PASS,
        Status::Failed => dsxor::exit::FAIL,
        Status::Aborted => dsxor::exit::ENVIRONMENT,
    })
}

// ---- model / check handlers ----
fn check_file(file: &std::path::Path, oor: &str, lds_granule: u32, json: bool) -> Outcome {
    use dsxor::model::{OutOfRangeReturn, Policy};
    let out_of_range_return = OutOfRangeReturn::parse(oor).ok_or_else(|| {
        bad_input(anyhow::anyhow!(
            "--out-of-range-return {oor:?}: expected zero, vdst-unchanged or any"
        ))
    })?;
    let policy = Policy {
        lds_granule,
        out_of_range_return,
    };
    policy
        .validate()
        .map_err(|e| bad_input(anyhow::anyhow!("--lds-granule: {e}")))?;
    let obs = dsxor::check::file::ObservationFile::read(file).map_err(bad_input)?;
    let verdict = obs.judge(&policy).map_err(bad_input)?;
    if json {
        let text = serde_json::to_string_pretty(&verdict).map_err(bad_input)?;
        outln!("{text}");
    } else {
        outln!("{}: {}", file.display(), verdict.explain());
    }
    Ok(if verdict.passed() {
        dsxor::exit::PASS
    } else {
        dsxor::exit::FAIL
    })
}

// ---- bench / report handlers ----
#[derive(clap::Args)]
struct BenchArgs {
    /// Device: `auto` (a HIP GPU with kernels for its target, else the
    /// software device), `hip` or `emu`.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// HIP device index (with --backend hip or auto).
    #[arg(long)]
    device: Option<u32>,
    /// CI-sized runs: 1 workgroup of 64 lanes per CU, 31/32 instructions per
    /// lane, 1 warm-up + 5 timed launches (full: 4 x 256 lanes per CU,
    /// 1023/1024 instructions, 3 + 30 launches).
    #[arg(long)]
    quick: bool,
    /// Directory of the record (created when missing).
    #[arg(long, value_name = "DIR", default_value = "results")]
    out: std::path::PathBuf,
    /// Timed launches per run.
    #[arg(long)]
    reps: Option<u32>,
    /// Checked but untimed launches before the timed ones.
    #[arg(long)]
    warmup: Option<u32>,
    /// Instructions per lane of the independent chain (a multiple of 4; 4 mod
    /// 8 for a strong check, else its expected values are all 0 and the
    /// record says "weak"); the dependent chain runs one fewer (3 mod 4).
    #[arg(long)]
    iters: Option<u32>,
    /// Workgroups per CU of the pattern runs.
    #[arg(long, value_name = "N")]
    workgroups_per_cu: Option<u32>,
    /// Lanes per workgroup of the pattern runs (a multiple of 64, up to 1024).
    #[arg(long, value_name = "N")]
    lanes_per_group: Option<u32>,
    /// Seed of the DATA values.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only runs whose name contains this (`one-address`, `wave64`, `occupancy`).
    #[arg(long, value_name = "SUBSTR")]
    filter: Option<String>,
    /// Wave sizes to run (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "32,64")]
    waves: Vec<u32>,
    /// Per-launch budget in seconds: a launch still running then is a timeout.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Software device only: inject a named misbehaviour (to see the check
    /// refuse the rate of a wrong result).
    #[arg(long, value_name = "NAME")]
    fault: Option<String>,
}

fn bench_cmd(args: BenchArgs) -> Outcome {
    use dsxor::backend::select::{select, BackendChoice, HipView};
    use dsxor::backend::{emu::EmuBackend, hip::HipBackend, Backend, BackendError};
    use dsxor::bench::run::Provenance;
    use dsxor::bench::{run_bench, KernelObject, Settings};
    use dsxor::case::WaveSize;
    use dsxor::codeobj::embedded::find_embedded;
    use dsxor::report::bench_record::Rate;
    use dsxor::report::svg::si;

    let choice = BackendChoice::parse(&args.backend).ok_or_else(|| {
        bad_input(anyhow::anyhow!(
            "--backend must be auto, hip or emu, not `{}`",
            args.backend
        ))
    })?;
    let waves = args
        .waves
        .iter()
        .map(|&w| {
            WaveSize::from_lanes(w)
                .ok_or_else(|| bad_input(anyhow::anyhow!("--waves: {w} is not 32 or 64")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let fault = match &args.fault {
        Some(name) => Some(name.parse::<dsxor::emu::Fault>().map_err(bad_input)?),
        None => None,
    };
    if fault.is_some() && choice != BackendChoice::Emu {
        return Err(bad_input(anyhow::anyhow!("--fault needs --backend emu")));
    }
    let mut settings = Settings::new(args.quick);
    settings.seed = args.seed;
    if let Some(r) = args.reps {
        settings.reps = r;
    }
    if let Some(w) = args.warmup {
        settings.warmup = w;
    }
    if let Some(i) = args.iters {
        if i < 4 || i % 4 != 0 {
            return Err(bad_input(anyhow::anyhow!(
                "--iters must be a positive multiple of 4, not {i}"
            )));
        }
        settings.iters_indep = i;
        settings.iters_dep = i - 1;
    }
    if let Some(n) = args.workgroups_per_cu {
        settings.workgroups_per_cu = n;
    }
    if let Some(n) = args.lanes_per_group {
        settings.lanes_per_group = n;
    }
    settings.filter = args.filter.clone();
    settings.validate().map_err(bad_input)?;

    // Probe HIP once (unless the software device was asked for), select.
    let probe = (choice != BackendChoice::Emu).then(dsxor::hip::probe);
    let view = probe.as_ref().map(HipView::from_probe);
    let selection = select(choice, view.as_ref(), &waves, args.device, |p, w| {
        find_embedded(p, w).is_some()
    })
    .map_err(environment)?;
    eprintln!("dsxor: {}", selection.reason);
    let backend_err = |e: BackendError| match e {
        BackendError::Invalid(_) => bad_input(e),
        _ => environment(e),
    };
    let mut backend: Box<dyn Backend> = match (selection.hip_device, &probe) {
        (Some(index), Some(Ok(report))) => {
            Box::new(HipBackend::from_report(report, Some(index)).map_err(backend_err)?)
        }
        (Some(index), _) => Box::new(HipBackend::open(Some(index)).map_err(backend_err)?),
        (None, _) => Box::new(
            EmuBackend::new(dsxor::emu::EmuConfig {
                fault,
                ..Default::default()
            })
            .map_err(backend_err)?,
        ),
    };
    let objects: Vec<KernelObject> = selection
        .waves
        .iter()
        .filter_map(|&w| find_embedded(&selection.target, w))
        .map(|o| KernelObject {
            target: o.target.to_string(),
            wave: o.wave,
            origin: o.origin.name().to_string(),
            source: format!("embedded:{}", o.file_name),
            compiler: Some(o.compiler.to_string()),
            bytes: o.bytes,
        })
        .collect();
    settings.waves = objects.iter().map(|o| o.wave).collect();
    let emulated = backend.info().backend == dsxor::backend::BackendKind::Emu;
    let unit = if emulated {
        "emulated lane-ops/s"
    } else {
        "lane-ops/s"
    };
    outln!(
        "{}",
        if emulated {
            "rates: EMULATED lane-operations per second, the software device's own speed on this host, not a GPU figure"
        } else {
            "rates: ds_xor_rtn_b64 lane-operations per second on the GPU (HIP event time per launch)"
        }
    );
    let provenance = Provenance {
        command: std::env::args().collect(),
        selection: selection.reason.clone(),
        timeout: Some(std::time::Duration::from_secs(args.timeout.max(1))),
    };
    let record = run_bench(
        backend.as_mut(),
        &objects,
        &settings,
        &provenance,
        &mut |run| {
            let rate = match run.lane_ops_per_second {
                Some(Rate { median, min, max }) => format!(
                    "{} {unit} (min {}, max {}){}",
                    si(median),
                    si(min),
                    si(max),
                    run.fraction_of_ceiling
                        .map(|f| format!(", {} of ceiling", dsxor::report::svg::percent(f)))
                        .unwrap_or_default()
                ),
                None => format!(
                    "{}: no rate counted ({})",
                    run.outcome.to_uppercase(),
                    run.error.as_deref().unwrap_or("")
                ),
            };
            outln!("{:<44} {rate}", run.name);
        },
    )
    .map_err(|e| {
        if e.is_environment() {
            environment(e)
        } else {
            bad_input(e)
        }
    })?;
    match &record.ceiling {
        Some(c) => outln!(
            "ceiling: {} lane-ops/s = {} CUs x {} kHz x {} lanes/clock/CU\n  {}\n  sources: {}",
            si(c.lane_ops_per_second),
            c.compute_units,
            c.clock_khz,
            c.lanes_per_clock_per_cu,
            c.formula,
            c.sources.join("; ")
        ),
        None => outln!(
            "ceiling: none ({})",
            record.no_ceiling_reason.as_deref().unwrap_or("unknown")
        ),
    }
    for s in &record.skipped {
        outln!("skipped {}: {}", s.name, s.reason);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| environment(anyhow::anyhow!("cannot create {}: {e}", args.out.display())))?;
    let path = args.out.join(record.file_name());
    record.save(&path).map_err(environment)?;
    let failed = record.runs.iter().filter(|r| r.outcome != "pass").count();
    outln!(
        "{} runs, {} passed their check, {failed} failed; record: {}",
        record.runs.len(),
        record.runs.len() - failed,
        path.display()
    );
    Ok(if record.all_passed {
        dsxor::exit::PASS
    } else {
        dsxor::exit::FAIL
    })
}
#[derive(clap::Args)]
struct ReportArgs {
    /// Bench records (`dsxor-bench/1` JSON) or conformance results
    /// (`dsxor-results/1`, the final .json of `dsxor run`), one kind per
    /// call; the newest is the current run, the others make the trend.
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

/// A file given to `dsxor report`, told apart by its `format` field.
enum ReportInput {
    Bench(dsxor::report::bench_record::BenchRecord),
    Conformance(dsxor::report::results::Results),
}

fn report_input(path: &std::path::Path) -> Result<ReportInput, Failure> {
    use dsxor::report::bench_record::{BenchRecord, BENCH_FORMAT};
    use dsxor::report::results::{Results, RESULTS_FORMAT};
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad_input(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        bad_input(anyhow::anyhow!(
            "{} is not a JSON bench record or conformance results file: {e}",
            path.display()
        ))
    })?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(BENCH_FORMAT) => Ok(ReportInput::Bench(
            BenchRecord::from_json(&text, path).map_err(bad_input)?,
        )),
        Some(RESULTS_FORMAT) => Ok(ReportInput::Conformance(
            Results::read(path).map_err(bad_input)?,
        )),
        other => Err(bad_input(anyhow::anyhow!(
            "{}: {}; dsxor report reads `{BENCH_FORMAT}` (dsxor bench) and `{RESULTS_FORMAT}` \
             (the final .json of dsxor run, not its .cases.jsonl)",
            path.display(),
            match other {
                Some(f) => format!("format `{f}`"),
                None => "no string `format` field".into(),
            }
        ))),
    }
}

/// Write `text` to `path`, or say why not (exit 3).
fn write_report_file(path: &std::path::Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| environment(anyhow::anyhow!("cannot write {}: {e}", path.display())))?;
    eprintln!("dsxor: wrote {}", path.display());
    Ok(())
}

fn report_cmd(args: ReportArgs) -> Outcome {
    use dsxor::report::bench_record::{compare, BenchRecord, Verdict};
    use dsxor::report::{markdown, svg};

    let mut records = Vec::new();
    let mut conformance = Vec::new();
    for path in &args.files {
        match report_input(path)? {
            ReportInput::Bench(r) => records.push((path, r)),
            ReportInput::Conformance(r) => conformance.push((path, r)),
        }
    }
    // Policy: one kind per call. One --svg/--markdown path holds one
    // picture and one summary; a mixed call would also leave unclear what
    // --fail-below judges.
    if let (Some((b, _)), Some((c, _))) = (records.first(), conformance.first()) {
        return Err(bad_input(anyhow::anyhow!(
            "{} is a bench record and {} a conformance results file: dsxor report renders one \
             kind per call; run it once for the bench records and once for the results files",
            b.display(),
            c.display()
        )));
    }
    if !conformance.is_empty() {
        if args.fail_below.is_some() {
            return Err(bad_input(anyhow::anyhow!(
                "--fail-below compares bench records; the files given are conformance results \
                 (their failures are in the report and in dsxor run's exit code)"
            )));
        }
        let results: Vec<_> = conformance.into_iter().map(|(_, r)| r).collect();
        if let Some(path) = &args.svg {
            let picture = svg::render_conformance(&results).map_err(bad_input)?;
            write_report_file(path, &picture)?;
        }
        let md = markdown::render_conformance(&results);
        match &args.markdown {
            Some(path) => write_report_file(path, &md)?,
            None => out!("{md}"),
        }
        return Ok(dsxor::exit::PASS);
    }
    let records: Vec<BenchRecord> = records.into_iter().map(|(_, r)| r).collect();
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
        None => out!("{md}"),
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
