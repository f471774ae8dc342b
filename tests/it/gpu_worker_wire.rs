//! The worker protocol's version check across real processes: a parent of
//! `dsxor-worker/6` refuses a worker that speaks `dsxor-worker/3` (JSON
//! lines with base64 buffers), `dsxor-worker/4` (binary frames without
//! the traffic fields) or `dsxor-worker/5` (no throughput launches) with a
//! message naming both versions, and the
//! `dsxor worker` binary answers such a request the same way, in its own
//! version, instead of skipping it and waiting forever.

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

/// Old workers: each reads the setup and answers it as its version did.
const OLD_WORKERS: [(&str, &str); 3] = [
    ("3", "echo 'dsxor-worker/3 {\"ready\":{\"info\":{}}}'"),
    (
        "4",
        "printf 'dsxor-worker/4 21 0\\n{\"ready\":{\"info\":{}}}'",
    ),
    (
        "5",
        "printf 'dsxor-worker/5 21 0\\n{\"ready\":{\"info\":{}}}'",
    ),
];

#[test]
fn a_parent_refuses_a_worker_of_an_older_protocol() {
    for (version, answer) in OLD_WORKERS {
        let e = run_against_old_worker(answer);
        assert!(
            e.contains(&format!("dsxor-worker/{version} at the other end"))
                && e.contains("this is dsxor-worker/6"),
            "{e}"
        );
    }
}

/// The error of one case run against a worker that answers `answer`.
fn run_against_old_worker(answer: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("old-dsxor");
    std::fs::write(
        &exe,
        format!("#!/bin/sh\nhead -c 1 >/dev/null\n{answer}\nsleep 5\n"),
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
    device.run_case(&case).unwrap_err().to_string()
}

#[test]
fn the_worker_refuses_a_parent_of_an_older_protocol() {
    for (version, request) in [
        (
            "3",
            &b"dsxor-worker/3 {\"run\":{\"addr\":\"AAAAAA==\"}}\n"[..],
        ),
        ("4", &b"dsxor-worker/4 2 0\n{}"[..]),
        ("5", &b"dsxor-worker/5 2 0\n{}"[..]),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
            .arg("worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(request).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with(LINE_TAG), "{text}");
        assert!(
            text.contains(&format!(
                "worker protocol dsxor-worker/{version} at the other end, this is dsxor-worker/6"
            )),
            "{text}"
        );
    }
}
