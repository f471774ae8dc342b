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
use dsxor::qualify::{qualify, DS_B64_RTN_ATOMICS};

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
        fault,
        threads: Some(1),
        ..Default::default()
    })
    .expect("software device")
}

/// The software device agrees with the pseudocode on every program of the
/// corpus (13 atomics x 2 wave sizes x 6 programs: every EXEC shape and
/// contention level).
#[test]
fn the_software_device_agrees_with_the_pseudocode_on_every_ds_atomic() {
    let mut noted = Vec::new();
    let rec = qualify(
        &mut emu(None),
        &mut emu(None),
        &objects(),
        5,
        6,
        Duration::from_secs(10),
        &mut |r| noted.push(r.instruction.clone()),
    )
    .expect("runs");
    assert!(rec.plumbing_only);
    assert_eq!(noted, DS_B64_RTN_ATOMICS);
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

/// A device that loses updates (the software device's `lost-update` fault)
/// is caught: disagreements name the device as the side that differs from
/// the pseudocode, and carry the program and all three outputs.
#[test]
fn a_wrong_device_is_reported_with_the_program_and_three_answers() {
    let rec = qualify(
        &mut emu(Some(Fault::LostUpdate)),
        &mut emu(None),
        &objects(),
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
    assert!(
        text.contains("13 of 13 instructions qualified, 0 disagreements"),
        "{text}"
    );
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1);
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap())
            .unwrap();
    assert_eq!(rec["format"], "dsxor-qualify/1");
    assert_eq!(rec["plumbing_only"], true);
    assert_eq!(rec["instructions"].as_array().unwrap().len(), 13);
    let o = common::dsxor(&["qualify", "--backend", "cuda"]);
    assert_eq!(o.status.code(), Some(2));
    let o = common::dsxor(&["qualify", "--backend", "emu", "--cases", "0"]);
    assert_eq!(o.status.code(), Some(2));
}
