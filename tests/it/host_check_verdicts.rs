//! The checker's verdicts: every legal serialization passes, every injected
//! inconsistency fails with the right kind, and on small addresses the
//! linear-time trail check agrees exactly with brute force over all orders.

use dsxor::case::{Case, Geometry, LaneInput, Observation, WaveSize};
use dsxor::check::file::ObservationFile;
use dsxor::check::{judge, Checker, DeviceOutcome, FindingKind, ObservedOrder};
use dsxor::model::{expect, Expected, Order, OutOfRangeReturn, Policy};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const POISON: u64 = 0xdead_beef_0bad_f00d;

fn geometry(ws: WaveSize, waves: u32, groups: u32) -> Geometry {
    Geometry {
        wave_size: ws,
        waves_per_group: waves,
        groups,
        mode: dsxor::case::Mode::Wgp,
    }
}

fn inactive() -> LaneInput {
    LaneInput {
        addr: 0,
        data: 0,
        active: false,
        vdst_init: POISON,
    }
}

fn active(addr: u32, data: u64) -> LaneInput {
    LaneInput {
        addr,
        data,
        active: true,
        vdst_init: POISON,
    }
}

/// A random aligned case with heavy contention on few addresses.
fn random_case(rng: &mut ChaCha8Rng) -> Case {
    let ws = if rng.random_bool(0.5) {
        WaveSize::Wave32
    } else {
        WaveSize::Wave64
    };
    let g = geometry(ws, rng.random_range(1..=2), rng.random_range(1..=2));
    let lds_q = rng.random_range(2..=64usize);
    let n_addr = rng.random_range(1..=4);
    let slots: Vec<u32> = (0..n_addr)
        .map(|_| rng.random_range(0..lds_q as u32) * 8)
        .collect();
    let lanes = (0..g.total_lanes())
        .map(|_| LaneInput {
            addr: slots[rng.random_range(0..n_addr)],
            data: match rng.random_range(0..4) {
                0 => 0,
                1 => 0x5555,
                _ => rng.random(),
            },
            active: rng.random_bool(0.85),
            vdst_init: rng.random(),
        })
        .collect();
    Case {
        pattern: "check-test".into(),
        index: 0,
        geometry: g,
        lds_bytes: lds_q as u32 * 8,
        offset: 0,
        lds_init: (0..g.groups)
            .map(|_| (0..lds_q).map(|_| rng.random()).collect())
            .collect(),
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}

fn observe(case: &Case, order: &Order) -> Observation {
    match expect(case, order, &Policy::GFX11).expect("valid case") {
        Expected::Completed(x) => Observation {
            ret: x.ret,
            lds_final: x.lds_final,
            traffic_verdicts: Vec::new(),
        },
        Expected::Fault(m) => panic!("unexpected fault {m:?}"),
    }
}

fn kinds(case: &Case, obs: &Observation) -> Vec<FindingKind> {
    judge(case, DeviceOutcome::Completed(obs), &Policy::GFX11)
        .expect("judgeable")
        .findings
        .iter()
        .map(|f| f.kind)
        .collect()
}

#[test]
fn every_serialization_passes_and_lane_orders_are_recognised() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4ec_0001);
    let mut checker = Checker::new();
    let (mut asc_seen, mut desc_seen) = (0, 0);
    for i in 0..2000 {
        let case = random_case(&mut rng);
        let n = case.geometry.lanes_per_group();
        let mut perm: Vec<u32> = (0..n).collect();
        perm.shuffle(&mut rng);
        for order in [
            Order::LaneAscending,
            Order::LaneDescending,
            Order::Explicit(perm),
        ] {
            let obs = observe(&case, &order);
            let v = checker
                .judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11)
                .unwrap();
            assert!(
                v.passed(),
                "case {i} order {}: {}",
                order.name(),
                v.explain()
            );
            let seen = v.order.observed();
            match order {
                Order::LaneAscending => {
                    assert!(
                        matches!(
                            seen,
                            ObservedOrder::LaneAscending
                                | ObservedOrder::Ambiguous
                                | ObservedOrder::NoContention
                        ),
                        "{seen:?}"
                    );
                    asc_seen += usize::from(seen == ObservedOrder::LaneAscending);
                }
                Order::LaneDescending => {
                    assert!(
                        matches!(
                            seen,
                            ObservedOrder::LaneDescending
                                | ObservedOrder::Ambiguous
                                | ObservedOrder::NoContention
                        ),
                        "{seen:?}"
                    );
                    desc_seen += usize::from(seen == ObservedOrder::LaneDescending);
                }
                Order::Explicit(_) => {}
            }
        }
    }
    assert!(
        asc_seen > 1000 && desc_seen > 1000,
        "{asc_seen} {desc_seen}"
    );
}

/// Does some order of `lanes` (ret, data) take `start` to `end`? Free ends
/// when `None`. Brute force over all permutations.
fn brute_force(start: Option<u64>, end: Option<u64>, lanes: &[(u64, u64)]) -> bool {
    fn go(cur: Option<u64>, end: Option<u64>, left: &mut Vec<(u64, u64)>) -> bool {
        if left.is_empty() {
            return match (cur, end) {
                (Some(c), Some(e)) => c == e,
                _ => true,
            };
        }
        for i in 0..left.len() {
            let (r, d) = left[i];
            if cur.is_none_or(|c| c == r) {
                let taken = left.remove(i);
                let ok = go(Some(r ^ d), end, left);
                left.insert(i, taken);
                if ok {
                    return true;
                }
            }
        }
        false
    }
    go(start, end, &mut lanes.to_vec())
}

#[test]
fn trail_check_agrees_with_brute_force_on_small_addresses() {
    // Small value domain so coincidences (zero data, repeated data, equal
    // returns, cycles) are frequent. Three endpoint situations: a requested
    // qword with a final claim (known start and end), a requested qword the
    // file does not claim (known start, free end), a slack qword (both free).
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4ec_0002);
    let mut agree = [0usize; 2];
    for i in 0..6000 {
        let k = rng.random_range(2..=6usize);
        let lanes: Vec<(u64, u64)> = (0..k)
            .map(|_| (rng.random_range(0..4), rng.random_range(0..4)))
            .collect();
        let init: u64 = rng.random_range(0..4);
        let fin: u64 = rng.random_range(0..4);
        let situation = i % 3;
        let (addr, start, end, lds_bytes) = match situation {
            0 => (8u32, Some(init), Some(fin), 64u32),
            1 => (8, Some(init), None, 64),
            _ => (256, None, None, 64),
        };
        let want = brute_force(start, end, &lanes);
        let mut file = ObservationFile {
            lds_bytes,
            offset: 0,
            init: [(8u64, init)].into_iter().collect(),
            lanes: Vec::new(),
            final_: if situation == 0 {
                [(8u64, fin)].into_iter().collect()
            } else {
                Default::default()
            },
            fault: None,
            extra: Default::default(),
        };
        for (j, &(r, d)) in lanes.iter().enumerate() {
            file.lanes.push(dsxor::check::file::FileLane {
                wave: 0,
                lane: j as u32,
                addr,
                data: d,
                ret: Some(r),
                active: true,
                vdst_init: Some(POISON),
                extra: Default::default(),
            });
        }
        let v = file.judge(&Policy::GFX11).unwrap();
        assert_eq!(
            v.passed(),
            want,
            "case {i}: start {start:?} end {end:?} lanes {lanes:?}: {}",
            v.explain()
        );
        agree[usize::from(want)] += 1;
    }
    // Both verdicts were exercised in quantity.
    assert!(agree[0] > 1000 && agree[1] > 500, "{agree:?}");
}

fn one_address_case(data: &[u64], init: u64) -> Case {
    let mut lanes = vec![inactive(); 32];
    for (i, &d) in data.iter().enumerate() {
        lanes[i] = active(16, d);
    }
    Case {
        pattern: "one-address".into(),
        index: 7,
        geometry: geometry(WaveSize::Wave32, 1, 1),
        lds_bytes: 64,
        offset: 0,
        lds_init: vec![vec![init, 1, init, 3, 4, 5, 6, 7]],
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}

#[test]
fn zero_and_repeated_data_are_accepted_under_any_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4ec_0003);
    for data in [
        vec![0u64; 8],
        vec![0xff; 9],
        vec![0, 0xff, 0, 0xff, 0x1, 0x1],
    ] {
        let case = one_address_case(&data, 0x1234);
        for _ in 0..50 {
            let mut perm: Vec<u32> = (0..32).collect();
            perm.shuffle(&mut rng);
            let obs = observe(&case, &Order::Explicit(perm));
            assert_eq!(kinds(&case, &obs), vec![]);
        }
    }
}

#[test]
fn lost_update_is_caught() {
    let case = one_address_case(&[1, 2, 4, 8], 0);
    let mut obs = observe(&case, &Order::LaneAscending);
    obs.lds_final[0][2] ^= 4; // lane 2's update vanished from LDS
    assert_eq!(kinds(&case, &obs), vec![FindingKind::LostUpdate]);
    let v = judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).unwrap();
    let f = &v.findings[0];
    assert_eq!((f.group, f.address), (0, Some(16)));
    assert_eq!(f.lanes.len(), 4);
    let text = v.explain();
    assert!(
        text.contains("address 0x10") && text.contains("lost"),
        "{text}"
    );
}

#[test]
fn permuted_returns_are_caught() {
    let case = one_address_case(&[1, 2, 4, 8], 0);
    let mut obs = observe(&case, &Order::LaneAscending);
    obs.ret.swap(1, 2);
    assert_eq!(kinds(&case, &obs), vec![FindingKind::BrokenChain]);
}

#[test]
fn detached_cycle_is_caught() {
    // Lane 0 reads 0 and leaves 5; lanes 1 and 2 (data 3 each) claim to have
    // read 100 and 103: a balanced cycle 100 → 103 → 100 no read could see.
    let case = one_address_case(&[5, 3, 3], 0);
    let mut obs = observe(&case, &Order::LaneAscending);
    obs.ret[1] = 100;
    obs.ret[2] = 103;
    assert_eq!(kinds(&case, &obs), vec![FindingKind::DetachedCycle]);
}

#[test]
fn untouched_inactive_and_not_written_are_caught() {
    let case = one_address_case(&[1, 2], 0x40);
    let good = observe(&case, &Order::LaneAscending);

    let mut obs = good.clone();
    obs.lds_final[0][7] = 0; // qword 7 (address 0x38) nobody addressed
    assert_eq!(kinds(&case, &obs), vec![FindingKind::UntouchedChanged]);

    let mut obs = good.clone();
    obs.ret[20] = 0; // inactive lane 20 wrote VDST
    assert_eq!(kinds(&case, &obs), vec![FindingKind::InactiveLaneWritten]);

    let mut obs = good.clone();
    obs.ret[1] = POISON; // active lane 1 never wrote VDST
    assert_eq!(kinds(&case, &obs), vec![FindingKind::NotWritten]);

    // Uncontended: exact comparison.
    let single = one_address_case(&[9], 0x40);
    let good = observe(&single, &Order::LaneAscending);
    let mut obs = good.clone();
    obs.ret[0] = POISON;
    assert_eq!(kinds(&single, &obs), vec![FindingKind::NotWritten]);
    let mut obs = good.clone();
    obs.ret[0] ^= 1;
    assert_eq!(kinds(&single, &obs), vec![FindingKind::WrongReturn]);
    let mut obs = good;
    obs.lds_final[0][2] ^= 1 << 63;
    assert_eq!(kinds(&single, &obs), vec![FindingKind::WrongFinal]);
}

#[test]
fn a_poison_that_is_a_legal_intermediate_value_is_accepted() {
    // Lane 1's poison equals the value lane 0 leaves behind (1): when lane 1
    // runs second it legitimately returns 1, indistinguishable from "not
    // written", so the checker must accept it.
    let mut case = one_address_case(&[1, 2], 0);
    case.lanes[1].vdst_init = 1;
    let obs = observe(&case, &Order::LaneAscending);
    assert_eq!(obs.ret[1], 1);
    assert_eq!(kinds(&case, &obs), vec![]);
}

#[test]
fn out_of_range_and_slack_follow_the_policy() {
    let mut case = one_address_case(&[1], 0);
    case.lanes[1] = active(504, 0x77); // slack: in range (request 64 B, block 512 B)
    case.lanes[2] = active(512, 0x77); // past the block
    case.lanes[3] = active(504, 0x11); // contends in the slack
    let obs = observe(&case, &Order::LaneAscending);
    assert_eq!(obs.ret[1], 0, "slack starts zeroed in the model");
    assert_eq!(obs.ret[3], 0x77);
    assert_eq!(obs.ret[2], 0);
    assert_eq!(kinds(&case, &obs), vec![]);

    // The slack's initial content is unknown to the checker: any start works.
    let mut garbage = obs.clone();
    garbage.ret[1] = 0xabc;
    garbage.ret[3] = 0xabc ^ 0x77;
    assert_eq!(kinds(&case, &garbage), vec![]);
    // … but the chain must still hold.
    let mut broken = obs.clone();
    broken.ret[3] = 0x99;
    assert_eq!(kinds(&case, &broken), vec![FindingKind::BrokenChain]);

    let mut bad = obs.clone();
    bad.ret[2] = POISON;
    assert_eq!(kinds(&case, &bad), vec![FindingKind::OutOfRangeReturn]);
    let lenient = Policy {
        out_of_range_return: OutOfRangeReturn::VdstUnchanged,
        ..Policy::GFX11
    };
    let v = judge(&case, DeviceOutcome::Completed(&bad), &lenient).unwrap();
    assert!(v.passed(), "{}", v.explain());
    let any = Policy {
        out_of_range_return: OutOfRangeReturn::Any,
        ..Policy::GFX11
    };
    assert!(judge(&case, DeviceOutcome::Completed(&obs), &any)
        .unwrap()
        .passed());
    assert!(!judge(&case, DeviceOutcome::Completed(&obs), &lenient)
        .unwrap()
        .passed());
}

#[test]
fn faults_are_judged_against_memviol() {
    let mut case = one_address_case(&[1, 2], 0);
    let obs = observe(&case, &Order::LaneAscending);
    let v = judge(&case, DeviceOutcome::Fault("MEMVIOL"), &Policy::GFX11).unwrap();
    assert_eq!(v.findings.len(), 1);
    assert_eq!(v.findings[0].kind, FindingKind::UnexpectedFault);

    case.lanes[5] = active(12, 1); // misaligned
    let v = judge(&case, DeviceOutcome::Fault("MEMVIOL"), &Policy::GFX11).unwrap();
    assert!(v.passed(), "{}", v.explain());
    let v = judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).unwrap();
    assert_eq!(v.findings.len(), 1);
    assert_eq!(v.findings[0].kind, FindingKind::MisalignedNoFault);
    assert_eq!(v.findings[0].address, Some(12));
    assert_eq!(v.findings[0].lanes[0].lane, 5);
}

#[test]
fn mismatched_observations_are_errors_not_verdicts() {
    let case = one_address_case(&[1], 0);
    let mut obs = observe(&case, &Order::LaneAscending);
    obs.ret.pop();
    assert!(judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).is_err());
    let mut obs = observe(&case, &Order::LaneAscending);
    obs.lds_final[0].push(0);
    assert!(judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).is_err());
}

#[test]
fn random_single_bit_corruptions_of_contended_results_are_caught() {
    // Flip one bit of one return or of one touched final qword: with random
    // 64-bit data no serialization can produce the result.
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4ec_0004);
    let mut checker = Checker::new();
    let mut flipped = 0;
    for _ in 0..2000 {
        let case = random_case(&mut rng);
        let obs = observe(&case, &Order::LaneAscending);
        let mut bad = obs.clone();
        let active: Vec<usize> = (0..case.lanes.len())
            .filter(|&i| case.lanes[i].active)
            .collect();
        let Some(&i) = active.choose(&mut rng) else {
            continue;
        };
        let bit = 1u64 << rng.random_range(0..64);
        if rng.random_bool(0.5) {
            bad.ret[i] ^= bit;
        } else {
            let g = i / case.geometry.lanes_per_group() as usize;
            bad.lds_final[g][(case.lanes[i].addr / 8) as usize] ^= bit;
        }
        let v = checker
            .judge(&case, DeviceOutcome::Completed(&bad), &Policy::GFX11)
            .unwrap();
        assert!(!v.passed(), "corruption {bit:#x} of lane {i} accepted");
        flipped += 1;
    }
    assert!(flipped > 1900, "only {flipped} corruptions tried");
}

#[test]
fn wave_at_a_time_orders_are_recognised() {
    // Four waves of 32 on 4 addresses, random data. The waves run one at a
    // time in the order 2, 0, 3, 1; inside each wave lanes ascend (or descend).
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4ec_0005);
    let g = geometry(WaveSize::Wave32, 4, 1);
    let case = Case {
        pattern: "waves".into(),
        index: 0,
        geometry: g,
        lds_bytes: 64,
        offset: 0,
        lds_init: vec![(0..8).map(|_| rng.random()).collect()],
        lanes: (0..128)
            .map(|_| active(rng.random_range(0..4u32) * 8, rng.random()))
            .collect(),
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    };
    let waves = [2u32, 0, 3, 1];
    let within = |rev: bool| -> Vec<u32> {
        waves
            .iter()
            .flat_map(|&w| {
                let lanes: Vec<u32> = (0..32).map(|l| w * 32 + l).collect();
                if rev {
                    lanes.into_iter().rev().collect::<Vec<_>>()
                } else {
                    lanes
                }
            })
            .collect()
    };
    for (rev, want) in [
        (false, ObservedOrder::WaveAtATimeAscending),
        (true, ObservedOrder::WaveAtATimeDescending),
    ] {
        let obs = observe(&case, &Order::Explicit(within(rev)));
        let v = judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).unwrap();
        assert!(v.passed(), "{}", v.explain());
        assert_eq!(v.order.observed(), want, "{:?}", v.order);
    }
    // Interleaving lanes of different waves is neither.
    let mut perm = within(false);
    perm.swap(5, 40);
    let obs = observe(&case, &Order::Explicit(perm));
    let v = judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).unwrap();
    assert!(v.passed());
    assert_eq!(v.order.observed(), ObservedOrder::Other, "{:?}", v.order);
    // Wave 0 first throughout is plain lane-ascending.
    let obs = observe(&case, &Order::LaneAscending);
    let v = judge(&case, DeviceOutcome::Completed(&obs), &Policy::GFX11).unwrap();
    assert_eq!(v.order.observed(), ObservedOrder::LaneAscending);
}

/// A several-round case: round r is judged from a start the judge derives
/// (the round before's start XOR its DATA per qword), with the lanes sorted
/// by qword once for all rounds. Every order passes in every round; a
/// return corrupted in a middle round is found in that round.
#[test]
fn later_rounds_start_where_the_earlier_ones_ended() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4ec_0007);
    let mut lanes = vec![inactive(); 64];
    // Group 0: six lanes on qword 1, three on qword 3, one alone on qword 5;
    // group 1: five lanes on qword 0, two on qword 7 (the last one).
    for (i, q) in [(0..6, 1u32), (6..9, 3), (9..10, 5)]
        .into_iter()
        .flat_map(|(r, q)| r.map(move |i| (i, q)))
        .chain(
            [(0..5, 0u32), (5..7, 7)]
                .into_iter()
                .flat_map(|(r, q)| r.map(move |i| (32 + i, q))),
        )
    {
        lanes[i] = active(q * 8, rng.random());
    }
    let mut case = Case {
        pattern: "rounds".into(),
        index: 3,
        geometry: geometry(WaveSize::Wave32, 1, 2),
        lds_bytes: 64,
        offset: 0,
        lds_init: (0..2)
            .map(|_| (0..8).map(|_| rng.random()).collect())
            .collect(),
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    };
    case.more_rounds = (0..2)
        .map(|_| dsxor::case::Round {
            data: (0..64).map(|_| rng.random()).collect(),
            vdst_init: (0..64).map(|_| rng.random()).collect(),
        })
        .collect();
    let mut perm: Vec<u32> = (0..32).collect();
    perm.shuffle(&mut rng);
    for order in [
        Order::LaneAscending,
        Order::LaneDescending,
        Order::Explicit(perm),
    ] {
        let obs = observe(&case, &order);
        assert_eq!(kinds(&case, &obs), vec![], "{order:?}");
        // Lane 2 of group 0 (qword 1, shared), round 1 of 3.
        let mut bad = obs.clone();
        bad.ret[64 + 2] ^= 1 << 40;
        let v = judge(&case, DeviceOutcome::Completed(&bad), &Policy::GFX11).unwrap();
        assert_eq!(v.findings.len(), 1, "{order:?}: {}", v.explain());
        let f = &v.findings[0];
        assert_eq!((f.group, f.address), (0, Some(8)), "{}", v.explain());
        assert!(f.why.starts_with("round 1 of 3:"), "{}", f.why);
    }
}
