//! The scalar ALU: SOP1, SOP2, SOPC and SOPK.

use super::{bfe_i, bfe_u, cls_i32, first_one, ones, sext, Machine};
use crate::isa::alu::{AluInst, Opnd};

pub(super) fn salu(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    let s = |k: usize| -> Result<u32, String> {
        m.r32(i.srcs.get(k).copied().ok_or("missing source")?, 0)
    };
    let s64 = |k: usize| -> Result<u64, String> {
        m.r64(i.srcs.get(k).copied().ok_or("missing source")?, 0)
    };
    let scc = m.st.scc as u64;
    // (result, SCC after; None = SCC unchanged, 64-bit result?)
    enum R {
        W32(u32, Option<bool>),
        W64(u64, Option<bool>),
        Scc(bool),
    }
    let nz = |x: u32| R::W32(x, Some(x != 0));
    let nz64 = |x: u64| R::W64(x, Some(x != 0));
    // The destination's value before the instruction (S_CMOV, S_BITSET,
    // SOPK's S_CMOVK/S_ADDK/S_MULK).
    let old_dst = || -> Result<u32, String> { m.r32(i.dst.ok_or("missing destination")?, 0) };
    let old_dst64 = || -> Result<u64, String> { m.r64(i.dst.ok_or("missing destination")?, 0) };
    // SOPK's SIMM16 (its last operand).
    let simm16 = || -> Result<u16, String> {
        match i.srcs.last() {
            Some(Opnd::Lit(v)) => Ok(*v as u16),
            other => Err(format!("{name}: SIMM16 is {other:?}")),
        }
    };
    // What EXEC becomes (the saveexec/wrexec family), applied after.
    let mut exec_after: Option<u64> = None;
    let r = match name {
        // S_ADD_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32); SCC = tmp >=
        // 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        "s_add_u32" => {
            let t = s(0)? as u64 + s(1)? as u64;
            R::W32(t as u32, Some(t >= 1 << 32))
        }
        // S_SUB_U32: "tmp = S0.u32 - S1.u32; SCC = S1.u32 > S0.u32 ? 1'1U :
        // 1'0U; D0.u32 = tmp.u32".
        "s_sub_u32" => R::W32(s(0)?.wrapping_sub(s(1)?), Some(s(1)? > s(0)?)),
        // S_ADD_I32: "tmp = S0.i32 + S1.i32; SCC = ((S0.u32[31] ==
        // S1.u32[31]) && (S0.u32[31] != tmp.u32[31])); D0.i32 = tmp.i32".
        "s_add_i32" => {
            let (x, y) = (s(0)?, s(1)?);
            let t = x.wrapping_add(y);
            R::W32(t, Some(x >> 31 == y >> 31 && x >> 31 != t >> 31))
        }
        // S_SUB_I32: "tmp = S0.i32 - S1.i32; SCC = ((S0.u32[31] !=
        // S1.u32[31]) && (S0.u32[31] != tmp.u32[31]))".
        "s_sub_i32" => {
            let (x, y) = (s(0)?, s(1)?);
            let t = x.wrapping_sub(y);
            R::W32(t, Some(x >> 31 != y >> 31 && x >> 31 != t >> 31))
        }
        // S_ADDC_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32) + SCC.u64; SCC =
        // tmp >= 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        "s_addc_u32" => {
            let t = s(0)? as u64 + s(1)? as u64 + scc;
            R::W32(t as u32, Some(t >= 1 << 32))
        }
        // S_SUBB_U32: "tmp = S0.u32 - S1.u32 - SCC.u32; SCC = 64'U(S1.u32) +
        // SCC.u64 > 64'U(S0.u32) ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        "s_subb_u32" => {
            let (x, y) = (s(0)?, s(1)?);
            R::W32(
                x.wrapping_sub(y).wrapping_sub(scc as u32),
                Some(y as u64 + scc > x as u64),
            )
        }
        // S_ABSDIFF_I32: "D0.i32 = S0.i32 - S1.i32; if D0.i32 < 0 then
        // D0.i32 = -D0.i32 endif; SCC = D0.u32 != 0U".
        "s_absdiff_i32" => {
            let d = (s(0)? as i32).wrapping_sub(s(1)? as i32);
            nz(if d < 0 { d.wrapping_neg() } else { d } as u32)
        }
        // S_LSHL_B32: "D0.u32 = (S0.u32 << S1[4 : 0].u32); SCC = D0.u32 != 0U".
        "s_lshl_b32" => nz(s(0)? << (s(1)? & 31)),
        "s_lshr_b32" => nz(s(0)? >> (s(1)? & 31)),
        // S_ASHR_I32: "D0.i32 = 32'I(signext(S0.i32) >> S1[4 : 0].u32)".
        "s_ashr_i32" => nz(((s(0)? as i32) >> (s(1)? & 31)) as u32),
        // S_LSHL_B64: "D0.u64 = (S0.u64 << S1[5 : 0].u32); SCC = D0.u64 != 0ULL".
        "s_lshl_b64" => nz64(s64(0)? << (s(1)? & 63)),
        "s_lshr_b64" => nz64(s64(0)? >> (s(1)? & 63)),
        "s_ashr_i64" => nz64(((s64(0)? as i64) >> (s(1)? & 63)) as u64),
        // S_LSHL2_ADD_U32: "tmp = (64'U(S0.u32) << 2U) + 64'U(S1.u32); SCC =
        // tmp >= 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        // S_LSHL1/3/4_ADD_U32: the same with << 1U / << 3U / << 4U.
        "s_lshl1_add_u32" | "s_lshl2_add_u32" | "s_lshl3_add_u32" | "s_lshl4_add_u32" => {
            let sh = match name {
                "s_lshl1_add_u32" => 1,
                "s_lshl2_add_u32" => 2,
                "s_lshl3_add_u32" => 3,
                _ => 4,
            };
            let t = ((s(0)? as u64) << sh) + s(1)? as u64;
            R::W32(t as u32, Some(t >= 1 << 32))
        }
        // S_MIN_I32: "SCC = S0.i32 < S1.i32; D0.i32 = SCC ? S0.i32 : S1.i32".
        "s_min_i32" => {
            let c = (s(0)? as i32) < (s(1)? as i32);
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        "s_min_u32" => {
            let c = s(0)? < s(1)?;
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        // S_MAX_I32: "SCC = S0.i32 >= S1.i32; D0.i32 = SCC ? S0.i32 : S1.i32".
        "s_max_i32" => {
            let c = (s(0)? as i32) >= (s(1)? as i32);
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        "s_max_u32" => {
            let c = s(0)? >= s(1)?;
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        // S_AND_B32: "D0.u32 = (S0.u32 & S1.u32); SCC = D0.u32 != 0U"; OR, XOR alike.
        "s_and_b32" => nz(s(0)? & s(1)?),
        "s_or_b32" => nz(s(0)? | s(1)?),
        "s_xor_b32" => nz(s(0)? ^ s(1)?),
        "s_and_b64" => nz64(s64(0)? & s64(1)?),
        "s_xor_b64" => nz64(s64(0)? ^ s64(1)?),
        // S_BFE_U32: "D0.u32 = ((S0.u32 >> S1[4 : 0].u32) & ((1U << S1[22 :
        // 16].u32) - 1U)); SCC = D0.u32 != 0U".
        "s_bfe_u32" => {
            let c = s(1)?;
            nz(bfe_u(s(0)? as u64, c & 31, (c >> 16) & 0x7f, 32) as u32)
        }
        // S_BFE_I32: "tmp.i32 = ((S0.i32 >> S1[4 : 0].u32) & ((1 << S1[22 :
        // 16].u32) - 1)); D0.i32 = signext_from_bit(tmp.i32, S1[22 :
        // 16].u32); SCC = D0.i32 != 0".
        "s_bfe_i32" => {
            let c = s(1)?;
            nz(bfe_i(s(0)? as u64, c & 31, (c >> 16) & 0x7f, 32) as u32)
        }
        // S_BFE_U64 / S_BFE_I64: the same at 64 bits, offset S1[5 : 0].
        "s_bfe_u64" => {
            let c = s(1)?;
            nz64(bfe_u(s64(0)?, c & 63, (c >> 16) & 0x7f, 64))
        }
        "s_bfe_i64" => {
            let c = s(1)?;
            nz64(bfe_i(s64(0)?, c & 63, (c >> 16) & 0x7f, 64))
        }
        // S_MUL_I32: "D0.i32 = S0.i32 * S1.i32" (SCC unchanged).
        "s_mul_i32" => R::W32(s(0)?.wrapping_mul(s(1)?), None),
        // S_MUL_HI_U32: "D0.u32 = 32'U((64'U(S0.u32) * 64'U(S1.u32)) >> 32U)".
        "s_mul_hi_u32" => R::W32(((s(0)? as u64 * s(1)? as u64) >> 32) as u32, None),
        // S_MUL_HI_I32: "D0.i32 = 32'I((64'I(S0.i32) * 64'I(S1.i32)) >> 32U)".
        "s_mul_hi_i32" => R::W32(
            ((s(0)? as i32 as i64 * s(1)? as i32 as i64) >> 32) as u32,
            None,
        ),
        // S_CSELECT_B32: "D0.u32 = SCC ? S0.u32 : S1.u32".
        "s_cselect_b32" => R::W32(if scc == 1 { s(0)? } else { s(1)? }, None),
        // S_CSELECT_B64: "D0.u64 = SCC ? S0.u64 : S1.u64".
        "s_cselect_b64" => R::W64(if scc == 1 { s64(0)? } else { s64(1)? }, None),
        // S_OR_B64: "D0.u64 = (S0.u64 | S1.u64); SCC = D0.u64 != 0ULL".
        "s_or_b64" => nz64(s64(0)? | s64(1)?),
        // S_NAND_B32: "D0.u32 = ~(S0.u32 & S1.u32); SCC = D0.u32 != 0U".
        "s_nand_b32" => nz(!(s(0)? & s(1)?)),
        // S_XNOR_B32: "D0.u32 = ~(S0.u32 ^ S1.u32); SCC = D0.u32 != 0U".
        "s_xnor_b32" => nz(!(s(0)? ^ s(1)?)),
        // S_AND_NOT1_B32: "D0.u32 = (S0.u32 & ~S1.u32); SCC = D0.u32 != 0U".
        "s_and_not1_b32" => nz(s(0)? & !s(1)?),
        // S_BFM_B32: "D0.u32 = (((1U << S0[4 : 0].u32) - 1U) << S1[4 : 0].u32)"
        // (SCC unchanged).
        "s_bfm_b32" => R::W32((((1u64 << (s(0)? & 31)) - 1) as u32) << (s(1)? & 31), None),
        // S_PACK_LL_B32_B16: "D0 = { S1[15 : 0].u16, S0[15 : 0].u16 }";
        // _LH: { S1[31 : 16], S0[15 : 0] }; _HH: { S1[31 : 16], S0[31 : 16] };
        // _HL: { S1[15 : 0], S0[31 : 16] }.
        "s_pack_ll_b32_b16" => R::W32(s(1)? << 16 | (s(0)? & 0xffff), None),
        "s_pack_lh_b32_b16" => R::W32((s(1)? & 0xffff_0000) | (s(0)? & 0xffff), None),
        "s_pack_hh_b32_b16" => R::W32((s(1)? & 0xffff_0000) | s(0)? >> 16, None),
        "s_pack_hl_b32_b16" => R::W32(s(1)? << 16 | s(0)? >> 16, None),
        // SOP1. S_MOV_B32: "D0.b32 = S0.b32".
        "s_mov_b32" => R::W32(s(0)?, None),
        // S_BREV_B32: "D0.u32[31 : 0] = S0.u32[0 : 31]".
        "s_brev_b32" => R::W32(s(0)?.reverse_bits(), None),
        // S_CTZ_I32_B32: "tmp = -1; for i in 0 : 31 do if S0.u32[i] == 1'1U
        // then tmp = i; break ... D0.i32 = tmp" (SCC unchanged).
        "s_ctz_i32_b32" => R::W32(first_one(0..32, s(0)?), None),
        // S_CLZ_I32_U32: "tmp = -1; for i in 0 : 31 do if S0.u32[31 - i] ==
        // 1'1U then tmp = i; break".
        "s_clz_i32_u32" => R::W32(first_one((0..32).map(|k| 31 - k), s(0)?), None),
        // S_SEXT_I32_I8: "D0.i32 = 32'I(signext(S0.i8))".
        "s_sext_i32_i8" => R::W32(sext(s(0)? as u64 & 0xff, 8) as u32, None),
        "s_sext_i32_i16" => R::W32(sext(s(0)? as u64 & 0xffff, 16) as u32, None),
        // S_ABS_I32: "D0.i32 = S0.i32 < 0 ? -S0.i32 : S0.i32; SCC = D0.i32 != 0".
        "s_abs_i32" => {
            let x = s(0)? as i32;
            nz(if x < 0 { x.wrapping_neg() } else { x } as u32)
        }
        // S_BCNT1_I32_B32: "tmp = 0; for i in 0 : 31 do tmp += S0.u32[i] ==
        // 1'1U ? 1 : 0 endfor; D0.i32 = tmp; SCC = D0.u32 != 0U".
        "s_bcnt1_i32_b32" => nz((0..32)
            .map(|b| s(0).map(|x| x >> b & 1))
            .sum::<Result<u32, _>>()?),
        // S_NOT_B32: "D0.u32 = ~S0.u32; SCC = D0.u32 != 0U".
        "s_not_b32" => nz(!s(0)?),
        // S_CMOV_B32: "if SCC then D0.b32 = S0.b32 endif".
        "s_cmov_b32" => R::W32(if scc == 1 { s(0)? } else { old_dst()? }, None),
        // S_BREV_B64: "D0.u64[63 : 0] = S0.u64[0 : 63]".
        "s_brev_b64" => R::W64(s64(0)?.reverse_bits(), None),
        // S_CTZ_I32_B64: "tmp = -1; for i in 0 : 63 do if S0.u64[i] == 1'1U
        // then tmp = i; break ... D0.i32 = tmp".
        "s_ctz_i32_b64" => R::W32(first_one(0..64, s64(0)?), None),
        // S_CLS_I32: "tmp = -1; for i in 1 : 31 do if S0.u32[31 - i] !=
        // S0.u32[31] then tmp = i; break ... D0.i32 = tmp".
        "s_cls_i32" => R::W32(cls_i32(s(0)?), None),
        // S_BITSET0_B32: "D0.u32[S0.u32[4 : 0]] = 1'0U"; _BITSET1: 1'1U (the
        // other bits of D0 kept).
        "s_bitset0_b32" => R::W32(old_dst()? & !(1 << (s(0)? & 31)), None),
        "s_bitset1_b32" => R::W32(old_dst()? | 1 << (s(0)? & 31), None),
        // S_BITREPLICATE_B64_B32: "tmp = S0.u32; for i in 0 : 31 do
        // D0.u64[i * 2] = tmp[i]; D0.u64[i * 2 + 1] = tmp[i] endfor".
        "s_bitreplicate_b64_b32" => {
            let x = s(0)? as u64;
            R::W64((0..32).map(|i| (x >> i & 1) * (3 << (2 * i))).sum(), None)
        }
        // S_BCNT0_I32_B32: "tmp = 0; for i in 0 : 31 do tmp += S0.u32[i] ==
        // 1'0U ? 1 : 0 endfor; D0.i32 = tmp; SCC = D0.u32 != 0U".
        "s_bcnt0_i32_b32" => nz((0..32)
            .map(|b| s(0).map(|x| 1 - (x >> b & 1)))
            .sum::<Result<u32, _>>()?),
        // S_QUADMASK_B32: "tmp = 0U; for i in 0 : 7 do tmp[i] = S0.u32[i * 4
        // +: 4] != 0U endfor; D0.u32 = tmp; SCC = D0.u32 != 0U".
        "s_quadmask_b32" => {
            let x = s(0)?;
            nz((0..8)
                .map(|i| ((x >> (4 * i) & 0xf != 0) as u32) << i)
                .sum())
        }
        // S_WQM_B32: "tmp = 0U; for i in 0 : 31 do tmp[i] = S0.u32[i & 60 +:
        // 4] != 0U endfor; D0.u32 = tmp; SCC = D0.u32 != 0U".
        "s_wqm_b32" => {
            let x = s(0)?;
            nz((0..32)
                .map(|i| ((x >> (i & 60) & 0xf != 0) as u32) << i)
                .sum())
        }
        // S_NAND_B64: "D0.u64 = ~(S0.u64 & S1.u64); SCC = D0.u64 != 0ULL";
        // S_NOR_B32: "D0.u32 = ~(S0.u32 | S1.u32)"; S_NOR_B64, S_XNOR_B64 alike.
        "s_nand_b64" => nz64(!(s64(0)? & s64(1)?)),
        "s_nor_b32" => nz(!(s(0)? | s(1)?)),
        "s_nor_b64" => nz64(!(s64(0)? | s64(1)?)),
        "s_xnor_b64" => nz64(!(s64(0)? ^ s64(1)?)),
        // S_AND_NOT1_B64: "D0.u64 = (S0.u64 & ~S1.u64)"; S_OR_NOT1_B32:
        // "D0.u32 = (S0.u32 | ~S1.u32)"; S_OR_NOT1_B64 alike; SCC = D0 != 0.
        "s_and_not1_b64" => nz64(s64(0)? & !s64(1)?),
        "s_or_not1_b32" => nz(s(0)? | !s(1)?),
        "s_or_not1_b64" => nz64(s64(0)? | !s64(1)?),
        // S_BFM_B64: "D0.u64 = (((1ULL << S0[5 : 0].u32) - 1ULL) << S1[5 :
        // 0].u32)" (SCC unchanged).
        "s_bfm_b64" => R::W64(ones(s(0)? & 63) << (s(1)? & 63), None),
        // S_MOV_B64: "D0.b64 = S0.b64"; S_CMOV_B64: "if SCC then D0.b64 =
        // S0.b64 endif".
        "s_mov_b64" => R::W64(s64(0)?, None),
        "s_cmov_b64" => R::W64(if scc == 1 { s64(0)? } else { old_dst64()? }, None),
        // S_CLZ_I32_U64: "tmp = -1; for i in 0 : 63 do if S0.u64[63 - i] ==
        // 1'1U then tmp = i; break ... D0.i32 = tmp".
        "s_clz_i32_u64" => R::W32(first_one((0..64).map(|k| 63 - k), s64(0)?), None),
        // S_CLS_I32_I64: "tmp = -1; for i in 1 : 63 do if S0.u64[63 - i] !=
        // S0.u64[63] then tmp = i; break ... D0.i32 = tmp".
        "s_cls_i32_i64" => {
            let x = s64(0)?;
            R::W32(
                (1..64)
                    .find(|k| (x >> (63 - k)) & 1 != x >> 63)
                    .unwrap_or(u32::MAX),
                None,
            )
        }
        // S_BITSET0_B64: "D0.u64[S0.u32[5 : 0]] = 1'0U"; _BITSET1: 1'1U.
        "s_bitset0_b64" => R::W64(old_dst64()? & !(1u64 << (s(0)? & 63)), None),
        "s_bitset1_b64" => R::W64(old_dst64()? | 1u64 << (s(0)? & 63), None),
        // S_BCNT0_I32_B64: "tmp = 0; for i in 0 : 63 do tmp += S0.u64[i] ==
        // 1'0U ? 1 : 0 endfor; D0.i32 = tmp; SCC = D0.u64 != 0ULL";
        // S_BCNT1_I32_B64: "... == 1'1U ? 1 : 0".
        "s_bcnt0_i32_b64" => nz((0..64)
            .map(|b| s64(0).map(|x| 1 - (x >> b & 1) as u32))
            .sum::<Result<u32, _>>()?),
        "s_bcnt1_i32_b64" => nz((0..64)
            .map(|b| s64(0).map(|x| (x >> b & 1) as u32))
            .sum::<Result<u32, _>>()?),
        // S_QUADMASK_B64: "for i in 0 : 15 do tmp[i] = S0.u64[i * 4 +: 4] !=
        // 0ULL endfor; D0.u64 = tmp; SCC = D0.u64 != 0ULL".
        "s_quadmask_b64" => {
            let x = s64(0)?;
            nz64(
                (0..16)
                    .map(|i| ((x >> (4 * i) & 0xf != 0) as u64) << i)
                    .sum(),
            )
        }
        // S_WQM_B64: "for i in 6'0U : 6'63U do tmp[i] = S0.u64[i & 6'60U +:
        // 6'4U] != 0ULL endfor; D0.u64 = tmp; SCC = D0.u64 != 0ULL".
        "s_wqm_b64" => {
            let x = s64(0)?;
            nz64(
                (0..64)
                    .map(|i| ((x >> (i & 60) & 0xf != 0) as u64) << i)
                    .sum(),
            )
        }
        // S_NOT_B64: "D0.u64 = ~S0.u64; SCC = D0.u64 != 0ULL".
        "s_not_b64" => nz64(!s64(0)?),
        // The saveexec family, e.g. S_AND_SAVEEXEC_B32: "saveexec = EXEC.u32;
        // EXEC.u32 = (S0.u32 & EXEC.u32); D0.u32 = saveexec.u32; SCC =
        // EXEC.u32 != 0U"; _OR_ "(S0 | EXEC)", _XOR_ "(S0 ^ EXEC)", _NAND_
        // "~(S0 & EXEC)", _NOR_ "~(S0 | EXEC)", _XNOR_ "~(S0 ^ EXEC)",
        // _AND_NOT0_ "(~S0 & EXEC)", _OR_NOT0_ "(~S0 | EXEC)", _AND_NOT1_
        // "(S0 & ~EXEC)", _OR_NOT1_ "(S0 | ~EXEC)"; _B64 on EXEC.u64. The
        // wrexec forms, S_AND_NOT0_WREXEC_B32: "EXEC.u32 = (~S0.u32 &
        // EXEC.u32); D0.u32 = EXEC.u32; SCC = EXEC.u32 != 0U"; _AND_NOT1_
        // "(S0.u32 & ~EXEC.u32)". A _B32 form leaves EXEC_HI alone.
        _ if name.contains("_saveexec_b") || name.contains("_wrexec_b") => {
            let wide = name.ends_with("_b64");
            let width = if wide { u64::MAX } else { 0xffff_ffff };
            let e = m.st.exec & width;
            let x = if wide { s64(0)? } else { s(0)? as u64 };
            let kind = name
                .trim_start_matches("s_")
                .split("_saveexec")
                .next()
                .and_then(|k| k.split("_wrexec").next())
                .unwrap_or("");
            let new = width
                & match kind {
                    "and" => x & e,
                    "or" => x | e,
                    "xor" => x ^ e,
                    "nand" => !(x & e),
                    "nor" => !(x | e),
                    "xnor" => !(x ^ e),
                    "and_not0" => !x & e,
                    "or_not0" => !x | e,
                    "and_not1" => x & !e,
                    "or_not1" => x | !e,
                    other => return Err(format!("no pseudocode for {other} saveexec")),
                };
            exec_after = Some((m.st.exec & !width) | new);
            let d = if name.contains("_wrexec_") { new } else { e };
            if wide {
                R::W64(d, Some(new != 0))
            } else {
                R::W32(d as u32, Some(new != 0))
            }
        }
        // SOPK. S_MOVK_I32: "D0.i32 = 32'I(signext(SIMM16.i16))";
        // S_CMOVK_I32: "if SCC then D0.i32 = 32'I(signext(SIMM16.i16))
        // endif".
        "s_movk_i32" => R::W32(simm16()? as i16 as u32, None),
        "s_cmovk_i32" => R::W32(
            if scc == 1 {
                simm16()? as i16 as u32
            } else {
                old_dst()?
            },
            None,
        ),
        // S_CMPK_EQ_I32: "SCC = 64'I(S0.i32) == signext(SIMM16.i16)" (LG
        // !=, GT >, GE >=, LT <, LE <=); S_CMPK_EQ_U32: "SCC = S0.u32 ==
        // 32'U(SIMM16.u16)" (the immediate zero-extended).
        _ if name.starts_with("s_cmpk_") => {
            let (x, k) = if name.ends_with("_i32") {
                (s(0)? as i32 as i64, simm16()? as i16 as i64)
            } else {
                (s(0)? as i64, simm16()? as i64)
            };
            R::Scc(match &name[7..9] {
                "eq" => x == k,
                "lg" => x != k,
                "gt" => x > k,
                "ge" => x >= k,
                "lt" => x < k,
                "le" => x <= k,
                other => return Err(format!("s_cmpk condition {other}")),
            })
        }
        // S_ADDK_I32: "tmp = D0.i32; D0.i32 = 32'I(64'I(D0.i32) +
        // signext(SIMM16.i16)); SCC = ((tmp[31] == SIMM16.i16[15]) &&
        // (tmp[31] != D0.i32[31]))".
        "s_addk_i32" => {
            let (t, k) = (old_dst()?, simm16()?);
            let d = t.wrapping_add(k as i16 as u32);
            R::W32(d, Some(t >> 31 == (k >> 15) as u32 && t >> 31 != d >> 31))
        }
        // S_MULK_I32: "D0.i32 = 32'I(64'I(D0.i32) * signext(SIMM16.i16))"
        // (SCC unchanged).
        "s_mulk_i32" => R::W32(old_dst()?.wrapping_mul(simm16()? as i16 as u32), None),
        // SOPC: "SCC = S0.i32 == S1.i32" etc.
        "s_cmp_lg_i32" => R::Scc(s(0)? != s(1)?),
        "s_cmp_gt_i32" => R::Scc((s(0)? as i32) > (s(1)? as i32)),
        "s_cmp_le_i32" => R::Scc((s(0)? as i32) <= (s(1)? as i32)),
        "s_cmp_eq_u32" => R::Scc(s(0)? == s(1)?),
        "s_cmp_ge_u32" => R::Scc(s(0)? >= s(1)?),
        "s_cmp_lt_u32" => R::Scc(s(0)? < s(1)?),
        // S_BITCMP0_B32: "SCC = S0.u32[S1.u32[4 : 0]] == 1'0U".
        "s_bitcmp0_b32" => R::Scc(s(0)? >> (s(1)? & 31) & 1 == 0),
        // S_BITCMP1_B64: "SCC = S0.u64[S1.u32[5 : 0]] == 1'1U".
        "s_bitcmp1_b64" => R::Scc(s64(0)? >> (s(1)? & 63) & 1 == 1),
        // S_CMP_EQ_U64: "SCC = S0.u64 == S1.u64".
        "s_cmp_eq_u64" => R::Scc(s64(0)? == s64(1)?),
        "s_cmp_eq_i32" => R::Scc(s(0)? == s(1)?),
        "s_cmp_lt_i32" => R::Scc((s(0)? as i32) < (s(1)? as i32)),
        "s_cmp_gt_u32" => R::Scc(s(0)? > s(1)?),
        "s_cmp_le_u32" => R::Scc(s(0)? <= s(1)?),
        // S_BITCMP1_B32: "SCC = S0.u32[S1.u32[4 : 0]] == 1'1U".
        "s_bitcmp1_b32" => R::Scc(s(0)? >> (s(1)? & 31) & 1 == 1),
        // S_CMP_LG_U64: "SCC = S0.u64 != S1.u64".
        "s_cmp_lg_u64" => R::Scc(s64(0)? != s64(1)?),
        "s_cmp_ge_i32" => R::Scc((s(0)? as i32) >= (s(1)? as i32)),
        "s_cmp_lg_u32" => R::Scc(s(0)? != s(1)?),
        // S_BITCMP0_B64: "SCC = S0.u64[S1.u32[5 : 0]] == 1'0U".
        "s_bitcmp0_b64" => R::Scc(s64(0)? >> (s(1)? & 63) & 1 == 0),
        other => return Err(format!("no pseudocode for {other}")),
    };
    match r {
        R::W32(v, c) => {
            m.ws32(i.dst, v)?;
            if let Some(c) = c {
                m.st.scc = c;
            }
        }
        R::W64(v, c) => {
            match i.dst {
                Some(Opnd::S(n)) => m.ws64(n, v)?,
                other => return Err(format!("{other:?} is not an SGPR pair")),
            }
            if let Some(c) = c {
                m.st.scc = c;
            }
        }
        R::Scc(c) => m.st.scc = c,
    }
    if let Some(e) = exec_after {
        m.st.exec = e;
    }
    Ok(())
}
