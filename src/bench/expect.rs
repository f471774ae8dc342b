//! What a throughput launch must leave behind, from the throughput kernels'
//! closed form (their ABI: docs/src/internals/kernel-abi.md, "Throughput
//! kernels"; the DATA rule of `_indep` stated in kernels/dsxor.hip), so
//! that a fast wrong answer never counts.
//!
//! With `dep_mask = 0` a lane with DATA `d` issues rounds of fixed values:
//! `_dep` one instruction per round xoring `d`; `_indep` four, xoring `d`
//! under the 16-bit chunk masks [`INDEP_MASKS`] (their XOR is all ones, the
//! XOR of the first and third is `0x0000_ffff_ffff_ffff`). `n` instructions
//! are `n / p` rounds of `p` (`_indep` issues `4 ⌊iters / 4⌋`). LDS starts
//! zeroed by the kernel. Then, with `S` the XOR of a round's values and `Q`
//! the XOR of its prefix XORs (what a round returns, from LDS value 0):
//!
//! - Final LDS at qword `a` of a workgroup = XOR over the lanes at `a` of
//!   their `S` when the round count is odd (else 0); every other qword 0.
//!   Exact under any order: XOR commutes. `S = d` for both kernels.
//! - A lane alone at its address: one wave's DS instructions complete in
//!   issue order (kernels/dsxor.hip cites the sources), so a round starting
//!   at LDS value `P` returns `P ^ prefix_j`; its fold is `Q` per odd round
//!   count, plus `S` when `p` is odd and ⌊rounds / 2⌋ is odd. `_dep`: `d`
//!   when ⌊n / 2⌋ is odd, else 0. `_indep`: `d & 0x0000_ffff_ffff_ffff`
//!   when `n / 4` is odd, else 0. Exact.
//! - A lane sharing its address: every value it reads is a XOR of values
//!   the lanes at that address issued, so its fold lies in their span over
//!   GF(2). Order-independent, and a real constraint because DATA comes from
//!   a 24-dimensional subspace of the 64-bit values (`pattern::lane_data`),
//!   a product of one subspace per 16-bit chunk that the chunk masks keep.
//!
//! The host fills `fold` and `lds_out` with a poison value before each
//! launch, so an output the kernel never wrote is caught — except where the
//! expected value happens to equal the poison, which `POISON` makes
//! unlikely (it is outside the DATA subspace with probability 1 − 2⁻⁴⁰, and
//! no uncontended `_indep` fold has a nonzero top chunk).
//!
//! Limit, stated: with an even round count every expected LDS qword is 0,
//! and so is every uncontended fold of `_indep` (and of `_dep` when
//! `n ≡ 0 (mod 4)`). The check then proves every output was written and
//! every contended fold is consistent, but a kernel that wrote zeros
//! without issuing a single atomic would pass it: [`all_exact_zero`] says
//! when, and the record marks such runs. The defaults avoid it: `_dep` runs
//! `n ≡ 3 (mod 4)`, `_indep` `n ≡ 4 (mod 8)` (an odd number of rounds).

use serde::{Deserialize, Serialize};

use crate::bench::gf2::Gf2Basis;
use crate::bench::pattern::Layout;

/// Written into `fold` and `lds_out` before every launch.
pub const POISON: u64 = 0xDEAD_BEEF_F01D_F01D;

/// Which kernel ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
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

    /// Instructions per round (between two waits).
    pub fn round_len(self) -> usize {
        match self {
            Chain::Dep => 1,
            Chain::Indep => INDEP_MASKS.len(),
        }
    }

    /// The DATA of instruction `j` of a round (`j < round_len()`) of a lane
    /// whose DATA is `d`.
    pub fn round_data(self, d: u64, j: usize) -> u64 {
        match self {
            Chain::Dep => d,
            Chain::Indep => d & INDEP_MASKS[j % INDEP_MASKS.len()],
        }
    }

    /// What a lane with DATA `d`, alone at its address, leaves after `n`
    /// instructions: `(fold, final LDS qword)`. The LDS qword is also the
    /// lane's share of the final value of an address it shares.
    pub fn alone(self, d: u64, n: u32) -> (u64, u64) {
        let p = self.round_len();
        let (rounds, rest) = (n as usize / p, n as usize % p);
        // s: XOR of a round's values; q: XOR of its prefix XORs.
        let (mut s, mut q) = (0u64, 0u64);
        for j in 0..p {
            q ^= s;
            s ^= self.round_data(d, j);
        }
        let odd = rounds % 2 == 1;
        // Round k starts at P_k = S when k is odd, else 0, and returns
        // P_k ^ prefix_j for each j: p copies of P_k and one Q.
        let mut fold = if odd { q } else { 0 };
        if p % 2 == 1 && (rounds / 2) % 2 == 1 {
            fold ^= s;
        }
        let mut lds = if odd { s } else { 0 };
        for j in 0..rest {
            fold ^= lds;
            lds ^= self.round_data(d, j);
        }
        (fold, lds)
    }
}

/// The 16-bit chunk masks of the DATA of `dsxor_throughput_indep`'s four
/// in-flight instructions (kernels/dsxor.hip, `DSXOR_INDEP_MASK0..3`).
pub const INDEP_MASKS: [u64; 4] = [
    0xffff_ffff_ffff_ffff,
    0x0000_0000_ffff_ffff,
    0xffff_0000_0000_0000,
    0xffff_0000_ffff_ffff,
];

/// The outcome of checking one launch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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

/// Lanes of a workgroup at each qword (the same for every workgroup).
fn sharers(layout: &Layout) -> Vec<Vec<usize>> {
    let mut sharers: Vec<Vec<usize>> = vec![Vec::new(); layout.lds_qwords as usize];
    for (t, &a) in layout.addr.iter().enumerate() {
        if let Some(s) = sharers.get_mut((a / 8) as usize) {
            s.push(t);
        }
    }
    sharers
}

/// True when every exactly predicted value of a launch (each LDS qword, each
/// uncontended fold) is 0: the check is then weak (see the module doc).
pub fn all_exact_zero(layout: &Layout, groups: usize, chain: Chain, data: &[u64], n: u32) -> bool {
    let per_group = layout.lanes_per_group();
    let sharers = sharers(layout);
    data.chunks(per_group.max(1)).take(groups).all(|lanes| {
        sharers.iter().all(|at| {
            let shares: Vec<(u64, u64)> = at
                .iter()
                .filter_map(|&t| lanes.get(t))
                .map(|&d| chain.alone(d, n))
                .collect();
            let lds = shares.iter().fold(0, |acc, &(_, l)| acc ^ l);
            let fold_zero = shares.len() != 1 || shares.iter().all(|&(f, _)| f == 0);
            lds == 0 && fold_zero
        })
    })
}

/// Check one launch of `chain`'s kernel: `fold` per lane (group-major) and
/// `lds_out` (`groups × layout.lds_qwords`), for `data` per lane and `n`
/// instructions per lane.
pub fn check(
    layout: &Layout,
    groups: usize,
    chain: Chain,
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
    let sharers = sharers(layout);
    for g in 0..groups {
        let lanes = &data[g * per_group..(g + 1) * per_group];
        let folds = &fold[g * per_group..(g + 1) * per_group];
        let lds = &lds_out[g * qwords..(g + 1) * qwords];
        for (q, at) in sharers.iter().enumerate() {
            let want = at
                .iter()
                .fold(0, |acc, &t| acc ^ chain.alone(lanes[t], n).1);
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
                    let want = chain.alone(lanes[t], n).0;
                    out.folds_exact += 1;
                    if folds[t] != want {
                        out.mismatch(format!(
                            "group {g} lane {t} fold {:#018x}, expected {want:#018x}",
                            folds[t]
                        ));
                    }
                }
                _ => {
                    // Every value a contending lane reads is a XOR of values
                    // issued at this address: the span of all of them.
                    let mut span = Gf2Basis::default();
                    for &t in at {
                        for j in 0..chain.round_len() {
                            span.insert(chain.round_data(lanes[t], j));
                        }
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

    /// How the reference device below misbehaves (the emulator's faults of
    /// the same names, and a kernel that issues nothing).
    #[derive(Clone, Copy, PartialEq)]
    enum Sim {
        Correct,
        SwapDwords,
        ReturnNew,
        LowDwordOnly,
        NoAtomics,
    }

    /// A sequential reference: run every lane's instructions (in order per
    /// lane, DATA by `chain.round_data`) in some interleaving (round-robin,
    /// or lane-major) on a real LDS.
    fn simulate(
        layout: &Layout,
        groups: usize,
        chain: Chain,
        data: &[u64],
        n: u32,
        lane_major: bool,
        sim: Sim,
    ) -> (Vec<u64>, Vec<u64>) {
        let per = layout.lanes_per_group();
        let q = layout.lds_qwords as usize;
        let mut lds = vec![0u64; groups * q];
        let mut fold = vec![0u64; groups * per];
        if sim == Sim::NoAtomics {
            return (fold, lds);
        }
        let p = chain.round_len();
        for g in 0..groups {
            let mut step = |t: usize, k: usize| {
                let a = g * q + (layout.addr[t] / 8) as usize;
                let old = lds[a];
                let mut new = old ^ chain.round_data(data[g * per + t], k % p);
                if sim == Sim::LowDwordOnly {
                    new = (old & 0xffff_ffff_0000_0000) | (new & 0xffff_ffff);
                }
                lds[a] = new;
                fold[g * per + t] ^= match sim {
                    Sim::ReturnNew => new,
                    Sim::SwapDwords => old.rotate_left(32),
                    _ => old,
                };
            };
            if lane_major {
                for t in 0..per {
                    for k in 0..n as usize {
                        step(t, k);
                    }
                }
            } else {
                for k in 0..n as usize {
                    for t in (0..per).rev() {
                        step(t, k);
                    }
                }
            }
        }
        (fold, lds)
    }

    #[test]
    fn every_pattern_chain_and_count_passes_against_simulation() {
        for p in Pattern::all() {
            let layout = Layout::new(p, 64, 65536).unwrap();
            let data = lane_data(3, 2 * 64);
            for (chain, counts) in [
                (Chain::Dep, &[1u32, 2, 3, 4, 7, 31, 32][..]),
                (Chain::Indep, &[4, 8, 12, 28, 32][..]),
            ] {
                for &n in counts {
                    for lane_major in [false, true] {
                        let (fold, lds) =
                            simulate(&layout, 2, chain, &data, n, lane_major, Sim::Correct);
                        let c = check(&layout, 2, chain, &data, n, &fold, &lds);
                        assert!(
                            c.passed(),
                            "{} {} n={n}: {:?}",
                            p.name(),
                            chain.name(),
                            c.first_mismatches
                        );
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
    }

    /// The point of the `_indep` DATA rule: with an odd round count each of
    /// these misbehaviours fails the check on every pattern, where the old
    /// rule (the same DATA four times) expected 0 everywhere and passed them
    /// all but lost updates.
    #[test]
    fn indep_check_catches_every_fault_with_an_odd_round_count() {
        for p in Pattern::all() {
            let layout = Layout::new(p, 64, 65536).unwrap();
            let data = lane_data(11, 64);
            for n in [4, 28, 1020] {
                assert!(!all_exact_zero(&layout, 1, Chain::Indep, &data, n));
                for sim in [
                    Sim::SwapDwords,
                    Sim::ReturnNew,
                    Sim::LowDwordOnly,
                    Sim::NoAtomics,
                ] {
                    let (fold, lds) = simulate(&layout, 1, Chain::Indep, &data, n, false, sim);
                    let c = check(&layout, 1, Chain::Indep, &data, n, &fold, &lds);
                    // Stated limit: a contended fold is only checked to be
                    // a XOR of issued values, which a new value is too, and
                    // returns leave the LDS image alone.
                    let invisible = p == Pattern::OneAddress && sim == Sim::ReturnNew;
                    assert_eq!(
                        c.passed(),
                        invisible,
                        "{} n={n}: {:?} mismatches",
                        p.name(),
                        c.mismatches
                    );
                }
            }
            // An even round count is the weak case, and says so.
            assert!(all_exact_zero(&layout, 1, Chain::Indep, &data, 32));
            let (fold, lds) = simulate(&layout, 1, Chain::Indep, &data, 32, false, Sim::NoAtomics);
            assert!(check(&layout, 1, Chain::Indep, &data, 32, &fold, &lds).passed());
        }
    }

    #[test]
    fn lost_update_and_unwritten_outputs_are_caught() {
        let layout = Layout::new(Pattern::ConflictFree, 32, 65536).unwrap();
        let data = lane_data(5, 32);
        let (mut fold, mut lds) = simulate(&layout, 1, Chain::Dep, &data, 3, false, Sim::Correct);
        lds[4] ^= data[4]; // one lane's last xor lost
        fold[9] = POISON; // one fold never written
        let c = check(&layout, 1, Chain::Dep, &data, 3, &fold, &lds);
        assert_eq!(c.mismatches, 2, "{:?}", c.first_mismatches);
    }

    #[test]
    fn contended_fold_outside_the_span_is_caught() {
        let layout = Layout::new(Pattern::OneAddress, 128, 65536).unwrap();
        let data = lane_data(9, 128);
        for (chain, n) in [(Chain::Dep, 5), (Chain::Indep, 12)] {
            let (mut fold, lds) = simulate(&layout, 1, chain, &data, n, false, Sim::Correct);
            fold[17] = POISON;
            let c = check(&layout, 1, chain, &data, n, &fold, &lds);
            assert_eq!(c.mismatches, 1);
            assert!(c.first_mismatches[0].contains("lane 17"));
        }
    }

    #[test]
    fn wrong_sizes_are_a_mismatch_not_a_panic() {
        let layout = Layout::new(Pattern::ConflictFree, 32, 65536).unwrap();
        let c = check(&layout, 1, Chain::Dep, &[0; 32], 3, &[0; 31], &[0; 32]);
        assert!(!c.passed());
    }

    #[test]
    fn closed_form_of_an_uncontended_lane() {
        let layout = Layout::new(Pattern::ConflictFree, 1, 65536).unwrap();
        let d = [0x1234u64];
        // n = 2: returns 0, d -> fold d, LDS 0. n = 3: returns 0, d, 0 ->
        // fold d, LDS d. n = 4: fold 0, LDS 0.
        let dep = |n, f: u64, l: u64| check(&layout, 1, Chain::Dep, &d, n, &[f], &[l]).passed();
        assert!(dep(2, 0x1234, 0));
        assert!(dep(3, 0x1234, 0x1234));
        assert!(dep(4, 0, 0));
        assert!(!dep(3, 0, 0x1234));
        assert!(!dep(2, 0, 0));
        assert!(!dep(4, 0, 0x1234));
        // _indep, one round from 0: values d, lo32, top16, top16|lo32;
        // returns 0, d, d^lo32 = hi32, hi32^top16 = bits 47:32; fold = the
        // XOR of the first and third values, LDS = their XOR, d.
        let d = 0x1111_2222_3333_4444u64;
        assert_eq!(Chain::Indep.alone(d, 4), (0x0000_2222_3333_4444, d));
        assert_eq!(Chain::Indep.alone(d, 8), (0, 0));
        assert_eq!(Chain::Indep.alone(d, 12), (0x0000_2222_3333_4444, d));
        assert_eq!(Chain::Dep.alone(d, 3), (d, d));
        assert_eq!(Chain::Dep.alone(d, 5), (0, d));
    }

    #[test]
    fn chain_issue_counts() {
        assert_eq!(Chain::Dep.issued(7), 7);
        assert_eq!(Chain::Indep.issued(7), 4);
        assert_eq!(Chain::Indep.issued(8), 8);
    }
}
