//! `dsxor fleet` and `dsxor gate` over a simulated fleet: four GPUs of the
//! software HIP runtime, one of them faulty (`DSXOR_HIPSIM_FAULT` with
//! `DSXOR_HIPSIM_FAULT_DEVICES`), each run in its own process on the device
//! `ROCR_VISIBLE_DEVICES` gives it, placed on a node by Slurm's variables.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

const DEVICES: &str = "gfx1100,gfx1100,gfx1100,gfx1100";

/// Run shard `k+1` of 4 on physical GPU `k`, as Slurm task `k` on `node`.
fn shard_on(dir: &Path, k: usize, node: &str, faulty: Option<usize>) -> PathBuf {
    let out = dir.join(format!("task{k}"));
    let visible = k.to_string();
    let task = k.to_string();
    let shard = format!("{}/4", k + 1);
    let fault_dev = faulty.map(|f| f.to_string()).unwrap_or_default();
    let mut env = vec![
        ("DSXOR_HIPSIM_DEVICES", DEVICES),
        ("ROCR_VISIBLE_DEVICES", visible.as_str()),
        ("SLURM_JOB_ID", "77"),
        ("SLURM_ARRAY_TASK_ID", task.as_str()),
        ("SLURMD_NODENAME", node),
    ];
    if faulty.is_some() {
        env.push(("DSXOR_HIPSIM_FAULT", "torn"));
        env.push(("DSXOR_HIPSIM_FAULT_DEVICES", fault_dev.as_str()));
    }
    let o = common::dsxor_hipsim(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "0",
            "--seed",
            "11",
            "--cases",
            "64",
            "--shard",
            &shard,
            "--minimize-budget",
            "0s",
            "--out",
            out.to_str().unwrap(),
        ],
        &env,
    );
    assert!(matches!(common::code(&o), 0 | 1), "{}", common::text(&o));
    common::results_json(&out).remove(0)
}

fn fleet(files: &[PathBuf], extra: &[&str]) -> std::process::Output {
    let mut args: Vec<String> = vec!["fleet".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(files.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::dsxor(&args)
}

#[test]
fn a_four_gpu_fleet_with_one_bad_gpu_names_it_and_its_node_and_exits_1_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    // GPU 2 (on node-b) is faulty; GPUs 0, 1 on node-a, 2, 3 on node-b.
    let files: Vec<PathBuf> = (0..4)
        .map(|k| {
            let node = if k < 2 { "node-a" } else { "node-b" };
            shard_on(dir.path(), k, node, Some(2).filter(|_| k == 2))
        })
        .collect();
    let uuid_of = |p: &PathBuf| {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        v["environment"]["device"]["uuid"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let bad = uuid_of(&files[2]);
    let uuids: std::collections::BTreeSet<String> = files.iter().map(uuid_of).collect();
    assert_eq!(uuids.len(), 4, "each GPU its own UUID: {uuids:?}");

    let json = dir.path().join("fleet.json");
    let md = dir.path().join("fleet.md");
    let svg = dir.path().join("fleet.svg");
    let junit = dir.path().join("fleet.xml");
    let o = fleet(
        &files,
        &[
            "--json",
            json.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!(common::code(&o), 1, "{}", common::text(&o));
    let f: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(f["verdict"], "failed");
    // Failing GPU first, with its node; its node's table first.
    assert_eq!(f["devices"][0]["key"], Value::from(bad.clone()));
    assert_eq!(f["devices"][0]["node"], "node-b");
    assert_eq!(f["devices"][0]["verdict"], "failed");
    assert!(f["devices"].as_array().unwrap()[1..4]
        .iter()
        .all(|d| d["verdict"] == "passed"));
    assert_eq!(f["nodes"][0]["node"], "node-b");
    assert_eq!(f["nodes"][0]["failed"], 1);
    assert_eq!(f["nodes"][1]["failed"], 0);
    let text = std::fs::read_to_string(&md).unwrap();
    let failing = text.split("## Node").next().unwrap();
    assert!(
        failing.contains(&format!("| node-b | {bad} | FAILED |")),
        "{text}"
    );
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testsuite ").count(), 4, "{xml}");
    if let Some(xmllint) = common::xmllint() {
        let xsd =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/junit_support/junit-10.xsd");
        let v = std::process::Command::new(xmllint)
            .args(["--noout", "--schema"])
            .arg(xsd)
            .arg(&junit)
            .output()
            .unwrap();
        assert!(v.status.success(), "{}", common::text(&v));
    }

    // Order-independent: reversed, the same verdict, exit and JSON.
    let mut rev = files.clone();
    rev.reverse();
    let json2 = dir.path().join("fleet2.json");
    let o = fleet(&rev, &["--json", json2.to_str().unwrap()]);
    assert_eq!(common::code(&o), 1);
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        std::fs::read_to_string(&json2).unwrap()
    );
    // A file given twice is one record.
    let mut twice = files.clone();
    twice.push(files[0].clone());
    assert_eq!(common::code(&fleet(&twice, &[])), 1);

    // The healthy three alone pass.
    let good: Vec<PathBuf> = [0, 1, 3].iter().map(|&k| files[k].clone()).collect();
    assert_eq!(common::code(&fleet(&good, &[])), 0);
}

#[test]
fn two_records_of_one_gpu_and_shard_that_disagree_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = shard_on(&dir.path().join("a"), 2, "n", None);
    let bad = shard_on(&dir.path().join("b"), 2, "n", Some(2));
    for order in [[&good, &bad], [&bad, &good]] {
        let files: Vec<PathBuf> = order.iter().map(|p| (*p).clone()).collect();
        let o = fleet(&files, &[]);
        assert_eq!(common::code(&o), 2, "{}", common::text(&o));
        assert!(
            common::text(&o).contains("disagree"),
            "{}",
            common::text(&o)
        );
    }
}

#[test]
fn the_gate_fails_the_node_with_the_faulty_gpu_named_and_passes_it_without() {
    let run = |env: &[(&str, &str)]| {
        let mut e = vec![("DSXOR_HIPSIM_DEVICES", DEVICES)];
        e.extend_from_slice(env);
        let o = common::dsxor_hipsim(&["gate", "--budget", "60s"], &e);
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", common::text(&o)));
        (common::code(&o), v, common::text(&o))
    };
    let (code, v, text) = run(&[
        ("DSXOR_HIPSIM_FAULT", "torn"),
        ("DSXOR_HIPSIM_FAULT_DEVICES", "1"),
    ]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(v["format"], "dsxor-gate/1");
    assert_eq!(v["verdict"], "unhealthy");
    let devs = v["devices"].as_array().unwrap();
    assert_eq!(devs.len(), 4);
    let verdicts: Vec<&str> = devs
        .iter()
        .map(|d| d["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["passed", "failed", "passed", "passed"]);
    let bad = devs[1]["uuid"].as_str().unwrap();
    assert!(v["reason"].as_str().unwrap().contains(bad), "{v}");
    assert!(
        text.contains(&format!(
            "dsxor gate: 1 of 4 GPUs failed: {bad} conformance-smoke"
        )),
        "{text}"
    );

    let (code, v, text) = run(&[]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(v["verdict"], "healthy");
    assert_eq!(
        v["checks"],
        serde_json::json!(["conformance-smoke", "leftover-lds"])
    );

    // A GPU that hands one kernel's LDS to the next fails the node too.
    let (code, v, text) = run(&[("DSXOR_HIPSIM_LDS", "leftover")]);
    assert_eq!(code, 1, "{text}");
    assert!(
        v["reason"].as_str().unwrap().contains("leftover-lds"),
        "{v}"
    );

    // No GPU: environment.
    let (code, v, _) = run(&[("ROCR_VISIBLE_DEVICES", "")]);
    assert_eq!((code, v["verdict"].as_str()), (3, Some("environment")));
}
