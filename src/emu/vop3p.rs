//! The VOP3P instructions of gfx11 ([`P3Inst`], decoded in `decode/vop3p.rs`):
//! the packed 16-bit integer ops and the dot products, executed here, and
//! the integer WMMAs, which `wmma.rs` executes.
//!
//! Semantics are the RDNA3 ISA guide's pseudocode ("RDNA3 Instruction Set
//! Architecture Reference Guide", chapter 16 "Instructions": "VOP3P
//! Instructions"), as tinygrad's machine-readable extract of the guide
//! (`tinygrad/runtime/autogen/amd/rdna3/str_pcode.py`) spells it; the
//! pseudocode line is quoted at each op. Where the guide is silent, a named
//! policy (a constant below) says what this device does:
//!
//! - [`PACKED_HALVES`]: how VOP3P's op_sel / op_sel_hi build each half's
//!   sources, and what an inline constant or literal is in a packed operand.
//! - [`PACKED_CLAMP`]: clamp on v_pk_{add,sub}_{i,u}16 saturates each half;
//!   on the other packed ops it is not modelled (decoded as unsupported).
//! - `NEG_ON_PACKED_INTEGER` (decode/vop3p.rs): neg_lo/neg_hi on a packed
//!   integer op are not modelled.
//! - [`DOT_CLAMP`]: clamp on a dot product saturates the exact sum.
//!
//! This file sees a wave only through [`WaveView`], as `ds.rs`,
//! `valu16.rs`, `vext.rs` and `wmma.rs` do.

use super::decode::{P3Inst, P3Kind, P3Op};
use super::view::WaveView;

/// Policy: a packed operand is the 32-bit value of its source (a VGPR, an
/// SGPR, an inline constant as its 32-bit value — LLVM's
/// `AMDGPUBaseInfo.cpp` `getInlineEncodingV216`: "integer encodings
/// (-16 .. 64) are always produced as sign-extended 32-bit values", float
/// encodings for integer packed ops as the f32 value — or a literal's 32
/// bits); the low result half reads half `op_sel[k]` of source k, the high
/// result half reads half `op_sel_hi[k]` (RDNA3 guide "VOP3P": "OP_SEL:
/// select low or high 16 bits of each source for the low result,
/// OP_SEL_HI: for the high result"). The pseudocode's `S0[15 : 0]` /
/// `S0[31 : 16]` are those selected halves.
pub const PACKED_HALVES: &str = "packed-halves";

/// Policy: clamp on v_pk_add/sub_{i16,u16} saturates each half to its type
/// (LLVM selects `llvm.sadd.sat` / `uadd.sat` / `ssub.sat` / `usub.sat` on
/// v2i16 to these ops with clamp set: test/CodeGen/AMDGPU/saddsat.ll etc.);
/// on the other packed ops clamp is not modelled.
pub const PACKED_CLAMP: &str = "packed-clamp";

/// Policy: clamp on v_dot* saturates the exact (unbounded) sum to the
/// result's type (i32 for the iu forms, u32 for the unsigned ones; LLVM's
/// `llvm.amdgcn.sdot4`/`udot4`/`sudot4` `clamp` operand); without clamp the
/// pseudocode's 32-bit `tmp` wraps.
pub const DOT_CLAMP: &str = "dot-clamp";

/// Source `k` of lane `l` as the packed operand of [`PACKED_HALVES`]:
/// (low-result half, high-result half).
fn halves<W: WaveView + ?Sized>(w: &W, x: &P3Inst, k: usize, l: usize) -> (u16, u16) {
    let v = w.lane32(x.src[k], l);
    let pick = |hi: bool| if hi { (v >> 16) as u16 } else { v as u16 };
    (
        pick(x.op_sel >> k & 1 == 1),
        pick(x.op_sel_hi >> k & 1 == 1),
    )
}

/// One 16-bit half of a packed op: `a`, `b`, `c` the half's sources.
fn packed_half(op: P3Op, clamp: bool, a: u16, b: u16, c: u16) -> Result<u16, P3Error> {
    use P3Op::*;
    let (ai, bi, ci) = (a as i16 as i32, b as i16 as i32, c as i16 as i32);
    let (au, bu, cu) = (a as u32, b as u32, c as u32);
    let sat_i = |v: i32| v.clamp(i16::MIN as i32, i16::MAX as i32) as u16;
    let sat_u = |v: i32| v.clamp(0, u16::MAX as i32) as u16;
    Ok(match op {
        // "tmp[15 : 0].i16 = S0[15 : 0].i16 * S1[15 : 0].i16 + S2[15 : 0].i16"
        PkMadI16 => (ai * bi + ci) as u16,
        // "tmp[15 : 0].u16 = S0[15 : 0].u16 * S1[15 : 0].u16 + S2[15 : 0].u16"
        PkMadU16 => (au * bu + cu) as u16,
        // "tmp[15 : 0].u16 = S0[15 : 0].u16 * S1[15 : 0].u16"
        PkMulLoU16 => (au * bu) as u16,
        // "tmp[15 : 0].i16 = S0[15 : 0].i16 + S1[15 : 0].i16" (clamp: PACKED_CLAMP)
        PkAddI16 if clamp => sat_i(ai + bi),
        PkAddI16 => (ai + bi) as u16,
        // "tmp[15 : 0].i16 = S0[15 : 0].i16 - S1[15 : 0].i16"
        PkSubI16 if clamp => sat_i(ai - bi),
        PkSubI16 => (ai - bi) as u16,
        // "tmp[15 : 0].u16 = S0[15 : 0].u16 + S1[15 : 0].u16"
        PkAddU16 if clamp => sat_u(au as i32 + bu as i32),
        PkAddU16 => (au + bu) as u16,
        // "tmp[15 : 0].u16 = S0[15 : 0].u16 - S1[15 : 0].u16"
        PkSubU16 if clamp => sat_u(au as i32 - bu as i32),
        PkSubU16 => au.wrapping_sub(bu) as u16,
        // "tmp[15 : 0].u16 = (S1[15 : 0].u16 << S0.u32[3 : 0].u32)"
        PkLshlrevB16 => (bu << (a & 15)) as u16,
        // "tmp[15 : 0].u16 = (S1[15 : 0].u16 >> S0.u32[3 : 0].u32)"
        PkLshrrevB16 => (bu >> (a & 15)) as u16,
        // "tmp[15 : 0].i16 = (S1[15 : 0].i16 >> S0.u32[3 : 0].u32)"
        PkAshrrevI16 => (bi >> (a & 15)) as u16,
        // "tmp[15 : 0].i16 = S0[15 : 0].i16 >= S1[15 : 0].i16 ? S0[15 : 0].i16 : S1[15 : 0].i16"
        PkMaxI16 => ai.max(bi) as u16,
        // "tmp[15 : 0].i16 = S0[15 : 0].i16 < S1[15 : 0].i16 ? S0[15 : 0].i16 : S1[15 : 0].i16"
        PkMinI16 => ai.min(bi) as u16,
        PkMaxU16 => a.max(b),
        PkMinU16 => a.min(b),
        Dot4I32Iu8 | Dot4U32U8 | Dot8I32Iu4 | Dot8U32U4 | WmmaI32Iu8 | WmmaI32Iu4 => {
            return Err(P3Error(format!("{} is not a packed op", op.name())))
        }
    })
}

/// The dot products of one lane.
fn dot(op: P3Op, neg_lo: u8, clamp: bool, s0: u32, s1: u32, s2: u32) -> Result<u32, P3Error> {
    // V_DOT4_I32_IU8: "A[i] = NEG[0].u1 ? 32'I(signext(A8.i8)) :
    // 32'I(32'U(A8.u8)); B[i] = NEG[1].u1 ? ...; tmp = C.i32; tmp += A[0] *
    // B[0]; ... D0.i32 = tmp"; V_DOT8_I32_IU4 the same on nibbles;
    // V_DOT4_U32_U8: "tmp = S2.u32; tmp += u8_to_u32(S0[7 : 0].u8) *
    // u8_to_u32(S1[7 : 0].u8); ..."; V_DOT8_U32_U4 on nibbles.
    let (bits, signed) = match op {
        P3Op::Dot4I32Iu8 => (8, true),
        P3Op::Dot4U32U8 => (8, false),
        P3Op::Dot8I32Iu4 => (4, true),
        P3Op::Dot8U32U4 => (4, false),
        _ => return Err(P3Error(format!("{} is not a dot product", op.name()))),
    };
    let elem = |x: u32, i: u32, sign: bool| -> i64 {
        let f = (x >> (i * bits)) & ((1 << bits) - 1);
        if sign {
            ((f << (32 - bits)) as i32 >> (32 - bits)) as i64
        } else {
            f as i64
        }
    };
    let (sa, sb) = (signed && neg_lo & 1 == 1, signed && neg_lo & 2 == 2);
    let c = if signed { s2 as i32 as i64 } else { s2 as i64 };
    let sum: i64 = c
        + (0..32 / bits)
            .map(|i| elem(s0, i, sa) * elem(s1, i, sb))
            .sum::<i64>();
    Ok(match (clamp, signed) {
        // DOT_CLAMP.
        (true, true) => sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32,
        (true, false) => sum.clamp(0, u32::MAX as i64) as u32,
        (false, _) => sum as u32,
    })
}

/// Why a VOP3P instruction could not run.
#[derive(Debug)]
pub struct P3Error(pub String);

/// Execute `x` on `w`.
pub fn exec<W: WaveView + ?Sized>(w: &mut W, x: &P3Inst) -> Result<(), P3Error> {
    let lanes = w.lanes() as usize;
    let exec = w.exec();
    let active = |l: usize| exec >> l & 1 == 1;
    let op = x.op;
    let mut out = [0u32; 64];
    match op.kind() {
        P3Kind::Wmma => return super::wmma::exec(w, x).map_err(|e| P3Error(e.0)),
        P3Kind::Packed => {
            for (l, o) in out.iter_mut().enumerate().take(lanes) {
                if !active(l) {
                    continue;
                }
                let a = halves(w, x, 0, l);
                let b = halves(w, x, 1, l);
                let c = if op.arity() == 3 {
                    halves(w, x, 2, l)
                } else {
                    (0, 0)
                };
                // "tmp[31 : 16] = f(S0[31 : 16], ...); tmp[15 : 0] = f(S0[15 : 0], ...);
                // D0.b32 = tmp.b32".
                let lo = packed_half(op, x.clamp, a.0, b.0, c.0)?;
                let hi = packed_half(op, x.clamp, a.1, b.1, c.1)?;
                *o = lo as u32 | (hi as u32) << 16;
            }
        }
        P3Kind::Dot => {
            for (l, o) in out.iter_mut().enumerate().take(lanes) {
                if active(l) {
                    let (a, b, c) = (
                        w.lane32(x.src[0], l),
                        w.lane32(x.src[1], l),
                        w.lane32(x.src[2], l),
                    );
                    *o = dot(op, x.neg_lo, x.clamp, a, b, c)?;
                }
            }
        }
    }
    w.write_rows(x.vdst, &[out], exec);
    Ok(())
}
