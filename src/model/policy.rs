//! Named policies for what the ISA guide leaves open or answers with "fault".
//!
//! Every value here is either a sourced hardware fact or an ASSUMPTION that
//! says so. The checker judges device results against these; a run records
//! what the device actually did, so an assumption can be confirmed or refuted
//! on hardware without changing the model.

use serde::{Deserialize, Serialize};

/// Largest LDS allocation of one workgroup on gfx11, in bytes.
///
/// Source: LLVM `llvm/lib/Target/AMDGPU/AMDGPU.td`, `FeatureGFX11` includes
/// `FeatureLocalMemorySize65536` (renamed `AddressableLocalMemorySize65536`
/// in later LLVM); docs/src/internals/facts.md ("up to 64 KiB").
pub const LDS_MAX_BYTES_PER_GROUP: u32 = 65536;

/// LDS allocation block ("granule") on gfx11, in bytes, as LLVM encodes it.
///
/// Source: LLVM `llvm/lib/Target/AMDGPU/AMDGPUAsmPrinter.cpp`
/// (`getSIProgramInfo`): "LDS is allocated in 128 dword blocks"
/// (`LDSAlignShift = 9`) for every generation from SEA_ISLANDS (gfx7) on,
/// gfx11 included; COMPUTE_PGM_RSRC2.LDS_SIZE counts these blocks
/// (AMDGPUUsage.rst, "compute_pgm_rsrc2", granulated_lds_size).
pub const LDS_GRANULE_GFX11_LLVM: u32 = 512;

/// The block Mesa says the hardware itself aligns an allocation to on
/// gfx10.3+ (gfx11 included): 256 dwords. Source: Mesa
/// `src/amd/common/ac_gpu_info.c`, `lds_alloc_granularity = gfx_level >=
/// GFX10_3 ? 256 * 4 : lds_encode_granularity` ("what the hardware will
/// align the LDS size to"). Sources disagree (LLVM says 512), so the default
/// policy takes the smaller, which both agree is in range; a run can use
/// this one with `Policy { lds_granule: LDS_GRANULE_GFX11_MESA, .. }`.
pub const LDS_GRANULE_GFX11_MESA: u32 = 1024;

/// What a returning atomic gives back when its address is out of range.
///
/// The RDNA3 ISA guide ("Data Share Operations", LDS access) says an
/// out-of-range LDS access drops writes and reads 0; it does not say what a
/// *returning atomic* returns. Both variants are ASSUMPTIONS; runs record what
/// the hardware did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OutOfRangeReturn {
    /// ASSUMPTION (default): the atomic's read half follows the load rule,
    /// so VDST receives 0.
    Zero,
    /// ASSUMPTION: the lane's VDST is left as it was (`vdst_init`).
    VdstUnchanged,
    /// No assumption: any returned value is accepted (the checker still
    /// demands that LDS is unchanged).
    Any,
}

impl OutOfRangeReturn {
    pub fn name(self) -> &'static str {
        match self {
            OutOfRangeReturn::Zero => "zero",
            OutOfRangeReturn::VdstUnchanged => "vdst-unchanged",
            OutOfRangeReturn::Any => "any",
        }
    }

    pub fn parse(s: &str) -> Option<OutOfRangeReturn> {
        match s {
            "zero" => Some(OutOfRangeReturn::Zero),
            "vdst-unchanged" => Some(OutOfRangeReturn::VdstUnchanged),
            "any" => Some(OutOfRangeReturn::Any),
            _ => None,
        }
    }

    /// The VDST the model writes for an out-of-range lane. `Any` has no
    /// single value; the model then writes 0, as `Zero` does.
    pub fn model_value(self, vdst_init: u64) -> u64 {
        match self {
            OutOfRangeReturn::Zero | OutOfRangeReturn::Any => 0,
            OutOfRangeReturn::VdstUnchanged => vdst_init,
        }
    }

    /// Whether an observed VDST is acceptable for an out-of-range lane.
    pub fn accepts(self, vdst_init: Option<u64>, ret: u64) -> bool {
        match self {
            OutOfRangeReturn::Zero => ret == 0,
            OutOfRangeReturn::VdstUnchanged => vdst_init.is_none_or(|v| v == ret),
            OutOfRangeReturn::Any => true,
        }
    }
}

/// The policy set one expectation or verdict is made under.
///
/// Fixed, not configurable, because both sources agree:
/// - **Misaligned b64 atomic → MEMVIOL.** A `ds_xor_rtn_b64` whose effective
///   address is not 8-byte aligned raises a memory violation (RDNA3 ISA guide,
///   "Data Share Operations", alignment of 64-bit atomics; AMDGPUUsage.rst,
///   `enable_exception_memory_violation`: "mis-aligned atomic, LDS address out
///   of range"). The model reports a fault for the whole instruction, never a
///   value. The alignment check comes before the range check: a misaligned
///   out-of-range address is a fault.
/// - **Out of range: writes dropped, reads 0** (RDNA3 ISA guide, LDS access).
///   The range is the allocation rounded up to `lds_granule`: addresses in
///   the slack between the request and the block end are in range.
///
/// Caveat, recorded rather than modelled: AMDGPUUsage lists both a
/// misaligned atomic and an out-of-range LDS address as memory violations,
/// which trap only when the kernel descriptor sets
/// `enable_exception_memory_violation` (LLVM leaves it 0 by default). A
/// device whose kernel does not enable it may complete a misaligned probe
/// silently (judged `misaligned-no-fault`), and one that enables it may
/// trap out of range (judged `unexpected-fault`). Both are what the device
/// did, against this policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Policy {
    /// Allocation block in bytes (a power of two); see [`LDS_GRANULE_GFX11_LLVM`].
    pub lds_granule: u32,
    pub out_of_range_return: OutOfRangeReturn,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy::GFX11
    }
}

impl Policy {
    /// The default gfx11 policy: LLVM's 512-byte granule, out-of-range
    /// returns 0 (an assumption).
    pub const GFX11: Policy = Policy {
        lds_granule: LDS_GRANULE_GFX11_LLVM,
        out_of_range_return: OutOfRangeReturn::Zero,
    };

    /// A granule must be a power of two no larger than a workgroup's LDS.
    pub fn validate(&self) -> Result<(), super::ModelError> {
        if self.lds_granule.is_power_of_two() && self.lds_granule <= LDS_MAX_BYTES_PER_GROUP {
            Ok(())
        } else {
            Err(super::ModelError::Granule(self.lds_granule))
        }
    }

    /// Bytes actually allocated for a request: rounded up to the granule.
    pub fn allocated_bytes(&self, requested: u32) -> u64 {
        let g = u64::from(self.lds_granule.max(1));
        u64::from(requested).div_ceil(g) * g
    }

    /// One line naming the policy, for reports and explanations.
    pub fn describe(&self) -> String {
        format!(
            "policy: granule {} B, out-of-range return {}, misaligned b64 = MEMVIOL",
            self.lds_granule,
            self.out_of_range_return.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granule_rounding() {
        let p = Policy::GFX11;
        assert_eq!(p.allocated_bytes(0), 0);
        assert_eq!(p.allocated_bytes(8), 512);
        assert_eq!(p.allocated_bytes(512), 512);
        assert_eq!(p.allocated_bytes(520), 1024);
        assert_eq!(p.allocated_bytes(65536), 65536);
    }

    #[test]
    fn out_of_range_names_round_trip() {
        for v in [
            OutOfRangeReturn::Zero,
            OutOfRangeReturn::VdstUnchanged,
            OutOfRangeReturn::Any,
        ] {
            assert_eq!(OutOfRangeReturn::parse(v.name()), Some(v));
        }
        assert_eq!(OutOfRangeReturn::parse("garbage"), None);
    }
}
