//! Repro files (`dsxor-repro/1`): one minimized failing case with
//! everything needed to judge and replay it — the case, what the model
//! expected, what the device did, the device and kernel, the seed — and
//! their export as a `dsxor-observation/1` file (docs/src/reference/observation.md).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::backend::conformance::{DeviceOutcome, KernelIdentity};
use crate::backend::DeviceInfo;
use crate::case::Case;
use crate::check::file::ObservationFile;
use crate::gen::minimize::MinimizeStats;
use crate::gen::CaseId;
use crate::report::results::{write_atomic, ResultsError};

use super::Judgement;

pub const REPRO_FORMAT: &str = "dsxor-repro/1";

#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("cannot read repro file {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path} is not a {REPRO_FORMAT} file: {why}")]
    Malformed { path: PathBuf, why: String },
    #[error("cannot export: {0}")]
    Export(String),
    #[error(transparent)]
    Write(#[from] ResultsError),
}

/// The failure as judged when the repro was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReproFailure {
    pub kind: String,
    pub summary: String,
    pub explanation: String,
}

/// Shape of the case before minimization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shape {
    pub groups: u32,
    pub waves_per_group: u32,
    pub active_lanes: usize,
    pub lds_bytes: u32,
    pub offset: u16,
}

impl Shape {
    pub fn of(case: &Case) -> Shape {
        Shape {
            groups: case.geometry.groups,
            waves_per_group: case.geometry.waves_per_group,
            active_lanes: case.lanes.iter().filter(|l| l.active).count(),
            lds_bytes: case.lds_bytes,
            offset: case.offset,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Repro {
    pub format: String,
    pub dsxor_version: String,
    pub created_utc: String,
    /// With `generator_version` and `case_id`, regenerates the original case.
    pub seed: u64,
    pub generator_version: u32,
    pub case_id: CaseId,
    pub variant: String,
    pub failure: ReproFailure,
    /// The minimized case.
    pub case: Case,
    pub expected: serde_json::Value,
    pub observed: DeviceOutcome,
    pub notes: Vec<String>,
    pub device: DeviceInfo,
    pub kernel: KernelIdentity,
    pub policy: String,
    pub original: Shape,
    pub minimize: MinimizeStats,
    /// The software device's injected fault (`--fault`) the failure was
    /// found under, if any: a replay without it says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
}

impl Repro {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        seed: u64,
        generator_version: u32,
        case_id: CaseId,
        variant: &str,
        original: &Case,
        case: Case,
        judgement: &Judgement,
        observed: DeviceOutcome,
        device: DeviceInfo,
        kernel: KernelIdentity,
        policy: String,
        minimize: MinimizeStats,
    ) -> Repro {
        Repro {
            format: REPRO_FORMAT.into(),
            dsxor_version: env!("CARGO_PKG_VERSION").into(),
            created_utc: crate::report::results::rfc3339(std::time::SystemTime::now()),
            seed,
            generator_version,
            case_id,
            variant: variant.into(),
            failure: ReproFailure {
                kind: judgement.kind.clone().unwrap_or_else(|| "unknown".into()),
                summary: judgement.summary.clone(),
                explanation: judgement.explanation.clone(),
            },
            case,
            expected: judgement.expected.clone(),
            observed,
            notes: judgement.notes.clone(),
            device,
            kernel,
            policy,
            original: Shape::of(original),
            minimize,
            fault: None,
        }
    }

    pub fn write(&self, path: &Path) -> Result<(), ReproError> {
        write_atomic(path, self)?;
        Ok(())
    }

    pub fn read(path: &Path) -> Result<Repro, ReproError> {
        let text = crate::json::read_bounded(path, crate::json::MAX_DOCUMENT_BYTES, "repro file")
            .map_err(|source| ReproError::Read {
            path: path.to_path_buf(),
            cause: source,
        })?;
        let malformed = |why: String| ReproError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        crate::json::refuse_duplicate_keys(&text).map_err(|e| malformed(e.to_string()))?;
        // The format tag first, then the typed repro: no `Value` of the
        // whole file (a 138 MB repro took 2.3 GB that way).
        #[derive(serde::Deserialize)]
        struct Tag {
            format: Option<String>,
        }
        let tag: Tag = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        match tag.format.as_deref() {
            Some(REPRO_FORMAT) => {}
            Some(other) => return Err(malformed(format!("format `{other}`"))),
            None => return Err(malformed("no `format` field".into())),
        }
        let repro: Repro = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        let c = &repro.case;
        if c.geometry.checked_total_lanes() != Some(c.lanes.len())
            || c.lds_init.len() != c.geometry.groups as usize
            || !c.lds_bytes.is_multiple_of(8)
            || c.lds_init.iter().any(|g| g.len() != c.lds_qwords())
        {
            return Err(malformed(format!(
                "the case's sizes disagree: {} lanes for {} groups of {} waves of {}, {} LDS images, lds_bytes {}",
                c.lanes.len(),
                c.geometry.groups,
                c.geometry.waves_per_group,
                c.geometry.wave_size.lanes(),
                c.lds_init.len(),
                c.lds_bytes
            )));
        }
        Ok(repro)
    }

    /// Workgroups of the case (observations are exported one group each).
    pub fn groups(&self) -> u32 {
        self.case.geometry.groups
    }

    /// The recorded outcome of workgroup `group` as a `dsxor-observation/1`
    /// document (`check::file::ObservationFile::from_case_group`, which
    /// claims every qword an active lane addressed, so `dsxor check` reads
    /// back exactly what is written), with where it came from in extra
    /// fields.
    pub fn to_observation(&self, group: u32) -> Result<ObservationFile, ReproError> {
        let c = &self.case;
        if group >= c.geometry.groups {
            return Err(ReproError::Export(format!(
                "group {group} does not exist: the case has {} workgroup(s)",
                c.geometry.groups
            )));
        }
        let (obs, fault) = match &self.observed {
            DeviceOutcome::Completed { observation, .. } => (Some(observation), None),
            DeviceOutcome::Fault { message } => (None, Some(message.as_str())),
            DeviceOutcome::Timeout { message } => {
                return Err(ReproError::Export(format!(
                    "the launch timed out ({message}): there is no observation to export"
                )))
            }
        };
        let mut file = ObservationFile::from_case_group(c, obs, fault, group as usize)
            .map_err(|e| ReproError::Export(e.to_string()))?;
        let source = serde_json::json!({
            "tool": format!("dsxor {}", self.dsxor_version),
            "repro": REPRO_FORMAT,
            "seed": self.seed,
            "case": self.case_id,
            "variant": self.variant,
            "device": self.device.name,
            "target": self.device.target_id,
            "kernel_sha256": self.kernel.code_object_sha256,
            "failure": self.failure.summary,
        });
        file.extra.insert("source".into(), source);
        Ok(file)
    }
}
