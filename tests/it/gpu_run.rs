//! The first GPU run neither dies nor lies, proven on the software HIP
//! runtime (`hipsim/`): a device fault in either of
//! ROCm's modes becomes a verdict (worker processes), several devices run
//! side by side with the results of one, a GPU dsxor cannot use is never
//! silently emulated, and the bench's ceiling counts WGPs.

use crate::common;

use std::path::Path;

use common::{dsxor_hipsim, text};
use serde_json::Value;

fn results_of(dir: &Path) -> (Value, Vec<Value>) {
    let json = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "json") && !p.to_string_lossy().contains(".repro-")
        })
        .expect("a results file");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cases_file = dir.join(results["cases_file"].as_str().expect("cases_file"));
    let cases = std::fs::read_to_string(cases_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (results, cases)
}

/// `--probe misaligned` through `--backend hip`: with ROCm 6's abort and
/// with current clr's sticky error, every case is recorded, the faulting
/// ones as `fault` outcomes judged by the policy (MEMVIOL expected: they
/// pass), and results and JUnit are written with exit 0.
#[test]
fn a_device_fault_is_a_verdict_in_both_runtime_modes() {
    for mode in ["abort", "sticky"] {
        let dir = tempfile::tempdir().unwrap();
        let junit = dir.path().join("junit.xml");
        let out = dsxor_hipsim(
            &[
                "run",
                "--backend",
                "hip",
                "--probe",
                "misaligned",
                "--pattern",
                "uniform",
                "--cases",
                "24",
                "--seed",
                "7",
                "--out",
                dir.path().to_str().unwrap(),
                "--junit",
                junit.to_str().unwrap(),
            ],
            &[("DSXOR_HIPSIM_ON_FAULT", mode)],
        );
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", text(&out));
        let (results, cases) = results_of(dir.path());
        assert_eq!(results["status"], "passed", "{mode}");
        assert_eq!(results["total"], 24, "{mode}");
        let cases: Vec<Value> = cases
            .into_iter()
            .filter(|c| c.get("index").is_some())
            .collect();
        assert_eq!(cases.len(), 24, "{mode}");
        let faults: Vec<&Value> = cases.iter().filter(|c| c["outcome"] == "fault").collect();
        assert!(
            !faults.is_empty()
                && faults
                    .iter()
                    .all(|c| c["pattern"] == "misaligned" && c["passed"] == true),
            "{mode}: {cases:?}"
        );
        let note = faults[0]["notes"][0].as_str().unwrap_or("");
        match mode {
            // The worker died of SIGABRT and the message says so.
            "abort" => assert!(note.contains("SIGABRT"), "{note}"),
            // The runtime returned its latched error.
            _ => assert!(note.contains("hipErrorIllegalAddress"), "{note}"),
        }
        // The uniform cases in between ran on fresh workers and passed.
        assert!(cases
            .iter()
            .filter(|c| c["pattern"] == "uniform")
            .all(|c| c["outcome"] == "completed" && c["passed"] == true));
        assert!(std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<testsuites"));
    }
}

fn without_timing(cases: &[Value]) -> Vec<Value> {
    cases
        .iter()
        // The header line carries the start time.
        .filter(|c| c.get("index").is_some())
        .map(|c| {
            let mut c = c.clone();
            c.as_object_mut().unwrap().remove("device_us");
            c
        })
        .collect()
}

/// Two simulated devices: two worker processes by default, every device
/// recorded, and the case records those of a one-worker run.
#[test]
fn two_devices_two_workers_same_results() {
    let devices = [("DSXOR_HIPSIM_DEVICES", "gfx1100,gfx1100")];
    let run = |jobs: Option<&str>| {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec![
            "run",
            "--backend",
            "hip",
            "--cases",
            "36",
            "--seed",
            "11",
            "--probe",
            "misaligned",
            "--out",
            dir.path().to_str().unwrap(),
        ];
        if let Some(j) = jobs {
            args.extend(["--jobs", j]);
        }
        let out = dsxor_hipsim(&args, &devices);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        (results_of(dir.path()), out, dir)
    };
    let ((two, two_cases), out, _d1) = run(None);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("2 HIP worker processes"),
        "{}",
        text(&out)
    );
    assert_eq!(
        two["environment"]["devices"].as_array().map(Vec::len),
        Some(2),
        "{two}"
    );
    let ((one, one_cases), _, _d2) = run(Some("1"));
    assert!(one["environment"].get("devices").is_none());
    assert_eq!(without_timing(&two_cases), without_timing(&one_cases));
    assert_eq!(two["total"], one["total"]);
}

/// The worker for the parent's device 1 sees it, and only it, as its device
/// 0 through HIP_VISIBLE_DEVICES, which the simulator applies as clr does.
/// With a gfx90a first, a worker that opened the parent's ordinal 0 instead
/// would hold a device of another target, and the run would exit 3.
#[test]
fn the_worker_opens_the_parents_device_through_hip_visible_devices() {
    let dir = tempfile::tempdir().unwrap();
    let out = dsxor_hipsim(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "1",
            "--cases",
            "18",
            "--seed",
            "3",
            "--out",
            dir.path().to_str().unwrap(),
        ],
        &[("DSXOR_HIPSIM_DEVICES", "gfx90a,gfx1100")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (res, _) = results_of(dir.path());
    assert_eq!(
        res["environment"]["device"]["target_id"], "gfx1100",
        "{res}"
    );
    assert_eq!(res["total"], 18);
    assert_eq!(res["passed"], 18);
}

/// A gfx1101 with no object of its own: `--backend auto` exits 3 naming the
/// target and the override, never a silent emulation.
#[test]
fn an_unsupported_gpu_is_never_emulated() {
    let dir = tempfile::tempdir().unwrap();
    let out = dsxor_hipsim(
        &["run", "--cases", "4", "--out", dir.path().to_str().unwrap()],
        &[("DSXOR_HIPSIM_DEVICES", "gfx1101")],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("gfx1101") && err.contains("HSA_OVERRIDE_GFX_VERSION"),
        "{err}"
    );
    // Emulation, asked for, still runs.
    let out = dsxor_hipsim(
        &["run", "--cases", "4", "--out", dir.path().to_str().unwrap()],
        &[
            ("DSXOR_HIPSIM_DEVICES", "gfx1101"),
            ("DSXOR_BACKEND", "emu"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // --require-gpu refuses a simulated device.
    let out = dsxor_hipsim(
        &[
            "run",
            "--backend",
            "hip",
            "--require-gpu",
            "--cases",
            "4",
            "--out",
            dir.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("simulated"));
}

/// A gfx1101 under `HSA_OVERRIDE_GFX_VERSION=11.0.0` reports gfx1100 (ROCr
/// takes the override's ISA) and runs the gfx1100 objects on the HIP path,
/// with the override recorded; a value libhsakmt refuses leaves no device,
/// so `--backend hip` exits 3 and never runs anything.
#[test]
fn a_gfx_version_override_runs_the_gfx1100_objects_and_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("ok");
    let out = dsxor_hipsim(
        &["run", "--cases", "6", "--out", out_dir.to_str().unwrap()],
        &[
            ("DSXOR_HIPSIM_DEVICES", "gfx1101"),
            ("HSA_OVERRIDE_GFX_VERSION", "11.0.0"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (res, _) = results_of(&out_dir);
    assert_eq!(res["environment"]["device"]["backend"], "hip", "{res}");
    assert_eq!(
        res["environment"]["device"]["target_id"], "gfx1100",
        "{res}"
    );
    assert_eq!(
        res["environment"]["hsa_override_gfx_version"], "11.0.0",
        "{res}"
    );
    assert_eq!(
        (&res["total"], &res["passed"]),
        (&6.into(), &6.into()),
        "{res}"
    );
    // The per-node form names the node (ordinal 0 is node 1).
    let out = dsxor_hipsim(
        &["info"],
        &[
            ("DSXOR_HIPSIM_DEVICES", "gfx1101"),
            ("HSA_OVERRIDE_GFX_VERSION_1", "11.0.0"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("gfx1100"),
        "{}",
        text(&out)
    );
    for bad in ["11.0", "11.0.9"] {
        let out = dsxor_hipsim(
            &[
                "run",
                "--backend",
                "hip",
                "--cases",
                "4",
                "--out",
                dir.path().join("bad").to_str().unwrap(),
            ],
            &[
                ("DSXOR_HIPSIM_DEVICES", "gfx1101"),
                ("HSA_OVERRIDE_GFX_VERSION", bad),
            ],
        );
        assert_eq!(out.status.code(), Some(3), "{bad}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("HSA_OVERRIDE_GFX_VERSION"), "{bad}: {err}");
    }
}

/// A simulated RX 7900 XTX reports 48 (WGPs, as clr does): the ceiling is
/// 48 WGPs x 2.5 GHz x 32 lanes per clock, recorded with its unit.
#[test]
fn bench_ceiling_counts_wgps() {
    let dir = tempfile::tempdir().unwrap();
    let out = dsxor_hipsim(
        &[
            "bench",
            "--backend",
            "hip",
            "--quick",
            "--reps",
            "1",
            "--filter",
            "one-address/indep/wave32",
            "--out",
            dir.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let path = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let record: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = &record["ceiling"];
    // 48 WGPs x 2 CUs x 2.5 GHz x 16 lanes per CU = 48 x 2.5 GHz x 32.
    assert_eq!(c["compute_units"], 96, "{c}");
    assert!(
        c["compute_units_from"]
            .as_str()
            .unwrap_or("")
            .contains("48 WGPs"),
        "{c}"
    );
    assert_eq!(c["lane_ops_per_second"].as_f64(), Some(3.84e12));
    // The clock state is recorded (here: why it is unavailable).
    assert!(record.get("clock_state").is_some(), "{record}");
}
