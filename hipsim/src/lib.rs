//! dsxor-hipsim: a software HIP runtime whose device is dsxor's RDNA3
//! interpreter (`dsxor::emu`). Built as `libdsxor_hipsim.so`, it exports,
//! with the C ABI and the types of dsxor's checked-in bindings
//! (`dsxor::hip::sys`), every HIP entry point dsxor loads, so
//! `DSXOR_HIP_LIB=target/release/libdsxor_hipsim.so dsxor run --backend hip`
//! runs the unchanged HIP backend end to end without a GPU. It is to HIP
//! what lavapipe is to Vulkan: an implementation of the API, not a mock.
//!
//! Code objects are read with `dsxor::codeobj` and run on `dsxor::emu`;
//! launches run on one worker thread per stream, so `hipStreamQuery` sees
//! them pending. Configuration: environment variables (`config`), listed in
//! docs/src/internals/hipsim.md with each behaviour and its ROCm/clr source.
#![allow(non_snake_case)]
// HIP's entry point names.
// The exports are HIP's C entry points; their safety contract is HIP's
// (valid pointers as the HIP API reference describes), stated once here.
#![allow(clippy::missing_safety_doc)]

pub mod config;
mod errors;
pub mod memory;
pub mod runtime;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use dsxor::hip::sys::{
    hipDeviceAttribute_t, hipDeviceProp_t, hipDevice_t, hipDeviceptr_t, hipError_t, hipEvent_t,
    hipFunction_t, hipModule_t, hipStream_t, hipUUID,
};

use runtime::{runtime, Runtime, LDS_PER_BLOCK, MAX_WORK_GROUP_SIZE, R};

type E = hipError_t;

/// The entry points exported (the fields of `dsxor::hip::sys::HipLib`).
pub const ENTRY_POINTS: [&str; 27] = [
    "hipDriverGetVersion",
    "hipRuntimeGetVersion",
    "hipDeviceGetName",
    "hipDeviceGetUuid",
    "hipDeviceGetPCIBusId",
    "hipSetDevice",
    "hipGetDeviceCount",
    "hipDeviceGetAttribute",
    "hipGetDeviceProperties",
    "hipGetErrorName",
    "hipGetErrorString",
    "hipStreamCreateWithFlags",
    "hipStreamDestroy",
    "hipStreamQuery",
    "hipEventCreate",
    "hipEventRecord",
    "hipEventDestroy",
    "hipEventSynchronize",
    "hipEventElapsedTime",
    "hipMalloc",
    "hipFree",
    "hipMemcpyHtoD",
    "hipMemcpyDtoH",
    "hipModuleUnload",
    "hipModuleGetFunction",
    "hipModuleLoadData",
    "hipModuleLaunchKernel",
];

/// What DSXOR_HIPSIM_FAIL makes an entry point return: the error the real
/// runtime gives when that call fails for a reason outside the caller's
/// control (hipamd/src: hip_memory.cpp for allocation, hip_module.cpp for
/// loading and launching, hip_device_runtime.cpp for device queries).
fn injected_error(entry: &str) -> E {
    match entry {
        "hipGetDeviceCount" => E::hipErrorNoDevice,
        "hipSetDevice"
        | "hipDeviceGetName"
        | "hipDeviceGetUuid"
        | "hipDeviceGetPCIBusId"
        | "hipGetDeviceProperties" => E::hipErrorInvalidDevice,
        "hipMalloc" | "hipStreamCreateWithFlags" | "hipEventCreate" => E::hipErrorOutOfMemory,
        "hipModuleLoadData" => E::hipErrorInvalidImage,
        "hipModuleGetFunction" => E::hipErrorNotFound,
        "hipModuleLaunchKernel" => E::hipErrorLaunchOutOfResources,
        "hipStreamQuery" | "hipEventSynchronize" | "hipMemcpyDtoH" | "hipMemcpyHtoD" => {
            E::hipErrorIllegalAddress
        }
        "hipEventElapsedTime" => E::hipErrorNotReady,
        "hipStreamDestroy" | "hipEventRecord" | "hipEventDestroy" | "hipModuleUnload" => {
            E::hipErrorInvalidHandle
        }
        _ => E::hipErrorInvalidValue,
    }
}

/// Every entry point's body: the runtime (configuration errors →
/// hipErrorNotInitialized), the sticky error, the injected failure, then the
/// call. A panic never crosses the C boundary (hipErrorUnknown).
fn api(entry: &'static str, f: impl FnOnce(&'static Runtime) -> R<()>) -> E {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let rt = runtime()?;
        rt.sticky()?;
        if rt.injected(entry) {
            return Err(injected_error(entry));
        }
        if rt.stalls(entry) {
            // DSXOR_HIPSIM_STALL: the call never returns.
            loop {
                std::thread::park();
            }
        }
        f(rt)
    }));
    match r {
        Ok(Ok(())) => E::hipSuccess,
        Ok(Err(e)) => e,
        Err(_) => E::hipErrorUnknown,
    }
}

fn out<T>(p: *mut T) -> R<&'static mut T> {
    // SAFETY: HIP's contract: a non-null output pointer is valid for a write.
    unsafe { p.as_mut() }.ok_or(E::hipErrorInvalidValue)
}

/// Copy `s` into a caller's buffer of `len` bytes, NUL-terminated (as
/// clr's hipDeviceGetName does, truncating).
fn put_c_str(dst: *mut c_char, len: c_int, s: &str) -> R<()> {
    if dst.is_null() || len <= 0 {
        return Err(E::hipErrorInvalidValue);
    }
    let n = s.len().min(len as usize - 1);
    // SAFETY: the caller's buffer holds `len` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, dst, n);
        *dst.add(n) = 0;
    }
    Ok(())
}

fn copy_into(dst: &mut [c_char], s: &str) {
    let room = dst.len().saturating_sub(1);
    for (d, b) in dst.iter_mut().zip(s.bytes().take(room)) {
        *d = b as c_char;
    }
}

// ---- versions ----

/// hipDriverGetVersion returns HIP's own version (docs/src/internals/facts.md; clr
/// hipamd/src/hip_context.cpp).
#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(driverVersion: *mut c_int) -> E {
    api("hipDriverGetVersion", |rt| {
        *out(driverVersion)? = rt.config.runtime_version;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(runtimeVersion: *mut c_int) -> E {
    api("hipRuntimeGetVersion", |rt| {
        *out(runtimeVersion)? = rt.config.runtime_version;
        Ok(())
    })
}

// ---- devices ----

/// With no device: `*count = 0` and hipErrorNoDevice (hipamd/src/
/// hip_device_runtime.cpp, ihipDeviceGetCount).
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> E {
    api("hipGetDeviceCount", |rt| {
        let c = out(count)?;
        *c = rt.devices.len() as c_int;
        if *c == 0 {
            Err(E::hipErrorNoDevice)
        } else {
            Ok(())
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipSetDevice(deviceId: c_int) -> E {
    api("hipSetDevice", |rt| rt.set_current(deviceId))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(name: *mut c_char, len: c_int, device: hipDevice_t) -> E {
    api("hipDeviceGetName", |rt| {
        let d = rt.device(device)?;
        put_c_str(name, len, &d.name)
    })
}

/// The device's simulated UUID (policy `hipsim-uuid`, config.rs): the 16
/// bytes clr copies from the device's `uuid_` (hipamd/src/hip_device.cpp,
/// `hipDeviceGetUuid`: hipErrorInvalidDevice for a bad ordinal,
/// hipErrorInvalidValue for a null pointer).
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetUuid(uuid: *mut hipUUID, device: hipDevice_t) -> E {
    api("hipDeviceGetUuid", |rt| {
        let d = rt.device(device)?;
        let u = out(uuid)?;
        u.bytes = d.uuid.map(|b| b as c_char);
        Ok(())
    })
}

/// Made-up PCI addresses (bus 0x03 + the device's ordinal among all
/// simulated devices, as a GPU keeps its address whatever a process sees), in clr's format
/// `%04x:%02x:%02x.%01x` (hipamd/src/hip_device_runtime.cpp).
fn pci_bus_id(ordinal: usize) -> String {
    format!("0000:{:02x}:00.0", 3 + ordinal)
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetPCIBusId(
    pciBusId: *mut c_char,
    len: c_int,
    device: c_int,
) -> E {
    api("hipDeviceGetPCIBusId", |rt| {
        let d = rt.device(device)?;
        put_c_str(pciBusId, len, &pci_bus_id(d.physical))
    })
}

/// The integer attributes (hipamd/src/hip_device_runtime.cpp,
/// hipDeviceGetAttribute, from the properties hip_device.cpp fills);
/// others are hipErrorInvalidValue.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(
    pi: *mut c_int,
    attr: hipDeviceAttribute_t,
    deviceId: c_int,
) -> E {
    use hipDeviceAttribute_t as A;
    api("hipDeviceGetAttribute", |rt| {
        let d = rt.device(deviceId)?;
        let gen11 = dsxor::backend::emu::GFX11_PROCESSORS.contains(&d.target.processor.as_str());
        let v: i64 = match attr {
            A::hipDeviceAttributeMultiprocessorCount => i64::from(rt.multiprocessors(d)),
            // clr on gfx10+: the CU count itself.
            A::hipDeviceAttributePhysicalMultiProcessorCount => i64::from(rt.config.cus),
            // kHz: maxEngineClockFrequency_ (MHz) * 1000 (hip_device.cpp).
            A::hipDeviceAttributeClockRate => i64::from(rt.config.clock_khz),
            A::hipDeviceAttributeMaxSharedMemoryPerBlock
            | A::hipDeviceAttributeSharedMemPerBlockOptin
            | A::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor => i64::from(LDS_PER_BLOCK),
            // gfx10+ default to wave32 (rocdevice.cpp, wavefrontWidth_).
            A::hipDeviceAttributeWarpSize => i64::from(rt.warp_size(d)),
            A::hipDeviceAttributeMaxThreadsPerBlock
            | A::hipDeviceAttributeMaxBlockDimX
            | A::hipDeviceAttributeMaxBlockDimY
            | A::hipDeviceAttributeMaxBlockDimZ => MAX_WORK_GROUP_SIZE as i64,
            A::hipDeviceAttributeMaxGridDimX => i64::from(i32::MAX),
            A::hipDeviceAttributeMaxGridDimY | A::hipDeviceAttributeMaxGridDimZ => 65536,
            A::hipDeviceAttributeComputeCapabilityMajor => {
                if gen11 {
                    11
                } else {
                    0
                }
            }
            A::hipDeviceAttributeComputeCapabilityMinor => 0,
            A::hipDeviceAttributeConcurrentKernels => 1,
            A::hipDeviceAttributeIntegrated
            | A::hipDeviceAttributeIsMultiGpuBoard
            | A::hipDeviceAttributeEccEnabled
            | A::hipDeviceAttributeKernelExecTimeout
            | A::hipDeviceAttributePciDomainID
            | A::hipDeviceAttributePciDeviceId => 0,
            A::hipDeviceAttributePciBusId => 3 + d.physical as i64,
            _ => return Err(E::hipErrorInvalidValue),
        };
        *out(pi)? = v as c_int;
        Ok(())
    })
}

/// The legacy (HIP 5, `R0000`) hipDeviceProp_t, which is what dsxor's
/// bindings and the exported unsuffixed symbol use; `gcnArchName` is the
/// full target id (hip_device.cpp: `sprintf(gcnArchName, "%s", isa.targetId())`).
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(prop: *mut hipDeviceProp_t, deviceId: c_int) -> E {
    api("hipGetDeviceProperties", |rt| {
        let d = rt.device(deviceId)?;
        let p = out(prop)?;
        // SAFETY: all-zero is a valid hipDeviceProp_t (integers, arrays,
        // nullable pointers).
        *p = unsafe { std::mem::zeroed() };
        copy_into(&mut p.name, &d.name);
        copy_into(&mut p.gcnArchName, &d.target.to_string());
        p.totalGlobalMem = memory::TOTAL_GLOBAL_MEM as usize;
        p.sharedMemPerBlock = LDS_PER_BLOCK as usize;
        p.maxSharedMemoryPerMultiProcessor = LDS_PER_BLOCK as usize;
        p.regsPerBlock = 65536;
        p.warpSize = rt.warp_size(d) as c_int;
        p.maxThreadsPerBlock = MAX_WORK_GROUP_SIZE as c_int;
        p.maxThreadsDim = [MAX_WORK_GROUP_SIZE as c_int; 3];
        p.maxGridSize = [i32::MAX, 65536, 65536];
        p.clockRate = rt.config.clock_khz as c_int;
        p.multiProcessorCount = rt.multiprocessors(d) as c_int;
        p.maxThreadsPerMultiProcessor = 2048;
        p.concurrentKernels = 1;
        p.pciBusID = 3 + d.physical as c_int;
        p.gcnArch = d
            .target
            .processor
            .trim_start_matches("gfx")
            .parse()
            .unwrap_or(0);
        Ok(())
    })
}

// ---- errors ----

#[no_mangle]
pub unsafe extern "C" fn hipGetErrorName(hip_error: hipError_t) -> *const c_char {
    errors::name(hip_error).as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn hipGetErrorString(hipError: hipError_t) -> *const c_char {
    errors::string(hipError).as_ptr()
}

// ---- streams and events ----

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithFlags(stream: *mut hipStream_t, flags: c_uint) -> E {
    let _ = flags; // Blocking or not: no legacy null-stream sync is modelled.
    api("hipStreamCreateWithFlags", |rt| {
        let s = out(stream)?;
        *s = rt.create_stream()? as hipStream_t;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamDestroy(stream: hipStream_t) -> E {
    api("hipStreamDestroy", |rt| rt.destroy_stream(stream as usize))
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamQuery(stream: hipStream_t) -> E {
    api("hipStreamQuery", |rt| {
        rt.query(stream as usize)?;
        // A fault latched while waiting shows at once.
        rt.sticky()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(event: *mut hipEvent_t) -> E {
    api("hipEventCreate", |rt| {
        let e = out(event)?;
        *e = rt.create_event()? as hipEvent_t;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) -> E {
    api("hipEventRecord", |rt| {
        rt.record(event as usize, stream as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventDestroy(event: hipEvent_t) -> E {
    api("hipEventDestroy", |rt| rt.destroy_event(event as usize))
}

#[no_mangle]
pub unsafe extern "C" fn hipEventSynchronize(event: hipEvent_t) -> E {
    api("hipEventSynchronize", |rt| {
        rt.event_synchronize(event as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(
    ms: *mut f32,
    start: hipEvent_t,
    stop: hipEvent_t,
) -> E {
    api("hipEventElapsedTime", |rt| {
        let m = out(ms)?;
        *m = rt.elapsed_ms(start as usize, stop as usize)?;
        Ok(())
    })
}

// ---- memory ----

#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> E {
    api("hipMalloc", |rt| {
        let p = out(ptr)?;
        // hipMalloc(0) succeeds with a null pointer (hip_memory.cpp).
        if size == 0 {
            *p = std::ptr::null_mut();
            return Ok(());
        }
        *p = rt.malloc(size)? as *mut c_void;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> E {
    api("hipFree", |rt| rt.free(ptr as u64))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(
    dst: hipDeviceptr_t,
    src: *mut c_void,
    sizeBytes: usize,
) -> E {
    api("hipMemcpyHtoD", |rt| {
        if sizeBytes == 0 {
            return Ok(());
        }
        if src.is_null() {
            return Err(E::hipErrorInvalidValue);
        }
        // SAFETY: the caller's host buffer holds `sizeBytes` bytes.
        let s = unsafe { std::slice::from_raw_parts(src as *const u8, sizeBytes) };
        rt.copy_to_device(dst as u64, s)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(
    dst: *mut c_void,
    src: hipDeviceptr_t,
    sizeBytes: usize,
) -> E {
    api("hipMemcpyDtoH", |rt| {
        if sizeBytes == 0 {
            return Ok(());
        }
        if dst.is_null() {
            return Err(E::hipErrorInvalidValue);
        }
        // SAFETY: the caller's host buffer holds `sizeBytes` bytes.
        let d = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, sizeBytes) };
        rt.copy_from_device(d, src as u64)
    })
}

// ---- modules ----

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(module: *mut hipModule_t, image: *const c_void) -> E {
    api("hipModuleLoadData", |rt| {
        let m = out(module)?;
        // SAFETY: HIP's contract: `image` is a code object.
        *m = unsafe { rt.load_module(image as *const u8) }? as hipModule_t;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleUnload(module: hipModule_t) -> E {
    api("hipModuleUnload", |rt| rt.unload_module(module as usize))
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    function: *mut hipFunction_t,
    module: hipModule_t,
    kname: *const c_char,
) -> E {
    api("hipModuleGetFunction", |rt| {
        let f = out(function)?;
        if kname.is_null() {
            return Err(E::hipErrorInvalidValue);
        }
        // SAFETY: a NUL-terminated name (HIP's contract).
        let name = unsafe { CStr::from_ptr(kname) }
            .to_str()
            .map_err(|_| E::hipErrorNotFound)?;
        *f = rt.get_function(module as usize, name)? as hipFunction_t;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: hipFunction_t,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    stream: hipStream_t,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> E {
    api("hipModuleLaunchKernel", |rt| {
        // SAFETY: HIP's contract for kernelParams / extra.
        unsafe {
            rt.launch(
                f as usize,
                [gridDimX, gridDimY, gridDimZ],
                [blockDimX, blockDimY, blockDimZ],
                sharedMemBytes,
                stream as usize,
                kernelParams,
                extra,
            )
        }
    })
}

/// Compile-time proof that every export has the type of the matching
/// `HipLib` field of dsxor's bindings (a mismatch does not compile).
#[allow(dead_code)]
fn exports_match_the_bindings(lib: &dsxor::hip::sys::HipLib) {
    fn same<T>(_: &Result<T, libloading::Error>, _: T) {}
    same(&lib.hipDriverGetVersion, hipDriverGetVersion);
    same(&lib.hipRuntimeGetVersion, hipRuntimeGetVersion);
    same(&lib.hipDeviceGetName, hipDeviceGetName);
    same(&lib.hipDeviceGetUuid, hipDeviceGetUuid);
    same(&lib.hipDeviceGetPCIBusId, hipDeviceGetPCIBusId);
    same(&lib.hipSetDevice, hipSetDevice);
    same(&lib.hipGetDeviceCount, hipGetDeviceCount);
    same(&lib.hipDeviceGetAttribute, hipDeviceGetAttribute);
    same(&lib.hipGetDeviceProperties, hipGetDeviceProperties);
    same(&lib.hipGetErrorName, hipGetErrorName);
    same(&lib.hipGetErrorString, hipGetErrorString);
    same(&lib.hipStreamCreateWithFlags, hipStreamCreateWithFlags);
    same(&lib.hipStreamDestroy, hipStreamDestroy);
    same(&lib.hipStreamQuery, hipStreamQuery);
    same(&lib.hipEventCreate, hipEventCreate);
    same(&lib.hipEventRecord, hipEventRecord);
    same(&lib.hipEventDestroy, hipEventDestroy);
    same(&lib.hipEventSynchronize, hipEventSynchronize);
    same(&lib.hipEventElapsedTime, hipEventElapsedTime);
    same(&lib.hipMalloc, hipMalloc);
    same(&lib.hipFree, hipFree);
    same(&lib.hipMemcpyHtoD, hipMemcpyHtoD);
    same(&lib.hipMemcpyDtoH, hipMemcpyDtoH);
    same(&lib.hipModuleUnload, hipModuleUnload);
    same(&lib.hipModuleGetFunction, hipModuleGetFunction);
    same(&lib.hipModuleLoadData, hipModuleLoadData);
    same(&lib.hipModuleLaunchKernel, hipModuleLaunchKernel);
}
