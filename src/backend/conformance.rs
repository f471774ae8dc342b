//! A `Case` as a launch of the conformance kernel, and the launch's buffers
//! back as an `Observation`. The kernel ABI (kernels/dsxor.hip, BRIEF.md):
//!
//! ```text
//! dsxor_conformance_off<N>(const uint32_t* addr, const uint64_t* data,
//!     const uint32_t* active, const uint64_t* lds_init, uint64_t* ret,
//!     uint64_t* lds_out, uint32_t lds_qwords)
//! ```
//! 1-D grid of `groups` workgroups of `waves_per_group * wave_size`
//! work-items, dynamic LDS = `lds_qwords * 8` bytes. `ret` carries VDST's
//! initial value in and VDST out; `lds_out` is poisoned before the launch so
//! that an image the kernel never wrote cannot pass for one it did.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::case::{Case, Mode, Observation, WaveSize};

use super::{ArgValue, Backend, BackendError, Completion, DeviceInfo, Dispatch};

/// Buffer order of the ABI.
pub const BUF_ADDR: usize = 0;
pub const BUF_DATA: usize = 1;
pub const BUF_ACTIVE: usize = 2;
pub const BUF_LDS_INIT: usize = 3;
pub const BUF_RET: usize = 4;
pub const BUF_LDS_OUT: usize = 5;

/// Kernel symbol prefix; the shipped variants append their offset.
pub const KERNEL_PREFIX: &str = "dsxor_conformance_off";

/// The same for the kernels that run several rounds per launch
/// (kernels/dsxor.hip "Conformance kernels with rounds"): `data` and `ret`
/// hold `rounds` qwords per lane, lane-major, and an eighth argument
/// `rounds` follows `lds_qwords`.
pub const ROUNDS_KERNEL_PREFIX: &str = "dsxor_conformance_rounds_off";

/// What `lds_out` holds before the launch: qword `i` of the buffer is
/// `LDS_OUT_POISON ^ i`, so a missing write is visible and never equal to a
/// neighbour's poison.
pub const LDS_OUT_POISON: u64 = 0xbad0_1d5b_bad0_1d5b;

/// The symbol of the shipped kernel for an offset.
pub fn kernel_name(offset: u16) -> String {
    format!("{KERNEL_PREFIX}{offset}")
}

/// The kernel that runs a case of `rounds` rounds at `offset`: one round
/// keeps the one-round kernel it always ran on.
pub fn kernel_name_for(offset: u16, rounds: usize) -> String {
    if rounds > 1 {
        format!("{ROUNDS_KERNEL_PREFIX}{offset}")
    } else {
        kernel_name(offset)
    }
}

#[cfg(test)]
/// Little-endian bytes of `values`, written straight into one allocation
/// (an iterator of `to_le_bytes` arrays flattened costs several times more).
fn u64s(values: impl ExactSizeIterator<Item = u64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// The LDS images of every group, `q` qwords each, back to back.
fn lds_images(case: &Case, groups: usize, q: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(groups * q * 8);
    for g in 0..groups {
        // Missing qwords (a malformed case) read as 0 rather than panic;
        // `model::validate_case` rejects such cases before they get here.
        let img = case.lds_init.get(g).map_or(&[][..], Vec::as_slice);
        let have = img.len().min(q);
        for v in &img[..have] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.resize(out.len() + (q - have) * 8, 0);
    }
    out
}

/// The launch of `kernel` (from `code_object`) that runs `case`.
pub fn dispatch_for<'a>(
    case: &Case,
    code_object: &'a [u8],
    kernel: &'a str,
    timeout: Duration,
) -> Dispatch<'a> {
    let q = case.lds_qwords();
    let mut buffers = vec![Vec::new(); 6];
    append_case(&mut buffers, case, q);
    Dispatch {
        code_object,
        kernel,
        groups: case.geometry.groups,
        block: case.geometry.lanes_per_group(),
        dynamic_lds: case.lds_bytes,
        buffers,
        args: conformance_args(q, case.rounds()),
        timeout,
    }
}

/// The scalar and buffer arguments of the ABI.
fn conformance_args(q: usize, rounds: usize) -> Vec<ArgValue> {
    let mut args = vec![
        ArgValue::Buffer(BUF_ADDR),
        ArgValue::Buffer(BUF_DATA),
        ArgValue::Buffer(BUF_ACTIVE),
        ArgValue::Buffer(BUF_LDS_INIT),
        ArgValue::Buffer(BUF_RET),
        ArgValue::Buffer(BUF_LDS_OUT),
        ArgValue::U32(q as u32),
    ];
    if rounds > 1 {
        args.push(ArgValue::U32(rounds as u32));
    }
    args
}

/// Append `case`'s slices to the six ABI buffers of a launch whose LDS
/// images are `q` qwords per workgroup (`q` at least the case's own: a
/// batched launch's images are as large as its largest case's). The
/// kernels index every buffer by the launch-wide lane `group * block + tid`
/// and the LDS images by `group * lds_qwords`, so a case appended after
/// others simply owns the next workgroups, with no kernel change. Its
/// `lds_out` poison is numbered as in a launch of its own
/// (`LDS_OUT_POISON ^ (g * own_q + i)`), so an image the kernel never
/// wrote reads back exactly as it would alone.
fn append_case(buffers: &mut [Vec<u8>], case: &Case, q: usize) {
    let own_q = case.lds_qwords();
    let groups = case.geometry.groups as usize;
    let rounds = case.rounds();
    let n = case.lanes.len();
    fn put32(b: &mut Vec<u8>, v: u32) {
        b.extend_from_slice(&v.to_le_bytes());
    }
    fn put64(b: &mut Vec<u8>, v: u64) {
        b.extend_from_slice(&v.to_le_bytes());
    }
    buffers[BUF_ADDR].reserve(n * 4);
    buffers[BUF_ACTIVE].reserve(n * 4);
    buffers[BUF_DATA].reserve(n * rounds * 8);
    buffers[BUF_RET].reserve(n * rounds * 8);
    for l in &case.lanes {
        put32(&mut buffers[BUF_ADDR], l.addr);
        put32(&mut buffers[BUF_ACTIVE], u32::from(l.active));
    }
    if rounds == 1 {
        for l in &case.lanes {
            put64(&mut buffers[BUF_DATA], l.data);
            put64(&mut buffers[BUF_RET], l.vdst_init);
        }
    } else {
        // Lane-major: lane i's round r at i * rounds + r.
        for i in 0..n {
            for r in 0..rounds {
                let (d, v) = case.round_input(r, i).unwrap_or((0, 0));
                put64(&mut buffers[BUF_DATA], d);
                put64(&mut buffers[BUF_RET], v);
            }
        }
    }
    let images = lds_images(case, groups, q);
    buffers[BUF_LDS_INIT].extend_from_slice(&images);
    let out = &mut buffers[BUF_LDS_OUT];
    out.reserve(groups * q * 8);
    for g in 0..groups {
        for i in 0..q {
            // The padding past the case's own image (never read back)
            // continues the numbering, so no two poison qwords are equal.
            let k = if i < own_q {
                g * own_q + i
            } else {
                groups * own_q + g * q + i
            };
            put64(out, LDS_OUT_POISON ^ k as u64);
        }
    }
}

#[cfg(test)]
fn read_u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

/// The observation in a completed launch's buffers.
pub fn observation(case: &Case, completion: &Completion) -> Result<Observation, BackendError> {
    let n = case.lanes.len();
    let q = case.lds_qwords();
    let groups = case.geometry.groups as usize;
    let rounds = case.rounds();
    check_lengths(&completion.buffers, n * rounds, groups * q)?;
    Ok(observation_at(case, &completion.buffers, 0, 0, q))
}

/// The launch returned `ret` and `lds_out` of the sizes it was given.
fn check_lengths(buffers: &[Vec<u8>], ret: usize, lds: usize) -> Result<(), BackendError> {
    for (i, want, what) in [(BUF_RET, ret, "ret"), (BUF_LDS_OUT, lds, "lds_out")] {
        let b = buffers.get(i).ok_or_else(|| {
            BackendError::Invalid(format!("the backend returned no `{what}` buffer (#{i})"))
        })?;
        if b.len() != want * 8 {
            return Err(BackendError::Invalid(format!(
                "the backend returned {} bytes for `{what}`, the launch had {}",
                b.len(),
                want * 8
            )));
        }
    }
    Ok(())
}

/// The qword at `index` of a buffer whose length `check_lengths` checked.
fn qword(b: &[u8], index: usize) -> u64 {
    b.get(index * 8..index * 8 + 8)
        .and_then(|c| c.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// `case`'s observation in a launch's buffers, the case owning the lanes
/// from `lane_base` and the workgroups from `group_base`, whose LDS images
/// are `q` qwords each (`append_case`'s layout).
fn observation_at(
    case: &Case,
    buffers: &[Vec<u8>],
    lane_base: usize,
    group_base: usize,
    q: usize,
) -> Observation {
    let n = case.lanes.len();
    let own_q = case.lds_qwords();
    let groups = case.geometry.groups as usize;
    let rounds = case.rounds();
    let ret_buf = buffers.get(BUF_RET).map_or(&[][..], Vec::as_slice);
    let lds_buf = buffers.get(BUF_LDS_OUT).map_or(&[][..], Vec::as_slice);
    // The buffer is lane-major; `Observation::ret` is round-major.
    let mut ret = vec![0; n * rounds];
    for i in 0..n {
        for r in 0..rounds {
            ret[r * n + i] = qword(ret_buf, (lane_base + i) * rounds + r);
        }
    }
    let lds_final = (0..groups)
        .map(|g| {
            (0..own_q)
                .map(|i| qword(lds_buf, (group_base + g) * q + i))
                .collect()
        })
        .collect();
    Observation { ret, lds_final }
}

/// Cases per launch on HIP unless `dsxor run --batch` says otherwise.
/// Policy (no source sizes it): 64 cases are a few hundred workgroups, a
/// fraction of a second on a GPU, and bring the default suite under one
/// launch per 8 cases (docs/src/internals/performance.md, "Launches per
/// case").
pub const DEFAULT_BATCH: usize = 64;

/// Plan positions `dsxor run` generates ahead to fill batched launches:
/// compatible cases need not be neighbours (the plan interleaves sizes,
/// offsets and rounds), so launches are filled from this many cases. What
/// a window holds at once is bounded apart from its length
/// (`suite::run::WINDOW_HELD_BYTES`, [`LAUNCH_BYTES_CAP`]); measured in
/// docs/src/internals/performance.md, "Launches per case" and "Memory".
pub const BATCH_WINDOW: usize = 256;

/// A batched launch's LDS images are as large as its largest case's, and
/// every workgroup copies its image in and out, so only cases of one size
/// class share a launch: LDS bytes rounded up to a power of two, at least
/// this (a launch then copies at most twice a case's own image, or this).
/// 8 KiB: most default-suite cases are 4-8 KiB; measured against 4 KiB in
/// docs/src/internals/performance.md, "Launches per case".
pub const LDS_CLASS_FLOOR: u32 = 8192;

/// What must agree between the cases of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchKey {
    pub wave: WaveSize,
    /// Picks the object (CU or WGP mode).
    pub mode: Mode,
    pub waves_per_group: u32,
    pub rounds: usize,
    /// Picks the kernel (shipped or patched).
    pub offset: u16,
    pub lds: LdsFit,
}

/// The dynamic LDS a case may be launched with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdsFit {
    /// Every active access is aligned and ends inside the case's own
    /// `lds_bytes`: a larger allocation changes nothing it does, so it may
    /// share a launch sized for the largest case of its class.
    Class(u32),
    /// Some access reaches past `lds_bytes` (into the allocation granule's
    /// slack, or out of range): the allocation decides what it sees, so it
    /// shares a launch only with cases of exactly this size.
    Exact(u32),
}

/// How `case` may share a launch; `None`: it runs alone. Alone are cases
/// that may fault (an active lane misaligned: MEMVIOL ends the whole
/// launch) and malformed cases (shapes that do not match the geometry,
/// which `model::validate_case` rejects with its own message).
pub fn batch_key(case: &Case) -> Option<BatchKey> {
    let g = &case.geometry;
    let rounds = case.rounds();
    let lanes = g.groups as usize * g.lanes_per_group() as usize;
    let q = case.lds_qwords();
    if g.groups == 0
        || case.lanes.len() != lanes
        || !case.lds_bytes.is_multiple_of(8)
        || case.lds_init.len() != g.groups as usize
        || case.lds_init.iter().any(|img| img.len() != q)
        || case
            .more_rounds
            .iter()
            .any(|r| r.data.len() != lanes || r.vdst_init.len() != lanes)
    {
        return None;
    }
    let mut contained = true;
    for l in case.lanes.iter().filter(|l| l.active) {
        let a = crate::model::calc_ds_addr16(l.addr, case.offset);
        if !a.is_multiple_of(8) {
            return None;
        }
        contained &= a + 8 <= u64::from(case.lds_bytes);
    }
    let lds = if contained {
        LdsFit::Class(
            case.lds_bytes
                .max(1)
                .next_power_of_two()
                .max(LDS_CLASS_FLOOR),
        )
    } else {
        LdsFit::Exact(case.lds_bytes)
    };
    Some(BatchKey {
        wave: g.wave_size,
        mode: g.mode,
        waves_per_group: g.waves_per_group,
        rounds,
        offset: case.offset,
        lds,
    })
}

/// Bytes of ABI buffers one launch allocates at most (what
/// [`dispatch_for_batch`] builds: per lane ADDR and EXEC, DATA and RET per
/// lane and round, LDS in and out per workgroup), unless a single case
/// needs more (it then runs alone). Policy (no source sizes it): the
/// buffers are copied to the device and back and, in a worker process,
/// travel the pipe both ways, so a launch's size bounds every process's
/// memory whatever the case mix (the largest default-suite batches of 64
/// were 13.6 MB of buffers; the largest case is about 0.6 MB). 4 MiB keeps
/// a worker through the software HIP runtime under 64 MiB and costs the
/// default suite 12 % more launches (0.095 to 0.106 per case on 24,000
/// cases); measured in docs/src/internals/performance.md, "Memory".
pub const LAUNCH_BYTES_CAP: usize = 4 << 20;

/// What a case adds to a launch's buffers (see [`LAUNCH_BYTES_CAP`]):
/// its per-lane bytes, its workgroups and its own LDS image (a launch's
/// images are all as large as its largest case's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShare {
    /// ADDR and EXEC (4 bytes each) per lane, DATA and RET (8 each) per
    /// lane and round.
    pub lane_bytes: usize,
    pub groups: usize,
    pub lds_qwords: usize,
}

impl LaunchShare {
    pub fn of(case: &Case) -> LaunchShare {
        let n = case.lanes.len();
        LaunchShare {
            lane_bytes: n * 8 + n * case.rounds() * 16,
            groups: case.geometry.groups as usize,
            lds_qwords: case.lds_qwords(),
        }
    }
}

/// A launch's buffer bytes: its cases' lane bytes plus LDS in and out for
/// every workgroup at the largest image.
fn launch_bytes(lane_bytes: usize, groups: usize, lds_qwords: usize) -> usize {
    lane_bytes.saturating_add(groups.saturating_mul(lds_qwords).saturating_mul(16))
}

/// Split `cases` into launches: cases with equal [`BatchKey`]s share one,
/// at most `cap` per launch and at most [`LAUNCH_BYTES_CAP`] of buffers
/// (a case that would pass it starts a new launch), each launch's cases in
/// the order given; launches in the order of their first case. A case
/// without a key, or a `cap` of 1, is a launch of its own.
pub fn launch_groups(cases: &[&Case], cap: usize) -> Vec<Vec<usize>> {
    let keyed: Vec<_> = cases
        .iter()
        .map(|c| {
            let key = if cap > 1 { batch_key(c) } else { None };
            (key, LaunchShare::of(c))
        })
        .collect();
    launch_groups_of(&keyed, cap)
}

/// [`launch_groups`] over each case's batch key and share alone (`None`:
/// it runs alone), for callers that do not hold every case at once.
pub fn launch_groups_of(cases: &[(Option<BatchKey>, LaunchShare)], cap: usize) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // The open (not yet full) launch of each key, and its share so far.
    let mut open: HashMap<BatchKey, (usize, LaunchShare)> = HashMap::new();
    for (i, &(key, share)) in cases.iter().enumerate() {
        let key = if cap > 1 { key } else { None };
        let joined = key.and_then(|k| open.get(&k).copied()).map(|(at, s)| {
            (
                at,
                LaunchShare {
                    lane_bytes: s.lane_bytes + share.lane_bytes,
                    groups: s.groups + share.groups,
                    lds_qwords: s.lds_qwords.max(share.lds_qwords),
                },
            )
        });
        match (key, joined) {
            (Some(k), Some((at, s)))
                if launch_bytes(s.lane_bytes, s.groups, s.lds_qwords) <= LAUNCH_BYTES_CAP =>
            {
                groups[at].push(i);
                if groups[at].len() >= cap {
                    open.remove(&k);
                } else {
                    open.insert(k, (at, s));
                }
            }
            _ => {
                if let Some(k) = key {
                    open.insert(k, (groups.len(), share));
                }
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// The one launch that runs `cases` (equal [`BatchKey`]s, in this order):
/// each case its own workgroups and buffer slices, every LDS image the
/// size of the largest, dynamic LDS that of the largest case. The launch's
/// watchdog allows `timeout` per case: a device that runs workgroups one
/// after another (an emulator) takes that much longer for a batch.
pub fn dispatch_for_batch<'a>(
    cases: &[&Case],
    code_object: &'a [u8],
    kernel: &'a str,
    timeout: Duration,
) -> Dispatch<'a> {
    let lds_bytes = cases.iter().map(|c| c.lds_bytes).max().unwrap_or(0);
    let q = lds_bytes as usize / 8;
    let mut buffers = vec![Vec::new(); 6];
    for c in cases {
        append_case(&mut buffers, c, q);
    }
    let first = cases.first();
    Dispatch {
        code_object,
        kernel,
        groups: cases.iter().map(|c| c.geometry.groups).sum(),
        block: first.map_or(0, |c| c.geometry.lanes_per_group()),
        dynamic_lds: lds_bytes,
        buffers,
        args: conformance_args(q, first.map_or(1, |c| c.rounds())),
        timeout: timeout.saturating_mul(cases.len().max(1) as u32),
    }
}

/// Every case's observation in a batched launch's buffers.
pub fn observations(
    cases: &[&Case],
    completion: &Completion,
) -> Result<Vec<Observation>, BackendError> {
    let q = cases.iter().map(|c| c.lds_qwords()).max().unwrap_or(0);
    let lanes: usize = cases.iter().map(|c| c.lanes.len() * c.rounds()).sum();
    let groups: usize = cases.iter().map(|c| c.geometry.groups as usize).sum();
    check_lengths(&completion.buffers, lanes, groups * q)?;
    let (mut lane_base, mut group_base) = (0, 0);
    Ok(cases
        .iter()
        .map(|c| {
            let o = observation_at(c, &completion.buffers, lane_base, group_base, q);
            lane_base += c.lanes.len();
            group_base += c.geometry.groups as usize;
            o
        })
        .collect())
}

/// What one batched launch gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BatchOutcome {
    /// It completed: every case's outcome, in order.
    Each(Vec<DeviceOutcome>),
    /// It faulted or timed out as a whole: no case is blamed; `run_cases`
    /// runs each alone.
    Whole(DeviceOutcome),
}

/// Run `cases` on `device`, cases that may share a launch sharing one (at
/// most `device.batch_cap()` per launch), and return each case's outcome,
/// in order: the same outcomes as running each alone.
///
/// Policy for a batched launch that faults or times out (or fails for the
/// environment): no case in it is blamed. Its cases run again one per
/// launch, in order, and each gets the outcome of its own launch, so a
/// fault is attributed to the case that causes it, exactly as without
/// batching, and a slow batch costs time, never a verdict.
pub fn run_cases(
    device: &mut dyn CaseDevice,
    cases: &[&Case],
) -> Vec<Result<DeviceOutcome, BackendError>> {
    let mut out: Vec<Option<Result<DeviceOutcome, BackendError>>> =
        (0..cases.len()).map(|_| None).collect();
    for group in launch_groups(cases, device.batch_cap()) {
        let members: Vec<&Case> = group.iter().map(|&i| cases[i]).collect();
        for (&i, o) in group.iter().zip(run_launch(device, &members)) {
            out[i] = Some(o);
        }
    }
    out.into_iter()
        .map(|o| o.unwrap_or_else(|| Err(BackendError::Environment("a case was not run".into()))))
        .collect()
}

/// Run one launch group of [`launch_groups`] (one case: its own launch;
/// more: one batched launch, rerun one per launch if it fails as a whole,
/// the policy of [`run_cases`]); each case's outcome, in order.
pub fn run_launch(
    device: &mut dyn CaseDevice,
    cases: &[&Case],
) -> Vec<Result<DeviceOutcome, BackendError>> {
    if let [case] = cases {
        return vec![device.run_case(case)];
    }
    match device.run_batch(cases) {
        Ok(BatchOutcome::Each(outcomes)) if outcomes.len() == cases.len() => {
            outcomes.into_iter().map(Ok).collect()
        }
        _ => cases.iter().map(|c| device.run_case(c)).collect(),
    }
}

/// What the device did with one case: the outcome of the case under test
/// (a fault or a timeout is judged, like values are).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum DeviceOutcome {
    Completed {
        observation: Observation,
        device_us: u64,
    },
    Fault {
        message: String,
    },
    Timeout {
        message: String,
    },
}

impl DeviceOutcome {
    pub fn name(&self) -> &'static str {
        match self {
            DeviceOutcome::Completed { .. } => "completed",
            DeviceOutcome::Fault { .. } => "fault",
            DeviceOutcome::Timeout { .. } => "timeout",
        }
    }
}

/// A code object holding the conformance kernels for one wave size.
#[derive(Clone, Debug)]
pub struct KernelObject {
    pub wave: WaveSize,
    /// The mode its conformance kernel's descriptor states
    /// (`CodeObject::mode_of`: COMPUTE_PGM_RSRC1.WGP_MODE).
    pub mode: Mode,
    pub bytes: Vec<u8>,
    /// `embedded:<file>` or the path it was read from.
    pub source: String,
    /// `source`, `prebuilt` or `file`.
    pub origin: String,
    pub compiler: Option<String>,
}

impl KernelObject {
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(&self.bytes))
    }
}

/// Which kernel ran a case, for repro files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelIdentity {
    pub kernel: String,
    pub wave: WaveSize,
    /// The object's mode (absent in repros of generator versions 1-2: WGP
    /// mode, the only one shipped then).
    #[serde(default)]
    pub mode: Mode,
    /// sha256 of the code object as launched (after patching, if patched).
    pub code_object_sha256: String,
    /// sha256 of the code object it came from.
    pub base_sha256: String,
    pub source: String,
    /// Set when the offset was patched into `dsxor_conformance_off0`.
    pub patched_offset: Option<u16>,
}

/// Offset-patched code objects a device keeps. The default suite patches a
/// fresh random offset for one case in 45, so an unbounded cache grew with
/// `--cases` (238 MB at 500,000 cases); re-patching an evicted one costs
/// one parse, and a repro's minimization reuses one offset throughout.
pub const PATCHED_CACHE: usize = 16;

/// One patched code object.
struct Patched {
    object: usize,
    /// The kernel patched (the one-round or the rounds kernel at offset 0).
    kernel: String,
    offset: u16,
    bytes: Vec<u8>,
    sha256: String,
}

/// Makes a code object whose `_off0` kernel carries another offset
/// (`codeobj::patch_ds_offset` in the real pipeline).
pub type PatchOffset = fn(&[u8], &str, u16) -> Result<Vec<u8>, String>;

/// Lists the kernel symbols of a code object.
pub type ListKernels = fn(&[u8]) -> Result<Vec<String>, String>;

/// `ListKernels` over a real code object (`codeobj`).
pub fn codeobj_kernels(bytes: &[u8]) -> Result<Vec<String>, String> {
    crate::codeobj::CodeObject::parse(bytes)
        .map(|co| co.kernels.into_iter().map(|k| k.name).collect())
        .map_err(|e| e.to_string())
}

/// `PatchOffset` over a real code object (`codeobj::patch_ds_offset`).
pub fn codeobj_patch(bytes: &[u8], kernel: &str, offset: u16) -> Result<Vec<u8>, String> {
    crate::codeobj::patch_ds_offset(bytes, kernel, offset).map_err(|e| e.to_string())
}

/// The embedded conformance objects for a processor (`gfx1100`), one per
/// (wave size, mode) built for it, each object's mode read from its
/// descriptor (the build flag if it does not parse, which build.rs's own
/// tests rule out).
pub fn embedded_objects(target: &str) -> Vec<KernelObject> {
    [WaveSize::Wave32, WaveSize::Wave64]
        .into_iter()
        .flat_map(|w| crate::codeobj::embedded_for(target, w))
        .map(|o| KernelObject {
            wave: o.wave,
            mode: o
                .mode()
                .unwrap_or(if o.cumode { Mode::Cu } else { Mode::Wgp }),
            bytes: o.bytes.to_vec(),
            source: format!("embedded:{}", o.file_name),
            origin: o.origin.name().to_string(),
            compiler: Some(o.compiler.to_string()),
        })
        .collect()
}

/// A user's code object (`--code-object FILE`: plain ELF or offload
/// bundle, the entry for `target` taken): its wave size is that of its
/// `dsxor_conformance_off0` kernel. Unless `allow_mutant`, every
/// conformance kernel must issue `ds_xor_rtn_b64` at its site label.
pub fn file_object(
    path: &std::path::Path,
    target: &str,
    allow_mutant: bool,
) -> Result<KernelObject, String> {
    let data = crate::codeobj::read_file(path).map_err(|e| e.to_string())?;
    let target_id =
        crate::codeobj::TargetId::parse(target).map_err(|e| format!("target `{target}`: {e}"))?;
    let co = crate::codeobj::CodeObject::parse_for_target(&data, &target_id)
        .or_else(|_| crate::codeobj::CodeObject::parse(&data))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let base = kernel_name(0);
    let k = co
        .kernel(&base)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let wave = WaveSize::from_lanes(co.wave_size(k)).ok_or_else(|| {
        format!(
            "{}: `{base}` has wave size {}",
            path.display(),
            co.wave_size(k)
        )
    })?;
    // Refused before any case runs: a conformance kernel that does not
    // issue ds_xor_rtn_b64 at its site would fail every case (and then stop
    // the run at the first offset patch) for a reason that is not the
    // device's. A deliberate mutant (`--allow-mutant`) runs: the checks
    // are what it tests.
    for k in co
        .kernels
        .iter()
        .filter(|k| !allow_mutant && k.name.starts_with(KERNEL_PREFIX))
    {
        crate::codeobj::find_ds_xor_site(&co, &k.name)
            .map_err(|e| format!("{}: not a conformance code object: {e}", path.display()))?;
    }
    Ok(KernelObject {
        wave,
        mode: co.mode_of(&base).unwrap_or_default(),
        bytes: co.elf_bytes().to_vec(),
        source: path.display().to_string(),
        origin: "file".into(),
        compiler: None,
    })
}

/// A launch the device says it ran in another mode than the case asked
/// for is refused (`Invalid`): the object choice went wrong, and the
/// case's verdict would name a mode it never ran in. A device that cannot
/// tell (`wgp_mode` None: HIP) is trusted with the object it was given.
fn ran_in_mode(done: &Completion, mode: Mode, kernel: &str) -> Result<(), BackendError> {
    match done.wgp_mode {
        Some(wgp) if wgp != (mode == Mode::Wgp) => Err(BackendError::Invalid(format!(
            "the device ran `{kernel}` with COMPUTE_PGM_RSRC1.WGP_MODE = {}, but the case asks for {mode} mode",
            u8::from(wgp)
        ))),
        _ => Ok(()),
    }
}

/// Something that runs conformance cases: a backend plus the kernels.
pub trait CaseDevice {
    fn info(&self) -> &DeviceInfo;
    /// Run one case. `Err` only for environment or dispatch trouble
    /// (`Environment`, `Invalid`); faults and timeouts are outcomes.
    fn run_case(&mut self, case: &Case) -> Result<DeviceOutcome, BackendError>;
    /// The kernel that runs (or ran) `case`.
    fn kernel_identity(&mut self, case: &Case) -> Result<KernelIdentity, BackendError>;
    /// The code objects in use.
    fn kernel_objects(&self) -> &[KernelObject];
    /// Cases [`run_cases`] puts in one launch at most (1: one per launch).
    fn batch_cap(&self) -> usize {
        1
    }
    /// Run `cases`, which share a [`BatchKey`], in one launch. `Err` and
    /// [`BatchOutcome::Whole`] blame no case (see [`run_cases`]). By
    /// default, one launch per case.
    fn run_batch(&mut self, cases: &[&Case]) -> Result<BatchOutcome, BackendError> {
        cases
            .iter()
            .map(|c| self.run_case(c))
            .collect::<Result<Vec<_>, _>>()
            .map(BatchOutcome::Each)
    }
}

/// The conformance kernels on a `Backend`.
pub struct ConformanceDevice<B: Backend> {
    backend: B,
    objects: Vec<KernelObject>,
    list_kernels: ListKernels,
    patch: PatchOffset,
    /// Kernel names per object (index into `objects`).
    kernels: HashMap<usize, Vec<String>>,
    /// Patched objects by (object, offset), with their sha256, most
    /// recently used first, at most [`PATCHED_CACHE`].
    patched: Vec<Patched>,
    timeout: Duration,
    /// [`CaseDevice::batch_cap`].
    batch: usize,
}

impl<B: Backend> ConformanceDevice<B> {
    pub fn new(
        backend: B,
        objects: Vec<KernelObject>,
        list_kernels: ListKernels,
        patch: PatchOffset,
        timeout: Duration,
    ) -> ConformanceDevice<B> {
        ConformanceDevice {
            backend,
            objects,
            list_kernels,
            patch,
            kernels: HashMap::new(),
            patched: Vec::new(),
            timeout,
            batch: 1,
        }
    }

    /// Up to `cap` cases per launch in [`run_cases`] (at least 1).
    pub fn with_batch(mut self, cap: usize) -> ConformanceDevice<B> {
        self.batch = cap.max(1);
        self
    }

    /// With the real code-object hooks.
    pub fn with_codeobj(
        backend: B,
        objects: Vec<KernelObject>,
        timeout: Duration,
    ) -> ConformanceDevice<B> {
        Self::new(backend, objects, codeobj_kernels, codeobj_patch, timeout)
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    fn object_index(&self, wave: WaveSize, mode: Mode) -> Result<usize, BackendError> {
        self.objects
            .iter()
            .position(|o| o.wave == wave && o.mode == mode)
            .ok_or_else(|| {
                BackendError::Environment(format!(
                    "no conformance code object for wave{} in {mode} mode on {} ({})",
                    wave.lanes(),
                    self.backend.info().target_id,
                    self.backend.info().name
                ))
            })
    }

    /// (object index, kernel name, patched offset) for a case.
    fn choose(&mut self, case: &Case) -> Result<(usize, String, Option<u16>), BackendError> {
        let i = self.object_index(case.geometry.wave_size, case.geometry.mode)?;
        if !self.kernels.contains_key(&i) {
            let names = (self.list_kernels)(&self.objects[i].bytes).map_err(|e| {
                BackendError::Invalid(format!("code object {}: {e}", self.objects[i].source))
            })?;
            self.kernels.insert(i, names);
        }
        let names = self.kernels.get(&i).map(Vec::as_slice).unwrap_or(&[]);
        let rounds = case.rounds();
        let shipped = kernel_name_for(case.offset, rounds);
        if names.contains(&shipped) {
            return Ok((i, shipped, None));
        }
        let base = kernel_name_for(0, rounds);
        if !names.contains(&base) {
            return Err(BackendError::Invalid(format!(
                "code object {} has neither `{shipped}` nor `{base}` to patch{}",
                self.objects[i].source,
                if rounds > 1 {
                    format!(" (a case of {rounds} rounds runs on the rounds kernels of kernels/dsxor.hip)")
                } else {
                    String::new()
                }
            )));
        }
        match self
            .patched
            .iter()
            .position(|p| p.object == i && p.offset == case.offset && p.kernel == base)
        {
            Some(0) => {}
            Some(at) => {
                let p = self.patched.remove(at);
                self.patched.insert(0, p);
            }
            None => {
                let bytes =
                    (self.patch)(&self.objects[i].bytes, &base, case.offset).map_err(|e| {
                        BackendError::Invalid(format!(
                            "patching offset {} into `{base}` of {}: {e}",
                            case.offset, self.objects[i].source
                        ))
                    })?;
                let sha256 = hex::encode(Sha256::digest(&bytes));
                self.patched.truncate(PATCHED_CACHE - 1);
                self.patched.insert(
                    0,
                    Patched {
                        object: i,
                        kernel: base.clone(),
                        offset: case.offset,
                        bytes,
                        sha256,
                    },
                );
            }
        }
        Ok((i, base, Some(case.offset)))
    }
}

/// The bytes of the object `choose` picked.
fn chosen_bytes<'a>(
    objects: &'a [KernelObject],
    patched: &'a [Patched],
    i: usize,
    kernel: &str,
    offset: Option<u16>,
) -> &'a [u8] {
    match offset {
        Some(off) => patched
            .iter()
            .find(|p| p.object == i && p.offset == off && p.kernel == kernel)
            .map_or(&[][..], |p| p.bytes.as_slice()),
        None => objects.get(i).map_or(&[][..], |o| o.bytes.as_slice()),
    }
}

impl<B: Backend> CaseDevice for ConformanceDevice<B> {
    fn info(&self) -> &DeviceInfo {
        self.backend.info()
    }

    fn run_case(&mut self, case: &Case) -> Result<DeviceOutcome, BackendError> {
        let (i, kernel, patched) = self.choose(case)?;
        let bytes = chosen_bytes(&self.objects, &self.patched, i, &kernel, patched);
        let dispatch = dispatch_for(case, bytes, &kernel, self.timeout);
        match self.backend.dispatch(&dispatch) {
            Ok(done) => Ok(DeviceOutcome::Completed {
                observation: {
                    ran_in_mode(&done, case.geometry.mode, &kernel)?;
                    observation(case, &done)?
                },
                device_us: done.elapsed.as_micros() as u64,
            }),
            Err(e @ BackendError::Fault(_)) => Ok(DeviceOutcome::Fault {
                message: e.to_string(),
            }),
            Err(e @ BackendError::Timeout { .. }) => Ok(DeviceOutcome::Timeout {
                message: e.to_string(),
            }),
            Err(e) => Err(e),
        }
    }

    fn kernel_identity(&mut self, case: &Case) -> Result<KernelIdentity, BackendError> {
        let (i, kernel, patched) = self.choose(case)?;
        let base_sha256 = self.objects[i].sha256();
        let code_object_sha256 = match patched {
            Some(off) => self
                .patched
                .iter()
                .find(|p| p.object == i && p.offset == off && p.kernel == kernel)
                .map(|p| p.sha256.clone())
                .unwrap_or_default(),
            None => base_sha256.clone(),
        };
        Ok(KernelIdentity {
            kernel,
            wave: case.geometry.wave_size,
            mode: self.objects[i].mode,
            code_object_sha256,
            base_sha256,
            source: self.objects[i].source.clone(),
            patched_offset: patched,
        })
    }

    fn kernel_objects(&self) -> &[KernelObject] {
        &self.objects
    }

    fn batch_cap(&self) -> usize {
        self.batch
    }

    fn run_batch(&mut self, cases: &[&Case]) -> Result<BatchOutcome, BackendError> {
        let Some(first) = cases.first() else {
            return Ok(BatchOutcome::Each(Vec::new()));
        };
        let key = batch_key(first);
        if key.is_none() || cases.iter().any(|c| batch_key(c) != key) {
            return Err(BackendError::Invalid(
                "a batched launch needs cases of one batch key".into(),
            ));
        }
        let (i, kernel, patched) = self.choose(first)?;
        let bytes = chosen_bytes(&self.objects, &self.patched, i, &kernel, patched);
        let dispatch = dispatch_for_batch(cases, bytes, &kernel, self.timeout);
        match self.backend.dispatch(&dispatch) {
            Ok(done) => {
                ran_in_mode(&done, first.geometry.mode, &kernel)?;
                // Each case's share of the launch's device time.
                let device_us = (done.elapsed.as_micros() / cases.len() as u128) as u64;
                Ok(BatchOutcome::Each(
                    observations(cases, &done)?
                        .into_iter()
                        .map(|observation| DeviceOutcome::Completed {
                            observation,
                            device_us,
                        })
                        .collect(),
                ))
            }
            Err(e @ BackendError::Fault(_)) => Ok(BatchOutcome::Whole(DeviceOutcome::Fault {
                message: e.to_string(),
            })),
            Err(e @ BackendError::Timeout { .. }) => {
                Ok(BatchOutcome::Whole(DeviceOutcome::Timeout {
                    message: e.to_string(),
                }))
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Geometry, LaneInput, WaveSize};

    fn case() -> Case {
        let geometry = Geometry {
            wave_size: WaveSize::Wave32,
            waves_per_group: 1,
            groups: 2,
            mode: crate::case::Mode::Wgp,
        };
        Case {
            pattern: "t".into(),
            index: 0,
            geometry,
            lds_bytes: 16,
            offset: 8,
            lds_init: vec![vec![1, 2], vec![3, 4]],
            lanes: (0..64)
                .map(|i| LaneInput {
                    addr: i * 8,
                    data: u64::from(i) << 32,
                    active: i % 2 == 0,
                    vdst_init: 0xffff_0000 + u64::from(i),
                })
                .collect(),
            more_rounds: Vec::new(),
        }
    }

    #[test]
    fn buffers_follow_the_abi() {
        let c = case();
        let d = dispatch_for(&c, b"obj", "k", Duration::from_secs(1));
        assert_eq!((d.groups, d.block, d.dynamic_lds), (2, 32, 16));
        assert_eq!(d.buffers[BUF_ADDR].len(), 64 * 4);
        assert_eq!(&d.buffers[BUF_ADDR][4..8], &8u32.to_le_bytes());
        assert_eq!(&d.buffers[BUF_DATA][8..16], &(1u64 << 32).to_le_bytes());
        assert_eq!(&d.buffers[BUF_ACTIVE][4..8], &0u32.to_le_bytes());
        assert_eq!(read_u64s(&d.buffers[BUF_LDS_INIT]), vec![1, 2, 3, 4]);
        assert_eq!(read_u64s(&d.buffers[BUF_RET])[3], 0xffff_0003);
        let poison = read_u64s(&d.buffers[BUF_LDS_OUT]);
        assert_eq!(poison.len(), 4);
        assert!(poison.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(d.args.last(), Some(&ArgValue::U32(2)));
        assert_eq!(kernel_name(4096), "dsxor_conformance_off4096");
    }

    #[test]
    fn observation_reads_back_and_rejects_short_buffers() {
        let c = case();
        let d = dispatch_for(&c, b"obj", "k", Duration::from_secs(1));
        let mut buffers = d.buffers.clone();
        buffers[BUF_LDS_OUT] = u64s([9, 8, 7, 6].into_iter());
        let done = Completion {
            buffers: buffers.clone(),
            elapsed: Duration::ZERO,
            wgp_mode: None,
        };
        let o = observation(&c, &done).unwrap();
        assert_eq!(o.lds_final, vec![vec![9, 8], vec![7, 6]]);
        assert_eq!(o.ret.len(), 64);
        buffers[BUF_RET].pop();
        let short = Completion {
            buffers,
            elapsed: Duration::ZERO,
            wgp_mode: None,
        };
        assert!(matches!(
            observation(&c, &short),
            Err(BackendError::Invalid(_))
        ));
    }

    /// A backend that counts launches and, optionally, faults every launch
    /// whose `ret` buffer holds `poison` (a VDST-before value only the
    /// culprit case has: a case that "faults the device"), around the
    /// software device.
    struct Counting {
        inner: crate::backend::emu::EmuBackend,
        launches: usize,
        poison: Option<u64>,
    }

    impl Backend for Counting {
        fn info(&self) -> &DeviceInfo {
            self.inner.info()
        }
        fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
            self.launches += 1;
            if let Some(p) = self.poison {
                if d.buffers[BUF_RET]
                    .chunks_exact(8)
                    .any(|c| c == p.to_le_bytes())
                {
                    return Err(BackendError::Fault("poisoned".into()));
                }
            }
            self.inner.dispatch(d)
        }
    }

    fn device(poison: Option<u64>, batch: usize) -> ConformanceDevice<Counting> {
        let inner = crate::backend::emu::EmuBackend::new(crate::emu::EmuConfig {
            threads: Some(1),
            ..crate::emu::EmuConfig::default()
        })
        .unwrap();
        ConformanceDevice::with_codeobj(
            Counting {
                inner,
                launches: 0,
                poison,
            },
            embedded_objects("gfx1100"),
            Duration::from_secs(10),
        )
        .with_batch(batch)
    }

    /// The first `n` cases of the default suite (seed 1): 4000 cases, so
    /// the first cells hold 40 cases each, as 2000 did before modes
    /// doubled the cells.
    fn suite_cases(n: u64) -> Vec<Case> {
        let spec =
            crate::gen::SuiteSpec::new(1, 4000, &[], &[], &[], crate::gen::suite::Shard::WHOLE)
                .unwrap();
        spec.plan_iter()
            .take(n as usize)
            .map(|p| spec.generate(p).case)
            .collect()
    }

    fn completed(o: &Result<DeviceOutcome, BackendError>) -> &Observation {
        match o {
            Ok(DeviceOutcome::Completed { observation, .. }) => observation,
            other => panic!("{other:?}"),
        }
    }

    /// Batched, every case sees exactly what it sees alone, in far fewer
    /// launches. (Run with `with_batch(1)` both ways, the launch count
    /// assertion fails: it is what batching buys.)
    #[test]
    fn a_batched_launch_gives_each_case_its_own_outcome() {
        let cases = suite_cases(160);
        let refs: Vec<&Case> = cases.iter().collect();
        let mut alone = device(None, 1);
        let mut batched = device(None, DEFAULT_BATCH);
        let a = run_cases(&mut alone, &refs);
        let b = run_cases(&mut batched, &refs);
        assert_eq!(alone.backend().launches, cases.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(completed(x), completed(y));
        }
        let launches = batched.backend().launches;
        // 45 of 160 at this writing (the first cells' mix of sizes).
        assert!(
            launches * 3 <= cases.len(),
            "{launches} launches for {} cases",
            cases.len()
        );
    }

    /// A batch that faults blames none of its cases: they run again one per
    /// launch, and only the case that faults alone gets the fault.
    #[test]
    fn a_faulting_batch_is_rerun_one_case_per_launch() {
        let mut cases = suite_cases(40);
        // A case in a launch group of several, marked by a VDST-before
        // value no other case has.
        let groups = launch_groups(&cases.iter().collect::<Vec<_>>(), DEFAULT_BATCH);
        let group = groups
            .iter()
            .find(|g| g.len() > 2)
            .expect("a batch")
            .clone();
        let culprit = group[1];
        let poison = 0x5eed_f00d_dead_beef;
        cases[culprit].lanes[0].vdst_init = poison;
        let refs: Vec<&Case> = cases.iter().collect();
        assert_eq!(launch_groups(&refs, DEFAULT_BATCH), groups);
        let mut d = device(Some(poison), DEFAULT_BATCH);
        let out = run_cases(&mut d, &refs);
        for (i, o) in out.iter().enumerate() {
            match o {
                Ok(DeviceOutcome::Fault { message }) => {
                    assert_eq!(i, culprit, "{message}");
                }
                Ok(DeviceOutcome::Completed { .. }) => assert_ne!(i, culprit),
                other => panic!("case {i}: {other:?}"),
            }
        }
        // The group's launch, then each of its cases again.
        assert_eq!(d.backend().launches, groups.len() + group.len());
    }

    #[test]
    fn launches_stay_under_the_byte_cap_whatever_the_cases() {
        // A large contained case: 2 groups of 32 lanes, 16 rounds, 32 KiB
        // of LDS each (LDS in and out: 128 KiB a case), 64 of one key.
        let mut big = case();
        big.offset = 0;
        big.lds_bytes = 32 << 10;
        big.lds_init = vec![vec![5; 4096]; 2];
        for l in &mut big.lanes {
            l.addr %= 256;
        }
        big.more_rounds = (1..16)
            .map(|_| crate::case::Round {
                data: vec![3; 64],
                vdst_init: vec![4; 64],
            })
            .collect();
        let cases = vec![big; 64];
        let refs: Vec<&Case> = cases.iter().collect();
        let groups = launch_groups(&refs, 64);
        assert!(groups.len() > 1, "{groups:?}");
        for g in &groups {
            let members: Vec<&Case> = g.iter().map(|&i| refs[i]).collect();
            let d = dispatch_for_batch(&members, b"", "k", Duration::from_secs(1));
            let bytes: usize = d.buffers.iter().map(Vec::len).sum();
            // The cap counts exactly the buffers a launch allocates.
            let s = members
                .iter()
                .map(|c| LaunchShare::of(c))
                .fold((0, 0, 0), |(l, g, q), s| {
                    (l + s.lane_bytes, g + s.groups, q.max(s.lds_qwords))
                });
            assert_eq!(bytes, launch_bytes(s.0, s.1, s.2));
            assert!(bytes <= LAUNCH_BYTES_CAP, "{bytes}");
        }
        // Full launches, in order, every case once.
        assert_eq!(
            groups[0].len(),
            LAUNCH_BYTES_CAP / launch_bytes(LaunchShare::of(refs[0]).lane_bytes, 2, 4096)
        );
        let flat: Vec<usize> = groups.concat();
        assert_eq!(flat, (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn launch_groups_keep_incompatible_and_faulting_cases_apart() {
        let mut a = case(); // 16 bytes of LDS, lanes at 0..=504: out of range
        a.geometry.groups = 2;
        let mut contained = a.clone();
        contained.lds_bytes = 512;
        contained.lds_init = vec![vec![0; 64]; 2];
        for l in &mut contained.lanes {
            l.addr %= 256;
        }
        contained.offset = 0;
        let mut misaligned = contained.clone();
        misaligned.lanes[0].addr = 4;
        let mut other_size = contained.clone();
        other_size.lds_bytes = 16384; // another class
        other_size.lds_init = vec![vec![0; 2048]; 2];
        assert_eq!(batch_key(&a).map(|k| k.lds), Some(LdsFit::Exact(16)));
        assert_eq!(
            batch_key(&contained).map(|k| k.lds),
            Some(LdsFit::Class(LDS_CLASS_FLOOR))
        );
        assert_eq!(batch_key(&misaligned), None);
        let cases = [
            &contained,
            &a,
            &contained,
            &misaligned,
            &other_size,
            &contained,
            &a,
        ];
        assert_eq!(
            launch_groups(&cases, 64),
            vec![vec![0, 2, 5], vec![1, 6], vec![3], vec![4]]
        );
        assert_eq!(
            launch_groups(&cases, 2),
            vec![vec![0, 2], vec![1, 6], vec![3], vec![4], vec![5]]
        );
        assert_eq!(launch_groups(&cases, 1).len(), cases.len());
    }

    /// Each case of a batch owns its workgroups and slices; its poison is
    /// numbered as alone; LDS images are as large as the largest.
    #[test]
    fn batched_buffers_follow_the_abi_per_case() {
        let mut big = case();
        big.lds_bytes = 32;
        big.lds_init = vec![vec![5, 6, 7, 8], vec![9, 10, 11, 12]];
        let small = case();
        let d = dispatch_for_batch(&[&small, &big], b"obj", "k", Duration::from_secs(1));
        assert_eq!((d.groups, d.block, d.dynamic_lds), (4, 32, 32));
        assert_eq!(d.timeout, Duration::from_secs(2));
        assert_eq!(d.args[6], ArgValue::U32(4));
        assert_eq!(
            read_u64s(&d.buffers[BUF_LDS_INIT]),
            vec![1, 2, 0, 0, 3, 4, 0, 0, 5, 6, 7, 8, 9, 10, 11, 12]
        );
        let poison = read_u64s(&d.buffers[BUF_LDS_OUT]);
        let alone =
            read_u64s(&dispatch_for(&small, b"o", "k", Duration::ZERO).buffers[BUF_LDS_OUT]);
        assert_eq!(&poison[..2], &alone[..2]);
        assert_eq!(&poison[4..6], &alone[2..4]);
        let big_alone =
            read_u64s(&dispatch_for(&big, b"o", "k", Duration::ZERO).buffers[BUF_LDS_OUT]);
        assert_eq!(&poison[8..], &big_alone[..]);
        assert_eq!(
            &d.buffers[BUF_ADDR][64 * 4 + 4..64 * 4 + 8],
            &8u32.to_le_bytes()
        );
        // Read back: each case its own slices.
        let mut buffers = d.buffers.clone();
        buffers[BUF_LDS_OUT] = u64s((0..16u32).map(u64::from));
        let done = Completion {
            buffers,
            elapsed: Duration::ZERO,
            wgp_mode: None,
        };
        let o = observations(&[&small, &big], &done).unwrap();
        assert_eq!(o[0].lds_final, vec![vec![0, 1], vec![4, 5]]);
        assert_eq!(
            o[1].lds_final,
            vec![vec![8, 9, 10, 11], vec![12, 13, 14, 15]]
        );
        assert_eq!(o[1].ret[3], 0xffff_0003);
    }
}
