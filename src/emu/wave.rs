//! One wave's architectural state and the interpreter loop for the scalar,
//! vector-ALU, scalar-memory and FLAT/GLOBAL instructions. DS lives in
//! `ds.rs`. Semantics follow the RDNA3 ISA guide's pseudocode (§ "Scalar ALU
//! operations", § "Vector ALU operations"); each policy where it is silent is
//! named in a comment.
//!
//! Memory instructions complete at issue, in program order, so `s_waitcnt`
//! has nothing to wait for: a kernel that reads a result before its waitcnt
//! sees the completed value (a kernel that relies on seeing a *stale* value is
//! outside what this device checks).

use super::decode::{
    inline_const32, inline_const64, Cmp, Cond, Decoded, DsKind, Flat, FlatKind, HwregOp, Inst,
    SMovrel, Sop1, Sop2, Sopc, Sopk, Src, VOp, VopdHalf, VopdOp, EXEC_LO, M0, NULL, VCC_LO,
};
use super::ds::{exec_ds, DsWave, Lds, Part};
use super::fault::FaultSpec;
use super::hazard::Pending;
use super::hwreg::{self, HwRegs};
use super::mem::GlobalMem;
use super::{Sched, WaveError};
use std::sync::atomic::Ordering::Relaxed;

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
}

pub use super::decode::{MOVREL_SGPRS, POLICY_MOVREL_PAST_SGPRS_FAULTS};

/// A vector source of `N` lanes.
enum Row<'a, const N: usize> {
    V(&'a [u32; N]),
    S(u32),
}

/// Where a source's lanes are for the whole-row loops: its VGPR (row
/// `r * 64` of `Wave::v`), or one value for every lane.
#[derive(Clone, Copy)]
enum At {
    V(u8),
    S(u32),
}

/// Lanes per step of the whole-row loops: one 256-bit vector.
const STEP: usize = 8;

/// Lanes `k..k + STEP` of source `at` (`k < 64`). With an 8-bit register
/// number the range is inside [`Vgprs`] (`VGPRS` leaves room), so the
/// compiler drops the check; the 0 fallback is never taken.
#[inline(always)]
fn take(v: &Vgprs, at: At, k: usize) -> [u32; STEP] {
    match at {
        At::V(r) => {
            let b = r as usize * 64 + k;
            v.get(b..b + STEP)
                .and_then(|x| <[u32; STEP]>::try_from(x).ok())
                .unwrap_or([0; STEP])
        }
        At::S(x) => [x; STEP],
    }
}

/// Write lanes `k..k + STEP` of VGPR `r` (`k < 64`; in bounds as in [`take`]).
#[inline(always)]
fn put(v: &mut Vgprs, r: u8, k: usize, x: &[u32; STEP]) {
    let b = r as usize * 64 + k;
    if let Some(dst) = v.get_mut(b..b + STEP) {
        dst.copy_from_slice(x);
    }
}

/// What the interpreter needs besides the wave.
pub struct Env<'a> {
    pub prog: &'a Decoded,
    pub mem: &'a GlobalMem,
    pub fault: Option<FaultSpec>,
}

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

impl DsWave for Wave {
    #[inline(always)]
    fn exec(&self) -> u64 {
        Wave::exec(self)
    }
    #[inline(always)]
    fn lanes(&self) -> u32 {
        self.lanes
    }
    #[inline(always)]
    fn vgprs(&mut self) -> &mut [u32] {
        &mut self.v[..]
    }
    #[inline(always)]
    fn count_atomic_lane_ops(&mut self, n: u64) {
        self.ds_atomic_lane_ops += n;
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
    fn mode(&self) -> u32 {
        self.hwreg.mode
    }
}

impl super::valu16::Wave16 for Wave {
    fn lanes(&self) -> u32 {
        self.lanes
    }
    fn exec(&self) -> u64 {
        Wave::exec(self)
    }
    fn set_exec(&mut self, m: u64) {
        Wave::set_exec(self, m)
    }
    fn vgpr(&self, r: usize, lane: usize) -> u32 {
        Wave::vgpr(self, r, lane)
    }
    fn set_vgpr(&mut self, r: usize, lane: usize, val: u32) {
        Wave::set_vgpr(self, r, lane, val)
    }
    fn s32(&self, src: Src) -> u32 {
        Wave::s32(self, src)
    }
    fn read_mask(&self, src: Src) -> u64 {
        Wave::read_mask(self, src)
    }
    fn write_mask(&mut self, r: u8, m: u64) {
        Wave::write_mask(self, r, m)
    }
}

impl super::vext::VxWave for Wave {
    #[inline]
    fn exec_mask(&self) -> u64 {
        self.exec()
    }
    #[inline]
    fn lane_count(&self) -> u32 {
        self.lanes
    }
    #[inline]
    fn vrow(&self, r: usize) -> &[u32] {
        &self.v[r * 64..r * 64 + 64]
    }
    #[inline]
    fn vrow_mut(&mut self, r: usize) -> &mut [u32] {
        &mut self.v[r * 64..r * 64 + 64]
    }
    #[inline]
    fn scalar32(&self, s: Src) -> u32 {
        self.s32(s)
    }
    #[inline]
    fn scalar64(&self, s: Src) -> u64 {
        self.s64(s)
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

    /// Source `s` as the wave's `N` lanes: its VGPR row in place, or a scalar
    /// broadcast to every lane.
    #[inline(always)]
    fn row<const N: usize, S: Operand>(&self, s: S) -> Row<'_, N> {
        if let Some(r) = s.vreg() {
            let b = r as usize * 64;
            if let Some(x) = self
                .v
                .get(b..b + N)
                .and_then(|x| <&[u32; N]>::try_from(x).ok())
            {
                return Row::V(x);
            }
        }
        Row::S(s.r32(self))
    }

    /// Write `out` to VGPR `vdst` in the lanes of `exec` (N lanes).
    #[inline(always)]
    fn store_row<const N: usize>(&mut self, vdst: u8, out: &[u32; N], exec: u64) {
        let b = vdst as usize * 64;
        if let Some(dst) = self.v.get_mut(b..b + N) {
            let full = u64::MAX >> (64 - N);
            if exec & full == full {
                dst.copy_from_slice(out);
            } else {
                for (i, (d, &o)) in dst.iter_mut().zip(out).enumerate() {
                    if exec >> i & 1 != 0 {
                        *d = o;
                    }
                }
            }
        }
    }

    /// Where source `s`'s lanes are, for the whole-row loops.
    #[inline(always)]
    fn at<S: Operand>(&self, s: S) -> At {
        match s.vreg() {
            Some(r) => At::V(r),
            None => At::S(s.r32(self)),
        }
    }

    /// `vdst = f(s0, s1)` per lane; each operand combination gets its own
    /// loop so the compiler vectorizes it. With every lane active the
    /// result goes straight into `vdst`, STEP lanes at a time (each step
    /// reads its sources before writing, and no lane reads another's, so
    /// `vdst` may be a source); otherwise through a row and a masked store.
    #[inline(always)]
    fn lanes2<const N: usize, S: Operand>(
        &mut self,
        vdst: u8,
        s0: S,
        s1: S,
        exec: u64,
        f: impl Fn(u32, u32) -> u32,
    ) {
        let full = u64::MAX >> (64 - N);
        if exec & full == full {
            macro_rules! run {
                ($a:expr, $b:expr) => {
                    for k in (0..N).step_by(STEP) {
                        let (x, y) = (take(&self.v, $a, k), take(&self.v, $b, k));
                        let mut r = [0u32; STEP];
                        for ((o, &x), &y) in r.iter_mut().zip(&x).zip(&y) {
                            *o = f(x, y);
                        }
                        put(&mut self.v, vdst, k, &r);
                    }
                };
            }
            match (self.at(s0), self.at(s1)) {
                (At::V(p), At::V(q)) => run!(At::V(p), At::V(q)),
                (At::V(p), At::S(y)) => run!(At::V(p), At::S(y)),
                (At::S(x), At::V(q)) => run!(At::S(x), At::V(q)),
                (At::S(x), At::S(y)) => run!(At::S(x), At::S(y)),
            }
            return;
        }
        let mut out = [0u32; N];
        match (self.row::<N, S>(s0), self.row::<N, S>(s1)) {
            (Row::V(a), Row::V(b)) => {
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = f(x, y);
                }
            }
            (Row::V(a), Row::S(y)) => {
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = f(x, y);
                }
            }
            (Row::S(x), Row::V(b)) => {
                for (o, &y) in out.iter_mut().zip(b) {
                    *o = f(x, y);
                }
            }
            (Row::S(x), Row::S(y)) => out = [f(x, y); N],
        }
        self.store_row::<N>(vdst, &out, exec);
    }

    /// `vdst = f(s0, s1, s2)` per lane. Each combination of vector and
    /// uniform (scalar) second and third sources gets its own loop, so
    /// shifts and masks by uniform values vectorize; a scalar first source
    /// is broadcast into a row.
    #[inline(always)]
    fn lanes3<const N: usize, S: Operand>(
        &mut self,
        vdst: u8,
        src: &[S; 3],
        exec: u64,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        // Every lane active: straight into `vdst`, as in `lanes2`.
        let full = u64::MAX >> (64 - N);
        if exec & full == full {
            macro_rules! run {
                ($a:expr, $b:expr, $c:expr) => {
                    for k in (0..N).step_by(STEP) {
                        let x = take(&self.v, $a, k);
                        let y = take(&self.v, $b, k);
                        let z = take(&self.v, $c, k);
                        let mut r = [0u32; STEP];
                        for (((o, &x), &y), &z) in r.iter_mut().zip(&x).zip(&y).zip(&z) {
                            *o = f(x, y, z);
                        }
                        put(&mut self.v, vdst, k, &r);
                    }
                };
            }
            use At::{S as U, V};
            match (self.at(src[0]), self.at(src[1]), self.at(src[2])) {
                (V(a), V(b), V(c)) => run!(V(a), V(b), V(c)),
                (V(a), V(b), U(z)) => run!(V(a), V(b), U(z)),
                (V(a), U(y), V(c)) => run!(V(a), U(y), V(c)),
                (V(a), U(y), U(z)) => run!(V(a), U(y), U(z)),
                (U(x), V(b), V(c)) => run!(U(x), V(b), V(c)),
                (U(x), V(b), U(z)) => run!(U(x), V(b), U(z)),
                (U(x), U(y), V(c)) => run!(U(x), U(y), V(c)),
                (U(x), U(y), U(z)) => run!(U(x), U(y), U(z)),
            }
            return;
        }
        let mut out = [0u32; N];
        let splat: [u32; N];
        let a: &[u32; N] = match self.row::<N, S>(src[0]) {
            Row::V(x) => x,
            Row::S(v) => {
                splat = [v; N];
                &splat
            }
        };
        match (self.row::<N, S>(src[1]), self.row::<N, S>(src[2])) {
            (Row::S(y), Row::S(z)) => {
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = f(x, y, z);
                }
            }
            (Row::S(y), Row::V(c)) => {
                for ((o, &x), &z) in out.iter_mut().zip(a).zip(c) {
                    *o = f(x, y, z);
                }
            }
            (Row::V(b), Row::S(z)) => {
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = f(x, y, z);
                }
            }
            (Row::V(b), Row::V(c)) => {
                for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
                    *o = f(x, y, z);
                }
            }
        }
        self.store_row::<N>(vdst, &out, exec);
    }

    /// V_CNDMASK_B32 over `N` lanes: lane l takes S1 where bit l of the
    /// mask in S2 (VCC for the VOP2 form) is set, else S0. The mask is
    /// spread into a row of all-ones/zero words first (a table of single
    /// bits, no per-lane shift), then blended, so both loops vectorize.
    #[inline(always)]
    fn cndmask<const N: usize, S: Operand>(&mut self, vdst: u8, src: &[S; 3], exec: u64) {
        const BIT: [u32; 32] = {
            let mut t = [0u32; 32];
            let mut i = 0;
            while i < 32 {
                t[i] = 1 << i;
                i += 1;
            }
            t
        };
        let mask = if self.lanes == 64 {
            src[2].r64(self)
        } else {
            src[2].r32(self) as u64
        };
        // Every lane active: straight into `vdst`, as in `lanes2`.
        let full = u64::MAX >> (64 - N);
        if exec & full == full {
            macro_rules! run {
                ($a:expr, $b:expr) => {
                    for k in (0..N).step_by(STEP) {
                        let (x, y) = (take(&self.v, $a, k), take(&self.v, $b, k));
                        let m = (mask >> (k & !31)) as u32;
                        let bits = BIT.get(k & 31..(k & 31) + STEP).unwrap_or(&[0; STEP]);
                        let mut r = [0u32; STEP];
                        for (((o, &x), &y), &bit) in r.iter_mut().zip(&x).zip(&y).zip(bits) {
                            let s = 0u32.wrapping_sub((m & bit != 0) as u32);
                            *o = (y & s) | (x & !s);
                        }
                        put(&mut self.v, vdst, k, &r);
                    }
                };
            }
            match (self.at(src[0]), self.at(src[1])) {
                (At::V(p), At::V(q)) => run!(At::V(p), At::V(q)),
                (At::V(p), At::S(y)) => run!(At::V(p), At::S(y)),
                (At::S(x), At::V(q)) => run!(At::S(x), At::V(q)),
                (At::S(x), At::S(y)) => run!(At::S(x), At::S(y)),
            }
            return;
        }
        let mut sel = [0u32; N];
        for (h, chunk) in sel.chunks_exact_mut(32).enumerate() {
            let m = (mask >> (32 * h)) as u32;
            for (s, &bit) in chunk.iter_mut().zip(&BIT) {
                *s = 0u32.wrapping_sub((m & bit != 0) as u32);
            }
        }
        let mut out = [0u32; N];
        match (self.row::<N, S>(src[0]), self.row::<N, S>(src[1])) {
            (Row::V(a), Row::V(b)) => {
                for (((o, &x), &y), &s) in out.iter_mut().zip(a).zip(b).zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
            (Row::S(x), Row::V(b)) => {
                for ((o, &y), &s) in out.iter_mut().zip(b).zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
            (Row::V(a), Row::S(y)) => {
                for ((o, &x), &s) in out.iter_mut().zip(a).zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
            (Row::S(x), Row::S(y)) => {
                for (o, &s) in out.iter_mut().zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
        }
        self.store_row::<N>(vdst, &out, exec);
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

    /// Run until the wave ends, reaches a barrier, or has executed `quantum`
    /// more instructions.
    ///
    /// Without hazard checking, straight runs of instructions that have a
    /// pre-resolved [`Op`] (`Decoded::ops`/`Decoded::runs`, made once per
    /// code object by [`op_for`]) run as a block; every other instruction
    /// runs through [`Wave::exec_generic`]. Both call the same per-opcode
    /// semantics. With hazard checking every instruction takes the generic
    /// path, after its check.
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
            let run = prog
                .runs
                .get(i)
                .map_or(0, |&n| (n as u64).min(left) as usize);
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
            match exits.get(i) {
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
            if let Some(st) = self.exec_generic(inst, i, env, lds, sched.as_deref_mut())? {
                return Ok(st);
            }
        }
        Ok(Status::Running)
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
        d: &super::decode::Ds,
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
        if let Some(Inst::Ds(d)) = env.prog.insts.get(i as usize) {
            let pc = Wave::pc_addr(env.prog, i);
            let order = sched.map(|s| &mut s.order);
            exec_ds(self, d, lds, env.fault, order, pc, Part::High)?;
        }
        Ok(())
    }

    /// [`Wave::run`] one instruction at a time through
    /// [`Wave::exec_generic`], with the hazard checker when the wave has
    /// one (the block loop's reference: the tests compare the two).
    fn run_stepwise(
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
                        inst: super::disasm::disasm(inst, wave64),
                        detail: hz.detail,
                    });
                }
                h.issue(inst, Wave::pc_addr(prog, i), || {
                    super::disasm::disasm(inst, wave64)
                });
            }
            self.pc = i + 1;
            self.executed += 1;
            if let Some(st) = self.exec_generic(inst, i, env, lds, sched.as_deref_mut())? {
                return Ok(st);
            }
        }
        Ok(Status::Running)
    }

    /// Execute `inst` (at index `i`; `self.pc` already points past it) by
    /// its decoded form. `Some(status)` when the wave stops here (barrier or
    /// end).
    #[inline]
    fn exec_generic(
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
            }
            Inst::Valu {
                op,
                vdst,
                sdst,
                src,
                ..
            } => self
                .valu(*op, *vdst, *sdst, src)
                .map_err(|e| no_semantics(Wave::pc_addr(prog, i), e.0))?,
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
                match sched {
                    None => exec_ds(self, d, lds, env.fault, None, pc, Part::Whole)?,
                    Some(s) => {
                        if self.ds_seeded(d, i, env, lds, s, pc)? {
                            return Ok(Some(Status::Running));
                        }
                    }
                }
            }
            Inst::Flat(f) => self.flat(f, env.mem, Wave::pc_addr(prog, i))?,
            Inst::Valu16(v) => super::valu16::exec(self, v),
            Inst::Vx(x) => super::vext::exec(self, x).map_err(|e| WaveError::Unsupported {
                pc: Wave::pc_addr(prog, i),
                detail: e.0,
            })?,
            Inst::Unsupported(u) => {
                return Err(WaveError::Unsupported {
                    pc: Wave::pc_addr(prog, i),
                    detail: u.to_string(),
                })
            }
        }
        Ok(None)
    }

    /// The common global access, whole dwords (b32..b128) with every
    /// active lane's address dword-aligned and inside one buffer: the
    /// addresses are worked out first, the buffer is found once for all of
    /// them, and the lanes then move words with no per-lane lookup. False,
    /// with nothing done, for anything else (the per-lane path of
    /// [`Wave::flat`] then does the access and reports the first faulting
    /// lane), so the result is the same either way.
    #[inline]
    fn flat_words(&mut self, f: &Flat, mem: &GlobalMem) -> bool {
        let k = match f.kind {
            FlatKind::Load { bytes, signed }
                if bytes % 4 == 0 && bytes <= 16 && (bytes == 4 || !signed) =>
            {
                bytes as usize / 4
            }
            FlatKind::Store { bytes } if bytes % 4 == 0 && bytes <= 16 => bytes as usize / 4,
            _ => return false,
        };
        let exec = self.exec();
        if exec == 0 {
            return false;
        }
        let off = f.offset as i64 as u64;
        let va = f.vaddr as usize * 64;
        let mut addr = [0u64; 64];
        match f.saddr {
            Some(s) => {
                let b = self.s64(Src::S(s)).wrapping_add(off);
                if let Some(lo) = self.v.get(va..va + 64) {
                    for (a, &x) in addr.iter_mut().zip(lo) {
                        *a = b.wrapping_add(x as u64);
                    }
                }
            }
            None => {
                if let (Some(lo), Some(hi)) =
                    (self.v.get(va..va + 64), self.v.get(va + 64..va + 128))
                {
                    for ((a, &x), &y) in addr.iter_mut().zip(lo).zip(hi) {
                        *a = (x as u64 | (y as u64) << 32).wrapping_add(off);
                    }
                }
            }
        }
        let (mut lo, mut hi, mut bits) = (u64::MAX, 0u64, 0u64);
        for (l, &a) in addr.iter().enumerate() {
            if exec >> l & 1 != 0 {
                lo = lo.min(a);
                hi = hi.max(a);
                bits |= a;
            }
        }
        let Some(end) = hi.checked_add(4 * k as u64) else {
            return false;
        };
        let mut hint = 0;
        let Some((base, words)) = mem.words_holding(&mut hint, lo, end) else {
            return false;
        };
        if (bits | base) & 3 != 0 {
            return false;
        }
        let is_load = matches!(f.kind, FlatKind::Load { .. });
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize & 63;
            m &= m - 1;
            let w0 = ((addr[l] - base) / 4) as usize;
            let Some(ws) = words.get(w0..w0 + k) else {
                continue;
            };
            for (j, w) in ws.iter().enumerate() {
                if is_load {
                    if let Some(d) = self.v.get_mut((f.vdst as usize + j) * 64 + l) {
                        *d = w.load(Relaxed);
                    }
                } else {
                    w.store(self.vgpr(f.vdata as usize + j, l), Relaxed);
                }
            }
        }
        true
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

    #[inline(always)]
    fn sop2<A: Operand, B: Operand>(&mut self, op: Sop2, sdst: u8, s0: A, s1: B) {
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

    fn sop1(
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
    fn sop1_data<S: Operand>(&mut self, op: Sop1, sdst: u8, s0: S) -> bool {
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
            GetpcB64 | SetpcB64 | SwappcB64 => return false,
        }
        true
    }

    /// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 ([`super::hwreg`]).
    fn hwreg_op(
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
    fn smovrel(&mut self, op: SMovrel, sdst: u8, s0: u8, pc: u64) -> Result<(), WaveError> {
        let m0 = self.s[M0 as usize];
        let n = op.dwords() as u64;
        let (from, to) = op.indices(sdst, s0, m0);
        if n == 2 && (from | to) & 1 == 1 {
            return Err(WaveError::Unsupported {
                pc,
                detail: format!(
                    "{} with an odd index (s{from} to s{to}, M0 = {m0:#x}): the guide requires M0 and the operand to be even",
                    op.name()
                ),
            });
        }
        for at in [from, to] {
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
        let (f, t) = (from as usize, to as u8);
        let v = [self.s[f], self.s[f + 1]];
        for (k, x) in v.into_iter().take(n as usize).enumerate() {
            self.sw(t + k as u8, x);
        }
        Ok(())
    }

    #[inline(always)]
    fn sopk(&mut self, op: Sopk, sdst: u8, simm16: u16) {
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
    fn sopc<A: Operand, B: Operand>(&mut self, op: Sopc, s0: A, s1: B) {
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

    fn vopc(&mut self, cmp: Cmp, cmpx: bool, sdst: u8, src0: Src, src1: Src) {
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut res = 0u64;
        if cmp.wide {
            let mut a = [0u64; 64];
            let mut b = [0u64; 64];
            self.vread64(src0, &mut a);
            self.vread64(src1, &mut b);
            for l in 0..n {
                let r = if cmp.signed {
                    cmp_apply(cmp.cond, (a[l] as i64).cmp(&(b[l] as i64)))
                } else {
                    cmp_apply(cmp.cond, a[l].cmp(&b[l]))
                };
                res |= (r as u64) << l;
            }
        } else {
            let mut a = [0u32; 64];
            let mut b = [0u32; 64];
            self.vread(src0, &mut a);
            self.vread(src1, &mut b);
            for l in 0..n {
                let r = if cmp.signed {
                    cmp_apply(cmp.cond, (a[l] as i32).cmp(&(b[l] as i32)))
                } else {
                    cmp_apply(cmp.cond, a[l].cmp(&b[l]))
                };
                res |= (r as u64) << l;
            }
        }
        // Inactive lanes get 0 in the destination mask (RDNA3 guide §"Vector compare").
        let res = res & exec;
        if cmpx {
            // gfx11 v_cmpx writes EXEC only (VOPCInstructions.td: no SDST for cmpx).
            self.set_exec(res);
        } else {
            self.write_mask(sdst, res);
        }
    }

    fn vopd(&mut self, x: &VopdHalf, y: &VopdHalf) {
        // Both halves read their sources before either writes (dual issue).
        let exec = self.exec();
        let vcc = self.read_mask(Src::S(VCC_LO));
        let mut rx = [0u32; 64];
        let mut ry = [0u32; 64];
        self.vopd_half(x, vcc, &mut rx);
        self.vopd_half(y, vcc, &mut ry);
        self.vwrite(x.vdst, &rx, exec);
        self.vwrite(y.vdst, &ry, exec);
    }

    fn vopd_half(&self, h: &VopdHalf, vcc: u64, out: &mut [u32; 64]) {
        let mut a = [0u32; 64];
        let mut b = [0u32; 64];
        self.vread(h.src0, &mut a);
        self.vread(Src::V(h.vsrc1), &mut b);
        for l in 0..64 {
            out[l] = match h.op {
                VopdOp::MovB32 => a[l],
                VopdOp::CndmaskB32 => {
                    if vcc >> l & 1 != 0 {
                        b[l]
                    } else {
                        a[l]
                    }
                }
                VopdOp::AddNcU32 => a[l].wrapping_add(b[l]),
                VopdOp::LshlrevB32 => b[l] << (a[l] & 31),
                VopdOp::AndB32 => a[l] & b[l],
            };
        }
    }

    fn valu(&mut self, op: VOp, vdst: u8, sdst: u8, src: &[Src; 3]) -> Result<(), NoSemantics> {
        if self.valu_map(op, vdst, src) {
            return Ok(());
        }
        self.valu_other(op, vdst, sdst, src)
    }

    /// The pure per-lane VALU operations (`vdst = f(src...)` in the lanes of
    /// EXEC): one lane loop over the wave's own lane count (32 or 64),
    /// sources borrowed in place or broadcast. False, with nothing done,
    /// for any other opcode. A new per-lane opcode is one arm here (and one
    /// name in `op_for_isa`'s list to get its own pre-resolved handler).
    #[inline(always)]
    fn valu_map<S: Operand>(&mut self, op: VOp, vdst: u8, src: &[S; 3]) -> bool {
        use VOp::*;
        let exec = self.exec();
        macro_rules! map2 {
            ($f:expr) => {{
                if self.lanes == 32 {
                    self.lanes2::<32, S>(vdst, src[0], src[1], exec, $f)
                } else {
                    self.lanes2::<64, S>(vdst, src[0], src[1], exec, $f)
                }
            }};
        }
        macro_rules! map3 {
            ($f:expr) => {{
                if self.lanes == 32 {
                    self.lanes3::<32, S>(vdst, src, exec, $f)
                } else {
                    self.lanes3::<64, S>(vdst, src, exec, $f)
                }
            }};
        }
        match op {
            NotB32 => map2!(|x: u32, _| !x),
            BfrevB32 => map2!(|x: u32, _| x.reverse_bits()),
            ClzI32U32 => map2!(|x: u32, _| if x == 0 { u32::MAX } else { x.leading_zeros() }),
            CtzI32B32 => map2!(|x: u32, _| if x == 0 { u32::MAX } else { x.trailing_zeros() }),
            ClsI32 => map2!(|x: u32, _| if x == 0 || x == u32::MAX {
                u32::MAX
            } else {
                (x ^ ((x as i32 >> 31) as u32)).leading_zeros()
            }),
            AddNcU32 => map2!(|x: u32, y: u32| x.wrapping_add(y)),
            SubNcU32 => map2!(|x: u32, y: u32| x.wrapping_sub(y)),
            SubrevNcU32 => map2!(|x: u32, y: u32| y.wrapping_sub(x)),
            MulI32I24 => map2!(|x: u32, y: u32| (sext24(x) * sext24(y)) as u32),
            MulHiI32I24 => map2!(|x: u32, y: u32| ((sext24(x) * sext24(y)) >> 32) as u32),
            MulU32U24 => {
                map2!(|x: u32, y: u32| ((x & 0xff_ffff) as u64 * (y & 0xff_ffff) as u64) as u32)
            }
            MulHiU32U24 => map2!(|x: u32, y: u32| (((x & 0xff_ffff) as u64
                * (y & 0xff_ffff) as u64)
                >> 32) as u32),
            MinI32 => map2!(|x: u32, y: u32| (x as i32).min(y as i32) as u32),
            MaxI32 => map2!(|x: u32, y: u32| (x as i32).max(y as i32) as u32),
            MinU32 => map2!(|x: u32, y: u32| x.min(y)),
            MaxU32 => map2!(|x: u32, y: u32| x.max(y)),
            // "rev" shifts: the shift amount is src0, low 5 bits.
            LshrrevB32 => map2!(|x: u32, y: u32| y >> (x & 31)),
            AshrrevI32 => map2!(|x: u32, y: u32| ((y as i32) >> (x & 31)) as u32),
            LshlrevB32 => map2!(|x: u32, y: u32| y << (x & 31)),
            AndB32 => map2!(|x: u32, y: u32| x & y),
            OrB32 => map2!(|x: u32, y: u32| x | y),
            XorB32 => map2!(|x: u32, y: u32| x ^ y),
            XnorB32 => map2!(|x: u32, y: u32| !(x ^ y)),
            BfmB32 => map2!(|x: u32, y: u32| mask32(x & 31) << (y & 31)),
            BcntU32B32 => map2!(|x: u32, y: u32| x.count_ones().wrapping_add(y)),
            MulLoU32 => map2!(|x: u32, y: u32| x.wrapping_mul(y)),
            // V_ADD_NC_I32 / V_SUB_NC_I32 without clamp: wrapping (clamp is refused at decode).
            AddNcI32 => map2!(|x: u32, y: u32| x.wrapping_add(y)),
            SubNcI32 => map2!(|x: u32, y: u32| x.wrapping_sub(y)),
            SadU8 => map3!(|x: u32, y: u32, z: u32| sad_u8(x, y, z, false)),
            MsadU8 => map3!(|x: u32, y: u32, z: u32| sad_u8(x, y, z, true)),
            // V_SAD_HI_U8: D0 = (v_sad_u8(S0, S1, 0) << 16) + S2.
            SadHiU8 => {
                map3!(|x: u32, y: u32, z: u32| (sad_u8(x, y, 0, false) << 16).wrapping_add(z))
            }
            // V_SAD_U16: S2 + |S0[15:0] - S1[15:0]| + |S0[31:16] - S1[31:16]|.
            SadU16 => map3!(|x: u32, y: u32, z: u32| z
                .wrapping_add((x & 0xffff).abs_diff(y & 0xffff))
                .wrapping_add((x >> 16).abs_diff(y >> 16))),
            SadU32 => map3!(|x: u32, y: u32, z: u32| x.abs_diff(y).wrapping_add(z)),
            LerpU8 => map3!(|x: u32, y: u32, z: u32| lerp_u8(x, y, z)),
            MulHiU32 => map2!(|x: u32, y: u32| ((x as u64 * y as u64) >> 32) as u32),
            MulHiI32 => map2!(|x: u32, y: u32| ((x as i32 as i64 * y as i32 as i64) >> 32) as u32),
            LshlAddU32 => map3!(|x: u32, y: u32, z: u32| (x << (y & 31)).wrapping_add(z)),
            AddLshlU32 => map3!(|x: u32, y: u32, z: u32| x.wrapping_add(y) << (z & 31)),
            LshlOrB32 => map3!(|x: u32, y: u32, z: u32| (x << (y & 31)) | z),
            AndOrB32 => map3!(|x: u32, y: u32, z: u32| (x & y) | z),
            Or3B32 => map3!(|x: u32, y: u32, z: u32| x | y | z),
            Xor3B32 => map3!(|x: u32, y: u32, z: u32| x ^ y ^ z),
            Add3U32 => map3!(|x: u32, y: u32, z: u32| x.wrapping_add(y).wrapping_add(z)),
            XadU32 => map3!(|x: u32, y: u32, z: u32| (x ^ y).wrapping_add(z)),
            // V_BFE_*: offset S1[4:0], width S2[4:0].
            BfeU32 => map3!(|x: u32, y: u32, z: u32| bfe_u(x as u64, y & 31, z & 31) as u32),
            BfeI32 => {
                map3!(|x: u32, y: u32, z: u32| bfe_i(x as i32 as i64, y & 31, z & 31) as u32)
            }
            BfiB32 => map3!(|x: u32, y: u32, z: u32| (x & y) | (!x & z)),
            AlignbitB32 => {
                map3!(|x: u32, y: u32, z: u32| ((((x as u64) << 32) | y as u64) >> (z & 31)) as u32)
            }
            AlignbyteB32 => map3!(|x: u32, y: u32, z: u32| ((((x as u64) << 32) | y as u64)
                >> (8 * (z & 3)))
                as u32),
            PermB32 => map3!(|x: u32, y: u32, z: u32| perm(x, y, z)),
            MadU32U24 => map3!(|x: u32, y: u32, z: u32| ((x & 0xff_ffff)
                .wrapping_mul(y & 0xff_ffff))
            .wrapping_add(z)),
            MadI32I24 => {
                map3!(|x: u32, y: u32, z: u32| ((sext24(x) * sext24(y)) as u32).wrapping_add(z))
            }
            Min3I32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).min(y as i32).min(z as i32) as u32)
            }
            Min3U32 => map3!(|x: u32, y: u32, z: u32| x.min(y).min(z)),
            Max3I32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).max(y as i32).max(z as i32) as u32)
            }
            Max3U32 => map3!(|x: u32, y: u32, z: u32| x.max(y).max(z)),
            Med3I32 => map3!(|x: u32, y: u32, z: u32| med3(x as i32, y as i32, z as i32) as u32),
            Med3U32 => map3!(|x: u32, y: u32, z: u32| med3(x, y, z)),
            MovB32 => map2!(|x: u32, _| x),
            // V_CVT_F32_UBYTEn: "D0.f32 = 32'F(S0[8n + 7 : 8n].u32)" (RDNA3
            // guide, VOP1): every byte value is an exact f32.
            CvtF32Ubyte0 => map2!(|x: u32, _| (x as u8 as f32).to_bits()),
            CvtF32Ubyte1 => map2!(|x: u32, _| ((x >> 8) as u8 as f32).to_bits()),
            CvtF32Ubyte2 => map2!(|x: u32, _| ((x >> 16) as u8 as f32).to_bits()),
            CvtF32Ubyte3 => map2!(|x: u32, _| ((x >> 24) as u8 as f32).to_bits()),
            // V_CNDMASK_B32: D = VCC/S2 lane bit ? S1 : S0.
            CndmaskB32 => {
                if self.lanes == 32 {
                    self.cndmask::<32, S>(vdst, src, exec)
                } else {
                    self.cndmask::<64, S>(vdst, src, exec)
                }
            }
            // Not per-lane maps: `valu_other`'s. Listed by name, not `_`,
            // so that a new opcode does not compile until it is given an
            // arm here or there.
            Nop | SwapB32 | ReadfirstlaneB32 | ReadlaneB32 | WritelaneB32 | MbcntLoU32B32
            | MbcntHiU32B32 | LshlrevB64 | LshrrevB64 | AshrrevI64 | AddCoU32 | SubCoU32
            | SubrevCoU32 | AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 | MadU64U32 | MadI64I32 => {
                return false
            }
        }
        true
    }

    /// The VALU opcodes that are not per-lane maps: lane reads and writes,
    /// 64-bit results, carry-outs. Stops with [`no_semantics`] on an opcode
    /// it has no arm for.
    fn valu_other(
        &mut self,
        op: VOp,
        vdst: u8,
        sdst: u8,
        src: &[Src; 3],
    ) -> Result<(), NoSemantics> {
        use VOp::*;
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut a = [0u32; 64];
        let mut b = [0u32; 64];
        let mut d = [0u32; 64];
        match op {
            Nop => {}
            SwapB32 => {
                // V_SWAP_B32: tmp = D0; D0 = S0; S0 = tmp (the decoder guarantees a VGPR src0).
                if let Src::V(r) = src[0] {
                    self.vread(Src::V(vdst), &mut a);
                    self.vread(Src::V(r), &mut b);
                    self.vwrite(vdst, &b, exec);
                    self.vwrite(r, &a, exec);
                }
            }
            ReadfirstlaneB32 => {
                // The lowest active lane; lane 0 when EXEC is 0 (RDNA3 guide).
                let lane = if exec == 0 {
                    0
                } else {
                    exec.trailing_zeros() as usize
                };
                let v = match src[0] {
                    Src::V(r) => self.vgpr(r as usize, lane),
                    other => self.s32(other),
                };
                self.sw(sdst, v);
            }
            ReadlaneB32 => {
                let lane = (self.s32(src[1]) & (self.lanes - 1)) as usize;
                let v = match src[0] {
                    Src::V(r) => self.vgpr(r as usize, lane),
                    other => self.s32(other),
                };
                self.sw(vdst, v);
            }
            WritelaneB32 => {
                // Ignores EXEC (RDNA3 guide: "writes a lane regardless of EXEC").
                let v = self.s32(src[0]);
                let lane = (self.s32(src[1]) & (self.lanes - 1)) as usize;
                self.set_vgpr(vdst as usize, lane, v);
            }
            MbcntLoU32B32 | MbcntHiU32B32 => {
                // Count of set bits of S0 below this lane (lanes 0–31 for lo,
                // 32–63 for hi), plus S1 (RDNA3 guide v_mbcnt_*).
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                for l in 0..64 {
                    let below = if op == MbcntLoU32B32 {
                        if l >= 32 {
                            u32::MAX
                        } else {
                            (1u32 << l).wrapping_sub(1)
                        }
                    } else if l < 32 {
                        0
                    } else if l >= 64 {
                        u32::MAX
                    } else {
                        (1u64 << (l - 32)).wrapping_sub(1) as u32
                    };
                    d[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
                }
                self.vwrite(vdst, &d, exec);
            }
            LshlrevB64 | LshrrevB64 | AshrrevI64 => {
                self.vread(src[0], &mut a);
                let mut v = [0u64; 64];
                self.vread64(src[1], &mut v);
                let mut r = [0u64; 64];
                for l in 0..64 {
                    let sh = a[l] & 63;
                    r[l] = match op {
                        LshlrevB64 => v[l] << sh,
                        LshrrevB64 => v[l] >> sh,
                        _ => ((v[l] as i64) >> sh) as u64,
                    };
                }
                self.vwrite64(vdst, &r, exec);
            }
            AddCoU32 | SubCoU32 | SubrevCoU32 | AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => {
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                let cin = match op {
                    AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => self.read_mask(src[2]),
                    _ => 0,
                };
                let mut cout = 0u64;
                for l in 0..n {
                    let ci = cin >> l & 1;
                    let (x, y) = match op {
                        SubrevCoU32 | SubrevCoCiU32 => (b[l] as u64, a[l] as u64),
                        _ => (a[l] as u64, b[l] as u64),
                    };
                    let (r, co) = match op {
                        AddCoU32 | AddCoCiU32 => {
                            let t = x + y + ci;
                            (t as u32, t >> 32 != 0)
                        }
                        _ => (x.wrapping_sub(y).wrapping_sub(ci) as u32, y + ci > x),
                    };
                    d[l] = r;
                    cout |= (co as u64) << l;
                }
                self.vwrite(vdst, &d, exec);
                // Carry bits of inactive lanes are written as 0.
                self.write_mask(sdst, cout & exec);
            }
            MadU64U32 | MadI64I32 => {
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                let mut acc = [0u64; 64];
                self.vread64(src[2], &mut acc);
                let mut r = [0u64; 64];
                let mut cout = 0u64;
                for l in 0..n {
                    let (v, co) = if op == MadU64U32 {
                        let p = a[l] as u128 * b[l] as u128 + acc[l] as u128;
                        (p as u64, p >> 64 != 0)
                    } else {
                        // { D1.i1, D0.i64 } = 65'B(65'I(S0.i32) * 65'I(S1.i32) + 65'I(S2.i64)):
                        // the exact sum fits 65 bits, so D1 (bit 64) is its sign.
                        let p = a[l] as i32 as i128 * b[l] as i32 as i128 + acc[l] as i64 as i128;
                        (p as u64, p < 0)
                    };
                    r[l] = v;
                    cout |= (co as u64) << l;
                }
                self.vwrite64(vdst, &r, exec);
                self.write_mask(sdst, cout & exec);
            }
            // `valu_map`'s match names every opcode, so only its own lane
            // maps come here, and it has done them; anything else is an
            // opcode listed there as `valu_other`'s without an arm above.
            other => return Err(NoSemantics(other.name())),
        }
        Ok(())
    }

    fn flat(&mut self, f: &Flat, mem: &GlobalMem, pc: u64) -> Result<(), WaveError> {
        if self.flat_words(f, mem) {
            return Ok(());
        }
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut hint = 0usize;
        for l in 0..n {
            if exec >> l & 1 == 0 {
                continue;
            }
            let base = match f.saddr {
                Some(s) => self
                    .s64(Src::S(s))
                    .wrapping_add(self.vgpr(f.vaddr as usize, l) as u64),
                None => {
                    self.vgpr(f.vaddr as usize, l) as u64
                        | (self.vgpr(f.vaddr as usize + 1, l) as u64) << 32
                }
            };
            let addr = base.wrapping_add(f.offset as i64 as u64);
            let err = |e: super::mem::OutOfBounds| WaveError::Global {
                pc,
                lane: Some(l as u32),
                addr: e.addr,
                len: e.len,
                region: mem.describe(e.addr),
            };
            match f.kind {
                // Whole dwords (b32..b128): loaded as words, one region
                // lookup per instruction in the common case.
                FlatKind::Load { bytes, signed }
                    if bytes % 4 == 0 && bytes <= 16 && (bytes == 4 || !signed) =>
                {
                    let mut w = [0u32; 4];
                    let k = bytes as usize / 4;
                    mem.read_words(&mut hint, addr, &mut w[..k]).map_err(err)?;
                    for (j, &v) in w[..k].iter().enumerate() {
                        self.set_vgpr(f.vdst as usize + j, l, v);
                    }
                }
                FlatKind::Store { bytes } if bytes % 4 == 0 && bytes <= 16 => {
                    let mut w = [0u32; 4];
                    let k = bytes as usize / 4;
                    for (j, x) in w[..k].iter_mut().enumerate() {
                        *x = self.vgpr(f.vdata as usize + j, l);
                    }
                    mem.write_words(&mut hint, addr, &w[..k]).map_err(err)?;
                }
                FlatKind::Load { bytes, signed } => {
                    let mut buf = [0u8; 16];
                    mem.read(addr, &mut buf[..bytes as usize]).map_err(err)?;
                    let dwords = (bytes as usize).div_ceil(4);
                    for k in 0..dwords {
                        let mut w = [0u8; 4];
                        w.copy_from_slice(&buf[4 * k..4 * k + 4]);
                        let mut v = u32::from_le_bytes(w);
                        if signed {
                            v = if bytes == 1 {
                                v as u8 as i8 as i32 as u32
                            } else {
                                v as u16 as i16 as i32 as u32
                            };
                        }
                        self.set_vgpr(f.vdst as usize + k, l, v);
                    }
                }
                FlatKind::Store { bytes } => {
                    let mut buf = [0u8; 16];
                    for k in 0..(bytes as usize).div_ceil(4) {
                        buf[4 * k..4 * k + 4]
                            .copy_from_slice(&self.vgpr(f.vdata as usize + k, l).to_le_bytes());
                    }
                    mem.write(addr, &buf[..bytes as usize]).map_err(err)?;
                }
            }
        }
        Ok(())
    }
}

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

/// See [`Op`].
pub type OpFn = fn(&mut Wave, &Op);

/// Placeholder `Op` of instructions without a handler (never run: the
/// block lengths in [`Decoded::runs`] stop before them).
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

fn cmp_apply(cond: u8, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match cond {
        0 => false,
        1 => o == Less,
        2 => o == Equal,
        3 => o != Greater,
        4 => o == Greater,
        5 => o != Equal,
        6 => o != Less,
        _ => true,
    }
}

#[inline]
fn sext24(x: u32) -> i64 {
    (((x << 8) as i32) >> 8) as i64
}

#[inline]
fn mask32(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}

#[inline]
fn mask64(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Unsigned bit-field extract (S_BFE_U32/U64, V_BFE_U32):
/// `(S0 >> offset) & ((1 << width) - 1)`; a width of the operand's size or
/// more keeps every bit shifted down.
fn bfe_u(x: u64, off: u32, width: u32) -> u64 {
    (x >> off) & mask64(width)
}

/// Signed bit-field extract (S_BFE_I32/I64, V_BFE_I32), from the RDNA3 ISA
/// guide's pseudocode:
/// `tmp = (S0.i >> offset) & ((1 << width) - 1); D0 = signext_from_bit(tmp, width)`.
/// The shift is arithmetic, so a field that runs past the top of the
/// register reads copies of the sign bit: the result is sign-extended from
/// where the field ends. `x` is the source already sign-extended to 64 bits;
/// width 0 gives 0.
fn bfe_i(x: i64, off: u32, width: u32) -> i64 {
    if width == 0 {
        return 0;
    }
    let shifted = x >> off;
    if width >= 64 {
        return shifted;
    }
    let t = shifted as u64 & mask64(width);
    if t >> (width - 1) & 1 == 1 {
        (t | !mask64(width)) as i64
    } else {
        t as i64
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

/// V_SAD_U8 (`masked`: V_MSAD_U8, bytes whose reference S1 byte is 0 are
/// skipped): S2 + the sum over the four bytes of |S0[b] - S1[b]|.
fn sad_u8(x: u32, y: u32, acc: u32, masked: bool) -> u32 {
    (0..4).fold(acc, |t, k| {
        let (p, q) = ((x >> (8 * k)) & 0xff, (y >> (8 * k)) & 0xff);
        if masked && q == 0 {
            t
        } else {
            t.wrapping_add(p.abs_diff(q))
        }
    })
}

/// V_LERP_U8: per byte, (S0[b] + S1[b] + S2[8b]) >> 1 (the rounding bit is
/// the low bit of S2's byte).
fn lerp_u8(x: u32, y: u32, z: u32) -> u32 {
    (0..4).fold(0u32, |t, k| {
        let sh = 8 * k;
        let v = (((x >> sh) & 0xff) + ((y >> sh) & 0xff) + ((z >> sh) & 1)) >> 1;
        t | (v & 0xff) << sh
    })
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

/// V_PERM_B32: each selector byte of S2 picks a byte of {S0, S1} or a
/// constant (RDNA3 guide v_perm_b32 pseudocode).
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let data = ((s0 as u64) << 32) | s1 as u64;
    let mut out = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) as u8;
        let byte = match s {
            0..=7 => (data >> (8 * s)) as u8,
            8 => {
                if data >> 15 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            9 => {
                if data >> 31 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            10 => {
                if data >> 47 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            11 => {
                if data >> 63 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        out |= (byte as u32) << (8 * k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A wave with every SGPR, VGPR, SCC and EXEC drawn from `seed`.
    fn random_wave(wave64: bool, seed: u64) -> Wave {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut w = Wave::new(wave64);
        for x in w.s.iter_mut().take(128) {
            // Small values half the time, so shifts, BFE fields, compares
            // and lane numbers hit their interesting ranges.
            *x = if rng.random() {
                rng.random_range(0..70)
            } else {
                rng.random()
            };
        }
        w.s[NULL as usize] = 0;
        // VGPRs from a cheap hash of (seed, index): a wave has 16,640.
        let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
        for x in w.v.iter_mut() {
            h = h
                .wrapping_mul(0x5851_f42d_4c95_7f2d)
                .wrapping_add(1442695040888963407);
            let r = (h >> 32) as u32;
            *x = if r & 1 == 0 { (r >> 1) % 70 } else { r };
        }
        w.scc = rng.random();
        // Full EXEC a third of the time (the whole-row fast path).
        let exec = if rng.random_range(0..3) == 0 {
            u64::MAX
        } else {
            rng.random()
        };
        w.set_exec(exec & w.full_mask());
        w.pc = 1;
        w
    }

    fn same(a: &Wave, b: &Wave, what: &str) {
        assert_eq!(a.s[..], b.s[..], "{what}: SGPRs");
        assert_eq!(a.scc, b.scc, "{what}: SCC");
        assert_eq!(a.pc, b.pc, "{what}: pc");
        assert!(a.v == b.v, "{what}: VGPRs differ");
    }

    /// Every instruction form that has a pre-resolved [`Op`], drawn as
    /// random words of its encoding and decoded (so operands cover SGPRs,
    /// VGPRs, inline constants, literals, vcc/exec/null/m0 and src_scc):
    /// its handler with the decode-time operands and the generic path leave
    /// identical state, in wave32 and wave64 with random EXEC.
    #[test]
    fn handlers_agree_with_the_generic_path() {
        let prog = super::super::decode::decode_text(&[], 0);
        let mem = GlobalMem::new();
        let env = Env {
            prog: &prog,
            mem: &mem,
            fault: None,
        };
        let mut lds = Lds::new(64);
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut checked = 0usize;
        let mut forms = std::collections::BTreeSet::new();
        // (fixed high bits, mask of the random low bits, words)
        let encodings: [(u32, u32, usize); 8] = [
            (0b10 << 30, 0x3fff_ffff, 1),    // SOP2
            (0x17d << 23, 0x7f_ffff, 1),     // SOP1
            (0x17e << 23, 0x7f_ffff, 1),     // SOPC
            (0xb << 28, 0x0fff_ffff, 1),     // SOPK
            (0, 0x7fff_ffff, 1),             // VOP2 (and VOP1/VOPC by prefix)
            (0x3f << 25, 0x1ff_ffff, 1),     // VOP1
            (0x3e << 25, 0x1ff_ffff, 1),     // VOPC
            (0b110101 << 26, 0x3ff_00ff, 2), // VOP3 (modifier bits zero)
        ];
        for round in 0..16_000u64 {
            let (fixed, mask, n) = encodings[round as usize % encodings.len()];
            let mut words = [fixed | (rng.random::<u32>() & mask), 0, rng.random()];
            if n == 2 {
                // VOP3 second word: three 9-bit sources, no neg/omod.
                words[1] = rng.random::<u32>() & 0x07ff_ffff;
            }
            let (inst, _) = super::super::decode::decode_one(&words);
            if matches!(inst, Inst::Unsupported(_)) {
                continue;
            }
            // Without an Op the form runs through the generic path only.
            // With one: its baseline handler and (where the CPU has AVX2)
            // its AVX2 one.
            for isa_avx2 in [false, true] {
                let Some(op) = op_for_isa(&inst, isa_avx2) else {
                    continue;
                };
                for wave64 in [false, true] {
                    let seed = rng.random();
                    let (mut a, mut b) = (random_wave(wave64, seed), random_wave(wave64, seed));
                    let what = format!(
                        "{} (wave64 {wave64}, avx2 {isa_avx2}, seed {seed})",
                        inst.mnemonic()
                    );
                    (op.f)(&mut a, &op);
                    let r = b.exec_generic(&inst, 0, &env, &mut lds, None);
                    assert!(matches!(r, Ok(None)), "{what}: generic path {r:?}");
                    same(&a, &b, &what);
                    checked += 1;
                    forms.insert(inst.mnemonic());
                    // The whole-row (all lanes active, written in place)
                    // loops against the masked ones, which the generic
                    // path shares: all lanes at once equals even lanes
                    // then odd lanes (no lane reads another's, so the
                    // order cannot matter). Not for a form that reads EXEC
                    // as a source, whose value the split changes.
                    let reads_exec =
                        |s: &Src| matches!(s, Src::S(r) if *r == EXEC_LO || *r == EXEC_LO + 1);
                    if matches!(&inst, Inst::Valu { src, .. } if !src.iter().any(reads_exec)) {
                        let (mut c, mut d) = (random_wave(wave64, seed), random_wave(wave64, seed));
                        let full = c.full_mask();
                        c.set_exec(full);
                        (op.f)(&mut c, &op);
                        for half in [0x5555_5555_5555_5555u64, !0x5555_5555_5555_5555u64] {
                            d.set_exec(full & half);
                            (op.f)(&mut d, &op);
                        }
                        d.set_exec(full);
                        same(&c, &d, &format!("{what}: full EXEC vs two halves"));
                    }
                }
            }
        }
        assert!(
            checked > 5_000 && forms.len() > 150,
            "only {checked} checks over {} forms",
            forms.len()
        );
    }

    /// The block loop of [`Wave::run`] (handler runs, the branch fast path
    /// and the fused compare-and-branch) against [`Wave::run_stepwise`] (every instruction through the
    /// generic path) on random programs of scalar/vector ALU instructions
    /// and SOPP branches of every condition (targets inside the text, and
    /// now and then outside it), run in random quanta: the same status or
    /// error after every quantum, the same pc, executed count and state.
    #[test]
    fn block_loop_agrees_with_the_stepwise_path() {
        use super::super::decode::{decode_one, decode_text};
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let encodings: [(u32, u32); 6] = [
            (0b10 << 30, 0x3fff_ffff), // SOP2
            (0x17d << 23, 0x7f_ffff),  // SOP1
            (0x17e << 23, 0x7f_ffff),  // SOPC
            (0xb << 28, 0x0fff_ffff),  // SOPK
            (0, 0x7fff_ffff),          // VOP2 (and VOP1/VOPC by prefix)
            (0x3e << 25, 0x1ff_ffff),  // VOPC
        ];
        let (mut branches, mut quanta, mut fused) = (0usize, 0usize, 0usize);
        for case in 0..300u64 {
            // (words, Some(branch target instruction) for a branch)
            let mut insts: Vec<(Vec<u32>, Option<i64>)> = Vec::new();
            let n = rng.random_range(4..30);
            while insts.len() < n {
                // Now and then a scalar compare right before an SCC branch
                // (s_cbranch_scc0 is 33, scc1 34): the fused
                // compare-and-branch of `Exit::CmpBranch`.
                if rng.random_range(0..6) == 0 {
                    let (fixed, mask) = encodings[rng.random_range(2..4)];
                    let words = [fixed | (rng.random::<u32>() & mask), rng.random(), 0];
                    let (inst, k) = decode_one(&words);
                    if matches!(inst, Inst::Sopc { .. } | Inst::Sopk { .. }) && k > 0 {
                        insts.push((words[..k].to_vec(), None));
                        let op = rng.random_range(33..=34u32);
                        insts.push((
                            vec![0x17f << 23 | op << 16],
                            Some(rng.random_range(0..n as i64)),
                        ));
                    }
                    continue;
                }
                if rng.random_range(0..4) == 0 {
                    let op = rng.random_range(32..=38u32);
                    let t = if rng.random_range(0..10) == 0 {
                        rng.random_range(-1000..1000)
                    } else {
                        rng.random_range(0..n as i64)
                    };
                    insts.push((vec![0x17f << 23 | op << 16], Some(t)));
                    continue;
                }
                let (fixed, mask) = encodings[rng.random_range(0..encodings.len())];
                let words = [fixed | (rng.random::<u32>() & mask), rng.random(), 0];
                let (inst, k) = decode_one(&words);
                if matches!(inst, Inst::Unsupported(_)) || k == 0 {
                    continue;
                }
                insts.push((words[..k].to_vec(), None));
            }
            insts.push((vec![0x17f << 23 | 48 << 16], None)); // s_endpgm
            let starts: Vec<i64> = insts
                .iter()
                .scan(0i64, |w, (ws, _)| {
                    let s = *w;
                    *w += ws.len() as i64;
                    Some(s)
                })
                .collect();
            let mut text = Vec::new();
            for (k, (ws, t)) in insts.iter().enumerate() {
                let mut ws = ws.clone();
                if let Some(t) = *t {
                    // Words from the next instruction to the target's start.
                    let to = starts.get(t as usize).copied().unwrap_or(t);
                    ws[0] |= (to - starts[k] - 1) as u16 as u32;
                }
                text.extend(ws.iter().flat_map(|w| w.to_le_bytes()));
            }
            let prog = decode_text(&text, 0x1000);
            branches += prog
                .insts
                .iter()
                .filter(|i| matches!(i, Inst::Branch { .. }))
                .count();
            fused += prog
                .exits
                .iter()
                .filter(|e| matches!(e, Exit::CmpBranch { .. }))
                .count();
            let mem = GlobalMem::new();
            let env = Env {
                prog: &prog,
                mem: &mem,
                fault: None,
            };
            let wave64 = case % 2 == 1;
            let seed = rng.random();
            let (mut a, mut b) = (random_wave(wave64, seed), random_wave(wave64, seed));
            (a.pc, b.pc) = (0, 0);
            let (mut la, mut lb) = (Lds::new(64), Lds::new(64));
            for call in 0..12 {
                let q = rng.random_range(1..60);
                let ra = a.run(&env, &mut la, None, q);
                let rb = b.run_stepwise(&env, &mut lb, None, q);
                let what = format!("case {case} call {call} (quantum {q}, wave64 {wave64})");
                assert_eq!(format!("{ra:?}"), format!("{rb:?}"), "{what}: result");
                assert_eq!(a.executed, b.executed, "{what}: executed");
                assert_eq!(a.exec(), b.exec(), "{what}: EXEC");
                same(&a, &b, &what);
                quanta += 1;
                if !matches!(ra, Ok(Status::Running)) {
                    break;
                }
            }
        }
        assert!(
            branches > 1000 && quanta > 1500 && fused > 300,
            "{branches} branches, {quanta} quanta, {fused} fused compare-and-branches"
        );
    }

    /// V_CNDMASK_B32's vectorized blend against a lane-by-lane reading of
    /// the RDNA3 pseudocode, for every operand kind, both wave sizes and
    /// random EXEC.
    #[test]
    fn cndmask_matches_the_lane_rule() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for k in 0..400u64 {
            let wave64 = k % 2 == 1;
            let mut w = random_wave(wave64, k);
            let pick = |rng: &mut ChaCha8Rng| match rng.random_range(0..3) {
                0 => Src::V(rng.random_range(0..8)),
                1 => Src::S(rng.random_range(0..8)),
                _ => Src::Lit(rng.random()),
            };
            let src = [
                pick(&mut rng),
                Src::V(rng.random_range(0..8)),
                Src::S(2 * rng.random_range(0..4)),
            ];
            let before = w.v.to_vec();
            let exec = w.exec();
            let mask = w.read_mask(src[2]);
            let vdst = rng.random_range(0..10);
            let val = |w: &Wave, s: Src, l: usize| match s {
                Src::V(r) => before[r as usize * 64 + l],
                other => w.s32(other),
            };
            let want: Vec<u32> = (0..w.lanes as usize)
                .map(|l| {
                    if exec >> l & 1 == 0 {
                        before[vdst as usize * 64 + l]
                    } else if mask >> l & 1 == 1 {
                        val(&w, src[1], l)
                    } else {
                        val(&w, src[0], l)
                    }
                })
                .collect();
            assert!(w.valu_map(VOp::CndmaskB32, vdst, &src));
            let got: Vec<u32> = (0..w.lanes as usize)
                .map(|l| w.vgpr(vdst as usize, l))
                .collect();
            assert_eq!(got, want, "case {k}: {src:?} -> v{vdst}");
        }
    }

    /// Every VALU opcode the decoder can produce has semantics: run on a
    /// wave, none stops with the "no semantics" error.
    #[test]
    fn every_valu_opcode_has_semantics() {
        for (k, &op) in VOp::ALL.iter().enumerate() {
            let mut w = random_wave(k % 2 == 1, k as u64);
            let src = [Src::V(1), Src::V(2), Src::S(4)];
            if let Err(e) = w.valu(op, 8, 10, &src) {
                panic!("{}: {e:?}", op.name());
            }
        }
    }

    /// The planted case: an opcode that reaches `valu_other` without an
    /// arm there (v_xad_u32 is `valu_map`'s) stops the wave with an error
    /// that names it, and changes nothing.
    #[test]
    fn an_opcode_without_semantics_stops_with_its_name() {
        let mut w = random_wave(false, 3);
        let (v, s) = (w.v.to_vec(), w.s.clone());
        let err = w
            .valu_other(VOp::XadU32, 8, 10, &[Src::V(1), Src::V(2), Src::V(3)])
            .expect_err("v_xad_u32 has no arm in valu_other");
        assert_eq!(err, NoSemantics("v_xad_u32"));
        // The error the wave stops with, at the pc exec_generic gives it.
        let stop = no_semantics(0x1234, err.0);
        let text = stop.to_string();
        assert!(
            matches!(stop, WaveError::Unsupported { pc: 0x1234, .. }),
            "{text}"
        );
        assert!(
            text.contains("v_xad_u32") && text.contains("no semantics"),
            "{text}"
        );
        assert!(w.v.to_vec() == v && w.s == s, "the stop changed registers");
    }

    #[test]
    fn bfe_and_med3_edges() {
        assert_eq!(bfe_u(0xf0, 4, 4), 0xf);
        assert_eq!(bfe_i(0xf0, 4, 4), -1);
        assert_eq!(bfe_i(0x1234, 0, 0), 0);
        assert_eq!(bfe_i((1u64 << 63) as i64, 63, 1), -1);
        assert_eq!(med3(5, 1, 3), 3);
        assert_eq!(med3(-1i32, -5, 7), -1);
        assert_eq!(perm(0x0102_0304, 0x0506_0708, 0x0c07_0004), 0x0001_0804);
    }
}
