//! `dsxor qualify` without a GPU: both sides the software device (the
//! plumbing, and the software device against the pseudocode, which
//! `qualify::pseudocode` writes from the RDNA3 ISA guide, not from `emu`),
//! and a misbehaving "device" whose every wrong answer must be reported
//! with the program and the three outputs. On the real HIP runtime, see
//! tests/it/rocjitsu.rs.

use crate::common;

use std::time::Duration;

use dsxor::backend::emu::EmuBackend;
use dsxor::case::WaveSize;
use dsxor::codeobj::find_embedded;
use dsxor::emu::{EmuConfig, Fault};
use dsxor::qualify::{qualify, Options, DS_ATOMICS};

/// The options of a qualification run on `objects`.
fn opts<'a>(
    objects: &'a [(WaveSize, &'a [u8])],
    seed: u64,
    cases_per_wave: u64,
    timeout: Duration,
) -> Options<'a> {
    Options {
        objects,
        seed,
        cases_per_wave,
        timeout,
    }
}

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
        DS_ATOMICS,
        &opts(&objects(), 5, 6, Duration::from_secs(10)),
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
        &newer,
        &opts(&objects(), 11, 18, Duration::from_secs(10)),
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
        &some,
        &opts(&objects(), 5, 6, Duration::from_secs(10)),
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

/// Without a GPU (as in CI) `dsxor qualify --backend hip` runs through the
/// software HIP runtime: every program through the unchanged HIP backend (module
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
        &names,
        &opts(&objects(), 7, 6, Duration::from_secs(10)),
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

// ---------------------------------------------------------------------------
// The inventory: every integer SALU/VALU/VOPD instruction the software
// device decodes is in the ALU corpus or in the named exclusion list.
// ---------------------------------------------------------------------------

/// Every mnemonic the software device's decoder (`emu::decode::decode_one`,
/// the table the interpreter runs from) gives a SOP1/SOP2/SOPC/SOPK/SOPP,
/// VOP1/VOP2/VOPC/VOP3/VOP3P or VOPD word: every opcode of each format,
/// under several operand templates (VGPRs, SGPRs, an SGPR destination for
/// the VOP3 forms that write one, a literal after the word), so an opcode
/// whose decoding depends on its operands is still found. Words the
/// decoder does not model (`Inst::Unsupported`) are not instructions of
/// the device and are left out.
fn decoded_alu_mnemonics() -> std::collections::BTreeSet<String> {
    use dsxor::emu::decode::{decode_one, Inst};
    let mut out = std::collections::BTreeSet::new();
    let lit = 0x1234_5678u32;
    let mut add = |w: &[u32]| {
        let (inst, _) = decode_one(w);
        match inst {
            Inst::Unsupported(_) => {}
            Inst::Vopd { x, y } => {
                out.insert(x.op.name().to_string());
                out.insert(y.op.name().to_string());
            }
            other => {
                out.insert(other.mnemonic());
            }
        }
    };
    // Scalar source codes: s34, s36, M0 and an inline constant.
    let ssrc = [34u32, 36, 125, 129];
    for op in 0..128u32 {
        for &(a, b) in &[(ssrc[0], ssrc[1]), (ssrc[3], ssrc[0])] {
            // SOP2: 10 op[29:23] sdst[22:16] ssrc1[15:8] ssrc0[7:0].
            add(&[0x8000_0000 | op << 23 | 32 << 16 | b << 8 | a, lit]);
            // SOPC: 101111110 op[22:16] ssrc1 ssrc0.
            add(&[0xbf00_0000 | op << 16 | b << 8 | a, lit]);
        }
        // SOPP: 101111111 op[22:16] simm16.
        add(&[0xbf80_0000 | op << 16, lit]);
    }
    for op in 0..256u32 {
        for s in ssrc {
            // SOP1: 101111101 sdst[22:16] op[15:8] ssrc0[7:0].
            add(&[0xbe80_0000 | 32 << 16 | op << 8 | s, lit]);
        }
    }
    for op in 0..32u32 {
        // SOPK: 1011 op[27:23] sdst[22:16] simm16 (s_setreg_imm32_b32's
        // literal after it). HWREG(MODE) = id 1 in the simm16.
        add(&[0xb000_0000 | op << 23 | 32 << 16 | 0x0801, lit]);
    }
    // VGPR codes: v16, v17, v18; an SGPR s34; an inline constant.
    let (v16, v17, v18, s34, c1) = (256 + 16u32, 256 + 17u32, 256 + 18u32, 34u32, 129u32);
    for op in 0..256u32 {
        for src0 in [v17, s34, c1] {
            // VOP1: 0111111 vdst[24:17] op[16:9] src0[8:0].
            add(&[0x7e00_0000 | 16 << 17 | op << 9 | src0, lit]);
            // VOPC: 0111110 op[24:17] vsrc1[16:9] src0[8:0].
            add(&[0x7c00_0000 | op << 17 | 18 << 9 | src0, lit]);
        }
    }
    for op in 0..64u32 {
        for src0 in [v17, s34] {
            // VOP2: 0 op[30:25] vdst[24:17] vsrc1[16:9] src0[8:0].
            add(&[op << 25 | 16 << 17 | 18 << 9 | src0, lit]);
        }
    }
    for op in 0..1024u32 {
        for (vdst, s) in [
            (16u32, [v16, v17, v18]),
            (16, [s34, v17, v18]),
            (16, [v16, s34, c1]),
            // An SGPR destination (v_readlane, v_readfirstlane, compares).
            (32, [v16, s34, v18]),
            (32, [v16, c1, v18]),
            // v_writelane: S0 a scalar, S1 the lane select.
            (16, [s34, c1, v18]),
        ] {
            // VOP3: 110101 op[25:16] ... vdst[7:0]; word 1 sources.
            let w0 = 0xd400_0000 | op << 16 | vdst;
            let w1 = s[2] << 18 | s[1] << 9 | s[0];
            add(&[w0, w1, lit]);
            // VOP3SD (carry outs): sdst s36 in 14:8.
            add(&[w0 | 36 << 8, w1, lit]);
        }
    }
    for op in 0..128u32 {
        // VOP3P: 11001100 op[22:16] clamp op_sel_hi[2] op_sel neg_hi vdst;
        // word 1: neg_lo op_sel_hi[1:0] src2 src1 src0 (op_sel_hi all set,
        // the default).
        for (vdst, s) in [(16u32, [v16, v17, v18]), (16, [v16, v16, v16 + 4])] {
            add(&[
                0xcc00_0000 | op << 16 | 1 << 14 | vdst,
                3 << 27 | s[2] << 18 | s[1] << 9 | s[0],
                lit,
            ]);
        }
    }
    for opx in 0..16u32 {
        for opy in 0..32u32 {
            // VOPD: 110010 opx[25:22] opy[21:17] vsrc1x src0x; word 1:
            // vdstx[31:24] vdsty>>1[23:17] vsrc1y src0y (banks apart).
            add(&[
                0xc800_0000 | opx << 22 | opy << 17 | 16 << 9 | v17,
                20 << 24 | (21 >> 1) << 17 | 19 << 9 | v18,
                lit,
            ]);
        }
    }
    out
}

/// The teeth of the inventory: an integer instruction the software device
/// decodes that is neither in the corpus nor excluded with a reason fails
/// here, by name (the corpus is the ALU table's rows less the exclusions,
/// so this is an instruction the device decodes without a table row: it
/// needs one, or a reason); so does an exclusion of something the device
/// does not decode, a corpus entry the device does not decode (a table row
/// the decoder lacks), or a corpus that is not the table's rows less the
/// exclusions and the VOPD halves.
#[test]
fn every_alu_instruction_the_software_device_decodes_is_in_the_corpus_or_excluded() {
    use dsxor::isa::alu::{ALU_OPS, VOPD_OPS};
    use dsxor::qualify::alu::{corpus_ops, NOT_IN_CORPUS};
    let decoded = decoded_alu_mnemonics();
    assert!(decoded.len() > 300, "the sweep found {}", decoded.len());
    let excluded: std::collections::BTreeMap<&str, &str> = NOT_IN_CORPUS.iter().copied().collect();
    assert_eq!(excluded.len(), NOT_IN_CORPUS.len(), "an exclusion twice");
    let corpus: std::collections::BTreeSet<&str> = corpus_ops().iter().copied().collect();
    assert_eq!(corpus.len(), corpus_ops().len(), "a corpus entry twice");
    let rows: std::collections::BTreeSet<&str> = ALU_OPS
        .iter()
        .map(|r| r.name)
        .chain(VOPD_OPS.iter().map(|v| v.name))
        .filter(|n| !excluded.contains_key(n))
        .collect();
    assert_eq!(
        corpus, rows,
        "the corpus is not the table's rows less the exclusions"
    );
    let missing: Vec<&String> = decoded
        .iter()
        .filter(|n| !corpus.contains(n.as_str()) && !excluded.contains_key(n.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} instruction(s) the software device decodes are neither in qualify::alu::CORPUS_OPS \
         nor in qualify::alu::NOT_IN_CORPUS with a reason: {missing:?}",
        missing.len()
    );
    let both: Vec<&&str> = corpus
        .iter()
        .filter(|n| excluded.contains_key(**n))
        .collect();
    assert!(both.is_empty(), "in the corpus and excluded: {both:?}");
    let stale: Vec<&&str> = excluded.keys().filter(|n| !decoded.contains(**n)).collect();
    assert!(
        stale.is_empty(),
        "excluded but not decoded by the software device: {stale:?}"
    );
    let unknown: Vec<&&str> = corpus.iter().filter(|n| !decoded.contains(**n)).collect();
    assert!(
        unknown.is_empty(),
        "in the corpus but not decoded by the software device: {unknown:?}"
    );
    for (name, why) in NOT_IN_CORPUS {
        assert!(why.len() > 10, "{name}: no reason given");
    }
}
