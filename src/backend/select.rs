//! Backend selection: `--backend auto|hip|emu` (or `DSXOR_BACKEND`).
//! `auto` takes a HIP device whose target has an embedded conformance
//! kernel for a wave size the run and the device share, and says in one
//! line why. It falls back to the software device only where no GPU is
//! there at all (no HIP device listed and no `/dev/kfd`): a GPU or a
//! `/dev/kfd` that is present but unusable — no kernel for its target, a
//! runtime that does not load, devices whose properties cannot be read — is
//! an environment failure (exit 3) naming why, never a silent emulation
//! that a GPU runner would report as a pass. `hip` without a usable device
//! is the same failure; emulation happens only when asked for (`emu`).
//! `--require-gpu` (`require_hardware`) refuses the software device and a
//! simulated HIP device too.

use crate::case::WaveSize;
use crate::hip::{HipError, HipReport};

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    Auto,
    Hip,
    Emu,
}

impl BackendChoice {
    pub fn parse(s: &str) -> Option<BackendChoice> {
        match s {
            "auto" => Some(BackendChoice::Auto),
            "hip" => Some(BackendChoice::Hip),
            "emu" => Some(BackendChoice::Emu),
            _ => None,
        }
    }
}

/// One HIP device as selection sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceView {
    pub index: u32,
    pub name: String,
    /// Full target id (`gcnArchName`).
    pub target_id: String,
    pub processor: String,
    pub wave_sizes: Vec<WaveSize>,
}

impl DeviceView {
    /// A software HIP runtime's device (dsxor's simulator names its
    /// devices "simulated"), not silicon.
    pub fn simulated(&self) -> bool {
        self.name.to_lowercase().contains("simulated")
    }
}

/// What HIP offers, reduced to what selection needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipView {
    /// One line: why there is no HIP device at all (library or device).
    pub unavailable: Option<String>,
    pub devices: Vec<DeviceView>,
    /// Why a GPU is believed present even if unusable: HIP listed devices
    /// (usable or not), or `/dev/kfd` (the amdgpu driver's compute
    /// interface) exists. `None`: no sign of a GPU, emulation is safe.
    pub gpu_present: Option<String>,
}

/// `/dev/kfd`'s existence as a reason, if it exists.
fn kfd_present() -> Option<String> {
    std::path::Path::new("/dev/kfd")
        .exists()
        .then(|| "/dev/kfd exists (the amdgpu driver's compute interface)".to_string())
}

impl HipView {
    pub fn from_probe(probe: &Result<HipReport, HipError>) -> HipView {
        match probe {
            Err(e) => HipView {
                // The loader's error lists every path tried, one a line; the
                // notice is one line (`HipError::one_line`).
                unavailable: Some(e.one_line()),
                devices: Vec::new(),
                gpu_present: kfd_present(),
            },
            Ok(report) => HipView {
                gpu_present: match &report.devices {
                    crate::hip::Devices::Found(list) if !list.is_empty() => {
                        Some(format!("HIP lists {} device(s)", list.len()))
                    }
                    _ => kfd_present(),
                },
                unavailable: report.no_device_reason(),
                devices: report
                    .usable_devices()
                    .into_iter()
                    .map(|d| DeviceView {
                        index: d.index,
                        name: d.name.clone(),
                        target_id: d.gcn_arch_name.clone(),
                        processor: d.processor().to_string(),
                        wave_sizes: d
                            .wave_sizes()
                            .into_iter()
                            .filter_map(WaveSize::from_lanes)
                            .collect(),
                    })
                    .collect(),
            },
        }
    }
}

/// The selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub choice: BackendChoice,
    /// `Some(index)` for a HIP device, `None` for the software device.
    pub hip_device: Option<u32>,
    /// Target the kernels are taken for.
    pub target: String,
    /// Wave sizes the run will use (the run's request ∩ the device's ∩ the kernels').
    pub waves: Vec<WaveSize>,
    /// One line: what was chosen and why.
    pub reason: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectError {
    /// `--backend hip` and no usable device (exit 3).
    #[error("--backend hip: {0}")]
    NoHipDevice(String),
    /// `--backend auto` on a machine with a GPU (or /dev/kfd) dsxor cannot
    /// use (exit 3): emulating instead would report silicon never touched.
    #[error("--backend auto: a GPU is present ({present}) but cannot be used: {why}; emulation only runs when asked for (--backend emu)")]
    GpuUnusable { present: String, why: String },
    /// `--require-gpu` and the selection is not hardware (exit 3).
    #[error("--require-gpu: {0}")]
    NotHardware(String),
    /// The requested wave sizes cannot run on the chosen device (exit 2 when
    /// the user asked for them, 3 otherwise; the caller decides).
    #[error("{0}")]
    NoWave(String),
}

/// Target the software device emulates (RDNA3; docs/src/internals/facts.md).
pub const EMU_TARGET: &str = "gfx1100";

fn names(w: &[WaveSize]) -> String {
    w.iter()
        .map(|w| format!("wave{}", w.lanes()))
        .collect::<Vec<_>>()
        .join("+")
}

/// Choose. `requested` is the run's `--wave` list (empty: any); `device`
/// is `--device N`; `has_kernel(processor, wave)` says whether a
/// conformance kernel exists for that processor and wave size.
pub fn select(
    choice: BackendChoice,
    hip: Option<&HipView>,
    requested: &[WaveSize],
    device: Option<u32>,
    has_kernel: impl Fn(&str, WaveSize) -> bool,
) -> Result<Selection, SelectError> {
    let wanted = |offered: &[WaveSize]| -> Vec<WaveSize> {
        offered
            .iter()
            .copied()
            .filter(|w| requested.is_empty() || requested.contains(w))
            .collect()
    };
    let emu = |reason: String| -> Result<Selection, SelectError> {
        let waves: Vec<WaveSize> = wanted(&[WaveSize::Wave32, WaveSize::Wave64])
            .into_iter()
            .filter(|w| has_kernel(EMU_TARGET, *w))
            .collect();
        if waves.is_empty() {
            return Err(SelectError::NoWave(format!(
                "the software device has no conformance kernel for {} on {EMU_TARGET}",
                names(requested)
            )));
        }
        Ok(Selection {
            choice,
            hip_device: None,
            target: EMU_TARGET.to_string(),
            waves,
            reason,
        })
    };
    if choice == BackendChoice::Emu {
        return emu(format!(
            "software device ({EMU_TARGET} interpreter): --backend emu"
        ));
    }
    // Why HIP cannot be used, if it cannot.
    let hip_reason: Result<Selection, String> = match hip {
        None => Err("HIP was not probed".to_string()),
        Some(view) => {
            let candidates: Vec<&DeviceView> = view
                .devices
                .iter()
                .filter(|d| device.is_none_or(|n| d.index == n))
                .collect();
            if candidates.is_empty() {
                Err(match (device, &view.unavailable) {
                    (Some(n), _) if !view.devices.is_empty() => format!(
                        "no HIP device {n} (devices: {})",
                        view.devices
                            .iter()
                            .map(|d| d.index.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    (_, Some(why)) => why.clone(),
                    _ => "no usable HIP device".to_string(),
                })
            } else {
                let mut why = Vec::new();
                let mut found = None;
                for d in candidates {
                    let waves: Vec<WaveSize> = wanted(&d.wave_sizes)
                        .into_iter()
                        .filter(|w| has_kernel(&d.processor, *w))
                        .collect();
                    if waves.is_empty() {
                        why.push(format!(
                            "no conformance kernel for {} {} (device {}: {}){}",
                            d.target_id,
                            if requested.is_empty() {
                                names(&d.wave_sizes)
                            } else {
                                names(requested)
                            },
                            d.index,
                            d.name,
                            override_hint(&d.processor, &has_kernel)
                        ));
                        continue;
                    }
                    found = Some(Selection {
                        choice,
                        hip_device: Some(d.index),
                        target: d.target_id.clone(),
                        reason: format!(
                            "HIP device {}: {} ({}), {}",
                            d.index,
                            d.name,
                            d.target_id,
                            names(&waves)
                        ),
                        waves,
                    });
                    break;
                }
                found.ok_or_else(|| why.join("; "))
            }
        }
    };
    match (hip_reason, choice) {
        (Ok(s), _) => Ok(s),
        (Err(why), BackendChoice::Hip) => Err(SelectError::NoHipDevice(why)),
        (Err(why), _) => match hip.and_then(|v| v.gpu_present.clone()) {
            Some(present) => Err(SelectError::GpuUnusable { present, why }),
            None => emu(format!("software device ({EMU_TARGET} interpreter): {why}")),
        },
    }
}

/// For a gfx11 processor with no object of its own: how to run the gfx1100
/// objects on it anyway. ROCr reports the target `HSA_OVERRIDE_GFX_VERSION`
/// names instead of the silicon's (ROCR-Runtime, core/util/flag.h), so
/// `11.0.0` makes a gfx1101–1103 load gfx1100 code; the run then records
/// the override, since the reported target is no longer the silicon's.
fn override_hint(processor: &str, has_kernel: &impl Fn(&str, WaveSize) -> bool) -> String {
    let gfx11_sibling = crate::codeobj::generic_family("gfx11-generic")
        .is_some_and(|f| f.contains(&processor))
        && processor != EMU_TARGET;
    if !gfx11_sibling || !has_kernel(EMU_TARGET, WaveSize::Wave32) {
        return String::new();
    }
    match crate::hip::host::hsa_override_gfx_version() {
        Some(v) => format!(" (HSA_OVERRIDE_GFX_VERSION={v} is set, yet the device reports {processor})"),
        None => format!(
            "; to run the gfx1100 objects on this {processor}, set HSA_OVERRIDE_GFX_VERSION=11.0.0 (recorded in the results)"
        ),
    }
}

/// `--require-gpu`: the selection must be a HIP device that is silicon — not
/// the software device, not a simulated HIP runtime's device.
pub fn require_hardware(sel: &Selection, hip: Option<&HipView>) -> Result<(), SelectError> {
    let Some(index) = sel.hip_device else {
        return Err(SelectError::NotHardware(format!(
            "the selection is the software device ({})",
            sel.reason
        )));
    };
    match hip.and_then(|v| v.devices.iter().find(|d| d.index == index)) {
        Some(d) if d.simulated() => Err(SelectError::NotHardware(format!(
            "HIP device {index} ({}) is a simulated device, not a GPU",
            d.name
        ))),
        Some(_) => Ok(()),
        None => Err(SelectError::NotHardware(format!(
            "HIP device {index} is not in the probe"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(index: u32, processor: &str, waves: &[WaveSize]) -> DeviceView {
        DeviceView {
            index,
            name: format!("GPU {index}"),
            target_id: processor.to_string(),
            processor: processor.to_string(),
            wave_sizes: waves.to_vec(),
        }
    }
    const BOTH: [WaveSize; 2] = [WaveSize::Wave32, WaveSize::Wave64];
    fn kernels(p: &str, w: WaveSize) -> bool {
        (p == "gfx1100") || (p == "gfx90a" && w == WaveSize::Wave64)
    }

    #[test]
    fn auto_falls_back_with_the_reason_and_hip_refuses() {
        let none = HipView {
            unavailable: Some(
                "no HIP device: hipGetDeviceCount returned hipErrorNoDevice (100)".into(),
            ),
            devices: vec![],
            gpu_present: None,
        };
        let s = select(BackendChoice::Auto, Some(&none), &[], None, kernels).unwrap();
        assert_eq!(s.hip_device, None);
        assert_eq!(s.waves, BOTH.to_vec());
        assert!(s.reason.contains("hipErrorNoDevice"), "{}", s.reason);
        assert!(!s.reason.contains('\n'));
        let e = select(BackendChoice::Hip, Some(&none), &[], None, kernels).unwrap_err();
        assert!(
            matches!(&e, SelectError::NoHipDevice(r) if r.contains("hipErrorNoDevice")),
            "{e}"
        );
        let s = select(
            BackendChoice::Emu,
            Some(&none),
            &[WaveSize::Wave64],
            None,
            kernels,
        )
        .unwrap();
        assert_eq!(s.waves, vec![WaveSize::Wave64]);
    }

    #[test]
    fn auto_takes_a_device_with_a_kernel() {
        let view = HipView {
            unavailable: None,
            devices: vec![
                dev(0, "gfx1030", &BOTH),
                dev(1, "gfx90a", &[WaveSize::Wave64]),
                dev(2, "gfx1100", &BOTH),
            ],
            gpu_present: Some("HIP lists 3 device(s)".into()),
        };
        let s = select(BackendChoice::Auto, Some(&view), &[], None, kernels).unwrap();
        assert_eq!(s.hip_device, Some(1));
        assert_eq!(s.waves, vec![WaveSize::Wave64]);
        // wave32 asked for: gfx90a has none, gfx1100 does.
        let s = select(
            BackendChoice::Auto,
            Some(&view),
            &[WaveSize::Wave32],
            None,
            kernels,
        )
        .unwrap();
        assert_eq!(s.hip_device, Some(2));
        // --device 0 has no kernel: hip refuses, and so does auto (a GPU is
        // there: emulating would report a pass for silicon never touched).
        let e = select(BackendChoice::Hip, Some(&view), &[], Some(0), kernels).unwrap_err();
        assert!(
            e.to_string().contains("no conformance kernel for gfx1030"),
            "{e}"
        );
        let e = select(BackendChoice::Auto, Some(&view), &[], Some(0), kernels).unwrap_err();
        assert!(
            matches!(&e, SelectError::GpuUnusable { why, .. } if why.contains("gfx1030")),
            "{e}"
        );
        // Asked for, the software device still runs.
        let s = select(BackendChoice::Emu, Some(&view), &[], None, kernels).unwrap();
        assert_eq!(s.hip_device, None);
        let e = select(BackendChoice::Hip, Some(&view), &[], Some(7), kernels).unwrap_err();
        assert!(e.to_string().contains("no HIP device 7"), "{e}");
    }

    #[test]
    fn a_gpu_without_a_kernel_is_never_emulated_silently() {
        // A gfx1101 (no embedded object): auto exits 3 saying how to run it.
        let view = HipView {
            unavailable: None,
            devices: vec![dev(0, "gfx1101", &BOTH)],
            gpu_present: Some("HIP lists 1 device(s)".into()),
        };
        let e = select(BackendChoice::Auto, Some(&view), &[], None, kernels).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("no conformance kernel for gfx1101"), "{text}");
        if crate::hip::host::hsa_override_gfx_version().is_none() {
            assert!(text.contains("HSA_OVERRIDE_GFX_VERSION=11.0.0"), "{text}");
        }
        // /dev/kfd there but no runtime: also exit 3, not emulation.
        let broken = HipView {
            unavailable: Some("libamdhip64 could not be loaded".into()),
            devices: vec![],
            gpu_present: Some("/dev/kfd exists".into()),
        };
        let e = select(BackendChoice::Auto, Some(&broken), &[], None, kernels).unwrap_err();
        assert!(matches!(e, SelectError::GpuUnusable { .. }), "{e}");
    }

    #[test]
    fn require_gpu_refuses_software_and_simulated_devices() {
        let none = HipView {
            unavailable: Some("no HIP device".into()),
            devices: vec![],
            gpu_present: None,
        };
        let s = select(BackendChoice::Auto, Some(&none), &[], None, kernels).unwrap();
        assert!(require_hardware(&s, Some(&none)).is_err());
        let mut sim = dev(0, "gfx1100", &BOTH);
        sim.name = "AMD Radeon RX 7900 XTX (simulated, dsxor hipsim)".into();
        let view = HipView {
            unavailable: None,
            devices: vec![sim],
            gpu_present: Some("HIP lists 1 device(s)".into()),
        };
        let s = select(BackendChoice::Hip, Some(&view), &[], None, kernels).unwrap();
        let e = require_hardware(&s, Some(&view)).unwrap_err();
        assert!(e.to_string().contains("simulated"), "{e}");
        let real = HipView {
            devices: vec![dev(0, "gfx1100", &BOTH)],
            ..view
        };
        let s = select(BackendChoice::Hip, Some(&real), &[], None, kernels).unwrap();
        assert!(require_hardware(&s, Some(&real)).is_ok());
    }

    #[test]
    fn library_errors_become_one_line() {
        let e = crate::hip::HipError::LibraryNotFound {
            attempts: vec![
                crate::hip::LoadAttempt {
                    candidate: "/opt/rocm/lib/libamdhip64.so".into(),
                    reason: "not found".into(),
                },
                crate::hip::LoadAttempt {
                    candidate: "libamdhip64.so".into(),
                    reason: "not found".into(),
                },
            ],
        };
        let view = HipView::from_probe(&Err(e));
        let l = view.unavailable.expect("a load failure is a reason");
        assert!(!l.contains('\n'));
        assert!(l.starts_with("libamdhip64 could not be loaded"), "{l}");
        // Counted, not listed: `dsxor info` lists them once.
        assert!(l.contains("2 candidates tried"), "{l}");
        assert!(!l.contains("/opt/rocm/lib/libamdhip64.so"), "{l}");
    }
}
