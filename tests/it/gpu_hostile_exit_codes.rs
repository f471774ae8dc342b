//! A HIP runtime failure with dsxor's own code object is the environment
//! (exit 3), not bad input: the user gave no file (the table in
//! docs/src/reference/exit-codes.md). Through the HIP simulator.

use crate::common::{self, code, text};

#[test]
fn a_module_load_failure_with_the_embedded_object_is_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = common::hip("run")
        .cases(4)
        .seed(1)
        .out(&out)
        .on_hipsim(&[("DSXOR_HIPSIM_FAIL", "hipModuleLoadData:1")]);
    assert_eq!(code(&o), 3, "{}", text(&o));
    assert!(!text(&o).contains("invalid dispatch:"), "{}", text(&o));
}

#[test]
fn a_users_object_with_an_unknown_instruction_is_bad_input_not_the_environment() {
    // The conformance sites zeroed (an encoding the software device does
    // not know), run as a deliberate mutant so the object is not refused
    // before it runs: the instruction is the user's, so exit 2.
    let dir = tempfile::tempdir().unwrap();
    let user = common::edit_conformance_sites(dir.path(), "zeroed.co", |b, at| {
        b[at..at + 8].fill(0);
    });
    let out = dir.path().join("out");
    let o = common::emu("run")
        .seed(1)
        .cases(4)
        .arg("--code-object")
        .arg(&user)
        .arg("--allow-mutant")
        .arg("--minimize-budget")
        .arg("0s")
        .out(&out)
        .output();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("unsupported instruction"), "{}", text(&o));
    assert!(
        text(&o).contains("zeroed.co"),
        "the user's file is named: {}",
        text(&o)
    );
}
