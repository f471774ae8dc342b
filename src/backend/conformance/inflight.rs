//! The in-flight probes' kernels (`dsxor_probe_back_to_back`,
//! `dsxor_probe_exec_zero` in `kernels/dsxor.hip`; their ABI is in
//! `docs/src/internals/kernel-abi.md`): three `ds_xor_rtn_b64` of one wave
//! with no wait between them, on a qword each work-item owns, and what each
//! lane must read back. The kernel file says where each expectation comes
//! from.

use std::time::Duration;

use rand::{Rng, SeedableRng};

use super::abi::{read_u64s, u64s};
use super::objects::{codeobj_kernels, KernelObject};
use super::CaseDevice;
use crate::backend::{ArgValue, BackendError, Dispatch, ReadBack};

/// Work-items per workgroup: 8 wave32 or 4 wave64 waves.
pub const INFLIGHT_BLOCK: u32 = 256;
/// Qwords each lane reads (`in`) and writes (`out`).
const SLOT: usize = 4;

/// One of the in-flight kernels and what its lanes must return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inflight {
    /// Three atomics back to back: the returns chain.
    BackToBack,
    /// The second atomic under EXEC = 0 while the first is in flight: it
    /// touches no lane.
    ExecZero,
}

impl Inflight {
    pub fn kernel(self) -> &'static str {
        match self {
            Inflight::BackToBack => "dsxor_probe_back_to_back",
            Inflight::ExecZero => "dsxor_probe_exec_zero",
        }
    }

    /// r1, r2, r3 and the qword's final value, from a lane's `in` slot
    /// (init, d1, d2, d3) and the value the host left in its `out[1]`.
    pub fn expected(self, slot: [u64; 4], out1: u64) -> [u64; 4] {
        let [init, d1, d2, d3] = slot;
        match self {
            Inflight::BackToBack => [init, init ^ d1, init ^ d1 ^ d2, init ^ d1 ^ d2 ^ d3],
            Inflight::ExecZero => [init, out1, init ^ d1, init ^ d1 ^ d3],
        }
    }
}

/// What one launch showed, lane by lane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Returns {
    /// Lanes the launch ran (every one is checked).
    pub lanes: u64,
    /// Lanes with any of their four values wrong.
    pub wrong_lanes: u64,
    /// The first wrong lane: its index, what it read, what it should have.
    pub first_wrong: Option<(u64, [u64; 4], [u64; 4])>,
}

/// Run `probe`'s kernel from `object` on `device`: `groups` workgroups of
/// [`INFLIGHT_BLOCK`], each lane's values drawn from `seed`. An object
/// without the kernel (a user's `--code-object`) is refused as
/// [`BackendError::Invalid`].
pub fn run_inflight(
    device: &mut dyn CaseDevice,
    object: &KernelObject,
    probe: Inflight,
    groups: u32,
    seed: u64,
    timeout: Duration,
) -> Result<Returns, BackendError> {
    let kernel = probe.kernel();
    let kernels = codeobj_kernels(&object.bytes).map_err(BackendError::Invalid)?;
    if !kernels.iter().any(|n| n == kernel) {
        return Err(BackendError::Invalid(format!(
            "{} has no kernel `{kernel}`: the in-flight probes run dsxor's own kernels",
            object.source
        )));
    }
    let lanes = groups as usize * INFLIGHT_BLOCK as usize;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let input: Vec<u64> = (0..lanes * SLOT).map(|_| rng.random()).collect();
    // Not zero, not any value a lane computes: what an untouched out[1] holds.
    let out: Vec<u64> = (0..lanes * SLOT).map(|_| rng.random()).collect();
    let done = device.launch(&Dispatch {
        code_object: &object.bytes,
        kernel,
        groups,
        block: INFLIGHT_BLOCK,
        dynamic_lds: INFLIGHT_BLOCK * 8,
        buffers: vec![u64s(input.iter().copied()), u64s(out.iter().copied())],
        args: vec![ArgValue::Buffer(0), ArgValue::Buffer(1)],
        timeout,
        read_back: ReadBack::All,
    })?;
    let got = match done.buffers.as_slice() {
        [_, o] if o.len() == lanes * SLOT * 8 => read_u64s(o),
        _ => {
            return Err(BackendError::Environment(format!(
                "{kernel}: the launch gave back buffers of other sizes"
            )))
        }
    };
    Ok(judge(probe, &input, &out, &got))
}

/// Compare every lane's four values with what `probe` says they must be.
fn judge(probe: Inflight, input: &[u64], out_before: &[u64], got: &[u64]) -> Returns {
    let mut r = Returns::default();
    for (lane, ((i, o), g)) in input
        .chunks_exact(SLOT)
        .zip(out_before.chunks_exact(SLOT))
        .zip(got.chunks_exact(SLOT))
        .enumerate()
    {
        r.lanes += 1;
        let want = probe.expected([i[0], i[1], i[2], i[3]], o[1]);
        let seen = [g[0], g[1], g[2], g[3]];
        if seen != want {
            r.wrong_lanes += 1;
            r.first_wrong.get_or_insert((lane as u64, seen, want));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_follow_the_kernels_comments() {
        let slot = [0xf0, 0x01, 0x02, 0x04];
        assert_eq!(
            Inflight::BackToBack.expected(slot, 99),
            [0xf0, 0xf1, 0xf3, 0xf7]
        );
        // The masked-off atomic neither returns nor updates.
        assert_eq!(
            Inflight::ExecZero.expected(slot, 99),
            [0xf0, 99, 0xf1, 0xf5]
        );
    }

    #[test]
    fn a_wrong_lane_is_counted_and_the_first_kept() {
        let input = [1, 2, 4, 8, 16, 32, 64, 128];
        let out = [0, 7, 0, 0, 0, 9, 0, 0];
        let mut got = vec![1, 3, 7, 15, 16, 48, 112, 240];
        let ok = judge(Inflight::BackToBack, &input, &out, &got);
        assert_eq!((ok.lanes, ok.wrong_lanes, ok.first_wrong), (2, 0, None));
        // Lane 1's second return is stale: the value before its first update.
        got[5] = 16;
        let stale = judge(Inflight::BackToBack, &input, &out, &got);
        assert_eq!(stale.wrong_lanes, 1);
        assert_eq!(
            stale.first_wrong,
            Some((1, [16, 16, 112, 240], [16, 48, 112, 240]))
        );
    }
}
