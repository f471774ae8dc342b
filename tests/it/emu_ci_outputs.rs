//! What CI reads from dsxor: JUnit valid against the
//! Jenkins/Ant schema, `--json` summaries and `--results PATH`, readers
//! that refuse duplicate JSON keys and oversized files, a full disk as
//! exit 3 (1 when conformance failures were found) with no empty file
//! left, and `bench --out` checked before the first launch. Through the
//! binary, on the software device.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{code, dsxor, files, results_json, text};

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", text(o)))
}

/// A small run on the software device; `extra` adds flags.
fn run(out: &Path, extra: &[&str]) -> Output {
    let mut a = common::emu("run")
        .jobs(1)
        .seed(5)
        .cases(24)
        .pattern("data,one-address")
        .flag("--minimize-budget", "0s")
        .out(out);
    for e in extra {
        a = a.arg(e);
    }
    a.output()
}

/// A failing run whose first repro is minimized to one round (exports to
/// an observation file): the fault shows within one round.
fn failing_run_with_repro(out: &Path) -> PathBuf {
    let o = common::one_round_fault_run()
        .jobs(1)
        .flag("--max-repros", 1)
        .out(out)
        .output();
    assert_eq!(code(&o), 1, "{}", text(&o));
    files(out, ".repro-0.json").remove(0)
}

fn xsd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/junit_support/junit-10.xsd")
}

/// xmllint's verdict on `xml` against the Jenkins/Ant JUnit schema.
fn validate(xmllint: &Path, xml: &Path) {
    let o = Command::new(xmllint)
        .args(["--noout", "--schema"])
        .arg(xsd())
        .arg(xml)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{} is not valid against junit-10.xsd:\n{}\n{}",
        xml.display(),
        String::from_utf8_lossy(&o.stderr),
        std::fs::read_to_string(xml).unwrap_or_default()
    );
}

#[test]
fn junit_of_every_outcome_validates_against_the_jenkins_ant_schema() {
    let Some(xmllint) = common::xmllint() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Passed, failed (a fault of the software device), and two shards merged.
    let pass = d.join("pass.xml");
    let o = run(&d.join("a"), &["--junit", p(&pass)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let fail = d.join("fail.xml");
    let o = run(
        &d.join("b"),
        &["--junit", p(&fail), "--fault", "lost-update"],
    );
    assert_eq!(code(&o), 1, "{}", text(&o));
    for k in ["1/2", "2/2"] {
        let o = run(&d.join("c"), &["--shard", k]);
        assert_eq!(code(&o), 0, "{}", text(&o));
    }
    let shards = results_json(&d.join("c"));
    let merged = d.join("merged.xml");
    let m = d.join("m.json");
    let mut a = vec!["merge", "--out", p(&m), "--junit", p(&merged)];
    a.extend(shards.iter().map(|s| p(s)));
    let o = dsxor(&a);
    assert_eq!(code(&o), 0, "{}", text(&o));
    for x in [&pass, &fail, &merged] {
        validate(&xmllint, x);
    }
    assert!(std::fs::read_to_string(&fail).unwrap().contains("<failure"));
    // Aborted: HIP asked for on a machine without a device.
    if !dsxor(&["info", "--require-device"]).status.success() {
        let aborted = d.join("aborted.xml");
        let o = dsxor(&[
            "run",
            "--backend",
            "hip",
            "--seed",
            "1",
            "--cases",
            "4",
            "--out",
            p(&d.join("h")),
            "--junit",
            p(&aborted),
        ]);
        assert_eq!(code(&o), 3, "{}", text(&o));
        validate(&xmllint, &aborted);
        assert!(std::fs::read_to_string(&aborted)
            .unwrap()
            .contains("<error"));
    }
}

#[test]
fn json_summaries_and_a_named_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // run --json --results: one document on stdout, the file where named.
    let named = d.join("named").join("r.json");
    std::fs::create_dir_all(named.parent().unwrap()).unwrap();
    let o = run(&d.join("out"), &["--json", "--results", p(&named)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(j["format"], "dsxor-run/1", "{j}");
    assert_eq!(j["verdict"], "passed");
    assert_eq!(j["exit_code"], 0);
    assert_eq!(j["results"], p(&named));
    assert_eq!(j["total"], 24);
    assert!(j["claim"].as_str().unwrap().contains("rules out"), "{j}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&named).unwrap()).unwrap();
    assert_eq!(r["status"], "passed");
    assert!(
        results_json(&d.join("out")).is_empty(),
        "only the named file"
    );
    // The results file names its case stream so that it is found from there.
    let stream = named
        .parent()
        .unwrap()
        .join(r["cases_file"].as_str().unwrap());
    assert!(stream.exists(), "{}", stream.display());
    assert_eq!(j["cases_file"], p(&stream));

    // A failing run: verdict, exit code and repros.
    let o = run(&d.join("f"), &["--json", "--fault", "lost-update"]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(
        (j["verdict"].as_str(), j["exit_code"].as_u64()),
        (Some("failed"), Some(1))
    );
    assert!(j["failed"].as_u64().unwrap() > 0);
    assert!(!j["repros"].as_array().unwrap().is_empty());

    // Bad input under --json: still one document, verdict `error`.
    let o = run(
        &d.join("g"),
        &["--json", "--junit", "/nonexistent/dir/j.xml"],
    );
    assert_eq!(code(&o), 2, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(
        (j["verdict"].as_str(), j["exit_code"].as_u64()),
        (Some("error"), Some(2))
    );
    assert!(
        j["error"].as_str().unwrap().contains("/nonexistent/dir"),
        "{j}"
    );

    // merge --json.
    let o = dsxor(&["merge", "--json", "--out", p(&d.join("m.json")), p(&named)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(
        (j["format"].as_str(), j["verdict"].as_str()),
        (Some("dsxor-merge/1"), Some("passed"))
    );
    assert_eq!(j["total"], 24);

    // kernels --json and inspect --json.
    let o = dsxor(&["kernels", "--json", "--target", "gfx1100"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(j["format"], "dsxor-kernels/1");
    let objects = j["objects"].as_array().unwrap();
    assert_eq!(
        objects.len(),
        4,
        "wave32 and wave64 objects, CU and WGP mode: {j}"
    );
    assert!(objects[0]["kernels"].as_array().unwrap().len() > 1);
    let co = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/prebuilt/dsxor-gfx1100-w32.co");
    let o = dsxor(&["inspect", "--json", p(&co)]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(j["format"], "dsxor-inspect/1");
    let ds = j["kernels"][0]["ds_instructions"].as_array().unwrap();
    assert!(
        ds.iter().any(|i| i["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("ds_xor_rtn_b64"))),
        "{j}"
    );
    let o = dsxor(&["inspect", "--json", p(&d.join("missing.co"))]);
    assert_eq!(
        (code(&o), json_of(&o)["verdict"].as_str()),
        (2, Some("error"))
    );

    // bench --json.
    let o = dsxor(&[
        "bench",
        "--backend",
        "emu",
        "--quick",
        "--filter",
        "one-address",
        "--wave",
        "32",
        "--json",
        "--out",
        p(&d.join("b")),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let j = json_of(&o);
    assert_eq!(
        (j["format"].as_str(), j["verdict"].as_str()),
        (Some("dsxor-bench/1"), Some("passed"))
    );
    assert!(Path::new(j["record"].as_str().unwrap()).exists());
    assert_eq!(j["runs"].as_array().unwrap().len(), 2, "{j}");
}

/// Insert a duplicate of the first occurrence of `"key":` in `text`.
fn duplicate_key(text: &str, key: &str, value: &str) -> String {
    let at = text
        .find(&format!("\"{key}\":"))
        .unwrap_or_else(|| panic!("no {key} in {text}"));
    format!("{}\"{key}\": {value}, {}", &text[..at], &text[at..])
}

#[test]
fn readers_refuse_duplicate_keys_and_oversized_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let repro = failing_run_with_repro(&d.join("f"));
    let results = results_json(&d.join("f")).remove(0);
    let stream = files(&d.join("f"), ".cases.jsonl").remove(0);
    let o = dsxor(&[
        "bench",
        "--backend",
        "emu",
        "--quick",
        "--filter",
        "one-address/dep/wave32",
        "--out",
        p(&d.join("b")),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let bench = files(&d.join("b"), ".json").remove(0);

    let read = |f: &Path| std::fs::read_to_string(f).unwrap();
    let dup = |name: &str, body: String| {
        let f = d.join(name);
        std::fs::write(&f, body).unwrap();
        f
    };
    // A results file saying `failed: 0` before its real count; a case
    // record that says `passed: true` before `passed: false` (both were
    // read through a JSON `Value`, which keeps the last key silently); a
    // repro whose `expected` (a free-form object) says `order` twice; a
    // bench record with an extension key twice (kept in a map).
    let cases = {
        let t = read(&stream);
        let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
        let failing = lines
            .iter()
            .position(|l| l.contains("\"passed\":false"))
            .unwrap();
        lines[failing] = duplicate_key(&lines[failing], "passed", "true");
        lines.join("\n") + "\n"
    };
    let bench_dup = read(&bench).replacen(
        "\"all_passed\"",
        "\"x_note\": 1, \"x_note\": 2, \"all_passed\"",
        1,
    );
    let read_with = |cmd: &str, f: &Path| match cmd {
        "merge" => dsxor(&["merge", "--out", p(&d.join("m.json")), p(f)]),
        "report" => dsxor(&["report", "--markdown", p(&d.join("r.md")), p(f)]),
        _ => dsxor(&["repro", "--export", p(&d.join("o.json")), p(f)]),
    };
    let stream_copy = d.join("orig.cases.jsonl");
    std::fs::copy(&stream, &stream_copy).unwrap();
    for (what, original, f, cmd) in [
        ("bench record", &bench, dup("b.json", bench_dup), "report"),
        (
            "repro",
            &repro,
            dup(
                "x.repro.json",
                duplicate_key(&read(&repro), "order", "null"),
            ),
            "repro",
        ),
        (
            "results",
            &results,
            dup("r.json", duplicate_key(&read(&results), "failed", "0")),
            "merge",
        ),
        (
            "case stream",
            &stream_copy,
            dup("s.cases.jsonl", cases),
            "merge",
        ),
        (
            "results",
            &results,
            dup("r2.json", duplicate_key(&read(&results), "failed", "0")),
            "report",
        ),
    ] {
        // The file reads without its duplicate, and is refused with it.
        let o = read_with(cmd, original);
        assert!(matches!(code(&o), 0 | 1), "{what}, {cmd}: {}", text(&o));
        let o = read_with(cmd, &f);
        assert_eq!(
            code(&o),
            2,
            "{what} with a duplicate key, {cmd}: {}",
            text(&o)
        );
        assert!(text(&o).contains("duplicate key"), "{what}: {}", text(&o));
    }

    // Over the size limits (sparse files: nothing is written, and nothing
    // may be read either).
    let big = |name: &str, len: u64| {
        let f = d.join(name);
        std::fs::File::create(&f).unwrap().set_len(len).unwrap();
        f
    };
    for (f, args) in [
        (
            big("big.repro.json", (64 << 20) + 1),
            vec!["repro", "--export", "o2.json"],
        ),
        (big("big.json", (256 << 20) + 1), vec!["merge"]),
        (
            big("big2.json", (256 << 20) + 1),
            vec!["report", "--markdown", "o.md"],
        ),
    ] {
        let mut a = args.clone();
        a.push(p(&f));
        let started = std::time::Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_dsxor"))
            .args(&a)
            .current_dir(d)
            .output()
            .unwrap();
        assert_eq!(code(&o), 2, "{a:?}: {}", text(&o));
        assert!(text(&o).contains("MiB limit"), "{a:?}: {}", text(&o));
        assert!(started.elapsed().as_secs() < 5, "{a:?} read the file");
    }
    // A case stream is read line by line: a line over the limit is refused.
    let long = d.join("long.cases.jsonl");
    let mut t = read(&stream).lines().next().unwrap().to_string();
    t.push('\n');
    t.push_str(&" ".repeat((1 << 20) + 10));
    t.push('\n');
    std::fs::write(&long, t).unwrap();
    let o = dsxor(&["merge", "--out", p(&d.join("m2.json")), p(&long)]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("MiB limit for one line"), "{}", text(&o));
}

#[test]
fn bench_out_is_checked_before_the_first_launch() {
    let o = dsxor(&[
        "bench",
        "--backend",
        "emu",
        "--quick",
        "--filter",
        "one-address/dep/wave32",
        "--out",
        "/proc/version/x",
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("/proc/version/x"), "{t}");
    assert!(
        !t.contains("one-address/dep/wave32 "),
        "a run was measured first: {t}"
    );
}

/// A tmpfs of 64 KiB mounted for one test (root only); unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount() -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            common::missing(
                "a 64 KiB tmpfs (mount -t tmpfs needs root)",
                "the full-disk test cannot fill a disk",
            );
            return None;
        }
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fill it, leaving about `free` bytes (tmpfs counts whole pages).
    fn fill(&self, free: u64) {
        let filler = self.path().join("filler");
        let _ = std::fs::remove_file(&filler);
        let mut f = std::fs::File::create(&filler).unwrap();
        use std::io::Write;
        let page = vec![0u8; 4096];
        while f.write_all(&page).is_ok() {}
        drop(f);
        let len = std::fs::metadata(&filler).unwrap().len();
        std::fs::File::options()
            .write(true)
            .open(&filler)
            .unwrap()
            .set_len(len.saturating_sub(free))
            .unwrap();
    }

    /// Files of 0 bytes other than the ones the test made itself.
    fn empty_files(&self) -> Vec<PathBuf> {
        let mut v = Vec::new();
        let mut stack = vec![self.path().to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    stack.push(e);
                } else if std::fs::metadata(&e).unwrap().len() == 0 {
                    v.push(e);
                }
            }
        }
        v
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_is_exit_3_unless_failures_were_found_and_leaves_no_empty_file() {
    let Some(fs) = Tmpfs::mount() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let full = fs.path();
    // Inputs on a normal disk: a passing and a failing run, a repro, a
    // bench record.
    let o = run(&d.join("pass"), &[]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let passed = results_json(&d.join("pass")).remove(0);
    let repro = failing_run_with_repro(&d.join("fail"));
    let failed = results_json(&d.join("fail")).remove(0);
    let o = dsxor(&[
        "bench",
        "--backend",
        "emu",
        "--quick",
        "--filter",
        "one-address/dep/wave32",
        "--out",
        p(&d.join("b")),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let bench = files(&d.join("b"), ".json").remove(0);

    fs.fill(0);
    let cases: Vec<(&str, Vec<String>, i32)> = vec![
        ("run", vec!["run".into()], 3),
        (
            "merge",
            vec![
                "merge".into(),
                "--out".into(),
                p(&full.join("m.json")).into(),
                p(&passed).into(),
            ],
            3,
        ),
        (
            "merge of failing shards",
            vec![
                "merge".into(),
                "--out".into(),
                p(&full.join("m.json")).into(),
                p(&failed).into(),
            ],
            1,
        ),
        (
            "repro --export",
            vec![
                "repro".into(),
                "--export".into(),
                p(&full.join("o.json")).into(),
                p(&repro).into(),
            ],
            3,
        ),
        (
            "report --svg",
            vec![
                "report".into(),
                "--svg".into(),
                p(&full.join("r.svg")).into(),
                p(&bench).into(),
            ],
            3,
        ),
        (
            "report --markdown",
            vec![
                "report".into(),
                "--markdown".into(),
                p(&full.join("r.md")).into(),
                p(&bench).into(),
            ],
            3,
        ),
        (
            "bench",
            vec![
                "bench".into(),
                "--backend".into(),
                "emu".into(),
                "--quick".into(),
                "--filter".into(),
                "one-address/dep/wave32".into(),
                "--out".into(),
                p(full).into(),
            ],
            3,
        ),
        (
            "bench with a wrong result",
            vec![
                "bench".into(),
                "--backend".into(),
                "emu".into(),
                "--quick".into(),
                "--filter".into(),
                "one-address/dep/wave32".into(),
                "--fault".into(),
                "lost-update".into(),
                "--out".into(),
                p(full).into(),
            ],
            1,
        ),
    ];
    for (what, args, want) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = if what == "run" {
            run(&full.join("run"), &[])
        } else {
            dsxor(&a)
        };
        assert_eq!(code(&o), want, "{what} on a full disk: {}", text(&o));
        assert!(
            text(&o).contains("No space left on device"),
            "{what}: {}",
            text(&o)
        );
        assert_eq!(
            fs.empty_files(),
            Vec::<PathBuf>::new(),
            "{what} left empty files"
        );
    }
    // A run whose disk fills after its first failing case: one page holds
    // the stream's header and first record, not the repro file (the run
    // aborts) nor the final results file. The failure decides the code.
    fs.fill(4 << 10);
    let o = run(&full.join("run2"), &["--fault", "lost-update"]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert!(text(&o).contains("No space left on device"), "{}", text(&o));
    assert!(
        text(&o).contains("conformance failures were found"),
        "the final results file should not have fit: {}",
        text(&o)
    );
    assert_eq!(fs.empty_files(), Vec::<PathBuf>::new());
}
