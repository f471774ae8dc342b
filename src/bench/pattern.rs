//! Access patterns of the throughput runs: where each lane's
//! `ds_xor_rtn_b64` lands in its workgroup's LDS, and the DATA it xors.
//!
//! Banks (AMD RDNA3 ISA Reference Guide §1.2.2.1 and §12.1): a WGP's LDS is
//! 64 DWORD-wide banks, "DWORDs are placed in the banks serially", so DWORD
//! `a / 4` lives in bank `(a / 4) mod 64` and a row of all 64 banks spans 256
//! bytes. A `ds_xor_rtn_b64` lane touches the two banks of one qword.
//!
//! Lanes are taken 32 at a time ("passes": a wave32, or each half of a
//! wave64), the width at which one wave's addresses meet the banks. With
//! `t` the lane's index in its workgroup, `pass = t / 32`, `i = t mod 32`:
//!
//! - `conflict-free`: `addr = 8 t`. A pass covers one 256-byte row, every
//!   bank once.
//! - `bank-conflict-<N>way` (N in 2, 4, 8, 16, 32): `32 / N` qword slots of a
//!   row, N rows: `slot = i mod (32/N)`, `row = i / (32/N)`,
//!   `addr = pass × 256 N + 256 row + 8 slot`. N lanes of a pass share each
//!   bank pair, all at distinct addresses (no lane waits for another's
//!   atomic, only for its bank).
//! - `one-address`: every lane of the workgroup at address 0 (atomics on one
//!   address serialize; the extreme of contention).
//!
//! Policy where the guide is ambiguous: §12.1 also says the 64 banks are two
//! sets of 32, one per SIMD32 pair. If a CU-mode wave sees only its 32 banks
//! (128-byte rows), `conflict-free` and `bank-conflict-2way` load each bank
//! equally (twice per pass) and must measure the same; the record shows
//! which reading the hardware follows.
//!
//! Every workgroup uses the same addresses, in its own LDS allocation; lanes
//! never share an address except in `one-address`, so each lane's fold is
//! exactly predictable there (see `expect`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::bench::gf2::Gf2Basis;
use crate::bench::BenchError;

/// Lanes per pass: the bank-facing width of one wave instruction.
pub const PASS_LANES: u32 = 32;
/// Bytes of one row across the 64 DWORD banks.
pub const BANK_ROW_BYTES: u32 = 64 * 4;
/// DATA values are drawn from a random subspace of this dimension, so a
/// contended lane's fold (in the span of its address's DATA values) is a
/// checkable claim even when more than 64 lanes share one address.
pub const DATA_SUBSPACE_DIM: usize = 24;
/// The subspace is a product of one random subspace of GF(2)^16 per 16-bit
/// chunk (chunk `c` = bits `16c + 15 .. 16c`), each of this dimension: the
/// `_indep` kernel xors DATA under 16-bit chunk masks (`expect::INDEP_MASKS`),
/// which keep every value inside such a product.
pub const CHUNK_SUBSPACE_DIM: usize = DATA_SUBSPACE_DIM / 4;

/// Where the lanes of a workgroup land.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    ConflictFree,
    /// `N`-way bank conflict, N in 2, 4, 8, 16, 32.
    BankConflict(u32),
    OneAddress,
}

impl Pattern {
    /// Every pattern of a full run, in presentation order.
    pub fn all() -> Vec<Pattern> {
        let mut v = vec![Pattern::ConflictFree];
        v.extend([2, 4, 8, 16, 32].map(Pattern::BankConflict));
        v.push(Pattern::OneAddress);
        v
    }

    pub fn name(self) -> String {
        match self {
            Pattern::ConflictFree => "conflict-free".to_string(),
            Pattern::BankConflict(n) => format!("bank-conflict-{n}way"),
            Pattern::OneAddress => "one-address".to_string(),
        }
    }

    /// Parse a name as `name()` writes it.
    pub fn parse(s: &str) -> Option<Pattern> {
        match s {
            "conflict-free" => Some(Pattern::ConflictFree),
            "one-address" => Some(Pattern::OneAddress),
            _ => {
                let n: u32 = s
                    .strip_prefix("bank-conflict-")?
                    .strip_suffix("way")?
                    .parse()
                    .ok()?;
                matches!(n, 2 | 4 | 8 | 16 | 32).then_some(Pattern::BankConflict(n))
            }
        }
    }

    /// Lanes of one pass that share a bank pair.
    pub fn conflict_ways(self) -> u32 {
        match self {
            Pattern::ConflictFree => 1,
            Pattern::BankConflict(n) => n,
            Pattern::OneAddress => PASS_LANES,
        }
    }

    /// The byte address of lane `t` of a workgroup.
    pub fn addr(self, t: u32) -> u32 {
        let pass = t / PASS_LANES;
        let i = t % PASS_LANES;
        match self {
            Pattern::ConflictFree => 8 * t,
            Pattern::BankConflict(n) => {
                let slots = PASS_LANES / n;
                pass * BANK_ROW_BYTES * n + BANK_ROW_BYTES * (i / slots) + 8 * (i % slots)
            }
            Pattern::OneAddress => 0,
        }
    }
}

/// The addresses of one workgroup's lanes and the LDS they need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub pattern: Pattern,
    /// Byte address of each lane of a workgroup (every workgroup the same).
    pub addr: Vec<u32>,
    /// Qwords of LDS per workgroup: the highest address's qword + 1.
    pub lds_qwords: u32,
}

impl Layout {
    /// The layout of `lanes_per_group` lanes; an error when it needs more
    /// LDS than a workgroup may allocate.
    pub fn new(
        pattern: Pattern,
        lanes_per_group: u32,
        lds_per_block: u32,
    ) -> Result<Layout, BenchError> {
        if let Pattern::BankConflict(n) = pattern {
            if !matches!(n, 2 | 4 | 8 | 16 | 32) {
                return Err(BenchError::Plan(format!(
                    "bank conflict degree {n} is not one of 2, 4, 8, 16, 32"
                )));
            }
        }
        if lanes_per_group == 0 {
            return Err(BenchError::Plan(
                "a workgroup needs at least one lane".into(),
            ));
        }
        let addr: Vec<u32> = (0..lanes_per_group).map(|t| pattern.addr(t)).collect();
        let max = addr.iter().copied().max().unwrap_or(0);
        let lds_qwords = max / 8 + 1;
        let bytes = lds_qwords as u64 * 8;
        if bytes > lds_per_block as u64 {
            return Err(BenchError::Plan(format!(
                "pattern {} with {lanes_per_group} lanes per workgroup needs {bytes} bytes of LDS, \
                 more than the device's {lds_per_block} per workgroup",
                pattern.name()
            )));
        }
        Ok(Layout {
            pattern,
            addr,
            lds_qwords,
        })
    }

    pub fn lanes_per_group(&self) -> usize {
        self.addr.len()
    }
}

/// DATA for `n_lanes` lanes, from a ChaCha8 stream of `seed`: per 16-bit
/// chunk, `CHUNK_SUBSPACE_DIM` linearly independent random chunk values span
/// that chunk's subspace; each lane's chunk is the XOR of a nonzero subset of
/// them, so every chunk of every lane is nonzero. (Then the four values the
/// `_indep` kernel xors are nonzero and distinct, and every uncontended
/// expectation of `expect` is nonzero.)
pub fn lane_data(seed: u64, n_lanes: usize) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut chunk_bases: Vec<Vec<u64>> = Vec::with_capacity(4);
    for c in 0..4 {
        let mut basis = Gf2Basis::default();
        let mut vectors = Vec::with_capacity(CHUNK_SUBSPACE_DIM);
        while vectors.len() < CHUNK_SUBSPACE_DIM {
            let v = u64::from(rng.random::<u16>()) << (16 * c);
            // Keep only vectors that extend the span: the chunk subspace
            // then has exactly CHUNK_SUBSPACE_DIM dimensions.
            if basis.insert(v) {
                vectors.push(v);
            }
        }
        chunk_bases.push(vectors);
    }
    (0..n_lanes)
        .map(|_| {
            chunk_bases.iter().fold(0u64, |d, vectors| {
                let mask: u32 = rng.random_range(1..(1u32 << CHUNK_SUBSPACE_DIM));
                vectors
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| mask >> k & 1 == 1)
                    .fold(d, |acc, (_, v)| acc ^ v)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    /// Bank of a DWORD address under the 64-bank reading.
    fn bank(dword_addr: u32) -> u32 {
        (dword_addr / 4) % 64
    }

    /// Max number of lanes of one pass hitting one bank.
    fn worst_bank_load(p: Pattern, pass: u32) -> u32 {
        let mut load: HashMap<u32, u32> = HashMap::new();
        for i in 0..PASS_LANES {
            let a = p.addr(pass * PASS_LANES + i);
            for dw in [a, a + 4] {
                *load.entry(bank(dw)).or_default() += 1;
            }
        }
        load.values().copied().max().unwrap()
    }

    #[test]
    fn conflict_degree_matches_the_name() {
        for p in Pattern::all() {
            if p == Pattern::OneAddress {
                continue;
            }
            for pass in 0..4 {
                assert_eq!(
                    worst_bank_load(p, pass),
                    p.conflict_ways(),
                    "{} pass {pass}",
                    p.name()
                );
            }
        }
    }

    #[test]
    fn lanes_have_distinct_aligned_addresses_except_one_address() {
        for p in Pattern::all() {
            let l = Layout::new(p, 256, 65536).unwrap();
            assert!(l.addr.iter().all(|a| a % 8 == 0));
            let distinct: HashSet<_> = l.addr.iter().collect();
            if p == Pattern::OneAddress {
                assert_eq!(distinct.len(), 1);
            } else {
                assert_eq!(distinct.len(), 256, "{}", p.name());
            }
        }
    }

    #[test]
    fn lds_size_and_limits() {
        assert_eq!(
            Layout::new(Pattern::ConflictFree, 1024, 65536)
                .unwrap()
                .lds_qwords,
            1024
        );
        assert_eq!(
            Layout::new(Pattern::OneAddress, 1024, 65536)
                .unwrap()
                .lds_qwords,
            1
        );
        // 32-way: 8 KiB per pass; 8 passes fill 64 KiB exactly, 9 do not fit.
        let l = Layout::new(Pattern::BankConflict(32), 256, 65536).unwrap();
        assert_eq!(l.lds_qwords * 8, 65536 - 256 + 8);
        assert!(matches!(
            Layout::new(Pattern::BankConflict(32), 288, 65536),
            Err(BenchError::Plan(_))
        ));
        assert!(matches!(
            Layout::new(Pattern::BankConflict(3), 32, 65536),
            Err(BenchError::Plan(_))
        ));
        assert!(matches!(
            Layout::new(Pattern::ConflictFree, 0, 65536),
            Err(BenchError::Plan(_))
        ));
    }

    #[test]
    fn names_round_trip() {
        for p in Pattern::all() {
            assert_eq!(Pattern::parse(&p.name()), Some(p));
        }
        assert_eq!(Pattern::parse("bank-conflict-3way"), None);
        assert_eq!(Pattern::parse("bogus"), None);
    }

    #[test]
    fn data_is_seeded_nonzero_and_in_a_small_subspace() {
        let a = lane_data(7, 500);
        assert_eq!(a, lane_data(7, 500));
        assert_ne!(a, lane_data(8, 500));
        assert!(a
            .iter()
            .all(|&d| (0..4).all(|c| (d >> (16 * c)) & 0xffff != 0)));
        let mut b = Gf2Basis::default();
        for &d in &a {
            b.insert(d);
        }
        assert_eq!(b.rank(), DATA_SUBSPACE_DIM);
        // A product of chunk subspaces: each chunk alone spans 6 dimensions.
        for c in 0..4 {
            let mut chunk = Gf2Basis::default();
            for &d in &a {
                chunk.insert(d & (0xffff << (16 * c)));
            }
            assert_eq!(chunk.rank(), CHUNK_SUBSPACE_DIM, "chunk {c}");
        }
        // The product is not closed under swapping dwords (a swapped fold
        // must not look consistent): almost no swapped value is in the span.
        let swapped_inside = a.iter().filter(|d| b.contains(d.rotate_left(32))).count();
        assert_eq!(swapped_inside, 0);
    }
}
