//! `dsxor soak`: burn-in for a duration or until the first failure. Most of
//! the time goes to the soak kernel ([`kernel`]: many rounds per launch, each
//! return checked on the device, the final LDS exactly by the host); the
//! rest of the cost (`kernel_share`, counted as [`ShareMeter`] says) goes
//! to the conformance suite's case stream, so every return of those cases
//! is still judged for exact serializability. A kernel launch that fails is replayed
//! as a conformance case with the same lanes, ADDR, DATA and EXEC, and
//! minimized into a repro file when the replay fails too.
//!
//! The case stream is cut into chunks; chunk
//! k is a whole suite run of `chunk_spec` with the seed [`chunk_seed`]`(seed,
//! k)`, so `dsxor run --seed <chunk seed> --cases <chunk cases>` with the same
//! selection replays it. Every case is judged as `run` judges it (the same
//! generator, judge, worker processes and minimizer: `suite::run`); a
//! failure is minimized into a normal repro file. The record (`dsxor-soak/2`)
//! is written atomically every checkpoint interval and at the end, and a
//! soak resumed from it continues at its next chunk and kernel launch.

pub mod kernel;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::cpu;
use crate::backend::conformance::{CaseDevice, DeviceOutcome};
use crate::backend::BackendError;
use crate::case::{Mode, WaveSize};
use crate::exit;
use crate::gen::odds;
use crate::gen::pattern::{generate_on, CaseId, Pattern};
use crate::gen::soak::SoakLayout;
use crate::gen::suite::Planned;
use crate::gen::SuiteSpec;
use crate::report::console::Progress;
use crate::report::results::{rfc3339, Environment, FailureRecord, Parameters, ResultsError};

use super::repro::Repro;
use super::run::{abort_from, with_workers, Abort, Failure, Feed, Findings, RunOptions, Worker};
use super::Judge;

/// The format tag of a soak record.
pub const SOAK_FORMAT: &str = "dsxor-soak/2";

/// The format before the soak kernel: conformance chunks only, no kernel
/// totals. Refused by `--resume` with a message.
const SOAK_FORMAT_1: &str = "dsxor-soak/1";

/// The seed of chunk `k` of a soak seeded `seed`: SplitMix64 of the pair
/// (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014: its finalizer), so neighbouring chunks draw unrelated cases
/// and the stream is the same on every machine.
pub fn chunk_seed(seed: u64, k: u64) -> u64 {
    let mut z = seed
        .wrapping_add(k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A soak's record: its checkpoint while it runs, its results when it ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SoakRecord {
    pub format: String,
    pub dsxor_version: String,
    /// `running` in a checkpoint written on the way; `passed`, `failed` or
    /// `aborted` once the soak ended (a resumed soak starts from any).
    pub status: SoakStatus,
    /// Why the last session stopped (`duration 8h elapsed`, `first failure`,
    /// `stopped by SIGTERM`, an environment error); None while running.
    pub stop_reason: Option<String>,
    /// When the first session started, and when this was written.
    pub started_utc: String,
    pub updated_utc: String,
    /// The soak's seed; chunk k runs with [`chunk_seed`]`(seed, k)`.
    pub seed: u64,
    /// Every chunk's suite: this spec with `seed` replaced by the chunk's
    /// (`cases` is the chunk's case count).
    pub chunk_spec: SuiteSpec,
    /// The chunk a resumed soak starts at: one past the last chunk begun
    /// (a chunk cut short by the deadline or a signal is not run again;
    /// its judged cases are in the totals).
    pub next_chunk: u64,
    /// The soak kernel's share of the soak's cost, 0 to 1 (0: conformance
    /// chunks only; 1: kernel launches only). Policy `soak-share-cost`: a
    /// launch costs the longer of its wall time and the CPU time of the
    /// process and its worker processes in it, the cases the rest of that
    /// CPU time (generating, running and judging them).
    pub kernel_share: f64,
    /// The kernel launch a resumed soak starts at (launch k's layout is
    /// `gen::soak::SoakLayout::generate(seed, k, ..)`).
    pub next_launch: u64,
    /// Sessions (the first run and each `--resume`).
    pub sessions: u32,
    /// Wall time of every session together, in ms.
    pub elapsed_ms: u64,
    pub totals: SoakTotals,
    /// The confidence of `rules_out`.
    pub confidence: f64,
    /// The fault rate the passed contended lane-ops rule out with
    /// `confidence` (`1 in N`, `gen::odds`); None before any ran and once
    /// a case failed.
    pub rules_out: Option<String>,
    /// Every failure, with the chunk it was found in.
    pub failures: Vec<SoakFailure>,
    /// Every soak kernel launch that failed its check, and what its replay
    /// as a conformance case showed.
    pub kernel_failures: Vec<KernelFailure>,
    /// Repro files written, over every session.
    pub repros: Vec<String>,
    pub environment: Environment,
    pub parameters: Parameters,
}

/// `running`, `passed`, `failed` (a conformance failure) or `aborted`
/// (stopped by a signal or the environment with no failure found).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SoakStatus {
    Running,
    Passed,
    Failed,
    Aborted,
}

/// Counts over every session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SoakTotals {
    /// Chunks run to their end.
    pub chunks_completed: u64,
    pub cases: u64,
    pub passed: u64,
    pub failed: u64,
    /// Kernel launches (a batched HIP launch carries several cases).
    pub launches: u64,
    /// Lane-operations whose returns and final LDS were checked (passed
    /// cases that completed).
    pub verified_lane_ops: u64,
    /// Contended lane-ops of the passed cases (`gen::odds`): what the
    /// `rules_out` claim is sized by.
    pub contended_lane_ops: u64,
    /// The soak kernel's launches (not in `launches`, `verified_lane_ops`
    /// or `contended_lane_ops` above, which count conformance cases).
    pub kernel: KernelTotals,
}

/// The soak kernel's counts over every session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelTotals {
    pub launches: u64,
    /// Launches whose check passed.
    pub passed: u64,
    /// Launches whose check failed, or that faulted or timed out.
    pub failed: u64,
    /// Lane-operations (active lanes × rounds) of the passed launches:
    /// each return checked on the device, the final LDS by the host.
    pub verified_lane_ops: u64,
    /// Those on a qword another active lane of the group also updates.
    pub contended_lane_ops: u64,
    /// Wall time of the launches and their checks, ms.
    pub ms: u64,
}

/// A soak kernel launch that failed, with its layout's name (seed, launch,
/// wave, mode, pairs: `gen::soak::SoakLayout::generate` rebuilds it) and
/// what its replay as a conformance case showed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelFailure {
    pub launch: u64,
    pub wave: WaveSize,
    pub mode: Mode,
    pub pairs: u32,
    pub groups: u32,
    pub waves_per_group: u32,
    /// `wrong-result`, `fault` or `timeout`.
    pub outcome: String,
    pub summary: String,
    /// The replay: the kind the conformance judge found, or why none.
    pub replay: String,
    /// The repro file of the minimized replay, when it failed too.
    pub repro: Option<String>,
}

/// One failure of a soak: the chunk and its seed, and the case's record as
/// `run` writes it (its `index` is the case's index in that chunk).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SoakFailure {
    pub chunk: u64,
    pub chunk_seed: u64,
    pub failure: FailureRecord,
}

#[derive(Debug, thiserror::Error)]
pub enum SoakError {
    /// The record cannot be written (exit 2 for a refused path, else 3).
    #[error(transparent)]
    Write(#[from] ResultsError),
    #[error("{path}: {why}")]
    Malformed { path: PathBuf, why: String },
    /// The record could not be written after `failed` conformance
    /// failures were found: those still decide the exit code (1).
    #[error(
        "{error} (after {failed} conformance failures were found; their repro files are written)"
    )]
    Unwritten { error: ResultsError, failed: u64 },
}

impl SoakError {
    /// Conformance failures found before this error.
    pub fn failures_found(&self) -> u64 {
        match self {
            SoakError::Unwritten { failed, .. } => *failed,
            _ => 0,
        }
    }
}

impl SoakRecord {
    /// Read a record (for `--resume`): bounded, duplicate keys refused, the
    /// format tag checked.
    pub fn read(path: &Path) -> Result<SoakRecord, SoakError> {
        let malformed = |why: String| SoakError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        let text = crate::json::read_bounded(path, crate::json::MAX_RESULTS_BYTES, "soak record")
            .map_err(|e| malformed(e.to_string()))?;
        crate::json::refuse_duplicate_keys(&text).map_err(|e| malformed(e.to_string()))?;
        #[derive(Deserialize)]
        struct Tag {
            format: Option<String>,
        }
        let tag: Tag = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        if tag.format.as_deref() == Some(SOAK_FORMAT_1) {
            return Err(malformed(format!(
                "format `{SOAK_FORMAT_1}`: a soak of an older dsxor (conformance chunks only, \
                 no soak kernel totals); it cannot be resumed by this one, which writes \
                 `{SOAK_FORMAT}`: start a new soak"
            )));
        }
        if tag.format.as_deref() != Some(SOAK_FORMAT) {
            return Err(malformed(format!(
                "format {:?}, expected `{SOAK_FORMAT}` (a `dsxor soak` record)",
                tag.format.unwrap_or_default()
            )));
        }
        serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))
    }
}

/// How to soak.
pub struct SoakOptions {
    /// The chunk suite (`spec`, with the soak's seed), where repros go
    /// (`out_dir`), the minimization budget, the repro cap, parameters and
    /// the selection notice; `results_path` and `junit` are not used.
    pub run: RunOptions,
    /// Where the record is written (and replaced at each checkpoint).
    pub record_path: PathBuf,
    /// Stop after this long (this session), if given.
    pub duration: Option<Duration>,
    /// Stop after this many chunks (this session), if given.
    pub chunks: Option<u64>,
    /// Stop after this many soak kernel launches (this session), if given.
    pub launches: Option<u64>,
    /// The soak kernel's share of the soak's cost (0 to 1, as the record's;
    /// a resumed soak keeps its record's).
    pub kernel_share: f64,
    /// Round pairs per kernel launch.
    pub kernel_pairs: u32,
    /// Per kernel launch; one still running then is a timeout.
    pub launch_timeout: Duration,
    pub stop_on_failure: bool,
    /// Write the record at least this often (at the end of a chunk).
    pub checkpoint_every: Duration,
    /// A progress line at least this often.
    pub progress_every: Duration,
    pub confidence: f64,
    /// The record to continue (`--resume`): its seed, chunk spec and next
    /// chunk are used, its totals carried on.
    pub resume: Option<SoakRecord>,
}

/// What a soak produced.
pub struct SoakOutcome {
    pub record: SoakRecord,
    pub path: PathBuf,
    /// 0 passed, 1 a conformance failure, 2 bad input, 3 environment.
    pub exit_code: u8,
}

/// Why the session stops.
enum Stop {
    Deadline,
    Chunks(u64),
    Launches(u64),
    FirstFailure,
    Aborted(Abort),
}

/// Soak on `device` (and `workers`, borrowed for the whole soak: HIP
/// worker processes are started once), judging with `judge`.
pub fn soak(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    opts: &SoakOptions,
    workers: &mut [Worker],
    environment: Environment,
) -> Result<SoakOutcome, SoakError> {
    let started = Instant::now();
    let deadline = opts.duration.map(|d| started + d);
    let mut record = open_record(opts, environment);
    let elapsed_before = record.elapsed_ms;
    let stem = opts
        .record_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "soak".into());
    let dir = opts.run.out_dir.clone();
    // Repro lines only: the soak's own progress is its lines below.
    let progress = Progress::with_mode(0, false);
    let info = device.info().clone();
    progress.println(&format!(
        "dsxor soak: seed {} ({:#x}), the soak kernel {:.0} % of the cost from launch {}, chunks of {} cases from chunk {}, {} on {} ({}), {}; record {}",
        record.seed,
        record.seed,
        record.kernel_share * 100.0,
        record.next_launch,
        record.chunk_spec.cases,
        record.next_chunk,
        info.backend.name(),
        info.name,
        info.target_id,
        until(opts),
        opts.record_path.display()
    ));
    write(&mut record, opts, started, elapsed_before)?;
    let first = record.next_chunk;
    let per_chunk = record.chunk_spec.cases.max(1);
    let plan = chunk_plan(&record.chunk_spec, record.seed, first);
    let (base, wgps) = (record.seed, record.chunk_spec.wgps);
    let generate = move |p: Planned| {
        let k = p.index / per_chunk;
        let local = p.index % per_chunk;
        generate_on(chunk_seed(base, k), p.id, local, wgps)
    };
    let objects = soak_objects(device, &record.chunk_spec);
    let mut session = Session {
        opts,
        first_chunk: first,
        first_launch: record.next_launch,
        per_chunk,
        record,
        totals: SoakTotals::default(),
        findings: Findings::default(),
        progress,
        objects,
        dir,
        stem,
        started,
        elapsed_before,
        deadline,
        last_checkpoint: Instant::now(),
        last_progress: Instant::now(),
    };
    let stop = with_workers(
        device,
        judge,
        plan,
        &generate,
        workers,
        |device, judge, mut feed| session.run(device, judge, &mut feed),
    )?;
    session.progress_line();
    let mut record = session.record;
    let failed = record.totals.failed > 0 || record.totals.kernel.failed > 0;
    let (status, reason, code) = closing(stop, failed, opts);
    record.status = status;
    record.stop_reason = Some(reason);
    write(&mut record, opts, started, elapsed_before)?;
    Ok(SoakOutcome {
        record,
        path: opts.record_path.clone(),
        exit_code: code,
    })
}

/// One endless plan over the chunks from `first`, so the worker threads
/// (and their allocator arenas) live for the whole soak: plan index
/// k·per_chunk + i is case i of chunk k.
fn chunk_plan(
    spec: &SuiteSpec,
    seed: u64,
    first: u64,
) -> impl Iterator<Item = Planned> + Clone + Send + 'static {
    let per_chunk = spec.cases.max(1);
    let template = spec.clone();
    (first..u64::MAX / per_chunk).flat_map(move |k| {
        let spec = SuiteSpec {
            seed: chunk_seed(seed, k),
            ..template.clone()
        };
        spec.plan_iter().map(move |p| Planned {
            index: k * per_chunk + p.index,
            id: p.id,
        })
    })
}

/// A soak session's loop state: the record, counters and clocks that the
/// kernel launches and the case stream both update, so each step is a
/// method rather than a function of a dozen borrowed pieces.
struct Session<'a> {
    opts: &'a SoakOptions,
    record: SoakRecord,
    /// This session's counts (the record's totals span every session).
    totals: SoakTotals,
    findings: Findings,
    progress: Progress,
    objects: Vec<(WaveSize, Mode, Vec<u8>)>,
    /// Where repros go, and the record's file stem that names them.
    dir: PathBuf,
    stem: String,
    started: Instant,
    elapsed_before: u64,
    deadline: Option<Instant>,
    last_checkpoint: Instant,
    last_progress: Instant,
    first_chunk: u64,
    first_launch: u64,
    per_chunk: u64,
}

impl Session<'_> {
    /// Interleave kernel launches (while the share meter says one is due)
    /// with the case stream until something stops the session.
    fn run(
        &mut self,
        device: &mut dyn CaseDevice,
        judge: &dyn Judge,
        feed: &mut Feed<'_>,
    ) -> Result<Stop, SoakError> {
        let share = self.record.kernel_share;
        let mut chunk = self.first_chunk;
        let mut meter = ShareMeter::new(share);
        if share > 0.0 && self.objects.is_empty() {
            return Ok(Stop::Aborted(Abort {
                code: exit::ENVIRONMENT,
                reason: format!(
                    "no code object of the selected waves and modes holds `{}`; \
                     --kernel-share 0 soaks with conformance cases only",
                    kernel::SOAK_KERNEL
                ),
            }));
        }
        loop {
            while meter.kernel_due() {
                if let Some(stop) = self.kernel_turn(device, judge, feed, &mut meter)? {
                    return Ok(stop);
                }
            }
            let Some(next) = feed.next_planned() else {
                return Ok(Stop::Chunks(chunk - self.first_chunk));
            };
            let k = next.1.index / self.per_chunk;
            if k != chunk {
                // The chunks before k are done.
                self.record.totals.chunks_completed += k - chunk;
                chunk = k;
                if let Some(n) = self.opts.chunks.filter(|&n| k - self.first_chunk >= n) {
                    return Ok(Stop::Chunks(n));
                }
                self.checkpoint_if_due()?;
            }
            if let Some(signal) = super::stop::requested() {
                return Ok(Stop::Aborted(Abort {
                    code: exit::ENVIRONMENT,
                    reason: format!("stopped by {signal} in chunk {k}"),
                }));
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(Stop::Deadline);
            }
            self.record.next_chunk = k + 1;
            if let Some(stop) = self.case_turn(device, judge, feed, next) {
                return Ok(stop);
            }
            self.progress_if_due();
        }
    }

    /// One due kernel launch, unless a signal, the deadline or the launch
    /// limit stops the session first; its cost goes to `meter`.
    fn kernel_turn(
        &mut self,
        device: &mut dyn CaseDevice,
        judge: &dyn Judge,
        feed: &Feed<'_>,
        meter: &mut ShareMeter,
    ) -> Result<Option<Stop>, SoakError> {
        if let Some(signal) = super::stop::requested() {
            return Ok(Some(Stop::Aborted(Abort {
                code: exit::ENVIRONMENT,
                reason: format!(
                    "stopped by {signal} at kernel launch {}",
                    self.record.next_launch
                ),
            })));
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Some(Stop::Deadline));
        }
        if let Some(n) = self
            .opts
            .launches
            .filter(|&n| self.record.next_launch - self.first_launch >= n)
        {
            return Ok(Some(Stop::Launches(n)));
        }
        let launch = meter.start_launch(feed.ahead_cpu_seconds());
        let failed = kernel_step(self, device, judge)?;
        meter.end_launch(launch, feed.ahead_cpu_seconds());
        if failed.is_some() {
            return Ok(failed);
        }
        self.checkpoint_if_due()?;
        self.progress_if_due();
        Ok(None)
    }

    /// Take the next case's result from `feed` and count it; a failure goes
    /// to [`Session::add_failure`]. Some: what stops the session.
    fn case_turn(
        &mut self,
        device: &mut dyn CaseDevice,
        judge: &dyn Judge,
        feed: &mut Feed<'_>,
        next: (usize, Planned),
    ) -> Option<Stop> {
        let (generated, facts, evaluated) = match feed.evaluate(device, judge, next) {
            Ok(x) => x,
            Err(a) => return Some(Stop::Aborted(a)),
        };
        let (outcome, judgement) = match evaluated {
            Ok(x) => x,
            Err(a) => return Some(Stop::Aborted(a)),
        };
        let t = &mut self.record.totals;
        t.cases += 1;
        self.totals.cases += 1;
        t.launches += u64::from(facts.opens_launch);
        if judgement.passed {
            t.passed += 1;
            t.contended_lane_ops += facts.contended_lane_ops;
            // A passed fault (a probe's MEMVIOL) verified no values.
            if matches!(outcome, DeviceOutcome::Completed { .. }) {
                t.verified_lane_ops += facts.lane_ops;
                self.totals.verified_lane_ops += facts.lane_ops;
            }
            return None;
        }
        t.failed += 1;
        let crate::gen::Generated { id, variant, case } = generated;
        let failure = Failure {
            index: next.1.index % self.per_chunk,
            id,
            variant,
            case,
            facts,
            outcome,
            judgement,
        };
        self.add_failure(device, judge, next.1.index / self.per_chunk, failure)
    }

    /// Record a failed case of chunk `k` as `run` would (shrunk, a repro
    /// written) under the chunk's own seed, so `dsxor run` replays it.
    fn add_failure(
        &mut self,
        device: &mut dyn CaseDevice,
        judge: &dyn Judge,
        k: u64,
        failure: Failure,
    ) -> Option<Stop> {
        let spec = SuiteSpec {
            seed: chunk_seed(self.record.seed, k),
            ..self.record.chunk_spec.clone()
        };
        let chunk_opts = RunOptions {
            spec,
            ..self.opts.run.clone()
        };
        let chunk_stem = format!("{}.chunk-{k}", self.stem);
        let at = (self.dir.as_path(), chunk_stem.as_str());
        let findings = &mut self.findings;
        let before = findings.repros.len();
        let abort = findings.add(device, judge, &chunk_opts, at, &mut self.progress, failure);
        for f in findings.failures.drain(..) {
            self.record.failures.push(SoakFailure {
                chunk: k,
                chunk_seed: chunk_opts.spec.seed,
                failure: f,
            });
        }
        self.record.repros.extend(
            findings.repros[before..]
                .iter()
                .map(|p| p.display().to_string()),
        );
        if let Some(a) = abort {
            return Some(Stop::Aborted(a));
        }
        self.opts.stop_on_failure.then_some(Stop::FirstFailure)
    }

    /// Write the record when the checkpoint interval has passed.
    fn checkpoint_if_due(&mut self) -> Result<(), SoakError> {
        if self.last_checkpoint.elapsed() >= self.opts.checkpoint_every {
            self.last_checkpoint = Instant::now();
            write(
                &mut self.record,
                self.opts,
                self.started,
                self.elapsed_before,
            )?;
        }
        Ok(())
    }

    /// Print the progress line when the progress interval has passed.
    fn progress_if_due(&mut self) {
        if self.last_progress.elapsed() >= self.opts.progress_every {
            self.last_progress = Instant::now();
            self.progress_line();
        }
    }

    fn progress_line(&self) {
        progress_line(
            &self.record,
            self.started,
            self.elapsed_before,
            &self.totals,
        );
    }
}

/// The record this session writes: the resumed one, its session counted
/// and its status, environment and parameters this session's, or a new one.
fn open_record(opts: &SoakOptions, environment: Environment) -> SoakRecord {
    match &opts.resume {
        Some(r) => {
            let mut r = r.clone();
            r.sessions += 1;
            r.status = SoakStatus::Running;
            r.stop_reason = None;
            r.environment = environment;
            r.parameters = opts.run.parameters.clone();
            r.confidence = opts.confidence;
            r
        }
        None => SoakRecord {
            format: SOAK_FORMAT.into(),
            dsxor_version: env!("CARGO_PKG_VERSION").into(),
            status: SoakStatus::Running,
            stop_reason: None,
            started_utc: rfc3339(SystemTime::now()),
            updated_utc: rfc3339(SystemTime::now()),
            seed: opts.run.spec.seed,
            chunk_spec: opts.run.spec.clone(),
            next_chunk: 0,
            kernel_share: opts.kernel_share,
            next_launch: 0,
            sessions: 1,
            elapsed_ms: 0,
            totals: SoakTotals::default(),
            confidence: opts.confidence,
            rules_out: None,
            failures: Vec::new(),
            kernel_failures: Vec::new(),
            repros: Vec::new(),
            environment,
            parameters: opts.run.parameters.clone(),
        },
    }
}

/// The soak kernel's objects: one per (wave, mode) of the selection whose
/// code object holds it, taken in turn launch by launch.
fn soak_objects(device: &dyn CaseDevice, spec: &SuiteSpec) -> Vec<(WaveSize, Mode, Vec<u8>)> {
    device
        .kernel_objects()
        .iter()
        .filter(|o| spec.waves.contains(&o.wave) && spec.modes.contains(&o.mode))
        .filter(|o| {
            crate::codeobj::CodeObject::parse(&o.bytes)
                .ok()
                .and_then(|co| co.mode_of(kernel::SOAK_KERNEL))
                .is_some()
        })
        .map(|o| (o.wave, o.mode, o.bytes.clone()))
        .collect()
}

/// The record's status, stop reason and exit code for how the session
/// stopped and whether anything failed.
fn closing(stop: Stop, failed: bool, opts: &SoakOptions) -> (SoakStatus, String, u8) {
    match stop {
        Stop::Aborted(a) if !failed => (SoakStatus::Aborted, a.reason, a.code),
        Stop::Aborted(a) => (SoakStatus::Failed, a.reason, exit::FAIL),
        Stop::FirstFailure => (SoakStatus::Failed, "first failure".into(), exit::FAIL),
        Stop::Deadline | Stop::Chunks(_) | Stop::Launches(_) => {
            let reason = match stop {
                Stop::Chunks(n) => format!("{n} chunk(s) run"),
                Stop::Launches(n) => format!("{n} kernel launch(es) run"),
                _ => format!(
                    "duration {} elapsed",
                    show(opts.duration.unwrap_or_default())
                ),
            };
            if failed {
                (SoakStatus::Failed, reason, exit::FAIL)
            } else {
                (SoakStatus::Passed, reason, exit::PASS)
            }
        }
    }
}

/// Rounds of a failed kernel launch's replay as a conformance case: odd,
/// as the kernel's, and few, since the conformance kernels barrier between
/// rounds and the judge checks every return of every round exactly.
pub const REPLAY_ROUNDS: usize = 7;

/// One soak kernel launch: the next layout, launched, checked, counted; a
/// failure replayed as a conformance case and, when that fails too,
/// minimized into a repro file. Some: what stops the soak.
fn kernel_step(
    state: &mut Session<'_>,
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
) -> Result<Option<Stop>, SoakError> {
    let Session {
        opts,
        record,
        totals: session,
        progress,
        objects,
        dir,
        stem,
        ..
    } = state;
    let opts: &SoakOptions = opts;
    let at = (dir.as_path(), stem.as_str());
    let k = record.next_launch;
    let Some((wave, mode, bytes)) = objects.get((k % objects.len().max(1) as u64) as usize) else {
        return Ok(Some(Stop::Aborted(Abort {
            code: exit::ENVIRONMENT,
            reason: format!("no code object holds `{}`", kernel::SOAK_KERNEL),
        })));
    };
    let layout = SoakLayout::generate(record.seed, k, *wave, *mode, opts.kernel_pairs);
    record.next_launch = k + 1;
    let t0 = Instant::now();
    let result = kernel::launch(device, bytes, &layout, opts.launch_timeout);
    let t = &mut record.totals.kernel;
    t.launches += 1;
    session.kernel.launches += 1;
    t.ms += t0.elapsed().as_millis() as u64;
    let (outcome, summary) = match result {
        Ok((check, _)) if check.passed() => {
            t.passed += 1;
            t.verified_lane_ops += layout.lane_ops();
            t.contended_lane_ops += layout.contended_lane_ops();
            session.kernel.verified_lane_ops += layout.lane_ops();
            return Ok(None);
        }
        Ok((check, _)) => ("wrong-result", check.summary()),
        Err(e @ BackendError::Timeout { .. }) => ("timeout", e.to_string()),
        Err(e @ BackendError::Fault(_)) => ("fault", e.to_string()),
        Err(e) => return Ok(Some(Stop::Aborted(abort_from(&e)))),
    };
    t.failed += 1;
    session.kernel.failed += 1;
    progress.println(&format!(
        "FAIL soak kernel launch {k} (wave{} {} mode, {} group(s) x {} wave(s), {} rounds): {outcome}: {summary} — replaying as a conformance case",
        wave.lanes(),
        mode,
        layout.geometry.groups,
        layout.geometry.waves_per_group,
        layout.rounds()
    ));
    let (replay, repro, abort) = replay_launch(device, judge, opts, record, &layout, k, at);
    progress.println(&format!("     replay: {replay}"));
    if let Some(r) = &repro {
        record.repros.push(r.clone());
    }
    record.kernel_failures.push(KernelFailure {
        launch: k,
        wave: *wave,
        mode: *mode,
        pairs: layout.pairs,
        groups: layout.geometry.groups,
        waves_per_group: layout.geometry.waves_per_group,
        outcome: outcome.into(),
        summary,
        replay,
        repro,
    });
    if let Some(a) = abort {
        return Ok(Some(Stop::Aborted(a)));
    }
    Ok(opts.stop_on_failure.then_some(Stop::FirstFailure))
}

/// Replay launch `k`'s layout as a conformance case of [`REPLAY_ROUNDS`]
/// rounds and judge it; minimize it into a repro file when it fails (and
/// the repro cap allows). What the replay showed, the repro path, and what
/// stops the soak (the device failing, the repro not written).
fn replay_launch(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    opts: &SoakOptions,
    record: &SoakRecord,
    layout: &SoakLayout,
    k: u64,
    (dir, stem): (&Path, &str),
) -> (String, Option<String>, Option<Abort>) {
    let case = layout.to_case(REPLAY_ROUNDS, record.seed ^ k);
    let outcome = match device.run_case(&case) {
        Ok(o) => o,
        Err(e) => return (format!("not replayed: {e}"), None, Some(abort_from(&e))),
    };
    let judgement = match judge.judge(&case, &outcome) {
        Ok(j) => j,
        Err(e) => return (format!("not judged: {e}"), None, None),
    };
    if judgement.passed {
        return (
            format!(
                "the same lanes as a conformance case of {REPLAY_ROUNDS} rounds passed: not \
                 reproduced there (its kernel barriers between rounds, the soak kernel's \
                 waves run their rounds freely; the record names the launch, which \
                 `gen::soak::SoakLayout::generate` rebuilds)"
            ),
            None,
            None,
        );
    }
    let kind = judgement.kind.clone().unwrap_or_else(|| "unknown".into());
    let found = format!(
        "failed as a conformance case: {kind}: {}",
        judgement.summary
    );
    if record.repros.len() >= opts.run.max_repros {
        return (
            format!("{found} (not minimized: repro cap reached)"),
            None,
            None,
        );
    }
    let (shrunk, env_error) =
        super::run::shrink(device, judge, &case, outcome, judgement, opts.run.minimize);
    let kernel_id = device
        .kernel_identity(&shrunk.case)
        .unwrap_or_else(|_| super::run::unknown_kernel(&shrunk.case));
    // No conformance family draws this case: the id names the launch
    // (ordinal k, the layout's wave and mode) under the stress family, and
    // the variant says it is a soak kernel launch; the case itself is in
    // the file, which `dsxor repro` replays.
    let id = CaseId {
        pattern: Pattern::Stress,
        wave: layout.geometry.wave_size,
        mode: layout.geometry.mode,
        ordinal: k,
    };
    let mut repro = Repro::new(
        record.seed,
        crate::gen::GENERATOR_VERSION,
        id,
        "soak-kernel",
        &case,
        shrunk.case.clone(),
        &shrunk.judgement,
        shrunk.outcome.clone(),
        device.info().clone(),
        kernel_id,
        judge.policy(),
        shrunk.stats.clone(),
    );
    repro.fault = opts.run.parameters.fault.clone();
    let path = dir.join(format!("{stem}.launch-{k}.repro.json"));
    if let Err(e) = repro.write(&path) {
        return (
            found,
            None,
            Some(Abort {
                code: exit::ENVIRONMENT,
                reason: e.to_string(),
            }),
        );
    }
    let after = shrunk.case.lanes.iter().filter(|l| l.active).count();
    (
        format!(
            "{found}; minimized to {} group(s) x {} wave(s), {after} active lane(s), {} round(s)",
            shrunk.case.geometry.groups,
            shrunk.case.geometry.waves_per_group,
            shrunk.case.rounds()
        ),
        Some(path.display().to_string()),
        env_error.map(|e| abort_from(&e)),
    )
}

/// Update the record's clock and claim, and write it atomically.
fn write(
    record: &mut SoakRecord,
    opts: &SoakOptions,
    started: Instant,
    elapsed_before: u64,
) -> Result<(), SoakError> {
    record.elapsed_ms = elapsed_before + started.elapsed().as_millis() as u64;
    record.updated_utc = rfc3339(SystemTime::now());
    record.rules_out = ruled_out(record).map(odds::one_in);
    crate::report::results::write_atomic(&opts.record_path, record).map_err(|error| {
        match record.totals.failed + record.totals.kernel.failed {
            0 => SoakError::Write(error),
            failed => SoakError::Unwritten { error, failed },
        }
    })
}

/// The fault rate the passed contended lane-ops (conformance cases and
/// kernel launches) rule out; none once either failed (a fault was seen,
/// not ruled out).
fn ruled_out(record: &SoakRecord) -> Option<f64> {
    let t = &record.totals;
    if t.failed > 0 || t.kernel.failed > 0 {
        return None;
    }
    odds::rate_ruled_out(
        t.contended_lane_ops + t.kernel.contended_lane_ops,
        record.confidence,
    )
}

/// The live line on stderr: elapsed, chunks, cases, launches, failures,
/// this session's verified lane-ops per second, and the rate ruled out.
fn progress_line(record: &SoakRecord, started: Instant, elapsed_before: u64, session: &SoakTotals) {
    let t = &record.totals;
    let secs = started.elapsed().as_secs_f64();
    let rate = if secs > 0.0 {
        (session.verified_lane_ops + session.kernel.verified_lane_ops) as f64 / secs
    } else {
        0.0
    };
    let total = Duration::from_millis(elapsed_before) + started.elapsed();
    let rules_out = match ruled_out(record) {
        Some(r) => format!("rules out {} at {}", odds::one_in(r), record.confidence),
        None if t.failed + t.kernel.failed > 0 => "a failure: rules out nothing".into(),
        None => "rules out nothing yet".into(),
    };
    eprintln!(
        "soak {}: {} kernel launches ({} failed), chunk {}, {} cases ({} launches, {} failed), {:.3e} verified lane-ops/s, {rules_out}",
        show(Duration::from_secs(total.as_secs())),
        t.kernel.launches,
        t.kernel.failed,
        record.next_chunk.saturating_sub(1),
        t.cases,
        t.launches,
        t.failed,
        rate,
    );
}

/// "for 8h, 10 chunks or until the first failure".
fn until(opts: &SoakOptions) -> String {
    let mut limits: Vec<String> = Vec::new();
    if let Some(d) = opts.duration {
        limits.push(show(d));
    }
    if let Some(n) = opts.chunks {
        limits.push(format!("{n} chunk(s)"));
    }
    if let Some(n) = opts.launches {
        limits.push(format!("{n} kernel launch(es)"));
    }
    let limits = limits.join(" or ");
    match (limits.is_empty(), opts.stop_on_failure) {
        (false, true) => format!("for {limits} or until the first failure"),
        (false, false) => format!("for {limits}"),
        (true, _) => "until the first failure".into(),
    }
}

fn show(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}

/// What each kind of work has cost a soak session, and whether the kernel
/// is due (policy `soak-share-cost`). A kernel launch costs the longer of
/// its wall time (a device's time) and the CPU time the process and its
/// child processes spent in it less the case workers' (the software device
/// spreads a launch's groups over threads; a HIP launch's host side runs in
/// a worker process). The cases cost the rest of that CPU time since the
/// session began ([`cpu::tree_cpu_seconds`]): the case worker threads',
/// their worker processes', the soak thread's, and the threads a case
/// evaluated on the soak's own software device spreads over.
struct ShareMeter {
    share: f64,
    /// Seconds the kernel launches have cost.
    kernel: f64,
    /// CPU seconds of the process tree in the launches, less the case
    /// workers': the launches' own work, which is not the cases'.
    kernel_cpu: f64,
    /// The tree's CPU clock when the session began.
    start: f64,
    /// The clock's last reading, and when: reading it lists the process's
    /// children in /proc, so between launches it is read at most every
    /// [`TREE_READ_EVERY`], not for every case.
    last: (f64, Instant),
}

/// How stale the case side's CPU reading may be when the meter decides.
const TREE_READ_EVERY: Duration = Duration::from_millis(10);

/// A launch under way: its start in wall time, the tree's CPU and the
/// case workers' CPU.
struct LaunchStart(Instant, f64, f64);

impl ShareMeter {
    fn new(share: f64) -> ShareMeter {
        ShareMeter::at(share, cpu::tree_cpu_seconds())
    }

    /// A meter whose session began when the tree's CPU clock read `start`.
    fn at(share: f64, start: f64) -> ShareMeter {
        ShareMeter {
            share,
            kernel: 0.0,
            kernel_cpu: 0.0,
            start,
            last: (start, Instant::now()),
        }
    }

    /// The kernel runs while it has less than its share of the cost.
    fn kernel_due(&mut self) -> bool {
        if self.last.1.elapsed() >= TREE_READ_EVERY {
            self.last = (cpu::tree_cpu_seconds(), Instant::now());
        }
        self.kernel_due_at(self.last.0)
    }

    /// [`ShareMeter::kernel_due`] with the tree's CPU clock at `tree`.
    fn kernel_due_at(&self, tree: f64) -> bool {
        let cases = tree - self.start - self.kernel_cpu;
        self.share >= 1.0
            || (self.share > 0.0 && self.kernel * (1.0 - self.share) < self.share * cases)
    }

    /// `ahead` is the case workers' CPU seconds so far
    /// ([`super::run::Feed::ahead_cpu_seconds`]).
    fn start_launch(&self, ahead: f64) -> LaunchStart {
        LaunchStart(Instant::now(), cpu::tree_cpu_seconds(), ahead)
    }

    fn end_launch(&mut self, start: LaunchStart, ahead: f64) {
        let tree = cpu::tree_cpu_seconds();
        self.end_launch_at(start, tree, ahead);
    }

    /// [`ShareMeter::end_launch`] with the tree's CPU clock at `tree`.
    fn end_launch_at(
        &mut self,
        LaunchStart(wall, before, workers): LaunchStart,
        tree: f64,
        ahead: f64,
    ) {
        let (cpu, workers) = (tree - before, ahead - workers);
        self.kernel += launch_cost(wall.elapsed().as_secs_f64(), cpu, workers);
        self.kernel_cpu += (cpu - workers).max(0.0);
        self.last = (tree, Instant::now());
    }
}

/// A launch's cost from its wall time, the process tree's CPU time in it
/// and the case workers' share of that CPU time (seconds).
fn launch_cost(wall: f64, process_cpu: f64, workers_cpu: f64) -> f64 {
    wall.max(process_cpu - workers_cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel is due while its cost is under its share of the whole;
    /// the cases cost the tree's CPU since the session began, less the
    /// launches' own.
    #[test]
    fn the_kernel_is_due_while_under_its_share_of_the_cost() {
        // 3 to 1 (binary fractions, so the arithmetic is exact); the
        // session began with the tree's clock at 2.
        let mut m = ShareMeter::at(0.75, 2.0);
        assert!(!m.kernel_due_at(2.0), "nothing cost yet: a case goes first");
        assert!(m.kernel_due_at(2.25));
        m.kernel = 0.5;
        assert!(m.kernel_due_at(2.25));
        m.kernel = 0.75;
        assert!(!m.kernel_due_at(2.25), "3 to 1 reached");
        assert!(m.kernel_due_at(2.5), "more case CPU: the kernel is due");
        m.kernel_cpu = 0.25;
        assert!(
            !m.kernel_due_at(2.5),
            "the launches' own CPU is not the cases'"
        );
        m.kernel = 1e9;
        assert!(!ShareMeter { share: 0.0, ..m }.kernel_due_at(1e9));
        let first = ShareMeter::at(1.0, 0.0);
        assert!(first.kernel_due_at(0.0) && first.kernel_due_at(1e9));
    }

    /// A launch costs its wall time when the tree is idle in it (a device
    /// elsewhere), its CPU time less the case workers' when that is longer
    /// (a launch spread over threads); only its own CPU leaves the cases'.
    #[test]
    fn a_launch_costs_the_longer_of_its_wall_and_cpu_time() {
        assert_eq!(launch_cost(0.5, 0.01, 0.0), 0.5);
        assert_eq!(launch_cost(0.5, 1.0, 0.0), 1.0);
        assert_eq!(launch_cost(0.5, 1.0, 0.25), 0.75);
        assert_eq!(launch_cost(0.5, 1.0, 0.75), 0.5);
        let mut m = ShareMeter::new(0.5);
        let l = m.start_launch(0.0);
        std::thread::sleep(Duration::from_millis(30));
        m.end_launch(l, 0.0);
        assert!(m.kernel >= 0.03, "a sleeping launch cost {} s", m.kernel);
        let mut m = ShareMeter::at(0.5, 0.0);
        let l = LaunchStart(Instant::now(), 1.0, 0.5);
        m.end_launch_at(l, 3.0, 1.0);
        assert_eq!(
            m.kernel_cpu, 1.5,
            "2 s of tree CPU, 0.5 s of it the workers'"
        );
        assert!(m.kernel >= 1.5);
    }

    #[test]
    fn chunk_seeds_are_fixed_and_distinct() {
        // Fixed: a soak resumed anywhere draws the same chunks.
        assert_eq!(chunk_seed(1, 0), chunk_seed(1, 0));
        let seeds: std::collections::HashSet<u64> = (0..1000).map(|k| chunk_seed(1, k)).collect();
        assert_eq!(seeds.len(), 1000);
        assert_ne!(chunk_seed(1, 0), chunk_seed(2, 0));
    }
}
