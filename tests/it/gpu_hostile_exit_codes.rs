//! A HIP runtime failure with dsxor's own code object is the environment
//! (exit 3), not bad input: the user gave no file (the table in
//! docs/src/reference/exit-codes.md). Through the HIP simulator.

use crate::common::{self, code, text};

#[test]
fn a_module_load_failure_with_the_embedded_object_is_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = common::dsxor_hipsim(
        &[
            "run",
            "--backend",
            "hip",
            "--cases",
            "4",
            "--seed",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("DSXOR_HIPSIM_FAIL", "hipModuleLoadData:1")],
    );
    assert_eq!(code(&o), 3, "{}", text(&o));
    assert!(!text(&o).contains("invalid dispatch:"), "{}", text(&o));
}
