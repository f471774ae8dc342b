//! Command bodies of the `dsxor` binary, one module per command; `main.rs`
//! parses and maps outcomes to exit codes. Shared here: the failure type
//! with its exit code, display macros, and the device options of every
//! command that runs kernels.

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

/// A command's outcome: Ok(exit code 0 or 1) or a failure with its code.
pub(crate) type Outcome = Result<u8, Failure>;

pub(crate) mod bench;
pub(crate) mod check;
pub(crate) mod codeobj;
pub(crate) mod info;
pub(crate) mod isa;
pub(crate) mod merge;
pub(crate) mod qualify;
pub(crate) mod report;
pub(crate) mod repro;
pub(crate) mod run;
pub(crate) mod worker;

/// Options of every command that runs conformance kernels.
#[derive(clap::Args, Debug)]
pub(crate) struct DeviceArgs {
    /// auto (a HIP device with a kernel for its target; the software
    /// device only when no GPU and no /dev/kfd is present — a GPU dsxor
    /// cannot use exits 3), hip, or emu.
    #[arg(long, env = "DSXOR_BACKEND", default_value = "auto")]
    pub(crate) backend: String,
    /// Refuse to run anywhere but on a GPU: the software device and a
    /// simulated HIP device exit 3.
    #[arg(long, env = "DSXOR_REQUIRE_GPU", value_parser = clap::builder::BoolishValueParser::new())]
    pub(crate) require_gpu: bool,
    /// HIP device ordinal (after HIP_VISIBLE_DEVICES).
    #[arg(long)]
    pub(crate) device: Option<u32>,
    /// Use this code object (ELF or offload bundle with the
    /// dsxor_conformance_off* kernels) instead of the embedded ones.
    #[arg(long)]
    pub(crate) code_object: Option<std::path::PathBuf>,
    /// Software device only: inject a named fault (lost-update, return-new,
    /// ignore-exec, drop-offset1, swap-dwords, low-dword-only).
    #[arg(long)]
    pub(crate) fault: Option<String>,
    /// Software device only: seed of its lane/wave interleaving.
    #[arg(long)]
    pub(crate) interleave_seed: Option<u64>,
    /// A launch not complete after this long is a timeout verdict (e.g. 10s, 500ms).
    #[arg(long, default_value = "10s")]
    pub(crate) timeout: String,
    /// What an out-of-range returning atomic must return (an assumption):
    /// zero, vdst-unchanged or any.
    #[arg(long, default_value = "zero")]
    pub(crate) out_of_range_return: String,
    /// LDS allocation block in bytes (512: LLVM's gfx11 granule; 1024: Mesa's).
    #[arg(long, default_value_t = dsxor::model::policy::LDS_GRANULE_GFX11_LLVM)]
    pub(crate) lds_granule: u32,
}

pub(crate) fn parse_duration(flag: &str, text: &str) -> Result<std::time::Duration, Failure> {
    humantime::parse_duration(text)
        .map_err(|e| bad_input(anyhow::anyhow!("--{flag} {text:?}: {e} (e.g. 10s, 500ms)")))
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

pub(crate) fn device_request(
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
        // HIP cases run in worker processes of this binary (suite::worker).
        worker_exe: std::env::current_exe().ok(),
        require_gpu: dev.require_gpu,
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
