//! The HIP simulator (hipsim/) as a HIP runtime, through its C entry points
//! (dsxor's bindings, `dsxor::hip::sys::HipLib`): each documented behaviour
//! of docs/src/internals/hipsim.md, with the ROCm/clr source it mirrors.
//!
//! The simulator reads its configuration once per process, so behaviours
//! that need DSXOR_HIPSIM_* run in a child process: this test binary again,
//! running one `#[ignore]`d `child_*` test with the variables set (the
//! parent checks what the child printed or how it died).

use crate::common;

use std::ffi::{c_void, CString};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use dsxor::backend::ArgValue;
use dsxor::codeobj::{build_kernarg, find_embedded, CodeObject, LaunchDims};
use dsxor::hip::sys::{self, hipDeviceAttribute_t as A, HipLib};
use dsxor::hip::{
    HIP_LAUNCH_PARAM_BUFFER_POINTER, HIP_LAUNCH_PARAM_BUFFER_SIZE, HIP_LAUNCH_PARAM_END,
};

fn lib() -> HipLib {
    // SAFETY: loading the simulator runs no initialiser of consequence.
    unsafe { HipLib::new(common::hipsim_in_process()) }.expect("the simulator loads")
}

/// Call an entry point; its status code.
macro_rules! call {
    ($lib:expr, $f:ident($($a:expr),* $(,)?)) => {{
        let f = *$lib.$f.as_ref().expect(stringify!($f));
        #[allow(unused_unsafe)]
        let rc = unsafe { f($($a),*) };
        rc.0
    }};
}

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = sys::hipError_t::hipErrorInvalidValue.0;
const OUT_OF_MEMORY: u32 = sys::hipError_t::hipErrorOutOfMemory.0;
const NOT_INITIALIZED: u32 = sys::hipError_t::hipErrorNotInitialized.0;
const NO_DEVICE: u32 = sys::hipError_t::hipErrorNoDevice.0;
const INVALID_DEVICE: u32 = sys::hipError_t::hipErrorInvalidDevice.0;
const INVALID_IMAGE: u32 = sys::hipError_t::hipErrorInvalidImage.0;
const NO_BINARY: u32 = sys::hipError_t::hipErrorNoBinaryForGpu.0;
const NOT_READY: u32 = sys::hipError_t::hipErrorNotReady.0;
const ILLEGAL_ADDRESS: u32 = sys::hipError_t::hipErrorIllegalAddress.0;
const OUT_OF_RESOURCES: u32 = sys::hipError_t::hipErrorLaunchOutOfResources.0;

fn name(lib: &HipLib, code: u32) -> String {
    let f = lib.hipGetErrorName.as_ref().unwrap();
    // SAFETY: a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(f(sys::hipError_t(code))) }
        .to_string_lossy()
        .into_owned()
}

fn attr(lib: &HipLib, a: A) -> i32 {
    let mut v = 0;
    assert_eq!(
        call!(lib, hipDeviceGetAttribute(&mut v, a, 0)),
        SUCCESS,
        "{a:?}"
    );
    v
}

fn embedded_w32() -> &'static [u8] {
    find_embedded("gfx1100", dsxor::case::WaveSize::Wave32)
        .expect("an embedded gfx1100 wave32 object")
        .bytes
}

/// A device buffer.
fn malloc(lib: &HipLib, bytes: &[u8]) -> *mut c_void {
    let mut p: *mut c_void = std::ptr::null_mut();
    assert_eq!(call!(lib, hipMalloc(&mut p, bytes.len())), SUCCESS);
    assert_eq!(
        call!(
            lib,
            hipMemcpyHtoD(p, bytes.as_ptr() as *mut c_void, bytes.len())
        ),
        SUCCESS
    );
    p
}

fn read(lib: &HipLib, p: *mut c_void, n: usize) -> Vec<u64> {
    let mut b = vec![0u8; n * 8];
    assert_eq!(
        call!(
            lib,
            hipMemcpyDtoH(b.as_mut_ptr() as *mut c_void, p, b.len())
        ),
        SUCCESS
    );
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn le<T: Copy>(v: &[T], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

const LANES: usize = 32;
const QWORDS: u32 = 16;

/// One workgroup of 32 lanes of `dsxor_conformance_off0`, every lane
/// XORing 1 << lane into qword 2 (ADDR 0x10).
struct Off0 {
    module: sys::hipModule_t,
    function: sys::hipFunction_t,
    stream: sys::hipStream_t,
    buffers: Vec<*mut c_void>,
    kernarg: Vec<u8>,
    explicit_size: usize,
    init: Vec<u64>,
}

impl Off0 {
    /// Load `image` (kept alive by the caller) and set up the launch.
    fn new(lib: &HipLib, image: &[u8]) -> Off0 {
        let mut module: sys::hipModule_t = std::ptr::null_mut();
        assert_eq!(
            call!(
                lib,
                hipModuleLoadData(&mut module, image.as_ptr() as *const c_void)
            ),
            SUCCESS
        );
        let mut function: sys::hipFunction_t = std::ptr::null_mut();
        let kname = CString::new("dsxor_conformance_off0").unwrap();
        assert_eq!(
            call!(
                lib,
                hipModuleGetFunction(&mut function, module, kname.as_ptr())
            ),
            SUCCESS
        );
        let mut stream: sys::hipStream_t = std::ptr::null_mut();
        assert_eq!(
            call!(
                lib,
                hipStreamCreateWithFlags(&mut stream, sys::hipStreamNonBlocking)
            ),
            SUCCESS
        );
        let init: Vec<u64> = (0..QWORDS as u64)
            .map(|i| i * 0x0101_0101_0101_0101)
            .collect();
        let buffers = vec![
            malloc(lib, &le(&[0x10u32; LANES], |x| x.to_le_bytes().to_vec())),
            malloc(
                lib,
                &le(
                    &(0..LANES as u64).map(|l| 1u64 << l).collect::<Vec<_>>(),
                    |x| x.to_le_bytes().to_vec(),
                ),
            ),
            malloc(lib, &le(&[1u32; LANES], |x| x.to_le_bytes().to_vec())),
            malloc(lib, &le(&init, |x| x.to_le_bytes().to_vec())),
            malloc(lib, &[0u8; LANES * 8]),
            malloc(lib, &[0u8; QWORDS as usize * 8]),
        ];
        let co = CodeObject::parse(image).unwrap();
        let meta = co
            .kernel("dsxor_conformance_off0")
            .unwrap()
            .metadata
            .clone()
            .unwrap();
        let addrs: Vec<u64> = buffers.iter().map(|&p| p as u64).collect();
        let k = build_kernarg(
            &meta,
            &(0..6)
                .map(ArgValue::Buffer)
                .chain([ArgValue::U32(QWORDS)])
                .collect::<Vec<_>>(),
            &addrs,
            &LaunchDims::linear(1, LANES as u32, QWORDS * 8),
        )
        .unwrap();
        Off0 {
            module,
            function,
            stream,
            buffers,
            explicit_size: k.explicit_size,
            kernarg: k.bytes,
            init,
        }
    }

    /// Launch with `extra` = {BUFFER_POINTER, kernarg, BUFFER_SIZE, &size, END}.
    fn launch(&mut self, lib: &HipLib, size: usize, shared: u32, block: u32) -> u32 {
        let mut size = size;
        let mut extra: [*mut c_void; 5] = [
            HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
            self.kernarg.as_mut_ptr() as *mut c_void,
            HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
            &mut size as *mut usize as *mut c_void,
            HIP_LAUNCH_PARAM_END as *mut c_void,
        ];
        call!(
            lib,
            hipModuleLaunchKernel(
                self.function,
                1,
                1,
                1,
                block,
                1,
                1,
                shared,
                self.stream,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        )
    }

    fn wait(&self, lib: &HipLib) {
        let start = Instant::now();
        loop {
            match call!(lib, hipStreamQuery(self.stream)) {
                SUCCESS => return,
                NOT_READY => {
                    assert!(start.elapsed() < Duration::from_secs(60), "never completed");
                    std::thread::sleep(Duration::from_micros(100));
                }
                other => panic!("hipStreamQuery: {}", name(lib, other)),
            }
        }
    }

    /// Launch with the whole segment, wait, and return the LDS image after.
    fn run(&mut self, lib: &HipLib) -> Vec<u64> {
        let n = self.kernarg.len();
        assert_eq!(self.launch(lib, n, QWORDS * 8, LANES as u32), SUCCESS);
        self.wait(lib);
        read(lib, self.buffers[5], QWORDS as usize)
    }

    /// What the LDS must hold after a correct run.
    fn expected(&self) -> Vec<u64> {
        let mut e = self.init.clone();
        e[2] ^= (1u64 << LANES) - 1;
        e
    }
}

#[test]
fn every_entry_point_dsxor_loads_is_exported() {
    let l = lib();
    let missing: Vec<&str> = [
        ("hipDriverGetVersion", l.hipDriverGetVersion.is_ok()),
        ("hipRuntimeGetVersion", l.hipRuntimeGetVersion.is_ok()),
        ("hipDeviceGetName", l.hipDeviceGetName.is_ok()),
        ("hipDeviceGetPCIBusId", l.hipDeviceGetPCIBusId.is_ok()),
        ("hipSetDevice", l.hipSetDevice.is_ok()),
        ("hipGetDeviceCount", l.hipGetDeviceCount.is_ok()),
        ("hipDeviceGetAttribute", l.hipDeviceGetAttribute.is_ok()),
        ("hipGetDeviceProperties", l.hipGetDeviceProperties.is_ok()),
        ("hipGetErrorName", l.hipGetErrorName.is_ok()),
        ("hipGetErrorString", l.hipGetErrorString.is_ok()),
        (
            "hipStreamCreateWithFlags",
            l.hipStreamCreateWithFlags.is_ok(),
        ),
        ("hipStreamDestroy", l.hipStreamDestroy.is_ok()),
        ("hipStreamQuery", l.hipStreamQuery.is_ok()),
        ("hipEventCreate", l.hipEventCreate.is_ok()),
        ("hipEventRecord", l.hipEventRecord.is_ok()),
        ("hipEventDestroy", l.hipEventDestroy.is_ok()),
        ("hipEventSynchronize", l.hipEventSynchronize.is_ok()),
        ("hipEventElapsedTime", l.hipEventElapsedTime.is_ok()),
        ("hipMalloc", l.hipMalloc.is_ok()),
        ("hipFree", l.hipFree.is_ok()),
        ("hipMemcpyHtoD", l.hipMemcpyHtoD.is_ok()),
        ("hipMemcpyDtoH", l.hipMemcpyDtoH.is_ok()),
        ("hipModuleUnload", l.hipModuleUnload.is_ok()),
        ("hipModuleGetFunction", l.hipModuleGetFunction.is_ok()),
        ("hipModuleLoadData", l.hipModuleLoadData.is_ok()),
        ("hipModuleLaunchKernel", l.hipModuleLaunchKernel.is_ok()),
    ]
    .into_iter()
    .filter(|(_, ok)| !ok)
    .map(|(n, _)| n)
    .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

/// Defaults: one simulated RX 7900 XTX. clr on gfx10+ reports WGPs as the
/// multiprocessor count (rocdevice.cpp), the clock in kHz, and the legacy
/// properties carry gcnArchName (hip_device.cpp).
#[test]
fn the_default_device_is_a_simulated_rx_7900_xtx() {
    let l = lib();
    let mut n = 0;
    assert_eq!(call!(l, hipGetDeviceCount(&mut n)), SUCCESS);
    assert_eq!(n, 1);
    assert_eq!(attr(&l, A::hipDeviceAttributeMultiprocessorCount), 48);
    assert_eq!(
        attr(&l, A::hipDeviceAttributePhysicalMultiProcessorCount),
        96
    );
    assert_eq!(attr(&l, A::hipDeviceAttributeClockRate), 2_500_000);
    assert_eq!(
        attr(&l, A::hipDeviceAttributeMaxSharedMemoryPerBlock),
        65536
    );
    assert_eq!(attr(&l, A::hipDeviceAttributeWarpSize), 32);
    let mut props: Box<sys::hipDeviceProp_t> = Box::new(unsafe { std::mem::zeroed() });
    assert_eq!(call!(l, hipGetDeviceProperties(&mut *props, 0)), SUCCESS);
    let s = |b: &[std::ffi::c_char]| {
        b.iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8 as char)
            .collect::<String>()
    };
    assert_eq!(s(&props.gcnArchName), "gfx1100");
    assert!(s(&props.name).contains("simulated"), "{}", s(&props.name));
    assert_eq!(props.multiProcessorCount, 48);
    assert_eq!(props.clockRate, 2_500_000);
    let mut buf = [0 as std::ffi::c_char; 8];
    assert_eq!(call!(l, hipDeviceGetName(buf.as_mut_ptr(), 8, 0)), SUCCESS);
    assert_eq!(s(&buf).len(), 7, "truncated and NUL-terminated");
    let mut v = 0;
    assert_eq!(call!(l, hipRuntimeGetVersion(&mut v)), SUCCESS);
    let mut d = 0;
    assert_eq!(call!(l, hipDriverGetVersion(&mut d)), SUCCESS);
    assert_eq!((v, d), (60_241_134, 60_241_134));
    assert_eq!(call!(l, hipSetDevice(1)), INVALID_DEVICE);
    assert_eq!(name(&l, NO_DEVICE), "hipErrorNoDevice");
}

/// The kernarg checks of hipModuleLaunchKernel (current clr,
/// hip_module.cpp): kernelParams and extra both set, a malformed extra, no
/// arguments for a kernel that takes some, LDS and block limits.
#[test]
fn launch_arguments_are_checked_as_clr_checks_them() {
    let l = lib();
    let image = embedded_w32().to_vec();
    let mut k = Off0::new(&l, &image);
    let n = k.kernarg.len();
    // Both kernelParams and extra.
    let mut size = n;
    let mut extra: [*mut c_void; 5] = [
        HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
        k.kernarg.as_mut_ptr() as *mut c_void,
        HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
        &mut size as *mut usize as *mut c_void,
        HIP_LAUNCH_PARAM_END as *mut c_void,
    ];
    let mut params: Vec<*mut c_void> = vec![std::ptr::null_mut(); 7];
    let launch = |params: *mut *mut c_void, extra: *mut *mut c_void| {
        call!(
            l,
            hipModuleLaunchKernel(k.function, 1, 1, 1, 32, 1, 1, 128, k.stream, params, extra)
        )
    };
    assert_eq!(
        launch(params.as_mut_ptr(), extra.as_mut_ptr()),
        INVALID_VALUE
    );
    assert_eq!(
        launch(std::ptr::null_mut(), std::ptr::null_mut()),
        INVALID_VALUE
    );
    // The keys in the wrong order.
    extra.swap(0, 2);
    assert_eq!(
        launch(std::ptr::null_mut(), extra.as_mut_ptr()),
        INVALID_VALUE
    );
    extra.swap(0, 2);
    // No END.
    extra[4] = std::ptr::null_mut();
    assert_eq!(
        launch(std::ptr::null_mut(), extra.as_mut_ptr()),
        INVALID_VALUE
    );
    // A kernel with arguments given size 0.
    assert_eq!(k.launch(&l, 0, 128, 32), INVALID_VALUE);
    // Dynamic LDS over the device's 64 KiB; a workgroup over 1024.
    assert_eq!(k.launch(&l, n, 65536 + 8, 32), INVALID_VALUE);
    assert_eq!(k.launch(&l, n, 128, 1025), INVALID_VALUE);
    // Nothing was queued by the refused launches; a good one runs.
    assert_eq!(k.run(&l), k.expected());
}

/// The runtime reads each explicit argument at its metadata offset and
/// writes the hidden arguments itself (rocvirtual.cpp): junk in the hidden
/// part of the caller's buffer changes nothing (the kernel reads its block
/// size from hidden_group_size_x); explicit arguments past the given size
/// read as zero (current clr): lds_qwords = 0 leaves lds_out untouched.
#[test]
fn explicit_arguments_at_their_offsets_hidden_ones_from_the_runtime() {
    let l = lib();
    let image = embedded_w32().to_vec();
    let mut k = Off0::new(&l, &image);
    let e = k.explicit_size;
    assert!(e < k.kernarg.len(), "the kernel has hidden arguments");
    for b in &mut k.kernarg[e..] {
        *b = 0xab;
    }
    assert_eq!(k.run(&l), k.expected(), "hidden arguments rewritten");
    // lds_qwords is the last explicit argument (4 bytes): leave it out.
    let n = k.kernarg.len();
    assert_eq!(k.launch(&l, e - 4, QWORDS * 8, LANES as u32), SUCCESS);
    k.wait(&l);
    assert_eq!(
        read(&l, k.buffers[5], QWORDS as usize),
        k.expected(),
        "from the run before"
    );
    assert_eq!(
        call!(
            l,
            hipMemcpyHtoD(
                k.buffers[5],
                vec![0u8; QWORDS as usize * 8].as_mut_ptr() as *mut c_void,
                QWORDS as usize * 8
            )
        ),
        SUCCESS
    );
    assert_eq!(k.launch(&l, e - 4, QWORDS * 8, LANES as u32), SUCCESS);
    k.wait(&l);
    assert_eq!(
        read(&l, k.buffers[5], QWORDS as usize),
        vec![0; QWORDS as usize],
        "lds_qwords past the size must read as 0"
    );
    assert_eq!(k.launch(&l, n, QWORDS * 8, LANES as u32), SUCCESS);
    k.wait(&l);
    assert_eq!(read(&l, k.buffers[5], QWORDS as usize), k.expected());
}

/// hipModuleLoadData does not copy the image (clr: make_copy = false): the
/// module reads the caller's bytes at each launch, so changing them under
/// a loaded module changes what runs (here: ds_xor_rtn_b64 → ds_or_rtn_b64).
#[test]
fn the_image_is_the_callers_not_a_copy() {
    use dsxor::codeobj::patch::find_ds_xor_site;
    use dsxor::isa::{op_by_name, DsInst, Family};
    let l = lib();
    let co = CodeObject::parse(embedded_w32()).unwrap();
    let mut image = co.elf_bytes().to_vec();
    let mut k = Off0::new(&l, &image);
    assert_eq!(k.run(&l), k.expected());
    let site = find_ds_xor_site(&co, "dsxor_conformance_off0").unwrap();
    let off = co.file_offset(site, 8).unwrap() as usize;
    let word = u64::from_le_bytes(image[off..off + 8].try_into().unwrap());
    let mut inst = DsInst::decode(Family::Gfx11, word).unwrap();
    inst.op = op_by_name(Family::Gfx11, "ds_or_rtn_b64").unwrap().op;
    image[off..off + 8].copy_from_slice(&inst.encode(Family::Gfx11).unwrap().to_le_bytes());
    let mut or = k.init.clone();
    or[2] |= (1u64 << LANES) - 1;
    assert_eq!(k.run(&l), or, "the launch ran the caller's changed bytes");
    image[off..off + 8].copy_from_slice(&word.to_le_bytes());
    assert_eq!(k.run(&l), k.expected());
    assert_eq!(call!(l, hipModuleUnload(k.module)), SUCCESS);
}

/// No code for the device's target → hipErrorNoBinaryForGpu; not a code
/// object → hipErrorInvalidImage.
#[test]
fn images_for_another_target_or_none_are_refused() {
    let l = lib();
    let gfx90a = find_embedded("gfx90a", dsxor::case::WaveSize::Wave64)
        .expect("an embedded gfx90a object")
        .bytes;
    let mut m: sys::hipModule_t = std::ptr::null_mut();
    assert_eq!(
        call!(
            l,
            hipModuleLoadData(&mut m, gfx90a.as_ptr() as *const c_void)
        ),
        NO_BINARY
    );
    let junk = [0u8; 64];
    assert_eq!(
        call!(l, hipModuleLoadData(&mut m, junk.as_ptr() as *const c_void)),
        INVALID_IMAGE
    );
    assert_eq!(name(&l, NO_BINARY), "hipErrorNoBinaryForGpu");
}

/// Launches run on the stream's worker thread: hipStreamQuery says
/// hipErrorNotReady while one runs; events time it.
#[test]
fn launches_are_asynchronous_and_events_time_them() {
    let l = lib();
    let image = embedded_w32().to_vec();
    let co = CodeObject::parse(&image).unwrap();
    let mut m: sys::hipModule_t = std::ptr::null_mut();
    assert_eq!(
        call!(
            l,
            hipModuleLoadData(&mut m, image.as_ptr() as *const c_void)
        ),
        SUCCESS
    );
    let mut f: sys::hipFunction_t = std::ptr::null_mut();
    let kname = CString::new("dsxor_throughput_dep").unwrap();
    assert_eq!(
        call!(l, hipModuleGetFunction(&mut f, m, kname.as_ptr())),
        SUCCESS
    );
    let mut s: sys::hipStream_t = std::ptr::null_mut();
    assert_eq!(call!(l, hipStreamCreateWithFlags(&mut s, 0)), SUCCESS);
    let block = 32u32;
    let bufs: Vec<*mut c_void> = vec![
        malloc(
            &l,
            &le(&(0..block).map(|i| i * 8).collect::<Vec<_>>(), |x| {
                x.to_le_bytes().to_vec()
            }),
        ),
        malloc(
            &l,
            &le(&vec![1u64; block as usize], |x| x.to_le_bytes().to_vec()),
        ),
        malloc(&l, &vec![0u8; block as usize * 8]),
        malloc(&l, &vec![0u8; block as usize * 8]),
    ];
    let meta = co
        .kernel("dsxor_throughput_dep")
        .unwrap()
        .metadata
        .clone()
        .unwrap();
    // 1 << 22 dependent iterations: tens of millions of interpreted
    // instructions, a kernel of a few hundred ms, so that the queries below
    // find it still running even when a loaded machine (CI, 2 cores)
    // deschedules this thread for a while (1 << 17 ran in ~10 ms and the
    // NOT_READY query below failed under load).
    let iters = (1u32 << 22) - 1;
    let mut kernarg = build_kernarg(
        &meta,
        &[
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
            ArgValue::U32(iters),
            ArgValue::U64(0),
            ArgValue::U32(block),
        ],
        &bufs.iter().map(|&p| p as u64).collect::<Vec<_>>(),
        &LaunchDims::linear(1, block, block * 8),
    )
    .unwrap()
    .bytes;
    let mut e: [sys::hipEvent_t; 2] = [std::ptr::null_mut(); 2];
    for ev in &mut e {
        assert_eq!(call!(l, hipEventCreate(ev)), SUCCESS);
    }
    let mut ms = 0f32;
    // Never recorded: invalid handle (hip_event.cpp).
    assert_eq!(
        call!(l, hipEventElapsedTime(&mut ms, e[0], e[1])),
        sys::hipError_t::hipErrorInvalidHandle.0
    );
    assert_eq!(call!(l, hipEventRecord(e[0], s)), SUCCESS);
    let mut size = kernarg.len();
    let mut extra: [*mut c_void; 5] = [
        HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
        kernarg.as_mut_ptr() as *mut c_void,
        HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
        &mut size as *mut usize as *mut c_void,
        HIP_LAUNCH_PARAM_END as *mut c_void,
    ];
    let t0 = Instant::now();
    assert_eq!(
        call!(
            l,
            hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                block,
                1,
                1,
                block * 8,
                s,
                std::ptr::null_mut(),
                extra.as_mut_ptr()
            )
        ),
        SUCCESS
    );
    assert_eq!(call!(l, hipEventRecord(e[1], s)), SUCCESS);
    let returned = t0.elapsed();
    assert_eq!(
        call!(l, hipStreamQuery(s)),
        NOT_READY,
        "the launch is still running"
    );
    assert_eq!(
        call!(l, hipEventElapsedTime(&mut ms, e[0], e[1])),
        NOT_READY
    );
    assert_eq!(call!(l, hipEventSynchronize(e[1])), SUCCESS);
    assert_eq!(call!(l, hipStreamQuery(s)), SUCCESS);
    assert_eq!(call!(l, hipEventElapsedTime(&mut ms, e[0], e[1])), SUCCESS);
    assert!(
        f64::from(ms) / 1e3 > returned.as_secs_f64(),
        "the kernel ({ms} ms) outlasted the launch call ({returned:?})"
    );
    // Each qword ends at d = 1 after an odd number of XORs of 1.
    assert_eq!(read(&l, bufs[3], block as usize), vec![1; block as usize]);
    for ev in e {
        assert_eq!(call!(l, hipEventDestroy(ev)), SUCCESS);
    }
    for b in bufs {
        assert_eq!(call!(l, hipFree(b)), SUCCESS);
    }
    assert_eq!(call!(l, hipFree(std::ptr::null_mut())), SUCCESS);
    let mut bogus = 0u8;
    assert_eq!(
        call!(l, hipFree(&mut bogus as *mut u8 as *mut c_void)),
        INVALID_VALUE
    );
    assert_eq!(call!(l, hipStreamDestroy(s)), SUCCESS);
}

// ---- behaviours that need a configuration: child processes ----

/// Run `child` (an ignored test of this module, in this binary) with `env`.
fn child(test: &str, env: &[(&str, &str)]) -> Output {
    // The harness names a test by its path below the crate root.
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, m)| m);
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        &format!("{module}::{test}"),
        "--ignored",
        "--nocapture",
        "--test-threads",
        "1",
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("DSXOR_HIPSIM_") || k == "GPU_ENABLE_WGP_MODE" {
            cmd.env_remove(k);
        }
    }
    // The child finds the library without building it again.
    cmd.env("DSXOR_HIPSIM_TEST_LIB", common::hipsim_lib());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn child_lib() -> Option<HipLib> {
    let p = std::env::var("DSXOR_HIPSIM_TEST_LIB").ok()?;
    // SAFETY: as `lib`.
    Some(unsafe { HipLib::new(p) }.expect("the simulator loads"))
}

fn said(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn child_passed(o: &Output) {
    assert!(o.status.success(), "{}", said(o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1 passed"),
        "the child test did not run: {}",
        said(o)
    );
}

/// Print the status codes of the configured device queries.
#[test]
#[ignore = "child of configured_devices_and_overrides"]
fn child_devices() {
    let Some(l) = child_lib() else { return };
    let mut n = -1;
    let rc = call!(l, hipGetDeviceCount(&mut n));
    println!("count rc={rc} n={n}");
    if rc == SUCCESS {
        println!("mp={}", attr(&l, A::hipDeviceAttributeMultiprocessorCount));
        let mut props: Box<sys::hipDeviceProp_t> = Box::new(unsafe { std::mem::zeroed() });
        call!(l, hipGetDeviceProperties(&mut *props, 0));
        println!("props_mp={}", props.multiProcessorCount);
        println!("clock={}", attr(&l, A::hipDeviceAttributeClockRate));
        let mut v = 0;
        call!(l, hipRuntimeGetVersion(&mut v));
        println!("version={v}");
        println!("set1={}", call!(l, hipSetDevice(1)));
        println!("set2={}", call!(l, hipSetDevice(2)));
    }
    let mut p: *mut c_void = std::ptr::null_mut();
    println!("malloc={}", call!(l, hipMalloc(&mut p, 64)));
}

#[test]
fn configured_devices_and_overrides() {
    // No device: hipErrorNoDevice with *count = 0 (hip_device_runtime.cpp).
    let o = child("child_devices", &[("DSXOR_HIPSIM_DEVICES", "")]);
    child_passed(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("count rc={NO_DEVICE} n=0")),
        "{}",
        said(&o)
    );
    assert!(out.contains(&format!("malloc={NO_DEVICE}")), "{}", said(&o));
    // Two devices; overrides of CUs (so WGPs), clock and version.
    let o = child(
        "child_devices",
        &[
            ("DSXOR_HIPSIM_DEVICES", "gfx1100,gfx1100"),
            ("DSXOR_HIPSIM_CUS", "60"),
            ("DSXOR_HIPSIM_CLOCK_KHZ", "2100000"),
            ("DSXOR_HIPSIM_RUNTIME_VERSION", "7.0.12345"),
        ],
    );
    child_passed(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    for want in [
        "count rc=0 n=2".to_string(),
        "mp=30".into(),
        "clock=2100000".into(),
        "version=70012345".into(),
        "set1=0".into(),
        format!("set2={INVALID_DEVICE}"),
        "malloc=0".into(),
    ] {
        assert!(out.contains(&want), "{want}: {}", said(&o));
    }
    // A bad configuration: every call fails, the reason on stderr.
    let o = child("child_devices", &[("DSXOR_HIPSIM_ON_FAULT", "ignore")]);
    child_passed(&o);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("count rc={NOT_INITIALIZED}")),
        "{}",
        said(&o)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("DSXOR_HIPSIM_ON_FAULT"));
}

/// ROCm's GPU_ENABLE_WGP_MODE, read as rocclr reads a boolean flag
/// (rocclr/utils/flags.cpp `Tbool`: "true" or atoi() != 0): off, gfx10+
/// reports CUs as multiprocessors (rocsettings.cpp `enableWgpMode_`,
/// rocdevice.cpp `maxComputeUnits_`), in the attribute and the legacy
/// properties alike; and dsxor, reading the same variable, names the unit
/// the runtime counted.
#[test]
fn gpu_enable_wgp_mode_0_reports_cus_as_rocm_does() {
    for (value, mp, unit) in [
        (None, 48, "WGP"),
        (Some("1"), 48, "WGP"),
        (Some("true"), 48, "WGP"),
        (Some("0"), 96, "CU"),
        (Some("false"), 96, "CU"),
        (Some("TRUE"), 96, "CU"),
        (Some(""), 96, "CU"),
    ] {
        let env: Vec<(&str, &str)> = value
            .map(|v| ("GPU_ENABLE_WGP_MODE", v))
            .into_iter()
            .collect();
        let o = child("child_devices", &env);
        child_passed(&o);
        let out = String::from_utf8_lossy(&o.stdout);
        for want in [format!("mp={mp}\n"), format!("props_mp={mp}\n")] {
            assert!(out.contains(&want), "{value:?}: {want}: {}", said(&o));
        }
        let o = common::dsxor_hipsim(&["info", "--require-device", "--json"], &env);
        assert_eq!(o.status.code(), Some(0), "{}", said(&o));
        let info: serde_json::Value = serde_json::from_slice(&o.stdout).expect("info --json");
        let d = &info["devices"][0];
        assert_eq!(d["compute_units"], mp, "{value:?}: {d}");
        assert_eq!(d["compute_unit"], unit, "{value:?}: {d}");
    }
}

#[test]
#[ignore = "child of the n_th_call_of_an_entry_point_fails"]
fn child_fail() {
    let Some(l) = child_lib() else { return };
    let mut p: *mut c_void = std::ptr::null_mut();
    for i in 1..=3 {
        println!("malloc{i}={}", call!(l, hipMalloc(&mut p, 64)));
    }
}

/// DSXOR_HIPSIM_FAIL=hipMalloc:2: the second call fails with the error the
/// runtime gives there (out of memory), the others succeed.
#[test]
fn the_n_th_call_of_an_entry_point_fails() {
    let o = child("child_fail", &[("DSXOR_HIPSIM_FAIL", "hipMalloc:2")]);
    child_passed(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("malloc1=0\nmalloc2={OUT_OF_MEMORY}\nmalloc3=0")),
        "{}",
        said(&o)
    );
}

#[test]
#[ignore = "child of hip_free_waits_for_a_hung_kernel"]
fn child_hang() {
    let Some(l) = child_lib() else { return };
    let image = embedded_w32().to_vec();
    let mut k = Off0::new(&l, &image);
    let n = k.kernarg.len();
    assert_eq!(k.launch(&l, n, QWORDS * 8, LANES as u32), SUCCESS);
    let buffer = k.buffers[0] as usize;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let l = child_lib().unwrap();
        let rc = call!(l, hipFree(buffer as *mut c_void));
        let _ = tx.send(rc);
    });
    std::thread::sleep(Duration::from_millis(300));
    println!("query={}", call!(l, hipStreamQuery(k.stream)));
    // hipStreamDestroy returns at once even so.
    println!("destroy={}", call!(l, hipStreamDestroy(k.stream)));
    std::thread::sleep(Duration::from_millis(100));
    println!("free returned: {}", rx.try_recv().is_ok());
    // The hung kernel and the blocked hipFree end with the process.
    std::process::exit(0);
}

/// DSXOR_HIPSIM_HANG: the kernel never completes (hipStreamQuery stays
/// hipErrorNotReady), and hipFree waits for it as clr's ihipFree waits for
/// every stream of the device (hip_memory.cpp, SyncAllStreams).
#[test]
fn hip_free_waits_for_a_hung_kernel() {
    let o = child(
        "child_hang",
        &[("DSXOR_HIPSIM_HANG", "dsxor_conformance_off0")],
    );
    assert!(o.status.success(), "{}", said(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("query={NOT_READY}")), "{}", said(&o));
    assert!(out.contains("destroy=0"), "{}", said(&o));
    assert!(out.contains("free returned: false"), "{}", said(&o));
}

#[test]
#[ignore = "child of device_faults_abort_or_stick"]
fn child_fault() {
    let Some(l) = child_lib() else { return };
    let image = embedded_w32().to_vec();
    let mut k = Off0::new(&l, &image);
    // ADDR 0x14: misaligned for a 64-bit LDS atomic (MEMVIOL).
    let bad = le(&[0x14u32; LANES], |x| x.to_le_bytes().to_vec());
    assert_eq!(
        call!(
            l,
            hipMemcpyHtoD(k.buffers[0], bad.as_ptr() as *mut c_void, bad.len())
        ),
        SUCCESS
    );
    let n = k.kernarg.len();
    assert_eq!(k.launch(&l, n, QWORDS * 8, LANES as u32), SUCCESS);
    let start = Instant::now();
    let rc = loop {
        let rc = call!(l, hipStreamQuery(k.stream));
        if rc != NOT_READY || start.elapsed() > Duration::from_secs(30) {
            break rc;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    println!("query={rc}");
    let mut p: *mut c_void = std::ptr::null_mut();
    println!("malloc={}", call!(l, hipMalloc(&mut p, 64)));
    let mut n = 0;
    println!("count={}", call!(l, hipGetDeviceCount(&mut n)));
}

/// A device fault: ROCm 6 aborts the process (rocdevice.cpp callbackQueue:
/// SIGABRT); current clr with HIP_SKIP_ABORT_ON_GPU_ERROR latches
/// hipErrorIllegalAddress, which every later call returns.
#[test]
fn device_faults_abort_or_stick() {
    use std::os::unix::process::ExitStatusExt;
    let o = child("child_fault", &[]);
    assert_eq!(
        o.status.signal(),
        Some(6),
        "SIGABRT by default: {}",
        said(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("MEMVIOL"),
        "{}",
        said(&o)
    );
    let o = child("child_fault", &[("DSXOR_HIPSIM_ON_FAULT", "sticky")]);
    child_passed(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    for want in ["query", "malloc", "count"] {
        assert!(
            out.contains(&format!("{want}={ILLEGAL_ADDRESS}")),
            "{want}: {}",
            said(&o)
        );
    }
}

/// A kernel without explicit arguments given a non-zero kernarg size:
/// hipErrorLaunchOutOfResources (current clr, ihipLaunchKernelCommand);
/// size 0 launches. Needs clang for the kernel (dsxor's all take arguments).
#[test]
fn a_kernel_without_arguments_refuses_a_kernarg_size() {
    let Some(image) = common::compile_hip(
        concat!(
            "extern \"C\" __attribute__((global)) void noargs() {}\n",
            "extern \"C\" __attribute__((global)) void static_lds() {\n",
            "  __attribute__((shared)) static volatile int s[256];\n",
            "  s[__builtin_amdgcn_workitem_id_x()] = 1;\n",
            "}\n",
        ),
        "-O2",
        &[],
    ) else {
        return;
    };
    let l = lib();
    let mut m: sys::hipModule_t = std::ptr::null_mut();
    assert_eq!(
        call!(
            l,
            hipModuleLoadData(&mut m, image.as_ptr() as *const c_void)
        ),
        SUCCESS
    );
    let mut f: sys::hipFunction_t = std::ptr::null_mut();
    let kname = CString::new("noargs").unwrap();
    assert_eq!(
        call!(l, hipModuleGetFunction(&mut f, m, kname.as_ptr())),
        SUCCESS
    );
    let mut s: sys::hipStream_t = std::ptr::null_mut();
    assert_eq!(call!(l, hipStreamCreateWithFlags(&mut s, 0)), SUCCESS);
    let co = CodeObject::parse(&image).unwrap();
    let seg = co
        .kernel("noargs")
        .unwrap()
        .metadata
        .as_ref()
        .unwrap()
        .kernarg_segment_size;
    let mut buf = vec![0u8; seg.max(8) as usize];
    for size in [buf.len(), 0] {
        let mut sz = size;
        let mut extra: [*mut c_void; 5] = [
            HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
            buf.as_mut_ptr() as *mut c_void,
            HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
            &mut sz as *mut usize as *mut c_void,
            HIP_LAUNCH_PARAM_END as *mut c_void,
        ];
        let rc = call!(
            l,
            hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                s,
                std::ptr::null_mut(),
                extra.as_mut_ptr()
            )
        );
        let want = if size == 0 { SUCCESS } else { OUT_OF_RESOURCES };
        assert_eq!(rc, want, "size {size}: {}", name(&l, rc));
    }
    // No kernelParams and no extra is fine for a kernel without arguments.
    assert_eq!(
        call!(
            l,
            hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                s,
                std::ptr::null_mut(),
                std::ptr::null_mut()
            )
        ),
        SUCCESS
    );
    let start = Instant::now();
    while call!(l, hipStreamQuery(s)) == NOT_READY {
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(call!(l, hipStreamQuery(s)), SUCCESS);
    // 1 KiB of static LDS + 64 KiB dynamic: over the device's 64 KiB
    // (rocclr/platform/kernel.cpp, CL_OUT_OF_RESOURCES → hipErrorOutOfMemory).
    let kname = CString::new("static_lds").unwrap();
    assert_eq!(
        call!(l, hipModuleGetFunction(&mut f, m, kname.as_ptr())),
        SUCCESS
    );
    assert!(
        co.kernel("static_lds")
            .unwrap()
            .descriptor
            .group_segment_fixed_size
            >= 1024
    );
    // (Refused before it runs: the simulator could not run this kernel's
    // flat access to LDS, which needs the shared aperture.)
    assert_eq!(
        call!(
            l,
            hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                65536,
                s,
                std::ptr::null_mut(),
                std::ptr::null_mut()
            )
        ),
        OUT_OF_MEMORY
    );
}
