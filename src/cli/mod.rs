//! Command bodies of the `dsxor` binary, one module per command; `main.rs`
//! parses and maps outcomes to exit codes. Shared here: the failure type
//! with its exit code, display macros, and the device options of every
//! command that runs kernels.

/// `println!`/`print!` that ignore a closed stdout (`dsxor run | head`): the
/// results live in files, and losing display lines must not panic the run.
macro_rules! outln {
    ($($arg:tt)*) => {{
        dsxor::report::console::stdout_line(&format!($($arg)*));
    }};
}
macro_rules! out {
    ($($arg:tt)*) => {{
        dsxor::report::console::stdout_text(&format!($($arg)*));
    }};
}

/// glibc malloc's mmap threshold under policy `host-malloc-retain`: a
/// block this large or larger is still mapped on its own and unmapped when
/// freed. Above every per-case buffer of the default run (measured: 4 MiB
/// and 32 MiB cut its page faults alike, 1 MiB did not for the worker).
const MMAP_THRESHOLD: i32 = 4 << 20;
/// ... and its trim threshold: twice the mmap threshold, the ratio glibc's
/// own dynamic adjustment keeps (mallopt(3), `M_MMAP_THRESHOLD`), so at
/// most 8 MiB of free heap top is kept.
const TRIM_THRESHOLD: i32 = 8 << 20;

/// Policy `host-malloc-retain` (docs/src/reference/policies.md): freed
/// memory is kept for the next case rather than handed back to the kernel.
/// glibc serves a block from 128 KiB up with its own `mmap` and returns it
/// on `free`, raising that threshold only as such blocks are freed, and
/// trims the heap's top past 128 KiB (mallopt(3), `M_MMAP_THRESHOLD`,
/// `M_TRIM_THRESHOLD`). A run allocates and frees a case's buffers, some
/// of hundreds of KiB, thousands of times, so each came back as fresh pages
/// to fault in and zero: about a tenth of the parent's CPU and a sixth of
/// the worker's on the GPU path (docs/src/internals/performance.md). Setting both
/// thresholds fixes them (an explicit `mallopt` turns the dynamic threshold
/// off). Left to glibc when the user sets `GLIBC_TUNABLES`, and on other C
/// libraries.
pub(crate) fn retain_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("GLIBC_TUNABLES").is_none() {
        // SAFETY: mallopt only sets two of malloc's parameters; called
        // first thing in `main`, before any other thread exists. A refused
        // value (mallopt returns 0) leaves glibc's default: slower, never
        // wrong.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        }
    }
}

/// An error with the exit code it stands for (`dsxor::exit`, docs/src/reference/exit-codes.md: 2 bad usage or
/// input, 3 environment).
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) error: anyhow::Error,
}

pub(crate) fn bad_input(error: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: dsxor::exit::USAGE,
        error: error.into(),
    }
}

pub(crate) fn environment(error: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: dsxor::exit::ENVIRONMENT,
        error: error.into(),
    }
}

/// A whole-file write that failed: the path refused by the output-path
/// policy is the user's (2), a write failing on an accepted path the
/// machine's (3, a full disk).
pub(crate) fn unwritten(e: dsxor::report::results::ResultsError) -> Failure {
    if e.is_refusal() {
        bad_input(e)
    } else {
        environment(e)
    }
}

/// A command's outcome: Ok(exit code 0 or 1) or a failure with its code.
pub(crate) type Outcome = Result<u8, Failure>;

/// The format tag of the `--json` document this process prints, once a
/// command asked for one ([`json_mode`]).
static JSON_FORMAT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// `--json`: standard output carries exactly one JSON document with this
/// format tag (`dsxor-run/1`, ...); display text goes to standard error.
/// A command that fails after this still prints one ([`json_failure`]).
pub(crate) fn json_mode(format: &'static str) {
    let _ = JSON_FORMAT.set(format);
    dsxor::report::console::reserve_stdout_for_machine();
}

/// Print the `--json` document: the format tag, the verdict as a word, the
/// exit code, then `fields` (an object).
pub(crate) fn print_json(verdict: &str, exit_code: u8, fields: serde_json::Value) {
    let mut doc = serde_json::Map::new();
    doc.insert(
        "format".into(),
        JSON_FORMAT.get().copied().unwrap_or("dsxor/1").into(),
    );
    doc.insert("verdict".into(), verdict.into());
    doc.insert("exit_code".into(), exit_code.into());
    if let serde_json::Value::Object(f) = fields {
        doc.extend(f);
    }
    // A Value always serializes.
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(doc)).unwrap_or_default();
    dsxor::report::console::machine_text(&format!("{text}\n"));
}

/// Under `--json`, the document of a command that failed (bad input 2,
/// environment 3, or conformance failures whose results could not be
/// written 1): verdict `error`, the exit code and the message. Nothing
/// without `--json`.
pub(crate) fn json_failure(failure: &Failure) {
    if JSON_FORMAT.get().is_some() {
        print_json(
            "error",
            failure.code,
            serde_json::json!({ "error": format!("{:#}", failure.error) }),
        );
    }
}

pub(crate) mod bench;
pub(crate) mod check;
pub(crate) mod codeobj;
pub(crate) mod fleet;
pub(crate) mod gate;
pub(crate) mod info;
pub(crate) mod isa;
pub(crate) mod merge;
pub(crate) mod mutate;
pub(crate) mod package;
pub(crate) mod qualify;
pub(crate) mod report;
pub(crate) mod repro;
pub(crate) mod run;
pub(crate) mod soak;
pub(crate) mod worker;

/// Options of every command that runs conformance kernels.
#[derive(clap::Args, Debug)]
pub(crate) struct DeviceArgs {
    /// Refuse to run anywhere but on a GPU: the software device and a
    /// simulated HIP device exit 3.
    #[arg(long, env = "DSXOR_REQUIRE_GPU", value_parser = clap::builder::BoolishValueParser::new())]
    pub(crate) require_gpu: bool,
    /// auto: a HIP device with a kernel for its target; the software device
    /// only when no GPU and no /dev/kfd is present (a GPU dsxor cannot use
    /// exits 3).
    #[arg(long, value_enum, env = "DSXOR_BACKEND", default_value_t = BackendArg::Auto)]
    pub(crate) backend: BackendArg,
    /// HIP device ordinal (after HIP_VISIBLE_DEVICES).
    #[arg(long)]
    pub(crate) device: Option<u32>,
    /// Use this code object (ELF or offload bundle with the
    /// dsxor_conformance_off* kernels) instead of the embedded ones.
    #[arg(long)]
    pub(crate) code_object: Option<std::path::PathBuf>,
    /// Run a --code-object whose conformance kernels hold another
    /// instruction at their ds_xor_rtn_b64 site (a deliberate mutant, to
    /// show the checks catch a wrong instruction); refused without it.
    #[arg(long, requires = "code_object")]
    pub(crate) allow_mutant: bool,
    /// Software device only: inject a fault, NAME[:RATE][@COND[,COND]]
    /// (e.g. torn:1e-4@cross-wave); `--help` lists names and conditions.
    #[arg(long, value_name = "NAME[:RATE][@COND]", long_help = dsxor::emu::FaultSpec::help())]
    pub(crate) fault: Option<String>,
    /// Software device only: seed of its lane/wave interleaving.
    #[arg(long)]
    pub(crate) interleave_seed: Option<u64>,
    /// A launch not complete after this long is a timeout verdict (e.g. 10s,
    /// 500ms; a bare number is seconds); 100ms to 1 day.
    #[arg(long, default_value = "10s", value_parser = timeout_value)]
    pub(crate) timeout: std::time::Duration,
    /// What an out-of-range returning atomic must return (an assumption).
    #[arg(long, value_enum, default_value_t = OutOfRangeArg::Zero)]
    pub(crate) out_of_range_return: OutOfRangeArg,
    /// LDS allocation block in bytes (512: LLVM's gfx11 granule; 1024: Mesa's).
    #[arg(long, default_value_t = dsxor::model::policy::LDS_GRANULE_GFX11_LLVM)]
    pub(crate) lds_granule: u32,
    /// Software device only: do not check a --code-object kernel for
    /// hazards (a register read before the s_waitcnt of the memory
    /// instruction writing it), which is on by default for user code objects.
    #[arg(long)]
    pub(crate) no_hazard_check: bool,
}

/// A duration flag: humantime (`10s`, `500ms`, `2m`), or a bare number of
/// seconds (what `bench --timeout` took before it was spelled as `run`'s).
pub(crate) fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    if let Ok(secs) = text.trim().parse::<u64>() {
        return Ok(std::time::Duration::from_secs(secs));
    }
    humantime::parse_duration(text).map_err(|e| format!("{e} (e.g. 10s, 500ms)"))
}

/// Policy: the longest value of any duration flag, one day. No launch or
/// minimization of a case is meant to take longer, and deadlines are
/// `Instant::now() + duration`, which overflows (a panic) for values near
/// `u64::MAX` seconds: those are refused at parse time, exit 2.
pub(crate) const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// A duration in `[min, MAX_DURATION]`.
fn duration_in(text: &str, min: std::time::Duration) -> Result<std::time::Duration, String> {
    let d = parse_duration(text)?;
    if d > MAX_DURATION {
        return Err(format!(
            "over the one-day limit ({} s)",
            MAX_DURATION.as_secs()
        ));
    }
    if d < min {
        return Err(format!(
            "below the {} ms floor, every launch would be judged a timeout",
            min.as_millis()
        ));
    }
    Ok(d)
}

/// The shortest `--timeout` accepted. Policy (no source fixes it): a
/// launch of the smallest case takes about a millisecond on the software
/// device and tens of microseconds plus the runtime's launch latency on a
/// GPU, so anything under 100 ms would turn healthy launches into timeout
/// *conformance failures* (`--timeout 0s`/`1ns` did, for every case).
pub(crate) const MIN_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(100);

/// clap value parser of every `--timeout`: [`MIN_TIMEOUT`, `MAX_DURATION`].
pub(crate) fn timeout_value(text: &str) -> Result<std::time::Duration, String> {
    duration_in(text, MIN_TIMEOUT)
}

/// clap value parser of `--minimize-budget`: [0, `MAX_DURATION`] (0: keep
/// a failing case as found).
pub(crate) fn budget_value(text: &str) -> Result<std::time::Duration, String> {
    duration_in(text, std::time::Duration::ZERO)
}

/// Policy: the most `--jobs` (software devices or HIP worker processes side
/// by side). Software-device jobs are capped at the host's cores anyway;
/// HIP jobs share the visible devices round robin, and 256 covers a node of
/// 8 GPUs at 32 workers each; more only costs processes and memory.
pub(crate) const MAX_JOBS: usize = 256;

/// clap value parser of every `--jobs`: 1 to [`MAX_JOBS`].
pub(crate) fn jobs_value(text: &str) -> Result<usize, String> {
    count_in(text, 1, MAX_JOBS)
}

/// A whole number in `[min, max]`, clap's message style.
pub(crate) fn count_in(text: &str, min: usize, max: usize) -> Result<usize, String> {
    let n: usize = text.trim().parse().map_err(|e| format!("{e}"))?;
    if !(min..=max).contains(&n) {
        return Err(format!("{n} is not in {min}..={max}"));
    }
    Ok(n)
}

pub(crate) fn parse_seed(text: &str) -> Result<u64, Failure> {
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

pub(crate) fn policy_of(dev: &DeviceArgs) -> Result<dsxor::model::Policy, Failure> {
    policy(dev.out_of_range_return, dev.lds_granule)
}

/// The model policy the flags choose (`run`, `repro`, `check`).
pub(crate) fn policy(
    out_of_range_return: OutOfRangeArg,
    lds_granule: u32,
) -> Result<dsxor::model::Policy, Failure> {
    // Policy: a granule above the 64 KiB a gfx11 workgroup can allocate
    // (RDNA3 ISA guide, "Local Data Share": 64 KB per workgroup) rounds
    // every allocation to more LDS than exists; refused like a non-power.
    if !lds_granule.is_power_of_two() || lds_granule > 65536 {
        return Err(bad_input(anyhow::anyhow!(
            "--lds-granule {lds_granule}: expected a power of two up to 65536 (64 KiB)"
        )));
    }
    Ok(dsxor::model::Policy {
        lds_granule,
        out_of_range_return: out_of_range_return.into(),
    })
}

pub(crate) fn device_request(
    dev: &DeviceArgs,
    waves: Vec<dsxor::case::WaveSize>,
) -> Result<dsxor::suite::device::DeviceRequest, Failure> {
    let choice = dev.backend.into();
    let fault = match &dev.fault {
        None => None,
        Some(name) => Some(name.parse::<dsxor::emu::FaultSpec>().map_err(bad_input)?),
    };
    Ok(dsxor::suite::device::DeviceRequest {
        choice,
        device: dev.device,
        waves,
        code_object: dev.code_object.clone(),
        fault,
        interleave_seed: dev.interleave_seed,
        timeout: dev.timeout,
        lds_granule: dev.lds_granule,
        // HIP cases run in worker processes of this binary (suite::worker).
        worker_exe: std::env::current_exe().ok(),
        require_gpu: dev.require_gpu,
        hazard_check: dev.code_object.is_some() && !dev.no_hazard_check,
        allow_mutant: dev.allow_mutant,
        batch: dsxor::backend::conformance::DEFAULT_BATCH,
    })
}

pub(crate) fn open_device(
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

// ---- flags that name a fixed set (clap lists the values in --help and
// suggests the nearest on a typo); each maps onto the library's own type,
// which stays free of clap ----

/// `--backend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum BackendArg {
    /// A HIP device with a kernel for its target, else the software device.
    Auto,
    /// A HIP device (exit 3 without a usable one).
    Hip,
    /// The software device (RDNA3 interpreter).
    Emu,
}

impl From<BackendArg> for dsxor::backend::select::BackendChoice {
    fn from(b: BackendArg) -> Self {
        use dsxor::backend::select::BackendChoice;
        match b {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Hip => BackendChoice::Hip,
            BackendArg::Emu => BackendChoice::Emu,
        }
    }
}

/// `--wave` (of `run` and `bench`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum WaveArg {
    #[value(name = "32", alias = "wave32")]
    W32,
    #[value(name = "64", alias = "wave64")]
    W64,
}

impl From<WaveArg> for dsxor::case::WaveSize {
    fn from(w: WaveArg) -> Self {
        match w {
            WaveArg::W32 => dsxor::case::WaveSize::Wave32,
            WaveArg::W64 => dsxor::case::WaveSize::Wave64,
        }
    }
}

/// `--mode`: the wavefront execution mode of the conformance objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ModeArg {
    /// CU mode (`-mcumode`): a workgroup's waves share one CU.
    Cu,
    /// WGP mode (the compiler's default on gfx10+): a workgroup's waves may
    /// spread over both CUs of a workgroup processor.
    Wgp,
}

impl From<ModeArg> for dsxor::case::Mode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Cu => dsxor::case::Mode::Cu,
            ModeArg::Wgp => dsxor::case::Mode::Wgp,
        }
    }
}

/// `--out-of-range-return`: the assumption for what a returning atomic past
/// the allocation gives back (the ISA guide is silent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutOfRangeArg {
    /// It returns 0, as an out-of-range read does.
    Zero,
    /// VDST keeps its prior value.
    VdstUnchanged,
    /// Anything is accepted.
    Any,
}

impl From<OutOfRangeArg> for dsxor::model::OutOfRangeReturn {
    fn from(o: OutOfRangeArg) -> Self {
        use dsxor::model::OutOfRangeReturn;
        match o {
            OutOfRangeArg::Zero => OutOfRangeReturn::Zero,
            OutOfRangeArg::VdstUnchanged => OutOfRangeReturn::VdstUnchanged,
            OutOfRangeArg::Any => OutOfRangeReturn::Any,
        }
    }
}

/// `run --pattern`: the conformance pattern families. The library's names
/// decide (`gen::suite::parse_pattern`); the test below keeps the two lists
/// equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PatternArg {
    Uniform,
    OneAddress,
    KPerAddress,
    CrossWave,
    BankStride,
    ExecMask,
    Offset,
    AllocEdge,
    Data,
    BigGroup,
    Occupancy,
    LdsStraddle,
    Wave64Halves,
    Stress,
}

/// `run --probe`: opt-in probes that can fault real hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProbeArg {
    /// Misaligned effective addresses (the device must fault: MEMVIOL).
    Misaligned,
    /// Effective addresses past the allocation.
    OutOfRange,
    /// LDS left by one kernel read by the next (LeftoverLocals,
    /// CVE-2023-4969): a security finding, exit 1.
    LeftoverLds,
    /// Three atomics of a wave with no wait between them: the returns must
    /// chain (a positive control).
    BackToBack,
    /// An atomic under EXEC = 0 while another is in flight: it must touch
    /// no lane.
    ExecZeroInFlight,
    /// Lanes an atomic left out write its VDST before the wait (unsafe on
    /// gfx11, says Mesa): the write is kept or lost, the atomic's lanes
    /// untouched.
    UnusedVdstLanes,
    /// An SMEM load beside the atomic under a partial lgkmcnt wait: one of
    /// the two may still be out, never both.
    SmemInFlight,
    /// An atomic whose VDST lies past the wave's VGPR allocation: issued
    /// as if EXEC were 0, it must change nothing.
    VdstOutOfRange,
}

impl ProbeArg {
    /// The probe that runs kernels of its own, if this is one (the others
    /// are case families).
    pub(crate) fn kernel_probe(self) -> Option<dsxor::suite::probe::KernelProbe> {
        dsxor::suite::probe::KernelProbe::from_name(&value_name(&self))
    }
}

/// The name clap shows for a value (kebab-case), which is also the
/// library's name for it.
pub(crate) fn value_name(v: &impl clap::ValueEnum) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn pattern_and_probe_values_are_the_librarys() {
        use dsxor::gen::suite::{parse_pattern, parse_probe};
        use dsxor::gen::Pattern;
        let ours: Vec<String> = PatternArg::value_variants()
            .iter()
            .map(value_name)
            .collect();
        let library: Vec<String> = Pattern::DEFAULT
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(ours, library);
        for p in PatternArg::value_variants() {
            parse_pattern(&value_name(p)).expect("a pattern the library knows");
        }
        let probes: Vec<String> = ProbeArg::value_variants().iter().map(value_name).collect();
        let library: Vec<String> = Pattern::PROBES
            .iter()
            .map(|p| p.name().to_string())
            .chain(
                dsxor::suite::probe::KernelProbe::ALL
                    .iter()
                    .map(|p| p.name().to_string()),
            )
            .collect();
        assert_eq!(probes, library);
        for p in ProbeArg::value_variants() {
            if p.kernel_probe().is_none() {
                parse_probe(&value_name(p)).expect("a probe the library knows");
            }
        }
    }

    #[test]
    fn out_of_range_values_are_the_librarys() {
        for v in OutOfRangeArg::value_variants() {
            let lib: dsxor::model::OutOfRangeReturn = (*v).into();
            assert_eq!(lib.name(), value_name(v));
            assert_eq!(
                dsxor::model::OutOfRangeReturn::parse(&value_name(v)),
                Some(lib)
            );
        }
    }

    #[test]
    fn backend_values_are_the_librarys() {
        for v in BackendArg::value_variants() {
            let lib: dsxor::backend::select::BackendChoice = (*v).into();
            assert_eq!(
                dsxor::backend::select::BackendChoice::parse(&value_name(v)),
                Some(lib)
            );
        }
    }

    #[test]
    fn durations_take_units_or_bare_seconds() {
        use std::time::Duration;
        assert_eq!(parse_duration("10s").ok(), Some(Duration::from_secs(10)));
        assert_eq!(
            parse_duration("500ms").ok(),
            Some(Duration::from_millis(500))
        );
        assert_eq!(parse_duration("120").ok(), Some(Duration::from_secs(120)));
        assert!(parse_duration("soon").is_err());
        assert!(timeout_value("18446744073709551615").is_err());
        assert!(timeout_value("99ms").is_err());
        assert_eq!(timeout_value("1day").ok(), Some(MAX_DURATION));
        assert!(budget_value("1day 1s").is_err());
        assert_eq!(budget_value("0s").ok(), Some(Duration::ZERO));
    }
}
