//! Plain data shared along the pipeline: one conformance case (what a
//! backend is asked to run) and one observation (what it saw).
//!
//! This module carries no semantics — no expectation, no judgement — so
//! that `backend` (which must not see `model`) and `gen`/`check` can share
//! it without breaking the independence rule (ARCHITECTURE.md). (`Case`
//! could live in `gen`, but `backend` may not import `gen`, hence this
//! module.) The one piece of ISA arithmetic here is [`calc_ds_addr`], the
//! address a lane's ADDR and the instruction's offset form: every reader of
//! a case needs it (`model` to evaluate it, `check` and `gen` to see which
//! lanes contend or fault, `backend` to see which cases may share a
//! launch), and `emu`, which never sees a case, computes its own from the
//! ISA's pseudocode.

use serde::{Deserialize, Serialize};

/// CalcDsAddr for single-address DS instructions on gfx11:
/// `LDS_BASE + VGPR[ADDR] + {offset1, offset0}`, relative to the
/// workgroup's allocation (LDS_BASE is the allocation's hidden base, so the
/// group sees its LDS from 0).
///
/// Sources: RDNA3 ISA guide, "Data Share Operations" (DS address is
/// LDS_BASE plus ADDR plus the instruction offset; for single-address ops OFFSET1:OFFSET0 form
/// one 16-bit offset — LLVM `DSInstructions.td`, `offset` operand, and MC
/// test `ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:65535` encoding
/// `[0xff,0xff,0xac,0xd9,...]`; llvm-mc-22 encodes `offset:264` as
/// `[0x08,0x01,...]`: offset0 low, offset1 high). M0 plays no part: LLVM `GCNSubtarget.h`,
/// `ldsRequiresM0Init()` is `getGeneration() < GFX9`.
///
/// ASSUMPTION: the sum is exact (no 32-bit wrap); an ADDR near 2^32 plus an
/// offset is simply out of range.
pub fn calc_ds_addr(addr: u32, offset0: u8, offset1: u8) -> u64 {
    u64::from(addr) + u64::from(u16::from_le_bytes([offset0, offset1]))
}

/// [`calc_ds_addr`] with the 16-bit `{offset1, offset0}` already combined.
#[inline(always)]
pub fn calc_ds_addr16(addr: u32, offset: u16) -> u64 {
    u64::from(addr) + u64::from(offset)
}

/// Wave size: gfx1100 runs wave32 (HIP's default) and wave64
/// (`-mwavefrontsize64`), per the RDNA3 ISA guide §"Wave32 and Wave64".
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    PartialOrd,
    Ord,
    schemars::JsonSchema,
)]
pub enum WaveSize {
    #[serde(rename = "32")]
    Wave32,
    #[serde(rename = "64")]
    Wave64,
}

impl WaveSize {
    pub fn lanes(self) -> u32 {
        match self {
            WaveSize::Wave32 => 32,
            WaveSize::Wave64 => 64,
        }
    }
    pub fn from_lanes(n: u32) -> Option<WaveSize> {
        match n {
            32 => Some(WaveSize::Wave32),
            64 => Some(WaveSize::Wave64),
            _ => None,
        }
    }
}

/// Wavefront execution mode of the code object a case runs in: on gfx10+
/// a workgroup's waves share one CU (`Cu`, clang `-mcumode`) or may spread
/// over both CUs of a workgroup processor (`Wgp`, the compiler's default).
/// The kernel descriptor's COMPUTE_PGM_RSRC1.WGP_MODE states it
/// (AMDGPUUsage.rst, "compute_pgm_rsrc1 for GFX6-GFX12", bit 29). In WGP
/// mode LDS operations from the two CUs go through different queues and
/// may reorder (AMDGPUUsage.rst, "Memory Model GFX10-GFX11"); in WGP mode
/// the 128 KiB of LDS is two 64 KiB halves, one per CU, and an allocation
/// may straddle them (RDNA3 ISA guide §3.3.4).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    PartialOrd,
    Ord,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Cu,
    /// The default when a file names no mode: every code object dsxor
    /// shipped before CU-mode objects was built in WGP mode.
    #[default]
    Wgp,
}

impl Mode {
    pub const BOTH: [Mode; 2] = [Mode::Cu, Mode::Wgp];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Cu => "cu",
            Mode::Wgp => "wgp",
        }
    }

    pub fn from_name(name: &str) -> Option<Mode> {
        Self::BOTH.into_iter().find(|m| m.name() == name)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Launch geometry: a 1-D grid of `groups` workgroups, each of
/// `waves_per_group` waves of `wave_size` lanes, in `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Geometry {
    pub wave_size: WaveSize,
    pub waves_per_group: u32,
    pub groups: u32,
    /// Which code object runs the case (absent in files written before
    /// modes existed: WGP mode, the only one then).
    #[serde(default)]
    pub mode: Mode,
}

impl Geometry {
    pub fn lanes_per_group(&self) -> u32 {
        self.waves_per_group * self.wave_size.lanes()
    }
    pub fn total_lanes(&self) -> usize {
        self.groups as usize * self.lanes_per_group() as usize
    }
    /// `total_lanes` for sizes read from a file: None when the product
    /// overflows (134217729 waves of 32 lanes must not wrap to 32).
    pub fn checked_total_lanes(&self) -> Option<usize> {
        let per_group = self.waves_per_group.checked_mul(self.wave_size.lanes())?;
        (self.groups as usize).checked_mul(per_group as usize)
    }
}

/// One work-item's inputs to the single `ds_xor_rtn_b64` it issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LaneInput {
    /// The ADDR VGPR's value (a byte address in the workgroup's LDS,
    /// before the instruction's offset is added).
    pub addr: u32,
    /// DATA0/DATA1 pair.
    pub data: u64,
    /// Whether the lane's EXEC bit is set at the instruction.
    pub active: bool,
    /// VDST's value before the instruction. An inactive lane must leave it
    /// unchanged; the kernel writes VDST back for every lane, so a value
    /// that stays poison on an active lane means the output was never written.
    pub vdst_init: u64,
}

/// One round after the first: every lane issues one more `ds_xor_rtn_b64`
/// on the same address with the same EXEC bit, with new DATA and a new
/// VDST-before. The kernel waits for its returns, stores them and passes a
/// workgroup barrier between rounds, so the rounds of one workgroup are
/// ordered and each round starts from the LDS the previous one left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Round {
    /// Per lane (same order as `Case::lanes`), DATA0/DATA1.
    pub data: Vec<u64>,
    /// Per lane, VDST's value before this round's instruction (a fresh
    /// poison: a round that never wrote an active lane's VDST shows it).
    pub vdst_init: Vec<u64>,
}

/// One conformance case: every workgroup executes one `ds_xor_rtn_b64` per
/// active lane on its own LDS allocation, `rounds()` times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Case {
    /// Pattern family that generated it (e.g. `one-address`).
    pub pattern: String,
    /// Index of the case within the run (with the seed, identifies it).
    pub index: u64,
    pub geometry: Geometry,
    /// LDS bytes the dispatch requests (dynamic group segment). A multiple of 8.
    pub lds_bytes: u32,
    /// The instruction's 16-bit offset, `{offset1, offset0}`.
    pub offset: u16,
    /// Per workgroup, the LDS image before the instruction, `lds_bytes / 8` qwords.
    pub lds_init: Vec<Vec<u64>>,
    /// Per lane, group-major, then wave, then lane within the wave. Round 0.
    pub lanes: Vec<LaneInput>,
    /// Rounds 1.. (empty: a one-round case, as every case was before
    /// rounds existed; such a case serializes exactly as it did then).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_rounds: Vec<Round>,
    /// How a `stress` case was drawn (absent for every other family, whose
    /// cases serialize exactly as they did before it existed). Plain
    /// record: the lanes above already hold its effect, and the device
    /// never sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stress: Option<Stress>,
    /// Background LDS traffic and a spin before the atomic (some `stress`
    /// cases; absent otherwise, and such a case serializes as it did before
    /// traffic existed). Unlike `stress`, the device is given this: a case
    /// with it runs on the traffic kernels
    /// (docs/src/internals/kernel-abi.md, "Traffic kernels").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<Traffic>,
}

/// Per lane (same order as `Case::lanes`), the role and the spin of a case
/// with background LDS traffic. A traffic lane is inactive for the atomic
/// (its `active` is false) and owns the qword at its effective address
/// `ADDR + offset`, which no other lane of its workgroup addresses; each
/// round it stores and reloads patterns there and restores the original,
/// and reports loads that did not return its own store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Traffic {
    /// Per lane: runs traffic instead of the atomic (whole waves do).
    pub lanes: Vec<bool>,
    /// Per lane: `s_sleep 1` iterations before each round's atomic (at most
    /// `TRAFFIC_SPIN_MAX`).
    pub spin: Vec<u16>,
}

/// Most spin iterations a lane may be given (the kernels' ctl word holds 16
/// bits of it).
pub const TRAFFIC_SPIN_MAX: u16 = u16::MAX;

impl Traffic {
    /// Whether lane `i` runs traffic.
    pub fn is_traffic(&self, i: usize) -> bool {
        self.lanes.get(i).copied().unwrap_or(false)
    }
    /// Lanes that run traffic.
    pub fn traffic_lanes(&self) -> usize {
        self.lanes.iter().filter(|&&t| t).count()
    }
}

/// The stress parameters of a `stress` case, drawn from the case's seed
/// stream (docs/src/guide/conformance-runs.md, "Stress"): the shape it
/// drew within the device's limits, how many qwords its lanes contend on,
/// and the thread randomization that put each lane of the unpermuted
/// layout on a random lane of its workgroup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Stress {
    /// Workgroups the case drew.
    pub groups: u32,
    /// Waves per workgroup the case drew.
    pub waves_per_group: u32,
    /// Contended qwords per workgroup: every active lane of a workgroup
    /// issues to one of them.
    pub contended_qwords: u32,
    /// Lanes of the case that the permutation moved off their slot.
    pub permuted_lanes: u32,
    /// Thread randomization, per lane (same order as `Case::lanes`): the
    /// slot of the unpermuted layout (slot `s` of a workgroup on contended
    /// qword `s * contended_qwords / lanes_per_group`, so contenders are
    /// neighbours) whose address, DATA and EXEC bit the lane took. Empty in
    /// a case stream's record, which carries the parameters without it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<u16>,
    /// Lanes (whole waves) drawn to run background LDS traffic instead of
    /// the atomic (`Case::traffic`); 0 when the case has none (generator
    /// versions 5 and earlier never drew any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub traffic_lanes: u32,
    /// The largest spin drawn for a lane before the atomic (each lane's is
    /// drawn in 0..=spin_max); 0 when the case has none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spin_max: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Stress {
    /// The parameters without the per-lane slots (a case stream's record).
    pub fn summary(&self) -> Stress {
        Stress {
            slots: Vec::new(),
            ..self.clone()
        }
    }
}

impl Case {
    /// How many `ds_xor_rtn_b64` each lane issues (1 + `more_rounds`).
    pub fn rounds(&self) -> usize {
        1 + self.more_rounds.len()
    }
    /// Lane `i`'s DATA and VDST-before in round `r` (None out of range).
    pub fn round_input(&self, r: usize, i: usize) -> Option<(u64, u64)> {
        match r {
            0 => self.lanes.get(i).map(|l| (l.data, l.vdst_init)),
            _ => {
                let round = self.more_rounds.get(r - 1)?;
                Some((*round.data.get(i)?, *round.vdst_init.get(i)?))
            }
        }
    }
    /// Every lane's DATA and VDST-before in round `r`, in lane order: the
    /// lanes' own for round 0, `more_rounds[r - 1]`'s after (fewer, or none
    /// out of range, for a malformed case, which `model::validate_case`
    /// rejects). [`Case::round_input`] for all lanes, without a lookup per
    /// lane.
    pub fn round_inputs(&self, r: usize) -> impl Iterator<Item = (u64, u64)> + '_ {
        let (first, later) = match r.checked_sub(1) {
            None => (Some(self.lanes.iter().map(|l| (l.data, l.vdst_init))), None),
            Some(k) => (
                None,
                self.more_rounds.get(k).map(|round| {
                    round
                        .data
                        .iter()
                        .copied()
                        .zip(round.vdst_init.iter().copied())
                }),
            ),
        };
        first
            .into_iter()
            .flatten()
            .chain(later.into_iter().flatten())
    }
    /// Active lane-operations the case asks for: active lanes × rounds.
    pub fn lane_ops(&self) -> u64 {
        self.lanes.iter().filter(|l| l.active).count() as u64 * self.rounds() as u64
    }
    pub fn lds_qwords(&self) -> usize {
        self.lds_bytes as usize / 8
    }
    /// Lanes of workgroup `g`.
    pub fn group_lanes(&self, g: usize) -> &[LaneInput] {
        let n = self.geometry.lanes_per_group() as usize;
        &self.lanes[g * n..(g + 1) * n]
    }
}

/// What a backend observed for one case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Observation {
    /// Per round, then per lane (same order as `Case::lanes`), VDST after
    /// that round's instruction: `ret[r * lanes + i]`. One round: per lane.
    pub ret: Vec<u64>,
    /// Per workgroup, the LDS image after the last round (same size as init).
    pub lds_final: Vec<Vec<u64>>,
    /// A case with background traffic (`Case::traffic`): per lane, the
    /// count of its traffic loads that did not return what it stored and
    /// the first such value, `[count, value]` (empty for other cases).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traffic_verdicts: Vec<[u64; 2]>,
}
