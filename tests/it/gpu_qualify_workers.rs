//! `dsxor qualify --backend hip` runs the HIP side in worker processes
//! (`suite::worker`, `Request::Dispatch`), and a program that faults or
//! times out on a side is a finding, not the end of the run:
//! through the software HIP runtime (hipsim), with a device fault injected
//! into one launch (`DSXOR_HIPSIM_DEVICE_FAULT`), as ROCm 6 handles it (the
//! process aborts) and as current clr does (a sticky error), and with a
//! kernel that never completes (`DSXOR_HIPSIM_HANG`).

use crate::common;

use std::collections::BTreeSet;

/// Run `dsxor qualify --backend hip --cases 1` on hipsim with `env` and a
/// launch log; its exit code, its output, its record and the process ids
/// of the launch log's lines (one per accepted launch).
fn qualify(
    env: &[(&str, &str)],
    instructions: &str,
    extra: &[&str],
) -> (Option<i32>, String, serde_json::Value, Vec<u32>) {
    let mut args = vec![
        "qualify",
        "--backend",
        "hip",
        "--cases",
        "1",
        "--instruction",
        instructions,
    ];
    args.extend(extra);
    let r = common::hipsim_logged(&args, env);
    let pids = r.launches.iter().map(|(p, _)| *p).collect();
    (r.code, r.text, r.rec, pids)
}

fn distinct(pids: &[u32]) -> usize {
    pids.iter().collect::<BTreeSet<_>>().len()
}

/// (a) Every program's HIP launch ran in a worker process, one worker for
/// the whole run (nothing faulted), and everything agreed.
#[test]
fn qualify_runs_the_hip_side_in_a_worker_process() {
    let (code, text, rec, pids) = qualify(
        &[],
        "ds_xor_rtn_b64,ds_add_rtn_u32,v_add_co_u32,s_bfe_u32",
        &[],
    );
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(rec["plumbing_only"], true, "{text}");
    assert_eq!(rec["worker_processes"], 1, "{text}");
    assert!(rec.get("aborted").is_none(), "{text}");
    // 2 DS and 2 ALU instructions, one program per wave size each.
    assert_eq!(pids.len(), 8, "{text}");
    assert_eq!(distinct(&pids), 1, "{pids:?}");
    assert_ne!(pids[0], 0);
    assert!(
        text.contains("2 of 2 instructions qualified, 0 disagreements; ALU: 2 of 2 qualified, 0 disagreements"),
        "{text}"
    );
    // --backend emu runs in this process: no worker in the record.
    let dir = tempfile::tempdir().unwrap();
    let o = common::dsxor(&[
        "qualify",
        "--backend",
        "emu",
        "--cases",
        "1",
        "--instruction",
        "ds_xor_rtn_b64",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let text = common::text(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(common::only_record(dir.path(), &text)
        .get("worker_processes")
        .is_none());
}

/// The DS instructions of the fault tests, in the order they run: with
/// `--cases 1`, two programs each (wave32, wave64), launches 1..6 of
/// `dsxor_conformance_off0`. Launch 4 is ds_add_rtn_u32's wave64 program.
const DS: &str = "ds_xor_rtn_b64,ds_add_rtn_u32,ds_max_i64";
const FAULT_AT_4: (&str, &str) = ("DSXOR_HIPSIM_DEVICE_FAULT", "dsxor_conformance_off0:4");

/// The record's one disagreement: ds_add_rtn_u32 wave64, the device side
/// faulted, the software device agreeing with the pseudocode; every other
/// instruction qualified.
fn assert_one_device_fault(code: Option<i32>, text: &str, rec: &serde_json::Value) {
    assert_eq!(code, Some(1), "a finding exits 1: {text}");
    assert!(rec.get("aborted").is_none(), "{text}");
    let ds = rec["disagreements"].as_array().unwrap();
    assert_eq!(ds.len(), 1, "{text}");
    let d = &ds[0];
    assert_eq!(d["instruction"], "ds_add_rtn_u32");
    let summary = d["summary"].as_str().unwrap();
    assert_eq!(d["wave"], "64", "{summary}");
    assert_eq!(d["device_unfinished"]["outcome"], "fault", "{summary}");
    assert!(d.get("emu_unfinished").is_none(), "{summary}");
    assert!(d["emu"] == d["pseudocode"], "{summary}");
    assert_eq!(d["device"]["ret"].as_array().unwrap().len(), 0, "{summary}");
    assert!(
        summary.starts_with("device faulted (")
            && summary.ends_with(
                "; emu agrees with the pseudocode; the program did not complete on the device"
            ),
        "{summary}"
    );
    let qualified: Vec<(&str, bool)> = rec["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["instruction"].as_str().unwrap(), i["qualified"] == true))
        .collect();
    assert_eq!(
        qualified,
        [
            ("ds_xor_rtn_b64", true),
            ("ds_add_rtn_u32", false),
            ("ds_max_i64", true)
        ],
        "{text}"
    );
    assert!(
        text.contains("2 of 3 instructions qualified, 1 disagreements"),
        "{text}"
    );
    assert!(
        text.contains("disagreement: ds_add_rtn_u32 wave64"),
        "{text}"
    );
}

/// (b) ROCm 6: the device fault aborts the worker process (SIGABRT) in the
/// middle of the program. The program is a device-side fault finding, a
/// fresh worker runs the rest, and the other instructions qualify.
#[test]
fn a_device_fault_that_aborts_the_worker_is_a_finding_and_the_run_goes_on() {
    let (code, text, rec, pids) = qualify(&[FAULT_AT_4], DS, &[]);
    assert_one_device_fault(code, &text, &rec);
    let d = &rec["disagreements"][0];
    let message = d["device_unfinished"]["message"].as_str().unwrap();
    assert!(
        message.contains("killed by signal 6 (SIGABRT)")
            && message.contains("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION")
            && message.contains("DSXOR_HIPSIM_DEVICE_FAULT"),
        "{message}"
    );
    // Launches 1-4 in the first worker, 5-6 in the second.
    assert_eq!(rec["worker_processes"], 2, "{text}");
    assert_eq!(pids.len(), 6, "{text}");
    assert_eq!(distinct(&pids[..4]), 1, "{pids:?}");
    assert_eq!(distinct(&pids[4..]), 1, "{pids:?}");
    assert_ne!(pids[3], pids[4], "{pids:?}");
}

/// (b) Current clr: the fault is a sticky error the worker answers with; it
/// is retired, the program is a finding, the run goes on.
#[test]
fn a_device_fault_that_sticks_is_a_finding_and_the_worker_is_replaced() {
    let (code, text, rec, pids) =
        qualify(&[FAULT_AT_4, ("DSXOR_HIPSIM_ON_FAULT", "sticky")], DS, &[]);
    assert_one_device_fault(code, &text, &rec);
    let message = rec["disagreements"][0]["device_unfinished"]["message"]
        .as_str()
        .unwrap();
    assert!(message.contains("hipErrorLaunchFailure"), "{message}");
    assert_eq!(rec["worker_processes"], 2, "{text}");
    assert_eq!(distinct(&pids), 2, "{pids:?}");
}

/// A kernel that never completes (the ALU harness hangs): every ALU
/// program is a timeout finding, each in its own worker; the DS programs,
/// which do not use that kernel, qualify.
#[test]
fn a_hung_program_is_a_timeout_finding() {
    let (code, text, rec, _) = qualify(
        &[("DSXOR_HIPSIM_HANG", "dsxor_alu_harness")],
        "ds_xor_rtn_b64,v_add_nc_u32_e32",
        &["--timeout", "1s"],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(rec.get("aborted").is_none(), "{text}");
    assert_eq!(rec["instructions"][0]["qualified"], true, "{text}");
    let alu = rec["alu_disagreements"].as_array().unwrap();
    assert_eq!(alu.len(), 2, "wave32 and wave64: {text}");
    for d in alu {
        let summary = d["summary"].as_str().unwrap();
        assert_eq!(d["device_unfinished"]["outcome"], "timeout", "{summary}");
        assert!(
            d["device_unfinished"]["message"]
                .as_str()
                .unwrap()
                .contains("dsxor_alu_harness"),
            "{summary}"
        );
        assert!(d["emu"] == d["pseudocode"], "{summary}");
    }
    assert_eq!(rec["alu_instructions"][0]["qualified"], false);
    // One worker for the DS programs and the first ALU one, one more after
    // the first timeout.
    assert_eq!(rec["worker_processes"], 2, "{text}");
}

/// A worker that cannot open its device is an environment error (exit 3),
/// never a finding: the record written says the run was aborted.
#[test]
fn a_worker_that_fails_its_setup_ends_the_run_with_exit_3_and_a_partial_record() {
    // The parent only probes; the worker opening its device creates a
    // stream, and its first one fails (hipErrorOutOfMemory).
    let (code, text, rec, pids) = qualify(
        &[("DSXOR_HIPSIM_FAIL", "hipStreamCreateWithFlags:1")],
        "ds_xor_rtn_b64",
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(pids.is_empty(), "{pids:?}");
    let aborted = rec["aborted"].as_str().unwrap();
    assert!(aborted.contains("hipErrorOutOfMemory"), "{aborted}");
    assert!(text.contains("the run ended early"), "{text}");
    assert_eq!(rec["instructions"][0]["programs"], 0, "{text}");
    assert_eq!(rec["instructions"][0]["qualified"], false, "{text}");
}
