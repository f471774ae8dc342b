//! FLAT/GLOBAL memory semantics: the per-lane access, and the whole-dword
//! fast path that finds the buffer once for every lane.

use super::Wave;
use crate::emu::decode::{Flat, FlatKind, Src};
use crate::emu::mem::GlobalMem;
use crate::emu::WaveError;
use std::sync::atomic::Ordering::Relaxed;

impl Wave {
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

    pub(super) fn flat(&mut self, f: &Flat, mem: &GlobalMem, pc: u64) -> Result<(), WaveError> {
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
            let err = |e: crate::emu::mem::OutOfBounds| WaveError::Global {
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
