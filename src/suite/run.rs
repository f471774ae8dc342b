//! `dsxor run`: the default suite (or a selection) on one device, every case
//! judged, every failure minimized on the same device and written as a
//! repro, results streamed and then written atomically.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::backend::conformance::{
    batch_key, launch_groups_of, run_launch, CaseDevice, DeviceOutcome, KernelIdentity,
    LaunchShare, BATCH_WINDOW,
};
use crate::backend::BackendError;
use crate::case::{Case, Stress, WaveSize};
use crate::exit;
use crate::gen::minimize::{minimize_until, Budget, MinimizeStats};
use crate::gen::suite::Planned;
use crate::gen::{case_digest, CaseId, Generated, Pattern, SuiteSpec};
use crate::report::console::{summary_table, Progress};
use crate::report::junit::write_junit;
use crate::report::results::{
    rfc3339, CaseRecord, CodeObjectRecord, Environment, FailureRecord, Parameters, PatternCounts,
    Results, ResultsError, ResultsWriter, Status, RESULTS_FORMAT,
};

use super::repro::{Repro, ReproError};
use super::{Judge, Judgement};

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub spec: SuiteSpec,
    pub out_dir: PathBuf,
    /// The results file (`--results`); default `OUT/<stem>.json`, named
    /// like the case stream beside it.
    pub results_path: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    /// Minimization budget; a zero time writes the unminimized case.
    pub minimize: Budget,
    /// Repro files at most. Only the first failure of each kind in each
    /// (pattern, wave, mode) cell is minimized and written; later ones of the same
    /// kind point to it (`same_kind_as`), so a device that fails everything
    /// still finishes in about the time of a passing run.
    pub max_repros: usize,
    pub parameters: Parameters,
    /// Why this backend (the selection notice).
    pub selection: String,
    /// Progress bar (`Some(true)`), plain lines (`Some(false)`), or detect.
    pub interactive: Option<bool>,
    /// Device probes already run (`suite::probe`): recorded in the results;
    /// a failed one fails the run.
    pub probes: Vec<crate::report::results::ProbeRecord>,
}

/// What a run produced.
#[derive(Debug)]
pub struct RunOutcome {
    pub results: Results,
    pub results_path: PathBuf,
    pub repros: Vec<PathBuf>,
    /// 0 passed, 1 a conformance failure, 2 bad input, 3 environment.
    pub exit_code: u8,
    /// Contended lane-ops of the cases that ran (`gen::odds`): what a
    /// pass rules out is sized by it.
    pub contended_lane_ops: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The results directory or files cannot be written (exit 2: `--out`).
    #[error(transparent)]
    Results(#[from] ResultsError),
    #[error(transparent)]
    Repro(#[from] ReproError),
    /// The final results file or JUnit could not be written (a full disk)
    /// after the run found `failed` conformance failures: those still
    /// decide the exit code (1), the write error is reported beside them.
    #[error("{error} (after {failed} conformance failures were found; the case stream has them)")]
    Unwritten { error: ResultsError, failed: u64 },
}

impl RunError {
    /// Conformance failures the run had found before this error.
    pub fn failures_found(&self) -> u64 {
        match self {
            RunError::Unwritten { failed, .. } => *failed,
            _ => 0,
        }
    }

    /// An output path refused by the output-path policy (the user's, 2).
    pub fn is_refusal(&self) -> bool {
        match self {
            RunError::Results(e) | RunError::Unwritten { error: e, .. } => e.is_refusal(),
            RunError::Repro(_) => false,
        }
    }
}

/// Write the final results file (and JUnit); a write error after
/// conformance failures keeps their count ([`RunError::Unwritten`]).
fn write_final(
    writer: &mut ResultsWriter,
    opts: &RunOptions,
    results: &Results,
) -> Result<PathBuf, RunError> {
    let unwritten = |error| {
        if results.failed > 0 {
            RunError::Unwritten {
                error,
                failed: results.failed,
            }
        } else {
            RunError::Results(error)
        }
    };
    let path = writer.finish(results).map_err(unwritten)?;
    if let Some(j) = &opts.junit {
        write_junit(j, results).map_err(unwritten)?;
    }
    Ok(path)
}

/// Why a run stopped early.
pub(crate) struct Abort {
    pub(crate) code: u8,
    pub(crate) reason: String,
}

pub(crate) fn abort_from(e: &BackendError) -> Abort {
    Abort {
        code: if e.is_bad_input() {
            exit::USAGE
        } else {
            exit::ENVIRONMENT
        },
        reason: e.to_string(),
    }
}

fn host() -> (String, String, usize) {
    (
        std::env::consts::OS.to_string(),
        std::env::consts::ARCH.to_string(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    )
}

pub fn environment(device: &dyn CaseDevice, selection: &str) -> Environment {
    let (host_os, host_arch, host_cpus) = host();
    let driver = crate::backend::HostDriver::read();
    Environment {
        device: device.info().clone(),
        selection: selection.to_string(),
        code_objects: device
            .kernel_objects()
            .iter()
            .map(|o| CodeObjectRecord {
                wave: o.wave,
                mode: o.mode,
                source: o.source.clone(),
                sha256: o.sha256(),
                origin: o.origin.clone(),
                compiler: o.compiler.clone(),
                target: crate::codeobj::target_of(&o.bytes),
            })
            .collect(),
        host_os,
        host_arch,
        host_cpus,
        devices: Vec::new(),
        hsa_override_gfx_version: driver.hsa_override_gfx_version,
        amdgpu_driver_version: driver.amdgpu_driver_version,
    }
}

/// A failing case's shrunk form, with its outcome and verdict.
pub struct Shrunk {
    pub case: Case,
    pub outcome: DeviceOutcome,
    pub judgement: Judgement,
    pub stats: MinimizeStats,
}

/// Minimize `case` (which failed with `judgement`) on `device`: a candidate
/// is kept when it fails with the same kind. Environment trouble during
/// minimization is returned after the best case so far.
pub fn shrink(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    case: &Case,
    outcome: DeviceOutcome,
    judgement: Judgement,
    budget: Budget,
) -> (Shrunk, Option<BackendError>) {
    // The kind a candidate must fail with. A lost update before the last
    // round shows only in the next round, as `broken-chain`: a candidate
    // cut at the faulting round shows the same defect under its own kind
    // (`lost-update`), is kept, and the kind follows it.
    let kind = RefCell::new(judgement.kind.clone());
    let env_error: RefCell<Option<BackendError>> = RefCell::new(None);
    let last: RefCell<Option<(DeviceOutcome, Judgement)>> = RefCell::new(None);
    let stopping = || super::stop::requested().is_some();
    let m = minimize_until(case, budget, stopping, |candidate| {
        if env_error.borrow().is_some() {
            return false;
        }
        match device.run_case(candidate) {
            Ok(o) => match judge.judge(candidate, &o) {
                Ok(j)
                    if !j.passed
                        && (j.kind == *kind.borrow()
                            || (kind.borrow().as_deref() == Some("broken-chain")
                                && candidate.rounds() < case.rounds())) =>
                {
                    *kind.borrow_mut() = j.kind.clone();
                    *last.borrow_mut() = Some((o, j));
                    true
                }
                _ => false,
            },
            Err(e) => {
                *env_error.borrow_mut() = Some(e);
                false
            }
        }
    });
    let (outcome, judgement) = if m.case == *case {
        (outcome, judgement)
    } else {
        // The last accepted candidate is the final case (minimize keeps a
        // candidate exactly when the closure returned true).
        last.into_inner().unwrap_or((outcome, judgement))
    };
    (
        Shrunk {
            case: m.case,
            outcome,
            judgement,
            stats: m.stats,
        },
        env_error.into_inner(),
    )
}

struct Cell {
    counts: PatternCounts,
    started: Instant,
    /// `pattern/waveN/mode`, for progress lines: made once per cell.
    name: String,
}

/// A device and a judge of its own, to run cases beside the main device.
pub type Worker = (Box<dyn CaseDevice + Send>, Box<dyn Judge + Send>);

/// Cases a worker may run ahead of the one being recorded.
const WORKER_AHEAD: usize = 16;

/// What the run records of a case, taken before a passed case's data is
/// dropped.
pub struct Facts {
    pub case_digest: String,
    pub active_lanes: usize,
    pub rounds: u32,
    pub lane_ops: u64,
    pub contended_lane_ops: u64,
    /// The first case of its launch (a batched launch carries several):
    /// counting these counts launches.
    pub opens_launch: bool,
}

impl Facts {
    fn of(case: &Case, opens_launch: bool) -> Facts {
        Facts {
            case_digest: case_digest(case),
            active_lanes: case.lanes.iter().filter(|l| l.active).count(),
            rounds: case.rounds() as u32,
            lane_ops: case.lane_ops(),
            contended_lane_ops: crate::gen::odds::contended_lane_ops(case),
            opens_launch,
        }
    }
}

/// Bytes of generated cases (`conformance::LaunchShare`'s count: their
/// buffers) a window keeps from its first pass to its launches; the others
/// are generated again (a case is a function of its plan position) when
/// their launch comes. Policy: a default-suite window of 256 cases held
/// 45 MB at most (24,000 cases, seed 1), which alone broke the 64 MiB
/// budget a process has (performance.md, "Memory"); 8 MiB keeps about a third of an average window and
/// bounds the rest whatever the case mix. Measured in
/// docs/src/internals/performance.md, "Memory".
pub const WINDOW_HELD_BYTES: usize = 8 << 20;

/// Run consecutive planned cases (one launch each, or batched where the
/// device batches: `conformance::launch_groups`) and judge each, in order.
/// Stops after the first case whose device or judge gave up (its `Err` is
/// why the run must stop): the cases after it are not returned.
///
/// Memory is bounded whatever the window: the cases are generated once to
/// group them (keeping at most `WINDOW_HELD_BYTES` of them), each launch's
/// cases are judged as soon as it returns, and a passed case keeps only its
/// `Facts` (its values and its observation are dropped).
fn evaluate_chunk(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    generate: Generate<'_>,
    planned: &[Planned],
) -> Vec<Evaluated> {
    let cap = device.batch_cap();
    let mut held: Vec<Option<Generated>> = Vec::with_capacity(planned.len());
    let mut keyed = Vec::with_capacity(planned.len());
    let mut held_bytes = 0usize;
    for p in planned {
        let g = generate(*p);
        let share = LaunchShare::of(&g.case);
        let key = if cap > 1 { batch_key(&g.case) } else { None };
        keyed.push((key, share));
        let bytes = share.lane_bytes + share.groups * share.lds_qwords * 8;
        if held_bytes + bytes <= WINDOW_HELD_BYTES || cap <= 1 {
            held_bytes += bytes;
            held.push(Some(g));
        } else {
            held.push(None);
        }
    }
    let mut done: Vec<Option<Evaluated>> = (0..planned.len()).map(|_| None).collect();
    for group in launch_groups_of(&keyed, cap) {
        let generated: Vec<Generated> = group
            .iter()
            .map(|&i| held[i].take().unwrap_or_else(|| generate(planned[i])))
            .collect();
        let cases: Vec<&Case> = generated.iter().map(|g| &g.case).collect();
        let outcomes = run_launch(device, &cases);
        drop(cases);
        for (k, ((&i, mut g), outcome)) in group.iter().zip(generated).zip(outcomes).enumerate() {
            let facts = Facts::of(&g.case, k == 0);
            let r = outcome.map_err(|e| abort_from(&e)).and_then(|outcome| {
                let judgement = judge.judge(&g.case, &outcome).map_err(|e| Abort {
                    code: exit::USAGE,
                    reason: e.to_string(),
                })?;
                // A passed case's values are not needed again (it is
                // recorded by its verdict and `Facts`; failures keep theirs,
                // to minimize): a window of cases does not hold a window of
                // cases and observations.
                let outcome = match outcome {
                    DeviceOutcome::Completed { device_us, .. } if judgement.passed => {
                        DeviceOutcome::Completed {
                            observation: crate::case::Observation::default(),
                            device_us,
                        }
                    }
                    o => o,
                };
                if judgement.passed {
                    g.case.lds_init = Vec::new();
                    g.case.lanes = Vec::new();
                    g.case.more_rounds = Vec::new();
                    if let Some(t) = g.case.traffic.as_mut() {
                        t.lanes = Vec::new();
                        t.spin = Vec::new();
                    }
                }
                Ok((outcome, judgement))
            });
            done[i] = Some((g, facts, r));
        }
    }
    let mut out = Vec::with_capacity(planned.len());
    for e in done {
        let Some(e) = e else { break };
        let stop = e.2.is_err();
        out.push(e);
        if stop {
            break;
        }
    }
    out
}

/// Plan positions evaluated together: enough to fill batched launches on
/// a device that batches, else one (a case at a time, as always).
fn window_of(device: &dyn CaseDevice) -> usize {
    if device.batch_cap() > 1 {
        BATCH_WINDOW
    } else {
        1
    }
}

/// Run the suite of `opts.spec` on `device`, judging with `judge`, one
/// case at a time.
pub fn run_suite(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    opts: &RunOptions,
) -> Result<RunOutcome, RunError> {
    run_suite_with(device, judge, opts, Vec::new())
}

/// [`run_suite`], with the cases generated, run and judged on `workers`
/// side by side (worker k takes windows k, k + n, … of the plan, a window
/// being one position, or `BATCH_WINDOW` on a device that batches). The main
/// thread takes their results strictly in plan order, so the stream, the
/// counts, the first failures and the repros are those of a one-at-a-time
/// run; failures are minimized on `device`, as without workers. An abort
/// stops at the first case (in order) whose device or judge gave up.
pub fn run_suite_with(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    opts: &RunOptions,
    mut workers: Vec<Worker>,
) -> Result<RunOutcome, RunError> {
    // Every device a case may run on, once each (workers may share one).
    let mut devices = vec![device.info().clone()];
    for (w, _) in &workers {
        if !devices.contains(w.info()) {
            devices.push(w.info().clone());
        }
    }
    let generate = |p: Planned| opts.spec.generate(p);
    let plan = opts.spec.plan_iter();
    with_workers(
        device,
        judge,
        plan,
        &generate,
        &mut workers,
        |device, judge, feed| run_plan(device, judge, opts, feed, devices),
    )
}

/// How a plan position becomes its case: a suite spec's `generate` for
/// `run`, the chunk's spec for a soak (`suite::soak`).
pub(crate) type Generate<'a> = &'a (dyn Fn(Planned) -> Generated + Sync);

/// Run `plan` (generated by `generate`) on `device` and `workers` side by
/// side and hand `take` a [`Feed`] of the results in plan order (worker k
/// takes windows k, k + n, … of the plan, a window being one position, or
/// `BATCH_WINDOW` on a device that batches). The workers stop when `take`
/// returns (a closed channel), so `take` may stop early, and the plan may
/// be endless (a soak's).
pub(crate) fn with_workers<R>(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    plan: impl Iterator<Item = Planned> + Clone + Send + 'static,
    generate: Generate<'_>,
    workers: &mut [Worker],
    take: impl FnOnce(&mut dyn CaseDevice, &dyn Judge, Feed<'_>) -> R,
) -> R {
    let n = workers.len();
    let window = window_of(device);
    // The workers' CPU time in evaluation, in nanoseconds (soak's share
    // counts it).
    let ahead_ns = std::sync::atomic::AtomicU64::new(0);
    let ahead_ns = &ahead_ns;
    std::thread::scope(|scope| {
        let mut results = Vec::with_capacity(n);
        for (k, (w_device, w_judge)) in workers.iter_mut().enumerate() {
            let (tx, rx) = std::sync::mpsc::sync_channel(WORKER_AHEAD);
            let plan = plan.clone();
            scope.spawn(move || {
                let mut plan = plan.skip(k * window);
                loop {
                    let chunk: Vec<_> = plan.by_ref().take(window).collect();
                    if chunk.is_empty() {
                        break;
                    }
                    // The thread's CPU and its device's worker processes'
                    // (the host side of a HIP case runs there).
                    let cpu = |d: &dyn CaseDevice| {
                        super::cpu::thread_cpu_seconds() + d.helper_cpu_seconds()
                    };
                    let t0 = cpu(w_device.as_ref());
                    let evaluated =
                        evaluate_chunk(w_device.as_mut(), w_judge.as_ref(), generate, &chunk);
                    let ns = (cpu(w_device.as_ref()) - t0).max(0.0) * 1e9;
                    ahead_ns.fetch_add(ns as u64, std::sync::atomic::Ordering::Relaxed);
                    for e in evaluated {
                        let stop = e.2.is_err();
                        // A closed channel: the run stopped; so does the worker.
                        if tx.send(e).is_err() || stop {
                            return;
                        }
                    }
                    plan.by_ref().take((n - 1) * window).for_each(drop);
                }
            });
            results.push(rx);
        }
        // `results` is dropped when this returns (before the scope joins the
        // workers), which unblocks any worker still sending.
        let feed = Feed {
            plan: Box::new(plan),
            generate,
            workers: &results,
            ahead_ns,
            window,
            queued: Default::default(),
            ready: Default::default(),
            position: 0,
        };
        take(device, judge, feed)
    })
}

/// The plan's cases and their results in plan order: taken from the
/// workers, or evaluated on the main device a window at a time when there
/// are none.
pub(crate) struct Feed<'a> {
    plan: Box<dyn Iterator<Item = Planned> + 'a>,
    generate: Generate<'a>,
    workers: &'a [std::sync::mpsc::Receiver<Evaluated>],
    /// The workers' CPU time in evaluation so far, in nanoseconds.
    ahead_ns: &'a std::sync::atomic::AtomicU64,
    window: usize,
    /// Without workers: the window being evaluated, and its results.
    queued: std::collections::VecDeque<Planned>,
    ready: std::collections::VecDeque<Evaluated>,
    position: usize,
}

impl Feed<'_> {
    /// The CPU time the worker threads have spent generating, running and
    /// judging cases so far (their own threads' CPU and their devices'
    /// worker processes'; 0 without workers).
    pub(crate) fn ahead_cpu_seconds(&self) -> f64 {
        self.ahead_ns.load(std::sync::atomic::Ordering::Relaxed) as f64 * 1e-9
    }

    /// The next planned case and its position in the plan.
    pub(crate) fn next_planned(&mut self) -> Option<(usize, Planned)> {
        let planned = self.queued.pop_front().or_else(|| self.plan.next())?;
        self.position += 1;
        Some((self.position - 1, planned))
    }

    /// The result of the case [`Feed::next_planned`] just gave: a worker's,
    /// or (without workers) its window evaluated now on `device`.
    pub(crate) fn evaluate(
        &mut self,
        device: &mut dyn CaseDevice,
        judge: &dyn Judge,
        (position, planned): (usize, Planned),
    ) -> Result<Evaluated, Abort> {
        match self
            .workers
            .get((position / self.window) % self.workers.len().max(1))
        {
            None => {
                if self.ready.is_empty() {
                    self.queued.extend(self.plan.by_ref().take(self.window - 1));
                    let chunk: Vec<_> = std::iter::once(planned)
                        .chain(self.queued.iter().copied())
                        .collect();
                    self.ready
                        .extend(evaluate_chunk(device, judge, self.generate, &chunk));
                }
                self.ready.pop_front().ok_or_else(|| Abort {
                    code: exit::ENVIRONMENT,
                    reason: format!("case {} was not evaluated", planned.index),
                })
            }
            Some(rx) => rx.recv().map_err(|_| Abort {
                code: exit::ENVIRONMENT,
                reason: format!(
                    "the worker running case {} stopped without a result",
                    planned.index
                ),
            }),
        }
    }
}

/// A case as generated, what is recorded of it, and its outcome and verdict
/// (or why the run must stop).
pub(crate) type Evaluated = (Generated, Facts, Result<(DeviceOutcome, Judgement), Abort>);

fn run_plan(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    opts: &RunOptions,
    mut feed: Feed<'_>,
    devices: Vec<crate::backend::DeviceInfo>,
) -> Result<RunOutcome, RunError> {
    let started_at = SystemTime::now();
    let started = Instant::now();
    let planned_len = opts.spec.shard_len();
    let (mut writer, env, mut progress) = start_run(device, opts, devices, started_at)?;

    let mut cells: Vec<Cell> = Vec::new();
    let mut findings = Findings::default();
    let mut abort: Option<Abort> = None;
    let mut contended_lane_ops = 0u64;
    let mut verified_lane_ops = 0u64;

    while let Some((position, planned)) = feed.next_planned() {
        if let Some(signal) = super::stop::requested() {
            abort = Some(Abort {
                code: exit::ENVIRONMENT,
                reason: format!("stopped by {signal} after {position} of {planned_len} cases"),
            });
            break;
        }
        let (generated, facts, evaluated) = match feed.evaluate(device, judge, (position, planned))
        {
            Ok(x) => x,
            Err(a) => {
                abort = Some(a);
                break;
            }
        };
        let Generated { id, variant, case } = generated;
        enter_cell(&mut cells, &mut progress, &id);
        let (outcome, judgement) = match evaluated {
            Ok(x) => x,
            Err(a) => {
                abort = Some(a);
                break;
            }
        };
        contended_lane_ops += facts.contended_lane_ops;
        let recorded = writer.record(&case_record(
            planned.index,
            (&id, &variant, &case),
            &facts,
            &outcome,
            &judgement,
        ));
        if let Err(e) = recorded {
            abort = Some(Abort {
                code: exit::ENVIRONMENT,
                reason: e.to_string(),
            });
            break;
        }
        count_in_cell(cells.last_mut(), &mut progress, &judgement);
        if judgement.passed {
            // A passed fault (a probe's MEMVIOL) verified no values.
            if matches!(outcome, DeviceOutcome::Completed { .. }) {
                verified_lane_ops += facts.lane_ops;
            }
            continue;
        }

        // A failure: shrink it on this device, then write its repro — if it
        // is the first of its kind in its cell and the cap allows.
        let failure = Failure {
            index: planned.index,
            id,
            variant,
            case,
            facts,
            outcome,
            judgement,
        };
        let at = (writer.dir(), writer.stem());
        if let Some(a) = findings.add(device, judge, opts, at, &mut progress, failure) {
            abort = Some(a);
            break;
        }
    }
    finish_cell(&mut progress, cells.last_mut());
    progress.finish();

    let counts = Counts {
        patterns: cells.into_iter().map(|c| c.counts).collect(),
        verified_lane_ops,
        contended_lane_ops,
    };
    let times = (started_at, started);
    finish_run(opts, writer, env, times, counts, findings, abort)
}

/// Open the run's results stream and progress display, and say what runs:
/// the writer, the run's environment and the progress.
fn start_run(
    device: &mut dyn CaseDevice,
    opts: &RunOptions,
    devices: Vec<crate::backend::DeviceInfo>,
    started_at: SystemTime,
) -> Result<(ResultsWriter, Environment, Progress), RunError> {
    let spec = &opts.spec;
    let planned_len = spec.shard_len();
    let info = device.info().clone();
    let mut env = environment(device, &opts.selection);
    if devices.len() > 1 {
        env.devices = devices;
    }
    let writer = ResultsWriter::create_with(
        &opts.out_dir,
        started_at,
        info.backend.name(),
        &info.target_id,
        spec,
        Some((&opts.parameters, &env)),
    )?
    .with_final_path(opts.results_path.clone());
    let progress = match opts.interactive {
        Some(i) => Progress::with_mode(planned_len, i),
        None => Progress::new(planned_len),
    };
    progress.println(&format!(
        "dsxor run: seed {} ({:#x}), {} of {} cases (shard {}), {} on {} ({}), streaming to {}",
        spec.seed,
        spec.seed,
        planned_len,
        spec.cases,
        spec.shard,
        info.backend.name(),
        info.name,
        info.target_id,
        writer.cases_path().display()
    ));
    Ok((writer, env, progress))
}

/// Start a new cell when case `id` is not of the current one's (pattern,
/// wave, mode), closing that one.
fn enter_cell(cells: &mut Vec<Cell>, progress: &mut Progress, id: &CaseId) {
    if cells
        .last()
        .map(|c| (c.counts.pattern, c.counts.wave, c.counts.mode))
        != Some((id.pattern, id.wave, id.mode))
    {
        finish_cell(progress, cells.last_mut());
        cells.push(Cell {
            counts: PatternCounts::empty(id.pattern, id.wave, id.mode),
            started: Instant::now(),
            name: format!("{}/wave{}/{}", id.pattern, id.wave.lanes(), id.mode),
        });
    }
}

/// Count a judged case in its cell and on the progress display.
fn count_in_cell(cell: Option<&mut Cell>, progress: &mut Progress, judgement: &Judgement) {
    if let Some(cell) = cell {
        cell.counts.cases += 1;
        cell.counts.count_halves(judgement.halves_split);
        if judgement.passed {
            cell.counts.passed += 1;
        } else {
            cell.counts.failed += 1;
        }
        progress.case_done(&cell.name, judgement.passed);
    }
}

/// One failed case, as `run_plan` hands it to [`Findings::add`].
pub(crate) struct Failure {
    pub(crate) index: u64,
    pub(crate) id: CaseId,
    pub(crate) variant: String,
    pub(crate) case: Case,
    pub(crate) facts: Facts,
    pub(crate) outcome: DeviceOutcome,
    pub(crate) judgement: Judgement,
}

/// The run's failures so far, the repro files written, and the first
/// failure of each (pattern, wave, mode, kind), which later ones point to.
#[derive(Default)]
pub(crate) struct Findings {
    pub(crate) failures: Vec<FailureRecord>,
    pub(crate) repros: Vec<PathBuf>,
    minimized: HashMap<(Pattern, WaveSize, crate::case::Mode, String), u64>,
}

impl Findings {
    /// Record a failure; the first of its kind in its cell (while the
    /// repro cap allows) is shrunk on `device` and written as a repro
    /// file `<dir>/<stem>.repro-<index>.json`. Some: what stops the run
    /// (the repro cannot be written, or the device failed while shrinking).
    pub(crate) fn add(
        &mut self,
        device: &mut dyn CaseDevice,
        judge: &dyn Judge,
        opts: &RunOptions,
        (dir, stem): (&Path, &str),
        progress: &mut Progress,
        f: Failure,
    ) -> Option<Abort> {
        let spec = &opts.spec;
        let Failure {
            index,
            id,
            variant,
            case,
            facts,
            outcome,
            judgement,
        } = f;
        let kind = judgement.kind.clone().unwrap_or_else(|| "unknown".into());
        let key = (id.pattern, id.wave, id.mode, kind.clone());
        let same_kind_as = self.minimized.get(&key).copied();
        // As found; a minimized one gets its repro, stats and shrunk lanes below.
        let mut record = FailureRecord {
            index,
            pattern: id.pattern,
            variant: variant.clone(),
            wave: id.wave,
            mode: id.mode,
            ordinal: id.ordinal,
            kind: kind.clone(),
            summary: judgement.summary.clone(),
            repro: None,
            minimize: None,
            same_kind_as,
            active_lanes_before: facts.active_lanes,
            active_lanes_after: facts.active_lanes,
            stress: case.stress.as_ref().map(Stress::summary),
        };
        if same_kind_as.is_some() || self.repros.len() >= opts.max_repros {
            self.failures.push(record);
            return None;
        }
        self.minimized.insert(key, index);
        progress.println(&format!(
            "FAIL case {} ({}/{} wave{} {} mode #{}): {kind}: {} — minimizing",
            index,
            id.pattern,
            variant,
            id.wave.lanes(),
            id.mode,
            id.ordinal,
            judgement.summary
        ));
        let (shrunk, env_error) = shrink(device, judge, &case, outcome, judgement, opts.minimize);
        let kernel = device
            .kernel_identity(&shrunk.case)
            .unwrap_or_else(|_| unknown_kernel(&shrunk.case));
        let mut repro = Repro::new(
            spec.seed,
            spec.generator_version,
            id,
            &variant,
            &case,
            shrunk.case.clone(),
            &shrunk.judgement,
            shrunk.outcome.clone(),
            device.info().clone(),
            kernel,
            judge.policy(),
            shrunk.stats.clone(),
        );
        repro.fault = opts.parameters.fault.clone();
        let path = repro_path(dir, stem, index);
        if let Err(e) = repro.write(&path) {
            return Some(Abort {
                code: exit::ENVIRONMENT,
                reason: e.to_string(),
            });
        }
        let after = shrunk.case.lanes.iter().filter(|l| l.active).count();
        progress.println(&format!(
            "     minimized to {} group(s) x {} wave(s), {} active lane(s) in {} tries ({:.1} s{}): {}",
            shrunk.case.geometry.groups,
            shrunk.case.geometry.waves_per_group,
            after,
            shrunk.stats.tries,
            shrunk.stats.elapsed_ms as f64 / 1000.0,
            if shrunk.stats.budget_exhausted { ", budget exhausted" } else { "" },
            path.display()
        ));
        record.summary = shrunk.judgement.summary.clone();
        record.repro = Some(path.display().to_string());
        record.minimize = Some(shrunk.stats);
        record.active_lanes_after = after;
        self.failures.push(record);
        self.repros.push(path);
        env_error.map(|e| abort_from(&e))
    }
}

/// A case's line in the case stream.
fn case_record(
    index: u64,
    (id, variant, case): (&CaseId, &str, &Case),
    facts: &Facts,
    outcome: &DeviceOutcome,
    judgement: &Judgement,
) -> CaseRecord {
    CaseRecord {
        index,
        pattern: id.pattern,
        variant: variant.to_string(),
        wave: id.wave,
        mode: id.mode,
        ordinal: id.ordinal,
        groups: case.geometry.groups,
        waves_per_group: case.geometry.waves_per_group,
        active_lanes: facts.active_lanes,
        lds_bytes: case.lds_bytes,
        offset: case.offset,
        rounds: facts.rounds,
        case_digest: facts.case_digest.clone(),
        outcome: outcome.name().to_string(),
        passed: judgement.passed,
        kind: judgement.kind.clone(),
        summary: if judgement.passed {
            String::new()
        } else {
            judgement.summary.clone()
        },
        notes: judgement.notes.clone(),
        halves_split: judgement.halves_split,
        stress: case.stress.as_ref().map(Stress::summary),
        device_us: match outcome {
            DeviceOutcome::Completed { device_us, .. } => *device_us,
            _ => 0,
        },
    }
}

/// What the cases added up to.
struct Counts {
    patterns: Vec<PatternCounts>,
    verified_lane_ops: u64,
    contended_lane_ops: u64,
}

/// The results file, the summary and the exit code of a run whose cases
/// are done (or that stopped: `abort`).
fn finish_run(
    opts: &RunOptions,
    mut writer: ResultsWriter,
    env: Environment,
    (started_at, started): (SystemTime, Instant),
    counts: Counts,
    findings: Findings,
    abort: Option<Abort>,
) -> Result<RunOutcome, RunError> {
    let Counts {
        patterns,
        verified_lane_ops,
        contended_lane_ops,
    } = counts;
    let Findings {
        failures, repros, ..
    } = findings;
    let spec = &opts.spec;
    let passed: u64 = patterns.iter().map(|c| c.passed).sum();
    let failed: u64 = patterns.iter().map(|c| c.failed).sum();
    let probe_failed = opts.probes.iter().any(|p| p.verdict == Status::Failed);
    let status = match (&abort, failed) {
        (Some(_), _) => Status::Aborted,
        (None, 0) if !probe_failed => Status::Passed,
        (None, _) => Status::Failed,
    };
    let results = Results {
        format: RESULTS_FORMAT.into(),
        dsxor_version: env!("CARGO_PKG_VERSION").into(),
        started_utc: rfc3339(started_at),
        finished_utc: rfc3339(SystemTime::now()),
        wall_ms: started.elapsed().as_millis() as u64,
        status,
        abort_reason: abort.as_ref().map(|a| a.reason.clone()),
        environment: env,
        spec: spec.clone(),
        parameters: opts.parameters.clone(),
        cases_file: Some(writer.cases_file_ref()),
        total: passed + failed,
        passed,
        failed,
        verified_lane_ops,
        patterns,
        failures,
        probes: opts.probes.clone(),
        merged_from: Vec::new(),
    };
    let results_path = write_final(&mut writer, opts, &results)?;
    crate::report::console::stdout_text(&summary_table(&results));
    crate::report::console::stdout_line(&format!("results: {}", results_path.display()));
    // Conformance failures already found decide the code: an abort after
    // them (environment or input trouble) must not hide them behind 2 or 3.
    let exit_code = match (&abort, failed) {
        (_, 1..) => exit::FAIL,
        _ if probe_failed => exit::FAIL,
        (Some(a), 0) => a.code,
        (None, 0) => exit::PASS,
    };
    Ok(RunOutcome {
        results,
        results_path,
        repros,
        exit_code,
        contended_lane_ops,
    })
}

/// A run that stopped before its first case (no device: `--backend hip`
/// on a machine without one): it still writes its `aborted` results file,
/// an empty case stream and JUnit, so CI finds a file that says why.
/// `info` names the device asked for; returns the files with `code`.
pub fn write_unstarted(
    opts: &RunOptions,
    info: crate::backend::DeviceInfo,
    reason: &str,
    code: u8,
) -> Result<RunOutcome, RunError> {
    let now = SystemTime::now();
    let (host_os, host_arch, host_cpus) = host();
    let driver = crate::backend::HostDriver::read();
    let env = Environment {
        device: info,
        selection: opts.selection.clone(),
        code_objects: Vec::new(),
        host_os,
        host_arch,
        host_cpus,
        devices: Vec::new(),
        hsa_override_gfx_version: driver.hsa_override_gfx_version,
        amdgpu_driver_version: driver.amdgpu_driver_version,
    };
    let mut writer = ResultsWriter::create_with(
        &opts.out_dir,
        now,
        env.device.backend.name(),
        &env.device.target_id,
        &opts.spec,
        Some((&opts.parameters, &env)),
    )?
    .with_final_path(opts.results_path.clone());
    let results = Results {
        format: RESULTS_FORMAT.into(),
        dsxor_version: env!("CARGO_PKG_VERSION").into(),
        started_utc: rfc3339(now),
        finished_utc: rfc3339(now),
        wall_ms: 0,
        status: Status::Aborted,
        abort_reason: Some(reason.to_string()),
        environment: env,
        spec: opts.spec.clone(),
        parameters: opts.parameters.clone(),
        cases_file: Some(writer.cases_file_ref()),
        total: 0,
        passed: 0,
        failed: 0,
        verified_lane_ops: 0,
        patterns: Vec::new(),
        failures: Vec::new(),
        probes: Vec::new(),
        merged_from: Vec::new(),
    };
    let results_path = write_final(&mut writer, opts, &results)?;
    crate::report::console::stdout_line(&format!("results: {}", results_path.display()));
    Ok(RunOutcome {
        results,
        results_path,
        repros: Vec::new(),
        exit_code: code,
        contended_lane_ops: 0,
    })
}

fn finish_cell(progress: &mut Progress, cell: Option<&mut Cell>) {
    if let Some(c) = cell {
        let wall = c.started.elapsed();
        c.counts.wall_ms = wall.as_millis() as u64;
        progress.cell_done(&c.name, c.counts.cases, c.counts.failed, wall);
    }
}

pub(crate) fn unknown_kernel(case: &Case) -> KernelIdentity {
    KernelIdentity {
        kernel: "unknown".into(),
        wave: case.geometry.wave_size,
        mode: case.geometry.mode,
        code_object_sha256: String::new(),
        base_sha256: String::new(),
        source: String::new(),
        patched_offset: None,
    }
}

/// What `dsxor repro` found.
#[derive(Debug)]
pub struct ReplayOutcome {
    pub outcome: DeviceOutcome,
    pub judgement: Judgement,
    pub kernel: Option<KernelIdentity>,
    pub elapsed: Duration,
}

/// Replay a repro's case on `device`.
pub fn replay(
    device: &mut dyn CaseDevice,
    judge: &dyn Judge,
    repro: &Repro,
) -> Result<ReplayOutcome, ReplayError> {
    let start = Instant::now();
    let outcome = device.run_case(&repro.case)?;
    let judgement = judge.judge(&repro.case, &outcome)?;
    let kernel = device.kernel_identity(&repro.case).ok();
    Ok(ReplayOutcome {
        outcome,
        judgement,
        kernel,
        elapsed: start.elapsed(),
    })
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error(transparent)]
    Judge(#[from] super::JudgeError),
}

/// Repro files are written next to the results: `<stem>.repro-<index>.json`.
pub fn repro_path(dir: &Path, stem: &str, index: u64) -> PathBuf {
    dir.join(format!("{stem}.repro-{index}.json"))
}
