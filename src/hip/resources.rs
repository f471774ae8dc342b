//! RAII wrappers: device buffers, modules and their functions, streams,
//! events, and the launch itself. Each holds a `Hip` clone, so the library
//! outlives it; `Drop` releases the handle and ignores (cannot report) a
//! failure, which is the only place a HIP status is dropped.

use std::ffi::{c_void, CString};
use std::os::raw::c_uint;
use std::rc::Rc;
use std::time::Duration;

use super::{
    entry, sys, Hip, HipError, HIP_ERROR_NOT_READY, HIP_LAUNCH_PARAM_BUFFER_POINTER,
    HIP_LAUNCH_PARAM_BUFFER_SIZE, HIP_LAUNCH_PARAM_END,
};

/// Device memory from `hipMalloc`, freed on drop.
pub struct DeviceBuffer {
    hip: Hip,
    ptr: sys::hipDeviceptr_t,
    len: usize,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({:p}, {} bytes)", self.ptr, self.len)
    }
}

impl DeviceBuffer {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address, as a kernel argument takes it.
    pub fn device_address(&self) -> u64 {
        self.ptr as u64
    }

    /// Copy `src` to the start of the buffer (`hipMemcpyHtoD`, synchronous).
    pub fn copy_from_host(&mut self, src: &[u8]) -> Result<(), HipError> {
        if src.len() > self.len {
            return Err(HipError::Invalid(format!(
                "copying {} bytes into a {}-byte device buffer",
                src.len(),
                self.len
            )));
        }
        if src.is_empty() {
            return Ok(());
        }
        let doing = || format!("copying {} bytes to the device", src.len());
        let f = entry!(self.hip, hipMemcpyHtoD, doing())?;
        // SAFETY: `src` is valid for `src.len()` bytes and only read (the
        // 5.x prototype says `void*` but the copy reads it); the device
        // allocation holds at least that many.
        let rc = unsafe { f(self.ptr, src.as_ptr() as *mut c_void, src.len()) };
        self.hip.check("hipMemcpyHtoD", rc, doing)
    }

    /// Copy the start of the buffer into `dst` (`hipMemcpyDtoH`, synchronous).
    pub fn copy_to_host(&self, dst: &mut [u8]) -> Result<(), HipError> {
        if dst.len() > self.len {
            return Err(HipError::Invalid(format!(
                "copying {} bytes out of a {}-byte device buffer",
                dst.len(),
                self.len
            )));
        }
        if dst.is_empty() {
            return Ok(());
        }
        let n = dst.len();
        let doing = || format!("copying {n} bytes from the device");
        let f = entry!(self.hip, hipMemcpyDtoH, doing())?;
        // SAFETY: `dst` is valid for writes of `dst.len()` bytes.
        let rc = unsafe { f(dst.as_mut_ptr() as *mut c_void, self.ptr, dst.len()) };
        self.hip.check("hipMemcpyDtoH", rc, doing)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if let Ok(f) = entry!(self.hip, hipFree, "freeing a device buffer") {
            // SAFETY: `ptr` came from hipMalloc and is freed once.
            let _ = unsafe { f(self.ptr) };
        }
    }
}

struct ModuleHandle {
    hip: Hip,
    raw: sys::hipModule_t,
}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        if let Ok(f) = entry!(self.hip, hipModuleUnload, "unloading a module") {
            // SAFETY: `raw` came from hipModuleLoadData and is unloaded once,
            // after the last Function of it is gone (they share this Rc).
            let _ = unsafe { f(self.raw) };
        }
    }
}

/// A code object loaded on the current device (`hipModuleLoadData`),
/// unloaded when it and every `Function` of it are gone.
pub struct Module {
    handle: Rc<ModuleHandle>,
}

impl Module {
    /// Look a kernel up by symbol name (without `.kd`).
    pub fn function(&self, name: &str) -> Result<Function, HipError> {
        let hip = &self.handle.hip;
        let cname = CString::new(name)
            .map_err(|_| HipError::Invalid(format!("kernel name {name:?} contains a NUL byte")))?;
        let doing = || format!("looking up kernel `{name}` in the module");
        let f = entry!(hip, hipModuleGetFunction, doing())?;
        let mut raw: sys::hipFunction_t = std::ptr::null_mut();
        // SAFETY: `cname` is NUL-terminated; HIP writes one handle.
        let rc = unsafe { f(&mut raw, self.handle.raw, cname.as_ptr()) };
        hip.check("hipModuleGetFunction", rc, doing)?;
        Ok(Function {
            module: Rc::clone(&self.handle),
            raw,
            name: name.to_string(),
        })
    }
}

/// A kernel of a loaded module; keeps the module loaded.
pub struct Function {
    module: Rc<ModuleHandle>,
    raw: sys::hipFunction_t,
    name: String,
}

impl Function {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Enqueue a 1-D launch of `groups` workgroups of `block` work-items on
    /// `stream`, with `dynamic_lds` bytes of dynamic LDS and `kernarg` as the
    /// kernarg segment. The segment goes through `extra` as
    /// `{BUFFER_POINTER, ptr, BUFFER_SIZE, &size, END}`, the order HIP
    /// checks (ROCm/clr hipamd/src/hip_module.cpp, ihipLaunchKernelCommand);
    /// HIP reads each explicit argument at its metadata offset from it and
    /// fills the hidden arguments itself. `None` (a kernel without explicit
    /// arguments) passes no `extra` at all: current clr answers a non-empty
    /// one for such a kernel with hipErrorLaunchOutOfResources.
    pub fn launch(
        &self,
        stream: &Stream,
        groups: u32,
        block: u32,
        dynamic_lds: u32,
        kernarg: Option<&mut [u8]>,
    ) -> Result<(), HipError> {
        let hip = &self.module.hip;
        let kernarg_len = kernarg.as_ref().map_or(0, |k| k.len());
        let doing = || {
            format!(
                "launching `{}` ({groups} x {block} work-items, {dynamic_lds} bytes dynamic LDS, {kernarg_len}-byte kernarg)",
                self.name
            )
        };
        let f = entry!(hip, hipModuleLaunchKernel, doing())?;
        let mut size: usize = kernarg_len;
        let mut extra: Option<[*mut c_void; 5]> = kernarg.map(|k| {
            [
                HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
                k.as_mut_ptr() as *mut c_void,
                HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
                &mut size as *mut usize as *mut c_void,
                HIP_LAUNCH_PARAM_END as *mut c_void,
            ]
        });
        let extra_ptr = extra
            .as_mut()
            .map_or(std::ptr::null_mut(), |e| e.as_mut_ptr());
        // SAFETY: `extra` and what it points to live across the call; HIP
        // copies the arguments before returning (captureAndValidate).
        let rc = unsafe {
            f(
                self.raw,
                groups as c_uint,
                1,
                1,
                block as c_uint,
                1,
                1,
                dynamic_lds as c_uint,
                stream.raw,
                std::ptr::null_mut(),
                extra_ptr,
            )
        };
        hip.check("hipModuleLaunchKernel", rc, doing)
    }
}

/// Whether a stream's work is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    Complete,
    Pending,
}

/// A non-blocking stream (`hipStreamNonBlocking`: no implicit sync with
/// the null stream), destroyed on drop.
pub struct Stream {
    hip: Hip,
    raw: sys::hipStream_t,
}

impl Stream {
    /// `hipStreamQuery`: `hipErrorNotReady` means pending, not failure.
    pub fn query(&self) -> Result<StreamState, HipError> {
        let doing = "polling the stream";
        let f = entry!(self.hip, hipStreamQuery, doing)?;
        // SAFETY: plain call on a live stream.
        let rc = unsafe { f(self.raw) };
        if rc.0 == HIP_ERROR_NOT_READY {
            return Ok(StreamState::Pending);
        }
        self.hip.check("hipStreamQuery", rc, || doing.into())?;
        Ok(StreamState::Complete)
    }

    /// Poll until the stream's work completes or `limit` passes. Returns
    /// `Ok(false)` on timeout: the work may still be running, and whatever
    /// it uses must then stay alive (see `backend::hip`). Polls with a
    /// short sleep that grows to 1 ms, so short kernels are seen quickly.
    pub fn wait(&self, limit: Duration) -> Result<bool, HipError> {
        let start = std::time::Instant::now();
        let mut pause = Duration::from_micros(10);
        loop {
            if self.query()? == StreamState::Complete {
                return Ok(true);
            }
            if start.elapsed() >= limit {
                return Ok(false);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(1));
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Ok(f) = entry!(self.hip, hipStreamDestroy, "destroying a stream") {
            // SAFETY: `raw` came from hipStreamCreateWithFlags, destroyed once.
            let _ = unsafe { f(self.raw) };
        }
    }
}

/// A timing event, destroyed on drop.
pub struct Event {
    hip: Hip,
    raw: sys::hipEvent_t,
}

impl Event {
    /// Record the event on `stream` (`hipEventRecord`).
    pub fn record(&self, stream: &Stream) -> Result<(), HipError> {
        let doing = "recording an event";
        let f = entry!(self.hip, hipEventRecord, doing)?;
        // SAFETY: both handles are live.
        let rc = unsafe { f(self.raw, stream.raw) };
        self.hip.check("hipEventRecord", rc, || doing.into())
    }

    /// Device time from `self` to `end`, both recorded and complete
    /// (`hipEventElapsedTime`, milliseconds as f32).
    pub fn elapsed_until(&self, end: &Event) -> Result<Duration, HipError> {
        let doing = "reading the time between two events";
        let sync = entry!(self.hip, hipEventSynchronize, doing)?;
        // SAFETY: live event.
        let rc = unsafe { sync(end.raw) };
        self.hip.check("hipEventSynchronize", rc, || doing.into())?;
        let f = entry!(self.hip, hipEventElapsedTime, doing)?;
        let mut ms: f32 = 0.0;
        // SAFETY: writes one float.
        let rc = unsafe { f(&mut ms, self.raw, end.raw) };
        self.hip.check("hipEventElapsedTime", rc, || doing.into())?;
        if !ms.is_finite() || ms < 0.0 {
            return Err(HipError::Invalid(format!(
                "hipEventElapsedTime reported {ms} ms"
            )));
        }
        Ok(Duration::from_secs_f64(f64::from(ms) / 1000.0))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Ok(f) = entry!(self.hip, hipEventDestroy, "destroying an event") {
            // SAFETY: `raw` came from hipEventCreate and is destroyed once.
            let _ = unsafe { f(self.raw) };
        }
    }
}

impl Hip {
    /// `hipMalloc` of `len` bytes on the current device (at least 1, so a
    /// kernel argument always points at an allocation).
    pub fn alloc(&self, len: usize) -> Result<DeviceBuffer, HipError> {
        let doing = || format!("allocating {len} bytes of device memory");
        let f = entry!(self, hipMalloc, doing())?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: HIP writes one pointer.
        let rc = unsafe { f(&mut ptr, len.max(1)) };
        self.check("hipMalloc", rc, doing)?;
        if ptr.is_null() {
            return Err(HipError::Invalid(format!(
                "hipMalloc({len}) succeeded but returned NULL"
            )));
        }
        Ok(DeviceBuffer {
            hip: self.clone(),
            ptr,
            len,
        })
    }

    /// Load a code object (plain AMDGPU ELF or clang offload bundle) on the
    /// current device (`hipModuleLoadData`).
    pub fn load_module(&self, code_object: &[u8]) -> Result<Module, HipError> {
        let doing = || format!("loading a {}-byte code object", code_object.len());
        if code_object.is_empty() {
            return Err(HipError::Invalid(doing() + ": the code object is empty"));
        }
        let f = entry!(self, hipModuleLoadData, doing())?;
        let mut raw: sys::hipModule_t = std::ptr::null_mut();
        // SAFETY: HIP reads the image (it parses the ELF header for its
        // size) and copies what it keeps; the bytes outlive the call.
        let rc = unsafe { f(&mut raw, code_object.as_ptr() as *const c_void) };
        self.check("hipModuleLoadData", rc, doing)?;
        Ok(Module {
            handle: Rc::new(ModuleHandle {
                hip: self.clone(),
                raw,
            }),
        })
    }

    pub fn stream(&self) -> Result<Stream, HipError> {
        let doing = "creating a stream";
        let f = entry!(self, hipStreamCreateWithFlags, doing)?;
        let mut raw: sys::hipStream_t = std::ptr::null_mut();
        // SAFETY: HIP writes one handle.
        let rc = unsafe { f(&mut raw, sys::hipStreamNonBlocking) };
        self.check("hipStreamCreateWithFlags", rc, || doing.into())?;
        Ok(Stream {
            hip: self.clone(),
            raw,
        })
    }

    pub fn event(&self) -> Result<Event, HipError> {
        let doing = "creating an event";
        let f = entry!(self, hipEventCreate, doing)?;
        let mut raw: sys::hipEvent_t = std::ptr::null_mut();
        // SAFETY: HIP writes one handle.
        let rc = unsafe { f(&mut raw) };
        self.check("hipEventCreate", rc, || doing.into())?;
        Ok(Event {
            hip: self.clone(),
            raw,
        })
    }
}
