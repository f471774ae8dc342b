//! `check`: verdicts. A device's result for one [`Case`] (or one
//! `dsxor-observation/1` file) is judged against the model's specification
//! and its named policies ([`crate::model::policy`]):
//!
//! - an address one active lane hit: exact comparison of its return and the
//!   final qword;
//! - an address several lanes hit: the serializability check (docs/src/internals/serializability.md)
//!   (`check/serial.rs`): the edges `ret → ret ^ data` must form one trail from the
//!   initial to the final value, which accepts every legal order and rejects
//!   lost updates, permuted returns and detached cycles;
//! - every other qword of the request must be unchanged;
//! - inactive lanes keep VDST; an active lane whose VDST still holds its
//!   poison (`vdst_init`) where no serialization would put it was "not written";
//! - out-of-range lanes return what `Policy::out_of_range_return` says;
//!   a misaligned active lane must make the dispatch fault (MEMVIOL), and a
//!   fault without one is a finding too;
//! - a case with background traffic: every traffic lane's own verdict is 0
//!   and the qwords it owns end as they started (`check/traffic.rs`).
//!
//! Which order the device used, when unambiguous, is reported as evidence
//! ([`OrderEvidence`]), never as a verdict.
//!
//! The judge of a dispatch's groups and addresses is here; a case's rounds,
//! each from a derived start, are `check/case.rs`, a round judged in place
//! `check/round.rs`; the verdict types and their text are `check/verdict.rs`
//! (re-exported), observation files `check/file.rs`.

mod case;
pub mod file;
mod round;
mod serial;
mod traffic;
mod verdict;

pub use verdict::{
    CheckError, DeviceOutcome, Finding, FindingKind, LaneRef, ObservedOrder, OrderEvidence, Verdict,
};

use crate::case::Case;
use crate::model::{calc_ds_addr16, Policy};
pub(crate) use case::judge_with;
use serial::{TrailFailure, TrailScratch};

/// One lane as the judge sees it, whatever its source.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneView {
    pub r: LaneRef,
    pub addr: u32,
    pub data: u64,
    pub active: bool,
    /// Unknown for observation files that do not give it.
    pub vdst_init: Option<u64>,
    /// Meaningless when the dispatch faulted.
    pub ret: u64,
}

/// The final image: a full dump (case) or the claimed qwords (file), or,
/// for a round before the last, derived: the round's start XOR the deltas
/// (qword, XOR of the round's DATA there), sorted by qword.
pub(crate) enum FinalView<'a> {
    Dense(&'a [u64]),
    Sparse(&'a [Option<u64>]),
    Derived(&'a [u64], &'a [(u32, u64)]),
}

impl FinalView<'_> {
    fn get(&self, q: usize) -> Option<u64> {
        match self {
            FinalView::Dense(v) => v.get(q).copied(),
            FinalView::Sparse(v) => v.get(q).copied().flatten(),
            FinalView::Derived(base, deltas) => {
                let b = base.get(q).copied()?;
                Some(
                    match deltas.binary_search_by_key(&(q as u32), |&(k, _)| k) {
                        Ok(i) => b ^ deltas[i].1,
                        Err(_) => b,
                    },
                )
            }
        }
    }

    /// [`FinalView::get`] for qwords asked in ascending order: `cursor`
    /// (0 before the first ask) walks a derived view's sorted deltas
    /// alongside, instead of a binary search per qword.
    fn get_ascending(&self, q: usize, cursor: &mut usize) -> Option<u64> {
        match self {
            FinalView::Derived(base, deltas) => {
                let b = base.get(q).copied()?;
                let rest = deltas.get(*cursor..).unwrap_or(&[]);
                *cursor += rest.iter().take_while(|&&(k, _)| (k as usize) < q).count();
                Some(match deltas.get(*cursor) {
                    Some(&(k, x)) if k as usize == q => b ^ x,
                    _ => b,
                })
            }
            _ => self.get(q),
        }
    }

    /// Derived from the start: a qword no lane touched is unchanged by
    /// construction, so there is nothing to check there.
    fn derived(&self) -> bool {
        matches!(self, FinalView::Derived(..))
    }
}

/// One workgroup to judge. `lanes` must be in serialization-key order
/// (wave-major, then lane), which lane-ascending means.
pub(crate) struct GroupView<'a> {
    pub group: u32,
    pub lds_bytes: u32,
    pub offset: u16,
    pub init: &'a [u64],
    pub final_: FinalView<'a>,
    pub lanes: &'a [LaneView],
    /// The in-range active lanes' keys, sorted ([`in_range_keys`]), when
    /// the caller has them: they depend only on addresses and EXEC, so a
    /// case's rounds share one sort.
    pub keys: Option<&'a [u64]>,
}

/// `(qword << 32 | lane index)` of the active lanes whose address falls
/// inside the allocation (`alloc_q` qwords), sorted: by qword, then lane
/// index, so each qword's bucket keeps the lane-ascending order.
pub(crate) fn in_range_keys(lanes: &[LaneView], offset: u16, alloc_q: usize, out: &mut Vec<u64>) {
    out.clear();
    for (li, l) in lanes.iter().enumerate() {
        let a = calc_ds_addr16(l.addr, offset);
        if l.active && a < alloc_q as u64 * 8 {
            out.push((a >> 3) << 32 | li as u64);
        }
    }
    out.sort_unstable();
}

/// Reusable buffers for judging many groups.
#[derive(Default)]
pub(crate) struct Judge {
    wave_edges: Vec<(u64, u64)>,
    trail: TrailScratch,
    /// (qword << 32 | lane index) of the in-range active lanes, sorted.
    keys: Vec<u64>,
    sorted: Vec<u32>,
    edges: Vec<(u64, u64)>,
    /// The order the returns fix ([`halves_split`]), and the (wave, lane)
    /// of each edge ([`Judge::fill_edges`]).
    order: Vec<u32>,
    who: Vec<(u32, u32)>,
    /// The case being judged ([`case::judge_with`]): kept from case to
    /// case, as the rest.
    case: case::CaseScratch,
    /// Every round the full way: the tests compare the two paths.
    full_only: bool,
    /// Rounds judged in place (the tests show that path is taken).
    #[cfg(test)]
    in_place_rounds: usize,
}

/// Does this group have a misaligned active lane? (The first one.)
fn first_misaligned(g: &GroupView<'_>) -> Option<(LaneRef, u64)> {
    g.lanes.iter().find_map(|l| {
        let a = calc_ds_addr16(l.addr, g.offset);
        (l.active && a & 7 != 0).then_some((l.r, a))
    })
}

impl Judge {
    /// Judge a whole dispatch (one or more groups).
    pub(crate) fn judge_groups(
        &mut self,
        groups: &[GroupView<'_>],
        fault: Option<&str>,
        policy: &Policy,
    ) -> Verdict {
        let mut v = Verdict {
            findings: Vec::new(),
            order: OrderEvidence::default(),
            device_faulted: fault.is_some(),
            active_lanes: 0,
            addresses: 0,
            policy: *policy,
        };
        // MEMVIOL is a property of the dispatch: decided before any value.
        let misaligned: Vec<(u32, Vec<LaneRef>, u64)> = groups
            .iter()
            .filter_map(|g| {
                first_misaligned(g).map(|(_, a)| {
                    let lanes = g
                        .lanes
                        .iter()
                        .filter(|l| l.active && calc_ds_addr16(l.addr, g.offset) & 7 != 0)
                        .map(|l| l.r)
                        .collect();
                    (g.group, lanes, a)
                })
            })
            .collect();
        match (fault, misaligned.is_empty()) {
            (Some(_), false) => return v,
            (None, false) => {
                for (group, lanes, a) in misaligned {
                    v.findings.push(Finding {
                        kind: FindingKind::MisalignedNoFault,
                        group,
                        address: Some(a),
                        lanes,
                        why: format!(
                            "effective address {a:#x} is not 8-byte aligned, so the b64 atomic must raise MEMVIOL, but the dispatch completed"
                        ),
                    });
                }
                return v;
            }
            (Some(msg), true) => {
                v.findings.push(Finding {
                    kind: FindingKind::UnexpectedFault,
                    group: groups.first().map_or(0, |g| g.group),
                    address: None,
                    lanes: Vec::new(),
                    why: format!(
                        "the dispatch faulted ({msg}) although every active lane is 8-byte aligned"
                    ),
                });
                return v;
            }
            (None, true) => {}
        }
        for g in groups {
            self.judge_group(g, policy, &mut v);
        }
        v
    }

    fn judge_group(&mut self, g: &GroupView<'_>, policy: &Policy, v: &mut Verdict) {
        let alloc_q = (policy.allocated_bytes(g.lds_bytes) / 8) as usize;
        let req_q = g.lds_bytes as usize / 8;
        let mut inactive_written = Vec::new();
        let mut oor_bad: Vec<LaneRef> = Vec::new();
        let mut oor_first: Option<(u64, u64)> = None;
        for l in g.lanes {
            if !l.active {
                if l.vdst_init.is_some_and(|p| p != l.ret) {
                    inactive_written.push(l.r);
                }
                continue;
            }
            v.active_lanes += 1;
            let a = calc_ds_addr16(l.addr, g.offset);
            if a >= alloc_q as u64 * 8 && !policy.out_of_range_return.accepts(l.vdst_init, l.ret) {
                oor_first.get_or_insert((a, l.ret));
                oor_bad.push(l.r);
            }
        }
        // The in-range lanes by qword: a sort of the lanes, not a pass over
        // the allocation (a case's LDS, up to 8192 qwords, is mostly
        // untouched, and a round before the last has nothing to check there).
        let mut own = std::mem::take(&mut self.keys);
        let keys: &[u64] = match g.keys {
            Some(k) => k,
            None => {
                in_range_keys(g.lanes, g.offset, alloc_q, &mut own);
                &own
            }
        };
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        sorted.extend(keys.iter().map(|&k| k as u32));
        let mut untouched_changed: Vec<u64> = Vec::new();
        // Qwords below `next_q` not yet compared as untouched.
        let mut next_q = 0usize;
        let check_untouched = !g.final_.derived();
        let untouched_upto = |from: usize, upto: usize, out: &mut Vec<u64>| {
            if check_untouched {
                for q in from..upto.min(req_q) {
                    if let (Some(s), Some(f)) = (g.init.get(q).copied(), g.final_.get(q)) {
                        if s != f {
                            out.push(q as u64 * 8);
                        }
                    }
                }
            }
        };
        let mut begin = 0usize;
        let mut delta_at = 0usize;
        while begin < keys.len() {
            let q = (keys[begin] >> 32) as usize;
            let mut end = begin + 1;
            while end < keys.len() && (keys[end] >> 32) as usize == q {
                end += 1;
            }
            untouched_upto(next_q, q, &mut untouched_changed);
            next_q = q + 1;
            let start = if q < req_q {
                g.init.get(q).copied()
            } else {
                None
            };
            let fin = if q < req_q {
                g.final_.get_ascending(q, &mut delta_at)
            } else {
                None
            };
            v.addresses += 1;
            let bucket = sorted.get(begin..end).unwrap_or(&[]);
            begin = end;
            self.judge_address(g, q as u64 * 8, start, fin, bucket, v);
        }
        untouched_upto(next_q, req_q, &mut untouched_changed);
        self.keys = own;
        self.sorted = sorted;
        if !untouched_changed.is_empty() {
            let first = untouched_changed[0];
            let q = (first / 8) as usize;
            v.findings.push(Finding {
                kind: FindingKind::UntouchedChanged,
                group: g.group,
                address: Some(first),
                lanes: Vec::new(),
                why: format!(
                    "no active lane addressed it, yet it changed from {:#x} to {:#x}{}",
                    g.init.get(q).copied().unwrap_or(0),
                    g.final_.get(q).unwrap_or(0),
                    if untouched_changed.len() > 1 {
                        format!(" ({} such qwords in this group)", untouched_changed.len())
                    } else {
                        String::new()
                    }
                ),
            });
        }
        if !inactive_written.is_empty() {
            v.findings.push(Finding {
                kind: FindingKind::InactiveLaneWritten,
                group: g.group,
                address: None,
                lanes: inactive_written,
                why: "these lanes' EXEC bit was clear, so VDST must keep its prior value, but it changed".into(),
            });
        }
        if let Some((a, r)) = oor_first {
            v.findings.push(Finding {
                kind: FindingKind::OutOfRangeReturn,
                group: g.group,
                address: Some(a),
                lanes: oor_bad,
                why: format!(
                    "the address is past the {}-byte allocation; the policy (an ASSUMPTION) says the return is {}, the device returned {r:#x}",
                    policy.allocated_bytes(g.lds_bytes),
                    policy.out_of_range_return.name()
                ),
            });
        }
    }

    /// One qword of the request that active lanes hit: one lane is an
    /// exact comparison, several the serializability check.
    fn judge_address(
        &mut self,
        g: &GroupView<'_>,
        address: u64,
        start: Option<u64>,
        fin: Option<u64>,
        bucket: &[u32],
        v: &mut Verdict,
    ) {
        if let [only] = bucket {
            if let Some(l) = g.lanes.get(*only as usize) {
                judge_one_lane(g, address, start, fin, l, v);
            }
            return;
        }
        let both_halves = self.fill_edges(
            bucket
                .iter()
                .filter_map(|&i| g.lanes.get(i as usize))
                .map(|l| (l.ret, l.data, l.r.wave, l.r.lane)),
        );
        match self.order_of(start, fin, both_halves) {
            Ok(evidence) => v.order.add(evidence),
            Err(fail) => v
                .findings
                .push(contended_finding(g, address, start, fin, bucket, fail)),
        }
    }
}

/// The only lane at an address must return the initial value and leave
/// the initial XOR its DATA.
fn judge_one_lane(
    g: &GroupView<'_>,
    address: u64,
    start: Option<u64>,
    fin: Option<u64>,
    l: &LaneView,
    v: &mut Verdict,
) {
    if let Some(s) = start {
        if l.ret != s {
            let not_written = l.vdst_init == Some(l.ret);
            v.findings.push(Finding {
                kind: if not_written {
                    FindingKind::NotWritten
                } else {
                    FindingKind::WrongReturn
                },
                group: g.group,
                address: Some(address),
                lanes: vec![l.r],
                why: if not_written {
                    format!("the only lane here must return {s:#x}, but VDST still holds its poison {:#x}", l.ret)
                } else {
                    format!("the only lane here must return the initial {s:#x}, it returned {:#x}", l.ret)
                },
            });
        }
    }
    if let (Some(s), Some(f)) = (start, fin) {
        if f != s ^ l.data {
            v.findings.push(Finding {
                kind: FindingKind::WrongFinal,
                group: g.group,
                address: Some(address),
                lanes: vec![l.r],
                why: format!(
                    "final must be {s:#x} ^ {:#x} = {:#x}, it is {f:#x}",
                    l.data,
                    s ^ l.data
                ),
            });
        }
    }
}

/// The finding for a contended address whose returns no serialization
/// explains: lanes still holding their poison first (not written), else
/// what the trail check found.
fn contended_finding(
    g: &GroupView<'_>,
    address: u64,
    start: Option<u64>,
    fin: Option<u64>,
    bucket: &[u32],
    fail: TrailFailure,
) -> Finding {
    let lane = |i: u32| g.lanes.get(i as usize);
    let refs = |idx: &mut dyn Iterator<Item = u32>| -> Vec<LaneRef> {
        idx.filter_map(|i| lane(i).map(|l| l.r)).collect()
    };
    let n = bucket.len();
    let finding = |kind, lanes, why| Finding {
        kind,
        group: g.group,
        address: Some(address),
        lanes,
        why,
    };
    let poison: Vec<u32> = bucket
        .iter()
        .copied()
        .filter(|&i| lane(i).is_some_and(|l| l.vdst_init == Some(l.ret)))
        .collect();
    if !poison.is_empty() {
        return finding(
            FindingKind::NotWritten,
            refs(&mut poison.iter().copied()),
            format!(
                "{} of the {n} lanes here still hold their VDST poison and no serialization explains that",
                poison.len()
            ),
        );
    }
    match fail {
        TrailFailure::LostUpdate { expected_final } => finding(
            FindingKind::LostUpdate,
            refs(&mut bucket.iter().copied()),
            format!(
                "{n} lanes XOR into it, so under any order the final must be {:#x}, it is {:#x}: an update was lost or applied twice",
                expected_final,
                fin.unwrap_or(0)
            ),
        ),
        TrailFailure::BrokenChain {
            value,
            leaves,
            enters,
        } => {
            let who: Vec<u32> = bucket
                .iter()
                .copied()
                .filter(|&i| lane(i).is_some_and(|l| l.ret == value || l.ret ^ l.data == value))
                .collect();
            let ends = match (start == Some(value), fin == Some(value)) {
                (true, true) => " (the initial and the final value)",
                (true, false) => " (the initial value)",
                (false, true) => " (the final value)",
                (false, false) => "",
            };
            let how = if leaves > enters {
                format!(
                    "is read {leaves} time(s) (lanes returning it, plus the final value's claim) but left behind only {enters} time(s) (by the initial value or some lane's ret ^ data)"
                )
            } else {
                format!(
                    "is left behind {enters} time(s) (by the initial value or some lane's ret ^ data) but read only {leaves} time(s) (lanes returning it, plus the final value's claim)"
                )
            };
            finding(
                FindingKind::BrokenChain,
                refs(&mut who.into_iter()),
                format!(
                    "the {n} returns do not chain: value {value:#x}{ends} {how}, so no serialization yields these returns (permuted, duplicated or invented)"
                ),
            )
        }
        TrailFailure::Detached { edges } => finding(
            FindingKind::DetachedCycle,
            refs(&mut edges.iter().filter_map(|&e| bucket.get(e).copied())),
            format!(
                "these lanes' returns form a cycle of values never reachable from the initial value{}; degrees balance, but no serialization reads them",
                start.map(|s| format!(" {s:#x}")).unwrap_or_default()
            ),
        ),
    }
}

impl Judge {
    /// One contended qword's lanes, `(ret, DATA, wave, lane)` each in
    /// serialization-key order, as the edges `(ret, DATA)` and their
    /// `(wave, lane)`; returns how many waves have lanes here in both
    /// halves (below lane 32 and from 32), which only a wave64 can. Counted
    /// as the lanes come (a search afterwards was 1 % of a HIP run's
    /// samples).
    fn fill_edges(&mut self, lanes: impl Iterator<Item = (u64, u64, u32, u32)>) -> u32 {
        self.edges.clear();
        self.who.clear();
        let mut halves = [0u8; 32];
        let mut both = 0;
        for (ret, data, wave, lane) in lanes {
            self.edges.push((ret, data));
            self.who.push((wave, lane));
            if let Some(h) = halves.get_mut(wave as usize) {
                let was = *h;
                *h |= if lane >= 32 { 2 } else { 1 };
                both += u32::from(*h == 3 && was != 3);
            }
        }
        both
    }

    /// The order evidence of one contended qword whose edges
    /// [`Judge::fill_edges`] holds (`both_halves`: what it returned), or
    /// why no serialization produces them.
    ///
    /// The lanes in ascending and in descending order are each followed
    /// once: whether each chains is the order evidence, and one that also
    /// reaches the final value is a serialization, so the trail check would
    /// pass: its hashing is skipped then (most qwords, on devices that
    /// serialize lanes in order), unless the halves evidence needs the
    /// trail's order.
    fn order_of(
        &mut self,
        start: Option<u64>,
        fin: Option<u64>,
        both_halves: u32,
    ) -> Result<OrderEvidence, TrailFailure> {
        let ascending_end = chain_end(start, self.edges.iter());
        let descending_end = chain_end(start, self.edges.iter().rev());
        let witnessed =
            |end: Option<(u64, u64)>| end.is_some_and(|(_, e)| fin.is_none_or(|f| f == e));
        // A chain that reaches the final value is a serialization; reversed?
        let chained = if witnessed(ascending_end) {
            Some(false)
        } else if witnessed(descending_end) {
            Some(true)
        } else {
            None
        };
        let (halves_observed, halves_split) = if both_halves == 0 {
            if chained.is_none() {
                self.trail.check(start, fin, &self.edges)?;
            }
            (0, 0)
        } else if let (Some(_), Some(_), true) = (chained, start, returns_distinct(&self.edges)) {
            // No value returned twice and the start known: the trail is
            // unique ([`serial::TrailScratch::trail_order`]), so it is the
            // chain just followed. That order (or its reverse) keeps each
            // wave's lanes together, so no wave was split, and each wave
            // with lanes in both halves was observed ([`halves_split`]).
            (both_halves, 0)
        } else {
            self.trail.check(start, fin, &self.edges)?;
            // The order comes from the lanes' trail, before the check one
            // level up reuses its buffers.
            if self.trail.trail_order(&mut self.order) {
                halves_split(&self.order, &self.who)
            } else {
                (0, 0)
            }
        };
        let ascending = ascending_end.is_some();
        let descending = descending_end.is_some();
        let wave_ascending = ascending || self.wave_at_a_time_fits(start, fin, false);
        let wave_descending = descending || self.wave_at_a_time_fits(start, fin, true);
        Ok(OrderEvidence {
            contended: 1,
            ascending: u32::from(ascending),
            descending: u32::from(descending),
            wave_ascending: u32::from(wave_ascending),
            wave_descending: u32::from(wave_descending),
            halves_observed,
            halves_split,
        })
    }

    /// Could the waves have run one at a time (in some order), each wave's
    /// lanes in ascending (or descending) lane order? Each wave's lanes must
    /// chain; each wave is then one edge `first ret → its end value`, and
    /// those edges must form a trail — the same check, one level up.
    /// `self.who[i].0` is the wave of `self.edges[i]` (wave-major order).
    fn wave_at_a_time_fits(&mut self, start: Option<u64>, fin: Option<u64>, reverse: bool) -> bool {
        let mut wave_edges = std::mem::take(&mut self.wave_edges);
        wave_edges.clear();
        let mut i = 0;
        while i < self.edges.len() {
            let w = self.who.get(i).map(|p| p.0);
            let mut j = i;
            while j < self.edges.len() && self.who.get(j).map(|p| p.0) == w {
                j += 1;
            }
            let seg = self.edges.get(i..j).unwrap_or(&[]);
            let chained = if reverse {
                chain_end(None, seg.iter().rev())
            } else {
                chain_end(None, seg.iter())
            };
            let Some((r0, cur)) = chained else {
                self.wave_edges = wave_edges;
                return false;
            };
            wave_edges.push((r0, r0 ^ cur));
            i = j;
        }
        let fits = if wave_edges.len() < 2 {
            // One wave: the same as the strict order, already decided.
            false
        } else if wave_edges.len() == self.edges.len() {
            // One lane per wave: the same trail as the lanes', which passed.
            true
        } else {
            self.trail.check(start, fin, &wave_edges).is_ok()
        };
        self.wave_edges = wave_edges;
        fits
    }
}

/// The wave64-halves evidence of one serializable qword: `(observed,
/// split)` over the waves (one instruction each: a round is judged on its
/// own) whose lanes here include both halves (lanes below 32 and from 32).
///
/// `order[k]` is the edge the device performed k-th, as the returns fix it
/// ([`serial::TrailScratch::trail_order`]: only when no value was returned
/// twice and the initial value is known; otherwise another order could
/// explain the same returns and nothing is observed); `who[e]` is edge e's
/// (wave, lane). An instruction's halves were *seen split* when, walking
/// its lanes in that order, a lane of one half is followed by the wave's
/// next lane, of the other half, with some other wave's lane between them:
/// the device performed another instruction between the two wave32 passes
/// of this one (policy `wave64-split-halves` on the software device; gfx10+
/// silicon runs a wave64 LDS instruction as two passes: Mesa's wrong
/// `ds_append` results, docs/src/internals/software-device.md).
/// Linear, no buffers: a workgroup has at most 32 waves.
pub(crate) fn halves_split(order: &[u32], who: &[(u32, u32)]) -> (u32, u32) {
    // Per wave: halves seen (bit 0 low, bit 1 high), its last lane's half
    // and position, and whether a split was seen.
    let mut seen = [0u8; 32];
    let mut last: [Option<(bool, usize)>; 32] = [None; 32];
    let mut split = [false; 32];
    for (k, &e) in order.iter().enumerate() {
        let Some(&(w, l)) = who.get(e as usize) else {
            return (0, 0);
        };
        let w = w as usize;
        let high = l >= 32;
        let (Some(s), Some(prev), Some(x)) = (seen.get_mut(w), last.get_mut(w), split.get_mut(w))
        else {
            continue;
        };
        *s |= 1 << u8::from(high);
        if let Some((h, p)) = *prev {
            *x |= h != high && k > p + 1;
        }
        *prev = Some((high, k));
    }
    let observed = seen.iter().filter(|&&s| s == 3).count() as u32;
    let split = seen
        .iter()
        .zip(&split)
        .filter(|&(&s, &x)| s == 3 && x)
        .count() as u32;
    (observed, split)
}

/// Are the edges' returns pairwise distinct? Asked of a few lanes only (16
/// at most, by pairs); more answer false, which sends the caller to the
/// trail, where the same question costs a hash per value.
fn returns_distinct(edges: &[(u64, u64)]) -> bool {
    edges.len() <= 16
        && edges
            .iter()
            .enumerate()
            .all(|(i, a)| edges.get(i + 1..).unwrap_or(&[]).iter().all(|b| b.0 != a.0))
}

/// Follow lanes in the given order: `Some((first ret, value left by the
/// last))` if every lane read what the previous one left (the first reading
/// `start` when known); `None` if the chain breaks or there are no lanes.
fn chain_end<'a>(
    start: Option<u64>,
    mut it: impl Iterator<Item = &'a (u64, u64)>,
) -> Option<(u64, u64)> {
    let &(r0, d0) = it.next()?;
    if start.is_some_and(|s| s != r0) {
        return None;
    }
    let mut cur = r0 ^ d0;
    for &(r, d) in it {
        if r != cur {
            return None;
        }
        cur ^= d;
    }
    Some((r0, cur))
}

/// Judge one case's outcome under `policy`.
pub fn judge(
    case: &Case,
    outcome: DeviceOutcome<'_>,
    policy: &Policy,
) -> Result<Verdict, CheckError> {
    let mut j = Judge::default();
    judge_with(&mut j, case, outcome, policy)
}

/// A reusable judge for many cases (keeps its buffers between calls).
#[derive(Default)]
pub struct Checker {
    judge: Judge,
}

impl Checker {
    pub fn new() -> Checker {
        Checker::default()
    }

    pub fn judge(
        &mut self,
        case: &Case,
        outcome: DeviceOutcome<'_>,
        policy: &Policy,
    ) -> Result<Verdict, CheckError> {
        judge_with(&mut self.judge, case, outcome, policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edges and lanes of one qword as the judge sees them (sorted by
    /// wave, then lane), from the order the device performed them in:
    /// `(wave, lane, data)` each.
    fn observe(start: u64, performed: &[(u32, u32, u64)]) -> (Vec<(u64, u64)>, Vec<LaneRef>) {
        let mut cur = start;
        let mut lanes: Vec<(u32, u32, u64, u64)> = performed
            .iter()
            .map(|&(w, l, d)| {
                let ret = cur;
                cur ^= d;
                (w, l, ret, d)
            })
            .collect();
        lanes.sort_unstable();
        let edges = lanes.iter().map(|&(_, _, r, d)| (r, d)).collect();
        let refs = lanes
            .iter()
            .enumerate()
            .map(|(index, &(wave, lane, _, _))| LaneRef { index, wave, lane })
            .collect();
        (edges, refs)
    }

    fn deduce(start: u64, performed: &[(u32, u32, u64)]) -> (u32, u32) {
        let (edges, refs) = observe(start, performed);
        let mut t = TrailScratch::default();
        assert_eq!(t.check(Some(start), None, &edges), Ok(()));
        let mut order = Vec::new();
        if !t.trail_order(&mut order) {
            return (0, 0);
        }
        let who: Vec<(u32, u32)> = refs.iter().map(|r| (r.wave, r.lane)).collect();
        halves_split(&order, &who)
    }

    /// `order_of`'s halves evidence is the trail's, also where it skips
    /// the trail (a chain that reaches the end, no value returned twice,
    /// the start known): random wave64 lanes performed in lane order, in
    /// reverse, or at random, with DATA that now and then repeats a value,
    /// and the start or the end sometimes unknown.
    #[test]
    fn order_of_gives_the_trails_halves_evidence() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(64);
        let mut j = Judge::default();
        let (mut shortcut, mut split_seen) = (0, 0);
        for _ in 0..20_000 {
            let mut lanes: Vec<(u32, u32)> = (0..rng.random_range(2..20))
                .map(|_| (rng.random_range(0..3), rng.random_range(0..64)))
                .collect();
            lanes.sort_unstable();
            lanes.dedup();
            let mut performed: Vec<(u32, u32, u64)> = lanes
                .iter()
                .map(|&(w, l)| {
                    (
                        w,
                        l,
                        if rng.random_ratio(1, 8) {
                            0
                        } else {
                            rng.random()
                        },
                    )
                })
                .collect();
            // 0: lane order, 1: its reverse (each a chain that reaches the
            // end, so the shortcut's own condition), 2: shuffled.
            let how = rng.random_range(0..3);
            match how {
                0 => {}
                1 => performed.reverse(),
                _ => performed.shuffle(&mut rng),
            }
            let start = 0x5eed;
            let (edges, refs) = observe(start, &performed);
            let end = edges.iter().fold(start, |v, e| v ^ e.1);
            let known_start = (!rng.random_ratio(1, 8)).then_some(start);
            let fin = (!rng.random_ratio(1, 8)).then_some(end);
            let both = j.fill_edges(
                edges
                    .iter()
                    .zip(&refs)
                    .map(|(e, r)| (e.0, e.1, r.wave, r.lane)),
            );
            let got = j.order_of(known_start, fin, both).expect("a serialization");
            let mut t = TrailScratch::default();
            assert_eq!(t.check(known_start, fin, &edges), Ok(()));
            let mut order = Vec::new();
            let who: Vec<(u32, u32)> = refs.iter().map(|r| (r.wave, r.lane)).collect();
            let want = if both > 0 && t.trail_order(&mut order) {
                halves_split(&order, &who)
            } else {
                (0, 0)
            };
            assert_eq!(
                (got.halves_observed, got.halves_split),
                want,
                "{performed:?}"
            );
            shortcut += usize::from(
                how < 2 && both > 0 && returns_distinct(&edges) && known_start.is_some(),
            );
            split_seen += usize::from(want.1 > 0);
        }
        assert!(
            shortcut > 1000 && split_seen > 1000,
            "{shortcut} {split_seen}"
        );
    }

    #[test]
    fn halves_split_only_when_another_wave_falls_between_the_halves() {
        let start = 0x1234_5678_9abc_def0;
        // Wave 0's low half (lanes 0, 1), wave 1's lane, wave 0's high half.
        let split = [(0, 0, 1), (0, 1, 2), (1, 0, 4), (0, 32, 8), (0, 33, 16)];
        assert_eq!(deduce(start, &split), (1, 1));
        // The same lanes with wave 1 after both halves: seen together.
        let together = [(0, 0, 1), (0, 1, 2), (0, 32, 8), (0, 33, 16), (1, 0, 4)];
        assert_eq!(deduce(start, &together), (1, 0));
        // High half first, then wave 1, then the low half: split too.
        let reversed = [(0, 32, 8), (1, 0, 4), (0, 0, 1)];
        assert_eq!(deduce(start, &reversed), (1, 1));
        // Wave 1 inside the low half, the halves adjacent: not a split of
        // the halves (the evidence names only that boundary).
        let inside = [(0, 0, 1), (1, 0, 4), (0, 1, 2), (0, 32, 8)];
        assert_eq!(deduce(start, &inside), (1, 0));
        // Two wave64 instructions, both split by the other's lanes.
        let both = [(0, 0, 1), (1, 0, 2), (0, 40, 4), (1, 40, 8)];
        assert_eq!(deduce(start, &both), (2, 2));
    }

    #[test]
    fn halves_are_not_observed_where_the_returns_do_not_fix_the_order() {
        let start = 77;
        // Zero data: every lane returns the same value, any order fits.
        let zero = [(0, 0, 0), (1, 0, 0), (0, 32, 0)];
        assert_eq!(deduce(start, &zero), (0, 0));
        // A value returned twice (data XORing back to it): not fixed.
        let cycle = [(0, 0, 5), (1, 0, 5), (0, 32, 9)];
        assert_eq!(deduce(start, &cycle), (0, 0));
        // Wave32 lanes only (no lane from 32): nothing to observe.
        let wave32 = [(0, 0, 1), (1, 0, 2), (0, 31, 4)];
        assert_eq!(deduce(start, &wave32), (0, 0));
        // One half only: nothing to observe for that instruction.
        let one_half = [(0, 32, 1), (1, 0, 2), (0, 33, 4)];
        assert_eq!(deduce(start, &one_half), (0, 0));
    }
}
