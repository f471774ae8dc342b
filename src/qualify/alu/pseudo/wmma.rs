//! The integer WMMAs.

use super::{sext, Machine};
use crate::isa::alu::{AluInst, Opnd};

/// The integer WMMAs, from the RDNA3 guide: the pseudocode
/// (V_WMMA_I32_16X16X16_IU8: "saved_exec = EXEC; EXEC = 64'B(-1); eval
/// "D0.i32(16x16) = S0.iu8(16x16) * S1.iu8(16x16) + S2.i32(16x16)"; EXEC =
/// saved_exec"; IU4 with `iu4`) and §7.9's VGPR views, read from the
/// register side: lane m of A's VGPRs holds row m of A ("A Matrix: VGPR
/// View for Wave32 – Column Major"), its 16 K elements packed from bit 0 of
/// the first VGPR up, 8 or 4 bits each; lane n of B's holds column n of B
/// the same way; VGPR v of C/D holds rows (lanes / 16) * v + lane / 16,
/// column lane % 16 ("one VGPR holds 2 rows"; "Wave64: ... V0 holds rows
/// 0-3"); "NEG[1:0] ... whether the inputs are signed or not (0=unsigned,
/// 1=signed)", NEG[0] for A, NEG[1] for B. Restating `emu::wmma`'s policies
/// where the guide is silent or disagrees: every lane is written
/// ("wmma-exec-all-lanes", the pseudocode's EXEC = -1); clamp saturates the
/// exact sum to i32, without it the sum wraps ("wmma-clamp-saturates";
/// §7.2.3.1 says WMMA ignores clamp, LLVM encodes its intrinsic's clamp
/// there); copies of A/B that differ across the 16-lane groups are an
/// error ("wmma-unreplicated-error"), as is D overlapping A, B or
/// (without being it) C ("wmma-overlap-error").
pub(super) fn wmma(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    let bits: usize = if name.ends_with("iu8") { 8 } else { 4 };
    let ab_regs = 16 * bits / 32;
    let cd_regs = 16 * 16 / m.lanes;
    let rows_per_vgpr = m.lanes / 16;
    let vgpr = |o: Option<&Opnd>, what: &str| match o {
        Some(Opnd::V(n)) => Ok(*n as usize),
        other => Err(format!("{name}: {what} is {other:?}, not a VGPR")),
    };
    let (a, b) = (vgpr(i.srcs.first(), "A")?, vgpr(i.srcs.get(1), "B")?);
    let d = match i.dst {
        Some(Opnd::V(n)) => n as usize,
        other => return Err(format!("{name}: D is {other:?}")),
    };
    let c = i.srcs.get(2).copied().ok_or(format!("{name}: no C"))?;
    let inter = |x: usize, nx: usize, y: usize, ny: usize| x < y + ny && y < x + nx;
    let c_bad =
        matches!(c, Opnd::V(n) if n as usize != d && inter(n as usize, cd_regs, d, cd_regs));
    if inter(a, ab_regs, d, cd_regs) || inter(b, ab_regs, d, cd_regs) || c_bad {
        return Err(format!("{name}: D overlaps A, B or C (wmma-overlap-error)"));
    }
    let reg = |m: &Machine, r: usize, l: usize| -> Result<u32, String> {
        Ok(m.st.v[l][Machine::vidx(r as u8, "operand")?])
    };
    // A[row][k] and B[k][col] as signed/unsigned values, from lanes 0-15,
    // after checking every other lane holds the same (the replication).
    let signed = [i.mods.neg_lo & 1 == 1, i.mods.neg_lo & 2 == 2];
    let mut mat = [[[0i64; 16]; 16]; 2];
    for (which, base) in [a, b].into_iter().enumerate() {
        for r in 0..ab_regs {
            for l in 16..m.lanes {
                if reg(m, base + r, l)? != reg(m, base + r, l % 16)? {
                    return Err(format!(
                        "{name}: v{} lane {l} is not a copy of lane {} (wmma-unreplicated-error)",
                        base + r,
                        l % 16
                    ));
                }
            }
            // Lane `mn` of the first 16: row mn of A, column mn of B.
            for mn in 0..16usize {
                let word = reg(m, base + r, mn)?;
                for e in 0..32 / bits {
                    let k = r * (32 / bits) + e;
                    let field = (word as u64 >> (e * bits)) & ((1 << bits) - 1);
                    let v = if signed[which] {
                        sext(field, bits as u32)
                    } else {
                        field as i64
                    };
                    let (row, col) = if which == 0 { (mn, k) } else { (k, mn) };
                    mat[which][row][col] = v;
                }
            }
        }
    }
    let mut writes = Vec::new();
    for v in 0..cd_regs {
        for l in 0..m.lanes {
            let (row, col) = (v * rows_per_vgpr + l / 16, l % 16);
            let acc = match c {
                Opnd::V(n) => reg(m, n as usize + v, l)? as i32 as i64,
                Opnd::Int(k) => k as i64,
                other => return Err(format!("{name}: C is {other:?}")),
            };
            let sum: i64 = acc
                + (0..16)
                    .map(|k| mat[0][row][k] * mat[1][k][col])
                    .sum::<i64>();
            let r = if i.mods.clamp {
                sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
            } else {
                sum as u32
            };
            writes.push((l, d + v, r));
        }
    }
    for (l, r, val) in writes {
        m.st.v[l][Machine::vidx(r as u8, "destination")?] = val;
    }
    Ok(())
}
