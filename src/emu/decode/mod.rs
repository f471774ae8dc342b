//! gfx11 (RDNA3) machine code → a compact instruction form, decoded once.
//!
//! Encodings and opcode numbers are those of LLVM's gfx11 assembler
//! (llvm/lib/Target/AMDGPU/SOPInstructions.td, VOP1/VOP2/VOP3/VOPC/VOPD
//! Instructions.td, DSInstructions.td, FLATInstructions.td, SMInstructions.td),
//! each checked here with `llvm-mc-22 -mcpu=gfx1100 -show-encoding` on the
//! corpus in tests/emu_data/corpus_gfx11.s (and `llvm-objdump-22 -d` in
//! tests/it/emu_decode_llvm.rs). Anything not in these tables decodes to
//! [`Inst::Unsupported`], which is an error when executed and is counted by
//! the coverage test — never skipped.
//!
//! The vector ALU is grouped by encoding, one op family and one
//! [`Inst`] variant each: VOP1/VOP2/VOP3/VOP3SD are [`VOp`]
//! ([`Inst::Valu`]: an e32 and its e64 promotion are one op), VOPC is
//! [`Cmp`] ([`Inst::Vopc`]), VOP3P is [`P3Op`] ([`Inst::Vop3p`]), VOPD is
//! [`VopdOp`] ([`Inst::Vopd`]). One exception, by operand model: the gfx11
//! true16 16-bit integer ops of VOP1/VOP2/VOP3/VOPC are [`Op16`]
//! ([`Inst::Valu16`]), because their operands are VGPR halves, chosen by
//! bit 7 of an e32's VGPR field or a VOP3's op_sel (LLVM's real-true16
//! `VGPR_16` operands), which no 32-bit op has; in `VOp` every op would
//! carry half selects only they read. Which module runs an op is a
//! property of the op, not of its family: `VOp`'s lane maps and the rest
//! run in `wave::valu`, its lane permutes, M0-relative moves and quad
//! SADs in `vext` ([`VOp::in_vext`]); `P3Op`'s packed and dot ops in
//! `vop3p`, its WMMAs in `wmma`.
//!
//! One concern per file:
//! - `operand.rs`: the source operand ([`Src`]), the register codes, the
//!   inline constants and the scalar operand fields every encoding shares;
//! - `table.rs`: the `ops!` macro an op family is declared with, and each
//!   family's opcode maps and implicit operands, derived from
//!   `isa::alu::ALU_OPS`;
//! - `scalar.rs`: SOP1, SOP2, SOPC, SOPK, SOPP and SMEM (the scalar
//!   families' `ops!` lists);
//! - `vector.rs`: VOP1, VOP2, VOP3, VOP3SD, VOPC and VOPD ([`VOp`]'s `ops!`
//!   list, [`Cmp`], [`VopdOp`]);
//! - `true16.rs`: the true16 16-bit integer ops ([`Op16`]);
//! - `vop3p.rs`: VOP3P ([`P3Op`]'s `ops!` list);
//! - `memory.rs`: DS, FLAT and GLOBAL ([`Ds`], [`Flat`]);
//! - this file: the decoded form ([`Inst`]), the choice of encoding
//!   ([`decode_one`]) and the decoding of a whole `.text` or of one kernel
//!   ([`decode_text`], [`decode_kernel`]).

use std::fmt;

use crate::isa::alu::Implicit;

mod memory;
mod operand;
mod scalar;
mod table;
mod true16;
mod vector;
mod vop3p;

pub use memory::{ds_kind, ds_opcode, AtomicOp, Ds, DsKind, Flat, FlatKind};
pub use operand::{inline_const32, inline_const64, Src, EXEC_LO, M0, NULL, VCC_LO};
pub(crate) use scalar::{sop1_each, sop2_each, sopc_each, sopk_each};
pub use scalar::{
    Cond, HwregOp, SMovrel, Sop1, Sop2, Sopc, Sopk, MOVREL_SGPRS, POLICY_MOVREL_PAST_SGPRS_FAULTS,
    POLICY_NO_DEBUGGER,
};
pub use true16::{Op16, V16, W16};
pub(crate) use vector::{vext_ops, vop_each};
pub use vector::{Cmp, VOp, VopdHalf, VopdOp};
pub use vop3p::{P3Inst, P3Kind, P3Op};

use memory::{decode_ds, decode_flat};
use scalar::{decode_smem, decode_sop1, decode_sop2, decode_sopc, decode_sopk, decode_sopp};
use vector::{decode_vop1, decode_vop2, decode_vop3, decode_vopc, decode_vopd};
use vop3p::decode_vop3p;

/// Which encoding a VALU instruction came in (for its printed name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VEnc {
    E32,
    E64,
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    Sop2 {
        op: Sop2,
        sdst: u8,
        s0: Src,
        s1: Src,
    },
    Sopk {
        op: Sopk,
        sdst: u8,
        simm16: u16,
    },
    Sop1 {
        op: Sop1,
        sdst: u8,
        s0: Src,
    },
    Sopc {
        op: Sopc,
        s0: Src,
        s1: Src,
    },
    /// An instruction with no architectural effect here: s_nop, s_clause,
    /// s_delay_alu, s_waitcnt* (no effect of its own: the run loops land the
    /// results a wait covers, `emu::late`; see
    /// `emu::wave`'s header; `emu::hazard` checks the waits a GPU needs),
    /// s_set_inst_prefetch_distance, cache invalidations, hints.
    Nop {
        name: &'static str,
        simm16: u16,
    },
    Branch {
        cond: Cond,
        simm16: i16,
        target: Option<u32>,
    },
    Barrier,
    Endpgm,
    /// s_endpgm_saved: ends the wave like s_endpgm.
    EndpgmSaved,
    Sendmsg {
        simm16: u16,
    },
    /// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 (SOPK 17/18/19):
    /// `sreg` is the destination of a get and the source of a set; `imm32`
    /// the literal of s_setreg_imm32_b32. Semantics in [`super::hwreg`].
    Hwreg {
        op: HwregOp,
        sreg: u8,
        simm16: u16,
        imm32: u32,
    },
    /// s_call_b64 (SOPK 20): `D0.i64 = PC + 4; PC = PC + signext(SIMM16 *
    /// 4) + 4` (RDNA3 ISA guide, S_CALL_B64), `target` resolved like a
    /// branch's.
    Call {
        sdst: u8,
        simm16: i16,
        target: Option<u32>,
    },
    /// SGPR-relative moves indexed by M0 (SOP1 64..68): `sdst` is the
    /// SGPR number the index is added to, as is `s0`'s field for
    /// s_movrels and s_movrelsd_2 ([`SMovrel::indices`]); s_movreld's `s0`
    /// is the value moved.
    SMovrel {
        op: SMovrel,
        sdst: u8,
        s0: Src,
    },
    /// Executing it is a fault (s_trap, s_code_end padding, s_sethalt).
    Trap {
        name: &'static str,
        simm16: u16,
    },
    Smem {
        dwords: u8,
        sdata: u8,
        sbase: u8,
        offset: i32,
        soffset: Option<u8>,
    },
    Valu {
        op: VOp,
        enc: VEnc,
        vdst: u8,
        sdst: u8,
        src: [Src; 3],
        /// The VOP3 op_sel field, which only v_permlane*16 may set (bit 0
        /// fetch-inactive, bit 1 bound-ctrl); 0 otherwise.
        op_sel: u8,
    },
    Vopc {
        cmp: Cmp,
        cmpx: bool,
        enc: VEnc,
        sdst: u8,
        src0: Src,
        src1: Src,
    },
    Vopd {
        x: VopdHalf,
        y: VopdHalf,
    },
    Ds(Ds),
    Flat(Flat),
    /// A 16-bit integer VALU instruction (true16 halves; [`super::valu16`]).
    Valu16(Box<V16>),
    /// A VOP3P instruction ([`P3Inst`], executed by `src/emu/vop3p.rs`).
    Vop3p(Box<P3Inst>),
    /// Not supported by the software device: an error if executed.
    Unsupported(Box<Unsupported>),
}

/// Why an instruction word is not supported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// Encoding family (SOP2, VOP3, DS, ...).
    pub encoding: &'static str,
    pub opcode: u32,
    /// Mnemonic when known (e.g. a DS or FLAT opcode this device does not model).
    pub mnemonic: Option<String>,
    /// What exactly is missing.
    pub reason: String,
    pub words: Vec<u32>,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.words.iter().map(|w| format!("{w:08x}")).collect();
        write!(
            f,
            "{} ({} opcode {}, words {}): {}",
            self.mnemonic.as_deref().unwrap_or("unknown instruction"),
            self.encoding,
            self.opcode,
            words.join(" "),
            self.reason
        )
    }
}

impl Inst {
    /// The implicit operands (SCC, VCC, EXEC, M0) of the table row
    /// (`isa::alu::ALU_OPS`; for a VOPD, both halves' `VOPD_OPS` rows) this
    /// instruction was decoded from; None for an instruction the table has
    /// no row for (SOPP, SMEM, DS, FLAT, the hardware-register moves),
    /// whose implicit operands the caller knows from the instruction's
    /// kind.
    pub fn implicit(&self) -> Option<Implicit> {
        match self {
            Inst::Sop2 { op, .. } => Some(op.implicit()),
            Inst::Sopk { op, .. } => Some(op.implicit()),
            Inst::Sop1 { op, .. } => Some(op.implicit()),
            Inst::Sopc { op, .. } => Some(op.implicit()),
            Inst::SMovrel { op, .. } => Some(op.implicit()),
            Inst::Valu { op, enc, .. } => Some(op.implicit(*enc)),
            Inst::Vopc { cmp, cmpx, enc, .. } => cmp.implicit(*cmpx, *enc),
            Inst::Valu16(v) => v.op.implicit(v.enc),
            Inst::Vop3p(p) => Some(p.op.implicit()),
            Inst::Vopd { x, y } => Some(x.op.implicit().with(y.op.implicit())),
            _ => None,
        }
    }

    /// The mnemonic as llvm-objdump prints it (with `_e32`/`_e64` where it
    /// prints one); for VOPD both halves joined by ` :: `.
    pub fn mnemonic(&self) -> String {
        match self {
            Inst::Sop2 { op, .. } => op.name().into(),
            Inst::Sopk { op, .. } => op.name().into(),
            Inst::Sop1 { op, .. } => op.name().into(),
            Inst::Sopc { op, .. } => op.name().into(),
            Inst::Nop { name, .. } | Inst::Trap { name, .. } => (*name).into(),
            Inst::Branch { cond, .. } => cond.name().into(),
            Inst::Barrier => "s_barrier".into(),
            Inst::Endpgm => "s_endpgm".into(),
            Inst::EndpgmSaved => "s_endpgm_saved".into(),
            Inst::Sendmsg { .. } => "s_sendmsg".into(),
            Inst::Hwreg { op, .. } => op.name().into(),
            Inst::Call { .. } => "s_call_b64".into(),
            Inst::SMovrel { op, .. } => op.name().into(),
            Inst::Smem { dwords, .. } => format!("s_load_b{}", *dwords as u32 * 32),
            Inst::Valu { op, enc, .. } => {
                // llvm-objdump: `_e32`/`_e64` on forms that have both
                // encodings, none on VOP3-only or VOP1-only ones, none on
                // v_nop and e32 v_readfirstlane_b32.
                match enc {
                    _ if *op == VOp::Nop => op.name().into(),
                    VEnc::E32 if *op == VOp::ReadfirstlaneB32 || op.vop1_only() => op.name().into(),
                    VEnc::E32 => format!("{}_e32", op.name()),
                    VEnc::E64 if op.vop3_only() => op.name().into(),
                    VEnc::E64 => format!("{}_e64", op.name()),
                }
            }
            Inst::Vopc { cmp, cmpx, enc, .. } => {
                let sfx = if *enc == VEnc::E32 { "_e32" } else { "_e64" };
                format!("{}{sfx}", cmp.name(*cmpx))
            }
            Inst::Vopd { x, y } => format!("{} :: {}", x.op.name(), y.op.name()),
            Inst::Ds(d) => d.name.into(),
            Inst::Flat(f) => f.name.into(),
            Inst::Valu16(v) => v.mnemonic(),
            Inst::Vop3p(p) => p.op.name().into(),
            Inst::Unsupported(u) => u.mnemonic.clone().unwrap_or_else(|| "<unsupported>".into()),
        }
    }
}

/// Decoded `.text`: instructions in address order.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// Address (in the code object's virtual address space) of each instruction.
    pub pcs: Vec<u64>,
    pub insts: Vec<Inst>,
    /// Size in bytes of each instruction.
    pub sizes: Vec<u8>,
    /// Address of the first byte of the decoded text.
    pub base: u64,
    /// For each 4-byte word of the text, the index of the instruction that
    /// starts there, or `u32::MAX` inside an instruction.
    pub index_of_word: Vec<u32>,
    /// One past the highest VGPR any instruction names (with room for its
    /// widest operand): registers above are never touched by this program.
    pub vgpr_limit: usize,
    /// The interpreter's pre-resolved form of each instruction
    /// ([`super::wave::op_for`]), made once here; a placeholder where it
    /// has none.
    pub ops: Vec<super::wave::Op>,
    /// For each instruction, how many instructions from it on have an
    /// `Op` (0: it has none) and are not the compare of a fused
    /// compare-and-branch: the straight runs the interpreter executes as a
    /// block.
    pub runs: Vec<u32>,
    /// For each instruction, how the block loop goes on when a run stops
    /// there ([`super::wave::exits_for`]): a resolved branch, a fused
    /// scalar compare and branch, or the generic path.
    pub exits: Vec<super::wave::Exit>,
}

impl Decoded {
    /// Instruction index at byte address `pc`, if an instruction starts there.
    pub fn index_at(&self, pc: u64) -> Option<u32> {
        let off = pc.checked_sub(self.base)?;
        if off % 4 != 0 {
            return None;
        }
        let i = *self.index_of_word.get((off / 4) as usize)?;
        (i != u32::MAX).then_some(i)
    }
}

/// Policy (software device): a launched kernel's program is its own code
/// alone when that code cannot leave itself, else the whole `.text`
/// ([`decode_kernel`]).
pub const POLICY_DECODE_KERNEL_RANGE: &str = "decode-kernel-range";

/// Decode what the kernel whose code is `[entry, entry + size)` can run:
/// that range alone when it is closed (every branch lands inside it; no
/// `s_call_b64`, `s_setpc_b64` or `s_swappc_b64`, whose targets may lie
/// elsewhere; its last instruction ends the wave or branches back), else the
/// whole of `text` as [`decode_text`] does. The range is the kernel's
/// `STT_FUNC` symbol (AMDGPUUsage.rst, "AMDGPU ELF Symbols": the kernel entry
/// point in `.text`; its `st_size` per the ELF gABI), as
/// `codeobj::Kernel::code_size` gives it. A code object holds every kernel
/// of its source (dsxor's: 23 kernels, 16 KiB of `.text`), and a device
/// keeps each loaded object's program, so decoding only what a launch runs
/// keeps a device's memory to the kernels it launches
/// ([`POLICY_DECODE_KERNEL_RANGE`]). A wave that still left the range would
/// stop with [`super::WaveError::PcOutsideText`], never run other bytes.
pub fn decode_kernel(text: &[u8], base: u64, entry: u64, size: u64) -> Decoded {
    let range = entry
        .checked_sub(base)
        .filter(|off| off.is_multiple_of(4) && size > 0 && size.is_multiple_of(4))
        .and_then(|off| Some((off as usize, usize::try_from(off.checked_add(size)?).ok()?)))
        .filter(|&(start, end)| end <= text.len() && start < end);
    if let Some((start, end)) = range {
        let d = decode_text(&text[start..end], entry);
        if stays_inside(&d) {
            return d;
        }
    }
    decode_text(text, base)
}

/// [`decode_kernel`] for `kernel` of the code object `co`: its `.text`,
/// its entry and its code size. The one way both software devices (the
/// software device backend and the software HIP runtime) decode a launch.
pub fn decode_kernel_of(
    co: &crate::codeobj::CodeObject,
    kernel: &crate::codeobj::Kernel,
) -> Result<Decoded, crate::codeobj::CodeObjectError> {
    let text = co.text()?;
    Ok(decode_kernel(
        text.bytes,
        text.vaddr,
        kernel.entry_vaddr,
        kernel.code_size,
    ))
}

/// Whether a decoded range's control flow stays in it ([`decode_kernel`]).
fn stays_inside(d: &Decoded) -> bool {
    let leaves = d.insts.iter().any(|i| match i {
        Inst::Branch { target, .. } => target.is_none(),
        Inst::Call { .. } => true,
        Inst::Sop1 { op, .. } => matches!(op, Sop1::SetpcB64 | Sop1::SwappcB64),
        _ => false,
    });
    let ends = matches!(
        d.insts.last(),
        Some(
            Inst::Endpgm
                | Inst::EndpgmSaved
                | Inst::Branch {
                    cond: Cond::Always,
                    ..
                }
        )
    );
    !leaves && ends
}

/// Decode the whole of `text` (the bytes of `.text`, loaded at `base`).
/// Never fails: words that are not understood become [`Inst::Unsupported`].
pub fn decode_text(text: &[u8], base: u64) -> Decoded {
    let words: Vec<u32> = text
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect();
    let mut out = Decoded {
        pcs: Vec::new(),
        insts: Vec::new(),
        sizes: Vec::new(),
        base,
        index_of_word: vec![u32::MAX; words.len()],
        vgpr_limit: 1,
        ops: Vec::new(),
        runs: Vec::new(),
        exits: Vec::new(),
    };
    let mut i = 0usize;
    while i < words.len() {
        let (inst, n) = decode_one(&words[i..]);
        if let Some(slot) = out.index_of_word.get_mut(i) {
            *slot = out.insts.len() as u32;
        }
        out.pcs.push(base + 4 * i as u64);
        out.sizes.push((4 * n) as u8);
        out.insts.push(inst);
        i += n.max(1);
    }
    out.vgpr_limit = out.insts.iter().map(vgpr_extent).max().unwrap_or(0).max(1);
    // Resolve branch targets to instruction indices once.
    for k in 0..out.insts.len() {
        let simm = match &out.insts[k] {
            Inst::Branch { simm16, .. } | Inst::Call { simm16, .. } => *simm16,
            _ => continue,
        };
        let pc = out.pcs[k] as i64 + 4 + 4 * (simm as i64);
        let t = if pc >= 0 {
            out.index_at(pc as u64)
        } else {
            None
        };
        if let Inst::Branch { target, .. } | Inst::Call { target, .. } = &mut out.insts[k] {
            *target = t;
        }
    }
    let ops: Vec<Option<super::wave::Op>> = out.insts.iter().map(super::wave::op_for).collect();
    out.exits = super::wave::exits_for(&out.insts);
    out.runs = vec![0; ops.len()];
    for k in (0..ops.len()).rev() {
        // A fused compare ends the run before it: the block loop runs it
        // with its branch.
        let fused = matches!(out.exits[k], super::wave::Exit::CmpBranch { .. });
        if ops[k].is_some() && !fused {
            out.runs[k] = 1 + out.runs.get(k + 1).copied().unwrap_or(0);
        }
    }
    out.ops = ops
        .into_iter()
        .map(|o| o.unwrap_or_else(super::wave::no_op))
        .collect();
    out
}

/// One past the highest VGPR `inst` may touch (every operand counted as
/// four registers wide, an over-estimate that is always safe).
fn vgpr_extent(inst: &Inst) -> usize {
    let v = |s: &Src| match s {
        Src::V(r) => *r as usize + 4,
        _ => 0,
    };
    let r = |x: u8| x as usize + 4;
    match inst {
        // An M0-relative move may touch any VGPR.
        Inst::Valu { op, .. } if op.movrel() => super::wave::VGPRS,
        Inst::Valu { vdst, src, .. } => r(*vdst).max(src.iter().map(v).max().unwrap_or(0)),
        Inst::Vopc { src0, src1, .. } => v(src0).max(v(src1)),
        Inst::Valu16(x) => {
            let d = if matches!(x.op, Op16::Cmp { .. }) {
                0
            } else {
                r(x.vdst)
            };
            d.max(x.src.iter().map(v).max().unwrap_or(0))
        }
        Inst::Vopd { x, y } => [
            r(x.vdst),
            r(y.vdst),
            v(&x.src0),
            v(&y.src0),
            r(x.vsrc1),
            r(y.vsrc1),
        ]
        .into_iter()
        .max()
        .unwrap_or(0),
        Inst::Ds(d) => [r(d.addr), r(d.data0), r(d.data1), r(d.vdst)]
            .into_iter()
            .max()
            .unwrap_or(0),
        Inst::Flat(f) => [r(f.vaddr), r(f.vdata), r(f.vdst)]
            .into_iter()
            .max()
            .unwrap_or(0),
        // A wave32 WMMA's C and D are 8 VGPRs.
        Inst::Vop3p(p) if p.op.kind() == P3Kind::Wmma => {
            (p.vdst as usize + 8).max(p.src.iter().map(v).max().unwrap_or(0) + 4)
        }
        Inst::Vop3p(p) => r(p.vdst).max(p.src.iter().map(v).max().unwrap_or(0)),
        _ => 0,
    }
}

fn unsupported(
    encoding: &'static str,
    opcode: u32,
    mnemonic: Option<String>,
    reason: impl Into<String>,
    words: &[u32],
) -> Inst {
    Inst::Unsupported(Box::new(Unsupported {
        encoding,
        opcode,
        mnemonic,
        reason: reason.into(),
        words: words.to_vec(),
    }))
}

/// Decode one instruction from `w` (at least one word). Returns the
/// instruction and its length in words.
pub fn decode_one(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let w1 = w.get(1).copied();
    if w0 >> 23 == 0x17d {
        return decode_sop1(w);
    }
    if w0 >> 23 == 0x17e {
        return decode_sopc(w);
    }
    if w0 >> 23 == 0x17f {
        return (decode_sopp(w0), 1);
    }
    if w0 >> 28 == 0xb {
        return decode_sopk(w);
    }
    if w0 >> 30 == 0b10 {
        return decode_sop2(w);
    }
    if w0 >> 25 == 0x3f {
        return decode_vop1(w);
    }
    if w0 >> 25 == 0x3e {
        return decode_vopc(w);
    }
    if w0 >> 31 == 0 {
        return decode_vop2(w);
    }
    let Some(w1v) = w1 else {
        return (
            unsupported(
                "?",
                0,
                None,
                "64-bit encoding truncated at the end of .text",
                &w[..1],
            ),
            1,
        );
    };
    match w0 >> 26 {
        0b111101 => (decode_smem(w0, w1v), 2),
        0b110101 => decode_vop3(w),
        0b110010 => decode_vopd(w),
        0b110110 => (decode_ds(w0, w1v), 2),
        0b110111 => (decode_flat(w0, w1v), 2),
        0b110011 => decode_vop3p(w),
        // buffer_gl0_inv / buffer_gl1_inv (MUBUF opcodes 43/44, no operands):
        // cache invalidations, nothing to do for memory that has no caches.
        0b111000 if w1v == 0 && (w0 & 0x03ff_ffff) == 43 << 18 => (
            Inst::Nop {
                name: "buffer_gl0_inv",
                simm16: 0,
            },
            2,
        ),
        0b111000 if w1v == 0 && (w0 & 0x03ff_ffff) == 44 << 18 => (
            Inst::Nop {
                name: "buffer_gl1_inv",
                simm16: 0,
            },
            2,
        ),
        0b111000 | 0b111001 => (
            unsupported(
                "MUBUF/MTBUF",
                (w0 >> 18) & 0xff,
                None,
                "buffer instructions are not modelled",
                &w[..2],
            ),
            2,
        ),
        0b111100 => (
            unsupported(
                "MIMG",
                (w0 >> 18) & 0xff,
                None,
                "image instructions are not modelled",
                &w[..2],
            ),
            2,
        ),
        _ => (
            unsupported("?", w0 >> 26, None, "unknown encoding", &w[..1]),
            1,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel's range is decoded alone only when nothing in it can leave
    /// it; otherwise the whole text (policy decode-kernel-range). Each word
    /// is checked to decode as what it stands for, so a wrong encoding here
    /// fails rather than testing nothing (the encodings: llvm-mc-22
    /// -mcpu=gfx1100 -show-encoding).
    #[test]
    fn a_kernel_range_is_decoded_alone_only_when_closed() {
        const NOP: u32 = 0xbf80_0000; // s_nop 0
        const END: u32 = 0xbfb0_0000; // s_endpgm
        const BRANCH: u32 = 0xbfa0_0000; // s_branch, SIMM16 in the low half
        const CALL: u32 = 0xba00_0000; // s_call_b64 s[0:1], SIMM16 low
        const SETPC: u32 = 0xbe80_4800; // s_setpc_b64 s[0:1]
        let bytes = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let base = 0x1000;
        // Kernel at word 0, two words; a second function after it.
        let cases: [(&str, [u32; 4], bool); 6] = [
            ("ends in s_endpgm", [NOP, END, NOP, END], true),
            ("loops back", [NOP, BRANCH | 0xfffe, NOP, END], true),
            ("falls off its end", [NOP, NOP, NOP, END], false),
            ("branches past its end", [BRANCH | 1, END, NOP, END], false),
            ("calls out", [CALL | 1, END, NOP, END], false),
            ("sets the pc", [SETPC, END, NOP, END], false),
        ];
        for (what, words, alone) in cases {
            let whole = decode_text(&bytes(&words), base);
            assert!(
                !whole
                    .insts
                    .iter()
                    .any(|i| matches!(i, Inst::Unsupported(_))),
                "{what}: {:?}",
                whole.insts
            );
            let d = decode_kernel(&bytes(&words), base, base, 8);
            let want = if alone { 2 } else { 4 };
            assert_eq!(d.insts.len(), want, "{what}");
            assert_eq!(d.pcs[0], base, "{what}");
        }
        assert!(matches!(
            decode_text(&bytes(&[CALL | 1]), base).insts[0],
            Inst::Call { .. }
        ));
        assert!(matches!(
            decode_text(&bytes(&[SETPC]), base).insts[0],
            Inst::Sop1 {
                op: Sop1::SetpcB64,
                ..
            }
        ));
        // A range outside the text, or not whole words: the whole text.
        let words = bytes(&[NOP, END, NOP, END]);
        assert_eq!(decode_kernel(&words, base, base + 16, 8).insts.len(), 4);
        assert_eq!(decode_kernel(&words, base, base, 6).insts.len(), 4);
        assert_eq!(decode_kernel(&words, base, base - 4, 8).insts.len(), 4);
        // The second function alone.
        let d = decode_kernel(&words, base, base + 8, 8);
        assert_eq!((d.insts.len(), d.pcs[0]), (2, base + 8));
    }
}
