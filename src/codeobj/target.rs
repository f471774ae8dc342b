//! Target ids: e_flags → processor and features (AMDGPUUsage.rst, "ELF
//! Header" and "Target ID"; values from llvm/BinaryFormat/ELF.h).

use std::fmt;

use super::CodeObjectError;

/// EF_AMDGPU_MACH mask.
const EF_AMDGPU_MACH: u32 = 0x0ff;
/// V4+ feature fields.
const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
/// V3 single-bit features.
const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
/// V6: generic code object version in bits 31:24.
const EF_AMDGPU_GENERIC_VERSION_SHIFT: u32 = 24;

/// EF_AMDGPU_MACH_AMDGCN_* → processor name (ELF.h, LLVM 22).
const MACHS: &[(u32, &str)] = &[
    (0x020, "gfx600"),
    (0x021, "gfx601"),
    (0x022, "gfx700"),
    (0x023, "gfx701"),
    (0x024, "gfx702"),
    (0x025, "gfx703"),
    (0x026, "gfx704"),
    (0x028, "gfx801"),
    (0x029, "gfx802"),
    (0x02a, "gfx803"),
    (0x02b, "gfx810"),
    (0x02c, "gfx900"),
    (0x02d, "gfx902"),
    (0x02e, "gfx904"),
    (0x02f, "gfx906"),
    (0x030, "gfx908"),
    (0x031, "gfx909"),
    (0x032, "gfx90c"),
    (0x033, "gfx1010"),
    (0x034, "gfx1011"),
    (0x035, "gfx1012"),
    (0x036, "gfx1030"),
    (0x037, "gfx1031"),
    (0x038, "gfx1032"),
    (0x039, "gfx1033"),
    (0x03a, "gfx602"),
    (0x03b, "gfx705"),
    (0x03c, "gfx805"),
    (0x03d, "gfx1035"),
    (0x03e, "gfx1034"),
    (0x03f, "gfx90a"),
    (0x041, "gfx1100"),
    (0x042, "gfx1013"),
    (0x043, "gfx1150"),
    (0x044, "gfx1103"),
    (0x045, "gfx1036"),
    (0x046, "gfx1101"),
    (0x047, "gfx1102"),
    (0x048, "gfx1200"),
    (0x049, "gfx1250"),
    (0x04a, "gfx1151"),
    (0x04c, "gfx942"),
    (0x04e, "gfx1201"),
    (0x04f, "gfx950"),
    (0x051, "gfx9-generic"),
    (0x052, "gfx10-1-generic"),
    (0x053, "gfx10-3-generic"),
    (0x054, "gfx11-generic"),
    (0x055, "gfx1152"),
    (0x058, "gfx1153"),
    (0x059, "gfx12-generic"),
    (0x05a, "gfx1251"),
    (0x05f, "gfx9-4-generic"),
];

/// The processors each generic target covers (AMDGPUUsage.rst, table
/// "AMDGPU Generic Processors", LLVM 22).
const GENERIC_FAMILIES: &[(&str, &[&str])] = &[
    (
        "gfx9-generic",
        &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"],
    ),
    ("gfx9-4-generic", &["gfx942", "gfx950"]),
    (
        "gfx10-1-generic",
        &["gfx1010", "gfx1011", "gfx1012", "gfx1013"],
    ),
    (
        "gfx10-3-generic",
        &[
            "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
        ],
    ),
    (
        "gfx11-generic",
        &[
            "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
        ],
    ),
    ("gfx12-generic", &["gfx1200", "gfx1201"]),
];

/// The processors a generic target covers, or None for a specific processor.
pub fn generic_family(processor: &str) -> Option<&'static [&'static str]> {
    GENERIC_FAMILIES
        .iter()
        .find(|(g, _)| *g == processor)
        .map(|(_, f)| *f)
}

/// The name of an EF_AMDGPU_MACH value, if LLVM 22 knows it.
pub fn mach_name(mach: u32) -> Option<&'static str> {
    MACHS.iter().find(|(m, _)| *m == mach).map(|(_, n)| *n)
}

/// A target feature's setting (AMDGPUUsage.rst, "Target Features").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// The processor does not have the feature.
    Unsupported,
    /// Code runs with either setting (no suffix in the target id).
    Any,
    Off,
    On,
}

impl Feature {
    fn suffix(self) -> Option<char> {
        match self {
            Feature::Off => Some('-'),
            Feature::On => Some('+'),
            Feature::Unsupported | Feature::Any => None,
        }
    }

    fn from_v4(bits: u32) -> Feature {
        match bits {
            0 => Feature::Unsupported,
            1 => Feature::Any,
            2 => Feature::Off,
            _ => Feature::On,
        }
    }

    /// Whether code built with `self` runs where the device has `device`.
    fn runs_on(self, device: Feature) -> bool {
        match self {
            Feature::Any | Feature::Unsupported => true,
            s => device == s || device == Feature::Any,
        }
    }
}

/// Which code object generation a file is (from `e_ident[EI_ABIVERSION]`,
/// AMDGPUUsage.rst table "AMDGPU ELF Header": HSA_V2 = 0 … HSA_V6 = 4).
pub fn code_object_version(osabi: u8, abiversion: u8) -> Option<u32> {
    (osabi == super::elf::ELFOSABI_AMDGPU_HSA && abiversion <= 4).then_some(abiversion as u32 + 2)
}

/// A target id: processor plus feature settings, printed as LLVM does
/// (`gfx90a:sramecc+:xnack-`; features in alphabetical order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetId {
    pub processor: String,
    pub sramecc: Feature,
    pub xnack: Feature,
    /// V6 generic code objects: EF_AMDGPU_GENERIC_VERSION (0 otherwise).
    pub generic_version: u32,
}

impl TargetId {
    /// Decode e_flags for a code object of version `cov` (None: not HSA).
    pub fn from_e_flags(e_flags: u32, cov: Option<u32>) -> Result<TargetId, CodeObjectError> {
        let mach = e_flags & EF_AMDGPU_MACH;
        let processor = mach_name(mach).ok_or(CodeObjectError::UnknownMach { mach, e_flags })?;
        let (sramecc, xnack) = match cov {
            Some(v) if v >= 4 => (
                Feature::from_v4((e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10),
                Feature::from_v4((e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8),
            ),
            Some(3) => (
                if e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3 != 0 {
                    Feature::On
                } else {
                    Feature::Off
                },
                if e_flags & EF_AMDGPU_FEATURE_XNACK_V3 != 0 {
                    Feature::On
                } else {
                    Feature::Off
                },
            ),
            _ => (Feature::Unsupported, Feature::Unsupported),
        };
        let generic_version = match cov {
            Some(v) if v >= 6 => e_flags >> EF_AMDGPU_GENERIC_VERSION_SHIFT,
            _ => 0,
        };
        Ok(TargetId {
            processor: processor.to_string(),
            sramecc,
            xnack,
            generic_version,
        })
    }

    /// Parse `gfx90a`, `gfx90a:xnack-`, `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`.
    pub fn parse(s: &str) -> Result<TargetId, CodeObjectError> {
        let bad = |why: &str| CodeObjectError::BadTargetId {
            target: s.to_string(),
            why: why.to_string(),
        };
        let id = s.rsplit("--").next().unwrap_or(s);
        let mut parts = id.split(':');
        let processor = parts
            .next()
            .filter(|p| !p.is_empty())
            .ok_or_else(|| bad("empty"))?;
        if !processor.starts_with("gfx") {
            return Err(bad("the processor must start with gfx"));
        }
        let mut t = TargetId {
            processor: processor.to_string(),
            sramecc: Feature::Any,
            xnack: Feature::Any,
            generic_version: 0,
        };
        for f in parts {
            let (name, setting) = match f.strip_suffix('+') {
                Some(n) => (n, Feature::On),
                None => match f.strip_suffix('-') {
                    Some(n) => (n, Feature::Off),
                    None => return Err(bad("a feature needs a + or - suffix")),
                },
            };
            match name {
                "sramecc" => t.sramecc = setting,
                "xnack" => t.xnack = setting,
                _ => return Err(bad("unknown feature (known: sramecc, xnack)")),
            }
        }
        Ok(t)
    }

    /// Whether code for `self` loads on a device whose target id is `device`
    /// (same processor, or a generic processor whose family holds the
    /// device's; each feature "any" or equal).
    ///
    /// Generic targets (code object V6, AMDGPUUsage.rst "Generic Processor
    /// Versioning"): a runtime that supports them (ROCm 6.4 and later)
    /// loads a `gfx11-generic` object on every processor of the family
    /// when the device has no object of its own; an older one refuses it
    /// with hipErrorNoBinaryForGpu, which dsxor reports as an environment
    /// error naming the target.
    pub fn runs_on(&self, device: &TargetId) -> bool {
        (self.processor == device.processor
            || generic_family(&self.processor)
                .is_some_and(|f| f.contains(&device.processor.as_str())))
            && self.sramecc.runs_on(device.sramecc)
            && self.xnack.runs_on(device.xnack)
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.processor)?;
        for (name, feat) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(c) = feat.suffix() {
                write!(f, ":{name}{c}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx1100_v5() {
        let t = TargetId::from_e_flags(0x041, Some(5)).unwrap();
        assert_eq!(t.to_string(), "gfx1100");
        assert_eq!(t.xnack, Feature::Unsupported);
    }

    #[test]
    fn gfx90a_features() {
        // 0x53f: llvm-readelf prints "gfx90a, xnack, sramecc" (both "any").
        let t = TargetId::from_e_flags(0x53f, Some(5)).unwrap();
        assert_eq!((t.sramecc, t.xnack), (Feature::Any, Feature::Any));
        assert_eq!(t.to_string(), "gfx90a");
        let t = TargetId::from_e_flags(0x03f | 0xc00 | 0x200, Some(5)).unwrap();
        assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
        assert!(t.runs_on(&TargetId::parse("gfx90a:sramecc+:xnack-").unwrap()));
        assert!(!t.runs_on(&TargetId::parse("gfx90a:sramecc-:xnack-").unwrap()));
    }

    #[test]
    fn parse_rejects() {
        assert!(TargetId::parse("").is_err());
        assert!(TargetId::parse("sm_80").is_err());
        assert!(TargetId::parse("gfx90a:xnack").is_err());
        assert!(TargetId::parse("gfx90a:foo+").is_err());
        assert_eq!(
            TargetId::parse("hipv4-amdgcn-amd-amdhsa--gfx942:xnack+")
                .unwrap()
                .to_string(),
            "gfx942:xnack+"
        );
    }

    #[test]
    fn generic_targets_run_on_their_family() {
        // EF_AMDGPU_MACH_AMDGCN_GFX11_GENERIC = 0x54, generic version 1 (V6).
        let g = TargetId::from_e_flags(0x054 | (1 << 24), Some(6)).unwrap();
        assert_eq!(g.processor, "gfx11-generic");
        assert_eq!(g.generic_version, 1);
        for p in ["gfx1100", "gfx1101", "gfx1103", "gfx1151"] {
            assert!(g.runs_on(&TargetId::parse(p).unwrap()), "{p}");
        }
        assert!(!g.runs_on(&TargetId::parse("gfx1200").unwrap()));
        // A specific processor still runs only on itself.
        let exact = TargetId::parse("gfx1100").unwrap();
        assert!(!exact.runs_on(&TargetId::parse("gfx1101").unwrap()));
    }

    #[test]
    fn unknown_mach() {
        assert!(TargetId::from_e_flags(0x0ff, Some(5)).is_err());
    }
}
