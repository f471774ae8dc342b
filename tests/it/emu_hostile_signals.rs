//! A stop signal during minimization: SIGTERM and SIGHUP (a Slurm or
//! Kubernetes stop, a closed terminal) write the aborted results and JUnit
//! within about a second whatever `--minimize-budget` is; the grace before
//! SIGKILL is typically 30 s. Through the binary, on the software device
//! with a fault that makes cases fail (and most minimization candidates
//! pass, so a minimization would run for minutes).

use crate::common;

use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::results_json;

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Start a failing run with a one-day minimization budget, wait until it is
/// minimizing, send `sig`; returns the seconds from the signal to exit.
fn stop_during_minimization(sig: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args([
            "run",
            "--backend",
            "emu",
            "--cases",
            "100000",
            "--seed",
            "5",
            "--fault",
            "lost-update:0.01",
            "--minimize-budget",
            "1day",
            "--jobs",
            "1",
            "--out",
        ])
        .arg(dir.path())
        .arg("--junit")
        .arg(&junit)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let stdout = child.stdout.take().unwrap();
    let reader = {
        let lines = Arc::clone(&lines);
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(stdout).lines() {
                lines.lock().unwrap().push(l.unwrap_or_default());
            }
        })
    };
    let start = Instant::now();
    // Minimizing: a `— minimizing` line not yet followed by its
    // `minimized to` line, still so half a second later.
    let minimizing = || {
        let l = lines.lock().unwrap();
        l.last().is_some_and(|x| x.ends_with("minimizing"))
    };
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no minimization started: {:?}",
            lines.lock().unwrap()
        );
        if minimizing() {
            std::thread::sleep(Duration::from_millis(500));
            if minimizing() {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Instant::now();
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig}");
    // Generous: the bound is the grace before SIGKILL, not a speed claim.
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("SIG{sig} during minimization: still running 30 s later");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed().as_secs_f64();
    reader.join().unwrap();
    eprintln!("SIG{sig} during minimization: exited {took:.3} s after the signal");
    assert!(took < 5.0, "SIG{sig}: exited {took:.1} s after the signal");
    // Failures were found: they decide the code.
    assert_eq!(status.code(), Some(1), "SIG{sig}: {status:?}");
    let results = results_json(dir.path());
    assert_eq!(results.len(), 1, "SIG{sig}: one results file");
    let r = json(&results[0]);
    assert_eq!(r["status"], "aborted");
    let reason = r["abort_reason"].as_str().unwrap();
    assert!(reason.contains(&format!("SIG{sig}")), "{reason}");
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(x.contains(&format!("SIG{sig}")), "{x}");
    took
}

#[test]
fn sigterm_during_minimization_writes_the_results_at_once() {
    stop_during_minimization("TERM");
}

#[test]
fn sighup_is_a_stop_like_sigterm() {
    stop_during_minimization("HUP");
}
