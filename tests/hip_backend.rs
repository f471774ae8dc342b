//! Opening the HIP backend on a machine without a GPU: an environment
//! error carrying HIP's own reason, never a panic.
//! Without the library: skipped locally, a failure under DSXOR_REQUIRE_TOOLS=1.

mod common;

use std::path::Path;

use dsxor::backend::hip::{choose_device, HipBackend};
use dsxor::backend::BackendError;

#[test]
fn open_without_a_device_is_an_environment_error_naming_hip_error_no_device() {
    let report = match dsxor::hip::probe() {
        Ok(r) => r,
        Err(e) => {
            common::missing("libamdhip64 (the HIP runtime)", &e.to_string());
            return;
        }
    };
    if Path::new("/dev/kfd").exists() {
        eprintln!("SKIPPED: /dev/kfd exists: this machine may have a GPU (see tests/hip_gpu.rs)");
        return;
    }
    for index in [None, Some(0), Some(7)] {
        match HipBackend::from_report(&report, index) {
            Err(BackendError::Environment(reason)) => {
                assert!(reason.contains("hipErrorNoDevice"), "{reason}");
                assert!(reason.contains("hipGetDeviceCount"), "{reason}");
            }
            Err(other) => panic!("expected an environment error, got {other}"),
            Ok(b) => panic!("opened {b:?} without a GPU"),
        }
    }
    assert!(choose_device(&report, None).is_err());
    match HipBackend::open(None) {
        Err(BackendError::Environment(reason)) => assert!(reason.contains("hipErrorNoDevice")),
        Err(other) => panic!("expected an environment error, got {other}"),
        Ok(b) => panic!("opened {b:?} without a GPU"),
    }
}

#[test]
fn dsxor_info_device_exits_3_with_the_reason() {
    if Path::new("/dev/kfd").exists() {
        eprintln!("SKIPPED: /dev/kfd exists: this machine may have a GPU");
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(["info", "--device", "0"])
        .env("DSXOR_HIP_LIB", "/nonexistent/libamdhip64.so")
        .output()
        .expect("dsxor runs");
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent/libamdhip64.so"), "{stderr}");

    if dsxor::hip::Hip::load().is_err() {
        common::missing("libamdhip64 (the HIP runtime)", "Hip::load failed");
        return;
    }
    let out = common::dsxor(&["info", "--device", "0"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hipErrorNoDevice"), "{stderr}");
}
