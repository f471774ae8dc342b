//! `dsxor info`: the HIP environment as a user reads it (text) or a script
//! does (JSON). Built from `probe`; main.rs only prints it.

use serde::Serialize;

use super::{probe, Devices, HipError, HipReport};
use crate::case::WaveSize;
use crate::codeobj::{embedded, find_embedded, CodeObject};

/// One code object embedded in the binary (`codeobj::embedded`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct InfoEmbedded {
    pub target: String,
    pub wave: u32,
    /// `source` (compiled by this build) or `prebuilt` (kernels/prebuilt/).
    pub origin: String,
    /// Kernel names in it (empty when it could not be read).
    pub kernels: Vec<String>,
    /// Why it could not be read (a broken build), when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn embedded_list() -> Vec<InfoEmbedded> {
    embedded()
        .iter()
        .map(|o| {
            let (kernels, error) = match CodeObject::parse(o.bytes) {
                Ok(c) => (c.kernels.iter().map(|k| k.name.clone()).collect(), None),
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            InfoEmbedded {
                target: o.target.to_string(),
                wave: o.wave.lanes(),
                origin: o.origin.name().to_string(),
                kernels,
                error,
            }
        })
        .collect()
}

/// Wave sizes among `waves` for which an embedded object runs on `target_id`.
fn embedded_waves(target_id: &str, waves: &[u32]) -> Vec<u32> {
    waves
        .iter()
        .copied()
        .filter(|&w| {
            WaveSize::from_lanes(w).is_some_and(|ws| find_embedded(target_id, ws).is_some())
        })
        .collect()
}

/// `48 WGPs (96 CUs)`, `104 CUs`.
fn units_text(n: u32, unit: Option<super::ComputeUnit>) -> String {
    match unit {
        Some(u @ super::ComputeUnit::Wgp) => {
            format!("{n} WGPs ({} CUs)", n.saturating_mul(u.cus()))
        }
        _ => format!("{n} CUs"),
    }
}

/// One device as `info` shows it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct InfoDevice {
    pub index: u32,
    /// Set when the device's properties could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Full target id (`gcnArchName`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// `hipDeviceAttributeMultiprocessorCount`, counted in `compute_unit`s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_units: Option<u32>,
    /// What `compute_units` counts: `WGP` (gfx10 and later in WGP mode,
    /// ROCm's default) or `CU` (see `hip::multiprocessor_unit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_unit: Option<super::ComputeUnit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_khz: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lds_per_block: Option<u32>,
    /// The runtime's default wavefront size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wavefront_size: Option<u32>,
    /// Wave sizes the target can run.
    pub wave_sizes: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    /// `hipDeviceGetUuid` as text (policy `uuid-text`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Wave sizes this binary has an embedded code object for, on this target.
    pub embedded_waves: Vec<u32>,
}

/// Everything `info` reports.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Info {
    /// The library that loaded, or null.
    pub library: Option<String>,
    /// The candidate that loaded it (a path, or a soname the loader resolved).
    pub library_loaded_as: Option<String>,
    /// Why no library loaded: every candidate and its failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_error: Option<String>,
    pub runtime_version: Option<String>,
    /// `hipDriverGetVersion`: HIP's own version (clr returns HIP_VERSION,
    /// hipamd/src/hip_context.cpp), not the kernel driver's.
    pub driver_version: Option<String>,
    /// The amdgpu kernel driver's version (sysfs), when present.
    pub amdgpu_driver_version: Option<String>,
    /// `HSA_OVERRIDE_GFX_VERSION`, when set: devices then report its target.
    pub hsa_override_gfx_version: Option<String>,
    /// Device-visibility variables that are set.
    pub visibility: Vec<(String, String)>,
    pub devices: Vec<InfoDevice>,
    /// Why there is no usable device (HIP's own error name included), or null.
    pub no_device_reason: Option<String>,
    /// HIP's error name for the no-device case (`hipErrorNoDevice`), or null.
    pub hip_error: Option<String>,
    /// The code objects embedded in this binary, per target and wave size.
    pub embedded: Vec<InfoEmbedded>,
}

impl Info {
    /// Probe the environment and summarise it.
    pub fn gather() -> Info {
        match probe() {
            Ok(r) => Info::from_report(&r),
            Err(e) => Info::from_load_error(&e),
        }
    }

    pub fn from_load_error(e: &HipError) -> Info {
        let one_line = e.one_line();
        Info {
            library_loaded_as: None,
            library: None,
            library_error: Some(e.to_string()),
            runtime_version: None,
            driver_version: None,
            amdgpu_driver_version: crate::hip::host::amdgpu_driver_version(),
            hsa_override_gfx_version: crate::hip::host::hsa_override_gfx_version(),
            visibility: Vec::new(),
            devices: Vec::new(),
            no_device_reason: Some(format!("no HIP runtime: {one_line}")),
            hip_error: None,
            embedded: embedded_list(),
        }
    }

    pub fn from_report(r: &HipReport) -> Info {
        let mut devices = Vec::new();
        let mut hip_error = None;
        match &r.devices {
            Devices::Found(list) => {
                for (i, d) in list.iter().enumerate() {
                    let index = u32::try_from(i).unwrap_or(u32::MAX);
                    devices.push(match d {
                        Ok(p) => InfoDevice {
                            index: p.index,
                            error: None,
                            name: Some(p.name.clone()),
                            target_id: Some(p.gcn_arch_name.clone()),
                            compute_units: Some(p.compute_units),
                            compute_unit: Some(p.compute_unit()),
                            clock_khz: Some(p.clock_khz),
                            lds_per_block: Some(p.lds_per_block),
                            wavefront_size: Some(p.wavefront_size),
                            wave_sizes: p.wave_sizes(),
                            pci_bus_id: Some(p.pci_bus_id.clone()),
                            uuid: p.uuid.clone(),
                            embedded_waves: embedded_waves(&p.gcn_arch_name, &p.wave_sizes()),
                        },
                        Err(e) => InfoDevice {
                            index,
                            error: Some(e.to_string()),
                            name: None,
                            target_id: None,
                            compute_units: None,
                            compute_unit: None,
                            clock_khz: None,
                            lds_per_block: None,
                            wavefront_size: None,
                            wave_sizes: Vec::new(),
                            pci_bus_id: None,
                            uuid: None,
                            embedded_waves: Vec::new(),
                        },
                    });
                }
            }
            Devices::None { error, .. } => {
                hip_error = error
                    .as_ref()
                    .and_then(|e| e.status())
                    .map(|s| s.name.clone());
            }
        }
        Info {
            library: Some(r.library.display_path()),
            library_loaded_as: Some(r.library.candidate.clone()),
            library_error: None,
            runtime_version: r.runtime_version.as_ref().ok().map(|v| v.to_string()),
            driver_version: r.driver_version.as_ref().ok().map(|v| v.to_string()),
            amdgpu_driver_version: crate::hip::host::amdgpu_driver_version(),
            hsa_override_gfx_version: crate::hip::host::hsa_override_gfx_version(),
            visibility: r.visibility.clone(),
            devices,
            no_device_reason: r.no_device_reason(),
            hip_error,
            embedded: embedded_list(),
        }
    }

    /// True when at least one device's properties were read.
    pub fn has_usable_device(&self) -> bool {
        self.devices.iter().any(|d| d.error.is_none())
    }

    /// The human-readable report.
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        match (&self.library, &self.library_error) {
            (Some(lib), _) => match &self.library_loaded_as {
                Some(c) if c != lib => s.push_str(&format!("HIP library: {lib} (loaded as {c})\n")),
                _ => s.push_str(&format!("HIP library: {lib}\n")),
            },
            (None, Some(e)) => s.push_str(&format!("HIP library: not found\n{e}\n")),
            (None, None) => s.push_str("HIP library: not found\n"),
        }
        if self.library.is_some() {
            s.push_str(&format!(
                "HIP runtime version: {}\nHIP version (hipDriverGetVersion, HIP's own, not the kernel driver's): {}\n",
                self.runtime_version.as_deref().unwrap_or("unknown"),
                self.driver_version.as_deref().unwrap_or("unknown"),
            ));
        }
        s.push_str(&format!(
            "amdgpu kernel driver: {}\n",
            self.amdgpu_driver_version
                .as_deref()
                .unwrap_or("not loaded (no /sys/module/amdgpu)")
        ));
        if let Some(v) = &self.hsa_override_gfx_version {
            s.push_str(&format!(
                "HSA_OVERRIDE_GFX_VERSION={v}: devices report {} instead of their own target\n",
                crate::hip::host::override_processor(v)
                    .unwrap_or_else(|| "an unparseable target".into())
            ));
        }
        for (k, v) in &self.visibility {
            if k != crate::hip::host::ENV_HSA_OVERRIDE {
                s.push_str(&format!("{k}={v}\n"));
            }
        }
        if let Some(reason) = &self.no_device_reason {
            s.push_str(&format!("devices: none — {reason}\n"));
        }
        for d in &self.devices {
            match &d.error {
                Some(e) => s.push_str(&format!("device {}: unusable: {e}\n", d.index)),
                None => s.push_str(&format!(
                    "device {}: {} — target {}, {}, {} MHz, {} bytes LDS per workgroup, default wave{} (runs {}), PCI {}\n",
                    d.index,
                    d.name.as_deref().unwrap_or("?"),
                    d.target_id.as_deref().unwrap_or("?"),
                    units_text(d.compute_units.unwrap_or(0), d.compute_unit),
                    d.clock_khz.unwrap_or(0) / 1000,
                    d.lds_per_block.unwrap_or(0),
                    d.wavefront_size.unwrap_or(0),
                    d.wave_sizes
                        .iter()
                        .map(|w| format!("wave{w}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    d.pci_bus_id.as_deref().unwrap_or("?"),
                )),
            }
            if let Some(u) = &d.uuid {
                s.push_str(&format!("  uuid {u}\n"));
            }
            if d.error.is_none() {
                let target = d.target_id.as_deref().unwrap_or("?");
                if d.embedded_waves.is_empty() {
                    s.push_str(&format!(
                        "  no embedded kernel for {target} (see `embedded kernels` below)\n"
                    ));
                } else {
                    s.push_str(&format!(
                        "  embedded kernels for {target}: {}\n",
                        d.embedded_waves
                            .iter()
                            .map(|w| format!("wave{w}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
        s.push_str("embedded kernels:\n");
        if self.embedded.is_empty() {
            s.push_str("  none\n");
        }
        for e in &self.embedded {
            match &e.error {
                None => s.push_str(&format!(
                    "  {} wave{} ({}): {}\n",
                    e.target,
                    e.wave,
                    e.origin,
                    e.kernels.join(", ")
                )),
                Some(err) => s.push_str(&format!(
                    "  {} wave{} ({}): unreadable: {err}\n",
                    e.target, e.wave, e.origin
                )),
            }
        }
        s
    }
}
