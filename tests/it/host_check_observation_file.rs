//! `dsxor-observation/1` files and `dsxor check FILE`: exit 0 consistent,
//! 1 inconsistent (one paragraph: address, lanes, why), 2 malformed.

use crate::common;

use std::path::PathBuf;

use dsxor::case::{Case, Geometry, LaneInput, Observation, WaveSize};
use dsxor::check::file::ObservationFile;
use dsxor::check::{judge, DeviceOutcome};
use dsxor::model::{expect, Expected, Order, Policy};
use serde_json::{json, Value};

fn write(dir: &tempfile::TempDir, name: &str, v: &Value) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

fn check(path: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["check", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = common::dsxor(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn design_example() -> Value {
    json!({
      "format": "dsxor-observation/1",
      "instruction": "ds_xor_rtn_b64",
      "lds_bytes": 65536,
      "offset": 0,
      "init":  { "0x10": "0x0123456789abcdef" },
      "lanes": [ { "wave": 0, "lane": 3, "addr": "0x10", "data": "0xff", "ret": "0x0123456789abcdef" } ],
      "final": { "0x10": "0x0123456789abcd10" }
    })
}

/// hip-tests style: sort the returned values and compare them with the
/// sorted returns of one reference order; check the final value.
fn sorted_multiset_check(init: u64, lanes: &[(u64, u64)], fin: u64) -> bool {
    let mut expected = Vec::new();
    let mut v = init;
    for &(_, d) in lanes {
        expected.push(v);
        v ^= d;
    }
    let mut got: Vec<u64> = lanes.iter().map(|&(r, _)| r).collect();
    got.sort_unstable();
    expected.sort_unstable();
    got == expected && v == fin
}

#[test]
fn the_design_example_is_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "ok.json", &design_example());
    let (code, out, err) = check(&p, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("consistent"), "{out}");
}

#[test]
fn a_multiset_check_passes_what_no_serialization_produces() {
    // Three lanes on 0x8, data 1, 2, 4, init 0. Lane-ascending would return
    // 0, 1, 3; here lanes 0 and 1 swapped their returns. Same sorted multiset,
    // right final value, but lane 1 claims to have read 0 and left 2, and no
    // lane read 2: no order produces it.
    let lanes = [(1u64, 1u64), (0, 2), (3, 4)];
    assert!(sorted_multiset_check(0, &lanes, 7));
    let v = json!({
        "format": "dsxor-observation/1",
        "instruction": "ds_xor_rtn_b64",
        "lds_bytes": 64,
        "lanes": [
            { "wave": 0, "lane": 0, "addr": "0x8", "data": "0x1", "ret": "0x1" },
            { "wave": 0, "lane": 1, "addr": "0x8", "data": "0x2", "ret": "0x0" },
            { "wave": 0, "lane": 2, "addr": "0x8", "data": "0x4", "ret": "0x3" }
        ],
        "final": { "0x8": "0x7" }
    });
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "permuted.json", &v);
    let (code, out, err) = check(&p, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("inconsistent"), "{out}");
    assert!(out.contains("address 0x8"), "{out}");
    assert!(out.contains("0:0"), "{out}");
    assert!(out.contains("broken-chain"), "{out}");
    assert_eq!(out.trim().lines().count(), 1, "one paragraph: {out}");

    // With the constant mask hip-tests uses, every multiset-valid result is
    // also serializable: our check must accept it too.
    let v = json!({
        "format": "dsxor-observation/1",
        "instruction": "ds_xor_rtn_b64",
        "lds_bytes": 64,
        "lanes": [
            { "wave": 0, "lane": 0, "addr": "0x8", "data": "0xf0", "ret": "0xf0" },
            { "wave": 0, "lane": 1, "addr": "0x8", "data": "0xf0", "ret": "0x0" },
            { "wave": 0, "lane": 2, "addr": "0x8", "data": "0xf0", "ret": "0x0" }
        ],
        "final": { "0x8": "0xf0" }
    });
    let p = write(&dir, "mask.json", &v);
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("other") || out.contains("ascending") || out.contains("descending"),
        "{out}"
    );
}

#[test]
fn lost_update_file_is_inconsistent() {
    let mut v = design_example();
    v["lanes"] = json!([
        { "wave": 0, "lane": 0, "addr": "0x10", "data": "0x1", "ret": "0x0123456789abcdef" },
        { "wave": 1, "lane": 0, "addr": "0x10", "data": "0x2", "ret": "0x0123456789abcdee" }
    ]);
    v["final"] = json!({ "0x10": "0x0123456789abcdee" }); // lane 1:0's update lost
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "lost.json", &v);
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("lost-update") && out.contains("1:0"), "{out}");
}

#[test]
fn misaligned_lanes_need_a_fault() {
    let mut v = design_example();
    v["lanes"][0]["addr"] = json!("0x14");
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "mis.json", &v);
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("misaligned-no-fault") && out.contains("0x14"),
        "{out}"
    );
    v["fault"] = json!("MEMVIOL in wave 0");
    v["lanes"][0].as_object_mut().unwrap().remove("ret");
    let p = write(&dir, "mis-fault.json", &v);
    let (code, out, err) = check(&p, &[]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn out_of_range_policy_is_selectable() {
    let mut v = design_example();
    v["lds_bytes"] = json!(64);
    v["init"] = json!({});
    v["final"] = json!({});
    v["lanes"] = json!([{ "wave": 0, "lane": 0, "addr": "0x1000", "data": "0x1", "ret": "0x55", "vdst_init": "0x55" }]);
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "oor.json", &v);
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("out-of-range-return") && out.contains("ASSUMPTION"),
        "{out}"
    );
    let (code, out, _) = check(&p, &["--out-of-range-return", "vdst-unchanged"]);
    assert_eq!(code, 0, "{out}");
    let (code, _, err) = check(&p, &["--out-of-range-return", "maybe"]);
    assert_eq!(code, 2, "{err}");

    // 0x200 is past LLVM's 512-byte block but inside Mesa's 1024-byte one,
    // where the slack is in range (and its initial value unknown).
    v["lanes"][0]["addr"] = json!("0x200");
    let p = write(&dir, "slack.json", &v);
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, 1, "{out}");
    let (code, out, _) = check(&p, &["--lds-granule", "1024"]);
    assert_eq!(code, 0, "{out}");
    for bad in ["3", "131072"] {
        let (code, _, err) = check(&p, &["--lds-granule", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("granule"), "{err}");
    }
}

#[test]
fn malformed_files_exit_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(Value, &str)> = vec![
        (
            {
                let mut v = design_example();
                v["lanes"][0]["data"] = json!(255);
                v
            },
            "lanes[0].data",
        ),
        (
            {
                let mut v = design_example();
                v["lanes"][0].as_object_mut().unwrap().remove("ret");
                v
            },
            "lanes[0].ret",
        ),
        (
            {
                let mut v = design_example();
                v["format"] = json!("dsxor-observation/2");
                v
            },
            "format",
        ),
        (
            {
                let mut v = design_example();
                v["init"] = json!({ "0x11": "0x1" });
                v
            },
            "init.0x11",
        ),
        (
            {
                let mut v = design_example();
                v["final"] = json!({ "0x20000": "0x1" });
                v
            },
            "final.0x20000",
        ),
        (
            {
                let mut v = design_example();
                v["lanes"][0]["ret"] = json!("0x1g");
                v
            },
            "lanes[0].ret",
        ),
        (
            {
                let mut v = design_example();
                let l = v["lanes"][0].clone();
                v["lanes"].as_array_mut().unwrap().push(l);
                v
            },
            "lanes[1]",
        ),
        (
            {
                let mut v = design_example();
                v["lds_bytes"] = json!(65544);
                v
            },
            "lds_bytes",
        ),
    ];
    for (i, (v, field)) in cases.iter().enumerate() {
        let p = write(&dir, &format!("bad{i}.json"), v);
        let (code, out, err) = check(&p, &[]);
        assert_eq!(code, 2, "case {i}: {out}{err}");
        assert!(err.contains(&format!("`{field}`")), "case {i}: {err}");
        assert!(err.contains(p.to_str().unwrap()), "case {i}: {err}");
    }
    let p = dir.path().join("truncated.json");
    std::fs::write(&p, "{\"format\": ").unwrap();
    let (code, _, err) = check(&p, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("not valid JSON"), "{err}");
    let (code, _, err) = check(&dir.path().join("absent.json"), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn unknown_fields_survive_a_round_trip() {
    let mut v = design_example();
    v["comment"] = json!({"from": "a bug report", "n": [1, 2]});
    v["lanes"][0]["note"] = json!("lane three");
    let f = ObservationFile::parse(&v.to_string(), "mem").unwrap();
    assert_eq!(f.extra["comment"]["from"], "a bug report");
    let text = f.to_json();
    let back = ObservationFile::parse(&text, "mem").unwrap();
    assert_eq!(back, f);
    let raw: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(raw["lanes"][0]["note"], "lane three");
    assert_eq!(raw["init"]["0x10"], "0x123456789abcdef");
}

fn sample_case() -> Case {
    let lanes: Vec<LaneInput> = (0..64)
        .map(|i| LaneInput {
            addr: [0u32, 8, 8, 24][i % 4],
            data: (i as u64 + 1) * 0x0101_0101,
            active: i % 5 != 0,
            vdst_init: 0xfeed_0000 + i as u64,
        })
        .collect();
    Case {
        pattern: "k-per-address".into(),
        index: 3,
        geometry: Geometry {
            wave_size: WaveSize::Wave32,
            waves_per_group: 1,
            groups: 2,
            mode: dsxor::case::Mode::Wgp,
        },
        lds_bytes: 64,
        offset: 8,
        lds_init: vec![vec![1, 2, 3, 4, 5, 6, 7, 8], vec![0; 8]],
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}

#[test]
fn exported_groups_judge_like_the_case() {
    let case = sample_case();
    let Expected::Completed(x) = expect(&case, &Order::LaneDescending, &Policy::GFX11).unwrap()
    else {
        panic!("fault")
    };
    let good = Observation {
        ret: x.ret,
        lds_final: x.lds_final,
        traffic_verdicts: Vec::new(),
    };
    let mut bad = good.clone();
    bad.ret.swap(33, 37); // group 1, lanes on the same address
    for (obs, pass) in [(&good, true), (&bad, false)] {
        let whole = judge(&case, DeviceOutcome::Completed(obs), &Policy::GFX11).unwrap();
        assert_eq!(whole.passed(), pass, "{}", whole.explain());
        let g1 = ObservationFile::from_case_group(&case, Some(obs), None, 1).unwrap();
        let back = ObservationFile::parse(&g1.to_json(), "export").unwrap();
        assert_eq!(back, g1);
        let v = back.judge(&Policy::GFX11).unwrap();
        assert_eq!(v.passed(), pass, "{}", v.explain());
        if pass {
            assert_eq!(v.order.observed().name(), "lane-descending");
        }
        let g0 = ObservationFile::from_case_group(&case, Some(obs), None, 0).unwrap();
        assert!(g0.judge(&Policy::GFX11).unwrap().passed());
    }
}

#[test]
fn json_verdicts_carry_kind_group_address_lanes() {
    let mut v = design_example();
    v["final"] = json!({ "0x10": "0x0" });
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "wrong-final.json", &v);
    let (code, out, err) = check(&p, &["--json"]);
    assert_eq!(code, 1, "{err}");
    let verdict: Value = serde_json::from_str(&out).expect("--json prints JSON");
    assert_eq!(verdict["format"], "dsxor-verdict/1");
    assert_eq!(verdict["verdict"], "inconsistent");
    let f = &verdict["findings"][0];
    assert_eq!(f["kind"], "wrong-final");
    assert_eq!(f["group"], 0);
    // Hex, as the observation file writes addresses.
    assert_eq!(f["address"], "0x10");
    assert_eq!(f["lanes"][0]["lane"], 3);
    assert!(f["why"].as_str().unwrap().contains("0x123456789abcd10"));
}

/// A lost update that leaves 0 where 0 was: one active lane XORs a nonzero
/// value into a zero qword, the device returns the right 0 but the qword is
/// still 0 afterwards. The exported file must claim that qword, so the
/// checker (and `dsxor check`) fails it.
#[test]
fn an_exported_lost_update_from_zero_to_zero_is_claimed_and_fails() {
    let lanes: Vec<LaneInput> = (0..32)
        .map(|i| LaneInput {
            addr: 16,
            data: 0xabcd_0000_0000_1234,
            active: i == 3,
            vdst_init: 0x5555,
        })
        .collect();
    let case = Case {
        pattern: "one-address".into(),
        index: 0,
        geometry: Geometry {
            wave_size: WaveSize::Wave32,
            waves_per_group: 1,
            groups: 1,
            mode: dsxor::case::Mode::Wgp,
        },
        lds_bytes: 64,
        offset: 8,
        lds_init: vec![vec![0; 8]],
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    };
    let mut ret: Vec<u64> = (0..32).map(|_| 0x5555).collect();
    ret[3] = 0;
    let lost = Observation {
        ret,
        lds_final: vec![vec![0; 8]],
        traffic_verdicts: Vec::new(),
    };
    assert!(
        !judge(&case, DeviceOutcome::Completed(&lost), &Policy::GFX11)
            .unwrap()
            .passed()
    );
    let file = ObservationFile::from_case_group(&case, Some(&lost), None, 0).unwrap();
    // ADDR 16 + offset 8: qword 0x18 is claimed (as 0); untouched zero
    // qwords are not.
    assert_eq!(file.final_.get(&0x18), Some(&0));
    assert_eq!(file.final_.len(), 1, "{}", file.to_json());
    let v = file.judge(&Policy::GFX11).unwrap();
    assert!(!v.passed(), "{}", file.to_json());
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "lost.json", &file.to_value());
    let (code, out, err) = check(&p, &[]);
    assert_eq!(code, 1, "{out}{err}");
}

/// A repeated key is refused (exit 2), not silently resolved to its last
/// value: here a wrong `final` map hides behind the right one.
#[test]
fn duplicate_keys_are_refused() {
    let v = design_example();
    let dir = tempfile::tempdir().unwrap();
    let good = write(&dir, "good.json", &v);
    assert_eq!(check(&good, &[]).0, 0);
    let text = serde_json::to_string(&v).unwrap();
    let dup = text.replacen('{', r#"{"final":{"0x10":"0x0"},"#, 1);
    let p = dir.path().join("dup.json");
    std::fs::write(&p, dup).unwrap();
    let (code, _, err) = check(&p, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("duplicate key `final`"), "{err}");
}
