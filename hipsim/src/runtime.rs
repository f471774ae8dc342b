//! The runtime's state: devices, handles, streams with their worker
//! threads, events, modules, and the launch itself.
//!
//! Each behaviour that mirrors ROCm's runtime names the ROCm/clr file it
//! comes from (`hipamd/src/...`, `rocclr/...`; tags rocm-6.0.2 and
//! rocm-6.2.2, and current clr in ROCm/rocm-systems `projects/clr`).

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use dsxor::codeobj::{CodeObject, CodeObjectError, KernelMetadata, TargetId, ValueKind};
use dsxor::emu::decode::{decode_kernel_of, Decoded};
use dsxor::emu::mem::GlobalMem;
use dsxor::emu::{self, EmuError, KernelSetup, Launch, WaveError};
use dsxor::hip::sys::hipError_t as E;

use crate::config::{Config, OnFault};
use crate::memory::{Allocation, Heap, OutOfMemory};

pub type R<T> = Result<T, E>;

/// LDS a workgroup may allocate on gfx11: 64 KiB (AMDGPUUsage; clr reports
/// it as `localMemSizePerCU_`, rocclr/device/rocm/rocdevice.cpp, from the
/// agent's group segment size).
pub const LDS_PER_BLOCK: u32 = 65536;
/// `maxWorkGroupSize_` (rocdevice.cpp: 1024 on every AMD GPU).
pub const MAX_WORK_GROUP_SIZE: u64 = 1024;
/// How long the software device lets a kernel run: a real GPU has no limit
/// (the caller's watchdog decides), so one day stands for "until it ends".
const RUN_LIMIT: Duration = Duration::from_secs(86_400);

/// Processors the interpreter runs (gfx11, LLVM's GFX11 encodings).
fn executes(target: &TargetId) -> bool {
    dsxor::backend::emu::GFX11_PROCESSORS.contains(&target.processor.as_str())
}

pub struct Device {
    pub ordinal: usize,
    /// Its ordinal in `DSXOR_HIPSIM_DEVICES`, before visibility filters:
    /// what stays the same whichever process sees the device (its PCI
    /// address, its UUID, whether `DSXOR_HIPSIM_FAULT` applies).
    pub physical: usize,
    /// What `hipDeviceGetUuid` returns (`config::simulated_uuid`).
    pub uuid: [u8; 16],
    pub target: TargetId,
    pub name: String,
    pub heap: Mutex<Heap>,
    /// Every stream of the device (its null stream included), for
    /// `hipFree`'s wait.
    pub streams: Mutex<Vec<Arc<Stream>>>,
    pub null_stream: OnceLock<Arc<Stream>>,
    /// `DSXOR_HIPSIM_LDS=leftover`: the device's one physical LDS, kept
    /// across workgroups and launches.
    pub lds: Option<dsxor::emu::LdsLeftover>,
}

/// Launches and event markers, in stream order.
enum Cmd {
    Launch(Box<LaunchCmd>),
    Marker(Arc<Event>, u64),
}

struct StreamState {
    queue: VecDeque<Cmd>,
    busy: bool,
    destroyed: bool,
}

pub struct Stream {
    pub device: usize,
    state: Mutex<StreamState>,
    cv: Condvar,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum EventState {
    Unrecorded,
    Pending(u64),
    Done(Instant),
}

pub struct Event {
    state: Mutex<(EventState, u64)>,
    cv: Condvar,
}

/// What a module keeps of the caller's image between calls: the pointer and
/// length (the bytes stay the caller's), and what was parsed from them.
pub struct Module {
    pub device: usize,
    image: *const u8,
    image_len: usize,
    prepared: Mutex<Arc<Prepared>>,
}

// SAFETY: `image` is only read (as HIP reads the image it was given); the
// caller owns it and must keep it alive until hipModuleUnload, as with ROCm.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

/// A parse of the image, reused while the caller's bytes stay the same.
pub struct Prepared {
    image: Vec<u8>,
    pub code: CodeObject,
    /// Each launched kernel's program by entry address, decoded at its first
    /// launch: its own code, not every kernel of the object
    /// (`dsxor::emu::decode::decode_kernel_of`, policy `decode-kernel-range`).
    programs: Mutex<Vec<(u64, Arc<Decoded>)>>,
}

impl Prepared {
    /// The program of `kernel`, decoded on first use.
    fn program(&self, kernel: &dsxor::codeobj::Kernel) -> R<Arc<Decoded>> {
        let mut programs = lock(&self.programs);
        if let Some((_, p)) = programs.iter().find(|(e, _)| *e == kernel.entry_vaddr) {
            return Ok(Arc::clone(p));
        }
        let p =
            Arc::new(decode_kernel_of(&self.code, kernel).map_err(|_| E::hipErrorInvalidImage)?);
        programs.push((kernel.entry_vaddr, Arc::clone(&p)));
        Ok(p)
    }
}

pub struct Function {
    pub module: Arc<Module>,
    pub name: String,
}

struct LaunchCmd {
    program: Arc<Decoded>,
    setup: KernelSetup,
    groups: u32,
    block: u32,
    dynamic_lds: u32,
    kernarg: Vec<u8>,
    name: String,
}

pub struct Runtime {
    pub config: Config,
    pub devices: Vec<Device>,
    /// The latched error of sticky mode (0: none).
    sticky: AtomicU32,
    fail_calls: AtomicU64,
    stall_calls: AtomicU64,
    /// Launches of `config.device_fault`'s kernel so far.
    device_fault_launches: AtomicU64,
    next_handle: AtomicUsize,
    streams: Mutex<HashMap<usize, Arc<Stream>>>,
    events: Mutex<HashMap<usize, Arc<Event>>>,
    modules: Mutex<HashMap<usize, Arc<Module>>>,
    functions: Mutex<HashMap<usize, Arc<Function>>>,
}

thread_local! {
    /// HIP's current device is per thread (hipamd/src/hip_device_runtime.cpp,
    /// hipSetDevice; hip::tls), device 0 until set.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// A poisoned lock only means a panic elsewhere (caught at the C boundary);
/// the state it guards is still consistent, so keep using it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The runtime, built from the environment on first use. A configuration
/// error is printed once and every call then fails with
/// hipErrorNotInitialized (the runtime could not initialise).
pub fn runtime() -> R<&'static Runtime> {
    let r = RUNTIME.get_or_init(|| {
        Config::from_env().map(Runtime::new).inspect_err(|e| {
            eprintln!("dsxor-hipsim: bad configuration: {e}");
        })
    });
    r.as_ref().map_err(|_| E::hipErrorNotInitialized)
}

/// Ends with dsxor's `HIPSIM_NAME_SUFFIX`, by which dsxor knows a record
/// made here is the software device's (`dsxor qualify`: plumbing only).
fn device_name(t: &TargetId) -> String {
    use dsxor::backend::HIPSIM_NAME_SUFFIX;
    if t.processor == "gfx1100" {
        format!("AMD Radeon RX 7900 XTX {HIPSIM_NAME_SUFFIX}")
    } else {
        format!("{t} {HIPSIM_NAME_SUFFIX}")
    }
}

impl Runtime {
    pub fn new(config: Config) -> Runtime {
        let devices = config
            .devices
            .iter()
            .enumerate()
            .map(|(ordinal, target)| Device {
                ordinal,
                physical: config.physical[ordinal],
                uuid: config.uuids[ordinal],
                target: target.clone(),
                name: device_name(target),
                heap: Mutex::new(Heap::new(ordinal)),
                streams: Mutex::new(Vec::new()),
                null_stream: OnceLock::new(),
                lds: config.lds_leftover.then(dsxor::emu::LdsLeftover::new),
            })
            .collect();
        Runtime {
            config,
            devices,
            sticky: AtomicU32::new(0),
            fail_calls: AtomicU64::new(0),
            stall_calls: AtomicU64::new(0),
            device_fault_launches: AtomicU64::new(0),
            next_handle: AtomicUsize::new(0x1000),
            streams: Mutex::new(HashMap::new()),
            events: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
        }
    }

    /// Sticky mode's latched error, if any (current clr: every call returns
    /// it once a device has faulted; rocclr/device/rocm/rocdevice.cpp,
    /// callbackQueue with HIP_SKIP_ABORT_ON_GPU_ERROR).
    pub fn sticky(&self) -> R<()> {
        match self.sticky.load(Ordering::SeqCst) {
            0 => Ok(()),
            c => Err(E(c)),
        }
    }

    /// DSXOR_HIPSIM_FAIL: whether this call of `entry` is the one to fail.
    pub fn injected(&self, entry: &str) -> bool {
        match &self.config.fail {
            Some((name, n)) if name == entry => {
                self.fail_calls.fetch_add(1, Ordering::SeqCst) + 1 == *n
            }
            _ => false,
        }
    }

    /// DSXOR_HIPSIM_STALL: whether this call of `entry` is the one that
    /// never returns.
    pub fn stalls(&self, entry: &str) -> bool {
        match &self.config.stall {
            Some((name, n)) if name == entry => {
                self.stall_calls.fetch_add(1, Ordering::SeqCst) + 1 == *n
            }
            _ => false,
        }
    }

    /// DSXOR_HIPSIM_DEVICE_FAULT: whether this launch of `kernel` is the
    /// one to fault (launches counted per process, as the stream runs them).
    fn device_faults(&self, kernel: &str) -> Option<u64> {
        match &self.config.device_fault {
            Some((name, n)) if name == kernel => {
                let k = self.device_fault_launches.fetch_add(1, Ordering::SeqCst) + 1;
                (k == *n).then_some(k)
            }
            _ => None,
        }
    }

    fn handle(&self) -> usize {
        self.next_handle.fetch_add(0x10, Ordering::Relaxed)
    }

    // ---- devices ----

    pub fn device(&self, ordinal: i32) -> R<&Device> {
        if self.devices.is_empty() {
            return Err(E::hipErrorNoDevice);
        }
        usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.devices.get(i))
            .ok_or(E::hipErrorInvalidDevice)
    }

    pub fn current(&self) -> R<&Device> {
        let i = CURRENT.with(|c| c.get());
        if self.devices.is_empty() {
            return Err(E::hipErrorNoDevice);
        }
        self.devices.get(i).ok_or(E::hipErrorInvalidDevice)
    }

    pub fn set_current(&self, ordinal: i32) -> R<()> {
        let d = self.device(ordinal)?;
        CURRENT.with(|c| c.set(d.ordinal));
        Ok(())
    }

    /// The device's reported "multiprocessor" count: on gfx10 and later clr
    /// reports WGPs, half the CUs, in WGP mode, the default; with
    /// `GPU_ENABLE_WGP_MODE` false, CUs (rocclr/device/rocm/rocsettings.cpp:
    /// `if (gfxipMajor >= 10) enableWgpMode_ = GPU_ENABLE_WGP_MODE`;
    /// rocdevice.cpp: `maxComputeUnits_ = enableWgpMode_ ? cuCount / 2 :
    /// cuCount`; hipamd/src/hip_device.cpp copies it to multiProcessorCount).
    pub fn multiprocessors(&self, d: &Device) -> u32 {
        match generation(&d.target.processor) {
            Some(g) if g >= 10 && self.config.wgp_mode => (self.config.cus / 2).max(1),
            _ => self.config.cus,
        }
    }

    /// The default wavefront size: 32 on gfx10 and later, 64 before
    /// (rocclr/device/rocm/rocdevice.cpp, `wavefrontWidth_`).
    pub fn warp_size(&self, d: &Device) -> u32 {
        match generation(&d.target.processor) {
            Some(g) if g >= 10 => 32,
            _ => 64,
        }
    }

    // ---- memory ----

    pub fn malloc(&self, len: usize) -> R<u64> {
        let d = self.current()?;
        lock(&d.heap)
            .alloc(len as u64)
            .map_err(|OutOfMemory| E::hipErrorOutOfMemory)
    }

    /// The allocation holding `[addr, addr + len)` on any device (HIP's
    /// unified addressing), with its device.
    fn find(&self, addr: u64, len: u64) -> Option<(usize, Arc<Allocation>, u64)> {
        self.devices.iter().find_map(|d| {
            lock(&d.heap)
                .find(addr, len)
                .map(|(a, off)| (d.ordinal, a, off))
        })
    }

    pub fn copy_to_device(&self, dst: u64, src: &[u8]) -> R<()> {
        let (_, a, off) = self
            .find(dst, src.len() as u64)
            .ok_or(E::hipErrorInvalidValue)?;
        a.write(off, src);
        Ok(())
    }

    pub fn copy_from_device(&self, dst: &mut [u8], src: u64) -> R<()> {
        let (_, a, off) = self
            .find(src, dst.len() as u64)
            .ok_or(E::hipErrorInvalidValue)?;
        a.read(off, dst);
        Ok(())
    }

    /// hipFree: wait for every stream of the allocation's device, then free
    /// (hipamd/src/hip_memory.cpp, ihipFree: `g_devices[device_id]->
    /// SyncAllStreams()` before the memory is released). A kernel that never
    /// ends makes hipFree wait forever, as on hardware.
    pub fn free(&self, addr: u64) -> R<()> {
        if addr == 0 {
            return Ok(());
        }
        let d = self
            .devices
            .iter()
            .find(|d| lock(&d.heap).allocations.contains_key(&addr))
            .ok_or(E::hipErrorInvalidValue)?;
        let streams: Vec<Arc<Stream>> = lock(&d.streams).clone();
        for s in &streams {
            s.wait_idle();
        }
        self.sticky()?;
        if lock(&d.heap).free(addr) {
            Ok(())
        } else {
            Err(E::hipErrorInvalidValue)
        }
    }

    // ---- streams ----

    pub fn create_stream(&'static self) -> R<usize> {
        let d = self.current()?;
        let s = self.spawn_stream(d)?;
        let h = self.handle();
        lock(&self.streams).insert(h, s);
        Ok(h)
    }

    fn spawn_stream(&'static self, d: &Device) -> R<Arc<Stream>> {
        let s = Arc::new(Stream {
            device: d.ordinal,
            state: Mutex::new(StreamState {
                queue: VecDeque::new(),
                busy: false,
                destroyed: false,
            }),
            cv: Condvar::new(),
        });
        let worker = Arc::clone(&s);
        std::thread::Builder::new()
            .name(format!("hipsim-stream-{}", d.ordinal))
            .spawn(move || worker.run(self))
            .map_err(|_| E::hipErrorOutOfMemory)?;
        lock(&d.streams).push(Arc::clone(&s));
        Ok(s)
    }

    /// A stream handle, or the device's null stream for NULL.
    pub fn stream(&'static self, h: usize) -> R<Arc<Stream>> {
        if h == 0 {
            let d = self.current()?;
            if let Some(s) = d.null_stream.get() {
                return Ok(Arc::clone(s));
            }
            let s = self.spawn_stream(d)?;
            return Ok(Arc::clone(d.null_stream.get_or_init(|| s)));
        }
        // Current clr: a stream that is not (or no longer) valid is
        // hipErrorContextIsDestroyed (hipamd/src/hip_module.cpp,
        // hipModuleLaunchKernel: `if (!hip::isValid(hStream))`).
        lock(&self.streams)
            .get(&h)
            .cloned()
            .ok_or(E::hipErrorContextIsDestroyed)
    }

    /// hipStreamDestroy returns at once; the stream's queued work still
    /// runs to its end, then its thread exits (HIP API reference,
    /// hipStreamDestroy: "the function will return immediately and the
    /// resources associated with stream will be released automatically
    /// once the device has completed all work").
    pub fn destroy_stream(&self, h: usize) -> R<()> {
        let s = lock(&self.streams)
            .remove(&h)
            .ok_or(E::hipErrorInvalidHandle)?;
        let mut st = lock(&s.state);
        st.destroyed = true;
        s.cv.notify_all();
        Ok(())
    }

    // ---- events ----

    pub fn create_event(&self) -> R<usize> {
        self.current()?;
        let h = self.handle();
        lock(&self.events).insert(
            h,
            Arc::new(Event {
                state: Mutex::new((EventState::Unrecorded, 0)),
                cv: Condvar::new(),
            }),
        );
        Ok(h)
    }

    pub fn event(&self, h: usize) -> R<Arc<Event>> {
        lock(&self.events)
            .get(&h)
            .cloned()
            .ok_or(E::hipErrorInvalidHandle)
    }

    pub fn destroy_event(&self, h: usize) -> R<()> {
        lock(&self.events)
            .remove(&h)
            .map(|_| ())
            .ok_or(E::hipErrorInvalidHandle)
    }

    pub fn record(&'static self, event: usize, stream: usize) -> R<()> {
        let e = self.event(event)?;
        let s = self.stream(stream)?;
        let gen = {
            let mut st = lock(&e.state);
            st.1 += 1;
            st.0 = EventState::Pending(st.1);
            st.1
        };
        s.enqueue(Cmd::Marker(e, gen));
        Ok(())
    }

    pub fn event_synchronize(&self, h: usize) -> R<()> {
        let e = self.event(h)?;
        let mut st = lock(&e.state);
        while matches!(st.0, EventState::Pending(_)) {
            st = e.cv.wait(st).unwrap_or_else(|p| p.into_inner());
            drop(st);
            self.sticky()?;
            st = lock(&e.state);
        }
        Ok(())
    }

    /// hipEventElapsedTime (hipamd/src/hip_event.cpp): an event never
    /// recorded is hipErrorInvalidHandle, one not yet reached
    /// hipErrorNotReady.
    pub fn elapsed_ms(&self, start: usize, stop: usize) -> R<f32> {
        let a = lock(&self.event(start)?.state).0;
        let b = lock(&self.event(stop)?.state).0;
        match (a, b) {
            (EventState::Done(t0), EventState::Done(t1)) => {
                let ms = if t1 >= t0 {
                    (t1 - t0).as_secs_f64() * 1e3
                } else {
                    -((t0 - t1).as_secs_f64() * 1e3)
                };
                Ok(ms as f32)
            }
            (EventState::Unrecorded, _) | (_, EventState::Unrecorded) => {
                Err(E::hipErrorInvalidHandle)
            }
            _ => Err(E::hipErrorNotReady),
        }
    }

    // ---- modules ----

    /// hipModuleLoadData. The image is not copied (clr loads it with
    /// `make_copy = false`, hipamd/src/hip_code_object.cpp, DynCO): the
    /// module keeps the caller's pointer and reads the bytes again at every
    /// launch, so an image freed or changed under a loaded module shows.
    ///
    /// # Safety
    /// `image` must point at a whole code object (as for HIP).
    pub unsafe fn load_module(&self, image: *const u8) -> R<usize> {
        let d = self.current()?;
        if image.is_null() {
            return Err(E::hipErrorInvalidValue);
        }
        // SAFETY: the caller passes a code object; its headers say how long it is.
        let len = unsafe { image_len(image)? };
        // SAFETY: `len` bytes of the caller's image, measured from its headers.
        let bytes = unsafe { std::slice::from_raw_parts(image, len) };
        let prepared = prepare(bytes, &d.target)?;
        let h = self.handle();
        lock(&self.modules).insert(
            h,
            Arc::new(Module {
                device: d.ordinal,
                image,
                image_len: len,
                prepared: Mutex::new(Arc::new(prepared)),
            }),
        );
        Ok(h)
    }

    pub fn unload_module(&self, h: usize) -> R<()> {
        let m = lock(&self.modules)
            .remove(&h)
            .ok_or(E::hipErrorInvalidResourceHandle)?;
        // The module's functions go with it (clr owns them in the module).
        lock(&self.functions).retain(|_, f| !Arc::ptr_eq(&f.module, &m));
        Ok(())
    }

    /// hipModuleGetFunction: a kernel of the module by name; unknown names
    /// are hipErrorNotFound (hipamd/src/hip_module.cpp).
    pub fn get_function(&self, module: usize, name: &str) -> R<usize> {
        let m = lock(&self.modules)
            .get(&module)
            .cloned()
            .ok_or(E::hipErrorInvalidResourceHandle)?;
        let p = m.prepared()?;
        match p.code.kernel(name) {
            Ok(k) if k.metadata.is_some() => {}
            _ => return Err(E::hipErrorNotFound),
        }
        let h = self.handle();
        lock(&self.functions).insert(
            h,
            Arc::new(Function {
                module: m,
                name: name.to_string(),
            }),
        );
        Ok(h)
    }

    // ---- launch ----

    /// hipModuleLaunchKernel, checked in the order current clr checks
    /// (hipamd/src/hip_module.cpp: hipModuleLaunchKernel,
    /// ihipLaunchKernel_validate, ihipLaunchKernelCommand), then queued on
    /// the stream's worker thread.
    ///
    /// # Safety
    /// `kernel_params` / `extra` as HIP documents them.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn launch(
        &'static self,
        f: usize,
        grid: [u32; 3],
        block: [u32; 3],
        shared_mem_bytes: u32,
        stream: usize,
        kernel_params: *mut *mut std::ffi::c_void,
        extra: *mut *mut std::ffi::c_void,
    ) -> R<()> {
        let s = self.stream(stream)?;
        let local: u64 = block.iter().map(|&b| u64::from(b)).product();
        if local > MAX_WORK_GROUP_SIZE {
            return Err(E::hipErrorInvalidValue);
        }
        // `sharedMemBytes > localMemSizePerCU_` → hipErrorInvalidValue.
        if shared_mem_bytes > LDS_PER_BLOCK {
            return Err(E::hipErrorInvalidValue);
        }
        if grid.contains(&0) || block.contains(&0) {
            return Err(E::hipErrorInvalidValue);
        }
        if f == 0 {
            return Err(E::hipErrorInvalidResourceHandle);
        }
        let func = lock(&self.functions)
            .get(&f)
            .cloned()
            .ok_or(E::hipErrorInvalidResourceHandle)?;
        // The stream's device must be the current device (current clr,
        // ihipModuleLaunchKernel), and the kernel must exist on it
        // (`!kernel->getDeviceKernel(*device)` → hipErrorInvalidDevice).
        if s.device != self.current()?.ordinal {
            return Err(E::hipErrorInvalidResourceHandle);
        }
        if func.module.device != s.device {
            return Err(E::hipErrorInvalidDevice);
        }
        if !kernel_params.is_null() && !extra.is_null() {
            return Err(E::hipErrorInvalidValue);
        }
        let prepared = func.module.prepared()?;
        let kernel = prepared
            .code
            .kernel(&func.name)
            .map_err(|_| E::hipErrorInvalidResourceHandle)?;
        let meta = kernel
            .metadata
            .as_ref()
            .ok_or(E::hipErrorInvalidResourceHandle)?;
        let explicit = meta.explicit_args().count();
        if explicit > 0 && kernel_params.is_null() && extra.is_null() {
            return Err(E::hipErrorInvalidValue);
        }
        let args = if !extra.is_null() {
            // SAFETY: HIP's contract for `extra`.
            unsafe { read_extra(extra, explicit > 0)? }
        } else if !kernel_params.is_null() {
            ArgSource::Params(kernel_params)
        } else {
            ArgSource::None
        };
        let setup = KernelSetup::from_kernel(kernel).map_err(|e| {
            eprintln!("dsxor-hipsim: {e}");
            E::hipErrorNotSupported
        })?;
        // Static + dynamic LDS over the device's: rocclr/platform/kernel.cpp
        // (KernelParameters::capture, CL_OUT_OF_RESOURCES) → hipErrorOutOfMemory
        // (ihipLaunchKernelCommand).
        if u64::from(setup.group_segment_fixed_size) + u64::from(shared_mem_bytes)
            > u64::from(LDS_PER_BLOCK)
        {
            return Err(E::hipErrorOutOfMemory);
        }
        let global: [u64; 3] = std::array::from_fn(|i| u64::from(grid[i]) * u64::from(block[i]));
        if global[0] > u64::from(u32::MAX) {
            return Err(E::hipErrorInvalidConfiguration);
        }
        // SAFETY: the argument pointers as checked above.
        let kernarg = unsafe { build_kernarg(meta, &args, global, block, shared_mem_bytes) };
        // The interpreter runs 1-D grids (dsxor's launches).
        if grid[1] != 1 || grid[2] != 1 || block[1] != 1 || block[2] != 1 {
            eprintln!("dsxor-hipsim: only 1-D launches are simulated");
            return Err(E::hipErrorNotSupported);
        }
        if let Some(path) = &self.config.launch_log {
            self.log_launch(path, &func.name, grid[0], block[0], setup.wgp_mode)?;
        }
        let program = prepared.program(kernel)?;
        s.enqueue(Cmd::Launch(Box::new(LaunchCmd {
            program,
            setup,
            groups: grid[0],
            block: block[0],
            dynamic_lds: shared_mem_bytes,
            kernarg,
            name: func.name.clone(),
        })));
        Ok(())
    }

    /// DSXOR_HIPSIM_LAUNCH_LOG: one line per accepted launch, ending with
    /// the mode the kernel's descriptor asks for (`wgp` or `cu`: its
    /// COMPUTE_PGM_RSRC1.WGP_MODE, read by `emu::KernelSetup`; both run
    /// alike here, policy `emu::MODE_POLICY`). A log that cannot be written
    /// fails the launch (hipErrorUnknown, the reason on stderr): a count
    /// silently short would understate launches.
    fn log_launch(
        &self,
        path: &std::path::Path,
        kernel: &str,
        groups: u32,
        block: u32,
        wgp_mode: bool,
    ) -> R<()> {
        use std::io::Write;
        let mode = if wgp_mode { "wgp" } else { "cu" };
        let line = format!("{} {kernel} {groups} {block} {mode}\n", std::process::id());
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(|e| {
                eprintln!(
                    "dsxor-hipsim: {}={}: {e}",
                    crate::config::ENV_LAUNCH_LOG,
                    path.display()
                );
                E::hipErrorUnknown
            })
    }

    /// hipStreamQuery: hipErrorNotReady while work is queued or running.
    pub fn query(&'static self, stream: usize) -> R<()> {
        let s = self.stream(stream)?;
        let st = lock(&s.state);
        if st.busy || !st.queue.is_empty() {
            Err(E::hipErrorNotReady)
        } else {
            Ok(())
        }
    }

    /// A device fault, as the configured runtime handles it.
    fn fault(&self, kernel: &str, e: &EmuError) {
        let (code, hsa) = match e {
            EmuError::Wave {
                error: WaveError::MemViol { .. } | WaveError::Global { .. },
                ..
            } => (
                E::hipErrorIllegalAddress,
                "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29",
            ),
            _ => (E::hipErrorLaunchFailure, ILLEGAL_INSTRUCTION),
        };
        self.fault_with(kernel, code, hsa, &e.to_string());
    }

    /// A device fault with HIP error `code` and HSA status text `hsa`;
    /// `what` says what happened (on stderr).
    fn fault_with(&self, kernel: &str, code: E, hsa: &str, what: &str) {
        match self.config.on_fault {
            OnFault::Abort => {
                // ROCm 6.x: Device::callbackQueue prints the HSA status and
                // calls abort() (rocclr/device/rocm/rocdevice.cpp).
                eprintln!(
                    ":0:rocdevice.cpp: Callback: Queue aborting with error : {hsa} \
                     [dsxor-hipsim, kernel `{kernel}`: {what}]"
                );
                std::process::abort();
            }
            OnFault::Sticky => {
                eprintln!("dsxor-hipsim: device fault in kernel `{kernel}`: {what}; every later call returns {}",
                    crate::errors::name(code).to_string_lossy());
                let _ = self
                    .sticky
                    .compare_exchange(0, code.0, Ordering::SeqCst, Ordering::SeqCst);
            }
        }
    }
}

/// The HSA status of an illegal instruction (hsa.h
/// `HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION`, its `hsa_status_string` text).
const ILLEGAL_INSTRUCTION: &str = "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction. code: 0x2a";

/// `gfx1100` → 11, `gfx90a` → 9.
fn generation(processor: &str) -> Option<u32> {
    let d = processor.strip_prefix("gfx")?;
    if d.len() < 3 || !d.is_char_boundary(d.len() - 2) {
        return None;
    }
    d[..d.len() - 2].parse().ok()
}

impl Module {
    /// The parse of the caller's bytes as they are now (re-parsed when they
    /// changed since the last call).
    fn prepared(&self) -> R<Arc<Prepared>> {
        // SAFETY: the image the caller gave hipModuleLoadData, which HIP
        // requires to stay valid while the module is loaded.
        let now = unsafe { std::slice::from_raw_parts(self.image, self.image_len) };
        let mut p = lock(&self.prepared);
        if p.image.as_slice() != now {
            let target = p.code.target.clone();
            *p = Arc::new(prepare(now, &target).map_err(|_| E::hipErrorInvalidImage)?);
        }
        Ok(Arc::clone(&p))
    }
}

/// Parse and decode an image for a device.
fn prepare(bytes: &[u8], device: &TargetId) -> R<Prepared> {
    let code = CodeObject::parse_for_target(bytes, device).map_err(|e| match e {
        // No code for this device's target: hipErrorNoBinaryForGpu
        // (hipamd/src/hip_fatbin.cpp, FatBinaryInfo::ExtractFatBinaryUsingCOMGR).
        CodeObjectError::NoBundleEntry { .. } | CodeObjectError::NoAmdgpuEntry { .. } => {
            E::hipErrorNoBinaryForGpu
        }
        _ => E::hipErrorInvalidImage,
    })?;
    if !executes(device) {
        // The object is for this device, but the software device runs only
        // gfx11: for this runtime there is no binary it can execute here.
        eprintln!(
            "dsxor-hipsim: device target {device}: only gfx11 code is executed ({}); \
             hipModuleLoadData returns hipErrorNoBinaryForGpu",
            dsxor::backend::emu::GFX11_PROCESSORS.join(", ")
        );
        return Err(E::hipErrorNoBinaryForGpu);
    }
    code.text().map_err(|_| E::hipErrorInvalidImage)?;
    Ok(Prepared {
        image: bytes.to_vec(),
        code,
        programs: Mutex::new(Vec::new()),
    })
}

/// The extent of a code object from its own headers, as clr measures an
/// image it is given by pointer alone (hipamd/src/hip_code_object.cpp,
/// CodeObject::ElfSize; the offload bundle's entry table for bundles).
///
/// # Safety
/// `p` must point at a readable ELF or offload bundle header.
unsafe fn image_len(p: *const u8) -> R<usize> {
    const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
    const MAX: u64 = 1 << 30;
    let read = |off: u64, len: u64| -> R<&[u8]> {
        if off.checked_add(len).is_none_or(|e| e > MAX) {
            return Err(E::hipErrorInvalidImage);
        }
        // SAFETY: within the extent the headers claim (the caller's contract).
        Ok(unsafe { std::slice::from_raw_parts(p.add(off as usize), len as usize) })
    };
    let u64_at = |b: &[u8], o: usize| -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(w)
    };
    let head = read(0, 4)?;
    if head == dsxor::codeobj::elf::ELF_MAGIC {
        let h = dsxor::codeobj::elf::parse_header(dsxor::codeobj::elf::Bytes::new(read(0, 64)?))
            .map_err(|_| E::hipErrorInvalidImage)?;
        let table = u64::from(h.e_shnum) * 64;
        let mut end = 64u64.max(h.e_shoff.saturating_add(table));
        let shdrs = read(h.e_shoff, table)?;
        for i in 0..h.e_shnum as usize {
            let s = &shdrs[i * 64..i * 64 + 64];
            let sh_type = u32::from_le_bytes([s[4], s[5], s[6], s[7]]);
            // SHT_NOBITS occupies no file space.
            if sh_type != 8 {
                end = end.max(u64_at(s, 24).saturating_add(u64_at(s, 32)));
            }
        }
        return usize::try_from(end).map_err(|_| E::hipErrorInvalidImage);
    }
    let head = read(0, BUNDLE_MAGIC.len() as u64)?;
    if head == BUNDLE_MAGIC {
        let n = u64_at(read(24, 8)?, 0);
        if n > 4096 {
            return Err(E::hipErrorInvalidImage);
        }
        let mut off = 32u64;
        let mut end = off;
        for _ in 0..n {
            let e = read(off, 24)?;
            let (o, size, id_len) = (u64_at(e, 0), u64_at(e, 8), u64_at(e, 16));
            off = off
                .checked_add(24 + id_len)
                .ok_or(E::hipErrorInvalidImage)?;
            end = end.max(off).max(o.saturating_add(size));
        }
        if end > MAX {
            return Err(E::hipErrorInvalidImage);
        }
        return Ok(end as usize);
    }
    Err(E::hipErrorInvalidImage)
}

/// Where the explicit arguments come from.
enum ArgSource {
    None,
    /// `extra`'s buffer and its size.
    Buffer(*const u8, usize),
    /// `kernelParams`: one pointer per explicit argument.
    Params(*mut *mut std::ffi::c_void),
}

/// `extra` must be exactly {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer,
/// HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}, else
/// hipErrorInvalidValue. Current clr (ihipLaunchKernelCommand): a kernel
/// with explicit arguments given no buffer or size 0 → hipErrorInvalidValue;
/// a kernel without explicit arguments given a non-zero size →
/// hipErrorLaunchOutOfResources.
///
/// # Safety
/// `extra` points at five pointers; `extra[3]` at a `size_t`.
unsafe fn read_extra(extra: *mut *mut std::ffi::c_void, expects_args: bool) -> R<ArgSource> {
    // SAFETY: HIP's contract: five entries.
    let e = unsafe { std::slice::from_raw_parts(extra as *const usize, 5) };
    if e[0] != dsxor::hip::HIP_LAUNCH_PARAM_BUFFER_POINTER
        || e[2] != dsxor::hip::HIP_LAUNCH_PARAM_BUFFER_SIZE
        || e[4] != dsxor::hip::HIP_LAUNCH_PARAM_END
    {
        return Err(E::hipErrorInvalidValue);
    }
    if e[3] == 0 {
        return Err(E::hipErrorInvalidValue);
    }
    // SAFETY: extra[3] points at the buffer's size.
    let size = unsafe { *(e[3] as *const usize) };
    let buf = e[1] as *const u8;
    let has_args = !buf.is_null() && size > 0;
    if expects_args && !has_args {
        return Err(E::hipErrorInvalidValue);
    }
    if !expects_args && size != 0 {
        return Err(E::hipErrorLaunchOutOfResources);
    }
    Ok(ArgSource::Buffer(buf, size))
}

/// The kernarg segment as the runtime builds it: each *explicit* argument
/// read at its metadata offset (bytes past the caller's size read as zero:
/// current clr, captureHIPArgsAndValidate), every hidden argument written
/// by the runtime itself, little-endian over its size
/// (rocclr/device/rocm/rocvirtual.cpp, VirtualGPU::submitKernelInternal,
/// WriteAqlArgAt; hipModuleLaunchKernel's NDRange has 3 dimensions).
///
/// # Safety
/// The pointers of `args` as HIP documents them.
unsafe fn build_kernarg(
    meta: &KernelMetadata,
    args: &ArgSource,
    global: [u64; 3],
    local: [u32; 3],
    dynamic_lds: u32,
) -> Vec<u8> {
    let mut seg = vec![0u8; meta.kernarg_segment_size as usize];
    let put = |seg: &mut Vec<u8>, off: u32, size: u32, v: u64| {
        let le = v.to_le_bytes();
        for k in 0..size as usize {
            if let Some(b) = seg.get_mut(off as usize + k) {
                *b = le.get(k).copied().unwrap_or(0);
            }
        }
    };
    for (i, a) in meta.explicit_args().enumerate() {
        for k in 0..a.size as usize {
            let at = a.offset as usize + k;
            let v = match args {
                ArgSource::None => 0,
                // SAFETY: within the caller's stated size.
                ArgSource::Buffer(p, n) if at < *n && !p.is_null() => unsafe { *p.add(at) },
                ArgSource::Buffer(..) => 0,
                ArgSource::Params(pp) => {
                    // SAFETY: kernelParams[i] points at argument i's value.
                    let vp = unsafe { *pp.add(i) } as *const u8;
                    if vp.is_null() {
                        0
                    } else {
                        // SAFETY: as above, `a.size` bytes.
                        unsafe { *vp.add(k) }
                    }
                }
            };
            if let Some(b) = seg.get_mut(at) {
                *b = v;
            }
        }
    }
    let l: [u64; 3] = local.map(u64::from);
    for a in meta.args.iter().filter(|a| a.value_kind.is_hidden()) {
        let v = match a.value_kind {
            ValueKind::HiddenBlockCountX => global[0] / l[0],
            ValueKind::HiddenBlockCountY => global[1] / l[1],
            ValueKind::HiddenBlockCountZ => global[2] / l[2],
            ValueKind::HiddenGroupSizeX => l[0],
            ValueKind::HiddenGroupSizeY => l[1],
            ValueKind::HiddenGroupSizeZ => l[2],
            ValueKind::HiddenRemainderX => global[0] % l[0],
            ValueKind::HiddenRemainderY => global[1] % l[1],
            ValueKind::HiddenRemainderZ => global[2] % l[2],
            ValueKind::HiddenGridDims => 3,
            ValueKind::HiddenDynamicLdsSize => u64::from(dynamic_lds),
            // Global offsets are 0 for hipModuleLaunchKernel. The printf,
            // hostcall and heap buffers, queue and aperture values are not
            // provided (policy: 0; a kernel that dereferences one faults).
            _ => 0,
        };
        put(&mut seg, a.offset, a.size, v);
    }
    seg
}

/// An hsa_kernel_dispatch_packet_t (hsa.h, 64 bytes) for kernels that ask
/// for the dispatch pointer.
fn dispatch_packet(c: &LaunchCmd, lds: u32, kernarg: u64) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    p[2..4].copy_from_slice(&3u16.to_le_bytes()); // setup: dimensions
    p[4..6].copy_from_slice(&(c.block as u16).to_le_bytes());
    p[6..8].copy_from_slice(&1u16.to_le_bytes());
    p[8..10].copy_from_slice(&1u16.to_le_bytes());
    p[12..16].copy_from_slice(&c.groups.saturating_mul(c.block).to_le_bytes());
    p[16..20].copy_from_slice(&1u32.to_le_bytes());
    p[20..24].copy_from_slice(&1u32.to_le_bytes());
    p[28..32].copy_from_slice(&lds.to_le_bytes());
    p[40..48].copy_from_slice(&kernarg.to_le_bytes());
    p
}

impl Stream {
    fn enqueue(&self, c: Cmd) {
        let mut st = lock(&self.state);
        st.queue.push_back(c);
        self.cv.notify_all();
    }

    /// Block until nothing is queued or running.
    pub fn wait_idle(&self) {
        let mut st = lock(&self.state);
        while st.busy || !st.queue.is_empty() {
            st = self.cv.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The worker thread: runs the stream's commands in order.
    fn run(&self, rt: &'static Runtime) {
        loop {
            let l = {
                let mut st = lock(&self.state);
                loop {
                    match st.queue.pop_front() {
                        // A marker is reached once everything before it
                        // has run: it completes here, under the stream's
                        // lock and without making the stream busy, so a
                        // caller woken by its event finds the stream idle
                        // (hipStreamQuery hipSuccess) when nothing follows
                        // it. (Marking it busy first let a query between
                        // the event and the worker's next step see the
                        // stream still busy: a race seen under load.)
                        Some(Cmd::Marker(e, gen)) => {
                            let mut ev = lock(&e.state);
                            if ev.0 == EventState::Pending(gen) {
                                ev.0 = EventState::Done(Instant::now());
                            }
                            e.cv.notify_all();
                            drop(ev);
                            self.cv.notify_all();
                            continue;
                        }
                        Some(Cmd::Launch(l)) => {
                            st.busy = true;
                            break l;
                        }
                        None => {}
                    }
                    if st.destroyed {
                        return;
                    }
                    st = self.cv.wait(st).unwrap_or_else(|p| p.into_inner());
                }
            };
            let faulted = self.execute(rt, &l);
            let mut st = lock(&self.state);
            st.busy = false;
            if faulted {
                // Sticky mode: what was queued behind the fault never runs.
                st.queue.clear();
            }
            self.cv.notify_all();
        }
    }

    /// Run one launch; true when it faulted (sticky mode; abort mode does
    /// not return from a fault).
    fn execute(&self, rt: &'static Runtime, c: &LaunchCmd) -> bool {
        let hangs = rt
            .config
            .hang
            .as_deref()
            .is_some_and(|h| h.split(',').any(|k| k.trim() == c.name));
        if hangs {
            // DSXOR_HIPSIM_HANG: the kernel never completes.
            loop {
                std::thread::park();
            }
        }
        if let Some(k) = rt.device_faults(&c.name) {
            // DSXOR_HIPSIM_DEVICE_FAULT: an illegal instruction, as a GPU
            // reports one (the HSA status clr's callbackQueue prints).
            rt.fault_with(
                &c.name,
                E::hipErrorLaunchFailure,
                ILLEGAL_INSTRUCTION,
                &format!(
                    "launch {k} of the kernel in this process: a fault injected by {}",
                    crate::config::ENV_DEVICE_FAULT
                ),
            );
            return true;
        }
        let d = &rt.devices[self.device];
        let mut mem = GlobalMem::new();
        for (&base, a) in lock(&d.heap).allocations.iter() {
            // Allocations never overlap (the heap places them apart).
            let _ = mem.map_shared(
                &format!("hipMalloc buffer at {base:#x}"),
                base,
                Arc::clone(&a.words),
                a.len,
            );
        }
        let kernarg_addr = mem.map("kernarg segment", &c.kernarg);
        let lds = match emu::lds_allocation(&c.setup, c.dynamic_lds, None) {
            Ok(l) => l,
            Err(e) => {
                rt.fault(&c.name, &e);
                return true;
            }
        };
        let dispatch_packet_addr = c
            .setup
            .dispatch_ptr
            .then(|| mem.map("dispatch packet", &dispatch_packet(c, lds, kernarg_addr)));
        let launch = Launch {
            program: &c.program,
            setup: &c.setup,
            groups: c.groups,
            block: c.block,
            dynamic_lds: c.dynamic_lds,
            kernarg_addr,
            dispatch_packet_addr,
            lds_granule: None,
            timeout: RUN_LIMIT,
        };
        // DSXOR_HIPSIM_FAULT_DEVICES: the fault only on the devices named.
        let emu_config = dsxor::emu::EmuConfig {
            fault: rt
                .config
                .faulty(d.physical)
                .then_some(rt.config.emu.fault)
                .flatten(),
            lds_leftover: d.lds.clone(),
            ..rt.config.emu.clone()
        };
        match emu::run(&launch, &mem, &emu_config) {
            Ok(_) => false,
            Err(e) => {
                rt.fault(&c.name, &e);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ENV_DEVICES;

    #[test]
    fn generations_and_wgps() {
        assert_eq!(generation("gfx1100"), Some(11));
        assert_eq!(generation("gfx90a"), Some(9));
        let two = |k: &str| (k == ENV_DEVICES).then(|| "gfx1100,gfx90a".to_string());
        let rt = Runtime::new(Config::from_lookup(two).unwrap());
        assert_eq!(rt.multiprocessors(&rt.devices[0]), 48, "gfx11: WGPs");
        assert_eq!(rt.multiprocessors(&rt.devices[1]), 96, "gfx9: CUs");
        let cu_mode = |k: &str| match k {
            "GPU_ENABLE_WGP_MODE" => Some("0".to_string()),
            _ => two(k),
        };
        let rt = Runtime::new(Config::from_lookup(cu_mode).unwrap());
        assert_eq!(
            rt.multiprocessors(&rt.devices[0]),
            96,
            "gfx11, WGP mode off: CUs"
        );
        assert_eq!(rt.multiprocessors(&rt.devices[1]), 96, "gfx9: CUs");
    }
}
