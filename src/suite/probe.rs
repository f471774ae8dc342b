//! Device probes that are not case families: they run kernels of their own
//! beside the cases and are recorded in the results as `probes`. Today one:
//! `leftover-lds`, the LeftoverLocals listener (CVE-2023-4969, CERT
//! VU#446598, <https://kb.cert.org/vuls/id/446598>): a kernel fills its
//! LDS with a marker, and a second kernel, launched after it, reads LDS it
//! never wrote. A marker seen is a security finding: LDS one kernel left
//! was readable by the next. The book's page `guide/conformance-runs.md`
//! says what each verdict means.

use std::time::Duration;

use rand::{Rng, SeedableRng};

use crate::backend::conformance::{fill_then_listen, CaseDevice, Reading, PROBE_LDS_BYTES};
use crate::backend::BackendError;
use crate::report::results::{ProbeRecord, Status};

/// The `--probe` name of the leftover-LDS probe.
pub const LEFTOVER_LDS: &str = "leftover-lds";

/// Listener workgroups per multiprocessor the device reports: enough that
/// the listener's workgroups land on every CU the fill used (the fill runs
/// the same grid), as the LeftoverLocals proof of concept did.
const GROUPS_PER_UNIT: u32 = 4;

/// Run the leftover-LDS probe with every code object of `device` (each
/// wave size and mode it runs), the marker drawn from `seed`. A launch
/// that faults or times out is the probe's failure; environment and input
/// trouble is returned as the error.
pub fn leftover_lds(
    device: &mut dyn CaseDevice,
    seed: u64,
    timeout: Duration,
) -> Result<Vec<ProbeRecord>, BackendError> {
    let groups = device
        .info()
        .compute_units
        .saturating_mul(GROUPS_PER_UNIT)
        .clamp(GROUPS_PER_UNIT, 1024);
    let objects = device.kernel_objects().to_vec();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x6c65_6674_6f76_6572);
    let mut records = Vec::new();
    for object in &objects {
        // The top bit set: LDS cleared to zeros never holds the marker.
        let marker = rng.random::<u64>() | 1 << 63;
        let (verdict, summary, r) = match fill_then_listen(device, object, groups, marker, timeout)
        {
            Err(e @ (BackendError::Fault(_) | BackendError::Timeout { .. })) => (
                Status::Failed,
                format!("the probe's launch did not complete: {e}"),
                Reading::default(),
            ),
            Err(e) => return Err(e),
            Ok(r) if r.marker_bytes > 0 => (
                Status::Failed,
                format!(
                    "security: {} of {} LDS bytes the listener never wrote held the fill kernel's \
                     marker: LDS left by one kernel was read by the next (LeftoverLocals, \
                     CVE-2023-4969)",
                    r.marker_bytes, r.bytes_read
                ),
                r,
            ),
            Ok(r) if r.unvisited_qwords > 0 => (
                Status::Failed,
                format!(
                    "the listener did not read its whole allocation: {} of {} qwords unread, so \
                     the probe proves nothing",
                    r.unvisited_qwords,
                    u64::from(groups) * u64::from(PROBE_LDS_BYTES) / 8
                ),
                r,
            ),
            Ok(r) => (
                Status::Passed,
                format!(
                    "{} LDS bytes read after the fill, none of them the fill's ({} other nonzero)",
                    r.bytes_read, r.other_nonzero_bytes
                ),
                r,
            ),
        };
        records.push(ProbeRecord {
            probe: LEFTOVER_LDS.into(),
            wave: object.wave,
            mode: object.mode,
            verdict,
            groups,
            bytes_read: r.bytes_read,
            leaked_bytes: r.marker_bytes,
            other_nonzero_bytes: r.other_nonzero_bytes,
            summary,
        });
    }
    Ok(records)
}
