//! The `dsxor-worker/7` protocol: the frame format (a header line tagged
//! `LINE_TAG`, a JSON value, raw payload bytes in the stream or in the
//! sender's shared region), the requests and answers, and every case,
//! outcome, kernel object and launch as it crosses. Both ends use these
//! types; neither end's behaviour lives here.

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::backend::conformance::{BatchOutcome, DeviceOutcome, KernelIdentity, KernelObject};
use crate::backend::{ArgValue, BackendError, Completion, DeviceInfo};
use crate::case::{Case, Geometry, LaneInput, Observation, Round, Traffic, WaveSize};

use super::shared::Shared;

/// Every frame's header line starts with this; the number is the
/// protocol's version (2: buffers as base64, outcomes externally tagged;
/// 3: raw launches, `Request::Dispatch`; 4: binary frames, buffers as raw
/// little-endian bytes after the JSON, named by `Blob`; 5: background
/// traffic, a case's `traffic` roles and spins and an observation's
/// `traffic_verdicts`, which a version-4 end would drop without a word,
/// running a traffic case as a plain one; 6: throughput launches,
/// `Request::Throughput`, whose inputs the child keeps from launch to
/// launch, which a version-5 child would refuse as unreadable; 7: a
/// header may end in ` shared`, its payload then in the sender's
/// shared-memory region instead of the pipe, which a version-6 end would
/// take for an unreadable header). A line of another version is refused,
/// not skipped (`foreign_version`).
pub const LINE_TAG: &str = "dsxor-worker/7 ";

/// The header's last word when the payload is in the sender's shared
/// region (`super::shared`), not after the JSON in the pipe.
const SHARED_WORD: &str = "shared";

/// The start every version's lines share.
const LINE_FAMILY: &str = "dsxor-worker/";

/// The largest JSON or payload part a frame header may announce: far above
/// any batch (a worker stays under 64 MiB), low enough that a damaged header
/// is an error, not an allocation that ends the process.
pub const MAX_FRAME_PART: usize = 1 << 30;

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

/// A buffer in its frame's payload: `len` bytes from byte `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Blob {
    pub at: u64,
    pub len: u64,
}

/// The payload of a frame being built: every buffer appended as its raw
/// (little-endian) bytes, named in the JSON by the `Blob` `put` returns.
/// Built in memory of its own, or straight into this end's shared region
/// (`Blobs::in_region`: the frame then says ` shared`, and its bytes are
/// written once, where the other end reads them).
#[derive(Debug, Default)]
pub struct Blobs {
    bytes: Vec<u8>,
    /// The shared region the payload is built in, from its start, instead
    /// of `bytes`; `len` bytes so far.
    region: Option<Shared>,
    len: usize,
    /// Why the region could not grow: the frame is not sent
    /// ([`FrameWriter::write`] returns it).
    failed: Option<String>,
}

impl Blobs {
    /// A payload built in `region` (this end's, see `super::shared`).
    pub fn in_region(region: Shared) -> Blobs {
        Blobs {
            region: Some(region),
            ..Blobs::default()
        }
    }

    /// Whether this payload is built in a shared region.
    fn is_shared(&self) -> bool {
        self.region.is_some()
    }

    /// Bytes as they are.
    pub fn put(&mut self, bytes: &[u8]) -> Blob {
        let at = self.len();
        self.append(bytes);
        self.blob_from(at)
    }

    /// 64-bit words, little-endian.
    pub fn words(&mut self, words: impl IntoIterator<Item = u64>) -> Blob {
        self.fill(words.into_iter().map(u64::to_le_bytes))
    }

    /// 32-bit words, little-endian.
    pub fn u32s(&mut self, words: impl IntoIterator<Item = u32>) -> Blob {
        self.fill(words.into_iter().map(u32::to_le_bytes))
    }

    /// `N`-byte items, in order. An iterator that knows its length is
    /// written in one pass over room made once: growing the region's
    /// mapping is checked per append, which per word cost more than the
    /// pipe it replaces.
    fn fill<const N: usize>(&mut self, mut items: impl Iterator<Item = [u8; N]>) -> Blob {
        let at = self.len();
        let (lo, hi) = items.size_hint();
        let Some(region) = self.region.as_mut().filter(|_| hi == Some(lo)) else {
            if self.region.is_none() {
                self.bytes.reserve(lo.saturating_mul(N));
            }
            for b in items {
                self.append(&b);
            }
            return self.blob_from(at);
        };
        let end = at + lo * N;
        if let Some(dst) = Self::room(region, &mut self.failed, at, end) {
            let mut n = 0;
            for (d, b) in dst.chunks_exact_mut(N).zip(&mut items) {
                d.copy_from_slice(&b);
                n += 1;
            }
            self.len = at + n * N;
        }
        // Whatever a length hint did not announce is still the buffer's.
        for b in items {
            self.append(&b);
        }
        self.blob_from(at)
    }

    fn append(&mut self, b: &[u8]) {
        let Some(region) = &mut self.region else {
            self.bytes.extend_from_slice(b);
            return;
        };
        let end = self.len + b.len();
        if let Some(dst) = Self::room(region, &mut self.failed, self.len, end) {
            dst.copy_from_slice(b);
            self.len = end;
        }
    }

    /// Bytes `at..end` of `region` to write, grown first; none once a
    /// growth has failed (`failed` says why, and the frame is not sent).
    fn room<'r>(
        region: &'r mut Shared,
        failed: &mut Option<String>,
        at: usize,
        end: usize,
    ) -> Option<&'r mut [u8]> {
        if failed.is_some() {
            return None;
        }
        match region.writable(end) {
            Ok(dst) => dst.get_mut(at..end),
            Err(e) => {
                *failed = Some(format!("growing the shared region to {end} bytes: {e}"));
                None
            }
        }
    }

    fn len(&self) -> usize {
        if self.region.is_some() {
            self.len
        } else {
            self.bytes.len()
        }
    }

    fn blob_from(&self, at: usize) -> Blob {
        Blob {
            at: at as u64,
            len: (self.len() - at) as u64,
        }
    }

    /// The payload's bytes.
    pub fn as_slice(&self) -> &[u8] {
        match &self.region {
            None => &self.bytes,
            Some(r) => r.written(self.len),
        }
    }

    /// Empty, keeping the allocation (or region) for the next frame.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
        self.failed = None;
    }
}

/// A received frame's payload, read through the `Blob`s its JSON names.
#[derive(Clone, Copy, Debug)]
pub struct Payload<'a>(pub &'a [u8]);

impl<'a> Payload<'a> {
    /// The blob's bytes; one past the payload is an error naming `what`.
    pub fn bytes(&self, b: Blob, what: &str) -> Result<&'a [u8], String> {
        let range = usize::try_from(b.at)
            .ok()
            .zip(usize::try_from(b.len).ok())
            .and_then(|(at, len)| Some(at..at.checked_add(len)?));
        range.and_then(|r| self.0.get(r)).ok_or_else(|| {
            format!(
                "{what}: {} bytes at {} are past the frame's {} payload bytes",
                b.len,
                b.at,
                self.0.len()
            )
        })
    }

    /// The blob's `N`-byte words, straight from the payload (collecting
    /// them into a vector of arrays first was a second allocation and copy
    /// of every buffer of every case, on both ends).
    fn chunks<const N: usize>(
        &self,
        b: Blob,
        what: &str,
    ) -> Result<impl ExactSizeIterator<Item = [u8; N]> + 'a, String> {
        let bytes = self.bytes(b, what)?;
        if !bytes.len().is_multiple_of(N) {
            return Err(format!(
                "{what}: {} bytes, not a whole number of {N}-byte words",
                bytes.len()
            ));
        }
        Ok(bytes
            .chunks_exact(N)
            .map(|c| c.try_into().unwrap_or([0u8; N])))
    }

    /// The inverse of [`Blobs::words`].
    pub fn words(&self, b: Blob, what: &str) -> Result<Vec<u64>, String> {
        Ok(self.chunks::<8>(b, what)?.map(u64::from_le_bytes).collect())
    }

    /// The inverse of [`Blobs::u32s`].
    pub fn u32s(&self, b: Blob, what: &str) -> Result<Vec<u32>, String> {
        Ok(self.chunks::<4>(b, what)?.map(u32::from_le_bytes).collect())
    }
}

/// A kernel object on the wire (its bytes in the payload).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireObject {
    pub wave: WaveSize,
    #[serde(default)]
    pub mode: crate::case::Mode,
    pub bytes: Blob,
    pub source: String,
    pub origin: String,
    pub compiler: Option<String>,
}

impl WireObject {
    pub fn from_object(o: &KernelObject, blobs: &mut Blobs) -> WireObject {
        WireObject {
            wave: o.wave,
            mode: o.mode,
            bytes: blobs.put(&o.bytes),
            source: o.source.clone(),
            origin: o.origin.clone(),
            compiler: o.compiler.clone(),
        }
    }

    pub fn to_object(&self, payload: Payload<'_>) -> Result<KernelObject, String> {
        Ok(KernelObject {
            wave: self.wave,
            mode: self.mode,
            bytes: payload
                .bytes(self.bytes, &format!("kernel object {}", self.source))?
                .to_vec(),
            source: self.source.clone(),
            origin: self.origin.clone(),
            compiler: self.compiler.clone(),
        })
    }
}

/// One `Round` on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireRound {
    /// DATA per lane, 64-bit words.
    pub data: Blob,
    /// VDST-before per lane, 64-bit words.
    pub vdst_init: Blob,
}

/// A `Case` on the wire: the same fields, every per-lane and per-qword
/// array in the payload (64-bit words; ADDR as 32-bit words, EXEC as one
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
    pub lds_init: Vec<Blob>,
    pub addr: Blob,
    pub data: Blob,
    pub active: Blob,
    pub vdst_init: Blob,
    pub more_rounds: Vec<WireRound>,
    /// `Case::traffic`: roles one byte 0 or 1 per lane, spins as 32-bit
    /// words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<WireTraffic>,
}

/// A `Traffic` on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireTraffic {
    pub lanes: Blob,
    pub spin: Blob,
}

impl WireCase {
    pub fn from_case(c: &Case, blobs: &mut Blobs) -> WireCase {
        let lanes = &c.lanes;
        WireCase {
            pattern: c.pattern.clone(),
            index: c.index,
            geometry: c.geometry,
            lds_bytes: c.lds_bytes,
            offset: c.offset,
            lds_init: c
                .lds_init
                .iter()
                .map(|img| blobs.words(img.iter().copied()))
                .collect(),
            addr: blobs.u32s(lanes.iter().map(|l| l.addr)),
            data: blobs.words(lanes.iter().map(|l| l.data)),
            active: {
                let active: Vec<u8> = lanes.iter().map(|l| u8::from(l.active)).collect();
                blobs.put(&active)
            },
            vdst_init: blobs.words(lanes.iter().map(|l| l.vdst_init)),
            more_rounds: c
                .more_rounds
                .iter()
                .map(|r| WireRound {
                    data: blobs.words(r.data.iter().copied()),
                    vdst_init: blobs.words(r.vdst_init.iter().copied()),
                })
                .collect(),
            traffic: c.traffic.as_ref().map(|t| {
                let roles: Vec<u8> = t.lanes.iter().map(|&r| u8::from(r)).collect();
                WireTraffic {
                    lanes: blobs.put(&roles),
                    spin: blobs.u32s(t.spin.iter().map(|&s| u32::from(s))),
                }
            }),
        }
    }

    pub fn to_case(&self, payload: Payload<'_>) -> Result<Case, String> {
        let what = |f: &str| format!("case {} {f}", self.index);
        // Read lane by lane from the payload: no per-field vectors.
        let addr = payload.chunks::<4>(self.addr, &what("addr"))?;
        let data = payload.chunks::<8>(self.data, &what("data"))?;
        let vdst = payload.chunks::<8>(self.vdst_init, &what("vdst_init"))?;
        let active = payload.bytes(self.active, &what("active"))?;
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
        // Sized once (collecting into a `Result` cannot see the length).
        let mut lanes = Vec::with_capacity(n);
        for (i, (((a, d), v), &on)) in addr.zip(data).zip(vdst).zip(active).enumerate() {
            lanes.push(LaneInput {
                addr: u32::from_le_bytes(a),
                data: u64::from_le_bytes(d),
                active: match on {
                    0 => false,
                    1 => true,
                    b => return Err(format!("{}: lane {i} is {b}", what("active"))),
                },
                vdst_init: u64::from_le_bytes(v),
            });
        }
        Ok(Case {
            pattern: self.pattern.clone(),
            index: self.index,
            geometry: self.geometry,
            lds_bytes: self.lds_bytes,
            offset: self.offset,
            lds_init: self
                .lds_init
                .iter()
                .map(|img| payload.words(*img, &what("lds_init")))
                .collect::<Result<_, _>>()?,
            lanes,
            more_rounds: self
                .more_rounds
                .iter()
                .map(|r| {
                    Ok(Round {
                        data: payload.words(r.data, &what("round data"))?,
                        vdst_init: payload.words(r.vdst_init, &what("round vdst_init"))?,
                    })
                })
                .collect::<Result<_, String>>()?,
            // The device never sees the stress record; the parent keeps it.
            stress: None,
            traffic: match &self.traffic {
                None => None,
                Some(t) => Some(Traffic {
                    lanes: payload
                        .bytes(t.lanes, &what("traffic lanes"))?
                        .iter()
                        .map(|&b| match b {
                            0 => Ok(false),
                            1 => Ok(true),
                            b => Err(format!("{}: a role is {b}", what("traffic lanes"))),
                        })
                        .collect::<Result<_, String>>()?,
                    spin: payload
                        .u32s(t.spin, &what("traffic spin"))?
                        .into_iter()
                        .map(|s| {
                            u16::try_from(s)
                                .map_err(|_| format!("{}: a spin is {s}", what("traffic spin")))
                        })
                        .collect::<Result<_, String>>()?,
                }),
            },
        })
    }
}

/// A `DeviceOutcome` on the wire: externally tagged (the internally
/// tagged `DeviceOutcome` of repro files is read through serde's buffered
/// `Content`, a second copy of every observation), buffers in the payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireOutcome {
    Completed {
        /// `Observation::ret`, 64-bit words.
        ret: Blob,
        /// `Observation::lds_final`, per workgroup.
        lds_final: Vec<Blob>,
        device_us: u64,
        /// `Observation::traffic_verdicts`, `[count, value]` pairs as
        /// 64-bit words (absent when empty).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        traffic_verdicts: Option<Blob>,
    },
    Fault {
        message: String,
    },
    Timeout {
        message: String,
    },
}

impl WireOutcome {
    pub fn from_outcome(o: &DeviceOutcome, blobs: &mut Blobs) -> WireOutcome {
        match o {
            DeviceOutcome::Completed {
                observation,
                device_us,
            } => WireOutcome::Completed {
                ret: blobs.words(observation.ret.iter().copied()),
                lds_final: observation
                    .lds_final
                    .iter()
                    .map(|img| blobs.words(img.iter().copied()))
                    .collect(),
                device_us: *device_us,
                traffic_verdicts: (!observation.traffic_verdicts.is_empty())
                    .then(|| blobs.words(observation.traffic_verdicts.iter().flatten().copied())),
            },
            DeviceOutcome::Fault { message } => WireOutcome::Fault {
                message: message.clone(),
            },
            DeviceOutcome::Timeout { message } => WireOutcome::Timeout {
                message: message.clone(),
            },
        }
    }

    pub fn to_outcome(&self, payload: Payload<'_>) -> Result<DeviceOutcome, String> {
        Ok(match self {
            WireOutcome::Completed {
                ret,
                lds_final,
                device_us,
                traffic_verdicts,
            } => DeviceOutcome::Completed {
                observation: Observation {
                    ret: payload.words(*ret, "observation ret")?,
                    lds_final: lds_final
                        .iter()
                        .map(|img| payload.words(*img, "observation lds_final"))
                        .collect::<Result<_, _>>()?,
                    traffic_verdicts: match traffic_verdicts {
                        None => Vec::new(),
                        Some(b) => {
                            let w = payload.words(*b, "observation traffic_verdicts")?;
                            if w.len() % 2 != 0 {
                                return Err(format!(
                                    "observation traffic_verdicts: {} words, not pairs",
                                    w.len()
                                ));
                            }
                            w.chunks_exact(2).map(|p| [p[0], p[1]]).collect()
                        }
                    },
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
    pub fn from_batch(b: &BatchOutcome, blobs: &mut Blobs) -> WireBatch {
        match b {
            BatchOutcome::Each(v) => WireBatch::Each(
                v.iter()
                    .map(|o| WireOutcome::from_outcome(o, blobs))
                    .collect(),
            ),
            BatchOutcome::Whole(o) => WireBatch::Whole(WireOutcome::from_outcome(o, blobs)),
        }
    }

    pub fn to_batch(&self, payload: Payload<'_>) -> Result<BatchOutcome, String> {
        Ok(match self {
            WireBatch::Each(v) => BatchOutcome::Each(
                v.iter()
                    .map(|o| o.to_outcome(payload))
                    .collect::<Result<_, _>>()?,
            ),
            WireBatch::Whole(o) => BatchOutcome::Whole(o.to_outcome(payload)?),
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
    /// The new bytes.
    pub bytes: Blob,
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
    /// The whole object; the child keeps it as a base.
    Bytes(Blob),
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
    /// `Dispatch::buffers`.
    pub buffers: Vec<Blob>,
    pub args: Vec<WireArg>,
    pub timeout_ms: u64,
}

/// One throughput launch (`dsxor bench`) on the wire: a raw launch, as
/// `WireDispatch`, but every launch of a bench run has the same inputs, so
/// they cross the pipe once per run and child (`WireInputs::Kept` after
/// that), and the answer carries only the buffers the bench checks
/// (`read_back`); the others come back empty.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WireThroughput {
    pub code: WireCode,
    pub kernel: String,
    pub groups: u32,
    pub block: u32,
    pub dynamic_lds: u32,
    pub buffers: WireInputs,
    pub args: Vec<WireArg>,
    pub timeout_ms: u64,
    /// Indices into the buffers of those the answer carries.
    pub read_back: Vec<u32>,
}

/// A throughput launch's input buffers on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireInputs {
    /// This launch's buffers (`Dispatch::buffers`); the child keeps a copy
    /// for the launches that follow.
    Sent(Vec<Blob>),
    /// The buffers last sent to this child, unchanged: each launch starts
    /// from a fresh copy of them, so what a launch wrote does not carry
    /// over.
    Kept,
}

/// A raw launch's outcome on the wire: the `Completion`, or the fault or
/// timeout (`BackendError::Fault`, `::Timeout`) that ended it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireLaunch {
    Completed {
        /// `Completion::buffers`.
        buffers: Vec<Blob>,
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
        blobs: &mut Blobs,
    ) -> Result<WireLaunch, BackendError> {
        Ok(match r {
            Ok(c) => WireLaunch::Completed {
                buffers: c.buffers.iter().map(|b| blobs.put(b)).collect(),
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
        payload: Payload<'_>,
    ) -> Result<Result<Completion, BackendError>, String> {
        Ok(match self {
            WireLaunch::Completed {
                buffers,
                elapsed_ns,
            } => {
                let buffers = buffers
                    .iter()
                    .enumerate()
                    .map(|(i, b)| Ok(payload.bytes(*b, &format!("buffer {i}"))?.to_vec()))
                    .collect::<Result<Vec<_>, String>>()?;
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
    pub fn encode(&mut self, code: &[u8], blobs: &mut Blobs) -> WireCode {
        // (base index, cost, runs)
        let mut best: Option<(usize, usize, Vec<Run>)> = None;
        for (k, (_, base)) in self.bases.iter().enumerate() {
            if base.len() != code.len() {
                continue;
            }
            let runs = diff_runs(base, code);
            let cost: usize = runs.iter().map(|(_, r)| r.len() + 16).sum();
            if cost * PATCH_FRACTION <= code.len() && best.as_ref().is_none_or(|b| cost < b.1) {
                best = Some((k, cost, runs));
            }
        }
        match best {
            Some((k, _, runs)) => WireCode::Patched {
                base: hex::encode(self.bases[k].0),
                runs: runs
                    .into_iter()
                    .map(|(offset, r)| WireRun {
                        offset: offset as u64,
                        bytes: blobs.put(&r),
                    })
                    .collect(),
            },
            None => {
                self.add(Self::key(code), code.to_vec());
                WireCode::Bytes(blobs.put(code))
            }
        }
    }

    /// The child's side: the object `code` names.
    pub fn decode(&mut self, code: &WireCode, payload: Payload<'_>) -> Result<Vec<u8>, String> {
        match code {
            WireCode::Bytes(blob) => {
                let bytes = payload.bytes(*blob, "code object")?.to_vec();
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
                    let new =
                        payload.bytes(r.bytes, &format!("code object run at {}", r.offset))?;
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
                    dst.copy_from_slice(new);
                }
                Ok(out)
            }
        }
    }
}

/// The runs of `new` that differ from `old` (same length): (offset, bytes),
/// runs less than 16 bytes apart merged (a run costs about that on the wire).
/// One changed stretch of a code object: its offset and new bytes.
type Run = (usize, Vec<u8>);

fn diff_runs(old: &[u8], new: &[u8]) -> Vec<Run> {
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
    /// One throughput launch (`dsxor bench`), answered with `Throughput`.
    Throughput(Box<WireThroughput>),
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
    /// A throughput launch's outcome, a completion carrying only the
    /// buffers its `read_back` named; `retire` as for `Outcome`.
    Throughput {
        outcome: WireLaunch,
        retire: bool,
    },
    Error(WireError),
}

/// Writes frames, its buffers kept from frame to frame (both ends write
/// every launch's request or answer through one; a fresh JSON and header
/// buffer per frame was memory to fault in per launch).
///
/// One frame: the header line `LINE_TAG<json bytes> <payload bytes>\n`,
/// the JSON value, then the payload's raw bytes. The header is a line so
/// that what a runtime prints to the same stdout between frames is still
/// told apart and skipped ([`read_frame`]).
#[derive(Default)]
pub(super) struct FrameWriter {
    json: Vec<u8>,
    head: Vec<u8>,
}

impl FrameWriter {
    /// Write one frame of `value` and `payload`.
    pub(super) fn write<W: Write>(
        &mut self,
        w: &mut W,
        value: &impl Serialize,
        payload: &Blobs,
    ) -> std::io::Result<()> {
        if let Some(why) = &payload.failed {
            return Err(std::io::Error::other(why.clone()));
        }
        self.json.clear();
        serde_json::to_writer(&mut self.json, value).map_err(std::io::Error::other)?;
        // The header and the JSON in one write, the payload in another.
        self.head.clear();
        write!(self.head, "{LINE_TAG}{} {}", self.json.len(), payload.len())?;
        // A payload in the region was written there before this header,
        // which names it, is sent (the order the other end relies on:
        // `super::shared`).
        if payload.is_shared() {
            write!(self.head, " {SHARED_WORD}")?;
        }
        self.head.push(b'\n');
        self.head.extend_from_slice(&self.json);
        w.write_all(&self.head)?;
        if !payload.is_shared() {
            w.write_all(&payload.bytes)?;
        }
        w.flush()
    }
}

/// What [`read_frame`] found.
#[derive(Debug)]
pub(super) enum Incoming {
    Frame {
        json: Vec<u8>,
        /// The payload when it came in the stream (empty otherwise).
        payload: Vec<u8>,
        /// The payload's length when it is in the sender's shared region.
        shared: Option<usize>,
    },
    /// A line of another protocol version: the message to stop with.
    Foreign(String),
}

/// The next frame on `r`, skipping lines that are not the protocol's;
/// `None` at the end of the stream. A header that does not parse, or
/// announces a part above [`MAX_FRAME_PART`], or a frame cut short, is an
/// `InvalidData`/`UnexpectedEof` error.
#[cfg(test)]
pub(super) fn read_frame(r: &mut impl BufRead) -> std::io::Result<Option<Incoming>> {
    read_frame_reusing(r, &mut || None)
}

/// [`read_frame`], reading a frame's parts into the buffers `spare` gives
/// back once its header has arrived (a frame already handed out, done
/// with), where it has any: the parent's reader of answers, whose batch
/// answers are megabytes that fresh buffers faulted in page by page.
pub(super) fn read_frame_reusing(
    r: &mut impl BufRead,
    spare: &mut dyn FnMut() -> Option<(Vec<u8>, Vec<u8>)>,
) -> std::io::Result<Option<Incoming>> {
    let mut f = FrameReader::default();
    Ok(match f.next_reusing(r, spare)? {
        None => None,
        Some(Framed::Foreign(msg)) => Some(Incoming::Foreign(msg)),
        Some(Framed::Frame) => Some(Incoming::Frame {
            json: f.json,
            payload: f.payload,
            shared: f.shared_len,
        }),
    })
}

/// Reads frames into buffers kept from frame to frame: after
/// [`FrameReader::next`] found a frame, `json` and `payload` hold it until
/// the next call (the child reads every launch's cases so; fresh buffers
/// per frame were memory to fault in per launch).
#[derive(Default)]
pub(super) struct FrameReader {
    line: Vec<u8>,
    pub json: Vec<u8>,
    /// The last frame's payload when it came in the stream.
    pub payload: Vec<u8>,
    /// The last frame's payload length when it is in the other end's
    /// shared region instead (read through [`FrameReader::payload`]).
    shared_len: Option<usize>,
    /// The other end's shared region, when this end was given one.
    pub shared: Option<Shared>,
}

/// What [`FrameReader::next`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Framed {
    /// A frame, now in the reader's `json` and `payload`.
    Frame,
    /// A line of another protocol version, with the message to answer it.
    Foreign(String),
}

impl FrameReader {
    /// [`read_frame`] into `self.json` and `self.payload`; `None` at the
    /// end of the stream.
    pub(super) fn next(&mut self, r: &mut impl BufRead) -> std::io::Result<Option<Framed>> {
        self.next_reusing(r, &mut || None)
    }

    /// [`FrameReader::next`], taking `json` and `payload` from `spare`
    /// (when it gives them) once a frame's header has been read.
    fn next_reusing(
        &mut self,
        r: &mut impl BufRead,
        spare: &mut dyn FnMut() -> Option<(Vec<u8>, Vec<u8>)>,
    ) -> std::io::Result<Option<Framed>> {
        let line = &mut self.line;
        loop {
            line.clear();
            if r.read_until(b'\n', line)? == 0 {
                return Ok(None);
            }
            let text = String::from_utf8_lossy(line);
            if let Some(msg) = foreign_version(&text) {
                return Ok(Some(Framed::Foreign(msg)));
            }
            let Some(sizes) = text.trim_end().strip_prefix(LINE_TAG) else {
                continue; // not ours: a runtime printing to stdout
            };
            let (sizes, in_shared) = match sizes.strip_suffix(SHARED_WORD) {
                Some(s) => (s.strip_suffix(' ').unwrap_or("-"), true),
                None => (sizes, false),
            };
            let parts: Vec<Option<usize>> = sizes
                .split(' ')
                .map(|n| n.parse().ok().filter(|&n| n <= MAX_FRAME_PART))
                .collect();
            let [Some(json_len), Some(payload_len)] = parts[..] else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "unreadable frame header {:?} (want `{LINE_TAG}<json bytes> <payload bytes>[ {SHARED_WORD}]`, each at most {MAX_FRAME_PART})",
                        text.trim_end()
                    ),
                ));
            };
            if let Some((json, payload)) = spare() {
                (self.json, self.payload) = (json, payload);
            }
            read_part(r, &mut self.json, json_len)?;
            if in_shared {
                self.payload.clear();
                self.shared_len = Some(payload_len);
            } else {
                read_part(r, &mut self.payload, payload_len)?;
                self.shared_len = None;
            }
            return Ok(Some(Framed::Frame));
        }
    }
}

impl FrameReader {
    /// The last frame's payload: the bytes that came in the stream, or
    /// those its header names in the other end's shared region.
    pub(super) fn payload(&mut self) -> std::io::Result<&[u8]> {
        resolve_payload(&self.payload, self.shared_len, self.shared.as_mut())
    }
}

/// A frame's payload: `in_stream` when it came in the stream, else
/// `shared_len` bytes of `shared`, the other end's region; a frame naming a
/// region this end was not given is `InvalidData`.
pub(super) fn resolve_payload<'a>(
    in_stream: &'a [u8],
    shared_len: Option<usize>,
    shared: Option<&'a mut Shared>,
) -> std::io::Result<&'a [u8]> {
    match (shared_len, shared) {
        (None, _) => Ok(in_stream),
        (Some(len), Some(region)) => region.view(len),
        (Some(len), None) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "a frame's {len} payload bytes are in shared memory, and this end was given no region"
            ),
        )),
    }
}

/// Exactly `len` bytes of `r` into `buf`, replacing what it held and
/// keeping its allocation. Read into the spare capacity, not into a
/// zero-filled buffer: zeroing every payload before the read overwrote it
/// was a tenth of the child's CPU.
fn read_part(r: &mut impl BufRead, buf: &mut Vec<u8>, len: usize) -> std::io::Result<()> {
    buf.clear();
    buf.reserve_exact(len);
    r.take(len as u64).read_to_end(buf)?;
    if buf.len() != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("a frame part of {len} bytes ended after {}", buf.len()),
        ));
    }
    Ok(())
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
            stress: None,
            traffic: None,
        }
    }

    /// `value` with `blobs` through a frame and back: the JSON and payload.
    fn through_frame<T: Serialize>(value: &T, blobs: &Blobs) -> (Vec<u8>, Vec<u8>) {
        let mut pipe = b"a runtime's line\n".to_vec();
        FrameWriter::default()
            .write(&mut pipe, value, blobs)
            .unwrap();
        match read_frame(&mut pipe.as_slice()).unwrap() {
            Some(Incoming::Frame {
                json,
                payload,
                shared: None,
            }) => (json, payload),
            other => panic!("{other:?}"),
        }
    }

    /// A payload built in a region is byte for byte the one built in
    /// memory, whatever the iterators (of known length or not) and across
    /// the region's growth.
    #[test]
    fn a_payload_built_in_a_region_is_the_one_built_in_memory() {
        let mut shared = Blobs::in_region(Shared::create("dsxor-test").unwrap());
        let mut plain = Blobs::default();
        for round in 0..2u64 {
            shared.clear();
            plain.clear();
            let mut names = Vec::new();
            for b in [&mut shared, &mut plain] {
                let big = (0..300_000u64).map(|i| i * 0x9e37_79b9 + round);
                names.push([
                    b.put(b"abc"),
                    b.words(big),
                    b.u32s([1u32, 2, 3]),
                    // Not of known length: appended one at a time.
                    b.words((0..1000u64).filter(|i| i % 3 == round)),
                    b.put(&[]),
                ]);
            }
            assert_eq!(names[0], names[1]);
            assert_eq!(shared.as_slice(), plain.as_slice());
            assert!(shared.bytes.is_empty());
        }
        // An iterator whose length hint is short of what it yields loses
        // nothing.
        struct Short(u64);
        impl Iterator for Short {
            type Item = u64;
            fn next(&mut self) -> Option<u64> {
                self.0 = self.0.checked_sub(1)?;
                Some(self.0)
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                (1, Some(1))
            }
        }
        shared.clear();
        let b = shared.words(Short(5));
        assert_eq!(b.len, 40);
        let words = Payload(shared.as_slice()).words(b, "short").unwrap();
        assert_eq!(words, vec![4, 3, 2, 1, 0]);
    }

    /// With shared regions, the stream carries the header and the JSON
    /// only; the reader finds the payload in its mapping of the writer's
    /// region, frame after frame, as it grows and shrinks.
    #[test]
    fn a_shared_payload_stays_out_of_the_stream() {
        let mut writer = FrameWriter::default();
        let region = Shared::create("dsxor-test").unwrap();
        let mut reader = FrameReader {
            shared: Some(region.try_clone().unwrap()),
            ..FrameReader::default()
        };
        let mut blobs = Blobs::in_region(region);
        let case = sample_case();
        let mut big = sample_case();
        big.lanes = big.lanes.repeat(1 << 12);
        for c in [&case, &big, &case] {
            blobs.clear();
            let wire = WireCase::from_case(c, &mut blobs);
            // Built in the region, nothing in memory of its own.
            assert!(blobs.bytes.is_empty() && blobs.len() > 0);
            let mut stream = Vec::new();
            writer
                .write(&mut stream, &Request::Run(Box::new(wire)), &blobs)
                .unwrap();
            let head_end = stream.iter().position(|&b| b == b'\n').unwrap() + 1;
            let head = std::str::from_utf8(&stream[..head_end]).unwrap();
            assert!(head.ends_with(" shared\n"), "{head}");
            let json_len = stream.len() - head_end;
            assert_eq!(
                head,
                format!("{LINE_TAG}{json_len} {} shared\n", blobs.as_slice().len())
            );
            assert_eq!(
                reader.next(&mut stream.as_slice()).unwrap(),
                Some(Framed::Frame)
            );
            let Request::Run(back) = serde_json::from_slice(&reader.json).unwrap() else {
                panic!("not a run");
            };
            let payload = reader.payload().unwrap();
            assert_eq!(payload, blobs.as_slice());
            assert_eq!(back.to_case(Payload(payload)).unwrap().lanes, c.lanes);
        }
        // A header naming more than the region holds: an error, not a read
        // past the mapping.
        let head = format!("{LINE_TAG}2 {} shared\n{{}}", 64 << 20);
        assert_eq!(
            reader.next(&mut head.as_bytes()).unwrap(),
            Some(Framed::Frame)
        );
        let e = reader.payload().unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
    }

    /// One reader and one writer for every frame, as the child uses them:
    /// a small frame after a large one is exactly its own bytes.
    #[test]
    fn reused_frame_buffers_hold_each_frame_exactly() {
        let mut pipe = Vec::new();
        let mut writer = FrameWriter::default();
        let mut blobs = Blobs::default();
        for n in [4096u64, 3, 0, 17] {
            blobs.clear();
            let b = blobs.words(0..n);
            writer.write(&mut pipe, &b, &blobs).unwrap();
            pipe.extend_from_slice(b"a runtime's line\n");
        }
        let mut reader = FrameReader::default();
        let mut r = pipe.as_slice();
        for n in [4096u64, 3, 0, 17] {
            assert_eq!(reader.next(&mut r).unwrap(), Some(Framed::Frame));
            let b: Blob = serde_json::from_slice(&reader.json).unwrap();
            assert_eq!(b, Blob { at: 0, len: n * 8 });
            let words = Payload(&reader.payload).words(b, "w").unwrap();
            assert_eq!(words, (0..n).collect::<Vec<_>>());
            assert_eq!(reader.payload.len() as u64, n * 8);
        }
        assert_eq!(reader.next(&mut r).unwrap(), None);
    }

    #[test]
    fn cases_and_outcomes_cross_the_wire_exactly() {
        let case = sample_case();
        let mut blobs = Blobs::default();
        let wire = WireCase::from_case(&case, &mut blobs);
        let (json, payload) = through_frame(&wire, &blobs);
        let back: WireCase = serde_json::from_slice(&json).unwrap();
        assert_eq!(back.to_case(Payload(&payload)).unwrap(), case);
        // The payload is the buffers' raw bytes: 64 lanes x (4 + 8 + 1 + 8),
        // 32 + 3 LDS qwords, one round of 2 x 64 qwords.
        assert_eq!(payload.len(), 64 * 21 + 35 * 8 + 128 * 8);
        let outcomes = vec![
            DeviceOutcome::Completed {
                observation: Observation {
                    ret: vec![0, u64::MAX, 42],
                    lds_final: vec![vec![7; 4], vec![]],
                    traffic_verdicts: Vec::new(),
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
        let mut blobs = Blobs::default();
        let response = Response::Batch {
            outcome: WireBatch::from_batch(&batch, &mut blobs),
            retire: false,
        };
        let (json, payload) = through_frame(&response, &blobs);
        match serde_json::from_slice::<Response>(&json).unwrap() {
            Response::Batch { outcome, .. } => {
                assert_eq!(outcome.to_batch(Payload(&payload)).unwrap(), batch)
            }
            other => panic!("{other:?}"),
        }
        // A damaged buffer is an error naming it, never a shorter case.
        let mut blobs = Blobs::default();
        let good = WireCase::from_case(&case, &mut blobs);
        let payload = Payload(blobs.as_slice());
        let mut w = good.clone();
        w.data.len -= 4;
        let e = w.to_case(payload).unwrap_err();
        assert!(e.contains("case 7") && e.contains("data"), "{e}");
        let mut w = good.clone();
        w.vdst_init.len = 16;
        assert!(w.to_case(payload).unwrap_err().contains("64 addresses"));
        // A blob past the payload is refused, not read short.
        let mut w = good.clone();
        w.addr.at = blobs.as_slice().len() as u64 - 8;
        let e = w.to_case(payload).unwrap_err();
        assert!(e.contains("past the frame"), "{e}");
        let mut w = good;
        w.addr.at = u64::MAX;
        assert!(w.to_case(payload).unwrap_err().contains("past the frame"));
    }

    /// A program's object crosses once per child, then as the runs that
    /// differ from it; both ends' caches agree on what the child holds.
    #[test]
    fn code_objects_cross_once_then_as_their_changed_bytes() {
        // One frame's payload per exchange, as on the pipe.
        fn send(parent: &mut CodeCache, child: &mut CodeCache, code: &[u8]) -> Vec<u8> {
            let mut blobs = Blobs::default();
            let wire = parent.encode(code, &mut blobs);
            child.decode(&wire, Payload(blobs.as_slice())).unwrap()
        }
        let base: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut parent = CodeCache::default();
        let mut child = CodeCache::default();
        let mut blobs = Blobs::default();
        let first = parent.encode(&base, &mut blobs);
        assert!(matches!(first, WireCode::Bytes(_)));
        assert_eq!(blobs.as_slice(), &base[..]);
        assert_eq!(
            child.decode(&first, Payload(blobs.as_slice())).unwrap(),
            base
        );
        // A program: 8 bytes re-encoded, and 4 more 100 bytes on.
        let mut program = base.clone();
        program[1000..1008].copy_from_slice(&[0xde; 8]);
        program[1100..1104].copy_from_slice(&[0xad; 4]);
        let mut blobs = Blobs::default();
        let wire = parent.encode(&program, &mut blobs);
        match &wire {
            WireCode::Patched { runs, .. } => {
                assert_eq!(runs.len(), 2, "{runs:?}");
                assert_eq!(runs[0].offset, 1000);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(blobs.as_slice().len(), 8 + 4, "only the changed runs cross");
        assert_eq!(
            child.decode(&wire, Payload(blobs.as_slice())).unwrap(),
            program
        );
        // The base itself: no runs. An unrelated object: whole, a new base.
        assert!(matches!(
            parent.encode(&base, &mut Blobs::default()),
            WireCode::Patched { ref runs, .. } if runs.is_empty()
        ));
        let other: Vec<u8> = base.iter().map(|b| !b).collect();
        let mut blobs = Blobs::default();
        let wire = parent.encode(&other, &mut blobs);
        assert!(matches!(wire, WireCode::Bytes(_)));
        assert_eq!(
            child.decode(&wire, Payload(blobs.as_slice())).unwrap(),
            other
        );
        // The oldest base is forgotten by both beyond CODE_BASES.
        for k in 0..CODE_BASES as u8 {
            let o = vec![k; 100];
            assert_eq!(send(&mut parent, &mut child, &o), o);
        }
        let mut blobs = Blobs::default();
        let wire = parent.encode(&program, &mut blobs);
        assert!(matches!(wire, WireCode::Bytes(_)), "base forgotten");
        assert_eq!(
            child.decode(&wire, Payload(blobs.as_slice())).unwrap(),
            program
        );
        // A run past the base, or an unknown base, is refused.
        let bad = WireCode::Patched {
            base: hex::encode([0u8; 32]),
            runs: vec![],
        };
        assert!(child
            .decode(&bad, Payload(&[]))
            .unwrap_err()
            .contains("was not sent"));
        let key = hex::encode(CodeCache::key(&program));
        let bad = WireCode::Patched {
            base: key,
            runs: vec![WireRun {
                offset: 4095,
                bytes: Blob { at: 0, len: 2 },
            }],
        };
        assert!(child
            .decode(&bad, Payload(&[1, 2]))
            .unwrap_err()
            .contains("past the base"));
    }

    #[test]
    fn launches_cross_the_wire_exactly() {
        let c = Completion {
            buffers: vec![vec![1, 2, 3], vec![], vec![0xff; 9]],
            elapsed: Duration::from_nanos(1234),
            // The worker runs HIP, which does not report the mode.
            wgp_mode: None,
        };
        let mut blobs = Blobs::default();
        let w = WireLaunch::from_result(Ok(c.clone()), &mut blobs).unwrap();
        let p = Payload(blobs.as_slice());
        let back = w.to_result(&[3, 0, 9], p).unwrap().unwrap();
        assert_eq!((back.buffers, back.elapsed), (c.buffers, c.elapsed));
        assert!(w
            .to_result(&[3, 0, 8], p)
            .unwrap_err()
            .contains("the dispatch had"));
        // A payload cut short names the buffer.
        let short = Payload(&blobs.as_slice()[..5]);
        assert!(w
            .to_result(&[3, 0, 9], short)
            .unwrap_err()
            .contains("buffer 2"));
        let t = BackendError::Timeout {
            kernel: "k".into(),
            limit: Duration::from_millis(1500),
            pc: Some(0x100),
        };
        let text = t.to_string();
        let none = Payload(&[]);
        let w = WireLaunch::from_result(Err(t), &mut blobs).unwrap();
        assert_eq!(
            w.to_result(&[], none).unwrap().unwrap_err().to_string(),
            text
        );
        let fault = Err(BackendError::Fault("MEMVIOL".into()));
        let w = WireLaunch::from_result(fault, &mut blobs).unwrap();
        assert!(
            matches!(w.to_result(&[], none).unwrap(), Err(BackendError::Fault(m)) if m == "MEMVIOL")
        );
        // Not an outcome of the launch: given back.
        assert!(matches!(
            WireLaunch::from_result(Err(BackendError::Environment("gone".into())), &mut blobs),
            Err(BackendError::Environment(_))
        ));
    }
}
