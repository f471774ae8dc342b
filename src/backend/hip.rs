//! The `Backend` for a real GPU, through `crate::hip`.
//!
//! One `HipBackend` drives one device from the thread that opened it (HIP's
//! current device is per thread; it is set again before each launch). Code
//! objects are parsed by `codeobj` (bundles: the entry for the device's
//! target id), loaded once with `hipModuleLoadData` and cached by content;
//! the kernarg segment is laid out by `codeobj::build_kernarg` from the
//! kernel's metadata and the device addresses of the dispatch's buffers.
//! Device buffers and the two timing events are kept from launch to launch
//! (grown when a launch needs more, freed with the backend); each launch
//! copies all its buffers in and only those `Dispatch::read_back` names
//! out.
//!
//! Watchdog: after the launch the stream is polled (`hipStreamQuery`) until
//! `Dispatch::timeout`. A launch still running then is `BackendError::Timeout`
//! and is *quarantined*: its stream, buffers, events and kernarg stay
//! allocated (the kernel may still write to them; freeing would hand that
//! memory to someone else), and the next dispatch first checks whether it has
//! finished. While one is still running, dispatches fail with
//! `BackendError::Environment` saying so, rather than queueing behind it.
//! HIP has no call that stops a running kernel.
//!
//! Faults: a device exception during a kernel (a memory violation, a trap)
//! makes the HIP runtime itself print "Device::callbackQueue aborting with
//! error" and call `abort()` (ROCm/clr rocclr/device/rocm/rocdevice.cpp,
//! `callbackQueue`, registered on every HSA queue): the process dies, no
//! status reaches `hipStreamQuery`. `BackendError::Fault` here covers only
//! the faults HIP does report as a status (hipErrorIllegalAddress,
//! hipErrorLaunchFailure, hipErrorAssert, ...). A case that may fault on
//! hardware (a misaligned 64-bit LDS atomic raises MEMVIOL) has to run in a
//! child process to get a verdict instead of a dead run.

use std::collections::HashMap;
use std::time::Instant;

use crate::backend::{Backend, BackendError, BackendKind, Completion, DeviceInfo, Dispatch};
use crate::case::WaveSize;
use crate::codeobj::{
    build_kernarg, embedded, find_embedded, CodeObject, EmbeddedObject, KernelMetadata, LaunchDims,
    TargetId,
};
use crate::hip::{
    probe, DeviceBuffer, DeviceProps, Event, Function, Hip, HipError, HipReport, Module, Stream,
    StreamState,
};

/// HIP status codes the backend classifies, from the generated bindings
/// (`hipError_t` of hip_runtime_api.h; see `crate::hip::sys`).
mod code {
    use crate::hip::sys::hipError_t as E;
    pub const INVALID_VALUE: u32 = E::hipErrorInvalidValue.0;
    pub const OUT_OF_MEMORY: u32 = E::hipErrorOutOfMemory.0;
    pub const INVALID_CONFIGURATION: u32 = E::hipErrorInvalidConfiguration.0;
    pub const INVALID_DEVICE_FUNCTION: u32 = E::hipErrorInvalidDeviceFunction.0;
    pub const INVALID_IMAGE: u32 = E::hipErrorInvalidImage.0;
    pub const NO_BINARY_FOR_GPU: u32 = E::hipErrorNoBinaryForGpu.0;
    pub const INVALID_KERNEL_FILE: u32 = E::hipErrorInvalidKernelFile.0;
    pub const NOT_FOUND: u32 = E::hipErrorNotFound.0;
    pub const ILLEGAL_ADDRESS: u32 = E::hipErrorIllegalAddress.0;
    pub const LAUNCH_OUT_OF_RESOURCES: u32 = E::hipErrorLaunchOutOfResources.0;
    pub const LAUNCH_TIMEOUT: u32 = E::hipErrorLaunchTimeOut.0;
    pub const ASSERT: u32 = E::hipErrorAssert.0;
    pub const LAUNCH_FAILURE: u32 = E::hipErrorLaunchFailure.0;
}

/// What dsxor was doing when HIP failed, which decides what the failure means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Allocating, copying in, creating streams and events.
    Setup,
    /// Loading the code object and finding the kernel.
    Load,
    /// `hipModuleLaunchKernel` itself (argument validation).
    Launch,
    /// Waiting for and reading back a launched kernel.
    Execute,
}

/// Classify a HIP failure as the `Backend` contract asks: the case's own
/// outcome (`Fault`), bad input (`Invalid`, exit 2) or environment (exit 3).
fn classify(e: HipError, phase: Phase) -> BackendError {
    let code = e.status().map(|s| s.code);
    let text = e.to_string();
    match (&e, phase, code) {
        (HipError::Invalid(_), _, _) => BackendError::Invalid(text),
        (HipError::LibraryNotFound { .. } | HipError::MissingSymbol { .. }, _, _) => {
            BackendError::Environment(text)
        }
        // A wave fault, a trap or a device-side assert while the kernel ran.
        (
            _,
            Phase::Execute,
            Some(
                code::ILLEGAL_ADDRESS
                | code::LAUNCH_FAILURE
                | code::ASSERT
                | code::LAUNCH_TIMEOUT
                | code::LAUNCH_OUT_OF_RESOURCES,
            ),
        ) => BackendError::Fault(text),
        (_, Phase::Load, Some(code::NO_BINARY_FOR_GPU)) => BackendError::Environment(text),
        (
            _,
            Phase::Load,
            Some(
                code::INVALID_IMAGE
                | code::INVALID_KERNEL_FILE
                | code::INVALID_DEVICE_FUNCTION
                | code::NOT_FOUND,
            ),
        ) => BackendError::Invalid(text),
        // hip_module.cpp (ihipLaunchKernel_validate): a block beyond the
        // kernel's launch bounds is hipErrorLaunchFailure at launch time, too
        // much LDS or a bad shape hipErrorInvalidValue/InvalidConfiguration.
        (
            _,
            Phase::Launch,
            Some(code::INVALID_VALUE | code::INVALID_CONFIGURATION | code::LAUNCH_FAILURE),
        ) => BackendError::Invalid(text),
        (_, _, Some(code::OUT_OF_MEMORY)) => BackendError::Environment(text),
        _ => BackendError::Environment(text),
    }
}

/// A code object loaded on the device, with what is needed to launch it.
///
/// Field order is drop order, and it matters: `hipModuleLoadData` does not
/// copy the image (ROCm/clr hipamd/src/hip_module.cpp → `PlatformState::
/// loadModule` → a `DynCO` made with `make_copy = false`,
/// hip_code_object.cpp), so the ELF bytes in `code` must outlive the module.
/// The functions (which keep the module alive) go first, then the module,
/// then the bytes.
struct LoadedObject {
    functions: HashMap<String, Function>,
    module: Module,
    code: CodeObject,
}

/// A launch that outlived its timeout: everything it may still touch. The
/// `_` fields are held, never read: they keep the allocations alive.
struct Quarantined {
    kernel: String,
    /// The code object (cache key) its kernel runs from: never evicted.
    object: u128,
    since: Instant,
    stream: Stream,
    _buffers: Vec<DeviceBuffer>,
    _events: (Event, Event),
    _kernarg: Vec<u8>,
}

/// A real GPU through libamdhip64.
pub struct HipBackend {
    hip: Hip,
    device: DeviceProps,
    target: TargetId,
    info: DeviceInfo,
    /// None after a timeout quarantined the stream and a new one could not
    /// be made; the next dispatch tries again.
    stream: Option<Stream>,
    objects: HashMap<u128, LoadedObject>,
    /// Keys of `objects`, least recently used first.
    recent: Vec<u128>,
    /// Objects kept loaded at most ([`LOADED_OBJECTS`]).
    object_bound: usize,
    quarantine: Vec<Quarantined>,
    /// Device buffers kept from launch to launch, by position in
    /// `Dispatch::buffers`: a launch reuses one that is large enough and
    /// replaces one that is not (see [`pooled_len`]). Fresh allocations per
    /// launch were the worker's largest host cost through the software
    /// runtime (page faults). A launch never sees another's data: each
    /// copies every buffer of its own in whole before it starts, and reads
    /// no byte past them (the kernels index buffers by the launch's own
    /// lanes and workgroups).
    pool: Vec<DeviceBuffer>,
    /// The timing events, recorded again by every launch (hipEventRecord
    /// on an event recorded before overwrites its state; on one still being
    /// recorded the result is undefined: hip_runtime_api.h, hipEventRecord).
    /// They come back here only once the launch's `stop` has completed, and
    /// go to quarantine with a launch that timed out.
    events: Option<(Event, Event)>,
}

/// Bytes a pooled device buffer is allocated with for a launch that needs
/// `len`: the next power of two, at least 64 KiB, so that a run whose
/// launches grow a little at a time reallocates a few times, not at every
/// launch. No contents are assumed: hipMalloc does not fill what it
/// returns (ROCm/clr hipamd/src/hip_memory.cpp, `ihipMalloc`:
/// `amd::SvmBuffer::malloc` and nothing after), so a fresh buffer held
/// earlier data on a GPU too, and the launch overwrites what it uses.
pub fn pooled_len(len: usize) -> usize {
    len.checked_next_power_of_two()
        .unwrap_or(len)
        .max(POOL_MIN_BYTES)
}

/// The smallest pooled device buffer (the software runtime's allocation
/// granule, hipsim/src/memory.rs `ALIGN`; a GPU's is at least a page).
const POOL_MIN_BYTES: usize = 64 << 10;

/// Code objects a `HipBackend` keeps loaded. Policy (no source sizes it):
/// `dsxor run` patches a fresh random offset into a code object for about
/// one case in 45, and each was loaded and kept for good, so a worker
/// process grew with `--cases` (through the software HIP runtime, about
/// 0.4 MB a module: 246 MB at 24,000 cases, against a 64 MiB budget). The
/// conformance device keeps `conformance::PATCHED_CACHE` patched objects
/// besides the four shipped ones of a target (wave32 and wave64, each in
/// WGP and CU mode: `kernels/prebuilt/manifest.json`), so this bound never
/// unloads one it still uses; one evicted is loaded again when needed (one
/// `hipModuleLoadData`).
pub const LOADED_OBJECTS: usize = crate::backend::conformance::PATCHED_CACHE + 4;

impl std::fmt::Debug for HipBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipBackend")
            .field("device", &self.device)
            .field("library", &self.hip.library().display_path())
            .finish()
    }
}

/// The device `index` (or the first usable one) of a probe, or why none fits.
pub fn choose_device(report: &HipReport, index: Option<u32>) -> Result<&DeviceProps, String> {
    if let Some(reason) = report.no_device_reason() {
        return Err(reason);
    }
    let usable = report.usable_devices();
    match index {
        None => usable
            .first()
            .copied()
            .ok_or_else(|| "no usable HIP device".to_string()),
        Some(i) => usable
            .iter()
            .copied()
            .find(|d| d.index == i)
            .ok_or_else(|| {
                let shown: Vec<String> = usable
                    .iter()
                    .map(|d| format!("{} ({})", d.index, d.gcn_arch_name))
                    .collect();
                let vis = if report.visibility.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; visibility: {}",
                        report
                            .visibility
                            .iter()
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                format!(
                    "HIP device {i} is not available: usable devices are {}{vis}",
                    shown.join(", ")
                )
            }),
    }
}

/// The embedded code object to run on `device`: for `wave` if given (the
/// device must run it), else for the device's default wave size first, then
/// any other it runs. The error is the one-line reason selection reports
/// ("no kernel for gfx1101 ...").
pub fn embedded_for(
    device: &DeviceProps,
    wave: Option<WaveSize>,
) -> Result<(WaveSize, &'static EmbeddedObject), String> {
    let runs: Vec<WaveSize> = device
        .wave_sizes()
        .into_iter()
        .filter_map(WaveSize::from_lanes)
        .collect();
    let order: Vec<WaveSize> = match wave {
        Some(w) if !runs.contains(&w) => {
            return Err(format!(
                "device {} ({}) does not run wave{}",
                device.index,
                device.gcn_arch_name,
                w.lanes()
            ))
        }
        Some(w) => vec![w],
        None => {
            let mut o: Vec<WaveSize> = runs
                .iter()
                .copied()
                .filter(|w| w.lanes() == device.wavefront_size)
                .collect();
            o.extend(
                runs.iter()
                    .copied()
                    .filter(|w| w.lanes() != device.wavefront_size),
            );
            o
        }
    };
    for w in &order {
        if let Some(obj) = find_embedded(&device.gcn_arch_name, *w) {
            return Ok((*w, obj));
        }
    }
    let have: Vec<String> = embedded()
        .iter()
        .map(|o| format!("{} wave{}", o.target, o.wave.lanes()))
        .collect();
    Err(format!(
        "no kernel for {} ({}) in this binary (embedded: {})",
        device.gcn_arch_name,
        order
            .iter()
            .map(|w| format!("wave{}", w.lanes()))
            .collect::<Vec<_>>()
            .join(" or "),
        if have.is_empty() {
            "none".to_string()
        } else {
            have.join(", ")
        }
    ))
}

/// What results record about a HIP device, from a probe (the parent of
/// worker processes records it without opening the device).
pub fn device_info(report: &HipReport, device: &DeviceProps) -> DeviceInfo {
    DeviceInfo {
        backend: BackendKind::Hip,
        name: device.name.clone(),
        target_id: device.gcn_arch_name.clone(),
        wave_sizes: device.wave_sizes(),
        compute_units: device.compute_units,
        clock_khz: Some(device.clock_khz),
        lds_per_block: device.lds_per_block,
        runtime_version: report.runtime_version.as_ref().ok().map(|v| v.to_string()),
        driver_version: report.driver_version.as_ref().ok().map(|v| v.to_string()),
        pci_bus_id: Some(device.pci_bus_id.clone()),
        uuid: device.uuid.clone(),
        placement: Some(Box::new(crate::backend::Placement::current())),
    }
}

impl HipBackend {
    /// Probe and open device `device_index` (HIP's ordinal after
    /// HIP_VISIBLE_DEVICES), or the first usable device. No library, no
    /// device or a device that cannot be set up: `BackendError::Environment`
    /// with the reason (HIP's own error name included).
    pub fn open(device_index: Option<u32>) -> Result<HipBackend, BackendError> {
        let report = probe().map_err(|e| BackendError::Environment(e.to_string()))?;
        HipBackend::from_report(&report, device_index)
    }

    /// Open a device of an existing probe (selection probes once, reports
    /// its one-line reason, then opens).
    pub fn from_report(
        report: &HipReport,
        device_index: Option<u32>,
    ) -> Result<HipBackend, BackendError> {
        let device = choose_device(report, device_index)
            .map_err(BackendError::Environment)?
            .clone();
        let hip = report.hip.clone();
        let target = TargetId::parse(&device.gcn_arch_name).map_err(|e| {
            BackendError::Environment(format!(
                "device {} reports target id {:?}, which dsxor cannot parse: {e}",
                device.index, device.gcn_arch_name
            ))
        })?;
        hip.set_device(device.index)
            .map_err(|e| classify(e, Phase::Setup))?;
        let stream = hip.stream().map_err(|e| classify(e, Phase::Setup))?;
        let info = device_info(report, &device);
        Ok(HipBackend {
            hip,
            device,
            target,
            info,
            stream: Some(stream),
            objects: HashMap::new(),
            recent: Vec::new(),
            object_bound: LOADED_OBJECTS,
            quarantine: Vec::new(),
            pool: Vec::new(),
            events: None,
        })
    }

    pub fn device(&self) -> &DeviceProps {
        &self.device
    }

    pub fn hip(&self) -> &Hip {
        &self.hip
    }

    /// Timed-out launches still running on the device.
    pub fn quarantined(&self) -> usize {
        self.quarantine.len()
    }

    /// Release quarantined launches that have finished since; fail while one
    /// still runs.
    fn reap(&mut self) -> Result<(), BackendError> {
        // A query error means the stream is dead; its work is not running.
        self.quarantine
            .retain(|q| q.stream.query().is_ok_and(|s| s == StreamState::Pending));
        match self.quarantine.first() {
            None => Ok(()),
            Some(q) => Err(BackendError::Environment(format!(
                "the device is still running kernel `{}`, which timed out {:.1?} ago; \
                 HIP cannot stop it, so no further launch is made (reset the GPU or restart)",
                q.kernel,
                q.since.elapsed()
            ))),
        }
    }

    /// Code objects loaded now (at most the bound, [`LOADED_OBJECTS`] unless
    /// set, but for those quarantined kernels hold).
    pub fn loaded_objects(&self) -> usize {
        self.objects.len()
    }

    /// Keep at most `n` (at least 1) code objects loaded instead of
    /// [`LOADED_OBJECTS`].
    pub fn set_object_bound(&mut self, n: usize) {
        self.object_bound = n.max(1);
    }

    /// Parse and load a code object once; its cache key: the bytes'
    /// XXH3-128, computed at every launch, so a fast hash (SHA-256 of a
    /// 66 KB object cost the worker about 4 % of its CPU). Not a security
    /// boundary: the objects are dsxor's own or the user's `--code-object`,
    /// and two distinct objects of one run colliding (2^-128 a pair) would
    /// launch the other's kernel, which the checker then judges.
    fn load_object(&mut self, bytes: &[u8]) -> Result<u128, BackendError> {
        let key = xxhash_rust::xxh3::xxh3_128(bytes);
        if !self.objects.contains_key(&key) {
            let code = CodeObject::parse_for_target(bytes, &self.target).map_err(|e| {
                BackendError::Invalid(format!(
                    "code object for device {} ({}): {e}",
                    self.device.index, self.device.gcn_arch_name
                ))
            })?;
            let module = self
                .hip
                .load_module(code.elf_bytes())
                .map_err(|e| classify(e, Phase::Load))?;
            self.objects.insert(
                key,
                LoadedObject {
                    code,
                    module,
                    functions: HashMap::new(),
                },
            );
        }
        self.recent.retain(|k| *k != key);
        self.recent.push(key);
        // Unload the least recently used beyond the bound, except an
        // object a quarantined (still running) kernel may execute.
        while self.objects.len() > self.object_bound.max(1) {
            let Some(at) = self.recent[..self.recent.len() - 1]
                .iter()
                .position(|k| !self.quarantine.iter().any(|q| q.object == *k))
            else {
                break;
            };
            let old = self.recent.remove(at);
            self.objects.remove(&old);
        }
        Ok(key)
    }

    /// Keep a launch that outlived its timeout, with everything it may
    /// still touch, out of reach of later launches; the timeout error.
    fn quarantine_launch(
        &mut self,
        d: &Dispatch<'_>,
        key: u128,
        events: (Event, Event),
        kernarg: Vec<u8>,
    ) -> BackendError {
        if let Some(stream) = self.stream.take() {
            self.quarantine.push(Quarantined {
                kernel: d.kernel.to_string(),
                object: key,
                since: Instant::now(),
                stream,
                // The kernel may still write them: they leave the pool.
                _buffers: std::mem::take(&mut self.pool),
                _events: events,
                _kernarg: kernarg,
            });
        }
        BackendError::Timeout {
            kernel: d.kernel.to_string(),
            limit: d.timeout,
            pc: None,
        }
    }
}

impl Backend for HipBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        self.reap()?;
        if d.groups == 0 || d.block == 0 {
            return Err(BackendError::Invalid(format!(
                "kernel `{}`: a launch of {} workgroups of {} work-items is empty",
                d.kernel, d.groups, d.block
            )));
        }
        let hip = self.hip.clone();
        hip.set_device(self.device.index)
            .map_err(|e| classify(e, Phase::Setup))?;
        if self.stream.is_none() {
            self.stream = Some(hip.stream().map_err(|e| classify(e, Phase::Setup))?);
        }

        // Code object, kernel metadata, function handle.
        let key = self.load_object(d.code_object)?;
        let Some(obj) = self.objects.get_mut(&key) else {
            return Err(BackendError::Environment(
                "code object cache lost an entry just inserted".into(),
            ));
        };
        let (meta, function) = kernel_of(obj, d, &self.device)?;

        // Current clr refuses a non-empty `extra` for a kernel without
        // explicit arguments (hipErrorLaunchOutOfResources): pass none then.
        let explicit_args = meta.args.iter().any(|a| !a.value_kind.is_hidden());

        // Buffers in; the kernarg segment laid out with their device addresses.
        let addresses = upload(&hip, &mut self.pool, &d.buffers)?;
        let launch = LaunchDims::linear(d.groups, d.block, d.dynamic_lds);
        let mut kernarg = build_kernarg(&meta, &d.args, &addresses, &launch)
            .map_err(|e| BackendError::Invalid(e.to_string()))?
            .bytes;

        let (start, stop) = match self.events.take() {
            Some(e) => e,
            None => (
                hip.event().map_err(|e| classify(e, Phase::Setup))?,
                hip.event().map_err(|e| classify(e, Phase::Setup))?,
            ),
        };
        let Some(stream) = self.stream.as_ref() else {
            return Err(BackendError::Environment("no stream".into()));
        };
        start
            .record(stream)
            .map_err(|e| classify(e, Phase::Setup))?;
        function
            .launch(
                stream,
                d.groups,
                d.block,
                d.dynamic_lds,
                explicit_args.then_some(kernarg.as_mut_slice()),
            )
            .map_err(|e| classify(e, Phase::Launch))?;
        // After the launch is enqueued: a device-fault status here is this
        // kernel's (current clr latches it, and every later call returns it).
        stop.record(stream)
            .map_err(|e| classify(e, Phase::Execute))?;

        // Watchdog.
        let done = stream
            .wait(d.timeout)
            .map_err(|e| classify(e, Phase::Execute))?;
        if !done {
            return Err(self.quarantine_launch(d, key, (start, stop), kernarg));
        }

        let elapsed = start
            .elapsed_until(&stop)
            .map_err(|e| classify(e, Phase::Execute))?;
        self.events = Some((start, stop));
        let out = read_back(&self.pool, d)?;
        Ok(Completion {
            buffers: out,
            elapsed,
            // HIP's API does not report the descriptor's mode.
            wgp_mode: None,
        })
    }
}

/// The kernel's metadata and function handle (loaded once per object),
/// after refusing a launch whose LDS the device cannot give.
fn kernel_of<'o>(
    obj: &'o mut LoadedObject,
    d: &Dispatch<'_>,
    device: &DeviceProps,
) -> Result<(KernelMetadata, &'o Function), BackendError> {
    let meta = obj
        .code
        .kernel(d.kernel)
        .map_err(|e| BackendError::Invalid(e.to_string()))?
        .metadata
        .clone()
        .ok_or_else(|| {
            BackendError::Invalid(format!(
                "kernel `{}` has no NT_AMDGPU_METADATA entry: its kernarg layout is unknown",
                d.kernel
            ))
        })?;
    if !obj.functions.contains_key(d.kernel) {
        let f = obj
            .module
            .function(d.kernel)
            .map_err(|e| classify(e, Phase::Load))?;
        obj.functions.insert(d.kernel.to_string(), f);
    }
    let Some(function) = obj.functions.get(d.kernel) else {
        return Err(BackendError::Environment(
            "kernel handle cache lost an entry just inserted".into(),
        ));
    };

    // From ROCm 6.3 the runtime no longer checks static + dynamic LDS at
    // launch (ROCm/clr hipamd/src/hip_module.cpp, ihipLaunchKernel_validate
    // lost the check); an oversize request then faults in the dispatch
    // packet. Refuse it here with the numbers.
    let static_lds = obj
        .code
        .kernel(d.kernel)
        .map(|k| k.descriptor.group_segment_fixed_size)
        .unwrap_or(meta.group_segment_fixed_size);
    let lds_total = u64::from(static_lds) + u64::from(d.dynamic_lds);
    if lds_total > u64::from(device.lds_per_block) {
        return Err(BackendError::Invalid(format!(
            "kernel `{}`: group_segment_fixed_size {static_lds} + dynamic LDS {} = {lds_total} bytes exceeds device {}'s {} bytes per workgroup (hipDeviceAttributeMaxSharedMemoryPerBlock)",
            d.kernel, d.dynamic_lds, device.index, device.lds_per_block
        )));
    }
    Ok((meta, function))
}

/// Copy each of the launch's buffers in whole (the pool's buffers hold the
/// last launch's data), growing the pool where one is too small; their
/// device addresses, in order.
fn upload(
    hip: &Hip,
    pool: &mut Vec<DeviceBuffer>,
    buffers: &[Vec<u8>],
) -> Result<Vec<u64>, BackendError> {
    for (i, b) in buffers.iter().enumerate() {
        // Positions fill in order, so `i` is at most the pool's length.
        if pool.get(i).is_none_or(|p| p.len() < b.len()) {
            let dev = hip
                .alloc(pooled_len(b.len()))
                .map_err(|e| classify(e, Phase::Setup))?;
            if i < pool.len() {
                pool[i] = dev;
            } else {
                pool.push(dev);
            }
        }
        pool[i]
            .copy_from_host(b)
            .map_err(|e| classify(e, Phase::Setup))?;
    }
    Ok(pool[..buffers.len()]
        .iter()
        .map(|b| b.device_address())
        .collect())
}

/// The buffers `d.read_back` names, copied out at the launch's own lengths;
/// an empty one in the place of each other.
fn read_back(pool: &[DeviceBuffer], d: &Dispatch<'_>) -> Result<Vec<Vec<u8>>, BackendError> {
    let mut out = Vec::with_capacity(d.buffers.len());
    for (i, (dev, host)) in pool.iter().zip(&d.buffers).enumerate() {
        if !d.read_back.wants(i) {
            out.push(Vec::new());
            continue;
        }
        // The launch's own length, not the pooled buffer's.
        let mut b = vec![0u8; host.len()];
        dev.copy_to_host(&mut b)
            .map_err(|e| classify(e, Phase::Execute))?;
        out.push(b);
    }
    Ok(out)
}

impl Drop for HipBackend {
    fn drop(&mut self) {
        // Kernels still running after a timeout may use their buffers and
        // module: leak those rather than free memory a kernel writes to.
        self.quarantine
            .retain(|q| q.stream.query().is_ok_and(|s| s == StreamState::Pending));
        if !self.quarantine.is_empty() {
            for q in self.quarantine.drain(..) {
                std::mem::forget(q);
            }
            for (_, o) in self.objects.drain() {
                std::mem::forget(o);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hip::HipStatus;

    fn device(arch: &str, default_wave: u32) -> DeviceProps {
        DeviceProps {
            index: 0,
            name: "made-up".into(),
            gcn_arch_name: arch.into(),
            compute_units: 96,
            clock_khz: 2_500_000,
            lds_per_block: 65536,
            wavefront_size: default_wave,
            pci_bus_id: "0000:03:00.0".into(),
            uuid: None,
        }
    }

    #[test]
    fn pooled_buffers_grow_in_powers_of_two_from_64_kib() {
        assert_eq!(pooled_len(0), 64 << 10);
        assert_eq!(pooled_len(1), 64 << 10);
        assert_eq!(pooled_len(64 << 10), 64 << 10);
        assert_eq!(pooled_len((64 << 10) + 1), 128 << 10);
        assert_eq!(pooled_len(3 << 20), 4 << 20);
        // No overflow: a length with no next power of two is kept.
        assert_eq!(pooled_len(usize::MAX), usize::MAX);
    }

    #[test]
    fn embedded_object_by_wave_size() {
        let gfx1100 = device("gfx1100", 32);
        // Whatever build.rs embedded, the answer must agree with the list.
        for (want, w) in [
            (None, WaveSize::Wave32),
            (Some(WaveSize::Wave64), WaveSize::Wave64),
        ] {
            match (embedded_for(&gfx1100, want), find_embedded("gfx1100", w)) {
                (Ok((got, obj)), Some(expected)) => {
                    assert_eq!(got, w);
                    assert_eq!(obj.bytes.as_ptr(), expected.bytes.as_ptr());
                }
                (Err(e), None) => assert!(e.contains("no kernel for gfx1100"), "{e}"),
                (r, e) => panic!("embedded_for {r:?} disagrees with find_embedded {e:?}"),
            }
        }
        // gfx9 runs wave64 only.
        let e = embedded_for(
            &device("gfx90a:sramecc+:xnack-", 64),
            Some(WaveSize::Wave32),
        )
        .expect_err("gfx90a has no wave32");
        assert!(e.contains("does not run wave32"), "{e}");
        // A processor nothing was built for.
        let e = embedded_for(&device("gfx1101", 32), None).expect_err("no gfx1101 objects");
        assert!(
            e.contains("no kernel for gfx1101 (wave32 or wave64)"),
            "{e}"
        );
    }

    fn call(code: u32) -> HipError {
        HipError::Call {
            call: "hipX",
            status: HipStatus {
                code,
                name: format!("hipError{code}"),
                string: String::new(),
            },
            doing: "testing".into(),
        }
    }

    #[test]
    fn device_exceptions_while_running_are_faults() {
        for c in [
            code::ILLEGAL_ADDRESS,
            code::LAUNCH_FAILURE,
            code::ASSERT,
            code::LAUNCH_TIMEOUT,
        ] {
            assert!(matches!(
                classify(call(c), Phase::Execute),
                BackendError::Fault(_)
            ));
        }
        // The same code at launch time is a malformed dispatch, not a fault.
        assert!(matches!(
            classify(call(code::LAUNCH_FAILURE), Phase::Launch),
            BackendError::Invalid(_)
        ));
    }

    #[test]
    fn load_failures_split_into_input_and_environment() {
        assert!(matches!(
            classify(call(code::INVALID_IMAGE), Phase::Load),
            BackendError::Invalid(_)
        ));
        assert!(matches!(
            classify(call(code::NOT_FOUND), Phase::Load),
            BackendError::Invalid(_)
        ));
        // hipErrorNoBinaryForGpu: no kernel for this target (exit 3).
        assert!(matches!(
            classify(call(code::NO_BINARY_FOR_GPU), Phase::Load),
            BackendError::Environment(_)
        ));
    }

    #[test]
    fn no_device_and_missing_symbols_are_environment() {
        assert!(matches!(
            classify(call(crate::hip::HIP_ERROR_NO_DEVICE), Phase::Setup),
            BackendError::Environment(_)
        ));
        assert!(matches!(
            classify(call(code::OUT_OF_MEMORY), Phase::Setup),
            BackendError::Environment(_)
        ));
        let missing = HipError::MissingSymbol {
            library: "libx.so".into(),
            symbol: "hipMalloc",
            reason: "undefined symbol".into(),
            doing: "allocating".into(),
        };
        match classify(missing, Phase::Setup) {
            BackendError::Environment(m) => assert!(m.contains("hipMalloc"), "{m}"),
            other => panic!("{other}"),
        }
        assert!(matches!(
            classify(HipError::Invalid("x".into()), Phase::Execute),
            BackendError::Invalid(_)
        ));
    }
}
