//! Device memory: `hipMalloc` allocations held as little-endian 32-bit
//! words shared with the emulator (`emu::mem::GlobalMem::map_shared`), so a
//! launch works on the allocation itself and `hipMemcpy` sees what it wrote.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

/// Device heaps are this far apart, from `HEAP_BASE` up: below
/// `emu::mem::FIRST_REGION`, where the per-launch regions (kernarg segment,
/// dispatch packet) go.
const HEAP_STRIDE: u64 = 0x10_0000_0000;
const HEAP_BASE: u64 = 0x0000_7e00_0000_0000;
pub const MAX_DEVICES: usize = 16;
/// Allocation granularity, and the unmapped guard after each allocation, so
/// an overrun faults instead of reaching the next buffer.
const ALIGN: u64 = 0x1_0000;

/// 24 GiB: the RX 7900 XTX's memory (AMD's product page), what
/// `totalGlobalMem` reports and what `hipMalloc` may hand out.
pub const TOTAL_GLOBAL_MEM: u64 = 24 << 30;

pub fn heap_base(device: usize) -> u64 {
    HEAP_BASE + device as u64 * HEAP_STRIDE
}

/// One allocation.
#[derive(Debug)]
pub struct Allocation {
    pub len: u64,
    pub words: Arc<[AtomicU32]>,
}

impl Allocation {
    /// Copy out `dst.len()` bytes from `off`: whole words a relaxed load
    /// each (a load per byte made `hipMemcpy` most of a worker's CPU), the
    /// ragged ends a byte at a time.
    pub fn read(&self, off: u64, dst: &mut [u8]) {
        let mut k = 0usize;
        while k < dst.len() {
            let o = off + k as u64;
            if o.is_multiple_of(4) && dst.len() - k >= 4 {
                let first = (o / 4) as usize;
                let whole = (dst.len() - k) / 4;
                let words = &self.words[first..first + whole];
                for (c, w) in dst[k..k + whole * 4].chunks_exact_mut(4).zip(words) {
                    c.copy_from_slice(&w.load(Relaxed).to_le_bytes());
                }
                k += whole * 4;
            } else {
                let w = self.words[(o / 4) as usize].load(Relaxed);
                dst[k] = (w >> (8 * (o % 4))) as u8;
                k += 1;
            }
        }
    }

    /// Copy `src` in at `off`: whole words stored a word at a time, the
    /// ragged ends merged into their word a byte at a time.
    pub fn write(&self, off: u64, src: &[u8]) {
        let mut k = 0usize;
        while k < src.len() {
            let o = off + k as u64;
            if o.is_multiple_of(4) && src.len() - k >= 4 {
                let first = (o / 4) as usize;
                let whole = (src.len() - k) / 4;
                let words = &self.words[first..first + whole];
                for (c, w) in src[k..k + whole * 4].chunks_exact(4).zip(words) {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(c);
                    w.store(u32::from_le_bytes(b), Relaxed);
                }
                k += whole * 4;
            } else {
                let word = &self.words[(o / 4) as usize];
                let sh = 8 * (o % 4);
                let v = u32::from(src[k]);
                let _ =
                    word.fetch_update(Relaxed, Relaxed, |w| Some((w & !(0xff << sh)) | (v << sh)));
                k += 1;
            }
        }
    }
}

/// One device's heap.
#[derive(Debug)]
pub struct Heap {
    base: u64,
    next: u64,
    in_use: u64,
    pub allocations: BTreeMap<u64, Arc<Allocation>>,
}

/// Why an allocation failed.
#[derive(Debug, PartialEq, Eq)]
pub struct OutOfMemory;

impl Heap {
    pub fn new(device: usize) -> Heap {
        let base = heap_base(device);
        Heap {
            base,
            next: base,
            in_use: 0,
            allocations: BTreeMap::new(),
        }
    }

    /// A zeroed allocation of `len` bytes (at least 1): its device address.
    pub fn alloc(&mut self, len: u64) -> Result<u64, OutOfMemory> {
        let len = len.max(1);
        let rounded = len.div_ceil(ALIGN) * ALIGN;
        if self.in_use.saturating_add(rounded) > TOTAL_GLOBAL_MEM {
            return Err(OutOfMemory);
        }
        // Addresses are not reused: a stale pointer into a freed buffer
        // faults rather than reaching a newer one.
        if self.next + rounded + ALIGN > self.base + HEAP_STRIDE {
            return Err(OutOfMemory);
        }
        let n = usize::try_from(len.div_ceil(4)).map_err(|_| OutOfMemory)?;
        // The zeroed words go straight into the shared slice (a Vec turned
        // into an Arc is allocated, zeroed and page-faulted twice, and
        // copied once). Collecting into an Arc aborts where the host cannot
        // hold it, so first ask for the room fallibly and give it back: a
        // request the host refuses stays hipErrorOutOfMemory.
        Vec::<AtomicU32>::new()
            .try_reserve_exact(n)
            .map_err(|_| OutOfMemory)?;
        let words: Arc<[AtomicU32]> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let addr = self.next;
        self.next += rounded + ALIGN;
        self.in_use += rounded;
        self.allocations
            .insert(addr, Arc::new(Allocation { len, words }));
        Ok(addr)
    }

    /// The allocation holding `[addr, addr + len)`, and the offset of `addr` in it.
    pub fn find(&self, addr: u64, len: u64) -> Option<(Arc<Allocation>, u64)> {
        let (&base, a) = self.allocations.range(..=addr).next_back()?;
        let off = addr - base;
        (off.checked_add(len)? <= a.len).then(|| (Arc::clone(a), off))
    }

    /// Free the allocation starting at `addr`.
    pub fn free(&mut self, addr: u64) -> bool {
        match self.allocations.remove(&addr) {
            Some(a) => {
                self.in_use -= a.len.div_ceil(ALIGN) * ALIGN;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_separate_zeroed_and_bounded() {
        let mut h = Heap::new(1);
        let a = h.alloc(6).unwrap();
        let b = h.alloc(8).unwrap();
        assert_eq!(a, heap_base(1));
        assert!(b >= a + 2 * ALIGN, "guard between allocations");
        let (x, off) = h.find(a + 2, 4).unwrap();
        assert_eq!(off, 2);
        x.write(2, &[1, 2, 3, 4]);
        let mut out = [9u8; 6];
        x.read(0, &mut out);
        assert_eq!(out, [0, 0, 1, 2, 3, 4]);
        assert!(h.find(a + 3, 4).is_none(), "past the end");
        assert!(h.find(a - 1, 1).is_none());
        assert!(h.free(a));
        assert!(!h.free(a));
        assert!(h.find(a, 1).is_none());
        assert_eq!(h.alloc(TOTAL_GLOBAL_MEM + 1), Err(OutOfMemory));
    }

    #[test]
    fn copies_at_any_offset_and_length_match_a_byte_model() {
        let mut h = Heap::new(0);
        let a = h.alloc(40).unwrap();
        let (x, _) = h.find(a, 40).unwrap();
        let mut model = [0u8; 40];
        for off in 0..12usize {
            for len in 0..20usize {
                let src: Vec<u8> = (0..len).map(|i| (off * 31 + len * 7 + i) as u8).collect();
                x.write(off as u64, &src);
                model[off..off + len].copy_from_slice(&src);
                let mut all = [0u8; 40];
                x.read(0, &mut all);
                assert_eq!(all, model, "write of {len} at {off}");
                let mut part = vec![0u8; len];
                x.read(off as u64, &mut part);
                assert_eq!(part, src, "read of {len} at {off}");
            }
        }
    }
}
