//! Opening the device a conformance command runs on: backend selection
//! (`backend::select`), the backend itself (HIP or the software device), and
//! the conformance kernels for its target (embedded, or `--code-object`).

use std::path::PathBuf;
use std::time::Duration;

use crate::backend::conformance::{
    embedded_objects, file_object, CaseDevice, ConformanceDevice, KernelObject,
};
use crate::backend::emu::EmuBackend;
use crate::backend::hip::HipBackend;
use crate::backend::select::{select, BackendChoice, HipView, SelectError, Selection, EMU_TARGET};
use crate::backend::BackendError;
use crate::case::WaveSize;
use crate::emu::{EmuConfig, FaultSpec};
use crate::suite::worker::{visible_entry, WorkerDevice, WorkerPlan};

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct DeviceRequest {
    pub choice: BackendChoice,
    /// `--device N` (HIP ordinal).
    pub device: Option<u32>,
    /// `--wave` (empty: every wave size the device and kernels offer).
    pub waves: Vec<WaveSize>,
    pub code_object: Option<PathBuf>,
    pub fault: Option<FaultSpec>,
    pub interleave_seed: Option<u64>,
    pub timeout: Duration,
    /// The policy's LDS allocation block in bytes (`--lds-granule`). The
    /// software device allocates with it, so it and the model agree on
    /// where the in-range slack ends; on HIP the hardware decides and the
    /// value only shapes the judgement.
    pub lds_granule: u32,
    /// Run HIP cases in worker processes of this dsxor binary
    /// (`suite::worker`); `None` runs them in this process (library use,
    /// tests without the binary).
    pub worker_exe: Option<PathBuf>,
    /// `--require-gpu`: refuse the software device and simulated devices.
    pub require_gpu: bool,
    /// Software device only: report missing `s_waitcnt`s as hazards
    /// ([`EmuConfig::hazard_check`]); the command line sets it for
    /// `--code-object` unless `--no-hazard-check`.
    pub hazard_check: bool,
    /// `--allow-mutant`: accept a `--code-object` whose conformance kernels
    /// hold another instruction at their `ds_xor_rtn_b64` site (a
    /// deliberate mutant, to show the checks catch a wrong instruction on
    /// the device); without it such an object is refused before any case.
    pub allow_mutant: bool,
    /// HIP: cases per launch at most (`dsxor run --batch`; see
    /// `conformance::run_cases`). The software device runs one case per
    /// launch whatever this says: its interleaving and fault streams are
    /// seeded per workgroup and launch (`emu::run`), so a case's outcome
    /// there would depend on the batch it landed in.
    pub batch: usize,
}

/// An opened device.
pub struct Opened {
    pub device: Box<dyn CaseDevice>,
    pub selection: Selection,
    /// For the software device: how to open more of it (`emu_workers`).
    emu: Option<EmuTemplate>,
    /// For HIP in worker processes: one plan per device the run may use
    /// (the selected device first).
    hip_workers: Vec<WorkerPlan>,
}

/// What opened the software device, to open identical ones for workers.
struct EmuTemplate {
    config: EmuConfig,
    objects: Vec<KernelObject>,
    timeout: Duration,
}

impl Opened {
    /// `n` more software devices configured as this one, each
    /// single-threaded (the workers are the parallelism), for running cases
    /// side by side; empty on HIP, which stays one device. A dispatch's
    /// outcome depends only on the case and the configuration (the
    /// interleaving streams are seeded per workgroup), so which device runs
    /// a case does not change what is recorded.
    pub fn emu_workers(&self, n: usize) -> Result<Vec<Box<dyn CaseDevice + Send>>, OpenError> {
        let Some(t) = &self.emu else {
            return Ok(Vec::new());
        };
        (0..n)
            .map(|_| {
                let backend = EmuBackend::new(EmuConfig {
                    threads: Some(1),
                    ..t.config.clone()
                })
                .map_err(from_backend)?;
                Ok(Box::new(ConformanceDevice::with_codeobj(
                    backend,
                    t.objects.clone(),
                    t.timeout,
                )) as Box<dyn CaseDevice + Send>)
            })
            .collect()
    }
}

impl Opened {
    /// `n` devices to run cases side by side: software devices
    /// (`emu_workers`), or worker processes over the HIP devices.
    pub fn workers(&self, n: usize) -> Result<Vec<Box<dyn CaseDevice + Send>>, OpenError> {
        if self.emu.is_some() {
            self.emu_workers(n)
        } else {
            Ok(self.hip_worker_devices(n))
        }
    }

    /// HIP devices the run can use side by side: those of the selected
    /// device's target id (empty unless HIP runs in worker processes).
    pub fn hip_devices(&self) -> usize {
        self.hip_workers.len()
    }

    /// `n` worker processes over the HIP devices, round robin from the
    /// selected one (so `n` = the device count is one worker per device).
    fn hip_worker_devices(&self, n: usize) -> Vec<Box<dyn CaseDevice + Send>> {
        if self.hip_workers.is_empty() {
            return Vec::new();
        }
        (0..n)
            .map(|k| {
                let plan = self.hip_workers[k % self.hip_workers.len()].clone();
                Box::new(WorkerDevice::new(plan)) as Box<dyn CaseDevice + Send>
            })
            .collect()
    }

    /// Every device the run may record (the selected one first).
    pub fn devices(&self) -> Vec<crate::backend::DeviceInfo> {
        if self.hip_workers.is_empty() {
            vec![self.device.info().clone()]
        } else {
            self.hip_workers.iter().map(|p| p.info.clone()).collect()
        }
    }
}

/// The modes a run uses: those the conformance objects offer (their
/// descriptors' WGP_MODE: both on gfx1100, WGP only on gfx1030/gfx1200 and
/// most `--code-object` files, CU only on gfx9), narrowed to `requested`
/// when it is not empty. A request none of the objects offers is an error
/// naming what they do offer.
pub fn modes_for(
    objects: &[KernelObject],
    requested: &[crate::case::Mode],
) -> Result<Vec<crate::case::Mode>, String> {
    let mut offered: Vec<crate::case::Mode> = objects.iter().map(|o| o.mode).collect();
    offered.sort();
    offered.dedup();
    let chosen: Vec<_> = offered
        .iter()
        .copied()
        .filter(|m| requested.is_empty() || requested.contains(m))
        .collect();
    if chosen.is_empty() {
        let names =
            |v: &[crate::case::Mode]| v.iter().map(|m| m.name()).collect::<Vec<_>>().join(",");
        return Err(format!(
            "--mode {}: the conformance code objects offer only {}",
            names(requested),
            if offered.is_empty() {
                "none".to_string()
            } else {
                names(&offered)
            }
        ));
    }
    Ok(chosen)
}

/// WGPs the occupancy pattern fills on `info`'s device: on HIP the
/// multiprocessor count (WGPs on gfx10+ in WGP mode, CUs otherwise: more
/// than the WGPs, so the grid still covers every one); on the software
/// device, which has none, the stand-in `gen::pattern::STAND_IN_WGPS`
/// (policy `occupancy-stand-in`).
pub fn wgps_for(info: &crate::backend::DeviceInfo) -> u32 {
    match info.backend {
        crate::backend::BackendKind::Hip if info.compute_units > 0 => info.compute_units,
        _ => crate::gen::pattern::STAND_IN_WGPS,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Bad arguments or a bad code object (exit 2).
    #[error("{0}")]
    Usage(String),
    /// No device, library or kernel (exit 3).
    #[error("{0}")]
    Environment(String),
}

fn from_backend(e: BackendError) -> OpenError {
    match e {
        e @ BackendError::Hazard(_) => OpenError::Usage(e.to_string()),
        BackendError::Invalid(m) => OpenError::Usage(m),
        other => OpenError::Environment(other.to_string()),
    }
}

pub fn open(req: &DeviceRequest) -> Result<Opened, OpenError> {
    let emu_only = req.fault.is_some() || req.interleave_seed.is_some();
    if emu_only && req.choice == BackendChoice::Hip {
        return Err(OpenError::Usage(
            "--fault and --interleave-seed configure the software device; they cannot apply to --backend hip".into(),
        ));
    }
    if req.device.is_some() && req.choice == BackendChoice::Emu {
        return Err(OpenError::Usage(
            "--device selects a HIP device; it cannot apply to --backend emu".into(),
        ));
    }
    // A user's code object fixes the wave size (that of its kernels).
    let file = user_object(req)?;
    let file_wave = file.as_ref().map(|f| f.wave);
    let has_kernel = |processor: &str, wave: WaveSize| match file_wave {
        Some(w) => w == wave,
        None => crate::codeobj::find_embedded(processor, wave).is_some(),
    };
    // Probe HIP unless the software device was asked for (or the emu-only
    // options imply it).
    let choice = if emu_only && req.choice == BackendChoice::Auto {
        BackendChoice::Emu
    } else {
        req.choice
    };
    let probe = (choice != BackendChoice::Emu).then(crate::hip::probe);
    let view = probe.as_ref().map(HipView::from_probe);
    let mut selection =
        select(choice, view.as_ref(), &req.waves, req.device, has_kernel).map_err(|e| match e {
            SelectError::NoHipDevice(_)
            | SelectError::GpuUnusable { .. }
            | SelectError::NotHardware(_) => OpenError::Environment(e.to_string()),
            SelectError::NoWave(m) if !req.waves.is_empty() => OpenError::Usage(m),
            SelectError::NoWave(m) => OpenError::Environment(m),
        })?;
    if req.require_gpu {
        crate::backend::select::require_hardware(&selection, view.as_ref())
            .map_err(|e| OpenError::Environment(e.to_string()))?;
    }
    if let (Some(v), Some(_)) = (
        crate::hip::host::hsa_override_gfx_version(),
        selection.hip_device,
    ) {
        // Said in the notice and so in the results' `selection`.
        selection.reason = format!(
            "{}; HSA_OVERRIDE_GFX_VERSION={v}: the runtime reports the override's target, not the silicon's",
            selection.reason
        );
    }
    if emu_only && req.choice == BackendChoice::Auto {
        selection.reason =
            format!("software device ({EMU_TARGET} interpreter): --fault/--interleave-seed given");
    }
    // On a GPU, take the code object's bundle entry for the device's target.
    let file = match (file, &req.code_object, selection.hip_device) {
        (Some(_), Some(path), Some(_)) => {
            Some(file_object(path, &selection.target, req.allow_mutant).map_err(OpenError::Usage)?)
        }
        (f, _, _) => f,
    };
    let processor = selection
        .target
        .split(':')
        .next()
        .unwrap_or(&selection.target)
        .to_string();
    let objects: Vec<KernelObject> = match file {
        Some(f) => vec![f],
        None => embedded_objects(&processor)
            .into_iter()
            .filter(|o| selection.waves.contains(&o.wave))
            .collect(),
    };
    let report = probe.as_ref().and_then(|p| p.as_ref().ok());
    opened(req, selection, report, objects)
}

/// The user's `--code-object`, when given (read for the software device's
/// target first), refused when it holds no kernels of the `--wave` asked.
fn user_object(req: &DeviceRequest) -> Result<Option<KernelObject>, OpenError> {
    let file: Option<KernelObject> = match &req.code_object {
        None => None,
        Some(path) => {
            Some(file_object(path, EMU_TARGET, req.allow_mutant).map_err(OpenError::Usage)?)
        }
    };
    if let Some(f) = &file {
        if !req.waves.is_empty() && !req.waves.contains(&f.wave) {
            return Err(OpenError::Usage(format!(
                "{} holds wave{} kernels; --wave asks for {}",
                f.source,
                f.wave.lanes(),
                req.waves
                    .iter()
                    .map(|w| w.lanes().to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )));
        }
    }
    Ok(file)
}

/// The case device for `selection` (HIP worker processes, HIP in this
/// process, or the software device) running `objects`, with the software
/// device's template and its LDS granule said in the notice.
fn opened(
    req: &DeviceRequest,
    mut selection: Selection,
    report: Option<&crate::hip::HipReport>,
    objects: Vec<KernelObject>,
) -> Result<Opened, OpenError> {
    let mut emu = None;
    let mut hip_workers = Vec::new();
    let device: Box<dyn CaseDevice> = match (selection.hip_device, report) {
        (Some(index), Some(report)) if req.worker_exe.is_some() => {
            hip_workers = worker_plans(req, report, index, &objects)?;
            let first = hip_workers.first().cloned().ok_or_else(|| {
                OpenError::Environment(format!("HIP device {index} vanished from the probe"))
            })?;
            Box::new(WorkerDevice::new(first))
        }
        (Some(index), Some(report)) => {
            let backend = HipBackend::from_report(report, Some(index)).map_err(from_backend)?;
            Box::new(
                ConformanceDevice::with_codeobj(backend, objects, req.timeout)
                    .with_batch(req.batch),
            )
        }
        (Some(_), _) => return Err(OpenError::Environment("HIP selected but not probed".into())),
        (None, _) => {
            let config = EmuConfig {
                fault: req.fault,
                interleave_seed: req.interleave_seed,
                lds_granule: Some(req.lds_granule),
                hazard_check: req.hazard_check,
                ..EmuConfig::default()
            };
            let backend = EmuBackend::new(config.clone()).map_err(from_backend)?;
            emu = Some(EmuTemplate {
                config,
                objects: objects.clone(),
                timeout: req.timeout,
            });
            // Said in the notice (and so the results' `selection`): the
            // block the software device allocates with.
            selection.reason = format!("{}; LDS granule {} B", selection.reason, req.lds_granule);
            Box::new(ConformanceDevice::with_codeobj(
                backend,
                objects,
                req.timeout,
            ))
        }
    };
    Ok(Opened {
        device,
        selection,
        emu,
        hip_workers,
    })
}

/// Worker plans for the selected HIP device `index` and every other usable
/// device of the same target id (a run is one target's run: results must
/// not depend on which device a case landed on); `--device` keeps only it.
fn worker_plans(
    req: &DeviceRequest,
    report: &crate::hip::HipReport,
    index: u32,
    objects: &[KernelObject],
) -> Result<Vec<WorkerPlan>, OpenError> {
    let Some(exe) = req.worker_exe.clone() else {
        return Ok(Vec::new());
    };
    let usable = report.usable_devices();
    let Some(selected) = usable.iter().find(|d| d.index == index) else {
        return Err(OpenError::Environment(format!(
            "HIP device {index} is not usable"
        )));
    };
    let hip_visible = std::env::var(crate::suite::worker::VISIBLE_DEVICES).ok();
    let cuda_visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let mut chosen: Vec<&crate::hip::DeviceProps> = vec![selected];
    if req.device.is_none() {
        chosen.extend(
            usable
                .iter()
                .copied()
                .filter(|d| d.index != index && d.gcn_arch_name == selected.gcn_arch_name),
        );
    }
    Ok(chosen
        .into_iter()
        .map(|d| WorkerPlan {
            exe: exe.clone(),
            visible: visible_entry(d.index, hip_visible.as_deref(), cuda_visible.as_deref()),
            info: crate::backend::hip::device_info(report, d),
            objects: objects.to_vec(),
            timeout: req.timeout,
            label: format!("HIP device {}", d.index),
            batch: req.batch,
        })
        .collect())
}
