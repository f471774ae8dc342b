//! The pre-resolved handlers: per instruction, made once at decode time, the
//! per-opcode semantics with the opcode and the operand kinds fixed, which
//! the block loop of [`Wave::run`] calls.

use super::operand::{ResolvedSrc, Spec};
use super::Wave;
use crate::emu::decode::{Cmp, Inst, Sop1, Sop2, Sopc, Sopk, Src, VOp, VopdHalf};

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

/// One handler per listed opcode of enum `$e`: `$body` with `$o` bound to
/// the opcode as a constant. Opcodes not listed get None.
macro_rules! per_op {
    // Scalar: one handler per opcode and per kind of its first two
    // operands (`$sel`: whether each is fixed by the encoding), `$a`/`$b`
    // bound to them as `Spec` operands.
    ($op:expr, $e:ident, [$($v:ident),* $(,)?], $sel:expr,
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
    ($op:expr, $e:ident, [$($v:ident),* $(,)?], avx2: $avx2:expr,
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
/// `valu_map`/`valu_other`, ...), which both paths call; listing its opcode
/// here only gives it a handler of its own (unlisted opcodes run through
/// the generic path, correct but slower).
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
                per_op!(
                    *op,
                    Sop2,
                    [
                        AddU32,
                        SubU32,
                        AddI32,
                        SubI32,
                        AddcU32,
                        SubbU32,
                        AbsdiffI32,
                        LshlB32,
                        LshlB64,
                        LshrB32,
                        LshrB64,
                        AshrI32,
                        AshrI64,
                        Lshl1AddU32,
                        Lshl2AddU32,
                        Lshl3AddU32,
                        Lshl4AddU32,
                        MinI32,
                        MinU32,
                        MaxI32,
                        MaxU32,
                        AndB32,
                        AndB64,
                        OrB32,
                        OrB64,
                        XorB32,
                        XorB64,
                        NandB32,
                        NandB64,
                        NorB32,
                        NorB64,
                        XnorB32,
                        XnorB64,
                        AndNot1B32,
                        AndNot1B64,
                        OrNot1B32,
                        OrNot1B64,
                        BfeU32,
                        BfeI32,
                        BfeU64,
                        BfeI64,
                        BfmB32,
                        BfmB64,
                        MulI32,
                        MulHiU32,
                        MulHiI32,
                        CselectB32,
                        CselectB64,
                        PackLlB32B16,
                        PackLhB32B16,
                        PackHhB32B16,
                        PackHlB32B16,
                    ],
                    (a0.fixed32, a1.fixed32),
                    |w, p, OP, a, b| w.sop2(OP, p.d, a, b)
                ),
                *sdst,
                [a0, a1, z],
            )
        }
        Inst::Sop1 { op, sdst, s0 } => {
            let a0 = ResolvedSrc::of(*s0)?;
            (
                per_op!(
                    *op,
                    Sop1,
                    [
                        MovB32,
                        MovB64,
                        CmovB32,
                        CmovB64,
                        BrevB32,
                        BrevB64,
                        CtzI32B32,
                        CtzI32B64,
                        ClzI32U32,
                        ClzI32U64,
                        ClsI32,
                        ClsI32I64,
                        SextI32I8,
                        SextI32I16,
                        Bitset0B32,
                        Bitset0B64,
                        Bitset1B32,
                        Bitset1B64,
                        BitreplicateB64B32,
                        AbsI32,
                        QuadmaskB32,
                        QuadmaskB64,
                        WqmB32,
                        WqmB64,
                        Bcnt0I32B32,
                        Bcnt0I32B64,
                        Bcnt1I32B32,
                        Bcnt1I32B64,
                        NotB32,
                        NotB64,
                        AndSaveexecB32,
                        AndSaveexecB64,
                        OrSaveexecB32,
                        OrSaveexecB64,
                        XorSaveexecB32,
                        XorSaveexecB64,
                        NandSaveexecB32,
                        NandSaveexecB64,
                        NorSaveexecB32,
                        NorSaveexecB64,
                        XnorSaveexecB32,
                        XnorSaveexecB64,
                        AndNot0SaveexecB32,
                        AndNot0SaveexecB64,
                        OrNot0SaveexecB32,
                        OrNot0SaveexecB64,
                        AndNot1SaveexecB32,
                        AndNot1SaveexecB64,
                        OrNot1SaveexecB32,
                        OrNot1SaveexecB64,
                        AndNot0WrexecB32,
                        AndNot0WrexecB64,
                        AndNot1WrexecB32,
                        AndNot1WrexecB64,
                    ],
                    (a0.fixed32, true),
                    |w, p, OP, a, _b| {
                        // Listed opcodes are all of sop1_data's (it declines only
                        // s_getpc/s_setpc/s_swappc, which move the pc).
                        let done = w.sop1_data(OP, p.d, a);
                        debug_assert!(done);
                    }
                ),
                *sdst,
                [a0, z, z],
            )
        }
        Inst::Sopk { op, sdst, simm16 } => (
            per_op!(
                *op,
                Sopk,
                [
                    MovkI32,
                    Version,
                    CmovkI32,
                    CmpkEqI32,
                    CmpkLgI32,
                    CmpkGtI32,
                    CmpkGeI32,
                    CmpkLtI32,
                    CmpkLeI32,
                    CmpkEqU32,
                    CmpkLgU32,
                    CmpkGtU32,
                    CmpkGeU32,
                    CmpkLtU32,
                    CmpkLeU32,
                    AddkI32,
                    MulkI32,
                    WaitcntVscnt,
                    WaitcntVmcnt,
                    WaitcntExpcnt,
                    WaitcntLgkmcnt,
                ],
                (true, true),
                |w, p, OP, _a, _b| w.sopk(OP, p.d, p.src[0].imm32 as u16)
            ),
            *sdst,
            [ResolvedSrc::imm(*simm16 as u32, *simm16 as u64), z, z],
        ),
        Inst::Sopc { op, s0, s1 } => {
            let (a0, a1) = (ResolvedSrc::of(*s0)?, ResolvedSrc::of(*s1)?);
            (
                per_op!(
                    *op,
                    Sopc,
                    [
                        EqI32, LgI32, GtI32, GeI32, LtI32, LeI32, EqU32, LgU32, GtU32, GeU32,
                        LtU32, LeU32, Bitcmp0B32, Bitcmp1B32, Bitcmp0B64, Bitcmp1B64, EqU64, LgU64,
                    ],
                    (a0.fixed32, a1.fixed32),
                    |w, p, OP, a, b| {
                        let _ = p;
                        w.sopc(OP, a, b)
                    }
                ),
                0,
                [a0, a1, z],
            )
        }
        Inst::Nop { .. } => {
            fn nop(_: &mut Wave, _: &Op) {}
            (Some(nop as OpFn), 0, [z; 3])
        }
        Inst::Valu { op, vdst, src, .. } => (
            per_op!(
                *op,
                VOp,
                [
                    NotB32,
                    BfrevB32,
                    ClzI32U32,
                    CtzI32B32,
                    ClsI32,
                    AddNcU32,
                    SubNcU32,
                    SubrevNcU32,
                    MulI32I24,
                    MulHiI32I24,
                    MulU32U24,
                    MulHiU32U24,
                    MinI32,
                    MaxI32,
                    MinU32,
                    MaxU32,
                    LshrrevB32,
                    AshrrevI32,
                    LshlrevB32,
                    AndB32,
                    OrB32,
                    XorB32,
                    XnorB32,
                    BfmB32,
                    BcntU32B32,
                    MulLoU32,
                    AddNcI32,
                    SubNcI32,
                    SadU8,
                    MsadU8,
                    SadHiU8,
                    SadU16,
                    SadU32,
                    LerpU8,
                    MulHiU32,
                    MulHiI32,
                    LshlAddU32,
                    AddLshlU32,
                    LshlOrB32,
                    AndOrB32,
                    Or3B32,
                    Xor3B32,
                    Add3U32,
                    XadU32,
                    BfeU32,
                    BfeI32,
                    BfiB32,
                    AlignbitB32,
                    AlignbyteB32,
                    PermB32,
                    MadU32U24,
                    MadI32I24,
                    Min3I32,
                    Min3U32,
                    Max3I32,
                    Max3U32,
                    Med3I32,
                    Med3U32,
                    MovB32,
                    CndmaskB32,
                ],
                avx2: avx2,
                |w, p, OP| {
                    // Listed opcodes are all of valu_map's.
                    let done = w.valu_map(OP, p.d, &p.src);
                    debug_assert!(done);
                }
            ),
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
