//! Shrinking a failing case: fewer workgroups, waves, active lanes and
//! addresses, smaller data, a smaller allocation, no offset — each step kept
//! only while the case still fails. Generic over the "still fails?" test so
//! that it runs on whatever backend found the failure; bounded by a time
//! budget (and a try limit) so a slow device cannot stall a run.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::case::calc_ds_addr16;
use crate::case::{Case, Geometry, Round, Traffic};

/// What minimization did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MinimizeStats {
    /// Candidate cases tried (each one a run on the device).
    pub tries: u64,
    /// Candidates that still failed and were kept.
    pub accepted: u64,
    pub elapsed_ms: u64,
    /// Stopped by the budget before reaching a fixpoint.
    pub budget_exhausted: bool,
}

pub struct Minimized {
    pub case: Case,
    pub stats: MinimizeStats,
}

/// Limits of one minimization.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub time: Duration,
    pub max_tries: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            time: Duration::from_secs(20),
            max_tries: 2000,
        }
    }
}

/// Shrink `case`, which fails, while `still_fails` says the candidate fails
/// (the caller decides what "the same failure" means).
pub fn minimize(case: &Case, budget: Budget, still_fails: impl FnMut(&Case) -> bool) -> Minimized {
    minimize_until(case, budget, || false, still_fails)
}

/// [`minimize`], also ended before any try at which `stop` says so (the
/// best case so far kept, `budget_exhausted` set): a signal asking the run
/// to stop must not wait out the rest of the time budget.
pub fn minimize_until(
    case: &Case,
    budget: Budget,
    stop: impl Fn() -> bool,
    mut still_fails: impl FnMut(&Case) -> bool,
) -> Minimized {
    let start = Instant::now();
    let mut stats = MinimizeStats {
        tries: 0,
        accepted: 0,
        elapsed_ms: 0,
        budget_exhausted: false,
    };
    let mut best = case.clone();
    'fixpoint: loop {
        let mut improved = false;
        for pass in PASSES {
            // Candidates are rebuilt from the current best after each
            // acceptance, since they depend on its shape.
            let mut skip = 0usize;
            loop {
                let candidates = pass(&best);
                let Some(candidate) = candidates.into_iter().skip(skip).find(|c| c != &best) else {
                    break;
                };
                if start.elapsed() >= budget.time || stats.tries >= budget.max_tries || stop() {
                    stats.budget_exhausted = true;
                    break 'fixpoint;
                }
                stats.tries += 1;
                if still_fails(&candidate) {
                    best = candidate;
                    stats.accepted += 1;
                    improved = true;
                    skip = 0;
                } else {
                    skip += 1;
                }
            }
        }
        if !improved {
            break;
        }
    }
    stats.elapsed_ms = start.elapsed().as_millis() as u64;
    Minimized { case: best, stats }
}

type Pass = fn(&Case) -> Vec<Case>;

/// Coarse to fine. Each pass lists candidates, most shrinking first.
const PASSES: [Pass; 11] = [
    drop_traffic,
    fewer_rounds,
    single_group,
    single_wave,
    drop_lane_chunks,
    drop_address,
    zero_offset,
    shrink_allocation,
    zero_lds_chunks,
    simplify_data,
    compact_addresses,
];

/// Without the background traffic (its lanes stay inactive lanes of the
/// plain kernels), then with the traffic but no spin.
fn drop_traffic(case: &Case) -> Vec<Case> {
    let Some(t) = &case.traffic else {
        return Vec::new();
    };
    let mut out = vec![Case {
        traffic: None,
        ..case.clone()
    }];
    if t.spin.iter().any(|&s| s != 0) {
        let mut c = case.clone();
        if let Some(t) = c.traffic.as_mut() {
            t.spin.iter_mut().for_each(|s| *s = 0);
        }
        out.push(c);
    }
    out
}

/// Fewer rounds: the first 1, half, all but one; then each later round
/// alone, as a one-round case starting from the LDS the earlier rounds
/// leave (for XOR: the start XOR their DATA at every in-range active
/// lane's qword, under any order), so a failure in round 9 of 16 shrinks
/// to that round.
fn fewer_rounds(case: &Case) -> Vec<Case> {
    let rounds = case.rounds();
    if rounds <= 1 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut keep: Vec<usize> = vec![1, rounds / 2, rounds - 1];
    keep.dedup();
    for k in keep.into_iter().filter(|&k| k >= 1 && k < rounds) {
        let mut c = case.clone();
        c.more_rounds.truncate(k - 1);
        out.push(c);
    }
    let per_group = case.geometry.lanes_per_group().max(1) as usize;
    let mut image = case.lds_init.clone();
    for r in 1..rounds {
        // `image` is the start of round r: apply round r - 1.
        for (i, l) in case.lanes.iter().enumerate() {
            let eff = calc_ds_addr16(l.addr, case.offset);
            let Some((data, _)) = case.round_input(r - 1, i) else {
                continue;
            };
            if l.active && eff < u64::from(case.lds_bytes) {
                if let Some(q) = image
                    .get_mut(i / per_group)
                    .and_then(|img| img.get_mut((eff >> 3) as usize))
                {
                    *q ^= data;
                }
            }
        }
        let mut c = case.clone();
        c.lds_init = image.clone();
        for (i, l) in c.lanes.iter_mut().enumerate() {
            if let Some((data, vdst_init)) = case.round_input(r, i) {
                l.data = data;
                l.vdst_init = vdst_init;
            }
        }
        c.more_rounds.clear();
        out.push(c);
    }
    out
}

/// Case with only the lanes and LDS of the given groups / waves.
fn restrict(case: &Case, groups: &[usize], waves: &[usize]) -> Option<Case> {
    let wl = case.geometry.wave_size.lanes() as usize;
    let lpg = case.geometry.lanes_per_group() as usize;
    let mut lanes = Vec::with_capacity(groups.len() * waves.len() * wl);
    let mut lds_init = Vec::with_capacity(groups.len());
    let mut more_rounds: Vec<Round> = case
        .more_rounds
        .iter()
        .map(|_| Round {
            data: Vec::new(),
            vdst_init: Vec::new(),
        })
        .collect();
    // A stress case keeps its parameters as drawn, and each kept lane its
    // slot: the record still says where every remaining lane came from.
    let mut stress = case.stress.clone();
    if let Some(s) = stress.as_mut() {
        s.slots.clear();
    }
    // Traffic roles and spins are per lane: each kept lane keeps its own.
    let mut traffic = case.traffic.as_ref().map(|_| Traffic {
        lanes: Vec::new(),
        spin: Vec::new(),
    });
    for &g in groups {
        lds_init.push(case.lds_init.get(g)?.clone());
        for &w in waves {
            let start = g * lpg + w * wl;
            lanes.extend_from_slice(case.lanes.get(start..start + wl)?);
            if let (Some(to), Some(from)) = (stress.as_mut(), case.stress.as_ref()) {
                if let Some(slots) = from.slots.get(start..start + wl) {
                    to.slots.extend_from_slice(slots);
                }
            }
            if let (Some(to), Some(from)) = (traffic.as_mut(), case.traffic.as_ref()) {
                to.lanes
                    .extend_from_slice(from.lanes.get(start..start + wl)?);
                to.spin.extend_from_slice(from.spin.get(start..start + wl)?);
            }
            for (to, from) in more_rounds.iter_mut().zip(&case.more_rounds) {
                to.data.extend_from_slice(from.data.get(start..start + wl)?);
                to.vdst_init
                    .extend_from_slice(from.vdst_init.get(start..start + wl)?);
            }
        }
    }
    Some(Case {
        more_rounds,
        geometry: Geometry {
            wave_size: case.geometry.wave_size,
            waves_per_group: waves.len() as u32,
            groups: groups.len() as u32,
            // A failure keeps its mode: the repro replays the same object.
            mode: case.geometry.mode,
        },
        lds_init,
        lanes,
        stress,
        traffic,
        ..case.clone()
    })
}

fn single_group(case: &Case) -> Vec<Case> {
    let waves: Vec<usize> = (0..case.geometry.waves_per_group as usize).collect();
    if case.geometry.groups <= 1 {
        return Vec::new();
    }
    (0..case.geometry.groups as usize)
        .filter_map(|g| restrict(case, &[g], &waves))
        .collect()
}

fn single_wave(case: &Case) -> Vec<Case> {
    let groups: Vec<usize> = (0..case.geometry.groups as usize).collect();
    let n = case.geometry.waves_per_group as usize;
    if n <= 1 {
        return Vec::new();
    }
    let mut out: Vec<Case> = (0..n)
        .filter_map(|w| restrict(case, &groups, &[w]))
        .collect();
    // Then drop one wave at a time (contention across waves needs two).
    out.extend((0..n).filter_map(|drop| {
        let keep: Vec<usize> = (0..n).filter(|&w| w != drop).collect();
        restrict(case, &groups, &keep)
    }));
    out
}

fn active_lanes(case: &Case) -> Vec<usize> {
    case.lanes
        .iter()
        .enumerate()
        .filter(|(_, l)| l.active)
        .map(|(i, _)| i)
        .collect()
}

fn deactivate(case: &Case, which: &[usize]) -> Case {
    let mut c = case.clone();
    for &i in which {
        if let Some(l) = c.lanes.get_mut(i) {
            l.active = false;
        }
    }
    c
}

/// ddmin-style: deactivate halves, quarters, ... down to single lanes.
fn drop_lane_chunks(case: &Case) -> Vec<Case> {
    let active = active_lanes(case);
    let mut out = Vec::new();
    let mut size = active.len().div_ceil(2);
    while size >= 1 && !active.is_empty() {
        for chunk in active.chunks(size) {
            out.push(deactivate(case, chunk));
        }
        if size == 1 {
            break;
        }
        size = size.div_ceil(2);
    }
    out
}

fn distinct_addrs(case: &Case) -> BTreeSet<(usize, u32)> {
    let lpg = case.geometry.lanes_per_group().max(1) as usize;
    case.lanes
        .iter()
        .enumerate()
        .filter(|(_, l)| l.active)
        .map(|(i, l)| (i / lpg, l.addr))
        .collect()
}

/// Deactivate every lane of one (group, address).
fn drop_address(case: &Case) -> Vec<Case> {
    let lpg = case.geometry.lanes_per_group().max(1) as usize;
    distinct_addrs(case)
        .into_iter()
        .map(|(g, a)| {
            let which: Vec<usize> = case
                .lanes
                .iter()
                .enumerate()
                .filter(|(i, l)| l.active && i / lpg == g && l.addr == a)
                .map(|(i, _)| i)
                .collect();
            deactivate(case, &which)
        })
        .collect()
}

/// Same effective addresses with offset 0 (ADDR absorbs it).
fn zero_offset(case: &Case) -> Vec<Case> {
    if case.offset == 0 {
        return Vec::new();
    }
    let mut c = case.clone();
    for l in &mut c.lanes {
        match l.addr.checked_add(u32::from(case.offset)) {
            Some(a) => l.addr = a,
            None => return Vec::new(),
        }
    }
    c.offset = 0;
    vec![c]
}

/// The allocation cut down to just past the highest active effective
/// address (and a halving), when that keeps every such address inside.
fn shrink_allocation(case: &Case) -> Vec<Case> {
    // Traffic lanes' qwords must stay inside too.
    let top = case
        .lanes
        .iter()
        .enumerate()
        .filter(|(i, l)| l.active || case.traffic.as_ref().is_some_and(|t| t.is_traffic(*i)))
        .map(|(_, l)| u64::from(l.addr) + u64::from(case.offset))
        .max()
        .unwrap_or(0);
    let mut sizes = Vec::new();
    let tight = ((top / 8 + 1) * 8).max(8);
    if tight < u64::from(case.lds_bytes) {
        sizes.push(tight as u32);
    }
    let half = (case.lds_bytes / 16) * 8;
    if half >= 8 && u64::from(half) > top {
        sizes.push(half);
    }
    sizes
        .into_iter()
        .map(|bytes| {
            let mut c = case.clone();
            c.lds_bytes = bytes;
            for g in &mut c.lds_init {
                g.truncate(bytes as usize / 8);
            }
            c
        })
        .collect()
}

/// Zero the whole LDS image, then halves, quarters... (at most 64 chunks).
fn zero_lds_chunks(case: &Case) -> Vec<Case> {
    let q = case.lds_qwords();
    let mut out = Vec::new();
    let mut size = q;
    while size >= 1 && q > 0 {
        if q / size > 64 {
            break;
        }
        for start in (0..q).step_by(size) {
            let mut c = case.clone();
            let mut changed = false;
            for g in &mut c.lds_init {
                for v in g.iter_mut().skip(start).take(size) {
                    changed |= *v != 0;
                    *v = 0;
                }
            }
            if changed {
                out.push(c);
            }
        }
        if size == 1 {
            break;
        }
        size = size.div_ceil(2);
    }
    out
}

/// Per active lane: data 0, then 1, then its low byte.
fn simplify_data(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    for i in active_lanes(case) {
        let d = case.lanes.get(i).map(|l| l.data).unwrap_or(0);
        for smaller in [0, 1, d & 0xff] {
            if smaller != d && smaller.count_ones() <= d.count_ones() {
                let mut c = case.clone();
                if let Some(l) = c.lanes.get_mut(i) {
                    l.data = smaller;
                }
                out.push(c);
            }
        }
    }
    out
}

/// Renumber a group's distinct addresses to the lowest qwords, in order.
fn compact_addresses(case: &Case) -> Vec<Case> {
    // Renumbering could move a contended qword onto a traffic lane's.
    if case.traffic.is_some() {
        return Vec::new();
    }
    let lpg = case.geometry.lanes_per_group().max(1) as usize;
    let mut c = case.clone();
    for g in 0..case.geometry.groups as usize {
        let addrs: BTreeSet<u32> = case
            .lanes
            .iter()
            .skip(g * lpg)
            .take(lpg)
            .filter(|l| l.active)
            .map(|l| l.addr)
            .collect();
        for (rank, a) in addrs.iter().enumerate() {
            let Some(eff) = (rank as u32).checked_mul(8) else {
                return Vec::new();
            };
            // Keep the effective address's low 3 bits (alignment matters).
            let new = eff.wrapping_sub(u32::from(case.offset))
                | (a.wrapping_add(u32::from(case.offset)) & 7);
            for l in c.lanes.iter_mut().skip(g * lpg).take(lpg) {
                if l.active && l.addr == *a {
                    l.addr = new;
                }
            }
        }
    }
    vec![c]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{LaneInput, WaveSize};

    fn case(groups: u32, waves: u32) -> Case {
        let geometry = Geometry {
            wave_size: WaveSize::Wave32,
            waves_per_group: waves,
            groups,
            mode: crate::case::Mode::Wgp,
        };
        let n = geometry.total_lanes();
        Case {
            pattern: "test".into(),
            index: 0,
            geometry,
            lds_bytes: 1024,
            offset: 8,
            lds_init: vec![(0..128).map(|q| q * 3 + 1).collect(); groups as usize],
            lanes: (0..n)
                .map(|i| LaneInput {
                    addr: (i as u32 % 100) * 8,
                    data: 0xdead_beef_0000_0000 | i as u64,
                    active: true,
                    vdst_init: 0x5555,
                })
                .collect(),
            more_rounds: Vec::new(),
            stress: None,
            traffic: None,
        }
    }

    #[test]
    fn shrinks_to_the_one_lane_that_matters() {
        // "Fails" whenever a lane with data low byte 77 is active in any group.
        let fails = |c: &Case| c.lanes.iter().any(|l| l.active && (l.data & 0xff) == 77);
        let start = case(2, 4);
        assert!(fails(&start));
        let m = minimize(&start, Budget::default(), fails);
        assert!(fails(&m.case));
        assert_eq!(m.case.geometry.groups, 1);
        assert_eq!(m.case.geometry.waves_per_group, 1);
        assert_eq!(m.case.lanes.iter().filter(|l| l.active).count(), 1);
        assert_eq!(m.case.offset, 0);
        let lane = m.case.lanes.iter().find(|l| l.active).unwrap();
        assert_eq!(lane.data, 77);
        assert_eq!(lane.addr, 0);
        assert_eq!(m.case.lds_bytes, 8);
        assert!(m.case.lds_init.iter().all(|g| g.iter().all(|&v| v == 0)));
        assert!(!m.stats.budget_exhausted);
        assert!(m.stats.accepted > 0 && m.stats.tries >= m.stats.accepted);
    }

    #[test]
    fn shrinks_rounds_to_the_failing_one_with_its_start() {
        // Round 5 of 8 "fails": some active lane has data 0xbad there. The
        // one-round case that isolates it must start from the LDS rounds
        // 0..5 leave: the start XOR their DATA at each lane's qword.
        let mut start = case(1, 1);
        start.more_rounds = (1..8u64)
            .map(|r| Round {
                data: (0..32u64)
                    .map(|i| if r == 5 && i == 3 { 0xbad } else { r << 8 | i })
                    .collect(),
                vdst_init: vec![0x6666; 32],
            })
            .collect();
        let round_of = |c: &Case| {
            (0..c.rounds()).find(|&r| {
                (0..c.lanes.len())
                    .any(|i| c.lanes[i].active && c.round_input(r, i).unwrap().0 == 0xbad)
            })
        };
        let fails = |c: &Case| round_of(c).is_some();
        let isolated = fewer_rounds(&start)
            .into_iter()
            .find(|c| c.rounds() == 1 && fails(c))
            .unwrap();
        // Lane 3's qword (ADDR 24 + offset 8 = qword 4) before round 5: the
        // init XOR lane 3's DATA in rounds 0..5 (no other lane shares it).
        let mut want = start.lds_init[0][4];
        for r in 0..5 {
            want ^= start.round_input(r, 3).unwrap().0;
        }
        assert_eq!(isolated.lds_init[0][4], want);
        assert_eq!(isolated.lanes[3].vdst_init, 0x6666);
        let m = minimize(&start, Budget::default(), fails);
        assert_eq!(m.case.rounds(), 1);
        assert_eq!(m.case.lanes.iter().filter(|l| l.active).count(), 1);
    }

    #[test]
    fn keeps_what_the_failure_needs() {
        // Needs two active lanes on one address in one group.
        let fails = |c: &Case| {
            let lpg = c.geometry.lanes_per_group() as usize;
            c.lanes.chunks(lpg).any(|g| {
                let mut seen = BTreeSet::new();
                g.iter().filter(|l| l.active).any(|l| !seen.insert(l.addr))
            })
        };
        let m = minimize(&case(1, 4), Budget::default(), fails);
        assert!(fails(&m.case));
        assert_eq!(m.case.lanes.iter().filter(|l| l.active).count(), 2);
    }

    /// A stress case shrunk to fewer groups and waves keeps its drawn
    /// parameters, and each kept lane the slot it had: the slots still name
    /// the lanes' places in the unpermuted layout.
    #[test]
    fn a_stress_case_keeps_its_parameters_and_its_lanes_slots() {
        use crate::gen::{generate, CaseId, Pattern};
        let id = |ordinal| CaseId {
            pattern: Pattern::Stress,
            wave: crate::case::WaveSize::Wave32,
            mode: crate::case::Mode::Wgp,
            ordinal,
        };
        let start = (0..40)
            .map(|o| generate(9, id(o), 0).case)
            .find(|c| c.geometry.groups >= 2 && c.geometry.waves_per_group >= 2)
            .expect("a stress case of several groups and waves");
        let st = start.stress.clone().expect("stress parameters");
        // "Fails" while the lane of group 1, wave 1, lane 3 is active.
        let n = start.geometry.lanes_per_group() as usize;
        let culprit = n + 32 + 3;
        let slot = st.slots[culprit];
        let data = start.lanes[culprit].data;
        let fails = |c: &Case| {
            c.lanes
                .iter()
                .zip(&c.stress.as_ref().unwrap().slots)
                .any(|(l, &s)| l.active && s == slot && l.data == data)
        };
        assert!(fails(&start));
        let m = minimize(&start, Budget::default(), fails);
        assert_eq!(
            (m.case.geometry.groups, m.case.geometry.waves_per_group),
            (1, 1)
        );
        let kept = m.case.stress.as_ref().expect("the record survives");
        assert_eq!(kept.summary(), st.summary());
        assert_eq!(kept.slots.len(), m.case.lanes.len());
        // The kept wave is group 1's wave 1: its slots are those lanes'.
        assert_eq!(kept.slots[..], st.slots[n + 32..n + 64]);
    }

    #[test]
    fn respects_the_budget() {
        let mut calls = 0u64;
        let m = minimize(
            &case(2, 4),
            Budget {
                time: Duration::from_secs(60),
                max_tries: 5,
            },
            |_| {
                calls += 1;
                true
            },
        );
        assert_eq!(calls, 5);
        assert_eq!(m.stats.tries, 5);
        assert!(m.stats.budget_exhausted);
        let m = minimize(
            &case(1, 1),
            Budget {
                time: Duration::ZERO,
                max_tries: 100,
            },
            |_| true,
        );
        assert_eq!(m.stats.tries, 0);
        assert!(m.stats.budget_exhausted);
        assert_eq!(m.case, case(1, 1));
    }
}
