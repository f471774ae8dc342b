//! The packed (VOP3P) integer, dot-product, lane-permute, M0-relative and
//! quad-SAD VALU instructions of gfx11 ([`XInst`], decoded in `decode.rs`):
//! their semantics, their text in LLVM's syntax and the registers they use.
//!
//! Semantics are the RDNA3 ISA guide's pseudocode ("RDNA3 Instruction Set
//! Architecture Reference Guide", chapter 16 "Instructions": "VOP3P
//! Instructions", "VOP3 & VOP3SD Instructions", "VOP1 Instructions"), as
//! tinygrad's machine-readable extract of the guide
//! (`tinygrad/runtime/autogen/amd/rdna3/str_pcode.py`) spells it; the
//! pseudocode line is quoted at each op. Where the guide is silent, a named
//! policy (a constant below) says what this device does:
//!
//! - [`PACKED_HALVES`]: how VOP3P's op_sel / op_sel_hi build each half's
//!   sources, and what an inline constant or literal is in a packed operand.
//! - [`PACKED_CLAMP`]: clamp on v_pk_{add,sub}_{i,u}16 saturates each half;
//!   on the other packed ops it is not modelled (decoded as unsupported).
//! - `NEG_ON_PACKED_INTEGER` (decode.rs): neg_lo/neg_hi on a packed
//!   integer op are not modelled.
//! - [`DOT_CLAMP`]: clamp on a dot product saturates the exact sum.
//! - [`PERMLANE_INACTIVE_SOURCE`]: v_permlane*16 with fetch-inactive off and
//!   an inactive source lane.
//! - [`PERMLANE64_WAVE32`]: v_permlane64_b32 in wave32 is a no-op (the guide's
//!   own words).
//! - [`MOVREL_OUT_OF_RANGE`]: an M0-relative index past v255 is an error.
//!
//! The integer WMMAs are executed by `wmma.rs` (its own policies).
//!
//! This file sees a wave only through [`WaveView`] (implemented by
//! `wave::Wave`), as `ds.rs`, `valu16.rs` and `wmma.rs` do.

use super::decode::{Src, XInst, XOp, M0};
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
/// Policy: the guide's v_permlane*16 pseudocode reads every lane's S0
/// ("tmp[i] = VGPR[i][SRC0.u32]" for all lanes), i.e. fetch-inactive
/// (op_sel[0]) set. With it clear and the selected source lane inactive,
/// this device does what DPP does with FI clear (RDNA3 guide, "DPP16":
/// a disabled source lane is invalid): with bound-ctrl (op_sel[1]) set the
/// lane gets 0, without it the lane keeps its old value (LLVM ties the
/// destination's old value as the intrinsic's `old` operand).
pub const PERMLANE_INACTIVE_SOURCE: &str = "permlane-inactive-source";
/// Policy: v_permlane64_b32 in wave32 does nothing (guide: "Supported in
/// wave64 ONLY; treated as scalar NOP in wave32").
pub const PERMLANE64_WAVE32: &str = "permlane64-wave32-nop";
/// Policy: an M0-relative VGPR index ("addr = SRC0.u32; addr +=
/// M0.u32[31 : 0]; VGPR[laneId][addr]") past v255 is an error of the
/// instruction (the guide does not say what the hardware does; the wave's
/// VGPR allocation is not modelled, so indexes up to v255 are in range).
pub const MOVREL_OUT_OF_RANGE: &str = "movrel-out-of-range-error";

/// Lane `l`'s 32-bit value of `s`.
fn rd<W: WaveView + ?Sized>(w: &W, s: Src, l: usize) -> u32 {
    match s {
        Src::V(r) => w.vrow(r as usize)[l],
        o => w.s32(o),
    }
}

/// Lane `l`'s 64-bit value of `s` (a VGPR pair, or a scalar operand).
fn rd64<W: WaveView + ?Sized>(w: &W, s: Src, l: usize) -> u64 {
    match s {
        Src::V(r) => w.vrow(r as usize)[l] as u64 | (w.vrow(r as usize + 1)[l] as u64) << 32,
        o => w.s64(o),
    }
}

/// Source `k` of lane `l` as the packed operand of [`PACKED_HALVES`]:
/// (low-result half, high-result half).
fn halves<W: WaveView + ?Sized>(w: &W, x: &XInst, k: usize, l: usize) -> (u16, u16) {
    let v = rd(w, x.src[k], l);
    let pick = |hi: bool| if hi { (v >> 16) as u16 } else { v as u16 };
    (
        pick(x.op_sel >> k & 1 == 1),
        pick(x.op_sel_hi >> k & 1 == 1),
    )
}

/// One 16-bit half of a packed op: `a`, `b`, `c` the half's sources.
fn packed_half(op: XOp, clamp: bool, a: u16, b: u16, c: u16) -> u16 {
    use XOp::*;
    let (ai, bi, ci) = (a as i16 as i32, b as i16 as i32, c as i16 as i32);
    let (au, bu, cu) = (a as u32, b as u32, c as u32);
    let sat_i = |v: i32| v.clamp(i16::MIN as i32, i16::MAX as i32) as u16;
    let sat_u = |v: i32| v.clamp(0, u16::MAX as i32) as u16;
    match op {
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
        _ => 0,
    }
}

/// The dot products of one lane.
fn dot(op: XOp, neg_lo: u8, clamp: bool, s0: u32, s1: u32, s2: u32) -> u32 {
    // V_DOT4_I32_IU8: "A[i] = NEG[0].u1 ? 32'I(signext(A8.i8)) :
    // 32'I(32'U(A8.u8)); B[i] = NEG[1].u1 ? ...; tmp = C.i32; tmp += A[0] *
    // B[0]; ... D0.i32 = tmp"; V_DOT8_I32_IU4 the same on nibbles;
    // V_DOT4_U32_U8: "tmp = S2.u32; tmp += u8_to_u32(S0[7 : 0].u8) *
    // u8_to_u32(S1[7 : 0].u8); ..."; V_DOT8_U32_U4 on nibbles.
    let (bits, signed) = match op {
        XOp::Dot4I32Iu8 => (8, true),
        XOp::Dot4U32U8 => (8, false),
        XOp::Dot8I32Iu4 => (4, true),
        _ => (4, false),
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
    match (clamp, signed) {
        // DOT_CLAMP.
        (true, true) => sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32,
        (true, false) => sum.clamp(0, u32::MAX as i64) as u32,
        (false, _) => sum as u32,
    }
}

/// "ABSDIFF = lambda(x, y) (x > y ? x - y : y - x); tmp = S2.u32; tmp +=
/// 32'U(ABSDIFF(S0.u32[7 : 0], S1.u32[7 : 0])); ..." (V_SAD_U8); with
/// `masked`, V_MSAD_U8's "tmp += S1.u32[7 : 0] == 8'0U ? 0U : ...".
fn sad(s0: u32, s1: u32, acc: u32, masked: bool) -> u32 {
    (0..4).fold(acc, |t, i| {
        let (a, b) = ((s0 >> (8 * i)) as u8, (s1 >> (8 * i)) as u8);
        if masked && b == 0 {
            t
        } else {
            t.wrapping_add(a.abs_diff(b) as u32)
        }
    })
}

/// Why an instruction of this file could not run.
#[derive(Debug)]
pub struct VxError(pub String);

/// Execute `x` on `w`.
pub fn exec<W: WaveView + ?Sized>(w: &mut W, x: &XInst) -> Result<(), VxError> {
    use XOp::*;
    let lanes = w.lanes() as usize;
    let exec = w.exec();
    let active = |l: usize| exec >> l & 1 == 1;
    let op = x.op;
    match op {
        _ if op.wmma() => super::wmma::exec(w, x).map_err(|e| VxError(e.0))?,
        _ if op.packed() => {
            let mut out = [0u32; 64];
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
                let lo = packed_half(op, x.clamp, a.0, b.0, c.0);
                let hi = packed_half(op, x.clamp, a.1, b.1, c.1);
                *o = lo as u32 | (hi as u32) << 16;
            }
            write_rows(w, x.vdst, &[out], exec, lanes);
        }
        _ if op.dot() => {
            let mut out = [0u32; 64];
            for (l, o) in out.iter_mut().enumerate().take(lanes) {
                if active(l) {
                    let (a, b, c) = (rd(w, x.src[0], l), rd(w, x.src[1], l), rd(w, x.src[2], l));
                    *o = dot(op, x.neg_lo, x.clamp, a, b, c);
                }
            }
            write_rows(w, x.vdst, &[out], exec, lanes);
        }
        MaxminI32 | MaxminU32 | MinmaxI32 | MinmaxU32 => {
            let mut out = [0u32; 64];
            for (l, o) in out.iter_mut().enumerate().take(lanes) {
                if !active(l) {
                    continue;
                }
                let (a, b, c) = (rd(w, x.src[0], l), rd(w, x.src[1], l), rd(w, x.src[2], l));
                let (ai, bi, ci) = (a as i32, b as i32, c as i32);
                *o = match op {
                    // "D0.i32 = v_min_i32(v_max_i32(S0.i32, S1.i32), S2.i32)"
                    MaxminI32 => ai.max(bi).min(ci) as u32,
                    // "D0.u32 = v_min_u32(v_max_u32(S0.u32, S1.u32), S2.u32)"
                    MaxminU32 => a.max(b).min(c),
                    // "D0.i32 = v_max_i32(v_min_i32(S0.i32, S1.i32), S2.i32)"
                    MinmaxI32 => ai.min(bi).max(ci) as u32,
                    // "D0.u32 = v_max_u32(v_min_u32(S0.u32, S1.u32), S2.u32)"
                    _ => a.min(b).max(c),
                };
            }
            write_rows(w, x.vdst, &[out], exec, lanes);
        }
        Permlane16B32 | Permlanex16B32 => {
            // "lanesel = { S2.u32, S1.u32 }; for i in 0 : WAVE32 ? 31 : 63 do
            // tmp[i] = VGPR[i][SRC0.u32] endfor; for row in 0 : WAVE32 ? 1 : 3
            // do for i in 0 : 15 do if EXEC[row * 16 + i].u1 then
            // VGPR[row * 16 + i][VDST.u32] = tmp[64'B(row * 16) +
            // lanesel[i * 4 + 3 : i * 4]]" (permlanex16: "altrow = { row[1],
            // ~row[0] }", tmp[64'B(altrow.i32 * 16) + ...]).
            let sel = (w.s32(x.src[2]) as u64) << 32 | w.s32(x.src[1]) as u64;
            let Src::V(s0) = x.src[0] else {
                return Err(VxError("v_permlane*16 src0 is not a VGPR".into()));
            };
            let tmp: Vec<u32> = w.vrow(s0 as usize)[..lanes].to_vec();
            let (fi, bc) = (x.op_sel & 1 == 1, x.op_sel & 2 == 2);
            let mut out: [u32; 64] = [0; 64];
            out[..lanes].copy_from_slice(&w.vrow(x.vdst as usize)[..lanes]);
            for l in (0..lanes).filter(|&l| active(l)) {
                let (row, i) = (l / 16, l % 16);
                let from_row = if op == Permlanex16B32 { row ^ 1 } else { row };
                let src = from_row * 16 + ((sel >> (4 * i)) & 0xf) as usize;
                out[l] = if fi || active(src) {
                    tmp[src]
                } else if bc {
                    // PERMLANE_INACTIVE_SOURCE.
                    0
                } else {
                    out[l]
                };
            }
            write_rows(w, x.vdst, &[out], exec, lanes);
        }
        Permlane64B32 => {
            // "if WAVE32 then s_nop(16'0U) else for lane in 0U : 63U do
            // tmp[lane] = VGPR[lane][SRC0.u32] endfor; for lane in 0U : 63U do
            // altlane = { ~lane[5], lane[4 : 0] }; if EXEC[lane].u1 then
            // VGPR[lane][VDST.u32] = tmp[altlane]".
            if lanes == 64 {
                let mut out = [0u32; 64];
                for (l, o) in out.iter_mut().enumerate() {
                    *o = rd(w, x.src[0], l ^ 32);
                }
                write_rows(w, x.vdst, &[out], exec, lanes);
            }
        }
        MovrelsB32 | MovreldB32 | MovrelsdB32 | Movrelsd2B32 | SwaprelB32 => {
            movrel(w, x, exec, lanes)?;
        }
        QsadPkU16U8 | MqsadPkU16U8 | MqsadU32U8 => {
            // V_QSAD_PK_U16_U8: "tmp[63 : 48] = 16'B(v_sad_u8(S0[55 : 24],
            // S1[31 : 0], S2[63 : 48].u32)); tmp[47 : 32] = 16'B(v_sad_u8(S0[47
            // : 16], S1[31 : 0], S2[47 : 32].u32)); tmp[31 : 16] =
            // 16'B(v_sad_u8(S0[39 : 8], ...)); tmp[15 : 0] = 16'B(v_sad_u8(S0[31
            // : 0], ...)); D0.b64 = tmp.b64"; V_MQSAD_PK_U16_U8 the same with
            // v_msad_u8; V_MQSAD_U32_U8 with 32-bit fields of a 128-bit S2 and
            // D0.b128.
            let dw = op.widths().1 as usize;
            let mut out = vec![[0u32; 64]; dw];
            for l in (0..lanes).filter(|&l| active(l)) {
                let s0 = rd64(w, x.src[0], l);
                let s1 = rd(w, x.src[1], l);
                let masked = op != QsadPkU16U8;
                if op == MqsadU32U8 {
                    let Src::V(r) = x.src[2] else {
                        return Err(VxError("v_mqsad_u32_u8 src2 is not a VGPR".into()));
                    };
                    for (k, o) in out.iter_mut().enumerate() {
                        let acc = w.vrow(r as usize + k)[l];
                        o[l] = sad((s0 >> (8 * k)) as u32, s1, acc, true);
                    }
                } else {
                    let s2 = rd64(w, x.src[2], l);
                    let mut d = 0u64;
                    for k in 0..4 {
                        let acc = (s2 >> (16 * k)) as u16 as u32;
                        d |= (sad((s0 >> (8 * k)) as u32, s1, acc, masked) as u16 as u64)
                            << (16 * k);
                    }
                    out[0][l] = d as u32;
                    out[1][l] = (d >> 32) as u32;
                }
            }
            write_rows(w, x.vdst, &out, exec, lanes);
        }
        _ => return Err(VxError(format!("{} has no semantics here", op.name()))),
    }
    Ok(())
}

/// Write `rows` to VGPRs vdst, vdst+1, ... in the active lanes.
fn write_rows<W: WaveView + ?Sized>(
    w: &mut W,
    vdst: u8,
    rows: &[[u32; 64]],
    exec: u64,
    lanes: usize,
) {
    for (k, row) in rows.iter().enumerate() {
        let dst = w.vrow_mut(vdst as usize + k);
        for l in (0..lanes).filter(|l| exec >> l & 1 == 1) {
            dst[l] = row[l];
        }
    }
}

/// The VGPRs `(from, to)` an M0-relative move reads and writes for this
/// M0: `from` is None when SRC0 is read as an operand (V_MOVRELD). One
/// function for the interpreter and the hazard checker ([`uses`]), so both
/// see the same registers.
pub fn movrel_indices(x: &XInst, m0: u32) -> Result<(Option<usize>, usize), VxError> {
    use XOp::*;
    let src = match x.src[0] {
        Src::V(r) => Some(r as u32),
        _ => None,
    };
    // The index pair (source, destination), each `field + offset`.
    let (s_off, d_off) = match x.op {
        // "addrs += M0.u32[9 : 0].u32; addrd += M0.u32[25 : 16].u32"
        Movrelsd2B32 | SwaprelB32 => (m0 & 0x3ff, (m0 >> 16) & 0x3ff),
        // "addr += M0.u32[31 : 0]"
        _ => (m0, m0),
    };
    let idx = |base: u32, off: u32, what: &str| -> Result<usize, VxError> {
        match base.checked_add(off) {
            Some(a) if a < 256 => Ok(a as usize),
            _ => Err(VxError(format!(
                "{}: M0-relative {what} index v{base} + {off} is past v255 (policy {MOVREL_OUT_OF_RANGE})",
                x.op.name()
            ))),
        }
    };
    let need_src = || src.ok_or_else(|| VxError(format!("{} src0 is not a VGPR", x.op.name())));
    let vdst = x.vdst as u32;
    Ok(match x.op {
        // V_MOVRELS_B32: "addr = SRC0.u32; addr += M0.u32[31 : 0]; D0.b32 = VGPR[laneId][addr].b32"
        MovrelsB32 => (Some(idx(need_src()?, s_off, "source")?), vdst as usize),
        // V_MOVRELD_B32: "addr = DST.u32; addr += M0.u32[31 : 0]; VGPR[laneId][addr].b32 = S0.b32"
        MovreldB32 => (None, idx(vdst, d_off, "destination")?),
        // V_MOVRELSD_B32 / _2: "VGPR[laneId][addrd].b32 = VGPR[laneId][addrs].b32";
        // V_SWAPREL_B32: "tmp = VGPR[laneId][addrd].b32; VGPR[laneId][addrd].b32 =
        // VGPR[laneId][addrs].b32; VGPR[laneId][addrs].b32 = tmp".
        _ => (
            Some(idx(need_src()?, s_off, "source")?),
            idx(vdst, d_off, "destination")?,
        ),
    })
}

/// The M0-relative moves.
fn movrel<W: WaveView + ?Sized>(
    w: &mut W,
    x: &XInst,
    exec: u64,
    lanes: usize,
) -> Result<(), VxError> {
    use XOp::*;
    let (from, to) = movrel_indices(x, w.s32(Src::S(M0)))?;
    let mut vals = [0u32; 64];
    for (l, v) in vals.iter_mut().enumerate().take(lanes) {
        *v = match from {
            Some(f) => w.vrow(f)[l],
            None => rd(w, x.src[0], l),
        };
    }
    let old_to: Vec<u32> = w.vrow(to)[..lanes].to_vec();
    write_rows(w, to as u8, &[vals], exec, lanes);
    if let (SwaprelB32, Some(f)) = (x.op, from) {
        let mut back = [0u32; 64];
        back[..lanes].copy_from_slice(&old_to);
        write_rows(w, f as u8, &[back], exec, lanes);
    }
    Ok(())
}

/// What [`uses`] lists: reads (operand, dwords), VGPR writes (first, dwords).
pub type Uses = (Vec<(Src, u32)>, Vec<(u8, u32)>);

/// Registers `x` reads (operand, dwords) and VGPRs it writes (first,
/// dwords) in a wave of the given size, for the hazard checker, with `m0`
/// the wave's M0 as `x` is about to run: a movrel lists M0 and the
/// registers the index lands on (as [`movrel_indices`] gives them; an index
/// past v255 lists only M0 and the static operands, and the move itself
/// stops the wave).
pub fn uses(x: &XInst, wave64: bool, m0: u32) -> Uses {
    let (sw, dw) = x.op.widths_in(wave64);
    let mut rd: Vec<(Src, u32)> = (0..x.op.arity()).map(|k| (x.src[k], sw[k])).collect();
    let mut wr = vec![(x.vdst, dw)];
    // M0 as the table's column has it (LLVM `Uses = [M0, EXEC]` on the
    // M0-relative moves); EXEC the hazard checker adds itself.
    if x.op.implicit().reads_m0() {
        rd.push((Src::S(M0), 1));
    }
    match x.op {
        // The destination's old value is kept in lanes that do not write it.
        XOp::Permlane16B32 | XOp::Permlanex16B32 => rd.push((Src::V(x.vdst), 1)),
        _ if x.op.movrel() => {
            if let Ok((from, to)) = movrel_indices(x, m0) {
                if let Some(f) = from {
                    rd[0] = (Src::V(f as u8), 1);
                }
                wr = vec![(to as u8, 1)];
                // V_SWAPREL writes both and reads both.
                if x.op == XOp::SwaprelB32 {
                    if let Some(f) = from {
                        rd.push((Src::V(to as u8), 1));
                        wr.push((f as u8, 1));
                    }
                }
            } else {
                wr.clear();
            }
        }
        _ => {}
    }
    (rd, wr)
}
