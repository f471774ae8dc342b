//! Worker processes: HIP cases, `qualify`'s raw launches and `bench`'s
//! throughput launches run in a child process, so a device fault becomes a
//! verdict instead of a dead run.
//!
//! Why (ROCm/clr): on ROCm 6.x every HSA queue is created with
//! `callbackQueue` as its error callback, which prints "Callback: Queue …
//! aborting with error" and calls `abort()` on any queue error — a memory
//! violation, an illegal instruction (rocclr/device/rocm/rocdevice.cpp,
//! `callbackQueue`, registered by `hsa_queue_create` in
//! `Device::acquireQueue`); a GPU page fault aborts in ROCr's
//! `VMFaultHandler`. Current clr (ROCm/rocm-systems `projects/clr`) with
//! `HIP_SKIP_ABORT_ON_GPU_ERROR` latches the error instead: every later HIP
//! call of the process returns it. Either way the process that saw the fault
//! cannot run another case.
//!
//! So the parent never launches a kernel. It starts `dsxor worker` — a fresh
//! `exec` of the dsxor binary, never a `fork` of a process that has
//! initialised HIP (HIP's threads and the KFD's per-process state do not
//! survive a fork) — with `HIP_VISIBLE_DEVICES` naming one device, and talks
//! to it over its stdin/stdout in frames (`Request` → `Response`): a header
//! line tagged with the protocol's version (`LINE_TAG`) and the sizes of
//! the two parts that follow, a JSON value, then a payload holding every
//! case buffer and observation as its raw little-endian bytes, which the
//! JSON names by offset and length (`Blob`; `WireCase`, `WireOutcome`: a
//! batch crosses at its own size, with no text encoding to make or undo),
//! every enum externally tagged (serde reads an internally tagged one
//! through a buffered copy of the whole value). The payload is not in the
//! pipe but in the sender's shared-memory region (`shared`: a sealed memfd
//! per direction, handed to the child as descriptors 3 and 4; policy
//! `worker-shared-payload`) when the header says ` shared`, so the pipe
//! carries only headers and JSON:
//!
//! - the parent sends the `Setup` (kernels, timeout, wave sizes), the child
//!   opens HIP device 0 (the one it can see) and answers `Ready`;
//! - then one `Run` per case, answered with the case's `DeviceOutcome`,
//!   or one `RunBatch` per batched launch (cases of one
//!   `conformance::BatchKey`, `conformance::run_cases` groups them),
//!   answered with a `BatchOutcome`: every case's outcome, or a fault or
//!   timeout of the launch as a whole, which retires the child like a
//!   case's; the parent then runs that batch's cases one per launch
//!   (`run_cases`' attribution policy), in fresh children as needed;
//! - or (`dsxor qualify`, through `impl Backend for WorkerDevice`) one
//!   `Dispatch` per raw launch — code object, kernel, grid, block, dynamic
//!   LDS, buffers, arguments, timeout — answered with a `Launch`: the
//!   completion's buffers, or the fault or timeout that ended it. The code
//!   object crosses once per child and then as the bytes a program changed
//!   (`CodeCache`);
//! - or (`dsxor bench`, through `impl Backend for ThroughputWorker`) one
//!   `Throughput` per throughput launch: a raw launch whose input buffers
//!   the child keeps, so that a bench run's launches (all with the same
//!   inputs) send them once (`WireInputs::Kept` after that), answered with
//!   a `Throughput`: the completion carrying only the buffers the bench
//!   checks, its time the launch's HIP event time as the child measured it,
//!   or the fault or timeout that ended it.
//!
//! A child that has not answered a case within the launch timeout plus
//! `ANSWER_GRACE` is stuck in a blocking HIP call outside the launch
//! watchdog: the parent kills it and records the case as a `timeout`.
//!
//! A child that answers a case with a fault or a timeout says `retire`: its
//! runtime holds a sticky error or a kernel that never ends, so the parent
//! kills it and starts a fresh one for the next case. A child that dies
//! while running a case — killed by a signal (ROCm 6's `abort()` is
//! SIGABRT) — gives that case a `fault` outcome naming the signal and the
//! runtime's last words on stderr; the judge then weighs it against the
//! policy (a misaligned probe expects MEMVIOL). A child that exits with a
//! code instead (a dsxor panic is 101) is an environment error, never a
//! verdict: a crash of dsxor's own must not pass a case that expects a
//! fault.
//!
//! Lines the child writes to stdout between frames that do not start with
//! `LINE_TAG` are ignored (a runtime may print there); its stderr is forwarded to the
//! parent's with a `[worker N]` prefix, and its last lines kept for the
//! fault message.
//!
//! The files follow the seams: `wire` is the protocol (the line format and
//! every type that crosses), `shared` the payload regions, `child` serves
//! the protocol on the child's one device, `parent` starts children, asks
//! them and reads what their ends mean.

mod child;
mod parent;
mod shared;
pub mod wire;

pub use child::{die_with_parent, serve};
pub use parent::{
    visible_entry, Death, ThroughputWorker, WorkerDevice, WorkerPlan, ANSWER_GRACE, SETUP_DEADLINE,
};
pub use shared::{Regions, Shared, SHARED_FDS};
pub use wire::LINE_TAG;

/// The environment variable the child sees its one device through.
/// ROCm/clr rocclr/device/rocm/rocdevice.cpp (`Device::init`): HIP takes
/// `HIP_VISIBLE_DEVICES`, else `CUDA_VISIBLE_DEVICES`, as a list of ordinals
/// (or `GPU-<uuid>`) into ROCr's agents; `GPU_DEVICE_ORDINAL` applies to
/// OpenCL only.
pub const VISIBLE_DEVICES: &str = "HIP_VISIBLE_DEVICES";

/// The parent's process id, for the child's `die_with_parent`.
pub const PARENT_PID: &str = "DSXOR_WORKER_PARENT";
