//! The soak kernel's launches (`dsxor_soak`, docs/src/internals/kernel-abi.md
//! "Soak kernel"): the dispatch of one [`SoakLayout`], and the host's check
//! of what it left, which is exact: every lane's error word 0 (the kernel
//! checked each of its returns), every LDS qword the layout's final value
//! (M where a qword is in use, 0 elsewhere). Launches go through
//! [`CaseDevice::launch`], so on HIP they run in the worker processes as
//! every other launch does.

use std::time::Duration;

use crate::backend::conformance::{CaseDevice, KernelObject};
use crate::backend::{ArgValue, BackendError, Completion, Dispatch, ReadBack};
use crate::case::{Mode, WaveSize};
use crate::gen::soak::SoakLayout;

/// The kernel's symbol.
pub const SOAK_KERNEL: &str = "dsxor_soak";

/// What the host fills the output buffers with before a launch, so an
/// output the kernel never wrote shows (`bench::expect::POISON`'s value).
pub const POISON: u64 = 0xdead_beef_f01d_f01d;

/// Policy: round pairs per launch. A launch costs a fixed part (the
/// dispatch, the emulator's setup of its waves, zeroing and dumping LDS,
/// the host check) and a part per round. On the software device the fixed
/// part is large: the throughput kernel runs at half its rate with 128
/// iterations per lane as with 1,024, and soak with 64 pairs verified 57 M
/// lane-ops per CPU-second where the raw rate was 160 M; 512 pairs (1,025
/// rounds, about 2 M lane-ops a launch) match the throughput kernel's
/// 1,024 (docs/src/internals/performance.md, "Soak").
pub const PAIRS: u32 = 512;

/// The kernel's buffers, in ABI order.
const ERR: usize = 4;
const LDS_OUT: usize = 5;

/// One launch's verdict.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelCheck {
    /// Lanes whose error word is not 0 (poison included: never written).
    pub lanes_flagged: u64,
    /// LDS qwords that differ from the layout's final value.
    pub lds_mismatches: u64,
    /// The first few, in words.
    pub first: Vec<String>,
}

impl KernelCheck {
    pub fn passed(&self) -> bool {
        self.lanes_flagged == 0 && self.lds_mismatches == 0
    }

    /// One line: what failed and the first instances.
    pub fn summary(&self) -> String {
        format!(
            "{} lane(s) flagged a return, {} LDS qword(s) wrong{}{}",
            self.lanes_flagged,
            self.lds_mismatches,
            if self.first.is_empty() { "" } else { ": " },
            self.first.join("; ")
        )
    }
}

/// How many mismatches a check describes in words.
const FIRST: usize = 6;

/// Check a launch's error words and final LDS against `layout`.
pub fn check(layout: &SoakLayout, err: &[u64], lds_out: &[u64]) -> KernelCheck {
    let mut c = KernelCheck::default();
    let per_group = layout.geometry.lanes_per_group() as usize;
    for (lane, &e) in err.iter().enumerate() {
        if e != 0 {
            c.lanes_flagged += 1;
            if c.first.len() < FIRST {
                c.first.push(describe_error(layout, lane, per_group, e));
            }
        }
    }
    // A short buffer is a wrong result too: the missing lanes never wrote.
    c.lanes_flagged += layout.addr.len().saturating_sub(err.len()) as u64;
    let q = layout.lds_qwords as usize;
    for (g, want) in layout.final_lds.iter().enumerate() {
        let got = lds_out.get(g * q..(g + 1) * q).unwrap_or(&[]);
        for (i, w) in want.iter().enumerate() {
            match got.get(i) {
                Some(v) if v == w => {}
                other => {
                    c.lds_mismatches += 1;
                    if c.first.len() < FIRST {
                        c.first.push(format!(
                            "group {g} LDS qword {i} (byte {}): {} , expected {w:#018x}",
                            i * 8,
                            other.map_or("missing".to_string(), |v| format!("{v:#018x}"))
                        ));
                    }
                }
            }
        }
    }
    c
}

/// "group 0 lane 17 (qword byte 4104, bit 3): returns broke own-bit parity
/// or held bits 0x… outside M; high dword != rotl(low) at bits 0x…".
fn describe_error(layout: &SoakLayout, lane: usize, per_group: usize, e: u64) -> String {
    if e == POISON {
        return format!(
            "group {} lane {}: error word never written",
            lane / per_group,
            lane % per_group
        );
    }
    let (bits, rot) = (e as u32, (e >> 32) as u32);
    let mut what = Vec::new();
    if bits != 0 {
        what.push(format!(
            "low-dword bits {bits:#010x} wrong (own bit {:#x}: its parity; others: outside M)",
            layout.data.get(lane).map_or(0, |d| *d as u32)
        ));
    }
    if rot != 0 {
        what.push(format!(
            "high dword differed from rotl32(low, {}) at bits {rot:#010x}",
            layout.rot
        ));
    }
    format!(
        "group {} lane {} (qword at byte {}): {}",
        lane / per_group,
        lane % per_group,
        layout
            .addr
            .get(lane)
            .map_or(0, |a| a + u32::from(crate::gen::soak::SOAK_OFFSET)),
        what.join(", ")
    )
}

/// The object holding the kernel for `wave` and `mode`, if the device has one.
pub fn object_for(objects: &[KernelObject], wave: WaveSize, mode: Mode) -> Option<&KernelObject> {
    objects.iter().find(|o| o.wave == wave && o.mode == mode)
}

fn u32_bytes(v: impl Iterator<Item = u32>) -> Vec<u8> {
    v.flat_map(u32::to_le_bytes).collect()
}

fn u64_bytes(v: impl Iterator<Item = u64>) -> Vec<u8> {
    v.flat_map(u64::to_le_bytes).collect()
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

/// The launch of `layout` with the code object `bytes`: its error words and
/// LDS dump start as [`POISON`], and only they are read back.
pub fn dispatch<'a>(bytes: &'a [u8], layout: &SoakLayout, timeout: Duration) -> Dispatch<'a> {
    let n = layout.addr.len();
    let groups = layout.geometry.groups as usize;
    let q = layout.lds_qwords as usize;
    Dispatch {
        code_object: bytes,
        kernel: SOAK_KERNEL,
        groups: layout.geometry.groups,
        block: layout.geometry.lanes_per_group(),
        dynamic_lds: layout.lds_qwords * 8,
        buffers: vec![
            u32_bytes(layout.addr.iter().copied()),
            u64_bytes(layout.data.iter().copied()),
            u32_bytes(layout.bad.iter().copied()),
            u32_bytes(layout.active.iter().map(|&a| u32::from(a))),
            u64_bytes(std::iter::repeat_n(POISON, n)),
            u64_bytes(std::iter::repeat_n(POISON, groups * q)),
        ],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
            ArgValue::Buffer(ERR),
            ArgValue::Buffer(LDS_OUT),
            ArgValue::U32(layout.pairs),
            ArgValue::U32(layout.rot),
            ArgValue::U32(layout.lds_qwords),
        ],
        timeout,
        read_back: ReadBack::Only(&[ERR, LDS_OUT]),
    }
}

/// Check the buffers a completed [`dispatch`] of `layout` read back.
pub fn check_answer(layout: &SoakLayout, buffers: &[Vec<u8>]) -> Result<KernelCheck, BackendError> {
    match buffers {
        [_, _, _, _, err, lds] => Ok(check(layout, &u64s(err), &u64s(lds))),
        other => Err(BackendError::Invalid(format!(
            "the device returned {} buffers for `{SOAK_KERNEL}`, 6 were sent",
            other.len()
        ))),
    }
}

/// Launch `layout` on `device` with the code object `bytes`, and check it.
/// `Err`: the launch did not complete (a fault or timeout is a verdict the
/// caller records; environment trouble ends the soak).
pub fn launch(
    device: &mut dyn CaseDevice,
    bytes: &[u8],
    layout: &SoakLayout,
    timeout: Duration,
) -> Result<(KernelCheck, Completion), BackendError> {
    let done = device.launch(&dispatch(bytes, layout, timeout))?;
    Ok((check_answer(layout, &done.buffers)?, done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_passes_the_exact_outputs_and_flags_any_other() {
        let l = SoakLayout::generate(5, 0, WaveSize::Wave32, Mode::Wgp, 1);
        let err = vec![0u64; l.addr.len()];
        let lds: Vec<u64> = l.final_lds.concat();
        assert!(check(&l, &err, &lds).passed());
        let mut e2 = err.clone();
        e2[3] = 1 << 32;
        let c = check(&l, &e2, &lds);
        assert_eq!((c.lanes_flagged, c.lds_mismatches), (1, 0));
        assert!(c.summary().contains("rotl32"), "{}", c.summary());
        let mut e3 = err.clone();
        e3[0] = POISON;
        assert!(check(&l, &e3, &lds).summary().contains("never written"));
        let mut l2 = lds.clone();
        let last = l2.len() - 1;
        l2[last] ^= 1;
        assert_eq!(check(&l, &err, &l2).lds_mismatches, 1);
        // A short LDS buffer: the last group's slice is missing, every one
        // of its qwords counts.
        assert_eq!(
            check(&l, &err, &lds[..lds.len() - 1]).lds_mismatches,
            u64::from(l.lds_qwords)
        );
        assert_eq!(check(&l, &err[1..], &lds).lanes_flagged, 1);
    }
}
