//! A deliberate mutant (`--allow-mutant`: a `ds_or_rtn_b64` where the
//! `ds_xor_rtn_b64` should be) is judged on the whole suite: the cases at
//! other offsets patch the offset of the instruction that is there instead
//! of stopping the run ("cannot patch … holds `ds_or_rtn_b64`").

use crate::common;

use common::{code, dsxor, results_json, text};

#[test]
fn a_mutant_is_judged_on_every_offset_of_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    // Every conformance kernel issues ds_or_rtn_b64 where its
    // ds_xor_rtn_b64 should be.
    let co = crate::gpu_cli::patched_object(dir.path());
    let out = dir.path().join("out");
    let o = dsxor(&[
        "run",
        "--backend",
        "emu",
        "--code-object",
        co.to_str().unwrap(),
        "--allow-mutant",
        "--seed",
        "1",
        "--cases",
        "120",
        "--pattern",
        "offset,uniform",
        "--minimize-budget",
        "0s",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert!(!text(&o).contains("cannot patch"), "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results_json(&out)[0]).unwrap()).unwrap();
    assert_eq!(r["status"], "failed", "judged to the end, not aborted");
    assert_eq!(r["total"], 120, "every case judged");
    // The offset cells ran and caught the wrong instruction.
    let offset_failed: u64 = r["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["pattern"] == "offset")
        .map(|c| c["failed"].as_u64().unwrap())
        .sum();
    assert!(offset_failed > 0, "{r}");
}
