//! A case, round by round. Round r starts where round r-1 ended. For XOR
//! that end is known without the device: the start XOR every in-range
//! active lane's DATA, whatever the order. So each round gets the full
//! check from a derived start to a derived end; the last round ends at the
//! observed image.
//!
//! A round is judged in place (`round.rs`) unless the dispatch faulted or a
//! lane is misaligned (both decide it in round 0, the full way) or the
//! round has a finding; it is then judged the full way
//! ([`Judge::judge_groups`]).

use super::traffic::judge_traffic;
use super::verdict::{CheckError, DeviceOutcome, FindingKind, LaneRef, OrderEvidence, Verdict};
use super::{in_range_keys, round, FinalView, GroupView, Judge, LaneView};
use crate::case::{Case, Observation};
use crate::model::{calc_ds_addr16, validate_case, Policy};

/// One case's buffers, kept in the [`Judge`] from case to case and taken
/// out of it while a case is judged: the rounds borrow them beside the
/// judge's own.
#[derive(Default)]
pub(super) struct CaseScratch {
    /// The lane views, built once: a round changes only DATA, VDST-before
    /// and the return.
    lanes: Vec<LaneView>,
    /// Per group, its [`in_range_keys`]: addresses and EXEC are the same
    /// every round, so is each group's sort of its lanes by qword.
    keys: Vec<Vec<u64>>,
    /// Per group, the current round's start image (a case of more than one
    /// round) and the round's DATA per qword (sorted by qword).
    cur: Vec<Vec<u64>>,
    deltas: Vec<Vec<(u32, u64)>>,
    /// The lanes an in-place round does not walk ([`round::Special`]), and
    /// round 0's DATA and VDST-before as arrays (later rounds have theirs).
    special: Vec<round::Special>,
    data0: Vec<u64>,
    vdst0: Vec<u64>,
}

/// What every round of one case shares.
struct CaseRun<'a> {
    case: &'a Case,
    obs: Option<&'a Observation>,
    fault: Option<&'a str>,
    policy: &'a Policy,
    rounds: usize,
    /// Lanes in the case (each round has every one).
    n: usize,
    /// Lanes per wave, lanes per group, qwords in the request.
    ws: usize,
    per_group: usize,
    req_q: usize,
    /// Active lanes (a round's verified lane-operations).
    active_lanes: usize,
}

pub(crate) fn judge_with(
    j: &mut Judge,
    case: &Case,
    outcome: DeviceOutcome<'_>,
    policy: &Policy,
) -> Result<Verdict, CheckError> {
    validate_case(case)?;
    policy.validate()?;
    let (obs, fault) = match outcome {
        DeviceOutcome::Completed(o) => (Some(o), None),
        DeviceOutcome::Fault(m) => (None, Some(m)),
    };
    if let Some(o) = obs {
        observation_fits(case, o)?;
    }
    let mut s = std::mem::take(&mut j.case);
    let mut run = CaseRun {
        case,
        obs,
        fault,
        policy,
        rounds: case.rounds(),
        n: case.lanes.len(),
        ws: case.geometry.wave_size.lanes() as usize,
        per_group: case.geometry.lanes_per_group() as usize,
        req_q: case.lds_qwords(),
        active_lanes: 0,
    };
    let misaligned = s.prepare(&mut run);
    let in_place = obs.is_some() && !misaligned && !j.full_only;
    s.data0.clear();
    s.vdst0.clear();
    if in_place {
        s.data0.extend(case.lanes.iter().map(|l| l.data));
        s.vdst0.extend(case.lanes.iter().map(|l| l.vdst_init));
    }
    let mut total: Option<Verdict> = None;
    for r in 0..run.rounds {
        let last = r + 1 == run.rounds;
        if let Some(verdict) = in_place.then(|| j.round_fast(&run, &mut s, r)).flatten() {
            #[cfg(test)]
            {
                j.in_place_rounds += 1;
            }
            add_round(&mut total, verdict);
            if last {
                break;
            }
            apply_deltas(&mut s.cur, &s.deltas);
            continue;
        }
        let verdict = j.round_full(&run, &mut s, r);
        // A fault or a misaligned lane decides the whole dispatch, and
        // every round has the same addresses: round 0's verdict is final.
        let decided = fault.is_some()
            || verdict
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::MisalignedNoFault);
        add_round(&mut total, verdict);
        if decided || last {
            break;
        }
        apply_deltas(&mut s.cur, &s.deltas);
    }
    j.case = s;
    let mut total = total.unwrap_or(Verdict {
        findings: Vec::new(),
        order: OrderEvidence::default(),
        device_faulted: fault.is_some(),
        active_lanes: 0,
        addresses: 0,
        policy: *policy,
    });
    if let (Some(t), Some(o)) = (&case.traffic, obs) {
        if o.traffic_verdicts.len() != run.n {
            return Err(shape(
                case,
                format!(
                    "{} traffic verdicts for {} lanes of a case with background traffic",
                    o.traffic_verdicts.len(),
                    run.n
                ),
            ));
        }
        judge_traffic(case, t, o, &mut total.findings);
    }
    Ok(total)
}

fn shape(case: &Case, why: String) -> CheckError {
    CheckError::Shape {
        pattern: case.pattern.clone(),
        index: case.index,
        why,
    }
}

/// The observation has a return per lane and round, and a final image of
/// the request's size per group.
fn observation_fits(case: &Case, o: &Observation) -> Result<(), CheckError> {
    let (n, rounds) = (case.lanes.len(), case.rounds());
    if o.ret.len() != n * rounds {
        return Err(shape(
            case,
            if rounds == 1 {
                format!("{} returns for {n} lanes", o.ret.len())
            } else {
                format!("{} returns for {n} lanes x {rounds} rounds", o.ret.len())
            },
        ));
    }
    if o.lds_final.len() != case.lds_init.len() {
        return Err(shape(
            case,
            format!(
                "{} final LDS images for {} groups",
                o.lds_final.len(),
                case.lds_init.len()
            ),
        ));
    }
    if let Some((g, img)) = o
        .lds_final
        .iter()
        .enumerate()
        .find(|(_, img)| img.len() != case.lds_qwords())
    {
        return Err(shape(
            case,
            format!(
                "final LDS of group {g} has {} qwords, the case has {}",
                img.len(),
                case.lds_qwords()
            ),
        ));
    }
    Ok(())
}

impl CaseScratch {
    /// Build what the rounds share: the lane views, each group's keys, the
    /// lanes an in-place walk does not see (found once: addresses and EXEC
    /// are the same every round), the start images; count the active
    /// lanes into `run`. Returns whether an active lane is misaligned.
    fn prepare(&mut self, run: &mut CaseRun<'_>) -> bool {
        let case = run.case;
        let groups = case.lds_init.len();
        if run.rounds > 1 {
            self.cur.resize_with(groups, Vec::new);
            for (c, init) in self.cur.iter_mut().zip(&case.lds_init) {
                c.clear();
                c.extend_from_slice(init);
            }
        }
        self.deltas.resize_with(groups, Vec::new);
        let (ws, per_group) = (run.ws, run.per_group);
        self.lanes.clear();
        self.lanes
            .extend(case.lanes.iter().enumerate().map(|(i, l)| {
                let local = i % per_group;
                LaneView {
                    r: LaneRef {
                        index: i,
                        wave: (local / ws) as u32,
                        lane: (local % ws) as u32,
                    },
                    addr: l.addr,
                    data: l.data,
                    active: l.active,
                    vdst_init: Some(l.vdst_init),
                    ret: l.vdst_init,
                }
            }));
        let alloc_q = (run.policy.allocated_bytes(case.lds_bytes) / 8) as usize;
        self.keys.resize_with(groups, Vec::new);
        for (g, keys) in self.keys.iter_mut().enumerate() {
            let group = self
                .lanes
                .get(g * per_group..(g + 1) * per_group)
                .unwrap_or(&[]);
            in_range_keys(group, case.offset, alloc_q, keys);
        }
        self.special.clear();
        let mut misaligned = false;
        for (i, l) in case.lanes.iter().enumerate() {
            let a = calc_ds_addr16(l.addr, case.offset);
            misaligned |= l.active && a & 7 != 0;
            run.active_lanes += usize::from(l.active);
            if !l.active || a >= alloc_q as u64 * 8 {
                self.special.push(round::Special {
                    index: i as u32,
                    active: l.active,
                });
            }
        }
        misaligned
    }

    /// Round `r`'s inputs and returns into the lane views (the case was
    /// validated: every round has every lane).
    fn set_round(&mut self, run: &CaseRun<'_>, r: usize) {
        let rets = run.obs.and_then(|o| o.ret.get(r * run.n..(r + 1) * run.n));
        let inputs = run.case.round_inputs(r);
        for (i, (lv, (data, vdst_init))) in self.lanes.iter_mut().zip(inputs).enumerate() {
            lv.data = data;
            lv.vdst_init = Some(vdst_init);
            lv.ret = rets.and_then(|s| s.get(i).copied()).unwrap_or(vdst_init);
        }
    }

    /// Per group, per qword inside the request, the XOR of the round's
    /// DATA there: the sorted keys already group the lanes by qword. (A
    /// misaligned lane's floor qword is harmless: such a dispatch is
    /// decided in round 0, before any delta is used.)
    fn round_deltas(&mut self, run: &CaseRun<'_>) {
        let per_group = run.per_group;
        for ((g, d), keys) in self.deltas.iter_mut().enumerate().zip(&self.keys) {
            d.clear();
            let group = self
                .lanes
                .get(g * per_group..(g + 1) * per_group)
                .unwrap_or(&[]);
            for &k in keys {
                let q = (k >> 32) as u32;
                if q as usize >= run.req_q {
                    break;
                }
                let Some(l) = group.get(k as u32 as usize) else {
                    continue;
                };
                match d.last_mut() {
                    Some(last) if last.0 == q => last.1 ^= l.data,
                    _ => d.push((q, l.data)),
                }
            }
        }
    }

    /// Each group as the full-way judge sees it in this round: the last
    /// round ends at the observed image, earlier ones at the derived one.
    fn group_views<'a>(&'a self, run: &CaseRun<'a>, last: bool) -> Vec<GroupView<'a>> {
        let per_group = run.per_group;
        round_inits(run, &self.cur)
            .iter()
            .enumerate()
            .map(|(g, init)| GroupView {
                group: g as u32,
                lds_bytes: run.case.lds_bytes,
                offset: run.case.offset,
                init,
                final_: if last {
                    FinalView::Dense(
                        run.obs
                            .and_then(|o| o.lds_final.get(g))
                            .map_or(&[][..], |v| v.as_slice()),
                    )
                } else {
                    FinalView::Derived(init, self.deltas.get(g).map_or(&[][..], |d| d.as_slice()))
                },
                lanes: self
                    .lanes
                    .get(g * per_group..(g + 1) * per_group)
                    .unwrap_or(&[]),
                keys: self.keys.get(g).map(|k| k.as_slice()),
            })
            .collect()
    }
}

impl Judge {
    /// Round `r` judged in place, straight from the case's arrays and the
    /// observation; None when it has something to report (it is then
    /// judged the full way).
    fn round_fast(&mut self, run: &CaseRun<'_>, s: &mut CaseScratch, r: usize) -> Option<Verdict> {
        let o = run.obs?;
        let (data, vdst) = match r.checked_sub(1).and_then(|k| run.case.more_rounds.get(k)) {
            Some(m) => (m.data.as_slice(), m.vdst_init.as_slice()),
            None => (s.data0.as_slice(), s.vdst0.as_slice()),
        };
        let c = round::CaseIn {
            per_group: run.per_group,
            wave_lanes: run.ws as u32,
            req_q: run.req_q,
            inits: round_inits(run, &s.cur),
            keys: &s.keys,
            special: &s.special,
        };
        let rin = round::RoundIn {
            data,
            vdst,
            ret: o.ret.get(r * run.n..(r + 1) * run.n).unwrap_or(&[]),
            last_final: (r + 1 == run.rounds).then_some(o.lds_final.as_slice()),
        };
        let (order, addresses) = self.round_in_place(&c, &rin, run.policy, &mut s.deltas)?;
        Some(Verdict {
            findings: Vec::new(),
            order,
            device_faulted: false,
            active_lanes: run.active_lanes,
            addresses,
            policy: *run.policy,
        })
    }

    /// Round `r` judged the full way: every group, every address, with the
    /// findings' texts.
    fn round_full(&mut self, run: &CaseRun<'_>, s: &mut CaseScratch, r: usize) -> Verdict {
        let last = r + 1 == run.rounds;
        s.set_round(run, r);
        if !last {
            s.round_deltas(run);
        }
        let groups = s.group_views(run, last);
        let mut verdict = self.judge_groups(&groups, run.fault, run.policy);
        if run.rounds > 1 {
            for f in &mut verdict.findings {
                f.why = format!("round {r} of {}: {}", run.rounds, f.why);
            }
        }
        verdict
    }
}

/// The round's start images: the case's own in a one-round case, else
/// `cur` (a free function, so a caller can borrow `cur` beside the
/// scratch's other fields).
fn round_inits<'a>(run: &CaseRun<'a>, cur: &'a [Vec<u64>]) -> &'a [Vec<u64>] {
    if run.rounds == 1 {
        &run.case.lds_init
    } else {
        cur
    }
}

/// Fold one round's verdict into the case's.
fn add_round(total: &mut Option<Verdict>, mut verdict: Verdict) {
    match total.as_mut() {
        None => *total = Some(verdict),
        Some(t) => {
            t.findings.append(&mut verdict.findings);
            t.order.add(verdict.order);
            t.active_lanes += verdict.active_lanes;
            t.addresses += verdict.addresses;
        }
    }
}

/// The next round's start images: this round's, XOR its DATA per qword.
fn apply_deltas(cur: &mut [Vec<u64>], deltas: &[Vec<(u32, u64)>]) {
    for (img, d) in cur.iter_mut().zip(deltas) {
        for &(q, x) in d {
            if let Some(v) = img.get_mut(q as usize) {
                *v ^= x;
            }
        }
    }
}
