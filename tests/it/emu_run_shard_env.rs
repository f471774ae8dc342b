//! `dsxor run` takes its shard from SHARD_INDEX (0-based) / TOTAL_SHARDS,
//! the variables ROCm's CI (TheRock) sets, when `--shard` is not given.

use std::process::{Command, Output};

fn run(dir: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dsxor"));
    c.args([
        "run",
        "--backend",
        "emu",
        "--cases",
        "12",
        "--seed",
        "7",
        "--pattern",
        "uniform",
        "--wave",
        "32",
        "--jobs",
        "1",
        "--out",
    ])
    .arg(dir)
    .args(extra)
    .env_remove("SHARD_INDEX")
    .env_remove("TOTAL_SHARDS");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run dsxor")
}

fn shard_of_results(dir: &std::path::Path) -> (u64, u64, u64) {
    let path = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".json") && !s.contains(".repro-")
        })
        .expect("a results file");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    (
        v["spec"]["shard"]["index"].as_u64().unwrap(),
        v["spec"]["shard"]["count"].as_u64().unwrap(),
        v["total"].as_u64().unwrap(),
    )
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn shard_index_is_zero_based_and_flag_wins() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        dir.path(),
        &[],
        &[("SHARD_INDEX", "2"), ("TOTAL_SHARDS", "3")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("shard 3/3 from SHARD_INDEX=2"),
        "{}",
        show(&o)
    );
    // 12 cases, shard 3 of 3: indices 2, 5, 8, 11.
    assert_eq!(shard_of_results(dir.path()), (3, 3, 4));

    let dir = tempfile::tempdir().unwrap();
    let o = run(
        dir.path(),
        &["--shard", "1/2"],
        &[("SHARD_INDEX", "2"), ("TOTAL_SHARDS", "3")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(shard_of_results(dir.path()), (1, 2, 6));
}

#[test]
fn bad_or_lone_shard_variables_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    for env in [
        &[("SHARD_INDEX", "3"), ("TOTAL_SHARDS", "3")][..],
        &[("SHARD_INDEX", "x"), ("TOTAL_SHARDS", "3")][..],
        &[("SHARD_INDEX", "0")][..],
        &[("TOTAL_SHARDS", "2")][..],
    ] {
        let o = run(dir.path(), &[], env);
        assert_eq!(o.status.code(), Some(2), "{env:?}: {}", show(&o));
    }
}
