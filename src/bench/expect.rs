//! What a throughput launch must leave behind, from the throughput kernel
//! ABI's closed form (BRIEF.md "Throughput kernel ABI"), so that a fast
//! wrong answer never counts.
//!
//! With `dep_mask = 0` every lane xors the same DATA `d` on every one of its
//! `n` instructions (`n = iters` for `_dep`; `_indep` issues
//! `4 ⌊iters / 4⌋`). LDS starts zeroed by the kernel. Then:
//!
//! - Final LDS at qword `a` of a workgroup = XOR of `d` over the lanes at
//!   `a` when `n` is odd, else 0; every other qword 0. Exact under any order.
//! - A lane alone at its address sees `0, d, 0, d, …`: its fold (XOR of all
//!   its returns) is `d` when `⌊n / 2⌋` is odd, else 0. Exact.
//! - A lane sharing its address: every value it reads is a XOR of DATA values
//!   of the lanes at that address, so its fold lies in their span over
//!   GF(2). Order-independent, and a real constraint because DATA comes from
//!   a 24-dimensional subspace of the 64-bit values (`pattern::lane_data`).
//!
//! The host fills `fold` and `lds_out` with a poison value before each
//! launch, so an output the kernel never wrote is caught — except where the
//! expected value happens to equal the poison, which `POISON` makes
//! unlikely (it is outside the DATA subspace with probability 1 − 2⁻⁴⁰).
//!
//! Limit, stated: with `n` a multiple of 4 (always, for `_indep`), every
//! expected LDS qword and every uncontended fold is 0. The check then proves
//! every output was written and every contended fold is consistent, but a
//! kernel that wrote zeros without issuing a single atomic would pass it.
//! The `_dep` runs use `n ≡ 3 (mod 4)`, where both LDS and folds are nonzero.

use serde::{Deserialize, Serialize};

use crate::bench::pattern::Layout;

/// Written into `fold` and `lds_out` before every launch.
pub const POISON: u64 = 0xDEAD_BEEF_F01D_F01D;

/// A basis of a subspace of GF(2)^64, in reduced echelon form by leading bit.
#[derive(Clone, Debug)]
pub struct Gf2Basis {
    /// `rows[b]`: the basis vector whose highest set bit is `b`, or 0.
    rows: [u64; 64],
    rank: usize,
}

impl Default for Gf2Basis {
    fn default() -> Self {
        Gf2Basis {
            rows: [0; 64],
            rank: 0,
        }
    }
}

impl Gf2Basis {
    /// Reduce `v` by the basis: 0 exactly when `v` is in the span.
    pub fn reduce(&self, mut v: u64) -> u64 {
        while v != 0 {
            let top = 63 - v.leading_zeros() as usize;
            let r = self.rows[top];
            if r == 0 {
                break;
            }
            v ^= r;
        }
        v
    }

    /// Add `v` to the span; true when it was not in it already.
    pub fn insert(&mut self, v: u64) -> bool {
        let r = self.reduce(v);
        if r == 0 {
            return false;
        }
        let top = 63 - r.leading_zeros() as usize;
        self.rows[top] = r;
        self.rank += 1;
        true
    }

    pub fn contains(&self, v: u64) -> bool {
        self.reduce(v) == 0
    }

    pub fn rank(&self) -> usize {
        self.rank
    }
}

/// Which kernel ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Chain {
    /// `dsxor_throughput_dep`: one instruction in flight, waitcnt each time.
    Dep,
    /// `dsxor_throughput_indep`: four in flight before one waitcnt.
    Indep,
}

impl Chain {
    pub fn name(self) -> &'static str {
        match self {
            Chain::Dep => "dep",
            Chain::Indep => "indep",
        }
    }
    pub fn kernel(self) -> &'static str {
        match self {
            Chain::Dep => "dsxor_throughput_dep",
            Chain::Indep => "dsxor_throughput_indep",
        }
    }
    /// Instructions a lane issues for `iters` (the ABI: `_indep` issues no
    /// remainder).
    pub fn issued(self, iters: u32) -> u32 {
        match self {
            Chain::Dep => iters,
            Chain::Indep => iters / 4 * 4,
        }
    }
}

/// The outcome of checking one launch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckOutcome {
    pub lds_qwords_checked: u64,
    /// Folds compared with an exact value (lane alone at its address).
    pub folds_exact: u64,
    /// Folds checked to lie in the span of their address's DATA.
    pub folds_in_span: u64,
    /// Number of mismatches (all of them counted, the first few described).
    pub mismatches: u64,
    pub first_mismatches: Vec<String>,
}

impl CheckOutcome {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    fn mismatch(&mut self, what: String) {
        self.mismatches += 1;
        if self.first_mismatches.len() < 8 {
            self.first_mismatches.push(what);
        }
    }
}

/// Check one launch's outputs: `fold` per lane (group-major) and `lds_out`
/// (`groups × layout.lds_qwords`), for `data` per lane and `n` instructions
/// per lane.
pub fn check(
    layout: &Layout,
    groups: usize,
    data: &[u64],
    n: u32,
    fold: &[u64],
    lds_out: &[u64],
) -> CheckOutcome {
    let mut out = CheckOutcome::default();
    let per_group = layout.lanes_per_group();
    let qwords = layout.lds_qwords as usize;
    let n_lanes = groups * per_group;
    if data.len() != n_lanes || fold.len() != n_lanes || lds_out.len() != groups * qwords {
        out.mismatch(format!(
            "buffer sizes: data {} fold {} lds_out {}, expected {n_lanes}, {n_lanes}, {}",
            data.len(),
            fold.len(),
            lds_out.len(),
            groups * qwords
        ));
        return out;
    }
    // Lanes of a workgroup at each qword (the same for every workgroup).
    let mut sharers: Vec<Vec<usize>> = vec![Vec::new(); qwords];
    for (t, &a) in layout.addr.iter().enumerate() {
        if let Some(s) = sharers.get_mut((a / 8) as usize) {
            s.push(t);
        }
    }
    let odd = n % 2 == 1;
    let alone_fold_is_d = (n / 2) % 2 == 1;
    for g in 0..groups {
        let lanes = &data[g * per_group..(g + 1) * per_group];
        let folds = &fold[g * per_group..(g + 1) * per_group];
        let lds = &lds_out[g * qwords..(g + 1) * qwords];
        for (q, at) in sharers.iter().enumerate() {
            let want = if odd {
                at.iter().fold(0, |acc, &t| acc ^ lanes[t])
            } else {
                0
            };
            out.lds_qwords_checked += 1;
            if lds[q] != want {
                out.mismatch(format!(
                    "group {g} LDS byte {:#x}: {:#018x}, expected {want:#018x}",
                    q * 8,
                    lds[q]
                ));
            }
            match at.len() {
                0 => {}
                1 => {
                    let t = at[0];
                    let want = if alone_fold_is_d { lanes[t] } else { 0 };
                    out.folds_exact += 1;
                    if folds[t] != want {
                        out.mismatch(format!(
                            "group {g} lane {t} fold {:#018x}, expected {want:#018x}",
                            folds[t]
                        ));
                    }
                }
                _ => {
                    let mut span = Gf2Basis::default();
                    for &t in at {
                        span.insert(lanes[t]);
                    }
                    for &t in at {
                        out.folds_in_span += 1;
                        if !span.contains(folds[t]) {
                            out.mismatch(format!(
                                "group {g} lane {t} fold {:#018x} is no XOR of the DATA of the {} lanes at byte {:#x}",
                                folds[t],
                                at.len(),
                                q * 8
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::pattern::{lane_data, Pattern};

    /// A sequential reference: run every lane's instructions in some
    /// interleaving (round-robin, or lane-major) on a real LDS.
    fn simulate(
        layout: &Layout,
        groups: usize,
        data: &[u64],
        n: u32,
        lane_major: bool,
    ) -> (Vec<u64>, Vec<u64>) {
        let per = layout.lanes_per_group();
        let q = layout.lds_qwords as usize;
        let mut lds = vec![0u64; groups * q];
        let mut fold = vec![0u64; groups * per];
        for g in 0..groups {
            let mut step = |t: usize| {
                let a = g * q + (layout.addr[t] / 8) as usize;
                let r = lds[a];
                lds[a] ^= data[g * per + t];
                fold[g * per + t] ^= r;
            };
            if lane_major {
                for t in 0..per {
                    for _ in 0..n {
                        step(t);
                    }
                }
            } else {
                for _ in 0..n {
                    for t in (0..per).rev() {
                        step(t);
                    }
                }
            }
        }
        (fold, lds)
    }

    #[test]
    fn every_pattern_and_count_passes_against_simulation() {
        for p in Pattern::all() {
            let layout = Layout::new(p, 64, 65536).unwrap();
            let data = lane_data(3, 2 * 64);
            for n in [1, 2, 3, 4, 7, 31, 32] {
                for lane_major in [false, true] {
                    let (fold, lds) = simulate(&layout, 2, &data, n, lane_major);
                    let c = check(&layout, 2, &data, n, &fold, &lds);
                    assert!(c.passed(), "{} n={n}: {:?}", p.name(), c.first_mismatches);
                    assert_eq!(c.lds_qwords_checked, 2 * layout.lds_qwords as u64);
                    if p == Pattern::OneAddress {
                        assert_eq!(c.folds_in_span, 128);
                    } else {
                        assert_eq!(c.folds_exact, 128);
                    }
                }
            }
        }
    }

    #[test]
    fn lost_update_and_unwritten_outputs_are_caught() {
        let layout = Layout::new(Pattern::ConflictFree, 32, 65536).unwrap();
        let data = lane_data(5, 32);
        let (mut fold, mut lds) = simulate(&layout, 1, &data, 3, false);
        lds[4] ^= data[4]; // one lane's last xor lost
        fold[9] = POISON; // one fold never written
        let c = check(&layout, 1, &data, 3, &fold, &lds);
        assert_eq!(c.mismatches, 2, "{:?}", c.first_mismatches);
    }

    #[test]
    fn contended_fold_outside_the_span_is_caught() {
        let layout = Layout::new(Pattern::OneAddress, 128, 65536).unwrap();
        let data = lane_data(9, 128);
        let (mut fold, lds) = simulate(&layout, 1, &data, 5, false);
        fold[17] = POISON;
        let c = check(&layout, 1, &data, 5, &fold, &lds);
        assert_eq!(c.mismatches, 1);
        assert!(c.first_mismatches[0].contains("lane 17"));
    }

    #[test]
    fn wrong_sizes_are_a_mismatch_not_a_panic() {
        let layout = Layout::new(Pattern::ConflictFree, 32, 65536).unwrap();
        let c = check(&layout, 1, &[0; 32], 3, &[0; 31], &[0; 32]);
        assert!(!c.passed());
    }

    #[test]
    fn closed_form_of_an_uncontended_lane() {
        let layout = Layout::new(Pattern::ConflictFree, 1, 65536).unwrap();
        let d = [0x1234u64];
        // n = 2: returns 0, d -> fold d, LDS 0. n = 3: returns 0, d, 0 ->
        // fold d, LDS d. n = 4: fold 0, LDS 0.
        assert!(check(&layout, 1, &d, 2, &[0x1234], &[0]).passed());
        assert!(check(&layout, 1, &d, 3, &[0x1234], &[0x1234]).passed());
        assert!(check(&layout, 1, &d, 4, &[0], &[0]).passed());
        assert!(!check(&layout, 1, &d, 3, &[0], &[0x1234]).passed());
        assert!(!check(&layout, 1, &d, 2, &[0], &[0]).passed());
        assert!(!check(&layout, 1, &d, 4, &[0], &[0x1234]).passed());
    }

    #[test]
    fn gf2_basis() {
        let mut b = Gf2Basis::default();
        assert!(b.insert(0b1010));
        assert!(b.insert(0b0110));
        assert!(!b.insert(0b1100));
        assert!(!b.insert(0));
        assert!(b.contains(0b1100));
        assert!(!b.contains(0b0001));
        assert_eq!(b.rank(), 2);
    }

    #[test]
    fn chain_issue_counts() {
        assert_eq!(Chain::Dep.issued(7), 7);
        assert_eq!(Chain::Indep.issued(7), 4);
        assert_eq!(Chain::Indep.issued(8), 8);
    }
}
