//! Worker processes: HIP cases run in a child process, so a device fault
//! becomes a verdict instead of a dead run.
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
//! to it over its stdin/stdout in JSON lines (`Request` → `Response`),
//! each tagged with the protocol's version (`LINE_TAG`), every case buffer
//! and observation as base64 of its little-endian words (`WireCase`,
//! `WireOutcome`: a batch crosses the pipe at 4/3 of its bytes, not as
//! decimal numbers) and every enum externally tagged (serde reads an
//! internally tagged one through a buffered copy of the whole value):
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
//!   (`CodeCache`).
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
//! Lines the child writes to stdout that do not start with `LINE_TAG` are
//! ignored (a runtime may print there); its stderr is forwarded to the
//! parent's with a `[worker N]` prefix, and its last lines kept for the
//! fault message.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::backend::conformance::{
    BatchOutcome, CaseDevice, ConformanceDevice, DeviceOutcome, KernelIdentity, KernelObject,
};
use crate::backend::hip::HipBackend;
use crate::backend::{ArgValue, Backend, BackendError, Completion, DeviceInfo, Dispatch};
use crate::case::{Case, Geometry, LaneInput, Observation, Round, WaveSize};

/// Every protocol line starts with this; the number is the protocol's
/// version (2: buffers as base64, outcomes externally tagged; 3: raw
/// launches, `Request::Dispatch`). A line of another version is refused,
/// not skipped (`foreign_version`).
pub const LINE_TAG: &str = "dsxor-worker/3 ";

/// The start every version's lines share.
const LINE_FAMILY: &str = "dsxor-worker/";

/// A line of another version of the protocol (a dsxor binary of another
/// version at the other end): the message to stop with.
fn foreign_version(line: &str) -> Option<String> {
    let rest = line.strip_prefix(LINE_FAMILY)?;
    if line.starts_with(LINE_TAG) {
        return None;
    }
    let version: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    Some(format!(
        "worker protocol {LINE_FAMILY}{version} at the other end, this is {}: the parent and the worker must be the same dsxor binary",
        LINE_TAG.trim_end()
    ))
}

/// The environment variable the child sees its one device through.
/// ROCm/clr rocclr/device/rocm/rocdevice.cpp (`Device::init`): HIP takes
/// `HIP_VISIBLE_DEVICES`, else `CUDA_VISIBLE_DEVICES`, as a list of ordinals
/// (or `GPU-<uuid>`) into ROCr's agents; `GPU_DEVICE_ORDINAL` applies to
/// OpenCL only.
pub const VISIBLE_DEVICES: &str = "HIP_VISIBLE_DEVICES";

/// The parent's process id, for the child's `die_with_parent`.
pub const PARENT_PID: &str = "DSXOR_WORKER_PARENT";

/// The child's first act: end with its parent. A parent killed outright
/// (SIGKILL: a CI cancel, an OOM kill) runs no cleanup, and a child stuck in
/// a HIP call never reads the EOF on its stdin, so without this it would
/// live on holding its GPU. Linux: `prctl(PR_SET_PDEATHSIG, SIGKILL)`
/// (prctl(2); the signal comes when the *thread* that started the child
/// ends, which here is the thread that owns the `WorkerDevice` and kills the
/// child anyway when it is done), then a check that the parent named in
/// `PARENT_PID` is still the parent (it may have died before the prctl).
/// Elsewhere: nothing (the EOF on stdin still ends an idle child).
pub fn die_with_parent() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and
        // touches no memory of ours.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        }
        let expected = std::env::var(PARENT_PID)
            .ok()
            .and_then(|p| p.parse::<u32>().ok());
        if expected.is_some_and(|p| p != std::os::unix::process::parent_id()) {
            std::process::exit(i32::from(crate::exit::ENVIRONMENT));
        }
    }
}

/// A kernel object on the wire (bytes as hex: JSON has no byte strings).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireObject {
    pub wave: WaveSize,
    pub bytes_hex: String,
    pub source: String,
    pub origin: String,
    pub compiler: Option<String>,
}

impl WireObject {
    pub fn from_object(o: &KernelObject) -> WireObject {
        WireObject {
            wave: o.wave,
            bytes_hex: hex::encode(&o.bytes),
            source: o.source.clone(),
            origin: o.origin.clone(),
            compiler: o.compiler.clone(),
        }
    }

    pub fn to_object(&self) -> Result<KernelObject, String> {
        Ok(KernelObject {
            wave: self.wave,
            bytes: hex::decode(&self.bytes_hex)
                .map_err(|e| format!("kernel object {}: {e}", self.source))?,
            source: self.source.clone(),
            origin: self.origin.clone(),
            compiler: self.compiler.clone(),
        })
    }
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// 64-bit words as base64 of their little-endian bytes: a buffer on the
/// wire takes 4/3 of its bytes (decimal JSON numbers took up to 21 per
/// 8-byte word, and serde_json's number parsing led the protocol's CPU).
pub fn words_to_wire(words: &[u64]) -> String {
    use base64::Engine;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    b64().encode(bytes)
}

/// The inverse of [`words_to_wire`].
pub fn words_from_wire(text: &str, what: &str) -> Result<Vec<u64>, String> {
    Ok(bytes_from_wire(text, what, 8)?
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

fn u32s_to_wire(words: impl Iterator<Item = u32>) -> String {
    use base64::Engine;
    let bytes: Vec<u8> = words.flat_map(|w| w.to_le_bytes()).collect();
    b64().encode(bytes)
}

fn u32s_from_wire(text: &str, what: &str) -> Result<Vec<u32>, String> {
    Ok(bytes_from_wire(text, what, 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Base64 text decoded to a whole number of `width`-byte words.
fn bytes_from_wire(text: &str, what: &str, width: usize) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let bytes = b64()
        .decode(text)
        .map_err(|e| format!("{what}: not base64: {e}"))?;
    if !bytes.len().is_multiple_of(width) {
        return Err(format!(
            "{what}: {} bytes, not a whole number of {width}-byte words",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// One `Round` on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireRound {
    /// DATA per lane, `words_to_wire`.
    pub data: String,
    /// VDST-before per lane, `words_to_wire`.
    pub vdst_init: String,
}

/// A `Case` on the wire: the same fields, every per-lane and per-qword
/// array as base64 (`words_to_wire`; ADDR as 4-byte words, EXEC as one
/// byte 0 or 1 per lane). Exact for any case, malformed ones included
/// (each LDS image and each round keeps its own length), so the child
/// judges what the parent sent.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireCase {
    pub pattern: String,
    pub index: u64,
    pub geometry: Geometry,
    pub lds_bytes: u32,
    pub offset: u16,
    /// Per workgroup, its LDS image.
    pub lds_init: Vec<String>,
    pub addr: String,
    pub data: String,
    pub active: String,
    pub vdst_init: String,
    pub more_rounds: Vec<WireRound>,
}

impl WireCase {
    pub fn from_case(c: &Case) -> WireCase {
        use base64::Engine;
        let lanes = &c.lanes;
        let data: Vec<u64> = lanes.iter().map(|l| l.data).collect();
        let vdst: Vec<u64> = lanes.iter().map(|l| l.vdst_init).collect();
        let active: Vec<u8> = lanes.iter().map(|l| u8::from(l.active)).collect();
        WireCase {
            pattern: c.pattern.clone(),
            index: c.index,
            geometry: c.geometry,
            lds_bytes: c.lds_bytes,
            offset: c.offset,
            lds_init: c.lds_init.iter().map(|img| words_to_wire(img)).collect(),
            addr: u32s_to_wire(lanes.iter().map(|l| l.addr)),
            data: words_to_wire(&data),
            active: b64().encode(active),
            vdst_init: words_to_wire(&vdst),
            more_rounds: c
                .more_rounds
                .iter()
                .map(|r| WireRound {
                    data: words_to_wire(&r.data),
                    vdst_init: words_to_wire(&r.vdst_init),
                })
                .collect(),
        }
    }

    pub fn to_case(&self) -> Result<Case, String> {
        use base64::Engine;
        let what = |f: &str| format!("case {} {f}", self.index);
        let addr = u32s_from_wire(&self.addr, &what("addr"))?;
        let data = words_from_wire(&self.data, &what("data"))?;
        let vdst = words_from_wire(&self.vdst_init, &what("vdst_init"))?;
        let active = b64()
            .decode(&self.active)
            .map_err(|e| format!("{}: not base64: {e}", what("active")))?;
        let n = addr.len();
        if data.len() != n || vdst.len() != n || active.len() != n {
            return Err(format!(
                "{}: {n} addresses, {} data, {} vdst_init, {} active",
                what("lanes"),
                data.len(),
                vdst.len(),
                active.len()
            ));
        }
        let lanes = (0..n)
            .map(|i| {
                Ok(LaneInput {
                    addr: addr[i],
                    data: data[i],
                    active: match active[i] {
                        0 => false,
                        1 => true,
                        b => return Err(format!("{}: lane {i} is {b}", what("active"))),
                    },
                    vdst_init: vdst[i],
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Case {
            pattern: self.pattern.clone(),
            index: self.index,
            geometry: self.geometry,
            lds_bytes: self.lds_bytes,
            offset: self.offset,
            lds_init: self
                .lds_init
                .iter()
                .map(|img| words_from_wire(img, &what("lds_init")))
                .collect::<Result<_, _>>()?,
            lanes,
            more_rounds: self
                .more_rounds
                .iter()
                .map(|r| {
                    Ok(Round {
                        data: words_from_wire(&r.data, &what("round data"))?,
                        vdst_init: words_from_wire(&r.vdst_init, &what("round vdst_init"))?,
                    })
                })
                .collect::<Result<_, String>>()?,
        })
    }
}

/// A `DeviceOutcome` on the wire: externally tagged (the internally
/// tagged `DeviceOutcome` of repro files is read through serde's buffered
/// `Content`, a second copy of every observation), buffers as base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireOutcome {
    Completed {
        /// `Observation::ret`, `words_to_wire`.
        ret: String,
        /// `Observation::lds_final`, per workgroup.
        lds_final: Vec<String>,
        device_us: u64,
    },
    Fault {
        message: String,
    },
    Timeout {
        message: String,
    },
}

impl WireOutcome {
    pub fn from_outcome(o: &DeviceOutcome) -> WireOutcome {
        match o {
            DeviceOutcome::Completed {
                observation,
                device_us,
            } => WireOutcome::Completed {
                ret: words_to_wire(&observation.ret),
                lds_final: observation
                    .lds_final
                    .iter()
                    .map(|img| words_to_wire(img))
                    .collect(),
                device_us: *device_us,
            },
            DeviceOutcome::Fault { message } => WireOutcome::Fault {
                message: message.clone(),
            },
            DeviceOutcome::Timeout { message } => WireOutcome::Timeout {
                message: message.clone(),
            },
        }
    }

    pub fn to_outcome(&self) -> Result<DeviceOutcome, String> {
        Ok(match self {
            WireOutcome::Completed {
                ret,
                lds_final,
                device_us,
            } => DeviceOutcome::Completed {
                observation: Observation {
                    ret: words_from_wire(ret, "observation ret")?,
                    lds_final: lds_final
                        .iter()
                        .map(|img| words_from_wire(img, "observation lds_final"))
                        .collect::<Result<_, _>>()?,
                },
                device_us: *device_us,
            },
            WireOutcome::Fault { message } => DeviceOutcome::Fault {
                message: message.clone(),
            },
            WireOutcome::Timeout { message } => DeviceOutcome::Timeout {
                message: message.clone(),
            },
        })
    }
}

/// A `BatchOutcome` on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireBatch {
    Each(Vec<WireOutcome>),
    Whole(WireOutcome),
}

impl WireBatch {
    pub fn from_batch(b: &BatchOutcome) -> WireBatch {
        match b {
            BatchOutcome::Each(v) => {
                WireBatch::Each(v.iter().map(WireOutcome::from_outcome).collect())
            }
            BatchOutcome::Whole(o) => WireBatch::Whole(WireOutcome::from_outcome(o)),
        }
    }

    pub fn to_batch(&self) -> Result<BatchOutcome, String> {
        Ok(match self {
            WireBatch::Each(v) => BatchOutcome::Each(
                v.iter()
                    .map(WireOutcome::to_outcome)
                    .collect::<Result<_, _>>()?,
            ),
            WireBatch::Whole(o) => BatchOutcome::Whole(o.to_outcome()?),
        })
    }
}

/// A kernel argument on the wire (`ArgValue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireArg {
    Buffer(u32),
    U32(u32),
    U64(u64),
}

impl WireArg {
    pub fn from_arg(a: &ArgValue) -> WireArg {
        match *a {
            // Buffer indices index `Dispatch::buffers`, far below 2^32.
            ArgValue::Buffer(i) => WireArg::Buffer(u32::try_from(i).unwrap_or(u32::MAX)),
            ArgValue::U32(v) => WireArg::U32(v),
            ArgValue::U64(v) => WireArg::U64(v),
        }
    }

    pub fn to_arg(self) -> ArgValue {
        match self {
            WireArg::Buffer(i) => ArgValue::Buffer(i as usize),
            WireArg::U32(v) => ArgValue::U32(v),
            WireArg::U64(v) => ArgValue::U64(v),
        }
    }
}

/// Bytes of an object replaced from `offset` on (`WireCode::Patched`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireRun {
    pub offset: u64,
    /// The new bytes, base64.
    pub bytes: String,
}

/// A launch's code object on the wire: its bytes, or an object this child
/// was sent before (by SHA-256) with some byte runs replaced. `qualify`'s
/// programs are one object each, but all of one instruction set share every
/// byte but the program's (a re-encoded DS atomic: 8 bytes; an ALU program:
/// at most the 128-byte slot), so the object crosses the pipe once per
/// child and each program as its runs ([`CodeCache`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireCode {
    /// base64 of the whole object; the child keeps it as a base.
    Bytes(String),
    Patched {
        /// SHA-256 of the base, hex.
        base: String,
        runs: Vec<WireRun>,
    },
}

/// One raw launch (`Dispatch`) on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireDispatch {
    pub code: WireCode,
    pub kernel: String,
    pub groups: u32,
    pub block: u32,
    pub dynamic_lds: u32,
    /// `Dispatch::buffers`, each base64.
    pub buffers: Vec<String>,
    pub args: Vec<WireArg>,
    pub timeout_ms: u64,
}

/// A raw launch's outcome on the wire: the `Completion`, or the fault or
/// timeout (`BackendError::Fault`, `::Timeout`) that ended it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireLaunch {
    Completed {
        /// `Completion::buffers`, each base64.
        buffers: Vec<String>,
        elapsed_ns: u64,
    },
    Fault {
        message: String,
    },
    Timeout {
        kernel: String,
        limit_ms: u64,
        pc: Option<u64>,
    },
}

impl WireLaunch {
    /// The launch's result as the backend gave it: its completion or the
    /// fault or timeout that ended it; any other error is not an outcome of
    /// the launch and comes back as it was (sent as `Response::Error`).
    fn from_result(r: Result<Completion, BackendError>) -> Result<WireLaunch, BackendError> {
        use base64::Engine;
        Ok(match r {
            Ok(c) => WireLaunch::Completed {
                buffers: c.buffers.iter().map(|b| b64().encode(b)).collect(),
                elapsed_ns: u64::try_from(c.elapsed.as_nanos()).unwrap_or(u64::MAX),
            },
            Err(BackendError::Fault(message)) => WireLaunch::Fault { message },
            Err(BackendError::Timeout { kernel, limit, pc }) => WireLaunch::Timeout {
                kernel,
                limit_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
                pc,
            },
            Err(e) => return Err(e),
        })
    }

    /// Back to the backend's result; a completion must have `sizes`' buffers
    /// (the dispatch's), else the answer is unreadable (`Err(text)`).
    fn to_result(&self, sizes: &[usize]) -> Result<Result<Completion, BackendError>, String> {
        use base64::Engine;
        Ok(match self {
            WireLaunch::Completed {
                buffers,
                elapsed_ns,
            } => {
                let buffers = buffers
                    .iter()
                    .enumerate()
                    .map(|(i, b)| {
                        b64()
                            .decode(b)
                            .map_err(|e| format!("buffer {i}: not base64: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let got: Vec<usize> = buffers.iter().map(Vec::len).collect();
                if got != sizes {
                    return Err(format!(
                        "buffers of {got:?} bytes, the dispatch had {sizes:?}"
                    ));
                }
                Ok(Completion {
                    buffers,
                    elapsed: Duration::from_nanos(*elapsed_ns),
                })
            }
            WireLaunch::Fault { message } => Err(BackendError::Fault(message.clone())),
            WireLaunch::Timeout {
                kernel,
                limit_ms,
                pc,
            } => Err(BackendError::Timeout {
                kernel: kernel.clone(),
                limit: Duration::from_millis(*limit_ms),
                pc: *pc,
            }),
        })
    }
}

/// Code objects one child holds as bases for `WireCode::Patched`, most
/// recently sent last. Both ends keep one, changed by the same rule (a
/// `Bytes` object is added, the oldest beyond [`CODE_BASES`] dropped), so
/// the parent's copy says exactly what the child holds.
#[derive(Default)]
pub struct CodeCache {
    bases: VecDeque<([u8; 32], Vec<u8>)>,
}

/// Bases a child keeps: the DS corpus's objects (one per wave size) and the
/// ALU harness's (one per wave size).
pub const CODE_BASES: usize = 4;

/// A program whose runs would take more than this fraction of its object
/// is sent whole (and becomes a base).
const PATCH_FRACTION: usize = 8;

impl CodeCache {
    fn key(bytes: &[u8]) -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::digest(bytes).into()
    }

    fn add(&mut self, key: [u8; 32], bytes: Vec<u8>) {
        self.bases.retain(|(k, _)| *k != key);
        self.bases.push_back((key, bytes));
        while self.bases.len() > CODE_BASES {
            self.bases.pop_front();
        }
    }

    /// The parent's side: `code` as the child will rebuild it, recording a
    /// whole object as a base.
    pub fn encode(&mut self, code: &[u8]) -> WireCode {
        use base64::Engine;
        let mut best: Option<(usize, Vec<WireRun>)> = None;
        for (k, (_, base)) in self.bases.iter().enumerate() {
            if base.len() != code.len() {
                continue;
            }
            let runs = diff_runs(base, code);
            let cost: usize = runs.iter().map(|(_, r)| r.len() + 16).sum();
            if cost * PATCH_FRACTION <= code.len()
                && best
                    .as_ref()
                    .is_none_or(|(_, b)| cost < b.iter().map(|r| r.bytes.len() + 16).sum::<usize>())
            {
                best = Some((
                    k,
                    runs.into_iter()
                        .map(|(offset, r)| WireRun {
                            offset: offset as u64,
                            bytes: b64().encode(r),
                        })
                        .collect(),
                ));
            }
        }
        match best {
            Some((k, runs)) => WireCode::Patched {
                base: hex::encode(self.bases[k].0),
                runs,
            },
            None => {
                self.add(Self::key(code), code.to_vec());
                WireCode::Bytes(b64().encode(code))
            }
        }
    }

    /// The child's side: the object `code` names.
    pub fn decode(&mut self, code: &WireCode) -> Result<Vec<u8>, String> {
        use base64::Engine;
        match code {
            WireCode::Bytes(text) => {
                let bytes = b64()
                    .decode(text)
                    .map_err(|e| format!("code object: not base64: {e}"))?;
                self.add(Self::key(&bytes), bytes.clone());
                Ok(bytes)
            }
            WireCode::Patched { base, runs } => {
                let Some((_, bytes)) = self.bases.iter().find(|(k, _)| hex::encode(k) == *base)
                else {
                    return Err(format!(
                        "code object: base {base} was not sent to this process (it holds {})",
                        self.bases.len()
                    ));
                };
                let mut out = bytes.clone();
                for r in runs {
                    let new = b64()
                        .decode(&r.bytes)
                        .map_err(|e| format!("code object run at {}: not base64: {e}", r.offset))?;
                    let at = usize::try_from(r.offset).unwrap_or(usize::MAX);
                    let Some(dst) = at
                        .checked_add(new.len())
                        .and_then(|end| out.get_mut(at..end))
                    else {
                        return Err(format!(
                            "code object run of {} bytes at {} is past the base's {} bytes",
                            new.len(),
                            r.offset,
                            bytes.len()
                        ));
                    };
                    dst.copy_from_slice(&new);
                }
                Ok(out)
            }
        }
    }
}

/// The runs of `new` that differ from `old` (same length): (offset, bytes),
/// runs less than 16 bytes apart merged (a run costs about that on the wire).
fn diff_runs(old: &[u8], new: &[u8]) -> Vec<(usize, Vec<u8>)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < new.len() {
        if old[i] == new[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < new.len() && old[i] != new[i] {
            i += 1;
        }
        match runs.last_mut() {
            Some((_, end)) if start - *end < 16 => *end = i,
            _ => runs.push((start, i)),
        }
    }
    runs.into_iter()
        .map(|(s, e)| (s, new[s..e].to_vec()))
        .collect()
}

/// What the child needs to open its device exactly as the parent would.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Setup {
    pub objects: Vec<WireObject>,
    pub timeout_ms: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Request {
    Setup(Setup),
    Run(Box<WireCase>),
    /// Cases of one batch key, run in one launch.
    #[serde(rename = "run_batch")]
    RunBatch(Vec<WireCase>),
    Identity(Box<WireCase>),
    /// One raw launch (`dsxor qualify`'s programs), answered with `Launch`.
    Dispatch(Box<WireDispatch>),
}

/// `BackendError` on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireError {
    Environment(String),
    Invalid(String),
    Hazard(String),
}

impl WireError {
    fn from_backend(e: BackendError) -> WireError {
        match e {
            BackendError::Invalid(m) => WireError::Invalid(m),
            BackendError::Hazard(m) => WireError::Hazard(m),
            // Its text only: `into_backend` makes it an environment error
            // again (no "environment: environment:").
            BackendError::Environment(m) => WireError::Environment(m),
            other => WireError::Environment(other.to_string()),
        }
    }
    fn into_backend(self) -> BackendError {
        match self {
            WireError::Environment(m) => BackendError::Environment(m),
            WireError::Invalid(m) => BackendError::Invalid(m),
            WireError::Hazard(m) => BackendError::Hazard(m),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Response {
    /// The device is open.
    Ready {
        info: DeviceInfo,
    },
    /// A case's outcome; `retire`: this process must run nothing more.
    Outcome {
        outcome: WireOutcome,
        retire: bool,
    },
    /// A batched launch's outcome; `retire` as for `Outcome`.
    Batch {
        outcome: WireBatch,
        retire: bool,
    },
    Identity(KernelIdentity),
    /// A raw launch's outcome; `retire` as for `Outcome`.
    Launch {
        outcome: WireLaunch,
        retire: bool,
    },
    Error(WireError),
}

/// One protocol line, serialized straight into `w` (buffered; no copy of
/// the whole line in memory).
fn write_line<W: Write>(w: &mut W, value: &impl Serialize) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
    w.write_all(LINE_TAG.as_bytes())?;
    serde_json::to_writer(&mut w, value).map_err(std::io::Error::other)?;
    w.write_all(b"\n")?;
    w.flush()
}

/// The child's side: serve requests from `input` on the one HIP device this
/// process sees, answering on `output`, until `input` closes. Returns after
/// a retiring answer too (the caller exits; the parent kills it anyway).
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut device: Option<ConformanceDevice<HipBackend>> = None;
    let mut code = CodeCache::default();
    for line in input.lines() {
        let line = line?;
        if let Some(msg) = foreign_version(&line) {
            write_line(&mut output, &Response::Error(WireError::Invalid(msg)))?;
            return Ok(());
        }
        let Some(body) = line.strip_prefix(LINE_TAG) else {
            continue;
        };
        let request: Result<Request, _> = serde_json::from_str(body);
        // The line's text is not needed again: a batch is not held twice.
        drop(line);
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                let msg = format!("worker: unreadable request: {e}");
                write_line(&mut output, &Response::Error(WireError::Invalid(msg)))?;
                continue;
            }
        };
        let response = respond(request, &mut device, &mut code);
        let retire = matches!(
            response,
            Response::Outcome { retire: true, .. }
                | Response::Batch { retire: true, .. }
                | Response::Launch { retire: true, .. }
        );
        write_line(&mut output, &response)?;
        if retire {
            return Ok(());
        }
    }
    Ok(())
}

fn respond(
    request: Request,
    device: &mut Option<ConformanceDevice<HipBackend>>,
    code: &mut CodeCache,
) -> Response {
    let unreadable = |e: String| Response::Error(WireError::Invalid(format!("worker: {e}")));
    match (request, device.as_mut()) {
        (Request::Setup(setup), _) => match open_child(&setup) {
            Ok(d) => {
                let info = d.info().clone();
                *device = Some(d);
                Response::Ready { info }
            }
            Err(e) => Response::Error(e),
        },
        (
            Request::Run(_) | Request::RunBatch(_) | Request::Identity(_) | Request::Dispatch(_),
            None,
        ) => Response::Error(WireError::Invalid(
            "worker: a case arrived before the setup".into(),
        )),
        (Request::Dispatch(w), Some(d)) => {
            use base64::Engine;
            let bytes = match code.decode(&w.code) {
                Ok(b) => b,
                Err(e) => return unreadable(e),
            };
            let buffers = match w
                .buffers
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    b64()
                        .decode(b)
                        .map_err(|e| format!("buffer {i}: not base64: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(b) => b,
                Err(e) => return unreadable(e),
            };
            let dispatch = Dispatch {
                code_object: &bytes,
                kernel: &w.kernel,
                groups: w.groups,
                block: w.block,
                dynamic_lds: w.dynamic_lds,
                buffers,
                args: w.args.iter().map(|a| a.to_arg()).collect(),
                timeout: Duration::from_millis(w.timeout_ms),
            };
            match WireLaunch::from_result(d.backend_mut().dispatch(&dispatch)) {
                Ok(outcome) => Response::Launch {
                    // A fault or a timeout: a sticky error or a kernel that
                    // never ends; nothing more runs in this process.
                    retire: !matches!(outcome, WireLaunch::Completed { .. }),
                    outcome,
                },
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::Run(case), Some(d)) => {
            let case = match case.to_case() {
                Ok(c) => c,
                Err(e) => return unreadable(e),
            };
            match d.run_case(&case) {
                Ok(outcome) => {
                    let retire = !matches!(outcome, DeviceOutcome::Completed { .. });
                    Response::Outcome {
                        outcome: WireOutcome::from_outcome(&outcome),
                        retire,
                    }
                }
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::RunBatch(wire), Some(d)) => {
            let cases = match wire
                .iter()
                .map(WireCase::to_case)
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(c) => c,
                Err(e) => return unreadable(e),
            };
            drop(wire);
            let refs: Vec<&Case> = cases.iter().collect();
            match d.run_batch(&refs) {
                Ok(outcome) => {
                    drop(refs);
                    drop(cases);
                    let retire = !matches!(outcome, BatchOutcome::Each(_));
                    Response::Batch {
                        outcome: WireBatch::from_batch(&outcome),
                        retire,
                    }
                }
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::Identity(case), Some(d)) => match case.to_case() {
            Ok(case) => match d.kernel_identity(&case) {
                Ok(k) => Response::Identity(k),
                Err(e) => Response::Error(WireError::from_backend(e)),
            },
            Err(e) => unreadable(e),
        },
    }
}

fn open_child(setup: &Setup) -> Result<ConformanceDevice<HipBackend>, WireError> {
    let objects = setup
        .objects
        .iter()
        .map(WireObject::to_object)
        .collect::<Result<Vec<_>, _>>()
        .map_err(WireError::Invalid)?;
    // The parent made this process see exactly one device: ordinal 0.
    let backend = HipBackend::open(Some(0)).map_err(WireError::from_backend)?;
    Ok(ConformanceDevice::with_codeobj(
        backend,
        objects,
        Duration::from_millis(setup.timeout_ms),
    ))
}

/// How to start a worker for one device.
#[derive(Clone, Debug)]
pub struct WorkerPlan {
    /// The dsxor binary (`std::env::current_exe()` of the parent).
    pub exe: PathBuf,
    /// `HIP_VISIBLE_DEVICES` for the child: the parent's device, as an
    /// entry of the list the runtime parses (see `visible_entry`).
    pub visible: String,
    /// The device as the parent's probe saw it (recorded in results).
    pub info: DeviceInfo,
    pub objects: Vec<KernelObject>,
    pub timeout: Duration,
    /// Shown on forwarded stderr lines and in messages (`HIP device 1`).
    pub label: String,
    /// Cases per launch at most (`CaseDevice::batch_cap`).
    pub batch: usize,
}

/// The entry of `HIP_VISIBLE_DEVICES` that names the parent's device
/// `ordinal`: the parent's own list is applied first by the runtime (HIP's
/// ordinals count the devices it lets through, in its order), so ordinal
/// `i` is the list's `i`-th entry; without a list, `i` itself. The same
/// precedence as clr: `HIP_VISIBLE_DEVICES`, else `CUDA_VISIBLE_DEVICES`
/// (rocdevice.cpp `Device::init`); ROCR_VISIBLE_DEVICES is applied by ROCr
/// beneath both and is inherited unchanged.
pub fn visible_entry(
    ordinal: u32,
    hip_visible: Option<&str>,
    cuda_visible: Option<&str>,
) -> String {
    let list = hip_visible
        .filter(|s| !s.is_empty())
        .or(cuda_visible.filter(|s| !s.is_empty()));
    match list {
        Some(l) => l
            .split(',')
            .nth(ordinal as usize)
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|| ordinal.to_string()),
        None => ordinal.to_string(),
    }
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    /// The child's protocol lines, read by a thread so that waiting for an
    /// answer has a deadline; closed when the child's stdout closes.
    answers: Receiver<std::io::Result<String>>,
}

/// How long the parent waits for the child's answer to `Setup` (HIP's
/// initialisation and one module load per code object) and to a kernel
/// identity, beyond the launch timeout. Policy: no source bounds these
/// calls; a minute is far above what they take on hardware or on AMD's
/// emulator (seconds), so only a stuck runtime reaches it.
pub const SETUP_DEADLINE: Duration = Duration::from_secs(120);

/// How long the parent waits for a case's answer beyond the launch timeout
/// the child's own watchdog enforces. Policy: the child polls the launch
/// (hipStreamQuery), but its copies, event queries and teardown are
/// blocking HIP calls with no timeout of their own; a runtime stuck in one
/// of them (seen with ROCm 5.4 on rocjitsu after the emulator crashed: the
/// run hung for good) would hang the whole run. What a case does besides the
/// launch takes milliseconds on a GPU and about a second on the emulator,
/// so 20 s more than the launch timeout means the runtime is stuck: the
/// child is killed and the case is a `timeout` verdict.
pub const ANSWER_GRACE: Duration = Duration::from_secs(20);

/// A `CaseDevice` whose cases run in a worker process (see the module
/// docs). The process starts at the first case, and again after one that
/// retired or killed it.
pub struct WorkerDevice {
    plan: WorkerPlan,
    running: Option<Running>,
    /// Last stderr lines of the current child.
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Processes started so far.
    started: u32,
    /// The code objects the current child holds (`Request::Dispatch`).
    code: CodeCache,
}

/// Lines of a child's stderr kept for a fault message.
const TAIL_LINES: usize = 8;

impl WorkerDevice {
    pub fn new(plan: WorkerPlan) -> WorkerDevice {
        WorkerDevice {
            plan,
            running: None,
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            started: 0,
            code: CodeCache::default(),
        }
    }

    /// Worker processes started so far.
    pub fn processes_started(&self) -> u32 {
        self.started
    }

    fn env_error(&self, what: String) -> BackendError {
        BackendError::Environment(format!("worker for {}: {what}", self.plan.label))
    }

    fn start(&mut self) -> Result<(), BackendError> {
        let mut child = Command::new(&self.plan.exe)
            .arg("worker")
            .env(PARENT_PID, std::process::id().to_string())
            .env(VISIBLE_DEVICES, &self.plan.visible)
            // HIP_VISIBLE_DEVICES wins over it in clr; removed so nothing
            // else reads a list the child's ordinal does not index.
            .env_remove("CUDA_VISIBLE_DEVICES")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                self.env_error(format!("cannot start {}: {e}", self.plan.exe.display()))
            })?;
        self.started += 1;
        // A fresh process holds no code object yet.
        self.code = CodeCache::default();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(self.env_error("the child has no pipes".into()));
        };
        let tail = Arc::clone(&self.stderr_tail);
        if let Ok(mut t) = tail.lock() {
            t.clear();
        }
        let prefix = format!("[worker {}] ", self.plan.label);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{prefix}{line}");
                if let Ok(mut t) = tail.lock() {
                    if t.len() == TAIL_LINES {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if send.send(line).is_err() || end {
                    return;
                }
            }
        });
        self.running = Some(Running {
            child,
            stdin,
            answers,
        });
        let setup = Setup {
            objects: self
                .plan
                .objects
                .iter()
                .map(WireObject::from_object)
                .collect(),
            timeout_ms: self.plan.timeout.as_millis() as u64,
        };
        match self.exchange(&Request::Setup(setup), SETUP_DEADLINE + self.plan.timeout) {
            Ok(Response::Ready { info }) => {
                if info.target_id != self.plan.info.target_id {
                    self.stop();
                    return Err(self.env_error(format!(
                        "the child opened a {} device, the parent saw {} (is {}={} the right device?)",
                        info.target_id, self.plan.info.target_id, VISIBLE_DEVICES, self.plan.visible
                    )));
                }
                Ok(())
            }
            Ok(Response::Error(e)) => {
                self.stop();
                Err(e.into_backend())
            }
            Ok(other) => {
                self.stop();
                Err(self.env_error(format!("unexpected answer to the setup: {other:?}")))
            }
            Err(Exchange::Died(how)) => {
                Err(self.env_error(format!("the child died before its device was open ({how})")))
            }
            Err(Exchange::Hung(d)) => Err(self.env_error(format!(
                "the child did not open its device within {d:?} (its HIP runtime is stuck); killed"
            ))),
            Err(Exchange::Io(e)) => {
                self.stop();
                Err(self.env_error(e))
            }
        }
    }

    /// Kill and reap the current child, if any.
    fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    fn tail(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| {
                t.iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .cloned()
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    /// Send one request and read its answer. A child gone (EOF, broken
    /// pipe) is reaped and described; one that has not answered within
    /// `deadline` is killed (`Exchange::Hung`).
    fn exchange(&mut self, request: &Request, deadline: Duration) -> Result<Response, Exchange> {
        let Some(r) = self.running.as_mut() else {
            return Err(Exchange::Io("no worker process".into()));
        };
        if write_line(&mut r.stdin, request).is_err() {
            return Err(Exchange::Died(self.reap()));
        }
        let until = Instant::now() + deadline;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let line = match self.running.as_ref().map(|r| r.answers.recv_timeout(left)) {
                None => return Err(Exchange::Io("no worker process".into())),
                Some(Ok(Ok(line))) => line,
                Some(Ok(Err(e))) => return Err(Exchange::Io(format!("reading the answer: {e}"))),
                Some(Err(RecvTimeoutError::Disconnected)) => {
                    return Err(Exchange::Died(self.reap()))
                }
                Some(Err(RecvTimeoutError::Timeout)) => {
                    self.stop();
                    return Err(Exchange::Hung(deadline));
                }
            };
            if let Some(msg) = foreign_version(&line) {
                self.stop();
                return Err(Exchange::Io(msg));
            }
            let Some(body) = line.trim_end().strip_prefix(LINE_TAG) else {
                continue; // not ours: a runtime printing to stdout
            };
            return serde_json::from_str(body).map_err(|e| {
                // A batch's answer is megabytes: quote its start.
                let start: String = body.chars().take(200).collect();
                Exchange::Io(format!("unreadable answer: {e}: {start}"))
            });
        }
    }

    /// The exit of a child whose pipe closed.
    fn reap(&mut self) -> Death {
        let Some(mut r) = self.running.take() else {
            return Death::Unknown("no process".into());
        };
        // Its stdout closed: it is exiting. Wait for it (bounded: a child
        // stuck in its runtime's teardown is killed).
        let mut waited = Duration::ZERO;
        let status = loop {
            match r.child.try_wait() {
                Ok(Some(s)) => break Ok(s),
                Ok(None) if waited < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(5));
                    waited += Duration::from_millis(5);
                }
                Ok(None) => {
                    let _ = r.child.kill();
                    break r.child.wait();
                }
                Err(e) => break Err(e),
            }
        };
        // Let the stderr thread catch the runtime's last words.
        std::thread::sleep(Duration::from_millis(20));
        match status {
            Ok(s) => death_of(s),
            Err(e) => Death::Unknown(e.to_string()),
        }
    }
}

/// How a worker process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Death {
    /// Killed by a signal (number, name).
    Signal(i32, &'static str),
    /// Exited by itself with this code.
    Exit(i32),
    Unknown(String),
}

impl std::fmt::Display for Death {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Death::Signal(n, name) => write!(f, "killed by signal {n} ({name})"),
            Death::Exit(c) => write!(f, "exited with code {c}"),
            Death::Unknown(why) => write!(f, "ended, status unknown: {why}"),
        }
    }
}

fn signal_name(n: i32) -> &'static str {
    match n {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "signal",
    }
}

#[cfg(unix)]
fn death_of(s: std::process::ExitStatus) -> Death {
    use std::os::unix::process::ExitStatusExt;
    match (s.signal(), s.code()) {
        (Some(n), _) => Death::Signal(n, signal_name(n)),
        (None, Some(c)) => Death::Exit(c),
        (None, None) => Death::Unknown(format!("{s}")),
    }
}

#[cfg(not(unix))]
fn death_of(s: std::process::ExitStatus) -> Death {
    match s.code() {
        Some(c) => Death::Exit(c),
        None => Death::Unknown(format!("{s}")),
    }
}

enum Exchange {
    Died(Death),
    /// No answer within this deadline; the child was killed.
    Hung(Duration),
    Io(String),
}

impl Drop for WorkerDevice {
    fn drop(&mut self) {
        self.stop();
    }
}

impl CaseDevice for WorkerDevice {
    fn info(&self) -> &DeviceInfo {
        &self.plan.info
    }

    fn run_case(&mut self, case: &Case) -> Result<DeviceOutcome, BackendError> {
        if self.running.is_none() {
            self.start()?;
        }
        let deadline = self.plan.timeout + ANSWER_GRACE;
        match self.exchange(&Request::Run(Box::new(WireCase::from_case(case))), deadline) {
            Ok(Response::Outcome { outcome, retire }) => {
                let outcome = outcome.to_outcome().map_err(|e| {
                    self.stop();
                    self.env_error(format!("unreadable answer: {e}"))
                })?;
                if retire {
                    // A sticky error or a kernel that never ends: nothing
                    // more runs in that process.
                    self.stop();
                }
                Ok(outcome)
            }
            Ok(Response::Error(e)) => {
                self.stop();
                Err(e.into_backend())
            }
            Ok(other) => {
                self.stop();
                Err(self.env_error(format!("unexpected answer to a case: {other:?}")))
            }
            // The policy of the module docs: a signal is the runtime ending
            // the process on a device fault; anything else is dsxor's or the
            // environment's trouble.
            Err(Exchange::Died(d @ Death::Signal(..))) => {
                let said = self.tail();
                Ok(DeviceOutcome::Fault {
                    // No device label: a case's record must not depend on
                    // which worker ran it (the label is on forwarded stderr).
                    message: format!(
                        "the worker process running the case was {d}{}: the HIP runtime ends the process on a device fault (ROCm/clr rocdevice.cpp callbackQueue calls abort())",
                        if said.is_empty() { String::new() } else { format!(" after printing \"{said}\"") }
                    ),
                })
            }
            // Policy (ANSWER_GRACE): the case's work did not end; the
            // worker is gone and the next case gets a fresh one.
            Err(Exchange::Hung(d)) => {
                let said = self.tail();
                Ok(DeviceOutcome::Timeout {
                    message: format!(
                        "the worker process running the case did not answer within {d:?} (launch timeout {:?} + {ANSWER_GRACE:?}): its HIP runtime is stuck outside the launch watchdog, in a blocking call (a copy, an event or stream query); the process was killed{}",
                        self.plan.timeout,
                        if said.is_empty() { String::new() } else { format!(" after printing \"{said}\"") }
                    ),
                })
            }
            Err(Exchange::Died(d)) => {
                let said = self.tail();
                Err(self.env_error(format!(
                    "the worker process {d} while running a case{}",
                    if said.is_empty() {
                        String::new()
                    } else {
                        format!(" (its last line: \"{said}\")")
                    }
                )))
            }
            Err(Exchange::Io(e)) => {
                self.stop();
                Err(self.env_error(e))
            }
        }
    }

    fn batch_cap(&self) -> usize {
        self.plan.batch.max(1)
    }

    /// One request, one launch. A child that faults, times out, dies or
    /// hangs on it blames no case: the caller (`run_cases`) runs the
    /// batch's cases again one per launch.
    fn run_batch(&mut self, cases: &[&Case]) -> Result<BatchOutcome, BackendError> {
        if self.running.is_none() {
            self.start()?;
        }
        // The child's watchdog allows the launch timeout per case
        // (`dispatch_for_batch`); the answer may take that long plus grace.
        let deadline = self.plan.timeout.saturating_mul(cases.len().max(1) as u32) + ANSWER_GRACE;
        let request = Request::RunBatch(cases.iter().map(|c| WireCase::from_case(c)).collect());
        let answer = self.exchange(&request, deadline);
        drop(request);
        match answer {
            Ok(Response::Batch { outcome, retire }) => {
                let outcome = outcome.to_batch().map_err(|e| {
                    self.stop();
                    self.env_error(format!("unreadable answer: {e}"))
                })?;
                if retire {
                    self.stop();
                }
                Ok(outcome)
            }
            Ok(Response::Error(e)) => {
                self.stop();
                Err(e.into_backend())
            }
            Ok(other) => {
                self.stop();
                Err(self.env_error(format!("unexpected answer to a batch: {other:?}")))
            }
            Err(e) => {
                // Died (reaped), hung (killed) or unreadable: gone either way.
                self.stop();
                let what = match e {
                    Exchange::Died(d) => format!("the worker process {d} while running a batch"),
                    Exchange::Hung(d) => {
                        format!("the worker process did not answer a batch within {d:?}")
                    }
                    Exchange::Io(e) => e,
                };
                Err(self.env_error(what))
            }
        }
    }

    fn kernel_identity(&mut self, case: &Case) -> Result<KernelIdentity, BackendError> {
        if self.running.is_none() {
            self.start()?;
        }
        let deadline = SETUP_DEADLINE + self.plan.timeout;
        match self.exchange(
            &Request::Identity(Box::new(WireCase::from_case(case))),
            deadline,
        ) {
            Ok(Response::Identity(k)) => Ok(k),
            Ok(Response::Error(e)) => Err(e.into_backend()),
            Ok(other) => {
                Err(self.env_error(format!("unexpected answer to a kernel identity: {other:?}")))
            }
            Err(Exchange::Died(d)) => Err(self.env_error(format!("the worker process {d}"))),
            Err(Exchange::Hung(d)) => Err(self.env_error(format!(
                "the worker process did not name a kernel within {d:?}; killed"
            ))),
            Err(Exchange::Io(e)) => Err(self.env_error(e)),
        }
    }

    fn kernel_objects(&self) -> &[KernelObject] {
        &self.plan.objects
    }
}

/// Raw launches in worker processes (`dsxor qualify --backend hip`): each
/// `Dispatch` is one `Request::Dispatch`, its code object sent once per
/// child and then as the bytes that differ ([`CodeCache`]). The policy of
/// the module docs, per launch: a fault or timeout the child answered is
/// that launch's `BackendError::Fault`/`Timeout` and retires the child; a
/// child killed by a signal while running it is a `Fault` naming the signal
/// (ROCm 6's `abort()`); one that does not answer within the launch's
/// timeout plus [`ANSWER_GRACE`] is killed and the launch is a `Timeout`;
/// one that exits with a code is an environment error. The next launch
/// starts a fresh child.
impl Backend for WorkerDevice {
    fn info(&self) -> &DeviceInfo {
        &self.plan.info
    }

    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        use base64::Engine;
        if self.running.is_none() {
            self.start()?;
        }
        let request = Request::Dispatch(Box::new(WireDispatch {
            code: self.code.encode(d.code_object),
            kernel: d.kernel.to_string(),
            groups: d.groups,
            block: d.block,
            dynamic_lds: d.dynamic_lds,
            buffers: d.buffers.iter().map(|b| b64().encode(b)).collect(),
            args: d.args.iter().map(WireArg::from_arg).collect(),
            timeout_ms: u64::try_from(d.timeout.as_millis()).unwrap_or(u64::MAX),
        }));
        let deadline = d.timeout.saturating_add(ANSWER_GRACE);
        let answer = self.exchange(&request, deadline);
        drop(request);
        match answer {
            Ok(Response::Launch { outcome, retire }) => {
                if retire {
                    // A sticky error or a kernel that never ends.
                    self.stop();
                }
                let sizes: Vec<usize> = d.buffers.iter().map(Vec::len).collect();
                outcome.to_result(&sizes).map_err(|e| {
                    self.stop();
                    self.env_error(format!("unreadable answer to a launch: {e}"))
                })?
            }
            Ok(Response::Error(e)) => {
                self.stop();
                Err(e.into_backend())
            }
            Ok(other) => {
                self.stop();
                Err(self.env_error(format!("unexpected answer to a launch: {other:?}")))
            }
            Err(Exchange::Died(d @ Death::Signal(..))) => {
                let said = self.tail();
                Err(BackendError::Fault(format!(
                    "the worker process running the launch was {d}{}: the HIP runtime ends the process on a device fault (ROCm/clr rocdevice.cpp callbackQueue calls abort())",
                    if said.is_empty() { String::new() } else { format!(" after printing \"{said}\"") }
                )))
            }
            // Policy (ANSWER_GRACE): the launch's work did not end; the
            // worker is gone and the next launch gets a fresh one.
            // (Its stderr, forwarded, says where it was stuck.)
            Err(Exchange::Hung(limit)) => Err(BackendError::Timeout {
                kernel: d.kernel.to_string(),
                limit,
                pc: None,
            }),
            Err(Exchange::Died(death)) => {
                let said = self.tail();
                Err(self.env_error(format!(
                    "the worker process {death} while running a launch{}",
                    if said.is_empty() {
                        String::new()
                    } else {
                        format!(" (its last line: \"{said}\")")
                    }
                )))
            }
            Err(Exchange::Io(e)) => {
                self.stop();
                Err(self.env_error(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_entry_indexes_the_parents_list() {
        assert_eq!(visible_entry(1, None, None), "1");
        assert_eq!(visible_entry(1, Some("2,3"), None), "3");
        assert_eq!(visible_entry(0, Some("GPU-abc,5"), None), "GPU-abc");
        // HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES (clr).
        assert_eq!(visible_entry(0, Some("4"), Some("7")), "4");
        assert_eq!(visible_entry(0, Some(""), Some("7")), "7");
    }

    #[test]
    fn signals_are_named() {
        assert_eq!(
            Death::Signal(6, signal_name(6)).to_string(),
            "killed by signal 6 (SIGABRT)"
        );
        assert_eq!(Death::Exit(101).to_string(), "exited with code 101");
    }

    #[test]
    fn protocol_round_trips_and_skips_foreign_lines() {
        let o = KernelObject {
            wave: WaveSize::Wave64,
            bytes: vec![0x7f, b'E', b'L', b'F'],
            source: "s".into(),
            origin: "file".into(),
            compiler: None,
        };
        let back = WireObject::from_object(&o).to_object().unwrap();
        assert_eq!(back.bytes, o.bytes);
        // A child with no device answers the stray case with an error and
        // ignores a line that is not the protocol's.
        let input = format!(
            "hello from a runtime\n{LINE_TAG}{}\n",
            serde_json::to_string(&Request::Identity(Box::new(WireCase::from_case(
                &crate::case::Case {
                    pattern: "t".into(),
                    index: 0,
                    geometry: crate::case::Geometry {
                        wave_size: WaveSize::Wave32,
                        waves_per_group: 1,
                        groups: 1
                    },
                    lds_bytes: 8,
                    offset: 0,
                    lds_init: vec![vec![0]],
                    lanes: vec![],
                    more_rounds: vec![],
                }
            ))))
            .unwrap()
        );
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let r: Response = serde_json::from_str(lines[0].strip_prefix(LINE_TAG).unwrap()).unwrap();
        assert!(
            matches!(r, Response::Error(WireError::Invalid(ref m)) if m.contains("before the setup")),
            "{r:?}"
        );
    }

    fn sample_case() -> Case {
        use crate::case::Geometry;
        let lanes = (0..64u32)
            .map(|i| LaneInput {
                addr: i * 8,
                data: u64::MAX - u64::from(i),
                active: i % 3 != 0,
                vdst_init: 0xdead_0000_0000_0000 | u64::from(i),
            })
            .collect();
        Case {
            pattern: "uniform".into(),
            index: 7,
            geometry: Geometry {
                wave_size: WaveSize::Wave32,
                waves_per_group: 1,
                groups: 2,
            },
            lds_bytes: 256,
            offset: 8,
            // Malformed on purpose (images of different lengths): the wire
            // keeps any shape, so the child judges what the parent sent.
            lds_init: vec![(0..32).collect(), vec![u64::MAX; 3]],
            lanes,
            more_rounds: vec![Round {
                data: (0..64).map(|i| i << 40).collect(),
                vdst_init: vec![1; 64],
            }],
        }
    }

    #[test]
    fn cases_and_outcomes_cross_the_wire_exactly() {
        let case = sample_case();
        let text = serde_json::to_string(&WireCase::from_case(&case)).unwrap();
        let back: WireCase = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_case().unwrap(), case);
        // base64 of the bytes: far below a decimal number per word.
        let decimal = serde_json::to_string(&case).unwrap();
        assert!(
            text.len() * 3 < decimal.len() * 2,
            "{} vs {}",
            text.len(),
            decimal.len()
        );
        let outcomes = vec![
            DeviceOutcome::Completed {
                observation: Observation {
                    ret: vec![0, u64::MAX, 42],
                    lds_final: vec![vec![7; 4], vec![]],
                },
                device_us: 12,
            },
            DeviceOutcome::Fault {
                message: "MEMVIOL".into(),
            },
            DeviceOutcome::Timeout {
                message: "1 s".into(),
            },
        ];
        let batch = BatchOutcome::Each(outcomes.clone());
        let text = serde_json::to_string(&Response::Batch {
            outcome: WireBatch::from_batch(&batch),
            retire: false,
        })
        .unwrap();
        match serde_json::from_str::<Response>(&text).unwrap() {
            Response::Batch { outcome, .. } => assert_eq!(outcome.to_batch().unwrap(), batch),
            other => panic!("{other:?}"),
        }
        // A damaged buffer is an error naming it, never a shorter case.
        let mut w = WireCase::from_case(&case);
        w.data.truncate(w.data.len() - 4);
        let e = w.to_case().unwrap_err();
        assert!(e.contains("case 7") && e.contains("data"), "{e}");
        let mut w = WireCase::from_case(&case);
        w.vdst_init = words_to_wire(&[1, 2]);
        assert!(w.to_case().unwrap_err().contains("64 addresses"));
    }

    /// A program's object crosses once per child, then as the runs that
    /// differ from it; both ends' caches agree on what the child holds.
    #[test]
    fn code_objects_cross_once_then_as_their_changed_bytes() {
        use base64::Engine;
        let base: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut parent = CodeCache::default();
        let mut child = CodeCache::default();
        let first = parent.encode(&base);
        assert!(matches!(first, WireCode::Bytes(_)));
        assert_eq!(child.decode(&first).unwrap(), base);
        // A program: 8 bytes re-encoded, and 4 more 100 bytes on.
        let mut program = base.clone();
        program[1000..1008].copy_from_slice(&[0xde; 8]);
        program[1100..1104].copy_from_slice(&[0xad; 4]);
        let wire = parent.encode(&program);
        match &wire {
            WireCode::Patched { runs, .. } => {
                assert_eq!(runs.len(), 2, "{runs:?}");
                assert_eq!(runs[0].offset, 1000);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(child.decode(&wire).unwrap(), program);
        // The base itself: no runs. An unrelated object: whole, a new base.
        assert!(
            matches!(parent.encode(&base), WireCode::Patched { ref runs, .. } if runs.is_empty())
        );
        let other: Vec<u8> = base.iter().map(|b| !b).collect();
        let wire = parent.encode(&other);
        assert!(matches!(wire, WireCode::Bytes(_)));
        assert_eq!(child.decode(&wire).unwrap(), other);
        // The oldest base is forgotten by both beyond CODE_BASES.
        for k in 0..CODE_BASES as u8 {
            let o = vec![k; 100];
            assert_eq!(child.decode(&parent.encode(&o)).unwrap(), o);
        }
        let wire = parent.encode(&program);
        assert!(matches!(wire, WireCode::Bytes(_)), "base forgotten");
        assert_eq!(child.decode(&wire).unwrap(), program);
        // A run past the base, or an unknown base, is refused.
        let bad = WireCode::Patched {
            base: hex::encode([0u8; 32]),
            runs: vec![],
        };
        assert!(child.decode(&bad).unwrap_err().contains("was not sent"));
        let key = hex::encode(CodeCache::key(&program));
        let bad = WireCode::Patched {
            base: key,
            runs: vec![WireRun {
                offset: 4095,
                bytes: b64().encode([1, 2]),
            }],
        };
        assert!(child.decode(&bad).unwrap_err().contains("past the base"));
    }

    #[test]
    fn launches_cross_the_wire_exactly() {
        use base64::Engine;
        let c = Completion {
            buffers: vec![vec![1, 2, 3], vec![], vec![0xff; 9]],
            elapsed: Duration::from_nanos(1234),
        };
        let w = WireLaunch::from_result(Ok(c.clone())).unwrap();
        let back = w.to_result(&[3, 0, 9]).unwrap().unwrap();
        assert_eq!((back.buffers, back.elapsed), (c.buffers, c.elapsed));
        assert!(w
            .to_result(&[3, 0, 8])
            .unwrap_err()
            .contains("the dispatch had"));
        let t = BackendError::Timeout {
            kernel: "k".into(),
            limit: Duration::from_millis(1500),
            pc: Some(0x100),
        };
        let text = t.to_string();
        let w = WireLaunch::from_result(Err(t)).unwrap();
        assert_eq!(w.to_result(&[]).unwrap().unwrap_err().to_string(), text);
        let w = WireLaunch::from_result(Err(BackendError::Fault("MEMVIOL".into()))).unwrap();
        assert!(matches!(w.to_result(&[]).unwrap(), Err(BackendError::Fault(m)) if m == "MEMVIOL"));
        // Not an outcome of the launch: given back.
        assert!(matches!(
            WireLaunch::from_result(Err(BackendError::Environment("gone".into()))),
            Err(BackendError::Environment(_))
        ));
        // A launch before the setup is refused.
        let d = Request::Dispatch(Box::new(WireDispatch {
            code: WireCode::Bytes(b64().encode([0u8; 4])),
            kernel: "k".into(),
            groups: 1,
            block: 32,
            dynamic_lds: 0,
            buffers: vec![],
            args: vec![WireArg::from_arg(&ArgValue::Buffer(0))],
            timeout_ms: 10,
        }));
        let input = format!("{LINE_TAG}{}\n", serde_json::to_string(&d).unwrap());
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let r: Response =
            serde_json::from_str(text.trim_end().strip_prefix(LINE_TAG).unwrap()).unwrap();
        assert!(
            matches!(r, Response::Error(WireError::Invalid(ref m)) if m.contains("before the setup")),
            "{r:?}"
        );
    }

    #[test]
    fn another_protocol_version_is_refused_not_ignored() {
        let input = "dsxor-worker/1 {\"identity\":{}}\n";
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let r: Response = serde_json::from_str(lines[0].strip_prefix(LINE_TAG).unwrap()).unwrap();
        assert!(
            matches!(r, Response::Error(WireError::Invalid(ref m)) if m.contains("dsxor-worker/1 at the other end")),
            "{r:?}"
        );
        assert_eq!(foreign_version(&format!("{LINE_TAG}{{}}")), None);
        assert_eq!(foreign_version("hello"), None);
    }
}
