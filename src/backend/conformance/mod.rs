//! The conformance kernels as a device that runs cases: a `Case` becomes a
//! launch of a conformance kernel and the launch's buffers come back as an
//! `Observation`. The kernel ABI (buffers, scalar arguments, kernarg layout,
//! what the kernels do) is the book's page `docs/src/internals/kernel-abi.md`,
//! from `kernels/dsxor.hip`.
//!
//! - `abi`: a case (or a batch of cases) as a launch's buffers and
//!   arguments, and the observations in a completed launch's buffers;
//! - `batch`: which cases may share a launch, and running cases so that a
//!   batched launch that fails blames none of them;
//! - `objects`: the code objects holding the kernels (embedded, or a user's
//!   file) and the code-object hooks a device patches offsets with;
//! - `device`: the kernels on a `Backend` (`ConformanceDevice`: kernel
//!   choice, offset patching, the launch);
//! - `leftover`: the leftover-LDS probe's fill and listener kernels;
//! - `inflight`: the in-flight probes' kernels (atomics with no wait
//!   between them, one of them under EXEC = 0) and what each lane must
//!   return.
//!
//! Below are what every case device shares: the `CaseDevice` trait and what
//! a case, a batch or a kernel identity comes back as.

mod abi;
mod batch;
mod device;
mod inflight;
mod leftover;
mod objects;

pub use abi::{
    dispatch_for, dispatch_for_batch, dispatch_for_batch_in, dispatch_for_in, kernel_name,
    kernel_name_for, observation, observations, BUF_ACTIVE, BUF_ADDR, BUF_DATA, BUF_LDS_INIT,
    BUF_LDS_OUT, BUF_RET, KERNEL_PREFIX, LDS_OUT_POISON, READ_BACK, ROUNDS_KERNEL_PREFIX,
};
pub use abi::{
    traffic_kernel_name, BUF_CTL, BUF_VERDICT, CTL_TRAFFIC, TRAFFIC_KERNEL_PREFIX, TRAFFIC_OFFSETS,
    TRAFFIC_READ_BACK, VERDICT_POISON,
};
pub use batch::{
    batch_key, launch_groups, launch_groups_of, run_cases, run_launch, BatchKey, LaunchShare,
    LdsFit, BATCH_WINDOW, DEFAULT_BATCH, LAUNCH_BYTES_CAP, LDS_CLASS_FLOOR,
};
pub use device::{ConformanceDevice, PATCHED_CACHE};
pub use inflight::{run_inflight, Inflight, Returns, INFLIGHT_BLOCK};
pub use leftover::{fill_then_listen, Reading, FILL_KERNEL, LISTEN_KERNEL, PROBE_LDS_BYTES};
pub use objects::{
    codeobj_kernels, codeobj_patch, embedded_objects, file_object, KernelObject, ListKernels,
    PatchOffset,
};

use serde::{Deserialize, Serialize};

use crate::case::{Case, Mode, Observation, WaveSize};

use super::{BackendError, Completion, DeviceInfo, Dispatch};

/// What one batched launch gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BatchOutcome {
    /// It completed: every case's outcome, in order.
    Each(Vec<DeviceOutcome>),
    /// It faulted or timed out as a whole: no case is blamed; `run_cases`
    /// runs each alone.
    Whole(DeviceOutcome),
}

/// What the device did with one case: the outcome of the case under test
/// (a fault or a timeout is judged, like values are).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum DeviceOutcome {
    Completed {
        observation: Observation,
        device_us: u64,
    },
    Fault {
        message: String,
    },
    Timeout {
        message: String,
    },
}

impl DeviceOutcome {
    pub fn name(&self) -> &'static str {
        match self {
            DeviceOutcome::Completed { .. } => "completed",
            DeviceOutcome::Fault { .. } => "fault",
            DeviceOutcome::Timeout { .. } => "timeout",
        }
    }
}

/// Which kernel ran a case, for repro files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelIdentity {
    pub kernel: String,
    pub wave: WaveSize,
    /// The object's mode (absent in repros of generator versions 1-2: WGP
    /// mode, the only one shipped then).
    #[serde(default)]
    pub mode: Mode,
    /// sha256 of the code object as launched (after patching, if patched).
    pub code_object_sha256: String,
    /// sha256 of the code object it came from.
    pub base_sha256: String,
    pub source: String,
    /// Set when the offset was patched into `dsxor_conformance_off0`.
    pub patched_offset: Option<u16>,
}

/// Something that runs conformance cases: a backend plus the kernels.
pub trait CaseDevice {
    fn info(&self) -> &DeviceInfo;
    /// Run one case. `Err` only for environment or dispatch trouble
    /// (`Environment`, `Invalid`); faults and timeouts are outcomes.
    fn run_case(&mut self, case: &Case) -> Result<DeviceOutcome, BackendError>;
    /// The kernel that runs (or ran) `case`.
    fn kernel_identity(&mut self, case: &Case) -> Result<KernelIdentity, BackendError>;
    /// The code objects in use.
    fn kernel_objects(&self) -> &[KernelObject];
    /// Cases [`run_cases`] puts in one launch at most (1: one per launch).
    fn batch_cap(&self) -> usize {
        1
    }
    /// Run `cases`, which share a [`BatchKey`], in one launch. `Err` and
    /// [`BatchOutcome::Whole`] blame no case (see [`run_cases`]). By
    /// default, one launch per case.
    fn run_batch(&mut self, cases: &[&Case]) -> Result<BatchOutcome, BackendError> {
        cases
            .iter()
            .map(|c| self.run_case(c))
            .collect::<Result<Vec<_>, _>>()
            .map(BatchOutcome::Each)
    }
    /// CPU seconds spent so far in the processes this device runs its work
    /// in (its worker processes, live and ended); 0 for a device that runs
    /// in the calling process, whose threads' clocks count it already.
    fn helper_cpu_seconds(&self) -> f64 {
        0.0
    }
    /// One launch of any kernel of the device's code objects, outside the
    /// case ABI (the leftover-LDS probe's kernels). Devices that run cases
    /// only (test doubles) refuse it.
    fn launch(&mut self, _dispatch: &Dispatch<'_>) -> Result<Completion, BackendError> {
        Err(BackendError::Unsupported(
            "this device runs conformance cases only".into(),
        ))
    }
}

#[cfg(test)]
/// A two-group wave32 case of 64 lanes, half of them active, with a 16-byte
/// LDS image per group: the fixture of the tests below `conformance`.
fn test_case() -> Case {
    use crate::case::{Geometry, LaneInput};
    let geometry = Geometry {
        wave_size: WaveSize::Wave32,
        waves_per_group: 1,
        groups: 2,
        mode: crate::case::Mode::Wgp,
    };
    Case {
        pattern: "t".into(),
        index: 0,
        geometry,
        lds_bytes: 16,
        offset: 8,
        lds_init: vec![vec![1, 2], vec![3, 4]],
        lanes: (0..64)
            .map(|i| LaneInput {
                addr: i * 8,
                data: u64::from(i) << 32,
                active: i % 2 == 0,
                vdst_init: 0xffff_0000 + u64::from(i),
            })
            .collect(),
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}
