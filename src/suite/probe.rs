//! Device probes that are not case families: they run kernels of their own
//! beside the cases and are recorded in the results as `probes`
//! ([`KernelProbe`]). The book's page `guide/conformance-runs.md` says what
//! each verdict means.
//!
//! - `leftover-lds`, the LeftoverLocals listener (CVE-2023-4969, CERT
//!   VU#446598, <https://kb.cert.org/vuls/id/446598>): a kernel fills its
//!   LDS with a marker, and a second kernel, launched after it, reads LDS
//!   it never wrote. A marker seen is a security finding: LDS one kernel
//!   left was readable by the next.
//! - `back-to-back`: three `ds_xor_rtn_b64` of a wave with no wait between
//!   them, whose returns must chain (a positive control: the compiler's
//!   waits rely on DS returning in order).
//! - `exec-zero-in-flight`: an atomic issued under EXEC = 0 while another
//!   is in flight must touch no lane nor disturb the one in flight.
//! - `unused-vdst-lanes`: lanes the atomic left out write its VDST before
//!   the wait; Mesa says that is unsafe on gfx11, so the write may be kept
//!   or lost, but nothing else, and the atomic's own lanes are untouched.
//!   The record counts which the device showed.
//! - `smem-in-flight`: an SMEM load beside the atomic on the shared
//!   LGKM_CNT; a partial wait lands at least one of the two, the full wait
//!   both. The record counts which was still out at the partial wait.
//! - `vdst-out-of-range`: an atomic whose VDST lies past the wave's VGPR
//!   allocation is issued as if EXEC were 0 and must change nothing; an
//!   in-range atomic after it must work.

use std::time::Duration;

use rand::{Rng, SeedableRng};

use crate::backend::conformance::{
    fill_then_listen, run_inflight, CaseDevice, Inflight, KernelObject, Reading, Returns,
    PROBE_LDS_BYTES,
};
use crate::backend::BackendError;
use crate::report::results::{ProbeRecord, Status};

/// The `--probe` name of the leftover-LDS probe.
pub const LEFTOVER_LDS: &str = "leftover-lds";

/// A probe that runs kernels of its own (`--probe NAME`), once per code
/// object of the run (each wave size and mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelProbe {
    LeftoverLds,
    BackToBack,
    ExecZeroInFlight,
    UnusedVdstLanes,
    SmemInFlight,
    VdstOutOfRange,
}

impl KernelProbe {
    pub const ALL: [KernelProbe; 6] = [
        KernelProbe::LeftoverLds,
        KernelProbe::BackToBack,
        KernelProbe::ExecZeroInFlight,
        KernelProbe::UnusedVdstLanes,
        KernelProbe::SmemInFlight,
        KernelProbe::VdstOutOfRange,
    ];

    /// Its `--probe` name, as results record it.
    pub fn name(self) -> &'static str {
        match self {
            KernelProbe::LeftoverLds => LEFTOVER_LDS,
            KernelProbe::BackToBack => "back-to-back",
            KernelProbe::ExecZeroInFlight => "exec-zero-in-flight",
            KernelProbe::UnusedVdstLanes => "unused-vdst-lanes",
            KernelProbe::SmemInFlight => "smem-in-flight",
            KernelProbe::VdstOutOfRange => "vdst-out-of-range",
        }
    }

    pub fn from_name(name: &str) -> Option<KernelProbe> {
        KernelProbe::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Listener workgroups per multiprocessor the device reports: enough that
/// the listener's workgroups land on every CU the fill used (the fill runs
/// the same grid), as the LeftoverLocals proof of concept did. The
/// in-flight probes use the same grid, so every CU runs them.
const GROUPS_PER_UNIT: u32 = 4;

/// Run `probe` with every code object of `device`, its values drawn from
/// `seed`. A launch that faults or times out is the probe's failure;
/// environment and input trouble is returned as the error.
pub fn run(
    probe: KernelProbe,
    device: &mut dyn CaseDevice,
    seed: u64,
    timeout: Duration,
) -> Result<Vec<ProbeRecord>, BackendError> {
    match probe {
        KernelProbe::LeftoverLds => leftover_lds(device, seed, timeout),
        KernelProbe::BackToBack => inflight(probe, Inflight::BackToBack, device, seed, timeout),
        KernelProbe::ExecZeroInFlight => inflight(probe, Inflight::ExecZero, device, seed, timeout),
        KernelProbe::UnusedVdstLanes => {
            inflight(probe, Inflight::UnusedLanes, device, seed, timeout)
        }
        KernelProbe::SmemInFlight => inflight(probe, Inflight::SmemInFlight, device, seed, timeout),
        KernelProbe::VdstOutOfRange => inflight(probe, Inflight::VdstRange, device, seed, timeout),
    }
}

fn groups_for(device: &dyn CaseDevice) -> u32 {
    device
        .info()
        .compute_units
        .saturating_mul(GROUPS_PER_UNIT)
        .clamp(GROUPS_PER_UNIT, 1024)
}

fn record(probe: KernelProbe, object: &KernelObject, groups: u32) -> ProbeRecord {
    ProbeRecord {
        probe: probe.name().into(),
        wave: object.wave,
        mode: object.mode,
        verdict: Status::Passed,
        groups,
        bytes_read: 0,
        leaked_bytes: 0,
        other_nonzero_bytes: 0,
        lanes: 0,
        wrong_lanes: 0,
        outcomes: Default::default(),
        summary: String::new(),
    }
}

fn inflight(
    probe: KernelProbe,
    kernel: Inflight,
    device: &mut dyn CaseDevice,
    seed: u64,
    timeout: Duration,
) -> Result<Vec<ProbeRecord>, BackendError> {
    let groups = groups_for(device);
    let objects = device.kernel_objects().to_vec();
    let mut records = Vec::new();
    for (k, object) in objects.iter().enumerate() {
        if crate::codeobj::target_of(&object.bytes).is_some_and(|t| !kernel.built_for(&t)) {
            continue;
        }
        let mut r = record(probe, object, groups);
        let draw = seed ^ 0x696e_666c_6967_6874 ^ (k as u64) << 56;
        let (verdict, summary) = match run_inflight(device, object, kernel, groups, draw, timeout) {
            Err(e @ (BackendError::Fault(_) | BackendError::Timeout { .. })) => (
                Status::Failed,
                format!("the probe's launch did not complete: {e}"),
            ),
            Err(e) => return Err(e),
            Ok(Returns {
                lanes,
                wrong_lanes,
                first_wrong,
                shown,
            }) => {
                (r.lanes, r.wrong_lanes) = (lanes, wrong_lanes);
                r.outcomes = shown
                    .iter()
                    .map(|(s, n)| (s.name().to_string(), *n))
                    .collect();
                let parts: Vec<String> =
                    r.outcomes.iter().map(|(k, n)| format!("{k} {n}")).collect();
                let outcomes = if parts.is_empty() {
                    String::new()
                } else {
                    format!(" (lanes: {})", parts.join(", "))
                };
                match first_wrong {
                    Some((lane, seen, want)) => (
                        Status::Failed,
                        format!(
                            "{wrong_lanes} of {lanes} lanes read back values that break the \
                             rule ({}); first, lane {lane} read {} = {}, where the rule gives \
                             {}{outcomes}",
                            inflight_rule(kernel),
                            inflight_fields(kernel),
                            hex4(seen),
                            hex4(want)
                        ),
                    ),
                    None => (
                        Status::Passed,
                        format!(
                            "{lanes} lanes, each showing {}{outcomes}",
                            inflight_rule(kernel)
                        ),
                    ),
                }
            }
        };
        (r.verdict, r.summary) = (verdict, summary);
        records.push(r);
    }
    Ok(records)
}

/// What a passing lane showed, in the words of the kernel's comment.
fn inflight_rule(kernel: Inflight) -> &'static str {
    match kernel {
        Inflight::BackToBack => {
            "three atomics with no wait between them returning in issue order (returns chain)"
        }
        Inflight::ExecZero => {
            "an atomic under EXEC = 0 touching no lane while the one before it was in flight"
        }
        Inflight::UnusedLanes => {
            "an atomic's own lanes untouched by a write into its VDST's other lanes before \
             the wait, and that write kept or lost, nothing else"
        }
        Inflight::SmemInFlight => {
            "a partial lgkmcnt wait landing the atomic's return or an SMEM load beside it \
             (never neither), and the full wait both"
        }
        Inflight::VdstRange => {
            "an atomic whose VDST lies past the wave's VGPR allocation changing nothing, \
             and an in-range atomic after it returning the qword's value"
        }
    }
}

/// The four values a lane of `kernel` writes, in order (the kernel's ABI).
fn inflight_fields(kernel: Inflight) -> &'static str {
    match kernel {
        Inflight::BackToBack | Inflight::ExecZero => "r1, r2, r3, final",
        Inflight::UnusedLanes | Inflight::VdstRange => "r, final, out[2], out[3]",
        Inflight::SmemInFlight => "early r, early s, r, s",
    }
}

fn hex4(v: [u64; 4]) -> String {
    let parts: Vec<String> = v.iter().map(|q| format!("{q:#018x}")).collect();
    parts.join(", ")
}

/// Run the leftover-LDS probe with every code object of `device` (each
/// wave size and mode it runs), the marker drawn from `seed`. A launch
/// that faults or times out is the probe's failure; environment and input
/// trouble is returned as the error.
fn leftover_lds(
    device: &mut dyn CaseDevice,
    seed: u64,
    timeout: Duration,
) -> Result<Vec<ProbeRecord>, BackendError> {
    let groups = groups_for(device);
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
            verdict,
            bytes_read: r.bytes_read,
            leaked_bytes: r.marker_bytes,
            other_nonzero_bytes: r.other_nonzero_bytes,
            summary,
            ..record(KernelProbe::LeftoverLds, object, groups)
        });
    }
    Ok(records)
}
