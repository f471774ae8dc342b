//! The pattern families: each turns (seed, wave size, ordinal) into one
//! `Case`. A family has named variants; variant `ordinal % variants.len()`
//! is used, so every variant is covered as soon as a family gets as many
//! cases as it has variants, and the rest of the case comes from the stream.

use serde::{Deserialize, Serialize};

use crate::case::{Case, Geometry, LaneInput, Mode, Stress, WaveSize};

use super::rng::CaseRng;

/// Largest LDS allocation of one workgroup on gfx11: 64 KiB
/// (RDNA3 ISA guide, "Local Data Share"; AMDGPUUsage.rst, "LDS size").
pub const LDS_MAX_BYTES: u32 = 65536;

/// Allocation granule used to place "inside the block slack" addresses.
/// Sources differ for gfx11: AMDGPUUsage.rst (COMPUTE_PGM_RSRC2.LDS_SIZE)
/// gives `roundup(lds-size / (128 * 4))`, i.e. 512-byte units for
/// GFX7–GFX11, while LLVM's later TargetParser change says GFX11 encodes in
/// 512-byte units but allocates 1024-byte blocks. Policy: use the smaller,
/// 512 bytes, so a slack address is inside the block under either reading.
pub const LDS_SLACK_GRANULE: u32 = 512;

/// Offsets for which the kernels ship a compiled variant
/// (`dsxor_conformance_off<N>`, docs/src/internals/kernel-abi.md); others
/// are patched.
pub const SHIPPED_OFFSETS: [u16; 4] = [0, 8, 4096, 65528];

/// A named family of cases.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Uniform random (aligned, in-range) addresses; collisions incidental.
    Uniform,
    /// Every active lane of a workgroup on one address.
    OneAddress,
    /// Exactly k lanes per address (k = 2, 3, 4, 8, 16), lanes shuffled.
    KPerAddress,
    /// Lanes of different waves of one workgroup on the same addresses.
    CrossWave,
    /// Distinct addresses at a stride that makes 1/2/4/8/16/32 lanes of a
    /// wave share an LDS bank.
    BankStride,
    /// EXEC masks: random, alternating, single lane, all off.
    ExecMask,
    /// The instruction's offset immediate: shipped variants and patched ones.
    Offset,
    /// The allocation's edges: the last qword, and the block slack.
    AllocEdge,
    /// Data patterns on contended addresses: random, zero, all ones, single
    /// bits, equal data across contenders.
    Data,
    /// Workgroups of 1,024 work-items (32 waves of wave32, 16 of wave64,
    /// the most a workgroup may have: AMDGPUUsage.rst, "flat workgroup
    /// size", and the kernels' `.max_flat_workgroup_size` 1024), every wave
    /// on every contended qword; up to the whole 64 KiB of LDS.
    BigGroup,
    /// A grid that fills every WGP of the device twice over
    /// (`SuiteSpec::wgps`), each workgroup contending on its own qwords.
    Occupancy,
    /// LDS sizes that make a workgroup's allocation straddle the 64 KiB
    /// halves of a WGP's LDS in WGP mode (RDNA3 ISA guide §3.3.4), with
    /// atomics on both sides of the boundary and at the last qword.
    LdsStraddle,
    /// Several waves of a workgroup on the same few qwords with lanes of
    /// both halves of every wave on each: on gfx10+ a wave64 LDS
    /// instruction runs as two wave32 passes and another wave's operations
    /// can fall between them (docs/src/internals/software-device.md); the checker's order
    /// evidence says where the returns show a split. In wave32 cells the
    /// same layout with each half a wave32 wave of its own: the control.
    Wave64Halves,
    /// Stress (Levine et al., ASPLOS'23; Kirkham et al., OOPSLA'20): a
    /// shape drawn within the device's limits, few contended qwords, and
    /// thread randomization (each lane of the unpermuted layout moved to a
    /// random lane of its workgroup); the parameters are recorded in the
    /// case ([`crate::case::Stress`]).
    Stress,
    /// Probe (opt-in): misaligned effective addresses.
    Misaligned,
    /// Probe (opt-in): effective addresses past the allocation.
    OutOfRange,
}

impl Pattern {
    /// Every family of the default suite, in run order.
    pub const DEFAULT: [Pattern; 14] = [
        Pattern::Uniform,
        Pattern::OneAddress,
        Pattern::KPerAddress,
        Pattern::CrossWave,
        Pattern::BankStride,
        Pattern::ExecMask,
        Pattern::Offset,
        Pattern::AllocEdge,
        Pattern::Data,
        Pattern::BigGroup,
        Pattern::Occupancy,
        Pattern::LdsStraddle,
        Pattern::Wave64Halves,
        Pattern::Stress,
    ];
    /// Opt-in probes (`--probe NAME`): off by default because they can
    /// fault real hardware.
    pub const PROBES: [Pattern; 2] = [Pattern::Misaligned, Pattern::OutOfRange];

    pub fn all() -> impl Iterator<Item = Pattern> {
        Self::DEFAULT.into_iter().chain(Self::PROBES)
    }

    pub fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::OneAddress => "one-address",
            Pattern::KPerAddress => "k-per-address",
            Pattern::CrossWave => "cross-wave",
            Pattern::BankStride => "bank-stride",
            Pattern::ExecMask => "exec-mask",
            Pattern::Offset => "offset",
            Pattern::AllocEdge => "alloc-edge",
            Pattern::Data => "data",
            Pattern::BigGroup => "big-group",
            Pattern::Occupancy => "occupancy",
            Pattern::LdsStraddle => "lds-straddle",
            Pattern::Wave64Halves => "wave64-halves",
            Pattern::Stress => "stress",
            Pattern::Misaligned => "misaligned",
            Pattern::OutOfRange => "out-of-range",
        }
    }

    pub fn from_name(name: &str) -> Option<Pattern> {
        Self::all().find(|p| p.name() == name)
    }

    pub fn is_probe(self) -> bool {
        Self::PROBES.contains(&self)
    }

    /// Stable number of the family in the case stream id. Never reuse or
    /// renumber: it is part of what a seed means.
    fn stream_tag(self) -> u64 {
        match self {
            Pattern::Uniform => 1,
            Pattern::OneAddress => 2,
            Pattern::KPerAddress => 3,
            Pattern::CrossWave => 4,
            Pattern::BankStride => 5,
            Pattern::ExecMask => 6,
            Pattern::Offset => 7,
            Pattern::AllocEdge => 8,
            Pattern::Data => 9,
            Pattern::Misaligned => 10,
            Pattern::OutOfRange => 11,
            Pattern::BigGroup => 12,
            Pattern::Occupancy => 13,
            Pattern::LdsStraddle => 14,
            Pattern::Wave64Halves => 15,
            Pattern::Stress => 16,
        }
    }

    pub fn variants(self) -> &'static [&'static str] {
        match self {
            Pattern::Uniform => &["all-active", "random-exec"],
            Pattern::OneAddress => &["random-address", "first-qword"],
            Pattern::KPerAddress => &["k2", "k3", "k4", "k8", "k16"],
            Pattern::CrossWave => &["same-lane", "few-addresses"],
            Pattern::BankStride => &[
                "conflict-free",
                "2-way",
                "4-way",
                "8-way",
                "16-way",
                "32-way",
            ],
            Pattern::ExecMask => &["random", "alternating", "single-lane", "all-off"],
            Pattern::Offset => &["off0", "off8", "off4096", "off65528", "patched"],
            Pattern::AllocEdge => &["last-qword", "block-slack"],
            Pattern::Data => &[
                "random",
                "zero",
                "all-ones",
                "single-bit",
                "equal-contenders",
            ],
            Pattern::Misaligned => &[
                "addr-4",
                "addr-odd",
                "offset-misaligns",
                "offset-compensated",
            ],
            Pattern::OutOfRange => &["past-block", "beyond-64k", "offset-carry"],
            Pattern::BigGroup => &["one-qword", "few-qwords", "full-lds"],
            Pattern::Occupancy => &["one-qword", "few-qwords"],
            Pattern::LdsStraddle => &["second-allocation", "third-allocation"],
            Pattern::Wave64Halves => &["one-qword", "few-qwords", "few-lanes"],
            Pattern::Stress => &["few-qwords", "one-qword", "partial-exec"],
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which case of a run: its family, wave size, mode and ordinal within
/// that (family, wave, mode) cell. With the seed it determines the case
/// completely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseId {
    pub pattern: Pattern,
    pub wave: WaveSize,
    /// Absent in files of generator versions 1-2: WGP mode, the only one.
    #[serde(default)]
    pub mode: Mode,
    pub ordinal: u64,
}

impl CaseId {
    /// ChaCha stream number: mode bit (63), family tag (from 48), wave bit
    /// (47), ordinal. Independent of which other families, waves or modes a
    /// run selects and of sharding, so `--pattern X` regenerates exactly
    /// the X cases of the full suite. WGP mode's bit is 0, so a WGP-mode
    /// case is the case generator version 2 made for the same (seed,
    /// pattern, wave, ordinal); a CU-mode case draws from its own stream.
    pub fn stream(&self) -> u64 {
        let wave_bit = match self.wave {
            WaveSize::Wave32 => 0,
            WaveSize::Wave64 => 1,
        };
        let mode_bit = match self.mode {
            Mode::Wgp => 0,
            Mode::Cu => 1,
        };
        (mode_bit << 63)
            | (self.pattern.stream_tag() << 48)
            | (wave_bit << 47)
            | (self.ordinal & ((1 << 47) - 1))
    }

    pub fn variant(&self) -> &'static str {
        let v = self.pattern.variants();
        v.get((self.ordinal % v.len() as u64) as usize)
            .copied()
            .unwrap_or("")
    }
}

/// A generated case with where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Generated {
    pub id: CaseId,
    pub variant: String,
    pub case: Case,
}

/// WGPs the occupancy pattern fills when the device does not say (policy
/// `occupancy-stand-in`): the software device has no WGPs (its
/// `DeviceInfo::compute_units` counts host threads), so it stands in as an
/// RX 7900 XTX, gfx1100's largest part: 96 CUs in 48 WGPs (AMD's product
/// page; the software HIP runtime's default device reports the same).
pub const STAND_IN_WGPS: u32 = 48;

/// Generate case `id` of the run with `seed`; `index` is its position in
/// the run (stored in `Case::index`). The occupancy pattern fills
/// [`STAND_IN_WGPS`]; [`generate_on`] gives the device's own count.
pub fn generate(seed: u64, id: CaseId, index: u64) -> Generated {
    generate_on(seed, id, index, STAND_IN_WGPS)
}

/// [`generate`] for a device of `wgps` workgroup processors (only the
/// occupancy pattern reads it).
pub fn generate_on(seed: u64, id: CaseId, index: u64, wgps: u32) -> Generated {
    let mut rng = CaseRng::new(seed, id.stream());
    let variant = id.variant();
    let mut b = Draft::new(&mut rng, id.wave, id.mode);
    b.wgps = wgps.max(1);
    match id.pattern {
        Pattern::Uniform => uniform(&mut b, variant),
        Pattern::OneAddress => one_address(&mut b, variant),
        Pattern::KPerAddress => k_per_address(&mut b, variant),
        Pattern::CrossWave => cross_wave(&mut b, variant),
        Pattern::BankStride => bank_stride(&mut b, variant),
        Pattern::ExecMask => exec_mask(&mut b, variant),
        Pattern::Offset => offset(&mut b, variant),
        Pattern::AllocEdge => alloc_edge(&mut b, variant),
        Pattern::Data => data(&mut b, variant),
        Pattern::BigGroup => big_group(&mut b, variant),
        Pattern::Occupancy => occupancy(&mut b, variant),
        Pattern::LdsStraddle => lds_straddle(&mut b, variant),
        Pattern::Wave64Halves => wave64_halves(&mut b, variant),
        Pattern::Stress => stress(&mut b, variant),
        Pattern::Misaligned => misaligned(&mut b, variant),
        Pattern::OutOfRange => out_of_range(&mut b, variant),
    }
    let mut case = b.finish(id.pattern.name(), index);
    super::rounds::add_rounds(&mut case, seed, &id, variant);
    super::traffic::add_traffic(&mut case, seed, &id);
    Generated {
        id,
        variant: variant.to_string(),
        case,
    }
}

/// A case being built: geometry and LDS size first, then per-lane
/// effective addresses (`ADDR + offset`, as bytes), data and EXEC.
struct Draft<'r> {
    rng: &'r mut CaseRng,
    wave: WaveSize,
    mode: Mode,
    waves_per_group: u32,
    groups: u32,
    lds_bytes: u32,
    offset: u16,
    /// Per lane (group-major), the effective byte address.
    eff: Vec<u32>,
    data: Vec<u64>,
    active: Vec<bool>,
    /// All-zero LDS image instead of random.
    zero_lds: bool,
    /// WGPs of the device (the occupancy and stress patterns' grids).
    wgps: u32,
    /// The stress pattern's parameters.
    stress: Option<Stress>,
}

impl<'r> Draft<'r> {
    fn new(rng: &'r mut CaseRng, wave: WaveSize, mode: Mode) -> Draft<'r> {
        Draft {
            rng,
            wave,
            mode,
            waves_per_group: 1,
            groups: 1,
            lds_bytes: 8,
            offset: 0,
            eff: Vec::new(),
            data: Vec::new(),
            active: Vec::new(),
            zero_lds: false,
            wgps: STAND_IN_WGPS,
            stress: None,
        }
    }

    fn lanes_per_group(&self) -> usize {
        (self.waves_per_group * self.wave.lanes()) as usize
    }

    /// Fix geometry and LDS size; every lane defaults to active, random
    /// data, address 0.
    fn shape(&mut self, groups: u32, waves_per_group: u32, lds_bytes: u32) {
        self.groups = groups.max(1);
        self.waves_per_group = waves_per_group.max(1);
        self.lds_bytes = (lds_bytes.clamp(8, LDS_MAX_BYTES) / 8) * 8;
        let n = self.groups as usize * self.lanes_per_group();
        self.eff = vec![0; n];
        self.active = vec![true; n];
        self.data = vec![0; n];
        self.rng.fill_u64(&mut self.data);
    }

    fn lds_qwords(&self) -> u32 {
        self.lds_bytes / 8
    }

    /// A random in-range qword address at or above the offset (so that
    /// `ADDR = eff - offset` does not wrap).
    fn random_eff(&mut self) -> u32 {
        let lo = u32::from(self.offset).div_ceil(8);
        let hi = self.lds_qwords().saturating_sub(1).max(lo);
        self.rng.range_u32(lo, hi) * 8
    }

    /// `count` distinct in-range qword addresses (fewer if the allocation
    /// is smaller), in random order.
    fn distinct_effs(&mut self, count: usize) -> Vec<u32> {
        let lo = u32::from(self.offset).div_ceil(8);
        let mut all: Vec<u32> = (lo..self.lds_qwords().max(lo + 1)).collect();
        self.rng.shuffle(&mut all);
        all.truncate(count.max(1));
        all.into_iter().map(|q| q * 8).collect()
    }

    /// Lane indices of group `g`.
    fn group_range(&self, g: usize) -> std::ops::Range<usize> {
        let n = self.lanes_per_group();
        g * n..(g + 1) * n
    }

    /// Random random-size LDS: 1..=max_qwords qwords.
    fn random_lds(&mut self, min_qwords: u32, max_qwords: u32) -> u32 {
        self.rng.range_u32(min_qwords.max(1), max_qwords.max(1)) * 8
    }

    fn finish(self, pattern: &str, index: u64) -> Case {
        let Draft {
            rng,
            wave,
            mode,
            waves_per_group,
            groups,
            lds_bytes,
            offset,
            eff,
            data,
            active,
            zero_lds,
            wgps: _,
            stress,
        } = self;
        let qwords = (lds_bytes / 8) as usize;
        let lds_init = (0..groups)
            .map(|_| {
                let mut image = vec![0; qwords];
                if !zero_lds {
                    rng.fill_u64(&mut image);
                }
                image
            })
            .collect();
        let lanes = eff
            .iter()
            .zip(&data)
            .zip(&active)
            .map(|((&e, &d), &a)| LaneInput {
                addr: e.wrapping_sub(u32::from(offset)),
                data: d,
                active: a,
                // Random per lane: an active lane whose VDST keeps this value
                // was (with overwhelming probability) never written.
                vdst_init: rng.next_u64(),
            })
            .collect();
        Case {
            pattern: pattern.to_string(),
            index,
            geometry: Geometry {
                wave_size: wave,
                waves_per_group,
                groups,
                mode,
            },
            lds_bytes,
            offset,
            lds_init,
            lanes,
            more_rounds: Vec::new(),
            stress,
            traffic: None,
        }
    }
}

fn uniform(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 4);
    let lds = b.random_lds(1, 4096);
    b.shape(groups, waves, lds);
    for i in 0..b.eff.len() {
        b.eff[i] = b.random_eff();
    }
    if variant == "random-exec" {
        for i in 0..b.active.len() {
            b.active[i] = b.rng.chance(3, 4);
        }
    }
}

fn one_address(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 8);
    let lds = b.random_lds(1, 512);
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let at = if variant == "first-qword" {
            0
        } else {
            b.random_eff()
        };
        for i in b.group_range(g) {
            b.eff[i] = at;
        }
    }
}

fn k_per_address(b: &mut Draft, variant: &str) {
    let k: usize = variant.trim_start_matches('k').parse().unwrap_or(2);
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 4);
    let n = b.lanes_per_group_for(waves);
    let needed = n.div_ceil(k) as u32;
    let lds = b.random_lds(needed, needed + 1024);
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let range = b.group_range(g);
        let mut order: Vec<usize> = range.clone().collect();
        b.rng.shuffle(&mut order);
        let addrs = b.distinct_effs(needed as usize);
        for (j, lane) in order.into_iter().enumerate() {
            b.eff[lane] = addrs.get(j / k).copied().unwrap_or(0);
        }
    }
}

impl Draft<'_> {
    fn lanes_per_group_for(&self, waves: u32) -> usize {
        (waves * self.wave.lanes()) as usize
    }
}

fn cross_wave(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 2);
    let waves = b.rng.range_u32(2, 8);
    let wl = b.wave.lanes() as usize;
    let lds = b.random_lds(wl as u32, 2048);
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let base = b.group_range(g).start;
        // same-lane: lane l of every wave on the same address (each address
        // contended only across waves); few-addresses: 1..=4 addresses, each
        // wave's lanes rotated by a random shift.
        let m = if variant == "same-lane" {
            wl
        } else {
            b.rng.range(1, 4) as usize
        };
        let addrs = b.distinct_effs(m);
        for w in 0..waves as usize {
            let shift = if variant == "same-lane" {
                0
            } else {
                b.rng.below(m as u64) as usize
            };
            for l in 0..wl {
                let a = addrs
                    .get((l + shift) % addrs.len().max(1))
                    .copied()
                    .unwrap_or(0);
                b.eff[base + w * wl + l] = a;
            }
        }
    }
}

fn bank_stride(b: &mut Draft, variant: &str) {
    // RDNA3: LDS has 64 DWORD-wide banks per WGP (RDNA3 ISA guide, "LDS";
    // docs/src/internals/facts.md). A qword at byte address a occupies banks (a/4) % 64 and
    // the next. With a stride of 8*w bytes, the 32 lanes of a half-wave use
    // 32/w bank pairs: a w-way conflict (w = 1: conflict-free).
    let ways: u32 = match variant {
        "conflict-free" => 1,
        v => v.trim_end_matches("-way").parse().unwrap_or(1),
    };
    let stride = 8 * ways;
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 2);
    let wl = b.wave.lanes();
    let span = waves * wl * stride;
    let base_q = b.rng.range_u32(0, 64);
    let lds = (base_q * 8 + span + b.rng.range_u32(0, 64) * 8).min(LDS_MAX_BYTES);
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let start = b.group_range(g).start;
        for i in 0..b.lanes_per_group() {
            // Distinct addresses: waves follow each other, no contention.
            let e = base_q * 8 + i as u32 * stride;
            b.eff[start + i] = e.min(b.lds_bytes - 8);
        }
    }
}

fn exec_mask(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 4);
    let lds = b.random_lds(1, 64);
    b.shape(groups, waves, lds);
    for i in 0..b.eff.len() {
        b.eff[i] = b.random_eff();
    }
    let wl = b.wave.lanes() as usize;
    let phase = b.rng.below(2) as usize;
    for wave_start in (0..b.active.len()).step_by(wl) {
        let chosen = b.rng.below(wl as u64) as usize;
        for l in 0..wl {
            let on = match variant {
                "random" => b.rng.chance(1, 2),
                "alternating" => l % 2 == phase,
                "single-lane" => l == chosen,
                _ => false, // all-off
            };
            if let Some(a) = b.active.get_mut(wave_start + l) {
                *a = on;
            }
        }
    }
}

fn offset(b: &mut Draft, variant: &str) {
    let off: u16 = match variant {
        "off0" => 0,
        "off8" => 8,
        "off4096" => 4096,
        "off65528" => 65528,
        // Patched: a multiple of 8 that is not shipped (unaligned offsets are
        // the misaligned probe's business).
        _ => loop {
            let o = (b.rng.range(1, 8191) * 8) as u16;
            if !SHIPPED_OFFSETS.contains(&o) {
                break o;
            }
        },
    };
    b.offset = off;
    let min_q = u32::from(off) / 8 + 1;
    let max_q = (min_q + 1024).min(LDS_MAX_BYTES / 8);
    let groups = if min_q > 2048 {
        1
    } else {
        b.rng.range_u32(1, 2)
    };
    let waves = b.rng.range_u32(1, 2);
    let lds = b.random_lds(min_q, max_q);
    b.shape(groups, waves, lds);
    for i in 0..b.eff.len() {
        b.eff[i] = b.random_eff();
    }
}

fn alloc_edge(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 2);
    if variant == "block-slack" {
        // A request that ends inside a granule, lanes spread over the
        // requested qwords and the slack up to the granule boundary.
        let blocks = b.rng.range_u32(1, 8);
        let lds = blocks * LDS_SLACK_GRANULE - b.rng.range_u32(1, LDS_SLACK_GRANULE / 8 - 1) * 8;
        b.shape(groups, waves, lds);
        let end = lds.div_ceil(LDS_SLACK_GRANULE) * LDS_SLACK_GRANULE;
        for i in 0..b.eff.len() {
            b.eff[i] = if b.rng.chance(1, 2) {
                b.rng.range_u32(lds / 8, end / 8 - 1) * 8
            } else {
                b.random_eff()
            };
        }
    } else {
        let lds = if b.rng.chance(1, 4) {
            LDS_MAX_BYTES
        } else {
            b.random_lds(1, 4096)
        };
        b.shape(if lds == LDS_MAX_BYTES { 1 } else { groups }, waves, lds);
        let last = b.lds_bytes - 8;
        for i in 0..b.eff.len() {
            b.eff[i] = match b.rng.below(3) {
                0 => last,
                1 => 0,
                _ => b.random_eff(),
            };
        }
    }
}

fn data(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 4);
    let waves = b.rng.range_u32(1, 4);
    let lds = b.random_lds(4, 64);
    b.shape(groups, waves, lds);
    // Contended: 1..=4 addresses per group.
    for g in 0..groups as usize {
        let m = b.rng.range(1, 4) as usize;
        let addrs = b.distinct_effs(m);
        for i in b.group_range(g) {
            b.eff[i] = *b.rng.pick(&addrs).unwrap_or(&0);
        }
    }
    match variant {
        "zero" => {
            b.data.iter_mut().for_each(|d| *d = 0);
            b.zero_lds = b.rng.chance(1, 2);
        }
        "all-ones" => b.data.iter_mut().for_each(|d| *d = u64::MAX),
        "single-bit" => {
            for i in 0..b.data.len() {
                b.data[i] = 1u64 << b.rng.below(64);
            }
        }
        "equal-contenders" => {
            // One data value per address: every order gives the same final
            // value, only the returns tell orders apart.
            let mut by_addr: std::collections::BTreeMap<(usize, u32), u64> = Default::default();
            let n = b.lanes_per_group();
            for i in 0..b.data.len() {
                let key = (i / n, b.eff[i]);
                let v = match by_addr.get(&key) {
                    Some(v) => *v,
                    None => {
                        let v = b.rng.next_u64();
                        by_addr.insert(key, v);
                        v
                    }
                };
                b.data[i] = v;
            }
        }
        _ => {}
    }
}

/// Lanes of group `g`: lane `l` of wave `w` on `addrs[(l + w) % len]`, so
/// every wave issues to every address when a wave has at least as many
/// lanes as there are addresses (every wave contends on every qword).
fn every_wave_on_every_address(b: &mut Draft, g: usize, addrs: &[u32]) {
    let wl = b.wave.lanes() as usize;
    let base = b.group_range(g).start;
    let m = addrs.len().max(1);
    for w in 0..b.waves_per_group as usize {
        for l in 0..wl {
            b.eff[base + w * wl + l] = addrs.get((l + w) % m).copied().unwrap_or(0);
        }
    }
}

fn big_group(b: &mut Draft, variant: &str) {
    // 1,024 work-items: the kernels' .max_flat_workgroup_size (HIP's
    // default launch bound; kernels/dsxor.hip sets none) and the software
    // device's and HIP's limit (ROCm/clr rocdevice.cpp maxWorkGroupSize_).
    let waves = 1024 / b.wave.lanes();
    let full = variant == "full-lds";
    let groups = if full { 1 } else { b.rng.range_u32(1, 2) };
    let lds = if full {
        LDS_MAX_BYTES
    } else {
        b.random_lds(8, 512)
    };
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let addrs = match variant {
            "one-qword" => b.distinct_effs(1),
            // The allocation's first and last qwords and one between.
            "full-lds" => {
                let mid = b.random_eff();
                vec![0, b.lds_bytes - 8, mid]
            }
            _ => {
                let m = b.rng.range(2, 8) as usize;
                b.distinct_effs(m)
            }
        };
        every_wave_on_every_address(b, g, &addrs);
    }
}

fn occupancy(b: &mut Draft, variant: &str) {
    // Two workgroups per WGP: every WGP of the device busy at once (if the
    // dispatcher spreads them, which it does not promise), each group's
    // waves contending on its own LDS.
    let groups = b.wgps.saturating_mul(2).min(1024);
    let waves = 128 / b.wave.lanes();
    let lds = b.random_lds(1, 64);
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let m = if variant == "one-qword" {
            1
        } else {
            b.rng.range(2, 4) as usize
        };
        let addrs = b.distinct_effs(m);
        every_wave_on_every_address(b, g, &addrs);
    }
}

fn lds_straddle(b: &mut Draft, variant: &str) {
    // In WGP mode a WGP's 128 KiB of LDS is two 64 KiB halves, one per CU,
    // and an allocation may straddle them (RDNA3 ISA guide §3.3.4). Where
    // the dispatcher places an allocation is its choice; dsxor assumes the
    // allocations of one WGP's workgroups packed from 0 (policy
    // `straddle-packed`), so with S bytes per group the boundary lies at
    // byte 64 KiB - k*S of the (k+1)-th allocation. second-allocation:
    // 32 KiB < S < 64 KiB, the second straddles at 64 KiB - S;
    // third-allocation: 64/3 KiB < S < 32 KiB, the third at 64 KiB - 2S.
    // S is a multiple of the 512-byte granule, so the boundary is too.
    let g = LDS_SLACK_GRANULE;
    let (k, lo, hi) = if variant == "third-allocation" {
        (2, (LDS_MAX_BYTES / 3) / g + 1, LDS_MAX_BYTES / 2 / g - 1)
    } else {
        (1, LDS_MAX_BYTES / 2 / g + 1, LDS_MAX_BYTES / g - 1)
    };
    let lds = b.rng.range_u32(lo, hi) * g;
    let boundary = LDS_MAX_BYTES - k * lds;
    // Enough groups for the straddling allocation to exist on one WGP.
    let groups = b.rng.range_u32(k + 1, k + 3);
    let waves = b.rng.range_u32(1, 4);
    b.shape(groups, waves, lds);
    let addrs = [boundary - 8, boundary, lds - 8, 0];
    for grp in 0..groups as usize {
        every_wave_on_every_address(b, grp, &addrs);
    }
}

fn wave64_halves(b: &mut Draft, variant: &str) {
    // gfx10+ runs a wave64 LDS instruction as two wave32 passes, lanes 0-31
    // and 32-63, and other LDS traffic can fall between them (policy
    // `wave64-split-halves`, whose sources the book gives). For a split to show in the returns both
    // halves of a wave and at least one other wave must hit the same qword:
    // lane l of wave w on qword (l + w) % m, m <= 4, puts every half of
    // every wave on every qword. In a wave32 cell a "wave64" is a pair of
    // wave32 waves (twice as many waves, the same lanes on the same
    // qwords): the control, where the halves are waves of their own.
    let pairs = b.rng.range_u32(2, 6);
    let waves = match b.wave {
        WaveSize::Wave64 => pairs,
        WaveSize::Wave32 => 2 * pairs,
    };
    let groups = b.rng.range_u32(1, 2);
    let lds = b.random_lds(4, 64);
    b.shape(groups, waves, lds);
    for g in 0..groups as usize {
        let m = match variant {
            "few-qwords" => b.rng.range(2, 4) as usize,
            _ => 1,
        };
        let addrs = b.distinct_effs(m);
        let base = b.group_range(g).start;
        let n = b.lanes_per_group();
        for i in 0..n {
            // Position in the 64-lane "wave64" this lane belongs to.
            let (w, l) = (i / 64, i % 64);
            b.eff[base + i] = addrs
                .get((l + w) % addrs.len().max(1))
                .copied()
                .unwrap_or(0);
        }
        if variant == "few-lanes" {
            // 1..=4 active lanes in each half of each 64 lanes: short
            // chains where one interloper is plain to see, partial EXEC.
            for w64 in 0..n / 64 {
                for half in 0..2 {
                    let first = base + w64 * 64 + half * 32;
                    let mut lanes: Vec<usize> = (first..first + 32).collect();
                    b.rng.shuffle(&mut lanes);
                    let keep = b.rng.range(1, 4) as usize;
                    for (k, lane) in lanes.into_iter().enumerate() {
                        b.active[lane] = k < keep;
                    }
                }
            }
        }
    }
}

/// Most lanes a stress case draws (policy `stress-lane-cap`). The device
/// allows far more (a dispatch's grid size is a 32-bit count of
/// work-items: ROCR-Runtime `hsa.h`, `hsa_kernel_dispatch_packet_t`
/// `grid_size_x`), but the software device runs every lane, so the grid is
/// capped at sixteen full workgroups' worth (the occupancy family's grid is
/// 12,288 lanes on the stand-in device).
pub const STRESS_MAX_LANES: u32 = 16384;

/// Most bytes of LDS a stress case's workgroups allocate together, as
/// drawn (policy `stress-lds-cap`): sixteen full 64 KiB allocations. A
/// case's LDS images are host memory several times over (the case's
/// initial images, the launch's input and output buffers, the software
/// device's copy of each, the observed final images), so ninety-six full
/// allocations (two per WGP of the stand-in device) made one case cost
/// tens of MiB; a drawn allocation keeps its size and the group count
/// gives way. Traffic may grow each allocation by a qword per traffic
/// lane afterwards (`gen::traffic`), at most `STRESS_MAX_LANES` qwords in
/// all.
pub const STRESS_MAX_LDS_BYTES: u32 = 16 * LDS_MAX_BYTES;

fn stress(b: &mut Draft, variant: &str) {
    // Stress parameters after Kirkham et al. (OOPSLA'20, "tuned thread
    // randomization, workgroup counts and memory stress") and Levine et al.
    // (ASPLOS'23, "MC Mutants"): the shape is drawn, not fixed. Waves per
    // group: 1 up to 1,024 work-items (the kernels'
    // .max_flat_workgroup_size, AMDGPUUsage.rst "flat workgroup size"):
    // 32 waves of wave32, 16 of wave64. Groups: 1 up to two per WGP (as the
    // occupancy pattern), within STRESS_MAX_LANES.
    let wl = b.wave.lanes();
    let waves = b.rng.range_u32(1, 1024 / wl);
    let lpg = waves * wl;
    let max_groups = b.wgps.saturating_mul(2).min(STRESS_MAX_LANES / lpg).max(1);
    let groups = b.rng.range_u32(1, max_groups);
    // Few contended qwords, so most lanes share a qword with lanes of
    // other waves once permuted.
    let m = match variant {
        "one-qword" => 1,
        _ => b.rng.range_u32(2, 8),
    };
    // The allocation: a random ceiling from 64 bytes to the 64 KiB limit
    // (LDS_MAX_BYTES), so small and full allocations both come up.
    let top = 1u32 << b.rng.range_u32(3, 13);
    let lds = b.random_lds(m, top.max(m));
    let groups = groups.min((STRESS_MAX_LDS_BYTES / lds.max(1)).max(1));
    b.shape(groups, waves, lds);
    let n = b.lanes_per_group();
    let mut slots = Vec::with_capacity(b.eff.len());
    let mut permuted = 0u32;
    for g in 0..groups as usize {
        let addrs = b.distinct_effs(m as usize);
        let base = b.group_range(g).start;
        // The unpermuted layout: slot s on qword s * m / n (contenders are
        // neighbouring lanes of one wave), its DATA the lane's draw, its
        // EXEC bit all on or (partial-exec) a coin.
        let data: Vec<u64> = b.data.get(base..base + n).unwrap_or_default().to_vec();
        let active: Vec<bool> = (0..n)
            .map(|_| variant != "partial-exec" || b.rng.chance(1, 2))
            .collect();
        // Thread randomization: lane i of the group runs slot perm[i].
        let mut perm: Vec<usize> = (0..n).collect();
        b.rng.shuffle(&mut perm);
        for (i, &slot) in perm.iter().enumerate() {
            let lane = base + i;
            b.eff[lane] = addrs.get(slot * addrs.len() / n).copied().unwrap_or(0);
            b.data[lane] = data.get(slot).copied().unwrap_or(0);
            b.active[lane] = active.get(slot).copied().unwrap_or(true);
            // n <= 1024, so a slot fits in 16 bits.
            slots.push(slot as u16);
            permuted += u32::from(slot != i);
        }
    }
    b.stress = Some(Stress {
        groups,
        waves_per_group: waves,
        contended_qwords: m,
        permuted_lanes: permuted,
        slots,
        traffic_lanes: 0,
        spin_max: 0,
    });
}

fn misaligned(b: &mut Draft, variant: &str) {
    let compensated = variant == "offset-compensated";
    if variant == "offset-misaligns" || compensated {
        // An offset that is not a multiple of 8.
        b.offset = (b.rng.range(0, 1023) * 8 + b.rng.range(1, 7)) as u16;
    }
    let off = u32::from(b.offset);
    let min_q = off / 8 + 2;
    let lds = b.random_lds(min_q, min_q + 256);
    b.shape(1, 1, lds);
    for i in 0..b.eff.len() {
        b.eff[i] = if variant == "offset-misaligns" {
            // ADDR aligned, so ADDR + offset is not (every lane).
            let max_q = (b.lds_bytes - off) / 8 - 1;
            b.rng.range_u32(0, max_q) * 8 + off
        } else {
            // Aligned effective address; for the compensated variant ADDR
            // itself is then unaligned: is alignment judged on ADDR + offset,
            // as CalcDsAddr says, or on ADDR?
            b.random_eff()
        };
    }
    // addr-4 / addr-odd: one lane misaligned, the others aligned.
    let victim = b.rng.below(b.eff.len() as u64) as usize;
    let by = match variant {
        "addr-4" => 4,
        "addr-odd" => b.rng.range_u32(1, 7),
        _ => 0,
    };
    let last = b.lds_bytes - 8;
    if let Some(e) = b.eff.get_mut(victim) {
        *e = (*e).min(last) + by;
    }
}

fn out_of_range(b: &mut Draft, variant: &str) {
    let groups = b.rng.range_u32(1, 2);
    let waves = b.rng.range_u32(1, 2);
    if variant == "offset-carry" {
        // ADDR inside the allocation, ADDR + offset at or past its end
        // (and, for the upper ADDRs, past 64 KiB).
        b.offset = (b.rng.range(7168, 8191) * 8) as u16;
        let off = u32::from(b.offset);
        let lds = LDS_MAX_BYTES - off + b.rng.range_u32(1, 512) * 8;
        b.shape(groups, waves, lds);
        for i in 0..b.eff.len() {
            b.eff[i] = b.rng.range_u32(0, b.lds_qwords() - 1) * 8 + off;
        }
        return;
    }
    let lds = b.random_lds(1, 1024);
    b.shape(groups, waves, lds);
    let block_end = lds.div_ceil(LDS_SLACK_GRANULE) * LDS_SLACK_GRANULE;
    for i in 0..b.eff.len() {
        // Half the lanes out of range, half in (their updates must survive).
        b.eff[i] = if b.rng.chance(1, 2) {
            b.random_eff()
        } else if variant == "past-block" {
            b.rng.range_u32(block_end / 8, LDS_MAX_BYTES / 8 - 1) * 8
        } else {
            b.rng.range_u32(LDS_MAX_BYTES / 8, u32::MAX / 8) * 8
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> impl Iterator<Item = CaseId> {
        Pattern::all().flat_map(|p| {
            [WaveSize::Wave32, WaveSize::Wave64]
                .into_iter()
                .flat_map(move |w| {
                    (0..12).map(move |o| CaseId {
                        pattern: p,
                        wave: w,
                        mode: crate::case::Mode::Wgp,
                        ordinal: o,
                    })
                })
        })
    }

    #[test]
    fn every_case_is_well_formed() {
        for id in ids() {
            let g = generate(42, id, 0);
            let c = &g.case;
            assert_eq!(c.lds_bytes % 8, 0, "{id:?}");
            assert!(c.lds_bytes >= 8 && c.lds_bytes <= LDS_MAX_BYTES, "{id:?}");
            assert_eq!(c.lanes.len(), c.geometry.total_lanes(), "{id:?}");
            assert_eq!(c.lds_init.len(), c.geometry.groups as usize, "{id:?}");
            assert!(
                c.lds_init.iter().all(|g| g.len() == c.lds_qwords()),
                "{id:?}"
            );
            assert!(c.geometry.lanes_per_group() <= 1024, "{id:?}");
        }
    }

    #[test]
    fn default_families_stay_aligned_and_in_range_except_the_slack() {
        for id in ids().filter(|i| !i.pattern.is_probe()) {
            let g = generate(7, id, 0);
            let c = &g.case;
            let slack_end = c.lds_bytes.div_ceil(LDS_SLACK_GRANULE) * LDS_SLACK_GRANULE;
            for l in c.lanes.iter().filter(|l| l.active) {
                let eff = u64::from(l.addr) + u64::from(c.offset);
                assert_eq!(eff % 8, 0, "{id:?} lane {l:?}");
                if g.variant == "block-slack" {
                    assert!(eff < u64::from(slack_end), "{id:?}");
                } else {
                    assert!(
                        eff < u64::from(c.lds_bytes),
                        "{id:?} eff {eff} lds {}",
                        c.lds_bytes
                    );
                }
            }
        }
    }

    #[test]
    fn families_do_what_their_names_say() {
        let w = WaveSize::Wave32;
        for o in 0..6 {
            let c = generate(
                3,
                CaseId {
                    pattern: Pattern::OneAddress,
                    wave: w,
                    mode: crate::case::Mode::Wgp,
                    ordinal: o,
                },
                0,
            )
            .case;
            let n = c.geometry.lanes_per_group() as usize;
            for g in 0..c.geometry.groups as usize {
                let lanes = &c.lanes[g * n..(g + 1) * n];
                assert!(lanes.iter().all(|l| l.addr == lanes[0].addr));
            }
        }
        // k-per-address: every used address has exactly k lanes (but the last).
        for (o, k) in [(0u64, 2usize), (1, 3), (2, 4), (3, 8), (4, 16)] {
            let c = generate(
                3,
                CaseId {
                    pattern: Pattern::KPerAddress,
                    wave: w,
                    mode: crate::case::Mode::Wgp,
                    ordinal: o,
                },
                0,
            )
            .case;
            let n = c.geometry.lanes_per_group() as usize;
            let mut counts = std::collections::BTreeMap::new();
            for l in &c.lanes[..n] {
                *counts.entry(l.addr).or_insert(0usize) += 1;
            }
            let full = counts.values().filter(|&&v| v == k).count();
            assert_eq!(full, n / k, "k={k} counts={counts:?}");
        }
        // exec-mask all-off: nothing active.
        let c = generate(
            3,
            CaseId {
                pattern: Pattern::ExecMask,
                wave: w,
                mode: crate::case::Mode::Wgp,
                ordinal: 3,
            },
            0,
        )
        .case;
        assert!(c.lanes.iter().all(|l| !l.active));
        // single-lane: exactly one active lane per wave.
        let c = generate(
            3,
            CaseId {
                pattern: Pattern::ExecMask,
                wave: w,
                mode: crate::case::Mode::Wgp,
                ordinal: 2,
            },
            0,
        )
        .case;
        for wave in c.lanes.chunks(32) {
            assert_eq!(wave.iter().filter(|l| l.active).count(), 1);
        }
        // offsets: shipped variants use their offset, patched ones never do.
        for (o, want) in [
            (0u64, Some(0u16)),
            (1, Some(8)),
            (2, Some(4096)),
            (3, Some(65528)),
            (4, None),
        ] {
            let c = generate(
                3,
                CaseId {
                    pattern: Pattern::Offset,
                    wave: w,
                    mode: crate::case::Mode::Wgp,
                    ordinal: o,
                },
                0,
            )
            .case;
            match want {
                Some(off) => assert_eq!(c.offset, off),
                None => assert!(!SHIPPED_OFFSETS.contains(&c.offset) && c.offset.is_multiple_of(8)),
            }
        }
        // bank-stride 32-way: consecutive lanes 256 bytes apart.
        let c = generate(
            3,
            CaseId {
                pattern: Pattern::BankStride,
                wave: w,
                mode: crate::case::Mode::Wgp,
                ordinal: 5,
            },
            0,
        )
        .case;
        assert_eq!(c.lanes[1].addr - c.lanes[0].addr, 256);
        // cross-wave has at least two waves and shares addresses across them.
        let c = generate(
            3,
            CaseId {
                pattern: Pattern::CrossWave,
                wave: w,
                mode: crate::case::Mode::Wgp,
                ordinal: 0,
            },
            0,
        )
        .case;
        assert!(c.geometry.waves_per_group >= 2);
        assert_eq!(c.lanes[0].addr, c.lanes[32].addr);
        // probes leave the allocation or the alignment.
        let c = generate(
            3,
            CaseId {
                pattern: Pattern::Misaligned,
                wave: w,
                mode: crate::case::Mode::Wgp,
                ordinal: 0,
            },
            0,
        )
        .case;
        assert!(c
            .lanes
            .iter()
            .any(|l| (l.addr + u32::from(c.offset)) % 8 != 0));
        let c = generate(
            3,
            CaseId {
                pattern: Pattern::OutOfRange,
                wave: w,
                mode: crate::case::Mode::Wgp,
                ordinal: 1,
            },
            0,
        )
        .case;
        assert!(c.lanes.iter().any(|l| l.addr >= LDS_MAX_BYTES));
    }

    fn stress_case(seed: u64, wave: WaveSize, ordinal: u64) -> Generated {
        let mode = if ordinal.is_multiple_of(2) {
            Mode::Wgp
        } else {
            Mode::Cu
        };
        let id = CaseId {
            pattern: Pattern::Stress,
            wave,
            mode,
            ordinal,
        };
        generate(seed, id, ordinal)
    }

    /// Every stress case records what it drew, the shape stays within the
    /// limits, and each workgroup's lanes are a permutation of the
    /// unpermuted layout: slot s on the s * m / n-th contended qword.
    #[test]
    fn stress_cases_draw_within_the_limits_and_record_the_permutation() {
        let mut shapes = std::collections::BTreeSet::new();
        for wave in [WaveSize::Wave32, WaveSize::Wave64] {
            for o in 0..30 {
                let g = stress_case(11, wave, o);
                let c = &g.case;
                let st = c
                    .stress
                    .as_ref()
                    .expect("a stress case records its parameters");
                assert_eq!(st.groups, c.geometry.groups, "{o}");
                assert_eq!(st.waves_per_group, c.geometry.waves_per_group, "{o}");
                let n = c.geometry.lanes_per_group() as usize;
                assert!(
                    n <= 1024 && c.lanes.len() <= STRESS_MAX_LANES as usize,
                    "{o}"
                );
                assert!(st.groups <= 2 * STAND_IN_WGPS, "{o}");
                assert!(c.lds_bytes <= LDS_MAX_BYTES, "{o}");
                // The allocation as drawn (traffic may grow it by a qword
                // per traffic lane) times the groups stays within the cap.
                let traffic_qwords = c.traffic.as_ref().map_or(0, |t| t.lanes.len() as u64);
                assert!(
                    u64::from(st.groups) * u64::from(c.lds_bytes)
                        <= u64::from(STRESS_MAX_LDS_BYTES) + 8 * traffic_qwords,
                    "{o}: {} groups of {} bytes",
                    st.groups,
                    c.lds_bytes
                );
                assert_eq!(st.slots.len(), c.lanes.len(), "{o}");
                let m = st.contended_qwords as usize;
                assert_eq!(m == 1, g.variant == "one-qword", "{o}");
                let mut moved = 0;
                for grp in 0..c.geometry.groups as usize {
                    let slots = &st.slots[grp * n..(grp + 1) * n];
                    let lanes = c.group_lanes(grp);
                    let mut seen = vec![false; n];
                    // slot -> address: the unpermuted layout's blocks.
                    // A traffic lane (gen::traffic) keeps its slot but
                    // left the layout for a qword of its own.
                    let is_traffic = |i: usize| {
                        c.traffic
                            .as_ref()
                            .is_some_and(|t| t.is_traffic(grp * n + i))
                    };
                    let mut by_slot = vec![None; n];
                    let mut owned = std::collections::BTreeSet::new();
                    for (i, (&s, l)) in slots.iter().zip(lanes).enumerate() {
                        assert!(!seen[s as usize], "{o}: slot {s} twice");
                        seen[s as usize] = true;
                        if is_traffic(i) {
                            assert!(!l.active && owned.insert(l.addr), "{o}");
                        } else {
                            by_slot[s as usize] = Some(l.addr);
                        }
                        moved += usize::from(s as usize != i);
                    }
                    let distinct: std::collections::BTreeSet<u32> =
                        by_slot.iter().flatten().copied().collect();
                    assert!(distinct.len() <= m, "{o}");
                    assert!(distinct.is_disjoint(&owned), "{o}");
                    if owned.is_empty() {
                        assert_eq!(distinct.len(), m, "{o}");
                    }
                    for s in 1..n {
                        if let (Some(a), Some(b)) = (by_slot[s], by_slot[s - 1]) {
                            let same_block = s * m / n == (s - 1) * m / n;
                            assert_eq!(a == b, same_block, "{o} slot {s}");
                        }
                    }
                    if g.variant != "partial-exec" {
                        assert!(
                            lanes
                                .iter()
                                .enumerate()
                                .all(|(i, l)| l.active || is_traffic(i)),
                            "{o}"
                        );
                    }
                }
                assert_eq!(moved as u32, st.permuted_lanes, "{o}");
                shapes.insert((c.geometry.groups, c.geometry.waves_per_group));
            }
        }
        // The shape is drawn, not fixed.
        assert!(shapes.len() > 20, "{shapes:?}");
    }

    /// Thread randomization spreads a qword's contenders over the waves.
    /// Where every qword's block of slots is at least a wave long, the
    /// unpermuted layout puts a wave's lanes on at most two qwords; with
    /// three or more qwords, permuted, the first wave reaches at least
    /// three.
    #[test]
    fn stress_spreads_contenders_over_waves() {
        let mut checked = 0;
        for o in 0..60 {
            let c = stress_case(5, WaveSize::Wave32, o).case;
            let n = c.geometry.lanes_per_group() as usize;
            let m = c.stress.as_ref().map_or(0, |s| s.contended_qwords) as usize;
            if m < 3 || n / m < 32 {
                continue;
            }
            checked += 1;
            let first_wave: std::collections::BTreeSet<u32> =
                c.group_lanes(0)[..32].iter().map(|l| l.addr).collect();
            assert!(first_wave.len() >= 3, "{o}: {first_wave:?}");
        }
        assert!(checked >= 10, "{checked}");
    }

    #[test]
    fn stress_is_deterministic_per_seed_and_only_stress_records_it() {
        for o in 0..6 {
            let a = stress_case(3, WaveSize::Wave64, o);
            assert_eq!(a, stress_case(3, WaveSize::Wave64, o));
            assert_ne!(
                a.case.stress,
                stress_case(4, WaveSize::Wave64, o).case.stress
            );
        }
        for id in ids().filter(|i| i.pattern != Pattern::Stress) {
            assert!(generate(42, id, 0).case.stress.is_none(), "{id:?}");
        }
    }

    #[test]
    fn pattern_names_round_trip() {
        for p in Pattern::all() {
            assert_eq!(Pattern::from_name(p.name()), Some(p));
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.name()));
        }
        assert_eq!(Pattern::from_name("nope"), None);
    }
}
