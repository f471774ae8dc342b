//! The `stress` family through the software HIP runtime (`--backend hip`
//! with `DSXOR_HIP_LIB` naming `libdsxor_hipsim.so`): it passes, and its
//! records, stress parameters included, are the software device's.

use crate::common;
use crate::emu_stress::{
    assert_records_carry_stress, assert_some_records_carry_traffic, results_and_cases,
};

use common::{code, dsxor_hipsim, text};

#[test]
fn stress_cases_pass_through_hip_as_on_the_software_device() {
    let (hip, emu) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = |backend: &'static str, dir: &tempfile::TempDir| -> Vec<String> {
        [
            "run",
            "--backend",
            backend,
            "--pattern",
            "stress",
            "--cases",
            "24",
            "--seed",
            "21",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([dir.path().display().to_string()])
        .collect()
    };
    let h = args("hip", &hip);
    let o = dsxor_hipsim(&h.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let e = args("emu", &emu);
    let o = common::dsxor(&e.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&o), 0, "{}", text(&o));
    let (results, hip_cases) = results_and_cases(hip.path());
    assert_eq!(results["environment"]["device"]["backend"], "hip");
    assert_records_carry_stress(&hip_cases);
    // Background traffic and spins run through the runtime too (the traffic
    // kernels' ctl and verdict buffers cross the HIP API).
    assert_some_records_carry_traffic(&hip_cases);
    let (_, emu_cases) = results_and_cases(emu.path());
    let key = |c: &serde_json::Value| {
        (
            c["index"].clone(),
            c["case_digest"].clone(),
            c["stress"].clone(),
            c["passed"].clone(),
        )
    };
    assert_eq!(
        hip_cases.iter().map(key).collect::<Vec<_>>(),
        emu_cases.iter().map(key).collect::<Vec<_>>()
    );
}
