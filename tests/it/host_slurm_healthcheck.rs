//! examples/ci/slurm-healthcheck.sh's own rules, apart from Slurm (the
//! drain and resume through a real slurmd are in `gpu_slurm`): it keeps its
//! gate under slurmd's 60 s limit (slurm.conf(5), HealthCheckProgram: "This
//! program will be killed if it does not terminate normally within 60
//! seconds"), and runs one gate per node at a time (policy
//! `gate-one-at-a-time`, docs/src/guide/fleet.md). `dsxor` and `scontrol`
//! are stand-ins on PATH that log how they were called.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn recipe() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ci/slurm-healthcheck.sh")
}

/// A directory with logging stand-ins for `dsxor` (exits `gate_code`) and
/// `scontrol`.
fn stand_ins(dir: &Path, gate_code: i32) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("calls");
    for (name, body) in [
        (
            "dsxor",
            format!(
                "echo \"dsxor $*\" >>{log}\necho 'dsxor gate: stand-in' >&2\nexit {gate_code}\n",
                log = log.display()
            ),
        ),
        (
            "scontrol",
            format!("echo \"scontrol $*\" >>{log}\n", log = log.display()),
        ),
    ] {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/bash\n{body}")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

fn run_recipe(dir: &Path, bin: &Path, lock: &Path) -> (i32, String) {
    let path = format!("{}:/usr/sbin:/usr/bin:/sbin:/bin", bin.display());
    let o = Command::new("bash")
        .arg(recipe())
        .env_clear()
        .env("PATH", path)
        .env("SLURMD_NODENAME", "node0")
        .env("DSXOR_GATE_LOCK", lock)
        .output()
        .unwrap();
    let calls = std::fs::read_to_string(dir.join("calls")).unwrap_or_default();
    (o.status.code().unwrap_or(-1), calls)
}

#[test]
fn the_gate_budget_stays_under_slurmds_60_second_kill() {
    let dir = tempfile::tempdir().unwrap();
    let bin = stand_ins(dir.path(), 1);
    let (code, calls) = run_recipe(dir.path(), &bin, &dir.path().join("lock"));
    assert_eq!(code, 0, "{calls}");
    let budget = calls
        .lines()
        .find_map(|l| l.strip_prefix("dsxor gate --budget "))
        .unwrap_or_else(|| panic!("no gate run: {calls}"));
    let secs: u64 = budget
        .strip_suffix('s')
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("budget {budget:?} is not whole seconds"));
    assert!(secs < 60, "budget {secs}s: slurmd kills the script at 60 s");
    // A failing gate drains with its reason.
    assert!(
        calls.contains("scontrol update NodeName=node0 State=DRAIN Reason=dsxor gate: stand-in"),
        "{calls}"
    );
}

#[test]
fn a_gate_already_running_answers_for_a_second_one() {
    let dir = tempfile::tempdir().unwrap();
    let bin = stand_ins(dir.path(), 1);
    let lock = dir.path().join("lock");
    // Another gate holds the node's lock for as long as this test needs.
    // (-o: the lock is flock's own, not sleep's, so killing flock frees it.)
    let mut holder = Command::new("flock")
        .arg("-o")
        .arg(&lock)
        .args(["sleep", "30"])
        .spawn()
        .unwrap();
    let held = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        !Command::new("flock")
            .args(["-n"])
            .arg(&lock)
            .arg("true")
            .status()
            .unwrap()
            .success()
    });
    assert!(held, "the holder never took the lock");
    let (code, calls) = run_recipe(dir.path(), &bin, &lock);
    holder.kill().ok();
    holder.wait().ok();
    assert_eq!(code, 0);
    assert_eq!(calls, "", "a second gate ran beside the first");
    // Released, the next health check runs its gate.
    let (_, calls) = run_recipe(dir.path(), &bin, &lock);
    assert!(calls.starts_with("dsxor gate"), "{calls}");
}
