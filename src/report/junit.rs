//! JUnit XML for CI dashboards: one test suite per run, one test case per
//! (pattern, wave size), the seed, device and target as properties. A
//! failing test case lists its failing cases with their repro files.

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::results::{write_text_atomic, Results, ResultsError, Status};

/// Failing cases listed per JUnit test case (per cell).
pub const FAILURE_BODY_CASES: usize = 20;

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
    for (k, v) in identity_properties(&env.device) {
        suite.add_property(Property::new(k, v));
    }
    for cell in &results.patterns {
        // `pattern/waveN/mode`: unique on its own in a dashboard that drops
        // the classname (a bare `wave32` named 9 different tests).
        let name = format!("{}/wave{}/{}", cell.pattern, cell.wave.lanes(), cell.mode);
        let failures: Vec<_> = results
            .failures
            .iter()
            .filter(|f| f.pattern == cell.pattern && f.wave == cell.wave && f.mode == cell.mode)
            .collect();
        let status = if failures.is_empty() {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!("{} of {} cases failed", cell.failed, cell.cases));
            s.set_type(failures.first().map(|f| f.kind.clone()).unwrap_or_default());
            // The first FAILURE_BODY_CASES of a cell, then a count: a device
            // that fails everything must not write a JUnit file of many
            // megabytes (the rest are in the results and case stream).
            let mut body: Vec<String> = failures
                .iter()
                .take(FAILURE_BODY_CASES)
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
            if cell.failed > body.len() as u64 {
                body.push(format!(
                    "… and {} more failing cases of this cell: see the results file and its case stream",
                    cell.failed - body.len() as u64
                ));
            }
            s.set_description(body.join("\n"));
            s
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("dsxor.{}", cell.pattern));
        tc.set_time(Duration::from_millis(cell.wall_ms));
        suite.add_test_case(tc);
    }
    // A device probe (`--probe leftover-lds`): one test case per code
    // object it ran with.
    for p in &results.probes {
        let name = format!("probe {}/wave{}/{}", p.probe, p.wave.lanes(), p.mode);
        let status = if p.verdict == Status::Passed {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(p.summary.clone());
            s.set_type(p.probe.clone());
            s
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("dsxor.probe.{}", p.probe));
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

/// The attributes the Jenkins/Ant JUnit schema allows on each element
/// (`junit-10.xsd` of Jenkins' xUnit plugin, the schema most consumers
/// validate against; committed as `tests/junit_support/junit-10.xsd`).
/// Elements not listed keep every attribute.
const SCHEMA_ATTRIBUTES: &[(&str, &[&str])] = &[
    (
        "testsuites",
        &["name", "time", "tests", "failures", "errors"],
    ),
    (
        "testsuite",
        &[
            "name",
            "tests",
            "failures",
            "errors",
            "group",
            "time",
            "skipped",
            "timestamp",
            "hostname",
            "id",
            "package",
            "file",
            "log",
            "url",
            "version",
        ],
    ),
    ("testcase", &["name", "time", "classname", "group"]),
    ("failure", &["type", "message"]),
    ("error", &["type", "message"]),
    ("skipped", &["type", "message"]),
    ("property", &["name", "value"]),
];

/// quick-junit's XML reduced to the schema's attributes: it always writes
/// `disabled` on a test suite (and `assertions` when set), which the
/// Jenkins/Ant schema refuses, so a validating consumer rejects the file.
pub fn schema_xml(xml: &str) -> Result<String, quick_xml::Error> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut writer = quick_xml::Writer::new(Vec::with_capacity(xml.len()));
    let keep = |e: &BytesStart<'_>| -> Result<BytesStart<'static>, quick_xml::Error> {
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let allowed = SCHEMA_ATTRIBUTES
            .iter()
            .find(|(el, _)| *el == name)
            .map(|(_, a)| *a);
        let mut out = BytesStart::new(name);
        for a in e.attributes() {
            let a = a.map_err(quick_xml::Error::from)?;
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            if allowed.is_none_or(|list| list.contains(&key.as_str())) {
                out.push_attribute(a);
            }
        }
        Ok(out)
    };
    loop {
        let ev = reader.read_event()?;
        let ev = match ev {
            Event::Eof => break,
            Event::Start(e) => Event::Start(keep(&e)?),
            Event::Empty(e) => Event::Empty(keep(&e)?),
            other => other,
        };
        writer.write_event(ev).map_err(quick_xml::Error::from)?;
    }
    // The input was UTF-8 and the writer copies its bytes.
    Ok(String::from_utf8_lossy(&writer.into_inner()).into_owned())
}

/// The device's identity as JUnit properties: UUID, PCI bus id, versions,
/// host and the scheduler's job, array task and node (those that are set).
pub fn identity_properties(d: &crate::backend::DeviceInfo) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    let mut put = |k: &'static str, x: Option<&String>| {
        if let Some(x) = x.filter(|x| !x.is_empty()) {
            v.push((k, x.clone()));
        }
    };
    put("uuid", d.uuid.as_ref());
    put("pci_bus_id", d.pci_bus_id.as_ref());
    put("runtime_version", d.runtime_version.as_ref());
    put("driver_version", d.driver_version.as_ref());
    if let Some(p) = &d.placement {
        put("host", Some(&p.host));
        put("slurm_job_id", p.slurm_job_id.as_ref());
        put("slurm_array_job_id", p.slurm_array_job_id.as_ref());
        put("slurm_array_task_id", p.slurm_array_task_id.as_ref());
        put("slurm_node", p.slurm_node.as_ref());
        put(
            "k8s_job_completion_index",
            p.k8s_job_completion_index.as_ref(),
        );
        put("k8s_node_name", p.k8s_node_name.as_ref());
    }
    v
}

/// Any report as written: quick-junit's XML filtered to the schema.
pub fn report_xml(report: &Report) -> Result<String, String> {
    let xml = report.to_string().map_err(|e| e.to_string())?;
    schema_xml(&xml).map_err(|e| format!("filtering the JUnit XML: {e}"))
}

/// The JUnit XML of a run, as written: valid against the Jenkins/Ant schema.
pub fn junit_xml(results: &Results) -> Result<String, String> {
    let xml = junit_report(results)
        .to_string()
        .map_err(|e| e.to_string())?;
    schema_xml(&xml).map_err(|e| format!("filtering the JUnit XML: {e}"))
}

pub fn write_junit(path: &Path, results: &Results) -> Result<(), ResultsError> {
    let xml = junit_xml(results).map_err(|e| ResultsError::Write {
        path: path.to_path_buf(),
        cause: std::io::Error::other(e),
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
                mode: crate::case::Mode::Wgp,
                cases: 2,
                passed: 2,
                failed: 0,
                wall_ms: 3,
                halves_observed: 0,
                halves_split: 0,
            },
            PatternCounts {
                pattern: Pattern::Data,
                wave: WaveSize::Wave64,
                mode: crate::case::Mode::Wgp,
                cases: 2,
                passed: 1,
                failed: 1,
                wall_ms: 4,
                halves_observed: 0,
                halves_split: 0,
            },
        ];
        r.failures = vec![FailureRecord {
            index: 3,
            pattern: Pattern::Data,
            variant: "zero".into(),
            wave: WaveSize::Wave64,
            mode: crate::case::Mode::Wgp,
            ordinal: 1,
            kind: "mismatch".into(),
            summary: "lost update at 0x10".into(),
            repro: Some("results/x.repro.json".into()),
            minimize: None,
            same_kind_as: None,
            active_lanes_before: 64,
            active_lanes_after: 2,
            stress: None,
        }];
        let xml = junit_xml(&r).unwrap();
        assert!(
            !xml.contains("disabled="),
            "not in the Ant/Jenkins XSD: {xml}"
        );
        assert!(
            xml.contains(r#"<property name="seed" value="99"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"name="data/wave32/wgp" classname="dsxor.data""#),
            "{xml}"
        );
        assert!(
            xml.contains("lost update at 0x10 [repro: results/x.repro.json]"),
            "{xml}"
        );
        assert_eq!(xml.matches("<testcase ").count(), 2);
        assert_eq!(xml.matches("<failure").count(), 1);
        assert!(
            !xml.contains("assertions="),
            "not in the Ant/Jenkins XSD: {xml}"
        );
        // A cell with many failures lists the first few and counts the rest.
        let many = r.failures[0].clone();
        r.patterns[1].cases = 1000;
        r.patterns[1].failed = 999;
        r.failures = (0..999)
            .map(|i| FailureRecord {
                index: i,
                ..many.clone()
            })
            .collect();
        let big = junit_xml(&r).unwrap();
        assert_eq!(
            big.matches("lost update at 0x10").count(),
            FAILURE_BODY_CASES
        );
        assert!(big.contains("… and 979 more failing cases"), "{big}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.xml");
        write_junit(&p, &r).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), big);
    }
}
