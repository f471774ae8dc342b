//! Hazard checks: a kernel that reads a memory result before its
//! `s_waitcnt` may pass or fail on silicon, depending on timing (on the
//! software device the register keeps its old value, `super::late`); the
//! check names the early read. With checking on, each wave keeps the memory
//! instructions it has issued and not yet waited for, per counter (counter
//! fields from LLVM `SIDefines.h` and `docs/AMDGPU/gfx11_waitcnt.rst`, gfx11
//! `s_waitcnt`: "2:0 EXP_CNT", "9:4 LGKM_CNT: LDS, GDS, Constant and Message
//! count", "15:10 VM_CNT: vector memory operations count").
//!
//! Which counters decrement in order. AMD's ISA guides state the rule in
//! §4.4 "Data Dependency Resolution". Quoted here from the AMD Instinct
//! MI300 (CDNA3) guide's §4.4: the RDNA3 guide's own wording was not in the
//! sources available to this change, so for gfx11 the rule is pinned by
//! LLVM's waitcnt pass (quoted last), which is what the compiler relies on
//! for gfx1100:
//! - "Instructions of a given type return in order, but instructions of
//!   different types can complete out-of-order."
//! - VM_CNT: "Ordering: Memory reads and writes return in the order they were
//!   issued" — so `vmcnt(N)` completes all but the N youngest vector memory
//!   loads.
//! - LGKM_CNT: "Instructions of different types are returned out-of-order.
//!   Instructions of the same type are returned in the order they were
//!   issued, except scalar-memory reads, which can return out-of-order (in
//!   which case only S_WAITCNT 0 is the only legitimate value)."
//! - LLVM `SIInsertWaitcnts.cpp` (the gfx11 waitcnt inserter):
//!   `generateWaitcntInstBefore`: "Instructions of a given type are returned
//!   in order, but instructions of different types can complete out of
//!   order. We rely on this in-order completion"; `counterOutOfOrder`:
//!   "Where there are multiple types of event in the bracket of a counter,
//!   the decrement may go out of order. ... Scalar memory read always can go
//!   out of order."
//!
//! The model, from those rules:
//! - VM_CNT: vector memory loads (and FLAT/GLOBAL atomics with return),
//!   retired oldest first.
//! - LGKM_CNT: LDS (DS) instructions, scalar memory (SMEM) and FLAT (which
//!   counts on both VM_CNT and LGKM_CNT). DS retires oldest first; while an
//!   SMEM load (or a mix of event types) is outstanding only what the count
//!   proves done is retired (`lgkmcnt(0)` retires everything).
//! - VS_CNT (stores) carries no destination register and so no read hazard.
//!
//! A hazard is reported when an instruction reads or overwrites a register
//! that an outstanding memory instruction will still write (a read of a
//! pending destination; an overwrite would be clobbered by the late return).
//!
//! Policy BARRIER_PUBLISHES_LDS: an `s_barrier` reached while one of the
//! wave's DS instructions is outstanding is a hazard. `s_barrier` only
//! synchronizes execution; LDS accesses issued before it become visible to
//! (and ordered with) the other waves' accesses after it only once the wave
//! has waited for them. HIP's `__syncthreads()` is a workgroup release
//! fence, the barrier and an acquire fence, and for that release LLVM's
//! memory legalizer (`SIMemoryLegalizer.cpp`, AMDGPUUsage "Memory Model
//! GFX10-GFX11", fence release at workgroup scope) emits
//! `s_waitcnt lgkmcnt(0)` before the `s_barrier` on gfx1100, in WGP and CU
//! mode alike (checked with clang-22: `ds_store_b32; s_waitcnt lgkmcnt(0);
//! s_barrier`; the bare `__builtin_amdgcn_s_barrier()` without fences emits
//! no wait, and orders no memory). Every barrier in dsxor's kernels is such
//! a workgroup synchronization, so a user build that drops that wait passes
//! on the software device (whose LDS accesses happen at issue) and may read stale
//! LDS on silicon. A hand-written barrier meant only for execution
//! synchronization with LDS accesses in flight is reported too: turn the
//! check off (`--no-hazard-check`) for such code.
//!
//! Overwriting the *source* VGPRs of an outstanding store or atomic is no
//! hazard on gfx11, and is not reported: the data is read at issue as far as
//! software is concerned. Sources: LLVM's waitcnt pass waits on a store's
//! data VGPRs only where `GCNSubtarget::vmemWriteNeedsExpWaitcnt()` holds,
//! which is `getGeneration() < SEA_ISLANDS` (gfx6 only; the `VMW_GPR_LOCK`
//! event, "vector-memory write holding on its data src"); and the NOP-based
//! write-data hazards of older targets (`GCNHazardRecognizer::
//! checkVALUHazards`, the CDNA3 guide's table 11 cases 8 and 9, "Write VGPRs
//! holding writedata") are skipped where `ST.hasNoDataDepHazard()`, a
//! feature `FeatureGFX11` includes (`AMDGPU.td`, `FeatureNoDataDepHazard`).
//! Silicon therefore needs neither a wait nor NOPs before a store's data
//! VGPRs are rewritten, and a checker that flagged it would reject correct
//! compiler output.
//!
//! Not modelled (documented in docs/src/internals/software-device.md):
//! EXP_CNT, and memory ordering between waves beyond the barrier rule.

use std::collections::VecDeque;

use super::decode::{
    Cond, DsKind, FlatKind, HwregOp, Inst, Sop1, Sopk, Src, VEnc, VOp, EXEC_LO, M0, MOVREL_SGPRS,
    NULL, VCC_LO,
};
use super::disasm::{sop1_widths, sop2_widths, sreg};
use crate::isa::alu::Implicit;

/// A register range: VGPRs or SGPRs `first .. first + count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    vgpr: bool,
    first: u16,
    count: u16,
}

impl Range {
    fn overlaps(&self, o: &Range) -> bool {
        self.vgpr == o.vgpr && self.first < o.first + o.count && o.first < self.first + self.count
    }
}

/// Up to 8 register ranges, no allocation.
struct Regs {
    r: [Option<Range>; 8],
    n: usize,
    /// SGPRs in a lane mask: 1 (wave32) or 2 (wave64), for src_vccz and
    /// src_execz.
    mask: u32,
}

impl Regs {
    fn new(mask: u32) -> Regs {
        Regs {
            r: [None; 8],
            n: 0,
            mask,
        }
    }
    fn v(&mut self, first: u8, count: u32) {
        self.push(true, first, count)
    }
    fn s(&mut self, first: u8, count: u32) {
        // `null` is no register.
        if first != NULL {
            self.push(false, first, count)
        }
    }
    fn src(&mut self, s: Src, count: u32) {
        match s {
            Src::V(r) => self.v(r, count),
            Src::S(r) => self.s(r, count),
            // "src_vccz": VCC == 0, "src_execz": EXEC == 0, read as they
            // run.
            Src::Vccz => self.s(VCC_LO, self.mask),
            Src::Execz => self.s(EXEC_LO, self.mask),
            _ => {}
        }
    }
    fn push(&mut self, vgpr: bool, first: u8, count: u32) {
        if self.n < self.r.len() {
            self.r[self.n] = Some(Range {
                vgpr,
                first: first as u16,
                count: count as u16,
            });
            self.n += 1;
        }
    }
    fn iter(&self) -> impl Iterator<Item = &Range> {
        self.r[..self.n].iter().flatten()
    }
}

/// The registers `inst` reads and writes (exact widths, so no false hazard),
/// with `m0` the wave's M0 as `inst` is about to run (an M0-relative move
/// lists the registers its index lands on). Implicit operands count. For an
/// instruction of the ALU table they are its row's column
/// (`isa::alu::AluOp::implicit`, LLVM's `Uses`/`Defs`, through
/// [`Inst::implicit`]): EXEC read by a vector instruction (each reads it
/// for its lane mask; v_readlane/v_writelane do not), EXEC read and
/// written by the saveexec/wrexec SALU forms, written by `v_cmpx`, VCC read
/// and written by the e32 forms that name it in no field, M0 read by the
/// M0-relative VGPR and SGPR moves. SCC is no SGPR and no memory
/// instruction writes it, so its columns add nothing here. For the
/// instructions the table has no row for, by kind: EXEC read by DS (but
/// `ds_nop`) and FLAT (their LLVM pseudos' `Uses = [EXEC]`), VCC or EXEC by
/// the branches and operands that test them (s_cbranch_vccz/execz,
/// src_vccz/src_execz). No memory
/// instruction the assembler accepts writes EXEC (llvm-mc-22 refuses
/// `s_load_b32 exec_lo, ...`: SMEM's SDATA class excludes it), but the
/// decoder accepts such a word, so it is checked like any other.
fn uses(inst: &Inst, wave64: bool, m0: u32) -> (Regs, Regs) {
    let m = if wave64 { 2 } else { 1 };
    let mut rd = Regs::new(m);
    let mut wr = Regs::new(m);
    let imp = inst.implicit();
    let vector = matches!(
        inst,
        Inst::Valu { .. }
            | Inst::Vopc { .. }
            | Inst::Valu16(_)
            | Inst::Vop3p(_)
            | Inst::Vopd { .. }
    );
    let exec_read = match imp {
        Some(i) => vector && i.reads_exec(),
        None => match inst {
            Inst::Ds(d) => d.kind != DsKind::Nop,
            _ => matches!(inst, Inst::Flat(_)),
        },
    };
    if exec_read {
        rd.s(EXEC_LO, m);
    }
    // A vector instruction's implicit VCC and EXEC are lane masks; a SALU
    // instruction's EXEC is as wide as the operation (s_and_saveexec_b32
    // reads and writes EXEC_LO, _b64 both halves).
    let imp = imp.unwrap_or(Implicit::NONE);
    match inst {
        Inst::Sop2 { op, sdst, s0, s1 } => {
            let (d, a, b) = sop2_widths(*op);
            rd.src(*s0, a);
            rd.src(*s1, b);
            wr.s(*sdst, d);
        }
        Inst::Sop1 { op, sdst, s0 } => {
            let (d, a) = sop1_widths(*op);
            rd.src(*s0, a);
            // S_AND_SAVEEXEC_B32 etc.: "saveexec = EXEC; EXEC = S0 & EXEC;
            // D0 = saveexec" (the wrexec forms: D0 = the new EXEC).
            if imp.reads_exec() {
                rd.s(EXEC_LO, d);
            }
            if imp.writes_exec() {
                wr.s(EXEC_LO, d);
            }
            if matches!(op, Sop1::Bitset0B32 | Sop1::Bitset1B32) {
                rd.s(*sdst, 1);
            }
            if matches!(op, Sop1::Bitset0B64 | Sop1::Bitset1B64) {
                rd.s(*sdst, 2);
            }
            wr.s(*sdst, d);
        }
        Inst::Sopk { op, sdst, .. }
            if !matches!(
                op,
                Sopk::Version
                    | Sopk::WaitcntVscnt
                    | Sopk::WaitcntVmcnt
                    | Sopk::WaitcntExpcnt
                    | Sopk::WaitcntLgkmcnt
            ) =>
        {
            rd.s(*sdst, 1);
            wr.s(*sdst, 1);
        }
        Inst::Sopc { s0, s1, .. } => {
            rd.src(*s0, 1);
            rd.src(*s1, 1);
        }
        Inst::Smem {
            dwords,
            sdata,
            sbase,
            soffset,
            ..
        } => {
            rd.s(*sbase, 2);
            if let Some(so) = soffset {
                rd.s(*so, 1);
            }
            wr.s(*sdata, *dwords as u32);
        }
        Inst::Valu {
            op,
            enc,
            vdst,
            sdst,
            src,
            op_sel,
        } => {
            use VOp::*;
            // An e32's carry and mask are the implicit VCC (the column,
            // after the match); an e64's are operands.
            let e64 = *enc == VEnc::E64;
            match op {
                // The M0 of an M0-relative move is listed by vext::uses,
                // from the same column (`VOp::implicit`).
                _ if op.in_vext() => {
                    let x = super::vext::Operands {
                        op: *op,
                        vdst: *vdst,
                        src,
                        op_sel: *op_sel,
                    };
                    let (r, w) = super::vext::uses(&x, m0);
                    for (s, n) in r {
                        rd.src(s, n);
                    }
                    for (v, n) in w {
                        wr.v(v, n);
                    }
                }
                Nop => {}
                ReadfirstlaneB32 => {
                    rd.src(src[0], 1);
                    wr.s(*sdst, 1);
                }
                ReadlaneB32 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 1);
                    wr.s(*vdst, 1);
                }
                WritelaneB32 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 1);
                    wr.v(*vdst, 1);
                }
                SwapB32 => {
                    rd.src(src[0], 1);
                    rd.v(*vdst, 1);
                    wr.src(src[0], 1);
                    wr.v(*vdst, 1);
                }
                MadU64U32 | MadI64I32 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 1);
                    rd.src(src[2], 2);
                    wr.v(*vdst, 2);
                    wr.s(*sdst, m);
                }
                LshlrevB64 | LshrrevB64 | AshrrevI64 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 2);
                    wr.v(*vdst, 2);
                }
                CndmaskB32 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 1);
                    if e64 {
                        rd.src(src[2], m);
                    }
                    wr.v(*vdst, 1);
                }
                AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 1);
                    if e64 {
                        rd.src(src[2], m);
                    }
                    wr.v(*vdst, 1);
                    if e64 {
                        wr.s(*sdst, m);
                    }
                }
                AddCoU32 | SubCoU32 | SubrevCoU32 => {
                    rd.src(src[0], 1);
                    rd.src(src[1], 1);
                    wr.v(*vdst, 1);
                    wr.s(*sdst, m);
                }
                _ => {
                    for s in src.iter().take(op.arity()) {
                        rd.src(*s, 1);
                    }
                    wr.v(*vdst, 1);
                }
            }
            vcc_implicit(imp, m, &mut rd, &mut wr);
        }
        Inst::Vopc {
            cmp,
            cmpx,
            enc,
            sdst,
            src0,
            src1,
        } => {
            let w = if cmp.wide { 2 } else { 1 };
            rd.src(*src0, w);
            rd.src(*src1, w);
            // An e64 v_cmp names its mask destination; an e32's is the
            // implicit VCC, and V_CMPX_* writes EXEC ("EXEC.u64[laneId] =
            // ...") in place of any (gfx11: no SGPR destination).
            if *enc == VEnc::E64 && !*cmpx {
                wr.s(*sdst, m);
            }
            vcc_implicit(imp, m, &mut rd, &mut wr);
            exec_written(imp, m, &mut wr);
        }
        // Sources as the half's row lists them (v_dual_mov_b32 has no
        // vsrc1), VCC as its implicit column says (v_dual_cndmask_b32).
        Inst::Vopd { x, y } => {
            for h in [x, y] {
                rd.src(h.src0, 1);
                if h.op.row().srcs.len() > 1 {
                    rd.v(h.vsrc1, 1);
                }
                wr.v(h.vdst, 1);
            }
            vcc_implicit(imp, m, &mut rd, &mut wr);
        }
        Inst::Ds(d) => {
            let (data, dst) = match d.kind {
                DsKind::Nop => (0, 0),
                DsKind::Atomic { wide, rtn, .. } => {
                    let w = if wide { 2 } else { 1 };
                    (w, if rtn { w } else { 0 })
                }
                DsKind::Store { bytes } => ((bytes as u32).div_ceil(4), 0),
                DsKind::Store2 { wide, .. } => (if wide { 2 } else { 1 }, 0),
                DsKind::Load { bytes, .. } => (0, (bytes as u32).div_ceil(4)),
                DsKind::Load2 { wide, .. } => (0, if wide { 4 } else { 2 }),
                DsKind::Xchg2 { wide, .. } => {
                    let w = if wide { 2 } else { 1 };
                    (w, 2 * w)
                }
            };
            if d.kind != DsKind::Nop {
                rd.v(d.addr, 1);
            }
            if data > 0 {
                rd.v(d.data0, data);
                let two = match d.kind {
                    DsKind::Store2 { .. } | DsKind::Xchg2 { .. } => true,
                    DsKind::Atomic { op, .. } => op.has_data2(),
                    _ => false,
                };
                if two {
                    rd.v(d.data1, data);
                }
            }
            if dst > 0 {
                wr.v(d.vdst, dst);
            }
        }
        Inst::Valu16(v) => {
            use super::decode::{Op16, W16};
            for (k, kind) in v.op.srcs().iter().enumerate() {
                rd.src(v.src[k], if *kind == W16::Mask { m } else { 1 });
            }
            match v.op {
                // As for the 32-bit compares: an e64 v_cmp's destination is
                // an operand, the rest implicit.
                Op16::Cmp { cmpx, .. } => {
                    if v.enc == VEnc::E64 && !cmpx {
                        wr.s(v.vdst, m);
                    }
                    vcc_implicit(imp, m, &mut rd, &mut wr);
                    exec_written(imp, m, &mut wr);
                }
                Op16::SwapB16 => {
                    rd.v(v.vdst, 1);
                    wr.v(v.vdst, 1);
                    wr.src(v.src[0], 1);
                }
                _ => wr.v(v.vdst, 1),
            }
        }
        Inst::Flat(f) => {
            match f.saddr {
                Some(s) => {
                    rd.v(f.vaddr, 1);
                    rd.s(s, 2);
                }
                None => rd.v(f.vaddr, 2),
            }
            match f.kind {
                FlatKind::Load { bytes, .. } => wr.v(f.vdst, (bytes as u32).div_ceil(4)),
                FlatKind::Store { bytes } => rd.v(f.vdata, (bytes as u32).div_ceil(4)),
            }
        }
        Inst::Vop3p(p) => {
            let (sw, dw) = p.op.widths_in(wave64);
            for (&s, &n) in p.src.iter().zip(&sw).take(p.op.arity()) {
                rd.src(s, n);
            }
            wr.v(p.vdst, dw);
        }
        Inst::Hwreg { op, sreg, .. } => match op {
            HwregOp::Get => wr.s(*sreg, 1),
            HwregOp::Set => rd.s(*sreg, 1),
            HwregOp::SetImm32 => {}
        },
        Inst::Call { sdst, .. } => wr.s(*sdst, 2),
        // M0 as the row's column has it (LLVM `Uses = [M0]`), the SGPRs
        // the index lands on, and s_movreld's source as any operand (an
        // index past the SGPRs lists only M0: the move itself stops the
        // wave).
        Inst::SMovrel { op, sdst, s0 } => {
            if imp.reads_m0() {
                rd.s(M0, 1);
            }
            let n = op.dwords() as u64;
            let (from, to) = op.indices(*sdst, *s0, m0);
            if from.unwrap_or(0) + n <= MOVREL_SGPRS && to + n <= MOVREL_SGPRS {
                match from {
                    Some(f) => rd.s(f as u8, n as u32),
                    None => rd.src(*s0, n as u32),
                }
                wr.s(to as u8, n as u32);
            }
        }
        Inst::Branch { cond, .. } => match cond {
            Cond::Vccz | Cond::Vccnz => rd.s(VCC_LO, m),
            Cond::Execz | Cond::Execnz => rd.s(EXEC_LO, m),
            _ => {}
        },
        _ => {}
    }
    (rd, wr)
}

/// The implicit VCC of a vector instruction (a lane mask: `m` SGPRs) from
/// its row's column.
fn vcc_implicit(imp: Implicit, m: u32, rd: &mut Regs, wr: &mut Regs) {
    if imp.reads_vcc() {
        rd.s(VCC_LO, m);
    }
    if imp.writes_vcc() {
        wr.s(VCC_LO, m);
    }
}

/// The implicit EXEC write of a vector instruction (v_cmpx) from its row's
/// column.
fn exec_written(imp: Implicit, m: u32, wr: &mut Regs) {
    if imp.writes_exec() {
        wr.s(EXEC_LO, m);
    }
}

/// The registers a memory instruction (SMEM, DS, FLAT/GLOBAL load) writes
/// when its result returns, for [`super::late`]; None for any other
/// instruction or one that returns nothing.
pub(crate) fn memory_dest(inst: &Inst) -> Option<super::late::Dest> {
    if !matches!(inst, Inst::Smem { .. } | Inst::Ds(_) | Inst::Flat(_)) {
        return None;
    }
    let (_, wr) = uses(inst, false, 0);
    let first = wr.iter().next().copied();
    first.map(|r| super::late::Dest {
        vgpr: r.vgpr,
        first: r.first,
        count: r.count,
    })
}

/// The counts an `s_waitcnt` (or its SOPK `vmcnt`/`lgkmcnt` form) waits
/// for: (VM_CNT, LGKM_CNT), each None when it does not wait on that
/// counter. gfx11 fields: "15:10 VM_CNT", "9:4 LGKM_CNT" (this module's
/// header). Policy: the SOPK forms with an SGPR operand wait for simm16
/// (the count the compiler emits with `null`).
pub(crate) fn wait_counts(inst: &Inst) -> (Option<usize>, Option<usize>) {
    match inst {
        Inst::Nop {
            name: "s_waitcnt",
            simm16,
        } => (
            Some(((simm16 >> 10) & 0x3f) as usize),
            Some(((simm16 >> 4) & 0x3f) as usize),
        ),
        Inst::Sopk {
            op: Sopk::WaitcntVmcnt,
            simm16,
            ..
        } => (Some(*simm16 as usize), None),
        Inst::Sopk {
            op: Sopk::WaitcntLgkmcnt,
            simm16,
            ..
        } => (None, Some(*simm16 as usize)),
        _ => (None, None),
    }
}

/// One outstanding memory instruction.
#[derive(Clone, Debug)]
struct Outstanding {
    /// SMEM (may return out of order on LGKM_CNT).
    smem: bool,
    /// A DS instruction: it reads or writes LDS, which other waves of the
    /// workgroup see.
    lds: bool,
    dst: Option<Range>,
    pc: u64,
    name: String,
}

/// The outstanding memory instructions of one wave, per counter.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    vm: VecDeque<Outstanding>,
    lgkm: VecDeque<Outstanding>,
}

/// A register used before the memory instruction writing it was waited for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    pub detail: String,
}

impl Pending {
    pub fn clear(&mut self) {
        self.vm.clear();
        self.lgkm.clear();
    }

    /// Whether `inst` (about to execute, with `m0` the wave's M0) touches a
    /// pending destination.
    pub fn check(&self, inst: &Inst, wave64: bool, m0: u32) -> Option<Hazard> {
        if self.vm.is_empty() && self.lgkm.is_empty() {
            return None;
        }
        if matches!(inst, Inst::Barrier) {
            if let Some(o) = self.lgkm.iter().find(|o| o.lds) {
                return Some(Hazard {
                    detail: format!(
                        "s_barrier while `{}` (pc {:#x}) is outstanding: other waves may pass the barrier before its LDS access completes: missing s_waitcnt lgkmcnt(0) (policy BARRIER_PUBLISHES_LDS, emu::hazard)",
                        o.name, o.pc
                    ),
                });
            }
        }
        let (rd, wr) = uses(inst, wave64, m0);
        for (what, regs) in [("reads", &rd), ("overwrites", &wr)] {
            for r in regs.iter() {
                for (cnt, q) in [("vmcnt", &self.vm), ("lgkmcnt", &self.lgkm)] {
                    if let Some((o, d)) = q
                        .iter()
                        .find_map(|o| o.dst.filter(|d| d.overlaps(r)).map(|d| (o, d)))
                    {
                        // The first register both name.
                        let first = r.first.max(d.first);
                        let reg = if r.vgpr {
                            format!("v{first}")
                        } else {
                            sreg(first as u8, 1, wave64)
                        };
                        return Some(Hazard {
                            detail: format!(
                                "{what} {reg} while `{}` (pc {:#x}) that writes it is outstanding: missing s_waitcnt {cnt}",
                                o.name, o.pc
                            ),
                        });
                    }
                }
            }
        }
        None
    }

    /// Account for `inst`, just executed at `pc`.
    pub fn issue(&mut self, inst: &Inst, pc: u64, name: impl FnOnce() -> String) {
        match inst {
            Inst::Smem { .. } | Inst::Ds(_) | Inst::Flat(_) => {
                let (_, wr) = uses(inst, false, 0);
                let dst = wr.iter().next().copied();
                let o = Outstanding {
                    smem: matches!(inst, Inst::Smem { .. }),
                    lds: matches!(inst, Inst::Ds(_)),
                    dst,
                    pc,
                    name: name(),
                };
                match inst {
                    Inst::Flat(f) => {
                        // Stores count on VS_CNT and leave nothing to read.
                        if matches!(f.kind, FlatKind::Load { .. }) {
                            if !f.global {
                                // FLAT counts on both VM_CNT and LGKM_CNT.
                                self.lgkm.push_back(o.clone());
                            }
                            self.vm.push_back(o);
                        }
                    }
                    _ => self.lgkm.push_back(o),
                }
            }
            _ => {
                let (vm, lgkm) = wait_counts(inst);
                if let Some(n) = vm {
                    self.wait_vm(n);
                }
                if let Some(n) = lgkm {
                    self.wait_lgkm(n);
                }
            }
        }
    }

    fn wait_vm(&mut self, n: usize) {
        // In order: all but the n youngest have returned.
        while self.vm.len() > n {
            self.vm.pop_front();
        }
    }

    fn wait_lgkm(&mut self, n: usize) {
        if n == 0 {
            self.lgkm.clear();
            return;
        }
        // LDS returns in order, SMEM in any order: of the len - n that have
        // returned, the LDS ones proven done are the oldest
        // len - n - (outstanding SMEM) of them.
        let smem = self.lgkm.iter().filter(|o| o.smem).count();
        let mut done = self.lgkm.len().saturating_sub(n + smem);
        self.lgkm.retain(|o| {
            if !o.smem && done > 0 {
                done -= 1;
                false
            } else {
                true
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::decode::decode_one;
    use crate::isa::alu::{AluInst, Opnd};

    /// `name` with these operands, encoded by `isa::alu` and decoded as
    /// the software device decodes it.
    fn inst(name: &str, dst: Option<Opnd>, sdst: Option<Opnd>, srcs: Vec<Opnd>) -> Inst {
        let words = AluInst::new(name, dst, sdst, srcs)
            .and_then(|i| i.encode(false))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (i, _) = decode_one(&words);
        assert!(!matches!(i, Inst::Unsupported(_)), "{name}: {i:?}");
        i
    }

    /// Whether `regs` lists SGPR `first` for `count` SGPRs.
    fn lists(regs: &Regs, first: u8, count: u16) -> bool {
        regs.iter()
            .any(|r| !r.vgpr && r.first == first as u16 && r.count == count)
    }

    /// A wave with a scalar load into `sgpr` outstanding.
    fn loading(sgpr: u8) -> Pending {
        let mut p = Pending::default();
        let load = Inst::Smem {
            dwords: 1,
            sdata: sgpr,
            sbase: 0,
            offset: 0,
            soffset: None,
        };
        p.issue(&load, 0x100, || "s_load_b32".into());
        p
    }

    fn hazard(p: &Pending, i: &Inst) -> String {
        p.check(i, false, 0).map(|h| h.detail).unwrap_or_default()
    }

    use Opnd::{S, V};

    /// The implicit operands the hazard checker lists come from the ALU
    /// table's column (`isa::alu::AluOp::implicit`): each case is an
    /// implicit read or write some row declares, seen by the checker as
    /// the register it is.
    #[test]
    fn implicit_operands_are_the_tables() {
        let vcc = loading(VCC_LO);
        let exec = loading(EXEC_LO);
        let m0 = loading(M0);
        // e32 v_cndmask_b32 reads VCC; its e64 form reads only its operand.
        let cnd32 = inst("v_cndmask_b32_e32", Some(V(1)), None, vec![V(2), V(3)]);
        assert!(
            hazard(&vcc, &cnd32).starts_with("reads vcc_lo"),
            "{}",
            hazard(&vcc, &cnd32)
        );
        let cnd64 = inst(
            "v_cndmask_b32_e64",
            Some(V(1)),
            None,
            vec![V(2), V(3), S(4)],
        );
        assert_eq!(hazard(&vcc, &cnd64), "");
        // The e32 carry-in ops read and write VCC.
        let addc = inst("v_add_co_ci_u32_e32", Some(V(1)), None, vec![V(2), V(3)]);
        let (rd, wr) = uses(&addc, false, 0);
        assert!(lists(&rd, VCC_LO, 1) && lists(&wr, VCC_LO, 1));
        // An e32 compare writes VCC; v_cmpx writes EXEC and no VCC.
        let cmp = inst("v_cmp_lt_i32_e32", None, None, vec![V(2), V(3)]);
        assert!(
            hazard(&vcc, &cmp).starts_with("overwrites vcc_lo"),
            "{}",
            hazard(&vcc, &cmp)
        );
        let cmpx = inst("v_cmpx_lt_i32_e32", None, None, vec![V(2), V(3)]);
        let (_, wr) = uses(&cmpx, false, 0);
        assert!(lists(&wr, EXEC_LO, 1) && !lists(&wr, VCC_LO, 1));
        let cmp16 = inst("v_cmp_lt_i16_e32", None, None, vec![V(2), V(3)]);
        let (_, wr) = uses(&cmp16, false, 0);
        assert!(lists(&wr, VCC_LO, 1));
        // Every VALU op reads EXEC, in wave64 both halves; v_readlane_b32
        // does not (LLVM: "do not read the exec mask").
        let mov = inst("v_mov_b32_e32", Some(V(1)), None, vec![V(2)]);
        assert!(
            hazard(&exec, &mov).starts_with("reads exec_lo"),
            "{}",
            hazard(&exec, &mov)
        );
        assert!(lists(&uses(&mov, true, 0).0, EXEC_LO, 2));
        let readlane = inst("v_readlane_b32", Some(S(1)), None, vec![V(2), S(3)]);
        assert_eq!(hazard(&exec, &readlane), "");
        // s_and_saveexec reads and writes EXEC at its own width.
        for (name, d) in [("s_and_saveexec_b32", 1), ("s_and_saveexec_b64", 2)] {
            let save = inst(name, Some(S(4)), None, vec![S(6)]);
            let (rd, wr) = uses(&save, true, 0);
            assert!(lists(&rd, EXEC_LO, d) && lists(&wr, EXEC_LO, d), "{name}");
        }
        // No other SALU op touches EXEC.
        let and = inst("s_and_b32", Some(S(4)), None, vec![S(6), S(7)]);
        assert_eq!(hazard(&exec, &and), "");
        // The M0-relative VGPR and SGPR moves read M0.
        for movrel in [
            inst("v_movrels_b32_e32", Some(V(1)), None, vec![V(2)]),
            inst("s_movrels_b32", Some(S(1)), None, vec![S(2)]),
            inst("s_movreld_b64", Some(S(2)), None, vec![S(4)]),
        ] {
            assert!(
                hazard(&m0, &movrel).starts_with("reads m0"),
                "{movrel:?}: {}",
                hazard(&m0, &movrel)
            );
        }
    }

    /// The SGPRs an M0-relative SALU move reads and writes: s_movreld's
    /// source is a value, read as itself (an SGPR) or not at all (a
    /// constant or literal), its destination indexed; s_movrelsd_2's
    /// source field is an index even when it encodes a constant, which
    /// lands past the SGPRs, so only M0 is listed.
    #[test]
    fn movrel_sources_are_values_or_indices() {
        let listed = |i: &Inst, m0: u32| {
            let (rd, wr) = uses(i, false, m0);
            let all = |r: &Regs| r.iter().map(|g| (g.first, g.count)).collect::<Vec<_>>();
            (all(&rd), all(&wr))
        };
        let m0 = (M0 as u16, 1);
        let d = inst("s_movreld_b32", Some(S(4)), None, vec![S(9)]);
        assert_eq!(listed(&d, 3), (vec![m0, (9, 1)], vec![(7, 1)]));
        let k = inst("s_movreld_b32", Some(S(4)), None, vec![Opnd::Int(-3)]);
        assert_eq!(listed(&k, 3), (vec![m0], vec![(7, 1)]));
        let l = inst(
            "s_movreld_b32",
            Some(S(4)),
            None,
            vec![Opnd::Lit(0x1234_5678)],
        );
        assert_eq!(listed(&l, 3), (vec![m0], vec![(7, 1)]));
        let p = inst("s_movreld_b64", Some(S(4)), None, vec![Opnd::Int(7)]);
        assert_eq!(listed(&p, 2), (vec![m0], vec![(6, 2)]));
        // s_movrelsd_2's register source: indexed by M0[9:0].
        let r = inst("s_movrelsd_2_b32", Some(S(4)), None, vec![S(9)]);
        assert_eq!(listed(&r, 0x2_0001), (vec![m0, (10, 1)], vec![(6, 1)]));
        // Inline constant 5 is code 133: s133 and up, past s105.
        let c = inst("s_movrelsd_2_b32", Some(S(4)), None, vec![Opnd::Int(5)]);
        assert_eq!(listed(&c, 0), (vec![m0], vec![]));
    }
}
