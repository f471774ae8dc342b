//! Every fault the software device can inject must make the default suite
//! fail (exit 1) with a minimized repro that still fails when replayed with
//! the fault and passes without it. Prints, per fault, how many cases ran
//! before the first failure and how many failed.
//!
//! Each fault runs a tenth of the default suite (`dsxor run`, every pattern
//! and wave in the default mix) in release builds (CI's `cargo test
//! --release`) and a 1/50 slice in debug builds, and says so.

use crate::common;

use std::path::{Path, PathBuf};

use dsxor::emu::Fault;

/// Start `args` with its output captured.
fn run(args: common::EmuArgs) -> std::process::Child {
    args.command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the dsxor binary starts")
}

fn only_results(dir: &Path) -> PathBuf {
    let v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".json") && !s.contains(".repro-")
        })
        .collect();
    assert_eq!(v.len(), 1, "{v:?}");
    v[0].clone()
}

#[test]
fn every_injected_fault_fails_the_default_suite_with_a_minimized_repro() {
    // Ten fault classes, each a whole run: with 16-round cases the full
    // default suite per fault took CI past 15 minutes on 2 cores, so each
    // fault runs the default suite's first tenth in release builds (every
    // pattern and wave, in the default mix) and a 1/50 slice in debug builds.
    let divisor = if cfg!(debug_assertions) { 50 } else { 10 };
    eprintln!(
        "NOTE: each fault runs {} of the default {} cases (1/{divisor})",
        dsxor::gen::suite::DEFAULT_CASES / divisor,
        dsxor::gen::suite::DEFAULT_CASES
    );
    let cases = (dsxor::gen::suite::DEFAULT_CASES / divisor).to_string();
    let dirs: Vec<tempfile::TempDir> = Fault::ALL
        .iter()
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    // All faults at once: the runs are independent, the machine has cores.
    let children: Vec<_> = Fault::ALL
        .iter()
        .zip(&dirs)
        .map(|(f, d)| {
            run(common::emu("run")
                .fault(f.name())
                .seed(1)
                .cases(&cases)
                .out(d.path()))
        })
        .collect();
    let mut table = Vec::new();
    for ((fault, dir), child) in Fault::ALL.iter().zip(&dirs).zip(children) {
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "fault {fault}: {}",
            common::text_tail(&o, 30)
        );
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(only_results(dir.path())).unwrap())
                .unwrap();
        assert_eq!(r["status"], "failed", "fault {fault}");
        assert_eq!(r["parameters"]["fault"], fault.name());
        let failures = r["failures"].as_array().unwrap();
        let first = failures
            .iter()
            .map(|f| f["index"].as_u64().unwrap())
            .min()
            .unwrap();
        let repros: Vec<&serde_json::Value> =
            failures.iter().filter(|f| f["repro"].is_string()).collect();
        assert!(!repros.is_empty(), "fault {fault}: no repro");
        for f in &repros {
            let path = f["repro"].as_str().unwrap();
            let before = f["active_lanes_before"].as_u64().unwrap();
            let after = f["active_lanes_after"].as_u64().unwrap();
            assert!(after <= before, "fault {fault}: {path}");
            assert_eq!(
                f["minimize"]["budget_exhausted"], false,
                "fault {fault}: {path}"
            );
            // Each repro still fails with the fault and passes without it.
            let again = run(common::emu("repro").arg(path).fault(fault.name()))
                .wait_with_output()
                .unwrap();
            assert_eq!(
                again.status.code(),
                Some(1),
                "fault {fault}: {path}: {}",
                common::text_tail(&again, 30)
            );
            let clean = run(common::emu("repro").arg(path))
                .wait_with_output()
                .unwrap();
            assert_eq!(
                clean.status.code(),
                Some(0),
                "fault {fault}: {path}: {}",
                common::text_tail(&clean, 30)
            );
        }
        let smallest = repros
            .iter()
            .map(|f| f["active_lanes_after"].as_u64().unwrap())
            .min()
            .unwrap();
        table.push(format!(
            "{:<15} first failing case #{:<6} {:>6} of {} cases failed, {} repro(s), smallest {} active lane(s), kinds: {}",
            fault.name(),
            first,
            r["failed"],
            r["total"],
            repros.len(),
            smallest,
            {
                let mut k: Vec<&str> = failures.iter().map(|f| f["kind"].as_str().unwrap()).collect();
                k.sort_unstable();
                k.dedup();
                k.join(",")
            }
        ));
    }
    println!(
        "faults on the default suite (seed 1, {cases} cases):\n{}",
        table.join("\n")
    );
}
