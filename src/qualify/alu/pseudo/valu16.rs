//! The 16-bit integer VALU, with true16 `.l`/`.h` halves and CLAMP.

use super::{dst_v, Machine};
use crate::isa::alu::{AluInst, Opnd};

/// Whether `i` is one of the 16-bit integer VALU instructions (an operand
/// or the destination is a 16-bit half).
pub(super) fn is_16bit(i: &AluInst) -> bool {
    use crate::isa::alu::Kind;
    i.op.dst == Kind::V16
        || i.op
            .srcs
            .iter()
            .any(|k| matches!(k, Kind::V16 | Kind::Any16))
        || matches!(i.op.name, "v_cvt_pk_i16_i32" | "v_cvt_pk_u16_u32")
}

/// The 16-bit integer VALU ("VOP3 & VOP3SD Instructions", "VOP1
/// Instructions" of the RDNA3 guide), per active lane. CLAMP:
/// [`POLICY_CLAMP_SATURATES`](crate::qualify::alu::POLICY_CLAMP_SATURATES).
pub(super) fn valu16(m: &mut Machine, i: &AluInst, base: &str) -> Result<(), String> {
    let s = |k: usize| -> Result<Opnd, String> {
        i.srcs
            .get(k)
            .copied()
            .ok_or_else(|| format!("{base}: source {k} missing"))
    };
    let d = dst_v(i.dst)?;
    let mask = if base == "v_cndmask_b16" {
        m.rmask(s(2)?)?
    } else {
        0
    };
    let clamp = i.mods.clamp;
    // Saturation to the destination type when CLAMP is set, else its low bits.
    let u16_of = |x: i64| -> u16 {
        if clamp {
            x.clamp(0, 0xffff) as u16
        } else {
            x as u16
        }
    };
    let i16_of = |x: i64| -> u16 {
        if clamp {
            x.clamp(i16::MIN as i64, i16::MAX as i64) as u16
        } else {
            x as u16
        }
    };
    enum Out {
        Half(u16),
        Whole(u32),
    }
    let mut writes: Vec<(usize, Out)> = Vec::new();
    // v_swap_b16's source register, per lane: (lane, block index, value).
    let mut swaps: Vec<(usize, usize, u32)> = Vec::new();
    for l in 0..m.lanes {
        if !m.active(l) {
            continue;
        }
        let h = |k: usize| -> Result<u16, String> { m.r16(s(k)?, i.src_hi(k), l) };
        let u = |k: usize| -> Result<i64, String> { h(k).map(|x| x as i64) };
        let sg = |k: usize| -> Result<i64, String> { h(k).map(|x| x as i16 as i64) };
        let w32 = |k: usize| -> Result<u32, String> { m.r32(s(k)?, l) };
        let out = match base {
            // V_ADD_NC_U16: "D0.u16 = S0.u16 + S1.u16".
            "v_add_nc_u16" => Out::Half(u16_of(u(0)? + u(1)?)),
            // V_SUB_NC_U16: "D0.u16 = S0.u16 - S1.u16".
            "v_sub_nc_u16" => Out::Half(u16_of(u(0)? - u(1)?)),
            // V_ADD_NC_I16: "D0.i16 = S0.i16 + S1.i16".
            "v_add_nc_i16" => Out::Half(i16_of(sg(0)? + sg(1)?)),
            // V_SUB_NC_I16: "D0.i16 = S0.i16 - S1.i16".
            "v_sub_nc_i16" => Out::Half(i16_of(sg(0)? - sg(1)?)),
            // V_MUL_LO_U16: "D0.u16 = S0.u16 * S1.u16".
            "v_mul_lo_u16" => Out::Half((u(0)? * u(1)?) as u16),
            // V_LSHLREV_B16: "D0.u[15 : 0] = (S1.u[15 : 0] << S0[3 : 0].u)".
            "v_lshlrev_b16" => Out::Half(h(1)? << (h(0)? & 15)),
            // V_LSHRREV_B16: "D0.u[15 : 0] = (S1.u[15 : 0] >> S0[3 : 0].u)".
            "v_lshrrev_b16" => Out::Half(h(1)? >> (h(0)? & 15)),
            // V_ASHRREV_I16: "D0.i[15 : 0] = (S1.i[15 : 0] >> S0[3 : 0].u)".
            "v_ashrrev_i16" => Out::Half(((h(1)? as i16) >> (h(0)? & 15)) as u16),
            // V_MAX_I16: "D0.i16 = S0.i16 >= S1.i16 ? S0.i16 : S1.i16".
            "v_max_i16" => Out::Half(if sg(0)? >= sg(1)? { h(0)? } else { h(1)? }),
            "v_max_u16" => Out::Half(if u(0)? >= u(1)? { h(0)? } else { h(1)? }),
            // V_MIN_I16: "D0.i16 = S0.i16 < S1.i16 ? S0.i16 : S1.i16".
            "v_min_i16" => Out::Half(if sg(0)? < sg(1)? { h(0)? } else { h(1)? }),
            "v_min_u16" => Out::Half(if u(0)? < u(1)? { h(0)? } else { h(1)? }),
            // V_MAD_U16: "D0.u16 = S0.u16 * S1.u16 + S2.u16".
            "v_mad_u16" => Out::Half(u16_of(u(0)? * u(1)? + u(2)?)),
            // V_MAD_I16: "D0.i16 = S0.i16 * S1.i16 + S2.i16".
            "v_mad_i16" => Out::Half(i16_of(sg(0)? * sg(1)? + sg(2)?)),
            // V_MAD_U32_U16: "D0.u = 32'U(S0.u16) * 32'U(S1.u16) + S2.u".
            "v_mad_u32_u16" => {
                let t = u(0)? * u(1)? + w32(2)? as i64;
                Out::Whole(if clamp {
                    t.min(u32::MAX as i64) as u32
                } else {
                    t as u32
                })
            }
            // V_MAD_I32_I16: "D0.i = 32'I(S0.i16) * 32'I(S1.i16) + S2.i".
            "v_mad_i32_i16" => {
                let t = sg(0)? * sg(1)? + w32(2)? as i32 as i64;
                Out::Whole(if clamp {
                    t.clamp(i32::MIN as i64, i32::MAX as i64) as u32
                } else {
                    t as u32
                })
            }
            // V_MAX3_I16: "D0.i16 = v_max_i16(v_max_i16(S0.i16, S1.i16), S2.i16)"; MIN3 alike.
            "v_max3_i16" => Out::Half(sg(0)?.max(sg(1)?).max(sg(2)?) as u16),
            "v_max3_u16" => Out::Half(u(0)?.max(u(1)?).max(u(2)?) as u16),
            "v_min3_i16" => Out::Half(sg(0)?.min(sg(1)?).min(sg(2)?) as u16),
            "v_min3_u16" => Out::Half(u(0)?.min(u(1)?).min(u(2)?) as u16),
            // V_MED3_I16: "if v_max3_i16(S0, S1, S2) == S0 then D0 =
            // v_max_i16(S1, S2) elsif ... == S1 then D0 = v_max_i16(S0, S2)
            // else D0 = v_max_i16(S0, S1)".
            "v_med3_i16" | "v_med3_u16" => {
                let v = if base == "v_med3_i16" {
                    [sg(0)?, sg(1)?, sg(2)?]
                } else {
                    [u(0)?, u(1)?, u(2)?]
                };
                let mx = v[0].max(v[1]).max(v[2]);
                let r = if mx == v[0] {
                    v[1].max(v[2])
                } else if mx == v[1] {
                    v[0].max(v[2])
                } else {
                    v[0].max(v[1])
                };
                Out::Half(r as u16)
            }
            // V_AND_B16: "D0.u16 = (S0.u16 & S1.u16)"; OR, XOR alike.
            "v_and_b16" => Out::Half(h(0)? & h(1)?),
            "v_or_b16" => Out::Half(h(0)? | h(1)?),
            "v_xor_b16" => Out::Half(h(0)? ^ h(1)?),
            // V_NOT_B16: "D0.u16 = ~S0.u16".
            "v_not_b16" => Out::Half(!h(0)?),
            // V_MOV_B16: "D0.b16 = S0.b16".
            "v_mov_b16" => Out::Half(h(0)?),
            // V_CNDMASK_B16: "D0.u16 = VCC.u64[laneId] ? S1.u16 : S0.u16"
            // (VOP3: the mask is S2).
            "v_cndmask_b16" => Out::Half(if mask >> l & 1 == 1 { h(1)? } else { h(0)? }),
            // V_CVT_I32_I16: "D0.i = 32'I(signext(S0.i16))".
            "v_cvt_i32_i16" => Out::Whole(sg(0)? as u32),
            // V_CVT_U32_U16: "D0 = { 16'0, S0.u16 }".
            "v_cvt_u32_u16" => Out::Whole(h(0)? as u32),
            // V_CVT_PK_U16_U32: "D0[15 : 0].u16 = u32_to_u16(S0.u);
            // D0[31 : 16].u16 = u32_to_u16(S1.u)" ([`POLICY_CVT_PK_SATURATES`]).
            "v_cvt_pk_u16_u32" => Out::Whole(w32(0)?.min(0xffff) | w32(1)?.min(0xffff) << 16),
            // V_CVT_PK_I16_I32: "D0[15 : 0].i16 = i32_to_i16(S0.i); D0[31 :
            // 16].i16 = i32_to_i16(S1.i)".
            "v_cvt_pk_i16_i32" => {
                let c = |x: u32| (x as i32).clamp(i16::MIN as i32, i16::MAX as i32) as u16 as u32;
                Out::Whole(c(w32(0)?) | c(w32(1)?) << 16)
            }
            // V_SAT_PK_U8_I16: "SAT8 = lambda(n) (if n.i <= 0 then return
            // 8'0U elsif n >= 16'I(0xff) then return 8'255U else return n[7 :
            // 0].u8 endif); D0.b16 = { SAT8(S0[31 : 16].i16), SAT8(S0[15 :
            // 0].i16) }".
            "v_sat_pk_u8_i16" => {
                let x = w32(0)?;
                let sat8 = |n: i16| -> u16 {
                    if n <= 0 {
                        0
                    } else if n >= 0xff {
                        255
                    } else {
                        n as u16 & 0xff
                    }
                };
                Out::Half(sat8((x >> 16) as i16) << 8 | sat8(x as i16))
            }
            // V_SWAP_B16: "tmp = D0.b16; D0.b16 = S0.b16; S0.b16 = tmp".
            "v_swap_b16" => {
                let Opnd::V(sr) = s(0)? else {
                    return Err("v_swap_b16 without a VGPR source".into());
                };
                let dv = m.r16(Opnd::V(d), i.dst_hi(), l)?;
                let sv = h(0)?;
                writes.push((l, Out::Half(sv)));
                // The source half gets the old destination half; recorded
                // as a whole-register value of the source register below.
                let k = Machine::vidx(sr, "source")?;
                let old = m.st.v[l][k];
                let new = if i.src_hi(0) {
                    (old & 0xffff) | (dv as u32) << 16
                } else {
                    (old & 0xffff_0000) | dv as u32
                };
                swaps.push((l, k, new));
                continue;
            }
            other => return Err(format!("no pseudocode for {other}")),
        };
        writes.push((l, out));
    }
    for (l, k, v) in swaps {
        m.st.v[l][k] = v;
    }
    for (l, out) in writes {
        match out {
            Out::Half(v) => m.w16(d, i.dst_hi(), l, v)?,
            Out::Whole(v) => m.st.v[l][Machine::vidx(d, "destination")?] = v,
        }
    }
    Ok(())
}
