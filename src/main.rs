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
    /// Render bench records as an SVG and a Markdown table; with
    /// --fail-below, exit 1 when a run fell below PCT % of its baseline.
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
        println!("{text}");
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
    let info = dsxor::hip::info::Info::gather();
    if json {
        let text = serde_json::to_string_pretty(&info).map_err(environment)?;
        println!("{text}");
    } else {
        print!("{}", info.render_text());
    }
    if let Some(n) = device {
        use dsxor::backend::Backend;
        let backend = dsxor::backend::hip::HipBackend::open(Some(n)).map_err(environment)?;
        let d = backend.info();
        if !json {
            println!(
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
    /// Instructions per lane of the independent chain (a multiple of 4); the
    /// dependent chain runs one fewer (so its count is 3 mod 4).
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
    println!(
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
            println!("{:<44} {rate}", run.name);
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
        Some(c) => println!(
            "ceiling: {} lane-ops/s = {} CUs x {} kHz x {} lanes/clock/CU\n  {}\n  sources: {}",
            si(c.lane_ops_per_second),
            c.compute_units,
            c.clock_khz,
            c.lanes_per_clock_per_cu,
            c.formula,
            c.sources.join("; ")
        ),
        None => println!(
            "ceiling: none ({})",
            record.no_ceiling_reason.as_deref().unwrap_or("unknown")
        ),
    }
    for s in &record.skipped {
        println!("skipped {}: {}", s.name, s.reason);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| environment(anyhow::anyhow!("cannot create {}: {e}", args.out.display())))?;
    let path = args.out.join(record.file_name());
    record.save(&path).map_err(environment)?;
    let failed = record.runs.iter().filter(|r| r.outcome != "pass").count();
    println!(
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
