//! A round judged in place: the common case, a round with nothing to
//! report, read straight from the case's and the observation's arrays.
//!
//! The full path ([`Judge::judge_groups`]) copies every lane into a
//! [`LaneView`](super::LaneView) each round, looks for misaligned lanes,
//! checks every lane's EXEC and range again, and writes findings. A round
//! with none needs less: the lanes that are inactive or past the allocation
//! compared ([`Special`], found once per case), each in-range qword's lanes
//! chained by the same code ([`Judge::order_of`]), and, in the last round,
//! the qwords no lane addressed compared with the final image. Anything
//! that would be a finding ends the pass, and the caller judges that round
//! the full way, which writes the finding. So a verdict is the full path's
//! by construction; a test compares the two on corrupted observations.

use super::{Judge, OrderEvidence};
use crate::model::Policy;

/// A lane the qword walk does not see: inactive (its VDST must keep its
/// value), or active with an address past the allocation (its return is a
/// policy's). Global lane index.
#[derive(Clone, Copy)]
pub(super) struct Special {
    pub index: u32,
    pub active: bool,
}

/// One round's inputs and returns, every lane in `Case::lanes` order.
pub(super) struct RoundIn<'a> {
    pub data: &'a [u64],
    pub vdst: &'a [u64],
    pub ret: &'a [u64],
    /// Per group, the observed final image in the last round; None in a
    /// round before the last, whose end is derived from its start.
    pub last_final: Option<&'a [Vec<u64>]>,
}

/// What a case's rounds share: its shape, and per group its start images
/// and in-range lanes' keys ([`super::in_range_keys`]).
pub(super) struct CaseIn<'a> {
    pub per_group: usize,
    /// Lanes per wave (32 or 64).
    pub wave_lanes: u32,
    pub req_q: usize,
    pub inits: &'a [Vec<u64>],
    pub keys: &'a [Vec<u64>],
    pub special: &'a [Special],
}

impl Judge {
    /// The order evidence and the number of addressed qwords of a round
    /// with no finding, and in `deltas` per group the XOR of the round's
    /// DATA per qword inside the request (sorted; left empty in the last
    /// round); None when the round has something to report.
    pub(super) fn round_in_place(
        &mut self,
        c: &CaseIn<'_>,
        r: &RoundIn<'_>,
        policy: &Policy,
        deltas: &mut [Vec<(u32, u64)>],
    ) -> Option<(OrderEvidence, usize)> {
        for s in c.special {
            let i = s.index as usize;
            let (vdst, ret) = (*r.vdst.get(i)?, *r.ret.get(i)?);
            let ok = if s.active {
                policy.out_of_range_return.accepts(Some(vdst), ret)
            } else {
                vdst == ret
            };
            if !ok {
                return None;
            }
        }
        let mut order = OrderEvidence::default();
        let mut addresses = 0usize;
        let lane_mask = c.wave_lanes - 1;
        let wave_shift = c.wave_lanes.trailing_zeros();
        for (g, (init, keys)) in c.inits.iter().zip(c.keys).enumerate() {
            let base = g * c.per_group;
            let fin_img = match r.last_final {
                Some(f) => Some(f.get(g)?.as_slice()),
                None => None,
            };
            let d = deltas.get_mut(g)?;
            d.clear();
            // The qwords below `next_q` no lane addressed are compared with
            // the final image in the last round (before it, the end is the
            // start there by derivation).
            let untouched_same = |from: usize, to: usize| match fin_img {
                Some(img) => from >= to || init.get(from..to) == img.get(from..to),
                None => true,
            };
            let mut next_q = 0usize;
            let mut begin = 0usize;
            while let Some(&first) = keys.get(begin) {
                let q = (first >> 32) as usize;
                let mut end = begin + 1;
                while keys.get(end).is_some_and(|&k| (k >> 32) as usize == q) {
                    end += 1;
                }
                let bucket = keys.get(begin..end)?;
                begin = end;
                if !untouched_same(next_q, q.min(c.req_q)) {
                    return None;
                }
                next_q = q + 1;
                let inside = q < c.req_q;
                let start = if inside { init.get(q).copied() } else { None };
                let observed_fin = match fin_img {
                    Some(img) if inside => img.get(q).copied(),
                    _ => None,
                };
                let delta = if let [k] = bucket {
                    let i = base + (*k as u32 as usize);
                    let (ret, data) = (*r.ret.get(i)?, *r.data.get(i)?);
                    if start.is_some_and(|s| s != ret) {
                        return None;
                    }
                    if let (Some(s), Some(f)) = (start, observed_fin) {
                        if f != s ^ data {
                            return None;
                        }
                    }
                    data
                } else {
                    let both_halves = self.fill_edges(bucket.iter().filter_map(|&k| {
                        let li = k as u32;
                        let i = base + li as usize;
                        let (ret, data) = (*r.ret.get(i)?, *r.data.get(i)?);
                        Some((ret, data, li >> wave_shift, li & lane_mask))
                    }));
                    if self.edges.len() != bucket.len() {
                        return None;
                    }
                    let delta = self.edges.iter().fold(0, |x, e| x ^ e.1);
                    let fin = match fin_img {
                        Some(_) => observed_fin,
                        None => start.map(|s| s ^ delta),
                    };
                    order.add(self.order_of(start, fin, both_halves).ok()?);
                    delta
                };
                addresses += 1;
                if fin_img.is_none() && inside {
                    d.push((q as u32, delta));
                }
            }
            if !untouched_same(next_q, c.req_q) {
                return None;
            }
        }
        Some((order, addresses))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{judge_with, DeviceOutcome, Judge};
    use crate::case::{Case, Geometry, LaneInput, Mode, Observation, Round, WaveSize};
    use crate::model::{expect, Expected, Order, Policy};
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A small random case: few qwords (so lanes contend), some lanes
    /// inactive, some past the allocation, now and then one misaligned,
    /// up to four rounds.
    fn random_case(rng: &mut ChaCha8Rng) -> Case {
        let geometry = Geometry {
            wave_size: if rng.random() {
                WaveSize::Wave64
            } else {
                WaveSize::Wave32
            },
            waves_per_group: rng.random_range(1..=3),
            groups: rng.random_range(1..=2),
            mode: Mode::Wgp,
        };
        let lds_bytes = if rng.random() { 64u32 } else { 256 };
        let misaligned = rng.random_ratio(1, 20);
        let n = geometry.total_lanes();
        let lanes: Vec<LaneInput> = (0..n)
            .map(|i| LaneInput {
                addr: rng.random_range(0..lds_bytes / 8 + 4) * 8
                    + if misaligned && i == n / 2 { 4 } else { 0 },
                data: rng.random(),
                active: rng.random_ratio(7, 8),
                vdst_init: rng.random(),
            })
            .collect();
        let more_rounds = (0..rng.random_range(0..4))
            .map(|_| Round {
                data: (0..n).map(|_| rng.random()).collect(),
                vdst_init: (0..n).map(|_| rng.random()).collect(),
            })
            .collect();
        Case {
            pattern: "in-place-vs-full".into(),
            index: 0,
            geometry,
            lds_bytes,
            offset: if rng.random() { 0 } else { 8 },
            lds_init: (0..geometry.groups)
                .map(|_| (0..lds_bytes / 8).map(|_| rng.random()).collect())
                .collect(),
            lanes,
            more_rounds,
            stress: None,
            traffic: None,
        }
    }

    /// What a device could have returned: the model's outcome for a random
    /// order (for a misaligned case, nothing written), then, three times in
    /// four, one fault of the kinds the judge names.
    fn observation(rng: &mut ChaCha8Rng, case: &Case) -> Observation {
        let mut perm: Vec<u32> = (0..case.geometry.lanes_per_group()).collect();
        perm.shuffle(rng);
        let mut o = match expect(case, &Order::Explicit(perm), &Policy::GFX11) {
            Ok(Expected::Completed(x)) => Observation {
                ret: x.ret,
                lds_final: x.lds_final,
                traffic_verdicts: Vec::new(),
            },
            _ => Observation {
                ret: (0..case.rounds())
                    .flat_map(|r| case.round_inputs(r).map(|(_, v)| v).collect::<Vec<_>>())
                    .collect(),
                lds_final: case.lds_init.clone(),
                traffic_verdicts: Vec::new(),
            },
        };
        let n = o.ret.len();
        let i = rng.random_range(0..n);
        match rng.random_range(0..4) {
            0 => {}
            1 => o.ret[i] ^= 1 << rng.random_range(0..64),
            2 => {
                o.ret[i] = case
                    .round_inputs(i / case.lanes.len())
                    .nth(i % case.lanes.len())
                    .map_or(0, |(_, v)| v)
            }
            _ => {
                let g = rng.random_range(0..o.lds_final.len());
                let q = rng.random_range(0..o.lds_final[g].len());
                o.lds_final[g][q] ^= 1 << rng.random_range(0..64);
            }
        }
        o
    }

    /// The in-place rounds give exactly the full path's verdict (findings,
    /// their words, the order evidence, the counts), on clean and on
    /// corrupted observations.
    #[test]
    fn rounds_judged_in_place_give_the_full_paths_verdict() {
        let mut rng = ChaCha8Rng::seed_from_u64(27);
        let (mut in_place, mut full) = (Judge::default(), Judge::default());
        full.full_only = true;
        let (mut passed, mut failed) = (0, 0);
        for _ in 0..3000 {
            let case = random_case(&mut rng);
            let obs = observation(&mut rng, &case);
            let out = DeviceOutcome::Completed(&obs);
            let a = judge_with(&mut in_place, &case, out, &Policy::GFX11);
            let b = judge_with(&mut full, &case, out, &Policy::GFX11);
            assert_eq!(a, b, "{case:?}");
            if a.is_ok_and(|v| v.passed()) {
                passed += 1;
            } else {
                failed += 1;
            }
        }
        // Both kinds of verdict were compared, and most rounds of the clean
        // ones were judged in place.
        assert!(
            passed > 500 && failed > 500,
            "{passed} passed, {failed} failed"
        );
        assert!(
            in_place.in_place_rounds > passed,
            "{} rounds in place",
            in_place.in_place_rounds
        );
        assert_eq!(full.in_place_rounds, 0);
    }
}
