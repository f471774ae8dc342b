//! Results a CI can trust: every exit path of `dsxor run` that
//! can run code leaves an `aborted` results file and JUnit; a SIGKILLed
//! run's case stream is read by `merge` and `report`; bad paths and empty
//! or unseeded sharded runs are refused before the first case; `merge`
//! refuses shards that contradict themselves. Through the binary, on the
//! software device.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{code, files, results_json, text};

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Complete lines of a case stream (header included).
fn stream_lines(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.matches('\n').count()
}

/// A long run on the software device, one job, started in the background.
fn long_run(out: &Path, junit: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args([
            "run",
            "--backend",
            "emu",
            "--cases",
            "1000000",
            "--seed",
            "7",
        ])
        .args(["--jobs", "1", "--out"])
        .arg(out)
        .arg("--junit")
        .arg(junit)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until the run's case stream holds at least `lines` complete lines.
fn wait_for_cases(out: &Path, lines: usize) -> PathBuf {
    let start = Instant::now();
    loop {
        if let Some(p) = files(out, ".cases.jsonl").first() {
            if stream_lines(p) >= lines {
                return p.clone();
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run wrote no cases"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name}");
}

#[test]
fn sigterm_and_sigint_leave_an_aborted_results_file_and_junit() {
    for sig in ["TERM", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        let junit = dir.path().join("junit.xml");
        let child = long_run(dir.path(), &junit);
        wait_for_cases(dir.path(), 30);
        signal(&child, sig);
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 3, "SIG{sig}: {}", text(&o));
        let results = results_json(dir.path());
        assert_eq!(results.len(), 1, "SIG{sig}: {}", text(&o));
        let r = json(&results[0]);
        assert_eq!(r["status"], "aborted");
        let reason = r["abort_reason"].as_str().unwrap();
        assert!(reason.contains(&format!("SIG{sig}")), "{reason}");
        let stream = dir.path().join(r["cases_file"].as_str().unwrap());
        // Every finished case is counted, and only those.
        assert_eq!(
            r["total"].as_u64().unwrap() as usize + 1,
            stream_lines(&stream)
        );
        let x = std::fs::read_to_string(&junit).unwrap();
        assert!(x.contains("<error"), "{x}");
        assert!(x.contains(&format!("SIG{sig}")), "{x}");
    }
}

#[test]
fn a_sigkilled_runs_case_stream_is_read_by_merge_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let mut child = long_run(dir.path(), &junit);
    let stream = wait_for_cases(dir.path(), 30);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        results_json(dir.path()).is_empty(),
        "killed before its .json"
    );
    let lines = stream_lines(&stream);

    let merged = dir.path().join("merged.json");
    let o = common::dsxor(&[
        "merge",
        stream.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    // Aborted, no failure among the finished cases: exit 3.
    assert_eq!(code(&o), 3, "{}", text(&o));
    let m = json(&merged);
    assert_eq!(m["status"], "aborted");
    assert_eq!(m["total"].as_u64().unwrap() as usize, lines - 1);
    assert_eq!(m["failed"], 0);

    let md = dir.path().join("report.md");
    let o = common::dsxor(&[
        "report",
        stream.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains(&format!("{}", lines - 1)), "{md}");
}

#[test]
fn hip_without_a_device_writes_aborted_results_and_junit() {
    if common::dsxor(&["info", "--require-device"])
        .status
        .success()
    {
        eprintln!("SKIPPED: a HIP device is present; this test is for machines without one");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("j.xml");
    let o = common::dsxor(&[
        "run",
        "--backend",
        "hip",
        "--cases",
        "4",
        "--seed",
        "1",
        "--out",
        dir.path().to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 3, "{}", text(&o));
    let results = results_json(dir.path());
    assert_eq!(results.len(), 1, "{}", text(&o));
    let r = json(&results[0]);
    assert_eq!(r["status"], "aborted");
    assert_eq!(r["total"], 0);
    assert!(r["abort_reason"]
        .as_str()
        .unwrap()
        .contains("--backend hip"));
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(x.contains("<error"), "{x}");
}

#[test]
fn bad_paths_and_empty_or_unseeded_shards_are_refused_before_any_case() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    for args in [
        vec!["--junit", "/nonexistent/dir/j.xml"],
        vec!["--junit", "/"],
        vec!["--cases", "0"],
        vec!["--cases", "3", "--shard", "5/10", "--seed", "1"],
        vec!["--shard", "1/2"],
        vec!["--timeout", "0s"],
        vec!["--timeout", "1ns"],
    ] {
        let mut a = vec!["run", "--backend", "emu", "--out", out];
        if !args.contains(&"--cases") {
            a.extend(["--cases", "40"]);
        }
        a.extend(args.iter().copied());
        let o = common::dsxor(&a);
        assert_eq!(code(&o), 2, "{a:?}\n{}", text(&o));
        let streams = if Path::new(out).exists() {
            files(Path::new(out), ".cases.jsonl")
        } else {
            Vec::new()
        };
        assert!(streams.is_empty(), "{a:?} ran cases: {streams:?}");
    }
    // --out under a file: refused naming the path, nothing run.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = common::emu("run").cases(4).out(file.join("sub")).output();
    assert_eq!(code(&o), 2, "{}", text(&o));
}

/// Two passing shards of one run; returns their results files.
fn two_shards(dir: &Path) -> Vec<PathBuf> {
    for shard in ["1/2", "2/2"] {
        let o = common::emu("run")
            .cases(40)
            .seed(5)
            .flag("--shard", shard)
            .out(dir)
            .output();
        assert_eq!(code(&o), 0, "{}", text(&o));
    }
    results_json(dir)
}

#[test]
fn merge_recomputes_and_refuses_shards_that_contradict_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let shards = two_shards(dir.path());
    assert_eq!(shards.len(), 2);
    let original = json(&shards[0]);
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 4] = [
        ("status failed, failed 0", |r| r["status"] = "failed".into()),
        ("failed counters that wrap", |r| {
            r["failed"] = u64::MAX.into();
            r["passed"] = 1u64.into();
        }),
        ("a cell that fails but totals that pass", |r| {
            r["patterns"][0]["failed"] = 1.into();
            r["patterns"][0]["passed"] = (r["patterns"][0]["passed"].as_u64().unwrap() - 1).into();
        }),
        ("fewer cases than the shard has, status passed", |r| {
            let p = r["patterns"].as_array_mut().unwrap();
            let dropped = p.pop().unwrap();
            let n = dropped["cases"].as_u64().unwrap();
            r["total"] = (r["total"].as_u64().unwrap() - n).into();
            r["passed"] = (r["passed"].as_u64().unwrap() - n).into();
        }),
    ];
    for (what, edit) in edits {
        let mut r = original.clone();
        edit(&mut r);
        std::fs::write(&shards[0], serde_json::to_string_pretty(&r).unwrap()).unwrap();
        let merged = dir.path().join("merged-edit.json");
        let o = common::dsxor(&[
            "merge",
            shards[0].to_str().unwrap(),
            shards[1].to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 2, "{what}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("refused"),
            "{what}: {}",
            text(&o)
        );
    }
}

#[test]
fn merge_names_a_bounded_list_of_missing_shards() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::emu("run")
        .cases(4)
        .seed(5)
        .flag("--shard", "1/4294967295")
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r = results_json(dir.path());
    let o = common::dsxor(&["merge", r[0].to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("4294967284 more"), "{stderr}");
    assert!(stderr.len() < 2000, "{stderr}");
}

/// On a terminal with stderr redirected (`dsxor run … 2>err.txt`), the seed
/// line, every `FAIL case` line and every repro path still reach the
/// screen: the bar draws on stderr, so it is stderr that decides bar or
/// plain lines, and messages go to stdout either way. `script` gives the
/// run a terminal.
#[test]
fn a_terminal_with_stderr_redirected_still_shows_seed_failures_and_repros() {
    let Some(script) = common::tool("script (util-linux)", "DSXOR_SCRIPT", &["script"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("err.txt");
    let cmd = format!(
        "'{}' run --backend emu --fault lost-update --pattern one-address --wave 32 \
         --cases 3 --seed 7 --out '{}' 2>'{}'",
        env!("CARGO_BIN_EXE_dsxor"),
        dir.path().display(),
        err.display()
    );
    let o = Command::new(script)
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&o.stdout);
    assert!(screen.contains("seed 7 (0x7)"), "{screen}");
    assert!(screen.contains("FAIL case"), "{screen}");
    assert!(screen.contains(".repro-"), "{screen}");
}

/// An error names its cause once: `cannot read X: No such file or
/// directory (os error 2)`, not that twice (the cause printed in the
/// message and again as the error's source).
#[test]
fn an_error_names_its_cause_once() {
    for args in [
        vec!["merge", "/nonexistent/a.json"],
        vec!["repro", "/nonexistent/r.json"],
        vec!["report", "/nonexistent/b.json"],
    ] {
        let o = common::dsxor(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            stderr.matches("No such file or directory").count(),
            1,
            "{args:?}: {stderr}"
        );
    }
}

/// Memory follows the shard, not the flags: one case of a run of
/// 4294967295 cases split 4294967295 ways is generated alone (the whole
/// plan used to be built first: gigabytes, then an allocation abort), and
/// `--jobs` beyond the host's cores (up to the flag's 256) is capped with
/// a notice instead of allocating a software device per job.
#[test]
fn plans_and_workers_are_sized_by_the_machine_not_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::emu("run")
        .cases("4294967295")
        .flag("--shard", "3/4294967295")
        .seed(1)
        .jobs(256)
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--jobs 256 capped at"), "{stderr}");
    let r = json(&results_json(dir.path())[0]);
    assert_eq!(r["total"], 1);
}

/// Sizes read from a repro file are multiplied without wrapping: 134217729
/// waves of 32 lanes is not 32 lanes (it replayed as another case).
#[test]
fn a_repro_whose_sizes_overflow_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::lost_update_run(dir.path()).output();
    assert_eq!(code(&o), 1, "{}", text(&o));
    let repro = files(dir.path(), ".json")
        .into_iter()
        .find(|p| p.to_string_lossy().contains(".repro-"))
        .unwrap();
    let mut r = json(&repro);
    // One group of one wave32 → 134217729 waves: 134217729 × 32 = 2^32 + 32.
    let lanes = r["case"]["lanes"].as_array().unwrap().len() as u64;
    assert_eq!(
        r["case"]["geometry"]["groups"], 1,
        "{}",
        r["case"]["geometry"]
    );
    let waves = lanes / 32;
    r["case"]["geometry"]["waves_per_group"] = (waves + (1u64 << 27)).into();
    std::fs::write(&repro, serde_json::to_string(&r).unwrap()).unwrap();
    let o = common::dsxor(&["repro", repro.to_str().unwrap(), "--backend", "emu"]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("sizes disagree"),
        "{}",
        text(&o)
    );
}

/// SIGKILL at random moments of a failing run (cases, minimization, repro
/// writes): every file with a final name is whole (each `.json` parses),
/// and the case stream is recovered with every finished case.
#[test]
fn sigkill_at_random_moments_leaves_no_torn_file() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    for round in 0..4u32 {
        let delay_ms = 30 + u64::from(nanos.wrapping_mul(2654435761).rotate_left(round * 7) % 400);
        let dir = tempfile::tempdir().unwrap();
        let mut child = common::emu("run")
            .fault("lost-update")
            .cases(1_000_000)
            .seed(7)
            .jobs(1)
            .out(dir.path())
            .command()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_cases(dir.path(), 1);
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        for p in files(dir.path(), ".json") {
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(
                serde_json::from_str::<serde_json::Value>(&text).is_ok(),
                "torn file after SIGKILL at {delay_ms} ms: {}",
                p.display()
            );
        }
        let stream = files(dir.path(), ".cases.jsonl").remove(0);
        let lines = stream_lines(&stream);
        let md = dir.path().join("r.md");
        let o = common::dsxor(&[
            "report",
            stream.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 0, "SIGKILL at {delay_ms} ms: {}", text(&o));
        let merged = dir.path().join("m.json");
        let o = common::dsxor(&[
            "merge",
            stream.to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        assert!([1, 3].contains(&code(&o)), "{}", text(&o));
        assert_eq!(
            json(&merged)["total"].as_u64().unwrap() as usize,
            lines - 1,
            "SIGKILL at {delay_ms} ms"
        );
    }
}
