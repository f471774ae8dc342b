//! Qualifying the software device against a GPU (issue 16): the same
//! programs on both, every disagreement reported with the program, both
//! outputs and the ISA pseudocode's answer, and a record of which
//! instructions the software device is qualified for on which device and
//! driver.
//!
//! The corpus needs no compiler: each program is the shipped
//! `dsxor_conformance_off0` kernel (gfx1100, wave32 and wave64) with its one
//! `ds_xor_rtn_b64` re-encoded by dsxor's own DS encoder (`isa`) into
//! another 64-bit returning DS atomic of the same operand shape (VDST, ADDR,
//! DATA0), run on seeded single-wave cases with varied EXEC masks, values
//! chosen to cross the signed/unsigned and wrap boundaries, and contention
//! (one, a few, or all lanes per address). Two-operand atomics (cmpstore,
//! mskor) need DATA1 and are not in it; nor are SALU/VALU/VOPD programs,
//! which need kernels of their own.
//!
//! The pseudocode's answer ([`pseudocode`]) is written here from the AMD
//! RDNA3 ISA guide's DS instruction descriptions, independent of `emu` and
//! `model`. Lanes of one instruction that hit one address are serialized
//! in an order the ISA leaves unspecified; the answer serializes them in
//! ascending lane order (the order both the software device and AMD's
//! emulator use), so a contended disagreement may be a legal other order:
//! the record says which cases were contended.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::backend::conformance::{dispatch_for, kernel_name, observation};
use crate::backend::{Backend, BackendError, DeviceInfo};
use crate::case::{Case, Geometry, LaneInput, Observation, WaveSize};
use crate::codeobj::{patch::find_ds_xor_site, CodeObject};
use crate::isa::{self, DsInst, Family};

/// Record format name.
pub const QUALIFY_FORMAT: &str = "dsxor-qualify/1";

/// The 64-bit returning DS atomics with one DATA operand, by LLVM's gfx11
/// mnemonic (`ds_storexchg_rtn_b64` is gfx11's name for wrxchg).
pub const DS_B64_RTN_ATOMICS: &[&str] = &[
    "ds_add_rtn_u64",
    "ds_sub_rtn_u64",
    "ds_rsub_rtn_u64",
    "ds_inc_rtn_u64",
    "ds_dec_rtn_u64",
    "ds_min_rtn_i64",
    "ds_max_rtn_i64",
    "ds_min_rtn_u64",
    "ds_max_rtn_u64",
    "ds_and_rtn_b64",
    "ds_or_rtn_b64",
    "ds_xor_rtn_b64",
    "ds_storexchg_rtn_b64",
];

/// LDS qwords of every program's workgroup.
const LDS_QWORDS: u32 = 16;

#[derive(Debug, thiserror::Error)]
pub enum QualifyError {
    #[error("qualify: {0}")]
    Corpus(String),
    #[error("qualify: the {side} side: {error}")]
    Device {
        side: &'static str,
        error: BackendError,
    },
}

/// The memory update of one lane of `name` (AMD RDNA3 ISA guide, "DS"
/// instruction descriptions: `tmp = MEM[ADDR]; MEM[ADDR] = f(tmp, DATA);
/// RETURN_DATA = tmp`). None for a name outside [`DS_B64_RTN_ATOMICS`].
pub fn pseudocode(name: &str, tmp: u64, data: u64) -> Option<u64> {
    Some(match name {
        "ds_add_rtn_u64" => tmp.wrapping_add(data),
        "ds_sub_rtn_u64" => tmp.wrapping_sub(data),
        // RSUB: MEM = DATA - MEM.
        "ds_rsub_rtn_u64" => data.wrapping_sub(tmp),
        // INC: MEM = (tmp >= DATA) ? 0 : tmp + 1 (unsigned compare).
        "ds_inc_rtn_u64" => {
            if tmp >= data {
                0
            } else {
                tmp + 1
            }
        }
        // DEC: MEM = (tmp == 0 || tmp > DATA) ? DATA : tmp - 1 (unsigned).
        "ds_dec_rtn_u64" => {
            if tmp == 0 || tmp > data {
                data
            } else {
                tmp - 1
            }
        }
        "ds_min_rtn_i64" => (tmp as i64).min(data as i64) as u64,
        "ds_max_rtn_i64" => (tmp as i64).max(data as i64) as u64,
        "ds_min_rtn_u64" => tmp.min(data),
        "ds_max_rtn_u64" => tmp.max(data),
        "ds_and_rtn_b64" => tmp & data,
        "ds_or_rtn_b64" => tmp | data,
        "ds_xor_rtn_b64" => tmp ^ data,
        // STOREXCHG (wrxchg): MEM = DATA.
        "ds_storexchg_rtn_b64" => data,
        _ => return None,
    })
}

/// The pseudocode's answer for `case` under `name`: per workgroup, active
/// lanes in ascending order read the qword at ADDR + offset and write
/// `pseudocode(...)`; inactive lanes keep VDST (EXEC off). Cases here are
/// in range and 8-byte aligned by construction.
pub fn expected(name: &str, case: &Case) -> Option<Observation> {
    let per = case.geometry.lanes_per_group() as usize;
    let mut ret = Vec::with_capacity(case.lanes.len());
    let mut lds_final = Vec::new();
    for (g, init) in case.lds_init.iter().enumerate() {
        let mut lds = init.clone();
        for l in case.lanes.get(g * per..(g + 1) * per)? {
            if !l.active {
                ret.push(l.vdst_init);
                continue;
            }
            let q = (l.addr as usize + case.offset as usize) / 8;
            let tmp = *lds.get(q)?;
            ret.push(tmp);
            lds[q] = pseudocode(name, tmp, l.data)?;
        }
        lds_final.push(lds);
    }
    Some(Observation { ret, lds_final })
}

/// `code` (an ELF code object holding `dsxor_conformance_off0`) with that
/// kernel's `ds_xor_rtn_b64` re-encoded as `name`, by dsxor's DS encoder.
pub fn program(code: &[u8], name: &str) -> Result<Vec<u8>, QualifyError> {
    let bad = |why: String| QualifyError::Corpus(format!("program for {name}: {why}"));
    let co = CodeObject::parse(code).map_err(|e| bad(e.to_string()))?;
    let family = co.isa_family().map_err(|e| bad(e.to_string()))?;
    if family != Family::Gfx11 {
        return Err(bad(format!("the corpus is for gfx11, not {family:?}")));
    }
    let info =
        isa::op_by_name(family, name).ok_or_else(|| bad("not a DS instruction of gfx11".into()))?;
    let kernel = kernel_name(0);
    let vaddr = find_ds_xor_site(&co, &kernel).map_err(|e| bad(e.to_string()))?;
    let off = co.file_offset(vaddr, 8).map_err(|e| bad(e.to_string()))? as usize;
    let mut out = code.to_vec();
    let slot = out
        .get_mut(off..off + 8)
        .ok_or_else(|| bad("instruction outside the file".into()))?;
    let mut w = [0u8; 8];
    w.copy_from_slice(slot);
    let mut inst = DsInst::decode(family, u64::from_le_bytes(w)).map_err(|e| bad(e.to_string()))?;
    inst.op = info.op;
    let word = inst.encode(family).map_err(|e| bad(e.to_string()))?;
    slot.copy_from_slice(&word.to_le_bytes());
    Ok(out)
}

/// Values that cross the boundaries the atomics care about.
const EDGES: &[u64] = &[
    0,
    1,
    2,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_ffff_fffe,
    0x0000_0000_ffff_ffff,
    0x0000_0001_0000_0000,
];

fn value(rng: &mut ChaCha8Rng) -> u64 {
    match rng.random_range(0..4u32) {
        0 => EDGES[rng.random_range(0..EDGES.len())],
        1 => rng.random_range(0..8u64),
        _ => rng.random(),
    }
}

/// EXEC shapes of the corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ExecPattern {
    All,
    None,
    Even,
    OneLane,
    HighHalf,
    Random,
}

impl ExecPattern {
    pub const ALL: [ExecPattern; 6] = [
        ExecPattern::All,
        ExecPattern::Random,
        ExecPattern::Even,
        ExecPattern::OneLane,
        ExecPattern::HighHalf,
        ExecPattern::None,
    ];
}

/// One program input: a single wave, one workgroup.
pub fn corpus_case(seed: u64, wave: WaveSize, index: u64) -> (Case, ExecPattern, u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let lanes = wave.lanes();
    // Every 6 programs cover every EXEC shape and each contention level
    // (up to LDS_QWORDS distinct addresses, 4, or 1); every 18, each pair.
    let shapes = ExecPattern::ALL.len() as u64;
    let exec = ExecPattern::ALL[(index % shapes) as usize];
    let addresses = [LDS_QWORDS, 4, 1][((index + index / shapes) % 3) as usize];
    let one = rng.random_range(0..lanes);
    let lanes: Vec<LaneInput> = (0..lanes)
        .map(|l| {
            let active = match exec {
                ExecPattern::All => true,
                ExecPattern::None => false,
                ExecPattern::Even => l % 2 == 0,
                ExecPattern::OneLane => l == one,
                ExecPattern::HighHalf => l >= wave.lanes() / 2,
                ExecPattern::Random => rng.random_bool(0.5),
            };
            LaneInput {
                addr: 8 * rng.random_range(0..addresses),
                data: value(&mut rng),
                active,
                vdst_init: rng.random(),
            }
        })
        .collect();
    let lds_init = vec![(0..LDS_QWORDS).map(|_| value(&mut rng)).collect()];
    let case = Case {
        pattern: "qualify".into(),
        index,
        geometry: Geometry {
            wave_size: wave,
            waves_per_group: 1,
            groups: 1,
        },
        lds_bytes: LDS_QWORDS * 8,
        offset: 0,
        lds_init,
        lanes,
        more_rounds: Vec::new(),
    };
    (case, exec, addresses)
}

/// One disagreement: the program, both outputs and the pseudocode's.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Disagreement {
    pub instruction: String,
    pub wave: WaveSize,
    pub exec: ExecPattern,
    /// Active lanes may share an address (the order is then unspecified).
    pub contended: bool,
    /// Which sides differ: `device`, `emu` or both, from the pseudocode,
    /// and whether `device` and `emu` agree.
    pub summary: String,
    pub case: Case,
    pub device: Observation,
    pub emu: Observation,
    pub pseudocode: Observation,
}

/// What the record says of one instruction.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InstructionResult {
    pub instruction: String,
    pub op: u8,
    pub waves: Vec<WaveSize>,
    pub programs: u64,
    /// Programs where the device, the software device and the pseudocode
    /// gave the same VDST for every lane and the same LDS.
    pub agreed: u64,
    /// Every program agreed: the software device is qualified for this
    /// instruction on `device` (for the inputs of this corpus).
    pub qualified: bool,
}

/// The `dsxor-qualify/1` record.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QualifyRecord {
    pub format: String,
    pub dsxor_version: String,
    pub seed: u64,
    /// The device qualified against (its runtime and driver versions in it).
    pub device: DeviceInfo,
    /// The software device.
    pub emu: DeviceInfo,
    /// Both sides are the software device (`--backend emu`, or `hip` through
    /// the software HIP runtime): a plumbing check, not a qualification.
    pub plumbing_only: bool,
    pub instructions: Vec<InstructionResult>,
    pub disagreements: Vec<Disagreement>,
}

impl QualifyRecord {
    pub fn all_agreed(&self) -> bool {
        self.disagreements.is_empty()
    }
}

/// Run `cases_per_wave` programs per instruction and wave size in `objects`
/// (the off0 conformance objects, by wave) on `device` and on `emu`.
pub fn qualify(
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    objects: &[(WaveSize, &[u8])],
    seed: u64,
    cases_per_wave: u64,
    timeout: Duration,
    progress: &mut dyn FnMut(&InstructionResult),
) -> Result<QualifyRecord, QualifyError> {
    // Through the software HIP runtime the "device" is the software device
    // too (issue 16: a test that the plumbing works, not a qualification).
    let plumbing_only = device.info().is_software_device();
    let kernel = kernel_name(0);
    let mut instructions = Vec::new();
    let mut disagreements = Vec::new();
    for name in DS_B64_RTN_ATOMICS {
        let op = isa::op_by_name(Family::Gfx11, name)
            .ok_or_else(|| QualifyError::Corpus(format!("{name} is not in the gfx11 table")))?
            .op;
        let mut result = InstructionResult {
            instruction: name.to_string(),
            op,
            waves: objects.iter().map(|(w, _)| *w).collect(),
            programs: 0,
            agreed: 0,
            qualified: false,
        };
        for (wave, code) in objects {
            let bytes = program(code, name)?;
            for i in 0..cases_per_wave {
                let (case, exec, _) = corpus_case(seed, *wave, i);
                let run = |b: &mut dyn Backend, side| {
                    let d = dispatch_for(&case, &bytes, &kernel, timeout);
                    b.dispatch(&d)
                        .and_then(|c| observation(&case, &c))
                        .map_err(|error| QualifyError::Device { side, error })
                };
                let on_device = run(device, "device")?;
                let on_emu = run(emu, "emu")?;
                let want = expected(name, &case).ok_or_else(|| {
                    QualifyError::Corpus(format!("no pseudocode answer for {name}"))
                })?;
                result.programs += 1;
                if on_device == want && on_emu == want {
                    result.agreed += 1;
                    continue;
                }
                let mut hit = std::collections::HashSet::new();
                let contended = !case
                    .lanes
                    .iter()
                    .filter(|l| l.active)
                    .all(|l| hit.insert(l.addr));
                let side = |o: &Observation| if *o == want { "agrees" } else { "differs" };
                disagreements.push(Disagreement {
                    instruction: name.to_string(),
                    wave: *wave,
                    exec,
                    contended,
                    summary: format!(
                        "device {} with the pseudocode, emu {}; device and emu {}",
                        side(&on_device),
                        side(&on_emu),
                        if on_device == on_emu {
                            "agree"
                        } else {
                            "differ"
                        }
                    ),
                    case,
                    device: on_device,
                    emu: on_emu,
                    pseudocode: want,
                });
            }
        }
        result.qualified = result.programs > 0 && result.agreed == result.programs;
        progress(&result);
        instructions.push(result);
    }
    Ok(QualifyRecord {
        format: QUALIFY_FORMAT.into(),
        dsxor_version: env!("CARGO_PKG_VERSION").into(),
        seed,
        device: device.info().clone(),
        emu: emu.info().clone(),
        plumbing_only,
        instructions,
        disagreements,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pseudocode's boundaries, written out from the guide's text.
    #[test]
    fn pseudocode_edges() {
        let m = u64::MAX;
        assert_eq!(pseudocode("ds_inc_rtn_u64", 5, 5), Some(0));
        assert_eq!(pseudocode("ds_inc_rtn_u64", 4, 5), Some(5));
        assert_eq!(pseudocode("ds_inc_rtn_u64", m, 0), Some(0));
        assert_eq!(pseudocode("ds_dec_rtn_u64", 0, 7), Some(7));
        assert_eq!(pseudocode("ds_dec_rtn_u64", 8, 7), Some(7));
        assert_eq!(pseudocode("ds_dec_rtn_u64", 7, 7), Some(6));
        assert_eq!(pseudocode("ds_min_rtn_i64", m, 1), Some(m));
        assert_eq!(pseudocode("ds_min_rtn_u64", m, 1), Some(1));
        assert_eq!(pseudocode("ds_max_rtn_i64", 1 << 63, 0), Some(0));
        assert_eq!(pseudocode("ds_max_rtn_u64", 1 << 63, 0), Some(1 << 63));
        assert_eq!(pseudocode("ds_rsub_rtn_u64", 3, 10), Some(7));
        assert_eq!(
            pseudocode("ds_sub_rtn_u64", 3, 10),
            Some(3u64.wrapping_sub(10))
        );
        assert_eq!(pseudocode("ds_storexchg_rtn_b64", 3, 10), Some(10));
        assert_eq!(pseudocode("ds_cmpstore_rtn_b64", 3, 10), None);
    }

    #[test]
    fn every_atomic_is_in_the_gfx11_table_with_the_xor_operand_shape() {
        let xor = isa::op_by_name(Family::Gfx11, "ds_xor_rtn_b64").unwrap();
        for name in DS_B64_RTN_ATOMICS {
            let info = isa::op_by_name(Family::Gfx11, name).unwrap();
            assert_eq!(info.operands, xor.operands, "{name}");
        }
    }

    #[test]
    fn the_corpus_covers_every_exec_shape_and_contention() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..18 {
            let (c, exec, addresses) = corpus_case(1, WaveSize::Wave32, i);
            assert_eq!(c.lanes.len(), 32);
            assert!(c
                .lanes
                .iter()
                .all(|l| l.addr % 8 == 0 && l.addr < c.lds_bytes));
            seen.insert((format!("{exec:?}"), addresses));
        }
        assert_eq!(seen.len(), 18);
        let first6: std::collections::BTreeSet<u32> = (0..6)
            .map(|i| corpus_case(1, WaveSize::Wave32, i).2)
            .collect();
        assert_eq!(first6.len(), 3, "six programs cover every contention level");
        assert_eq!(
            corpus_case(1, WaveSize::Wave64, 3),
            corpus_case(1, WaveSize::Wave64, 3)
        );
    }

    #[test]
    fn expected_serializes_in_lane_order_and_keeps_inactive_vdst() {
        let (mut c, _, _) = corpus_case(2, WaveSize::Wave32, 0);
        for (i, l) in c.lanes.iter_mut().enumerate() {
            l.addr = 0;
            l.data = 1;
            l.active = i != 3;
        }
        c.lds_init[0][0] = 10;
        let o = expected("ds_add_rtn_u64", &c).unwrap();
        assert_eq!(o.ret[0], 10);
        assert_eq!(o.ret[2], 12);
        assert_eq!(o.ret[3], c.lanes[3].vdst_init);
        assert_eq!(o.ret[4], 13);
        assert_eq!(o.lds_final[0][0], 10 + 31);
    }
}
