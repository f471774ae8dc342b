//! `suite::device::open`: the device a conformance command runs on is
//! configured as asked — here, that the software device allocates LDS in
//! the policy's granule, so it and the model agree on where the in-range
//! slack ends.

use std::time::Duration;

use dsxor::backend::select::BackendChoice;
use dsxor::case::{Case, Geometry, LaneInput, WaveSize};
use dsxor::model::Policy;
use dsxor::suite::device::{open, DeviceRequest};
use dsxor::suite::judge::ModelJudge;
use dsxor::suite::Judge;

fn request(lds_granule: u32) -> DeviceRequest {
    DeviceRequest {
        choice: BackendChoice::Emu,
        device: None,
        waves: vec![WaveSize::Wave32],
        code_object: None,
        fault: None,
        interleave_seed: None,
        timeout: Duration::from_secs(10),
        lds_granule,
        worker_exe: None,
        require_gpu: false,
        hazard_check: false,
        allow_mutant: false,
        batch: dsxor::backend::conformance::DEFAULT_BATCH,
    }
}

/// 512 bytes requested, lanes 0 and 1 both XOR at byte 520: in range (the
/// slack of a 1024-byte block) under granule 1024, out of range under 512.
/// Only with two lanes on one slack qword do the readings differ in what
/// is visible (lane 1 returns lane 0's data, or 0).
fn slack_case() -> Case {
    Case {
        pattern: "alloc-edge".into(),
        index: 0,
        geometry: Geometry {
            wave_size: WaveSize::Wave32,
            waves_per_group: 1,
            groups: 1,
            mode: dsxor::case::Mode::Wgp,
        },
        lds_bytes: 512,
        offset: 0,
        lds_init: vec![(1..=64).collect()],
        lanes: (0..32)
            .map(|i| LaneInput {
                addr: if i < 2 { 520 } else { 8 * i },
                data: 0x1111_0000 + u64::from(i),
                active: i < 2,
                vdst_init: 0xdead,
            })
            .collect(),
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}

fn verdict(device_granule: u32, model_granule: u32) -> bool {
    let mut opened = open(&request(device_granule)).expect("the software device opens");
    assert!(
        opened
            .selection
            .reason
            .contains(&format!("LDS granule {device_granule} B")),
        "{}",
        opened.selection.reason
    );
    let case = slack_case();
    let outcome = opened.device.run_case(&case).expect("runs");
    let judge = ModelJudge::new(Policy {
        lds_granule: model_granule,
        ..Policy::GFX11
    });
    judge.judge(&case, &outcome).expect("judgeable").passed
}

#[test]
fn the_software_device_allocates_in_the_policys_granule() {
    assert!(verdict(512, 512));
    assert!(verdict(1024, 1024));
    // The check can tell them apart: a device with the other block fails.
    assert!(!verdict(512, 1024));
    assert!(!verdict(1024, 512));
}

#[test]
fn a_granule_the_software_device_cannot_take_is_bad_input() {
    match open(&request(2)) {
        Err(dsxor::suite::device::OpenError::Usage(m)) => assert!(m.contains("granule"), "{m}"),
        Err(e) => panic!("expected bad input, got {e}"),
        Ok(_) => panic!("granule 2 accepted"),
    }
}
