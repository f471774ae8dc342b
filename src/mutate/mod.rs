//! `mutate`: the suite's sensitivity, measured (MC Mutants, Levine et al.,
//! ASPLOS 2023). Each mutant is the software device with one injected
//! fault (a class at a rate, under conditions); the suite's cases run
//! against it, interleaved in the default mix's proportions, until a budget
//! of case-seconds is spent. Per mutant: killed or not, cases and seconds to
//! the first kill, kill rate per second per pattern; the mutation score per
//! budget comes from the per-case times, so one run gives every budget up to
//! the largest. Survivors are rerun at higher rates to find the suite's
//! detection floor.
//!
//! Time is case time: the sum over cases of generate + run + judge, each
//! measured as the CPU time of the worker thread that ran it (so a loaded
//! host does not shrink a budget; with `--jobs N` the wall time is about
//! the case time over N).

pub mod report;

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::backend::conformance::CaseDevice;
use crate::backend::select::BackendChoice;
use crate::case::WaveSize;
use crate::emu::{Fault, FaultSpec};
use crate::gen::suite::{Planned, Shard, SuiteSpec};
use crate::gen::Pattern;
use crate::model::Policy;
use crate::suite::cpu::thread_cpu_seconds;
use crate::suite::device::{open, DeviceRequest, OpenError};
use crate::suite::judge::ModelJudge;
use crate::suite::Judge;

pub const MUTATE_FORMAT: &str = "dsxor-mutate/1";

/// The built-in mutants: every class as it always was (10), rare forms of
/// six (1 in 10^4 and 1 in 10^6 eligible lanes), and conditional ones, some
/// rare too: 38 in all.
pub fn default_mutants() -> Vec<FaultSpec> {
    let mut v: Vec<FaultSpec> = Fault::ALL.iter().map(|&f| f.into()).collect();
    for f in [
        Fault::LostUpdate,
        Fault::CrossWaveLostUpdate,
        Fault::ReturnStale,
        Fault::Torn,
        Fault::DropWrite,
        Fault::SwapDwords,
    ] {
        for r in [1e-4, 1e-6] {
            v.push(FaultSpec::from(f).with_rate(r));
        }
    }
    for text in [
        "lost-update@same-address=8",
        "lost-update:0.00001@bank-conflict",
        "torn@cross-wave",
        "drop-write@high-dword",
        "return-new@wave64",
        "ignore-exec:0.001@exec-partial",
        "ignore-exec:0.0001",
        "drop-offset1@offset=4096",
        "drop-offset1:0.001",
        "return-stale:0.00001@cross-wave",
        "swap-dwords@exec-partial",
        "low-dword-only:0.000001",
        "drop-write:0.000001@within-wave",
        "cross-wave-lost-update:0.00001@wave64",
        "torn:0.0001@bank-conflict",
        "return-new:0.000001@high-dword",
    ] {
        if let Ok(s) = text.parse() {
            v.push(s);
        }
    }
    v
}

/// What to run.
#[derive(Clone, Debug)]
pub struct MutateOptions {
    pub seed: u64,
    /// Patterns (empty: the default suite's).
    pub patterns: Vec<Pattern>,
    pub waves: Vec<WaveSize>,
    pub mutants: Vec<FaultSpec>,
    /// Case-seconds per mutant at most (the largest budget).
    pub max_seconds: f64,
    /// Cases per mutant at most.
    pub max_cases: u64,
    /// Budgets (case-seconds) at which the score is reported.
    pub budgets: Vec<f64>,
    /// Stop a mutant early once every pattern has killed it this many times.
    pub kills_per_pattern: u64,
    /// Rerun survivors at higher rates (×10 steps up to 1).
    pub floor: bool,
    /// Software devices side by side.
    pub jobs: usize,
    pub policy: Policy,
    pub timeout: std::time::Duration,
}

/// Kills of one mutant by one pattern.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PatternKills {
    pub pattern: Pattern,
    pub cases: u64,
    pub seconds: f64,
    /// Failing cases.
    pub kills: u64,
    /// Kills per case-second of this pattern.
    pub kill_rate_per_s: f64,
}

/// The first case that failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FirstKill {
    /// Cases run before it (0: the first case killed).
    pub cases_before: u64,
    /// Case-seconds up to and including it.
    pub seconds: f64,
    pub pattern: Pattern,
    pub variant: String,
    pub wave: WaveSize,
    /// The case's run index in the suite of the record's seed.
    pub index: u64,
    pub kind: String,
}

/// A rerun of a survivor at a higher rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FloorTry {
    pub fault: String,
    pub rate: f64,
    pub killed: bool,
    pub seconds_to_kill: Option<f64>,
    pub seconds_run: f64,
    /// Kills per pattern at this rate.
    #[serde(default)]
    pub patterns: Vec<PatternKills>,
}

/// One mutant's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MutantRecord {
    /// The `--fault` text.
    pub fault: String,
    pub class: String,
    /// Probability per eligible lane.
    pub rate: f64,
    /// Conditions, comma-separated (empty: none).
    pub conditions: String,
    pub killed: bool,
    pub first_kill: Option<FirstKill>,
    pub cases_run: u64,
    pub seconds_run: f64,
    pub patterns: Vec<PatternKills>,
    /// The pattern with the highest kill rate per second.
    pub fastest_pattern: Option<Pattern>,
    /// Survivors: reruns at higher rates, smallest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub floor_tries: Vec<FloorTry>,
    /// Survivors: the smallest rate tried at which the mutant was killed
    /// within the largest budget (None: not at any rate tried).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detection_floor: Option<f64>,
}

impl MutantRecord {
    /// Killed within `budget` case-seconds.
    pub fn killed_within(&self, budget: f64) -> bool {
        self.first_kill
            .as_ref()
            .is_some_and(|k| k.seconds <= budget)
    }
}

/// The mutation score at one budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Score {
    pub budget_seconds: f64,
    pub killed: u64,
    pub total: u64,
    pub score: f64,
}

/// A `dsxor mutate` record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MutateRecord {
    pub format: String,
    pub dsxor_version: String,
    pub started_utc: String,
    pub wall_ms: u64,
    pub seed: u64,
    pub generator_version: u32,
    /// Cases per pattern of the mix the stream follows, per 1000 cases.
    pub mix_per_mille: Vec<(Pattern, u64)>,
    pub waves: Vec<WaveSize>,
    pub jobs: usize,
    pub max_seconds: f64,
    pub max_cases: u64,
    pub kills_per_pattern: u64,
    pub host_cpus: usize,
    pub scores: Vec<Score>,
    pub mutants: Vec<MutantRecord>,
}

impl MutateRecord {
    pub fn score_at(&self, budget: f64) -> Score {
        let killed = self
            .mutants
            .iter()
            .filter(|m| m.killed_within(budget))
            .count() as u64;
        let total = self.mutants.len() as u64;
        Score {
            budget_seconds: budget,
            killed,
            total,
            score: if total == 0 {
                0.0
            } else {
                killed as f64 / total as f64
            },
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Environment(String),
}

impl From<OpenError> for MutateError {
    fn from(e: OpenError) -> MutateError {
        match e {
            OpenError::Usage(m) => MutateError::Usage(m),
            OpenError::Environment(m) => MutateError::Environment(m),
        }
    }
}

/// The case stream of a mutant: the suite of `cases` cases, its cells
/// interleaved in proportion to their shares (case k of a cell of n cases
/// sits at (k + ½) / n of the stream), so any prefix follows the mix.
pub fn interleaved(spec: &SuiteSpec) -> Vec<Planned> {
    let plan = spec.plan_all();
    let mut per_cell: std::collections::HashMap<(Pattern, WaveSize), u64> = Default::default();
    for p in &plan {
        *per_cell.entry((p.id.pattern, p.id.wave)).or_default() += 1;
    }
    let mut keyed: Vec<(f64, u64, Planned)> = plan
        .into_iter()
        .map(|p| {
            let n = per_cell[&(p.id.pattern, p.id.wave)] as f64;
            ((p.id.ordinal as f64 + 0.5) / n, p.index, p)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    keyed.into_iter().map(|k| k.2).collect()
}

/// One case's result, as a worker reports it.
struct Done {
    planned: Planned,
    variant: String,
    seconds: f64,
    kind: Option<String>,
}

type Worker = (Box<dyn CaseDevice + Send>, ModelJudge);

fn devices(opts: &MutateOptions, spec: FaultSpec) -> Result<Vec<Worker>, MutateError> {
    let req = DeviceRequest {
        choice: BackendChoice::Emu,
        device: None,
        waves: opts.waves.clone(),
        code_object: None,
        fault: Some(spec),
        interleave_seed: None,
        timeout: opts.timeout,
        lds_granule: opts.policy.lds_granule,
        // The embedded kernels: no hazard check (as `dsxor run` without --code-object).
        hazard_check: false,
        // The software device only: no HIP worker processes.
        worker_exe: None,
        require_gpu: false,
        allow_mutant: false,
        batch: crate::backend::conformance::DEFAULT_BATCH,
    };
    let opened = open(&req)?;
    Ok(opened
        .emu_workers(opts.jobs.max(1))?
        .into_iter()
        .map(|d| (d, ModelJudge::new(opts.policy)))
        .collect())
}

/// Run `stream` against the mutant `spec` until `max_seconds` of case time
/// or `max_cases` cases, or every pattern has killed it
/// `kills_per_pattern` times. Results are taken in stream order, so the
/// first kill is the same whatever `--jobs` (only the times differ).
fn run_mutant(
    opts: &MutateOptions,
    suite: &SuiteSpec,
    stream: &[Planned],
    spec: FaultSpec,
    patterns: &[Pattern],
) -> Result<MutantRecord, MutateError> {
    let workers = devices(opts, spec)?;
    let n = workers.len();
    let limit = stream.len().min(opts.max_cases as usize);
    let stream = &stream[..limit];
    let mut tally = Tally::new(patterns);
    let mut abort: Option<MutateError> = None;
    std::thread::scope(|scope| {
        let mut rxs = Vec::with_capacity(n);
        for (k, worker) in workers.into_iter().enumerate() {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Done, String>>(8);
            scope.spawn(move || serve_stream(worker, suite, stream, (k, n), tx));
            rxs.push(rx);
        }
        for position in 0..stream.len() {
            let Ok(r) = rxs[position % n].recv() else {
                abort = Some(MutateError::Environment(format!(
                    "mutant {spec}: a worker stopped without a result"
                )));
                break;
            };
            let done = match r {
                Ok(d) => d,
                Err(e) => {
                    abort = Some(MutateError::Environment(format!("mutant {spec}: {e}")));
                    break;
                }
            };
            if tally.count(done, opts) {
                break;
            }
        }
        // Dropping the receivers stops the workers.
        drop(rxs);
    });
    if let Some(e) = abort {
        return Err(e);
    }
    Ok(tally.record(spec))
}

/// Worker `k` of `n`: run every `n`-th case of `stream` from the `k`-th and
/// send each result on `tx`, until the receiver is gone or a case errs.
fn serve_stream(
    (mut device, judge): Worker,
    suite: &SuiteSpec,
    stream: &[Planned],
    (k, n): (usize, usize),
    tx: std::sync::mpsc::SyncSender<Result<Done, String>>,
) {
    for planned in stream.iter().skip(k).step_by(n) {
        let t0 = thread_cpu_seconds();
        let g = suite.generate(*planned);
        let r = device
            .run_case(&g.case)
            .map_err(|e| e.to_string())
            .and_then(|o| judge.judge(&g.case, &o).map_err(|e| e.to_string()))
            .map(|j| Done {
                planned: *planned,
                variant: g.variant.clone(),
                seconds: thread_cpu_seconds() - t0,
                kind: if j.passed {
                    None
                } else {
                    Some(j.kind.unwrap_or_else(|| "unknown".into()))
                },
            });
        let stop = r.is_err();
        if tx.send(r).is_err() || stop {
            break;
        }
    }
}

/// A mutant's counts so far, over its results in stream order.
struct Tally {
    per: Vec<PatternKills>,
    first_kill: Option<FirstKill>,
    cases_run: u64,
    seconds_run: f64,
}

impl Tally {
    fn new(patterns: &[Pattern]) -> Tally {
        Tally {
            per: patterns
                .iter()
                .map(|&p| PatternKills {
                    pattern: p,
                    cases: 0,
                    seconds: 0.0,
                    kills: 0,
                    kill_rate_per_s: 0.0,
                })
                .collect(),
            first_kill: None,
            cases_run: 0,
            seconds_run: 0.0,
        }
    }

    /// Count one case's result; whether the mutant is done (its time
    /// budget spent, or every pattern has killed it often enough).
    fn count(&mut self, done: Done, opts: &MutateOptions) -> bool {
        self.cases_run += 1;
        self.seconds_run += done.seconds;
        if let Some(p) = self
            .per
            .iter_mut()
            .find(|p| p.pattern == done.planned.id.pattern)
        {
            p.cases += 1;
            p.seconds += done.seconds;
            if done.kind.is_some() {
                p.kills += 1;
            }
        }
        if let (None, Some(kind)) = (&self.first_kill, &done.kind) {
            self.first_kill = Some(FirstKill {
                cases_before: self.cases_run - 1,
                seconds: self.seconds_run,
                pattern: done.planned.id.pattern,
                variant: done.variant.clone(),
                wave: done.planned.id.wave,
                index: done.planned.index,
                kind: kind.clone(),
            });
        }
        let all_killed = opts.kills_per_pattern > 0
            && self.per.iter().all(|p| p.kills >= opts.kills_per_pattern);
        self.seconds_run >= opts.max_seconds || all_killed
    }

    /// The mutant's record: the counts, each pattern's kill rate and the
    /// fastest-killing pattern.
    fn record(self, spec: FaultSpec) -> MutantRecord {
        let Tally {
            mut per,
            first_kill,
            cases_run,
            seconds_run,
        } = self;
        for p in &mut per {
            p.kill_rate_per_s = if p.seconds > 0.0 {
                p.kills as f64 / p.seconds
            } else {
                0.0
            };
        }
        let fastest_pattern = per
            .iter()
            .filter(|p| p.kills > 0)
            .max_by(|a, b| a.kill_rate_per_s.total_cmp(&b.kill_rate_per_s))
            .map(|p| p.pattern);
        MutantRecord {
            fault: spec.to_string(),
            class: spec.fault.name().to_string(),
            rate: spec.probability(),
            conditions: spec.conditions.to_string(),
            killed: first_kill.is_some(),
            first_kill,
            cases_run,
            seconds_run,
            patterns: per,
            fastest_pattern,
            floor_tries: Vec::new(),
            detection_floor: None,
        }
    }
}

/// Cases the stream holds: enough for the largest budget at a generous
/// 20 µs per case, within `max_cases`.
fn stream_cases(opts: &MutateOptions) -> u64 {
    let by_time = (opts.max_seconds / 20e-6).ceil() as u64;
    by_time.clamp(1, opts.max_cases.max(1))
}

/// Run every mutant; `progress` hears one line per mutant.
pub fn run(
    opts: &MutateOptions,
    mut progress: impl FnMut(&MutantRecord),
) -> Result<MutateRecord, MutateError> {
    if opts.mutants.is_empty() {
        return Err(MutateError::Usage("no mutant to run".into()));
    }
    if opts.max_seconds.is_nan() || opts.max_seconds <= 0.0 {
        return Err(MutateError::Usage(
            "the budget must be a positive number of seconds".into(),
        ));
    }
    let started_at = std::time::SystemTime::now();
    let started = Instant::now();
    let suite = SuiteSpec::new(
        opts.seed,
        stream_cases(opts),
        &opts.patterns,
        &[],
        &opts.waves,
        Shard::WHOLE,
    )
    .map_err(|e| MutateError::Usage(e.to_string()))?;
    let stream = interleaved(&suite);
    let patterns = suite.patterns.clone();
    let mut mutants = Vec::new();
    for &spec in &opts.mutants {
        let mut m = run_mutant(opts, &suite, &stream, spec, &patterns)?;
        if !m.killed && opts.floor {
            let mut r = spec.probability();
            while r < 1.0 {
                // ×10, kept to 3 significant digits (1e-5, not 9.999…e-6).
                r = format!("{:.2e}", r * 10.0)
                    .parse::<f64>()
                    .unwrap_or(1.0)
                    .min(1.0);
                let higher = spec.with_rate(r);
                let t = run_mutant(opts, &suite, &stream, higher, &patterns)?;
                m.floor_tries.push(FloorTry {
                    fault: higher.to_string(),
                    rate: r,
                    killed: t.killed,
                    seconds_to_kill: t.first_kill.as_ref().map(|k| k.seconds),
                    seconds_run: t.seconds_run,
                    patterns: t.patterns.clone(),
                });
                if t.killed {
                    m.detection_floor = Some(r);
                    break;
                }
            }
        }
        progress(&m);
        mutants.push(m);
    }
    let mut record = MutateRecord {
        format: MUTATE_FORMAT.into(),
        dsxor_version: env!("CARGO_PKG_VERSION").into(),
        started_utc: crate::report::results::rfc3339(started_at),
        wall_ms: started.elapsed().as_millis() as u64,
        seed: opts.seed,
        generator_version: suite.generator_version,
        mix_per_mille: mix_per_mille(&suite),
        waves: suite.waves.clone(),
        jobs: opts.jobs,
        max_seconds: opts.max_seconds,
        max_cases: opts.max_cases,
        kills_per_pattern: opts.kills_per_pattern,
        host_cpus: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        scores: Vec::new(),
        mutants,
    };
    let mut budgets = opts.budgets.clone();
    budgets.retain(|b| *b > 0.0 && *b <= opts.max_seconds);
    if budgets.is_empty() {
        budgets.push(opts.max_seconds);
    }
    budgets.sort_by(f64::total_cmp);
    budgets.dedup();
    record.scores = budgets.iter().map(|&b| record.score_at(b)).collect();
    Ok(record)
}

/// Kill rates per (mutant, pattern) at the mutant's own rate: measured,
/// or for a survivor, its detection floor's rates scaled down by the rate
/// ratio (a rare fault's kills grow linearly with its rate).
fn kill_rates(r: &MutateRecord, patterns: &[Pattern]) -> Vec<Vec<f64>> {
    r.mutants
        .iter()
        .map(|m| {
            let (per, scale) = match (m.killed, m.floor_tries.iter().find(|t| t.killed)) {
                (false, Some(t)) => (&t.patterns, m.rate / t.rate),
                _ => (&m.patterns, 1.0),
            };
            patterns
                .iter()
                .map(|p| {
                    per.iter()
                        .find(|k| k.pattern == *p)
                        .map_or(0.0, |k| k.kill_rate_per_s * scale)
                })
                .collect()
        })
        .collect()
}

/// The pattern shares that maximize the expected number of mutants killed
/// within `budget` case-seconds, Σₘ 1 − exp(−budget · Σₚ sₚ λₚₘ) (first
/// kills as Poisson arrivals at each pattern's measured kill rate λ), with
/// every pattern keeping at least `floor` of the cases (coverage of faults
/// no mutant models). Exponentiated gradient on the simplex; the objective
/// is concave, so it converges to the optimum.
pub fn suggested_mix(r: &MutateRecord, budget: f64, floor: f64) -> Vec<(Pattern, f64)> {
    let patterns: Vec<Pattern> = r.mix_per_mille.iter().map(|(p, _)| *p).collect();
    let n = patterns.len();
    if n == 0 {
        return Vec::new();
    }
    let floor = floor.clamp(0.0, 1.0 / n as f64);
    let lambda = kill_rates(r, &patterns);
    let mut s = vec![1.0 / n as f64; n];
    for _ in 0..3000 {
        let mut g = vec![0.0; n];
        for l in &lambda {
            let rate: f64 = l.iter().zip(&s).map(|(a, b)| a * b).sum();
            let w = budget * (-budget * rate).exp();
            for p in 0..n {
                g[p] += w * l[p];
            }
        }
        let top = g.iter().copied().fold(0.0, f64::max);
        if top <= 0.0 {
            break;
        }
        for p in 0..n {
            s[p] *= (0.05 * g[p] / top).exp();
        }
        // Back onto the simplex with the floor: the floor share fixed, the
        // rest in proportion.
        let sum: f64 = s.iter().sum();
        for x in &mut s {
            *x /= sum;
        }
        let low: Vec<bool> = s.iter().map(|&x| x < floor).collect();
        let fixed = low.iter().filter(|&&b| b).count() as f64 * floor;
        let free: f64 = s
            .iter()
            .zip(&low)
            .filter(|(_, &b)| !b)
            .map(|(x, _)| x)
            .sum();
        for (x, &b) in s.iter_mut().zip(&low) {
            *x = if b { floor } else { *x / free * (1.0 - fixed) };
        }
    }
    patterns.into_iter().zip(s).collect()
}

/// The suite's per-pattern cases per 1000 (both wave sizes together).
pub fn mix_per_mille(spec: &SuiteSpec) -> Vec<(Pattern, u64)> {
    let plan = spec.plan_all();
    let total = plan.len().max(1) as u64;
    spec.patterns
        .iter()
        .map(|&p| {
            let n = plan.iter().filter(|c| c.id.pattern == p).count() as u64;
            (p, (n * 1000 + total / 2) / total)
        })
        .collect()
}

/// Mutants from `--mutant` texts (empty: the built-in set).
pub fn parse_mutants(texts: &[String]) -> Result<Vec<FaultSpec>, MutateError> {
    if texts.is_empty() {
        return Ok(default_mutants());
    }
    texts
        .iter()
        .map(|t| {
            t.parse()
                .map_err(|e: crate::emu::FaultParseError| MutateError::Usage(e.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::Conditions;

    #[test]
    fn the_built_in_set_has_at_least_30_distinct_mutants_of_every_class() {
        let m = default_mutants();
        assert!(m.len() >= 30, "{}", m.len());
        let mut texts: Vec<String> = m.iter().map(|s| s.to_string()).collect();
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), m.len());
        for f in Fault::ALL {
            assert!(m.iter().any(|s| s.fault == f), "{f}");
        }
        assert!(m.iter().filter(|s| s.rate.is_some()).count() >= 10);
        assert!(
            m.iter()
                .filter(|s| s.conditions != Conditions::default())
                .count()
                >= 10
        );
    }

    #[test]
    fn the_stream_follows_the_mix_from_its_first_cases() {
        let spec = SuiteSpec::new(1, 1800, &[], &[], &[], Shard::WHOLE).unwrap();
        let s = interleaved(&spec);
        assert_eq!(s.len(), 1800);
        // A prefix of 180 cases (a tenth) holds each cell in the mix's
        // proportion: a tenth of the cell's cases in the whole plan.
        let all = spec.plan_all();
        let first: Vec<_> = s[..180]
            .iter()
            .map(|p| (p.id.pattern, p.id.wave, p.id.mode))
            .collect();
        for cell in spec.cells() {
            let whole = all
                .iter()
                .filter(|p| (p.id.pattern, p.id.wave, p.id.mode) == cell)
                .count();
            let n = first.iter().filter(|c| **c == cell).count();
            assert!(n.abs_diff(whole / 10) <= 1, "{cell:?}: {n} of {whole}");
        }
    }
}
