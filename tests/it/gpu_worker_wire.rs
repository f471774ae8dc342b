//! The worker protocol across real processes. Its version check: a parent
//! of `dsxor-worker/7` refuses a worker that speaks `dsxor-worker/3` (JSON
//! lines with base64 buffers), `dsxor-worker/4` (binary frames without
//! the traffic fields), `dsxor-worker/5` (no throughput launches) or
//! `dsxor-worker/6` (payloads only in the pipe) with a message naming both
//! versions, and the `dsxor worker` binary answers such a request the same
//! way, in its own version, instead of skipping it and waiting forever.
//! Its shared regions (policy `worker-shared-payload`): a case's buffers
//! and its observation cross in them, not in the pipes, and a worker told
//! of regions it was not given stops with an environment error.

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
const OLD_WORKERS: [(&str, &str); 4] = [
    ("3", "echo 'dsxor-worker/3 {\"ready\":{\"info\":{}}}'"),
    (
        "4",
        "printf 'dsxor-worker/4 21 0\\n{\"ready\":{\"info\":{}}}'",
    ),
    (
        "5",
        "printf 'dsxor-worker/5 21 0\\n{\"ready\":{\"info\":{}}}'",
    ),
    (
        "6",
        "printf 'dsxor-worker/6 21 0\\n{\"ready\":{\"info\":{}}}'",
    ),
];

#[test]
fn a_parent_refuses_a_worker_of_an_older_protocol() {
    for (version, answer) in OLD_WORKERS {
        let e = run_against_old_worker(answer);
        assert!(
            e.contains(&format!("dsxor-worker/{version} at the other end"))
                && e.contains("this is dsxor-worker/7"),
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
        ("6", &b"dsxor-worker/6 2 0\n{}"[..]),
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
                "worker protocol dsxor-worker/{version} at the other end, this is dsxor-worker/7"
            )),
            "{text}"
        );
    }
}

/// A wrapper the parent starts as its worker: it records what crosses the
/// two pipes (`tee`) and runs the real `dsxor worker`, which inherits the
/// regions' descriptors through the shell.
fn recording_worker(dir: &std::path::Path) -> std::path::PathBuf {
    let exe = dir.join("recording-dsxor");
    std::fs::write(
        &exe,
        format!(
            "#!/bin/sh\n\
             # the real worker's parent is this shell, not the test\n\
             unset DSXOR_WORKER_PARENT\n\
             export DSXOR_HIP_LIB='{lib}'\n\
             tee '{dir}/requests' | '{dsxor}' \"$@\" | tee '{dir}/answers'\n",
            lib = crate::common::hipsim_lib().display(),
            dir = dir.display(),
            dsxor = env!("CARGO_BIN_EXE_dsxor"),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    exe
}

#[test]
fn a_case_and_its_observation_cross_in_shared_memory_not_the_pipes() {
    use dsxor::backend::conformance::DeviceOutcome;
    let dir = tempfile::tempdir().unwrap();
    let mut device = WorkerDevice::new(WorkerPlan {
        exe: recording_worker(dir.path()),
        visible: "0".into(),
        info: info(),
        objects: dsxor::backend::conformance::embedded_objects("gfx1100"),
        timeout: Duration::from_secs(30),
        label: "HIP device 0".into(),
        batch: 1,
    });
    // 1,024 lanes on distinct qwords: 21 KiB of buffers out, 16 KiB of
    // returns and LDS back.
    let lanes = 1024u32;
    let case = crate::common::one_qword_each(lanes, true, 3);
    let outcome = device.run_case(&case).unwrap();
    drop(device); // the worker ends, the recordings are complete
    let DeviceOutcome::Completed { observation, .. } = outcome else {
        panic!("{outcome:?}");
    };
    // The ISA's `RETURN = MEM[addr]; MEM[addr] ^= DATA`, each lane alone
    // on its qword.
    let init = &case.lds_init[0];
    let want_ret: Vec<u64> = init.clone();
    let want_final: Vec<u64> = (0..lanes as usize)
        .map(|i| init[i] ^ case.lanes[i].data)
        .collect();
    assert_eq!(observation.ret, want_ret);
    assert_eq!(observation.lds_final, vec![want_final]);
    // What crossed the pipes: headers and JSON, none of those buffers.
    for (file, least) in [("requests", 21 * lanes), ("answers", 16 * lanes)] {
        let bytes = std::fs::read(dir.path().join(file)).unwrap();
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        assert!(head.starts_with(LINE_TAG), "{file}: {head}");
        assert!(
            bytes.len() < least as usize / 2,
            "{file}: {} bytes crossed the pipe for a case of {least} payload bytes",
            bytes.len()
        );
    }
}

#[test]
fn a_worker_told_of_regions_it_was_not_given_stops_with_an_environment_error() {
    for (value, why) in [
        ("3,4", "not open"),
        ("seven", "want `<requests fd>,<answers fd>`"),
        // stdin is open, but not a sealed memfd.
        ("0,1", "not a shared-memory region"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_dsxor"))
            .arg("worker")
            .env(dsxor::suite::worker::SHARED_FDS, value)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(i32::from(dsxor::exit::ENVIRONMENT)),
            "{value}: {err}"
        );
        assert!(err.contains(why), "{value}: {err}");
    }
}
