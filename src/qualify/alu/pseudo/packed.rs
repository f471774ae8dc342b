//! The packed integer ops (VOP3P), the dot products, v_maxmin/v_minmax,
//! the lane permutes and the quad SADs.

use super::{dst_v, Machine};
use crate::isa::alu::{AluInst, Opnd};

/// The packed integer ops, dot products, v_maxmin/v_minmax, lane permutes
/// and quad SADs, from the guide's pseudocode ("VOP3P Instructions", "VOP3
/// & VOP3SD Instructions", "VOP1 Instructions"); None for other names.
///
/// Where the guide is silent (restating `emu::vext`'s named policies): a
/// packed source is its 32-bit value (integer inline constants
/// sign-extended to 32 bits), the low result half takes source k's half
/// `op_sel[k]`, the high half its half `op_sel_hi[k]` ("packed-halves");
/// clamp on v_pk_{add,sub} saturates each half ("packed-clamp"), on a dot
/// product the exact sum ("dot-clamp"); a v_permlane*16 source lane that is
/// inactive, with fetch-inactive clear, gives 0 under bound-ctrl and leaves
/// the lane alone otherwise ("permlane-inactive-source"); v_permlane64 in
/// wave32 does nothing ("permlane64-wave32-nop", the guide's words).
pub(super) fn packed_and_lanes(
    m: &mut Machine,
    i: &AluInst,
    name: &str,
) -> Option<Result<(), String>> {
    let known = name.starts_with("v_pk_")
        || name.starts_with("v_dot")
        || name.starts_with("v_permlane")
        || name.starts_with("v_maxmin")
        || name.starts_with("v_minmax")
        || name.contains("qsad");
    known.then(|| packed_and_lanes_run(m, i, name))
}

fn packed_and_lanes_run(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    let d = dst_v(i.dst)?;
    let writes = if name.starts_with("v_permlane") {
        permlane(m, i, name)?
    } else {
        let mut writes = Vec::new();
        for l in (0..m.lanes).filter(|&l| m.active(l)) {
            lane_op(m, i, name, l, &mut writes)?;
        }
        writes
    };
    for (l, k, v) in writes {
        m.st.v[l][Machine::vidx(d + k, "destination")?] = v;
    }
    Ok(())
}

/// One result: (lane, VGPR offset from VDST, value). All are computed
/// before any is written, as the sources are read before VDST changes.
type Write = (usize, u8, u32);

/// Source operand `k` of `i`.
fn src(i: &AluInst, name: &str, k: usize) -> Result<Opnd, String> {
    i.srcs
        .get(k)
        .copied()
        .ok_or_else(|| format!("{name}: source {k} missing"))
}

/// v_permlane64/16/x16: every active lane's result from another lane's
/// VGPR, per the guide's pseudocode.
fn permlane(m: &Machine, i: &AluInst, name: &str) -> Result<Vec<Write>, String> {
    let lanes = m.lanes;
    let mut writes = Vec::new();
    let s0 = match src(i, name, 0)? {
        Opnd::V(n) => Machine::vidx(n, "source")?,
        other => return Err(format!("{name}: src0 {other:?} is not a VGPR")),
    };
    // "for i in 0 : WAVE32 ? 31 : 63 do tmp[i] = VGPR[i][SRC0.u32]".
    let tmp: Vec<u32> = (0..lanes).map(|l| m.st.v[l][s0]).collect();
    if name == "v_permlane64_b32" {
        // "if WAVE32 then s_nop(16'0U) else ... altlane = { ~lane[5],
        // lane[4 : 0] }; if EXEC[lane].u1 then VGPR[lane][VDST.u32] =
        // tmp[altlane]".
        if m.wave64 {
            for l in (0..lanes).filter(|&l| m.active(l)) {
                let alt = (l & 31) | (!l & 32);
                writes.push((l, 0, tmp[alt]));
            }
        }
        return Ok(writes);
    }
    // "lanesel = { S2.u32, S1.u32 }; ... if EXEC[row * 16 + i].u1 then
    // VGPR[row * 16 + i][VDST.u32] = tmp[64'B(row * 16) +
    // lanesel[i * 4 + 3 : i * 4]]"; permlanex16: "altrow = { row[1],
    // ~row[0] }".
    let lanesel = (m.r32(src(i, name, 2)?, 0)? as u64) << 32 | m.r32(src(i, name, 1)?, 0)? as u64;
    let fetch_inactive = i.mods.op_sel & 1 != 0;
    let bound_ctrl = i.mods.op_sel & 2 != 0;
    for row in 0..lanes / 16 {
        let from = if name == "v_permlanex16_b32" {
            (row & 2) | (!row & 1)
        } else {
            row
        };
        for k in 0..16 {
            let l = row * 16 + k;
            if !m.active(l) {
                continue;
            }
            let sel = from * 16 + ((lanesel >> (4 * k)) & 15) as usize;
            if fetch_inactive || m.active(sel) {
                writes.push((l, 0, tmp[sel]));
            } else if bound_ctrl {
                writes.push((l, 0, 0));
            }
        }
    }
    Ok(writes)
}

/// The per-lane ops (packed, dot, v_maxmin/v_minmax, quad SADs) on active
/// lane `l`.
fn lane_op(
    m: &Machine,
    i: &AluInst,
    name: &str,
    l: usize,
    writes: &mut Vec<Write>,
) -> Result<(), String> {
    let mods = i.mods;
    let a = |k: usize| -> Result<u32, String> { m.r32(src(i, name, k)?, l) };
    match name {
        _ if name.starts_with("v_pk_") => {
            // Source k's two halves as the low and the high result half see them.
            let n = i.srcs.len();
            let mut lo = [0u32; 3];
            let mut hi = [0u32; 3];
            for k in 0..n {
                let v = a(k)?;
                let half = |sel: bool| if sel { v >> 16 } else { v & 0xffff };
                lo[k] = half(mods.op_sel >> k & 1 == 1);
                hi[k] = half(mods.op_sel_hi >> k & 1 == 1);
            }
            let r_lo = pk_half(name, mods.clamp, lo)?;
            let r_hi = pk_half(name, mods.clamp, hi)?;
            writes.push((l, 0, (r_lo & 0xffff) | (r_hi & 0xffff) << 16));
        }
        _ if name.starts_with("v_dot") => writes.push((l, 0, dot(i, name, [a(0)?, a(1)?, a(2)?]))),
        // "D0.i32 = v_min_i32(v_max_i32(S0.i32, S1.i32), S2.i32)".
        "v_maxmin_i32" => {
            let r = std::cmp::min(std::cmp::max(a(0)? as i32, a(1)? as i32), a(2)? as i32);
            writes.push((l, 0, r as u32));
        }
        // "D0.u32 = v_min_u32(v_max_u32(S0.u32, S1.u32), S2.u32)".
        "v_maxmin_u32" => writes.push((l, 0, a(0)?.max(a(1)?).min(a(2)?))),
        // "D0.i32 = v_max_i32(v_min_i32(S0.i32, S1.i32), S2.i32)".
        "v_minmax_i32" => {
            let r = std::cmp::max(std::cmp::min(a(0)? as i32, a(1)? as i32), a(2)? as i32);
            writes.push((l, 0, r as u32));
        }
        // "D0.u32 = v_max_u32(v_min_u32(S0.u32, S1.u32), S2.u32)".
        "v_minmax_u32" => writes.push((l, 0, a(0)?.min(a(1)?).max(a(2)?))),
        _ => qsad(m, i, name, l, writes)?,
    }
    Ok(())
}

/// v_dot4/v_dot8 (u8/u4, and the _iu forms whose NEG bits sign the
/// fields): "tmp = S2; tmp += A[i] * B[i]", then the clamp policy.
fn dot(i: &AluInst, name: &str, [s0, s1, s2]: [u32; 3]) -> u32 {
    let mods = i.mods;
    let (width, count) = if name.starts_with("v_dot4") {
        (8, 4)
    } else {
        (4, 8)
    };
    let iu = name.contains("_iu");
    let field = |x: u32, k: u32, signed: bool| -> i64 {
        let f = (x >> (k * width)) & ((1 << width) - 1);
        if signed && f >> (width - 1) == 1 {
            f as i64 - (1i64 << width)
        } else {
            f as i64
        }
    };
    // "A[i] = NEG[0].u1 ? 32'I(signext(A8.i8)) : 32'I(32'U(A8.u8))".
    let (sa, sb) = (iu && mods.neg_lo & 1 == 1, iu && mods.neg_lo & 2 == 2);
    // "C = S2.i32" (iu) / "tmp = S2.u32".
    let mut t: i64 = if iu { s2 as i32 as i64 } else { s2 as i64 };
    for k in 0..count {
        // "tmp += A[i] * B[i]".
        t += field(s0, k, sa) * field(s1, k, sb);
    }
    if !mods.clamp {
        t as u32
    } else if iu {
        t.max(i32::MIN as i64).min(i32::MAX as i64) as i32 as u32
    } else {
        t.max(0).min(u32::MAX as i64) as u32
    }
}

/// The quad SADs on lane `l`.
///
/// V_QSAD_PK_U16_U8: "tmp[15 : 0] = 16'B(v_sad_u8(S0[31 : 0], S1[31 : 0],
/// S2[15 : 0].u32)); tmp[31 : 16] = ...(S0[39 : 8], ..., S2[31 : 16]); ...
/// D0.b64 = tmp.b64"; V_MQSAD_PK_U16_U8 with v_msad_u8 ("S1.u32[7 : 0] ==
/// 8'0U ? 0U : ABSDIFF(...)"); V_MQSAD_U32_U8: 32-bit fields,
/// "S2[127 : 96]", "D0.b128".
fn qsad(
    m: &Machine,
    i: &AluInst,
    name: &str,
    l: usize,
    writes: &mut Vec<Write>,
) -> Result<(), String> {
    let s0 = m.r64(src(i, name, 0)?, l)?;
    let s1 = m.r32(src(i, name, 1)?, l)?;
    let msad = name != "v_qsad_pk_u16_u8";
    let wide = name == "v_mqsad_u32_u8";
    let acc = |k: usize| -> Result<u32, String> {
        if wide {
            match src(i, name, 2)? {
                Opnd::V(n) => Ok(m.st.v[l][Machine::vidx(n + k as u8, "source")?]),
                other => Err(format!("{name}: S2 {other:?} is not a VGPR quad")),
            }
        } else {
            Ok((m.r64(src(i, name, 2)?, l)? >> (16 * k)) as u32 & 0xffff)
        }
    };
    let mut fields = [0u32; 4];
    for (k, f) in fields.iter_mut().enumerate() {
        let window = (s0 >> (8 * k)) as u32;
        let mut t = acc(k)?;
        for b in 0..4 {
            let x = (window >> (8 * b)) & 0xff;
            let y = (s1 >> (8 * b)) & 0xff;
            if msad && y == 0 {
                continue;
            }
            t = t.wrapping_add(x.abs_diff(y));
        }
        *f = if wide { t } else { t & 0xffff };
    }
    if wide {
        for (k, f) in fields.iter().enumerate() {
            writes.push((l, k as u8, *f));
        }
    } else {
        writes.push((l, 0, fields[0] | fields[1] << 16));
        writes.push((l, 1, fields[2] | fields[3] << 16));
    }
    Ok(())
}

/// One 16-bit result half of a packed op, from the half's sources `s`
/// (each 0..=0xffff): "tmp[15 : 0].i16 = S0[15 : 0].i16 + S1[15 : 0].i16"
/// and the like.
fn pk_half(name: &str, clamp: bool, s: [u32; 3]) -> Result<u32, String> {
    let i = |x: u32| x as u16 as i16 as i64;
    let u = |x: u32| x as i64;
    let sat = |v: i64, lo: i64, hi: i64| if clamp { v.max(lo).min(hi) } else { v };
    let (si, su) = ((-32768, 32767), (0, 65535));
    Ok(match name {
        "v_pk_mad_i16" => i(s[0]) * i(s[1]) + i(s[2]),
        "v_pk_mad_u16" => u(s[0]) * u(s[1]) + u(s[2]),
        "v_pk_mul_lo_u16" => u(s[0]) * u(s[1]),
        "v_pk_add_i16" => sat(i(s[0]) + i(s[1]), si.0, si.1),
        "v_pk_sub_i16" => sat(i(s[0]) - i(s[1]), si.0, si.1),
        "v_pk_add_u16" => sat(u(s[0]) + u(s[1]), su.0, su.1),
        "v_pk_sub_u16" => sat(u(s[0]) - u(s[1]), su.0, su.1),
        // "(S1[15 : 0].u16 << S0.u32[3 : 0].u32)".
        "v_pk_lshlrev_b16" => u(s[1]) << (s[0] & 15),
        "v_pk_lshrrev_b16" => u(s[1]) >> (s[0] & 15),
        // "(S1[15 : 0].i16 >> S0.u32[3 : 0].u32)".
        "v_pk_ashrrev_i16" => i(s[1]) >> (s[0] & 15),
        // "S0 >= S1 ? S0 : S1" / "S0 < S1 ? S0 : S1".
        "v_pk_max_i16" => i(s[0]).max(i(s[1])),
        "v_pk_min_i16" => i(s[0]).min(i(s[1])),
        "v_pk_max_u16" => u(s[0]).max(u(s[1])),
        "v_pk_min_u16" => u(s[0]).min(u(s[1])),
        other => return Err(format!("no pseudocode for {other}")),
    } as u32
        & 0xffff)
}
