//! Property tests of the model (seeded ChaCha8, thousands of cases): the
//! algebra of XOR that every serialization must respect, computed here
//! independently of the model's code path.

use std::collections::HashMap;

use dsxor::case::{Case, Geometry, LaneInput, WaveSize};
use dsxor::model::{
    ds_xor_rtn_b64_group, ds_xor_rtn_b64_wave, expect, Executed, Expected, Lds, Order,
    OutOfRangeReturn, Policy,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CASES: usize = 3000;

/// A random, always-aligned case: few addresses so lanes contend, some
/// out-of-range and slack addresses, random EXEC.
fn random_case(rng: &mut ChaCha8Rng, index: u64) -> Case {
    let wave_size = if rng.random_bool(0.5) {
        WaveSize::Wave32
    } else {
        WaveSize::Wave64
    };
    let geometry = Geometry {
        wave_size,
        waves_per_group: rng.random_range(1..=2),
        groups: rng.random_range(1..=2),
        mode: dsxor::case::Mode::Wgp,
    };
    let lds_qwords = rng.random_range(1..=80usize);
    let lds_bytes = lds_qwords as u32 * 8;
    let alloc_qwords = (lds_bytes.div_ceil(512) * 64) as u64;
    let offset: u16 = if rng.random_bool(0.05) {
        4096
    } else {
        [0, 8, 64][rng.random_range(0..3)]
    };
    let n_addr = rng.random_range(1..=6);
    // ADDR qword slots: mostly in the request, some in the slack, some past
    // the block (the offset moves them further).
    let slots: Vec<u64> = (0..n_addr)
        .map(|_| match rng.random_range(0..10) {
            0 => alloc_qwords + rng.random_range(0..4),
            1 if (lds_qwords as u64) < alloc_qwords => {
                rng.random_range(lds_qwords as u64..alloc_qwords)
            }
            _ => rng.random_range(0..lds_qwords as u64),
        })
        .collect();
    let lanes = (0..geometry.total_lanes())
        .map(|_| LaneInput {
            addr: (slots[rng.random_range(0..slots.len())] * 8) as u32,
            data: match rng.random_range(0..5) {
                0 => 0,
                1 => u64::MAX,
                2 => 1 << rng.random_range(0..64),
                _ => rng.random(),
            },
            active: rng.random_bool(0.8),
            vdst_init: rng.random(),
        })
        .collect();
    let lds_init = (0..geometry.groups)
        .map(|_| (0..lds_qwords).map(|_| rng.random()).collect())
        .collect();
    Case {
        pattern: "model-property".into(),
        index,
        geometry,
        lds_bytes,
        offset,
        lds_init,
        lanes,
        more_rounds: Vec::new(),
        stress: None,
        traffic: None,
    }
}

fn orders(rng: &mut ChaCha8Rng, n: usize) -> Vec<Order> {
    let mut v = vec![Order::LaneAscending, Order::LaneDescending];
    for _ in 0..3 {
        let mut p: Vec<u32> = (0..n as u32).collect();
        p.shuffle(rng);
        v.push(Order::Explicit(p));
    }
    v
}

fn permutation(order: &Order, n: usize) -> Vec<usize> {
    match order {
        Order::LaneAscending => (0..n).collect(),
        Order::LaneDescending => (0..n).rev().collect(),
        Order::Explicit(p) => p.iter().map(|&i| i as usize).collect(),
    }
}

fn completed(e: Expected) -> dsxor::model::Expectation {
    match e {
        Expected::Completed(x) => x,
        Expected::Fault(m) => panic!("aligned case faulted: {m:?}"),
    }
}

#[test]
fn final_is_init_xor_all_active_data_under_every_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0001);
    let policy = Policy::GFX11;
    for i in 0..CASES {
        let case = random_case(&mut rng, i as u64);
        let per_group = case.geometry.lanes_per_group() as usize;
        let mut finals = Vec::new();
        for order in orders(&mut rng, per_group) {
            let x = completed(expect(&case, &order, &policy).unwrap());
            for (g, img) in case.lds_init.iter().enumerate() {
                let mut want = img.clone();
                for l in case.group_lanes(g) {
                    let eff = u64::from(l.addr) + u64::from(case.offset);
                    if l.active && eff < u64::from(case.lds_bytes) {
                        want[(eff / 8) as usize] ^= l.data;
                    }
                }
                assert_eq!(
                    x.lds_final[g],
                    want,
                    "case {i} group {g} order {}",
                    order.name()
                );
            }
            finals.push(x.lds_final);
        }
        assert!(finals.windows(2).all(|w| w[0] == w[1]));
    }
}

#[test]
fn returns_follow_the_chain_of_the_order_used() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0002);
    let policy = Policy::GFX11;
    for i in 0..CASES {
        let case = random_case(&mut rng, i as u64);
        let per_group = case.geometry.lanes_per_group() as usize;
        for order in orders(&mut rng, per_group) {
            let x = completed(expect(&case, &order, &policy).unwrap());
            for g in 0..case.lds_init.len() {
                // Running value per effective address, starting from init
                // (slack starts 0 in the model, past-the-block reads 0).
                let mut cur: HashMap<u64, u64> = HashMap::new();
                for li in permutation(&order, per_group) {
                    let l = case.group_lanes(g)[li];
                    let r = x.ret[g * per_group + li];
                    if !l.active {
                        assert_eq!(r, l.vdst_init, "inactive lane {li} changed VDST");
                        continue;
                    }
                    let eff = u64::from(l.addr) + u64::from(case.offset);
                    if eff >= u64::from(case.lds_bytes).div_ceil(512) * 512 {
                        assert_eq!(r, 0, "out-of-range lane returns 0 under the default policy");
                        continue;
                    }
                    let v = cur.entry(eff).or_insert_with(|| {
                        case.lds_init[g]
                            .get((eff / 8) as usize)
                            .copied()
                            .unwrap_or(0)
                    });
                    assert_eq!(r, *v, "case {i} group {g} lane {li} order {}", order.name());
                    *v ^= l.data;
                }
            }
        }
    }
}

#[test]
fn inactive_lanes_change_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0003);
    let policy = Policy::GFX11;
    for i in 0..CASES {
        let case = random_case(&mut rng, i as u64);
        let base = completed(expect(&case, &Order::LaneAscending, &policy).unwrap());
        // Scramble every inactive lane's inputs, misaligned addresses included:
        // nothing observable may change except that lane's own VDST poison.
        let mut scrambled = case.clone();
        for l in scrambled.lanes.iter_mut().filter(|l| !l.active) {
            l.addr = rng.random();
            l.data = rng.random();
        }
        let again = completed(expect(&scrambled, &Order::LaneAscending, &policy).unwrap());
        assert_eq!(base, again, "case {i}");
        for (l, r) in case.lanes.iter().zip(&base.ret) {
            if !l.active {
                assert_eq!(*r, l.vdst_init);
            }
        }
        // All lanes off: nothing changes at all.
        let mut off = case.clone();
        off.lanes.iter_mut().for_each(|l| l.active = false);
        let x = completed(expect(&off, &Order::LaneDescending, &policy).unwrap());
        assert_eq!(x.lds_final, case.lds_init);
        assert!(x
            .ret
            .iter()
            .zip(&case.lanes)
            .all(|(r, l)| *r == l.vdst_init));
    }
}

#[test]
fn applying_the_instruction_twice_restores_lds() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0004);
    for i in 0..CASES {
        let policy = Policy {
            out_of_range_return: if i % 2 == 0 {
                OutOfRangeReturn::Zero
            } else {
                OutOfRangeReturn::VdstUnchanged
            },
            ..Policy::GFX11
        };
        let case = random_case(&mut rng, i as u64);
        let per_group = case.geometry.lanes_per_group();
        for (g, img) in case.lds_init.iter().enumerate() {
            let mut lds = Lds::with_image(case.lds_bytes, img, &policy).unwrap();
            let slack: Vec<u64> = (0..lds.slack().len()).map(|_| rng.random()).collect();
            let n = lds.image().len();
            lds.qwords_mut()[n..].copy_from_slice(&slack);
            let before = lds.clone();
            let lanes = case.group_lanes(g);
            let mut ret = vec![0; per_group as usize];
            let ords = orders(&mut rng, per_group as usize);
            for o in [&ords[2], &ords[3]] {
                let e = ds_xor_rtn_b64_group(
                    &mut lds,
                    &policy,
                    case.geometry.wave_size,
                    lanes,
                    case.offset,
                    o,
                    &mut ret,
                )
                .unwrap();
                assert_eq!(e, Executed::Completed);
            }
            assert_eq!(lds, before, "case {i} group {g}");
        }
    }
}

#[test]
fn a_misaligned_active_lane_faults_the_whole_instruction() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0005);
    let policy = Policy::GFX11;
    for i in 0..CASES {
        let mut case = random_case(&mut rng, i as u64);
        let victim = rng.random_range(0..case.lanes.len());
        case.lanes[victim].active = true;
        case.lanes[victim].addr = case.lanes[victim].addr.wrapping_add(rng.random_range(1..8));
        match expect(&case, &Order::LaneAscending, &policy).unwrap() {
            Expected::Fault(m) => {
                assert!(m.lane_index <= victim);
                let l = case.lanes[m.lane_index];
                assert!(l.active);
                assert_eq!(m.address, u64::from(l.addr) + u64::from(case.offset));
                assert_ne!(m.address % 8, 0);
            }
            e => panic!("case {i}: misaligned lane {victim} did not fault: {e:?}"),
        }
    }
}

#[test]
fn wave_register_view_matches_group_view() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0006);
    let policy = Policy::GFX11;
    for i in 0..CASES {
        let case = random_case(&mut rng, i as u64);
        let ws = case.geometry.wave_size.lanes() as usize;
        let lanes = &case.group_lanes(0)[..ws];
        let exec = lanes
            .iter()
            .enumerate()
            .fold(0u64, |m, (j, l)| m | (u64::from(l.active) << j));
        let addr: Vec<u32> = lanes.iter().map(|l| l.addr).collect();
        let data: Vec<u64> = lanes.iter().map(|l| l.data).collect();
        let mut vdst: Vec<u64> = lanes.iter().map(|l| l.vdst_init).collect();
        let mut p: Vec<u32> = (0..ws as u32).collect();
        p.shuffle(&mut rng);
        let order = Order::Explicit(p);
        let mut a = Lds::with_image(case.lds_bytes, &case.lds_init[0], &policy).unwrap();
        let mut b = a.clone();
        ds_xor_rtn_b64_wave(
            &mut a,
            &policy,
            case.geometry.wave_size,
            exec,
            &addr,
            &data,
            &mut vdst,
            case.offset,
            &order,
        )
        .unwrap();
        let mut ret = vec![0; ws];
        ds_xor_rtn_b64_group(
            &mut b,
            &policy,
            case.geometry.wave_size,
            lanes,
            case.offset,
            &order,
            &mut ret,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(vdst, ret);
    }
}
