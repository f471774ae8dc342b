//! Scalar ALU semantics: SOP2, SOP1, SOPK and SOPC, the hardware-register
//! accesses and the M0-relative SGPR moves. The generic path and the
//! pre-resolved handlers both call them.

use super::bits::{bfe_i, bfe_u, mask32, mask64};
use super::operand::Operand;
use super::{no_semantics, Wave};
use crate::emu::decode::{
    Decoded, HwregOp, SMovrel, Sop1, Sop2, Sopc, Sopk, Src, M0, MOVREL_SGPRS,
    POLICY_MOVREL_PAST_SGPRS_FAULTS, VCC_LO,
};
use crate::emu::hwreg;
use crate::emu::WaveError;

/// The SOP1 opcodes that read or move the program counter: the generic
/// path runs them (it knows the pc), `sop1_data` declines them, and they
/// have no pre-resolved handler. A pattern, read by both.
macro_rules! moves_pc {
    () => {
        Sop1::GetpcB64 | Sop1::SetpcB64 | Sop1::SwappcB64
    };
}

/// Whether `sop1_data` runs `op` (it does all but `moves_pc!`'s).
pub(super) fn is_sop1_data(op: Sop1) -> bool {
    !matches!(op, moves_pc!())
}

impl Wave {
    #[inline(always)]
    pub(super) fn sop2<A: Operand, B: Operand>(&mut self, op: Sop2, sdst: u8, s0: A, s1: B) {
        use Sop2::*;
        let a = s0.r32(self);
        let b = s1.r32(self);
        let a64 = if op.src0_64() { s0.r64(self) } else { a as u64 };
        let b64 = if op.src1_64() { s1.r64(self) } else { b as u64 };
        // SCC per the RDNA3 guide's pseudocode of each opcode.
        match op {
            AddU32 => {
                let (r, c) = a.overflowing_add(b);
                self.scc = c;
                self.sw(sdst, r);
            }
            SubU32 => {
                let (r, c) = a.overflowing_sub(b);
                self.scc = c;
                self.sw(sdst, r);
            }
            AddI32 => {
                let (r, o) = (a as i32).overflowing_add(b as i32);
                self.scc = o;
                self.sw(sdst, r as u32);
            }
            SubI32 => {
                let (r, o) = (a as i32).overflowing_sub(b as i32);
                self.scc = o;
                self.sw(sdst, r as u32);
            }
            AddcU32 => {
                let t = a as u64 + b as u64 + self.scc as u64;
                self.scc = t >> 32 != 0;
                self.sw(sdst, t as u32);
            }
            SubbU32 => {
                let t = (a as u64)
                    .wrapping_sub(b as u64)
                    .wrapping_sub(self.scc as u64);
                self.scc = (b as u64 + self.scc as u64) > a as u64;
                self.sw(sdst, t as u32);
            }
            AbsdiffI32 => {
                let r = (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32;
                self.scc = r != 0;
                self.sw(sdst, r);
            }
            LshlB32 => self.set_scc_w(sdst, a << (b & 31)),
            LshrB32 => self.set_scc_w(sdst, a >> (b & 31)),
            AshrI32 => self.set_scc_w(sdst, ((a as i32) >> (b & 31)) as u32),
            LshlB64 => self.set_scc_w64(sdst, a64 << (b & 63)),
            LshrB64 => self.set_scc_w64(sdst, a64 >> (b & 63)),
            AshrI64 => self.set_scc_w64(sdst, ((a64 as i64) >> (b & 63)) as u64),
            Lshl1AddU32 | Lshl2AddU32 | Lshl3AddU32 | Lshl4AddU32 => {
                let n = match op {
                    Lshl1AddU32 => 1,
                    Lshl2AddU32 => 2,
                    Lshl3AddU32 => 3,
                    _ => 4,
                };
                let t = ((a as u64) << n) + b as u64;
                self.scc = t >= 1 << 32;
                self.sw(sdst, t as u32);
            }
            MinI32 => {
                self.scc = (a as i32) < (b as i32);
                self.sw(sdst, if self.scc { a } else { b });
            }
            MinU32 => {
                self.scc = a < b;
                self.sw(sdst, if self.scc { a } else { b });
            }
            MaxI32 => {
                self.scc = (a as i32) >= (b as i32);
                self.sw(sdst, if self.scc { a } else { b });
            }
            MaxU32 => {
                self.scc = a >= b;
                self.sw(sdst, if self.scc { a } else { b });
            }
            AndB32 => self.set_scc_w(sdst, a & b),
            OrB32 => self.set_scc_w(sdst, a | b),
            XorB32 => self.set_scc_w(sdst, a ^ b),
            NandB32 => self.set_scc_w(sdst, !(a & b)),
            NorB32 => self.set_scc_w(sdst, !(a | b)),
            XnorB32 => self.set_scc_w(sdst, !(a ^ b)),
            AndNot1B32 => self.set_scc_w(sdst, a & !b),
            OrNot1B32 => self.set_scc_w(sdst, a | !b),
            AndB64 => self.set_scc_w64(sdst, a64 & b64),
            OrB64 => self.set_scc_w64(sdst, a64 | b64),
            XorB64 => self.set_scc_w64(sdst, a64 ^ b64),
            NandB64 => self.set_scc_w64(sdst, !(a64 & b64)),
            NorB64 => self.set_scc_w64(sdst, !(a64 | b64)),
            XnorB64 => self.set_scc_w64(sdst, !(a64 ^ b64)),
            AndNot1B64 => self.set_scc_w64(sdst, a64 & !b64),
            OrNot1B64 => self.set_scc_w64(sdst, a64 | !b64),
            // S_BFE: offset = S1[4:0] (5:0 for 64), width = S1[22:16].
            BfeU32 => self.set_scc_w(sdst, bfe_u(a as u64, b & 31, (b >> 16) & 0x7f) as u32),
            BfeI32 => self.set_scc_w(
                sdst,
                bfe_i(a as i32 as i64, b & 31, (b >> 16) & 0x7f) as u32,
            ),
            BfeU64 => self.set_scc_w64(sdst, bfe_u(a64, b & 63, (b >> 16) & 0x7f)),
            BfeI64 => self.set_scc_w64(sdst, bfe_i(a64 as i64, b & 63, (b >> 16) & 0x7f) as u64),
            BfmB32 => self.sw(sdst, mask32(a & 31) << (b & 31)),
            BfmB64 => self.sw64(sdst, mask64(a & 63) << (b & 63)),
            MulI32 => self.sw(sdst, a.wrapping_mul(b)),
            MulHiU32 => self.sw(sdst, ((a as u64 * b as u64) >> 32) as u32),
            MulHiI32 => self.sw(sdst, ((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
            CselectB32 => self.sw(sdst, if self.scc { a } else { b }),
            CselectB64 => self.sw64(sdst, if self.scc { a64 } else { b64 }),
            PackLlB32B16 => self.sw(sdst, (a & 0xffff) | (b << 16)),
            PackLhB32B16 => self.sw(sdst, (a & 0xffff) | (b & 0xffff_0000)),
            PackHhB32B16 => self.sw(sdst, (a >> 16) | (b & 0xffff_0000)),
            // S_PACK_HL_B32_B16: D0 = { S1[15:0], S0[31:16] }.
            PackHlB32B16 => self.sw(sdst, (a >> 16) | (b << 16)),
        }
    }

    #[inline]
    fn set_scc_w(&mut self, sdst: u8, r: u32) {
        self.scc = r != 0;
        self.sw(sdst, r);
    }

    #[inline]
    fn set_scc_w64(&mut self, sdst: u8, r: u64) {
        self.scc = r != 0;
        self.sw64(sdst, r);
    }

    pub(super) fn sop1(
        &mut self,
        op: Sop1,
        sdst: u8,
        s0: Src,
        prog: &Decoded,
        i: u32,
    ) -> Result<(), WaveError> {
        use Sop1::*;
        if self.sop1_data(op, sdst, s0) {
            return Ok(());
        }
        match op {
            GetpcB64 => self.sw64(sdst, Wave::pc_addr(prog, i + 1)),
            SetpcB64 | SwappcB64 => {
                let target = self.s64(s0);
                if op == SwappcB64 {
                    self.sw64(sdst, Wave::pc_addr(prog, i + 1));
                }
                match prog.index_at(target) {
                    Some(t) => self.pc = t,
                    None => {
                        return Err(WaveError::BadBranch {
                            pc: Wave::pc_addr(prog, i),
                        })
                    }
                }
            }
            // `sop1_data` names every opcode and declines only the three
            // above, so nothing comes here unless an arm is missing.
            other => return Err(no_semantics(Wave::pc_addr(prog, i), other.name())),
        }
        Ok(())
    }

    /// SOP1 opcodes other than those reading or writing the program counter
    /// (s_getpc/s_setpc/s_swappc): false, with nothing done, for those.
    #[inline(always)]
    pub(super) fn sop1_data<S: Operand>(&mut self, op: Sop1, sdst: u8, s0: S) -> bool {
        use Sop1::*;
        let a = s0.r32(self);
        let a64 = if op.src0_64() { s0.r64(self) } else { a as u64 };
        let exec = self.exec();
        let full = self.full_mask();
        // saveexec: D = EXEC (old); EXEC = f(S0, EXEC); SCC = EXEC != 0.
        let saveexec = |w: &mut Wave, new: u64, wide: bool| {
            if wide {
                w.sw64(sdst, exec);
            } else {
                w.sw(sdst, exec as u32);
            }
            let new = new & full;
            w.set_exec(new);
            w.scc = new != 0;
        };
        match op {
            MovB32 => self.sw(sdst, a),
            MovB64 => self.sw64(sdst, a64),
            CmovB32 => {
                if self.scc {
                    self.sw(sdst, a)
                }
            }
            CmovB64 => {
                if self.scc {
                    self.sw64(sdst, a64)
                }
            }
            BrevB32 => self.sw(sdst, a.reverse_bits()),
            BrevB64 => self.sw64(sdst, a64.reverse_bits()),
            // Count of trailing/leading zeros; -1 when the input is 0 (gfx11 s_ctz/s_clz).
            CtzI32B32 => self.sw(sdst, if a == 0 { u32::MAX } else { a.trailing_zeros() }),
            CtzI32B64 => self.sw(
                sdst,
                if a64 == 0 {
                    u32::MAX
                } else {
                    a64.trailing_zeros()
                },
            ),
            ClzI32U32 => self.sw(sdst, if a == 0 { u32::MAX } else { a.leading_zeros() }),
            ClzI32U64 => self.sw(
                sdst,
                if a64 == 0 {
                    u32::MAX
                } else {
                    a64.leading_zeros()
                },
            ),
            // Leading bits equal to the sign bit; -1 for 0 and -1.
            ClsI32 => self.sw(
                sdst,
                if a == 0 || a == u32::MAX {
                    u32::MAX
                } else {
                    (a ^ ((a as i32 >> 31) as u32)).leading_zeros()
                },
            ),
            ClsI32I64 => self.sw(
                sdst,
                if a64 == 0 || a64 == u64::MAX {
                    u32::MAX
                } else {
                    (a64 ^ ((a64 as i64 >> 63) as u64)).leading_zeros()
                },
            ),
            SextI32I8 => self.sw(sdst, a as u8 as i8 as i32 as u32),
            SextI32I16 => self.sw(sdst, a as u16 as i16 as i32 as u32),
            Bitset0B32 | Bitset1B32 => {
                let d = self.s[sdst as usize];
                let bit = 1u32 << (a & 31);
                self.sw(sdst, if op == Bitset1B32 { d | bit } else { d & !bit });
            }
            Bitset0B64 | Bitset1B64 => {
                let d = self.s64(Src::S(sdst));
                let bit = 1u64 << (a & 63);
                self.sw64(sdst, if op == Bitset1B64 { d | bit } else { d & !bit });
            }
            AbsI32 => self.set_scc_w(sdst, (a as i32).wrapping_abs() as u32),
            Bcnt0I32B32 => self.set_scc_w(sdst, a.count_zeros()),
            Bcnt0I32B64 => self.set_scc_w(sdst, a64.count_zeros()),
            Bcnt1I32B32 => self.set_scc_w(sdst, a.count_ones()),
            Bcnt1I32B64 => self.set_scc_w(sdst, a64.count_ones()),
            // S_BITREPLICATE_B64_B32: D0.u64[2i] = D0.u64[2i+1] = S0.u32[i]; SCC unchanged.
            BitreplicateB64B32 => self.sw64(sdst, bitreplicate(a)),
            // S_QUADMASK: tmp[i] = S0[4i +: 4] != 0; SCC = D0 != 0.
            QuadmaskB32 => self.set_scc_w(sdst, quadmask(a as u64, 8) as u32),
            QuadmaskB64 => self.set_scc_w64(sdst, quadmask(a64, 16)),
            // S_WQM: tmp[i] = S0[(i & 60) +: 4] != 0; SCC = D0 != 0.
            WqmB32 => self.set_scc_w(sdst, wqm(a as u64, 32) as u32),
            WqmB64 => self.set_scc_w64(sdst, wqm(a64, 64)),
            NotB32 => self.set_scc_w(sdst, !a),
            NotB64 => self.set_scc_w64(sdst, !a64),
            AndSaveexecB32 | AndSaveexecB64 => saveexec(self, a64 & exec, op == AndSaveexecB64),
            OrSaveexecB32 | OrSaveexecB64 => saveexec(self, a64 | exec, op == OrSaveexecB64),
            XorSaveexecB32 | XorSaveexecB64 => saveexec(self, a64 ^ exec, op == XorSaveexecB64),
            NandSaveexecB32 | NandSaveexecB64 => {
                saveexec(self, !(a64 & exec), op == NandSaveexecB64)
            }
            NorSaveexecB32 | NorSaveexecB64 => saveexec(self, !(a64 | exec), op == NorSaveexecB64),
            XnorSaveexecB32 | XnorSaveexecB64 => {
                saveexec(self, !(a64 ^ exec), op == XnorSaveexecB64)
            }
            AndNot0SaveexecB32 | AndNot0SaveexecB64 => {
                saveexec(self, !a64 & exec, op == AndNot0SaveexecB64)
            }
            OrNot0SaveexecB32 | OrNot0SaveexecB64 => {
                saveexec(self, !a64 | exec, op == OrNot0SaveexecB64)
            }
            AndNot1SaveexecB32 | AndNot1SaveexecB64 => {
                saveexec(self, a64 & !exec, op == AndNot1SaveexecB64)
            }
            OrNot1SaveexecB32 | OrNot1SaveexecB64 => {
                saveexec(self, a64 | !exec, op == OrNot1SaveexecB64)
            }
            // wrexec: EXEC = f(S0, EXEC); D = EXEC (new); SCC = EXEC != 0.
            AndNot0WrexecB32 | AndNot0WrexecB64 | AndNot1WrexecB32 | AndNot1WrexecB64 => {
                let new = match op {
                    AndNot0WrexecB32 | AndNot0WrexecB64 => !a64 & exec,
                    _ => a64 & !exec,
                } & full;
                self.set_exec(new);
                if matches!(op, AndNot0WrexecB64 | AndNot1WrexecB64) {
                    self.sw64(sdst, new);
                } else {
                    self.sw(sdst, new as u32);
                }
                self.scc = new != 0;
            }
            moves_pc!() => return false,
        }
        true
    }

    /// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 ([`crate::emu::hwreg`]).
    pub(super) fn hwreg_op(
        &mut self,
        op: HwregOp,
        sreg: u8,
        simm16: u16,
        imm32: u32,
        pc: u64,
    ) -> Result<(), WaveError> {
        let live = hwreg::Live {
            scc: self.scc,
            exec_zero: self.exec() == 0,
            vcc_zero: self.read_mask(Src::S(VCC_LO)) == 0,
            executed: self.executed,
        };
        let unmodelled = |e: hwreg::Unmodelled| WaveError::Unsupported {
            pc,
            detail: format!("{} of {e}", op.name()),
        };
        match op {
            HwregOp::Get => {
                let v = hwreg::getreg(&self.hwreg, simm16, live)
                    .ok_or_else(|| unmodelled(hwreg::Unmodelled(hwreg::fields(simm16).0)))?;
                self.sw(sreg, v);
            }
            HwregOp::Set | HwregOp::SetImm32 => {
                let value = if op == HwregOp::Set {
                    self.s32(Src::S(sreg))
                } else {
                    imm32
                };
                let mut regs = self.hwreg;
                if let Some(scc) =
                    hwreg::setreg(&mut regs, simm16, value, live).map_err(unmodelled)?
                {
                    self.scc = scc;
                }
                self.hwreg = regs;
            }
        }
        Ok(())
    }

    /// The M0-relative SGPR moves. The ISA guide's pseudocode (RDNA4 guide
    /// §16.3 "SOP1 Instructions", whose opcodes 64-68 are gfx11's; the
    /// RDNA3 guide's SOP1 section is not in the sources dsxor can search):
    /// - S_MOVRELS_B32: `addr = SRC0.u32; addr += M0.u32[31:0];
    ///   D0.b32 = SGPR[addr].b32` (_B64: `D0.b64 = SGPR[addr].b64`);
    /// - S_MOVRELD_B32: `addr = DST.u32; addr += M0.u32[31:0];
    ///   SGPR[addr].b32 = S0.b32` (_B64 likewise, 64 bits);
    /// - S_MOVRELSD_2_B32: `addrs = SRC0.u32; addrd = DST.u32;
    ///   addrs += M0.u32[9:0].u32; addrd += M0.u32[25:16].u32;
    ///   SGPR[addrd].b32 = SGPR[addrs].b32`.
    ///
    /// For the B64 forms "the index in M0.u and the operand address ... must
    /// be even"; an odd one stops the wave with an error rather than guess.
    /// S_MOVRELD's S0 is a value: an SGPR, constant or literal, read as
    /// any SOP1 source is (`Wave::s32`/`s64`); s_movrelsd_2's source field
    /// is an index even when it encodes a constant ([`SMovrel::indices`]).
    pub(super) fn smovrel(
        &mut self,
        op: SMovrel,
        sdst: u8,
        s0: Src,
        pc: u64,
    ) -> Result<(), WaveError> {
        let m0 = self.s[M0 as usize];
        let n = op.dwords() as u64;
        let (from, to) = op.indices(sdst, s0, m0);
        if n == 2 && (from.unwrap_or(0) | to) & 1 == 1 {
            let moved = match from {
                Some(f) => format!("s{f} to s{to}"),
                None => format!("to s{to}"),
            };
            return Err(WaveError::Unsupported {
                pc,
                detail: format!(
                    "{} with an odd index ({moved}, M0 = {m0:#x}): the guide requires M0 and the operand to be even",
                    op.name()
                ),
            });
        }
        for at in from.into_iter().chain([to]) {
            if at + n > MOVREL_SGPRS {
                return Err(WaveError::Unsupported {
                    pc,
                    detail: format!(
                        "{} reaches s{at} (M0 = {m0:#x}), past s{}: policy {POLICY_MOVREL_PAST_SGPRS_FAULTS}",
                        op.name(),
                        MOVREL_SGPRS - 1
                    ),
                });
            }
        }
        // Read before writing: the ranges may overlap.
        let t = to as u8;
        let v = match from {
            Some(f) => [self.s[f as usize], self.s[f as usize + 1]],
            None if n == 2 => {
                let x = self.s64(s0);
                [x as u32, (x >> 32) as u32]
            }
            None => [self.s32(s0), 0],
        };
        for (k, x) in v.into_iter().take(n as usize).enumerate() {
            self.sw(t + k as u8, x);
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn sopk(&mut self, op: Sopk, sdst: u8, simm16: u16) {
        use Sopk::*;
        let simm = simm16 as i16 as i32 as u32;
        let d = self.s[sdst as usize];
        match op {
            MovkI32 => self.sw(sdst, simm),
            CmovkI32 => {
                if self.scc {
                    self.sw(sdst, simm)
                }
            }
            CmpkEqI32 => self.scc = d == simm,
            CmpkLgI32 => self.scc = d != simm,
            CmpkGtI32 => self.scc = (d as i32) > simm as i32,
            CmpkGeI32 => self.scc = (d as i32) >= simm as i32,
            CmpkLtI32 => self.scc = (d as i32) < (simm as i32),
            CmpkLeI32 => self.scc = (d as i32) <= simm as i32,
            // Unsigned forms compare with the zero-extended immediate.
            CmpkEqU32 => self.scc = d == simm16 as u32,
            CmpkLgU32 => self.scc = d != simm16 as u32,
            CmpkGtU32 => self.scc = d > simm16 as u32,
            CmpkGeU32 => self.scc = d >= simm16 as u32,
            CmpkLtU32 => self.scc = d < simm16 as u32,
            CmpkLeU32 => self.scc = d <= simm16 as u32,
            AddkI32 => {
                let (r, o) = (d as i32).overflowing_add(simm as i32);
                self.scc = o;
                self.sw(sdst, r as u32);
            }
            MulkI32 => self.sw(sdst, d.wrapping_mul(simm)),
            Version | WaitcntVscnt | WaitcntVmcnt | WaitcntExpcnt | WaitcntLgkmcnt => {}
        }
    }

    #[inline(always)]
    pub(super) fn sopc<A: Operand, B: Operand>(&mut self, op: Sopc, s0: A, s1: B) {
        use Sopc::*;
        let a = s0.r32(self);
        let b = s1.r32(self);
        self.scc = match op {
            EqI32 | EqU32 => a == b,
            LgI32 | LgU32 => a != b,
            GtI32 => (a as i32) > (b as i32),
            GeI32 => (a as i32) >= (b as i32),
            LtI32 => (a as i32) < (b as i32),
            LeI32 => (a as i32) <= (b as i32),
            GtU32 => a > b,
            GeU32 => a >= b,
            LtU32 => a < b,
            LeU32 => a <= b,
            Bitcmp0B32 => a >> (b & 31) & 1 == 0,
            Bitcmp1B32 => a >> (b & 31) & 1 == 1,
            Bitcmp0B64 => s0.r64(self) >> (b & 63) & 1 == 0,
            Bitcmp1B64 => s0.r64(self) >> (b & 63) & 1 == 1,
            EqU64 => s0.r64(self) == s1.r64(self),
            LgU64 => s0.r64(self) != s1.r64(self),
        };
    }
}

/// S_BITREPLICATE_B64_B32: every bit of S0 twice.
fn bitreplicate(x: u32) -> u64 {
    (0..32).fold(0u64, |d, i| d | (((x >> i) & 1) as u64 * 3) << (2 * i))
}

/// S_QUADMASK: bit i = any of S0[4i +: 4] (`quads` quads).
fn quadmask(x: u64, quads: u32) -> u64 {
    (0..quads).fold(0u64, |d, i| d | (((x >> (4 * i)) & 0xf != 0) as u64) << i)
}

/// S_WQM: bit i = any of the quad holding bit i (`bits` bits).
fn wqm(x: u64, bits: u32) -> u64 {
    (0..bits).fold(0u64, |d, i| d | (((x >> (i & 60)) & 0xf != 0) as u64) << i)
}
