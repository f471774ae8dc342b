//! The `dsxor-worker/3` protocol: the line format (`LINE_TAG`, one JSON
//! value per line), the requests and answers, and every case, outcome,
//! kernel object and launch as it crosses the pipe. Both ends use these
//! types; neither end's behaviour lives here.

use std::collections::VecDeque;
use std::io::Write;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::backend::conformance::{BatchOutcome, DeviceOutcome, KernelIdentity, KernelObject};
use crate::backend::{ArgValue, BackendError, Completion, DeviceInfo};
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
pub(super) fn foreign_version(line: &str) -> Option<String> {
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

/// A kernel object on the wire (bytes as hex: JSON has no byte strings).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireObject {
    pub wave: WaveSize,
    #[serde(default)]
    pub mode: crate::case::Mode,
    pub bytes_hex: String,
    pub source: String,
    pub origin: String,
    pub compiler: Option<String>,
}

impl WireObject {
    pub fn from_object(o: &KernelObject) -> WireObject {
        WireObject {
            wave: o.wave,
            mode: o.mode,
            bytes_hex: hex::encode(&o.bytes),
            source: o.source.clone(),
            origin: o.origin.clone(),
            compiler: o.compiler.clone(),
        }
    }

    pub fn to_object(&self) -> Result<KernelObject, String> {
        Ok(KernelObject {
            wave: self.wave,
            mode: self.mode,
            bytes: hex::decode(&self.bytes_hex)
                .map_err(|e| format!("kernel object {}: {e}", self.source))?,
            source: self.source.clone(),
            origin: self.origin.clone(),
            compiler: self.compiler.clone(),
        })
    }
}

pub(super) fn b64() -> base64::engine::GeneralPurpose {
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
    pub(super) fn from_result(
        r: Result<Completion, BackendError>,
    ) -> Result<WireLaunch, BackendError> {
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
    pub(super) fn to_result(
        &self,
        sizes: &[usize],
    ) -> Result<Result<Completion, BackendError>, String> {
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
                    // The worker runs HIP, which does not report the mode.
                    wgp_mode: None,
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
    pub(super) fn from_backend(e: BackendError) -> WireError {
        match e {
            BackendError::Invalid(m) => WireError::Invalid(m),
            BackendError::Hazard(m) => WireError::Hazard(m),
            // Its text only: `into_backend` makes it an environment error
            // again (no "environment: environment:").
            BackendError::Environment(m) => WireError::Environment(m),
            other => WireError::Environment(other.to_string()),
        }
    }
    pub(super) fn into_backend(self) -> BackendError {
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
pub(super) fn write_line<W: Write>(w: &mut W, value: &impl Serialize) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
    w.write_all(LINE_TAG.as_bytes())?;
    serde_json::to_writer(&mut w, value).map_err(std::io::Error::other)?;
    w.write_all(b"\n")?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

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
                mode: crate::case::Mode::Cu,
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
        let c = Completion {
            buffers: vec![vec![1, 2, 3], vec![], vec![0xff; 9]],
            elapsed: Duration::from_nanos(1234),
            // The worker runs HIP, which does not report the mode.
            wgp_mode: None,
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
    }
}
