//! `dsxor bench --backend hip` runs its throughput launches in worker
//! processes (`suite::worker`, `Request::Throughput`), so a device fault or
//! a hung launch is a run's outcome in the record, not the end of the
//! bench: through the software HIP runtime (hipsim), with a device fault
//! injected into one launch (`DSXOR_HIPSIM_DEVICE_FAULT`) as ROCm 6 handles
//! it (the process aborts) and as current clr does (a sticky error), and
//! with a kernel that never completes (`DSXOR_HIPSIM_HANG`).

use crate::common;

use std::collections::BTreeSet;

use common::Logged as Bench;

/// `dsxor bench --backend hip --quick --filter conflict-free` on hipsim
/// with `env`, a launch log and `extra` flags.
fn bench(env: &[(&str, &str)], extra: &[&str]) -> Bench {
    let mut args = vec![
        "bench",
        "--backend",
        "hip",
        "--quick",
        "--filter",
        "conflict-free",
    ];
    args.extend(extra);
    common::hipsim_logged(&args, env)
}

/// The record's runs as (name, outcome).
fn outcomes(rec: &serde_json::Value) -> Vec<(String, String)> {
    rec["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pids(launches: &[(u32, String)]) -> Vec<u32> {
    launches.iter().map(|(p, _)| *p).collect()
}

fn distinct(pids: &[u32]) -> usize {
    pids.iter().collect::<BTreeSet<_>>().len()
}

fn owned(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// (a) Every launch ran in one worker process (nothing faulted), every run
/// passed its check and has a rate from HIP event time.
#[test]
fn bench_runs_its_launches_in_a_worker_process() {
    let b = bench(&[], &["--wave", "32"]);
    let text = &b.text;
    assert_eq!(b.code, Some(0), "{text}");
    assert_eq!(b.rec["worker_processes"], 1, "{text}");
    assert!(b.rec.get("aborted").is_none(), "{text}");
    assert_eq!(b.rec["all_passed"], true, "{text}");
    assert_eq!(b.rec["settings"]["timing"], "hip-events", "{text}");
    assert_eq!(
        outcomes(&b.rec),
        owned(&[
            ("conflict-free/dep/wave32", "pass"),
            ("conflict-free/indep/wave32", "pass")
        ])
    );
    for r in b.rec["runs"].as_array().unwrap() {
        assert_eq!(r["check"]["launches_checked"], 6, "{text}");
        assert!(r["lane_ops_per_second"]["median"].as_f64().unwrap() > 0.0);
    }
    // 2 runs of 1 warm-up + 5 timed launches, all in one process that is
    // not this test's.
    assert_eq!(b.launches.len(), 12, "{text}");
    assert_eq!(distinct(&pids(&b.launches)), 1, "{:?}", b.launches);
    assert_ne!(b.launches[0].0, std::process::id());
}

/// The runs of the fault tests: `dsxor_throughput_dep`'s second launch in
/// each process faults, so the first run (dep, launch 2: the first timed
/// one) faults and the second (indep) passes in a fresh worker.
const FAULT_AT_2: (&str, &str) = ("DSXOR_HIPSIM_DEVICE_FAULT", "dsxor_throughput_dep:2");

/// A faulted first run, a passed second one, exit 1 (a run faulted:
/// docs/src/reference/exit-codes.md), two workers; the fault's message.
fn assert_one_fault(b: &Bench) -> String {
    let text = &b.text;
    assert_eq!(b.code, Some(1), "a faulted run exits 1: {text}");
    assert!(b.rec.get("aborted").is_none(), "{text}");
    assert_eq!(b.rec["all_passed"], false, "{text}");
    assert_eq!(
        outcomes(&b.rec),
        owned(&[
            ("conflict-free/dep/wave32", "fault"),
            ("conflict-free/indep/wave32", "pass")
        ]),
        "{text}"
    );
    let run = &b.rec["runs"][0];
    assert!(run["lane_ops_per_second"].is_null(), "no rate: {text}");
    assert_eq!(run["check"]["launches_checked"], 1, "{text}");
    assert!(
        text.contains("conflict-free/dep/wave32") && text.contains("FAULT: no rate counted"),
        "{text}"
    );
    assert_eq!(b.rec["worker_processes"], 2, "{text}");
    // Launches 1 and 2 of the dep kernel in the first worker, the indep
    // run's 6 in the second.
    let p = pids(&b.launches);
    assert_eq!(p.len(), 8, "{:?}", b.launches);
    assert_eq!(distinct(&p[..2]), 1, "{p:?}");
    assert_eq!(distinct(&p[2..]), 1, "{p:?}");
    assert_ne!(p[1], p[2], "{p:?}");
    run["error"].as_str().unwrap().to_string()
}

/// (b) ROCm 6: the device fault aborts the worker process (SIGABRT). The
/// run is a `fault` naming the signal and the runtime's last words, a
/// fresh worker runs the rest, the record is written.
#[test]
fn a_device_fault_that_aborts_the_worker_is_a_faulted_run_in_the_record() {
    let b = bench(&[FAULT_AT_2], &["--wave", "32"]);
    let message = assert_one_fault(&b);
    assert!(
        message.contains("killed by signal 6 (SIGABRT)")
            && message.contains("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION")
            && message.contains("DSXOR_HIPSIM_DEVICE_FAULT"),
        "{message}"
    );
}

/// (c) Current clr: the fault is a sticky error the worker answers with;
/// it is retired, the run is a `fault`, the bench goes on.
#[test]
fn a_device_fault_that_sticks_is_a_faulted_run_and_the_worker_is_replaced() {
    let b = bench(
        &[FAULT_AT_2, ("DSXOR_HIPSIM_ON_FAULT", "sticky")],
        &["--wave", "32"],
    );
    let message = assert_one_fault(&b);
    assert!(message.contains("hipErrorLaunchFailure"), "{message}");
}

/// A kernel that never completes: each run of it is a `timeout` (the
/// worker's watchdog), its worker retired; the runs after it pass in fresh
/// workers. In one process a timed-out kernel still holds the device, so
/// the bench could not go on.
#[test]
fn a_hung_launch_is_a_timed_out_run_and_the_bench_goes_on() {
    let b = bench(
        &[("DSXOR_HIPSIM_HANG", "dsxor_throughput_indep")],
        &["--timeout", "1s"],
    );
    let text = &b.text;
    assert_eq!(b.code, Some(1), "{text}");
    assert!(b.rec.get("aborted").is_none(), "{text}");
    assert_eq!(
        outcomes(&b.rec),
        owned(&[
            ("conflict-free/dep/wave32", "pass"),
            ("conflict-free/indep/wave32", "timeout"),
            ("conflict-free/dep/wave64", "pass"),
            ("conflict-free/indep/wave64", "timeout")
        ]),
        "{text}"
    );
    let error = b.rec["runs"][1]["error"].as_str().unwrap();
    assert!(
        error.contains("dsxor_throughput_indep") && error.contains("did not complete within 1s"),
        "{error}"
    );
    assert_eq!(b.rec["worker_processes"], 2, "{text}");
}

/// A worker that cannot open its device is an environment error (exit 3),
/// never a run's outcome: the record is written all the same and says
/// `aborted`.
#[test]
fn a_worker_that_fails_its_setup_ends_the_bench_with_exit_3_and_a_record() {
    // The parent only probes; the worker opening its device creates a
    // stream, and its first one fails (hipErrorOutOfMemory).
    let b = bench(
        &[("DSXOR_HIPSIM_FAIL", "hipStreamCreateWithFlags:1")],
        &["--wave", "32", "--json"],
    );
    let text = &b.text;
    assert_eq!(b.code, Some(3), "{text}");
    assert!(b.launches.is_empty(), "{:?}", b.launches);
    let aborted = b.rec["aborted"].as_str().unwrap();
    assert!(aborted.contains("hipErrorOutOfMemory"), "{aborted}");
    assert_eq!(b.rec["runs"].as_array().unwrap().len(), 0, "{text}");
    assert_eq!(b.rec["all_passed"], false, "{text}");
    assert!(text.contains("bench aborted"), "{text}");
    // --json: one document, its verdict `error`, exit 3.
    let start = text.find('{').unwrap();
    let doc: serde_json::Value = serde_json::Deserializer::from_str(&text[start..])
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(doc["verdict"], "error", "{text}");
    assert_eq!(doc["exit_code"], 3, "{text}");
    assert_eq!(doc["aborted"], aborted, "{text}");
}
