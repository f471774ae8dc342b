//! The kernel ABI of the conformance kernels, host side: a case (or a
//! batch of cases) as the buffers and arguments of one launch, and the
//! observations in a completed launch's buffers. The ABI itself (argument
//! order, kernarg layout, what the kernels do with each buffer) is the
//! book's page `docs/src/internals/kernel-abi.md`:
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
//!
//! A case with background traffic (`Case::traffic`) runs on
//! `dsxor_conformance_traffic_off<N>`, which always takes `rounds` and two
//! more buffers: `ctl` (per lane, bit 31 the traffic role, bits 15:0 the
//! spin) and `verdict` (per lane, the count of its traffic loads that did
//! not return its own store and the first such value; poisoned before the
//! launch).

use std::time::Duration;

use crate::backend::{ArgValue, BackendError, Completion, Dispatch, ReadBack};
use crate::case::{Case, LaneInput, Observation, Round};

/// Buffer order of the ABI.
pub const BUF_ADDR: usize = 0;
pub const BUF_DATA: usize = 1;
pub const BUF_ACTIVE: usize = 2;
pub const BUF_LDS_INIT: usize = 3;
pub const BUF_RET: usize = 4;
pub const BUF_LDS_OUT: usize = 5;
/// The traffic kernels' two more buffers.
pub const BUF_CTL: usize = 6;
pub const BUF_VERDICT: usize = 7;

/// The buffers the host reads after a launch (`observation_at`); the
/// others are inputs the kernels only read.
pub const READ_BACK: ReadBack = ReadBack::Only(&[BUF_RET, BUF_LDS_OUT]);
/// The same for a launch of the traffic kernels: their verdicts too.
pub const TRAFFIC_READ_BACK: ReadBack = ReadBack::Only(&[BUF_RET, BUF_LDS_OUT, BUF_VERDICT]);

/// Kernel symbol prefix; the shipped variants append their offset.
pub const KERNEL_PREFIX: &str = "dsxor_conformance_off";

/// The same for the kernels that run several rounds per launch
/// (kernels/dsxor.hip "Conformance kernels with rounds"): `data` and `ret`
/// hold `rounds` qwords per lane, lane-major, and an eighth argument
/// `rounds` follows `lds_qwords`.
pub const ROUNDS_KERNEL_PREFIX: &str = "dsxor_conformance_rounds_off";

/// The kernels with background LDS traffic and a spin before the atomic
/// (kernels/dsxor.hip "Conformance kernels with background LDS traffic"):
/// `rounds` (any, 1 included) follows `lds_qwords`, then `ctl` and
/// `verdict`. Shipped at the offsets below only: offset patching rewrites
/// the atomic, not the traffic's loads and stores.
pub const TRAFFIC_KERNEL_PREFIX: &str = "dsxor_conformance_traffic_off";

/// The offsets the traffic kernels are shipped at.
pub const TRAFFIC_OFFSETS: [u16; 4] = [0, 8, 4096, 65528];

/// `ctl` bit 31: the lane runs traffic instead of the atomic.
pub const CTL_TRAFFIC: u32 = 1 << 31;

/// What `verdict` holds before the launch: qword `i` is
/// `VERDICT_POISON ^ i`, so a lane that never wrote its verdict shows a
/// nonzero count.
pub const VERDICT_POISON: u64 = 0x7afe_c0de_7afe_c0de;

/// The traffic kernel for a case at `offset`.
pub fn traffic_kernel_name(offset: u16) -> String {
    format!("{TRAFFIC_KERNEL_PREFIX}{offset}")
}

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

/// Little-endian bytes of `values`, written straight into one allocation
/// (an iterator of `to_le_bytes` arrays flattened costs several times more).
pub(super) fn u64s(values: impl ExactSizeIterator<Item = u64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Append the LDS images of every group, `q` qwords each, back to back.
fn put_lds_images(out: &mut Vec<u8>, case: &Case, groups: usize, q: usize) {
    for g in 0..groups {
        // Missing qwords (a malformed case) read as 0 rather than panic;
        // `model::validate_case` rejects such cases before they get here.
        let img = case.lds_init.get(g).map_or(&[][..], Vec::as_slice);
        put_u64s(out, q, img.iter().take(q).copied());
    }
}

/// A staging allocation up to this size is kept whatever the launch needs.
const STAGING_KEEP_BYTES: usize = 256 << 10;
/// A staging allocation over [`STAGING_KEEP_BYTES`] is kept while a launch
/// needs more than 1/`STAGING_SLACK` of it.
const STAGING_SLACK: usize = 4;

/// The six ABI buffers, emptied, with room for `cases` in one launch whose
/// LDS images are `q` qwords each, so appending never reallocates
/// (regrowing the large LDS buffers page-faulted anew for every launch).
/// `staging` is an earlier launch's buffers (or none): their allocations
/// are reused, never their contents, as every buffer starts empty and
/// `append_case` writes each byte of the launch. An allocation more than
/// [`STAGING_SLACK`] times what this launch needs, and over
/// [`STAGING_KEEP_BYTES`], is given back: one large case (a stress case's
/// LDS images) would otherwise pin its size for the rest of the run.
fn buffers_for(cases: &[&Case], q: usize, mut staging: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let lanes: usize = cases.iter().map(|c| c.lanes.len()).sum();
    let lane_rounds: usize = cases.iter().map(|c| c.lanes.len() * c.rounds()).sum();
    let groups: usize = cases.iter().map(|c| c.geometry.groups as usize).sum();
    let traffic = cases.first().is_some_and(|c| c.traffic.is_some());
    staging.resize_with(if traffic { 8 } else { 6 }, Vec::new);
    let mut buffers = staging;
    let extra = if traffic {
        vec![(BUF_CTL, lanes * 4), (BUF_VERDICT, lanes * 16)]
    } else {
        Vec::new()
    };
    for (i, bytes) in [
        (BUF_ADDR, lanes * 4),
        (BUF_DATA, lane_rounds * 8),
        (BUF_ACTIVE, lanes * 4),
        (BUF_LDS_INIT, groups * q * 8),
        (BUF_RET, lane_rounds * 8),
        (BUF_LDS_OUT, groups * q * 8),
    ]
    .into_iter()
    .chain(extra)
    {
        let b = &mut buffers[i];
        if b.capacity() > STAGING_KEEP_BYTES && b.capacity() / STAGING_SLACK > bytes {
            *b = Vec::new();
        }
        b.clear();
        b.reserve_exact(bytes);
    }
    buffers
}

/// The launch of `kernel` (from `code_object`) that runs `case`.
pub fn dispatch_for<'a>(
    case: &Case,
    code_object: &'a [u8],
    kernel: &'a str,
    timeout: Duration,
) -> Dispatch<'a> {
    dispatch_for_in(Vec::new(), case, code_object, kernel, timeout)
}

/// [`dispatch_for`] with its buffers in `staging`'s allocations (an
/// earlier launch's `Dispatch::buffers`; see `buffers_for`).
pub fn dispatch_for_in<'a>(
    staging: Vec<Vec<u8>>,
    case: &Case,
    code_object: &'a [u8],
    kernel: &'a str,
    timeout: Duration,
) -> Dispatch<'a> {
    let q = case.lds_qwords();
    let mut buffers = buffers_for(&[case], q, staging);
    append_case(&mut buffers, case, q);
    Dispatch {
        code_object,
        kernel,
        groups: case.geometry.groups,
        block: case.geometry.lanes_per_group(),
        dynamic_lds: case.lds_bytes,
        buffers,
        args: conformance_args(q, case.rounds(), case.traffic.is_some()),
        timeout,
        read_back: read_back(case.traffic.is_some()),
    }
}

/// What a launch reads back.
fn read_back(traffic: bool) -> ReadBack {
    if traffic {
        TRAFFIC_READ_BACK
    } else {
        READ_BACK
    }
}

/// The scalar and buffer arguments of the ABI.
fn conformance_args(q: usize, rounds: usize, traffic: bool) -> Vec<ArgValue> {
    let mut args = vec![
        ArgValue::Buffer(BUF_ADDR),
        ArgValue::Buffer(BUF_DATA),
        ArgValue::Buffer(BUF_ACTIVE),
        ArgValue::Buffer(BUF_LDS_INIT),
        ArgValue::Buffer(BUF_RET),
        ArgValue::Buffer(BUF_LDS_OUT),
        ArgValue::U32(q as u32),
    ];
    if traffic {
        args.extend([
            ArgValue::U32(rounds as u32),
            ArgValue::Buffer(BUF_CTL),
            ArgValue::Buffer(BUF_VERDICT),
        ]);
    } else if rounds > 1 {
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
    let n = case.lanes.len();
    put_u32s(&mut buffers[BUF_ADDR], n, case.lanes.iter().map(|l| l.addr));
    put_u32s(
        &mut buffers[BUF_ACTIVE],
        n,
        case.lanes.iter().map(|l| u32::from(l.active)),
    );
    if let (Some(t), true) = (&case.traffic, buffers.len() > BUF_VERDICT) {
        put_u32s(
            &mut buffers[BUF_CTL],
            n,
            (0..n).map(|i| {
                let spin = u32::from(t.spin.get(i).copied().unwrap_or(0));
                let role = if t.is_traffic(i) { CTL_TRAFFIC } else { 0 };
                role | spin
            }),
        );
        // Numbered as in a launch of the case's own, like lds_out's poison.
        put_u64s(
            &mut buffers[BUF_VERDICT],
            2 * n,
            (0..2 * n).map(|k| VERDICT_POISON ^ k as u64),
        );
    }
    // Lane-major, written in that order (filling a round at a time stored
    // one qword in every `rounds`, a strided pass per round). A malformed
    // case's missing inputs (`model::validate_case` rejects it first) read
    // as zeros.
    put_lane_major(&mut buffers[BUF_DATA], case, |l| l.data, |m| &m.data);
    put_lane_major(
        &mut buffers[BUF_RET],
        case,
        |l| l.vdst_init,
        |m| &m.vdst_init,
    );
    put_lds_images(&mut buffers[BUF_LDS_INIT], case, groups, q);
    // The padding past the case's own image (never read back) continues
    // the numbering, so no two poison qwords are equal.
    put_u64s(
        &mut buffers[BUF_LDS_OUT],
        groups * q,
        (0..groups).flat_map(|g| {
            (0..q).map(move |i| {
                let k = if i < own_q {
                    g * own_q + i
                } else {
                    groups * own_q + g * q + i
                };
                LDS_OUT_POISON ^ k as u64
            })
        }),
    );
}

/// Append one input of every lane and round, lane-major (lane i's round r
/// at `i * rounds + r`): round 0's from the lane (`first`), the later ones
/// from their round (`later`; a missing lane reads as 0). The buffer grows
/// once and each lane's slots are stored in place (a push per qword checked
/// the capacity each time: most of `append_case`'s samples).
fn put_lane_major(
    out: &mut Vec<u8>,
    case: &Case,
    first: impl Fn(&LaneInput) -> u64,
    later: impl Fn(&Round) -> &[u64],
) {
    let rounds = case.rounds();
    let at = out.len();
    out.resize(at + case.lanes.len() * rounds * 8, 0);
    let slots = out.get_mut(at..).unwrap_or_default();
    for (i, (lane, l)) in slots
        .chunks_exact_mut(rounds * 8)
        .zip(&case.lanes)
        .enumerate()
    {
        let (head, rest) = lane.split_at_mut(8);
        head.copy_from_slice(&first(l).to_le_bytes());
        for (slot, m) in rest.chunks_exact_mut(8).zip(&case.more_rounds) {
            slot.copy_from_slice(&later(m).get(i).copied().unwrap_or(0).to_le_bytes());
        }
    }
}

/// Append `count` words of `N` bytes from `values` (fewer values leave
/// zeros): the buffer grows once, then each word is stored in place.
fn put_words<const N: usize>(
    out: &mut Vec<u8>,
    count: usize,
    values: impl Iterator<Item = [u8; N]>,
) {
    let at = out.len();
    out.resize(at + count * N, 0);
    let slots = out.get_mut(at..).unwrap_or_default().chunks_exact_mut(N);
    for (slot, w) in slots.zip(values) {
        slot.copy_from_slice(&w);
    }
}

/// Append `count` little-endian u32s from `values` ([`put_words`]).
fn put_u32s(out: &mut Vec<u8>, count: usize, values: impl Iterator<Item = u32>) {
    put_words(out, count, values.map(u32::to_le_bytes));
}

/// Append `count` little-endian u64s from `values` ([`put_words`]).
fn put_u64s(out: &mut Vec<u8>, count: usize, values: impl Iterator<Item = u64>) {
    put_words(out, count, values.map(u64::to_le_bytes));
}

/// The little-endian qwords of `bytes` (a trailing partial qword dropped).
pub(super) fn read_u64s(bytes: &[u8]) -> Vec<u64> {
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
    if case.traffic.is_some() {
        check_verdicts(&completion.buffers, n)?;
    }
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

/// The launch returned a `verdict` buffer of two qwords per lane.
fn check_verdicts(buffers: &[Vec<u8>], lanes: usize) -> Result<(), BackendError> {
    let got = buffers.get(BUF_VERDICT).map(Vec::len);
    if got != Some(lanes * 16) {
        return Err(BackendError::Invalid(format!(
            "the backend returned {} for `verdict` (#{BUF_VERDICT}), the launch had {} bytes",
            got.map_or("no buffer".to_string(), |b| format!("{b} bytes")),
            lanes * 16
        )));
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
    // The buffer is lane-major; `Observation::ret` is round-major. Read
    // in order, one lane's `rounds` qwords at a time (a short buffer, which
    // `check_lengths` rules out first, reads as zeros).
    let mut ret = vec![0; n * rounds];
    let lanes = ret_buf
        .get(lane_base * rounds * 8..)
        .unwrap_or_default()
        .chunks_exact(rounds * 8);
    for (i, lane) in lanes.take(n).enumerate() {
        for (r, c) in lane.chunks_exact(8).enumerate() {
            if let Some(slot) = ret.get_mut(r * n + i) {
                *slot = qword(c, 0);
            }
        }
    }
    let lds_final = (0..groups)
        .map(|g| {
            let first = (group_base + g) * q;
            match lds_buf.get(first * 8..(first + own_q) * 8) {
                Some(img) => img.chunks_exact(8).map(|c| qword(c, 0)).collect(),
                None => (0..own_q).map(|i| qword(lds_buf, first + i)).collect(),
            }
        })
        .collect();
    let traffic_verdicts = if case.traffic.is_some() {
        let v = buffers.get(BUF_VERDICT).map_or(&[][..], Vec::as_slice);
        (0..n)
            .map(|i| {
                let k = (lane_base + i) * 2;
                [qword(v, k), qword(v, k + 1)]
            })
            .collect()
    } else {
        Vec::new()
    };
    Observation {
        ret,
        lds_final,
        traffic_verdicts,
    }
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
    dispatch_for_batch_in(Vec::new(), cases, code_object, kernel, timeout)
}

/// [`dispatch_for_batch`] with its buffers in `staging`'s allocations (see
/// [`dispatch_for_in`]).
pub fn dispatch_for_batch_in<'a>(
    staging: Vec<Vec<u8>>,
    cases: &[&Case],
    code_object: &'a [u8],
    kernel: &'a str,
    timeout: Duration,
) -> Dispatch<'a> {
    let lds_bytes = cases.iter().map(|c| c.lds_bytes).max().unwrap_or(0);
    let q = lds_bytes as usize / 8;
    let mut buffers = buffers_for(cases, q, staging);
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
        args: conformance_args(
            q,
            first.map_or(1, |c| c.rounds()),
            first.is_some_and(|c| c.traffic.is_some()),
        ),
        timeout: timeout.saturating_mul(cases.len().max(1) as u32),
        read_back: read_back(first.is_some_and(|c| c.traffic.is_some())),
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
    if cases.first().is_some_and(|c| c.traffic.is_some()) {
        check_verdicts(
            &completion.buffers,
            cases.iter().map(|c| c.lanes.len()).sum(),
        )?;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::conformance::test_case as case;

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

    /// docs/src/internals/kernel-abi.md: with rounds, DATA and RET hold
    /// `rounds` qwords per lane, lane-major (round r of lane i at
    /// `i * rounds + r`); `Observation::ret` is round-major. Checked for
    /// the second case of a batch, whose lanes start past the first's.
    #[test]
    fn rounds_are_lane_major_in_the_buffers_and_round_major_back() {
        let with_rounds = |tag: u64| {
            let mut c = case();
            c.more_rounds = (1..3u64)
                .map(|r| crate::case::Round {
                    data: (0..64).map(|i| tag | r << 16 | i).collect(),
                    vdst_init: (0..64).map(|i| tag | r << 16 | i << 8).collect(),
                })
                .collect();
            c
        };
        let (a, b) = (with_rounds(1 << 40), with_rounds(2 << 40));
        let d = dispatch_for_batch(&[&a, &b], b"obj", "k", Duration::from_secs(1));
        let data = read_u64s(&d.buffers[BUF_DATA]);
        let ret = read_u64s(&d.buffers[BUF_RET]);
        assert_eq!((data.len(), ret.len()), (2 * 64 * 3, 2 * 64 * 3));
        for (c, base) in [(&a, 0), (&b, 64)] {
            for i in 0..64 {
                for r in 0..3 {
                    let (want_d, want_v) = c.round_input(r, i).unwrap();
                    assert_eq!(data[(base + i) * 3 + r], want_d, "DATA lane {i} round {r}");
                    assert_eq!(ret[(base + i) * 3 + r], want_v, "RET lane {i} round {r}");
                }
            }
        }
        // The device's returns: qword k of RET holds k ^ 0x5a.
        let mut buffers = d.buffers.clone();
        buffers[BUF_RET] = u64s((0..ret.len()).map(|k| k as u64 ^ 0x5a));
        let done = Completion {
            buffers,
            elapsed: Duration::ZERO,
            wgp_mode: None,
        };
        let obs = observations(&[&a, &b], &done).unwrap();
        for (o, base) in obs.iter().zip([0, 64]) {
            for i in 0..64 {
                for r in 0..3 {
                    assert_eq!(o.ret[r * 64 + i], ((base + i) * 3 + r) as u64 ^ 0x5a);
                }
            }
        }
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

    /// A launch built in an earlier launch's buffers is byte for byte the
    /// launch built fresh: nothing of the earlier one is left in it, ret's
    /// VDST-before and lds_out's poison included. Only `ret` and `lds_out`
    /// are read back.
    #[test]
    fn staging_reuses_allocations_never_contents() {
        let mut big = case();
        big.lds_bytes = 32;
        big.lds_init = vec![vec![5, 6, 7, 8], vec![9, 10, 11, 12]];
        for l in &mut big.lanes {
            l.vdst_init = !l.vdst_init;
        }
        let earlier = dispatch_for_batch(&[&big, &big], b"o", "k", Duration::ZERO).buffers;
        let capacity: Vec<usize> = earlier.iter().map(Vec::capacity).collect();
        let small = case();
        let fresh = dispatch_for(&small, b"o", "k", Duration::ZERO);
        let reused = dispatch_for_in(earlier, &small, b"o", "k", Duration::ZERO);
        assert_eq!(reused.buffers, fresh.buffers);
        let kept: Vec<usize> = reused.buffers.iter().map(Vec::capacity).collect();
        assert_eq!(kept, capacity, "the allocations were not reused");
        let batch =
            dispatch_for_batch_in(reused.buffers, &[&small, &big], b"o", "k", Duration::ZERO);
        let fresh = dispatch_for_batch(&[&small, &big], b"o", "k", Duration::ZERO);
        assert_eq!(batch.buffers, fresh.buffers);
        assert_eq!(batch.read_back, READ_BACK);
        let read: Vec<usize> = (0..6).filter(|&i| READ_BACK.wants(i)).collect();
        assert_eq!(read, vec![BUF_RET, BUF_LDS_OUT]);
    }

    /// An allocation far larger than the launch needs is given back, so a
    /// large case does not pin its size for the rest of the run; one the
    /// launch still needs a good part of is kept.
    #[test]
    fn staging_gives_back_what_a_large_case_left() {
        let mut big = case();
        // 64 Ki qwords per group: 512 KiB of LDS image per group, 1 MiB in all.
        big.lds_bytes = 64 << 13;
        big.lds_init = vec![vec![0; 64 << 10]; 2];
        let earlier = dispatch_for(&big, b"o", "k", Duration::ZERO).buffers;
        assert!(earlier[BUF_LDS_INIT].capacity() >= 1 << 20);
        let small = case();
        let reused = dispatch_for_in(earlier, &small, b"o", "k", Duration::ZERO);
        assert_eq!(
            reused.buffers,
            dispatch_for(&small, b"o", "k", Duration::ZERO).buffers
        );
        for i in [BUF_LDS_INIT, BUF_LDS_OUT] {
            let c = reused.buffers[i].capacity();
            assert!(c <= STAGING_KEEP_BYTES, "buffer {i} kept {c} bytes");
        }
        let again = dispatch_for(&big, b"o", "k", Duration::ZERO).buffers;
        let half = big
            .lds_init
            .iter()
            .map(|g| g[..32 << 10].to_vec())
            .collect();
        let mut mid = big.clone();
        mid.lds_bytes = 32 << 13;
        mid.lds_init = half;
        let kept = dispatch_for_in(again, &mid, b"o", "k", Duration::ZERO);
        assert!(
            kept.buffers[BUF_LDS_INIT].capacity() >= 1 << 20,
            "a half-used buffer was given back"
        );
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
