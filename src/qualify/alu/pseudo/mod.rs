//! The pseudocode of the ALU corpus, written from the RDNA3 ISA guide's
//! instruction descriptions (quoted at each op) and independent of `emu`
//! and `model`: [`run_pseudocode`] runs a program on a register block.
//! One file per family: `salu` (SOP1, SOP2, SOPC, SOPK), `valu` (VOP1,
//! VOP2, VOP3/VOP3SD on 32 and 64 bits, VOPD, the lane reads and writes),
//! `valu16` (the 16-bit integer VALU with true16 halves), `vopc` (the
//! compares), `packed` (VOP3P, dot products, lane permutes, quad SADs) and
//! `wmma` (the integer WMMAs). The policies it follows where the guide is
//! silent are named in the `alu` module text.

use super::{wave_mask, AluState, BLOCK, S_BASE, V_BASE};
use crate::isa::alu::{AluInst, Opnd, ProgramInst};

mod packed;
mod salu;
mod valu;
mod valu16;
mod vopc;
mod wmma;

struct Machine<'a> {
    st: &'a mut AluState,
    wave64: bool,
    lanes: usize,
}

impl Machine<'_> {
    fn vidx(n: u8, what: &str) -> Result<usize, String> {
        let i = n.wrapping_sub(V_BASE) as usize;
        if i < BLOCK {
            Ok(i)
        } else {
            Err(format!("{what} v{n} is outside the block v16..v23"))
        }
    }
    fn sidx(n: u8, what: &str) -> Result<usize, String> {
        let i = n.wrapping_sub(S_BASE) as usize;
        if i < BLOCK {
            Ok(i)
        } else {
            Err(format!("{what} s{n} is outside the block s32..s39"))
        }
    }
    /// S0.u32 of lane `l`.
    fn r32(&self, o: Opnd, l: usize) -> Result<u32, String> {
        Ok(match o {
            Opnd::V(n) => self.st.v[l][Self::vidx(n, "source")?],
            Opnd::S(n) => self.st.s[Self::sidx(n, "source")?],
            Opnd::Vcc => self.st.vcc as u32,
            // Integer inline constants: the value, as a 32-bit two's
            // complement (guide "Scalar operands", inline constants).
            Opnd::Int(n) => n as i32 as u32,
            Opnd::Lit(v) => v,
            // Only the split waitcnts' field takes it, none in the corpus.
            Opnd::Null => return Err("a null operand is not in the corpus".into()),
        })
    }
    /// S0.u64 of lane `l`: a register pair, or a constant sign-extended to
    /// 64 bits (guide: integer inline constants are sign-extended for
    /// 64-bit operands).
    fn r64(&self, o: Opnd, l: usize) -> Result<u64, String> {
        Ok(match o {
            Opnd::V(n) => {
                let i = Self::vidx(n, "source")?;
                Self::vidx(n + 1, "source")?;
                self.st.v[l][i] as u64 | (self.st.v[l][i + 1] as u64) << 32
            }
            Opnd::S(n) => {
                let i = Self::sidx(n, "source")?;
                Self::sidx(n + 1, "source")?;
                self.st.s[i] as u64 | (self.st.s[i + 1] as u64) << 32
            }
            Opnd::Vcc => self.st.vcc,
            Opnd::Int(n) => n as i64 as u64,
            Opnd::Lit(_) => return Err("a literal in a 64-bit operand is not in the corpus".into()),
            Opnd::Null => return Err("a null operand is not in the corpus".into()),
        })
    }
    /// S0.u16 of lane `l`: half `hi` of a VGPR; the low 16 bits of an
    /// SGPR, inline constant or literal (guide, "16-bit operands").
    fn r16(&self, o: Opnd, hi: bool, l: usize) -> Result<u16, String> {
        let x = self.r32(o, l)?;
        Ok(match o {
            Opnd::V(_) if hi => (x >> 16) as u16,
            _ => x as u16,
        })
    }
    /// Write a 16-bit result to half `hi` of VGPR `d` in lane `l`; the other
    /// half keeps its value ([`POLICY_D16_KEEPS_OTHER_HALF`](super::POLICY_D16_KEEPS_OTHER_HALF)).
    fn w16(&mut self, d: u8, hi: bool, l: usize, v: u16) -> Result<(), String> {
        let k = Self::vidx(d, "destination")?;
        let old = self.st.v[l][k];
        self.st.v[l][k] = if hi {
            (old & 0x0000_ffff) | (v as u32) << 16
        } else {
            (old & 0xffff_0000) | v as u32
        };
        Ok(())
    }
    /// A lane mask operand: 32 bits in wave32, 64 in wave64.
    fn rmask(&self, o: Opnd) -> Result<u64, String> {
        if self.wave64 {
            self.r64(o, 0)
        } else {
            self.r32(o, 0).map(u64::from)
        }
    }
    fn wmask(&mut self, o: Opnd, m: u64) -> Result<(), String> {
        match o {
            Opnd::Vcc if self.wave64 => self.st.vcc = m,
            // Wave32: VCC_LO only; VCC_HI keeps its value.
            Opnd::Vcc => self.st.vcc = (self.st.vcc & !0xffff_ffff) | (m & 0xffff_ffff),
            Opnd::S(n) if self.wave64 => self.ws64(n, m)?,
            Opnd::S(n) => self.st.s[Self::sidx(n, "destination")?] = m as u32,
            other => return Err(format!("{other:?} is not a mask destination")),
        }
        Ok(())
    }
    fn ws32(&mut self, o: Option<Opnd>, v: u32) -> Result<(), String> {
        match o {
            Some(Opnd::S(n)) => self.st.s[Self::sidx(n, "destination")?] = v,
            other => return Err(format!("{other:?} is not an SGPR destination")),
        }
        Ok(())
    }
    fn ws64(&mut self, n: u8, v: u64) -> Result<(), String> {
        let i = Self::sidx(n, "destination")?;
        Self::sidx(n + 1, "destination")?;
        self.st.s[i] = v as u32;
        self.st.s[i + 1] = (v >> 32) as u32;
        Ok(())
    }
    fn active(&self, l: usize) -> bool {
        self.st.exec >> l & 1 == 1
    }
    fn exec(&self) -> u64 {
        self.st.exec & wave_mask(self.lanes as u32)
    }
}

fn dst_v(o: Option<Opnd>) -> Result<u8, String> {
    match o {
        Some(Opnd::V(n)) => Ok(n),
        other => Err(format!("{other:?} is not a VGPR destination")),
    }
}

fn sext(x: u64, from_bits: u32) -> i64 {
    if from_bits == 0 {
        0
    } else if from_bits >= 64 {
        x as i64
    } else {
        ((x << (64 - from_bits)) as i64) >> (64 - from_bits)
    }
}

/// `(1 << w) - 1` at 64 bits, all ones from 64 on ([`POLICY_WIDE_MASK`](super::POLICY_WIDE_MASK)).
fn ones(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Unsigned bit-field extract at `bits` (32 or 64):
/// `D = ((S0 >> offset) & ((1 << width) - 1))`.
fn bfe_u(x: u64, off: u32, width: u32, bits: u32) -> u64 {
    (x >> off) & ones(width) & ones(bits)
}

/// Signed bit-field extract at `bits`:
/// `tmp = ((S0.i >> offset) & ((1 << width) - 1)); D = signext_from_bit(tmp, width)`.
/// `S0.i >> offset` is an arithmetic shift of the signed value, so a field
/// that runs past the top bit reads copies of the sign bit.
fn bfe_i(x: u64, off: u32, width: u32, bits: u32) -> u64 {
    let s = sext(x, bits) >> off;
    let tmp = (s as u64) & ones(width);
    (sext(tmp, width.min(64)) as u64) & ones(bits)
}

/// Run `insts` on `st` by the guide's pseudocode (`wave64`: the wave size).
pub fn run_pseudocode(
    insts: &[ProgramInst],
    st: &mut AluState,
    wave64: bool,
) -> Result<(), String> {
    let lanes = st.v.len();
    for inst in insts {
        let mut m = Machine {
            st: &mut *st,
            wave64,
            lanes,
        };
        match inst {
            ProgramInst::One(i) => one(&mut m, i)?,
            ProgramInst::Dual(x, y) => valu::dual(&mut m, x, y)?,
        }
    }
    Ok(())
}

/// One instruction, handed to its family.
fn one(m: &mut Machine, i: &AluInst) -> Result<(), String> {
    let name = i.op.name;
    if name.starts_with("s_") {
        return salu::salu(m, i, name);
    }
    if name.starts_with("v_cmp") {
        return vopc::vopc(m, i, name);
    }
    if name.starts_with("v_wmma_") {
        return wmma::wmma(m, i, name);
    }
    if let Some(r) = packed::packed_and_lanes(m, i, name) {
        return r;
    }
    let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
    if valu16::is_16bit(i) {
        return valu16::valu16(m, i, base);
    }
    if let Some(r) = valu::lanes_and_swap(m, i, base) {
        return r;
    }
    valu::valu32(m, i, base)
}

/// "tmp = -1; for i in 0 : 31 do if S0.u32[bit(i)] == 1'1U then tmp = i;
/// break": the iteration index `i` of the first one, where `order` lists
/// bit(i) (bit i for CTZ, bit 31 - i for CLZ; 0 : 63 for S_CTZ_I32_B64);
/// -1 (all ones) for 0.
fn first_one(order: impl Iterator<Item = u32>, x: impl Into<u64>) -> u32 {
    let x = x.into();
    order
        .enumerate()
        .find(|(_, b)| x >> b & 1 == 1)
        .map_or(u32::MAX, |(k, _)| k as u32)
}

/// `32'F(S0[8k + 7 : 8k].u32)`: byte `k` of `x`, as an f32's bits.
fn ubyte_f32(x: u32, k: u32) -> u32 {
    (((x >> (8 * k)) & 0xff) as f32).to_bits()
}

/// V_CLS_I32 / S_CLS_I32: "tmp = -1; for i in 1 : 31 do if S0.u32[31 - i]
/// != S0.u32[31] then tmp = i; break".
fn cls_i32(x: u32) -> u32 {
    (1..32)
        .find(|k| (x >> (31 - k)) & 1 != x >> 31)
        .unwrap_or(u32::MAX)
}

/// V_MED3_I32 (and _U32 on unsigned values): "if v_max3_i32(S0, S1, S2) ==
/// S0 then D0 = v_max_i32(S1, S2) elsif v_max3_i32(S0, S1, S2) == S1 then
/// D0 = v_max_i32(S0, S2) else D0 = v_max_i32(S0, S1) endif".
fn med3<T: Ord + Copy>(x: T, y: T, z: T) -> T {
    let max3 = x.max(y).max(z);
    if max3 == x {
        y.max(z)
    } else if max3 == y {
        x.max(z)
    } else {
        x.max(y)
    }
}

/// V_SAD_U8's sum of byte differences (without S2); `masked`: V_MSAD_U8,
/// which skips the bytes where S1's byte is 0.
fn sad_u8(x: u32, y: u32, masked: bool) -> u32 {
    (0..4)
        .map(|k| {
            let (bx, by) = (x >> (8 * k) & 0xff, y >> (8 * k) & 0xff);
            if masked && by == 0 {
                0
            } else {
                bx.abs_diff(by)
            }
        })
        .sum()
}

/// The guide's BYTE_PERMUTE(data, sel) of V_PERM_B32: "if sel >= 13 then
/// 0xff; elsif sel == 12 then 0x0; elsif sel == 11 then data[63 : 56].i8
/// sign-replicated (0xff or 0); sel == 10: data[47 : 40]'s; sel == 9:
/// data[31 : 24]'s; sel == 8: data[15 : 8]'s; else data[sel * 8 + 7 :
/// sel * 8]".
fn byte_permute(data: u64, sel: u32) -> u32 {
    let sign = |bit: u32| if data >> bit & 1 == 1 { 0xff } else { 0 };
    match sel {
        13.. => 0xff,
        12 => 0,
        11 => sign(63),
        10 => sign(47),
        9 => sign(31),
        8 => sign(15),
        _ => (data >> (8 * sel) & 0xff) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qualify::alu::BLOCK;

    fn state(lanes: usize) -> AluState {
        AluState {
            v: vec![[0; BLOCK]; lanes],
            s: [0; BLOCK],
            vcc: 0,
            exec: wave_mask(lanes as u32),
            scc: false,
        }
    }

    fn run(text: &str, dst: Option<Opnd>, sdst: Option<Opnd>, srcs: Vec<Opnd>, st: &mut AluState) {
        let i = AluInst::new(text, dst, sdst, srcs).unwrap();
        run_pseudocode(&[ProgramInst::One(i)], st, st.v.len() == 64).unwrap();
    }

    /// Values worked out by hand from the guide's pseudocode.
    #[test]
    fn bit_field_extracts_past_bit_31() {
        let mut st = state(32);
        st.v[0][1] = 0x8000_0000;
        let (d, s) = (Some(Opnd::V(16)), Opnd::V(17));
        // (S0.i32 >> 28) = 0xfffffff8; & 0xff = 0xf8; sign bit 7 set.
        run(
            "v_bfe_i32",
            d,
            None,
            vec![s, Opnd::Int(28), Opnd::Int(8)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 0xffff_fff8);
        run(
            "v_bfe_u32",
            d,
            None,
            vec![s, Opnd::Int(28), Opnd::Int(8)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 0x8);
        // Width 0 is 0 (and SCC 0); a 7-bit width past 32 keeps every bit.
        st.s[1] = 0xf000_0000;
        run(
            "s_bfe_i32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::S(33), Opnd::Lit(4)],
            &mut st,
        );
        assert_eq!((st.s[0], st.scc), (0, false));
        run(
            "s_bfe_u32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::S(33), Opnd::Lit(4 | 40 << 16)],
            &mut st,
        );
        assert_eq!((st.s[0], st.scc), (0x0f00_0000, true));
        run(
            "s_bfe_i32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::S(33), Opnd::Lit(4 | 40 << 16)],
            &mut st,
        );
        assert_eq!(st.s[0], 0xff00_0000);
    }

    #[test]
    fn carries_and_counts() {
        let mut st = state(32);
        st.exec = 0b101;
        for l in 0..3 {
            st.v[l][1] = 1;
            st.v[l][2] = 2;
        }
        // 1 - 2 borrows; lane 1 is inactive: its carry bit is 0.
        run(
            "v_sub_co_u32",
            Some(Opnd::V(16)),
            Some(Opnd::S(34)),
            vec![Opnd::V(17), Opnd::V(18)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 0xffff_ffff);
        assert_eq!(st.v[1][0], 0);
        assert_eq!(st.s[2], 0b101);
        // S_SUBB_U32: 0 - 0 - SCC.
        st.scc = true;
        run(
            "s_subb_u32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::Int(0), Opnd::Int(0)],
            &mut st,
        );
        assert_eq!((st.s[0], st.scc), (0xffff_ffff, true));
        // V_MAD_U64_U32: (2^32 - 1)^2 + (2^64 - 1) carries out of bit 63.
        st.v[0][1] = u32::MAX;
        st.v[0][2] = u32::MAX;
        st.v[0][4] = u32::MAX;
        st.v[0][5] = u32::MAX;
        run(
            "v_mad_u64_u32",
            Some(Opnd::V(22)),
            Some(Opnd::Vcc),
            vec![Opnd::V(17), Opnd::V(18), Opnd::V(20)],
            &mut st,
        );
        assert_eq!((st.v[0][6], st.v[0][7]), (0, 0xffff_fffe));
        assert_eq!(st.vcc & 1, 1);
        // CLS/CLZ/CTZ: -1 when there is nothing to find.
        for (x, cls, clz, ctz) in [
            (0u32, u32::MAX, u32::MAX, u32::MAX),
            (u32::MAX, u32::MAX, 0, 0),
            (1, 31, 31, 0),
            (0x4000_0000, 1, 1, 30),
        ] {
            st.v[0][1] = x;
            run(
                "v_cls_i32_e32",
                Some(Opnd::V(16)),
                None,
                vec![Opnd::V(17)],
                &mut st,
            );
            assert_eq!(st.v[0][0], cls, "cls {x:#x}");
            run(
                "v_clz_i32_u32_e32",
                Some(Opnd::V(16)),
                None,
                vec![Opnd::V(17)],
                &mut st,
            );
            assert_eq!(st.v[0][0], clz, "clz {x:#x}");
            run(
                "v_ctz_i32_b32_e32",
                Some(Opnd::V(16)),
                None,
                vec![Opnd::V(17)],
                &mut st,
            );
            assert_eq!(st.v[0][0], ctz, "ctz {x:#x}");
        }
    }

    #[test]
    fn wave32_compares_write_vcc_lo_and_zero_inactive_lanes() {
        let mut st = state(32);
        st.vcc = 0xdead_beef_ffff_ffff;
        st.exec = 0b1110;
        for l in 0..32 {
            st.v[l][1] = l as u32;
        }
        run(
            "v_cmp_lt_u32_e32",
            None,
            None,
            vec![Opnd::Int(0), Opnd::V(17)],
            &mut st,
        );
        assert_eq!(st.vcc, 0xdead_beef_0000_000e);
        // v_cmpx writes EXEC.
        run(
            "v_cmpx_gt_u32_e32",
            None,
            None,
            vec![Opnd::Int(2), Opnd::V(17)],
            &mut st,
        );
        assert_eq!(st.exec, 0b10);
        // V_MED3_I32(-1, 5, 3) = 3.
        st.exec = 1;
        run(
            "v_med3_i32",
            Some(Opnd::V(16)),
            None,
            vec![Opnd::Int(-1), Opnd::Int(5), Opnd::Int(3)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 3);
    }
}
