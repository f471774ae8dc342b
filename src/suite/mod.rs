//! `suite`: a conformance run end to end — generate (`gen`), run on a
//! device (`backend::conformance`), judge (`check`, through `Judge`),
//! minimize failures, write repro files and results (`report`); replay a
//! repro; merge shard results. It sits above the other library modules because
//! it uses all of them (as `main.rs` may not: it only parses and exits).

pub mod cpu;
pub mod device;
pub mod judge;
pub mod merge;
pub mod probe;
pub mod repro;
pub mod run;
pub mod soak;
pub mod stop;
pub mod worker;

use serde::{Deserialize, Serialize};

use crate::backend::conformance::DeviceOutcome;
use crate::case::Case;

/// A verdict on one case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Judgement {
    pub passed: bool,
    /// Failure class (`mismatch`, `unexpected-fault`, `missing-fault`,
    /// `timeout`, ...); the minimizer keeps a candidate only if its failure
    /// has the same kind.
    pub kind: Option<String>,
    /// One line.
    pub summary: String,
    /// A paragraph for a person: address, lanes, why.
    pub explanation: String,
    /// Observations that are not verdicts (e.g. the order the device used).
    pub notes: Vec<String>,
    /// Whether the returns showed a wave64 instruction's two halves split
    /// by another wave's lanes (`check::OrderEvidence::halves_split`);
    /// None when no instruction could show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halves_split: Option<bool>,
    /// What the model expected, for repro files.
    pub expected: serde_json::Value,
}

/// The model refused a case: a generator or repro-file bug, never a device
/// result.
#[derive(Debug, thiserror::Error)]
#[error("the model cannot judge case {pattern}#{index}: {why}")]
pub struct JudgeError {
    pub pattern: String,
    pub index: u64,
    pub why: String,
}

/// Judges a device's outcome for a case against the specification.
pub trait Judge {
    fn judge(&self, case: &Case, outcome: &DeviceOutcome) -> Result<Judgement, JudgeError>;
    /// The policy verdicts are made under, as recorded in results.
    fn policy(&self) -> String;
}
