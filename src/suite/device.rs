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
use crate::emu::{EmuConfig, Fault};

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct DeviceRequest {
    pub choice: BackendChoice,
    /// `--device N` (HIP ordinal).
    pub device: Option<u32>,
    /// `--wave` (empty: every wave size the device and kernels offer).
    pub waves: Vec<WaveSize>,
    pub code_object: Option<PathBuf>,
    pub fault: Option<Fault>,
    pub interleave_seed: Option<u64>,
    pub timeout: Duration,
    /// The policy's LDS allocation block in bytes (`--lds-granule`). The
    /// software device allocates with it, so it and the model agree on
    /// where the in-range slack ends; on HIP the hardware decides and the
    /// value only shapes the judgement.
    pub lds_granule: u32,
    /// Software device only: report missing `s_waitcnt`s as hazards
    /// ([`EmuConfig::hazard_check`]); the command line sets it for
    /// `--code-object` unless `--no-hazard-check`.
    pub hazard_check: bool,
}

/// An opened device.
pub struct Opened {
    pub device: Box<dyn CaseDevice>,
    pub selection: Selection,
    /// For the software device: how to open more of it (`emu_workers`).
    emu: Option<EmuTemplate>,
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
    let file: Option<KernelObject> = match &req.code_object {
        None => None,
        Some(path) => Some(file_object(path, EMU_TARGET).map_err(OpenError::Usage)?),
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
            SelectError::NoHipDevice(_) => OpenError::Environment(e.to_string()),
            SelectError::NoWave(m) if !req.waves.is_empty() => OpenError::Usage(m),
            SelectError::NoWave(m) => OpenError::Environment(m),
        })?;
    if emu_only && req.choice == BackendChoice::Auto {
        selection.reason =
            format!("software device ({EMU_TARGET} interpreter): --fault/--interleave-seed given");
    }
    // On a GPU, take the code object's bundle entry for the device's target.
    let file = match (file, &req.code_object, selection.hip_device) {
        (Some(_), Some(path), Some(_)) => {
            Some(file_object(path, &selection.target).map_err(OpenError::Usage)?)
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
    let mut emu = None;
    let device: Box<dyn CaseDevice> = match (selection.hip_device, &probe) {
        (Some(index), Some(Ok(report))) => {
            let backend = HipBackend::from_report(report, Some(index)).map_err(from_backend)?;
            Box::new(ConformanceDevice::with_codeobj(
                backend,
                objects,
                req.timeout,
            ))
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
    })
}
