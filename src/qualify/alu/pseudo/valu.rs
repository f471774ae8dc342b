//! The 32- and 64-bit VALU (VOP1, VOP2, VOP3 and VOP3SD forms), VOPD, and
//! the ops that reach across lanes or write two registers.

use super::{
    bfe_i, bfe_u, byte_permute, cls_i32, dst_v, first_one, med3, ones, sad_u8, sext, ubyte_f32,
    Machine,
};
use crate::isa::alu::{AluInst, Opnd, VopdHalf};

pub(super) fn dual(m: &mut Machine, x: &VopdHalf, y: &VopdHalf) -> Result<(), String> {
    // VOPD ("VOPD Instructions"): two independent VALU ops issued together;
    // both read their sources before either writes.
    let half = |m: &Machine, h: &VopdHalf, l: usize| -> Result<u32, String> {
        let s0 = m.r32(h.srcs[0], l)?;
        let s1 = match h.srcs.get(1) {
            Some(o) => m.r32(*o, l)?,
            None => 0,
        };
        Ok(match h.name {
            // V_DUAL_MOV_B32: D0.b32 = S0.b32.
            "v_dual_mov_b32" => s0,
            // V_DUAL_CNDMASK_B32: D0.u32 = VCC.u64[laneId] ? S1.u32 : S0.u32.
            "v_dual_cndmask_b32" => {
                if m.st.vcc >> l & 1 == 1 {
                    s1
                } else {
                    s0
                }
            }
            // V_DUAL_ADD_NC_U32: D0.u32 = S0.u32 + S1.u32.
            "v_dual_add_nc_u32" => s0.wrapping_add(s1),
            // V_DUAL_LSHLREV_B32: D0.u32 = (S1.u32 << S0[4 : 0].u32).
            "v_dual_lshlrev_b32" => s1 << (s0 & 31),
            // V_DUAL_AND_B32: D0.u32 = (S0.u32 & S1.u32).
            "v_dual_and_b32" => s0 & s1,
            other => return Err(format!("no pseudocode for {other}")),
        })
    };
    let mut writes = Vec::new();
    for l in 0..m.lanes {
        if m.active(l) {
            writes.push((l, x.vdst, half(m, x, l)?));
            writes.push((l, y.vdst, half(m, y, l)?));
        }
    }
    for (l, d, v) in writes {
        m.st.v[l][Machine::vidx(d, "destination")?] = v;
    }
    Ok(())
}

/// The 32- and 64-bit VALU ops (VOP1, VOP2, VOP3, VOP3SD) by their
/// base name (`_e32`/`_e64` dropped), with carry outs.
pub(super) fn valu32(m: &mut Machine, i: &AluInst, base: &str) -> Result<(), String> {
    let name = i.op.name;
    let src = |k: usize| -> Result<Opnd, String> {
        i.srcs
            .get(k)
            .copied()
            .ok_or_else(|| format!("{name}: source {k} missing"))
    };
    let exec = m.exec();
    // Lane-mask inputs (VCC of e32 forms, the mask/carry source of e64 forms).
    let mask_in = match (base, i.op.format) {
        (
            "v_cndmask_b32" | "v_add_co_ci_u32" | "v_sub_co_ci_u32" | "v_subrev_co_ci_u32",
            crate::isa::alu::Format::Vop2,
        ) => m.rmask(Opnd::Vcc)?,
        ("v_cndmask_b32" | "v_add_co_ci_u32" | "v_sub_co_ci_u32" | "v_subrev_co_ci_u32", _) => {
            m.rmask(src(2)?)?
        }
        _ => 0,
    };
    let mut carry_out = 0u64;
    let mut writes32: Vec<(usize, u32)> = Vec::new();
    let mut writes64: Vec<(usize, u64)> = Vec::new();
    for l in 0..m.lanes {
        if !m.active(l) {
            continue;
        }
        let a = |k: usize| -> Result<u32, String> { m.r32(src(k)?, l) };
        let ci = mask_in >> l & 1;
        let u24 = |x: u32| x & 0x00ff_ffff;
        let i24 = |x: u32| sext(x as u64 & 0x00ff_ffff, 24);
        let r: u32 = match base {
            // VOP1. V_MOV_B32: D0.b32 = S0.b32.
            "v_mov_b32" => a(0)?,
            // V_NOT_B32: D0.u32 = ~S0.u32.
            "v_not_b32" => !a(0)?,
            // V_BFREV_B32: D0.u32[31 : 0] = S0.u32[0 : 31].
            "v_bfrev_b32" => a(0)?.reverse_bits(),
            // V_CLZ_I32_U32: "D0.i32 = -1; for i in 0 : 31 do if S0.u32[31 - i]
            // == 1'1U then D0.i32 = i; break" (the first one from the top).
            "v_clz_i32_u32" => first_one((0..32).map(|k| 31 - k), a(0)?),
            // V_CTZ_I32_B32: the same from bit 0 up.
            "v_ctz_i32_b32" => first_one(0..32, a(0)?),
            // V_CLS_I32: "D0.i32 = -1; for i in 1 : 31 do if S0.i32[31 - i]
            // != S0.i32[31] then D0.i32 = i; break".
            "v_cls_i32" => cls_i32(a(0)?),
            // V_CVT_F32_UBYTE0..3: "D0.f32 = 32'F(S0[7 : 0].u32)" (S0[15 :
            // 8], S0[23 : 16], S0[31 : 24] for 1..3); a byte is exact in f32.
            "v_cvt_f32_ubyte0" => ubyte_f32(a(0)?, 0),
            "v_cvt_f32_ubyte1" => ubyte_f32(a(0)?, 1),
            "v_cvt_f32_ubyte2" => ubyte_f32(a(0)?, 2),
            "v_cvt_f32_ubyte3" => ubyte_f32(a(0)?, 3),
            // VOP2. V_CNDMASK_B32: D0.u32 = VCC.u64[laneId] ? S1.u32 : S0.u32
            // (the e64 form's mask is S2).
            "v_cndmask_b32" => {
                if ci == 1 {
                    a(1)?
                } else {
                    a(0)?
                }
            }
            // V_MUL_I32_I24: D0.i32 = 32'I(S0.i24) * 32'I(S1.i24).
            "v_mul_i32_i24" => (i24(a(0)?) * i24(a(1)?)) as u32,
            // V_MUL_U32_U24: D0.u32 = 32'U(S0.u24) * 32'U(S1.u24).
            "v_mul_u32_u24" => u24(a(0)?).wrapping_mul(u24(a(1)?)),
            // V_MUL_HI_U32_U24: D0.u32 = 32'U((64'U(S0.u24) * 64'U(S1.u24)) >> 32U).
            "v_mul_hi_u32_u24" => ((u24(a(0)?) as u64 * u24(a(1)?) as u64) >> 32) as u32,
            // V_MIN_I32: D0.i32 = S0.i32 < S1.i32 ? S0.i32 : S1.i32; MAX: >=.
            "v_min_i32" => (a(0)? as i32).min(a(1)? as i32) as u32,
            "v_max_i32" => (a(0)? as i32).max(a(1)? as i32) as u32,
            "v_min_u32" => a(0)?.min(a(1)?),
            "v_max_u32" => a(0)?.max(a(1)?),
            // V_LSHLREV_B32: D0.u32 = (S1.u32 << S0[4 : 0].u32).
            "v_lshlrev_b32" => a(1)? << (a(0)? & 31),
            // V_LSHRREV_B32: D0.u32 = (S1.u32 >> S0[4 : 0].u32).
            "v_lshrrev_b32" => a(1)? >> (a(0)? & 31),
            // V_ASHRREV_I32: D0.i32 = (S1.i32 >> S0[4 : 0].u32).
            "v_ashrrev_i32" => ((a(1)? as i32) >> (a(0)? & 31)) as u32,
            "v_and_b32" => a(0)? & a(1)?,
            "v_or_b32" => a(0)? | a(1)?,
            "v_xor_b32" => a(0)? ^ a(1)?,
            // V_ADD_CO_CI_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32) +
            // VCC.u64[laneId].u64; VCC.u64[laneId] = tmp >= 0x100000000ULL ?
            // 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_add_co_ci_u32" => {
                let t = a(0)? as u64 + a(1)? as u64 + ci;
                carry_out |= ((t >> 32) & 1) << l;
                t as u32
            }
            // V_SUB_CO_CI_U32: "tmp = S0.u32 - S1.u32 - VCC.u64[laneId].u32;
            // VCC.u64[laneId] = 64'U(S1.u32) + VCC.u64[laneId].u64 >
            // 64'U(S0.u32) ? 1'1U : 1'0U".
            "v_sub_co_ci_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((y as u64 + ci > x as u64) as u64) << l;
                x.wrapping_sub(y).wrapping_sub(ci as u32)
            }
            // V_ADD_NC_U32: D0.u32 = S0.u32 + S1.u32 (no carry).
            "v_add_nc_u32" => a(0)?.wrapping_add(a(1)?),
            "v_sub_nc_u32" => a(0)?.wrapping_sub(a(1)?),
            // V_SUBREV_NC_U32: D0.u32 = S1.u32 - S0.u32.
            "v_subrev_nc_u32" => a(1)?.wrapping_sub(a(0)?),
            // VOP3. V_MAD_I32_I24: D0.i32 = 32'I(S0.i24) * 32'I(S1.i24) + S2.i32.
            "v_mad_i32_i24" => ((i24(a(0)?) * i24(a(1)?)) as u32).wrapping_add(a(2)?),
            // V_MAD_U32_U24: D0.u32 = 32'U(S0.u24) * 32'U(S1.u24) + S2.u32.
            "v_mad_u32_u24" => u24(a(0)?).wrapping_mul(u24(a(1)?)).wrapping_add(a(2)?),
            // V_BFE_U32: D0.u32 = ((S0.u32 >> S1[4 : 0].u32) & ((1U << S2[4 : 0].u32) - 1U)).
            "v_bfe_u32" => bfe_u(a(0)? as u64, a(1)? & 31, a(2)? & 31, 32) as u32,
            // V_BFE_I32: "tmp.i32 = ((S0.i32 >> S1[4 : 0].u32) & ((1 << S2[4 :
            // 0].u32) - 1)); D0.i32 = signext_from_bit(tmp.i32, S2[4 : 0].u32)".
            "v_bfe_i32" => bfe_i(a(0)? as u64, a(1)? & 31, a(2)? & 31, 32) as u32,
            // V_BFI_B32: D0.u32 = ((S0.u32 & S1.u32) | (~S0.u32 & S2.u32)).
            "v_bfi_b32" => {
                let s0 = a(0)?;
                (s0 & a(1)?) | (!s0 & a(2)?)
            }
            // V_ALIGNBIT_B32: D0.u32 = 32'U(({ S0.u32, S1.u32 } >> S2.u32[4 : 0].u32) & 0xffffffffLL).
            "v_alignbit_b32" => ((((a(0)? as u64) << 32) | a(1)? as u64) >> (a(2)? & 31)) as u32,
            // V_MIN3_U32: D0.u32 = v_min_u32(v_min_u32(S0.u32, S1.u32), S2.u32).
            "v_min3_u32" => a(0)?.min(a(1)?).min(a(2)?),
            // V_MED3_I32: "if v_max3_i32(S0, S1, S2) == S0 then D0 =
            // v_max_i32(S1, S2) elsif v_max3_i32(S0, S1, S2) == S1 then D0 =
            // v_max_i32(S0, S2) else D0 = v_max_i32(S0, S1) endif"
            // (drop the maximum, take the larger of the other two; with two
            // equal maxima that is the maximum, the median too).
            "v_med3_i32" => med3(a(0)? as i32, a(1)? as i32, a(2)? as i32) as u32,
            // V_XOR3_B32: D0.u32 = (S0.u32 ^ S1.u32 ^ S2.u32).
            "v_xor3_b32" => a(0)? ^ a(1)? ^ a(2)?,
            // V_LSHL_ADD_U32: D0.u32 = (S0.u32 << S1.u32[4 : 0].u32) + S2.u32.
            "v_lshl_add_u32" => (a(0)? << (a(1)? & 31)).wrapping_add(a(2)?),
            // V_ADD3_U32: D0.u32 = S0.u32 + S1.u32 + S2.u32.
            "v_add3_u32" => a(0)?.wrapping_add(a(1)?).wrapping_add(a(2)?),
            // V_XNOR_B32: D0.u32 = ~(S0.u32 ^ S1.u32).
            "v_xnor_b32" => !(a(0)? ^ a(1)?),
            // V_LERP_U8: "tmp = ((S0.u32[31 : 24] + S1.u32[31 : 24] + S2.u32[24].u8)
            // >> 1U << 24U); tmp += ((S0.u32[23 : 16] + S1.u32[23 : 16] +
            // S2.u32[16].u8) >> 1U << 16U); ... [15 : 8], S2.u32[8]; [7 : 0],
            // S2.u32[0]; D0.u32 = tmp.u32": per byte, the rounded average.
            "v_lerp_u8" => {
                let (x, y, z) = (a(0)?, a(1)?, a(2)?);
                (0..4)
                    .map(|k| {
                        let b = |v: u32| v >> (8 * k) & 0xff;
                        ((b(x) + b(y) + (z >> (8 * k) & 1)) >> 1) << (8 * k)
                    })
                    .sum()
            }
            // V_MIN3_I32 / V_MAX3_I32: v_min_i32(v_min_i32(S0, S1), S2) / max.
            "v_min3_i32" => (a(0)? as i32).min(a(1)? as i32).min(a(2)? as i32) as u32,
            "v_max3_i32" => (a(0)? as i32).max(a(1)? as i32).max(a(2)? as i32) as u32,
            // V_MED3_U32: V_MED3_I32's pseudocode on unsigned values.
            "v_med3_u32" => med3(a(0)?, a(1)?, a(2)?),
            // V_SAD_U8: "tmp = S2.u32; tmp += 32'U(ABSDIFF(S0.u32[7 : 0],
            // S1.u32[7 : 0])); ... [15 : 8], [23 : 16], [31 : 24]; D0.u32 = tmp".
            "v_sad_u8" => sad_u8(a(0)?, a(1)?, false).wrapping_add(a(2)?),
            // V_SAD_HI_U8: "D0.u32 = (32'U(v_sad_u8(S0, S1, 0)) << 16U) + S2.u32".
            "v_sad_hi_u8" => (sad_u8(a(0)?, a(1)?, false) << 16).wrapping_add(a(2)?),
            // V_SAD_U16: "tmp = S2.u32; tmp += ABSDIFF(S0[15 : 0].u16, S1[15 :
            // 0].u16); tmp += ABSDIFF(S0[31 : 16].u16, S1[31 : 16].u16)".
            "v_sad_u16" => {
                let (x, y) = (a(0)?, a(1)?);
                let d = |k: u32| (x >> k & 0xffff).abs_diff(y >> k & 0xffff);
                a(2)?.wrapping_add(d(0)).wrapping_add(d(16))
            }
            // V_SAD_U32: "D0.u32 = ABSDIFF(S0.u32, S1.u32) + S2.u32".
            "v_sad_u32" => a(0)?.abs_diff(a(1)?).wrapping_add(a(2)?),
            // V_MSAD_U8: V_SAD_U8 where "S1.u32[k + 7 : k] == 0U ? 0U :
            // ABSDIFF(...)": reference bytes of 0 are masked out.
            "v_msad_u8" => sad_u8(a(0)?, a(1)?, true).wrapping_add(a(2)?),
            // V_PERM_B32: "D0[31 : 24] = BYTE_PERMUTE({ S0.u32, S1.u32 },
            // S2.u32[31 : 24]); ... [23 : 16], [15 : 8], [7 : 0]".
            "v_perm_b32" => {
                let data = (a(0)? as u64) << 32 | a(1)? as u64;
                let sel = a(2)?;
                (0..4)
                    .map(|k| byte_permute(data, sel >> (8 * k) & 0xff) << (8 * k))
                    .sum()
            }
            // V_ADD_LSHL_U32: D0.u32 = ((S0.u32 + S1.u32) << S2.u32[4 : 0].u32).
            "v_add_lshl_u32" => a(0)?.wrapping_add(a(1)?) << (a(2)? & 31),
            // V_LSHL_OR_B32: D0.u32 = ((S0.u32 << S1[4 : 0].u32) | S2.u32).
            "v_lshl_or_b32" => (a(0)? << (a(1)? & 31)) | a(2)?,
            // V_AND_OR_B32: D0.u32 = ((S0.u32 & S1.u32) | S2.u32).
            "v_and_or_b32" => (a(0)? & a(1)?) | a(2)?,
            // V_OR3_B32: D0.u32 = (S0.u32 | S1.u32 | S2.u32).
            "v_or3_b32" => a(0)? | a(1)? | a(2)?,
            // V_MBCNT_LO_U32_B32: "ThreadMask = (1LL << laneId.u32) - 1LL;
            // MaskedValue = (S0.u32 & ThreadMask[31 : 0].u32); tmp = S1.u32;
            // tmp += countbits(MaskedValue); D0.u32 = tmp"; _HI: ThreadMask[63 : 32].
            "v_mbcnt_lo_u32_b32" | "v_mbcnt_hi_u32_b32" => {
                let thread_mask = (1u64 << l) - 1;
                let half = if base == "v_mbcnt_lo_u32_b32" {
                    thread_mask as u32
                } else {
                    (thread_mask >> 32) as u32
                };
                a(1)?.wrapping_add((a(0)? & half).count_ones())
            }
            // V_ADD_CO_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32);
            // VCC.u64[laneId] = tmp >= 0x100000000ULL ? 1'1U : 1'0U;
            // D0.u32 = tmp.u32" (VCC: the instruction's SDST).
            "v_add_co_u32" => {
                let t = a(0)? as u64 + a(1)? as u64;
                carry_out |= ((t >> 32) & 1) << l;
                t as u32
            }
            // V_SUB_CO_U32: "tmp = S0.u32 - S1.u32; VCC.u64[laneId] = S1.u32 >
            // S0.u32 ? 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_sub_co_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((y > x) as u64) << l;
                x.wrapping_sub(y)
            }
            // V_SUBREV_CO_CI_U32: "tmp = S1.u32 - S0.u32 - VCC.u64[laneId].u32;
            // VCC.u64[laneId] = 64'U(S0.u32) + VCC.u64[laneId].u64 >
            // 64'U(S1.u32) ? 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_subrev_co_ci_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((x as u64 + ci > y as u64) as u64) << l;
                y.wrapping_sub(x).wrapping_sub(ci as u32)
            }
            // V_SUBREV_CO_U32: "tmp = S1.u32 - S0.u32; VCC.u64[laneId] = S0.u32 >
            // S1.u32 ? 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_subrev_co_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((x > y) as u64) << l;
                y.wrapping_sub(x)
            }
            // V_MUL_HI_I32_I24: "D0.i32 = 32'I((64'I(S0.i24) * 64'I(S1.i24)) >> 32U)".
            "v_mul_hi_i32_i24" => ((i24(a(0)?) * i24(a(1)?)) >> 32) as u32,
            // V_ALIGNBYTE_B32: "D0.u32 = 32'U(({ S0.u32, S1.u32 } >> (S2.u32[1 :
            // 0].u32 * 8U)) & 0xffffffffLL)".
            "v_alignbyte_b32" => {
                ((((a(0)? as u64) << 32) | a(1)? as u64) >> ((a(2)? & 3) * 8)) as u32
            }
            // V_MAX3_U32: "D0.u32 = v_max_u32(v_max_u32(S0.u32, S1.u32), S2.u32)".
            "v_max3_u32" => a(0)?.max(a(1)?).max(a(2)?),
            // V_XAD_U32: "D0.u32 = (S0.u32 ^ S1.u32) + S2.u32".
            "v_xad_u32" => (a(0)? ^ a(1)?).wrapping_add(a(2)?),
            // V_BFM_B32: "D0.u32 = (((1U << S0[4 : 0].u32) - 1U) << S1[4 : 0].u32)".
            "v_bfm_b32" => (ones(a(0)? & 31) as u32) << (a(1)? & 31),
            // V_BCNT_U32_B32: "tmp = S1.u32; for i in 0 : 31 do tmp += S0[i].u32
            // endfor; D0.u32 = tmp".
            "v_bcnt_u32_b32" => {
                let x = a(0)?;
                (0..32).fold(a(1)?, |t, k| t.wrapping_add(x >> k & 1))
            }
            // V_ADD_NC_I32: "D0.i32 = S0.i32 + S1.i32"; V_SUB_NC_I32: "D0.i32 =
            // S0.i32 - S1.i32" (no clamp in the corpus: the 32-bit result wraps).
            "v_add_nc_i32" => a(0)?.wrapping_add(a(1)?),
            "v_sub_nc_i32" => a(0)?.wrapping_sub(a(1)?),
            // V_MUL_LO_U32: D0.u32 = S0.u32 * S1.u32.
            "v_mul_lo_u32" => a(0)?.wrapping_mul(a(1)?),
            // V_MUL_HI_U32: D0.u32 = 32'U((64'U(S0.u32) * 64'U(S1.u32)) >> 32U).
            "v_mul_hi_u32" => ((a(0)? as u64 * a(1)? as u64) >> 32) as u32,
            // V_MUL_HI_I32: D0.i32 = 32'I((64'I(S0.i32) * 64'I(S1.i32)) >> 32U).
            "v_mul_hi_i32" => ((a(0)? as i32 as i64 * a(1)? as i32 as i64) >> 32) as u32,
            // 64-bit results.
            "v_mad_u64_u32" | "v_mad_i64_i32" | "v_lshlrev_b64" | "v_lshrrev_b64"
            | "v_ashrrev_i64" => {
                let r64: u64 = match base {
                    // V_MAD_U64_U32: "{ D1.u1, D0.u64 } = 65'B(65'U(S0.u32) *
                    // 65'U(S1.u32) + 65'U(S2.u64))".
                    "v_mad_u64_u32" => {
                        let t = a(0)? as u128 * a(1)? as u128 + m.r64(src(2)?, l)? as u128;
                        carry_out |= ((t >> 64) as u64 & 1) << l;
                        t as u64
                    }
                    // V_MAD_I64_I32: "{ D1.i1, D0.i64 } = 65'B(65'I(S0.i32) *
                    // 65'I(S1.i32) + 65'I(S2.i64))".
                    "v_mad_i64_i32" => {
                        let t = a(0)? as i32 as i128 * a(1)? as i32 as i128
                            + m.r64(src(2)?, l)? as i64 as i128;
                        carry_out |= ((t >> 64) as u64 & 1) << l;
                        t as u64
                    }
                    // V_LSHLREV_B64: D0.u64 = (S1.u64 << S0[5 : 0].u32).
                    "v_lshlrev_b64" => m.r64(src(1)?, l)? << (a(0)? & 63),
                    // V_LSHRREV_B64: D0.u64 = (S1.u64 >> S0[5 : 0].u32).
                    "v_lshrrev_b64" => m.r64(src(1)?, l)? >> (a(0)? & 63),
                    // V_ASHRREV_I64: D0.i64 = (S1.i64 >> S0[5 : 0].u32).
                    _ => ((m.r64(src(1)?, l)? as i64) >> (a(0)? & 63)) as u64,
                };
                writes64.push((l, r64));
                continue;
            }
            other => return Err(format!("no pseudocode for {other}")),
        };
        writes32.push((l, r));
    }
    let d = dst_v(i.dst)?;
    for (l, v) in writes32 {
        m.st.v[l][Machine::vidx(d, "destination")?] = v;
    }
    for (l, v) in writes64 {
        let k = Machine::vidx(d, "destination")?;
        Machine::vidx(d + 1, "destination")?;
        m.st.v[l][k] = v as u32;
        m.st.v[l][k + 1] = (v >> 32) as u32;
    }
    // The carry out ([`POLICY_MASK_INACTIVE_ZERO`]): e32 forms write VCC,
    // VOP3SD forms their SDST.
    let carries = matches!(
        base,
        "v_add_co_ci_u32"
            | "v_sub_co_ci_u32"
            | "v_add_co_u32"
            | "v_sub_co_u32"
            | "v_subrev_co_ci_u32"
            | "v_subrev_co_u32"
            | "v_mad_u64_u32"
            | "v_mad_i64_i32"
    );
    if carries {
        let to = i.sdst.unwrap_or(Opnd::Vcc);
        m.wmask(to, carry_out & exec)?;
    }
    Ok(())
}

/// The VALU instructions that reach across lanes or write two registers:
/// v_readlane_b32, v_writelane_b32, v_readfirstlane_b32 (none of them
/// looks at EXEC for the lane it reads or writes), and v_swap_b32.
pub(super) fn lanes_and_swap(
    m: &mut Machine,
    i: &AluInst,
    base: &str,
) -> Option<Result<(), String>> {
    let run = |m: &mut Machine| -> Result<(), String> {
        let src = |k: usize| -> Result<Opnd, String> {
            i.srcs
                .get(k)
                .copied()
                .ok_or_else(|| format!("{base}: source {k} missing"))
        };
        let vgpr = |o: Opnd| match o {
            Opnd::V(n) => Machine::vidx(n, "source"),
            other => Err(format!("{base}: {other:?} is not a VGPR")),
        };
        // "if WAVE32 then lane = S1.u32[4 : 0].u32 else lane = S1.u32[5 :
        // 0].u32 endif".
        let lane_mask = m.lanes as u32 - 1;
        match base {
            // V_READLANE_B32: "... D0.b32 = VGPR[lane][SRC0.u32]".
            "v_readlane_b32" => {
                let lane = (m.r32(src(1)?, 0)? & lane_mask) as usize;
                let v = m.st.v[lane][vgpr(src(0)?)?];
                m.ws32(i.dst, v)
            }
            // V_WRITELANE_B32: "... VGPR[lane][VDST.u32] = S0.b32".
            "v_writelane_b32" => {
                let lane = (m.r32(src(1)?, 0)? & lane_mask) as usize;
                let v = m.r32(src(0)?, 0)?;
                let d = Machine::vidx(dst_v(i.dst)?, "destination")?;
                m.st.v[lane][d] = v;
                Ok(())
            }
            // V_READFIRSTLANE_B32: "if EXEC == 0x0LL then lane = 0U // Force
            // lane 0 if all lanes are disabled else lane =
            // 32'U(s_ff1_i32_b64(EXEC)) // Lowest active lane endif; D0.b32 =
            // VGPR[lane][SRC0.u32]" (wave32: EXEC_LO, s_ff1_i32_b32).
            "v_readfirstlane_b32" => {
                let e = m.exec();
                let lane = if e == 0 {
                    0
                } else {
                    e.trailing_zeros() as usize
                };
                let v = m.st.v[lane][vgpr(src(0)?)?];
                m.ws32(i.dst, v)
            }
            // V_SWAP_B32: "tmp = D0.b32; D0.b32 = S0.b32; S0.b32 = tmp" in
            // each active lane.
            _ => {
                let s = vgpr(src(0)?)?;
                let d = Machine::vidx(dst_v(i.dst)?, "destination")?;
                for l in 0..m.lanes {
                    if m.active(l) {
                        m.st.v[l].swap(d, s);
                    }
                }
                Ok(())
            }
        }
    };
    matches!(
        base,
        "v_readlane_b32" | "v_writelane_b32" | "v_readfirstlane_b32" | "v_swap_b32"
    )
    .then(|| run(m))
}
