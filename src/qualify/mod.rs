//! Qualifying the software device against a GPU: the same
//! programs on both, every disagreement reported with the program, both
//! outputs and the ISA pseudocode's answer, and a record of which
//! instructions the software device is qualified for on which device and
//! driver.
//!
//! The corpus needs no compiler: each program is the shipped
//! `dsxor_conformance_off0` kernel (gfx1100, wave32 and wave64) with its one
//! `ds_xor_rtn_b64 v[3:4], v5, v[7:8]` re-encoded by dsxor's own DS encoder
//! (`isa`) into another DS atomic of gfx11 ([`DS_ATOMICS`]: every integer
//! one, 32- and 64-bit, with and without return, including the two-data
//! `cmpstore` and `mskor`; `ds_wrap_rtn_b32`, `ds_condxchg32_rtn_b64`, the
//! 32-bit two-address exchanges; the 14 float atomics), run on seeded
//! single-wave cases with varied EXEC masks, values chosen to cross the
//! signed/unsigned and wrap boundaries (the float forms: ±0, denormals,
//! infinities, quiet and signalling NaNs, round-to-even ties), and
//! contention (one, a few, or all lanes per address).
//! - 32-bit forms use the low register of each pair: DATA is the low dword
//!   of the lane's data, the return replaces the low dword of VDST (the
//!   high dword keeps its value) and memory is the low dword of the qword
//!   at ADDR (LDS is little-endian).
//! - Forms without return leave VDST as it was (encoded with VDST 0, as
//!   LLVM encodes them).
//! - Two-data forms (cmpstore, mskor, wrap) take DATA2 from the VDST
//!   register: the kernel loads each lane's `vdst_init` into VDST before the
//!   atomic (that is how inactive lanes keep it), so DATA2 = `vdst_init`;
//!   the corpus sets `vdst_init` to the lane's initial memory value for some
//!   lanes so compares succeed.
//! - `ds_condxchg32_rtn_b64` has `ds_xor_rtn_b64`'s shape (a DATA pair, a
//!   VDST pair).
//! - The 32-bit two-address exchanges (`ds_storexchg_2addr_rtn_b32`,
//!   `_stride64_`) take DATA and DATA2 from the two registers of the DATA
//!   pair (v7, v8) and return both old dwords in the VDST pair (v[3:4]);
//!   their OFFSET0/OFFSET1 vary with the program ([`program_offset`]: a
//!   qword's two dwords, dwords overlapping the next lanes', one address
//!   twice) and the case carries them as its 16-bit offset field
//!   ({OFFSET1, OFFSET0} in `Case::offset`); the LDS is large enough for
//!   both addresses.
//!
//! The ALU corpus (integer SALU, VALU and VOPD programs in a harness kernel
//! of their own, with their own pseudocode) is [`alu`]; the float atomics'
//! pseudocode is [`float`].
//!
//! Not in the DS corpus: the 64-bit two-address exchanges
//! (`ds_storexchg_2addr_rtn_b64`, `_stride64_rtn_b64`), whose 4-register
//! VDST and second DATA pair the shipped kernel's operands (one VDST pair,
//! one DATA pair, read back as one qword per lane) cannot carry — they need
//! a harness kernel of their own; the software device runs them
//! (tests/it/emu_ds_atomics_llvm.rs). Nor the GWS, append/consume, ordered-count,
//! `ds_add_gs_reg`/`ds_sub_gs_reg` and `ds_bvh_stack` forms, which are not
//! LDS read-modify-writes of the lane's address.
//!
//! The ALU corpus (integer SALU, VALU and VOPD programs in a harness kernel
//! of their own, with their own pseudocode) is [`alu`].
//!
//! The pseudocode's answer ([`pseudocode`]) is written here from the AMD
//! ISA guides' DS instruction descriptions, independent of `emu` and
//! `model` (quoted from the RDNA4 guide's §16.15 "VDS Instructions", whose
//! integer DS atomics have the opcodes and pseudocode of gfx11, e.g.
//! `DS_CMPSTORE_B32`: "src = DATA.b32; cmp = DATA2.b32; MEM[addr].b32 = tmp
//! == cmp ? src : tmp"; `DS_MSKOR_B32`: "MEM[addr].b32 = ((tmp & ~DATA.b32)
//! | DATA2.b32)"). Lanes of one instruction that hit one address are serialized
//! in an order the ISA leaves unspecified; the answer serializes them in
//! ascending lane order (the order both the software device and AMD's
//! emulator use), so a contended disagreement may be a legal other order:
//! the record says which cases were contended.

pub mod alu;
pub mod driver;
pub mod float;

pub use driver::{qualify_into, Corpus, Options};

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::backend::conformance::{dispatch_for, kernel_name, observation};
use crate::backend::{Backend, BackendError, Completion, DeviceInfo, Dispatch};
use crate::case::{Case, Geometry, LaneInput, Observation, WaveSize};
use crate::codeobj::{patch::find_ds_xor_site, CodeObject};
use crate::isa::{self, DsInst, Family};
use driver::{Answers, Tally, Target};

/// Record format name.
pub const QUALIFY_FORMAT: &str = "dsxor-qualify/1";

/// Every integer DS atomic of gfx11 in the corpus, by LLVM's mnemonic:
/// the 64-bit returning forms with one DATA operand (the operand shape of
/// `ds_xor_rtn_b64` itself; `ds_storexchg_rtn_b64` is gfx11's name for
/// wrxchg), then the two-data 64-bit returning forms, the 32-bit returning
/// forms, and the forms without return.
pub const DS_ATOMICS: &[&str] = &[
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
    "ds_cmpstore_rtn_b64",
    "ds_mskor_rtn_b64",
    "ds_add_rtn_u32",
    "ds_sub_rtn_u32",
    "ds_rsub_rtn_u32",
    "ds_inc_rtn_u32",
    "ds_dec_rtn_u32",
    "ds_min_rtn_i32",
    "ds_max_rtn_i32",
    "ds_min_rtn_u32",
    "ds_max_rtn_u32",
    "ds_and_rtn_b32",
    "ds_or_rtn_b32",
    "ds_xor_rtn_b32",
    "ds_storexchg_rtn_b32",
    "ds_cmpstore_rtn_b32",
    "ds_mskor_rtn_b32",
    "ds_add_u64",
    "ds_sub_u64",
    "ds_rsub_u64",
    "ds_inc_u64",
    "ds_dec_u64",
    "ds_min_i64",
    "ds_max_i64",
    "ds_min_u64",
    "ds_max_u64",
    "ds_and_b64",
    "ds_or_b64",
    "ds_xor_b64",
    "ds_cmpstore_b64",
    "ds_mskor_b64",
    "ds_add_u32",
    "ds_sub_u32",
    "ds_rsub_u32",
    "ds_inc_u32",
    "ds_dec_u32",
    "ds_min_i32",
    "ds_max_i32",
    "ds_min_u32",
    "ds_max_u32",
    "ds_and_b32",
    "ds_or_b32",
    "ds_xor_b32",
    "ds_cmpstore_b32",
    "ds_mskor_b32",
    // The other atomics of gfx11's DS table with an operand shape the
    // shipped kernel carries (see the module text).
    "ds_wrap_rtn_b32",
    "ds_condxchg32_rtn_b64",
    "ds_storexchg_2addr_rtn_b32",
    "ds_storexchg_2addr_stride64_rtn_b32",
    // The float atomics gfx11 has (llvm-mc-22 -mcpu=gfx1100 accepts exactly
    // these; it refuses ds_add_f64, ds_add_rtn_f64 and ds_pk_add_*).
    "ds_add_f32",
    "ds_add_rtn_f32",
    "ds_min_f32",
    "ds_max_f32",
    "ds_min_rtn_f32",
    "ds_max_rtn_f32",
    "ds_min_f64",
    "ds_max_f64",
    "ds_min_rtn_f64",
    "ds_max_rtn_f64",
    "ds_cmpstore_f32",
    "ds_cmpstore_rtn_f32",
    "ds_cmpstore_f64",
    "ds_cmpstore_rtn_f64",
];

/// The shape of a corpus atomic, read from its mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// 32 or 64.
    pub bits: u32,
    /// `_rtn_`: VDST receives the old value.
    pub rtn: bool,
    /// DATA2 is an operand taken from the VDST register (cmpstore, mskor,
    /// wrap).
    pub two_data: bool,
    /// A float atomic (`_f32`, `_f64`).
    pub float: bool,
    /// A two-address exchange (`ds_storexchg_2addr_*`): DATA and DATA2 are
    /// the two dwords of the lane's data, VDST both returns.
    pub xchg2: bool,
    /// `_stride64_`: the two offsets scale by 64 elements.
    pub stride64: bool,
}

/// The shape of `name`, None outside [`DS_ATOMICS`].
pub fn shape(name: &str) -> Option<Shape> {
    if !DS_ATOMICS.contains(&name) {
        return None;
    }
    let bits = if name.ends_with("32") { 32 } else { 64 };
    // ds_condxchg32_rtn_b64 works on a qword (two conditional dwords).
    let bits = if name.starts_with("ds_condxchg32") {
        64
    } else {
        bits
    };
    Some(Shape {
        bits,
        rtn: name.contains("_rtn_"),
        two_data: name.starts_with("ds_cmpstore")
            || name.starts_with("ds_mskor")
            || name.starts_with("ds_wrap"),
        float: name.ends_with("_f32") || name.ends_with("_f64"),
        xchg2: name.starts_with("ds_storexchg_2addr"),
        stride64: name.contains("_stride64_"),
    })
}

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

/// The memory update of one lane of `name` (AMD ISA guide, "DS"
/// instruction descriptions: `tmp = MEM[ADDR]; MEM[ADDR] = f(tmp, DATA,
/// DATA2); RETURN_DATA = tmp`), at the instruction's width: the operands are
/// taken modulo 2^bits and so is the result. None for a name outside
/// [`DS_ATOMICS`].
///
/// `denorm32` is the kernel's FLOAT_DENORM_MODE_32 (compute_pgm_rsrc1 bits
/// 17:16), which `ds_add_f32` honours ([`float::POLICY_FADD_DENORM`]). The
/// two-address exchanges are not a one-address update: [`expected`] has
/// their pseudocode.
pub fn pseudocode(name: &str, tmp: u64, data: u64, data2: u64, denorm32: u32) -> Option<u64> {
    let sh = shape(name)?;
    if sh.xchg2 {
        return None;
    }
    if sh.float {
        return float::pseudocode(name, tmp, data, data2, denorm32);
    }
    let bits = sh.bits;
    let m = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    let (tmp, src, src2) = (tmp & m, data & m, data2 & m);
    // The signed view of a value of this width.
    let i = |x: u64| {
        if bits == 64 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let base = name
        .trim_start_matches("ds_")
        .split('_')
        .next()
        .unwrap_or_default();
    let signed = name.ends_with("_i32") || name.ends_with("_i64");
    let r = match base {
        "add" => tmp.wrapping_add(src),
        "sub" => tmp.wrapping_sub(src),
        // RSUB: "MEM[addr].u32 = DATA.u32 - MEM[addr].u32".
        "rsub" => src.wrapping_sub(tmp),
        // INC: "MEM[addr].u32 = tmp >= src ? 0U : tmp + 1U" (unsigned).
        "inc" => {
            if tmp >= src {
                0
            } else {
                tmp + 1
            }
        }
        // DEC: "((tmp == 0U) || (tmp > src)) ? src : tmp - 1U" (unsigned).
        "dec" => {
            if tmp == 0 || tmp > src {
                src
            } else {
                tmp - 1
            }
        }
        // MIN: "src < tmp ? src : tmp"; MAX: "src >= tmp ? src : tmp".
        "min" if signed => {
            if i(src) < i(tmp) {
                src
            } else {
                tmp
            }
        }
        "max" if signed => {
            if i(src) >= i(tmp) {
                src
            } else {
                tmp
            }
        }
        "min" => tmp.min(src),
        "max" => tmp.max(src),
        "and" => tmp & src,
        "or" => tmp | src,
        "xor" => tmp ^ src,
        // STOREXCHG (wrxchg): MEM = DATA.
        "storexchg" => src,
        // CMPSTORE: "src = DATA; cmp = DATA2; MEM = tmp == cmp ? src : tmp".
        "cmpstore" => {
            if tmp == src2 {
                src
            } else {
                tmp
            }
        }
        // MSKOR: "MEM = ((tmp & ~DATA) | DATA2)".
        "mskor" => (tmp & !src) | src2,
        // DS_WRAP_RTN_B32 (RDNA3 guide): "tmp = MEM[ADDR].u32; MEM[ADDR].u32 =
        // tmp >= DATA.u32 ? tmp - DATA.u32 : tmp + DATA2.u32".
        "wrap" => {
            if tmp >= src {
                tmp - src
            } else {
                (tmp + src2) & m
            }
        }
        // DS_CONDXCHG32_RTN_B64 (RDNA3 guide): "RETURN_DATA[0] =
        // LDS[ADDR0].u32; if DATA[31] then LDS[ADDR0] = { 1'0, DATA[30 : 0] }
        // endif; RETURN_DATA[1] = LDS[ADDR1].u32; if DATA[63] then LDS[ADDR1]
        // = { 1'0, DATA[62 : 32] } endif", ADDR1 = ADDR0 + 4: each dword of
        // the qword on its own.
        "condxchg32" => {
            let dword = |k: u32| {
                let (t, d) = ((tmp >> (32 * k)) as u32, (src >> (32 * k)) as u32);
                u64::from(if d & 0x8000_0000 != 0 {
                    d & 0x7fff_ffff
                } else {
                    t
                }) << (32 * k)
            };
            dword(0) | dword(1)
        }
        _ => return None,
    };
    Some(r & m)
}

/// The pseudocode's answer for `case` under `name`: per workgroup, active
/// lanes in ascending order read the qword at ADDR + offset (its low dword
/// for 32-bit forms) and write `pseudocode(...)` there, with DATA2 = the
/// lane's `vdst_init` (see the module text); a returning form puts the old
/// value in VDST (its low dword for 32-bit forms); inactive lanes and forms
/// without return keep VDST. Cases here are in range and 8-byte aligned by
/// construction.
pub fn expected(name: &str, case: &Case, denorm32: u32) -> Option<Observation> {
    let shape = shape(name)?;
    if shape.xchg2 {
        return expected_xchg2(shape, case);
    }
    let m = if shape.bits == 64 {
        u64::MAX
    } else {
        0xffff_ffff
    };
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
            let old = *lds.get(q)?;
            let tmp = old & m;
            ret.push(if shape.rtn {
                (l.vdst_init & !m) | tmp
            } else {
                l.vdst_init
            });
            lds[q] = (old & !m) | pseudocode(name, tmp, l.data, l.vdst_init, denorm32)?;
        }
        lds_final.push(lds);
    }
    Some(Observation {
        ret,
        lds_final,
        traffic_verdicts: Vec::new(),
    })
}

/// DS_STOREXCHG_2ADDR_RTN_B32 (RDNA3 guide): "addr1 = ADDR_BASE.u32 +
/// OFFSET0.u32 * 4U; addr2 = ADDR_BASE.u32 + OFFSET1.u32 * 4U; tmp1 =
/// MEM[addr1].b32; tmp2 = MEM[addr2].b32; MEM[addr1].b32 = DATA.b32;
/// MEM[addr2].b32 = DATA2.b32; RETURN_DATA[31 : 0] = tmp1; RETURN_DATA[63 :
/// 32] = tmp2" (`_STRIDE64_`: × 256U). DATA and DATA2 are the two dwords of
/// the lane's data (v7, v8), VDST the lane's return qword (v3 = tmp1, v4 =
/// tmp2); the offsets are `case.offset`'s bytes (the instruction's 16-bit
/// offset field is {OFFSET1, OFFSET0}). Lanes in ascending order, each lane's
/// two reads before its two writes ([`POLICY_XCHG2_ORDER`]).
fn expected_xchg2(shape: Shape, case: &Case) -> Option<Observation> {
    let scale: u64 = if shape.stride64 { 256 } else { 4 };
    let (off0, off1) = (u64::from(case.offset & 0xff), u64::from(case.offset >> 8));
    let per = case.geometry.lanes_per_group() as usize;
    let mut ret = Vec::with_capacity(case.lanes.len());
    let mut lds_final = Vec::new();
    for (g, init) in case.lds_init.iter().enumerate() {
        // The image as dwords, little-endian.
        let mut dw: Vec<u32> = init
            .iter()
            .flat_map(|q| [*q as u32, (*q >> 32) as u32])
            .collect();
        for l in case.lanes.get(g * per..(g + 1) * per)? {
            if !l.active {
                ret.push(l.vdst_init);
                continue;
            }
            let a1 = ((u64::from(l.addr) + off0 * scale) / 4) as usize;
            let a2 = ((u64::from(l.addr) + off1 * scale) / 4) as usize;
            let (tmp1, tmp2) = (*dw.get(a1)?, *dw.get(a2)?);
            dw[a1] = l.data as u32;
            dw[a2] = (l.data >> 32) as u32;
            ret.push(u64::from(tmp1) | u64::from(tmp2) << 32);
        }
        lds_final.push(
            dw.chunks(2)
                .map(|c| u64::from(c[0]) | u64::from(*c.get(1).unwrap_or(&0)) << 32)
                .collect(),
        );
    }
    Some(Observation {
        ret,
        lds_final,
        traffic_verdicts: Vec::new(),
    })
}

/// Lanes and the two halves of a two-address exchange (the software
/// device's ds-xchg2-order, restated: the guide does not order lanes).
pub const POLICY_XCHG2_ORDER: &str = "xchg2-order: the pseudocode's answer for \
ds_storexchg_2addr_* performs each lane's exchange as one step (both reads, then both \
writes, in the pseudocode's order), lanes in ascending order; with OFFSET0 == OFFSET1 \
both returns are the old value and DATA2 stays.";

/// The offset field of a program: the two-address exchanges take their
/// OFFSET0/OFFSET1 pair from the case index ({OFFSET1, OFFSET0} in
/// `Case::offset`); every other atomic keeps the shipped kernel's 0.
pub fn program_offset(name: &str, index: u64) -> u16 {
    match shape(name) {
        Some(s) if s.xchg2 => {
            // (OFFSET0, OFFSET1): a qword's two dwords, two dwords apart
            // (overlapping the next lanes'), and one address twice; stride64:
            // both orders and one address twice.
            let pairs: [(u8, u8); 3] = if s.stride64 {
                [(0, 1), (1, 0), (1, 1)]
            } else {
                [(0, 1), (1, 3), (2, 2)]
            };
            let (o0, o1) = pairs[((index / 6) % 3) as usize];
            u16::from(o1) << 8 | u16::from(o0)
        }
        _ => 0,
    }
}

/// `code` (an ELF code object holding `dsxor_conformance_off0`) with that
/// kernel's `ds_xor_rtn_b64` re-encoded as `name`, by dsxor's DS encoder:
/// the same ADDR and DATA registers; DATA2 = the VDST register for the
/// two-data forms (0 otherwise); VDST 0 for the forms without return.
///
/// The two-address exchanges take DATA from the low and DATA2 from the high
/// register of the DATA pair (v7, v8), VDST the pair (v[3:4]), and the
/// OFFSET0/OFFSET1 of `offset` ({OFFSET1, OFFSET0}; 0 for every other form).
pub fn program(code: &[u8], name: &str, offset: u16) -> Result<Vec<u8>, QualifyError> {
    let bad = |why: String| QualifyError::Corpus(format!("program for {name}: {why}"));
    let co = CodeObject::parse(code).map_err(|e| bad(e.to_string()))?;
    let family = co.isa_family().map_err(|e| bad(e.to_string()))?;
    if family != Family::Gfx11 {
        return Err(bad(format!("the corpus is for gfx11, not {family:?}")));
    }
    let info =
        isa::op_by_name(family, name).ok_or_else(|| bad("not a DS instruction of gfx11".into()))?;
    let shape = shape(name).ok_or_else(|| bad("not an atomic of the corpus".into()))?;
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
    if inst.op != isa::op_by_name(family, "ds_xor_rtn_b64").map_or(0, |i| i.op) {
        return Err(bad(format!(
            "the site holds opcode {}, not ds_xor_rtn_b64",
            inst.op
        )));
    }
    inst.op = info.op;
    inst.data1 = if shape.two_data { inst.vdst } else { 0 };
    if shape.xchg2 {
        inst.data1 = inst.data0 + 1;
        inst.offset0 = offset as u8;
        inst.offset1 = (offset >> 8) as u8;
    } else if offset != 0 {
        return Err(bad(format!(
            "offset {offset}: only the two-address exchanges vary it"
        )));
    }
    if !shape.rtn {
        inst.vdst = 0;
    }
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
    corpus_case_with(seed, wave, index, Values::Integer, LDS_QWORDS)
}

/// Which values a program's inputs draw from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Values {
    /// [`EDGES`], small numbers and random bits.
    Integer,
    /// f32 edges in the low dword ([`float::F32_EDGES`]: ±0, denormals,
    /// infinities, quiet and signalling NaNs, add ties), random high dword.
    F32,
    /// f64 edges ([`float::F64_EDGES`]).
    F64,
}

/// The input of program `index` of `name` (its values, its LDS size and,
/// for a two-address exchange, its offsets in `Case::offset`).
pub fn corpus_case_for(
    name: &str,
    seed: u64,
    wave: WaveSize,
    index: u64,
) -> Option<(Case, ExecPattern, u32)> {
    let s = shape(name)?;
    let values = match (s.float, s.bits) {
        (true, 32) => Values::F32,
        (true, _) => Values::F64,
        _ => Values::Integer,
    };
    // A two-address exchange reaches ADDR + 3 dwords, or + 256 bytes
    // (stride64): the LDS is larger than the 16 qwords the addresses use.
    let qwords = match (s.xchg2, s.stride64) {
        (true, true) => 64,
        (true, false) => LDS_QWORDS + 2,
        _ => LDS_QWORDS,
    };
    let (mut case, exec, addresses) = corpus_case_with(seed, wave, index, values, qwords);
    case.offset = program_offset(name, index);
    Some((case, exec, addresses))
}

fn corpus_case_with(
    seed: u64,
    wave: WaveSize,
    index: u64,
    values: Values,
    lds_qwords: u32,
) -> (Case, ExecPattern, u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let value = |rng: &mut ChaCha8Rng| match values {
        Values::Integer => value(rng),
        Values::F32 => rng.random::<u64>() & !0xffff_ffff | u64::from(float::f32_value(rng)),
        Values::F64 => float::f64_value(rng),
    };
    let lanes = wave.lanes();
    // Every 6 programs cover every EXEC shape and each contention level
    // (up to LDS_QWORDS distinct addresses, 4, or 1); every 18, each pair.
    let shapes = ExecPattern::ALL.len() as u64;
    let exec = ExecPattern::ALL[(index % shapes) as usize];
    let addresses = [LDS_QWORDS, 4, 1][((index + index / shapes) % 3) as usize];
    let one = rng.random_range(0..lanes);
    let lds: Vec<u64> = (0..lds_qwords).map(|_| value(&mut rng)).collect();
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
            let addr = 8 * rng.random_range(0..addresses);
            // DATA2 of cmpstore is VDST's preloaded value: a third of the
            // lanes compare equal to their address's initial value (the
            // float forms draw the others from their edges too, so -0
            // meets +0 and a NaN meets its own bits).
            let vdst_init = if rng.random_range(0..3u32) == 0 {
                lds[(addr / 8) as usize]
            } else if values == Values::Integer {
                rng.random()
            } else {
                value(&mut rng)
            };
            LaneInput {
                addr,
                data: value(&mut rng),
                active,
                vdst_init,
            }
        })
        .collect();
    let lds_init = vec![lds];
    let case = Case {
        pattern: "qualify".into(),
        index,
        geometry: Geometry {
            wave_size: wave,
            waves_per_group: 1,
            groups: 1,
            // qualify runs the compiler's default object (WGP mode on gfx11).
            mode: crate::case::Mode::Wgp,
        },
        lds_bytes: lds_qwords * 8,
        offset: 0,
        lds_init,
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
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
    /// The device's output; empty (no lanes, no LDS) when it did not
    /// complete the program (`device_unfinished`).
    pub device: Observation,
    /// The software device's output; empty when `emu_unfinished`.
    pub emu: Observation,
    pub pseudocode: Observation,
    /// The device faulted or timed out on the program: a finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_unfinished: Option<Unfinished>,
    /// The software device faulted or timed out on the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emu_unfinished: Option<Unfinished>,
}

/// How one side of a program ended when it did not complete. On a
/// qualification run that is a finding (one side faulting where the other
/// completes, or both faulting), recorded as a disagreement with the other
/// side's output and the pseudocode's; the run goes on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Unfinished {
    /// A wave fault (memory violation, illegal instruction), or the worker
    /// process running the program killed by a signal (ROCm 6 aborts the
    /// process on a device fault).
    Fault { message: String },
    /// The launch did not complete within `--timeout` (or its worker did not
    /// answer within the timeout and a grace period, and was killed).
    Timeout { message: String },
}

impl Unfinished {
    /// The fault or timeout that ended a launch; any other error is not an
    /// outcome of the program (environment, bad input) and is given back.
    pub fn from_backend(e: BackendError) -> Result<Unfinished, BackendError> {
        match e {
            BackendError::Fault(m) => Ok(Unfinished::Fault { message: m }),
            e @ BackendError::Timeout { .. } => Ok(Unfinished::Timeout {
                message: e.to_string(),
            }),
            e => Err(e),
        }
    }

    fn text(&self) -> String {
        match self {
            Unfinished::Fault { message } => format!("faulted ({message})"),
            Unfinished::Timeout { message } => format!("timed out ({message})"),
        }
    }
}

/// A disagreement's summary: which sides differ from the pseudocode (or did
/// not complete), and whether the device and the software device agree.
/// `Ok(true)`: the side completed and agrees with the pseudocode.
pub(crate) fn summary(
    device: Result<bool, &Unfinished>,
    emu: Result<bool, &Unfinished>,
    same: bool,
) -> String {
    let word = |agrees: bool| if agrees { "agrees" } else { "differs" };
    match (device, emu) {
        (Ok(d), Ok(e)) => format!(
            "device {} with the pseudocode, emu {}; device and emu {}",
            word(d),
            word(e),
            if same { "agree" } else { "differ" }
        ),
        (d, e) => {
            let side = |r: Result<bool, &Unfinished>| match r {
                Ok(a) => format!("{} with the pseudocode", word(a)),
                Err(u) => u.text(),
            };
            format!(
                "device {}; emu {}; the program did not complete on {}",
                side(d),
                side(e),
                match (d.is_err(), e.is_err()) {
                    (true, true) => "either side",
                    (true, false) => "the device",
                    _ => "the software device",
                }
            )
        }
    }
}

/// One side's run of a program: its output, or how it did not complete.
pub(crate) type SideRun<T> = Result<T, Unfinished>;

/// Whether a side completed with `want`, or how it did not complete.
pub(crate) fn agrees<'a, T: PartialEq>(
    o: &'a SideRun<T>,
    want: &T,
) -> Result<bool, &'a Unfinished> {
    o.as_ref().map(|o| o == want)
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
    /// The ALU corpus ([`alu`]: integer SALU, VALU and VOPD programs in the
    /// harness kernel): one entry per instruction or chain run.
    #[serde(default)]
    pub alu_instructions: Vec<alu::AluResult>,
    #[serde(default)]
    pub alu_disagreements: Vec<alu::AluDisagreement>,
    /// The run ended early (no device any more, a launch that failed for the
    /// environment, bad input): why. What ran before is recorded; the
    /// instruction it stopped in has the programs that ran, not qualified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
    /// The HIP device's programs ran in this many worker processes (a fresh
    /// one after each fault or timeout); absent when they ran in the
    /// process that wrote the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_processes: Option<u32>,
}

impl QualifyRecord {
    /// A record of nothing run yet.
    pub fn new(device: &DeviceInfo, emu: &DeviceInfo, seed: u64) -> QualifyRecord {
        QualifyRecord {
            format: QUALIFY_FORMAT.into(),
            dsxor_version: env!("CARGO_PKG_VERSION").into(),
            seed,
            device: device.clone(),
            emu: emu.clone(),
            // Through the software HIP runtime the "device" is the software
            // device too: a test that the plumbing works, not a
            // qualification.
            plumbing_only: device.is_software_device(),
            instructions: Vec::new(),
            disagreements: Vec::new(),
            alu_instructions: Vec::new(),
            alu_disagreements: Vec::new(),
            aborted: None,
            worker_processes: None,
        }
    }

    pub fn all_agreed(&self) -> bool {
        self.disagreements.is_empty() && self.alu_disagreements.is_empty()
    }
}

/// The FLOAT_DENORM_MODE_32 field (compute_pgm_rsrc1 bits 17:16, AMDGPUUsage
/// "compute_pgm_rsrc1 for GFX6-GFX12"; "Used by CP to set up
/// COMPUTE_PGM_RSRC1.FLOAT_MODE") of `kernel` in `code`: the denormal mode
/// its `ds_add_f32` runs in.
fn float_denorm_mode_32(code: &[u8], kernel: &str) -> Result<u32, QualifyError> {
    let bad = |e: crate::codeobj::CodeObjectError| {
        QualifyError::Corpus(format!("the descriptor of {kernel}: {e}"))
    };
    let co = CodeObject::parse(code).map_err(bad)?;
    let k = co.kernel(kernel).map_err(bad)?;
    Ok(k.descriptor.compute_pgm_rsrc1 >> 16 & 3)
}

/// The DS corpus: each of [`DS_ATOMICS`] in the shipped off0 conformance
/// kernel, its one atomic re-encoded by `isa` ([`program`]), on the cases
/// of [`corpus_case_for`]; its output the observation.
pub struct DsCorpus;

/// What the DS programs of one instruction on one wave size share: the
/// kernel, its denormal mode, and the programs made so far, one per offset
/// field (the two-address exchanges vary theirs with the case index; every
/// other form has one).
pub struct DsWave {
    kernel: String,
    denorm32: u32,
    programs: Vec<(u16, Vec<u8>)>,
}

/// One DS program: its case and EXEC shape (its code is the wave's program
/// for the case's offset).
pub struct DsProgram {
    case: Case,
    exec: ExecPattern,
}

impl Corpus for DsCorpus {
    type Row = InstructionResult;
    type Disagreement = Disagreement;
    type Output = Observation;
    type Wave = DsWave;
    type Program = DsProgram;

    fn row(
        &self,
        name: &str,
        objects: &[(WaveSize, &[u8])],
    ) -> Result<InstructionResult, QualifyError> {
        if shape(name).is_none() {
            return Err(QualifyError::Corpus(format!(
                "{name} is not an instruction of the corpus"
            )));
        }
        let op = isa::op_by_name(Family::Gfx11, name)
            .ok_or_else(|| QualifyError::Corpus(format!("{name} is not in the gfx11 table")))?
            .op;
        Ok(InstructionResult {
            instruction: name.to_string(),
            op,
            waves: objects.iter().map(|(w, _)| *w).collect(),
            programs: 0,
            agreed: 0,
            qualified: false,
        })
    }

    fn waves(row: &InstructionResult) -> &[WaveSize] {
        &row.waves
    }

    fn tally(row: &mut InstructionResult) -> Tally<'_> {
        Tally {
            programs: &mut row.programs,
            agreed: &mut row.agreed,
            qualified: &mut row.qualified,
        }
    }

    fn found(record: &mut QualifyRecord) -> (&mut Vec<InstructionResult>, &mut Vec<Disagreement>) {
        (&mut record.instructions, &mut record.disagreements)
    }

    fn wave(&self, at: &Target<'_>) -> Result<DsWave, QualifyError> {
        let kernel = kernel_name(0);
        Ok(DsWave {
            denorm32: float_denorm_mode_32(at.code, &kernel)?,
            kernel,
            programs: Vec::new(),
        })
    }

    fn program(
        &self,
        at: &Target<'_>,
        w: &mut DsWave,
        seed: u64,
        index: u64,
    ) -> Result<DsProgram, QualifyError> {
        let (case, exec, _) = corpus_case_for(at.name, seed, at.wave, index)
            .ok_or_else(|| QualifyError::Corpus(format!("no corpus case for {}", at.name)))?;
        if !w.programs.iter().any(|(o, _)| *o == case.offset) {
            w.programs
                .push((case.offset, program(at.code, at.name, case.offset)?));
        }
        Ok(DsProgram { case, exec })
    }

    fn dispatch<'p>(&self, w: &'p DsWave, p: &'p DsProgram, timeout: Duration) -> Dispatch<'p> {
        let code = w
            .programs
            .iter()
            .find(|(o, _)| *o == p.case.offset)
            .map_or(&[][..], |(_, b)| b.as_slice());
        dispatch_for(&p.case, code, &w.kernel, timeout)
    }

    fn read(
        &self,
        p: &DsProgram,
        done: &Completion,
        side: &'static str,
    ) -> Result<Observation, QualifyError> {
        observation(&p.case, done).map_err(|error| QualifyError::Device { side, error })
    }

    fn expected(
        &self,
        at: &Target<'_>,
        w: &DsWave,
        p: &DsProgram,
    ) -> Result<Observation, QualifyError> {
        expected(at.name, &p.case, w.denorm32)
            .ok_or_else(|| QualifyError::Corpus(format!("no pseudocode answer for {}", at.name)))
    }

    fn disagreement(&self, at: &Target<'_>, p: DsProgram, a: Answers<Observation>) -> Disagreement {
        let mut hit = std::collections::HashSet::new();
        let contended = !p
            .case
            .lanes
            .iter()
            .filter(|l| l.active)
            .all(|l| hit.insert(l.addr));
        Disagreement {
            instruction: at.name.to_string(),
            wave: at.wave,
            exec: p.exec,
            contended,
            summary: a.summary,
            case: p.case,
            device: a.device,
            emu: a.emu,
            pseudocode: a.pseudocode,
            device_unfinished: a.device_unfinished,
            emu_unfinished: a.emu_unfinished,
        }
    }
}

/// Run `instructions` of the DS corpus (names of [`DS_ATOMICS`]; all of it
/// for the full corpus) on `device` and on `emu` into a new record
/// ([`qualify_into`] with [`DsCorpus`]). A program that faults or times out
/// on either side is a disagreement ([`Unfinished`]); an error of the
/// environment or of the input ends the run.
pub fn qualify(
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    instructions: &[&str],
    opts: &Options<'_>,
    progress: &mut dyn FnMut(&InstructionResult),
) -> Result<QualifyRecord, QualifyError> {
    let mut record = QualifyRecord::new(device.info(), emu.info(), opts.seed);
    qualify_into(
        &DsCorpus,
        &mut record,
        device,
        emu,
        instructions,
        opts,
        progress,
    )?;
    Ok(record)
}

/// A side's output for the record: what it left (empty, `T::default()`,
/// when the program did not complete) and how it did not complete. Both
/// corpora (DS observations, ALU register blocks) record their sides so.
pub(crate) fn split<T: Default>(r: SideRun<T>) -> (T, Option<Unfinished>) {
    match r {
        Ok(o) => (o, None),
        Err(u) => (T::default(), Some(u)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pseudocode's boundaries, written out from the guide's text.
    #[test]
    fn pseudocode_edges() {
        let m = u64::MAX;
        let p = |n, t, d| pseudocode(n, t, d, 0, 3);
        assert_eq!(p("ds_inc_rtn_u64", 5, 5), Some(0));
        assert_eq!(p("ds_inc_rtn_u64", 4, 5), Some(5));
        assert_eq!(p("ds_inc_rtn_u64", m, 0), Some(0));
        assert_eq!(p("ds_dec_rtn_u64", 0, 7), Some(7));
        assert_eq!(p("ds_dec_rtn_u64", 8, 7), Some(7));
        assert_eq!(p("ds_dec_rtn_u64", 7, 7), Some(6));
        assert_eq!(p("ds_min_rtn_i64", m, 1), Some(m));
        assert_eq!(p("ds_min_rtn_u64", m, 1), Some(1));
        assert_eq!(p("ds_max_rtn_i64", 1 << 63, 0), Some(0));
        assert_eq!(p("ds_max_rtn_u64", 1 << 63, 0), Some(1 << 63));
        assert_eq!(p("ds_rsub_rtn_u64", 3, 10), Some(7));
        assert_eq!(p("ds_sub_rtn_u64", 3, 10), Some(3u64.wrapping_sub(10)));
        assert_eq!(p("ds_storexchg_rtn_b64", 3, 10), Some(10));
        assert_eq!(p("ds_cmpstore_rtn_f64", 3, 10), Some(3));
        assert_eq!(p("ds_add_f64", 3, 10), None);
        // 32-bit forms work modulo 2^32 and compare at 32 bits.
        assert_eq!(p("ds_add_u32", 0xffff_ffff, 1), Some(0));
        assert_eq!(p("ds_sub_rtn_u32", 0, 1), Some(0xffff_ffff));
        assert_eq!(p("ds_min_i32", 0x8000_0000, 1), Some(0x8000_0000));
        assert_eq!(p("ds_min_u32", 0x8000_0000, 1), Some(1));
        assert_eq!(p("ds_max_rtn_i32", 0xffff_ffff, 0), Some(0));
        // The high dword of a 64-bit DATA is not a 32-bit operand.
        assert_eq!(p("ds_max_u32", 5, 0x1_0000_0000), Some(5));
        assert_eq!(
            p("ds_inc_rtn_u32", 0xffff_fffe, 0x1_ffff_ffff),
            Some(0xffff_ffff)
        );
        assert_eq!(p("ds_dec_u32", 0, 0x7_0000_0009), Some(9));
        // CMPSTORE: "src = DATA; cmp = DATA2; MEM = tmp == cmp ? src : tmp".
        assert_eq!(pseudocode("ds_cmpstore_rtn_b64", 3, 10, 3, 3), Some(10));
        assert_eq!(pseudocode("ds_cmpstore_b64", 3, 10, 4, 3), Some(3));
        assert_eq!(
            pseudocode("ds_cmpstore_b32", 0x1_0000_0003, 10, 3, 3),
            Some(10)
        );
        // MSKOR: "MEM = ((tmp & ~DATA) | DATA2)".
        assert_eq!(
            pseudocode("ds_mskor_rtn_b64", 0xff, 0x0f, 0x100, 3),
            Some(0x1f0)
        );
        assert_eq!(
            pseudocode("ds_mskor_b32", m, 0xffff_0000, 0x1_0000_0001, 3),
            Some(0xffff)
        );
        // WRAP: "tmp >= DATA.u32 ? tmp - DATA.u32 : tmp + DATA2.u32".
        let w = |t, d, d2| pseudocode("ds_wrap_rtn_b32", t, d, d2, 3);
        assert_eq!(w(10, 4, 7), Some(6));
        assert_eq!(w(2, 4, 7), Some(9));
        assert_eq!(w(0x7fff_ffff, 0x8000_0000, 0x8000_0002), Some(1));
        assert_eq!(w(4, 0x1_0000_0004, 0), Some(0));
        // CONDXCHG32: each dword written (bit 31 cleared) iff its bit 31 is set.
        let c = |t, d| pseudocode("ds_condxchg32_rtn_b64", t, d, 0, 3);
        let t = 0x1111_1111_2222_2222;
        assert_eq!(c(t, 0x0000_0005_8000_0006), Some(0x1111_1111_0000_0006));
        assert_eq!(c(t, 0x8000_0007_0000_0008), Some(0x0000_0007_2222_2222));
        assert_eq!(c(t, 0x7fff_ffff_7fff_ffff), Some(t));
        assert_eq!(c(t, u64::MAX), Some(0x7fff_ffff_7fff_ffff));
        // The exchanges are not one-address updates.
        assert_eq!(pseudocode("ds_storexchg_2addr_rtn_b32", 1, 2, 3, 3), None);
    }

    /// The float programs reach the edges their policies are about: over
    /// the 18 programs of a wave size some active lane meets a NaN in
    /// memory, a signalling NaN, a denormal, an infinity, -0 against +0, a
    /// cmpstore whose DATA2 is its address's NaN bits, and a round-to-even
    /// tie (1 + 2^-24).
    #[test]
    fn the_float_corpus_hits_the_edges_its_policies_name() {
        let f32_nan = |x: u64| x as u32 & 0x7f80_0000 == 0x7f80_0000 && x as u32 & 0x7f_ffff != 0;
        let mut seen = std::collections::BTreeSet::new();
        for name in ["ds_add_rtn_f32", "ds_cmpstore_rtn_f32", "ds_min_f32"] {
            for i in 0..18 {
                let (c, _, _) = corpus_case_for(name, 1, WaveSize::Wave32, i).unwrap();
                for l in c.lanes.iter().filter(|l| l.active) {
                    let m = c.lds_init[0][(l.addr / 8) as usize];
                    let (m32, d32, c32) = (m as u32, l.data as u32, l.vdst_init as u32);
                    if f32_nan(m) {
                        seen.insert("nan in memory");
                    }
                    if m32 & 0x7fc0_0000 == 0x7f80_0000 && m32 & 0x3f_ffff != 0 {
                        seen.insert("snan");
                    }
                    if m32 & 0x7f80_0000 == 0 && m32 & 0x7f_ffff != 0 {
                        seen.insert("denormal");
                    }
                    if d32 & 0x7fff_ffff == 0x7f80_0000 {
                        seen.insert("infinity");
                    }
                    if m32 | d32 == 0x8000_0000 && m32 != d32 {
                        seen.insert("-0 vs +0");
                    }
                    if name == "ds_cmpstore_rtn_f32" && f32_nan(m) && c32 == m32 {
                        seen.insert("cmpstore nan == its bits");
                    }
                    if name == "ds_add_rtn_f32" && (m32, d32) == (0x3f80_0000, 0x3380_0000) {
                        seen.insert("tie");
                    }
                }
            }
        }
        for want in [
            "nan in memory",
            "snan",
            "denormal",
            "infinity",
            "-0 vs +0",
            "cmpstore nan == its bits",
        ] {
            assert!(seen.contains(want), "{want}: saw only {seen:?}");
        }
    }

    /// DS_STOREXCHG_2ADDR_RTN_B32 with OFFSET0 = 1, OFFSET1 = 3: lane 0 at
    /// ADDR 0 exchanges dwords 1 and 3, lane 1 at ADDR 8 dwords 3 and 5 (it
    /// sees lane 0's DATA2); OFFSET0 == OFFSET1 returns the old value twice.
    #[test]
    fn expected_exchanges_two_dwords_per_lane_in_lane_order() {
        let (mut c, _, _) =
            corpus_case_for("ds_storexchg_2addr_rtn_b32", 3, WaveSize::Wave32, 6).unwrap();
        assert_eq!(c.offset, 3 << 8 | 1);
        assert_eq!(c.lds_bytes, (LDS_QWORDS + 2) * 8);
        for (i, l) in c.lanes.iter_mut().enumerate() {
            l.active = i < 2;
            l.addr = 8 * i as u32;
            l.data = 0xbbbb_0000_aaaa_0000 + i as u64;
        }
        let img: Vec<u64> = (0..c.lds_init[0].len() as u64)
            .map(|q| ((2 * q + 1) << 32) | (2 * q))
            .collect();
        c.lds_init[0] = img;
        let o = expected("ds_storexchg_2addr_rtn_b32", &c, 3).unwrap();
        assert_eq!(o.ret[0], 3 << 32 | 1);
        assert_eq!(o.ret[1], 5 << 32 | 0xbbbb_0000);
        assert_eq!(o.ret[2], c.lanes[2].vdst_init);
        assert_eq!(o.lds_final[0][0], 0xaaaa_0000 << 32);
        assert_eq!(o.lds_final[0][1], 0xaaaa_0001 << 32 | 2);
        assert_eq!(o.lds_final[0][2], 0xbbbb_0000 << 32 | 4);
        c.offset = 2 << 8 | 2;
        c.lanes[1].active = false;
        let o = expected("ds_storexchg_2addr_stride64_rtn_b32", &c, 3);
        assert!(o.is_none(), "stride64 x 2 leaves this 18-qword image");
        let o = expected("ds_storexchg_2addr_rtn_b32", &c, 3).unwrap();
        assert_eq!(o.ret[0], 2 << 32 | 2);
        assert_eq!(o.lds_final[0][1], 3 << 32 | 0xbbbb_0000);
    }

    #[test]
    fn shapes_follow_the_mnemonics() {
        assert_eq!(DS_ATOMICS.len(), 58 + 4 + 14);
        // The corpus opens with the 13 one-data 64-bit returning forms.
        for name in &DS_ATOMICS[..13] {
            let s = shape(name).unwrap();
            assert_eq!((s.bits, s.rtn, s.two_data), (64, true, false), "{name}");
        }
        assert!(shape(DS_ATOMICS[13]).unwrap().two_data);
        let s = shape("ds_cmpstore_rtn_b32").unwrap();
        assert_eq!((s.bits, s.rtn, s.two_data), (32, true, true));
        let s = shape("ds_min_i64").unwrap();
        assert_eq!((s.bits, s.rtn, s.two_data), (64, false, false));
        assert_eq!(shape("ds_add_f64"), None);
        let s = shape("ds_storexchg_2addr_stride64_rtn_b32").unwrap();
        assert!(s.xchg2 && s.stride64 && s.rtn && !s.two_data && s.bits == 32);
        let s = shape("ds_condxchg32_rtn_b64").unwrap();
        assert_eq!(
            (s.bits, s.rtn, s.two_data, s.float),
            (64, true, false, false)
        );
        let s = shape("ds_wrap_rtn_b32").unwrap();
        assert_eq!((s.bits, s.two_data), (32, true));
        assert!(shape("ds_min_rtn_f64").unwrap().float);
        let unique: std::collections::BTreeSet<_> = DS_ATOMICS.iter().collect();
        assert_eq!(unique.len(), DS_ATOMICS.len());
    }

    #[test]
    fn every_atomic_is_in_the_gfx11_table_with_its_operand_shape() {
        use crate::isa::Field;
        for name in DS_ATOMICS {
            let info = isa::op_by_name(Family::Gfx11, name).unwrap();
            let s = shape(name).unwrap();
            let regs = (s.bits / 32) as u8;
            let has = |f: Field| {
                info.operands
                    .iter()
                    .find(|o| o.field == f)
                    .map(|o| o.dwords)
            };
            // A two-address exchange returns two elements.
            let vdst = if s.xchg2 { 2 * regs } else { regs };
            assert_eq!(has(Field::Vdst), s.rtn.then_some(vdst), "{name}");
            assert_eq!(has(Field::Addr), Some(1), "{name}");
            assert_eq!(has(Field::Data0), Some(regs), "{name}");
            assert_eq!(
                has(Field::Data1),
                (s.two_data || s.xchg2).then_some(regs),
                "{name}"
            );
        }
    }

    /// Each program is the xor kernel with one word changed, and that word
    /// is what llvm-mc encodes for the mnemonic with these registers
    /// (`dsxor asm`'s oracle tests pin the encoder to llvm-mc).
    #[test]
    fn programs_change_one_word_with_the_right_fields() {
        let code = crate::codeobj::find_embedded("gfx1100", WaveSize::Wave32)
            .expect("gfx1100 wave32 kernels are embedded")
            .bytes;
        for name in DS_ATOMICS {
            let p = program(code, name, program_offset(name, 6)).unwrap();
            let diff: Vec<usize> = (0..code.len()).filter(|&i| code[i] != p[i]).collect();
            assert!(diff.len() <= 8, "{name}: {} bytes differ", diff.len());
            if *name == "ds_xor_rtn_b64" {
                assert!(diff.is_empty());
                continue;
            }
            let co = CodeObject::parse(code).unwrap();
            let site = find_ds_xor_site(&co, &kernel_name(0)).unwrap();
            let at = co.file_offset(site, 8).unwrap() as usize;
            assert!(diff.iter().all(|&d| (at..at + 8).contains(&d)), "{name}");
            let w = u64::from_le_bytes(p[at..at + 8].try_into().unwrap());
            let i = DsInst::decode(Family::Gfx11, w).unwrap();
            let s = shape(name).unwrap();
            assert_eq!(i.op, isa::op_by_name(Family::Gfx11, name).unwrap().op);
            assert_eq!((i.addr, i.data0), (5, 7), "{name}");
            assert_eq!(i.vdst, if s.rtn { 3 } else { 0 }, "{name}");
            let data1 = match (s.two_data, s.xchg2) {
                (true, _) => 3,
                (_, true) => 8,
                _ => 0,
            };
            assert_eq!(i.data1, data1, "{name}");
            // Program 6 of an exchange has its second offset pair.
            let off = if s.xchg2 {
                if s.stride64 {
                    (1, 0)
                } else {
                    (1, 3)
                }
            } else {
                (0, 0)
            };
            assert_eq!((i.offset0, i.offset1), off, "{name}");
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
        let o = expected("ds_add_rtn_u64", &c, 3).unwrap();
        assert_eq!(o.ret[0], 10);
        assert_eq!(o.ret[2], 12);
        assert_eq!(o.ret[3], c.lanes[3].vdst_init);
        assert_eq!(o.ret[4], 13);
        assert_eq!(o.lds_final[0][0], 10 + 31);
        // Without return VDST stays; memory is the same.
        let o = expected("ds_add_u64", &c, 3).unwrap();
        assert!(o.ret.iter().zip(&c.lanes).all(|(r, l)| *r == l.vdst_init));
        assert_eq!(o.lds_final[0][0], 10 + 31);
    }

    #[test]
    fn thirty_two_bit_forms_touch_the_low_dwords_only() {
        let (mut c, _, _) = corpus_case(2, WaveSize::Wave32, 0);
        for (i, l) in c.lanes.iter_mut().enumerate() {
            l.addr = 0;
            l.data = 0xaaaa_aaaa_0000_0001;
            l.active = i < 2;
            l.vdst_init = 0x1111_1111_2222_2222;
        }
        c.lds_init[0][0] = 0x5555_5555_ffff_ffff;
        let o = expected("ds_add_rtn_u32", &c, 3).unwrap();
        assert_eq!(o.ret[0], 0x1111_1111_ffff_ffff);
        assert_eq!(o.ret[1], 0x1111_1111_0000_0000);
        assert_eq!(o.lds_final[0][0], 0x5555_5555_0000_0001);
        // cmpstore with DATA2 = vdst_init: the first lane matches.
        c.lanes[0].vdst_init = 0x9999_9999_ffff_ffff;
        let o = expected("ds_cmpstore_rtn_b32", &c, 3).unwrap();
        assert_eq!(o.ret[0], 0x9999_9999_ffff_ffff);
        assert_eq!(o.ret[1], 0x1111_1111_0000_0001);
        assert_eq!(o.lds_final[0][0], 0x5555_5555_0000_0001);
    }
}
