//! The results of a conformance run, as files a nightly CI and a person can
//! both read (schema: results/README.md).
//!
//! Two files per run, named `<UTC time>-<backend>-<target>[-shardKofN]`:
//! - `.cases.jsonl`: one JSON line per finished case, appended and flushed
//!   as the run goes, so a crash or kill keeps every finished case (a reader
//!   ignores a last line that has no newline);
//! - `.json`: the final report, written by the output-path policy
//!   (`report::output`): to a temporary file in the same directory, renamed
//!   into place, so it is either complete or absent.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::backend::DeviceInfo;
use crate::case::{Mode, Stress, WaveSize};
use crate::gen::minimize::MinimizeStats;
use crate::gen::{Pattern, SuiteSpec};

/// Format tag of the final results file. Bump on an incompatible change.
pub const RESULTS_FORMAT: &str = "dsxor-results/1";
/// Format tag of the first line of the streamed case records.
pub const CASES_FORMAT: &str = "dsxor-cases/1";

#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("cannot create results directory {path}: {cause}")]
    CreateDir {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot write {path}: {cause}")]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot read {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path} is not a dsxor results file: {why}")]
    Malformed { path: PathBuf, why: String },
    /// Two case streams whose digests were computed by different formats:
    /// every digest would differ, whatever the cases.
    #[error(
        "{a} has case digests `{a_format}`, {b} has `{b_format}`: digests of two formats \
         differ whatever the cases, so the streams cannot be compared case by case \
         (run both with one dsxor version)"
    )]
    DigestFormat {
        a: PathBuf,
        a_format: String,
        b: PathBuf,
        b_format: String,
    },
    /// An output path refused or not written (`report::output`).
    #[error(transparent)]
    Output(#[from] super::output::OutputError),
}

impl ResultsError {
    /// The user's path was refused (exit 2), as opposed to a write that
    /// failed on an accepted one (exit 3).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ResultsError::Output(super::output::OutputError::Refused { .. })
        )
    }
}

/// One code object a run used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeObjectRecord {
    pub wave: WaveSize,
    /// The mode its descriptors state (absent before generator version 3:
    /// WGP mode, the only one shipped then).
    #[serde(default)]
    pub mode: Mode,
    /// `embedded:<file>` or the `--code-object` path.
    pub source: String,
    pub sha256: String,
    /// `source` (compiled by this build), `prebuilt` or `file`.
    pub origin: String,
    /// The compiler's version line, when known.
    pub compiler: Option<String>,
    /// The object's own target (`gfx1100`, `gfx11-generic`), beside the
    /// device's reported target in `device.target_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// Where a run ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Environment {
    pub device: DeviceInfo,
    /// Why this backend was chosen (`--backend auto`'s one-line notice).
    pub selection: String,
    pub code_objects: Vec<CodeObjectRecord>,
    pub host_os: String,
    pub host_arch: String,
    pub host_cpus: usize,
    /// Every device a case ran on (HIP worker processes may use several).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceInfo>,
    /// `HSA_OVERRIDE_GFX_VERSION` as set for the run: under it, ROCr
    /// reports the override's target, not the silicon's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hsa_override_gfx_version: Option<String>,
    /// The amdgpu kernel driver's version (sysfs), when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amdgpu_driver_version: Option<String>,
}

/// Settings that change what is run or how it is judged (compared by merge).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Parameters {
    pub timeout_ms: u64,
    pub minimize_budget_ms: u64,
    /// Emu fault injected (`--fault`), if any.
    pub fault: Option<String>,
    /// Emu interleaving seed (`--interleave-seed`), if any.
    pub interleave_seed: Option<u64>,
    /// The model policy the verdicts were made under (its description).
    pub policy: String,
}

/// One finished case (a line of `.cases.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseRecord {
    pub index: u64,
    pub pattern: Pattern,
    pub variant: String,
    pub wave: WaveSize,
    /// Wavefront execution mode the case ran in (absent before generator
    /// version 3: WGP mode).
    #[serde(default)]
    pub mode: Mode,
    pub ordinal: u64,
    pub groups: u32,
    pub waves_per_group: u32,
    pub active_lanes: usize,
    pub lds_bytes: u32,
    pub offset: u16,
    /// Rounds of `ds_xor_rtn_b64` per lane (omitted when 1, as every case
    /// had before rounds): the case verified `active_lanes * rounds`
    /// lane-operations.
    #[serde(default = "one_round", skip_serializing_if = "is_one_round")]
    pub rounds: u32,
    /// `gen::case_digest` of the case as generated: equal in two runs of
    /// one seed (and generator version) exactly when the case is, if both
    /// streams' headers name the same `case_digest_format`.
    #[serde(default)]
    pub case_digest: String,
    /// `completed`, `fault` or `timeout`: what the device did.
    pub outcome: String,
    pub passed: bool,
    /// Failure class (`mismatch`, `unexpected-fault`, ...), None when passed.
    pub kind: Option<String>,
    /// One line; empty (and omitted) when the case passed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// What the run noticed without judging (e.g. the serialization order
    /// the device used, a probe's outcome).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Order evidence: whether a wave64 instruction's two halves were seen
    /// split (another wave's lanes between them in the order the returns
    /// fix); absent when no instruction of the case could show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halves_split: Option<bool>,
    /// A `stress` case's parameters (`case::Stress` without the per-lane
    /// slots, which the repro's case carries); absent for other families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stress: Option<Stress>,
    pub device_us: u64,
}

fn one_round() -> u32 {
    1
}

fn is_one_round(r: &u32) -> bool {
    *r == 1
}

/// Per (family, wave, mode) counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PatternCounts {
    pub pattern: Pattern,
    pub wave: WaveSize,
    /// Absent before generator version 3: WGP mode.
    #[serde(default)]
    pub mode: Mode,
    pub cases: u64,
    pub passed: u64,
    pub failed: u64,
    pub wall_ms: u64,
    /// Cases whose returns could show a wave64 instruction's halves split
    /// (`CaseRecord::halves_split` present); 0 (and omitted) otherwise.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub halves_observed: u64,
    /// … of those, the cases where a split was seen.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub halves_split: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl PatternCounts {
    /// A cell with no cases counted yet.
    pub fn empty(pattern: Pattern, wave: WaveSize, mode: Mode) -> PatternCounts {
        PatternCounts {
            pattern,
            wave,
            mode,
            cases: 0,
            passed: 0,
            failed: 0,
            wall_ms: 0,
            halves_observed: 0,
            halves_split: 0,
        }
    }

    /// Count a case's halves evidence (`CaseRecord::halves_split`).
    pub fn count_halves(&mut self, halves_split: Option<bool>) {
        if let Some(split) = halves_split {
            self.halves_observed += 1;
            self.halves_split += u64::from(split);
        }
    }
}

/// A device probe that is not a case family (`--probe leftover-lds`,
/// `back-to-back`, `exec-zero-in-flight`, `unused-vdst-lanes`,
/// `smem-in-flight`, `vdst-out-of-range`): what it ran, what it read and its verdict, once per
/// code object. A failed probe fails the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProbeRecord {
    /// The probe's `--probe` name.
    pub probe: String,
    pub wave: WaveSize,
    pub mode: Mode,
    /// `passed` or `failed`.
    pub verdict: Status,
    /// Workgroups of each launch.
    pub groups: u32,
    /// `leftover-lds`: LDS bytes the listener read (0 for other probes).
    #[serde(default)]
    pub bytes_read: u64,
    /// `leftover-lds`: bytes holding the fill kernel's marker, LDS another
    /// kernel left behind.
    #[serde(default)]
    pub leaked_bytes: u64,
    /// `leftover-lds`: other nonzero bytes (reported, not judged: a device
    /// that does not clear LDS may show any earlier kernel's data, and one
    /// that clears it need not clear it to zero).
    #[serde(default)]
    pub other_nonzero_bytes: u64,
    /// The in-flight probes: lanes checked (every lane of the launch).
    /// Absent in files written before they existed.
    #[serde(default)]
    pub lanes: u64,
    /// The in-flight probes: lanes that read back any wrong value.
    #[serde(default)]
    pub wrong_lanes: u64,
    /// Probes with more than one legal outcome (`unused-vdst-lanes`,
    /// `smem-in-flight`): lanes per outcome the device showed, by name.
    /// Absent when the probe has one outcome.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub outcomes: std::collections::BTreeMap<String, u64>,
    /// Why it failed, or what it showed.
    pub summary: String,
}

/// A failed case and where its repro went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FailureRecord {
    pub index: u64,
    pub pattern: Pattern,
    pub variant: String,
    pub wave: WaveSize,
    /// Absent before generator version 3: WGP mode.
    #[serde(default)]
    pub mode: Mode,
    pub ordinal: u64,
    pub kind: String,
    pub summary: String,
    /// Path of the minimized repro file (as written, relative to the cwd).
    pub repro: Option<String>,
    pub minimize: Option<MinimizeStats>,
    /// Not minimized: the run index of the minimized failure of the same
    /// kind in the same (pattern, wave) cell (None with `repro` None: the
    /// `--max-repros` cap was reached).
    #[serde(default)]
    pub same_kind_as: Option<u64>,
    /// Active lanes before and after minimization.
    pub active_lanes_before: usize,
    pub active_lanes_after: usize,
    /// A `stress` case's parameters as drawn (without the per-lane slots);
    /// absent for other families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stress: Option<Stress>,
}

/// `passed`, `failed` (a conformance failure) or `aborted` (environment
/// trouble stopped the run: no verdict on the cases not run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Passed,
    Failed,
    Aborted,
}

/// The final results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Results {
    pub format: String,
    pub dsxor_version: String,
    pub started_utc: String,
    pub finished_utc: String,
    pub wall_ms: u64,
    pub status: Status,
    pub abort_reason: Option<String>,
    pub environment: Environment,
    pub spec: SuiteSpec,
    pub parameters: Parameters,
    /// The streamed case records, relative to this file's directory.
    pub cases_file: Option<String>,
    pub total: u64,
    pub passed: u64,
    pub failed: u64,
    /// Lane-operations (one `ds_xor_rtn_b64` of one active lane in one
    /// round) of the passed cases: what the run verified. 0 in results
    /// written before it was counted.
    #[serde(default)]
    pub verified_lane_ops: u64,
    pub patterns: Vec<PatternCounts>,
    pub failures: Vec<FailureRecord>,
    /// Device probes run beside the cases (`--probe leftover-lds`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<ProbeRecord>,
    /// Set by `dsxor merge`: the shard files combined into this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
}

impl Results {
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let text = crate::json::read_bounded(path, crate::json::MAX_RESULTS_BYTES, "results file")
            .map_err(|source| ResultsError::Read {
                path: path.to_path_buf(),
                cause: source,
            })?;
        let malformed = |why: String| ResultsError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        crate::json::refuse_duplicate_keys(&text).map_err(|e| malformed(e.to_string()))?;
        // The format tag first (a cheap pass that keeps no other field),
        // then the typed results: no `Value` of the whole file in memory.
        #[derive(Deserialize)]
        struct Tag {
            format: Option<String>,
        }
        let tag: Tag = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        match tag.format.as_deref() {
            Some(RESULTS_FORMAT) => {}
            Some(other) => {
                return Err(malformed(format!(
                    "format `{other}`, expected `{RESULTS_FORMAT}`"
                )))
            }
            None => return Err(malformed("no `format` field".into())),
        }
        serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))
    }
}

/// The first line of a `.cases.jsonl` stream (`dsxor-cases/1`); the
/// lines after it are [`CaseRecord`]s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CasesHeader {
    /// Always `dsxor-cases/1`.
    pub format: String,
    pub dsxor_version: String,
    /// The run's seed (also in `spec` when present).
    #[serde(default)]
    pub seed: Option<u64>,
    pub started_utc: String,
    /// The format of every record's `case_digest` (`gen::digest`):
    /// `dsxor-case-digest/2` (XXH3-64); absent in streams written before
    /// it, whose digests are `dsxor-case-digest/1` (SHA-256). Digests of two
    /// formats never match, whatever the cases:
    /// [`compare_case_streams`] refuses them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_digest_format: Option<String>,
    /// What decides the cases, the parameters and the environment: written
    /// by `dsxor run`, so that a stream without its `.json` (a killed run)
    /// can be rebuilt into results; absent in streams written without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<SuiteSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Parameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
}

impl CasesHeader {
    /// The format of this stream's case digests (`dsxor-case-digest/1`
    /// when the header names none: written before formats were named).
    pub fn digest_format(&self) -> &str {
        self.case_digest_format
            .as_deref()
            .unwrap_or(crate::gen::digest::DIGEST_FORMAT_1)
    }
}

/// Two case streams compared record by record through their digests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamComparison {
    /// The digests' format (both streams').
    pub digest_format: String,
    /// Case indices in both streams with equal digests.
    pub same: u64,
    /// Case indices in both streams whose digests differ.
    pub different: u64,
    /// The first few of those, in index order.
    pub first_different: Vec<u64>,
    /// Case indices in one stream only.
    pub only_a: u64,
    pub only_b: u64,
}

/// Differing indices [`StreamComparison`] lists.
const DIFFERENT_LISTED: usize = 10;

/// The header of a case stream, and a reader of its records.
fn open_case_stream(path: &Path) -> Result<(CasesHeader, crate::json::Lines), ResultsError> {
    let malformed = |why: String| ResultsError::Malformed {
        path: path.to_path_buf(),
        why,
    };
    let read_err = |source| ResultsError::Read {
        path: path.to_path_buf(),
        cause: source,
    };
    // Line by line: a stream of any length in the memory of one line.
    let mut lines =
        crate::json::Lines::open(path, crate::json::MAX_LINE_BYTES).map_err(read_err)?;
    let first = lines
        .next_line()
        .map_err(read_err)?
        .ok_or_else(|| malformed("empty case stream (no header line)".into()))?;
    crate::json::refuse_duplicate_keys(&first)
        .map_err(|e| malformed(format!("header line: {e}")))?;
    let header: CasesHeader =
        serde_json::from_str(&first).map_err(|e| malformed(format!("header line: {e}")))?;
    if header.format != CASES_FORMAT {
        return Err(malformed(format!(
            "format `{}`, expected `{CASES_FORMAT}`",
            header.format
        )));
    }
    Ok((header, lines))
}

/// The records of a case stream as `(index, case_digest)`, refusing an
/// index that does not rise (a stream is written in case order).
struct DigestReader<'a> {
    path: &'a Path,
    lines: crate::json::Lines,
    last: Option<u64>,
}

impl DigestReader<'_> {
    fn next(&mut self) -> Result<Option<(u64, String)>, ResultsError> {
        #[derive(Deserialize)]
        struct Digest {
            index: u64,
            #[serde(default)]
            case_digest: String,
        }
        let malformed = |why: String| ResultsError::Malformed {
            path: self.path.to_path_buf(),
            why,
        };
        let Some(line) = self
            .lines
            .next_line()
            .map_err(|source| ResultsError::Read {
                path: self.path.to_path_buf(),
                cause: source,
            })?
        else {
            return Ok(None);
        };
        let n = self.lines.number;
        let d: Digest =
            serde_json::from_str(&line).map_err(|e| malformed(format!("line {n}: {e}")))?;
        if self.last.is_some_and(|l| d.index <= l) {
            return Err(malformed(format!(
                "line {n}: case {} after case {}: not in case order",
                d.index,
                self.last.unwrap_or_default()
            )));
        }
        self.last = Some(d.index);
        Ok(Some((d.index, d.case_digest)))
    }
}

/// Compare two case streams (`.cases.jsonl`) case by case, reading each
/// line by line: the same seed and selection replayed gives equal digests
/// at every index. Streams whose headers name different digest formats
/// are refused ([`ResultsError::DigestFormat`]), not reported as every
/// case different.
pub fn compare_case_streams(a: &Path, b: &Path) -> Result<StreamComparison, ResultsError> {
    let (ha, la) = open_case_stream(a)?;
    let (hb, lb) = open_case_stream(b)?;
    if ha.digest_format() != hb.digest_format() {
        return Err(ResultsError::DigestFormat {
            a: a.to_path_buf(),
            a_format: ha.digest_format().to_string(),
            b: b.to_path_buf(),
            b_format: hb.digest_format().to_string(),
        });
    }
    let mut c = StreamComparison {
        digest_format: ha.digest_format().to_string(),
        ..StreamComparison::default()
    };
    let mut ra = DigestReader {
        path: a,
        lines: la,
        last: None,
    };
    let mut rb = DigestReader {
        path: b,
        lines: lb,
        last: None,
    };
    let (mut x, mut y) = (ra.next()?, rb.next()?);
    loop {
        match (&x, &y) {
            (None, None) => return Ok(c),
            (Some(_), None) => {
                c.only_a += 1;
                x = ra.next()?;
            }
            (None, Some(_)) => {
                c.only_b += 1;
                y = rb.next()?;
            }
            (Some((i, _)), Some((j, _))) if i < j => {
                c.only_a += 1;
                x = ra.next()?;
            }
            (Some((i, _)), Some((j, _))) if j < i => {
                c.only_b += 1;
                y = rb.next()?;
            }
            (Some((i, d)), Some((_, e))) => {
                if d == e {
                    c.same += 1;
                } else {
                    c.different += 1;
                    if c.first_different.len() < DIFFERENT_LISTED {
                        c.first_different.push(*i);
                    }
                }
                (x, y) = (ra.next()?, rb.next()?);
            }
        }
    }
}

impl Results {
    /// The results of a run that stopped without writing its `.json` (a
    /// SIGKILL, a crash, a power cut), rebuilt from its case stream: every
    /// finished case counted, every failing one listed (with its repro file
    /// when one was written beside the stream), status `aborted`. A last
    /// line without its newline (a torn write) is ignored, as everywhere.
    pub fn recover(cases_path: &Path) -> Result<Results, ResultsError> {
        let malformed = |why: String| ResultsError::Malformed {
            path: cases_path.to_path_buf(),
            why,
        };
        let read_err = |source| ResultsError::Read {
            path: cases_path.to_path_buf(),
            cause: source,
        };
        let (header, mut lines) = open_case_stream(cases_path)?;
        let (Some(spec), Some(parameters), Some(environment)) =
            (header.spec, header.parameters, header.environment)
        else {
            return Err(malformed(
                "its header does not describe the run (spec, parameters, environment): \
                 written by an older dsxor, it cannot be recovered"
                    .into(),
            ));
        };
        let name = cases_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = name
            .strip_suffix(".cases.jsonl")
            .unwrap_or(&name)
            .to_string();
        let mut patterns: Vec<PatternCounts> = Vec::new();
        let mut failures = Vec::new();
        let cells = spec.cells();
        let mut last_index: Option<u64> = None;
        while let Some(line) = lines.next_line().map_err(read_err)? {
            let n = lines.number - 2;
            crate::json::refuse_duplicate_keys(&line)
                .map_err(|e| malformed(format!("line {}: {e}", n + 2)))?;
            let r: CaseRecord = serde_json::from_str(&line)
                .map_err(|e| malformed(format!("line {}: {e}", n + 2)))?;
            if r.index >= spec.cases
                || !spec.shard.contains(r.index)
                || !cells.contains(&(r.pattern, r.wave, r.mode))
                || last_index.is_some_and(|l| r.index <= l)
            {
                return Err(malformed(format!(
                    "line {}: case {} ({}/wave{}/{}) is not the next case of this run's shard {}",
                    n + 2,
                    r.index,
                    r.pattern,
                    r.wave.lanes(),
                    r.mode,
                    spec.shard
                )));
            }
            last_index = Some(r.index);
            if patterns.last().map(|c| (c.pattern, c.wave, c.mode))
                != Some((r.pattern, r.wave, r.mode))
            {
                patterns.push(PatternCounts::empty(r.pattern, r.wave, r.mode));
            }
            if let Some(c) = patterns.last_mut() {
                c.cases += 1;
                c.count_halves(r.halves_split);
                c.wall_ms += r.device_us / 1000;
                if r.passed {
                    c.passed += 1;
                } else {
                    c.failed += 1;
                }
            }
            if !r.passed {
                let repro = cases_path.with_file_name(format!("{stem}.repro-{}.json", r.index));
                failures.push(FailureRecord {
                    index: r.index,
                    pattern: r.pattern,
                    variant: r.variant,
                    wave: r.wave,
                    mode: r.mode,
                    ordinal: r.ordinal,
                    kind: r.kind.unwrap_or_else(|| "unknown".into()),
                    summary: r.summary,
                    repro: repro.exists().then(|| repro.display().to_string()),
                    minimize: None,
                    same_kind_as: None,
                    active_lanes_before: r.active_lanes,
                    active_lanes_after: r.active_lanes,
                    stress: r.stress,
                });
            }
        }
        let passed: u64 = patterns.iter().map(|c| c.passed).sum();
        let failed: u64 = patterns.iter().map(|c| c.failed).sum();
        Ok(Results {
            format: RESULTS_FORMAT.into(),
            dsxor_version: header.dsxor_version,
            finished_utc: header.started_utc.clone(),
            started_utc: header.started_utc,
            wall_ms: patterns.iter().map(|c| c.wall_ms).sum(),
            status: Status::Aborted,
            abort_reason: Some(format!(
                "the run stopped before writing its results file (killed?): {} finished \
                 cases recovered from its case stream {name}",
                passed + failed
            )),
            // Case records do not carry their lane-operation counts.
            verified_lane_ops: 0,
            environment,
            spec,
            parameters,
            cases_file: Some(name),
            total: passed + failed,
            passed,
            failed,
            patterns,
            failures,
            probes: Vec::new(),
            merged_from: Vec::new(),
        })
    }

    /// A results file (`.json`), or a case stream (`.cases.jsonl`) whose
    /// run never wrote one ([`Results::recover`]).
    pub fn read_or_recover(path: &Path) -> Result<Results, ResultsError> {
        if path.to_string_lossy().ends_with(".cases.jsonl") {
            Results::recover(path)
        } else {
            Results::read(path)
        }
    }
}

/// `2026-12-01T19:44:59Z` → `20261201T194459Z`, for file names.
pub fn compact_utc(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t)
        .to_string()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect()
}

pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

/// Keep `[A-Za-z0-9._+-]` of a device-supplied string, for file names.
pub fn file_safe(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        "unknown".into()
    } else {
        out
    }
}

/// Writes one run's files.
pub struct ResultsWriter {
    dir: PathBuf,
    stem: String,
    /// `--results PATH`: the final file's name when the user gave one.
    named: Option<PathBuf>,
    cases: File,
    cases_path: PathBuf,
    /// The record being written, kept from record to record: a record
    /// costs no allocation once the longest has been written.
    line: Vec<u8>,
}

impl ResultsWriter {
    /// Create `dir` if needed and open the case stream. The stem is
    /// `<UTC>-<backend>-<target>[-shardKofN]`, with `-2`, `-3`... appended
    /// if a run of the same second already wrote there.
    pub fn create(
        dir: &Path,
        started: SystemTime,
        backend: &str,
        target: &str,
        spec: &SuiteSpec,
    ) -> Result<ResultsWriter, ResultsError> {
        Self::create_with(dir, started, backend, target, spec, None)
    }

    /// [`ResultsWriter::create`], with the run's parameters and environment
    /// in the stream's header too: then the stream alone describes the run,
    /// and [`Results::recover`] rebuilds an `aborted` results file from it
    /// when the run was killed before writing its `.json`.
    pub fn create_with(
        dir: &Path,
        started: SystemTime,
        backend: &str,
        target: &str,
        spec: &SuiteSpec,
        context: Option<(&Parameters, &Environment)>,
    ) -> Result<ResultsWriter, ResultsError> {
        fs::create_dir_all(dir).map_err(|source| ResultsError::CreateDir {
            path: dir.to_path_buf(),
            cause: source,
        })?;
        let mut base = format!(
            "{}-{}-{}",
            compact_utc(started),
            file_safe(backend),
            file_safe(target)
        );
        if spec.shard.count > 1 {
            base.push_str(&format!("-shard{}of{}", spec.shard.index, spec.shard.count));
        }
        for n in 1.. {
            let stem = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let cases_path = dir.join(format!("{stem}.cases.jsonl"));
            if dir.join(format!("{stem}.json")).exists() {
                continue;
            }
            // create_new: two runs never share a stream.
            match OpenOptions::new()
                .append(true)
                .create_new(true)
                .open(&cases_path)
            {
                Ok(cases) => {
                    let mut w = ResultsWriter {
                        dir: dir.to_path_buf(),
                        stem,
                        named: None,
                        cases,
                        cases_path,
                        line: Vec::new(),
                    };
                    let header = CasesHeader {
                        format: CASES_FORMAT.into(),
                        dsxor_version: env!("CARGO_PKG_VERSION").into(),
                        seed: Some(spec.seed),
                        started_utc: rfc3339(started),
                        case_digest_format: Some(crate::gen::digest::DIGEST_FORMAT.into()),
                        spec: context.map(|_| spec.clone()),
                        parameters: context.map(|(p, _)| p.clone()),
                        environment: context.map(|(_, e)| e.clone()),
                    };
                    if let Err(e) = w.append_line(&header) {
                        // No empty stream left behind (a full disk).
                        let _ = fs::remove_file(&w.cases_path);
                        return Err(e);
                    }
                    return Ok(w);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(ResultsError::Write {
                        path: cases_path,
                        cause: source,
                    })
                }
            }
        }
        unreachable!("an unbounded search always finds a free name")
    }

    /// Name the final results file (`--results PATH`) instead of
    /// `<dir>/<stem>.json`; `None` keeps the default. A named file is
    /// replaced atomically when it exists (the user chose the name).
    pub fn with_final_path(mut self, path: Option<PathBuf>) -> ResultsWriter {
        self.named = path;
        self
    }

    pub fn final_path(&self) -> PathBuf {
        match &self.named {
            Some(p) => p.clone(),
            None => self.dir.join(format!("{}.json", self.stem)),
        }
    }

    pub fn cases_path(&self) -> &Path {
        &self.cases_path
    }

    /// The case stream as the results file names it (`cases_file`): its
    /// file name, relative to the results file's directory; an absolute
    /// path when `--results` puts the results file in another directory.
    pub fn cases_file_ref(&self) -> String {
        let name = self
            .cases_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(named) = &self.named else {
            return name;
        };
        let parent = match named.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let same = match (fs::canonicalize(parent), fs::canonicalize(&self.dir)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same {
            name
        } else {
            std::path::absolute(&self.cases_path)
                .unwrap_or_else(|_| self.cases_path.clone())
                .display()
                .to_string()
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn stem(&self) -> &str {
        &self.stem
    }

    /// Serialize `value` as one line of the stream and append it.
    fn append_line<T: Serialize>(&mut self, value: &T) -> Result<(), ResultsError> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let written = serde_json::to_writer(&mut line, value)
            .map_err(std::io::Error::other)
            .and_then(|()| {
                line.push(b'\n');
                // One write per record (append mode): a kill leaves whole lines.
                self.cases.write_all(&line)?;
                self.cases.flush()
            });
        self.line = line;
        written.map_err(|source| ResultsError::Write {
            path: self.cases_path.clone(),
            cause: source,
        })
    }

    pub fn record(&mut self, record: &CaseRecord) -> Result<(), ResultsError> {
        self.append_line(record)
    }

    /// Write the final file atomically; returns its path.
    pub fn finish(&mut self, results: &Results) -> Result<PathBuf, ResultsError> {
        let _ = self.cases.sync_all();
        let path = self.final_path();
        write_atomic(&path, results)?;
        Ok(path)
    }
}

/// Serialize `value` as pretty JSON to `path`, atomically.
pub fn write_atomic<T: Serialize>(path: &Path, value: &T) -> Result<(), ResultsError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| ResultsError::Write {
        path: path.to_path_buf(),
        cause: std::io::Error::other(e),
    })?;
    text.push('\n');
    write_text_atomic(path, &text)
}

/// Write `text` to `path` by the output-path policy (`report::output`):
/// a file is replaced atomically, a device or FIFO written in place, a
/// directory refused.
pub fn write_text_atomic(path: &Path, text: &str) -> Result<(), ResultsError> {
    Ok(super::output::write(path, text.as_bytes())?)
}

/// Write `text` as a new file in `dir` named `<stem>.<ext>` (or `-2`, `-3`…
/// when taken), never replacing one (`report::output::write_new`).
pub fn write_new_file(
    dir: &Path,
    stem: &str,
    ext: &str,
    text: &str,
) -> Result<PathBuf, ResultsError> {
    Ok(super::output::write_new(dir, stem, ext, text.as_bytes())?)
}

/// Fail now, before any case runs, if `dir` cannot take files (it is
/// created if missing) or `file` cannot be written by the output-path
/// policy (`report::output::check`): a run must not do all its work and
/// then lose it to a bad path.
pub fn check_writable(dir: Option<&Path>, file: Option<&Path>) -> Result<(), ResultsError> {
    if let Some(dir) = dir {
        fs::create_dir_all(dir).map_err(|source| ResultsError::CreateDir {
            path: dir.to_path_buf(),
            cause: source,
        })?;
        tempfile::tempfile_in(dir).map_err(|source| ResultsError::Write {
            path: dir.to_path_buf(),
            cause: source,
        })?;
    }
    if let Some(file) = file {
        super::output::check(file)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::backend::BackendKind;
    use crate::gen::Shard;

    pub(crate) fn sample_results(spec: SuiteSpec) -> Results {
        Results {
            format: RESULTS_FORMAT.into(),
            dsxor_version: "0.1.0".into(),
            started_utc: "2026-12-01T19:44:59Z".into(),
            finished_utc: "2026-12-01T19:45:59Z".into(),
            wall_ms: 60000,
            status: Status::Passed,
            abort_reason: None,
            environment: Environment {
                device: DeviceInfo {
                    backend: BackendKind::Emu,
                    name: "test".into(),
                    target_id: "gfx1100".into(),
                    wave_sizes: vec![32, 64],
                    compute_units: 1,
                    clock_khz: None,
                    lds_per_block: 65536,
                    runtime_version: None,
                    driver_version: None,
                    pci_bus_id: None,
                    uuid: None,
                    placement: None,
                },
                selection: "test".into(),
                code_objects: vec![],
                host_os: "linux".into(),
                host_arch: "x86_64".into(),
                host_cpus: 2,
                devices: vec![],
                hsa_override_gfx_version: None,
                amdgpu_driver_version: None,
            },
            spec,
            parameters: Parameters {
                timeout_ms: 1000,
                minimize_budget_ms: 1000,
                fault: None,
                interleave_seed: None,
                policy: "p".into(),
            },
            cases_file: None,
            total: 0,
            passed: 0,
            failed: 0,
            patterns: vec![],
            failures: vec![],
            probes: Vec::new(),
            merged_from: vec![],
            verified_lane_ops: 0,
        }
    }

    #[test]
    fn new_files_never_replace_one_another() {
        let dir = tempfile::tempdir().unwrap();
        let a = write_new_file(dir.path(), "bench-x", "json", "first\n").unwrap();
        let b = write_new_file(dir.path(), "bench-x", "json", "second\n").unwrap();
        assert_ne!(a, b);
        assert!(b.to_string_lossy().ends_with("bench-x-2.json"), "{b:?}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "first\n");
        assert_eq!(fs::read_to_string(&b).unwrap(), "second\n");
        // No temporary file left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn names_stream_and_atomic_final_file() {
        let dir = tempfile::tempdir().unwrap();
        let spec = SuiteSpec::new(5, 10, &[], &[], &[], Shard { index: 2, count: 3 }).unwrap();
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_154_299);
        let mut w = ResultsWriter::create(dir.path(), t, "emu", "gfx1100:xnack-", &spec).unwrap();
        assert_eq!(w.stem(), "20261201T194459Z-emu-gfx1100_xnack--shard2of3");
        let rec = CaseRecord {
            index: 1,
            pattern: Pattern::Data,
            variant: "zero".into(),
            wave: WaveSize::Wave32,
            mode: crate::case::Mode::Wgp,
            ordinal: 0,
            groups: 1,
            waves_per_group: 1,
            active_lanes: 32,
            lds_bytes: 64,
            offset: 0,
            case_digest: "0123456789abcdef".into(),
            outcome: "completed".into(),
            passed: true,
            kind: None,
            summary: "ok".into(),
            notes: vec![],
            halves_split: None,
            stress: None,
            device_us: 5,
            rounds: 1,
        };
        w.record(&rec).unwrap();
        let text = fs::read_to_string(w.cases_path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains(CASES_FORMAT));
        let back: CaseRecord = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(back, rec);
        let results = sample_results(spec.clone());
        let path = w.finish(&results).unwrap();
        assert_eq!(Results::read(&path).unwrap(), results);
        // No temporary file left behind.
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A second run in the same second gets its own name.
        let w2 = ResultsWriter::create(dir.path(), t, "emu", "gfx1100:xnack-", &spec).unwrap();
        assert_eq!(w2.stem(), "20261201T194459Z-emu-gfx1100_xnack--shard2of3-2");
    }

    #[test]
    fn read_rejects_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.json");
        fs::write(&p, "{\"format\":\"something/1\"}").unwrap();
        assert!(matches!(
            Results::read(&p),
            Err(ResultsError::Malformed { .. })
        ));
        fs::write(&p, "not json").unwrap();
        assert!(matches!(
            Results::read(&p),
            Err(ResultsError::Malformed { .. })
        ));
        assert!(matches!(
            Results::read(&dir.path().join("missing.json")),
            Err(ResultsError::Read { .. })
        ));
    }

    /// A case stream with the header `header` and one record per
    /// `(index, digest)`.
    fn stream(dir: &Path, name: &str, header: &str, cases: &[(u64, &str)]) -> PathBuf {
        let mut text = format!("{header}\n");
        for (index, digest) in cases {
            text.push_str(&format!(
                "{{\"index\":{index},\"case_digest\":\"{digest}\",\"passed\":true}}\n"
            ));
        }
        let p = dir.join(name);
        fs::write(&p, text).unwrap();
        p
    }

    const OLD_HEADER: &str =
        r#"{"format":"dsxor-cases/1","dsxor_version":"0.1.0","seed":1,"started_utc":"x"}"#;

    /// A stream written before digest formats were named (SHA-256) against
    /// one of this version's: refused with both formats named, not
    /// reported as every case different.
    #[test]
    fn streams_of_two_digest_formats_are_refused_not_compared() {
        let dir = tempfile::tempdir().unwrap();
        let spec = SuiteSpec::new(5, 10, &[], &[], &[], Shard::WHOLE).unwrap();
        let w =
            ResultsWriter::create(dir.path(), SystemTime::now(), "emu", "gfx1100", &spec).unwrap();
        let new = w.cases_path().to_path_buf();
        drop(w);
        let old = stream(dir.path(), "old.cases.jsonl", OLD_HEADER, &[]);
        let e = compare_case_streams(&old, &new).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(&e, ResultsError::DigestFormat { a_format, b_format, .. }
                if a_format == "dsxor-case-digest/1" && b_format == "dsxor-case-digest/2"),
            "{text}"
        );
        assert!(text.contains("cannot be compared case by case"), "{text}");
        // The same format on both sides compares.
        assert_eq!(compare_case_streams(&new, &new).unwrap().same, 0);
        assert_eq!(
            compare_case_streams(&old, &old).unwrap().digest_format,
            "dsxor-case-digest/1"
        );
    }

    #[test]
    fn streams_are_compared_index_by_index() {
        let dir = tempfile::tempdir().unwrap();
        let a = stream(
            dir.path(),
            "a.cases.jsonl",
            OLD_HEADER,
            &[(0, "aa"), (1, "bb"), (3, "cc"), (4, "dd")],
        );
        let b = stream(
            dir.path(),
            "b.cases.jsonl",
            OLD_HEADER,
            &[(0, "aa"), (2, "xx"), (3, "cd"), (4, "dd"), (5, "ee")],
        );
        let c = compare_case_streams(&a, &b).unwrap();
        assert_eq!(
            (c.same, c.different, c.only_a, c.only_b),
            (2, 1, 1, 2),
            "{c:?}"
        );
        assert_eq!(c.first_different, [3]);
        // A stream out of case order is refused.
        let bad = stream(
            dir.path(),
            "bad.cases.jsonl",
            OLD_HEADER,
            &[(2, "a"), (1, "b")],
        );
        assert!(matches!(
            compare_case_streams(&a, &bad),
            Err(ResultsError::Malformed { .. })
        ));
    }
}
