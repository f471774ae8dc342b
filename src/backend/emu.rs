//! The software device as a [`Backend`]: takes a [`Dispatch`], reads the
//! code object with `codeobj`, places the buffers and the kernarg segment in
//! emulated global memory at fake device addresses, runs the kernel on the
//! gfx11 interpreter (`crate::emu`) and copies the buffers back.

use std::time::Instant;

use super::{Backend, BackendError, BackendKind, Completion, DeviceInfo, Dispatch};
use crate::codeobj::{build_kernarg, CodeObject, KernelMetadata, LaunchDims};
use crate::emu::decode::{decode_kernel_of, Decoded};
use crate::emu::mem::GlobalMem;
use crate::emu::{self, EmuConfig, EmuError, KernelSetup, Launch, RunStats, WaveError};

/// Processors whose code the interpreter runs (gfx11: RDNA3 and RDNA3.5;
/// same ISA, LLVM's GFX11 encodings).
pub const GFX11_PROCESSORS: [&str; 9] = [
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1150",
    "gfx1151",
    "gfx1152",
    "gfx1153",
    "gfx11-generic",
];

/// The software device.
pub struct EmuBackend {
    info: DeviceInfo,
    config: EmuConfig,
    /// `config` with `threads` resolved once: `available_parallelism` reads
    /// cgroup files, a system call per dispatch when left to `emu::run`.
    run_config: EmuConfig,
    /// Counters of the last completed dispatch.
    last: Option<RunStats>,
    /// Code objects already parsed and decoded, keyed by their content,
    /// most recently used first, at most [`PARSED_CACHE`] of them.
    parsed: Vec<Parsed>,
}

/// Parsed code objects a software device keeps. A conformance run uses one
/// object per wave size plus offset-patched copies that come and go (one
/// per patched offset), so a handful covers the hot set while memory stays
/// bounded whatever the number of cases.
pub const PARSED_CACHE: usize = 8;

/// One code object, parsed once: the ELF and its metadata, and each
/// launched kernel's setup and program (its own code, decoded at its first
/// launch: `emu::decode::decode_kernel`).
struct Parsed {
    /// The content key: the code object's bytes. Looking it up compares
    /// bytes (a memcmp, ~1 µs for a 20 KB object), which is exact and far
    /// cheaper than parsing ELF and msgpack metadata again (~80 µs).
    bytes: Vec<u8>,
    co: CodeObject,
    /// Kernels set up so far.
    kernels: Vec<SetUpKernel>,
}

/// A kernel of a [`Parsed`] object, set up at its first launch.
struct SetUpKernel {
    name: String,
    setup: KernelSetup,
    /// Its index in the object's `co.kernels`.
    index: usize,
    /// Its decoded code (`emu::decode::decode_kernel_of`).
    program: Decoded,
}

impl Parsed {
    fn new(bytes: &[u8]) -> Result<Parsed, BackendError> {
        let co = CodeObject::parse(bytes)
            .map_err(|e| BackendError::Invalid(format!("emu: code object: {e}")))?;
        let processor = co.target.processor.as_str();
        if !GFX11_PROCESSORS.contains(&processor) {
            return Err(BackendError::Environment(format!(
                "emu: the software device runs gfx11 code ({}); this code object is for {}",
                GFX11_PROCESSORS.join(", "),
                co.target
            )));
        }
        co.text()
            .map_err(|e| BackendError::Invalid(format!("emu: {e}")))?;
        Ok(Parsed {
            bytes: bytes.to_vec(),
            co,
            kernels: Vec::new(),
        })
    }

    /// The setup and metadata of `name`, set up on first use.
    fn kernel(
        &mut self,
        d: &Dispatch<'_>,
    ) -> Result<(&KernelSetup, &KernelMetadata, &Decoded), BackendError> {
        let at = match self.kernels.iter().position(|k| k.name == d.kernel) {
            Some(at) => at,
            None => {
                let k = self
                    .co
                    .kernels
                    .iter()
                    .position(|k| k.name == d.kernel)
                    .ok_or_else(|| {
                        // The codeobj error names the kernels that exist.
                        let e = self.co.kernel(d.kernel).err().map(|e| e.to_string());
                        BackendError::Invalid(format!(
                            "emu: {}",
                            e.unwrap_or_else(|| format!("no kernel `{}`", d.kernel))
                        ))
                    })?;
                let kernel = &self.co.kernels[k];
                if kernel.metadata.is_none() {
                    return Err(BackendError::Invalid(format!(
                        "emu: kernel `{}` has no metadata: cannot lay out its kernarg segment",
                        d.kernel
                    )));
                }
                let setup =
                    KernelSetup::from_kernel(kernel).map_err(|e| map_err(e, d.kernel, d))?;
                let program = decode_kernel_of(&self.co, kernel)
                    .map_err(|e| BackendError::Invalid(format!("emu: {e}")))?;
                self.kernels.push(SetUpKernel {
                    name: d.kernel.to_string(),
                    setup,
                    index: k,
                    program,
                });
                self.kernels.len() - 1
            }
        };
        let SetUpKernel {
            setup,
            index,
            program,
            ..
        } = &self.kernels[at];
        let meta = self.co.kernels[*index]
            .metadata
            .as_ref()
            .ok_or_else(|| BackendError::Invalid("emu: kernel metadata vanished".into()))?;
        Ok((setup, meta, program))
    }
}

impl EmuBackend {
    /// A software device with `config` (fault injection, interleaving seed,
    /// instruction budget, threads). Never needs hardware; fails only on a
    /// configuration it cannot honour.
    pub fn new(config: EmuConfig) -> Result<EmuBackend, BackendError> {
        if config.threads == Some(0) {
            return Err(BackendError::Invalid(
                "emu: threads must be at least 1".into(),
            ));
        }
        if let Some(g) = config.lds_granule {
            if g == 0 || g % 4 != 0 || g > emu::LDS_MAX {
                return Err(BackendError::Invalid(format!(
                    "emu: LDS granule {g} must be a multiple of 4 in 4..={}",
                    emu::LDS_MAX
                )));
            }
        }
        if config.instruction_budget == Some(0) {
            return Err(BackendError::Invalid(
                "emu: instruction budget must be at least 1".into(),
            ));
        }
        let threads = config.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        let mut name = "dsxor emu gfx11 (RDNA3 interpreter)".to_string();
        if let Some(f) = config.fault {
            name.push_str(&format!(", fault {f}"));
        }
        if let Some(s) = config.interleave_seed {
            name.push_str(&format!(", interleave seed {s}"));
        }
        let placement = super::Placement::current();
        Ok(EmuBackend {
            info: DeviceInfo {
                backend: BackendKind::Emu,
                name,
                target_id: "gfx1100".into(),
                wave_sizes: vec![32, 64],
                // One "compute unit" per host thread the workgroups are spread over.
                compute_units: threads as u32,
                clock_khz: None,
                lds_per_block: emu::LDS_MAX,
                runtime_version: Some(format!("dsxor {}", env!("CARGO_PKG_VERSION"))),
                driver_version: None,
                pci_bus_id: None,
                uuid: Some(format!("dsxor-emu@{}", placement.host)),
                placement: Some(Box::new(placement)),
            },
            run_config: EmuConfig {
                threads: Some(threads),
                ..config.clone()
            },
            config,
            last: None,
            parsed: Vec::new(),
        })
    }

    pub fn config(&self) -> &EmuConfig {
        &self.config
    }

    /// Instruction and DS-atomic counters of the last completed dispatch.
    pub fn last_stats(&self) -> Option<RunStats> {
        self.last
    }
}

fn map_err(e: EmuError, kernel: &str, d: &Dispatch<'_>) -> BackendError {
    match e {
        EmuError::Timeout { pc, .. } => BackendError::Timeout {
            kernel: kernel.to_string(),
            limit: d.timeout,
            pc: Some(pc),
        },
        EmuError::Unsupported { .. } => BackendError::Unsupported(e.to_string()),
        EmuError::InvalidLaunch { .. } => BackendError::Invalid(e.to_string()),
        EmuError::Wave {
            error: WaveError::Unsupported { .. },
            ..
        } => BackendError::Unsupported(e.to_string()),
        // A hazard is a defect of the kernel (the input), not of the device
        // nor a conformance failure: its own variant, exit 2.
        EmuError::Wave {
            error: WaveError::Hazard { .. },
            ..
        } => BackendError::Hazard(e.to_string()),
        EmuError::Wave { .. } => BackendError::Fault(e.to_string()),
    }
}

/// An hsa_kernel_dispatch_packet_t (hsa.h; 64 bytes) for kernels that ask
/// for the dispatch pointer.
fn dispatch_packet(d: &Dispatch<'_>, lds: u32, kernarg: u64) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    // setup: 1 dimension (bits 1:0).
    p[2..4].copy_from_slice(&1u16.to_le_bytes());
    p[4..6].copy_from_slice(&(d.block as u16).to_le_bytes());
    p[6..8].copy_from_slice(&1u16.to_le_bytes());
    p[8..10].copy_from_slice(&1u16.to_le_bytes());
    let grid = d.groups.saturating_mul(d.block);
    p[12..16].copy_from_slice(&grid.to_le_bytes());
    p[16..20].copy_from_slice(&1u32.to_le_bytes());
    p[20..24].copy_from_slice(&1u32.to_le_bytes());
    p[28..32].copy_from_slice(&lds.to_le_bytes());
    p[40..48].copy_from_slice(&kernarg.to_le_bytes());
    p
}

impl Backend for EmuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        let start = Instant::now();
        let hit = self
            .parsed
            .iter()
            .position(|p| p.bytes.as_slice() == d.code_object);
        match hit {
            Some(0) => {}
            Some(i) => {
                let p = self.parsed.remove(i);
                self.parsed.insert(0, p);
            }
            None => {
                let p = Parsed::new(d.code_object)?;
                self.parsed.truncate(PARSED_CACHE - 1);
                self.parsed.insert(0, p);
            }
        }
        let Some(parsed) = self.parsed.first_mut() else {
            return Err(BackendError::Invalid(
                "emu: parsed code object missing".into(),
            ));
        };
        let (setup, meta, program) = parsed.kernel(d)?;

        let mut mem = GlobalMem::new();
        let addrs: Vec<u64> = d
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| mem.map(&format!("buffer {i}"), b))
            .collect();
        let dims = LaunchDims::linear(d.groups, d.block, d.dynamic_lds);
        let kernarg = build_kernarg(meta, &d.args, &addrs, &dims)
            .map_err(|e| BackendError::Invalid(format!("emu: {e}")))?;
        let kernarg_addr = mem.map("kernarg segment", &kernarg.bytes);
        let lds = emu::lds_allocation(setup, d.dynamic_lds, self.config.lds_granule)
            .map_err(|e| map_err(e, d.kernel, d))?;
        let dispatch_packet_addr = setup
            .dispatch_ptr
            .then(|| mem.map("dispatch packet", &dispatch_packet(d, lds, kernarg_addr)));
        let launch = Launch {
            program,
            setup,
            groups: d.groups,
            block: d.block,
            dynamic_lds: d.dynamic_lds,
            kernarg_addr,
            dispatch_packet_addr,
            lds_granule: self.config.lds_granule,
            timeout: d.timeout,
        };
        let stats =
            emu::run(&launch, &mem, &self.run_config).map_err(|e| map_err(e, d.kernel, d))?;
        self.last = Some(stats);
        let mut buffers = Vec::with_capacity(d.buffers.len());
        for i in 0..d.buffers.len() {
            if !d.read_back.wants(i) {
                buffers.push(Vec::new());
                continue;
            }
            buffers.push(
                mem.region_bytes(i)
                    .ok_or_else(|| BackendError::Invalid(format!("emu: buffer {i} vanished")))?,
            );
        }
        Ok(Completion {
            buffers,
            elapsed: start.elapsed(),
            wgp_mode: Some(stats.wgp_mode),
        })
    }
}
