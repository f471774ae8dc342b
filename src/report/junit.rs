//! JUnit XML for CI dashboards: one test suite per run, one test case per
//! (pattern, wave size), the seed, device and target as properties. A
//! failing test case lists its failing cases with their repro files.

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::results::{write_text_atomic, Results, ResultsError, Status};

pub fn junit_report(results: &Results) -> Report {
    let mut suite = TestSuite::new("dsxor conformance");
    let env = &results.environment;
    let props = [
        ("seed", results.spec.seed.to_string()),
        (
            "generator_version",
            results.spec.generator_version.to_string(),
        ),
        ("shard", results.spec.shard.to_string()),
        ("backend", env.device.backend.name().to_string()),
        ("device", env.device.name.clone()),
        ("target", env.device.target_id.clone()),
        ("dsxor_version", results.dsxor_version.clone()),
    ];
    for (k, v) in props {
        suite.add_property(Property::new(k, v));
    }
    for cell in &results.patterns {
        let name = format!("wave{}", cell.wave.lanes());
        let failures: Vec<_> = results
            .failures
            .iter()
            .filter(|f| f.pattern == cell.pattern && f.wave == cell.wave)
            .collect();
        let status = if failures.is_empty() {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!("{} of {} cases failed", cell.failed, cell.cases));
            s.set_type(failures.first().map(|f| f.kind.clone()).unwrap_or_default());
            let body: Vec<String> = failures
                .iter()
                .map(|f| {
                    format!(
                        "case {} ({}/{} #{}): {}: {}{}",
                        f.index,
                        f.pattern,
                        f.variant,
                        f.ordinal,
                        f.kind,
                        f.summary,
                        f.repro
                            .as_ref()
                            .map(|r| format!(" [repro: {r}]"))
                            .unwrap_or_default()
                    )
                })
                .collect();
            s.set_description(body.join("\n"));
            s
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("dsxor.{}", cell.pattern));
        tc.set_time(Duration::from_millis(cell.wall_ms));
        tc.set_assertions(cell.cases as usize);
        suite.add_test_case(tc);
    }
    if results.status == Status::Aborted {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
        s.set_message(
            results
                .abort_reason
                .clone()
                .unwrap_or_else(|| "aborted".into()),
        );
        s.set_type("environment");
        let mut tc = TestCase::new("run", s);
        tc.set_classname("dsxor.environment");
        suite.add_test_case(tc);
    }
    suite.set_time(Duration::from_millis(results.wall_ms));
    let mut report = Report::new("dsxor");
    report.add_test_suite(suite);
    report
}

pub fn write_junit(path: &Path, results: &Results) -> Result<(), ResultsError> {
    let xml = junit_report(results)
        .to_string()
        .map_err(|e| ResultsError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
    write_text_atomic(path, &xml)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::WaveSize;
    use crate::gen::{Pattern, Shard, SuiteSpec};
    use crate::report::results::{tests::sample_results, FailureRecord, PatternCounts};

    #[test]
    fn one_case_per_cell_with_properties_and_failures() {
        let spec = SuiteSpec::new(99, 4, &[Pattern::Data], &[], &[], Shard::WHOLE).unwrap();
        let mut r = sample_results(spec);
        r.patterns = vec![
            PatternCounts {
                pattern: Pattern::Data,
                wave: WaveSize::Wave32,
                cases: 2,
                passed: 2,
                failed: 0,
                wall_ms: 3,
            },
            PatternCounts {
                pattern: Pattern::Data,
                wave: WaveSize::Wave64,
                cases: 2,
                passed: 1,
                failed: 1,
                wall_ms: 4,
            },
        ];
        r.failures = vec![FailureRecord {
            index: 3,
            pattern: Pattern::Data,
            variant: "zero".into(),
            wave: WaveSize::Wave64,
            ordinal: 1,
            kind: "mismatch".into(),
            summary: "lost update at 0x10".into(),
            repro: Some("results/x.repro.json".into()),
            minimize: None,
            same_kind_as: None,
            active_lanes_before: 64,
            active_lanes_after: 2,
        }];
        let xml = junit_report(&r).to_string().unwrap();
        assert!(
            xml.contains(r#"<property name="seed" value="99"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"name="wave32" classname="dsxor.data""#),
            "{xml}"
        );
        assert!(
            xml.contains("lost update at 0x10 [repro: results/x.repro.json]"),
            "{xml}"
        );
        assert_eq!(xml.matches("<testcase ").count(), 2);
        assert_eq!(xml.matches("<failure").count(), 1);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.xml");
        write_junit(&p, &r).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), xml);
    }
}
