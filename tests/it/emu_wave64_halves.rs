//! Wave64 halves: gfx10+ runs a wave64 LDS instruction as two wave32
//! passes, and other waves' LDS operations can fall between them (sources:
//! docs/src/internals/software-device.md). The software device splits wave64 DS instructions under
//! an interleave seed (policy `wave64-split-halves`), the checker's order
//! evidence says where the returns show a split, and the checker still
//! accepts exactly the serializable outcomes of the `wave64-halves` family.

use std::time::Duration;

use dsxor::backend::conformance::{embedded_objects, CaseDevice, ConformanceDevice, DeviceOutcome};
use dsxor::backend::emu::EmuBackend;
use dsxor::case::{Case, Mode, Observation, WaveSize};
use dsxor::check::{judge, DeviceOutcome as Judged, FindingKind, OrderEvidence};
use dsxor::emu::EmuConfig;
use dsxor::gen::pattern::{generate, CaseId, Pattern};
use dsxor::model::Policy;

fn device(interleave_seed: Option<u64>) -> ConformanceDevice<EmuBackend> {
    let backend = EmuBackend::new(EmuConfig {
        threads: Some(1),
        interleave_seed,
        ..EmuConfig::default()
    })
    .unwrap();
    ConformanceDevice::with_codeobj(
        backend,
        embedded_objects("gfx1100"),
        Duration::from_secs(60),
    )
}

fn halves_case(wave: WaveSize, ordinal: u64) -> Case {
    let mode = if ordinal.is_multiple_of(2) {
        Mode::Wgp
    } else {
        Mode::Cu
    };
    let id = CaseId {
        pattern: Pattern::Wave64Halves,
        wave,
        mode,
        ordinal,
    };
    generate(1, id, ordinal).case
}

fn observe(dev: &mut ConformanceDevice<EmuBackend>, case: &Case) -> Observation {
    match dev.run_case(case).unwrap() {
        DeviceOutcome::Completed { observation, .. } => observation,
        other => panic!("{other:?}"),
    }
}

/// Run `cases` cases of the family on a device and sum the evidence of the
/// cases (each must pass): (cases that could show a split, cases that did).
fn run(interleave_seed: Option<u64>, wave: WaveSize, cases: u64) -> (u64, u64) {
    let mut dev = device(interleave_seed);
    let (mut observed, mut split) = (0, 0);
    for o in 0..cases {
        let c = halves_case(wave, o);
        let obs = observe(&mut dev, &c);
        let v = judge(&c, Judged::Completed(&obs), &Policy::GFX11).unwrap();
        assert!(v.passed(), "case {o}: {}", v.explain());
        let ev: OrderEvidence = v.order;
        if let Some(s) = ev.halves_seen_split() {
            observed += 1;
            split += u64::from(s);
        }
    }
    (observed, split)
}

/// Under an interleave seed the software device splits wave64 DS
/// instructions, other waves run between the halves, the returns show it
/// in most cases of the family, and every case passes. Without a seed the
/// device is deterministic (each wave runs to its barrier): the halves are
/// observable but never split. Wave32 cells have no halves to observe.
#[test]
fn split_halves_are_seen_under_an_interleave_seed_and_pass() {
    let (observed, split) = run(Some(11), WaveSize::Wave64, 24);
    assert_eq!(
        observed, 24,
        "every wave64 case of the family can show a split"
    );
    assert!(
        split * 2 >= observed,
        "the split policy showed in {split} of {observed} cases"
    );
    let (observed, split) = run(None, WaveSize::Wave64, 12);
    assert_eq!((observed, split), (12, 0), "no seed, no split");
    let (observed, split) = run(Some(11), WaveSize::Wave32, 12);
    assert_eq!((observed, split), (0, 0), "wave32: no halves");
}

/// One qword's lanes of group 0, round 0, in the order the returns fix:
/// (lane index, wave, lane, ret).
fn performed(case: &Case, obs: &Observation, qword: u32) -> Vec<(usize, u32, u32, u64)> {
    let per_group = case.geometry.lanes_per_group() as usize;
    let ws = case.geometry.wave_size.lanes() as usize;
    let mut lanes: Vec<(usize, u32, u32, u64, u64)> = (0..per_group)
        .filter(|&i| {
            let l = &case.lanes[i];
            l.active && (l.addr + u32::from(case.offset)) / 8 == qword
        })
        .map(|i| {
            let ret = obs.ret[i];
            (i, (i / ws) as u32, (i % ws) as u32, ret, case.lanes[i].data)
        })
        .collect();
    let mut cur = case.lds_init[0][qword as usize];
    let mut out = Vec::new();
    while let Some(k) = lanes.iter().position(|l| l.3 == cur) {
        let (i, w, l, ret, data) = lanes.swap_remove(k);
        out.push((i, w, l, ret));
        cur = ret ^ data;
    }
    assert!(lanes.is_empty(), "the returns chain from the initial value");
    out
}

/// A wave64-halves outcome that no serialization explains is refused: the
/// device ran another wave between the halves of an instruction, but the
/// high half's first lane returns the value the low half left, as if the
/// other wave's update were invisible to it (a stale read across the pass
/// boundary). Its return then repeats the other wave's: a broken chain.
#[test]
fn a_stale_high_half_is_refused() {
    let mut dev = device(Some(11));
    let mut refused = 0;
    for o in 0..16 {
        let c = halves_case(WaveSize::Wave64, o);
        let mut obs = observe(&mut dev, &c);
        let qword = (c.lanes[0].addr + u32::from(c.offset)) / 8;
        let order = performed(&c, &obs, qword);
        // A lane of wave w's low half, then the next lane of w being of its
        // high half, with other waves' lanes between.
        let mut tamper = None;
        for (p, &(_, w, l, _)) in order.iter().enumerate() {
            if l >= 32 {
                continue;
            }
            let next = order[p + 1..].iter().position(|x| x.1 == w);
            if let Some(d) = next.filter(|&d| d > 0) {
                let (hi, _, hl, _) = order[p + 1 + d];
                if hl >= 32 {
                    tamper = Some((hi, order[p + 1].3));
                    break;
                }
            }
        }
        let Some((lane, stale)) = tamper else {
            continue;
        };
        obs.ret[lane] = stale;
        let v = judge(&c, Judged::Completed(&obs), &Policy::GFX11).unwrap();
        assert!(!v.passed(), "case {o}: {}", v.explain());
        assert_eq!(v.findings[0].kind, FindingKind::BrokenChain, "case {o}");
        refused += 1;
    }
    assert!(
        refused >= 4,
        "only {refused} cases showed a split to tamper with"
    );
}
