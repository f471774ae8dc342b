//! `dsxor qualify` without a GPU: both sides the software device (the
//! plumbing, and the software device against the pseudocode, which
//! `qualify::pseudocode` writes from the RDNA3 ISA guide, not from `emu`),
//! and a misbehaving "device" whose every wrong answer must be reported
//! with the program and the three outputs. On the real HIP runtime, see
//! tests/rocjitsu.rs.

mod common;

use std::time::Duration;

use dsxor::backend::emu::EmuBackend;
use dsxor::case::WaveSize;
use dsxor::codeobj::find_embedded;
use dsxor::emu::{EmuConfig, Fault};
use dsxor::qualify::{qualify, DS_ATOMICS};

fn objects() -> Vec<(WaveSize, &'static [u8])> {
    [WaveSize::Wave32, WaveSize::Wave64]
        .into_iter()
        .map(|w| {
            (
                w,
                find_embedded("gfx1100", w).expect("gfx1100 kernels").bytes,
            )
        })
        .collect()
}

fn emu(fault: Option<Fault>) -> EmuBackend {
    EmuBackend::new(EmuConfig {
        fault: fault.map(Into::into),
        threads: Some(1),
        ..Default::default()
    })
    .expect("software device")
}

/// The summary line of a run where every program agrees: every DS
/// instruction and the whole ALU corpus (counted from the corpus, so adding
/// an instruction does not edit this test).
fn alu_summary() -> String {
    let d = DS_ATOMICS.len();
    let n = dsxor::qualify::alu::corpus_names().len();
    format!("{d} of {d} instructions qualified, 0 disagreements; ALU: {n} of {n} qualified, 0 disagreements")
}

/// The software device agrees with the pseudocode on every program of the
/// corpus (every atomic x 2 wave sizes x 6 programs: every EXEC shape and
/// contention level).
#[test]
fn the_software_device_agrees_with_the_pseudocode_on_every_ds_atomic() {
    let mut noted = Vec::new();
    let rec = qualify(
        &mut emu(None),
        &mut emu(None),
        &objects(),
        DS_ATOMICS,
        5,
        6,
        Duration::from_secs(10),
        &mut |r| noted.push(r.instruction.clone()),
    )
    .expect("runs");
    assert!(rec.plumbing_only);
    assert_eq!(noted, DS_ATOMICS);
    for d in &rec.disagreements {
        eprintln!("{}: {} ({:?})", d.instruction, d.summary, d.exec);
    }
    assert!(
        rec.all_agreed(),
        "{} disagreements",
        rec.disagreements.len()
    );
    assert!(rec
        .instructions
        .iter()
        .all(|i| i.qualified && i.programs == 12));
}

/// The atomics beyond the integer ones (wrap, condxchg32, the two-address
/// exchanges, the float atomics) over 18 programs per wave size: every EXEC
/// shape with each contention level, and each exchange with each of its
/// three offset pairs (`qualify::program_offset`).
#[test]
fn the_software_device_agrees_with_the_pseudocode_on_the_newer_atomics() {
    let newer: Vec<&str> = DS_ATOMICS
        .iter()
        .copied()
        .filter(|n| {
            let s = dsxor::qualify::shape(n).expect("corpus shape");
            s.float || s.xchg2 || n.starts_with("ds_wrap") || n.starts_with("ds_condxchg")
        })
        .collect();
    assert_eq!(newer.len(), 18);
    let rec = qualify(
        &mut emu(None),
        &mut emu(None),
        &objects(),
        &newer,
        11,
        18,
        Duration::from_secs(10),
        &mut |_| {},
    )
    .expect("runs");
    for d in &rec.disagreements {
        eprintln!("{}: {} ({:?})", d.instruction, d.summary, d.exec);
    }
    assert!(
        rec.all_agreed(),
        "{} disagreements",
        rec.disagreements.len()
    );
    assert!(rec
        .instructions
        .iter()
        .all(|i| i.qualified && i.programs == 36));
}

/// A device that loses updates (the software device's `lost-update` fault)
/// is caught: disagreements name the device as the side that differs from
/// the pseudocode, and carry the program and all three outputs.
#[test]
fn a_wrong_device_is_reported_with_the_program_and_three_answers() {
    // One atomic of each shape is enough to show the teeth.
    let some = [
        "ds_add_rtn_u64",
        "ds_cmpstore_rtn_b32",
        "ds_mskor_b64",
        "ds_max_i32",
    ];
    let rec = qualify(
        &mut emu(Some(Fault::LostUpdate)),
        &mut emu(None),
        &objects(),
        &some,
        5,
        6,
        Duration::from_secs(10),
        &mut |_| {},
    )
    .expect("runs");
    assert!(!rec.all_agreed());
    assert!(rec.instructions.iter().any(|i| !i.qualified));
    for d in &rec.disagreements {
        assert!(
            d.summary
                .starts_with("device differs with the pseudocode, emu agrees"),
            "{}",
            d.summary
        );
        assert_ne!(d.device, d.pseudocode);
        assert_eq!(d.emu, d.pseudocode);
        assert_eq!(d.case.lanes.len(), d.wave.lanes() as usize);
    }
}

/// The command: exit 0, a record naming both devices, every instruction
/// qualified (plumbing only: both sides are the software device).
#[test]
fn the_command_on_the_software_device_writes_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::dsxor(&[
        "qualify",
        "--backend",
        "emu",
        "--cases",
        "3",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("plumbing only"), "{text}");
    assert!(text.contains(&alu_summary()), "{text}");
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1);
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap())
            .unwrap();
    assert_eq!(rec["format"], "dsxor-qualify/1");
    assert_eq!(rec["plumbing_only"], true);
    assert_eq!(
        rec["instructions"].as_array().unwrap().len(),
        DS_ATOMICS.len()
    );
    let o = common::dsxor(&["qualify", "--backend", "cuda"]);
    assert_eq!(o.status.code(), Some(2));
    // --instruction picks from the corpus; a name outside it is bad input.
    let o = common::dsxor(&[
        "qualify",
        "--backend",
        "emu",
        "--cases",
        "1",
        "--instruction",
        "ds_cmpstore_rtn_b32,ds_min_i64,v_bfe_i32",
        "--instruction",
        "ds_cmpstore_rtn_b32",
        "--out",
        dir.path().join("some").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("2 of 2 instructions qualified, 0 disagreements; ALU: 1 of 1 qualified, 0 disagreements"),
        "{text}"
    );
    // ds_add_f64 is not a gfx11 instruction (llvm-mc-22 refuses it for gfx1100).
    let o = common::dsxor(&["qualify", "--backend", "emu", "--instruction", "ds_add_f64"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not in the corpus"));
    let o = common::dsxor(&["qualify", "--backend", "emu", "--cases", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Run `dsxor qualify --backend hip` on the software HIP runtime (hipsim)
/// with `env`; its exit code, its output and its record.
fn qualify_on_hipsim(
    env: &[(&str, &str)],
    instructions: Option<&str>,
) -> (Option<i32>, String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "qualify",
        "--backend",
        "hip",
        "--cases",
        "6",
        "--out",
        dir.path().to_str().unwrap(),
    ];
    if let Some(i) = instructions {
        args.extend(["--instruction", i]);
    }
    let o = common::dsxor_hipsim(&args, env);
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "one record: {text}");
    let path = files[0].as_ref().unwrap().path();
    assert!(
        path.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .ends_with("-hip-gfx1100.json"),
        "{}",
        path.display()
    );
    let rec = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (o.status.code(), text, rec)
}

/// The record's HIP device is the simulator's, by name, and both sides are
/// the software device: plumbing only, never a qualification.
fn assert_simulated_device(rec: &serde_json::Value, text: &str) {
    assert_eq!(rec["format"], "dsxor-qualify/1");
    assert_eq!(rec["device"]["backend"], "hip");
    assert_eq!(
        rec["device"]["name"], "AMD Radeon RX 7900 XTX (simulated by dsxor-hipsim)",
        "{text}"
    );
    assert_eq!(rec["device"]["target_id"], "gfx1100");
    assert_eq!(rec["emu"]["backend"], "emu");
    assert_eq!(rec["plumbing_only"], true, "{text}");
    assert!(text.contains("plumbing only"), "{text}");
}

/// Issue 16: in CI `dsxor qualify --backend hip` runs through the software
/// HIP runtime: every program through the unchanged HIP backend (module
/// load, kernarg, buffers, launch, read-back) agrees with the software
/// device and the pseudocode.
#[test]
fn qualify_through_the_software_hip_runtime_agrees_everywhere() {
    let (code, text, rec) = qualify_on_hipsim(&[], None);
    assert_eq!(code, Some(0), "{text}");
    assert_simulated_device(&rec, &text);
    assert_eq!(
        rec["instructions"].as_array().unwrap().len(),
        DS_ATOMICS.len()
    );
    assert_eq!(rec["disagreements"].as_array().unwrap().len(), 0, "{text}");
    // The ALU corpus ran through the same HIP path: every instruction and
    // chain, 6 programs per wave size (VOPD: wave32 only).
    let alu = rec["alu_instructions"].as_array().unwrap();
    assert_eq!(alu.len(), corpus_names().len(), "{text}");
    assert_eq!(
        rec["alu_disagreements"].as_array().unwrap().len(),
        0,
        "{text}"
    );
    for i in alu {
        let name = i["instruction"].as_str().unwrap();
        // VOPD runs in wave32 only, WMMA in wave64 only.
        let one_wave =
            dsxor::qualify::alu::wave32_only(name) || dsxor::qualify::alu::wave64_only(name);
        let want = if one_wave { 6 } else { 12 };
        assert_eq!(i["programs"], want, "{i}");
        assert_eq!(i["qualified"], true, "{i}");
    }
    for i in rec["instructions"].as_array().unwrap() {
        // 6 programs per wave size (every EXEC shape and contention level).
        assert_eq!(i["programs"], 12, "{i}");
        assert_eq!(i["agreed"], 12, "{i}");
        assert_eq!(i["qualified"], true, "{i}");
    }
    assert!(text.contains(&alu_summary()), "{text}");
}

/// The plumbing has teeth: the HIP side losing updates
/// (DSXOR_HIPSIM_FAULT=lost-update) gives exit 1 and disagreements that
/// name the HIP device as the side that differs, the software device
/// agreeing with the pseudocode.
#[test]
fn qualify_reports_a_wrong_hip_device_as_the_side_that_differs() {
    let (code, text, rec) = qualify_on_hipsim(
        &[("DSXOR_HIPSIM_FAULT", "lost-update")],
        Some("ds_xor_rtn_b64,ds_cmpstore_rtn_b64,ds_add_u32"),
    );
    assert_eq!(code, Some(1), "{text}");
    assert_simulated_device(&rec, &text);
    assert_eq!(rec["instructions"].as_array().unwrap().len(), 3);
    let ds = rec["disagreements"].as_array().unwrap();
    assert!(!ds.is_empty(), "{text}");
    assert!(text.contains("disagreement: "), "{text}");
    for d in ds {
        let summary = d["summary"].as_str().unwrap();
        assert!(
            summary.starts_with("device differs with the pseudocode, emu agrees"),
            "{summary}"
        );
        assert_ne!(d["device"], d["pseudocode"]);
        assert_eq!(d["emu"], d["pseudocode"]);
    }
    assert!(rec["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["qualified"] == false));
}

// ---------------------------------------------------------------------------
// The ALU corpus (integer SALU, VALU, VOPD in the harness kernel).
// ---------------------------------------------------------------------------

use dsxor::qualify::alu::{corpus_names, qualify_alu, wave32_only, wave64_only};

/// The software device agrees with the pseudocode (written from the RDNA3
/// guide in `qualify::alu`, not from `emu`) on every ALU program of the
/// corpus: every instruction and chain, both wave sizes (VOPD: wave32;
/// WMMA: wave64), 6 programs each (every EXEC shape).
#[test]
fn the_software_device_agrees_with_the_pseudocode_on_every_alu_program() {
    let names = corpus_names();
    let (results, ds) = qualify_alu(
        &mut emu(None),
        &mut emu(None),
        &objects(),
        &names,
        7,
        6,
        Duration::from_secs(10),
        &mut |_| {},
    )
    .expect("runs");
    for d in &ds {
        eprintln!(
            "{} wave{} {:?}: {}\n{}",
            d.instruction,
            d.wave.lanes(),
            d.exec,
            d.summary,
            d.program
        );
    }
    assert!(ds.is_empty(), "{} disagreements", ds.len());
    assert_eq!(results.len(), names.len());
    for r in &results {
        let one_wave = wave32_only(&r.instruction) || wave64_only(&r.instruction);
        let want = if one_wave { 6 } else { 12 };
        assert_eq!(r.programs, want, "{}", r.instruction);
        assert!(r.qualified, "{}", r.instruction);
    }
}
