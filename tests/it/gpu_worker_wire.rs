//! The worker protocol's version check across real processes: a parent of
//! `dsxor-worker/4` refuses a worker that speaks `dsxor-worker/3` (JSON
//! lines with base64 buffers) with a message naming both versions, and the
//! `dsxor worker` binary answers a version-3 request the same way, in its
//! own version, instead of skipping it and waiting forever.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use dsxor::backend::conformance::CaseDevice;
use dsxor::backend::DeviceInfo;
use dsxor::suite::worker::{WorkerDevice, WorkerPlan, LINE_TAG};

fn info() -> DeviceInfo {
    serde_json::from_value(serde_json::json!({
        "backend": "hip",
        "name": "test device",
        "target_id": "gfx1100",
        "wave_sizes": [32, 64],
        "compute_units": 48,
        "clock_khz": null,
        "lds_per_block": 65536,
        "runtime_version": null,
        "driver_version": null,
        "pci_bus_id": null
    }))
    .expect("a DeviceInfo")
}

#[test]
fn a_parent_refuses_a_worker_of_protocol_3() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("old-dsxor");
    // An old worker: reads the setup, answers it as version 3 did.
    std::fs::write(
        &exe,
        "#!/bin/sh\nhead -c 1 >/dev/null\necho 'dsxor-worker/3 {\"ready\":{\"info\":{}}}'\nsleep 5\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut device = WorkerDevice::new(WorkerPlan {
        exe,
        visible: "0".into(),
        info: info(),
        objects: vec![],
        timeout: Duration::from_secs(5),
        label: "HIP device 0".into(),
        batch: 1,
    });
    let case = dsxor::case::Case {
        pattern: "t".into(),
        index: 0,
        geometry: dsxor::case::Geometry {
            wave_size: dsxor::case::WaveSize::Wave32,
            waves_per_group: 1,
            groups: 1,
            mode: dsxor::case::Mode::Wgp,
        },
        lds_bytes: 8,
        offset: 0,
        lds_init: vec![vec![0]],
        lanes: vec![],
        more_rounds: vec![],
        stress: None,
        traffic: None,
    };
    let e = device.run_case(&case).unwrap_err().to_string();
    assert!(
        e.contains("dsxor-worker/3 at the other end") && e.contains("this is dsxor-worker/4"),
        "{e}"
    );
}

#[test]
fn the_worker_refuses_a_parent_of_protocol_3() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .arg("worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"dsxor-worker/3 {\"run\":{\"addr\":\"AAAAAA==\"}}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with(LINE_TAG), "{text}");
    assert!(
        text.contains("worker protocol dsxor-worker/3 at the other end, this is dsxor-worker/4"),
        "{text}"
    );
}
