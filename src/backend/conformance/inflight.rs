//! The in-flight probes' kernels (`dsxor_probe_back_to_back`,
//! `dsxor_probe_exec_zero`, `dsxor_probe_unused_lanes`,
//! `dsxor_probe_smem_in_flight`, `dsxor_probe_vdst_range` in
//! `kernels/dsxor.hip`; their ABI is in
//! `docs/src/internals/kernel-abi.md`): atomics of one wave with something
//! in flight beside them, on a qword each work-item owns, and what each
//! lane may read back. The kernel file says where each expectation comes
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
    /// The odd lanes write the atomic's VDST before its wait: the write is
    /// kept or lost, the even lanes' returns are untouched.
    UnusedLanes,
    /// An SMEM load after the atomic, then `lgkmcnt(1)`: one of the two
    /// may still be out, never both; the full wait lands both.
    SmemInFlight,
    /// An atomic whose VDST lies past the wave's VGPR allocation: issued
    /// as if EXEC were 0, it changes nothing; an in-range one after it
    /// works.
    VdstRange,
}

/// The VGPR pair `dsxor_probe_vdst_range` names as its first atomic's VDST.
pub const VDST_RANGE_FIRST_VGPR: u32 = 250;

/// Which of its legal outcomes a lane of a probe showed, where a probe has
/// more than one (the others have one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shown {
    /// `unused-vdst-lanes`: an odd lane kept the value written before the wait.
    UnusedWriteKept,
    /// `unused-vdst-lanes`: an odd lane holds what it held when the atomic
    /// issued: the write before the wait was lost.
    UnusedWriteLost,
    /// `smem-in-flight`: at the partial wait the DS result was back, the
    /// SMEM result too.
    BothBack,
    /// `smem-in-flight`: at the partial wait the DS result was still out.
    DsOut,
    /// `smem-in-flight`: at the partial wait the SMEM result was still out.
    SmemOut,
}

impl Shown {
    /// Its name in results (`outcomes`).
    pub fn name(self) -> &'static str {
        match self {
            Shown::UnusedWriteKept => "unused-write-kept",
            Shown::UnusedWriteLost => "unused-write-lost",
            Shown::BothBack => "both-back-at-partial-wait",
            Shown::DsOut => "ds-out-at-partial-wait",
            Shown::SmemOut => "smem-out-at-partial-wait",
        }
    }
}

impl Inflight {
    /// Whether dsxor's kernels hold this probe's kernel for `target`:
    /// gfx12 counts DS and SMEM on counters of their own (DScnt, KMcnt:
    /// RDNA4 ISA guide; llvm/test/MC/AMDGPU/gfx12_asm_sopp.s), so the SMEM
    /// probe has nothing to probe there and `kernels/dsxor.hip` does not
    /// build it.
    pub fn built_for(self, target: &str) -> bool {
        !(self == Inflight::SmemInFlight && target.starts_with("gfx12"))
    }

    pub fn kernel(self) -> &'static str {
        match self {
            Inflight::BackToBack => "dsxor_probe_back_to_back",
            Inflight::ExecZero => "dsxor_probe_exec_zero",
            Inflight::UnusedLanes => "dsxor_probe_unused_lanes",
            Inflight::SmemInFlight => "dsxor_probe_smem_in_flight",
            Inflight::VdstRange => "dsxor_probe_vdst_range",
        }
    }

    /// Every outcome lane `lane` may legally show, with its name where the
    /// probe has several: from the lane's `in` slot, the host's `out` slot
    /// before launch, and `in[0]` and `in[2]` of the whole buffer (the
    /// SMEM load's value and the SGPRs' value before it).
    pub fn legal(
        self,
        lane: usize,
        slot: [u64; 4],
        out: [u64; 4],
        smem: [u64; 2],
    ) -> Vec<([u64; 4], Option<Shown>)> {
        let [init, d1, d2, d3] = slot;
        match self {
            // r1, r2, r3 and the qword's final value.
            Inflight::BackToBack => {
                vec![([init, init ^ d1, init ^ d1 ^ d2, init ^ d1 ^ d2 ^ d3], None)]
            }
            // The masked-off atomic leaves r2 as the host put it in out[1].
            Inflight::ExecZero => vec![([init, out[1], init ^ d1, init ^ d1 ^ d3], None)],
            // Even lanes run the atomic; odd lanes write the marker (d2's
            // slot) into its VDST before the wait and leave their qword alone. out[2] and
            // out[3] are not written.
            Inflight::UnusedLanes if lane.is_multiple_of(2) => {
                vec![([init, init ^ d1, out[2], out[3]], None)]
            }
            Inflight::UnusedLanes => vec![
                ([d2, init, out[2], out[3]], Some(Shown::UnusedWriteKept)),
                ([out[0], init, out[2], out[3]], Some(Shown::UnusedWriteLost)),
            ],
            // Early r, early s, r, s: at the partial wait at most one of
            // the two is still out.
            Inflight::SmemInFlight => {
                let [loaded, s_before] = smem;
                vec![
                    ([init, loaded, init, loaded], Some(Shown::BothBack)),
                    ([out[0], loaded, init, loaded], Some(Shown::DsOut)),
                    ([init, s_before, init, loaded], Some(Shown::SmemOut)),
                ]
            }
            // The out-of-range atomic (d1) changed nothing, the control
            // (d2) returned init. out[2] and out[3] are not written.
            Inflight::VdstRange => vec![([init, init ^ d2, out[2], out[3]], None)],
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
    /// The first wrong lane: its index, what it read, what it should have
    /// (the first of its legal outcomes).
    pub first_wrong: Option<(u64, [u64; 4], [u64; 4])>,
    /// Lanes per outcome, for probes with more than one legal outcome.
    pub shown: std::collections::BTreeMap<Shown, u64>,
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
    if probe == Inflight::VdstRange {
        vdst_past_allocation(object, kernel)?;
    }
    let lanes = groups as usize * INFLIGHT_BLOCK as usize;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut input: Vec<u64> = (0..lanes * SLOT).map(|_| rng.random()).collect();
    // Not zero, not any value a lane computes: what an untouched out[1] holds.
    let out: Vec<u64> = (0..lanes * SLOT).map(|_| rng.random()).collect();
    // Legal outcomes must be told apart: a lane's stale and new values
    // differ, and so do the SMEM load's value and the SGPRs' value before.
    for (i, o) in input.chunks_exact_mut(SLOT).zip(out.chunks_exact(SLOT)) {
        for v in [0, 2] {
            if i[v] == o[0] {
                i[v] ^= 1;
            }
        }
    }
    if input[0] == input[2] {
        input[2] ^= 1;
    }
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

/// The precondition of `vdst-out-of-range`: the kernel's descriptor gives
/// a wave fewer VGPRs than the probe's VDST needs, or the probe would probe
/// nothing (a compiler that counted the asm's register would allocate it).
fn vdst_past_allocation(object: &KernelObject, kernel: &str) -> Result<(), BackendError> {
    let co = crate::codeobj::CodeObject::parse(&object.bytes)
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let family = co
        .isa_family()
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let k = co
        .kernel(kernel)
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let alloc = k.descriptor.vgpr_allocation(family);
    if alloc > VDST_RANGE_FIRST_VGPR {
        return Err(BackendError::Invalid(format!(
            "{}: `{kernel}` is given {alloc} VGPRs, so its VDST v{VDST_RANGE_FIRST_VGPR} is in \
             range and the probe would probe nothing",
            object.source
        )));
    }
    Ok(())
}

/// Compare every lane's four values with what `probe` says they may be.
fn judge(probe: Inflight, input: &[u64], out_before: &[u64], got: &[u64]) -> Returns {
    let mut r = Returns::default();
    let smem = [
        input.first().copied().unwrap_or(0),
        input.get(2).copied().unwrap_or(0),
    ];
    for (lane, ((i, o), g)) in input
        .chunks_exact(SLOT)
        .zip(out_before.chunks_exact(SLOT))
        .zip(got.chunks_exact(SLOT))
        .enumerate()
    {
        r.lanes += 1;
        let legal = probe.legal(
            lane,
            [i[0], i[1], i[2], i[3]],
            [o[0], o[1], o[2], o[3]],
            smem,
        );
        let seen = [g[0], g[1], g[2], g[3]];
        match legal.iter().find(|(want, _)| *want == seen) {
            Some((_, shown)) => {
                if let Some(s) = shown {
                    *r.shown.entry(*s).or_default() += 1;
                }
            }
            None => {
                r.wrong_lanes += 1;
                r.first_wrong.get_or_insert((lane as u64, seen, legal[0].0));
            }
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
        let only = |p: Inflight| {
            let legal = p.legal(0, slot, [0, 99, 0, 0], [0, 0]);
            assert_eq!(legal.len(), 1, "{p:?}");
            legal[0].0
        };
        assert_eq!(only(Inflight::BackToBack), [0xf0, 0xf1, 0xf3, 0xf7]);
        // The masked-off atomic neither returns nor updates.
        assert_eq!(only(Inflight::ExecZero), [0xf0, 99, 0xf1, 0xf5]);
        // The out-of-range atomic (d1) neither; the control (d2) does.
        assert_eq!(only(Inflight::VdstRange), [0xf0, 0xf2, 0, 0]);
    }

    #[test]
    fn each_legal_outcome_is_counted_and_anything_else_is_wrong() {
        // Two lanes of unused-vdst-lanes: lane 0 runs the atomic, lane 1
        // writes marker 0x77 into the same VDST (r was 0x50 before).
        let input = [0xf0, 0x01, 0x77, 0, 0xe0, 0x02, 0x77, 0];
        let out = [0x50, 0, 9, 9, 0x60, 0, 9, 9];
        let kept = [0xf0, 0xf1, 9, 9, 0x77, 0xe0, 9, 9];
        let r = judge(Inflight::UnusedLanes, &input, &out, &kept);
        assert_eq!(
            (r.wrong_lanes, r.shown.get(&Shown::UnusedWriteKept)),
            (0, Some(&1))
        );
        let lost = [0xf0, 0xf1, 9, 9, 0x60, 0xe0, 9, 9];
        let r = judge(Inflight::UnusedLanes, &input, &out, &lost);
        assert_eq!(
            (r.wrong_lanes, r.shown.get(&Shown::UnusedWriteLost)),
            (0, Some(&1))
        );
        // The odd lane took the atomic (its return, and its qword moved).
        let ran = [0xf0, 0xf1, 9, 9, 0xe0, 0xe2, 9, 9];
        assert_eq!(
            judge(Inflight::UnusedLanes, &input, &out, &ran).wrong_lanes,
            1
        );
        // A stray write into out[2]: wrong too.
        let stray = [0xf0, 0xf1, 8, 9, 0x77, 0xe0, 9, 9];
        assert_eq!(
            judge(Inflight::UnusedLanes, &input, &out, &stray).wrong_lanes,
            1
        );

        // smem-in-flight, one lane: s loads in[0] = 0xf0, s was in[2] = 0x33.
        let input = [0xf0, 0x01, 0x33, 0];
        let out = [0x50, 0, 0, 0];
        for (early, shown) in [
            ([0xf0, 0xf0], Shown::BothBack),
            ([0x50, 0xf0], Shown::DsOut),
            ([0xf0, 0x33], Shown::SmemOut),
        ] {
            let got = [early[0], early[1], 0xf0, 0xf0];
            let r = judge(Inflight::SmemInFlight, &input, &out, &got);
            assert_eq!(
                (r.wrong_lanes, r.shown.get(&shown)),
                (0, Some(&1)),
                "{shown:?}"
            );
        }
        // Both still out at the partial wait: no device may show it.
        let neither = [0x50, 0x33, 0xf0, 0xf0];
        assert_eq!(
            judge(Inflight::SmemInFlight, &input, &out, &neither).wrong_lanes,
            1
        );
    }

    #[test]
    fn the_vdst_probe_refuses_a_kernel_whose_allocation_covers_its_vdst() {
        use crate::case::{Mode, WaveSize};
        use crate::codeobj::{find_embedded, CodeObject};
        let obj = find_embedded("gfx1100", WaveSize::Wave32).expect("embedded gfx1100 wave32");
        let kernel = Inflight::VdstRange.kernel();
        let with = |bytes: Vec<u8>| KernelObject {
            wave: WaveSize::Wave32,
            mode: Mode::Wgp,
            bytes,
            source: "test".into(),
            origin: "file".into(),
            compiler: None,
        };
        let mut bytes = CodeObject::parse(obj.bytes).unwrap().elf_bytes().to_vec();
        assert!(vdst_past_allocation(&with(bytes.clone()), kernel).is_ok());
        // GRANULATED_WORKITEM_VGPR_COUNT (COMPUTE_PGM_RSRC1 bits 5:0, at
        // descriptor offset 48) set to 31: 32 blocks of 8, all 256 VGPRs.
        let co = CodeObject::parse(&bytes).unwrap();
        let kd = co
            .symbol_vaddr(&format!("{kernel}.kd"))
            .expect("the .kd symbol");
        let at = co.file_offset(kd, 64).unwrap() as usize + 48;
        bytes[at] |= 0x1f;
        let err = vdst_past_allocation(&with(bytes), kernel).unwrap_err();
        assert!(err.to_string().contains("given 256 VGPRs"), "{err}");
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
