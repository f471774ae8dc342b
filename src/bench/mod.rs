//! `bench`: throughput runs of `ds_xor_rtn_b64` over any
//! [`Backend`](crate::backend::Backend), and their statistics.
//!
//! A bench launches the throughput kernels (docs/src/internals/kernel-abi.md,
//! "Throughput kernels") over access patterns ([`pattern`]), dependent and
//! independent chains, wave32 and wave64, and an occupancy sweep ([`plan`]); times
//! warmed-up repetitions ([`stats`]); checks every launch's outputs against
//! the ABI's closed form ([`expect`]) so that a fast wrong answer never
//! counts; and relates the rate to a ceiling derived from the device's own
//! attributes ([`ceiling`]). On the software device the rate is the
//! emulator's own speed, labelled as such, never a GPU figure.
//!
//! Module boundary: bench uses `backend` (to launch) and `case::WaveSize`,
//! and writes `report::bench_record` — plain data, as conformance results
//! are `report` data — never `model` or `emu` internals.

pub mod ceiling;
pub mod expect;
pub mod gf2;
pub mod pattern;
pub mod plan;
pub mod run;
pub mod stats;

pub use plan::{RunSpec, Settings};
pub use run::{run_bench, KernelObject};

use crate::backend::BackendError;
use crate::report::bench_record::BenchRecord;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Settings or a plan no run could honour (exit 2).
    #[error("bench: {0}")]
    Plan(String),
    /// No code object, wave size or device to run on (exit 3).
    #[error("bench: {0}")]
    Environment(String),
    /// The backend refused a launch for reasons outside the case (exit 3
    /// for `Environment`, 2 for `Invalid`).
    #[error("bench run `{run}` (kernel `{kernel}`): {cause}")]
    Backend {
        run: String,
        kernel: String,
        cause: BackendError,
    },
    /// An error that ended the bench after its plan was made (`cause`):
    /// `record` holds the runs before it and says `aborted`, so what was
    /// measured is written all the same.
    #[error("{cause}")]
    Aborted {
        record: Box<BenchRecord>,
        cause: Box<BenchError>,
    },
}

impl BenchError {
    /// True for trouble with the environment (exit 3) rather than input (exit 2).
    pub fn is_environment(&self) -> bool {
        match self {
            BenchError::Plan(_) => false,
            BenchError::Environment(_) => true,
            BenchError::Backend { cause: source, .. } => !source.is_bad_input(),
            BenchError::Aborted { cause, .. } => cause.is_environment(),
        }
    }
}
