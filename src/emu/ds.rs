//! DS (LDS) instructions, written from the RDNA3 ISA guide's pseudocode
//! (§ "Data Share operations"; instruction pages DS_XOR_RTN_B64 etc.) and
//! independent of `model`.
//!
//! Policies where the guide is silent (each named, each documented in
//! README.md "The software device"):
//! - **ds-range**: CalcDsAddr = ADDR + {offset1, offset0} (or offset0/offset1
//!   scaled by the element size, ×64 for stride64) computed without 32-bit
//!   wrap; an access whose first byte is at or past the workgroup's LDS
//!   allocation is out of range: writes are dropped, reads (and the return
//!   value of an atomic) are 0. Per byte for loads and stores.
//! - **ds-align**: atomics must be naturally aligned (4 or 8 bytes); a
//!   misaligned atomic raises MEMVIOL, which stops the wave with a fault naming
//!   pc, lane and address. Plain loads and stores may be unaligned (the
//!   unaligned access mode ROCm configures on gfx10+).
//! - **ds-order**: lanes of one instruction are performed one at a time, each
//!   read-modify-write atomic, in ascending lane order, or in a seeded random
//!   order when an interleave seed is given.
//!
//! The float atomics (DS_ADD_F32, DS_MIN/MAX_F32/F64, DS_CMPSTORE_F32/F64,
//! with and without return) follow the RDNA3 guide's pseudocode (quoted at
//! [`float_new`]); where it is silent the policies below (`POLICY_DS_*`,
//! listed in docs/src/reference/policies.md) say what the device does.
//! DS_CONDXCHG32_RTN_B64 aligns its address down as its pseudocode says
//! ([`POLICY_DS_CONDXCHG_ALIGNS_DOWN`]); the two-address exchanges
//! (DS_STOREXCHG_2ADDR_*) check ds-align on both addresses.

/// DS_ADD_F32 and the MODE register's FP_DENORM field.
pub const POLICY_DS_FADD_DENORM: &str = "ds-fadd-denorm: DS_ADD_F32 honours MODE.FP_DENORM's \
single-precision field (MODE bits 5:4; LLVM SIDefines.h: 0 FP_DENORM_FLUSH_IN_FLUSH_OUT, \
1 FP_DENORM_FLUSH_OUT, 2 FP_DENORM_FLUSH_IN, 3 FP_DENORM_FLUSH_NONE): flushed inputs and \
results become a zero of the same sign. Source: LLVM pull request #89468 (AMDGPU: Simplify DS \
atomicrmw fadd handling): 'DS atomic fadd F32 does respect the denormal mode'; llc-22 \
-mcpu=gfx1100 selects `atomicrmw fadd` on LDS to ds_add_rtn_f32 under both 'ieee' and \
'preserve-sign' f32 denormal modes. The guide's pseudocode (`MEM[ADDR].f32 += DATA.f32`) \
is silent.";

/// DS_ADD_F32's rounding.
pub const POLICY_DS_FADD_RNE: &str = "ds-fadd-rne: DS_ADD_F32 rounds to nearest, ties to \
even, whatever MODE.FP_ROUND holds. Source: LLVM pull request #89468: DS fadd atomics \
'don't respect the rounding mode'; which fixed mode they use is not stated there, and \
round-to-nearest-even (the only mode HIP kernels start in) is assumed.";

/// NaN results of DS_ADD_F32.
pub const POLICY_DS_FADD_NAN: &str = "ds-fadd-nan: a NaN operand of DS_ADD_F32 gives that NaN \
quieted (bit 22 set), MEM's if both are NaN; inf + -inf gives the default NaN 0x7fc00000. \
The guide is silent on NaN payloads.";

/// NaN operands of DS_MIN/MAX_F32/F64.
pub const POLICY_DS_FMINMAX_NAN: &str = "ds-fminmax-nan: DS_MIN/MAX_F32/F64 are IEEE-754-2008 \
minNum/maxNum as selections: a NaN (quiet or signalling, not quieted) loses to a number, \
and if both are NaN MEM keeps its value. Source: llc-22 -mcpu=gfx1100 selects `atomicrmw \
fmin`/`fmax` on LDS (LLVM LangRef: minnum/maxnum semantics, a NaN operand returns the other) \
to ds_min_rtn_f32/ds_max_rtn_f32/ds_min_rtn_f64, and `atomicrmw fminimum` (NaN-propagating) \
to a compare-and-swap loop. The guide's pseudocode (`src < tmp ? src : tmp`) read literally \
differs when MEM holds a NaN (it would keep the NaN): the sources disagree there.";

/// Signed zeros in DS_MIN/MAX_F32/F64.
pub const POLICY_DS_FMINMAX_ZERO: &str = "ds-fminmax-zero: -0 and +0 compare equal in \
DS_MIN/MAX_F32/F64, so MEM keeps its zero (the guide's strict `src < tmp`, `src > tmp`); \
the VALU's V_MIN_F32 orders -0 below +0, the DS pseudocode does not say so.";

/// The compares of the float atomics.
pub const POLICY_DS_FLOAT_COMPARE: &str = "ds-float-compare: DS_MIN/MAX_F32/F64 and \
DS_CMPSTORE_F32/F64 compare the values as stored, as floats: denormals are not flushed \
(whatever MODE.FP_DENORM says; the guide's CDNA3 text: 'Floating-point compare handles \
NAN/INF/denorm'), -0 == +0, and a NaN equals nothing, itself included (the pseudocode's \
`tmp == cmp` on `.f32`/`.f64` values), so DS_CMPSTORE_F32 with a NaN compare value never \
stores.";

/// DS_CONDXCHG32_RTN_B64's address.
pub const POLICY_DS_CONDXCHG_ALIGNS_DOWN: &str = "ds-condxchg-aligns-down: \
DS_CONDXCHG32_RTN_B64 never raises MEMVIOL for alignment: its pseudocode computes \
`ADDR0 = ((ADDR + offset.u32) & 0xfff8U); ADDR1 = ADDR0 + 4U`, so the address is aligned \
down to 8 bytes and wraps at 64 KiB; ds-range then applies to ADDR0.";

/// Lanes and the two halves of a two-address exchange.
pub const POLICY_DS_XCHG2_ORDER: &str = "ds-xchg2-order: a lane's DS_STOREXCHG_2ADDR_* is one \
atomic step (both reads, then both writes, as the pseudocode orders them: `tmp1 = \
MEM[addr1]; tmp2 = MEM[addr2]; MEM[addr1] = DATA; MEM[addr2] = DATA2`), lanes in the \
ds-order; with addr1 == addr2 both returns are the old value and DATA2 stays. Each \
address must be aligned to the element size (ds-align); the fault classes do not apply to \
these exchanges.";

use super::decode::{AtomicOp, Ds, DsKind};
use super::fault::{self, AtomicIn, FaultSpec};
use super::view::WaveView;
use super::WaveError;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Which lanes of a DS instruction one call performs: all of them, or one
/// half of a wave64 instruction split by the scheduler (policy
/// `wave64-split-halves`, [`super::HALVES_POLICY`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Whole,
    /// Lanes 0-31, the first pass.
    Low,
    /// Lanes 32-63, the second pass of an instruction whose low half ran.
    High,
}

impl Part {
    /// The lanes of this part.
    #[inline]
    pub fn mask(self) -> u64 {
        match self {
            Part::Whole => u64::MAX,
            Part::Low => 0xffff_ffff,
            Part::High => !0xffff_ffff,
        }
    }
}

/// One workgroup's LDS allocation.
#[derive(Clone, Debug)]
pub struct Lds {
    pub bytes: Vec<u8>,
    /// The fault injector's state for this workgroup (`fault`).
    pub fault: fault::State,
}

impl Lds {
    pub fn new(size: u32) -> Lds {
        Lds {
            bytes: vec![0; size as usize],
            fault: fault::State::default(),
        }
    }
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
    #[inline]
    fn read_byte(&self, a: u64) -> u8 {
        self.bytes.get(a as usize).copied().unwrap_or(0)
    }
    #[inline]
    fn write_byte(&mut self, a: u64, v: u8) {
        if let Some(b) = self.bytes.get_mut(a as usize) {
            *b = v;
        }
    }
    /// The little-endian dword at `a`, when all of it is in range.
    #[inline(always)]
    fn dword(&self, a: u64) -> Option<u32> {
        let s = self.bytes.get(a as usize..a as usize + 4)?;
        Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    /// [`Lds::read`] of a dword.
    #[inline(always)]
    pub fn read_dword(&self, a: u64) -> u32 {
        match self.dword(a) {
            Some(v) => v,
            None => self.read(a, 4) as u32,
        }
    }
    /// [`Lds::write`] of a dword.
    #[inline(always)]
    pub fn write_dword(&mut self, a: u64, v: u32) {
        match self.bytes.get_mut(a as usize..a as usize + 4) {
            Some(s) => s.copy_from_slice(&v.to_le_bytes()),
            None => self.write(a, 4, v as u64),
        }
    }
    /// Little-endian read of `n` ≤ 8 bytes; bytes out of range read 0.
    #[inline]
    pub fn read(&self, a: u64, n: usize) -> u64 {
        // Dwords and qwords (nearly every access) as fixed-size loads, not a
        // copy of a variable length.
        if n == 4 {
            if let Some(s) = self.dword(a) {
                return s as u64;
            }
        }
        if let Some(s) = self.bytes.get(a as usize..a as usize + n) {
            // Whole in range: one little-endian load of n bytes.
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(s);
            return u64::from_le_bytes(b);
        }
        let mut v = 0u64;
        for k in 0..n {
            v |= (self.read_byte(a + k as u64) as u64) << (8 * k);
        }
        v
    }
    /// Little-endian write of `n` ≤ 8 bytes; bytes out of range are dropped.
    #[inline]
    pub fn write(&mut self, a: u64, n: usize, v: u64) {
        if n == 4 {
            if let Some(s) = self.bytes.get_mut(a as usize..a as usize + 4) {
                s.copy_from_slice(&(v as u32).to_le_bytes());
                return;
            }
        }
        if let Some(s) = self.bytes.get_mut(a as usize..a as usize + n) {
            s.copy_from_slice(&v.to_le_bytes()[..n]);
            return;
        }
        for k in 0..n {
            self.write_byte(a + k as u64, (v >> (8 * k)) as u8);
        }
    }
}

/// The new memory value of a DS atomic: `tmp` is the old value, `data` is
/// DATA (data0), `data2` is DATA2 (data1); `bits` is 32 or 64; `mode` is the
/// wave's MODE register (DS_ADD_F32's denormal mode: [`POLICY_DS_FADD_DENORM`]).
pub fn atomic_new(op: AtomicOp, tmp: u64, data: u64, data2: u64, bits: u32, mode: u32) -> u64 {
    let m = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    let (t, d, d2) = (tmp & m, data & m, data2 & m);
    let sx = |x: u64| {
        if bits == 64 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let r = match op {
        AtomicOp::Add => t.wrapping_add(d),
        AtomicOp::Sub => t.wrapping_sub(d),
        AtomicOp::Rsub => d.wrapping_sub(t),
        // DS_INC: tmp >= src ? 0 : tmp + 1 (unsigned).
        AtomicOp::Inc => {
            if t >= d {
                0
            } else {
                t + 1
            }
        }
        // DS_DEC: (tmp == 0 || tmp > src) ? src : tmp - 1 (unsigned).
        AtomicOp::Dec => {
            if t == 0 || t > d {
                d
            } else {
                t - 1
            }
        }
        AtomicOp::MinI => {
            if sx(d) < sx(t) {
                d
            } else {
                t
            }
        }
        AtomicOp::MaxI => {
            if sx(d) > sx(t) {
                d
            } else {
                t
            }
        }
        AtomicOp::MinU => t.min(d),
        AtomicOp::MaxU => t.max(d),
        AtomicOp::And => t & d,
        AtomicOp::Or => t | d,
        AtomicOp::Xor => t ^ d,
        // DS_MSKOR: (tmp & ~DATA) | DATA2.
        AtomicOp::Mskor => (t & !d) | d2,
        AtomicOp::Wrxchg => d,
        // gfx11 DS_CMPSTORE: src = DATA (data0), cmp = DATA2 (data1); LLVM
        // selects cmpxchg as `ds_cmpstore_rtn_b32 vdst, addr, new, cmp`.
        AtomicOp::Cmpst => {
            if t == d2 {
                d
            } else {
                t
            }
        }
        // DS_WRAP_RTN_B32 (RDNA3 guide): "tmp = MEM[ADDR].u32;
        // MEM[ADDR].u32 = tmp >= DATA.u32 ? tmp - DATA.u32 : tmp + DATA2.u32".
        AtomicOp::Wrap => {
            if t >= d {
                t.wrapping_sub(d)
            } else {
                t.wrapping_add(d2)
            }
        }
        // DS_CONDXCHG32_RTN_B64 (RDNA3 guide): "if DATA[31] then
        // LDS[ADDR0] = { 1'0, DATA[30 : 0] } endif; ... if DATA[63] then
        // LDS[ADDR1] = { 1'0, DATA[62 : 32] } endif" (ADDR1 = ADDR0 + 4: the
        // high dword of the qword).
        AtomicOp::CondXchg32 => {
            let lo = if d >> 31 & 1 != 0 {
                d & 0x7fff_ffff
            } else {
                t & 0xffff_ffff
            };
            let hi = if d >> 63 != 0 {
                d >> 32 & 0x7fff_ffff
            } else {
                t >> 32
            };
            hi << 32 | lo
        }
        AtomicOp::AddF | AtomicOp::MinF | AtomicOp::MaxF | AtomicOp::CmpstF => {
            float_new(op, t, d, d2, bits == 64, mode)
        }
    };
    r & m
}

/// One float format's bit layout.
#[derive(Clone, Copy)]
struct Fmt {
    sign: u64,
    exp: u64,
    quiet: u64,
}

const F32: Fmt = Fmt {
    sign: 1 << 31,
    exp: 0x7f80_0000,
    quiet: 1 << 22,
};
const F64: Fmt = Fmt {
    sign: 1 << 63,
    exp: 0x7ff0_0000_0000_0000,
    quiet: 1 << 51,
};

impl Fmt {
    fn is_nan(self, x: u64) -> bool {
        x & self.exp == self.exp && x & !(self.sign | self.exp) != 0
    }
    /// A denormal becomes the zero of its sign.
    fn flush(self, x: u64) -> u64 {
        if x & self.exp == 0 {
            x & self.sign
        } else {
            x
        }
    }
    fn value(self, x: u64, wide: bool) -> f64 {
        if wide {
            f64::from_bits(x)
        } else {
            f64::from(f32::from_bits(x as u32))
        }
    }
}

/// The float atomics (RDNA3 guide pseudocode, on `.f32`/`.f64` views):
/// - DS_ADD_F32: "tmp = MEM[ADDR].f32; MEM[ADDR].f32 += DATA.f32"
///   ([`POLICY_DS_FADD_DENORM`], [`POLICY_DS_FADD_RNE`], [`POLICY_DS_FADD_NAN`]);
/// - DS_MIN_F32: "src = DATA.f32; MEM[ADDR].f32 = src < tmp ? src : tmp";
///   DS_MAX_F32: "src > tmp ? src : tmp"; the same for F64
///   ([`POLICY_DS_FMINMAX_NAN`], [`POLICY_DS_FMINMAX_ZERO`]);
/// - DS_CMPSTORE_F32: "src = DATA.f32; cmp = DATA2.f32; MEM[ADDR].f32 =
///   tmp == cmp ? src : tmp" ([`POLICY_DS_FLOAT_COMPARE`]).
fn float_new(op: AtomicOp, t: u64, d: u64, d2: u64, wide: bool, mode: u32) -> u64 {
    let f = if wide { F64 } else { F32 };
    match op {
        AtomicOp::AddF => {
            // Only the f32 add exists on gfx11 (no DS_ADD_F64); its denormal
            // field is MODE bits 5:4.
            let denorm = mode >> 4 & 3;
            let (flush_in, flush_out) = (denorm == 0 || denorm == 2, denorm <= 1);
            let (a, b) = if flush_in {
                (f.flush(t), f.flush(d))
            } else {
                (t, d)
            };
            if f.is_nan(a) {
                return a | f.quiet;
            }
            if f.is_nan(b) {
                return b | f.quiet;
            }
            // Host f32 addition: IEEE-754 binary32, round to nearest even.
            let r = f32::from_bits(a as u32) + f32::from_bits(b as u32);
            if r.is_nan() {
                return 0x7fc0_0000;
            }
            let r = u64::from(r.to_bits());
            if flush_out {
                f.flush(r)
            } else {
                r
            }
        }
        AtomicOp::MinF | AtomicOp::MaxF => match (f.is_nan(t), f.is_nan(d)) {
            (true, true) => t,
            (true, false) => d,
            (false, true) => t,
            (false, false) => {
                let (tv, dv) = (f.value(t, wide), f.value(d, wide));
                let take = if op == AtomicOp::MinF {
                    dv < tv
                } else {
                    dv > tv
                };
                if take {
                    d
                } else {
                    t
                }
            }
        },
        _ => {
            // CmpstF: a float compare (NaN never equal, -0 == +0).
            if f.value(t, wide) == f.value(d2, wide) {
                d
            } else {
                t
            }
        }
    }
}

fn lane_order(mask: u64, lanes: u32, rng: Option<&mut ChaCha8Rng>) -> Vec<u32> {
    let mut v: Vec<u32> = (0..lanes).filter(|l| mask >> l & 1 != 0).collect();
    if let Some(r) = rng {
        v.shuffle(r);
    }
    v
}

/// The lanes of `mask` in the order they are performed: ascending without a
/// scheduler seed (no allocation), seeded shuffle with one.
enum Lanes {
    Ascending { mask: u64, next: u32, lanes: u32 },
    Shuffled(std::vec::IntoIter<u32>),
}

impl Iterator for Lanes {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Lanes::Ascending { mask, next, lanes } => {
                while *next < *lanes {
                    let l = *next;
                    *next += 1;
                    if *mask >> l & 1 != 0 {
                        return Some(l);
                    }
                }
                None
            }
            Lanes::Shuffled(it) => it.next(),
        }
    }
}

fn lanes_in_order(mask: u64, lanes: u32, rng: Option<&mut ChaCha8Rng>) -> Lanes {
    match rng {
        None => Lanes::Ascending {
            mask,
            next: 0,
            lanes,
        },
        Some(r) => Lanes::Shuffled(lane_order(mask, lanes, Some(r)).into_iter()),
    }
}

/// Execute one DS instruction for the active lanes of `w` in `part` (the
/// whole instruction, or one half of a split wave64 instruction).
pub fn exec_ds<W: WaveView>(
    w: &mut W,
    d: &Ds,
    lds: &mut Lds,
    fault: Option<FaultSpec>,
    rng: Option<&mut ChaCha8Rng>,
    pc: u64,
    part: Part,
) -> Result<(), WaveError> {
    // The lanes this call performs; the fault injector below still sees
    // the whole EXEC (its conditions are the instruction's).
    let exec = w.exec() & part.mask();
    let lanes = w.lanes();
    let offset16 = ((d.offset1 as u64) << 8) | d.offset0 as u64;
    match d.kind {
        DsKind::Nop => Ok(()),
        DsKind::Atomic { op, wide, rtn } if fault.is_none() && rng.is_none() => {
            // The common case (no fault, ascending lane order) in one tight,
            // allocation-free loop per opcode; same semantics as below.
            use AtomicOp::*;
            let mode = w.mode();
            let down = op == CondXchg32;
            let n = match (op, wide) {
                (Xor, true) => {
                    atomic_fast::<true, W>(w, d, lds, exec, offset16, rtn, pc, false, |t, x, _| {
                        t ^ x
                    })?
                }
                (Xor, false) => atomic_fast::<false, W>(
                    w,
                    d,
                    lds,
                    exec,
                    offset16,
                    rtn,
                    pc,
                    false,
                    |t, x, _| t ^ x,
                )?,
                (o, true) => {
                    atomic_fast::<true, W>(w, d, lds, exec, offset16, rtn, pc, down, |t, x, y| {
                        atomic_new(o, t, x, y, 64, mode)
                    })?
                }
                (o, false) => atomic_fast::<false, W>(
                    w,
                    d,
                    lds,
                    exec,
                    offset16,
                    rtn,
                    pc,
                    false,
                    |t, x, y| atomic_new(o, t, x, y, 32, mode),
                )?,
            };
            w.count_atomic_lane_ops(n);
            Ok(())
        }
        DsKind::Atomic { op, wide, rtn } => {
            // Faults or a shuffled lane order: the fault injector's one
            // hook, given the lanes' inputs (`fault::atomic`).
            let mut addr = [0u32; 64];
            let mut data = [0u64; 64];
            let mut data2 = [0u64; 64];
            let read_data = |w: &W, r: u8, l: usize| -> u64 {
                let lo = w.vgpr(r as usize, l) as u64;
                if wide {
                    lo | (w.vgpr(r as usize + 1, l) as u64) << 32
                } else {
                    lo
                }
            };
            for l in 0..lanes as usize {
                addr[l] = w.vgpr(d.addr as usize, l);
                data[l] = read_data(w, d.data0, l);
                data2[l] = read_data(w, d.data1, l);
            }
            let input = AtomicIn {
                op,
                wide,
                lanes,
                exec: w.exec(),
                part,
                addr: &addr,
                data: &data,
                data2: &data2,
                offset0: d.offset0,
                offset1: d.offset1,
                mode: w.mode(),
            };
            let out = fault::atomic(&input, lds, fault.as_ref(), rng).map_err(|m| {
                WaveError::MemViol {
                    pc,
                    lane: m.lane,
                    addr: m.addr,
                    what: format!(
                        "{} needs {}-byte alignment",
                        d.name,
                        if wide { 8 } else { 4 }
                    ),
                }
            })?;
            w.count_atomic_lane_ops(u64::from(out.mask.count_ones()));
            if rtn {
                for l in 0..lanes as usize {
                    if out.mask >> l & 1 == 0 {
                        continue;
                    }
                    w.set_vgpr(d.vdst as usize, l, out.ret[l] as u32);
                    if wide {
                        w.set_vgpr(d.vdst as usize + 1, l, (out.ret[l] >> 32) as u32);
                    }
                }
            }
            Ok(())
        }
        DsKind::Xchg2 { wide, stride64 } => xchg2(w, d, lds, exec, wide, stride64, rng, pc),
        DsKind::Store { bytes } => {
            for l in lanes_in_order(exec, lanes, rng) {
                let l = l as usize;
                let a = w.vgpr(d.addr as usize, l) as u64 + offset16;
                if bytes % 4 == 0 {
                    // Whole dwords (b32..b128): store_bytes's dword steps,
                    // each a fixed-size store.
                    for j in 0..bytes as usize / 4 {
                        lds.write_dword(a + 4 * j as u64, w.vgpr(d.data0 as usize + j, l));
                    }
                } else {
                    store_bytes(w, lds, a, d.data0, bytes as usize, l);
                }
            }
            Ok(())
        }
        DsKind::Store2 { wide, stride64 } => {
            let el: u64 = if wide { 8 } else { 4 };
            let scale = el * if stride64 { 64 } else { 1 };
            for l in lanes_in_order(exec, lanes, rng) {
                let l = l as usize;
                let base = w.vgpr(d.addr as usize, l) as u64;
                store_bytes(
                    w,
                    lds,
                    base + d.offset0 as u64 * scale,
                    d.data0,
                    el as usize,
                    l,
                );
                store_bytes(
                    w,
                    lds,
                    base + d.offset1 as u64 * scale,
                    d.data1,
                    el as usize,
                    l,
                );
            }
            Ok(())
        }
        DsKind::Load { bytes, signed } => {
            for l in 0..lanes as usize {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let a = w.vgpr(d.addr as usize, l) as u64 + offset16;
                if bytes % 4 == 0 && !signed {
                    // Whole dwords: load_bytes's dword steps, each a
                    // fixed-size load.
                    for j in 0..bytes as usize / 4 {
                        let v = lds.read_dword(a + 4 * j as u64);
                        w.set_vgpr(d.vdst as usize + j, l, v);
                    }
                } else {
                    load_bytes(w, lds, a, d.vdst, bytes as usize, signed, l);
                }
            }
            Ok(())
        }
        DsKind::Load2 { wide, stride64 } => {
            let el: u64 = if wide { 8 } else { 4 };
            let scale = el * if stride64 { 64 } else { 1 };
            let second = d.vdst.wrapping_add(if wide { 2 } else { 1 });
            for l in 0..lanes as usize {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let base = w.vgpr(d.addr as usize, l) as u64;
                load_bytes(
                    w,
                    lds,
                    base + d.offset0 as u64 * scale,
                    d.vdst,
                    el as usize,
                    false,
                    l,
                );
                load_bytes(
                    w,
                    lds,
                    base + d.offset1 as u64 * scale,
                    second,
                    el as usize,
                    false,
                    l,
                );
            }
            Ok(())
        }
    }
}

/// Ascending-lane atomic over the active lanes; returns the lane count.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn atomic_fast<const WIDE: bool, W: WaveView>(
    w: &mut W,
    d: &Ds,
    lds: &mut Lds,
    exec: u64,
    offset: u64,
    rtn: bool,
    pc: u64,
    align_down: bool,
    f: impl Fn(u64, u64, u64) -> u64,
) -> Result<u64, WaveError> {
    let bytes: usize = if WIDE { 8 } else { 4 };
    let lanes = w.lanes() as usize;
    let (ra, rd0, rd1, rv) = (
        d.addr as usize * 64,
        d.data0 as usize * 64,
        d.data1 as usize * 64,
        d.vdst as usize * 64,
    );
    let v = w.vgprs();
    // DS_CONDXCHG32_RTN_B64: `ADDR0 = ((ADDR + offset.u32) & 0xfff8U)`
    // (POLICY_DS_CONDXCHG_ALIGNS_DOWN); every other atomic as it is.
    let ea = |a: u64| if align_down { a & 0xfff8 } else { a };
    // Alignment of every lane first: a MEMVIOL stops the wave before any lane writes.
    for l in 0..lanes {
        if exec >> l & 1 != 0 && !align_down {
            let a = v.get(ra + l).copied().unwrap_or(0) as u64 + offset;
            if !a.is_multiple_of(bytes as u64) {
                return Err(WaveError::MemViol {
                    pc,
                    lane: l as u32,
                    addr: a,
                    what: format!("{} needs {bytes}-byte alignment", d.name),
                });
            }
        }
    }
    let size = lds.bytes.len();
    let mut n = 0;
    let pair = |v: &[u32], r: usize, l: usize| -> u64 {
        let lo = v.get(r + l).copied().unwrap_or(0) as u64;
        if WIDE {
            lo | (v.get(r + 64 + l).copied().unwrap_or(0) as u64) << 32
        } else {
            lo
        }
    };
    for l in 0..lanes {
        if exec >> l & 1 == 0 {
            continue;
        }
        n += 1;
        let a = ea(v.get(ra + l).copied().unwrap_or(0) as u64 + offset) as usize;
        let data = pair(v, rd0, l);
        let data2 = pair(v, rd1, l);
        // ds-range: out of range reads 0 and drops the write.
        let tmp = if a < size {
            match lds.bytes.get_mut(a..a + bytes) {
                Some(m) => {
                    let mut b = [0u8; 8];
                    b[..bytes].copy_from_slice(m);
                    let t = u64::from_le_bytes(b);
                    let new = f(t, data, data2);
                    m.copy_from_slice(&new.to_le_bytes()[..bytes]);
                    t
                }
                None => 0,
            }
        } else {
            0
        };
        if rtn {
            if let Some(x) = v.get_mut(rv + l) {
                *x = tmp as u32;
            }
            if WIDE {
                if let Some(x) = v.get_mut(rv + 64 + l) {
                    *x = (tmp >> 32) as u32;
                }
            }
        }
    }
    Ok(n)
}

/// DS_STOREXCHG_2ADDR(_STRIDE64)_RTN_B32/B64 (RDNA3 guide):
/// "addr1 = ADDR_BASE.u32 + OFFSET0.u32 * 4U; addr2 = ADDR_BASE.u32 +
/// OFFSET1.u32 * 4U; tmp1 = MEM[addr1].b32; tmp2 = MEM[addr2].b32;
/// MEM[addr1].b32 = DATA.b32; MEM[addr2].b32 = DATA2.b32; RETURN_DATA[31 :
/// 0] = tmp1; RETURN_DATA[63 : 32] = tmp2" (× 256 for STRIDE64; B64: 8 and
/// 512, `.b64`, RETURN_DATA[127 : 64] = tmp2). [`POLICY_DS_XCHG2_ORDER`].
#[allow(clippy::too_many_arguments)]
fn xchg2<W: WaveView>(
    w: &mut W,
    d: &Ds,
    lds: &mut Lds,
    exec: u64,
    wide: bool,
    stride64: bool,
    rng: Option<&mut ChaCha8Rng>,
    pc: u64,
) -> Result<(), WaveError> {
    let lanes = w.lanes();
    let el: u64 = if wide { 8 } else { 4 };
    let scale = el * if stride64 { 64 } else { 1 };
    let regs = if wide { 2 } else { 1 };
    let addrs = |w: &W, l: usize| {
        let base = u64::from(w.vgpr(d.addr as usize, l));
        (
            base + u64::from(d.offset0) * scale,
            base + u64::from(d.offset1) * scale,
        )
    };
    // ds-align on both addresses of every lane before any lane writes.
    for l in 0..lanes as usize {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (a1, a2) = addrs(w, l);
        for a in [a1, a2] {
            if !a.is_multiple_of(el) {
                return Err(WaveError::MemViol {
                    pc,
                    lane: l as u32,
                    addr: a,
                    what: format!("{} needs {el}-byte alignment", d.name),
                });
            }
        }
    }
    let read = |w: &W, r: u8, l: usize| -> u64 {
        let lo = u64::from(w.vgpr(r as usize, l));
        if wide {
            lo | u64::from(w.vgpr(r as usize + 1, l)) << 32
        } else {
            lo
        }
    };
    // ds-range: an element not wholly inside the allocation reads 0 and
    // drops its write.
    let size = lds.size();
    let inside = |a: u64| a + el <= size;
    let mut n = 0;
    for l in lanes_in_order(exec, lanes, rng) {
        let l = l as usize;
        n += 1;
        let (a1, a2) = addrs(w, l);
        let (data, data2) = (read(w, d.data0, l), read(w, d.data1, l));
        let tmp1 = if inside(a1) {
            lds.read(a1, el as usize)
        } else {
            0
        };
        let tmp2 = if inside(a2) {
            lds.read(a2, el as usize)
        } else {
            0
        };
        if inside(a1) {
            lds.write(a1, el as usize, data);
        }
        if inside(a2) {
            lds.write(a2, el as usize, data2);
        }
        for (k, v) in [tmp1, tmp2].into_iter().enumerate() {
            let r = d.vdst as usize + k * regs;
            w.set_vgpr(r, l, v as u32);
            if wide {
                w.set_vgpr(r + 1, l, (v >> 32) as u32);
            }
        }
    }
    w.count_atomic_lane_ops(n);
    Ok(())
}

fn store_bytes<W: WaveView>(w: &W, lds: &mut Lds, a: u64, data: u8, bytes: usize, l: usize) {
    let mut k = 0;
    while k < bytes {
        let n = (bytes - k).min(4);
        let v = w.vgpr(data as usize + k / 4, l) as u64;
        lds.write(a + k as u64, n, v);
        k += 4;
    }
}

fn load_bytes<W: WaveView>(
    w: &mut W,
    lds: &Lds,
    a: u64,
    vdst: u8,
    bytes: usize,
    signed: bool,
    l: usize,
) {
    let mut k = 0;
    while k < bytes {
        let n = (bytes - k).min(4);
        let mut v = lds.read(a + k as u64, n) as u32;
        if signed {
            v = if n == 1 {
                v as u8 as i8 as i32 as u32
            } else {
                v as u16 as i16 as i32 as u32
            };
        }
        w.set_vgpr(vdst as usize + k / 4, l, v);
        k += 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_pseudocode_edges() {
        use AtomicOp::*;
        assert_eq!(atomic_new(Add, 0xffff_ffff, 1, 0, 32, 0), 0);
        assert_eq!(atomic_new(Add, u64::MAX, 1, 0, 64, 0), 0);
        assert_eq!(atomic_new(Sub, 0, 1, 0, 32, 0), 0xffff_ffff);
        assert_eq!(atomic_new(Rsub, 1, 0, 0, 64, 0), u64::MAX);
        assert_eq!(atomic_new(Inc, 5, 5, 0, 32, 0), 0);
        assert_eq!(atomic_new(Inc, 4, 5, 0, 32, 0), 5);
        assert_eq!(atomic_new(Dec, 0, 7, 0, 32, 0), 7);
        assert_eq!(atomic_new(Dec, 9, 7, 0, 32, 0), 7);
        assert_eq!(atomic_new(Dec, 3, 7, 0, 32, 0), 2);
        assert_eq!(atomic_new(MinI, 1, 0xffff_ffff, 0, 32, 0), 0xffff_ffff);
        assert_eq!(atomic_new(MinU, 1, 0xffff_ffff, 0, 32, 0), 1);
        assert_eq!(atomic_new(MaxI, 1, 0xffff_ffff, 0, 32, 0), 1);
        assert_eq!(atomic_new(MaxI, 0, 1 << 63, 0, 64, 0), 0);
        assert_eq!(atomic_new(MaxU, 0, 1 << 63, 0, 64, 0), 1 << 63);
        assert_eq!(atomic_new(Mskor, 0xff, 0x0f, 0x300, 32, 0), 0x3f0);
        assert_eq!(atomic_new(Cmpst, 7, 9, 7, 32, 0), 9);
        assert_eq!(atomic_new(Cmpst, 6, 9, 7, 32, 0), 6);
        assert_eq!(
            atomic_new(Xor, 0x0123_4567_89ab_cdef, 0xff, 0, 64, 0),
            0x0123_4567_89ab_cd10
        );
        assert_eq!(atomic_new(Wrxchg, 1, 2, 3, 64, 0), 2);
    }

    #[test]
    fn lds_out_of_range_reads_zero_and_drops_writes() {
        let mut l = Lds::new(16);
        l.write(12, 8, u64::MAX);
        assert_eq!(l.read(8, 8), 0xffff_ffff_0000_0000);
        assert_eq!(l.read(16, 8), 0);
        assert_eq!(l.bytes.len(), 16);
    }
}
