//! A deliberate mutant (`--allow-mutant`: a `ds_or_rtn_b64` where the
//! `ds_xor_rtn_b64` should be) is judged on the whole suite: the cases at
//! other offsets patch the offset of the instruction that is there instead
//! of stopping the run ("cannot patch … holds `ds_or_rtn_b64`").

use crate::common;

use std::path::{Path, PathBuf};

use common::{code, dsxor, results_json, text};

/// The embedded gfx1100 wave32 object with every conformance kernel's
/// `ds_xor_rtn_b64` turned into `ds_or_rtn_b64` (same operands; the opcode
/// from dsxor's LLVM-derived table).
fn or_mutant(dir: &Path) -> PathBuf {
    use dsxor::isa::{op_by_name, DsInst, Family};
    let or = op_by_name(Family::Gfx11, "ds_or_rtn_b64")
        .expect("ds_or_rtn_b64 in the table")
        .op;
    common::edit_conformance_sites(dir, "or-mutant.co", |bytes, off| {
        let word = u64::from_le_bytes(bytes[off..off + 8].try_into().unwrap());
        let mut inst = DsInst::decode(Family::Gfx11, word).unwrap();
        inst.op = or;
        let new = inst.encode(Family::Gfx11).unwrap();
        bytes[off..off + 8].copy_from_slice(&new.to_le_bytes());
    })
}

#[test]
fn a_mutant_is_judged_on_every_offset_of_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let co = or_mutant(dir.path());
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
