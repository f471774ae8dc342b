//! Repro files (`dsxor-repro/1`): one minimized failing case with
//! everything needed to judge and replay it — the case, what the model
//! expected, what the device did, the device and kernel, the seed — and
//! their export as a `dsxor-observation/1` file (DESIGN.md).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::backend::conformance::{DeviceOutcome, KernelIdentity};
use crate::backend::DeviceInfo;
use crate::case::Case;
use crate::gen::minimize::MinimizeStats;
use crate::gen::CaseId;
use crate::report::results::{write_atomic, ResultsError};

use super::Judgement;

pub const REPRO_FORMAT: &str = "dsxor-repro/1";
pub const OBSERVATION_FORMAT: &str = "dsxor-observation/1";

#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("cannot read repro file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a {REPRO_FORMAT} file: {why}")]
    Malformed { path: PathBuf, why: String },
    #[error("cannot export: {0}")]
    Export(String),
    #[error(transparent)]
    Write(#[from] ResultsError),
}

/// The failure as judged when the repro was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReproFailure {
    pub kind: String,
    pub summary: String,
    pub explanation: String,
}

/// Shape of the case before minimization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
        }
    }

    pub fn write(&self, path: &Path) -> Result<(), ReproError> {
        write_atomic(path, self)?;
        Ok(())
    }

    pub fn read(path: &Path) -> Result<Repro, ReproError> {
        let text = fs::read_to_string(path).map_err(|source| ReproError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let malformed = |why: String| ReproError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(REPRO_FORMAT) => {}
            Some(other) => return Err(malformed(format!("format `{other}`"))),
            None => return Err(malformed("no `format` field".into())),
        }
        let repro: Repro = serde_json::from_value(value).map_err(|e| malformed(e.to_string()))?;
        let c = &repro.case;
        if c.lanes.len() != c.geometry.total_lanes()
            || c.lds_init.len() != c.geometry.groups as usize
            || c.lds_bytes % 8 != 0
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

    /// The recorded observation of workgroup `group` as a
    /// `dsxor-observation/1` document: active lanes only (one instruction
    /// per active lane), `init` the nonzero qwords of the LDS image before,
    /// `final` every qword the kernel dumped after. 64-bit values and
    /// addresses as hex strings.
    pub fn to_observation(&self, group: u32) -> Result<serde_json::Value, ReproError> {
        let DeviceOutcome::Completed { observation, .. } = &self.observed else {
            return Err(ReproError::Export(format!(
                "the device did not complete this case ({}): there are no values to export",
                self.observed.name()
            )));
        };
        let c = &self.case;
        if group >= c.geometry.groups {
            return Err(ReproError::Export(format!(
                "group {group} does not exist: the case has {} workgroup(s)",
                c.geometry.groups
            )));
        }
        let g = group as usize;
        let lpg = c.geometry.lanes_per_group() as usize;
        let wl = c.geometry.wave_size.lanes() as usize;
        let hex = |v: u64| format!("{v:#x}");
        let init: BTreeMap<u64, String> = c
            .lds_init
            .get(g)
            .map(|img| {
                img.iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0)
                    .map(|(q, v)| (q as u64 * 8, hex(*v)))
                    .collect()
            })
            .unwrap_or_default();
        let fin: BTreeMap<u64, String> = observation
            .lds_final
            .get(g)
            .map(|img| {
                img.iter()
                    .enumerate()
                    .map(|(q, v)| (q as u64 * 8, hex(*v)))
                    .collect()
            })
            .unwrap_or_default();
        let as_obj = |m: BTreeMap<u64, String>| -> serde_json::Map<String, serde_json::Value> {
            m.into_iter()
                .map(|(a, v)| (hex(a), serde_json::Value::String(v)))
                .collect()
        };
        let mut lanes = Vec::new();
        for (i, lane) in c.lanes.iter().enumerate().skip(g * lpg).take(lpg) {
            if !lane.active {
                continue;
            }
            let local = i - g * lpg;
            let ret = observation.ret.get(i).copied().ok_or_else(|| {
                ReproError::Export(format!("the observation has no return value for lane {i}"))
            })?;
            lanes.push(serde_json::json!({
                "wave": local / wl,
                "lane": local % wl,
                "addr": hex(u64::from(lane.addr)),
                "data": hex(lane.data),
                "ret": hex(ret),
            }));
        }
        Ok(serde_json::json!({
            "format": OBSERVATION_FORMAT,
            "instruction": "ds_xor_rtn_b64",
            "lds_bytes": c.lds_bytes,
            "offset": c.offset,
            "init": as_obj(init),
            "lanes": lanes,
            "final": as_obj(fin),
            // Not part of the format's required fields; kept by readers.
            "source": {
                "tool": format!("dsxor {}", self.dsxor_version),
                "repro": REPRO_FORMAT,
                "seed": self.seed,
                "case": self.case_id,
                "group": group,
                "wave_size": c.geometry.wave_size.lanes(),
                "device": self.device.name,
                "target": self.device.target_id,
                "failure": self.failure.summary,
            },
        }))
    }
}
