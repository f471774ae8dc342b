//! CU mode and WGP mode, and shapes at the hardware's limits.
//!
//! Modes: every shipped gfx1100 object states its mode in every kernel
//! descriptor (COMPUTE_PGM_RSRC1.WGP_MODE, bit 29: AMDGPUUsage.rst,
//! "compute_pgm_rsrc1 for GFX6-GFX12"), read by `llvm-objdump -d`
//! (`.amdhsa_workgroup_processor_mode`), by `llvm-readelf --notes`
//! (`.workgroup_processor_mode`) and by dsxor's codeobj; the software
//! device reports the bit it launched with, a case runs on the object of
//! its own mode, and a device that ran another mode is refused.
//!
//! Shapes: the kernels allow 1,024 work-items a group and 64 KiB of LDS,
//! and the default suite's shape families run and pass on the software
//! device and through the software HIP runtime, both modes.

use crate::codeobj_support;
use crate::common;

use std::time::Duration;

use codeobj_support::{objdump_descriptor, prebuilt_dir, readelf_notes};
use dsxor::backend::conformance::{
    embedded_objects, CaseDevice, ConformanceDevice, DeviceOutcome, KernelObject,
};
use dsxor::backend::emu::EmuBackend;
use dsxor::backend::BackendError;
use dsxor::case::{Mode, WaveSize};
use dsxor::codeobj::{embedded, CodeObject};
use dsxor::emu::EmuConfig;
use dsxor::gen::pattern::{generate_on, CaseId, Pattern, STAND_IN_WGPS};
use dsxor::gen::{Shard, SuiteSpec};

const CONFORMANCE: &str = "dsxor_conformance_off0";

#[test]
fn gfx1100_ships_both_modes_for_both_wave_sizes() {
    let mut have: Vec<(WaveSize, bool)> = embedded()
        .iter()
        .filter(|o| o.target == "gfx1100")
        .map(|o| (o.wave, o.cumode))
        .collect();
    have.sort();
    assert_eq!(
        have,
        vec![
            (WaveSize::Wave32, false),
            (WaveSize::Wave32, true),
            (WaveSize::Wave64, false),
            (WaveSize::Wave64, true)
        ]
    );
    let mut objects: Vec<(WaveSize, Mode)> = embedded_objects("gfx1100")
        .iter()
        .map(|o| (o.wave, o.mode))
        .collect();
    objects.sort();
    assert_eq!(
        objects,
        vec![
            (WaveSize::Wave32, Mode::Cu),
            (WaveSize::Wave32, Mode::Wgp),
            (WaveSize::Wave64, Mode::Cu),
            (WaveSize::Wave64, Mode::Wgp)
        ]
    );
}

/// Every descriptor of every gfx1100 object: WGP_MODE is clear exactly in
/// the objects built with `-mcumode`, as llvm-objdump and llvm-readelf
/// read it (the oracles) and as codeobj reads it. Also the launch limits
/// the shape families need: a flat workgroup of 1,024 (HIP's default
/// bound; kernels/dsxor.hip sets no `__launch_bounds__`) and no static LDS,
/// so the dynamic allocation may be the whole 64 KiB.
#[test]
fn every_descriptor_states_its_objects_mode() {
    let objdump = common::llvm_objdump();
    let readelf = common::llvm_readelf();
    for o in embedded().iter().filter(|o| o.target == "gfx1100") {
        let path = prebuilt_dir().join(o.file_name);
        let co = CodeObject::parse(o.bytes).unwrap();
        let want_wgp = !o.cumode;
        let notes = readelf.as_ref().map(|t| readelf_notes(t, &path).0);
        assert!(!co.kernels.is_empty());
        for k in &co.kernels {
            let ctx = format!("{} {}", o.file_name, k.name);
            assert_eq!(k.descriptor.wgp_mode(), want_wgp, "{ctx}: codeobj");
            assert_eq!(
                (k.descriptor.compute_pgm_rsrc1 >> 29) & 1,
                u32::from(want_wgp),
                "{ctx}: bit 29"
            );
            if let Some(tool) = &objdump {
                let dirs = objdump_descriptor(tool, &path, &k.name);
                let got = dirs
                    .iter()
                    .find(|(d, _)| d == ".amdhsa_workgroup_processor_mode")
                    .map(|(_, v)| *v);
                assert_eq!(got, Some(u64::from(want_wgp)), "{ctx}: llvm-objdump");
            }
            if let Some(notes) = &notes {
                let meta = notes
                    .iter()
                    .find(|n| n.field(".name") == Some(k.name.as_str()))
                    .unwrap_or_else(|| panic!("{ctx}: not in llvm-readelf --notes"));
                assert_eq!(
                    meta.field(".workgroup_processor_mode"),
                    Some(if want_wgp { "1" } else { "0" }),
                    "{ctx}: llvm-readelf"
                );
                if k.name.starts_with("dsxor_conformance") {
                    assert_eq!(
                        meta.field(".max_flat_workgroup_size"),
                        Some("1024"),
                        "{ctx}"
                    );
                    assert_eq!(meta.field(".group_segment_fixed_size"), Some("0"), "{ctx}");
                }
            }
        }
        assert_eq!(
            co.mode_of(CONFORMANCE),
            Some(if want_wgp { Mode::Wgp } else { Mode::Cu })
        );
    }
}

fn emu_device(objects: Vec<KernelObject>) -> ConformanceDevice<EmuBackend> {
    let backend = EmuBackend::new(EmuConfig {
        threads: Some(1),
        ..EmuConfig::default()
    })
    .unwrap();
    ConformanceDevice::with_codeobj(backend, objects, Duration::from_secs(60))
}

fn case(pattern: Pattern, wave: WaveSize, mode: Mode, ordinal: u64) -> dsxor::case::Case {
    generate_on(
        1,
        CaseId {
            pattern,
            wave,
            mode,
            ordinal,
        },
        0,
        STAND_IN_WGPS,
    )
    .case
}

/// The software device reads WGP_MODE from the descriptor it launches and
/// reports it; a case runs on the object of its own mode, and the repro's
/// kernel identity names that mode.
#[test]
fn the_software_device_reports_the_mode_it_launched() {
    let mut dev = emu_device(embedded_objects("gfx1100"));
    for wave in [WaveSize::Wave32, WaveSize::Wave64] {
        for mode in Mode::BOTH {
            let c = case(Pattern::OneAddress, wave, mode, 0);
            assert_eq!(c.geometry.mode, mode);
            let out = dev.run_case(&c).unwrap();
            assert!(matches!(out, DeviceOutcome::Completed { .. }), "{out:?}");
            let stats = dev.backend().last_stats().unwrap();
            assert_eq!(stats.wgp_mode, mode == Mode::Wgp, "{wave:?} {mode}");
            assert_eq!(dev.kernel_identity(&c).unwrap().mode, mode);
        }
    }
}

/// A device handed the wrong object for the case's mode says so, and the
/// case is refused rather than judged under a mode it never ran in.
#[test]
fn a_launch_in_the_other_mode_is_refused() {
    // The CU-mode objects labelled WGP mode (and no true WGP object).
    let mislabelled: Vec<KernelObject> = embedded_objects("gfx1100")
        .into_iter()
        .filter(|o| o.mode == Mode::Cu)
        .map(|mut o| {
            o.mode = Mode::Wgp;
            o
        })
        .collect();
    let mut dev = emu_device(mislabelled);
    let c = case(Pattern::Uniform, WaveSize::Wave32, Mode::Wgp, 0);
    match dev.run_case(&c) {
        Err(BackendError::Invalid(m)) => {
            assert!(m.contains("WGP_MODE = 0") && m.contains("wgp mode"), "{m}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Mode is part of a case's identity: a CU-mode case draws from its own
/// stream, a WGP-mode case from the stream generator version 2 used.
#[test]
fn the_mode_is_part_of_the_case_identity() {
    let id = |mode| CaseId {
        pattern: Pattern::KPerAddress,
        wave: WaveSize::Wave64,
        mode,
        ordinal: 5,
    };
    let wgp = id(Mode::Wgp);
    // Version 2's stream id: tag 3 (k-per-address) << 48, wave64 bit 47.
    assert_eq!(wgp.stream(), (3 << 48) | (1 << 47) | 5);
    assert_eq!(id(Mode::Cu).stream(), wgp.stream() | 1 << 63);
    let (a, b) = (
        generate_on(9, wgp, 0, STAND_IN_WGPS).case,
        generate_on(9, id(Mode::Cu), 0, STAND_IN_WGPS).case,
    );
    assert_ne!(a.lanes, b.lanes);
    assert_ne!(dsxor::gen::case_digest(&a), dsxor::gen::case_digest(&b));
    // Every default cell exists in both modes.
    let spec = SuiteSpec::new(1, 2000, &[], &[], &[], Shard::WHOLE).unwrap();
    for p in Pattern::DEFAULT {
        for w in [WaveSize::Wave32, WaveSize::Wave64] {
            for m in Mode::BOTH {
                assert!(spec.cells().contains(&(p, w, m)), "{p} {w:?} {m}");
            }
        }
    }
}

/// The shape families draw what their names say.
#[test]
fn shapes_reach_the_hardware_limits() {
    for wave in [WaveSize::Wave32, WaveSize::Wave64] {
        for o in 0..6 {
            let c = case(Pattern::BigGroup, wave, Mode::Cu, o);
            assert_eq!(c.geometry.lanes_per_group(), 1024, "{wave:?} #{o}");
            assert_eq!(c.geometry.waves_per_group, 1024 / wave.lanes());
            // Every wave of every group on every contended qword.
            let wl = wave.lanes() as usize;
            for g in 0..c.geometry.groups as usize {
                let lanes = c.group_lanes(g);
                let all: std::collections::BTreeSet<u32> = lanes.iter().map(|l| l.addr).collect();
                for w in lanes.chunks(wl) {
                    let mine: std::collections::BTreeSet<u32> = w.iter().map(|l| l.addr).collect();
                    assert_eq!(mine, all, "{wave:?} #{o} group {g}");
                }
            }
            if o % 3 == 2 {
                assert_eq!(c.lds_bytes, 65536, "full-lds");
                assert!(c.lanes.iter().any(|l| l.addr == 65528));
            }
        }
        let c = case(Pattern::Occupancy, wave, Mode::Wgp, 0);
        assert_eq!(c.geometry.groups, 2 * STAND_IN_WGPS);
        let on_device = generate_on(
            1,
            CaseId {
                pattern: Pattern::Occupancy,
                wave,
                mode: Mode::Wgp,
                ordinal: 0,
            },
            0,
            60,
        )
        .case;
        assert_eq!(on_device.geometry.groups, 120);
        for o in 0..4 {
            let c = case(Pattern::LdsStraddle, wave, Mode::Wgp, o);
            let s = c.lds_bytes;
            // second-allocation: the 2nd packed allocation holds 64 KiB at
            // byte 64 KiB - S; third-allocation: the 3rd at 64 KiB - 2S.
            let k = if o % 2 == 0 { 1 } else { 2 };
            assert!(k * s < 65536 && (k + 1) * s > 65536, "S {s} k {k}");
            let boundary = 65536 - k * s;
            let addrs: std::collections::BTreeSet<u32> = c.lanes.iter().map(|l| l.addr).collect();
            for want in [boundary - 8, boundary, s - 8] {
                assert!(addrs.contains(&want), "S {s}: {want} in {addrs:?}");
            }
            assert!(c.geometry.groups > k);
        }
    }
}

fn shape_run(backend: &str, dir: &std::path::Path, env: &[(&str, &str)]) -> std::process::Output {
    let args = [
        "run",
        "--backend",
        backend,
        "--seed",
        "3",
        "--pattern",
        "big-group,occupancy,lds-straddle",
        "--cases",
        "24",
        "--out",
        dir.to_str().unwrap(),
    ];
    if backend == "hip" {
        common::dsxor_hipsim(&args, env)
    } else {
        common::dsxor(&args)
    }
}

/// (pattern, wave, mode) of every case record of a run.
fn recorded_cells(dir: &std::path::Path) -> Vec<(String, u64, String)> {
    let stream = common::files(dir, ".cases.jsonl");
    assert_eq!(stream.len(), 1, "{stream:?}");
    std::fs::read_to_string(&stream[0])
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["pattern"].as_str().unwrap().to_string(),
                v["wave"].as_str().unwrap().parse().unwrap(),
                v["mode"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The shape families pass on the software device and through the
/// software HIP runtime, in both modes; the records and the runtime's
/// launch log name the mode.
#[test]
fn shapes_run_in_both_modes_on_both_software_devices() {
    let emu = tempfile::tempdir().unwrap();
    let o = shape_run("emu", emu.path(), &[]);
    assert_eq!(common::code(&o), 0, "{}", common::text(&o));
    let hip = tempfile::tempdir().unwrap();
    let log = hip.path().join("launches.log");
    let o = shape_run(
        "hip",
        hip.path(),
        &[("DSXOR_HIPSIM_LAUNCH_LOG", log.to_str().unwrap())],
    );
    assert_eq!(common::code(&o), 0, "{}", common::text(&o));
    for dir in [emu.path(), hip.path()] {
        let cells = recorded_cells(dir);
        assert_eq!(cells.len(), 24);
        for p in ["big-group", "occupancy", "lds-straddle"] {
            for m in ["cu", "wgp"] {
                assert!(
                    cells.iter().any(|(cp, _, cm)| cp == p && cm == m),
                    "{p} {m}: {cells:?}"
                );
            }
        }
    }
    // The runtime read each launch's WGP_MODE: both modes were launched.
    let modes: std::collections::BTreeSet<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" dsxor_conformance"))
        .filter_map(|l| l.split_whitespace().nth(4).map(str::to_string))
        .collect();
    assert_eq!(
        modes,
        ["cu", "wgp"].iter().map(|s| s.to_string()).collect(),
        "launch log modes"
    );
}

/// `--mode` narrows a run to one mode; a mode the objects lack is bad usage.
#[test]
fn mode_selection() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::dsxor(&[
        "run",
        "--backend",
        "emu",
        "--seed",
        "1",
        "--cases",
        "40",
        "--mode",
        "cu",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(common::code(&o), 0, "{}", common::text(&o));
    let cells = recorded_cells(dir.path());
    assert!(cells.iter().all(|(_, _, m)| m == "cu"), "{cells:?}");
    let o = common::dsxor(&["run", "--backend", "emu", "--mode", "fast"]);
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
}

/// A CU-mode failure keeps its mode through minimization: the repro names
/// it in the case id, the case's geometry and the kernel, and `dsxor repro`
/// replays it on the CU-mode object (and fails again).
#[test]
fn a_cu_mode_failure_replays_in_cu_mode() {
    let dir = tempfile::tempdir().unwrap();
    let o = common::dsxor(&[
        "run",
        "--backend",
        "emu",
        "--fault",
        "lost-update",
        "--seed",
        "2",
        "--pattern",
        "one-address",
        "--mode",
        "cu",
        "--cases",
        "4",
        "--minimize-budget",
        "5s",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(common::code(&o), 1, "{}", common::text(&o));
    let repros: Vec<_> = common::files(dir.path(), ".json")
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".repro-"))
        .collect();
    assert!(!repros.is_empty(), "{}", common::text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&repros[0]).unwrap()).unwrap();
    assert_eq!(r["case_id"]["mode"], "cu", "{r}");
    assert_eq!(r["case"]["geometry"]["mode"], "cu");
    assert_eq!(r["kernel"]["mode"], "cu");
    assert!(r["kernel"]["source"].as_str().unwrap().ends_with("-cu.co"));
    let o = common::dsxor(&[
        "repro",
        "--backend",
        "emu",
        "--fault",
        "lost-update",
        repros[0].to_str().unwrap(),
    ]);
    assert_eq!(common::code(&o), 1, "{}", common::text(&o));
}
