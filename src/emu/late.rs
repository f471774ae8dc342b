//! Memory results that have not returned yet (policy
//! [`LATE_RESULTS_POLICY`]): a memory instruction reads and writes memory at
//! issue, but the registers it loads are written only when the wait that
//! covers it runs, or [`LATE_BOUND`] of the wave's instructions later
//! (with an interleave seed, a seeded number from 1 to that bound),
//! whichever comes first. Until then the destination keeps its old value,
//! so a kernel that reads a result before its `s_waitcnt` reads the stale
//! register, as it may on silicon (RDNA3 ISA guide §5.6 "Data dependency
//! resolution": the shader must wait with `s_waitcnt` before it uses data a
//! memory instruction returns). The hazard checker ([`super::hazard`]),
//! when on, still stops such a read first and says which read was early.
//!
//! Counters and their order are [`super::hazard`]'s (the sources are
//! quoted there): VM_CNT results return in issue order; DS results on
//! LGKM_CNT return in issue order; SMEM results may return out of order,
//! so a partial `lgkmcnt(N)` wait lands the outstanding SMEM results first
//! (sub-policy `smem-returns-first`: of the orders the hardware may choose,
//! the one worst for a kernel that counts DS results under a partial wait
//! with SMEM in flight). FLAT (not GLOBAL) loads count on both counters and
//! land on either wait. Stores and atomics without return occupy their
//! counter and land nothing.
//!
//! `s_endpgm` lands every result first: "The hardware implicitly executes
//! S_WAITCNT 0 and S_WAITCNT_VSCNT 0 before executing this instruction"
//! (the RDNA ISA guide on S_ENDPGM, quoted in Mesa's
//! `src/amd/compiler/README-ISA.md`).
//!
//! When a result lands it writes the lanes that were active at issue
//! (VGPR destinations) and leaves the others as they are then (the ISA
//! guide's EXEC rule for vector memory results; policy
//! [`super::UNUSED_LANES_POLICY`], whose other behaviour writes the whole
//! register back); a lane written outside EXEC (a fault class of the
//! software device) lands as well.

use std::collections::VecDeque;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{UnusedLanes, WaitCount};

/// The policy's name, as the book and the policy list give it.
pub const LATE_RESULTS_POLICY: &str = "results-arrive-late";

/// The most instructions of its own wave a memory result may take to
/// return when no wait asks for it. No source gives a count of
/// instructions (latency is in cycles and depends on the load); 64 is this
/// policy's choice: longer than the distance from any load to its wait in
/// dsxor's kernels, so a read without its wait sees the old value.
pub const LATE_BOUND: u64 = 64;

/// Which counter an instruction's result is counted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// DS (in order on LGKM_CNT).
    Lds,
    /// SMEM (out of order on LGKM_CNT).
    Smem,
    /// GLOBAL/SCRATCH loads (in order on VM_CNT).
    Vm,
    /// FLAT loads: both VM_CNT and LGKM_CNT.
    Flat,
}

/// The registers one memory instruction writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dest {
    pub vgpr: bool,
    pub first: u16,
    pub count: u16,
}

/// One result on its way back.
#[derive(Debug)]
struct Ret {
    id: u64,
    counter: Counter,
    /// `Wave::executed` at which it lands unless a wait lands it first.
    due: u64,
    dest: Option<Dest>,
    /// VGPR destinations: the lanes written when it lands.
    mask: u64,
    /// The values it lands: 64 per VGPR row, or one per SGPR.
    vals: Vec<u32>,
}

/// A wave's results on their way back.
#[derive(Debug, Default)]
pub struct Late {
    /// DS, SMEM and FLAT results, in issue order.
    lgkm: VecDeque<Ret>,
    /// GLOBAL and FLAT results, in issue order.
    vm: VecDeque<Ret>,
    /// The earliest `due` of any result (u64::MAX: none).
    next_due: u64,
    next_id: u64,
    /// The latest `due` given to an in-order LGKM result (DS, FLAT) and
    /// to a VM result: a later one of its kind lands no earlier.
    last_lgkm_due: u64,
    last_vm_due: u64,
    /// Buffers of landed results, reused.
    spare: Vec<Vec<u32>>,
    /// `unused-lanes-restored`: VGPR results land whole rows.
    whole_rows: bool,
    /// `wait-one-short`: a partial `lgkmcnt` wait leaves one more result out.
    short: usize,
}

/// What landing writes into: the wave's register files.
pub struct Files<'a> {
    pub v: &'a mut [u32],
    pub s: &'a mut [u32],
}

impl Late {
    pub fn new() -> Late {
        Late {
            next_due: u64::MAX,
            ..Late::default()
        }
    }

    /// Forget every result (a new workgroup on a reused wave).
    pub fn clear(&mut self) {
        let spare = &mut self.spare;
        for r in self.lgkm.drain(..).chain(self.vm.drain(..)) {
            spare.push(r.vals);
        }
        self.next_due = u64::MAX;
        self.last_lgkm_due = 0;
        self.last_vm_due = 0;
    }

    /// The device's landing policies ([`UnusedLanes`], [`WaitCount`]).
    pub fn policy(&mut self, unused: UnusedLanes, wait: WaitCount) {
        self.whole_rows = unused == UnusedLanes::Restored;
        self.short = usize::from(wait == WaitCount::OneShort);
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.next_due == u64::MAX
    }

    #[inline(always)]
    pub fn next_due(&self) -> u64 {
        self.next_due
    }

    /// Record a memory instruction that was just executed: `before` holds
    /// its destination's values from before it ran (as
    /// [`Late::snapshot`] took them), `files` the values it wrote. The
    /// destination gets its old values back and the new ones wait.
    /// `executed` counts the instruction itself; `rng` is the seeded
    /// scheduler's stream (None: the full bound); `full` is the wave's
    /// lane mask.
    #[allow(clippy::too_many_arguments)]
    pub fn defer(
        &mut self,
        counter: Counter,
        dest: Option<Dest>,
        mut mask: u64,
        full: u64,
        before: Vec<u32>,
        files: Files<'_>,
        executed: u64,
        rng: Option<&mut ChaCha8Rng>,
    ) {
        let after = match dest {
            Some(d) => {
                let mut vals = self.spare.pop().unwrap_or_default();
                vals.clear();
                let (file, len) = if d.vgpr {
                    (&mut *files.v, 64)
                } else {
                    (&mut *files.s, 1)
                };
                let range = d.first as usize * len..(d.first + d.count) as usize * len;
                vals.extend_from_slice(&file[range.clone()]);
                if d.vgpr && mask & full != full {
                    // A lane the instruction wrote though EXEC left it out
                    // (the fault class `ignore-exec`) lands too.
                    for (a, b) in vals.chunks_exact(64).zip(before.chunks_exact(64)) {
                        for l in 0..64 {
                            mask |= u64::from(a[l] != b[l]) << l;
                        }
                    }
                }
                // Every lane of the wave: land whole rows (the lanes past
                // a wave32's 32 are never touched, so they hold what they
                // held at issue).
                if mask & full == full || self.whole_rows {
                    mask = u64::MAX;
                }
                file[range].copy_from_slice(&before);
                self.spare.push(before);
                vals
            }
            None => {
                self.spare.push(before);
                Vec::new()
            }
        };
        let lag = match rng {
            Some(r) => r.random_range(1..=LATE_BOUND),
            None => LATE_BOUND,
        };
        // In-order counters: a result never lands before an older one of
        // its kind (DS and FLAT on LGKM_CNT; everything on VM_CNT).
        let at = executed + lag;
        let due = match counter {
            Counter::Lds => at.max(self.last_lgkm_due),
            Counter::Vm => at.max(self.last_vm_due),
            Counter::Flat => at.max(self.last_vm_due).max(self.last_lgkm_due),
            Counter::Smem => at,
        };
        match counter {
            Counter::Lds => self.last_lgkm_due = due,
            Counter::Vm => self.last_vm_due = due,
            Counter::Flat => (self.last_lgkm_due, self.last_vm_due) = (due, due),
            Counter::Smem => {}
        }
        let id = self.next_id;
        self.next_id += 1;
        let ret = Ret {
            id,
            counter,
            due,
            dest,
            mask,
            vals: after,
        };
        self.next_due = self.next_due.min(due);
        match counter {
            Counter::Lds | Counter::Smem => self.lgkm.push_back(ret),
            Counter::Vm => self.vm.push_back(ret),
            Counter::Flat => {
                // One result, on both counters: the lgkm entry is a marker
                // with nothing to land; landing either removes both.
                self.lgkm.push_back(Ret {
                    id,
                    counter,
                    due,
                    dest: None,
                    mask: 0,
                    vals: Vec::new(),
                });
                self.vm.push_back(ret);
            }
        }
    }

    /// A fresh buffer holding `dest`'s current values, for [`Late::defer`].
    pub fn snapshot(&mut self, dest: Option<Dest>, files: &Files<'_>) -> Vec<u32> {
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        if let Some(d) = dest {
            let (file, len): (&[u32], usize) = if d.vgpr { (files.v, 64) } else { (files.s, 1) };
            b.extend_from_slice(&file[d.first as usize * len..(d.first + d.count) as usize * len]);
        }
        b
    }

    /// Land every result due by `executed`.
    pub fn land_due(&mut self, executed: u64, files: Files<'_>) {
        let mut files = files;
        // Oldest first within each queue; the two queues' results write
        // different registers unless a kernel loads into one register
        // twice without a wait, which silicon leaves unordered too.
        for q in 0..2 {
            let (queue, other) = if q == 0 {
                (&mut self.lgkm, &mut self.vm)
            } else {
                (&mut self.vm, &mut self.lgkm)
            };
            let mut k = 0;
            while k < queue.len() {
                if queue[k].due <= executed {
                    let r = queue.remove(k).expect("index checked");
                    land(&r, &mut files);
                    if r.counter == Counter::Flat {
                        land_twin(other, r.id, &mut files, &mut self.spare);
                    }
                    self.spare.push(r.vals);
                } else {
                    k += 1;
                }
            }
        }
        self.refresh();
    }

    /// `s_waitcnt vmcnt(n)`: land all but the `n` youngest VM results.
    pub fn wait_vm(&mut self, n: usize, files: Files<'_>) {
        let mut files = files;
        while self.vm.len() > n {
            let r = self.vm.pop_front().expect("len checked");
            land(&r, &mut files);
            if r.counter == Counter::Flat {
                land_twin(&mut self.lgkm, r.id, &mut files, &mut self.spare);
            }
            self.spare.push(r.vals);
        }
        self.refresh();
    }

    /// `s_waitcnt lgkmcnt(n)`: land results until at most `n` remain:
    /// SMEM first (sub-policy `smem-returns-first`), then the oldest.
    pub fn wait_lgkm(&mut self, n: usize, files: Files<'_>) {
        let mut files = files;
        let n = if n > 0 { n + self.short } else { n };
        while self.lgkm.len() > n {
            let p = self
                .lgkm
                .iter()
                .position(|r| r.counter == Counter::Smem)
                .unwrap_or(0);
            let r = self.lgkm.remove(p).expect("position found");
            land(&r, &mut files);
            if r.counter == Counter::Flat {
                land_twin(&mut self.vm, r.id, &mut files, &mut self.spare);
            }
            self.spare.push(r.vals);
        }
        self.refresh();
    }

    fn refresh(&mut self) {
        self.next_due = self
            .lgkm
            .iter()
            .chain(&self.vm)
            .map(|r| r.due)
            .min()
            .unwrap_or(u64::MAX);
    }

    /// Fold the high half of a split wave64 DS instruction into the result
    /// its low half left (the youngest on LGKM_CNT: the wave issues nothing
    /// between the halves): its lanes' new values wait with the rest.
    pub fn join_high_half(&mut self, before: Vec<u32>, mask: u64, files: Files<'_>) {
        let Some(r) = self.lgkm.back_mut() else {
            self.spare.push(before);
            return;
        };
        if let Some(d) = r.dest.filter(|d| d.vgpr) {
            let base = d.first as usize * 64;
            for row in 0..d.count as usize {
                for l in 0..64 {
                    if mask >> l & 1 == 1 {
                        let at = base + row * 64 + l;
                        r.vals[row * 64 + l] = files.v[at];
                        files.v[at] = before[row * 64 + l];
                    }
                }
            }
            r.mask |= mask;
        }
        self.spare.push(before);
    }
}

/// A FLAT result is on both counters: when one entry lands, the other
/// (found by `id` in `queue`) lands and goes with it. The LGKM entry is a
/// marker with no destination, so landing it writes nothing.
fn land_twin(queue: &mut VecDeque<Ret>, id: u64, files: &mut Files<'_>, spare: &mut Vec<Vec<u32>>) {
    if let Some(p) = queue.iter().position(|o| o.id == id) {
        let o = queue.remove(p).expect("position found");
        land(&o, files);
        spare.push(o.vals);
    }
}

fn land(r: &Ret, files: &mut Files<'_>) {
    let Some(d) = r.dest else { return };
    if d.vgpr {
        let base = d.first as usize * 64;
        for row in 0..d.count as usize {
            let dst = &mut files.v[base + row * 64..base + row * 64 + 64];
            let src = &r.vals[row * 64..row * 64 + 64];
            if r.mask == u64::MAX {
                dst.copy_from_slice(src);
            } else {
                for l in 0..64 {
                    if r.mask >> l & 1 == 1 {
                        dst[l] = src[l];
                    }
                }
            }
        }
    } else {
        let at = d.first as usize;
        files.s[at..at + d.count as usize].copy_from_slice(&r.vals);
    }
}
