//! `dsxor run`, `dsxor repro`, `dsxor merge` through the binary, on the
//! software device: exit codes, files, the backend notice, bad input.

use crate::common;

use std::path::Path;

use common::{code, files, results_json, text};

#[test]
fn a_small_run_on_the_software_device_passes_and_writes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let junit = dir.path().join("junit.xml");
    let o = common::emu("run")
        .cases(90)
        .seed("0x2a")
        .out(out)
        .flag("--junit", junit.to_str().unwrap())
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("seed 42 (0x2a)"), "{}", text(&o));
    assert!(
        stdout.contains("PASSED: 90 cases, 90 passed, 0 failed"),
        "{}",
        text(&o)
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("dsxor: backend: software device"),
        "{}",
        text(&o)
    );
    let json = results_json(dir.path());
    assert_eq!(json.len(), 1, "{json:?}");
    let name = json[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with("-emu-gfx1100.json"), "{name}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json[0]).unwrap()).unwrap();
    assert_eq!(r["format"], "dsxor-results/1");
    assert_eq!(r["status"], "passed");
    assert_eq!(r["spec"]["seed"], 42);
    // A cell per (pattern, wave, mode) the plan gives cases to: at 90
    // cases every plain family's wave32 and wave64 cells in CU and in WGP
    // mode, and some of the small-share families'.
    let cells = dsxor::gen::SuiteSpec::new(42, 90, &[], &[], &[], dsxor::gen::Shard::WHOLE)
        .unwrap()
        .cells_with_cases()
        .len();
    assert!(cells >= 36, "{cells}");
    assert_eq!(r["patterns"].as_array().unwrap().len(), cells);
    assert_eq!(r["environment"]["device"]["backend"], "emu");
    // The wave32 and wave64 objects of each mode.
    let objects = r["environment"]["code_objects"].as_array().unwrap();
    assert_eq!(objects.len(), 4);
    assert!(objects
        .iter()
        .all(|o| o["sha256"].as_str().unwrap().len() == 64));
    let stream =
        std::fs::read_to_string(dir.path().join(r["cases_file"].as_str().unwrap())).unwrap();
    assert_eq!(stream.lines().count(), 91);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), cells);
    assert!(xml.contains(r#"<property name="seed" value="42"/>"#));
}

#[test]
fn bad_input_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for args in [
        vec!["--pattern", "nope"],
        vec!["--pattern", "misaligned"],
        vec!["--probe", "uniform"],
        vec!["--shard", "5/4"],
        vec!["--wave", "16"],
        vec!["--seed", "xyz"],
        vec!["--timeout", "soon"],
        vec!["--fault", "nope"],
        vec!["--backend", "cuda"],
        vec!["--backend", "hip", "--fault", "lost-update"],
        vec!["--backend", "emu", "--device", "0"],
        vec!["--out-of-range-return", "maybe"],
        vec!["--code-object", "/nonexistent/dsxor.co"],
    ] {
        let mut a = vec!["run", "--backend", "emu", "--cases", "4", "--out", out];
        if args[0] == "--backend" {
            a.truncate(1);
            a.extend(["--cases", "4", "--out", out]);
        }
        a.extend(args.iter().copied());
        let o = common::dsxor(&a);
        assert_eq!(code(&o), 2, "{a:?}\n{}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("dsxor: error:"),
            "{a:?}\n{}",
            text(&o)
        );
    }
}

#[test]
fn hip_without_a_device_is_an_environment_failure_and_auto_falls_back() {
    if common::dsxor(&["info", "--require-device"])
        .status
        .success()
    {
        eprintln!("SKIPPED: a HIP device is present; this test is for machines without one");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = common::dsxor(&["run", "--backend", "hip", "--cases", "4", "--out", out]);
    assert_eq!(code(&o), 3, "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--backend hip:"), "{}", text(&o));
    assert!(
        stderr.lines().count() <= 2,
        "the reason fits a line: {}",
        text(&o)
    );
    let o = common::dsxor(&["run", "--cases", "18", "--out", out]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let notice: Vec<String> = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("dsxor: backend:"))
        .map(str::to_string)
        .collect();
    assert_eq!(notice.len(), 1, "{}", text(&o));
    assert!(notice[0].contains("software device"), "{}", notice[0]);
    // Why: the library could not be loaded, or HIP has no device.
    assert!(
        notice[0].contains("HIP") || notice[0].contains("libamdhip64"),
        "{}",
        notice[0]
    );
}

#[test]
fn a_fault_gives_a_repro_that_replays_exports_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = common::lost_update_run(out).output();
    assert_eq!(code(&o), 1, "{}", text(&o));
    let repros = files(dir.path(), ".json")
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".repro-"))
        .collect::<Vec<_>>();
    assert_eq!(repros.len(), 1, "{}", text(&o));
    let repro = repros[0].to_str().unwrap();
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repro).unwrap()).unwrap();
    assert_eq!(r["format"], "dsxor-repro/1");
    assert_eq!(r["failure"]["kind"], "lost-update");
    assert_eq!(r["seed"], 7);
    let active = r["case"]["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["active"] == true)
        .count();
    assert_eq!(active, 2, "a lost update needs two contenders");
    assert_eq!(
        r["kernel"]["code_object_sha256"].as_str().unwrap().len(),
        64
    );

    // Still fails with the fault, passes on the correct device.
    let o = common::emu("repro")
        .arg(repro)
        .fault("lost-update")
        .output();
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("STILL FAILS (lost-update, as recorded)"),
        "{}",
        text(&o)
    );
    let o = common::emu("repro").arg(repro).output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    // Replayed without the fault it was found under, it passes — and says
    // the recorded fault was not applied.
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("PASSES now, without the recorded fault lost-update"),
        "{}",
        text(&o)
    );

    // Exported, the observation is judged inconsistent by `dsxor check`.
    let obs = dir.path().join("obs.json");
    let o = common::dsxor(&["repro", repro, "--export", obs.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let o = common::dsxor(&["check", obs.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("lost-update"),
        "{}",
        text(&o)
    );
    let o = common::dsxor(&[
        "repro",
        repro,
        "--export",
        obs.to_str().unwrap(),
        "--group",
        "9",
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));

    // A malformed repro file is bad input.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"format\":\"dsxor-repro/1\"}").unwrap();
    let o = common::dsxor(&["repro", bad.to_str().unwrap(), "--backend", "emu"]);
    assert_eq!(code(&o), 2, "{}", text(&o));
}

#[test]
fn shards_merge_and_mismatched_shards_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for shard in ["1/2", "2/2"] {
        let o = common::emu("run")
            .cases(40)
            .seed(5)
            .flag("--shard", shard)
            .out(out)
            .output();
        assert_eq!(code(&o), 0, "{}", text(&o));
    }
    let shards = results_json(dir.path());
    assert_eq!(shards.len(), 2);
    let merged = dir.path().join("merged.json");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap()]);
    let o = common::dsxor(&args);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    assert_eq!(m["total"], 40);
    assert_eq!(m["spec"]["shard"]["count"], 1);

    let other = tempfile::tempdir().unwrap();
    let o = common::emu("run")
        .cases(40)
        .seed(6)
        .flag("--shard", "2/2")
        .out(other.path())
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let wrong = results_json(other.path());
    let o = common::dsxor(&[
        "merge",
        shards[0].to_str().unwrap(),
        wrong[0].to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("seed 6 vs 5"),
        "{}",
        text(&o)
    );
    let o = common::dsxor(&["merge", shards[0].to_str().unwrap()]);
    assert_eq!(code(&o), 2, "missing shard 2/2: {}", text(&o));
}

#[test]
fn a_code_object_file_fixes_the_wave_size() {
    let co = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/prebuilt/dsxor-gfx1100-w64.co");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = common::emu("run")
        .cases(18)
        .flag("--code-object", co.to_str().unwrap())
        .out(out)
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results_json(dir.path())[0]).unwrap())
            .unwrap();
    assert_eq!(r["spec"]["waves"], serde_json::json!(["64"]));
    assert_eq!(r["environment"]["code_objects"][0]["origin"], "file");
    let o = common::emu("run")
        .cases(4)
        .wave(32)
        .flag("--code-object", co.to_str().unwrap())
        .out(out)
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
}

/// A code object whose conformance kernels issue `ds_or_rtn_b64` where
/// `ds_xor_rtn_b64` belongs is refused before any case runs (exit 2, no
/// case stream), naming what sits at the site label — not run to 46,004
/// failures and then stopped by the first offset patch.
#[test]
fn a_code_object_without_ds_xor_at_its_site_is_refused_before_any_case() {
    use dsxor::codeobj::CodeObject;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/prebuilt/dsxor-gfx1100-w32.co");
    let mut bytes = std::fs::read(&path).unwrap();
    let co = CodeObject::parse(&bytes).unwrap();
    let mut patched = 0;
    for k in co
        .kernels
        .iter()
        .filter(|k| k.name.starts_with("dsxor_conformance_off"))
    {
        for d in co.ds_instructions(k).unwrap() {
            // gfx11 DS layout: op in bits 25:18 (LLVM DSInstructions.td:
            // DS_XOR_RTN_B64 0x6b, DS_OR_RTN_B64 0x6a).
            if d.inst.op == 0x6b {
                let off = co.file_offset(d.vaddr, 8).unwrap() as usize;
                let mut w = u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap());
                w = (w & !(0xff << 18)) | (0x6a << 18);
                bytes[off..off + 4].copy_from_slice(&w.to_le_bytes());
                patched += 1;
            }
        }
    }
    assert!(patched >= 2, "{patched}");
    let dir = tempfile::tempdir().unwrap();
    let co_path = dir.path().join("or.co");
    std::fs::write(&co_path, &bytes).unwrap();
    let out = dir.path().join("out");
    let o = common::emu("run")
        .cases(90)
        .seed(1)
        .flag("--code-object", co_path.to_str().unwrap())
        .out(&out)
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("ds_or_rtn_b64"), "{}", text(&o));
    assert!(stderr.contains("ds_xor_site"), "{}", text(&o));
    assert!(
        !out.exists() || files(&out, ".cases.jsonl").is_empty(),
        "no case ran, so no case stream was written"
    );
}

/// `--lds-granule` reaches the software device: the notice and the
/// results' `selection` name the block it allocates with, and the
/// allocation-edge and out-of-range cases pass under the 1024-byte block.
#[test]
fn lds_granule_reaches_the_software_device() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = common::emu("run")
        .flag("--lds-granule", "1024")
        .pattern("alloc-edge")
        .flag("--probe", "out-of-range")
        .cases(120)
        .seed(7)
        .out(out)
        .output();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("LDS granule 1024 B"), "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results_json(dir.path())[0]).unwrap())
            .unwrap();
    let selection = r["environment"]["selection"].as_str().unwrap();
    assert!(selection.contains("LDS granule 1024 B"), "{selection}");
    let policy = r["parameters"]["policy"].as_str().unwrap();
    assert!(policy.contains("granule 1024 B"), "{policy}");
}

/// The case records of a run's stream, without the one field that is a
/// measurement (`device_us`).
fn case_lines(dir: &Path) -> Vec<serde_json::Value> {
    let stream = files(dir, ".cases.jsonl");
    assert_eq!(stream.len(), 1, "{stream:?}");
    std::fs::read_to_string(&stream[0])
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("device_us");
            v
        })
        .collect()
}

fn run_seeded(dir: &Path, seed: Option<&str>) -> serde_json::Value {
    let mut args = vec![
        "run",
        "--backend",
        "emu",
        "--cases",
        "180",
        "--out",
        dir.to_str().unwrap(),
    ];
    if let Some(s) = seed {
        args.extend(["--seed", s]);
    }
    let o = common::dsxor(&args);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results_json(dir)[0]).unwrap()).unwrap();
    let seed = r["spec"]["seed"].as_u64().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!("seed {seed} ({seed:#x})")),
        "the seed is printed: {}",
        text(&o)
    );
    r
}

/// Without `--seed` the run draws one, prints and records it; `--seed`
/// with that value replays the same cases (same digests, same records,
/// same counts), and another seed gives other cases.
#[test]
fn a_drawn_seed_is_recorded_and_replays_identically() {
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let first = run_seeded(dirs[0].path(), None);
    let seed = first["spec"]["seed"].as_u64().unwrap().to_string();
    let again = run_seeded(dirs[1].path(), Some(&seed));
    let other_seed = (first["spec"]["seed"].as_u64().unwrap() ^ 1).to_string();
    let other = run_seeded(dirs[2].path(), Some(&other_seed));
    let (a, b, c) = (
        case_lines(dirs[0].path()),
        case_lines(dirs[1].path()),
        case_lines(dirs[2].path()),
    );
    assert_eq!(a.len(), 180);
    assert!(a
        .iter()
        .all(|l| l["case_digest"].as_str().is_some_and(|d| d.len() == 16)));
    assert_eq!(a, b, "seed {seed} replays case by case");
    let counts = |r: &serde_json::Value| -> Vec<serde_json::Value> {
        let mut p = r["patterns"].as_array().unwrap().clone();
        for c in &mut p {
            c.as_object_mut().unwrap().remove("wall_ms");
        }
        p
    };
    assert_eq!(counts(&first), counts(&again));
    assert_eq!(first["spec"], again["spec"]);
    let differing = a
        .iter()
        .zip(&c)
        .filter(|(x, y)| x["case_digest"] != y["case_digest"])
        .count();
    assert!(
        differing > 170,
        "seed {other_seed}: {differing} of 180 differ"
    );
    assert_ne!(first["spec"], other["spec"]);
}

/// `--jobs N` runs cases on N software devices; what is recorded is what
/// `--jobs 1` records (the stream case for case, counts and failures),
/// here with an injected fault so there are failures and repros.
#[test]
fn jobs_change_nothing_that_is_recorded() {
    let run = |jobs: &str| {
        let dir = tempfile::tempdir().unwrap();
        let o = common::emu("run")
            .fault("lost-update")
            .cases(72)
            .seed(9)
            .flag("--minimize-budget", "0s")
            .flag("--max-repros", 3)
            .jobs(jobs)
            .out(dir.path())
            .output();
        assert_eq!(code(&o), 1, "{}", text(&o));
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&results_json(dir.path())[0]).unwrap())
                .unwrap();
        let mut failures = r["failures"].as_array().unwrap().clone();
        for f in &mut failures {
            // The repro's path names the run's directory and start time.
            let m = f.as_object_mut().unwrap();
            m.insert("repro".into(), m["repro"].is_string().into());
            m.remove("minimize");
        }
        (case_lines(dir.path()), failures, r["failed"].clone(), o)
    };
    let (one, f1, n1, _) = run("1");
    let (three, f3, n3, o3) = run("3");
    assert!(
        // 3 devices, or the host's cores when it has fewer (--jobs is capped).
        String::from_utf8_lossy(&o3.stderr).contains("software devices side by side"),
        "{}",
        text(&o3)
    );
    assert_eq!(one.len(), 72);
    assert_eq!(one, three);
    assert_eq!(f1, f3);
    assert_eq!(n1, n3);
    assert!(n1.as_u64().unwrap() > 0);
    let dir = tempfile::tempdir().unwrap();
    let o = common::emu("run").jobs(0).out(dir.path()).output();
    assert_eq!(code(&o), 2, "{}", text(&o));
}

/// `dsxor run | head -1`: a closed stdout must not panic the run (exit 101)
/// nor lose its results file — display lines are not results.
#[test]
fn a_closed_stdout_neither_panics_nor_loses_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(["run", "--backend", "emu", "--cases", "200", "--seed", "7"])
        .arg("--out")
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the run prints anything.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        results_json(dir.path()).len(),
        1,
        "the final results file is written"
    );
}
