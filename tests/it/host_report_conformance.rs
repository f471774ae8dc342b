//! `dsxor report` on conformance results (`dsxor-results/1`): hand-written
//! results files in, a well-formed SVG (quick-xml is the parser) and a
//! Markdown table out, carrying the files' own labels and counts; bad or
//! mixed input exits 2 and names the file.

use crate::bench_support;
use crate::common;

use quick_xml::events::Event;
use quick_xml::Reader;
use std::path::Path;

/// A results file as results/README.md describes it, written by hand (not
/// by dsxor's serializer): `uniform`/wave32 all passed, `one-address`/wave64
/// with `failed` of 10 cases failed.
fn results_json(started: &str, seed: u64, failed: u64) -> String {
    let passed = 10 - failed;
    let status = if failed > 0 { "failed" } else { "passed" };
    let failures: Vec<String> = (0..failed)
        .map(|i| {
            format!(
                r#"{{"index": {}, "pattern": "one-address", "variant": "all-active", "wave": "64",
                "ordinal": {i}, "kind": "lost-update", "summary": "lane 3 lost its update at 0x40",
                "repro": null, "minimize": null, "same_kind_as": null,
                "active_lanes_before": 64, "active_lanes_after": 2}}"#,
                4000 + i
            )
        })
        .collect();
    format!(
        r#"{{
  "format": "dsxor-results/1",
  "dsxor_version": "0.1.0",
  "started_utc": "{started}",
  "finished_utc": "{started}",
  "wall_ms": 6100,
  "status": "{status}",
  "abort_reason": null,
  "environment": {{
    "device": {{"backend": "emu", "name": "hand-made emu", "target_id": "gfx1100",
      "wave_sizes": [32, 64], "compute_units": 1, "clock_khz": null, "lds_per_block": 65536,
      "runtime_version": null, "driver_version": null, "pci_bus_id": null}},
    "selection": "hand-made",
    "code_objects": [
      {{"wave": "32", "source": "embedded:w32.hsaco", "sha256": "{sha32}", "origin": "source", "compiler": null}},
      {{"wave": "64", "source": "embedded:w64.hsaco", "sha256": "{sha64}", "origin": "source", "compiler": null}}
    ],
    "host_os": "linux", "host_arch": "x86_64", "host_cpus": 2
  }},
  "spec": {{"seed": {seed}, "generator_version": 1, "cases": 4010,
    "patterns": ["uniform", "one-address"], "waves": ["32", "64"],
    "shard": {{"index": 1, "count": 1}}}},
  "parameters": {{"timeout_ms": 10000, "minimize_budget_ms": 1000, "fault": null,
    "interleave_seed": null, "policy": "hand-made policy"}},
  "cases_file": null,
  "total": 4010, "passed": {total_passed}, "failed": {failed},
  "patterns": [
    {{"pattern": "uniform", "wave": "32", "cases": 4000, "passed": 4000, "failed": 0, "wall_ms": 5400}},
    {{"pattern": "one-address", "wave": "64", "cases": 10, "passed": {passed}, "failed": {failed}, "wall_ms": 700}}
  ],
  "failures": [{failures}]
}}"#,
        sha32 = "a".repeat(64),
        sha64 = "b".repeat(64),
        total_passed = 4000 + passed,
        failures = failures.join(",")
    )
}

fn put(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Every `<text>` element's content; panics when the XML is malformed.
fn svg_texts(svg: &str) -> Vec<String> {
    let mut reader = Reader::from_str(svg);
    reader.config_mut().check_end_names = true;
    let mut texts = Vec::new();
    let mut in_text = false;
    let mut depth = 0i32;
    let mut roots = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                if depth == 0 {
                    roots += 1;
                }
                depth += 1;
                in_text = e.name().as_ref() == b"text";
                if in_text {
                    texts.push(String::new());
                }
            }
            Ok(Event::End(_)) => {
                depth -= 1;
                in_text = false;
            }
            Ok(Event::Text(t)) if in_text => {
                let s = t.decode().unwrap();
                let s = quick_xml::escape::unescape(&s).unwrap().to_string();
                texts.last_mut().unwrap().push_str(s.trim());
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("malformed SVG at {}: {e}", reader.buffer_position()),
        }
    }
    assert_eq!(depth, 0, "unclosed elements");
    assert_eq!(roots, 1, "one root element");
    texts
}

fn has(texts: &[String], needle: &str) -> bool {
    texts.iter().any(|t| t.contains(needle))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn svg_and_markdown_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let a = put(
        dir.path(),
        "a.json",
        &results_json("2026-12-01T10:00:00Z", 7, 3),
    );
    let svg = dir.path().join("a.svg");
    let md = dir.path().join("a.md");
    let out = common::dsxor(&[
        "report",
        &a,
        "--svg",
        svg.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(has(&texts, "uniform / wave32"), "{texts:?}");
    assert!(has(&texts, "one-address / wave64"), "{texts:?}");
    assert!(has(&texts, "4000 cases: 4000 passed, 0 failed (5400 ms)"));
    assert!(has(&texts, "10 cases: 7 passed, 3 failed (700 ms)"));
    assert!(
        has(&texts, "4007 of 4010 passed, status FAILED, seed 7"),
        "{texts:?}"
    );
    assert!(has(
        &texts,
        "on hand-made emu (gfx1100, emu backend), started 2026-12-01T10:00:00Z"
    ));
    // One run has no trend: one line saying what the run was, not an empty
    // chart taking half the picture.
    assert!(!has(&texts, "across 1 run(s)"), "{texts:?}");
    assert!(
        has(
            &texts,
            "one run (3 of 4010 failed, seed 0x7): give dsxor report several results files"
        ),
        "{texts:?}"
    );
    assert!(has(&texts, "3 failed"));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("| `uniform` | 32 | 4000 | 4000 | 0 | 5400 ms |"),
        "{md}"
    );
    assert!(
        md.contains("| `one-address` | 64 | 10 | 7 | **3** | 700 ms |"),
        "{md}"
    );
    assert!(md.contains("seed 7,"), "{md}");
    assert!(md.contains("backend `emu`"), "{md}");
    assert!(md.contains("(`gfx1100`)"), "{md}");
    assert!(md.contains(&format!("sha256 `{}`", "a".repeat(64))), "{md}");
    assert!(md.contains(&format!("sha256 `{}`", "b".repeat(64))), "{md}");
    assert!(md.contains("### Failures (3)"), "{md}");
    assert!(md.contains("lane 3 lost its update at 0x40"), "{md}");
}

#[test]
fn several_runs_show_the_failure_trend() {
    let dir = tempfile::tempdir().unwrap();
    // Given newest first: the report orders by start time itself.
    let b = put(
        dir.path(),
        "b.json",
        &results_json("2026-12-02T10:00:00Z", 8, 5),
    );
    let a = put(
        dir.path(),
        "a.json",
        &results_json("2026-12-01T10:00:00Z", 7, 0),
    );
    let svg = dir.path().join("t.svg");
    let out = common::dsxor(&["report", &b, &a, "--svg", svg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(has(&texts, "across 2 run(s)"), "{texts:?}");
    // The latest run is drawn in the first panel.
    assert!(has(&texts, "10 cases: 5 passed, 5 failed"), "{texts:?}");
    assert!(has(&texts, "0 failed"), "{texts:?}");
    assert!(has(&texts, "5 failed"), "{texts:?}");
    // Each trend point names its run: failed of how many, and the seed.
    assert!(has(&texts, "0 of 4010 failed, seed 0x7"), "{texts:?}");
    assert!(has(&texts, "5 of 4010 failed, seed 0x8"), "{texts:?}");
    assert!(has(&texts, "12-01 10:00") && has(&texts, "12-02 10:00"));
    // The per-pattern series that failed is in the legend.
    assert!(texts.iter().any(|t| t == "one-address"), "{texts:?}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("## Across 2 runs"), "{md}");
    let first = md.find("| 2026-12-01T10:00:00Z | 7 |").expect("older row");
    let second = md.find("| 2026-12-02T10:00:00Z | 8 |").expect("newer row");
    assert!(first < second, "{md}");
}

#[test]
fn malformed_or_foreign_files_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let full = results_json("2026-12-01T10:00:00Z", 7, 0);
    let cases = [
        (
            "truncated.json",
            full[..full.len() / 2].to_string(),
            "not a JSON",
        ),
        (
            "noformat.json",
            "{\"total\": 1}".to_string(),
            "no string `format` field",
        ),
        (
            "cases.jsonl",
            "{\"format\":\"dsxor-cases/1\",\"seed\":1}\n{\"index\":0}\n".to_string(),
            "not a JSON",
        ),
        (
            "missing-field.json",
            full.replace("\"total\": 4010,", ""),
            "missing field `total`",
        ),
    ];
    for (name, text, why) in cases {
        let p = put(dir.path(), name, &text);
        let out = common::dsxor(&["report", &p]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&p), "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

#[test]
fn fail_below_refuses_conformance_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = put(
        dir.path(),
        "a.json",
        &results_json("2026-12-01T10:00:00Z", 7, 0),
    );
    let out = common::dsxor(&["report", &a, "--fail-below", "90", "--baseline", &a]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--fail-below compares bench records"));
}

#[test]
fn mixed_bench_and_conformance_files_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = put(
        dir.path(),
        "a.json",
        &results_json("2026-12-01T10:00:00Z", 7, 0),
    );
    let bench = dir.path().join("bench.json");
    bench_support::record("2026-12-01T02:00:00Z", "emu", 1.0)
        .save(&bench)
        .unwrap();
    let b = bench.to_str().unwrap().to_string();
    let out = common::dsxor(&["report", &b, &a]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&b) && err.contains(&a), "{err}");
    assert!(err.contains("one kind per call"), "{err}");
}
