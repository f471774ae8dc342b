//! `dsxor merge`: shard results of one run (same seed, same parameters, same
//! kind of device and code objects) combined into one report. Anything else
//! is refused: counts of different runs added together would mean nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::gen::{Shard, SuiteSpec};
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
    #[error("{path} does not add up, refused: {why}")]
    Inconsistent { path: PathBuf, why: String },
}

/// Why a shard's file contradicts itself, if it does. Merge recomputes
/// every count from the cells and failures a shard lists, so a file whose
/// totals, status and lists disagree (edited, truncated, or from a buggy
/// writer) is refused rather than trusted: a shard that failed must never
/// merge to PASSED.
fn inconsistency(r: &Results) -> Option<String> {
    let cells = r.spec.cells();
    let (mut cases, mut passed, mut failed) = (0u64, 0u64, 0u64);
    for c in &r.patterns {
        let name = format!("{}/wave{}/{}", c.pattern, c.wave.lanes(), c.mode);
        if !cells.contains(&(c.pattern, c.wave, c.mode)) {
            return Some(format!("cell {name} is not in its spec"));
        }
        if c.passed.checked_add(c.failed) != Some(c.cases) {
            return Some(format!(
                "cell {name}: {} passed + {} failed is not its {} cases",
                c.passed, c.failed, c.cases
            ));
        }
        let listed = r
            .failures
            .iter()
            .filter(|f| f.pattern == c.pattern && f.wave == c.wave && f.mode == c.mode)
            .count() as u64;
        if listed > c.failed {
            return Some(format!(
                "cell {name} lists {listed} failures but counts {} failed",
                c.failed
            ));
        }
        let add = |a: u64, b: u64| a.checked_add(b);
        match (
            add(cases, c.cases),
            add(passed, c.passed),
            add(failed, c.failed),
        ) {
            (Some(a), Some(b), Some(d)) => (cases, passed, failed) = (a, b, d),
            _ => return Some("its counts overflow 64 bits".into()),
        }
    }
    if (cases, passed, failed) != (r.total, r.passed, r.failed) {
        return Some(format!(
            "total {}, passed {}, failed {}, but its cells add up to {cases}, {passed}, {failed}",
            r.total, r.passed, r.failed
        ));
    }
    let expected = r.spec.shard_len();
    if cases > expected || (r.status != Status::Aborted && cases != expected) {
        return Some(format!(
            "status {:?} with {cases} cases, but shard {} of {} cases has {expected}",
            r.status, r.spec.shard, r.spec.cases
        ));
    }
    if let Some(f) = r
        .failures
        .iter()
        .find(|f| f.index >= r.spec.cases || !r.spec.shard.contains(f.index))
    {
        return Some(format!(
            "failure of case {} is not a case of shard {}",
            f.index, r.spec.shard
        ));
    }
    if r.failures.iter().any(|f| {
        !r.patterns
            .iter()
            .any(|c| c.pattern == f.pattern && c.wave == f.wave && c.mode == f.mode)
    }) {
        return Some("a failure's cell has no counts".into());
    }
    match r.status {
        Status::Passed if failed > 0 || !r.failures.is_empty() => {
            Some(format!("status passed with {failed} failed cases"))
        }
        Status::Failed if failed == 0 => Some("status failed but no case failed".into()),
        _ => None,
    }
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
    let loaded = load_shards(paths)?;
    let (first_path, first) = &loaded[0];
    let mut merged = first.clone();
    merged.spec.shard = Shard::WHOLE;
    merged.patterns = merged_cells(&merged.spec, &loaded, first_path)?;
    merged.failures = loaded
        .iter()
        .flat_map(|(_, r)| r.failures.clone())
        .collect();
    merged.failures.sort_by_key(|f| f.index);
    // Recomputed from the cells (each shard's totals were checked against
    // its own cells above).
    merged.passed = merged.patterns.iter().map(|c| c.passed).sum();
    merged.failed = merged.patterns.iter().map(|c| c.failed).sum();
    merged.total = merged.patterns.iter().map(|c| c.cases).sum();
    merged.verified_lane_ops = loaded
        .iter()
        .map(|(_, r)| r.verified_lane_ops)
        .fold(0u64, u64::saturating_add);
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
    let any_failed = loaded.iter().any(|(_, r)| r.status == Status::Failed);
    merged.status = if !aborted.is_empty() {
        Status::Aborted
    } else if merged.failed > 0 || any_failed {
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
    // Every shard runs the device probes it was asked for: all are kept.
    merged.probes = loaded.iter().flat_map(|(_, r)| r.probes.clone()).collect();
    merged.cases_file = None;
    merged.merged_from = paths.iter().map(|p| p.display().to_string()).collect();
    Ok(merged)
}

/// The shard results at `paths`, read and checked to be the shards of one
/// run, each once, none missing; the first is the run's.
fn load_shards(paths: &[PathBuf]) -> Result<Vec<(PathBuf, Results)>, MergeError> {
    let mut loaded: Vec<(PathBuf, Results)> = Vec::new();
    for p in paths {
        let r = Results::read_or_recover(p)?;
        if let Some(why) = inconsistency(&r) {
            return Err(MergeError::Inconsistent {
                path: p.clone(),
                why,
            });
        }
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
    // Shard indices are distinct and at most `count` (checked above), so
    // the number missing is a subtraction; only the first few are named
    // (a declared count of 4294967295 must not build a list that long).
    let missing_count = u64::from(count) - seen.len() as u64;
    if missing_count > 0 {
        const NAMED: usize = 10;
        let mut missing: Vec<String> = (1..=count)
            .filter(|k| !seen.iter().any(|(s, _)| s == k))
            .take(NAMED)
            .map(|k| format!("{k}/{count}"))
            .collect();
        if missing_count > NAMED as u64 {
            missing.push(format!("… {} more", missing_count - NAMED as u64));
        }
        return Err(MergeError::MissingShards {
            count,
            missing: missing.join(", "),
        });
    }

    Ok(loaded)
}

/// The run's (pattern, wave, mode) cells, each the sum of the shards' counts
/// (cells no shard ran left out).
fn merged_cells(
    spec: &SuiteSpec,
    loaded: &[(PathBuf, Results)],
    first_path: &Path,
) -> Result<Vec<PatternCounts>, MergeError> {
    Ok(spec
        .cells()
        .into_iter()
        .map(|(pattern, wave, mode)| {
            let mut c = PatternCounts::empty(pattern, wave, mode);
            for (_, r) in loaded {
                for p in r
                    .patterns
                    .iter()
                    .filter(|p| p.pattern == pattern && p.wave == wave && p.mode == mode)
                {
                    // Each shard's counts are at most its shard_len (checked
                    // above), so these sums are at most spec.cases; checked
                    // all the same.
                    c.cases = c.cases.checked_add(p.cases)?;
                    c.passed = c.passed.checked_add(p.passed)?;
                    c.failed = c.failed.checked_add(p.failed)?;
                    c.wall_ms = c.wall_ms.saturating_add(p.wall_ms);
                    c.halves_observed = c.halves_observed.checked_add(p.halves_observed)?;
                    c.halves_split = c.halves_split.checked_add(p.halves_split)?;
                }
            }
            Some(c)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| MergeError::Inconsistent {
            path: first_path.to_path_buf(),
            why: "the shards' counts overflow 64 bits".into(),
        })?
        .into_iter()
        .filter(|c| c.cases > 0)
        .collect())
}
