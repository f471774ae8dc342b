//! Background LDS traffic and a spin before the atomic, for `stress` cases
//! (docs/src/guide/conformance-runs.md, "Stress").
//!
//! Drawn after the case's pattern and rounds, from a stream of its own
//! (`CaseRng::with_domain`), as rounds are: a stress case drawn without
//! traffic is byte for byte the case generator version 5 made (same
//! digest), and one drawn with it keeps everything but what traffic takes
//! over: its traffic waves' lanes (inactive for the atomic, each on a
//! qword of its own) and, when the allocation was too small for them, more
//! LDS (random qwords appended to every group's image).

use crate::case::{Case, Traffic};

use super::pattern::{CaseId, Pattern, LDS_MAX_BYTES};
use super::rng::CaseRng;

/// Key domain of the traffic stream (`CaseRng::with_domain`): "traffic".
const TRAFFIC_DOMAIN: u64 = u64::from_le_bytes(*b"traffic\0");

/// One stress case in `TRAFFIC_EVERY` runs without traffic or spin (on the
/// kernel every stress case ran on before), the others with them.
pub const TRAFFIC_EVERY: u64 = 2;

/// Most `s_sleep 1` iterations a lane spins before the atomic. Policy (no
/// source sizes it): `s_sleep 1` waits about 64 clocks (RDNA3 ISA guide,
/// "S_SLEEP": 64 * SIMM16[6:0] clocks), so up to 32 of them spread a
/// group's waves over about 2,000 clocks, longer than one round of a
/// contended atomic takes, while keeping the case short.
pub const SPIN_CEILING: u32 = 32;

/// Give stress case `id` of the run with `seed` its background traffic and
/// spin, if it draws them; other families are left alone.
pub fn add_traffic(case: &mut Case, seed: u64, id: &CaseId) {
    if id.pattern != Pattern::Stress {
        return;
    }
    let mut rng = CaseRng::with_domain(seed, TRAFFIC_DOMAIN, id.stream());
    if rng.below(TRAFFIC_EVERY) == 0 {
        return;
    }
    let g = case.geometry;
    let wl = g.wave_size.lanes() as usize;
    let waves = g.waves_per_group as usize;
    let lpg = wl * waves;
    let groups = g.groups as usize;
    if case.lanes.len() != lpg * groups || case.lds_init.len() != groups {
        return;
    }
    // Up to half the group's waves run traffic (none with one wave: spin
    // only), so most contention stays.
    let t = rng.range(0, (waves / 2) as u64) as usize;
    let spin_max = rng.range_u32(1, SPIN_CEILING);
    let lo = usize::from(case.offset).div_ceil(8);
    let mut roles = vec![false; case.lanes.len()];
    let mut chosen: Vec<Vec<usize>> = Vec::with_capacity(groups);
    for gi in 0..groups {
        let mut order: Vec<usize> = (0..waves).collect();
        rng.shuffle(&mut order);
        order.truncate(t);
        order.sort_unstable();
        for &w in &order {
            let start = gi * lpg + w * wl;
            roles[start..start + wl].iter_mut().for_each(|r| *r = true);
        }
        chosen.push(order);
    }
    // Each traffic lane needs a qword no other lane of its group addresses:
    // grow the allocation (within the 64 KiB limit) when it has too few.
    let q = case.lds_qwords();
    let used: Vec<std::collections::BTreeSet<usize>> = (0..groups)
        .map(|gi| {
            (gi * lpg..(gi + 1) * lpg)
                .filter(|&i| !roles[i])
                .map(|i| {
                    (crate::case::calc_ds_addr16(case.lanes[i].addr, case.offset) / 8) as usize
                })
                .collect()
        })
        .collect();
    let free_least = used
        .iter()
        .map(|u| q.saturating_sub(lo).saturating_sub(u.range(lo..).count()))
        .min()
        .unwrap_or(0);
    let need = t * wl;
    let grown = (q + need.saturating_sub(free_least)).min(LDS_MAX_BYTES as usize / 8);
    if grown > q {
        for img in &mut case.lds_init {
            img.extend((q..grown).map(|_| rng.next_u64()));
        }
        case.lds_bytes = (grown * 8) as u32;
    }
    for (gi, u) in used.iter().enumerate() {
        let mut free: Vec<usize> = (lo..grown).filter(|x| !u.contains(x)).collect();
        rng.shuffle(&mut free);
        let mut free = free.into_iter();
        for &w in &chosen[gi] {
            let wave = gi * lpg + w * wl..gi * lpg + (w + 1) * wl;
            for (role, l) in roles[wave.clone()].iter_mut().zip(&mut case.lanes[wave]) {
                let Some(qw) = free.next() else {
                    // Cannot happen (the allocation grew to fit); a lane
                    // without a qword of its own stays an atomic lane.
                    *role = false;
                    continue;
                };
                l.addr = ((qw * 8) as u32).wrapping_sub(u32::from(case.offset));
                l.active = false;
            }
        }
    }
    let spin = roles
        .iter()
        .map(|&r| {
            if r {
                0
            } else {
                rng.range_u32(0, spin_max) as u16
            }
        })
        .collect();
    let traffic = Traffic { lanes: roles, spin };
    if let Some(s) = case.stress.as_mut() {
        s.traffic_lanes = traffic.traffic_lanes() as u32;
        s.spin_max = spin_max;
    }
    case.traffic = Some(traffic);
}
