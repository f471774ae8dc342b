//! Program generation for the ALU corpus: the `index`th program of a name
//! (operands drawn from the register block, within each encoding's rules:
//! constant bus, VOPD banks, SOPK immediates, bit-field extracts that run
//! past bit 31) and its input (random block values and an EXEC shape). A
//! (seed, name, wave size, index) names one program and one input on every
//! machine.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{wave_mask, AluState, BLOCK, S_BASE, V_BASE};
use crate::case::WaveSize;
use crate::isa::alu::{alu_op, AluInst, AluOp, Kind, Mods, Opnd, ProgramInst, VopdHalf};
use crate::qualify::{ExecPattern, QualifyError};

/// Values at the boundaries integer ops care about: 0, ±1, the signed
/// 32-bit limits, the 24-bit (u24/i24) limits, shift counts around 32 and
/// 64.
const EDGES: &[u32] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    63,
    64,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_ffff,
    0xffff_fffe,
    0x007f_ffff,
    0x0080_0000,
    0x00ff_ffff,
    0x0100_0000,
    0xff80_0000,
    0x0000_ffff,
    0x0000_8000,
];

fn value(rng: &mut ChaCha8Rng) -> u32 {
    match rng.random_range(0..3u32) {
        0 => EDGES[rng.random_range(0..EDGES.len())],
        1 => rng.random_range(0..40u32),
        _ => rng.random(),
    }
}

fn vreg(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::V(V_BASE + rng.random_range(0..BLOCK as u8))
}

fn vpair(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::V(V_BASE + rng.random_range(0..BLOCK as u8 - 1))
}

fn vquad(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::V(V_BASE + rng.random_range(0..BLOCK as u8 - 3))
}

fn sreg(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::S(S_BASE + rng.random_range(0..BLOCK as u8))
}

fn spair(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::S(S_BASE + 2 * rng.random_range(0..BLOCK as u8 / 2))
}

fn int(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::Int(
        *[0i8, 1, 2, 16, 31, 32, 33, 63, 64, -1, -2, -16]
            .get(rng.random_range(0..12))
            .unwrap_or(&0),
    )
}

/// A literal that is not an inline constant's value (llvm-mc encodes those
/// as the inline constant: integers -16..=64 and the float constants'
/// bit patterns, which 32-bit integer operands accept too).
fn lit(rng: &mut ChaCha8Rng) -> Opnd {
    const FLOATS: [u32; 9] = [
        0x3f00_0000,
        0xbf00_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x4000_0000,
        0xc000_0000,
        0x4080_0000,
        0xc080_0000,
        0x3e22_f983,
    ];
    let mut v = match rng.random_range(0..2u32) {
        0 => EDGES[rng.random_range(0..EDGES.len())],
        _ => rng.random(),
    };
    while (-16..=64).contains(&(v as i32)) || FLOATS.contains(&v) {
        v = v.wrapping_add(0x0101_0100);
    }
    Opnd::Lit(v)
}

/// A literal for a 16-bit operand: a 16-bit value that llvm-mc does not
/// turn into an inline constant (integers -16..=64 as an i16, and the f16
/// bit patterns of the float inline constants, which 16-bit operands
/// accept as such).
fn lit16(rng: &mut ChaCha8Rng) -> Opnd {
    const F16: [u32; 9] = [
        0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
    ];
    const E: [u32; 8] = [
        0x7fff, 0x8000, 0x8001, 0xfffe, 0x00ff, 0x0100, 0xff00, 0x1234,
    ];
    let mut v = match rng.random_range(0..2u32) {
        0 => E[rng.random_range(0..E.len())],
        _ => rng.random_range(0..0x1_0000u32),
    };
    while (-16..=64).contains(&(v as u16 as i16)) || F16.contains(&v) {
        v = (v + 0x0101) & 0xffff;
    }
    Opnd::Lit(v)
}

/// A SOPK immediate: the signed/unsigned 16-bit boundaries, small values
/// (which the inputs' small values meet, so `s_cmpk_eq` is sometimes
/// true), or random.
fn imm16(rng: &mut ChaCha8Rng) -> Opnd {
    const E: [u32; 8] = [0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0xfffe, 0x00ff];
    Opnd::Lit(match rng.random_range(0..3u32) {
        0 => E[rng.random_range(0..E.len())],
        1 => rng.random_range(0..40u32),
        _ => rng.random_range(0..0x1_0000u32),
    })
}

fn mask(rng: &mut ChaCha8Rng, wave64: bool) -> Opnd {
    match rng.random_range(0..3u32) {
        0 => Opnd::Vcc,
        _ if wave64 => spair(rng),
        _ => sreg(rng),
    }
}

/// A random source of `kind`; `lit_ok` false when the instruction already
/// has its literal.
fn source(rng: &mut ChaCha8Rng, kind: Kind, wave64: bool, lit_ok: &mut bool) -> Opnd {
    use Kind::*;
    let r = rng.random_range(0..10u32);
    match kind {
        S32 => match r {
            0..=5 => sreg(rng),
            6..=7 => int(rng),
            _ if *lit_ok => {
                *lit_ok = false;
                lit(rng)
            }
            _ => sreg(rng),
        },
        S64 => match r {
            0..=7 => spair(rng),
            _ => int(rng),
        },
        // An SGPR-only operand (the M0-relative SGPR moves, s_setpc_b64).
        Sgpr32 => sreg(rng),
        Sgpr64 => spair(rng),
        V32 | V16 => vreg(rng),
        V64 => vpair(rng),
        Any16 => match r {
            0..=5 => vreg(rng),
            6..=7 => sreg(rng),
            8 => int(rng),
            _ if *lit_ok => {
                *lit_ok = false;
                lit16(rng)
            }
            _ => vreg(rng),
        },
        V128 => vquad(rng),
        Any32 => match r {
            0..=5 => vreg(rng),
            6..=7 => sreg(rng),
            8 => int(rng),
            _ if *lit_ok => {
                *lit_ok = false;
                lit(rng)
            }
            _ => vreg(rng),
        },
        Any64 => match r {
            0..=6 => vpair(rng),
            7..=8 => spair(rng),
            _ => int(rng),
        },
        Mask => mask(rng, wave64),
        // SOPK's SIMM16.
        Imm16 => imm16(rng),
        // The split waitcnts' SGPR field (their programs are llvm-mc's
        // check of the encoder, never run).
        Null => Opnd::Null,
        // The WMMAs' C / D (their programs come from `wmma_program`).
        Acc | AccSrc => Opnd::V(V_BASE + 4),
        None | Vcc => Opnd::Vcc,
    }
}

/// The `index`th program for `name` (an entry of [`corpus_names`]).
///
/// [`corpus_names`]: super::corpus_names
pub fn program_for(
    name: &str,
    wave64: bool,
    seed: u64,
    index: u64,
) -> Result<Vec<ProgramInst>, QualifyError> {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ fxhash(name));
    let bad = |why: String| QualifyError::Corpus(format!("program for {name}: {why}"));
    if let Some(rest) = name.strip_prefix("chain_") {
        return chain_program(rest, &mut rng, wave64).map_err(bad);
    }
    if name.starts_with("v_dual_") {
        return Ok(vopd_program(name, &mut rng));
    }
    if name.starts_with("v_wmma_") {
        if !wave64 {
            return Err(bad("runs in wave64 only (see wave64_only)".into()));
        }
        return wmma_program(name, &mut rng).map_err(|e| bad(e.to_string()));
    }
    single_program(name, &mut rng, wave64).map_err(bad)
}

/// One instruction of a program.
fn inst(
    name: &str,
    dst: Option<Opnd>,
    sdst: Option<Opnd>,
    srcs: Vec<Opnd>,
) -> Result<ProgramInst, String> {
    AluInst::new(name, dst, sdst, srcs)
        .map(ProgramInst::One)
        .map_err(|e| e.to_string())
}

/// The program of chain `rest` (a [`CHAINS`](super::CHAINS) name without
/// `chain_`).
fn chain_program(
    rest: &str,
    rng: &mut ChaCha8Rng,
    wave64: bool,
) -> Result<Vec<ProgramInst>, String> {
    let m = mask(rng, wave64);
    Ok(match rest {
        "s_add_u32_s_addc_u32" => vec![
            inst(
                "s_add_u32",
                Some(Opnd::S(32)),
                None,
                vec![Opnd::S(34), Opnd::S(36)],
            )?,
            inst(
                "s_addc_u32",
                Some(Opnd::S(33)),
                None,
                vec![Opnd::S(35), Opnd::S(37)],
            )?,
        ],
        "v_add_co_u32_v_add_co_ci_u32" => vec![
            inst(
                "v_add_co_u32",
                Some(Opnd::V(16)),
                Some(m),
                vec![Opnd::V(18), Opnd::V(20)],
            )?,
            inst(
                "v_add_co_ci_u32_e64",
                Some(Opnd::V(17)),
                Some(m),
                vec![Opnd::V(19), Opnd::V(21), m],
            )?,
        ],
        "v_cmp_v_cndmask" => vec![
            inst(
                "v_cmp_lt_i32_e64",
                Some(m),
                None,
                vec![vreg(rng), vreg(rng)],
            )?,
            inst(
                "v_cndmask_b32_e64",
                Some(vreg(rng)),
                None,
                vec![vreg(rng), sreg(rng), m],
            )?,
        ],
        "s_cmp_s_cselect" => vec![
            inst("s_cmp_lt_i32", None, None, vec![sreg(rng), sreg(rng)])?,
            inst(
                "s_cselect_b32",
                Some(sreg(rng)),
                None,
                vec![sreg(rng), lit(rng)],
            )?,
        ],
        _ => return Err("no such chain".into()),
    })
}

/// A VOPD program: the named op as one half, a mov or cndmask (the integer
/// X halves) as the other, within the bank and constant-bus rules.
fn vopd_program(name: &str, rng: &mut ChaCha8Rng) -> Vec<ProgramInst> {
    // The named op as Y; X a mov or cndmask (the integer X halves).
    let x_name = if rng.random_bool(0.5) {
        "v_dual_mov_b32"
    } else {
        "v_dual_cndmask_b32"
    };
    let (x_name, y_name) = if name == "v_dual_cndmask_b32" && rng.random_bool(0.5) {
        (name_static(name), "v_dual_mov_b32")
    } else {
        (x_name, name_static(name))
    };
    // Banks: X src0 bank 0/1, Y src0 bank 2/3; X vsrc1 bank 0/1, Y 2/3;
    // vdsts of opposite parity.
    let bank = |rng: &mut ChaCha8Rng, b: u8| Opnd::V(V_BASE + b + 4 * rng.random_range(0..2u8));
    let src0 = |rng: &mut ChaCha8Rng, b: u8| match rng.random_range(0..4u32) {
        0 => sreg(rng),
        1 => int(rng),
        _ => {
            let k = rng.random_range(0..2u8);
            bank(rng, b + k)
        }
    };
    let vx = V_BASE + 2 * rng.random_range(0..4u8);
    let vy = V_BASE + 1 + 2 * rng.random_range(0..4u8);
    let (vx, vy) = if rng.random_bool(0.5) {
        (vx, vy)
    } else {
        (vy, vx)
    };
    let srcs = |rng: &mut ChaCha8Rng, n: &str, b: u8| {
        let mut v = vec![src0(rng, b)];
        if n != "v_dual_mov_b32" {
            let k = rng.random_range(0..2u8);
            v.push(bank(rng, b + k));
        }
        v
    };
    let x = VopdHalf {
        name: x_name,
        vdst: vx,
        srcs: srcs(rng, x_name, 0),
    };
    let mut y = VopdHalf {
        name: y_name,
        vdst: vy,
        srcs: srcs(rng, y_name, 2),
    };
    // The constant bus: cndmask reads VCC, so with it the two src0s
    // hold at most one more scalar value (llvm-mc refuses more).
    let scalar = |o: &Opnd| matches!(o, Opnd::S(_) | Opnd::Lit(_));
    if (x_name == "v_dual_cndmask_b32" || y_name == "v_dual_cndmask_b32")
        && scalar(&x.srcs[0])
        && scalar(&y.srcs[0])
        && x.srcs[0] != y.srcs[0]
    {
        let k = rng.random_range(0..2u8);
        y.srcs[0] = bank(rng, 2 + k);
    }
    vec![ProgramInst::Dual(x, y)]
}

/// A program of one instruction of [`corpus_ops`](super::corpus_ops) (not
/// VOPD, not a WMMA):
/// operands drawn by kind, then the constraints of its encoding (SOPK's
/// register operand, lane selects, bit-field extracts, byte selectors, the
/// constant bus), then its 16-bit halves and modifiers. Every draw comes
/// from `rng` in this order, so a (seed, index) names one program.
fn single_program(
    name: &str,
    rng: &mut ChaCha8Rng,
    wave64: bool,
) -> Result<Vec<ProgramInst>, String> {
    let op = alu_op(name).ok_or_else(|| "not in the ALU table".to_string())?;
    let mut lit_ok = true;
    let dst = match op.dst {
        Kind::S32 | Kind::Sgpr32 => Some(sreg(rng)),
        Kind::S64 | Kind::Sgpr64 => Some(spair(rng)),
        Kind::V32 | Kind::V16 => Some(vreg(rng)),
        Kind::V64 => Some(vpair(rng)),
        Kind::V128 => Some(vquad(rng)),
        Kind::Mask => Some(mask(rng, wave64)),
        _ => None,
    };
    let sdst = match op.sdst {
        Kind::Mask => Some(mask(rng, wave64)),
        _ => None,
    };
    let mut srcs: Vec<Opnd> = op
        .srcs
        .iter()
        .filter(|k| **k != Kind::Vcc)
        .map(|k| source(rng, *k, wave64, &mut lit_ok))
        .collect();
    operand_rules(name, op, &mut srcs, rng);
    constant_bus(name, op, &mut srcs, rng);
    // 16-bit operands: a random half of each VGPR one; clamp half the time
    // where the instruction has it.
    let mut hi = 0u8;
    for (k, (kind, s)) in op.srcs.iter().zip(&srcs).enumerate() {
        if matches!(kind, Kind::V16 | Kind::Any16) && matches!(s, Opnd::V(_)) {
            hi |= (rng.random_bool(0.5) as u8) << k;
        }
    }
    if op.dst == Kind::V16 {
        hi |= (rng.random_bool(0.5) as u8) << 3;
    }
    let clamp16 = op.clamp && rng.random_bool(0.5);
    let mods = modifiers(name, srcs.len() as u32, rng);
    inst(name, dst, sdst, srcs).map(|i| match i {
        ProgramInst::One(a) if a.is16() => vec![ProgramInst::One(a.with_halves(hi, clamp16))],
        ProgramInst::One(a) => vec![ProgramInst::One(a.with_mods(mods))],
        other => vec![other],
    })
}

/// The operands an encoding constrains: SOPK's register operand, the lane
/// select of v_readlane/v_writelane, the bit-field extracts' offsets and
/// widths, v_perm_b32's byte selectors.
fn operand_rules(name: &str, op: &AluOp, srcs: &mut [Opnd], rng: &mut ChaCha8Rng) {
    // SOPK's register operand (s_cmpk_*'s first source) is an SGPR.
    if op.format == crate::isa::alu::Format::Sopk {
        for (k, kind) in op.srcs.iter().enumerate() {
            if *kind == Kind::S32 {
                srcs[k] = sreg(rng);
            }
        }
    }
    // The lane select of v_readlane/v_writelane: an SGPR or an inline
    // constant (its low 5 or 6 bits pick the lane).
    if matches!(name, "v_readlane_b32" | "v_writelane_b32") {
        if let Some(Opnd::Lit(_)) = srcs.get(1) {
            srcs[1] = sreg(rng);
        }
    }
    // Bit-field extracts: offsets and widths that end past bit 31 half the
    // time (a past emulator bug lived there).
    match name {
        "s_bfe_u32" | "s_bfe_i32" | "s_bfe_u64" | "s_bfe_i64" => {
            let bits = if name.ends_with("64") { 64 } else { 32 };
            let off = rng.random_range(0..bits);
            let width = if rng.random_bool(0.5) {
                rng.random_range(bits - off..=bits + 8)
            } else {
                rng.random_range(0..=bits - off)
            };
            srcs[1] = Opnd::Lit(off | width << 16 | rng.random_range(0..2u32) << 8);
            if let Opnd::Lit(_) | Opnd::Int(_) = srcs[0] {
                srcs[0] = if bits == 64 { spair(rng) } else { sreg(rng) };
            }
        }
        "v_bfe_u32" | "v_bfe_i32" if rng.random_bool(0.75) => {
            let off = rng.random_range(0..32u32);
            let width = if rng.random_bool(0.5) {
                rng.random_range((32 - off).min(31)..32)
            } else {
                rng.random_range(0..32 - off)
            };
            srcs[1] = Opnd::Int(off as i8);
            srcs[2] = Opnd::Int(width as i8);
            if let Opnd::Lit(_) = srcs[0] {
            } else if rng.random_bool(0.3) {
                srcs[0] = Opnd::Lit(0x8000_0000 | rng.random::<u32>());
            }
        }
        // Byte selectors 0..=14 half the time (random words select 0xff in
        // most bytes): an inline constant selects byte 0 by it, 0 elsewhere.
        "v_perm_b32" if rng.random_bool(0.5) => srcs[2] = Opnd::Int(rng.random_range(0..=14)),
        _ => {}
    }
}

/// VALU sources past the constant bus's scalar values become VGPRs.
fn constant_bus(name: &str, op: &AluOp, srcs: &mut [Opnd], rng: &mut ChaCha8Rng) {
    // The constant bus (RDNA3 guide, "VALU instructions": at most two
    // scalar values, SGPRs or a literal, per VALU instruction; llvm-mc:
    // "violates constant bus restrictions"): VALU sources past two
    // distinct scalar values become VGPRs.
    // The 64-bit shifts take one scalar operand at most (LLVM
    // AMDGPUAsmParser::getConstantBusLimit: "64-bit shift instructions can
    // use only one scalar value input" on gfx10+; llvm-mc-22 refuses
    // `v_lshrrev_b64 v[16:17], s34, s[34:35]`).
    let bus = if matches!(name, "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64") {
        1
    } else {
        2
    };
    if name.starts_with("v_") {
        let mut scalars: Vec<Opnd> = Vec::new();
        if let Some(m @ (Opnd::S(_) | Opnd::Vcc)) = srcs
            .last()
            .copied()
            .filter(|_| op.srcs.last() == Some(&Kind::Mask))
        {
            scalars.push(m);
        }
        for (k, s) in srcs.iter_mut().enumerate() {
            if op.srcs.get(k) == Some(&Kind::Mask) {
                continue;
            }
            // A scalar-only operand (v_permlane*16's lane selects) stays
            // scalar: at most two such, so it always fits the bus.
            if op.srcs.get(k) == Some(&Kind::S32) {
                if !scalars.contains(s) {
                    scalars.push(*s);
                }
                continue;
            }
            if let Opnd::S(_) | Opnd::Vcc | Opnd::Lit(_) = *s {
                // No literal in src2 (llvm-mc refuses some, e.g.
                // v_alignbit_b32's).
                if !scalars.contains(s) || bus == 1 || (k >= 2 && matches!(s, Opnd::Lit(_))) {
                    if scalars.len() >= bus || (k >= 2 && matches!(s, Opnd::Lit(_))) {
                        *s = if matches!(op.srcs.get(k), Some(Kind::Any64)) {
                            vpair(rng)
                        } else {
                            vreg(rng)
                        };
                        continue;
                    }
                    scalars.push(*s);
                }
            }
        }
    }
}

/// The modifiers of a program of `n` sources: op_sel / op_sel_hi on the
/// packed ops, clamp where it is modelled, the iu dot products' neg_lo
/// signedness selects, v_permlane*16's fetch-inactive / bound-ctrl bits.
fn modifiers(name: &str, n: u32, rng: &mut ChaCha8Rng) -> Mods {
    // Modifiers: op_sel / op_sel_hi on the packed ops, clamp where it is
    // modelled, the iu dot products' neg_lo signedness selects,
    // v_permlane*16's fetch-inactive / bound-ctrl bits.
    let mut mods = Mods::default();
    if name.starts_with("v_pk_") {
        mods.op_sel = rng.random_range(0..1u32 << n) as u8;
        mods.op_sel_hi = rng.random_range(0..1u32 << n) as u8 | (0b111 & !((1 << n) - 1)) as u8;
        mods.clamp = matches!(
            name,
            "v_pk_add_i16" | "v_pk_add_u16" | "v_pk_sub_i16" | "v_pk_sub_u16"
        ) && rng.random_bool(0.5);
    }
    if name.starts_with("v_dot") {
        if name.contains("_iu") {
            mods.neg_lo = rng.random_range(0..4u8);
        }
        mods.clamp = rng.random_bool(0.5);
    }
    if name.starts_with("v_permlane") && name.ends_with("16_b32") {
        mods.op_sel = rng.random_range(0..4u8);
    }
    mods
}

/// A wave64 integer WMMA within the block: D = v[20:23] (4 VGPRs in
/// wave64); C is D itself ("The typical case is that C and D are the
/// same", RDNA3 guide §7.9) or, a third of the time, an integer inline
/// constant; A and B take v16..v19, which D may not overlap: iu4's two
/// 2-VGPR matrices are v[16:17] and v[18:19] in either order, or the same
/// pair a quarter of the time; iu8's 4-VGPR A and B are both v[16:19] (A
/// may overlap B: neither LLVM's constraints nor the guide forbid it), so
/// its programs compute A * A^T + C. neg_lo[1:0] (the signedness of A and
/// B) and clamp are random.
fn wmma_program(
    name: &str,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<ProgramInst>, crate::isa::alu::AluError> {
    let (a, b) = if name.ends_with("iu8") {
        (16, 16)
    } else if rng.random_bool(0.25) {
        let p = 16 + 2 * rng.random_range(0..2u8);
        (p, p)
    } else if rng.random_bool(0.5) {
        (16, 18)
    } else {
        (18, 16)
    };
    let c = if rng.random_range(0..3u32) == 0 {
        int(rng)
    } else {
        Opnd::V(20)
    };
    let mods = Mods {
        neg_lo: rng.random_range(0..4u8),
        clamp: rng.random_bool(0.5),
        ..Default::default()
    };
    let i = AluInst::new(
        name,
        Some(Opnd::V(20)),
        None,
        vec![Opnd::V(a), Opnd::V(b), c],
    )?;
    Ok(vec![ProgramInst::One(i.with_mods(mods))])
}

/// Make a WMMA program's input legal: the guide requires A and B
/// replicated across the wave (§7.9: "A and B matrices: lanes 0-15 data
/// are replicated into lanes 16-31 (for wave64: also into lanes 32-47 and
/// 48-63)"), so every lane of their VGPRs takes lane `l % 16`'s value. C is
/// left random; other programs' inputs are left alone.
pub fn replicate_wmma_inputs(insts: &[ProgramInst], st: &mut AluState) {
    for inst in insts {
        let ProgramInst::One(i) = inst else { continue };
        if !i.op.name.starts_with("v_wmma_") {
            continue;
        }
        let regs = if i.op.name.ends_with("iu8") { 4 } else { 2 };
        for src in &i.srcs[..2] {
            let Opnd::V(n) = *src else { continue };
            for r in n..n + regs {
                let Some(k) = (r as usize)
                    .checked_sub(V_BASE as usize)
                    .filter(|k| *k < BLOCK)
                else {
                    continue;
                };
                for l in 16..st.v.len() {
                    st.v[l][k] = st.v[l % 16][k];
                }
            }
        }
    }
}

fn name_static(name: &str) -> &'static str {
    crate::isa::alu::VOPD_OPS
        .iter()
        .find(|e| e.name == name)
        .map_or("v_dual_mov_b32", |e| e.name)
}

/// FNV-1a of a name (a stable per-program seed mix).
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The input of the `index`th program: random block values and an EXEC
/// shape (every 6 programs cover every shape).
pub fn input(seed: u64, wave: WaveSize, index: u64) -> (AluState, ExecPattern) {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed.rotate_left(17) ^ index.wrapping_mul(0xa076_1d64_78bd_642f));
    let lanes = wave.lanes() as usize;
    let exec_shape = ExecPattern::ALL[(index % ExecPattern::ALL.len() as u64) as usize];
    let one = rng.random_range(0..lanes);
    let mut exec = 0u64;
    for l in 0..lanes {
        let on = match exec_shape {
            ExecPattern::All => true,
            ExecPattern::None => false,
            ExecPattern::Even => l % 2 == 0,
            ExecPattern::OneLane => l == one,
            ExecPattern::HighHalf => l >= lanes / 2,
            ExecPattern::Random => rng.random_bool(0.5),
        };
        exec |= (on as u64) << l;
    }
    let v = (0..lanes)
        .map(|_| std::array::from_fn(|_| value(&mut rng)))
        .collect();
    let s = std::array::from_fn(|_| value(&mut rng));
    let vcc = rng.random::<u64>() & wave_mask(lanes as u32)
        | (rng.random::<u64>() & !wave_mask(lanes as u32));
    (
        AluState {
            v,
            s,
            vcc,
            exec,
            scc: rng.random_bool(0.5),
        },
        exec_shape,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qualify::alu::{corpus_names, wave32_only, wave64_only};

    /// Every name of the corpus makes programs that fit the slot, for both
    /// wave sizes it runs in.
    #[test]
    fn every_program_encodes_and_fits() {
        for name in corpus_names() {
            for wave64 in [false, true] {
                if (wave64 && wave32_only(name)) || (!wave64 && wave64_only(name)) {
                    continue;
                }
                for k in 0..20 {
                    let p = program_for(name, wave64, 1, k).unwrap();
                    let words: usize = p.iter().map(|i| i.encode(wave64).unwrap().len()).sum();
                    assert!(words <= 32, "{name}");
                }
            }
        }
    }
}
