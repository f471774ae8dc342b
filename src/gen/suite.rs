//! A run's selection of cases: which families and wave sizes, how many
//! cases, and which shard of them this process runs.

use serde::{Deserialize, Serialize};

use crate::case::{Mode, WaveSize};

use super::pattern::{generate_on, CaseId, Generated, Pattern, STAND_IN_WGPS};

/// Default size of `dsxor run`: chosen so that the default suite takes
/// under a minute on the software device on 2 cores (measured, README
/// "Conformance runs").
pub const DEFAULT_CASES: u64 = 72_000;

/// Cases per 1000 of each default family (split evenly over the wave
/// sizes), sized from measured kill rates: the shares that maximize the
/// mutants of `dsxor mutate` killed within 1 case-second, every family
/// keeping at least 4 % (coverage of faults no mutant models). Measured
/// with `dsxor mutate --budgets 1,4 --jobs 2` (seed 1, 38 built-in mutants,
/// equal shares), then `dsxor mutate --from RECORD`; docs/src/guide/
/// sensitivity.md has the record and the scores before and after.
/// k-per-address kills the conditional serialization faults (bank
/// conflicts, cross-wave, wave64-only) fastest per case-second.
/// The shape families (big-group, occupancy, lds-straddle: generator
/// version 3) cost far more per case than the rest (up to 16,384
/// lane-ops, 96 workgroups or 64 KiB images), so they get the fewest cases
/// that still give every (wave, mode) cell each variant several times
/// (measured, docs/src/guide/conformance-runs.md); their share came out of
/// k-per-address's. wave64-halves (generator version 4) took 20 more of
/// k-per-address's: about as many cases as a small family (cross-wave,
/// data), each a few hundred lanes on at most four qwords.
/// stress (generator version 5) took 5 of k-per-address's: a shape family
/// by cost (up to 16,384 lanes a case, `STRESS_MAX_LANES`), sized like
/// big-group so every (wave, mode) cell sees each variant many times.
pub const DEFAULT_MIX: [(Pattern, u32); 14] = [
    (Pattern::Uniform, 40),
    (Pattern::OneAddress, 40),
    (Pattern::KPerAddress, 590),
    (Pattern::CrossWave, 40),
    (Pattern::BankStride, 40),
    (Pattern::ExecMask, 64),
    (Pattern::Offset, 75),
    (Pattern::AllocEdge, 40),
    (Pattern::Data, 40),
    (Pattern::BigGroup, 3),
    (Pattern::Occupancy, 1),
    (Pattern::LdsStraddle, 2),
    (Pattern::Wave64Halves, 20),
    (Pattern::Stress, 5),
];

/// What a probe weighs in a run: a plain family's share (uniform's), as
/// at generator version 2, when that was the smallest share. (The shape
/// families' shares are far smaller for their cost; a probe is cheap.)
pub const PROBE_SHARE: u32 = 40;

/// A family's weight in a run: its [`DEFAULT_MIX`] share; probes weigh
/// [`PROBE_SHARE`].
pub fn share(p: Pattern) -> u64 {
    u64::from(
        DEFAULT_MIX
            .iter()
            .find(|m| m.0 == p)
            .map_or(PROBE_SHARE, |m| m.1),
    )
}

/// `--shard K/N`: this process runs the cases whose run index `i` has
/// `i % N == K - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("bad --shard `{0}`: expected K/N with 1 <= K <= N (e.g. 2/4)")]
    BadShard(String),
    #[error("unknown pattern `{name}`; known: {known}")]
    UnknownPattern { name: String, known: String },
    #[error("`{0}` is a probe: select it with --probe {0}, not --pattern")]
    ProbeAsPattern(String),
    #[error("`{name}` is not a probe; probes: {known}")]
    UnknownProbe { name: String, known: String },
    #[error("bad --wave `{0}`: expected 32 or 64")]
    BadWave(String),
    #[error("bad --mode `{0}`: expected cu or wgp")]
    BadMode(String),
    #[error("the selection is empty: no pattern, no wave size or no mode")]
    Empty,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    pub fn parse(text: &str) -> Result<Shard, SpecError> {
        let bad = || SpecError::BadShard(text.to_string());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether run index `run_index` is this shard's. A shard read from a
    /// file may be anything (`parse` refuses these): 0/N and K/0 hold no
    /// case, rather than panic on the arithmetic.
    pub fn contains(&self, run_index: u64) -> bool {
        self.index >= 1
            && self.count >= 1
            && run_index % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

pub fn parse_wave(text: &str) -> Result<WaveSize, SpecError> {
    text.trim()
        .trim_start_matches("wave")
        .parse::<u32>()
        .ok()
        .and_then(WaveSize::from_lanes)
        .ok_or_else(|| SpecError::BadWave(text.to_string()))
}

pub fn parse_mode(text: &str) -> Result<Mode, SpecError> {
    Mode::from_name(text.trim()).ok_or_else(|| SpecError::BadMode(text.to_string()))
}

fn known(list: impl Iterator<Item = Pattern>) -> String {
    list.map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

pub fn parse_pattern(name: &str) -> Result<Pattern, SpecError> {
    match Pattern::from_name(name.trim()) {
        Some(p) if p.is_probe() => Err(SpecError::ProbeAsPattern(p.name().to_string())),
        Some(p) => Ok(p),
        None => Err(SpecError::UnknownPattern {
            name: name.to_string(),
            known: known(Pattern::DEFAULT.into_iter()),
        }),
    }
}

pub fn parse_probe(name: &str) -> Result<Pattern, SpecError> {
    match Pattern::from_name(name.trim()) {
        Some(p) if p.is_probe() => Ok(p),
        _ => Err(SpecError::UnknownProbe {
            name: name.to_string(),
            known: known(Pattern::PROBES.into_iter()),
        }),
    }
}

/// Everything that decides which cases a run contains. Two shards can be
/// merged only when their specs are equal but for `shard`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuiteSpec {
    pub seed: u64,
    pub generator_version: u32,
    /// Total cases over all cells (before sharding).
    pub cases: u64,
    /// Families in run order (default ones, then probes).
    pub patterns: Vec<Pattern>,
    pub waves: Vec<WaveSize>,
    /// Wavefront execution modes (`--mode`), CU first. Absent in files of
    /// generator versions 1-2, whose every case ran in WGP mode.
    #[serde(default = "wgp_only")]
    pub modes: Vec<Mode>,
    /// WGPs the occupancy pattern fills: the device's multiprocessor count
    /// on HIP, [`STAND_IN_WGPS`] on the software device (policy
    /// `occupancy-stand-in`) and in files written before it existed.
    #[serde(default = "stand_in_wgps")]
    pub wgps: u32,
    pub shard: Shard,
}

fn stand_in_wgps() -> u32 {
    STAND_IN_WGPS
}

fn wgp_only() -> Vec<Mode> {
    vec![Mode::Wgp]
}

/// One planned case: its run index and identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    pub index: u64,
    pub id: CaseId,
}

impl SuiteSpec {
    /// `patterns` empty means every default family; probes are added.
    /// Both modes; [`SuiteSpec::with_modes`] narrows them.
    pub fn new(
        seed: u64,
        cases: u64,
        patterns: &[Pattern],
        probes: &[Pattern],
        waves: &[WaveSize],
        shard: Shard,
    ) -> Result<SuiteSpec, SpecError> {
        let mut selected: Vec<Pattern> = if patterns.is_empty() {
            Pattern::DEFAULT.to_vec()
        } else {
            Pattern::DEFAULT
                .into_iter()
                .filter(|p| patterns.contains(p))
                .collect()
        };
        selected.extend(Pattern::PROBES.into_iter().filter(|p| probes.contains(p)));
        let mut w: Vec<WaveSize> = if waves.is_empty() {
            vec![WaveSize::Wave32, WaveSize::Wave64]
        } else {
            waves.to_vec()
        };
        w.sort();
        w.dedup();
        if selected.is_empty() || w.is_empty() {
            return Err(SpecError::Empty);
        }
        Ok(SuiteSpec {
            seed,
            generator_version: super::rng::GENERATOR_VERSION,
            cases,
            patterns: selected,
            waves: w,
            modes: Mode::BOTH.to_vec(),
            wgps: STAND_IN_WGPS,
            shard,
        })
    }

    /// The occupancy pattern fills `wgps` WGPs (at least 1).
    pub fn with_wgps(mut self, wgps: u32) -> SuiteSpec {
        self.wgps = wgps.max(1);
        self
    }

    /// Only these modes (empty: both), in their fixed order (CU, WGP).
    pub fn with_modes(mut self, modes: &[Mode]) -> Result<SuiteSpec, SpecError> {
        if !modes.is_empty() {
            let mut m = modes.to_vec();
            m.sort();
            m.dedup();
            self.modes = m;
        }
        Ok(self)
    }

    /// (family, wave, mode) cells in run order.
    pub fn cells(&self) -> Vec<(Pattern, WaveSize, Mode)> {
        self.patterns
            .iter()
            .flat_map(|&p| {
                self.waves
                    .iter()
                    .flat_map(move |&w| self.modes.iter().map(move |&m| (p, w, m)))
            })
            .collect()
    }

    /// The cells the run gives at least one case, in run order: a run's
    /// results have a pattern record for each, and only these.
    pub fn cells_with_cases(&self) -> Vec<(Pattern, WaveSize, Mode)> {
        self.cells()
            .into_iter()
            .zip(self.cell_counts())
            .filter(|&(_, n)| n > 0)
            .map(|(c, _)| c)
            .collect()
    }

    /// Cases per cell: the total apportioned by the cells' family shares
    /// ([`share`]; largest remainder, ties to the earlier cell), so equal
    /// shares give every cell the same count, the first cells one more.
    fn cell_counts(&self) -> Vec<u64> {
        let cells = self.cells();
        let w: Vec<u64> = cells.iter().map(|(p, _, _)| share(*p)).collect();
        let total: u64 = w.iter().sum::<u64>().max(1);
        let cases = u128::from(self.cases);
        let mut counts: Vec<u64> = w
            .iter()
            .map(|&x| (cases * u128::from(x) / u128::from(total)) as u64)
            .collect();
        let mut left = self.cases - counts.iter().sum::<u64>();
        let mut by_remainder: Vec<usize> = (0..cells.len()).collect();
        by_remainder
            .sort_by_key(|&c| std::cmp::Reverse(cases * u128::from(w[c]) % u128::from(total)));
        for c in by_remainder {
            if left == 0 {
                break;
            }
            counts[c] += 1;
            left -= 1;
        }
        counts
    }

    /// Every case of the run (all shards), in run order.
    pub fn plan_all(&self) -> Vec<Planned> {
        let cells = self.cells();
        let counts = self.cell_counts();
        let mut out = Vec::new();
        let mut index = 0;
        for (&(pattern, wave, mode), &count) in cells.iter().zip(&counts) {
            for ordinal in 0..count {
                out.push(Planned {
                    index,
                    id: CaseId {
                        pattern,
                        wave,
                        mode,
                        ordinal,
                    },
                });
                index += 1;
            }
        }
        out
    }

    /// The cases of this shard, in run order, generated as they are taken:
    /// memory does not grow with `cases` or the shard count (a plan of
    /// `--cases 100000000 --shard 1/100000000` is one case, not 2 GB).
    /// Each cell's indices of the shard are found by arithmetic, not by
    /// walking the other shards' cases.
    pub fn plan_iter(&self) -> impl Iterator<Item = Planned> + Clone + 'static {
        let cells = self.cells();
        let counts = self.cell_counts();
        let k = u64::from(self.shard.index.saturating_sub(1));
        let n = u64::from(self.shard.count.max(1));
        let mut base = 0u64;
        let ranges: Vec<(Pattern, WaveSize, Mode, u64, u64)> = cells
            .iter()
            .enumerate()
            .map(|(c, &(pattern, wave, mode))| {
                let count = counts[c];
                let r = (pattern, wave, mode, base, base.saturating_add(count));
                base = base.saturating_add(count);
                r
            })
            .collect();
        ranges
            .into_iter()
            .flat_map(move |(pattern, wave, mode, base, end)| {
                // The first index >= base with index % n == k.
                let first = base.checked_add((k + n - base % n) % n);
                std::iter::successors(first.filter(|&i| i < end), move |&i| {
                    i.checked_add(n).filter(|&j| j < end)
                })
                .map(move |index| Planned {
                    index,
                    id: CaseId {
                        pattern,
                        wave,
                        mode,
                        ordinal: index - base,
                    },
                })
            })
    }

    /// The cases of this shard.
    pub fn plan(&self) -> Vec<Planned> {
        self.plan_all()
            .into_iter()
            .filter(|p| self.shard.contains(p.index))
            .collect()
    }

    /// How many cases this shard runs (run indices below `cases` with
    /// `index % N == K - 1`), without building the plan.
    pub fn shard_len(&self) -> u64 {
        let (k, n) = (u64::from(self.shard.index), u64::from(self.shard.count));
        if k == 0 || n == 0 || self.cases < k {
            0
        } else {
            (self.cases - k) / n + 1
        }
    }

    pub fn generate(&self, planned: Planned) -> Generated {
        generate_on(self.seed, planned.id, planned.index, self.wgps)
    }

    /// Equal but for the shard: the condition for merging.
    pub fn same_run_as(&self, other: &SuiteSpec) -> bool {
        let mut a = self.clone();
        a.shard = other.shard;
        a == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn spec(cases: u64, shard: Shard) -> SuiteSpec {
        SuiteSpec::new(1, cases, &[], &[], &[], shard).unwrap()
    }

    #[test]
    fn a_shard_read_from_a_file_holds_no_case_when_it_cannot_exist() {
        // A mutated case stream once had shard 0/1 and panicked recovery.
        assert!(!Shard { index: 0, count: 1 }.contains(0));
        assert!(!Shard { index: 1, count: 0 }.contains(0));
        assert!(Shard { index: 2, count: 3 }.contains(4));
        assert!(!Shard { index: 2, count: 3 }.contains(5));
    }

    #[test]
    fn shard_len_counts_the_plan() {
        for cases in [1, 2, 17, 100] {
            for n in 1..=7 {
                for k in 1..=n {
                    let s = spec(cases, Shard { index: k, count: n });
                    assert_eq!(s.shard_len(), s.plan().len() as u64, "{cases} {k}/{n}");
                    let lazy: Vec<Planned> = s.plan_iter().collect();
                    assert_eq!(lazy, s.plan(), "{cases} {k}/{n}");
                }
            }
        }
    }

    #[test]
    fn a_huge_run_plans_one_shard_without_walking_the_others() {
        let s = spec(
            u64::MAX,
            Shard {
                index: 7,
                count: u32::MAX,
            },
        );
        let first: Vec<Planned> = s.plan_iter().take(3).collect();
        assert_eq!(first[0].index, 6);
        assert_eq!(first[1].index, 6 + u64::from(u32::MAX));
        assert!(first.iter().all(|p| s.shard.contains(p.index)));
    }

    #[test]
    fn shards_partition_the_run() {
        let whole = spec(100, Shard::WHOLE).plan();
        let mut union: Vec<u64> = (1..=3)
            .flat_map(|k| spec(100, Shard { index: k, count: 3 }).plan())
            .map(|p| p.index)
            .collect();
        union.sort_unstable();
        assert_eq!(union, whole.iter().map(|p| p.index).collect::<Vec<_>>());
        assert_eq!(whole.len(), 100);
    }

    #[test]
    fn every_cell_gets_cases_and_the_total_is_exact() {
        let s = spec(DEFAULT_CASES, Shard::WHOLE);
        let plan = s.plan();
        assert_eq!(plan.len() as u64, DEFAULT_CASES);
        for (p, w, m) in s.cells() {
            let n = plan
                .iter()
                .filter(|c| c.id.pattern == p && c.id.wave == w && c.id.mode == m)
                .count();
            assert!(n >= p.variants().len(), "{p} {w:?} {m} has {n} cases");
        }
    }

    #[test]
    fn a_pattern_filter_regenerates_the_same_cases() {
        let all = spec(900, Shard::WHOLE);
        let only = SuiteSpec::new(1, 10, &[Pattern::Data], &[], &[], Shard::WHOLE).unwrap();
        let from_all: Vec<_> = all
            .plan()
            .into_iter()
            .filter(|p| p.id.pattern == Pattern::Data)
            .map(|p| (p.id, all.generate(p).case.lanes))
            .collect();
        let mut compared = 0;
        for p in only.plan() {
            // A case is named by (pattern, wave, ordinal), whatever else the run holds.
            if let Some((_, lanes)) = from_all.iter().find(|(id, _)| *id == p.id) {
                assert_eq!(*lanes, only.generate(p).case.lanes, "{:?}", p.id);
                compared += 1;
            }
        }
        assert!(compared >= 4, "{compared}");
    }

    #[test]
    fn the_default_run_follows_the_mix() {
        let s = spec(DEFAULT_CASES, Shard::WHOLE);
        let plan = s.plan();
        let total: u64 = DEFAULT_MIX.iter().map(|m| u64::from(m.1)).sum();
        assert_eq!(total, 1000);
        for (p, per_mille) in DEFAULT_MIX {
            let n = plan.iter().filter(|c| c.id.pattern == p).count() as u64;
            assert_eq!(n, DEFAULT_CASES * u64::from(per_mille) / 1000, "{p}");
        }
        // Equal shares give the first cells one case more, as before the mix.
        let probes = SuiteSpec::new(1, 7, &[], &Pattern::PROBES, &[], Shard::WHOLE).unwrap();
        assert_eq!(probes.plan().len(), 7);
        // A probe beside a plain family gets as many cases as it does: the
        // shape families' small shares do not shrink it.
        let beside = SuiteSpec::new(
            1,
            80,
            &[Pattern::Uniform],
            &[Pattern::Misaligned],
            &[],
            Shard::WHOLE,
        )
        .unwrap();
        let misaligned = beside
            .plan()
            .iter()
            .filter(|c| c.id.pattern == Pattern::Misaligned)
            .count();
        assert_eq!(misaligned, 40);
    }

    /// Pins what seed 1 means. If this fails, generation changed: existing
    /// seeds would name other cases. Bump GENERATOR_VERSION deliberately
    /// instead, and update this digest in the same commit.
    #[test]
    fn seed_one_is_stable_across_versions() {
        let s = spec(40, Shard::WHOLE);
        let mut h = Sha256::new();
        // Raw fields, not a serialization format that could change alone.
        for p in s.plan() {
            let c = s.generate(p).case;
            let g = c.geometry;
            for v in [
                g.wave_size.lanes(),
                g.waves_per_group,
                g.groups,
                c.lds_bytes,
                u32::from(c.offset),
            ] {
                h.update(v.to_le_bytes());
            }
            for q in c.lds_init.iter().flatten() {
                h.update(q.to_le_bytes());
            }
            for l in &c.lanes {
                h.update(l.addr.to_le_bytes());
                h.update(l.data.to_le_bytes());
                h.update([u8::from(l.active)]);
                h.update(l.vdst_init.to_le_bytes());
            }
        }
        let digest = hex::encode(h.finalize());
        assert_eq!(digest, GOLDEN, "generation of seed 1 changed");
    }
    // Generator version 2 (DEFAULT_MIX): 40 cases now hold other ordinals
    // (k-per-address takes 62 %); every case keeps its content, only the
    // selection of (pattern, wave, ordinal) changed. Version 1 digest:
    // 78e669a443cbfe02b45198f698077fcfa483ee78e3d8c1d61ccbeea09f20917a.
    // Generator version 3 (modes, shape families): the 40 cases are other
    // cells' (CU and WGP mode); a WGP-mode case keeps its version-2
    // content. Version 2 digest:
    // dc455db0a3e16aa2b5e0d8929c461aa8d668ad97139ffc32bd2128737dacd4ed.
    // Generator version 4 (wave64-halves): of 40 cases the new family's
    // cells get none and the others keep their counts, so the digest is
    // version 3's. Generator version 5 (stress, 5 of k-per-address's 595):
    // likewise none of the 40, the others' counts unchanged.
    const GOLDEN: &str = "2c55a02f64cf61eef373af4499fa7a1a5702b67c87f634b18c9ca2b0a8303ca0";

    #[test]
    fn parsing() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "x", "1/0", "1/", "/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_wave("64"), Ok(WaveSize::Wave64));
        assert_eq!(parse_wave("wave32"), Ok(WaveSize::Wave32));
        assert!(parse_wave("16").is_err());
        assert!(matches!(
            parse_pattern("misaligned"),
            Err(SpecError::ProbeAsPattern(_))
        ));
        assert!(matches!(
            parse_probe("uniform"),
            Err(SpecError::UnknownProbe { .. })
        ));
        assert_eq!(parse_probe("out-of-range"), Ok(Pattern::OutOfRange));
        let a = spec(10, Shard { index: 1, count: 2 });
        let b = spec(10, Shard { index: 2, count: 2 });
        assert!(a.same_run_as(&b));
        assert!(!a.same_run_as(&spec(11, Shard::WHOLE)));
    }
}
