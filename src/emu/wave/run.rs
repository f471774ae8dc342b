//! The run loops: the block loop over pre-resolved handlers and its exits
//! (made at decode time), the stepwise loop with the hazard checker, and the
//! generic path, which executes one instruction by its decoded form.

use super::operand::ResolvedSrc;
use super::valu::ValuStop;
use super::{no_semantics, Env, Status, Wave};
use crate::emu::decode::{Cond, DsKind, FlatKind, Inst, Sopc, Sopk, Src, M0, NULL, VCC_LO};
use crate::emu::ds::{exec_ds, Lds, Part};
use crate::emu::late::{Counter, Dest, Files};
use crate::emu::{Sched, WaveError};

/// The wave's register files as `emu::late` writes them (a macro, so the
/// borrow is of the two fields and `self.late` stays free).
macro_rules! files {
    ($w:expr) => {
        Files {
            v: &mut $w.v.0[..],
            s: &mut $w.s[..],
        }
    };
}

impl Wave {
    /// Run until the wave ends, reaches a barrier, or has executed `quantum`
    /// more instructions.
    ///
    /// Without hazard checking, straight runs of instructions that have a
    /// pre-resolved [`Op`] (`Decoded::ops`/`Decoded::runs`, made once per
    /// code object by [`op_for`]) run as a block; every other instruction
    /// runs through [`Wave::exec_generic`]. Both call the same per-opcode
    /// semantics. With hazard checking every instruction takes the generic
    /// path, after its check.
    ///
    /// [`Op`]: super::Op
    /// [`op_for`]: super::op_for
    pub fn run(
        &mut self,
        env: &Env<'_>,
        lds: &mut Lds,
        mut sched: Option<&mut Sched>,
        quantum: u64,
    ) -> Result<Status, WaveError> {
        let prog = env.prog;
        if self.pending_half.is_some() {
            self.finish_half(env, lds, sched.as_deref_mut())?;
        }
        if self.hazard.is_some() {
            return self.run_stepwise(env, lds, sched, quantum);
        }
        let mut left = quantum;
        let insts = &prog.insts[..];
        let ops = &prog.ops[..];
        let exits = &prog.exits[..];
        while left > 0 {
            let mut i = self.pc as usize;
            // A straight run of instructions with handlers: no pc,
            // counter, bounds or status work per instruction, only
            // one indirect call each. Cut at `left`, so the quantum
            // (and with it the interleaving of waves) is exact.
            // While a memory result is on its way back, every instruction
            // goes through the generic path, which lands results at their
            // wait or when due (`emu::late`).
            let run = if self.late.is_empty() {
                prog.runs
                    .get(i)
                    .map_or(0, |&n| (n as u64).min(left) as usize)
            } else {
                0
            };
            if run > 0 {
                if let Some(ops) = ops.get(i..i + run) {
                    for op in ops {
                        (op.f)(self, op);
                    }
                    i += run;
                    self.pc = i as u32;
                    self.executed += run as u64;
                    left -= run as u64;
                    if left == 0 {
                        break;
                    }
                }
            }
            match exits.get(i).filter(|_| self.late.is_empty()) {
                // A SOPP branch with a resolved target (the usual end of a
                // block): taken or not, the pc moves here and the loop goes
                // on at the next block, as exec_generic would leave it (pc
                // past the branch, then the target if taken); one
                // instruction of the quantum, one executed.
                Some(&Exit::Branch { cond, target }) => {
                    left -= 1;
                    self.executed += 1;
                    self.pc = if self.taken(cond) {
                        target
                    } else {
                        i as u32 + 1
                    };
                    continue;
                }
                // s_cmp/s_cmpk then s_cbranch_scc0/scc1 (a loop's or an
                // if's test), fused at decode time: the compare's
                // semantics (the same `sopc`/`sopk` as its handler and the
                // generic path) and the branch in one step, two
                // instructions of the quantum. With one left, the compare
                // runs alone through the generic path below.
                Some(&Exit::CmpBranch { cmp, scc1, target }) if left >= 2 => {
                    match cmp {
                        FusedCmp::Sopc { op, a, b } => self.sopc(op, a, b),
                        FusedCmp::Sopk { op, sdst, simm16 } => self.sopk(op, sdst, simm16),
                    }
                    left -= 2;
                    self.executed += 2;
                    self.pc = if self.scc == scc1 {
                        target
                    } else {
                        i as u32 + 2
                    };
                    continue;
                }
                _ => {}
            }
            left -= 1;
            let i = i as u32;
            let Some(inst) = insts.get(i as usize) else {
                return Err(WaveError::PcOutsideText {
                    pc: Wave::pc_addr(prog, i),
                });
            };
            self.pc = i + 1;
            self.executed += 1;
            let st = self.exec_generic(inst, i, env, lds, sched.as_deref_mut())?;
            if !self.late.is_empty() {
                self.late_step(inst);
            }
            if let Some(st) = st {
                return Ok(st);
            }
        }
        Ok(Status::Running)
    }

    /// After an instruction while results are on their way back: a wait
    /// lands what it covers, then every result due by now lands.
    #[inline(never)]
    fn late_step(&mut self, inst: &Inst) {
        let (vm, lgkm) = crate::emu::hazard::wait_counts(inst);
        if let Some(n) = vm {
            self.late.wait_vm(n, files!(self));
        }
        if let Some(n) = lgkm {
            self.late.wait_lgkm(n, files!(self));
        }
        if self.late.next_due() <= self.executed {
            self.late.land_due(self.executed, files!(self));
        }
    }

    /// Before a memory instruction runs: its counter, destination and the
    /// destination's values now (`emu::late`). None: it counts on no
    /// counter a wait can name (a store on VS_CNT, any non-memory
    /// instruction).
    #[inline(never)]
    fn late_before(&mut self, inst: &Inst) -> Option<(Counter, Option<Dest>, Vec<u32>)> {
        let counter = match inst {
            Inst::Ds(_) => Counter::Lds,
            Inst::Smem { .. } => Counter::Smem,
            Inst::Flat(f) if matches!(f.kind, FlatKind::Load { .. }) => {
                if f.global {
                    Counter::Vm
                } else {
                    Counter::Flat
                }
            }
            _ => return None,
        };
        let dest = crate::emu::hazard::memory_dest(inst);
        let before = self.late.snapshot(dest, &files!(self));
        Some((counter, dest, before))
    }

    /// Policy `vdst-out-of-range-nullified` ([`crate::emu::VDST_RANGE_POLICY`]):
    /// when a returning memory instruction's destination `dest` reaches
    /// past the wave's VGPRs, set EXEC to 0 for it and give back the EXEC
    /// to restore after it.
    #[inline]
    fn nullify_past_allocation(&mut self, dest: Option<Dest>) -> Option<u64> {
        match dest {
            Some(d) if d.vgpr && u32::from(d.first) + u32::from(d.count) > self.vgpr_alloc => {
                let e = self.exec();
                self.set_exec(0);
                Some(e)
            }
            _ => None,
        }
    }

    /// After the memory instruction [`Wave::late_before`] saw ran (with
    /// `mask` its lanes): its result waits.
    #[inline(never)]
    fn late_after(
        &mut self,
        before: Option<(Counter, Option<Dest>, Vec<u32>)>,
        mask: u64,
        rng: Option<&mut rand_chacha::ChaCha8Rng>,
    ) {
        if let Some((counter, dest, vals)) = before {
            let (executed, full) = (self.executed, self.full_mask());
            self.late
                .defer(counter, dest, mask, full, vals, files!(self), executed, rng);
        }
    }

    /// A DS instruction under the seeded scheduler: whole, or (policy
    /// wave64-split-halves, the coin only where both halves have lanes and
    /// the instruction touches LDS) its low half now and its high half when
    /// the scheduler next runs this wave ([`Wave::finish_half`]). True when
    /// it split: the wave goes back to the scheduler, so other waves may run
    /// between the halves. Out of line: the deterministic path stays as it
    /// was.
    #[inline(never)]
    fn ds_seeded(
        &mut self,
        d: &crate::emu::decode::Ds,
        i: u32,
        env: &Env<'_>,
        lds: &mut Lds,
        s: &mut Sched,
        pc: u64,
    ) -> Result<bool, WaveError> {
        let exec = self.exec();
        let splittable = self.lanes == 64
            && d.kind != DsKind::Nop
            && exec & Part::Low.mask() != 0
            && exec & Part::High.mask() != 0;
        if splittable && s.split_halves() {
            exec_ds(self, d, lds, env.fault, Some(&mut s.order), pc, Part::Low)?;
            self.pending_half = Some(i);
            return Ok(true);
        }
        exec_ds(self, d, lds, env.fault, Some(&mut s.order), pc, Part::Whole)?;
        Ok(false)
    }

    /// The high half of a split wave64 DS instruction, if one is pending:
    /// it runs before the wave issues anything else, and was counted (as
    /// an instruction, and by the hazard checker) when its low half issued.
    #[inline(never)]
    fn finish_half(
        &mut self,
        env: &Env<'_>,
        lds: &mut Lds,
        sched: Option<&mut Sched>,
    ) -> Result<(), WaveError> {
        let Some(i) = self.pending_half.take() else {
            return Ok(());
        };
        if let Some(inst @ Inst::Ds(d)) = env.prog.insts.get(i as usize) {
            let pc = Wave::pc_addr(env.prog, i);
            let order = sched.map(|s| &mut s.order);
            let dest = crate::emu::hazard::memory_dest(inst);
            let before = self.late.snapshot(dest, &files!(self));
            exec_ds(self, d, lds, env.fault, order, pc, Part::High)?;
            let mask = self.exec() & Part::High.mask();
            self.late.join_high_half(before, mask, files!(self));
        }
        Ok(())
    }

    /// [`Wave::run`] one instruction at a time through
    /// [`Wave::exec_generic`], with the hazard checker when the wave has
    /// one (the block loop's reference: the tests compare the two).
    pub(super) fn run_stepwise(
        &mut self,
        env: &Env<'_>,
        lds: &mut Lds,
        mut sched: Option<&mut Sched>,
        quantum: u64,
    ) -> Result<Status, WaveError> {
        let prog = env.prog;
        let mut left = quantum;
        while left > 0 {
            left -= 1;
            let i = self.pc;
            let Some(inst) = prog.insts.get(i as usize) else {
                return Err(WaveError::PcOutsideText {
                    pc: Wave::pc_addr(prog, i),
                });
            };
            if let Some(h) = self.hazard.as_deref_mut() {
                let wave64 = self.lanes == 64;
                if let Some(hz) = h.check(inst, wave64, self.s[M0 as usize]) {
                    return Err(WaveError::Hazard {
                        pc: Wave::pc_addr(prog, i),
                        inst: crate::emu::disasm::disasm(inst, wave64),
                        detail: hz.detail,
                    });
                }
                h.issue(inst, Wave::pc_addr(prog, i), || {
                    crate::emu::disasm::disasm(inst, wave64)
                });
            }
            self.pc = i + 1;
            self.executed += 1;
            let st = self.exec_generic(inst, i, env, lds, sched.as_deref_mut())?;
            if !self.late.is_empty() {
                self.late_step(inst);
            }
            if let Some(st) = st {
                return Ok(st);
            }
        }
        Ok(Status::Running)
    }

    /// Execute `inst` (at index `i`; `self.pc` already points past it) by
    /// its decoded form. `Some(status)` when the wave stops here (barrier or
    /// end).
    #[inline]
    pub(super) fn exec_generic(
        &mut self,
        inst: &Inst,
        i: u32,
        env: &Env<'_>,
        lds: &mut Lds,
        sched: Option<&mut Sched>,
    ) -> Result<Option<Status>, WaveError> {
        let prog = env.prog;
        match inst {
            Inst::Sop2 { op, sdst, s0, s1 } => self.sop2(*op, *sdst, *s0, *s1),
            Inst::Sop1 { op, sdst, s0 } => self.sop1(*op, *sdst, *s0, prog, i)?,
            Inst::Sopk { op, sdst, simm16 } => self.sopk(*op, *sdst, *simm16),
            Inst::Sopc { op, s0, s1 } => self.sopc(*op, *s0, *s1),
            Inst::Nop { .. } => {}
            Inst::Branch { cond, target, .. } => {
                if self.taken(*cond) {
                    match target {
                        Some(t) => self.pc = *t,
                        None => {
                            return Err(WaveError::BadBranch {
                                pc: Wave::pc_addr(prog, i),
                            })
                        }
                    }
                }
            }
            Inst::Barrier => {
                self.status = Status::AtBarrier;
                return Ok(Some(Status::AtBarrier));
            }
            Inst::Endpgm | Inst::EndpgmSaved => {
                // "The hardware implicitly executes S_WAITCNT 0 and
                // S_WAITCNT_VSCNT 0 before executing this instruction" (the
                // RDNA ISA guide on S_ENDPGM, as Mesa's
                // src/amd/compiler/README-ISA.md quotes it): every result
                // lands, so the wave ends with its registers complete.
                if !self.late.is_empty() {
                    self.late.wait_vm(0, files!(self));
                    self.late.wait_lgkm(0, files!(self));
                }
                self.status = Status::Ended;
                return Ok(Some(Status::Ended));
            }
            Inst::Call { sdst, target, .. } => {
                // S_CALL_B64: D0.i64 = PC + 4; PC = PC + signext(SIMM16 * 4) + 4.
                self.sw64(*sdst, Wave::pc_addr(prog, i + 1));
                match target {
                    Some(t) => self.pc = *t,
                    None => {
                        return Err(WaveError::BadBranch {
                            pc: Wave::pc_addr(prog, i),
                        })
                    }
                }
            }
            Inst::Hwreg {
                op,
                sreg,
                simm16,
                imm32,
            } => self.hwreg_op(*op, *sreg, *simm16, *imm32, Wave::pc_addr(prog, i))?,
            Inst::SMovrel { op, sdst, s0 } => {
                self.smovrel(*op, *sdst, *s0, Wave::pc_addr(prog, i))?
            }
            Inst::Sendmsg { simm16 } => {
                // Only MSG_DEALLOC_VGPRS (3), which compute kernels send
                // before s_endpgm (SIDefines.h ID_DEALLOC_VGPRS_GFX11Plus),
                // has a meaning here: none.
                if *simm16 != 3 {
                    return Err(WaveError::Unsupported {
                        pc: Wave::pc_addr(prog, i),
                        detail: format!(
                            "s_sendmsg {simm16:#x}: only MSG_DEALLOC_VGPRS is modelled"
                        ),
                    });
                }
            }
            Inst::Trap { name, simm16 } => {
                return Err(WaveError::Trap {
                    pc: Wave::pc_addr(prog, i),
                    what: format!("{name} {simm16:#x}"),
                })
            }
            Inst::Smem {
                dwords,
                sdata,
                sbase,
                offset,
                soffset,
            } => {
                let mut addr = self.s64(Src::S(*sbase)).wrapping_add(*offset as i64 as u64);
                if let Some(so) = soffset {
                    addr = addr.wrapping_add(self.s[*so as usize] as u64);
                }
                // SMEM ignores the two low address bits (RDNA3 guide §"Scalar memory").
                addr &= !3;
                let n = *dwords as usize;
                // SDATA is an SGPR range or VCC (llvm-mc-22 assembles
                // `s_load_b32 vcc_lo`/`vcc_hi`/`s_load_b64 vcc`, refuses a
                // range from s105 into VCC, and m0/exec). TTMPs assemble
                // too, but only the trap handler may write them (RDNA3
                // guide, "Trap temporary SGPRs"): refused, not guessed.
                let (d, end) = (*sdata as usize, *sdata as usize + n);
                let in_vcc = d >= VCC_LO as usize && end <= VCC_LO as usize + 2;
                if end > VCC_LO as usize && !in_vcc && *sdata != NULL {
                    return Err(WaveError::Unsupported {
                        pc: Wave::pc_addr(prog, i),
                        detail: format!(
                            "s_load into s{}..s{} is neither s0..s105 nor VCC",
                            sdata,
                            end - 1
                        ),
                    });
                }
                let before = self.late_before(inst);
                let mut buf = [0u8; 64];
                env.mem
                    .read(addr, &mut buf[..4 * n])
                    .map_err(|e| WaveError::Global {
                        pc: Wave::pc_addr(prog, i),
                        lane: None,
                        addr: e.addr,
                        len: e.len,
                        region: env.mem.describe(e.addr),
                    })?;
                for k in 0..n {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(&buf[4 * k..4 * k + 4]);
                    self.sw(sdata + k as u8, u32::from_le_bytes(b));
                }
                self.late_after(before, 0, sched.map(|s| &mut s.late));
            }
            Inst::Valu {
                op,
                vdst,
                sdst,
                src,
                op_sel,
                ..
            } => self
                .valu(*op, *vdst, *sdst, src, *op_sel)
                .map_err(|e| match e {
                    ValuStop::NoSemantics(n) => no_semantics(Wave::pc_addr(prog, i), n.0),
                    ValuStop::Stop(detail) => WaveError::Unsupported {
                        pc: Wave::pc_addr(prog, i),
                        detail,
                    },
                })?,
            Inst::Vopc {
                cmp,
                cmpx,
                sdst,
                src0,
                src1,
                ..
            } => self.vopc(*cmp, *cmpx, *sdst, *src0, *src1),
            Inst::Vopd { x, y } => self.vopd(x, y),
            Inst::Ds(d) => {
                let pc = Wave::pc_addr(prog, i);
                let before = self.late_before(inst);
                let saved = self.nullify_past_allocation(before.as_ref().and_then(|b| b.1));
                let exec = self.exec();
                match sched {
                    None => {
                        exec_ds(self, d, lds, env.fault, None, pc, Part::Whole)?;
                        self.late_after(before, exec, None);
                    }
                    Some(s) => {
                        // Under EXEC = 0 nothing splits, so a nullified
                        // instruction never returns here with EXEC to restore.
                        if self.ds_seeded(d, i, env, lds, s, pc)? {
                            self.late_after(before, exec & Part::Low.mask(), Some(&mut s.late));
                            return Ok(Some(Status::Running));
                        }
                        self.late_after(before, exec, Some(&mut s.late));
                    }
                }
                if let Some(e) = saved {
                    self.set_exec(e);
                }
            }
            Inst::Flat(f) => {
                let before = self.late_before(inst);
                let saved = self.nullify_past_allocation(crate::emu::hazard::memory_dest(inst));
                let exec = self.exec();
                self.flat(f, env.mem, Wave::pc_addr(prog, i))?;
                self.late_after(before, exec, sched.map(|s| &mut s.late));
                if let Some(e) = saved {
                    self.set_exec(e);
                }
            }
            Inst::Valu16(v) => crate::emu::valu16::exec(self, v),
            Inst::Vop3p(p) => {
                crate::emu::vop3p::exec(self, p).map_err(|e| WaveError::Unsupported {
                    pc: Wave::pc_addr(prog, i),
                    detail: e.0,
                })?
            }
            Inst::Unsupported(u) => {
                return Err(WaveError::Unsupported {
                    pc: Wave::pc_addr(prog, i),
                    detail: u.to_string(),
                })
            }
        }
        Ok(None)
    }

    /// Whether a conditional branch on `cond` is taken.
    #[inline(always)]
    fn taken(&self, cond: Cond) -> bool {
        match cond {
            Cond::Always => true,
            Cond::Scc0 => !self.scc,
            Cond::Scc1 => self.scc,
            Cond::Vccz => self.read_mask(Src::S(VCC_LO)) == 0,
            Cond::Vccnz => self.read_mask(Src::S(VCC_LO)) != 0,
            Cond::Execz => self.exec() == 0,
            Cond::Execnz => self.exec() != 0,
            // decode::POLICY_NO_DEBUGGER.
            Cond::CdbgSys | Cond::CdbgUser | Cond::CdbgSysOrUser | Cond::CdbgSysAndUser => false,
        }
    }
}

/// How [`Wave::run`]'s block loop goes on when a straight run of
/// handlers stops at an instruction (`Decoded::exits`).
#[derive(Clone, Copy, Debug)]
pub enum Exit {
    /// Through [`Wave::exec_generic`].
    Generic,
    /// A SOPP branch with a resolved target.
    Branch { cond: Cond, target: u32 },
    /// A scalar compare whose next instruction is s_cbranch_scc1 (`scc1`)
    /// or s_cbranch_scc0 with a resolved target.
    CmpBranch {
        cmp: FusedCmp,
        scc1: bool,
        target: u32,
    },
}

/// The compare of an [`Exit::CmpBranch`], operands resolved.
#[derive(Clone, Copy, Debug)]
pub enum FusedCmp {
    Sopc {
        op: Sopc,
        a: ResolvedSrc,
        b: ResolvedSrc,
    },
    Sopk {
        op: Sopk,
        sdst: u8,
        simm16: u16,
    },
}

/// The exit of every instruction of `insts` (see [`Exit`]).
pub fn exits_for(insts: &[Inst]) -> Vec<Exit> {
    use Sopk::*;
    let branch = |k: usize| match insts.get(k) {
        Some(&Inst::Branch {
            cond,
            target: Some(target),
            ..
        }) => Some((cond, target)),
        _ => None,
    };
    (0..insts.len())
        .map(|k| {
            if let Some((cond, target)) = branch(k) {
                return Exit::Branch { cond, target };
            }
            let (scc1, target) = match branch(k + 1) {
                Some((Cond::Scc1, t)) => (true, t),
                Some((Cond::Scc0, t)) => (false, t),
                _ => return Exit::Generic,
            };
            let cmp = match insts[k] {
                Inst::Sopc { op, s0, s1 } => match (ResolvedSrc::of(s0), ResolvedSrc::of(s1)) {
                    (Some(a), Some(b)) => FusedCmp::Sopc { op, a, b },
                    _ => return Exit::Generic,
                },
                // The s_cmpk forms: they only write SCC.
                Inst::Sopk { op, sdst, simm16 }
                    if matches!(
                        op,
                        CmpkEqI32
                            | CmpkLgI32
                            | CmpkGtI32
                            | CmpkGeI32
                            | CmpkLtI32
                            | CmpkLeI32
                            | CmpkEqU32
                            | CmpkLgU32
                            | CmpkGtU32
                            | CmpkGeU32
                            | CmpkLtU32
                            | CmpkLeU32
                    ) =>
                {
                    FusedCmp::Sopk { op, sdst, simm16 }
                }
                _ => return Exit::Generic,
            };
            Exit::CmpBranch { cmp, scc1, target }
        })
        .collect()
}
