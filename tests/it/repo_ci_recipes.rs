//! examples/ci/ stays usable: the workflow and job files parse as YAML and
//! have the shape their page promises, and every dsxor command and flag the
//! recipes use exists (asked of the binary's own `--help`).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use yaml_rust2::{Yaml, YamlLoader};

fn recipe(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ci")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn yaml(name: &str) -> Yaml {
    let docs = YamlLoader::load_from_str(&recipe(name))
        .unwrap_or_else(|e| panic!("examples/ci/{name} is not valid YAML: {e}"));
    assert_eq!(docs.len(), 1, "{name}: one YAML document expected");
    docs.into_iter().next().expect("one document")
}

/// Every string scalar of a YAML tree (keys included).
fn strings(y: &Yaml, out: &mut Vec<String>) {
    match y {
        Yaml::String(s) => out.push(s.clone()),
        Yaml::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Yaml::Hash(h) => h.iter().for_each(|(k, v)| {
            strings(k, out);
            strings(v, out);
        }),
        _ => {}
    }
}

fn subcommands() -> BTreeSet<String> {
    let o = common::dsxor(&["--help"]);
    let help = String::from_utf8_lossy(&o.stdout).to_string();
    help.split("Commands:")
        .nth(1)
        .and_then(|s| s.split("Options:").next())
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Where the command starting `text` ends: at `;`, `|`, `&`, a single
/// quote or a backtick outside `$( … )`, at the `)` closing a substitution
/// it sits in, or at the line's end. `"` and `$((…))` inside arguments do
/// not end it.
fn command_end(text: &str) -> usize {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'$' if b.get(i + 1) == Some(&b'(') => {
                depth += 1;
                i += 1;
            }
            b'(' if depth > 0 => depth += 1,
            b')' if depth > 0 => depth -= 1,
            b')' => return i,
            b';' | b'|' | b'&' | b'\'' | b'`' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// `dsxor SUB --flag …` invocations in shell text: SUB and the flags up to
/// the end of the command (backslash continuations joined first).
fn invocations(text: &str, subs: &BTreeSet<String>) -> Vec<(String, Vec<String>)> {
    let joined = text.replace("\\\n", " ");
    let mut found = Vec::new();
    for line in joined.lines() {
        let mut rest = line;
        while let Some(i) = rest.find("dsxor ") {
            let after = &rest[i + "dsxor ".len()..];
            rest = after;
            let end = command_end(after);
            let mut words = after[..end].split_whitespace();
            let Some(sub) = words.next() else { continue };
            if !subs.contains(sub) {
                continue; // prose: "dsxor on a ROCm base image"
            }
            let flags = words
                .filter(|w| w.starts_with("--"))
                .map(|w| {
                    let w = w.trim_end_matches('"');
                    w.split('=').next().unwrap_or(w).to_string()
                })
                .collect();
            found.push((sub.to_string(), flags));
        }
    }
    found
}

#[test]
fn github_actions_workflow_has_its_promised_shape() {
    let w = yaml("github-actions.yml");
    let jobs = &w["jobs"];
    let conf = &jobs["conformance"];
    let options = conf["container"]["options"]
        .as_str()
        .expect("container options");
    for dev in [
        "--device /dev/kfd",
        "--device /dev/dri",
        "--group-add video",
    ] {
        assert!(
            options.contains(dev),
            "container options lack {dev}: {options}"
        );
    }
    let shards = conf["strategy"]["matrix"]["shard"]
        .as_vec()
        .expect("a shard matrix");
    assert!(shards.len() >= 2, "a matrix of one shard is not sharding");
    let n: usize = w["env"]["SHARDS"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("env.SHARDS");
    assert_eq!(shards.len(), n, "the matrix and SHARDS disagree");
    assert_eq!(jobs["merge"]["needs"].as_str(), Some("conformance"));
    let mut all = Vec::new();
    strings(&w, &mut all);
    let text = all.join("\n");
    assert!(
        text.contains("--seed ${{ needs.seed.outputs.seed }}"),
        "shards must share the seed job's seed"
    );
    assert!(text.contains("--junit"), "no JUnit written");
    assert!(text.contains("actions/upload-artifact"), "nothing uploaded");
}

#[test]
fn gitlab_job_has_its_promised_shape() {
    let g = yaml("gitlab-ci.yml");
    assert!(g["conformance"]["parallel"].as_i64().unwrap_or(0) >= 2);
    assert!(!g["conformance"]["artifacts"]["reports"]["junit"].is_badvalue());
    let needs = g["merge"]["needs"].as_vec().expect("merge needs");
    assert_eq!(needs[0].as_str(), Some("conformance"));
}

#[test]
fn every_dsxor_flag_the_recipes_use_exists() {
    let subs = subcommands();
    assert!(subs.contains("run") && subs.contains("merge"), "{subs:?}");
    let mut used: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut per_file = Vec::new();
    for name in ["github-actions.yml", "gitlab-ci.yml"] {
        let mut all = Vec::new();
        strings(&yaml(name), &mut all);
        per_file.push((name, invocations(&all.join("\n"), &subs)));
    }
    for name in ["slurm-array.sh", "Containerfile"] {
        per_file.push((name, invocations(&recipe(name), &subs)));
    }
    for (name, inv) in &per_file {
        assert!(
            inv.iter()
                .any(|(s, f)| s == "run" && f.iter().any(|f| f == "--backend")),
            "{name}: no `dsxor run --backend …` found"
        );
        for (sub, flags) in inv {
            used.entry(sub.clone())
                .or_default()
                .extend(flags.iter().cloned());
        }
    }
    let mut missing = Vec::new();
    for (sub, flags) in &used {
        let o = common::dsxor(&[sub.as_str(), "--help"]);
        assert_eq!(o.status.code(), Some(0), "dsxor {sub} --help");
        let help = String::from_utf8_lossy(&o.stdout);
        for f in flags {
            let known = help
                .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
                .any(|w| w == f.as_str());
            if !known {
                missing.push(format!("dsxor {sub} {f}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags the recipes use but dsxor lacks: {missing:?}"
    );
    assert!(
        used.values().map(BTreeSet::len).sum::<usize>() >= 10,
        "{used:?}"
    );
}

#[test]
fn the_scanner_reads_past_substitutions_and_quotes() {
    let subs: BTreeSet<String> = ["run", "merge"].iter().map(|s| s.to_string()).collect();
    let inv = invocations(
        "dsxor run --seed \"$S\" \\\n  --shard \"$((I + 1))/$N\" \\\n  --out r --junit j.xml\n\
         x $(dsxor merge $(ls a | grep -v '.r') --out m.json) && dsxor run --wave 32; echo --no",
        &subs,
    );
    let flags = |k: usize| inv[k].1.join(" ");
    assert_eq!(inv.len(), 3, "{inv:?}");
    assert_eq!(flags(0), "--seed --shard --out --junit");
    assert_eq!(flags(1), "--out");
    assert_eq!(flags(2), "--wave");
}

#[test]
fn the_slurm_script_maps_the_array_index_to_a_one_based_shard() {
    let s = recipe("slurm-array.sh");
    assert!(
        s.contains("--shard \"$((SLURM_ARRAY_TASK_ID + 1))/$N\""),
        "{s}"
    );
    let o = std::process::Command::new("bash")
        .args(["-n"])
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/ci/slurm-array.sh"))
        .output()
        .expect("bash runs");
    assert!(
        o.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}
