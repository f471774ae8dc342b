//! Backend selection: `--backend auto|hip|emu`. `auto` takes a HIP device
//! whose target has an embedded conformance kernel for a wave size the run
//! and the device share, else the software device, and says in one line
//! why. `hip` without a usable device is an environment failure (exit 3)
//! carrying that same reason.

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

/// What HIP offers, reduced to what selection needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipView {
    /// One line: why there is no HIP device at all (library or device).
    pub unavailable: Option<String>,
    pub devices: Vec<DeviceView>,
}

impl HipView {
    pub fn from_probe(probe: &Result<HipReport, HipError>) -> HipView {
        match probe {
            Err(e) => HipView {
                // The loader's error lists every path tried, one a line; the
                // notice is one line (`HipError::one_line`).
                unavailable: Some(e.one_line()),
                devices: Vec::new(),
            },
            Ok(report) => HipView {
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
                .filter(|d| device.map_or(true, |n| d.index == n))
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
                            "no conformance kernel for {} {} (device {}: {})",
                            d.target_id,
                            if requested.is_empty() {
                                names(&d.wave_sizes)
                            } else {
                                names(requested)
                            },
                            d.index,
                            d.name
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
        (Err(why), _) => emu(format!("software device ({EMU_TARGET} interpreter): {why}")),
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
        // --device 0 has no kernel: hip refuses, auto falls back saying why.
        let e = select(BackendChoice::Hip, Some(&view), &[], Some(0), kernels).unwrap_err();
        assert!(
            e.to_string().contains("no conformance kernel for gfx1030"),
            "{e}"
        );
        let s = select(BackendChoice::Auto, Some(&view), &[], Some(0), kernels).unwrap();
        assert_eq!(s.hip_device, None);
        assert!(s.reason.contains("gfx1030"));
        let e = select(BackendChoice::Hip, Some(&view), &[], Some(7), kernels).unwrap_err();
        assert!(e.to_string().contains("no HIP device 7"), "{e}");
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
        assert!(
            l.contains("/opt/rocm/lib/libamdhip64.so") && l.contains("libamdhip64.so"),
            "{l}"
        );
    }
}
