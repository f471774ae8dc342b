//! `probe`: what HIP environment this process sees — the library, its
//! versions, the devices and their targets, or the exact reason there are
//! none. Backend selection and `dsxor info` both start here.

use super::{DeviceProps, Hip, HipError, HipVersion, LoadedLibrary};

/// Environment variables that filter the devices HIP shows (the runtime
/// applies them itself; they are reported because they explain a count).
/// ROCm/clr rocclr/device/rocm/rocdevice.cpp (`Device::init`) reads
/// `HIP_VISIBLE_DEVICES`, else `CUDA_VISIBLE_DEVICES`, for HIP;
/// `GPU_DEVICE_ORDINAL` only for OpenCL, so it is not listed. ROCr applies
/// `ROCR_VISIBLE_DEVICES` beneath them. `HSA_OVERRIDE_GFX_VERSION` changes
/// the target every device reports.
pub const VISIBILITY_VARS: &[&str] = &[
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "HSA_OVERRIDE_GFX_VERSION",
];

/// The devices, or why there are none.
#[derive(Debug)]
pub enum Devices {
    /// `hipGetDeviceCount` succeeded. One entry per ordinal: its properties,
    /// or the error that stopped dsxor reading them.
    Found(Vec<Result<DeviceProps, HipError>>),
    /// `hipGetDeviceCount` failed (with no GPU: `hipErrorNoDevice`), or
    /// reported zero devices.
    None {
        /// HIP's error, when there was one.
        error: Option<HipError>,
        /// What on this machine may explain it (no /dev/kfd, a visibility
        /// variable that hides every device, ...).
        hints: Vec<String>,
    },
}

/// What `probe` found.
#[derive(Debug)]
pub struct HipReport {
    pub hip: Hip,
    pub library: LoadedLibrary,
    pub runtime_version: Result<HipVersion, HipError>,
    pub driver_version: Result<HipVersion, HipError>,
    /// Visibility variables that are set, with their values.
    pub visibility: Vec<(String, String)>,
    pub devices: Devices,
}

impl HipReport {
    /// Devices whose properties could be read.
    pub fn usable_devices(&self) -> Vec<&DeviceProps> {
        match &self.devices {
            Devices::Found(list) => list.iter().filter_map(|d| d.as_ref().ok()).collect(),
            Devices::None { .. } => Vec::new(),
        }
    }

    /// One line saying why there is no usable device, or `None` when there is one.
    pub fn no_device_reason(&self) -> Option<String> {
        match &self.devices {
            Devices::None { error, hints } => {
                let mut s = match error {
                    Some(e) => format!("no HIP device: {e}"),
                    None => "no HIP device: hipGetDeviceCount reported 0 devices".to_string(),
                };
                if !hints.is_empty() {
                    s.push_str(&format!(" ({})", hints.join("; ")));
                }
                Some(s)
            }
            Devices::Found(list) => {
                if list.iter().any(|d| d.is_ok()) {
                    None
                } else {
                    let errs: Vec<String> = list
                        .iter()
                        .filter_map(|d| d.as_ref().err())
                        .map(|e| e.to_string())
                        .collect();
                    Some(format!("no usable HIP device: {}", errs.join("; ")))
                }
            }
        }
    }
}

/// Load the library and look at everything. `Err` only when the library
/// cannot be loaded at all (the error lists every path tried).
pub fn probe() -> Result<HipReport, HipError> {
    let hip = Hip::load()?;
    Ok(probe_with(hip))
}

/// `probe` for an already loaded library.
pub fn probe_with(hip: Hip) -> HipReport {
    let visibility: Vec<(String, String)> = VISIBILITY_VARS
        .iter()
        .filter_map(|v| std::env::var(v).ok().map(|val| (v.to_string(), val)))
        .collect();
    let devices = match hip.device_count() {
        Ok(0) => Devices::None {
            error: None,
            hints: hints(&visibility),
        },
        Ok(n) => Devices::Found((0..n).map(|i| hip.device(i)).collect()),
        Err(e) => Devices::None {
            error: Some(e),
            hints: hints(&visibility),
        },
    };
    HipReport {
        library: hip.library().clone(),
        runtime_version: hip.runtime_version(),
        driver_version: hip.driver_version(),
        visibility,
        devices,
        hip,
    }
}

/// Facts that explain "no device" on Linux: the amdgpu kernel driver's
/// `/dev/kfd` (ROCm's compute interface) missing or not accessible, or a
/// visibility variable set.
fn hints(visibility: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let kfd = std::path::Path::new("/dev/kfd");
    if !kfd.exists() {
        out.push("/dev/kfd does not exist: no amdgpu kernel driver with compute support".into());
    } else if let Err(e) = std::fs::OpenOptions::new().read(true).write(true).open(kfd) {
        out.push(format!(
            "/dev/kfd is not accessible ({e}): the user may need the render/video group"
        ));
    }
    for (k, v) in visibility {
        out.push(format!("{k}={v} is set"));
    }
    out
}
