//! Opening the HIP backend on a machine without a GPU: an environment
//! error carrying HIP's own reason, never a panic.
//! Without the library: skipped locally, a failure under DSXOR_REQUIRE_TOOLS=1.

use crate::common;

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
        eprintln!("SKIPPED: /dev/kfd exists: this machine may have a GPU (see tests/it/gpu_hip_backend.rs)");
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

/// Device choice over a probe whose device list is replaced by made-up
/// devices (the fields are public): `--device N` must name what exists, and
/// opening a device HIP does not have fails with HIP's own error.
#[test]
fn choose_device_by_index_and_say_what_exists() {
    let hip = match dsxor::hip::Hip::load() {
        Ok(h) => h,
        Err(e) => {
            common::missing("libamdhip64 (the HIP runtime)", &e.to_string());
            return;
        }
    };
    if Path::new("/dev/kfd").exists() {
        eprintln!("SKIPPED: /dev/kfd exists: made-up devices would collide with real ones");
        return;
    }
    let mut report = dsxor::hip::probe_with(hip);
    let dev = |index: u32, arch: &str| dsxor::hip::DeviceProps {
        index,
        name: format!("made-up {index}"),
        gcn_arch_name: arch.to_string(),
        compute_units: 96,
        clock_khz: 2_500_000,
        lds_per_block: 65536,
        wavefront_size: 32,
        pci_bus_id: format!("0000:0{index}:00.0"),
        uuid: None,
    };
    report.devices = dsxor::hip::Devices::Found(vec![
        Ok(dev(0, "gfx1100")),
        Err(dsxor::hip::HipError::Invalid("unreadable".into())),
        Ok(dev(2, "gfx90a:sramecc+:xnack-")),
    ]);
    report.visibility = vec![("HIP_VISIBLE_DEVICES".into(), "0,1,2".into())];
    assert_eq!(choose_device(&report, None).map(|d| d.index), Ok(0));
    assert_eq!(choose_device(&report, Some(2)).map(|d| d.index), Ok(2));
    let err = choose_device(&report, Some(1)).expect_err("device 1 is unreadable");
    assert!(
        err.contains("0 (gfx1100), 2 (gfx90a:sramecc+:xnack-)"),
        "{err}"
    );
    assert!(err.contains("HIP_VISIBLE_DEVICES=0,1,2"), "{err}");
    // HIP itself has no device 0 here: opening is HIP's error, not a panic.
    match HipBackend::from_report(&report, Some(0)) {
        Err(BackendError::Environment(m)) => {
            assert!(m.contains("hipSetDevice"), "{m}");
            assert!(m.contains("hipErrorInvalidDevice"), "{m}");
        }
        Err(other) => panic!("expected an environment error, got {other}"),
        Ok(b) => panic!("opened {b:?}"),
    }
}
