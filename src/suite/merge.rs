//! `dsxor merge`: shard results of one run (same seed, same parameters, same
//! kind of device and code objects) combined into one report. Anything else
//! is refused: counts of different runs added together would mean nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::gen::Shard;
use crate::report::results::{PatternCounts, Results, ResultsError, Status};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge: give the shard results files")]
    NoFiles,
    #[error(transparent)]
    Read(#[from] ResultsError),
    #[error("{path} is not from the same run as {first}: {why}")]
    DifferentRun {
        path: PathBuf,
        first: PathBuf,
        why: String,
    },
    #[error("{path} and {other} are both shard {shard}")]
    DuplicateShard {
        path: PathBuf,
        other: PathBuf,
        shard: Shard,
    },
    #[error("shards missing for a complete run of {count}: {missing}")]
    MissingShards { count: u32, missing: String },
    #[error("{path} is already a merged report")]
    AlreadyMerged { path: PathBuf },
}

fn sha_set(r: &Results) -> BTreeSet<(u32, String)> {
    r.environment
        .code_objects
        .iter()
        .map(|o| (o.wave.lanes(), o.sha256.clone()))
        .collect()
}

/// Why `r` cannot be merged with `first`, if it cannot.
fn difference(first: &Results, r: &Results) -> Option<String> {
    if first.spec.seed != r.spec.seed {
        return Some(format!("seed {} vs {}", r.spec.seed, first.spec.seed));
    }
    if first.spec.shard.count != r.spec.shard.count {
        return Some(format!(
            "split into {} shards vs {}",
            r.spec.shard.count, first.spec.shard.count
        ));
    }
    if !first.spec.same_run_as(&r.spec) {
        return Some(format!(
            "different case selection (cases {} vs {}, patterns, waves or generator version)",
            r.spec.cases, first.spec.cases
        ));
    }
    if first.parameters != r.parameters {
        return Some(format!(
            "different parameters: {} vs {}",
            serde_json::to_string(&r.parameters).unwrap_or_default(),
            serde_json::to_string(&first.parameters).unwrap_or_default()
        ));
    }
    let (a, b) = (&first.environment.device, &r.environment.device);
    if a.backend != b.backend || a.target_id != b.target_id {
        return Some(format!(
            "device {} {} vs {} {}",
            b.backend.name(),
            b.target_id,
            a.backend.name(),
            a.target_id
        ));
    }
    if sha_set(first) != sha_set(r) {
        return Some("different code objects (sha256)".into());
    }
    if first.dsxor_version != r.dsxor_version {
        return Some(format!(
            "dsxor {} vs {}",
            r.dsxor_version, first.dsxor_version
        ));
    }
    None
}

/// Merge the shard results at `paths` into one report over the whole run.
pub fn merge(paths: &[PathBuf]) -> Result<Results, MergeError> {
    let mut loaded: Vec<(PathBuf, Results)> = Vec::new();
    for p in paths {
        let r = Results::read(p)?;
        if !r.merged_from.is_empty() {
            return Err(MergeError::AlreadyMerged { path: p.clone() });
        }
        loaded.push((p.clone(), r));
    }
    let Some((first_path, first)) = loaded.first().cloned() else {
        return Err(MergeError::NoFiles);
    };
    let mut seen: Vec<(u32, &Path)> = Vec::new();
    for (p, r) in &loaded {
        if let Some(why) = difference(&first, r) {
            return Err(MergeError::DifferentRun {
                path: p.clone(),
                first: first_path.clone(),
                why,
            });
        }
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == r.spec.shard.index) {
            return Err(MergeError::DuplicateShard {
                path: p.clone(),
                other: other.to_path_buf(),
                shard: r.spec.shard,
            });
        }
        seen.push((r.spec.shard.index, p));
    }
    let count = first.spec.shard.count;
    let missing: Vec<String> = (1..=count)
        .filter(|k| !seen.iter().any(|(s, _)| s == k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::MissingShards {
            count,
            missing: missing.join(", "),
        });
    }

    let mut merged = first.clone();
    merged.spec.shard = Shard::WHOLE;
    merged.patterns = merged
        .spec
        .cells()
        .into_iter()
        .map(|(pattern, wave)| {
            let mut c = PatternCounts {
                pattern,
                wave,
                cases: 0,
                passed: 0,
                failed: 0,
                wall_ms: 0,
            };
            for (_, r) in &loaded {
                for p in r
                    .patterns
                    .iter()
                    .filter(|p| p.pattern == pattern && p.wave == wave)
                {
                    c.cases += p.cases;
                    c.passed += p.passed;
                    c.failed += p.failed;
                    c.wall_ms += p.wall_ms;
                }
            }
            c
        })
        .filter(|c| c.cases > 0)
        .collect();
    merged.failures = loaded
        .iter()
        .flat_map(|(_, r)| r.failures.clone())
        .collect();
    merged.failures.sort_by_key(|f| f.index);
    merged.passed = loaded.iter().map(|(_, r)| r.passed).sum();
    merged.failed = loaded.iter().map(|(_, r)| r.failed).sum();
    merged.total = merged.passed + merged.failed;
    merged.verified_lane_ops = loaded.iter().map(|(_, r)| r.verified_lane_ops).sum();
    merged.started_utc = loaded
        .iter()
        .map(|(_, r)| r.started_utc.clone())
        .min()
        .unwrap_or_default();
    merged.finished_utc = loaded
        .iter()
        .map(|(_, r)| r.finished_utc.clone())
        .max()
        .unwrap_or_default();
    // Shards run side by side: the run took as long as the slowest.
    merged.wall_ms = loaded.iter().map(|(_, r)| r.wall_ms).max().unwrap_or(0);
    let aborted: Vec<String> = loaded
        .iter()
        .filter(|(_, r)| r.status == Status::Aborted)
        .map(|(p, r)| {
            format!(
                "{}: {}",
                p.display(),
                r.abort_reason.as_deref().unwrap_or("aborted")
            )
        })
        .collect();
    merged.status = if !aborted.is_empty() {
        Status::Aborted
    } else if merged.failed > 0 {
        Status::Failed
    } else {
        Status::Passed
    };
    merged.abort_reason = (!aborted.is_empty()).then(|| aborted.join("; "));
    let devices: BTreeSet<String> = loaded
        .iter()
        .map(|(_, r)| {
            let d = &r.environment.device;
            format!(
                "{}{}",
                d.name,
                d.pci_bus_id
                    .as_ref()
                    .map(|b| format!(" @{b}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    if devices.len() > 1 {
        merged.environment.selection = format!(
            "{} (shards ran on: {})",
            merged.environment.selection,
            devices.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    merged.cases_file = None;
    merged.merged_from = paths.iter().map(|p| p.display().to_string()).collect();
    Ok(merged)
}
