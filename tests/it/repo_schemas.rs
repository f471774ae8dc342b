//! JSON Schemas of every file dsxor writes or reads, generated with
//! `schemars` from the serde types (the observation file's schema is written
//! beside its hand-written reader), committed under `docs/schemas/`.
//!
//! - `committed_schemas_match_the_types` regenerates them and fails on any
//!   difference; `DSXOR_BLESS=1 cargo test --release --test it repo_schemas::`
//!   rewrites them after a deliberate format change.
//! - The committed examples (`docs/examples/**/*.json`, the observation
//!   examples of the book) and the files of a fresh small run (results, case
//!   stream, repro, exported observation) validate against their schemas
//!   with `boon`, a JSON Schema validator independent of schemars.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn schema_dir() -> PathBuf {
    root().join("docs/schemas")
}

/// The schema of `T` (draft 2020-12), with `format` pinned to `format`.
fn schema_of<T: schemars::JsonSchema>(format: Option<&str>, description: &str) -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).expect("schema to JSON");
    let top = schema.as_object_mut().expect("a schema object");
    if let Some(f) = format {
        let props = top
            .get_mut("properties")
            .and_then(|p| p.as_object_mut())
            .expect("a record type has properties");
        assert!(
            props.contains_key("format"),
            "{description}: no `format` field"
        );
        props.insert("format".into(), serde_json::json!({ "const": f }));
    }
    top.insert("description".into(), description.into());
    schema
}

/// File name under docs/schemas/ → (the `format` tag it validates, schema).
fn schemas() -> BTreeMap<&'static str, (Option<&'static str>, Value)> {
    use dsxor::report::{bench_record, results};
    let mut m = BTreeMap::new();
    m.insert(
        "results.schema.json",
        (
            Some(results::RESULTS_FORMAT),
            schema_of::<results::Results>(
                Some(results::RESULTS_FORMAT),
                "dsxor-results/1: the results of `dsxor run` (<stem>.json), and the input and output of `dsxor merge`",
            ),
        ),
    );
    m.insert(
        "cases-header.schema.json",
        (
            Some(results::CASES_FORMAT),
            schema_of::<results::CasesHeader>(
                Some(results::CASES_FORMAT),
                "dsxor-cases/1, first line of a case stream (<stem>.cases.jsonl)",
            ),
        ),
    );
    m.insert(
        "case-record.schema.json",
        (
            None,
            schema_of::<results::CaseRecord>(
                None,
                "dsxor-cases/1, every line after the first of a case stream: one finished case",
            ),
        ),
    );
    m.insert(
        "repro.schema.json",
        (
            Some(dsxor::suite::repro::REPRO_FORMAT),
            schema_of::<dsxor::suite::repro::Repro>(
                Some(dsxor::suite::repro::REPRO_FORMAT),
                "dsxor-repro/1: one minimized failing case (<stem>.repro-<index>.json), read by `dsxor repro`",
            ),
        ),
    );
    m.insert(
        "bench.schema.json",
        (
            Some(bench_record::BENCH_FORMAT),
            schema_of::<bench_record::BenchRecord>(
                Some(bench_record::BENCH_FORMAT),
                "dsxor-bench/1: a `dsxor bench` record, read by `dsxor report` and `dsxor bench --baseline`",
            ),
        ),
    );
    m.insert(
        "observation.schema.json",
        (
            Some(dsxor::check::file::FORMAT),
            schema_of::<dsxor::check::file::ObservationFile>(
                None,
                "dsxor-observation/1: one workgroup's observation, read by `dsxor check`, written by `dsxor repro --export`",
            ),
        ),
    );
    m.insert(
        "qualify.schema.json",
        (
            Some(dsxor::qualify::QUALIFY_FORMAT),
            schema_of::<dsxor::qualify::QualifyRecord>(
                Some(dsxor::qualify::QUALIFY_FORMAT),
                "dsxor-qualify/1: the record of `dsxor qualify`",
            ),
        ),
    );
    m.insert(
        "mutate.schema.json",
        (
            Some(dsxor::mutate::MUTATE_FORMAT),
            schema_of::<dsxor::mutate::MutateRecord>(
                Some(dsxor::mutate::MUTATE_FORMAT),
                "dsxor-mutate/1: the record of `dsxor mutate`, read by `dsxor report`",
            ),
        ),
    );
    m.insert(
        "fleet.schema.json",
        (
            Some(dsxor::fleet::FLEET_FORMAT),
            schema_of::<dsxor::fleet::Fleet>(
                Some(dsxor::fleet::FLEET_FORMAT),
                "dsxor-fleet/1: `dsxor fleet`'s verdict per device and node",
            ),
        ),
    );
    m.insert(
        "gate.schema.json",
        (
            Some(dsxor::fleet::gate::GATE_FORMAT),
            schema_of::<dsxor::fleet::gate::GateVerdict>(
                Some(dsxor::fleet::gate::GATE_FORMAT),
                "dsxor-gate/1: `dsxor gate`'s verdict for one node",
            ),
        ),
    );
    m.insert(
        "soak.schema.json",
        (
            Some(dsxor::suite::soak::SOAK_FORMAT),
            schema_of::<dsxor::suite::soak::SoakRecord>(
                Some(dsxor::suite::soak::SOAK_FORMAT),
                "dsxor-soak/1: `dsxor soak`'s record, its checkpoint while it runs, read by `dsxor soak --resume`",
            ),
        ),
    );
    m
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("schema to text");
    s.push('\n');
    s
}

#[test]
fn committed_schemas_match_the_types() {
    let bless = std::env::var_os("DSXOR_BLESS").is_some_and(|v| v == "1");
    let dir = schema_dir();
    let generated = schemas();
    let mut stale = Vec::new();
    for (name, (_, schema)) in &generated {
        let path = dir.join(name);
        let want = pretty(schema);
        if bless {
            std::fs::create_dir_all(&dir).expect("create docs/schemas");
            std::fs::write(&path, &want).expect("write schema");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(name.to_string());
        }
    }
    // A schema left behind for a format that no longer exists is drift too.
    for entry in std::fs::read_dir(&dir).expect("read docs/schemas") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        if name.ends_with(".schema.json") && !generated.contains_key(name.as_str()) {
            stale.push(format!("{name} (no type generates it)"));
        }
    }
    assert!(
        stale.is_empty(),
        "docs/schemas/ differs from the serde types: {stale:?}\n\
         If the format change is deliberate, regenerate with\n  \
         DSXOR_BLESS=1 cargo test --release --test it repo_schemas::\n\
         and say so in docs/src/reference/formats.md (and bump the format's version if old readers break)."
    );
}

struct Validator {
    schemas: boon::Schemas,
    by_file: BTreeMap<String, boon::SchemaIndex>,
    by_format: BTreeMap<String, String>,
}

impl Validator {
    /// Compiles the committed schemas (not the generated ones: what users get).
    fn new() -> Validator {
        let mut compiled = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let mut by_file = BTreeMap::new();
        let mut by_format = BTreeMap::new();
        // While blessing, the files are being rewritten by another test:
        // validate against what is being written.
        let bless = std::env::var_os("DSXOR_BLESS").is_some_and(|v| v == "1");
        for (name, (format, generated)) in schemas() {
            let value = if bless {
                generated
            } else {
                let path = schema_dir().join(name);
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                    panic!("{}: {e} (DSXOR_BLESS=1 writes it)", path.display())
                });
                serde_json::from_str(&text).expect("schema is JSON")
            };
            let url = format!("file:///dsxor/schemas/{name}");
            compiler.add_resource(&url, value).expect("add schema");
            let idx = compiler
                .compile(&url, &mut compiled)
                .unwrap_or_else(|e| panic!("{name} is not a valid schema: {e:#}"));
            by_file.insert(name.to_string(), idx);
            if let Some(f) = format {
                by_format.insert(f.to_string(), name.to_string());
            }
        }
        Validator {
            schemas: compiled,
            by_file,
            by_format,
        }
    }

    fn check(&self, schema_file: &str, value: &Value) -> Result<(), String> {
        let idx = self.by_file[schema_file];
        self.schemas
            .validate(value, idx)
            .map_err(|e| format!("{e:#}"))
    }

    /// Validates a record against the schema its `format` names.
    fn check_record(&self, what: &str, value: &Value) {
        let format = value
            .get("format")
            .and_then(|f| f.as_str())
            .unwrap_or_else(|| panic!("{what}: no `format` field"));
        let file = self
            .by_format
            .get(format)
            .unwrap_or_else(|| panic!("{what}: format {format} has no schema in docs/schemas/"));
        if let Err(e) = self.check(file, value) {
            panic!("{what} does not match {file}:\n{e}");
        }
    }
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// ```json blocks of the book that are observation files.
fn book_observations() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut pages = Vec::new();
    let mut stack = vec![root().join("docs/src")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read docs/src") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                pages.push(p);
            }
        }
    }
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("read page");
        for (i, block) in text.split("```json\n").skip(1).enumerate() {
            let body = block.split("\n```").next().unwrap_or("");
            if !body.contains(dsxor::check::file::FORMAT) {
                continue;
            }
            // Blocks with elisions (…) are sketches, not records.
            if let Ok(v) = serde_json::from_str::<Value>(body) {
                out.push((format!("{} block {}", page.display(), i + 1), v));
            }
        }
    }
    out
}

#[test]
fn committed_examples_match_their_schemas() {
    let v = Validator::new();
    let mut files = Vec::new();
    json_files(&root().join("docs/examples"), &mut files);
    let results_dir = root().join("results");
    if results_dir.is_dir() {
        json_files(&results_dir, &mut files);
    }
    assert!(
        files.len() >= 4,
        "found only {files:?}: is the test looking in the right place?"
    );
    let mut formats = std::collections::BTreeSet::new();
    for f in &files {
        let value = read_json(f);
        v.check_record(&f.display().to_string(), &value);
        formats.insert(value["format"].as_str().unwrap_or("").to_string());
    }
    for want in ["dsxor-results/1", "dsxor-bench/1", "dsxor-mutate/1"] {
        assert!(formats.contains(want), "no {want} example among {files:?}");
    }
    let obs = book_observations();
    assert!(
        !obs.is_empty(),
        "the book's observation examples were not found"
    );
    for (what, value) in obs {
        v.check_record(&what, &value);
    }
}

#[test]
fn schemas_have_teeth() {
    // Each broken copy of a committed example is refused: a missing required
    // field, a value of the wrong type, another format tag, a bad hex string.
    let v = Validator::new();
    let results = read_json(&root().join("docs/examples/20261201T211851Z-emu-gfx1100.json"));
    let mut no_total = results.clone();
    no_total.as_object_mut().unwrap().remove("total");
    assert!(v.check("results.schema.json", &no_total).is_err());
    let mut bad_status = results.clone();
    bad_status["status"] = "fine".into();
    assert!(v.check("results.schema.json", &bad_status).is_err());
    let mut other_format = results.clone();
    other_format["format"] = "dsxor-results/2".into();
    assert!(v.check("results.schema.json", &other_format).is_err());
    let mut negative = results;
    negative["wall_ms"] = (-1).into();
    assert!(v.check("results.schema.json", &negative).is_err());
    let bench = read_json(&root().join("docs/examples/bench-20261201T211159Z-emu-gfx1100.json"));
    let mut bad_run = bench.clone();
    bad_run["runs"][0]["wave"] = "sixty-four".into();
    assert!(v.check("bench.schema.json", &bad_run).is_err());
    let (_, obs) = book_observations().remove(0);
    let mut bad_hex = obs.clone();
    bad_hex["lanes"][0]["data"] = "12".into();
    assert!(v.check("observation.schema.json", &bad_hex).is_err());
    // Unknown fields are kept by every reader, so the schemas allow them.
    let mut extra = obs;
    extra["comment"] = "kept".into();
    assert!(v.check("observation.schema.json", &extra).is_ok());
}

#[test]
fn a_fresh_run_writes_files_that_match_their_schemas() {
    // A small failing run on the software device (an injected fault) writes
    // every kind of run file: results, the case stream, repros; a repro
    // exports an observation.
    let v = Validator::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().to_str().expect("UTF-8 temp path");
    let o = common::emu("run")
        .seed(1)
        .cases(40)
        .fault("swap-dwords")
        .flag("--max-repros", 1)
        .flag("--minimize-budget", "2s")
        .out(out)
        .output();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .expect("read out dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let named = |suffix: &str| -> Vec<&PathBuf> {
        files
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(suffix))
            .collect()
    };
    let results: Vec<_> = named(".json")
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains(".repro-"))
        .collect();
    assert_eq!(results.len(), 1, "{files:?}");
    v.check_record("the run's results", &read_json(results[0]));
    let stream = std::fs::read_to_string(named(".cases.jsonl")[0]).expect("read stream");
    let mut lines = stream.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header line")).expect("JSON");
    v.check_record("the case stream's header", &header);
    let mut n = 0;
    for line in lines {
        let record: Value = serde_json::from_str(line).expect("JSON line");
        if let Err(e) = v.check("case-record.schema.json", &record) {
            panic!("case line {line} does not match case-record.schema.json:\n{e}");
        }
        n += 1;
    }
    assert_eq!(n, 40, "every case has a line");
    let repros: Vec<_> = files
        .iter()
        .filter(|p| p.to_string_lossy().contains(".repro-"))
        .collect();
    assert!(
        !repros.is_empty(),
        "a failing run writes a repro: {files:?}"
    );
    v.check_record("the run's repro", &read_json(repros[0]));
    let obs = dir.path().join("obs.json");
    let o = common::dsxor(&[
        "repro",
        repros[0].to_str().expect("UTF-8"),
        "--export",
        obs.to_str().expect("UTF-8"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    v.check_record("the exported observation", &read_json(&obs));
}

#[test]
fn a_fresh_soak_record_matches_its_schema() {
    // A failing soak's record: totals, a failure with its chunk, a repro.
    let v = Validator::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("soak.json");
    let o = common::emu("soak")
        .seed(1)
        .fault("swap-dwords")
        .flag("--chunks", 1)
        .flag("--chunk-cases", 40)
        .flag("--max-repros", 1)
        .flag("--minimize-budget", "0s")
        .out(dir.path())
        .flag("--results", record.display())
        .output();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = read_json(&record);
    assert!(!r["failures"].as_array().expect("failures").is_empty());
    v.check_record("the soak's record", &r);
}
