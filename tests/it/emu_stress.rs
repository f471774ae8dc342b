//! The `stress` family on the software device: its cases pass, carry their
//! parameters into the case stream, the failures and the repro, are the
//! same for the same seed, and fail under an injected fault.

use crate::common;

use std::path::Path;

use common::{code, files, text};
use serde_json::Value;

/// The results file of a run in `dir` and its case stream's records.
pub(crate) fn results_and_cases(dir: &Path) -> (Value, Vec<Value>) {
    let json = common::results_json(dir)
        .into_iter()
        .next()
        .expect("a results file");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let stream = dir.join(results["cases_file"].as_str().expect("cases_file"));
    let cases = std::fs::read_to_string(stream)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (results, cases)
}

/// Every record names the stress parameters its case drew, and they agree
/// with the case's shape.
pub(crate) fn assert_records_carry_stress(cases: &[Value]) {
    assert!(!cases.is_empty());
    for c in cases {
        let s = &c["stress"];
        assert!(s.is_object(), "no stress parameters: {c}");
        assert_eq!(s["groups"], c["groups"], "{c}");
        assert_eq!(s["waves_per_group"], c["waves_per_group"], "{c}");
        assert!(s["contended_qwords"].as_u64().unwrap() >= 1, "{c}");
        assert!(s["permuted_lanes"].is_u64(), "{c}");
        // The stream carries the parameters; the per-lane slots stay in
        // the repro's case.
        assert!(s.get("slots").is_none(), "{c}");
    }
}

#[test]
fn stress_cases_pass_record_their_parameters_and_replay_per_seed() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&a, &b] {
        let o = common::emu("run")
            .pattern("stress")
            .cases(48)
            .seed(21)
            .out(dir.path())
            .output();
        assert_eq!(code(&o), 0, "{}", text(&o));
    }
    let (results, cases) = results_and_cases(a.path());
    assert_eq!(results["status"], "passed");
    assert_eq!(cases.len(), 48);
    assert_records_carry_stress(&cases);
    // The same seed draws the same parameters and the same cases.
    let (_, again) = results_and_cases(b.path());
    let key = |c: &Value| (c["case_digest"].clone(), c["stress"].clone());
    assert_eq!(
        cases.iter().map(key).collect::<Vec<_>>(),
        again.iter().map(key).collect::<Vec<_>>()
    );
    // The shape is drawn per case.
    let shapes: std::collections::BTreeSet<String> = cases
        .iter()
        .map(|c| format!("{}x{}", c["groups"], c["waves_per_group"]))
        .collect();
    assert!(shapes.len() > 10, "{shapes:?}");
    assert_some_records_carry_traffic(&cases);
}

/// Some records name background traffic and a spin (half the stress cases
/// draw them, `gen::traffic`), each within its case.
pub(crate) fn assert_some_records_carry_traffic(cases: &[Value]) {
    let with: Vec<&Value> = cases
        .iter()
        .filter(|c| c["stress"]["spin_max"].as_u64().unwrap_or(0) > 0)
        .collect();
    assert!(!with.is_empty(), "no case drew traffic or a spin");
    assert!(
        with.iter()
            .any(|c| c["stress"]["traffic_lanes"].as_u64().unwrap_or(0) > 0),
        "no case drew traffic lanes"
    );
    for c in with {
        let lanes = c["groups"].as_u64().unwrap() * c["waves_per_group"].as_u64().unwrap();
        let traffic = c["stress"]["traffic_lanes"].as_u64().unwrap_or(0);
        // Whole waves, at most half of each group's.
        let wl = c["wave"].as_str().unwrap().parse::<u64>().unwrap();
        assert_eq!(traffic % wl, 0, "{c}");
        assert!(traffic / wl <= lanes / 2, "{c}");
        assert!(c["stress"]["spin_max"].as_u64().unwrap() <= 32, "{c}");
    }
}

/// A write that lands in a qword the background traffic owns (fault
/// `stray-write`: each atomic also XORs its DATA into the next qword) is
/// caught by the traffic's own verdict: a traffic lane reads a value it
/// did not store, or its qword ends other than it started.
#[test]
fn a_stray_write_into_a_traffic_qword_fails_with_a_traffic_kind() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::emu("run")
        .fault("stray-write")
        .pattern("stress")
        .wave(32)
        .mode("wgp")
        .cases(12)
        .seed(21)
        .flag("--max-repros", 1)
        .out(dir.path())
        .output();
    assert_eq!(code(&o), 1, "{}", text(&o));
    let (_, cases) = results_and_cases(dir.path());
    let traffic_kinds: Vec<&Value> = cases
        .iter()
        .filter(|c| {
            c["kind"]
                .as_str()
                .is_some_and(|k| k == "traffic-read" || k == "traffic-stray-write")
        })
        .collect();
    assert!(
        !traffic_kinds.is_empty(),
        "no case failed by the traffic verdict: {:?}",
        cases.iter().map(|c| c["kind"].clone()).collect::<Vec<_>>()
    );
    for c in traffic_kinds {
        assert!(c["stress"]["traffic_lanes"].as_u64().unwrap() > 0, "{c}");
    }
}

/// A lost update fails stress cases; the failure names the parameters and
/// the minimized repro keeps them, each kept lane with its slot.
#[test]
fn a_fault_fails_stress_cases_and_the_repro_keeps_the_parameters() {
    for fault in ["lost-update", "cross-wave-lost-update"] {
        let dir = tempfile::tempdir().unwrap();
        let o = common::emu("run")
            .fault(fault)
            .pattern("stress")
            .wave(32)
            .mode("wgp")
            .cases(6)
            .seed(21)
            .flag("--max-repros", 1)
            .out(dir.path())
            .output();
        assert_eq!(code(&o), 1, "{fault}: {}", text(&o));
        let (results, cases) = results_and_cases(dir.path());
        assert!(cases.iter().any(|c| c["passed"] == false), "{fault}");
        let failure = &results["failures"][0];
        assert_eq!(failure["pattern"], "stress", "{fault}");
        assert!(failure["stress"]["contended_qwords"].is_u64(), "{failure}");
        let repro = files(dir.path(), ".json")
            .into_iter()
            .find(|p| p.to_string_lossy().contains(".repro-"))
            .expect("a repro");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&repro).unwrap()).unwrap();
        let case = &r["case"];
        let stress = &case["stress"];
        assert_eq!(stress["groups"], failure["stress"]["groups"], "{fault}");
        assert_eq!(
            stress["slots"].as_array().map(Vec::len),
            case["lanes"].as_array().map(Vec::len),
            "{fault}: one slot per kept lane"
        );
        // The repro replays: still failing with the fault, passing without.
        let with = common::emu("repro").arg(&repro).fault(fault).output();
        assert_eq!(code(&with), 1, "{fault}: {}", text(&with));
        let without = common::emu("repro").arg(&repro).output();
        assert_eq!(code(&without), 0, "{fault}: {}", text(&without));
    }
}
