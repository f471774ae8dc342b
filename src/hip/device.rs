//! Versions and device queries.

use std::os::raw::{c_char, c_int};

use super::{entry, sys, Hip, HipError};

/// A HIP version number as `hipRuntimeGetVersion` returns it:
/// `major * 10_000_000 + minor * 100_000 + patch` (the `HIP_VERSION`
/// formula of hip/hip_version.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HipVersion {
    pub raw: i32,
}

impl HipVersion {
    pub fn major(self) -> i32 {
        self.raw / 10_000_000
    }
    pub fn minor(self) -> i32 {
        (self.raw / 100_000) % 100
    }
    pub fn patch(self) -> i32 {
        self.raw % 100_000
    }
}

impl std::fmt::Display for HipVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major(), self.minor(), self.patch())
    }
}

/// What dsxor needs to know about one device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceProps {
    /// HIP's device ordinal (after HIP_VISIBLE_DEVICES filtering).
    pub index: u32,
    /// `hipDeviceGetName`.
    pub name: String,
    /// `gcnArchName`, the full target id (`gfx1100`, `gfx90a:sramecc+:xnack-`).
    pub gcn_arch_name: String,
    /// `hipDeviceAttributeMultiprocessorCount`, in the unit of
    /// `compute_unit()`: WGPs on gfx10 and later, CUs before.
    pub compute_units: u32,
    /// `hipDeviceAttributeClockRate`, kHz.
    pub clock_khz: u32,
    /// `hipDeviceAttributeMaxSharedMemoryPerBlock`: LDS bytes a workgroup may allocate.
    pub lds_per_block: u32,
    /// `hipDeviceAttributeWarpSize`: the default wavefront size.
    pub wavefront_size: u32,
    /// `hipDeviceGetPCIBusId` (`0000:03:00.0`).
    pub pci_bus_id: String,
    /// `hipDeviceGetUuid`, as text ([`uuid_text`]); None when the runtime
    /// lacks the entry point or reports no UUID (all zero bytes).
    pub uuid: Option<String>,
}

impl DeviceProps {
    /// The processor part of the target id (`gfx90a` of `gfx90a:xnack-`).
    pub fn processor(&self) -> &str {
        self.gcn_arch_name
            .split(':')
            .next()
            .unwrap_or(&self.gcn_arch_name)
    }

    /// What `compute_units` counts, under this process's environment.
    pub fn compute_unit(&self) -> ComputeUnit {
        multiprocessor_unit(
            self.processor(),
            std::env::var(ENV_WGP_MODE).ok().as_deref(),
        )
    }

    /// Wave sizes the device can run: gfx10 and later (RDNA) run wave32 and
    /// wave64 (the `wavefrontsize32`/`wavefrontsize64` target features,
    /// LLVM AMDGPUUsage.rst "Target Features"; exercised for gfx1010 by
    /// llvm/test/CodeGen/AMDGPU/hsa-metadata-wavefrontsize.ll); GCN/CDNA
    /// (gfx9 and earlier) are wave64 only.
    pub fn wave_sizes(&self) -> Vec<u32> {
        match processor_generation(self.processor()) {
            Some(g) if g >= 10 => vec![32, 64],
            Some(_) => vec![64],
            // Unknown naming: trust the runtime's default only.
            None => vec![self.wavefront_size],
        }
    }
}

/// What `hipDeviceAttributeMultiprocessorCount` counts.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum ComputeUnit {
    /// Compute units (GCN/CDNA, or RDNA with WGP mode off).
    #[serde(rename = "CU")]
    Cu,
    /// Workgroup processors, two CUs each (RDNA in WGP mode).
    #[serde(rename = "WGP")]
    Wgp,
}

impl ComputeUnit {
    pub fn name(self) -> &'static str {
        match self {
            ComputeUnit::Cu => "CU",
            ComputeUnit::Wgp => "WGP",
        }
    }

    /// CUs in one of this unit (RDNA3 ISA guide §1.2: a WGP is two CUs).
    pub fn cus(self) -> u32 {
        match self {
            ComputeUnit::Cu => 1,
            ComputeUnit::Wgp => 2,
        }
    }
}

/// The environment variable ROCm's runtime reads to leave WGP mode
/// (rocclr utils/flags.hpp: `GPU_ENABLE_WGP_MODE`, default true).
pub const ENV_WGP_MODE: &str = "GPU_ENABLE_WGP_MODE";

/// What the runtime's multiprocessor count counts on `processor`, given the
/// value of `GPU_ENABLE_WGP_MODE`. ROCm/clr rocclr/device/rocm/rocsettings.cpp
/// sets `enableWgpMode_ = GPU_ENABLE_WGP_MODE` for gfxip major >= 10, and
/// rocdevice.cpp halves HSA's CU count into `maxComputeUnits_` when it is on
/// (hipDeviceAttributeMultiprocessorCount reads `maxComputeUnits_`).
/// Confirmed on ROCm 5.4.2 with AMD's emulator (tests/it/rocjitsu.rs): an
/// emulated 96-CU W7900 reports 48, or 96 with `GPU_ENABLE_WGP_MODE=0`.
/// The value is read as rocclr reads a boolean flag (rocclr/utils/flags.cpp,
/// `Flag::setValue`, `Tbool`: `strcmp(value, "true") == 0 || atoi(value) != 0`):
/// WGP mode is on when unset, exactly `true`, or a non-zero leading integer;
/// `0`, `false`, `FALSE`, `yes`, and the empty string all turn it off.
pub fn multiprocessor_unit(processor: &str, wgp_mode: Option<&str>) -> ComputeUnit {
    let wgp_on = wgp_mode.is_none_or(rocclr_bool);
    match processor_generation(processor) {
        Some(g) if g >= 10 && wgp_on => ComputeUnit::Wgp,
        _ => ComputeUnit::Cu,
    }
}

/// rocclr's `Tbool` (above): exactly `true`, or C's `atoi` (blanks, a sign,
/// decimal digits) giving non-zero.
fn rocclr_bool(value: &str) -> bool {
    if value == "true" {
        return true;
    }
    let v = value.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let v = v.strip_prefix(['+', '-']).unwrap_or(v);
    v.bytes().take_while(u8::is_ascii_digit).any(|d| d != b'0')
}

/// `gfx1100` → 11, `gfx90a` → 9, `gfx942` → 9, `gfx1250` → 12.
fn processor_generation(processor: &str) -> Option<u32> {
    let digits = processor.strip_prefix("gfx")?;
    // Generation is all digits but the last two (stepping/variant); gfx9xx
    // and gfx8xx have three characters, gfx1xxx four.
    if digits.len() < 3 || !digits.is_char_boundary(digits.len() - 2) {
        return None;
    }
    digits[..digits.len() - 2].parse().ok()
}

/// Read a NUL-terminated C string out of a fixed buffer, without reading past it.
/// Policy `uuid-text`: the 16 bytes `hipDeviceGetUuid` fills, as text.
/// ROCm/clr copies them from the device's `info_.uuid_`
/// (hipamd/src/hip_device.cpp, `hipDeviceGetUuid`), which ROCm fills with
/// the printable characters of the agent's UUID after ROCr's `GPU-` prefix;
/// so bytes that are all printable ASCII are shown as `GPU-<bytes>` (the
/// form `HIP_VISIBLE_DEVICES` accepts), anything else as `GPU-` and 32
/// lower-case hex digits. All zero bytes (a runtime or device without one)
/// is no UUID. A NUL ends the text early, as `strncpy` into the buffer
/// would leave it.
pub fn uuid_text(bytes: &[u8; 16]) -> Option<String> {
    if bytes.iter().all(|&b| b == 0) {
        return None;
    }
    let text: Vec<u8> = bytes.iter().copied().take_while(|&b| b != 0).collect();
    if !text.is_empty() && text.iter().all(|b| b.is_ascii_graphic()) {
        return Some(format!("GPU-{}", String::from_utf8_lossy(&text)));
    }
    Some(format!(
        "GPU-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

fn c_buf_to_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The legacy `hipDeviceProp_t` with room behind it: if a runtime's
/// `hipGetDeviceProperties` ever wrote a larger struct, it would land in the
/// slack instead of on the stack beyond the buffer.
#[repr(C)]
struct PropsBuffer {
    props: sys::hipDeviceProp_t,
    slack: [u8; 4096],
}

impl Hip {
    pub fn runtime_version(&self) -> Result<HipVersion, HipError> {
        let f = entry!(
            self,
            hipRuntimeGetVersion,
            "reading the HIP runtime version"
        )?;
        let mut v: c_int = 0;
        // SAFETY: writes one int.
        let rc = unsafe { f(&mut v) };
        self.check("hipRuntimeGetVersion", rc, || {
            "reading the HIP runtime version".into()
        })?;
        Ok(HipVersion { raw: v })
    }

    pub fn driver_version(&self) -> Result<HipVersion, HipError> {
        let f = entry!(self, hipDriverGetVersion, "reading the HIP driver version")?;
        let mut v: c_int = 0;
        // SAFETY: writes one int.
        let rc = unsafe { f(&mut v) };
        self.check("hipDriverGetVersion", rc, || {
            "reading the HIP driver version".into()
        })?;
        Ok(HipVersion { raw: v })
    }

    /// `hipGetDeviceCount`. With no GPU HIP returns `hipErrorNoDevice`,
    /// which comes back as that error (`HipError::is_no_device`), not as 0.
    pub fn device_count(&self) -> Result<u32, HipError> {
        let doing = "counting devices";
        let f = entry!(self, hipGetDeviceCount, doing)?;
        let mut n: c_int = 0;
        // SAFETY: writes one int.
        let rc = unsafe { f(&mut n) };
        self.check("hipGetDeviceCount", rc, || doing.into())?;
        u32::try_from(n)
            .map_err(|_| HipError::Invalid(format!("hipGetDeviceCount reported {n} devices")))
    }

    fn ordinal(&self, index: u32) -> Result<c_int, HipError> {
        c_int::try_from(index)
            .map_err(|_| HipError::Invalid(format!("device index {index} is out of range")))
    }

    fn attribute(
        &self,
        index: u32,
        attr: sys::hipDeviceAttribute_t,
        what: &str,
    ) -> Result<i32, HipError> {
        let dev = self.ordinal(index)?;
        let doing = || format!("reading {what} of device {index}");
        let f = entry!(self, hipDeviceGetAttribute, doing())?;
        let mut v: c_int = 0;
        // SAFETY: writes one int for the integer attributes asked here.
        let rc = unsafe { f(&mut v, attr, dev) };
        self.check("hipDeviceGetAttribute", rc, doing)?;
        Ok(v)
    }

    fn attribute_u32(
        &self,
        index: u32,
        attr: sys::hipDeviceAttribute_t,
        what: &str,
    ) -> Result<u32, HipError> {
        let v = self.attribute(index, attr, what)?;
        u32::try_from(v)
            .map_err(|_| HipError::Invalid(format!("device {index} reported {what} = {v}")))
    }

    /// Everything dsxor records about device `index`. Integer properties
    /// come from `hipDeviceGetAttribute`, whose enumerators up to
    /// `hipDeviceAttributeWarpSize` keep their values from HIP 5 to HIP 7
    /// (HIP 6 renamed removed ones `Unused1..5` in place). The target id
    /// comes from `gcnArchName` of the legacy `hipGetDeviceProperties`
    /// symbol (see build/hip_bindgen.rs for why that symbol keeps the
    /// legacy layout on HIP 6/7): no attribute returns it.
    pub fn device(&self, index: u32) -> Result<DeviceProps, HipError> {
        use sys::hipDeviceAttribute_t as A;
        let dev = self.ordinal(index)?;

        let mut name = [0 as c_char; 256];
        let doing = || format!("reading the name of device {index}");
        let f = entry!(self, hipDeviceGetName, doing())?;
        // SAFETY: HIP writes at most `len` bytes, NUL included.
        let rc = unsafe { f(name.as_mut_ptr(), name.len() as c_int, dev) };
        self.check("hipDeviceGetName", rc, doing)?;

        let mut bus = [0 as c_char; 64];
        let doing = || format!("reading the PCI bus id of device {index}");
        let f = entry!(self, hipDeviceGetPCIBusId, doing())?;
        // SAFETY: HIP writes at most `len` bytes (snprintf), NUL included.
        let rc = unsafe { f(bus.as_mut_ptr(), bus.len() as c_int, dev) };
        self.check("hipDeviceGetPCIBusId", rc, doing)?;

        // Optional: a runtime without hipDeviceGetUuid (or one that fails
        // it) still runs; the record then names the device by its bus id.
        let uuid = match &self.inner.lib.hipDeviceGetUuid {
            Ok(f) => {
                let mut u = sys::hipUUID::default();
                // SAFETY: HIP writes the 16 bytes of the struct.
                let rc = unsafe { f(&mut u, dev) };
                (rc.0 == 0)
                    .then(|| uuid_text(&u.bytes.map(|c| c as u8)))
                    .flatten()
            }
            Err(_) => None,
        };

        let doing = || format!("reading gcnArchName of device {index}");
        let f = entry!(self, hipGetDeviceProperties, doing())?;
        // SAFETY: all-zero is a valid hipDeviceProp_t (plain integers,
        // arrays and nullable pointers).
        let mut buf: Box<PropsBuffer> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: the buffer is a hipDeviceProp_t with slack behind it.
        let rc = unsafe { f(&mut buf.props, dev) };
        self.check("hipGetDeviceProperties", rc, doing)?;
        let gcn_arch_name = c_buf_to_string(&buf.props.gcnArchName);
        if gcn_arch_name.is_empty() {
            return Err(HipError::Invalid(format!(
                "device {index}: hipGetDeviceProperties returned an empty gcnArchName"
            )));
        }

        Ok(DeviceProps {
            index,
            name: c_buf_to_string(&name),
            gcn_arch_name,
            compute_units: self.attribute_u32(
                index,
                A::hipDeviceAttributeMultiprocessorCount,
                "the multiprocessor count",
            )?,
            clock_khz: self.attribute_u32(
                index,
                A::hipDeviceAttributeClockRate,
                "the clock rate",
            )?,
            lds_per_block: self.attribute_u32(
                index,
                A::hipDeviceAttributeMaxSharedMemoryPerBlock,
                "LDS per block",
            )?,
            wavefront_size: self.attribute_u32(
                index,
                A::hipDeviceAttributeWarpSize,
                "the wavefront size",
            )?,
            pci_bus_id: c_buf_to_string(&bus),
            uuid,
        })
    }

    /// Make `index` the calling thread's current device.
    pub fn set_device(&self, index: u32) -> Result<(), HipError> {
        let dev = self.ordinal(index)?;
        let doing = || format!("selecting device {index}");
        let f = entry!(self, hipSetDevice, doing())?;
        // SAFETY: plain call.
        let rc = unsafe { f(dev) };
        self.check("hipSetDevice", rc, doing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_formula() {
        // libamdhip64 5.2 (Debian 12) reports 50221153 = 5.2.21153.
        let v = HipVersion { raw: 50_221_153 };
        assert_eq!((v.major(), v.minor(), v.patch()), (5, 2, 21153));
        assert_eq!(v.to_string(), "5.2.21153");
        assert_eq!(HipVersion { raw: 60_342_134 }.to_string(), "6.3.42134");
    }

    #[test]
    fn generations() {
        assert_eq!(processor_generation("gfx1100"), Some(11));
        assert_eq!(processor_generation("gfx1250"), Some(12));
        assert_eq!(processor_generation("gfx90a"), Some(9));
        assert_eq!(processor_generation("gfx942"), Some(9));
        assert_eq!(processor_generation("gfx803"), Some(8));
        assert_eq!(processor_generation("sm_80"), None);
        assert_eq!(processor_generation("gfx"), None);
    }

    #[test]
    fn wave_sizes_by_generation() {
        let mut d = DeviceProps {
            index: 0,
            name: String::new(),
            gcn_arch_name: "gfx1100".into(),
            compute_units: 96,
            clock_khz: 2_500_000,
            lds_per_block: 65536,
            wavefront_size: 32,
            pci_bus_id: String::new(),
            uuid: None,
        };
        assert_eq!(d.wave_sizes(), vec![32, 64]);
        d.gcn_arch_name = "gfx90a:sramecc+:xnack-".into();
        assert_eq!(d.processor(), "gfx90a");
        assert_eq!(d.wave_sizes(), vec![64]);
    }

    #[test]
    fn multiprocessors_are_wgps_on_rdna_unless_wgp_mode_is_off() {
        use ComputeUnit::*;
        assert_eq!(multiprocessor_unit("gfx1100", None), Wgp);
        assert_eq!(multiprocessor_unit("gfx1030", Some("1")), Wgp);
        assert_eq!(multiprocessor_unit("gfx1200", Some("true")), Wgp);
        assert_eq!(multiprocessor_unit("gfx1100", Some("0")), Cu);
        assert_eq!(multiprocessor_unit("gfx1100", Some("FALSE")), Cu);
        // rocclr's Tbool: only "true" or a non-zero atoi() is true.
        assert_eq!(multiprocessor_unit("gfx1100", Some("TRUE")), Cu);
        assert_eq!(multiprocessor_unit("gfx1100", Some("yes")), Cu);
        assert_eq!(multiprocessor_unit("gfx1100", Some("")), Cu);
        assert_eq!(multiprocessor_unit("gfx1100", Some(" 2")), Wgp);
        assert_eq!(multiprocessor_unit("gfx1100", Some("-1")), Wgp);
        assert_eq!(multiprocessor_unit("gfx90a", None), Cu);
        assert_eq!(multiprocessor_unit("gfx942", Some("1")), Cu);
        assert_eq!((Wgp.cus(), Cu.cus()), (2, 1));
    }

    #[test]
    fn c_strings_stop_at_nul_or_end() {
        let buf: Vec<c_char> = b"gfx1100\0junk".iter().map(|&b| b as c_char).collect();
        assert_eq!(c_buf_to_string(&buf), "gfx1100");
        let full: Vec<c_char> = b"abc".iter().map(|&b| b as c_char).collect();
        assert_eq!(c_buf_to_string(&full), "abc");
    }
}
