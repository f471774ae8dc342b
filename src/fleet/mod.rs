//! `fleet`: many devices' results read as one fleet (`dsxor fleet`), and
//! the node health gate's check list and verdict (`fleet::gate`, `dsxor
//! gate`).
//!
//! A results file is one run (or one shard of a run) on one device; the
//! device is named by `DeviceInfo::fleet_key` (its UUID) and placed on its
//! node by `DeviceInfo::placement`. The fleet gives each device one verdict
//! over every record it has: `failed` if any record failed, else `aborted`
//! if any was aborted, else `passed`. Two records that claim the same
//! device and the same shard of the same run but disagree are refused: one
//! of them is not what it says. Nothing depends on the order of the files.

pub mod gate;
pub mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::backend::DeviceInfo;
use crate::report::results::{Results, ResultsError, Status};

/// Format tag of `dsxor fleet --json`'s file.
pub const FLEET_FORMAT: &str = "dsxor-fleet/1";

#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("no results files given")]
    NoFiles,
    #[error(transparent)]
    Read(#[from] ResultsError),
    /// Two records claim one device and one shard of one run, and disagree.
    #[error("{0}: refused")]
    Conflict(String),
}

/// One results file as the fleet sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FleetRun {
    /// The results file (as given).
    pub file: String,
    pub seed: u64,
    /// `K/N`, or `1/1` for a whole run.
    pub shard: String,
    pub status: Status,
    pub total: u64,
    pub passed: u64,
    pub failed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_reason: Option<String>,
    /// The repro files of its failures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repros: Vec<String>,
    /// `SLURM_JOB_ID` / `SLURM_ARRAY_TASK_ID` of the run, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_job_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_array_task_id: Option<String>,
    /// `JOB_COMPLETION_INDEX` of the run (a Kubernetes Indexed Job), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k8s_job_completion_index: Option<String>,
}

/// One device's verdict over all its records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceVerdict {
    /// `DeviceInfo::fleet_key`: the UUID, else node and PCI bus id.
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The node (the scheduler's name, else the host name).
    pub node: String,
    pub host: String,
    pub backend: String,
    pub name: String,
    pub target_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    /// `failed` if any record failed, else `aborted` if any was, else `passed`.
    pub verdict: Status,
    /// Cases over all records.
    pub cases: u64,
    pub failed_cases: u64,
    /// Seeds of its runs, ascending, each once.
    pub seeds: Vec<u64>,
    pub runs: Vec<FleetRun>,
}

/// One node's devices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NodeSummary {
    pub node: String,
    pub devices: u64,
    pub passed: u64,
    pub failed: u64,
    pub aborted: u64,
    /// The keys of its devices, failing first.
    pub device_keys: Vec<String>,
}

/// `dsxor fleet`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fleet {
    /// Always `dsxor-fleet/1`.
    pub format: String,
    pub dsxor_version: String,
    /// `failed` if any device failed, else `aborted` if any was, else `passed`.
    pub verdict: Status,
    /// Results files read (identical duplicates counted once).
    pub files: u64,
    /// Failed devices first, then aborted, then passed; by node and key within.
    pub devices: Vec<DeviceVerdict>,
    /// By node name, nodes with a failed device first.
    pub nodes: Vec<NodeSummary>,
}

fn rank(s: Status) -> u8 {
    match s {
        Status::Failed => 0,
        Status::Aborted => 1,
        Status::Passed => 2,
    }
}

/// The worse of two verdicts (failed over aborted over passed).
pub fn worse(a: Status, b: Status) -> Status {
    if rank(a) <= rank(b) {
        a
    } else {
        b
    }
}

/// The key a file is filed under: its device's, or for a run spread over
/// several devices (HIP worker processes), theirs joined with `+` (the
/// records do not say which device ran which case: policy
/// `fleet-device-group`, the group gets one verdict).
fn device_key(r: &Results) -> String {
    let devs = &r.environment.devices;
    if devs.len() > 1 {
        let mut keys: Vec<String> = devs.iter().map(DeviceInfo::fleet_key).collect();
        keys.sort();
        keys.dedup();
        if keys.len() > 1 {
            return keys.join("+");
        }
    }
    r.environment.device.fleet_key()
}

/// What two records of one device, run and shard must agree on.
fn outcome(r: &Results) -> (Status, u64, u64, u64, Vec<(u64, String)>) {
    (
        r.status,
        r.total,
        r.passed,
        r.failed,
        r.failures
            .iter()
            .map(|f| (f.index, f.kind.clone()))
            .collect(),
    )
}

fn run_of(path: &Path, r: &Results) -> FleetRun {
    let p = r.environment.device.placement.as_ref();
    FleetRun {
        file: path.display().to_string(),
        seed: r.spec.seed,
        shard: r.spec.shard.to_string(),
        status: r.status,
        total: r.total,
        passed: r.passed,
        failed: r.failed,
        abort_reason: r.abort_reason.clone(),
        repros: r.failures.iter().filter_map(|f| f.repro.clone()).collect(),
        slurm_job_id: p.and_then(|p| p.slurm_job_id.clone()),
        slurm_array_task_id: p.and_then(|p| p.slurm_array_task_id.clone()),
        k8s_job_completion_index: p.and_then(|p| p.k8s_job_completion_index.clone()),
    }
}

/// Read the files and judge the fleet.
pub fn fleet(paths: &[PathBuf]) -> Result<Fleet, FleetError> {
    let mut loaded = Vec::with_capacity(paths.len());
    for p in paths {
        loaded.push((p.clone(), Results::read_or_recover(p)?));
    }
    judge(loaded)
}

/// Judge records already read. The answer does not depend on their order:
/// records are sorted by (device, run, shard, path) first, and a conflict
/// names the pair in that order.
pub fn judge(mut loaded: Vec<(PathBuf, Results)>) -> Result<Fleet, FleetError> {
    if loaded.is_empty() {
        return Err(FleetError::NoFiles);
    }
    // The run a record belongs to: its spec without the shard.
    let run_id = |r: &Results| {
        let mut s = r.spec.clone();
        s.shard = crate::gen::Shard::WHOLE;
        serde_json::to_string(&s).unwrap_or_default()
    };
    loaded.sort_by_cached_key(|(p, r)| {
        (
            device_key(r),
            run_id(r),
            r.spec.shard.index,
            r.spec.shard.count,
            p.clone(),
        )
    });
    let mut by_device: BTreeMap<String, Vec<(PathBuf, Results)>> = BTreeMap::new();
    let mut files = 0u64;
    for (path, r) in loaded {
        let key = device_key(&r);
        let list = by_device.entry(key.clone()).or_default();
        if let Some((other, o)) = list
            .iter()
            .find(|(_, o)| run_id(o) == run_id(&r) && o.spec.shard == r.spec.shard)
        {
            if outcome(o) == outcome(&r) {
                // The same record twice (a file given twice, or copied).
                continue;
            }
            let (a, b) = (outcome(o), outcome(&r));
            return Err(FleetError::Conflict(format!(
                "{} and {} both claim device {key}, shard {} of the run with seed {:#x}, but \
                 disagree ({:?} {}/{} passed vs {:?} {}/{} passed{})",
                other.display(),
                path.display(),
                r.spec.shard,
                r.spec.seed,
                a.0,
                a.2,
                a.1,
                b.0,
                b.2,
                b.1,
                if a.4 != b.4 {
                    ", different failing cases"
                } else {
                    ""
                }
            )));
        }
        files += 1;
        list.push((path, r));
    }
    let mut devices: Vec<DeviceVerdict> = by_device
        .into_iter()
        .map(|(key, list)| {
            let d = &list[0].1.environment.device;
            let placement = d.placement.clone().unwrap_or_default();
            let mut seeds: Vec<u64> = list.iter().map(|(_, r)| r.spec.seed).collect();
            seeds.sort_unstable();
            seeds.dedup();
            DeviceVerdict {
                uuid: d.uuid.clone(),
                node: placement.node().to_string(),
                host: placement.host.clone(),
                backend: d.backend.name().to_string(),
                name: d.name.clone(),
                target_id: d.target_id.clone(),
                pci_bus_id: d.pci_bus_id.clone(),
                verdict: list
                    .iter()
                    .map(|(_, r)| r.status)
                    .fold(Status::Passed, worse),
                cases: list.iter().map(|(_, r)| r.total).sum(),
                failed_cases: list.iter().map(|(_, r)| r.failed).sum(),
                seeds,
                runs: list.iter().map(|(p, r)| run_of(p, r)).collect(),
                key,
            }
        })
        .collect();
    devices.sort_by(|a, b| {
        (rank(a.verdict), &a.node, &a.key).cmp(&(rank(b.verdict), &b.node, &b.key))
    });
    let mut nodes: BTreeMap<String, NodeSummary> = BTreeMap::new();
    for d in &devices {
        let n = nodes.entry(d.node.clone()).or_insert_with(|| NodeSummary {
            node: d.node.clone(),
            devices: 0,
            passed: 0,
            failed: 0,
            aborted: 0,
            device_keys: Vec::new(),
        });
        n.devices += 1;
        match d.verdict {
            Status::Passed => n.passed += 1,
            Status::Failed => n.failed += 1,
            Status::Aborted => n.aborted += 1,
        }
        n.device_keys.push(d.key.clone());
    }
    let mut nodes: Vec<NodeSummary> = nodes.into_values().collect();
    nodes.sort_by_key(|n| (n.failed == 0, n.aborted == 0, n.node.clone()));
    Ok(Fleet {
        format: FLEET_FORMAT.into(),
        dsxor_version: env!("CARGO_PKG_VERSION").into(),
        verdict: devices
            .iter()
            .map(|d| d.verdict)
            .fold(Status::Passed, worse),
        files,
        devices,
        nodes,
    })
}

impl Fleet {
    /// dsxor's exit code for the fleet: 1 when a device failed, else 3
    /// when one was aborted (environment trouble), else 0.
    pub fn exit_code(&self) -> u8 {
        match self.verdict {
            Status::Passed => crate::exit::PASS,
            Status::Failed => crate::exit::FAIL,
            Status::Aborted => crate::exit::ENVIRONMENT,
        }
    }
}
