//! The verdict on one case and its text: the findings (what, where,
//! which lanes, why), the order evidence, the one-paragraph explanation.
//! Plain data the judge in `check` fills; re-exported from there.

use serde::Serialize;

use crate::case::Observation;
use crate::model::{ModelError, Policy};

/// Input the checker cannot judge (never a conformance verdict).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Case(#[from] ModelError),
    #[error("observation does not fit case {pattern}#{index}: {why}")]
    Shape {
        pattern: String,
        index: u64,
        why: String,
    },
}

/// What the device did with the case.
#[derive(Clone, Copy, Debug)]
pub enum DeviceOutcome<'a> {
    Completed(&'a Observation),
    /// The launch reported a memory violation or wave fault (message kept
    /// for the explanation).
    Fault(&'a str),
}

/// One lane, as findings name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LaneRef {
    /// Index into `Case::lanes` (or into the file's `lanes` array).
    pub index: usize,
    pub wave: u32,
    pub lane: u32,
}

impl std::fmt::Display for LaneRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.wave, self.lane)
    }
}

/// The kinds of inconsistency, stable names for counting per pattern.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// Uncontended: the lane's return is not the qword's initial value.
    WrongReturn,
    /// Uncontended: final ≠ initial ⊕ data.
    WrongFinal,
    /// Contended: initial ⊕ XOR of all data ≠ final (an update lost or doubled).
    LostUpdate,
    /// Contended: the returns do not chain (permuted, duplicated or invented).
    BrokenChain,
    /// Contended: some lanes form a cycle of values no read could have seen.
    DetachedCycle,
    /// An active lane's VDST still holds its poison.
    NotWritten,
    /// An inactive lane's VDST changed.
    InactiveLaneWritten,
    /// A qword no active lane addressed changed.
    UntouchedChanged,
    /// An out-of-range lane returned other than the policy says.
    OutOfRangeReturn,
    /// A misaligned active lane, yet the dispatch completed (policy: MEMVIOL).
    MisalignedNoFault,
    /// The dispatch faulted although no lane was misaligned.
    UnexpectedFault,
    /// A background-traffic lane's load returned a value it had not
    /// stored (or the lane never wrote its verdict).
    TrafficRead,
    /// A qword that a background-traffic lane owns ended other than it
    /// started: something else wrote into it.
    TrafficStrayWrite,
}

impl FindingKind {
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::WrongReturn => "wrong-return",
            FindingKind::WrongFinal => "wrong-final",
            FindingKind::LostUpdate => "lost-update",
            FindingKind::BrokenChain => "broken-chain",
            FindingKind::DetachedCycle => "detached-cycle",
            FindingKind::NotWritten => "not-written",
            FindingKind::InactiveLaneWritten => "inactive-lane-written",
            FindingKind::UntouchedChanged => "untouched-changed",
            FindingKind::OutOfRangeReturn => "out-of-range-return",
            FindingKind::MisalignedNoFault => "misaligned-no-fault",
            FindingKind::UnexpectedFault => "unexpected-fault",
            FindingKind::TrafficRead => "traffic-read",
            FindingKind::TrafficStrayWrite => "traffic-stray-write",
        }
    }
}

/// One inconsistency: what, where, which lanes, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    pub kind: FindingKind,
    pub group: u32,
    /// Effective byte address (the first one, for findings spanning several).
    pub address: Option<u64>,
    pub lanes: Vec<LaneRef>,
    /// One sentence: why this is inconsistent.
    pub why: String,
}

/// Which serialization order the returns show, over the contended addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct OrderEvidence {
    /// Serializable addresses hit by two or more active lanes.
    pub contended: u32,
    /// Of those, how many match lane-ascending order (wave-major).
    pub ascending: u32,
    /// … and lane-descending order.
    pub descending: u32,
    /// … match "each wave's lanes in ascending lane order, the waves one
    /// after another in some order" (what a wave-at-a-time LDS would do).
    pub wave_ascending: u32,
    /// … the same with descending lanes inside each wave.
    pub wave_descending: u32,
    /// Of those, the (wave64 instruction, qword) pairs with active lanes of
    /// both halves (lanes 0-31 and 32-63) whose order the returns fix (no
    /// value returned twice, the initial value known): where a split of the
    /// instruction into its two wave32 passes could be seen.
    #[serde(default)]
    pub halves_observed: u32,
    /// … and of those, how many were seen split: between a lane of one half
    /// and the next lane of the other half of the same instruction, the
    /// returns put another wave's lane ([`halves_split`](super::halves_split)).
    #[serde(default)]
    pub halves_split: u32,
}

/// The order the evidence shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ObservedOrder {
    NoContention,
    LaneAscending,
    LaneDescending,
    /// Each wave's lanes ascending, waves serialized in some order (not
    /// wave 0 first throughout).
    WaveAtATimeAscending,
    WaveAtATimeDescending,
    /// Both orders fit every address (e.g. zero or equal data).
    Ambiguous,
    /// Serializable, but neither order fits every address.
    Other,
}

impl ObservedOrder {
    pub fn name(self) -> &'static str {
        match self {
            ObservedOrder::NoContention => "no-contention",
            ObservedOrder::LaneAscending => "lane-ascending",
            ObservedOrder::LaneDescending => "lane-descending",
            ObservedOrder::WaveAtATimeAscending => "wave-at-a-time-lane-ascending",
            ObservedOrder::WaveAtATimeDescending => "wave-at-a-time-lane-descending",
            ObservedOrder::Ambiguous => "ambiguous",
            ObservedOrder::Other => "other",
        }
    }
}

impl OrderEvidence {
    pub fn observed(&self) -> ObservedOrder {
        let all = |n: u32| n == self.contended;
        if self.contended == 0 {
            return ObservedOrder::NoContention;
        }
        // The strict orders first; the wave-at-a-time ones include them.
        match (all(self.ascending), all(self.descending)) {
            (true, true) => return ObservedOrder::Ambiguous,
            (true, false) => return ObservedOrder::LaneAscending,
            (false, true) => return ObservedOrder::LaneDescending,
            (false, false) => {}
        }
        match (all(self.wave_ascending), all(self.wave_descending)) {
            (true, true) => ObservedOrder::Ambiguous,
            (true, false) => ObservedOrder::WaveAtATimeAscending,
            (false, true) => ObservedOrder::WaveAtATimeDescending,
            (false, false) => ObservedOrder::Other,
        }
    }

    pub(super) fn add(&mut self, o: OrderEvidence) {
        self.contended += o.contended;
        self.ascending += o.ascending;
        self.descending += o.descending;
        self.wave_ascending += o.wave_ascending;
        self.wave_descending += o.wave_descending;
        self.halves_observed += o.halves_observed;
        self.halves_split += o.halves_split;
    }

    /// Whether the case showed a wave64 instruction's halves split: `None`
    /// when no instruction could show it (`halves_observed` 0).
    pub fn halves_seen_split(&self) -> Option<bool> {
        (self.halves_observed > 0).then_some(self.halves_split > 0)
    }
}

/// The verdict on one case: passed iff there are no findings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Verdict {
    pub findings: Vec<Finding>,
    pub order: OrderEvidence,
    pub device_faulted: bool,
    /// Lanes judged and addresses touched (for the explanation).
    pub active_lanes: usize,
    pub addresses: usize,
    pub policy: Policy,
}

fn plural(n: usize, what: &str) -> String {
    match (n, what.ends_with('s')) {
        (1, _) => format!("1 {what}"),
        (_, true) => format!("{n} {what}es"),
        _ => format!("{n} {what}s"),
    }
}

fn lane_list(lanes: &[LaneRef]) -> String {
    const SHOW: usize = 8;
    let mut s: Vec<String> = lanes.iter().take(SHOW).map(|l| l.to_string()).collect();
    if lanes.len() > SHOW {
        s.push(format!("and {} more", lanes.len() - SHOW));
    }
    s.join(", ")
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }

    /// Number of findings of each kind, for per-pattern counts.
    pub fn kinds(&self) -> Vec<(FindingKind, usize)> {
        let mut v: Vec<(FindingKind, usize)> = Vec::new();
        for f in &self.findings {
            match v.iter_mut().find(|(k, _)| *k == f.kind) {
                Some((_, n)) => *n += 1,
                None => v.push((f.kind, 1)),
            }
        }
        v.sort();
        v
    }

    /// One paragraph: consistent or not, and for the first finding the
    /// address, lanes (`wave:lane`) and why; the rest summarised.
    pub fn explain(&self) -> String {
        let order = self.order.observed();
        if self.passed() {
            let how = if self.device_faulted {
                "the dispatch faulted, as the MEMVIOL policy requires for a misaligned lane"
                    .to_string()
            } else {
                format!(
                    "{} on {} ({} contended, each serializable)",
                    plural(self.active_lanes, "active lane"),
                    plural(self.addresses, "address"),
                    self.order.contended
                )
            };
            let halves = match self.order.halves_seen_split() {
                Some(true) => format!(
                    "; wave64 halves seen split on {} of {} (instruction, qword) pairs",
                    self.order.halves_split, self.order.halves_observed
                ),
                _ => String::new(),
            };
            return format!(
                "consistent with ds_xor_rtn_b64: {how}; observed order: {}{halves} ({}).",
                order.name(),
                self.policy.describe()
            );
        }
        let mut s = format!(
            "inconsistent with ds_xor_rtn_b64 ({}):",
            self.policy.describe()
        );
        for (i, f) in self.findings.iter().take(4).enumerate() {
            if i == 1 {
                s.push_str(" Also:");
            }
            let at = f
                .address
                .map(|a| format!(" address {a:#x}"))
                .unwrap_or_default();
            let lanes = if f.lanes.is_empty() {
                String::new()
            } else {
                format!(", lanes (wave:lane) {}", lane_list(&f.lanes))
            };
            s.push_str(&format!(
                " [{}] group {}{at}{lanes}: {}",
                f.kind.name(),
                f.group,
                f.why
            ));
        }
        if self.findings.len() > 4 {
            s.push_str(&format!(" ({} more findings.)", self.findings.len() - 4));
        }
        s
    }
}
