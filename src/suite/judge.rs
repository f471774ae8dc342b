//! The `Judge` of real runs: `check` verdicts under a `model::Policy`.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::backend::conformance::DeviceOutcome;
use crate::case::Case;
use crate::check::{self, Checker, Verdict};
use crate::gen::Pattern;
use crate::model::{self, Expected, Order, Policy};

use super::{Judge, JudgeError, Judgement};

/// Judges with `check` under one policy.
pub struct ModelJudge {
    policy: Policy,
    checker: RefCell<Checker>,
}

impl ModelJudge {
    pub fn new(policy: Policy) -> ModelJudge {
        ModelJudge {
            policy,
            checker: RefCell::new(Checker::new()),
        }
    }
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

/// One legal expectation (lane-ascending order), compact: per active lane
/// its return, per group the qwords that change. Any serialization is
/// accepted by the verdict; this is what a person compares against first.
fn expected_json(case: &Case, policy: &Policy) -> serde_json::Value {
    match model::expect(case, &Order::LaneAscending, policy) {
        Ok(Expected::Completed(e)) => {
            let ret: BTreeMap<String, String> = case
                .lanes
                .iter()
                .zip(&e.ret)
                .enumerate()
                .filter(|(_, (l, _))| l.active)
                .map(|(i, (_, r))| (i.to_string(), hex(*r)))
                .collect();
            let changed: Vec<BTreeMap<String, String>> = case
                .lds_init
                .iter()
                .zip(&e.lds_final)
                .map(|(init, fin)| {
                    init.iter()
                        .zip(fin)
                        .enumerate()
                        .filter(|(_, (a, b))| a != b)
                        .map(|(q, (_, b))| (hex(q as u64 * 8), hex(*b)))
                        .collect()
                })
                .collect();
            serde_json::json!({
                "outcome": "completed",
                "order": "lane-ascending (one legal order; the verdict accepts every serialization)",
                "ret_by_lane": ret,
                "lds_changed_by_group": changed,
            })
        }
        Ok(Expected::Fault(m)) => serde_json::json!({
            "outcome": "fault",
            "why": "MEMVIOL: misaligned 64-bit atomic",
            "group": m.group,
            "lane_index": m.lane_index,
            "wave": m.wave,
            "lane": m.lane,
            "address": hex(m.address),
        }),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    }
}

fn summary(v: &Verdict) -> String {
    let Some(f) = v.findings.first() else {
        return format!(
            "consistent: {} active lanes on {} addresses ({} contended)",
            v.active_lanes, v.addresses, v.order.contended
        );
    };
    let at = f
        .address
        .map(|a| format!(" address {a:#x}"))
        .unwrap_or_default();
    let lanes: Vec<String> = f.lanes.iter().take(4).map(|l| l.to_string()).collect();
    let more = if v.findings.len() > 1 {
        format!(" (+{} more findings)", v.findings.len() - 1)
    } else {
        String::new()
    };
    format!(
        "{} in group {}{at} lanes {}{}: {}{more}",
        f.kind.name(),
        f.group,
        lanes.join(","),
        if f.lanes.len() > 4 { ",…" } else { "" },
        f.why
    )
}

impl Judge for ModelJudge {
    fn judge(&self, case: &Case, outcome: &DeviceOutcome) -> Result<Judgement, JudgeError> {
        let err = |why: String| JudgeError {
            pattern: case.pattern.clone(),
            index: case.index,
            why,
        };
        let probe = Pattern::from_name(&case.pattern).filter(|p| p.is_probe());
        let verdict = match outcome {
            DeviceOutcome::Timeout { message } => {
                return Ok(Judgement {
                    passed: false,
                    kind: Some("timeout".into()),
                    summary: message.clone(),
                    explanation: format!(
                        "the launch did not complete in time ({message}); no serialization of one \
                         ds_xor_rtn_b64 per lane can take unbounded time"
                    ),
                    notes: Vec::new(),
                    halves_split: None,
                    expected: expected_json(case, &self.policy),
                })
            }
            DeviceOutcome::Completed { observation, .. } => self.checker.borrow_mut().judge(
                case,
                check::DeviceOutcome::Completed(observation),
                &self.policy,
            ),
            DeviceOutcome::Fault { message } => self.checker.borrow_mut().judge(
                case,
                check::DeviceOutcome::Fault(message),
                &self.policy,
            ),
        }
        .map_err(|e| err(e.to_string()))?;
        let mut notes = Vec::new();
        if verdict.order.contended > 0 {
            notes.push(format!("order: {}", verdict.order.observed().name()));
        }
        if let Some(split) = verdict.order.halves_seen_split() {
            notes.push(format!(
                "wave64 halves: {} of {} (instruction, qword) pairs seen split",
                verdict.order.halves_split, verdict.order.halves_observed
            ));
            debug_assert_eq!(split, verdict.order.halves_split > 0);
        }
        if let Some(p) = probe {
            // A probe's outcome is recorded as what the device did.
            notes.push(format!(
                "probe {}: device {}",
                p.name(),
                match outcome {
                    DeviceOutcome::Completed { .. } => "completed".to_string(),
                    DeviceOutcome::Fault { message } => format!("faulted ({message})"),
                    DeviceOutcome::Timeout { .. } => "timed out".to_string(),
                }
            ));
        }
        Ok(Judgement {
            passed: verdict.passed(),
            kind: verdict.findings.first().map(|f| f.kind.name().to_string()),
            summary: summary(&verdict),
            explanation: verdict.explain(),
            notes,
            halves_split: verdict.order.halves_seen_split(),
            expected: if verdict.passed() {
                serde_json::Value::Null
            } else {
                expected_json(case, &self.policy)
            },
        })
    }

    fn policy(&self) -> String {
        self.policy.describe()
    }
}
