//! Bench records, `dsxor-bench/1`: one JSON file per `dsxor bench` run
//! (`results/bench-<UTC time>-<backend>-<target>.json`). Plain data with
//! serde, so `report` renders records from anywhere without running
//! anything; the schema is documented in results/README.md ("Bench records").
//!
//! Rates are `null` for a run whose outputs failed their check: a fast
//! wrong answer never counts. Unknown fields are kept, never rejected (as
//! for observation files, docs/src/reference/observation.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment block is the conformance results' own
/// (`report::results::Environment`): device, backend selection, code
/// objects with their sha256, host.
pub use crate::report::results::{CodeObjectRecord, Environment};

/// The `format` field of every bench record.
pub const BENCH_FORMAT: &str = "dsxor-bench/1";
/// `metric` on a GPU: real lane-operations per second.
pub const METRIC_GPU: &str = "lane-ops-per-second";
/// `metric` on the software device: the emulator's own speed.
pub const METRIC_EMULATED: &str = "emulated-lane-ops-per-second";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BenchRecord {
    pub format: String,
    pub dsxor_version: String,
    /// RFC 3339, UTC, seconds (`2026-12-01T20:15:00Z`).
    pub created_utc: String,
    /// The command line that made the record.
    pub command: Vec<String>,
    pub environment: Environment,
    pub settings: Settings,
    /// `lane-ops-per-second` (GPU) or `emulated-lane-ops-per-second`.
    pub metric: String,
    /// The hardware ceiling, when one applies (never on the software device).
    pub ceiling: Option<CeilingRecord>,
    /// Why `ceiling` is null.
    pub no_ceiling_reason: Option<String>,
    pub runs: Vec<RunRecord>,
    /// Runs of the plan that were not run (wave size without a code object…).
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// True when every run completed and passed its check.
    pub all_passed: bool,
    /// The launches ran in this many worker processes of the dsxor binary
    /// (`dsxor bench --backend hip`: a fresh one after each fault or
    /// timeout); absent when they ran in the process that wrote the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_processes: Option<u32>,
    /// Why the bench ended before its plan did (an environment error: a
    /// worker that could not open its device or exited with a code); the
    /// record holds the runs before it. Absent when the plan ran to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settings {
    pub quick: bool,
    pub seed: u64,
    /// Launches per run before timing starts (checked, not timed).
    pub warmup: u32,
    /// Timed launches per run (each checked).
    pub reps: u32,
    /// `hip-events` (device time) or `host-clock` (software device).
    pub timing: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CeilingRecord {
    pub lane_ops_per_second: f64,
    pub lds_bytes_per_second: f64,
    /// CUs (converted from WGPs when the runtime counts those).
    pub compute_units: u32,
    /// How `compute_units` came from the runtime's count, when converted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_units_from: Option<String>,
    pub clock_khz: u32,
    pub lanes_per_clock_per_cu: u32,
    pub formula: String,
    pub sources: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Skipped {
    pub name: String,
    pub reason: String,
}

/// One configuration, launched `warmup + reps` times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunRecord {
    /// Unique within a record; the key for trends and baselines
    /// (`conflict-free/indep/wave32`, `occupancy/wave64/2wg-per-cu/4waves`).
    pub name: String,
    /// `patterns` or `occupancy`.
    pub sweep: String,
    pub pattern: String,
    pub conflict_ways: u32,
    /// `dep` or `indep`.
    pub chain: String,
    pub kernel: String,
    pub wave: u32,
    pub groups: u32,
    pub waves_per_group: u32,
    pub workgroups_per_cu: u32,
    /// `iters` kernel argument, and the instructions each lane issues.
    pub iters: u32,
    pub issued_per_lane: u32,
    pub lanes: u64,
    /// lanes × issued_per_lane.
    pub lane_ops_per_launch: u64,
    pub lds_bytes_per_group: u32,
    /// `pass`, `wrong-result`, `timeout` or `fault`.
    pub outcome: String,
    pub error: Option<String>,
    pub check: CheckRecord,
    /// Launch time over the timed repetitions (seconds).
    pub seconds: Option<Spread>,
    /// Every timed repetition, in order (seconds).
    pub samples_seconds: Vec<f64>,
    /// Null unless `outcome` is `pass`.
    pub lane_ops_per_second: Option<Rate>,
    /// lane_ops_per_second.median × 8 bytes; null unless `pass`.
    pub lds_bytes_per_second: Option<f64>,
    /// lane_ops_per_second.median / ceiling; null without a ceiling.
    pub fraction_of_ceiling: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckRecord {
    /// Launches whose outputs were checked (warm-up and timed).
    pub launches_checked: u32,
    /// True when every exactly-expected value is 0 (`bench::expect::
    /// all_exact_zero`: an even number of rounds, e.g. `_indep` with `iters`
    /// a multiple of 8; never with the default counts): the check then
    /// proves every output was written and every contended fold consistent,
    /// but a kernel writing zeros without issuing an atomic would pass it.
    #[serde(default)]
    pub expected_all_zero: bool,
    pub lds_qwords_checked: u64,
    pub folds_exact: u64,
    pub folds_in_span: u64,
    pub mismatches: u64,
    pub first_mismatches: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Spread {
    pub count: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub q1: f64,
    pub q3: f64,
    pub mad: f64,
}

/// A rate from the launch-time spread: `median` from the median time, `min`
/// from the slowest launch, `max` from the fastest.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rate {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The smallest and largest nonzero rate a record may hold (per second).
pub const MIN_RATE: f64 = 1e-3;
pub const MAX_RATE: f64 = 1e18;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read bench record {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path} is not a bench record: {cause}")]
    Parse {
        path: PathBuf,
        cause: serde_json::Error,
    },
    #[error("{path}: format `{found}`, expected `{BENCH_FORMAT}`")]
    Format { path: PathBuf, found: String },
    #[error("{path}: {what}")]
    Invalid { path: PathBuf, what: String },
    #[error("cannot write bench record {path}: {cause}")]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// A results-module write error as the record's, its path and cause said
/// once (wrapping its text doubled them: "cannot write bench record P:
/// cannot write P: …").
fn write_error(e: crate::report::results::ResultsError) -> RecordError {
    use crate::report::results::ResultsError;
    match e {
        ResultsError::Write { path, cause } | ResultsError::CreateDir { path, cause } => {
            RecordError::Write { path, cause }
        }
        ResultsError::Read { path, cause } => RecordError::Write { path, cause },
        ResultsError::Malformed { path, why } => RecordError::Write {
            path,
            cause: std::io::Error::other(why),
        },
        // Comparing case streams is not writing; kept for completeness.
        ResultsError::DigestFormat { a, a_format, .. } => RecordError::Write {
            path: a,
            cause: std::io::Error::other(format!("case digests `{a_format}`")),
        },
        ResultsError::Output(crate::report::output::OutputError::Io { path, cause }) => {
            RecordError::Write { path, cause }
        }
        ResultsError::Output(crate::report::output::OutputError::Refused { path, why }) => {
            RecordError::Write {
                path,
                cause: std::io::Error::other(why),
            }
        }
    }
}

impl BenchRecord {
    /// Parse and validate a record from JSON text (`path` names it in errors).
    pub fn from_json(text: &str, path: &Path) -> Result<BenchRecord, RecordError> {
        crate::json::refuse_duplicate_keys(text).map_err(|source| RecordError::Parse {
            path: path.to_path_buf(),
            cause: source,
        })?;
        let r: BenchRecord = serde_json::from_str(text).map_err(|source| RecordError::Parse {
            path: path.to_path_buf(),
            cause: source,
        })?;
        if r.format != BENCH_FORMAT {
            return Err(RecordError::Format {
                path: path.to_path_buf(),
                found: r.format,
            });
        }
        let invalid = |what: String| RecordError::Invalid {
            path: path.to_path_buf(),
            what,
        };
        if r.metric != METRIC_GPU && r.metric != METRIC_EMULATED {
            return Err(invalid(format!("unknown metric `{}`", r.metric)));
        }
        if humantime::parse_rfc3339(&r.created_utc).is_err() {
            return Err(invalid(format!(
                "created_utc `{}` is not RFC 3339",
                r.created_utc
            )));
        }
        let mut names = std::collections::BTreeSet::new();
        for run in &r.runs {
            if !names.insert(run.name.as_str()) {
                return Err(invalid(format!("run `{}` appears twice", run.name)));
            }
            let rates = [
                run.lane_ops_per_second.map(|x| x.median),
                run.lane_ops_per_second.map(|x| x.min),
                run.lane_ops_per_second.map(|x| x.max),
                run.lds_bytes_per_second,
            ];
            // Policy: a rate is 0 or within [MIN_RATE, MAX_RATE]. Rates near
            // the limits of a double (1e-308, 1e308) made the plotting
            // library's log axis spin forever or exhaust memory; no device
            // does fewer than 1e-3 or more than 1e18 operations a second.
            if rates
                .iter()
                .flatten()
                .any(|x| !(*x == 0.0 || (MIN_RATE..=MAX_RATE).contains(x)))
            {
                return Err(invalid(format!(
                    "run `{}` has a rate outside 0 or [{MIN_RATE:e}, {MAX_RATE:e}] per second",
                    run.name
                )));
            }
            if run.outcome != "pass" && run.lane_ops_per_second.is_some() {
                return Err(invalid(format!(
                    "run `{}` has outcome `{}` but a rate: a failed run never counts",
                    run.name, run.outcome
                )));
            }
        }
        Ok(r)
    }

    pub fn load(path: &Path) -> Result<BenchRecord, RecordError> {
        let text = crate::json::read_bounded(path, crate::json::MAX_DOCUMENT_BYTES, "bench record")
            .map_err(|source| RecordError::Read {
                path: path.to_path_buf(),
                cause: source,
            })?;
        BenchRecord::from_json(&text, path)
    }

    /// Write as pretty JSON to `path`, atomically (no torn or empty file).
    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        let write_err = |source| RecordError::Write {
            path: path.to_path_buf(),
            cause: source,
        };
        let text =
            serde_json::to_string_pretty(self).map_err(|e| write_err(std::io::Error::other(e)))?;
        // Whole or absent, as results files are: a reader (a CI step, a
        // test waiting on a hung process) never sees half a record.
        crate::report::results::write_text_atomic(path, &(text + "\n")).map_err(write_error)
    }

    /// Write as pretty JSON into `dir` under [`BenchRecord::file_name`], or
    /// that name with `-2`, `-3`… when a record of the same second is
    /// already there; never replaces a file. Returns the path.
    pub fn save_new(&self, dir: &Path) -> Result<PathBuf, RecordError> {
        let name = self.file_name();
        let stem = name.strip_suffix(".json").unwrap_or(&name);
        let write_err = |source| RecordError::Write {
            path: dir.join(&name),
            cause: source,
        };
        let text =
            serde_json::to_string_pretty(self).map_err(|e| write_err(std::io::Error::other(e)))?;
        crate::report::results::write_new_file(dir, stem, "json", &(text + "\n"))
            .map_err(write_error)
    }

    /// True when the rates are the software device's, not a GPU's.
    pub fn is_emulated(&self) -> bool {
        self.metric == METRIC_EMULATED
    }

    /// The file name the record is saved under:
    /// `bench-<created_utc without separators>-<backend>-<target>.json`.
    pub fn file_name(&self) -> String {
        let stamp: String = self
            .created_utc
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        let target: String = self
            .environment
            .device
            .target_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!(
            "bench-{stamp}-{}-{target}.json",
            self.environment.device.backend.name()
        )
    }

    pub fn run(&self, name: &str) -> Option<&RunRecord> {
        self.runs.iter().find(|r| r.name == name)
    }

    /// The run of this record that measures the same thing as `like`: same
    /// name, kernel, wave size, workgroups, waves and iterations. A quick
    /// run and a full run of one pattern are not comparable.
    pub fn comparable_run(&self, like: &RunRecord) -> Option<&RunRecord> {
        self.run(&like.name).filter(|b| {
            (b.groups, b.waves_per_group, b.wave, b.iters, &b.kernel)
                == (
                    like.groups,
                    like.waves_per_group,
                    like.wave,
                    like.iters,
                    &like.kernel,
                )
        })
    }
}

/// One run's comparison with a baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub name: String,
    pub baseline: Option<f64>,
    pub current: Option<f64>,
    /// current / baseline × 100, when both rates exist.
    pub percent: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// At or above the threshold.
    Ok,
    /// Below `PCT` % of the baseline.
    Regressed,
    /// The current run did not pass its check (never a pass).
    Failed,
    /// Not comparable (absent from one side, other geometry, or the baseline run failed).
    NotCompared,
}

/// Compare `current` against `baseline`, run by run (same name and
/// geometry): a run whose median rate is below `fail_below_pct` % of the
/// baseline's regressed; a current run that failed its check fails.
/// An error when the two records measure different things (emulated
/// against GPU rates).
pub fn compare(
    current: &BenchRecord,
    baseline: &BenchRecord,
    fail_below_pct: f64,
) -> Result<Vec<Comparison>, String> {
    if current.metric != baseline.metric {
        return Err(format!(
            "cannot compare `{}` with a baseline of `{}`: the emulator's speed is no GPU figure",
            current.metric, baseline.metric
        ));
    }
    let mut out = Vec::new();
    for run in &current.runs {
        let current_rate = run.lane_ops_per_second.map(|r| r.median);
        let baseline_rate = baseline
            .comparable_run(run)
            .and_then(|b| b.lane_ops_per_second.map(|r| r.median));
        let percent = match (current_rate, baseline_rate) {
            (Some(c), Some(b)) if b > 0.0 => Some(c / b * 100.0),
            _ => None,
        };
        let verdict = if run.outcome != "pass" {
            Verdict::Failed
        } else {
            match percent {
                Some(p) if p < fail_below_pct => Verdict::Regressed,
                Some(_) => Verdict::Ok,
                None => Verdict::NotCompared,
            }
        };
        out.push(Comparison {
            name: run.name.clone(),
            baseline: baseline_rate,
            current: current_rate,
            percent,
            verdict,
        });
    }
    Ok(out)
}
