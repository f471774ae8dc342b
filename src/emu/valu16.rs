//! The 16-bit integer VALU of gfx11 (RDNA3), from the pseudocode of the
//! RDNA3 ISA guide (AMD, "RDNA3 Instruction Set Architecture Reference
//! Guide", §16.12 "VOP3 & VOP3SD Instructions", §16.8 "VOP1 Instructions",
//! §16.9 "VOPC Instructions"), each op's line quoted at its arm.
//!
//! Operands are true16 halves: a 16-bit VGPR operand is `.l` (bits 15:0)
//! or `.h` (bits 31:16), chosen by VOP3 OPSEL (`op_sel[0..2]` the sources,
//! `op_sel[3]` the destination) or, in VOP1/VOPC, by bit 7 of the register
//! number ([`super::decode::V16::hi`]). A scalar, constant or literal in a
//! 16-bit operand gives its low 16 bits. Where the sources are silent, a
//! named policy decides:
//!
//! - [`POLICY_D16_KEEPS_OTHER_HALF`]: a 16-bit result writes its half of
//!   the destination VGPR and keeps the other half. LLVM
//!   (`GCNSubtarget::zeroesHigh16BitsOfDest`): "On gfx10, all 16-bit
//!   instructions preserve the high bits"; true16 codegen relies on it
//!   (a `.l` write leaves `.h` live).
//! - [`POLICY_CLAMP_SATURATES`]: CLAMP on an integer op saturates the exact
//!   result to the destination type's range (the guide's note "Supports
//!   saturation (unsigned 16-bit integer domain)"; LLVM selects
//!   `llvm.uadd.sat.i16` to `v_add_nc_u16 ... clamp` and `llvm.ssub.sat.i16`
//!   to `v_sub_nc_i16 ... clamp`, checked with `llc-22 -mcpu=gfx1100`).
//! - [`POLICY_CVT_PK_SATURATES`]: `u32_to_u16` / `i32_to_i16` in
//!   V_CVT_PK_U16_U32 / V_CVT_PK_I16_I32 saturate (the guide does not
//!   define them; Mesa's NIR `pack_uint_2x16` / `pack_sint_2x16`, which
//!   ACO lowers to these instructions, say "Convert two unsigned integers
//!   into a packed unsigned short (clamp is applied)").
//!
//! Compares write 0 in the mask bits of inactive lanes, as the 32-bit
//! compares do (guide "Vector compare").

use super::decode::{Op16, Src, V16, W16};
use super::view::WaveView;

/// Policy name: a 16-bit destination write keeps the other half.
pub const POLICY_D16_KEEPS_OTHER_HALF: &str = "d16-keeps-other-half";
/// Policy name: CLAMP saturates integer results to the destination type.
pub const POLICY_CLAMP_SATURATES: &str = "int-clamp-saturates";
/// Policy name: V_CVT_PK_{U16_U32,I16_I32} saturate each value.
pub const POLICY_CVT_PK_SATURATES: &str = "cvt-pk-saturates";

fn read32<W: WaveView>(w: &W, s: Src, lane: usize) -> u32 {
    match s {
        Src::V(r) => w.vgpr(r as usize, lane),
        other => w.s32(other),
    }
}

/// A 16-bit source: the selected half of a VGPR, the low 16 bits of
/// anything else (the decoder refuses OPSEL on non-VGPR sources).
fn read16<W: WaveView>(w: &W, s: Src, hi: bool, lane: usize) -> u32 {
    let v = read32(w, s, lane);
    if hi && matches!(s, Src::V(_)) {
        v >> 16
    } else {
        v & 0xffff
    }
}

/// Write the half `hi` of VGPR `r` in `lane`, keeping the other half
/// ([`POLICY_D16_KEEPS_OTHER_HALF`]).
fn write16<W: WaveView>(w: &mut W, r: u8, hi: bool, lane: usize, val: u32) {
    let old = w.vgpr(r as usize, lane);
    let new = if hi {
        (old & 0x0000_ffff) | (val & 0xffff) << 16
    } else {
        (old & 0xffff_0000) | (val & 0xffff)
    };
    w.set_vgpr(r as usize, lane, new);
}

fn sext16(x: u32) -> i32 {
    x as u16 as i16 as i32
}

/// Saturate to i16 and return its 16-bit pattern.
fn sat_i16(x: i64) -> u32 {
    x.clamp(i16::MIN as i64, i16::MAX as i64) as i16 as u16 as u32
}

/// Saturate to u16.
fn sat_u16(x: i64) -> u32 {
    x.clamp(0, u16::MAX as i64) as u32
}

/// The median by the guide's V_MED3 pseudocode: "if v_max3(S0, S1, S2) ==
/// S0 then D0 = v_max(S1, S2) elsif v_max3(S0, S1, S2) == S1 then D0 =
/// v_max(S0, S2) else D0 = v_max(S0, S1) endif".
fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    let m = a.max(b).max(c);
    if m == a {
        b.max(c)
    } else if m == b {
        a.max(c)
    } else {
        a.max(b)
    }
}

/// The value one lane computes (16 or 32 bits) from its sources `a`, `b`,
/// `c` (16-bit sources zero-extended, 32-bit ones whole).
pub fn lane_value(op: Op16, a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    use Op16::*;
    match op {
        // V_ADD_NC_U16: "D0.u16 = S0.u16 + S1.u16" (clamp: saturate).
        AddNcU16 => {
            let r = a as i64 + b as i64;
            if clamp {
                sat_u16(r)
            } else {
                r as u32 & 0xffff
            }
        }
        // V_SUB_NC_U16: "D0.u16 = S0.u16 - S1.u16".
        SubNcU16 => {
            let r = a as i64 - b as i64;
            if clamp {
                sat_u16(r)
            } else {
                r as u32 & 0xffff
            }
        }
        // V_ADD_NC_I16: "D0.i16 = S0.i16 + S1.i16".
        AddNcI16 => {
            let r = sext16(a) as i64 + sext16(b) as i64;
            if clamp {
                sat_i16(r)
            } else {
                r as u32 & 0xffff
            }
        }
        // V_SUB_NC_I16: "D0.i16 = S0.i16 - S1.i16".
        SubNcI16 => {
            let r = sext16(a) as i64 - sext16(b) as i64;
            if clamp {
                sat_i16(r)
            } else {
                r as u32 & 0xffff
            }
        }
        // V_MUL_LO_U16: "D0.u16 = S0.u16 * S1.u16" (no clamp in gfx11).
        MulLoU16 => a.wrapping_mul(b) & 0xffff,
        // V_LSHLREV_B16: "D0.u[15 : 0] = (S1.u[15 : 0] << S0[3 : 0].u)".
        LshlrevB16 => (b << (a & 15)) & 0xffff,
        // V_LSHRREV_B16: "D0.u[15 : 0] = (S1.u[15 : 0] >> S0[3 : 0].u)".
        LshrrevB16 => b >> (a & 15),
        // V_ASHRREV_I16: "D0.i[15 : 0] = (S1.i[15 : 0] >> S0[3 : 0].u)".
        AshrrevI16 => (sext16(b) >> (a & 15)) as u32 & 0xffff,
        // V_MAX_U16: "D0.u16 = S0.u16 >= S1.u16 ? S0.u16 : S1.u16".
        MaxU16 => a.max(b),
        // V_MAX_I16: "D0.i16 = S0.i16 >= S1.i16 ? S0.i16 : S1.i16".
        MaxI16 => sext16(a).max(sext16(b)) as u32 & 0xffff,
        // V_MIN_U16: "D0.u16 = S0.u16 < S1.u16 ? S0.u16 : S1.u16".
        MinU16 => a.min(b),
        // V_MIN_I16: "D0.i16 = S0.i16 < S1.i16 ? S0.i16 : S1.i16".
        MinI16 => sext16(a).min(sext16(b)) as u32 & 0xffff,
        // V_MAD_U16: "D0.u16 = S0.u16 * S1.u16 + S2.u16".
        MadU16 => {
            let r = a as i64 * b as i64 + c as i64;
            if clamp {
                sat_u16(r)
            } else {
                r as u32 & 0xffff
            }
        }
        // V_MAD_I16: "D0.i16 = S0.i16 * S1.i16 + S2.i16".
        MadI16 => {
            let r = sext16(a) as i64 * sext16(b) as i64 + sext16(c) as i64;
            if clamp {
                sat_i16(r)
            } else {
                r as u32 & 0xffff
            }
        }
        // V_MAD_U32_U16: "D0.u = 32'U(S0.u16) * 32'U(S1.u16) + S2.u".
        MadU32U16 => {
            let r = a as u64 * b as u64 + c as u64;
            if clamp {
                r.min(u32::MAX as u64) as u32
            } else {
                r as u32
            }
        }
        // V_MAD_I32_I16: "D0.i = 32'I(S0.i16) * 32'I(S1.i16) + S2.i".
        MadI32I16 => {
            let r = sext16(a) as i64 * sext16(b) as i64 + c as i32 as i64;
            if clamp {
                r.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
            } else {
                r as u32
            }
        }
        // V_MAX3_I16: "D0.i16 = v_max_i16(v_max_i16(S0.i16, S1.i16), S2.i16)"
        // (clamp cannot change an in-range result).
        Max3I16 => sext16(a).max(sext16(b)).max(sext16(c)) as u32 & 0xffff,
        // V_MAX3_U16: "D0.u16 = v_max_u16(v_max_u16(S0.u16, S1.u16), S2.u16)".
        Max3U16 => a.max(b).max(c),
        // V_MIN3_I16: "D0.i16 = v_min_i16(v_min_i16(S0.i16, S1.i16), S2.i16)".
        Min3I16 => sext16(a).min(sext16(b)).min(sext16(c)) as u32 & 0xffff,
        // V_MIN3_U16: "D0.u16 = v_min_u16(v_min_u16(S0.u16, S1.u16), S2.u16)".
        Min3U16 => a.min(b).min(c),
        // V_MED3_I16 / V_MED3_U16: see [`med3`].
        Med3I16 => med3(sext16(a), sext16(b), sext16(c)) as u32 & 0xffff,
        Med3U16 => med3(a, b, c),
        // V_AND_B16: "D0.u16 = (S0.u16 & S1.u16)"; OR, XOR alike.
        AndB16 => a & b,
        OrB16 => a | b,
        XorB16 => a ^ b,
        // V_NOT_B16: "D0.u16 = ~S0.u16".
        NotB16 => !a & 0xffff,
        // V_MOV_B16: "D0.b16 = S0.b16".
        MovB16 => a,
        // V_CVT_I32_I16: "D0.i = 32'I(signext(S0.i16))".
        CvtI32I16 => sext16(a) as u32,
        // V_CVT_U32_U16: "D0 = { 16'0, S0.u16 }".
        CvtU32U16 => a,
        // V_CVT_PK_U16_U32: "D0[15 : 0].u16 = u32_to_u16(S0.u); D0[31 :
        // 16].u16 = u32_to_u16(S1.u)" ([`POLICY_CVT_PK_SATURATES`]).
        CvtPkU16U32 => a.min(0xffff) | b.min(0xffff) << 16,
        // V_CVT_PK_I16_I32: "D0[15 : 0].i16 = i32_to_i16(S0.i); D0[31 :
        // 16].i16 = i32_to_i16(S1.i)".
        CvtPkI16I32 => sat_i16(a as i32 as i64) | sat_i16(b as i32 as i64) << 16,
        // V_SAT_PK_U8_I16: "SAT8 = lambda(n) (if n.i <= 0 then return 8'0U
        // elsif n >= 16'I(0xff) then return 8'255U else return n[7 : 0].u8
        // endif); D0.b16 = { SAT8(S0[31 : 16].i16), SAT8(S0[15 : 0].i16) }".
        SatPkU8I16 => {
            let sat8 = |n: i32| n.clamp(0, 255) as u32;
            sat8(sext16(a >> 16)) << 8 | sat8(sext16(a & 0xffff))
        }
        // Handled by `exec` (they need the lane mask or two registers).
        CndmaskB16 | SwapB16 | Cmp { .. } => 0,
    }
}

/// VOPC: "D0.u64[laneId] = S0.i16 < S1.i16" etc. (V_CMP_LT_I16 ...
/// V_CMP_GE_U16); V_CMPX_*: the result goes to EXEC.
fn compare(cond: u8, signed: bool, a: u32, b: u32) -> bool {
    let (x, y) = if signed {
        (sext16(a) as i64, sext16(b) as i64)
    } else {
        (a as i64, b as i64)
    };
    match cond {
        1 => x < y,
        2 => x == y,
        3 => x <= y,
        4 => x > y,
        5 => x != y,
        6 => x >= y,
        0 => false,
        _ => true,
    }
}

/// Execute `v` on the lanes of EXEC.
pub fn exec<W: WaveView>(w: &mut W, v: &V16) {
    let exec = w.exec();
    let lanes = w.lanes() as usize;
    let kinds = v.op.srcs();
    let active = |l: usize| exec >> l & 1 == 1;
    match v.op {
        Op16::Cmp { cond, signed, cmpx } => {
            let mut res = 0u64;
            for l in (0..lanes).filter(|&l| active(l)) {
                let a = read16(w, v.src[0], v.src_hi(0), l);
                let b = read16(w, v.src[1], v.src_hi(1), l);
                res |= (compare(cond, signed, a, b) as u64) << l;
            }
            if cmpx {
                // gfx11 v_cmpx writes EXEC only (VOPCInstructions.td).
                w.set_exec(res);
            } else {
                w.write_mask(v.vdst, res);
            }
        }
        Op16::SwapB16 => {
            // V_SWAP_B16: "tmp = D0.b16; D0.b16 = S0.b16; S0.b16 = tmp".
            let Src::V(s) = v.src[0] else { return };
            for l in (0..lanes).filter(|&l| active(l)) {
                let d = read16(w, Src::V(v.vdst), v.dst_hi(), l);
                let x = read16(w, Src::V(s), v.src_hi(0), l);
                write16(w, v.vdst, v.dst_hi(), l, x);
                write16(w, s, v.src_hi(0), l, d);
            }
        }
        Op16::CndmaskB16 => {
            // V_CNDMASK_B16: "D0.u16 = VCC.u64[laneId] ? S1.u16 : S0.u16"
            // ("In VOP3 the VCC source may be a scalar GPR specified in S2").
            let m = w.read_mask(v.src[2]);
            for l in (0..lanes).filter(|&l| active(l)) {
                let k = (m >> l & 1) as usize;
                let x = read16(w, v.src[k], v.src_hi(k), l);
                write16(w, v.vdst, v.dst_hi(), l, x);
            }
        }
        op => {
            for l in (0..lanes).filter(|&l| active(l)) {
                let mut s = [0u32; 3];
                for (k, kind) in kinds.iter().enumerate() {
                    s[k] = match kind {
                        W16::H => read16(w, v.src[k], v.src_hi(k), l),
                        _ => read32(w, v.src[k], l),
                    };
                }
                let r = lane_value(op, s[0], s[1], s[2], v.clamp);
                if op.dst() == Some(W16::H) {
                    write16(w, v.vdst, v.dst_hi(), l, r);
                } else {
                    w.set_vgpr(v.vdst as usize, l, r);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_and_clamped_edges() {
        use Op16::*;
        // 0x7fff + 1 wraps to 0x8000; clamped it stays 0x7fff.
        assert_eq!(lane_value(AddNcI16, 0x7fff, 1, 0, false), 0x8000);
        assert_eq!(lane_value(AddNcI16, 0x7fff, 1, 0, true), 0x7fff);
        // -32768 - 1 clamps to -32768.
        assert_eq!(lane_value(SubNcI16, 0x8000, 1, 0, true), 0x8000);
        assert_eq!(lane_value(SubNcU16, 1, 2, 0, true), 0);
        assert_eq!(lane_value(SubNcU16, 1, 2, 0, false), 0xffff);
        assert_eq!(lane_value(AshrrevI16, 15, 0x8000, 0, false), 0xffff);
        assert_eq!(lane_value(AshrrevI16, 16, 0x8000, 0, false), 0x8000);
        assert_eq!(lane_value(SatPkU8I16, 0x8000_0100, 0, 0, false), 0x00ff);
        assert_eq!(lane_value(SatPkU8I16, 0x0100_ffff, 0, 0, false), 0xff00);
        assert_eq!(
            lane_value(CvtPkI16I32, 0x8000_0000, 0x7fff_ffff, 0, false),
            0x7fff_8000
        );
        assert_eq!(lane_value(CvtPkU16U32, 0x1_0000, 5, 0, false), 0x0005_ffff);
        assert_eq!(
            lane_value(MadI32I16, 0x8000, 0x8000, 0x7fff_ffff, true),
            0x7fff_ffff
        );
        assert_eq!(lane_value(Med3I16, 0xffff, 5, 0x8000, false), 0xffff);
    }
}
