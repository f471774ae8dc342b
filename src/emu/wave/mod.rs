//! One wave's architectural state and the interpreter for the scalar,
//! vector-ALU, scalar-memory and FLAT/GLOBAL instructions. DS lives in
//! `emu::ds`. Semantics follow the RDNA3 ISA guide's pseudocode (§ "Scalar
//! ALU operations", § "Vector ALU operations"); each policy where it is
//! silent is named in a comment.
//!
//! Memory instructions read and write memory at issue, in program order;
//! the registers they load are written when the `s_waitcnt` that covers
//! them runs or a bounded number of instructions later (`emu::late`,
//! policy `results-arrive-late`), so a kernel that reads a result before
//! its wait may see the old value, as on silicon.
//!
//! This file holds the wave's state, the traits through which `ds`,
//! `valu16` and `vext` see it, and the register accessors every part uses.
//! The rest, one concern a file:
//! - `run`: the run loops (the block loop over pre-resolved handlers, the
//!   stepwise loop with the hazard checker) and the generic path, which
//!   executes an instruction by its decoded form;
//! - `salu`, `valu`, `flat`: the per-opcode semantics both paths call, by
//!   encoding family; `lanes`: the whole-row loops `valu`'s per-lane maps
//!   run in; `bits`: the bit-field arithmetic both ALUs share;
//! - `operand`: a source operand as the semantics read it, decoded or
//!   resolved at decode time;
//! - `handlers`: the pre-resolved handlers (`op_for`) the decoder stores.

mod bits;
mod flat;
mod handlers;
mod lanes;
mod operand;
mod run;
mod salu;
mod valu;

#[cfg(test)]
mod tests;

pub use handlers::{no_op, op_for, op_for_isa, Ext, Op, OpFn};
pub use operand::{Operand, ResolvedSrc, Spec};
pub use run::{exits_for, Exit, FusedCmp};

use super::decode::{inline_const32, inline_const64, Decoded, Src, EXEC_LO, NULL, VCC_LO};
use super::fault::FaultSpec;
use super::hazard::Pending;
use super::hwreg::HwRegs;
use super::late::Late;
use super::mem::GlobalMem;
use super::view::WaveView;
use super::WaveError;

/// VGPRs per lane held for every wave: the 8-bit VGPR field plus room for a
/// 128-bit operand starting at v255, so no register index can fall outside.
pub const VGPRS: usize = 260;
/// The VGPR file of one wave: register r, lane l at `r * 64 + l`. A fixed
/// size, so an index made from an 8-bit register number and a lane below
/// 64 (plus a lane step) is provably inside and needs no bounds check.
///
/// Aligned to a cache line: a row is 256 bytes, so every 8-lane step of the
/// row loops (32 bytes at a multiple of 32 from a row's start) stays inside
/// one cache line (at the allocator's 16-byte alignment, half of them may
/// straddle two: a split load or store each).
#[derive(PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Vgprs(pub [u32; VGPRS * 64]);

impl std::ops::Deref for Vgprs {
    type Target = [u32; VGPRS * 64];
    #[inline(always)]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Vgprs {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}
/// SGPR file size: the 8-bit operand code space, plus one so the high half
/// of a pair starting at any code is inside (a 64-bit read of a register
/// number needs no bounds check).
const SGPRS: usize = 257;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    AtBarrier,
    Ended,
}

/// Architectural state of one wave.
pub struct Wave {
    /// SGPR file indexed by operand code (vcc at 106, m0 at 125, exec at 126).
    /// A fixed-size array, so an 8-bit register number needs no bounds check.
    pub s: Box<[u32; SGPRS]>,
    pub scc: bool,
    /// VGPRs: register r, lane l at `r * 64 + l`.
    pub v: Box<Vgprs>,
    /// Index of the next instruction in `Decoded::insts`.
    pub pc: u32,
    pub lanes: u32,
    pub status: Status,
    pub executed: u64,
    /// Active-lane DS atomic operations performed (for throughput figures).
    pub ds_atomic_lane_ops: u64,
    /// Outstanding memory instructions, when hazard checking is on
    /// ([`super::hazard`]); None: off.
    pub hazard: Option<Box<Pending>>,
    /// The hardware registers s_getreg/s_setreg reach ([`super::hwreg`]).
    pub hwreg: HwRegs,
    /// The DS instruction (its index) whose low half ran and whose high
    /// half runs before anything else when the scheduler next runs this
    /// wave (policy `wave64-split-halves`, [`super::HALVES_POLICY`]).
    pub pending_half: Option<u32>,
    /// Memory results on their way back ([`super::late`], policy
    /// `results-arrive-late`).
    pub late: Late,
    /// VGPRs the wave was given: a returning memory instruction whose
    /// destination reaches past them is issued with EXEC = 0 (policy
    /// `vdst-out-of-range-nullified`, [`super::VDST_RANGE_POLICY`]).
    /// `u32::MAX` (a wave made with [`Wave::new`]): no bound.
    pub vgpr_alloc: u32,
}

pub use super::decode::{MOVREL_SGPRS, POLICY_MOVREL_PAST_SGPRS_FAULTS};

/// What the interpreter needs besides the wave.
pub struct Env<'a> {
    pub prog: &'a Decoded,
    pub mem: &'a GlobalMem,
    pub fault: Option<FaultSpec>,
}

/// The view `ds`, `valu16`, `vext` and `wmma` execute against: each
/// method is the inherent one of the same name, or the field.
impl WaveView for Wave {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        self.lanes
    }
    #[inline(always)]
    fn exec(&self) -> u64 {
        Wave::exec(self)
    }
    #[inline(always)]
    fn set_exec(&mut self, m: u64) {
        Wave::set_exec(self, m)
    }
    #[inline(always)]
    fn vgpr(&self, r: usize, lane: usize) -> u32 {
        Wave::vgpr(self, r, lane)
    }
    #[inline(always)]
    fn set_vgpr(&mut self, r: usize, lane: usize, val: u32) {
        Wave::set_vgpr(self, r, lane, val)
    }
    #[inline(always)]
    fn vrow(&self, r: usize) -> &[u32] {
        &self.v[r * 64..r * 64 + 64]
    }
    #[inline(always)]
    fn vrow_mut(&mut self, r: usize) -> &mut [u32] {
        &mut self.v[r * 64..r * 64 + 64]
    }
    #[inline(always)]
    fn vgprs(&mut self) -> &mut [u32] {
        &mut self.v[..]
    }
    #[inline(always)]
    fn s32(&self, s: Src) -> u32 {
        Wave::s32(self, s)
    }
    #[inline(always)]
    fn s64(&self, s: Src) -> u64 {
        Wave::s64(self, s)
    }
    #[inline(always)]
    fn read_mask(&self, s: Src) -> u64 {
        Wave::read_mask(self, s)
    }
    #[inline(always)]
    fn write_mask(&mut self, r: u8, m: u64) {
        Wave::write_mask(self, r, m)
    }
    #[inline(always)]
    fn mode(&self) -> u32 {
        self.hwreg.mode
    }
    #[inline(always)]
    fn count_atomic_lane_ops(&mut self, n: u64) {
        self.ds_atomic_lane_ops += n;
    }
}

impl Wave {
    pub fn new(wave64: bool) -> Wave {
        Wave {
            s: Box::new([0; SGPRS]),
            scc: false,
            v: Box::new(Vgprs([0; VGPRS * 64])),
            pc: 0,
            lanes: if wave64 { 64 } else { 32 },
            status: Status::Running,
            executed: 0,
            ds_atomic_lane_ops: 0,
            hazard: None,
            hwreg: HwRegs::default(),
            pending_half: None,
            late: Late::new(),
            vgpr_alloc: u32::MAX,
        }
    }

    #[inline]
    pub fn full_mask(&self) -> u64 {
        if self.lanes == 64 {
            u64::MAX
        } else {
            0xffff_ffff
        }
    }

    /// EXEC as a lane mask (exec_lo only in wave32).
    #[inline]
    pub fn exec(&self) -> u64 {
        if self.lanes == 64 {
            self.s[EXEC_LO as usize] as u64 | (self.s[EXEC_LO as usize + 1] as u64) << 32
        } else {
            self.s[EXEC_LO as usize] as u64
        }
    }

    #[inline]
    pub fn set_exec(&mut self, m: u64) {
        self.write_mask(EXEC_LO, m);
    }

    /// A lane mask held in SGPR `r` (wave32) or the pair `r`, `r+1` (wave64).
    #[inline]
    pub fn read_mask(&self, src: Src) -> u64 {
        if self.lanes == 64 {
            self.s64(src)
        } else {
            self.s32(src) as u64
        }
    }

    #[inline]
    pub fn write_mask(&mut self, r: u8, m: u64) {
        self.sw(r, m as u32);
        // A 64-bit `null` is one register: its "high half" is not m0.
        if self.lanes == 64 && r != NULL {
            self.sw(r.wrapping_add(1), (m >> 32) as u32);
        }
    }

    /// Write an SGPR; writes to `null` are discarded.
    #[inline]
    pub fn sw(&mut self, r: u8, v: u32) {
        if r != NULL {
            if let Some(x) = self.s.get_mut(r as usize) {
                *x = v;
            }
        }
    }

    #[inline]
    fn sw64(&mut self, r: u8, v: u64) {
        self.sw(r, v as u32);
        if r != NULL {
            self.sw(r.wrapping_add(1), (v >> 32) as u32);
        }
    }

    /// A 32-bit scalar operand.
    #[inline]
    pub fn s32(&self, src: Src) -> u32 {
        match src {
            Src::S(r) => self.s[r as usize],
            Src::Const(c) => inline_const32(c),
            Src::Lit(v) => v,
            Src::Scc => self.scc as u32,
            Src::Vccz => (self.read_mask(Src::S(VCC_LO)) == 0) as u32,
            Src::Execz => (self.exec() == 0) as u32,
            // The decoder never puts a VGPR where a scalar is read.
            Src::V(_) => 0,
        }
    }

    /// A 64-bit scalar operand. A 32-bit literal is zero-extended (policy:
    /// LLVM's AMDGPUDisassembler prints 64-bit integer literals as the
    /// unsigned 32-bit value; the RDNA3 guide does not say).
    #[inline]
    pub fn s64(&self, src: Src) -> u64 {
        match src {
            // A 64-bit `null` reads 0 (not m0 in the high half).
            Src::S(NULL) => 0,
            Src::S(r) => self.s[r as usize] as u64 | (self.s[r as usize + 1] as u64) << 32,
            Src::Const(c) => inline_const64(c),
            Src::Lit(v) => v as u64,
            other => self.s32(other) as u64,
        }
    }

    /// A 32-bit vector operand for every lane.
    #[inline]
    fn vread(&self, src: Src, out: &mut [u32; 64]) {
        match src {
            Src::V(r) => out.copy_from_slice(&self.v[r as usize * 64..r as usize * 64 + 64]),
            other => out.fill(self.s32(other)),
        }
    }

    /// A 64-bit vector operand (register pair) for every lane.
    #[inline]
    fn vread64(&self, src: Src, out: &mut [u64; 64]) {
        match src {
            Src::V(r) => {
                let lo = &self.v[r as usize * 64..r as usize * 64 + 64];
                let hi = &self.v[r as usize * 64 + 64..r as usize * 64 + 128];
                for ((o, &l), &h) in out.iter_mut().zip(lo).zip(hi) {
                    *o = l as u64 | (h as u64) << 32;
                }
            }
            other => out.fill(self.s64(other)),
        }
    }

    /// Write `vals` to VGPR `r` in the lanes of `mask`.
    #[inline]
    pub fn vwrite(&mut self, r: u8, vals: &[u32; 64], mask: u64) {
        let n = self.lanes as usize;
        let full = self.full_mask_const(n);
        let dst = &mut self.v[r as usize * 64..r as usize * 64 + 64];
        if mask == full {
            dst[..n].copy_from_slice(&vals[..n]);
        } else {
            for l in 0..n {
                if mask >> l & 1 != 0 {
                    dst[l] = vals[l];
                }
            }
        }
    }

    #[inline]
    fn full_mask_const(&self, n: usize) -> u64 {
        if n == 64 {
            u64::MAX
        } else {
            (1u64 << n) - 1
        }
    }

    #[inline]
    fn vwrite64(&mut self, r: u8, vals: &[u64; 64], mask: u64) {
        let mut lo = [0u32; 64];
        let mut hi = [0u32; 64];
        for l in 0..64 {
            lo[l] = vals[l] as u32;
            hi[l] = (vals[l] >> 32) as u32;
        }
        self.vwrite(r, &lo, mask);
        self.vwrite(r.wrapping_add(1), &hi, mask);
    }

    #[inline]
    pub fn vgpr(&self, r: usize, lane: usize) -> u32 {
        self.v.get(r * 64 + lane).copied().unwrap_or(0)
    }

    #[inline]
    pub fn set_vgpr(&mut self, r: usize, lane: usize, val: u32) {
        if let Some(x) = self.v.get_mut(r * 64 + lane) {
            *x = val;
        }
    }

    /// Byte address of the instruction at index `i`.
    pub fn pc_addr(prog: &Decoded, i: u32) -> u64 {
        prog.pcs
            .get(i as usize)
            .copied()
            .unwrap_or(prog.base + 4 * prog.index_of_word.len() as u64)
    }
}

/// A decoded opcode that reached a semantic function with no arm for it
/// (its mnemonic); the caller, which knows the pc, makes it
/// [`no_semantics`]'s error.
#[derive(Debug, PartialEq, Eq)]
struct NoSemantics(&'static str);

/// The stop for a decoded instruction the interpreter has no semantics
/// for: an error naming its mnemonic, never a silent no-op (the software
/// device refuses what it does not model).
fn no_semantics(pc: u64, mnemonic: &str) -> WaveError {
    WaveError::Unsupported {
        pc,
        detail: format!("{mnemonic}: decoded, but the software device has no semantics for it"),
    }
}
