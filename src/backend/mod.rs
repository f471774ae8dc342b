//! `backend`: the `Backend` trait — a device that runs a kernel of an AMDGPU
//! code object — and automatic selection between the HIP device and the
//! software device. Both backends take the same `Dispatch`: the same code
//! object bytes, the same kernel, the same buffers and scalar arguments; the
//! kernarg segment is laid out by `codeobj` from the kernel's metadata.

pub mod conformance;
pub mod emu;
pub mod hip;
pub mod placement;
pub mod select;

pub use placement::Placement;

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Which kind of device a backend drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// A real GPU through libamdhip64.
    Hip,
    /// The RDNA3 interpreter (`emu`).
    Emu,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Hip => "hip",
            BackendKind::Emu => "emu",
        }
    }
}

impl DeviceInfo {
    /// `compute_units` with what it counts, for reports: "48
    /// multiprocessors (hipDeviceAttributeMultiprocessorCount)" on HIP (WGPs
    /// or CUs, by the runtime's mode, which a report read elsewhere cannot
    /// know), "2 host threads" on the software device.
    pub fn units_text(&self) -> String {
        match self.backend {
            BackendKind::Hip => format!(
                "{} multiprocessors (hipDeviceAttributeMultiprocessorCount)",
                self.compute_units
            ),
            BackendKind::Emu => format!("{} host threads", self.compute_units),
        }
    }
}

/// The end of every device name dsxor's software HIP runtime (`hipsim/`)
/// reports, so a record made through it is never mistaken for silicon.
pub const HIPSIM_NAME_SUFFIX: &str = "(simulated by dsxor-hipsim)";

/// What a backend says about the device it drives; recorded in every result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceInfo {
    pub backend: BackendKind,
    /// Marketing or emulator name (`AMD Radeon RX 7900 XTX`, `dsxor emu gfx11`).
    pub name: String,
    /// Full target id as the runtime reports it (`gcnArchName`, e.g. `gfx1100`).
    pub target_id: String,
    /// Wave sizes the device can run.
    pub wave_sizes: Vec<u32>,
    /// What the device counts as its multiprocessors: on HIP,
    /// `hipDeviceAttributeMultiprocessorCount`, which counts WGPs on gfx10+
    /// in WGP mode and CUs otherwise (ROCm/clr rocdevice.cpp
    /// `maxComputeUnits_`; the ceiling converts it to CUs); on the software
    /// device, the host threads its workgroups are spread over. The field
    /// keeps its name for the record format; reports say what it counts.
    pub compute_units: u32,
    /// Peak shader clock in kHz (hipDeviceAttributeClockRate's unit), if known.
    pub clock_khz: Option<u32>,
    /// Maximum LDS bytes a workgroup may allocate.
    pub lds_per_block: u32,
    pub runtime_version: Option<String>,
    /// `hipDriverGetVersion`: HIP's own version (ROCm/clr
    /// hipamd/src/hip_context.cpp returns HIP_VERSION), not the kernel
    /// driver's; that one is in the results' `amdgpu_driver_version`.
    pub driver_version: Option<String>,
    pub pci_bus_id: Option<String>,
    /// Which device this is, stable across runs and hosts: on HIP,
    /// `hipDeviceGetUuid` as text (policy `uuid-text`, `hip::uuid_text`);
    /// on the software device, `dsxor-emu@<host>` (one software device per
    /// host: it has no silicon to name). Absent in records written before
    /// it was recorded, and when the runtime reports none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The host and the scheduler's job, array task and node of the
    /// process that opened the device (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// (Boxed: every message that carries a `DeviceInfo` stays small.)
    pub placement: Option<Box<Placement>>,
}

impl DeviceInfo {
    /// What `compute_units` counts: on HIP, WGPs on gfx10 and later unless
    /// the runtime left WGP mode, CUs otherwise (`hip::multiprocessor_unit`,
    /// with its ROCm/clr sources); `None` for the software device, whose
    /// count is host threads.
    pub fn multiprocessor_unit(&self) -> Option<ComputeUnit> {
        if self.backend != BackendKind::Hip {
            return None;
        }
        let processor = self.target_id.split(':').next().unwrap_or(&self.target_id);
        Some(crate::hip::multiprocessor_unit(
            processor,
            std::env::var(crate::hip::ENV_WGP_MODE).ok().as_deref(),
        ))
    }

    /// The shader clock and DPM level the amdgpu driver shows for this
    /// device now (sysfs, by PCI bus id); `None` without a HIP device or
    /// where sysfs has no such entry.
    pub fn clock_state(&self) -> Option<ClockState> {
        if self.backend != BackendKind::Hip {
            return None;
        }
        self.pci_bus_id
            .as_deref()
            .and_then(crate::hip::host::clock_state)
    }

    /// The key that names this device in a fleet: its UUID, else (records
    /// without one) its node and PCI bus id, else its node and name.
    pub fn fleet_key(&self) -> String {
        let node = self.placement.as_ref().map(|p| p.node()).unwrap_or("");
        match (&self.uuid, &self.pci_bus_id) {
            (Some(u), _) => u.clone(),
            (None, Some(b)) if !b.is_empty() => format!("{node}/{b}"),
            _ => format!("{node}/{}", self.name),
        }
    }

    /// The device is dsxor's software device: directly (`emu`) or through
    /// the software HIP runtime (its name ends with [`HIPSIM_NAME_SUFFIX`]).
    pub fn is_software_device(&self) -> bool {
        self.backend == BackendKind::Emu || self.name.ends_with(HIPSIM_NAME_SUFFIX)
    }
}

/// The units a device's multiprocessor count is in, and the amdgpu clock
/// state: types of the HIP layer that [`DeviceInfo`] hands to its users.
pub use crate::hip::host::ClockState;
pub use crate::hip::ComputeUnit;

/// What the host says about the GPU driver beneath any backend, for the
/// records of a run: set once per run, whatever the device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostDriver {
    /// `HSA_OVERRIDE_GFX_VERSION` as set: under it, ROCr reports the
    /// override's target, not the silicon's.
    pub hsa_override_gfx_version: Option<String>,
    /// The amdgpu kernel driver's version (sysfs), when present.
    pub amdgpu_driver_version: Option<String>,
}

impl HostDriver {
    pub fn read() -> HostDriver {
        HostDriver {
            hsa_override_gfx_version: crate::hip::host::hsa_override_gfx_version(),
            amdgpu_driver_version: crate::hip::host::amdgpu_driver_version(),
        }
    }
}

/// One scalar or buffer argument of a kernel. Defined beside the kernarg
/// layout that consumes it (`codeobj` sits below `backend` and must not
/// import it); re-exported here for the backends' users.
pub use crate::codeobj::kernarg::ArgValue;

/// One kernel launch: a 1-D grid of `groups` workgroups of `block` work-items.
#[derive(Clone, Debug)]
pub struct Dispatch<'a> {
    /// The code object (plain ELF or clang offload bundle).
    pub code_object: &'a [u8],
    /// Kernel symbol name (without `.kd`).
    pub kernel: &'a str,
    pub groups: u32,
    pub block: u32,
    /// Dynamic LDS bytes on top of the kernel's static group segment.
    pub dynamic_lds: u32,
    /// Global buffers, copied to the device before the launch.
    pub buffers: Vec<Vec<u8>>,
    pub args: Vec<ArgValue>,
    /// A launch not complete by then is a timeout, never a hung run.
    pub timeout: Duration,
    /// Which buffers are copied back after the launch.
    pub read_back: ReadBack,
}

/// The buffers of a launch that come back in its `Completion`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadBack {
    /// Every buffer.
    All,
    /// Only these indices into `Dispatch::buffers`; every other buffer
    /// comes back empty. A copy back is the launch's largest host cost
    /// after the copies in, and the conformance ABI reads two of six.
    Only(&'static [usize]),
}

impl ReadBack {
    /// Buffer `i` comes back.
    pub fn wants(self, i: usize) -> bool {
        match self {
            ReadBack::All => true,
            ReadBack::Only(which) => which.contains(&i),
        }
    }
}

/// The result of a completed launch.
#[derive(Clone, Debug)]
pub struct Completion {
    /// Buffers after the launch, same order and sizes as `Dispatch::buffers`,
    /// but those `Dispatch::read_back` leaves out, which are empty.
    pub buffers: Vec<Vec<u8>>,
    /// Device time of the launch (HIP events) or host time (emu).
    pub elapsed: Duration,
    /// The kernel's COMPUTE_PGM_RSRC1.WGP_MODE as the device read it when
    /// it launched it (the software device reports it, `emu::MODE_POLICY`);
    /// None where the runtime does not say (HIP).
    pub wgp_mode: Option<bool>,
}

/// Why a launch did not complete. `Timeout` and `Fault` are outcomes of the
/// case under test (they get a verdict and a repro); the others are
/// environment or input trouble (exit 3 / exit 2).
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The launch did not complete within its budget.
    #[error("timeout: kernel `{kernel}` did not complete within {limit:?}{}", pc.map(|p| format!(" (a wave was at pc {p:#x})")).unwrap_or_default())]
    Timeout {
        kernel: String,
        limit: Duration,
        pc: Option<u64>,
    },
    /// The device reported a memory violation or other wave fault.
    #[error("fault: {0}")]
    Fault(String),
    /// No device, library or kernel: exit 3.
    #[error("environment: {0}")]
    Environment(String),
    /// The dispatch itself is malformed (bad code object, wrong arguments): exit 2.
    #[error("invalid dispatch: {0}")]
    Invalid(String),
    /// The kernel relies on behaviour the ISA leaves undefined: a register
    /// used before the `s_waitcnt` of the memory instruction writing it
    /// (software device with hazard checking, `emu::hazard`). A defect of
    /// the input kernel, neither a conformance failure of `ds_xor_rtn_b64`
    /// nor trouble with the environment: the run stops with exit 2 and its
    /// results say `aborted` with this text (docs: reference/exit-codes.md).
    #[error("hazard: {0}")]
    Hazard(String),
    /// The software device cannot run an instruction of the kernel. Whose
    /// trouble that is depends on whose code object it is (exit 3 for
    /// dsxor's own, 2 for a user's; `backend::conformance` decides); alone
    /// it counts as the environment.
    #[error("unsupported instruction: {0}")]
    Unsupported(String),
}

impl BackendError {
    /// Bad input (exit 2): a malformed dispatch or a kernel with a hazard.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, BackendError::Invalid(_) | BackendError::Hazard(_))
    }
}

/// A device that runs kernels of AMDGPU code objects.
pub trait Backend {
    /// The device, as recorded in results.
    fn info(&self) -> &DeviceInfo;
    /// Run one launch to completion (or timeout / fault).
    fn dispatch(&mut self, dispatch: &Dispatch<'_>) -> Result<Completion, BackendError>;
}
