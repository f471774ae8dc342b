//! Facts about the machine beneath HIP that HIP does not report: the amdgpu
//! kernel driver's version, `HSA_OVERRIDE_GFX_VERSION`, and a device's
//! current shader clock. Each is read where Linux publishes it; absent
//! (no amdgpu, a container without sysfs, the simulator) is `None`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// ROCr's override of the target every agent reports (ROCR-Runtime
/// `core/runtime/amd_gpu_agent.cpp` reads `HSA_OVERRIDE_GFX_VERSION` as
/// `major.minor.stepping` and reports `gfx<major><minor><stepping>` as the
/// agent's ISA instead of the silicon's): a gfx1101 under `11.0.0` reports
/// gfx1100 and loads gfx1100 code objects.
pub const ENV_HSA_OVERRIDE: &str = "HSA_OVERRIDE_GFX_VERSION";

/// The override as set in this process's environment, if any.
pub fn hsa_override_gfx_version() -> Option<String> {
    std::env::var(ENV_HSA_OVERRIDE)
        .ok()
        .filter(|v| !v.trim().is_empty())
}

/// The processor an override names (`11.0.0` → `gfx1100`, `9.0.10` →
/// `gfx90a`: the stepping is one hex digit), or None when malformed.
pub fn override_processor(value: &str) -> Option<String> {
    let mut it = value.trim().split('.');
    let major: u32 = it.next()?.parse().ok()?;
    let minor: u32 = it.next()?.parse().ok()?;
    let stepping: u32 = it.next()?.parse().ok()?;
    if it.next().is_some() || minor > 9 || stepping > 15 {
        return None;
    }
    Some(format!("gfx{major}{minor}{stepping:x}"))
}

/// The amdgpu kernel module's version (`/sys/module/amdgpu/version`; only a
/// DKMS/out-of-tree amdgpu has one — an in-tree driver is versioned by the
/// kernel, given then as `kernel <release>`).
pub fn amdgpu_driver_version() -> Option<String> {
    amdgpu_driver_version_in(Path::new("/"))
}

fn amdgpu_driver_version_in(root: &Path) -> Option<String> {
    let module = root.join("sys/module/amdgpu");
    if !module.exists() {
        return None;
    }
    if let Ok(v) = std::fs::read_to_string(module.join("version")) {
        let v = v.trim();
        if !v.is_empty() {
            return Some(v.to_string());
        }
    }
    std::fs::read_to_string(root.join("proc/sys/kernel/osrelease"))
        .ok()
        .map(|r| format!("in-tree (kernel {})", r.trim()))
}

/// A device's shader clock as the amdgpu driver reports it now
/// (`pp_dpm_sclk`: one line per DPM level, the current one marked `*`;
/// `power_dpm_force_performance_level`: `auto`, `high`, `manual`, …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockState {
    /// The current level's shader clock, MHz.
    pub sclk_mhz: Option<u32>,
    /// The highest level's, MHz.
    pub sclk_max_mhz: Option<u32>,
    pub performance_level: Option<String>,
    /// The sysfs directory read.
    pub source: String,
}

/// The clock state of the device at PCI address `bus_id`
/// (`0000:03:00.0`), or None when its sysfs directory has no DPM files.
pub fn clock_state(bus_id: &str) -> Option<ClockState> {
    clock_state_in(Path::new("/"), bus_id)
}

fn clock_state_in(root: &Path, bus_id: &str) -> Option<ClockState> {
    let dir: PathBuf = root.join("sys/bus/pci/devices").join(bus_id.to_lowercase());
    let sclk = std::fs::read_to_string(dir.join("pp_dpm_sclk")).ok()?;
    let mhz = |line: &str| -> Option<u32> {
        let f = line.split_whitespace().nth(1)?;
        f.trim_end_matches("Mhz")
            .trim_end_matches("MHz")
            .parse()
            .ok()
    };
    let levels: Vec<&str> = sclk.lines().filter(|l| !l.trim().is_empty()).collect();
    Some(ClockState {
        sclk_mhz: levels
            .iter()
            .find(|l| l.trim_end().ends_with('*'))
            .and_then(|l| mhz(l)),
        sclk_max_mhz: levels.iter().filter_map(|l| mhz(l)).max(),
        performance_level: std::fs::read_to_string(dir.join("power_dpm_force_performance_level"))
            .ok()
            .map(|s| s.trim().to_string()),
        source: dir.display().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_names_a_processor() {
        assert_eq!(override_processor("11.0.0").as_deref(), Some("gfx1100"));
        assert_eq!(override_processor("10.3.0").as_deref(), Some("gfx1030"));
        assert_eq!(override_processor("9.0.10").as_deref(), Some("gfx90a"));
        assert_eq!(override_processor("11.0"), None);
        assert_eq!(override_processor("eleven"), None);
    }

    #[test]
    fn sysfs_reads() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(amdgpu_driver_version_in(root.path()), None);
        let m = root.path().join("sys/module/amdgpu");
        std::fs::create_dir_all(&m).unwrap();
        std::fs::write(m.join("version"), "6.8.5\n").unwrap();
        assert_eq!(
            amdgpu_driver_version_in(root.path()).as_deref(),
            Some("6.8.5")
        );

        let d = root.path().join("sys/bus/pci/devices/0000:03:00.0");
        std::fs::create_dir_all(&d).unwrap();
        assert_eq!(clock_state_in(root.path(), "0000:03:00.0"), None);
        std::fs::write(
            d.join("pp_dpm_sclk"),
            "0: 500Mhz\n1: 1800Mhz *\n2: 2500Mhz\n",
        )
        .unwrap();
        std::fs::write(d.join("power_dpm_force_performance_level"), "auto\n").unwrap();
        let c = clock_state_in(root.path(), "0000:03:00.0").unwrap();
        assert_eq!((c.sclk_mhz, c.sclk_max_mhz), (Some(1800), Some(2500)));
        assert_eq!(c.performance_level.as_deref(), Some("auto"));
    }
}
