//! The throughput ceiling of `ds_xor_rtn_b64`, derived (never measured) from
//! the device's own attributes:
//!
//! ```text
//! ceiling [lane-ops/s] = compute_units × clock [Hz] × b64 atomic lanes per clock per CU
//! b64 atomic lanes per clock per CU = (LDS integer atomic units per WGP / CUs per WGP)
//!                                     / DWORDs per b64 lane
//!                                   = (64 / 2) / 2 = 16
//! ```
//!
//! Sources (AMD "RDNA3" Instruction Set Architecture Reference Guide,
//! February 2023):
//! - §1.2.2.1 "Local Data Share (LDS)": each WGP's LDS "is configured with 64
//!   banks, each with 512 entries of 4 bytes", and "contains 64 integer
//!   atomic units to enable fast, unordered atomic operations".
//! - §12.1 "Overview": the 64 banks are "two sets of 32-banks each", one set
//!   per pair of SIMD32s (one CU of the WGP's two), each bank "a 512x32
//!   two-port RAM (1R/1W per clock cycle)".
//!
//! Policy where the guide is silent: an atomic unit is DWORD-wide (one per
//! DWORD bank, 64 of each per WGP), so a 64-bit atomic occupies two units
//! for one clock, and the read-modify-write fits in one clock thanks to the
//! banks' 1R/1W ports. The ceiling is therefore 16 `ds_xor_rtn_b64`
//! lane-operations per clock per CU, with no bank conflict. The guide gives
//! no atomic latency or pipelining figure; if a real GPU reaches more than
//! 100 % of this ceiling, the policy is wrong, and the record shows it.
//!
//! The clock is the device's *peak* shader clock (`hipDeviceAttributeClockRate`,
//! kHz), so the fraction is conservative: a device running below peak shows
//! a lower fraction, never a higher one.

use serde::{Deserialize, Serialize};

use crate::backend::{ComputeUnit, DeviceInfo};

/// LDS integer atomic units per WGP (RDNA3 ISA guide §1.2.2.1).
pub const LDS_ATOMIC_UNITS_PER_WGP: u32 = 64;
/// CUs per WGP (RDNA3 ISA guide §12.1: one set of 32 banks per SIMD32 pair).
pub const CUS_PER_WGP: u32 = 2;
/// DWORDs a `ds_xor_rtn_b64` lane updates (DATA is a 64-bit pair).
pub const DWORDS_PER_B64_LANE: u32 = 2;
/// Bytes one lane-operation updates atomically (reported as LDS bytes/s).
pub const BYTES_PER_LANE_OP: u32 = 8;

/// `ds_xor_rtn_b64` lanes per clock per CU under the policy above.
pub const B64_LANES_PER_CLOCK_PER_CU: u32 =
    LDS_ATOMIC_UNITS_PER_WGP / CUS_PER_WGP / DWORDS_PER_B64_LANE;

/// The formula as printed in the output and the record.
pub const FORMULA: &str = "ceiling = compute_units x clock_hz x b64_lanes_per_clock_per_cu; \
b64_lanes_per_clock_per_cu = (64 LDS atomic units per WGP / 2 CUs per WGP) / 2 DWORDs per b64 lane = 16";

/// Where the per-CU rate comes from.
pub const SOURCES: &[&str] = &[
    "AMD RDNA3 ISA Reference Guide (Feb 2023) 1.2.2.1 Local Data Share: 64 banks of 512 x 4 bytes per WGP; 64 integer atomic units",
    "AMD RDNA3 ISA Reference Guide (Feb 2023) 12.1 Overview: two sets of 32 banks, one per SIMD32 pair; each bank 512x32 two-port RAM, 1R/1W per clock",
    "dsxor policy (guide silent): one DWORD-wide atomic unit per bank, a b64 lane takes two, one read-modify-write per clock",
];

/// A ceiling computed for one device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ceiling {
    /// CUs (never WGPs): the runtime's count converted when it counts WGPs.
    pub compute_units: u32,
    /// How `compute_units` was derived from what the runtime reported, when
    /// it was converted (`48 WGPs x 2 CUs per WGP (hipDeviceAttributeMultiprocessorCount ...)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_units_from: Option<String>,
    pub clock_khz: u32,
    pub lanes_per_clock_per_cu: u32,
    /// Lane-operations per second.
    pub lane_ops_per_second: f64,
    /// LDS bytes updated per second at the ceiling (8 per lane-operation).
    pub lds_bytes_per_second: f64,
    pub formula: String,
    pub sources: Vec<String>,
}

/// Why no ceiling applies to a device.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoCeiling {
    #[error("the software device is not a GPU: its speed is the emulator's, so no hardware ceiling applies")]
    SoftwareDevice,
    #[error("device `{0}` reports no clock rate")]
    NoClock(String),
    #[error("device `{0}` reports no compute units")]
    NoComputeUnits(String),
    #[error("target `{0}` is not RDNA3 (gfx11): the per-CU rate is only grounded for gfx11")]
    NotRdna3(String),
}

/// The ceiling for a device, from its own attributes.
pub fn for_device(info: &DeviceInfo) -> Result<Ceiling, NoCeiling> {
    if info.backend == crate::backend::BackendKind::Emu {
        return Err(NoCeiling::SoftwareDevice);
    }
    // The rate is grounded in the RDNA3 guide only; other generations get no
    // fraction rather than a wrong one.
    if !info.target_id.starts_with("gfx11") {
        return Err(NoCeiling::NotRdna3(info.target_id.clone()));
    }
    let clock_khz = info
        .clock_khz
        .filter(|&c| c > 0)
        .ok_or_else(|| NoCeiling::NoClock(info.name.clone()))?;
    if info.compute_units == 0 {
        return Err(NoCeiling::NoComputeUnits(info.name.clone()));
    }
    // HIP counts WGPs on gfx10+ in WGP mode; the per-CU rate needs CUs.
    let unit = info.multiprocessor_unit().unwrap_or(ComputeUnit::Cu);
    Ok(from_multiprocessors(info.compute_units, unit, clock_khz))
}

/// The ceiling for `count` multiprocessors of `unit` at `clock_khz`.
pub fn from_multiprocessors(count: u32, unit: ComputeUnit, clock_khz: u32) -> Ceiling {
    let cus = count.saturating_mul(unit.cus());
    let mut c = compute(cus, clock_khz);
    if unit.cus() != 1 {
        c.compute_units_from = Some(format!(
            "{count} {}s x {} CUs per {} (hipDeviceAttributeMultiprocessorCount counts {}s on gfx10+ \
             in WGP mode: ROCm/clr rocclr/device/rocm/rocdevice.cpp maxComputeUnits_, rocsettings.cpp \
             enableWgpMode_)",
            unit.name(),
            unit.cus(),
            unit.name(),
            unit.name()
        ));
    }
    c
}

/// The ceiling for `compute_units` CUs at `clock_khz`.
pub fn compute(compute_units: u32, clock_khz: u32) -> Ceiling {
    let lane_ops =
        compute_units as f64 * clock_khz as f64 * 1e3 * B64_LANES_PER_CLOCK_PER_CU as f64;
    Ceiling {
        compute_units,
        compute_units_from: None,
        clock_khz,
        lanes_per_clock_per_cu: B64_LANES_PER_CLOCK_PER_CU,
        lane_ops_per_second: lane_ops,
        lds_bytes_per_second: lane_ops * BYTES_PER_LANE_OP as f64,
        formula: FORMULA.to_string(),
        sources: SOURCES.iter().map(|s| s.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendKind;
    use approx::assert_relative_eq;

    fn device(backend: BackendKind, target: &str, cus: u32, clock: Option<u32>) -> DeviceInfo {
        DeviceInfo {
            backend,
            name: "test device".into(),
            target_id: target.into(),
            wave_sizes: vec![32, 64],
            compute_units: cus,
            clock_khz: clock,
            lds_per_block: 65536,
            runtime_version: None,
            driver_version: None,
            pci_bus_id: None,
            uuid: None,
            placement: None,
        }
    }

    #[test]
    fn per_cu_rate_is_sixteen() {
        assert_eq!(B64_LANES_PER_CLOCK_PER_CU, 16);
    }

    #[test]
    fn rx_7900_xtx_at_peak_clock() {
        // 96 CUs (48 WGPs) at 2.5 GHz: 96 * 2.5e9 * 16 = 3.84e12 lane-ops/s.
        // HIP reports 48 (WGPs) on gfx11 unless GPU_ENABLE_WGP_MODE=0.
        let wgp_mode_off = crate::hip::multiprocessor_unit(
            "gfx1100",
            std::env::var(crate::hip::ENV_WGP_MODE).ok().as_deref(),
        ) == crate::hip::ComputeUnit::Cu;
        let reported = if wgp_mode_off { 96 } else { 48 };
        let c = for_device(&device(
            BackendKind::Hip,
            "gfx1100",
            reported,
            Some(2_500_000),
        ))
        .unwrap();
        assert_eq!(c.compute_units, 96);
        assert_eq!(c.compute_units_from.is_some(), !wgp_mode_off);
        assert_relative_eq!(c.lane_ops_per_second, 3.84e12);
        let wgps = from_multiprocessors(48, crate::hip::ComputeUnit::Wgp, 2_500_000);
        assert_eq!(wgps.compute_units, 96);
        assert!(wgps
            .compute_units_from
            .unwrap()
            .starts_with("48 WGPs x 2 CUs per WGP"));
        assert_relative_eq!(wgps.lane_ops_per_second, 3.84e12);
        assert_relative_eq!(
            from_multiprocessors(96, crate::hip::ComputeUnit::Cu, 2_500_000).lane_ops_per_second,
            3.84e12
        );
        assert_relative_eq!(c.lds_bytes_per_second, 3.84e12 * 8.0);
        assert!(c.formula.contains("compute_units"));
        assert_eq!(c.sources.len(), 3);
    }

    #[test]
    fn software_device_has_no_ceiling() {
        let e = for_device(&device(BackendKind::Emu, "gfx1100", 1, Some(1000))).unwrap_err();
        assert_eq!(e, NoCeiling::SoftwareDevice);
    }

    #[test]
    fn missing_attributes_give_no_ceiling() {
        assert!(matches!(
            for_device(&device(BackendKind::Hip, "gfx1100", 96, None)),
            Err(NoCeiling::NoClock(_))
        ));
        assert!(matches!(
            for_device(&device(BackendKind::Hip, "gfx1100", 96, Some(0))),
            Err(NoCeiling::NoClock(_))
        ));
        assert!(matches!(
            for_device(&device(BackendKind::Hip, "gfx1100", 0, Some(2_500_000))),
            Err(NoCeiling::NoComputeUnits(_))
        ));
        assert!(matches!(
            for_device(&device(BackendKind::Hip, "gfx90a", 104, Some(1_700_000))),
            Err(NoCeiling::NotRdna3(_))
        ));
    }
}
