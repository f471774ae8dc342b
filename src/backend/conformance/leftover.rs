//! The leftover-LDS probe's two kernels (`dsxor_lds_fill`,
//! `dsxor_lds_listen` in `kernels/dsxor.hip`; their ABI is in
//! `docs/src/internals/kernel-abi.md`): fill every workgroup's LDS with a
//! marker, then launch a listener that reads LDS it never wrote.
//! LeftoverLocals (CVE-2023-4969, CERT VU#446598,
//! <https://kb.cert.org/vuls/id/446598>) is what a listener that finds the
//! marker shows.

use std::time::Duration;

use super::objects::{codeobj_kernels, KernelObject};
use super::CaseDevice;
use crate::backend::{ArgValue, BackendError, Dispatch, ReadBack};

pub const FILL_KERNEL: &str = "dsxor_lds_fill";
pub const LISTEN_KERNEL: &str = "dsxor_lds_listen";
/// Work-items per workgroup: 8 wave32 or 4 wave64 waves, every one
/// copying its share of the allocation.
pub const PROBE_BLOCK: u32 = 256;
/// Dynamic LDS of both kernels: the 64 KiB a workgroup may have on gfx11
/// (AMDGPUUsage.rst, "Memory Spaces": 64 KiB per workgroup), so the
/// listener reads all of what a workgroup can be given.
pub const PROBE_LDS_BYTES: u32 = 65536;
const QWORDS: u32 = PROBE_LDS_BYTES / 8;

/// What one listener launch read (all zeros: nothing read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// LDS bytes the listener copied out (every workgroup's allocation).
    pub bytes_read: u64,
    /// Bytes of qwords that hold exactly the fill's `marker ^ i`: LDS the
    /// fill kernel left behind.
    pub marker_bytes: u64,
    /// Bytes of other nonzero qwords (not the fill's: a device that does
    /// not clear LDS may show what any earlier kernel left).
    pub other_nonzero_bytes: u64,
    /// Qwords the listener was to read but did not report as read.
    pub unvisited_qwords: u64,
}

/// Run the fill kernel, then the listener, on `device` with `object`'s
/// kernels, `groups` workgroups each. An object without the two kernels (a
/// user's `--code-object`) is refused as [`BackendError::Invalid`].
pub fn fill_then_listen(
    device: &mut dyn CaseDevice,
    object: &KernelObject,
    groups: u32,
    marker: u64,
    timeout: Duration,
) -> Result<Reading, BackendError> {
    let kernels = codeobj_kernels(&object.bytes).map_err(BackendError::Invalid)?;
    for k in [FILL_KERNEL, LISTEN_KERNEL] {
        if !kernels.iter().any(|n| n == k) {
            return Err(BackendError::Invalid(format!(
                "{} has no kernel `{k}`: the leftover-lds probe runs dsxor's own kernels",
                object.source
            )));
        }
    }
    device.launch(&Dispatch {
        code_object: &object.bytes,
        kernel: FILL_KERNEL,
        groups,
        block: PROBE_BLOCK,
        dynamic_lds: PROBE_LDS_BYTES,
        buffers: Vec::new(),
        args: vec![ArgValue::U64(marker), ArgValue::U32(QWORDS)],
        timeout,
        read_back: ReadBack::All,
    })?;
    let qwords = groups as usize * QWORDS as usize;
    let done = device.launch(&Dispatch {
        code_object: &object.bytes,
        kernel: LISTEN_KERNEL,
        groups,
        block: PROBE_BLOCK,
        dynamic_lds: PROBE_LDS_BYTES,
        buffers: vec![vec![0; qwords * 8], vec![0; qwords * 4]],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::U32(QWORDS),
        ],
        timeout,
        read_back: ReadBack::All,
    })?;
    let (seen, visited) = match done.buffers.as_slice() {
        [s, v] if s.len() == qwords * 8 && v.len() == qwords * 4 => (s, v),
        _ => {
            return Err(BackendError::Environment(format!(
                "{LISTEN_KERNEL}: the launch gave back buffers of other sizes"
            )))
        }
    };
    Ok(read(marker, seen, visited))
}

/// Judge the listener's buffers (whole allocations of [`QWORDS`]).
fn read(marker: u64, seen: &[u8], visited: &[u8]) -> Reading {
    let mut r = Reading::default();
    for (k, (s, v)) in seen
        .chunks_exact(8)
        .zip(visited.chunks_exact(4))
        .enumerate()
    {
        let i = (k % QWORDS as usize) as u64;
        let value = u64::from_le_bytes(s.try_into().unwrap_or([0; 8]));
        let tag = u32::from_le_bytes(v.try_into().unwrap_or([0; 4]));
        if u64::from(tag) != i + 1 {
            r.unvisited_qwords += 1;
            continue;
        }
        r.bytes_read += 8;
        if value == marker ^ i {
            r.marker_bytes += 8;
        } else if value != 0 {
            r.other_nonzero_bytes += 8;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers(groups: u32, f: impl Fn(u64) -> (u64, u32)) -> (Vec<u8>, Vec<u8>) {
        let (mut s, mut v) = (Vec::new(), Vec::new());
        for k in 0..groups as u64 * QWORDS as u64 {
            let (value, tag) = f(k % QWORDS as u64);
            s.extend_from_slice(&value.to_le_bytes());
            v.extend_from_slice(&tag.to_le_bytes());
        }
        (s, v)
    }

    #[test]
    fn markers_others_and_unread_qwords_are_told_apart() {
        let m = 0xfeed_0000_0000_0000;
        let (s, v) = buffers(2, |i| (0, i as u32 + 1));
        let clean = read(m, &s, &v);
        assert_eq!(clean.bytes_read, 2 * PROBE_LDS_BYTES as u64);
        assert_eq!((clean.marker_bytes, clean.other_nonzero_bytes), (0, 0));
        let (s, v) = buffers(2, |i| (if i < 3 { m ^ i } else { 0 }, i as u32 + 1));
        assert_eq!(read(m, &s, &v).marker_bytes, 2 * 3 * 8);
        // The marker of another qword is not this qword's: another kernel's data.
        let (s, v) = buffers(1, |i| (if i == 5 { m ^ 4 } else { 0 }, i as u32 + 1));
        let moved = read(m, &s, &v);
        assert_eq!((moved.marker_bytes, moved.other_nonzero_bytes), (0, 8));
        let (s, v) = buffers(1, |i| (0, if i == 7 { 0 } else { i as u32 + 1 }));
        assert_eq!(read(m, &s, &v).unvisited_qwords, 1);
    }
}
