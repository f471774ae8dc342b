//! Batching: which cases may share one launch of a conformance kernel
//! (`batch_key`: same kernel, geometry and LDS size class; none that may
//! fault), how many and how large a launch may grow, and running cases so
//! that a batched launch that fails as a whole blames none of its cases
//! (`run_cases`).

use std::collections::HashMap;

use super::{BatchOutcome, CaseDevice, DeviceOutcome};
use crate::backend::BackendError;
use crate::case::{calc_ds_addr16, Case, Mode, WaveSize};

/// Cases per launch on HIP unless `dsxor run --batch` says otherwise.
/// Policy (no source sizes it): 64 cases are a few hundred workgroups, a
/// fraction of a second on a GPU, and bring the default suite to about one
/// launch per 6.6 cases (docs/src/internals/performance.md, "Launches per
/// case").
pub const DEFAULT_BATCH: usize = 64;

/// Plan positions `dsxor run` generates ahead to fill batched launches:
/// compatible cases need not be neighbours (the plan interleaves sizes,
/// offsets and rounds), so launches are filled from this many cases. What
/// a window holds at once is bounded apart from its length
/// (`suite::run::WINDOW_HELD_BYTES`, [`LAUNCH_BYTES_CAP`]); measured in
/// docs/src/internals/performance.md, "Launches per case" and "Memory".
pub const BATCH_WINDOW: usize = 256;

/// A batched launch's LDS images are as large as its largest case's, and
/// every workgroup copies its image in and out, so only cases of one size
/// class share a launch: LDS bytes rounded up to a power of two, at least
/// this (a launch then copies at most twice a case's own image, or this).
/// 8 KiB: most default-suite cases are 4-8 KiB; measured against 4 KiB in
/// docs/src/internals/performance.md, "Launches per case".
pub const LDS_CLASS_FLOOR: u32 = 8192;

/// What must agree between the cases of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchKey {
    pub wave: WaveSize,
    /// Picks the object (CU or WGP mode).
    pub mode: Mode,
    pub waves_per_group: u32,
    pub rounds: usize,
    /// Picks the kernel (shipped or patched).
    pub offset: u16,
    pub lds: LdsFit,
    /// Picks the traffic kernels (a case with background traffic).
    pub traffic: bool,
}

/// The dynamic LDS a case may be launched with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdsFit {
    /// Every active access is aligned and ends inside the case's own
    /// `lds_bytes`: a larger allocation changes nothing it does, so it may
    /// share a launch sized for the largest case of its class.
    Class(u32),
    /// Some access reaches past `lds_bytes` (into the allocation granule's
    /// slack, or out of range): the allocation decides what it sees, so it
    /// shares a launch only with cases of exactly this size.
    Exact(u32),
}

/// How `case` may share a launch; `None`: it runs alone. Alone are cases
/// that may fault (an active lane misaligned: MEMVIOL ends the whole
/// launch) and malformed cases (shapes that do not match the geometry,
/// which `model::validate_case` rejects with its own message).
pub fn batch_key(case: &Case) -> Option<BatchKey> {
    let g = &case.geometry;
    let rounds = case.rounds();
    let lanes = g.groups as usize * g.lanes_per_group() as usize;
    let q = case.lds_qwords();
    if g.groups == 0
        || case.lanes.len() != lanes
        || !case.lds_bytes.is_multiple_of(8)
        || case.lds_init.len() != g.groups as usize
        || case.lds_init.iter().any(|img| img.len() != q)
        || case
            .more_rounds
            .iter()
            .any(|r| r.data.len() != lanes || r.vdst_init.len() != lanes)
        || case
            .traffic
            .as_ref()
            .is_some_and(|t| t.lanes.len() != lanes || t.spin.len() != lanes)
    {
        return None;
    }
    let mut contained = true;
    for l in case.lanes.iter().filter(|l| l.active) {
        let a = calc_ds_addr16(l.addr, case.offset);
        if !a.is_multiple_of(8) {
            return None;
        }
        contained &= a + 8 <= u64::from(case.lds_bytes);
    }
    let lds = if contained {
        LdsFit::Class(
            case.lds_bytes
                .max(1)
                .next_power_of_two()
                .max(LDS_CLASS_FLOOR),
        )
    } else {
        LdsFit::Exact(case.lds_bytes)
    };
    Some(BatchKey {
        wave: g.wave_size,
        mode: g.mode,
        waves_per_group: g.waves_per_group,
        rounds,
        offset: case.offset,
        lds,
        traffic: case.traffic.is_some(),
    })
}

/// Bytes of ABI buffers one launch allocates at most (what
/// [`dispatch_for_batch`] builds: per lane ADDR and EXEC, DATA and RET per
/// lane and round, LDS in and out per workgroup), unless a single case
/// needs more (it then runs alone). Policy (no source sizes it): the
/// buffers are copied to the device and back and, in a worker process,
/// travel the pipe both ways, so a launch's size bounds every process's
/// memory whatever the case mix (the largest default-suite batches of 64
/// were 13.6 MB of buffers; the largest case is about 0.6 MB). 4 MiB keeps
/// a worker through the software HIP runtime under 64 MiB and costs the
/// default suite 12 % more launches (0.095 to 0.106 per case on 24,000
/// cases); measured in docs/src/internals/performance.md, "Memory".
pub const LAUNCH_BYTES_CAP: usize = 4 << 20;

/// What a case adds to a launch's buffers (see [`LAUNCH_BYTES_CAP`]):
/// its per-lane bytes, its workgroups and its own LDS image (a launch's
/// images are all as large as its largest case's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShare {
    /// ADDR and EXEC (4 bytes each) per lane, DATA and RET (8 each) per
    /// lane and round.
    pub lane_bytes: usize,
    pub groups: usize,
    pub lds_qwords: usize,
}

impl LaunchShare {
    pub fn of(case: &Case) -> LaunchShare {
        let n = case.lanes.len();
        LaunchShare {
            // The traffic kernels' ctl (4 bytes) and verdict (16) per lane.
            lane_bytes: n * 8
                + n * case.rounds() * 16
                + if case.traffic.is_some() { n * 20 } else { 0 },
            groups: case.geometry.groups as usize,
            lds_qwords: case.lds_qwords(),
        }
    }
}

/// A launch's buffer bytes: its cases' lane bytes plus LDS in and out for
/// every workgroup at the largest image.
fn launch_bytes(lane_bytes: usize, groups: usize, lds_qwords: usize) -> usize {
    lane_bytes.saturating_add(groups.saturating_mul(lds_qwords).saturating_mul(16))
}

/// Split `cases` into launches: cases with equal [`BatchKey`]s share one,
/// at most `cap` per launch and at most [`LAUNCH_BYTES_CAP`] of buffers
/// (a case that would pass it starts a new launch), each launch's cases in
/// the order given; launches in the order of their first case. A case
/// without a key, or a `cap` of 1, is a launch of its own.
pub fn launch_groups(cases: &[&Case], cap: usize) -> Vec<Vec<usize>> {
    let keyed: Vec<_> = cases
        .iter()
        .map(|c| {
            let key = if cap > 1 { batch_key(c) } else { None };
            (key, LaunchShare::of(c))
        })
        .collect();
    launch_groups_of(&keyed, cap)
}

/// [`launch_groups`] over each case's batch key and share alone (`None`:
/// it runs alone), for callers that do not hold every case at once.
pub fn launch_groups_of(cases: &[(Option<BatchKey>, LaunchShare)], cap: usize) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // The open (not yet full) launch of each key, and its share so far.
    let mut open: HashMap<BatchKey, (usize, LaunchShare)> = HashMap::new();
    for (i, &(key, share)) in cases.iter().enumerate() {
        let key = if cap > 1 { key } else { None };
        let joined = key.and_then(|k| open.get(&k).copied()).map(|(at, s)| {
            (
                at,
                LaunchShare {
                    lane_bytes: s.lane_bytes + share.lane_bytes,
                    groups: s.groups + share.groups,
                    lds_qwords: s.lds_qwords.max(share.lds_qwords),
                },
            )
        });
        match (key, joined) {
            (Some(k), Some((at, s)))
                if launch_bytes(s.lane_bytes, s.groups, s.lds_qwords) <= LAUNCH_BYTES_CAP =>
            {
                groups[at].push(i);
                if groups[at].len() >= cap {
                    open.remove(&k);
                } else {
                    open.insert(k, (at, s));
                }
            }
            _ => {
                if let Some(k) = key {
                    open.insert(k, (groups.len(), share));
                }
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// Run `cases` on `device`, cases that may share a launch sharing one (at
/// most `device.batch_cap()` per launch), and return each case's outcome,
/// in order: the same outcomes as running each alone.
///
/// Policy for a batched launch that faults or times out (or fails for the
/// environment): no case in it is blamed. Its cases run again one per
/// launch, in order, and each gets the outcome of its own launch, so a
/// fault is attributed to the case that causes it, exactly as without
/// batching, and a slow batch costs time, never a verdict.
pub fn run_cases(
    device: &mut dyn CaseDevice,
    cases: &[&Case],
) -> Vec<Result<DeviceOutcome, BackendError>> {
    let mut out: Vec<Option<Result<DeviceOutcome, BackendError>>> =
        (0..cases.len()).map(|_| None).collect();
    for group in launch_groups(cases, device.batch_cap()) {
        let members: Vec<&Case> = group.iter().map(|&i| cases[i]).collect();
        for (&i, o) in group.iter().zip(run_launch(device, &members)) {
            out[i] = Some(o);
        }
    }
    out.into_iter()
        .map(|o| o.unwrap_or_else(|| Err(BackendError::Environment("a case was not run".into()))))
        .collect()
}

/// Run one launch group of [`launch_groups`] (one case: its own launch;
/// more: one batched launch, rerun one per launch if it fails as a whole,
/// the policy of [`run_cases`]); each case's outcome, in order.
pub fn run_launch(
    device: &mut dyn CaseDevice,
    cases: &[&Case],
) -> Vec<Result<DeviceOutcome, BackendError>> {
    if let [case] = cases {
        return vec![device.run_case(case)];
    }
    match device.run_batch(cases) {
        Ok(BatchOutcome::Each(outcomes)) if outcomes.len() == cases.len() => {
            outcomes.into_iter().map(Ok).collect()
        }
        _ => cases.iter().map(|c| device.run_case(c)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::backend::conformance::{dispatch_for_batch, test_case as case};

    #[test]
    fn launches_stay_under_the_byte_cap_whatever_the_cases() {
        // A large contained case: 2 groups of 32 lanes, 16 rounds, 32 KiB
        // of LDS each (LDS in and out: 128 KiB a case), 64 of one key.
        let mut big = case();
        big.offset = 0;
        big.lds_bytes = 32 << 10;
        big.lds_init = vec![vec![5; 4096]; 2];
        for l in &mut big.lanes {
            l.addr %= 256;
        }
        big.more_rounds = (1..16)
            .map(|_| crate::case::Round {
                data: vec![3; 64],
                vdst_init: vec![4; 64],
            })
            .collect();
        let cases = vec![big; 64];
        let refs: Vec<&Case> = cases.iter().collect();
        let groups = launch_groups(&refs, 64);
        assert!(groups.len() > 1, "{groups:?}");
        for g in &groups {
            let members: Vec<&Case> = g.iter().map(|&i| refs[i]).collect();
            let d = dispatch_for_batch(&members, b"", "k", Duration::from_secs(1));
            let bytes: usize = d.buffers.iter().map(Vec::len).sum();
            // The cap counts exactly the buffers a launch allocates.
            let s = members
                .iter()
                .map(|c| LaunchShare::of(c))
                .fold((0, 0, 0), |(l, g, q), s| {
                    (l + s.lane_bytes, g + s.groups, q.max(s.lds_qwords))
                });
            assert_eq!(bytes, launch_bytes(s.0, s.1, s.2));
            assert!(bytes <= LAUNCH_BYTES_CAP, "{bytes}");
        }
        // Full launches, in order, every case once.
        assert_eq!(
            groups[0].len(),
            LAUNCH_BYTES_CAP / launch_bytes(LaunchShare::of(refs[0]).lane_bytes, 2, 4096)
        );
        let flat: Vec<usize> = groups.concat();
        assert_eq!(flat, (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn launch_groups_keep_incompatible_and_faulting_cases_apart() {
        let mut a = case(); // 16 bytes of LDS, lanes at 0..=504: out of range
        a.geometry.groups = 2;
        let mut contained = a.clone();
        contained.lds_bytes = 512;
        contained.lds_init = vec![vec![0; 64]; 2];
        for l in &mut contained.lanes {
            l.addr %= 256;
        }
        contained.offset = 0;
        let mut misaligned = contained.clone();
        misaligned.lanes[0].addr = 4;
        let mut other_size = contained.clone();
        other_size.lds_bytes = 16384; // another class
        other_size.lds_init = vec![vec![0; 2048]; 2];
        assert_eq!(batch_key(&a).map(|k| k.lds), Some(LdsFit::Exact(16)));
        assert_eq!(
            batch_key(&contained).map(|k| k.lds),
            Some(LdsFit::Class(LDS_CLASS_FLOOR))
        );
        assert_eq!(batch_key(&misaligned), None);
        let cases = [
            &contained,
            &a,
            &contained,
            &misaligned,
            &other_size,
            &contained,
            &a,
        ];
        assert_eq!(
            launch_groups(&cases, 64),
            vec![vec![0, 2, 5], vec![1, 6], vec![3], vec![4]]
        );
        assert_eq!(
            launch_groups(&cases, 2),
            vec![vec![0, 2], vec![1, 6], vec![3], vec![4], vec![5]]
        );
        assert_eq!(launch_groups(&cases, 1).len(), cases.len());
    }
}
