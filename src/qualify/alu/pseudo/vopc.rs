//! The vector compares (VOPC and their VOP3 forms), v_cmp and v_cmpx.

use super::Machine;
use crate::isa::alu::{AluInst, Opnd};

pub(super) fn vopc(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    // "D0.u64[laneId] = S0.i32 < S1.i32" etc. (VOPC Instructions);
    // V_CMPX_*: "EXEC.u64[laneId] = ..."; inactive lanes write 0 (guide,
    // "Vector compare").
    let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
    let mut parts = base.split('_');
    let (_, cmp_kind, cond, ty) = (parts.next(), parts.next(), parts.next(), parts.next());
    let (cond, ty) = (cond.unwrap_or(""), ty.unwrap_or(""));
    let s0 = i.srcs.first().copied().ok_or("compare without S0")?;
    let s1 = i.srcs.get(1).copied().ok_or("compare without S1")?;
    let mut res = 0u64;
    for l in 0..m.lanes {
        if !m.active(l) {
            continue;
        }
        let ord = match ty {
            "i32" => (m.r32(s0, l)? as i32).cmp(&(m.r32(s1, l)? as i32)),
            // "D0.u64[laneId] = S0.i16 < S1.i16" etc.: the named halves.
            "i16" => (m.r16(s0, i.src_hi(0), l)? as i16).cmp(&(m.r16(s1, i.src_hi(1), l)? as i16)),
            "u16" => m.r16(s0, i.src_hi(0), l)?.cmp(&m.r16(s1, i.src_hi(1), l)?),
            "u32" => m.r32(s0, l)?.cmp(&m.r32(s1, l)?),
            "i64" => (m.r64(s0, l)? as i64).cmp(&(m.r64(s1, l)? as i64)),
            "u64" => m.r64(s0, l)?.cmp(&m.r64(s1, l)?),
            other => return Err(format!("compare type {other}")),
        };
        use std::cmp::Ordering::*;
        let t = match cond {
            // V_CMP_F_*: "D0.u64[laneId] = 1'0U"; V_CMP_T_*: "= 1'1U".
            "f" => false,
            "t" => true,
            "lt" => ord == Less,
            "eq" => ord == Equal,
            "le" => ord != Greater,
            "gt" => ord == Greater,
            "ne" => ord != Equal,
            "ge" => ord != Less,
            other => return Err(format!("compare condition {other}")),
        };
        res |= (t as u64) << l;
    }
    if cmp_kind == Some("cmpx") {
        m.st.exec = res;
        return Ok(());
    }
    let to = i.dst.unwrap_or(Opnd::Vcc);
    m.wmask(to, res)
}
