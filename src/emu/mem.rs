//! Global memory of the software device: buffers the emulator owns, placed
//! at fake device addresses, with every access bounds-checked. An access that
//! falls outside every region is reported (a fault), never host memory.
//!
//! Words are `AtomicU32` so that workgroups running on several host threads
//! can share the buffers without `unsafe`; accesses are `Relaxed`, which
//! matches the device's lack of ordering between unrelated global accesses of
//! different workgroups (the kernels dsxor runs never share a global word
//! between workgroups).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

/// Where the first region is placed; regions are 64 KiB-aligned and separated
/// by at least one unmapped 64 KiB guard, so an overrun is a fault.
pub const FIRST_REGION: u64 = 0x0000_7f10_0000_0000;
const ALIGN: u64 = 0x1_0000;

#[derive(Debug)]
struct Region {
    base: u64,
    len: u64,
    name: String,
    /// Shared so that a region can outlive one launch: the HIP simulator
    /// (hipsim/) maps the device's `hipMalloc` allocations into every launch
    /// without copying them.
    words: Arc<[AtomicU32]>,
}

/// The emulated global address space.
#[derive(Debug, Default)]
pub struct GlobalMem {
    regions: Vec<Region>,
    next: u64,
}

/// An access outside every region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    pub addr: u64,
    pub len: u64,
}

impl GlobalMem {
    pub fn new() -> GlobalMem {
        GlobalMem {
            regions: Vec::new(),
            next: FIRST_REGION,
        }
    }

    /// Map `bytes` as a new region named `name`; returns its device address.
    pub fn map(&mut self, name: &str, bytes: &[u8]) -> u64 {
        let base = self.next;
        let len = bytes.len() as u64;
        let words: Arc<[AtomicU32]> = bytes
            .chunks(4)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                AtomicU32::new(u32::from_le_bytes(b))
            })
            .collect();
        self.regions.push(Region {
            base,
            len,
            name: name.to_string(),
            words,
        });
        // Next base: past this region, rounded up, plus one guard block.
        self.next = (base + len.max(1)).div_ceil(ALIGN) * ALIGN + ALIGN;
        base
    }

    /// Map `len` bytes held in `words` (little-endian, at least
    /// `len.div_ceil(4)` of them) at the fixed address `base`, sharing the
    /// words with the caller: what the kernel writes, the caller sees. Fails
    /// when the range would overlap a mapped region or does not fit.
    pub fn map_shared(
        &mut self,
        name: &str,
        base: u64,
        words: Arc<[AtomicU32]>,
        len: u64,
    ) -> Result<u64, String> {
        if (words.len() as u64).saturating_mul(4) < len {
            return Err(format!(
                "{name}: {len} bytes do not fit in {} words",
                words.len()
            ));
        }
        let end = base
            .checked_add(len.max(1))
            .ok_or_else(|| format!("{name}: [{base:#x}, +{len:#x}) wraps around"))?;
        if let Some(r) = self
            .regions
            .iter()
            .find(|r| base < r.base + r.len.max(1) && r.base < end)
        {
            return Err(format!(
                "{name} at [{base:#x}, {end:#x}) overlaps {} at [{:#x}, {:#x})",
                r.name,
                r.base,
                r.base + r.len
            ));
        }
        self.regions.push(Region {
            base,
            len,
            name: name.to_string(),
            words,
        });
        // `map` places later regions past this one (with a guard block).
        if end + ALIGN > self.next {
            self.next = end.div_ceil(ALIGN) * ALIGN + ALIGN;
        }
        Ok(base)
    }

    /// The bytes of region `i` (in `map` order).
    pub fn region_bytes(&self, i: usize) -> Option<Vec<u8>> {
        let r = self.regions.get(i)?;
        let mut out = Vec::with_capacity(r.len as usize);
        for w in r.words.iter() {
            out.extend_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        out.truncate(r.len as usize);
        Some(out)
    }

    /// Name of the region holding `addr`, for fault messages.
    pub fn describe(&self, addr: u64) -> String {
        match self
            .regions
            .iter()
            .find(|r| addr >= r.base && addr < r.base + r.len.max(1))
        {
            Some(r) => format!("{} + {:#x}", r.name, addr - r.base),
            None => {
                let near: Vec<String> = self
                    .regions
                    .iter()
                    .map(|r| format!("{} at [{:#x}, {:#x})", r.name, r.base, r.base + r.len))
                    .collect();
                format!("no buffer (mapped: {})", near.join(", "))
            }
        }
    }

    fn find(&self, addr: u64, len: u64) -> Result<(&Region, u64), OutOfBounds> {
        // Regions are mapped at increasing, disjoint addresses: the only
        // candidate is the last one starting at or below `addr`.
        let i = self.regions.partition_point(|r| r.base <= addr);
        if let Some(r) = i.checked_sub(1).and_then(|i| self.regions.get(i)) {
            let off = addr - r.base;
            if off.checked_add(len).is_some_and(|end| end <= r.len) {
                return Ok((r, off));
            }
        }
        Err(OutOfBounds { addr, len })
    }

    /// The words of the region holding all of `[lo, end)` and that region's
    /// base address, trying region `*hint` first (see `find_hinted`). The
    /// interpreter's fast path: one lookup for every lane of an
    /// instruction whose addresses fall in one buffer.
    #[inline]
    pub fn words_holding(
        &self,
        hint: &mut usize,
        lo: u64,
        end: u64,
    ) -> Option<(u64, &[AtomicU32])> {
        let len = end.checked_sub(lo)?;
        let (r, _) = self.find_hinted(hint, lo, len).ok()?;
        Some((r.base, &r.words[..]))
    }

    /// The region holding `[addr, addr + len)`, trying region `*hint`
    /// first (the lanes of one instruction mostly hit one buffer) and
    /// leaving the found index there.
    #[inline]
    fn find_hinted(
        &self,
        hint: &mut usize,
        addr: u64,
        len: u64,
    ) -> Result<(&Region, u64), OutOfBounds> {
        if let Some(r) = self.regions.get(*hint) {
            if let Some(off) = addr.checked_sub(r.base) {
                if off.checked_add(len).is_some_and(|end| end <= r.len) {
                    return Ok((r, off));
                }
            }
        }
        let (r, off) = self.find(addr, len)?;
        *hint = self.regions.partition_point(|x| x.base <= addr) - 1;
        Ok((r, off))
    }

    /// `out.len()` little-endian dwords from `addr` (same result as
    /// [`GlobalMem::read`] of `4 * out.len()` bytes); a dword-aligned
    /// access loads whole words. `hint`: see `find_hinted`.
    #[inline]
    pub fn read_words(
        &self,
        hint: &mut usize,
        addr: u64,
        out: &mut [u32],
    ) -> Result<(), OutOfBounds> {
        let (r, off) = self.find_hinted(hint, addr, 4 * out.len() as u64)?;
        let w0 = (off / 4) as usize;
        if off % 4 == 0 {
            if let Some(ws) = r.words.get(w0..w0 + out.len()) {
                for (o, w) in out.iter_mut().zip(ws) {
                    *o = w.load(Relaxed);
                }
                return Ok(());
            }
        }
        let mut b = [0u8; 16];
        let n = 4 * out.len();
        self.read(addr, &mut b[..n])?;
        for (o, c) in out.iter_mut().zip(b[..n].chunks_exact(4)) {
            *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    /// Store `data` as little-endian dwords at `addr` (same effect as
    /// [`GlobalMem::write`] of their bytes); dword-aligned stores whole words.
    #[inline]
    pub fn write_words(
        &self,
        hint: &mut usize,
        addr: u64,
        data: &[u32],
    ) -> Result<(), OutOfBounds> {
        let (r, off) = self.find_hinted(hint, addr, 4 * data.len() as u64)?;
        let w0 = (off / 4) as usize;
        if off % 4 == 0 {
            if let Some(ws) = r.words.get(w0..w0 + data.len()) {
                for (w, &d) in ws.iter().zip(data) {
                    w.store(d, Relaxed);
                }
                return Ok(());
            }
        }
        let mut b = [0u8; 16];
        for (c, d) in b.chunks_exact_mut(4).zip(data) {
            c.copy_from_slice(&d.to_le_bytes());
        }
        self.write(addr, &b[..4 * data.len()])
    }

    /// Read `buf.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), OutOfBounds> {
        let (r, off) = self.find(addr, buf.len() as u64)?;
        if off % 4 == 0 && buf.len().is_multiple_of(4) {
            let w0 = (off / 4) as usize;
            for (k, chunk) in buf.chunks_mut(4).enumerate() {
                let v = r.words.get(w0 + k).map(|w| w.load(Relaxed)).unwrap_or(0);
                chunk.copy_from_slice(&v.to_le_bytes());
            }
            return Ok(());
        }
        for (k, b) in buf.iter_mut().enumerate() {
            let o = off + k as u64;
            let v = r
                .words
                .get((o / 4) as usize)
                .map(|w| w.load(Relaxed))
                .unwrap_or(0);
            *b = (v >> (8 * (o % 4))) as u8;
        }
        Ok(())
    }

    /// Write `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), OutOfBounds> {
        let (r, off) = self.find(addr, data.len() as u64)?;
        if off % 4 == 0 && data.len().is_multiple_of(4) {
            let w0 = (off / 4) as usize;
            for (k, chunk) in data.chunks(4).enumerate() {
                if let Some(w) = r.words.get(w0 + k) {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(chunk);
                    w.store(u32::from_le_bytes(b), Relaxed);
                }
            }
            return Ok(());
        }
        for (k, &b) in data.iter().enumerate() {
            let o = off + k as u64;
            if let Some(w) = r.words.get((o / 4) as usize) {
                let sh = 8 * (o % 4);
                // Sub-word store: a CAS loop so neighbouring bytes written by
                // other threads are not lost.
                let _ = w.fetch_update(Relaxed, Relaxed, |v| {
                    Some((v & !(0xff << sh)) | ((b as u32) << sh))
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_checked_and_regions_are_separated() {
        let mut m = GlobalMem::new();
        let a = m.map("a", &[1, 2, 3, 4, 5, 6]);
        let b = m.map("b", &[9; 8]);
        assert!(b >= a + 6 + 0x1_0000, "guard gap between regions");
        let mut buf = [0u8; 4];
        m.read(a + 2, &mut buf).unwrap();
        assert_eq!(buf, [3, 4, 5, 6]);
        assert_eq!(
            m.read(a + 3, &mut buf),
            Err(OutOfBounds {
                addr: a + 3,
                len: 4
            })
        );
        assert!(m.write(a + 6, &[0]).is_err());
        assert!(m.read(a - 1, &mut buf[..1]).is_err());
        m.write(a + 1, &[0xaa, 0xbb]).unwrap();
        assert_eq!(m.region_bytes(0).unwrap(), vec![1, 0xaa, 0xbb, 4, 5, 6]);
        assert!(m.describe(b + 3).starts_with("b + 0x3"));
    }

    #[test]
    fn shared_regions_are_seen_by_both_sides_and_never_overlap() {
        let mut m = GlobalMem::new();
        let words: Arc<[AtomicU32]> = (0..2).map(|_| AtomicU32::new(0)).collect();
        let base = 0x7e00_0000_0000;
        m.map_shared("s", base, Arc::clone(&words), 6).unwrap();
        m.write(base + 4, &[0xaa, 0xbb]).unwrap();
        assert_eq!(words[1].load(Relaxed), 0xbbaa);
        assert!(m.write(base + 6, &[0]).is_err(), "past len");
        let e = m
            .map_shared("t", base + 4, Arc::clone(&words), 4)
            .unwrap_err();
        assert!(e.contains("overlaps s"), "{e}");
        assert!(m.map_shared("u", base + 16, words, 9).is_err(), "too short");
        // `map` goes past a shared region placed above its next address.
        let high = FIRST_REGION + 0x10_0000;
        let w2: Arc<[AtomicU32]> = (0..1).map(|_| AtomicU32::new(7)).collect();
        m.map_shared("h", high, w2, 4).unwrap();
        assert!(m.map("after", &[1, 2, 3, 4]) > high + 4);
    }
}
