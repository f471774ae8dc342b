//! The pre-resolved handlers: per instruction, made once at decode time, the
//! per-opcode semantics with the opcode and the operand kinds fixed, which
//! the block loop of [`Wave::run`] calls.

use super::operand::{ResolvedSrc, Spec};
use super::salu::is_sop1_data;
use super::valu::is_lane_map;
use super::Wave;
use crate::emu::decode::{
    sop1_each, sop2_each, sopc_each, sopk_each, vop_each, Cmp, Inst, Sop1, Sop2, Sopc, Sopk, Src,
    VOp, VopdHalf,
};

/// An instruction pre-resolved for the block loop of [`Wave::run`]: the
/// handler of its opcode and its operands resolved at decode time (see
/// [`ResolvedSrc`]), made once per code object by [`op_for`] and kept in
/// [`Decoded::ops`]. Each handler is the per-opcode semantics (`sop2`,
/// `valu_map`, ...) instantiated with its opcode fixed and with [`ResolvedSrc`]
/// operands, so neither the opcode nor the operand kinds are matched again
/// when it runs. A handler always completes, never fails and never moves
/// the program counter: anything else (branches, memory, DS, program flow,
/// src_scc/vccz/execz operands) has no `Op` and runs through
/// [`Wave::exec_generic`].
///
/// [`Decoded::ops`]: crate::emu::decode::Decoded::ops
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub f: OpFn,
    /// Destination register (SGPR or VGPR number).
    pub d: u8,
    pub src: [ResolvedSrc; 3],
    /// The fields of the forms whose handler reads them as decoded.
    pub ext: Ext,
}

/// Decoded fields an [`Op`] carries for the forms whose semantics take
/// them as decoded (VOPC, VOPD), so the block loop passes the handler only
/// its `Op`.
#[derive(Clone, Copy, Debug)]
pub enum Ext {
    None,
    Vopc {
        cmp: Cmp,
        cmpx: bool,
        sdst: u8,
        src0: Src,
        src1: Src,
    },
    Vopd {
        x: VopdHalf,
        y: VopdHalf,
    },
}

/// See [`Op`].
pub type OpFn = fn(&mut Wave, &Op);

/// Placeholder `Op` of instructions without a handler (never run: the
/// block lengths in [`Decoded::runs`] stop before them).
///
/// [`Decoded::runs`]: crate::emu::decode::Decoded::runs
pub fn no_op() -> Op {
    fn unused(_: &mut Wave, _: &Op) {}
    Op {
        f: unused,
        d: 0,
        src: [ResolvedSrc::ZERO; 3],
        ext: Ext::None,
    }
}

/// One handler per opcode of enum `$e`, whose variants come first (from
/// the family's `*_each!`, so every opcode is listed): `$body` with `$o`
/// bound to the opcode as a constant.
macro_rules! per_op {
    // Scalar: one handler per opcode and per kind of its first two
    // operands (`$sel`: whether each is fixed by the encoding), `$a`/`$b`
    // bound to them as `Spec` operands.
    ([$($v:ident),* $(,)?] $op:expr, $e:ident, $sel:expr,
     |$w:ident, $p:ident, $o:ident, $a:ident, $b:ident| $body:expr) => {
        match $op {
            $($e::$v => {
                fn h<const A: bool, const B: bool>($w: &mut Wave, $p: &Op) {
                    const $o: $e = $e::$v;
                    let ($a, $b) = (Spec::<A>($p.src[0]), Spec::<B>($p.src[1]));
                    $body
                }
                Some(match $sel {
                    (false, false) => h::<false, false> as OpFn,
                    (false, true) => h::<false, true> as OpFn,
                    (true, false) => h::<true, false> as OpFn,
                    (true, true) => h::<true, true> as OpFn,
                })
            })*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    // Vector: one handler per opcode for the baseline target and, on
    // x86_64, one compiled for AVX2 (`$avx2`: use it), so the 32/64-lane
    // loops run on 256-bit vectors with AVX2's per-lane variable shifts
    // and 32-bit multiplies and min/max where the CPU has them.
    ([$($v:ident),* $(,)?] $op:expr, $e:ident, avx2: $avx2:expr,
     |$w:ident, $p:ident, $o:ident| $body:expr) => {
        match $op {
            $($e::$v => {
                #[inline(always)]
                fn body($w: &mut Wave, $p: &Op) {
                    const $o: $e = $e::$v;
                    $body
                }
                fn h(w: &mut Wave, p: &Op) {
                    body(w, p)
                }
                #[cfg(target_arch = "x86_64")]
                fn h_avx2(w: &mut Wave, p: &Op) {
                    #[target_feature(enable = "avx2")]
                    fn inner(w: &mut Wave, p: &Op) {
                        body(w, p)
                    }
                    // SAFETY: op_for_isa hands this handler out only when
                    // the running CPU has AVX2 (is_x86_feature_detected).
                    unsafe { inner(w, p) }
                }
                #[cfg(target_arch = "x86_64")]
                let f = if $avx2 { h_avx2 as OpFn } else { h as OpFn };
                #[cfg(not(target_arch = "x86_64"))]
                let f = { let _ = $avx2; h as OpFn };
                Some(f)
            })*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
}

/// The pre-resolved form of `inst` (see [`Op`]), or None when it runs
/// through the generic path. Adding an instruction: its semantics go in the
/// per-class function (`sop2`, `sop1_data`, `sopk`, `sopc`,
/// `valu_map`/`valu_other`, ...), which both paths call. Nothing is listed
/// here: every opcode of the SOP2, SOP1, SOPK and SOPC families and every
/// per-lane VALU map gets a handler (the families' `*_each!`); the opcodes
/// that run only through the generic path are the ones the semantics
/// decline by name (`moves_pc!`, `not_lane_maps!`).
pub fn op_for(inst: &Inst) -> Option<Op> {
    op_for_isa(inst, avx2())
}

/// Whether this CPU runs the AVX2 vector handlers (detected once; std
/// caches the CPUID answer).
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`op_for`] with the vector handlers' instruction set chosen: the AVX2
/// ones when `avx2` and the CPU has it, else the baseline ones (the test
/// compares both with the generic path).
pub fn op_for_isa(inst: &Inst, avx2: bool) -> Option<Op> {
    let avx2 = avx2 && self::avx2();
    let z = ResolvedSrc::ZERO;
    let (f, d, src) = match inst {
        Inst::Sop2 { op, sdst, s0, s1 } => {
            let (a0, a1) = (ResolvedSrc::of(*s0)?, ResolvedSrc::of(*s1)?);
            (
                sop2_each!(per_op!(
                    *op,
                    Sop2,
                    (a0.fixed32, a1.fixed32),
                    |w, p, OP, a, b| w.sop2(OP, p.d, a, b)
                )),
                *sdst,
                [a0, a1, z],
            )
        }
        Inst::Sop1 { op, sdst, s0 } if is_sop1_data(*op) => {
            let a0 = ResolvedSrc::of(*s0)?;
            (
                sop1_each!(per_op!(*op, Sop1, (a0.fixed32, true), |w, p, OP, a, _b| {
                    // Only handed out for sop1_data's opcodes (the
                    // match guard).
                    let done = w.sop1_data(OP, p.d, a);
                    debug_assert!(done);
                })),
                *sdst,
                [a0, z, z],
            )
        }
        Inst::Sopk { op, sdst, simm16 } => (
            sopk_each!(per_op!(*op, Sopk, (true, true), |w, p, OP, _a, _b| w.sopk(
                OP,
                p.d,
                p.src[0].imm32 as u16
            ))),
            *sdst,
            [ResolvedSrc::imm(*simm16 as u32, *simm16 as u64), z, z],
        ),
        Inst::Sopc { op, s0, s1 } => {
            let (a0, a1) = (ResolvedSrc::of(*s0)?, ResolvedSrc::of(*s1)?);
            (
                sopc_each!(per_op!(
                    *op,
                    Sopc,
                    (a0.fixed32, a1.fixed32),
                    |w, p, OP, a, b| {
                        let _ = p;
                        w.sopc(OP, a, b)
                    }
                )),
                0,
                [a0, a1, z],
            )
        }
        Inst::Nop { .. } => {
            fn nop(_: &mut Wave, _: &Op) {}
            (Some(nop as OpFn), 0, [z; 3])
        }
        Inst::Valu { op, vdst, src, .. } if is_lane_map(*op) => (
            vop_each!(per_op!(
                *op,
                VOp,
                avx2: avx2,
                |w, p, OP| {
                    // Only handed out for valu_map's opcodes (the match
                    // guard).
                    let done = w.valu_map(OP, p.d, &p.src);
                    debug_assert!(done);
                }
            )),
            *vdst,
            [
                ResolvedSrc::of(src[0])?,
                ResolvedSrc::of(src[1])?,
                ResolvedSrc::of(src[2])?,
            ],
        ),
        &Inst::Vopc {
            cmp,
            cmpx,
            sdst,
            src0,
            src1,
            ..
        } => {
            fn vopc(w: &mut Wave, p: &Op) {
                if let Ext::Vopc {
                    cmp,
                    cmpx,
                    sdst,
                    src0,
                    src1,
                } = p.ext
                {
                    w.vopc(cmp, cmpx, sdst, src0, src1);
                }
            }
            let ext = Ext::Vopc {
                cmp,
                cmpx,
                sdst,
                src0,
                src1,
            };
            return Some(Op {
                f: vopc,
                d: 0,
                src: [z; 3],
                ext,
            });
        }
        &Inst::Vopd { x, y } => {
            fn vopd(w: &mut Wave, p: &Op) {
                if let Ext::Vopd { x, y } = &p.ext {
                    w.vopd(x, y);
                }
            }
            return Some(Op {
                f: vopd,
                d: 0,
                src: [z; 3],
                ext: Ext::Vopd { x, y },
            });
        }
        _ => return None,
    };
    Some(Op {
        f: f?,
        d,
        src,
        ext: Ext::None,
    })
}
