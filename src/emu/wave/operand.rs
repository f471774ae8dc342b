//! A source operand as the per-opcode semantics read it: decoded ([`Src`],
//! the generic path) or resolved at decode time ([`ResolvedSrc`], [`Spec`],
//! the pre-resolved handlers).

use super::Wave;
use crate::emu::decode::{inline_const32, inline_const64, Src, NULL};

/// A source operand as the per-opcode semantics read it: the decoded
/// [`Src`] (generic path) or its decode-time resolution [`ResolvedSrc`] (the
/// block loop's handlers). Both read the same value for every operand
/// (`handlers_agree_with_the_generic_path` checks it).
pub trait Operand: Copy {
    /// The 32-bit scalar value (what [`Wave::s32`] reads).
    fn r32(self, w: &Wave) -> u32;
    /// The 64-bit scalar value (what [`Wave::s64`] reads).
    fn r64(self, w: &Wave) -> u64;
    /// The VGPR number, for a vector register.
    fn vreg(self) -> Option<u8>;
}

impl Operand for Src {
    #[inline(always)]
    fn r32(self, w: &Wave) -> u32 {
        w.s32(self)
    }
    #[inline(always)]
    fn r64(self, w: &Wave) -> u64 {
        w.s64(self)
    }
    #[inline(always)]
    fn vreg(self) -> Option<u8> {
        match self {
            Src::V(r) => Some(r),
            _ => None,
        }
    }
}

/// A source operand resolved at decode time: a VGPR, an SGPR (read when
/// the instruction runs), or a value fixed by the encoding (inline
/// constant, literal) for each of the two widths it can be read at, so a
/// handler reads it with one flag test instead of a `match` on [`Src`].
/// src_scc, src_vccz and src_execz (which change as the wave runs) have no
/// `ResolvedSrc`: instructions naming them run through the generic path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedSrc {
    /// VGPR number, or [`ResolvedSrc::NO_VGPR`].
    pub vgpr: u16,
    /// SGPR read when `fixed32`/`fixed64` is false.
    pub sgpr: u8,
    pub fixed32: bool,
    pub fixed64: bool,
    pub imm32: u32,
    pub imm64: u64,
}

impl ResolvedSrc {
    pub const NO_VGPR: u16 = u16::MAX;
    pub const ZERO: ResolvedSrc = ResolvedSrc::imm(0, 0);

    pub const fn imm(v32: u32, v64: u64) -> ResolvedSrc {
        ResolvedSrc {
            vgpr: ResolvedSrc::NO_VGPR,
            sgpr: 0,
            fixed32: true,
            fixed64: true,
            imm32: v32,
            imm64: v64,
        }
    }

    /// `src` resolved, with exactly the values [`Wave::s32`] and
    /// [`Wave::s64`] give it; None for operands that change as the wave runs
    /// other than through a register (src_scc, src_vccz, src_execz).
    pub fn of(src: Src) -> Option<ResolvedSrc> {
        Some(match src {
            // A 64-bit `null` reads 0; a 32-bit one reads the register.
            Src::S(NULL) => ResolvedSrc {
                sgpr: NULL,
                fixed32: false,
                ..ResolvedSrc::imm(0, 0)
            },
            Src::S(r) => ResolvedSrc {
                sgpr: r,
                fixed32: false,
                fixed64: false,
                ..ResolvedSrc::imm(0, 0)
            },
            // A VGPR read as a scalar reads 0 (s32's policy; the decoder
            // never puts one there).
            Src::V(r) => ResolvedSrc {
                vgpr: r as u16,
                ..ResolvedSrc::imm(0, 0)
            },
            Src::Const(c) => ResolvedSrc::imm(inline_const32(c), inline_const64(c)),
            Src::Lit(v) => ResolvedSrc::imm(v, v as u64),
            Src::Scc | Src::Vccz | Src::Execz => return None,
        })
    }
}

/// An [`ResolvedSrc`] whose kind is fixed at compile time: `FIXED` when the value
/// is the encoding's (`ResolvedSrc::fixed32`, which implies `fixed64`), else an
/// SGPR. Scalar handlers are instantiated per operand kind with it, so
/// reading an operand is one load with no test.
#[derive(Clone, Copy)]
pub struct Spec<const FIXED: bool>(pub ResolvedSrc);

impl<const FIXED: bool> Operand for Spec<FIXED> {
    #[inline(always)]
    fn r32(self, w: &Wave) -> u32 {
        if FIXED {
            self.0.imm32
        } else {
            w.s[self.0.sgpr as usize]
        }
    }
    #[inline(always)]
    fn r64(self, w: &Wave) -> u64 {
        if FIXED {
            self.0.imm64
        } else {
            self.0.r64(w)
        }
    }
    #[inline(always)]
    fn vreg(self) -> Option<u8> {
        if FIXED {
            self.0.vreg()
        } else {
            None
        }
    }
}

impl Operand for ResolvedSrc {
    #[inline(always)]
    fn r32(self, w: &Wave) -> u32 {
        if self.fixed32 {
            self.imm32
        } else {
            w.s[self.sgpr as usize]
        }
    }
    #[inline(always)]
    fn r64(self, w: &Wave) -> u64 {
        if self.fixed64 {
            self.imm64
        } else {
            let r = self.sgpr as usize;
            w.s[r] as u64 | (w.s.get(r + 1).copied().unwrap_or(0) as u64) << 32
        }
    }
    #[inline(always)]
    fn vreg(self) -> Option<u8> {
        (self.vgpr != ResolvedSrc::NO_VGPR).then_some(self.vgpr as u8)
    }
}
