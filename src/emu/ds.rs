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

use super::decode::{AtomicOp, Ds, DsKind};
use super::fault::{self, AtomicIn, FaultSpec};
use super::WaveError;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

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
    /// Little-endian read of `n` ≤ 8 bytes; bytes out of range read 0.
    #[inline]
    pub fn read(&self, a: u64, n: usize) -> u64 {
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
/// DATA (data0), `data2` is DATA2 (data1); `bits` is 32 or 64.
pub fn atomic_new(op: AtomicOp, tmp: u64, data: u64, data2: u64, bits: u32) -> u64 {
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
    };
    r & m
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

/// What a DS instruction reads and writes of its wave. `wave::Wave`
/// implements it, so this module sits below `wave` (which calls
/// [`exec_ds`]) instead of importing it back.
pub trait DsWave {
    /// EXEC as a lane mask (exec_lo only in wave32).
    fn exec(&self) -> u64;
    /// 32 or 64.
    fn lanes(&self) -> u32;
    /// The VGPR file: register r, lane l at `r * 64 + l`.
    fn vgprs(&mut self) -> &mut [u32];
    /// Count active-lane DS atomic operations (throughput figures).
    fn count_atomic_lane_ops(&mut self, n: u64);
    fn vgpr(&self, r: usize, lane: usize) -> u32;
    fn set_vgpr(&mut self, r: usize, lane: usize, val: u32);
}

/// Execute one DS instruction for the active lanes of `w`.
pub fn exec_ds<W: DsWave>(
    w: &mut W,
    d: &Ds,
    lds: &mut Lds,
    fault: Option<FaultSpec>,
    rng: Option<&mut ChaCha8Rng>,
    pc: u64,
) -> Result<(), WaveError> {
    let exec = w.exec();
    let lanes = w.lanes();
    let offset16 = ((d.offset1 as u64) << 8) | d.offset0 as u64;
    match d.kind {
        DsKind::Nop => Ok(()),
        DsKind::Atomic { op, wide, rtn } if fault.is_none() && rng.is_none() => {
            // The common case (no fault, ascending lane order) in one tight,
            // allocation-free loop per opcode; same semantics as below.
            use AtomicOp::*;
            let n = match (op, wide) {
                (Xor, true) => {
                    atomic_fast::<true, W>(w, d, lds, exec, offset16, rtn, pc, |t, x, _| t ^ x)?
                }
                (Xor, false) => {
                    atomic_fast::<false, W>(w, d, lds, exec, offset16, rtn, pc, |t, x, _| t ^ x)?
                }
                (o, true) => {
                    atomic_fast::<true, W>(w, d, lds, exec, offset16, rtn, pc, |t, x, y| {
                        atomic_new(o, t, x, y, 64)
                    })?
                }
                (o, false) => {
                    atomic_fast::<false, W>(w, d, lds, exec, offset16, rtn, pc, |t, x, y| {
                        atomic_new(o, t, x, y, 32)
                    })?
                }
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
                exec,
                addr: &addr,
                data: &data,
                data2: &data2,
                offset0: d.offset0,
                offset1: d.offset1,
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
        DsKind::Store { bytes } => {
            for l in lanes_in_order(exec, lanes, rng) {
                let l = l as usize;
                let a = w.vgpr(d.addr as usize, l) as u64 + offset16;
                store_bytes(w, lds, a, d.data0, bytes as usize, l);
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
                load_bytes(w, lds, a, d.vdst, bytes as usize, signed, l);
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
fn atomic_fast<const WIDE: bool, W: DsWave>(
    w: &mut W,
    d: &Ds,
    lds: &mut Lds,
    exec: u64,
    offset: u64,
    rtn: bool,
    pc: u64,
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
    // Alignment of every lane first: a MEMVIOL stops the wave before any lane writes.
    for l in 0..lanes {
        if exec >> l & 1 != 0 {
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
        let a = (v.get(ra + l).copied().unwrap_or(0) as u64 + offset) as usize;
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

fn store_bytes<W: DsWave>(w: &W, lds: &mut Lds, a: u64, data: u8, bytes: usize, l: usize) {
    let mut k = 0;
    while k < bytes {
        let n = (bytes - k).min(4);
        let v = w.vgpr(data as usize + k / 4, l) as u64;
        lds.write(a + k as u64, n, v);
        k += 4;
    }
}

fn load_bytes<W: DsWave>(
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
        assert_eq!(atomic_new(Add, 0xffff_ffff, 1, 0, 32), 0);
        assert_eq!(atomic_new(Add, u64::MAX, 1, 0, 64), 0);
        assert_eq!(atomic_new(Sub, 0, 1, 0, 32), 0xffff_ffff);
        assert_eq!(atomic_new(Rsub, 1, 0, 0, 64), u64::MAX);
        assert_eq!(atomic_new(Inc, 5, 5, 0, 32), 0);
        assert_eq!(atomic_new(Inc, 4, 5, 0, 32), 5);
        assert_eq!(atomic_new(Dec, 0, 7, 0, 32), 7);
        assert_eq!(atomic_new(Dec, 9, 7, 0, 32), 7);
        assert_eq!(atomic_new(Dec, 3, 7, 0, 32), 2);
        assert_eq!(atomic_new(MinI, 1, 0xffff_ffff, 0, 32), 0xffff_ffff);
        assert_eq!(atomic_new(MinU, 1, 0xffff_ffff, 0, 32), 1);
        assert_eq!(atomic_new(MaxI, 1, 0xffff_ffff, 0, 32), 1);
        assert_eq!(atomic_new(MaxI, 0, 1 << 63, 0, 64), 0);
        assert_eq!(atomic_new(MaxU, 0, 1 << 63, 0, 64), 1 << 63);
        assert_eq!(atomic_new(Mskor, 0xff, 0x0f, 0x300, 32), 0x3f0);
        assert_eq!(atomic_new(Cmpst, 7, 9, 7, 32), 9);
        assert_eq!(atomic_new(Cmpst, 6, 9, 7, 32), 6);
        assert_eq!(
            atomic_new(Xor, 0x0123_4567_89ab_cdef, 0xff, 0, 64),
            0x0123_4567_89ab_cd10
        );
        assert_eq!(atomic_new(Wrxchg, 1, 2, 3, 64), 2);
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
