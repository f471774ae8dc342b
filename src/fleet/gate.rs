//! The node health gate (`dsxor gate`): a short fixed check of every
//! visible GPU, one JSON verdict for the node. What runs is the list
//! [`CHECKS`]; each check is a `dsxor` command line run on one device in a
//! process of its own (a device fault that aborts the process, as ROCm 6
//! does, costs that check, not the gate), all devices side by side, within
//! one time budget.
//!
//! The list holds the conformance smoke and the leftover-LDS probe (plain
//! LDS loads and stores: it cannot fault). Probes that can fault hardware
//! are never in it; probes that cannot fault belong in it, as one more
//! [`Check`] each.

use serde::{Deserialize, Serialize};

use crate::backend::Placement;
use crate::report::results::Status;

/// Format tag of the gate's verdict.
pub const GATE_FORMAT: &str = "dsxor-gate/1";

/// The default time budget on a GPU.
pub const DEFAULT_BUDGET: std::time::Duration = std::time::Duration::from_secs(60);

/// The gate's fixed seed: every node runs the same cases, so two nodes'
/// verdicts compare.
pub const GATE_SEED: &str = "0x6a7e";

/// One check of the gate: a `dsxor` command run once per device.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// Its name in the verdict.
    pub name: &'static str,
    /// What it shows, for `--help` and the book.
    pub what: &'static str,
    /// The command's arguments; the gate adds `--device N --json --out DIR`.
    pub args: &'static [&'static str],
}

/// The checks, in the order they run on each device.
pub const CHECKS: &[Check] = &[
    Check {
        name: "conformance-smoke",
        what: "512 seeded conformance cases of every pattern and wave size the device runs, one \
           launch each, judged against the model; failures kept as found (no minimization)",
        args: &[
            "run",
            "--backend",
            "hip",
            "--cases",
            "512",
            "--seed",
            GATE_SEED,
            "--jobs",
            "1",
            "--minimize-budget",
            "0s",
            "--max-repros",
            "1",
        ],
    },
    Check {
        name: "leftover-lds",
        what:
            "LDS one kernel leaves read by the next (LeftoverLocals, CVE-2023-4969): a fill kernel \
           and a listener per code object, beside one conformance case",
        args: &[
            "run",
            "--backend",
            "hip",
            "--cases",
            "1",
            "--pattern",
            "uniform",
            "--seed",
            GATE_SEED,
            "--jobs",
            "1",
            "--minimize-budget",
            "0s",
            "--probe",
            "leftover-lds",
        ],
    },
];

/// One check on one device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckResult {
    pub name: String,
    pub verdict: Status,
    /// The command's exit code (None: killed at the budget or by a signal).
    pub exit_code: Option<i32>,
    pub elapsed_ms: u64,
    /// One line: what happened.
    pub detail: String,
}

/// One device's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GateDevice {
    /// HIP's ordinal (after the visibility variables).
    pub index: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    pub name: String,
    pub target_id: String,
    /// `failed` if a check failed (or overran the budget), else `aborted`
    /// if one could not run, else `passed`.
    pub verdict: Status,
    /// One line; empty when passed.
    pub reason: String,
    pub checks: Vec<CheckResult>,
}

/// `healthy`, `unhealthy` (a device failed) or `environment` (no device,
/// no runtime, or a check that could not run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeVerdict {
    Healthy,
    Unhealthy,
    Environment,
}

/// The node's verdict (`dsxor-gate/1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GateVerdict {
    pub format: String,
    pub dsxor_version: String,
    pub placement: Placement,
    pub verdict: NodeVerdict,
    /// 0 healthy, 1 unhealthy, 3 environment.
    pub exit_code: u8,
    /// One line, for a drain reason (empty when healthy).
    pub reason: String,
    pub budget_ms: u64,
    pub elapsed_ms: u64,
    /// The checks run on each device.
    pub checks: Vec<String>,
    pub devices: Vec<GateDevice>,
}

impl GateDevice {
    /// The device's verdict and reason from its checks.
    pub fn judge(&mut self) {
        self.verdict = self
            .checks
            .iter()
            .map(|c| c.verdict)
            .fold(Status::Passed, super::worse);
        let name = self
            .uuid
            .clone()
            .or_else(|| self.pci_bus_id.clone())
            .unwrap_or_else(|| format!("device {}", self.index));
        self.reason = self
            .checks
            .iter()
            .filter(|c| c.verdict != Status::Passed)
            .map(|c| format!("{name} {}: {}", c.name, c.detail))
            .collect::<Vec<_>>()
            .join("; ");
    }
}

impl GateVerdict {
    /// The node's verdict from its devices (`no_device`: why there is none).
    pub fn new(
        placement: Placement,
        devices: Vec<GateDevice>,
        no_device: Option<String>,
        budget_ms: u64,
        elapsed_ms: u64,
    ) -> GateVerdict {
        let failed: Vec<&GateDevice> = devices
            .iter()
            .filter(|d| d.verdict == Status::Failed)
            .collect();
        let aborted: Vec<&GateDevice> = devices
            .iter()
            .filter(|d| d.verdict == Status::Aborted)
            .collect();
        let (verdict, reason) = if let Some(why) = no_device {
            (NodeVerdict::Environment, format!("dsxor gate: {why}"))
        } else if !failed.is_empty() {
            (
                NodeVerdict::Unhealthy,
                format!(
                    "dsxor gate: {} of {} GPUs failed: {}",
                    failed.len(),
                    devices.len(),
                    failed
                        .iter()
                        .map(|d| d.reason.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            )
        } else if !aborted.is_empty() {
            (
                NodeVerdict::Environment,
                format!(
                    "dsxor gate: {} of {} GPUs could not be checked: {}",
                    aborted.len(),
                    devices.len(),
                    aborted
                        .iter()
                        .map(|d| d.reason.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            )
        } else {
            (NodeVerdict::Healthy, String::new())
        };
        GateVerdict {
            format: GATE_FORMAT.into(),
            dsxor_version: env!("CARGO_PKG_VERSION").into(),
            placement,
            verdict,
            exit_code: match verdict {
                NodeVerdict::Healthy => crate::exit::PASS,
                NodeVerdict::Unhealthy => crate::exit::FAIL,
                NodeVerdict::Environment => crate::exit::ENVIRONMENT,
            },
            reason,
            budget_ms,
            elapsed_ms,
            checks: CHECKS.iter().map(|c| c.name.to_string()).collect(),
            devices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(index: u32, verdicts: &[Status]) -> GateDevice {
        let mut d = GateDevice {
            index,
            uuid: Some(format!("GPU-{index}")),
            pci_bus_id: None,
            name: "d".into(),
            target_id: "gfx1100".into(),
            verdict: Status::Passed,
            reason: String::new(),
            checks: verdicts
                .iter()
                .map(|&v| CheckResult {
                    name: "conformance-smoke".into(),
                    verdict: v,
                    exit_code: Some(0),
                    elapsed_ms: 1,
                    detail: "x".into(),
                })
                .collect(),
        };
        d.judge();
        d
    }

    #[test]
    fn a_failed_device_makes_the_node_unhealthy_whatever_else() {
        let p = Placement::default();
        let v = GateVerdict::new(
            p.clone(),
            vec![dev(0, &[Status::Passed]), dev(1, &[Status::Failed])],
            None,
            1,
            1,
        );
        assert_eq!((v.verdict, v.exit_code), (NodeVerdict::Unhealthy, 1));
        assert!(v.reason.contains("GPU-1 conformance-smoke"), "{}", v.reason);
        let v = GateVerdict::new(
            p.clone(),
            vec![dev(0, &[Status::Aborted]), dev(1, &[Status::Failed])],
            None,
            1,
            1,
        );
        assert_eq!(v.exit_code, 1);
        let v = GateVerdict::new(p.clone(), vec![dev(0, &[Status::Aborted])], None, 1, 1);
        assert_eq!(v.exit_code, 3);
        let v = GateVerdict::new(p.clone(), vec![dev(0, &[Status::Passed])], None, 1, 1);
        assert_eq!((v.verdict, v.reason.as_str()), (NodeVerdict::Healthy, ""));
        let v = GateVerdict::new(p, vec![], Some("no GPU".into()), 1, 1);
        assert_eq!(v.exit_code, 3);
    }
}
