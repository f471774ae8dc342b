//! The soak kernel's launches: one seeded layout per launch (which lane
//! updates which qword with which DATA, which lanes are active), the DATA
//! chosen so that the kernel can check every return by itself
//! (docs/src/internals/kernel-abi.md, "Soak kernel"), and the same layout as
//! a multi-round conformance [`Case`], so a failing launch can be replayed
//! and minimized like any case.
//!
//! DATA: the lanes of a workgroup that share a qword (at most 32) have
//! ranks 0..k; a lane's DATA has low dword `1 << rank` and high dword
//! `rotl32(low, rot)`. Every value the qword can hold is then an XOR of a
//! subset of those DATA, and a return names exactly which lanes' updates it
//! contains. `bad` is the complement of the low dword of M, the XOR of the
//! DATA of the qword's active lanes: an inactive lane's bit, or any bit of
//! a rank nobody holds, may never show.

use crate::case::{Case, Geometry, LaneInput, Mode, Round, WaveSize};

use super::rng::CaseRng;

/// The soak kernel's instruction offset, `{offset1 = 16, offset0 = 0}`:
/// one of the conformance kernels' shipped offsets, so a launch replays as a
/// case on `dsxor_conformance_rounds_off4096` with the same ADDR, and a
/// device that drops offset1 lands 512 qwords low, in LDS no lane names.
pub const SOAK_OFFSET: u16 = 4096;

/// Qwords below the first one a lane may target: ADDR = target - offset
/// must not be negative.
const BASE_QWORDS: u32 = SOAK_OFFSET as u32 / 8;

/// Key domain of the soak layouts' streams (`CaseRng::with_domain`):
/// "soakkern", apart from every conformance case's stream.
const SOAK_DOMAIN: u64 = u64::from_le_bytes(*b"soakkern");

/// At most this many lanes share a qword: their ranks index the 32 bits of
/// the low dword.
pub const MAX_SHARERS: usize = 32;

/// The work-items of a workgroup, at most (AMDGPUUsage.rst, "flat
/// workgroup size"; the kernels' `.max_flat_workgroup_size` 1024).
const MAX_GROUP_LANES: u32 = 1024;

/// Policy: about this many lanes per launch, spread over up to 8 groups,
/// so the software device's host threads each get a group and a launch's
/// fixed cost (zeroing and dumping LDS, the host check) stays small
/// beside its rounds.
const LAUNCH_LANES: u32 = 2048;

/// One launch of the soak kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoakLayout {
    pub geometry: Geometry,
    /// Qwords of LDS per group (the dynamic allocation is 8 × this).
    pub lds_qwords: u32,
    /// Round pairs: every active lane issues `2 * pairs + 1` instructions.
    pub pairs: u32,
    /// The rotation between DATA's dwords: 1..=31, never 16 (a dword swap
    /// of rotl(lo, 16) is itself).
    pub rot: u32,
    /// Per lane, group-major (as `Case::lanes`).
    pub addr: Vec<u32>,
    pub data: Vec<u64>,
    pub bad: Vec<u32>,
    pub active: Vec<bool>,
    /// Per group, the LDS the launch must leave: M at every qword in use
    /// (the round count is odd), 0 elsewhere.
    pub final_lds: Vec<Vec<u64>>,
}

/// `rotl32(lo, rot)` in the high dword over `lo`.
pub fn soak_data(lo: u32, rot: u32) -> u64 {
    (u64::from(lo.rotate_left(rot)) << 32) | u64::from(lo)
}

impl SoakLayout {
    /// The layout of launch `launch` of the soak seeded `seed`, in `wave`
    /// and `mode`, `pairs` round pairs. The same on every machine.
    pub fn generate(seed: u64, launch: u64, wave: WaveSize, mode: Mode, pairs: u32) -> SoakLayout {
        // Stream: the launch, with the wave and mode in its top bits.
        let stream = (launch & (u64::MAX >> 2))
            | (u64::from(wave == WaveSize::Wave64) << 63)
            | (u64::from(mode == Mode::Wgp) << 62);
        let mut rng = CaseRng::with_domain(seed, SOAK_DOMAIN, stream);
        let lanes = wave.lanes();
        // Waves per group: 1 to the most a 1,024-item group holds.
        let max_waves = MAX_GROUP_LANES / lanes;
        let waves_per_group = match rng.below(4) {
            0 => 1,
            1 => rng.range_u32(2, 4),
            2 => rng.range_u32(5, max_waves),
            _ => max_waves,
        };
        let per_group = waves_per_group * lanes;
        let groups = (LAUNCH_LANES / per_group).clamp(1, 8);
        let rot = {
            let r = rng.range_u32(1, 30);
            if r >= 16 {
                r + 1
            } else {
                r
            }
        };
        // Inactive lanes: none in half the launches, else 1 in 2..16.
        let inactive_one_in = match rng.below(2) {
            0 => None,
            _ => Some(rng.range(2, 16)),
        };
        // One LDS size for the launch: the largest group need.
        let mut groups_lanes = Vec::with_capacity(groups as usize);
        let mut span = 0u32;
        for _ in 0..groups {
            let g = group_layout(&mut rng, per_group, inactive_one_in);
            span = span.max(g.span);
            groups_lanes.push(g);
        }
        // One qword past the span, so a write past the last qword in use
        // still lands in LDS the host reads back.
        let lds_qwords = BASE_QWORDS + span + 1;
        let n = (groups * per_group) as usize;
        let mut layout = SoakLayout {
            geometry: Geometry {
                wave_size: wave,
                waves_per_group,
                groups,
                mode,
            },
            lds_qwords,
            pairs,
            rot,
            addr: Vec::with_capacity(n),
            data: Vec::with_capacity(n),
            bad: Vec::with_capacity(n),
            active: Vec::with_capacity(n),
            final_lds: Vec::with_capacity(groups as usize),
        };
        for g in groups_lanes {
            let mut m = vec![0u32; span as usize];
            for l in &g.lanes {
                if l.active {
                    m[l.slot as usize] ^= 1 << l.rank;
                }
            }
            for l in &g.lanes {
                let target = (BASE_QWORDS + l.slot) * 8;
                layout.addr.push(target - u32::from(SOAK_OFFSET));
                layout.data.push(soak_data(1 << l.rank, rot));
                layout.bad.push(!m[l.slot as usize]);
                layout.active.push(l.active);
            }
            let mut lds = vec![0u64; lds_qwords as usize];
            for (slot, &lo) in m.iter().enumerate() {
                lds[(BASE_QWORDS as usize) + slot] = soak_data(lo, rot);
            }
            layout.final_lds.push(lds);
        }
        layout
    }

    /// Instructions every active lane issues.
    pub fn rounds(&self) -> u64 {
        2 * u64::from(self.pairs) + 1
    }

    /// Lane-operations the launch checks: active lanes × rounds.
    pub fn lane_ops(&self) -> u64 {
        self.active.iter().filter(|&&a| a).count() as u64 * self.rounds()
    }

    /// Lane-operations on a qword another active lane also updates (what
    /// `gen::odds` sizes a claim by).
    pub fn contended_lane_ops(&self) -> u64 {
        let per_group = self.geometry.lanes_per_group() as usize;
        let mut ops = 0u64;
        for g in 0..self.geometry.groups as usize {
            let range = g * per_group..(g + 1) * per_group;
            let mut count = std::collections::HashMap::<u32, u64>::new();
            for i in range.clone() {
                if self.active[i] {
                    *count.entry(self.addr[i]).or_default() += 1;
                }
            }
            ops += count.values().filter(|&&c| c > 1).sum::<u64>();
        }
        ops * self.rounds()
    }

    /// The launch as a conformance case of `rounds` rounds (the same
    /// lanes, ADDR, offset, DATA and EXEC in every round; LDS zeroed), for
    /// the conformance kernels with rounds to replay and the model to
    /// judge. `vdst_seed` draws the VDST-before values.
    pub fn to_case(&self, rounds: usize, vdst_seed: u64) -> Case {
        let mut rng = CaseRng::with_domain(vdst_seed, SOAK_DOMAIN, u64::MAX);
        let lanes = (0..self.addr.len())
            .map(|i| LaneInput {
                addr: self.addr[i],
                data: self.data[i],
                active: self.active[i],
                vdst_init: rng.next_u64(),
            })
            .collect();
        let more_rounds = (1..rounds.max(1))
            .map(|_| Round {
                data: self.data.clone(),
                vdst_init: (0..self.addr.len()).map(|_| rng.next_u64()).collect(),
            })
            .collect();
        Case {
            pattern: "soak-kernel".into(),
            index: 0,
            geometry: self.geometry,
            lds_bytes: self.lds_qwords * 8,
            offset: SOAK_OFFSET,
            lds_init: vec![vec![0; self.lds_qwords as usize]; self.geometry.groups as usize],
            lanes,
            more_rounds,
            stress: None,
            traffic: None,
        }
    }
}

struct GroupLane {
    slot: u32,
    rank: u32,
    active: bool,
}

struct GroupLayout {
    /// Per lane of the group, in lane order.
    lanes: Vec<GroupLane>,
    /// Qword slots the group's targets lie in (`0..span`).
    span: u32,
}

/// One group: lanes permuted, cut into sets of a drawn contention level
/// (lone lanes, pairs, a few, up to 32), each set on its own qword, the
/// qwords scattered over a span half again as large as the set count, so
/// some neighbours are in use and some are free.
fn group_layout(rng: &mut CaseRng, per_group: u32, inactive_one_in: Option<u64>) -> GroupLayout {
    let mut order: Vec<u32> = (0..per_group).collect();
    rng.shuffle(&mut order);
    let mut sets: Vec<&[u32]> = Vec::new();
    let mut rest = order.as_slice();
    while !rest.is_empty() {
        let k = match rng.below(10) {
            0..=2 => 1,
            3..=4 => 2,
            5..=6 => rng.range(3, 8),
            7..=8 => rng.range(9, MAX_SHARERS as u64),
            _ => MAX_SHARERS as u64,
        } as usize;
        let (set, tail) = rest.split_at(k.min(rest.len()));
        sets.push(set);
        rest = tail;
    }
    let span = (sets.len() as u32 * 3).div_ceil(2).max(1);
    let mut slots: Vec<u32> = (0..span).collect();
    rng.shuffle(&mut slots);
    let mut lanes: Vec<Option<GroupLane>> = (0..per_group).map(|_| None).collect();
    for (set, &slot) in sets.iter().zip(&slots) {
        for (rank, &lane) in set.iter().enumerate() {
            let active = match inactive_one_in {
                Some(n) => !rng.chance(1, n),
                None => true,
            };
            lanes[lane as usize] = Some(GroupLane {
                slot,
                rank: rank as u32,
                active,
            });
        }
    }
    GroupLayout {
        lanes: lanes.into_iter().flatten().collect(),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layouts() -> impl Iterator<Item = SoakLayout> {
        (0..40u64).flat_map(|k| {
            [WaveSize::Wave32, WaveSize::Wave64]
                .into_iter()
                .flat_map(move |w| Mode::BOTH.map(|m| SoakLayout::generate(7, k, w, m, 3)))
        })
    }

    #[test]
    fn every_lane_has_a_distinct_bit_at_its_qword_and_m_matches() {
        for l in layouts() {
            let per_group = l.geometry.lanes_per_group() as usize;
            assert_eq!(l.addr.len(), per_group * l.geometry.groups as usize);
            assert!(per_group <= 1024);
            for g in 0..l.geometry.groups as usize {
                let mut seen = std::collections::HashMap::<u32, u32>::new();
                let mut m = std::collections::HashMap::<u32, u64>::new();
                for i in g * per_group..(g + 1) * per_group {
                    let lo = l.data[i] as u32;
                    assert_eq!(lo.count_ones(), 1);
                    assert_eq!((l.data[i] >> 32) as u32, lo.rotate_left(l.rot));
                    let bits = seen.entry(l.addr[i]).or_default();
                    assert_eq!(*bits & lo, 0, "two lanes with one bit at a qword");
                    *bits |= lo;
                    if l.active[i] {
                        *m.entry(l.addr[i]).or_default() ^= l.data[i];
                    }
                }
                for i in g * per_group..(g + 1) * per_group {
                    let mm = m.get(&l.addr[i]).copied().unwrap_or(0);
                    assert_eq!(l.bad[i], !(mm as u32));
                    let q = ((l.addr[i] + u32::from(SOAK_OFFSET)) / 8) as usize;
                    assert_eq!(l.final_lds[g][q], mm);
                }
                // Every qword no lane targets ends 0, including the last.
                let targets: std::collections::HashSet<usize> = (g * per_group
                    ..(g + 1) * per_group)
                    .map(|i| ((l.addr[i] + u32::from(SOAK_OFFSET)) / 8) as usize)
                    .collect();
                for (q, v) in l.final_lds[g].iter().enumerate() {
                    if !targets.contains(&q) {
                        assert_eq!(*v, 0);
                    }
                }
                assert!(!targets.contains(&(l.lds_qwords as usize - 1)));
            }
            assert!(l.rot != 16 && (1..32).contains(&l.rot));
        }
    }

    #[test]
    fn layouts_mix_lone_lanes_contention_and_inactive_lanes() {
        let (mut lone, mut full, mut inactive, mut neighbours) = (0, 0, 0, 0);
        for l in layouts() {
            let mut count = std::collections::HashMap::<(usize, u32), usize>::new();
            let per_group = l.geometry.lanes_per_group() as usize;
            for i in 0..l.addr.len() {
                *count.entry((i / per_group, l.addr[i])).or_default() += 1;
            }
            lone += count.values().filter(|&&c| c == 1).count();
            full += count.values().filter(|&&c| c == MAX_SHARERS).count();
            inactive += l.active.iter().filter(|a| !**a).count();
            neighbours += count
                .keys()
                .filter(|(g, a)| count.contains_key(&(*g, a + 8)))
                .count();
        }
        assert!(lone > 0 && full > 0 && inactive > 0 && neighbours > 0);
    }

    #[test]
    fn the_replay_case_has_the_launch_lanes_in_every_round() {
        let l = SoakLayout::generate(3, 1, WaveSize::Wave64, Mode::Cu, 2);
        let c = l.to_case(5, 1);
        assert_eq!(c.more_rounds.len(), 4);
        assert_eq!(c.offset, SOAK_OFFSET);
        assert!(c.more_rounds.iter().all(|r| r.data == l.data));
        assert_eq!(c.lanes.len(), l.addr.len());
        assert!(c.lanes.iter().zip(&l.active).all(|(x, &a)| x.active == a));
    }
}
