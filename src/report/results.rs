//! The results of a conformance run, as files a nightly CI and a person can
//! both read (schema: results/README.md).
//!
//! Two files per run, named `<UTC time>-<backend>-<target>[-shardKofN]`:
//! - `.cases.jsonl`: one JSON line per finished case, appended and flushed
//!   as the run goes, so a crash or kill keeps every finished case (a reader
//!   ignores a last line that has no newline);
//! - `.json`: the final report, written to a temporary file in the same
//!   directory and renamed into place, so it is either complete or absent.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::backend::DeviceInfo;
use crate::case::WaveSize;
use crate::gen::minimize::MinimizeStats;
use crate::gen::{Pattern, SuiteSpec};

/// Format tag of the final results file. Bump on an incompatible change.
pub const RESULTS_FORMAT: &str = "dsxor-results/1";
/// Format tag of the first line of the streamed case records.
pub const CASES_FORMAT: &str = "dsxor-cases/1";

#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("cannot create results directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a dsxor results file: {why}")]
    Malformed { path: PathBuf, why: String },
}

/// One code object a run used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeObjectRecord {
    pub wave: WaveSize,
    /// `embedded:<file>` or the `--code-object` path.
    pub source: String,
    pub sha256: String,
    /// `source` (compiled by this build), `prebuilt` or `file`.
    pub origin: String,
    /// The compiler's version line, when known.
    pub compiler: Option<String>,
}

/// Where a run ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub device: DeviceInfo,
    /// Why this backend was chosen (`--backend auto`'s one-line notice).
    pub selection: String,
    pub code_objects: Vec<CodeObjectRecord>,
    pub host_os: String,
    pub host_arch: String,
    pub host_cpus: usize,
}

/// Settings that change what is run or how it is judged (compared by merge).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseRecord {
    pub index: u64,
    pub pattern: Pattern,
    pub variant: String,
    pub wave: WaveSize,
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
    /// one seed (and generator version) exactly when the case is.
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
    pub device_us: u64,
}

fn one_round() -> u32 {
    1
}

fn is_one_round(r: &u32) -> bool {
    *r == 1
}

/// Per (family, wave) counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternCounts {
    pub pattern: Pattern,
    pub wave: WaveSize,
    pub cases: u64,
    pub passed: u64,
    pub failed: u64,
    pub wall_ms: u64,
}

/// A failed case and where its repro went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRecord {
    pub index: u64,
    pub pattern: Pattern,
    pub variant: String,
    pub wave: WaveSize,
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
}

/// `passed`, `failed` (a conformance failure) or `aborted` (environment
/// trouble stopped the run: no verdict on the cases not run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Passed,
    Failed,
    Aborted,
}

/// The final results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// Set by `dsxor merge`: the shard files combined into this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
}

impl Results {
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let text = fs::read_to_string(path).map_err(|source| ResultsError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let malformed = |why: String| ResultsError::Malformed {
            path: path.to_path_buf(),
            why,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(RESULTS_FORMAT) => {}
            Some(other) => {
                return Err(malformed(format!(
                    "format `{other}`, expected `{RESULTS_FORMAT}`"
                )))
            }
            None => return Err(malformed("no `format` field".into())),
        }
        serde_json::from_value(value).map_err(|e| malformed(e.to_string()))
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
fn file_safe(s: &str) -> String {
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
    cases: File,
    cases_path: PathBuf,
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
        fs::create_dir_all(dir).map_err(|source| ResultsError::CreateDir {
            path: dir.to_path_buf(),
            source,
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
                        cases,
                        cases_path,
                    };
                    let header = serde_json::json!({
                        "format": CASES_FORMAT,
                        "dsxor_version": env!("CARGO_PKG_VERSION"),
                        "seed": spec.seed,
                        "started_utc": rfc3339(started),
                    });
                    w.append_line(&header.to_string())?;
                    return Ok(w);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(ResultsError::Write {
                        path: cases_path,
                        source,
                    })
                }
            }
        }
        unreachable!("an unbounded search always finds a free name")
    }

    pub fn final_path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.stem))
    }

    pub fn cases_path(&self) -> &Path {
        &self.cases_path
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn stem(&self) -> &str {
        &self.stem
    }

    fn append_line(&mut self, line: &str) -> Result<(), ResultsError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        // One write per record (append mode): a kill leaves whole lines.
        self.cases
            .write_all(&bytes)
            .and_then(|_| self.cases.flush())
            .map_err(|source| ResultsError::Write {
                path: self.cases_path.clone(),
                source,
            })
    }

    pub fn record(&mut self, record: &CaseRecord) -> Result<(), ResultsError> {
        let line = serde_json::to_string(record).map_err(|e| ResultsError::Write {
            path: self.cases_path.clone(),
            source: std::io::Error::other(e),
        })?;
        self.append_line(&line)
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
        source: std::io::Error::other(e),
    })?;
    text.push('\n');
    write_text_atomic(path, &text)
}

/// Write `text` to `path` through a temporary file in the same directory
/// and a rename: readers see the old file or the whole new one.
pub fn write_text_atomic(path: &Path, text: &str) -> Result<(), ResultsError> {
    let err = |source| ResultsError::Write {
        path: path.to_path_buf(),
        source,
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{file_name}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(err)
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
                },
                selection: "test".into(),
                code_objects: vec![],
                host_os: "linux".into(),
                host_arch: "x86_64".into(),
                host_cpus: 2,
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
            merged_from: vec![],
            verified_lane_ops: 0,
        }
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
}
