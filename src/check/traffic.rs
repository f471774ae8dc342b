//! The background traffic's judgement: a `stress` case's traffic lanes
//! (`gen::traffic`) report their own loads, and own qwords no atomic lane
//! may touch.

use crate::case::{Case, Observation, Traffic};
use crate::model::calc_ds_addr16;

use super::{Finding, FindingKind, LaneRef};

/// The background traffic's own verdict: every lane's count of loads that
/// did not return its own store (the kernel writes 0 for atomic lanes, so
/// a nonzero count anywhere is a finding), and every traffic qword's final
/// value against its initial one (the traffic restores it each round). A
/// changed traffic qword is reported as a stray write, not also as an
/// untouched qword that changed: `UntouchedChanged` findings of a group
/// are dropped when every changed qword no active lane addressed there is
/// a traffic qword.
pub(super) fn judge_traffic(
    case: &Case,
    t: &Traffic,
    o: &Observation,
    findings: &mut Vec<Finding>,
) {
    let ws = case.geometry.wave_size.lanes() as usize;
    let per_group = (case.geometry.lanes_per_group() as usize).max(1);
    let lane_ref = |i: usize| LaneRef {
        index: i,
        wave: ((i % per_group) / ws.max(1)) as u32,
        lane: ((i % per_group) % ws.max(1)) as u32,
    };
    for (i, &[count, value]) in o.traffic_verdicts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let traffic = t.is_traffic(i);
        let l = case.lanes.get(i);
        findings.push(Finding {
            kind: FindingKind::TrafficRead,
            group: (i / per_group) as u32,
            address: l
                .filter(|_| traffic)
                .map(|l| calc_ds_addr16(l.addr, case.offset)),
            lanes: vec![lane_ref(i)],
            why: if traffic {
                format!(
                    "a traffic lane's loads of its own qword returned {count} values it had not stored (the first {value:#x})"
                )
            } else {
                format!(
                    "an atomic lane's traffic verdict is {count} (first {value:#x}), not the 0 the kernel writes: it was never written"
                )
            },
        });
    }
    let mut stray_groups = Vec::new();
    for g in 0..case.geometry.groups as usize {
        let (Some(init), Some(fin)) = (case.lds_init.get(g), o.lds_final.get(g)) else {
            continue;
        };
        let lanes = (g * per_group..(g + 1) * per_group).filter(|&i| i < case.lanes.len());
        let mut owned = std::collections::BTreeMap::new();
        let mut atomic = std::collections::BTreeSet::new();
        for i in lanes {
            let l = &case.lanes[i];
            let q = calc_ds_addr16(l.addr, case.offset) / 8;
            if t.is_traffic(i) {
                owned.insert(q, i);
            } else if l.active {
                atomic.insert(q);
            }
        }
        let mut all_changed_owned = true;
        for (q, (s, f)) in init.iter().zip(fin).enumerate() {
            let q = q as u64;
            if s == f || atomic.contains(&q) {
                continue;
            }
            match owned.get(&q) {
                Some(&i) => findings.push(Finding {
                    kind: FindingKind::TrafficStrayWrite,
                    group: g as u32,
                    address: Some(q * 8),
                    lanes: vec![lane_ref(i)],
                    why: format!(
                        "a traffic lane owns this qword and restores it every round, yet it changed from {s:#x} to {f:#x}: a stray write"
                    ),
                }),
                None => all_changed_owned = false,
            }
        }
        if all_changed_owned {
            stray_groups.push(g as u32);
        }
    }
    findings
        .retain(|f| !(f.kind == FindingKind::UntouchedChanged && stray_groups.contains(&f.group)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{judge, DeviceOutcome};
    use crate::model::Policy;

    /// A two-group case with background traffic: per group, wave 0's 32
    /// lanes each XOR a qword of their own (qwords 2..34 with the offset
    /// of 16 bytes), wave 1's 32 lanes are traffic lanes owning qwords
    /// 42..74; the rest of the 128 qwords nobody addresses. With it, the
    /// observation of a correct device: each atomic lane returns its
    /// qword's start, traffic lanes keep their VDST, every traffic verdict
    /// is 0 and every traffic qword ends as it started.
    fn traffic_case() -> (Case, Observation) {
        use crate::case::{Geometry, LaneInput, Mode, WaveSize};
        let (groups, per_group, qwords) = (2usize, 64usize, 128usize);
        let offset = 16u16;
        let init: Vec<Vec<u64>> = (0..groups)
            .map(|g| {
                (0..qwords as u64)
                    .map(|q| 0x1111_0000_0000_0000 * (g as u64 + 1) + q * 0x0101)
                    .collect()
            })
            .collect();
        let mut lanes = Vec::new();
        let mut roles = Vec::new();
        for g in 0..groups {
            for i in 0..per_group {
                let traffic = i >= 32;
                let qword = if traffic { 8 + i } else { i } as u32;
                lanes.push(LaneInput {
                    addr: qword * 8,
                    data: (0x9e37_79b9_7f4a_7c15u64 ^ (g * per_group + i) as u64) | 1,
                    active: !traffic,
                    vdst_init: 0xdead_0000 + (g * per_group + i) as u64,
                });
                roles.push(traffic);
            }
        }
        let case = Case {
            pattern: "stress".into(),
            index: 0,
            geometry: Geometry {
                wave_size: WaveSize::Wave32,
                waves_per_group: 2,
                groups: groups as u32,
                mode: Mode::Wgp,
            },
            lds_bytes: (qwords * 8) as u32,
            offset,
            lds_init: init.clone(),
            lanes,
            more_rounds: Vec::new(),
            stress: None,
            traffic: Some(Traffic {
                spin: vec![3; roles.len()],
                lanes: roles,
            }),
        };
        let mut fin = init.clone();
        let ret = case
            .lanes
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if !l.active {
                    return l.vdst_init;
                }
                let q = (calc_ds_addr16(l.addr, offset) / 8) as usize;
                fin[i / per_group][q] ^= l.data;
                init[i / per_group][q]
            })
            .collect();
        let obs = Observation {
            ret,
            lds_final: fin,
            traffic_verdicts: vec![[0, 0]; case.lanes.len()],
        };
        (case, obs)
    }

    fn findings(case: &Case, obs: &Observation) -> Vec<Finding> {
        judge(case, DeviceOutcome::Completed(obs), &Policy::default())
            .unwrap()
            .findings
    }

    #[test]
    fn a_clean_traffic_observation_has_no_finding() {
        let (case, obs) = traffic_case();
        assert_eq!(findings(&case, &obs), Vec::new());
    }

    #[test]
    fn a_traffic_lane_reading_what_it_did_not_store_is_a_traffic_read() {
        let (case, mut obs) = traffic_case();
        // Group 1, wave 1, lane 5: a traffic lane, on qword 47.
        let i = 64 + 32 + 5;
        obs.traffic_verdicts[i] = [3, 0xbad];
        let f = findings(&case, &obs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].kind, FindingKind::TrafficRead);
        assert_eq!(f[0].group, 1);
        assert_eq!(f[0].address, Some(47 * 8));
        assert_eq!(
            f[0].lanes,
            vec![LaneRef {
                index: i,
                wave: 1,
                lane: 5
            }]
        );
        assert!(
            f[0].why.contains("3 values") && f[0].why.contains("0xbad"),
            "{}",
            f[0].why
        );
        // An atomic lane's verdict must stay the kernel's 0: nonzero is a
        // finding too, without an address (the lane owns no traffic qword).
        let (case, mut obs) = traffic_case();
        obs.traffic_verdicts[7] = [1, 0];
        let f = findings(&case, &obs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            (f[0].kind, f[0].group, f[0].address),
            (FindingKind::TrafficRead, 0, None)
        );
        assert_eq!(
            f[0].lanes,
            vec![LaneRef {
                index: 7,
                wave: 0,
                lane: 7
            }]
        );
    }

    #[test]
    fn a_changed_traffic_qword_is_a_stray_write_not_an_untouched_change() {
        let (case, mut obs) = traffic_case();
        // Group 0's traffic qword 44 (lane 34's) gets a stray XOR.
        obs.lds_final[0][44] ^= 0x40;
        let f = findings(&case, &obs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].kind, FindingKind::TrafficStrayWrite);
        assert_eq!((f[0].group, f[0].address), (0, Some(44 * 8)));
        assert_eq!(
            f[0].lanes,
            vec![LaneRef {
                index: 34,
                wave: 1,
                lane: 2
            }]
        );
        // Without traffic the same image is an untouched qword that changed:
        // the replacement above is the traffic judge's, not the main one's.
        let mut plain = case.clone();
        plain.traffic = None;
        let p = findings(
            &plain,
            &Observation {
                traffic_verdicts: Vec::new(),
                ..obs.clone()
            },
        );
        assert_eq!(
            p.iter().map(|f| f.kind).collect::<Vec<_>>(),
            vec![FindingKind::UntouchedChanged]
        );
    }

    #[test]
    fn an_untouched_change_outside_traffic_qwords_stays_reported() {
        let (case, mut obs) = traffic_case();
        // Group 0: only a traffic qword changed (replaced by the stray
        // write). Group 1: a traffic qword and qword 100, which no lane
        // addresses, changed: the group keeps its untouched-changed.
        obs.lds_final[0][50] ^= 1;
        obs.lds_final[1][45] ^= 2;
        obs.lds_final[1][100] ^= 4;
        let mut f: Vec<(FindingKind, u32, Option<u64>)> = findings(&case, &obs)
            .iter()
            .map(|f| (f.kind, f.group, f.address))
            .collect();
        f.sort_by_key(|&(k, g, a)| (g, a, k.name()));
        assert_eq!(
            f,
            vec![
                (FindingKind::TrafficStrayWrite, 0, Some(50 * 8)),
                (FindingKind::TrafficStrayWrite, 1, Some(45 * 8)),
                (FindingKind::UntouchedChanged, 1, Some(45 * 8)),
            ]
        );
    }
}
