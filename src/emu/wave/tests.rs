//! The fast paths held to the generic one (handlers, the block loop, the
//! whole-row loops), and the semantics' edge cases.

use super::bits::{bfe_i, bfe_u};
use super::valu::{med3, perm, ValuStop};
use super::*;
use crate::emu::decode::{Inst, VOp};
use crate::emu::ds::Lds;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A wave with every SGPR, VGPR, SCC and EXEC drawn from `seed`.
fn random_wave(wave64: bool, seed: u64) -> Wave {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut w = Wave::new(wave64);
    for x in w.s.iter_mut().take(128) {
        // Small values half the time, so shifts, BFE fields, compares
        // and lane numbers hit their interesting ranges.
        *x = if rng.random() {
            rng.random_range(0..70)
        } else {
            rng.random()
        };
    }
    w.s[NULL as usize] = 0;
    // VGPRs from a cheap hash of (seed, index): a wave has 16,640.
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for x in w.v.iter_mut() {
        h = h
            .wrapping_mul(0x5851_f42d_4c95_7f2d)
            .wrapping_add(1442695040888963407);
        let r = (h >> 32) as u32;
        *x = if r & 1 == 0 { (r >> 1) % 70 } else { r };
    }
    w.scc = rng.random();
    // Full EXEC a third of the time (the whole-row fast path).
    let exec = if rng.random_range(0..3) == 0 {
        u64::MAX
    } else {
        rng.random()
    };
    w.set_exec(exec & w.full_mask());
    w.pc = 1;
    w
}

fn same(a: &Wave, b: &Wave, what: &str) {
    assert_eq!(a.s[..], b.s[..], "{what}: SGPRs");
    assert_eq!(a.scc, b.scc, "{what}: SCC");
    assert_eq!(a.pc, b.pc, "{what}: pc");
    assert!(a.v == b.v, "{what}: VGPRs differ");
}

/// The handler table covers exactly what the semantics run as data: every
/// VALU opcode that `valu_map` runs (a per-lane map) has a pre-resolved
/// handler and no other does, and likewise every SOP1 opcode `sop1_data`
/// runs. The table is derived from the opcode families, so an opcode
/// added to a family cannot be left on the slow path by a forgotten list
/// (as `v_cvt_f32_ubyte0..3` once were), nor handed a handler whose
/// semantics decline it.
#[test]
fn every_opcode_the_semantics_run_as_data_has_a_handler() {
    use super::operand::ResolvedSrc;
    use crate::emu::decode::{Sop1, Src, VEnc};
    for &op in VOp::ALL {
        let inst = Inst::Valu {
            op,
            enc: VEnc::E64,
            vdst: 1,
            sdst: 106,
            src: [Src::V(2), Src::V(3), Src::V(4)],
            op_sel: 0,
        };
        let mut w = random_wave(false, 7);
        let src = [ResolvedSrc::of(Src::V(2)).unwrap(); 3];
        let mapped = w.valu_map(op, 1, &src);
        assert_eq!(
            op_for(&inst).is_some(),
            mapped,
            "{}: handler vs valu_map",
            op.name()
        );
    }
    for &op in Sop1::ALL {
        let inst = Inst::Sop1 {
            op,
            sdst: 2,
            s0: Src::S(4),
        };
        let mut w = random_wave(false, 7);
        let runs = w.sop1_data(op, 2, ResolvedSrc::of(Src::S(4)).unwrap());
        assert_eq!(
            op_for(&inst).is_some(),
            runs,
            "{}: handler vs sop1_data",
            op.name()
        );
    }
}

/// Every instruction form that has a pre-resolved [`Op`], drawn as
/// random words of its encoding and decoded (so operands cover SGPRs,
/// VGPRs, inline constants, literals, vcc/exec/null/m0 and src_scc):
/// its handler with the decode-time operands and the generic path leave
/// identical state, in wave32 and wave64 with random EXEC.
#[test]
fn handlers_agree_with_the_generic_path() {
    let prog = super::super::decode::decode_text(&[], 0);
    let mem = GlobalMem::new();
    let env = Env {
        prog: &prog,
        mem: &mem,
        fault: None,
    };
    let mut lds = Lds::new(64);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut checked = 0usize;
    let mut forms = std::collections::BTreeSet::new();
    // (fixed high bits, mask of the random low bits, words)
    let encodings: [(u32, u32, usize); 8] = [
        (0b10 << 30, 0x3fff_ffff, 1),    // SOP2
        (0x17d << 23, 0x7f_ffff, 1),     // SOP1
        (0x17e << 23, 0x7f_ffff, 1),     // SOPC
        (0xb << 28, 0x0fff_ffff, 1),     // SOPK
        (0, 0x7fff_ffff, 1),             // VOP2 (and VOP1/VOPC by prefix)
        (0x3f << 25, 0x1ff_ffff, 1),     // VOP1
        (0x3e << 25, 0x1ff_ffff, 1),     // VOPC
        (0b110101 << 26, 0x3ff_00ff, 2), // VOP3 (modifier bits zero)
    ];
    for round in 0..16_000u64 {
        let (fixed, mask, n) = encodings[round as usize % encodings.len()];
        let mut words = [fixed | (rng.random::<u32>() & mask), 0, rng.random()];
        if n == 2 {
            // VOP3 second word: three 9-bit sources, no neg/omod.
            words[1] = rng.random::<u32>() & 0x07ff_ffff;
        }
        let (inst, _) = super::super::decode::decode_one(&words);
        if matches!(inst, Inst::Unsupported(_)) {
            continue;
        }
        // Without an Op the form runs through the generic path only.
        // With one: its baseline handler and (where the CPU has AVX2)
        // its AVX2 one.
        for isa_avx2 in [false, true] {
            let Some(op) = op_for_isa(&inst, isa_avx2) else {
                continue;
            };
            for wave64 in [false, true] {
                let seed = rng.random();
                let (mut a, mut b) = (random_wave(wave64, seed), random_wave(wave64, seed));
                let what = format!(
                    "{} (wave64 {wave64}, avx2 {isa_avx2}, seed {seed})",
                    inst.mnemonic()
                );
                (op.f)(&mut a, &op);
                let r = b.exec_generic(&inst, 0, &env, &mut lds, None);
                assert!(matches!(r, Ok(None)), "{what}: generic path {r:?}");
                same(&a, &b, &what);
                checked += 1;
                forms.insert(inst.mnemonic());
                // The whole-row (all lanes active, written in place)
                // loops against the masked ones, which the generic
                // path shares: all lanes at once equals even lanes
                // then odd lanes (no lane reads another's, so the
                // order cannot matter). Not for a form that reads EXEC
                // as a source, whose value the split changes.
                let reads_exec =
                    |s: &Src| matches!(s, Src::S(r) if *r == EXEC_LO || *r == EXEC_LO + 1);
                if matches!(&inst, Inst::Valu { src, .. } if !src.iter().any(reads_exec)) {
                    let (mut c, mut d) = (random_wave(wave64, seed), random_wave(wave64, seed));
                    let full = c.full_mask();
                    c.set_exec(full);
                    (op.f)(&mut c, &op);
                    for half in [0x5555_5555_5555_5555u64, !0x5555_5555_5555_5555u64] {
                        d.set_exec(full & half);
                        (op.f)(&mut d, &op);
                    }
                    d.set_exec(full);
                    same(&c, &d, &format!("{what}: full EXEC vs two halves"));
                }
            }
        }
    }
    assert!(
        checked > 5_000 && forms.len() > 150,
        "only {checked} checks over {} forms",
        forms.len()
    );
}

/// The block loop of [`Wave::run`] (handler runs, the branch fast path
/// and the fused compare-and-branch) against [`Wave::run_stepwise`] (every instruction through the
/// generic path) on random programs of scalar/vector ALU instructions
/// and SOPP branches of every condition (targets inside the text, and
/// now and then outside it), run in random quanta: the same status or
/// error after every quantum, the same pc, executed count and state.
#[test]
fn block_loop_agrees_with_the_stepwise_path() {
    use super::super::decode::{decode_one, decode_text};
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let encodings: [(u32, u32); 6] = [
        (0b10 << 30, 0x3fff_ffff), // SOP2
        (0x17d << 23, 0x7f_ffff),  // SOP1
        (0x17e << 23, 0x7f_ffff),  // SOPC
        (0xb << 28, 0x0fff_ffff),  // SOPK
        (0, 0x7fff_ffff),          // VOP2 (and VOP1/VOPC by prefix)
        (0x3e << 25, 0x1ff_ffff),  // VOPC
    ];
    let (mut branches, mut quanta, mut fused) = (0usize, 0usize, 0usize);
    for case in 0..300u64 {
        // (words, Some(branch target instruction) for a branch)
        let mut insts: Vec<(Vec<u32>, Option<i64>)> = Vec::new();
        let n = rng.random_range(4..30);
        while insts.len() < n {
            // Now and then a scalar compare right before an SCC branch
            // (s_cbranch_scc0 is 33, scc1 34): the fused
            // compare-and-branch of `Exit::CmpBranch`.
            if rng.random_range(0..6) == 0 {
                let (fixed, mask) = encodings[rng.random_range(2..4)];
                let words = [fixed | (rng.random::<u32>() & mask), rng.random(), 0];
                let (inst, k) = decode_one(&words);
                if matches!(inst, Inst::Sopc { .. } | Inst::Sopk { .. }) && k > 0 {
                    insts.push((words[..k].to_vec(), None));
                    let op = rng.random_range(33..=34u32);
                    insts.push((
                        vec![0x17f << 23 | op << 16],
                        Some(rng.random_range(0..n as i64)),
                    ));
                }
                continue;
            }
            if rng.random_range(0..4) == 0 {
                let op = rng.random_range(32..=38u32);
                let t = if rng.random_range(0..10) == 0 {
                    rng.random_range(-1000..1000)
                } else {
                    rng.random_range(0..n as i64)
                };
                insts.push((vec![0x17f << 23 | op << 16], Some(t)));
                continue;
            }
            let (fixed, mask) = encodings[rng.random_range(0..encodings.len())];
            let words = [fixed | (rng.random::<u32>() & mask), rng.random(), 0];
            let (inst, k) = decode_one(&words);
            if matches!(inst, Inst::Unsupported(_)) || k == 0 {
                continue;
            }
            insts.push((words[..k].to_vec(), None));
        }
        insts.push((vec![0x17f << 23 | 48 << 16], None)); // s_endpgm
        let starts: Vec<i64> = insts
            .iter()
            .scan(0i64, |w, (ws, _)| {
                let s = *w;
                *w += ws.len() as i64;
                Some(s)
            })
            .collect();
        let mut text = Vec::new();
        for (k, (ws, t)) in insts.iter().enumerate() {
            let mut ws = ws.clone();
            if let Some(t) = *t {
                // Words from the next instruction to the target's start.
                let to = starts.get(t as usize).copied().unwrap_or(t);
                ws[0] |= (to - starts[k] - 1) as u16 as u32;
            }
            text.extend(ws.iter().flat_map(|w| w.to_le_bytes()));
        }
        let prog = decode_text(&text, 0x1000);
        branches += prog
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Branch { .. }))
            .count();
        fused += prog
            .exits
            .iter()
            .filter(|e| matches!(e, Exit::CmpBranch { .. }))
            .count();
        let mem = GlobalMem::new();
        let env = Env {
            prog: &prog,
            mem: &mem,
            fault: None,
        };
        let wave64 = case % 2 == 1;
        let seed = rng.random();
        let (mut a, mut b) = (random_wave(wave64, seed), random_wave(wave64, seed));
        (a.pc, b.pc) = (0, 0);
        let (mut la, mut lb) = (Lds::new(64), Lds::new(64));
        for call in 0..12 {
            let q = rng.random_range(1..60);
            let ra = a.run(&env, &mut la, None, q);
            let rb = b.run_stepwise(&env, &mut lb, None, q);
            let what = format!("case {case} call {call} (quantum {q}, wave64 {wave64})");
            assert_eq!(format!("{ra:?}"), format!("{rb:?}"), "{what}: result");
            assert_eq!(a.executed, b.executed, "{what}: executed");
            assert_eq!(a.exec(), b.exec(), "{what}: EXEC");
            same(&a, &b, &what);
            quanta += 1;
            if !matches!(ra, Ok(Status::Running)) {
                break;
            }
        }
    }
    assert!(
        branches > 1000 && quanta > 1500 && fused > 300,
        "{branches} branches, {quanta} quanta, {fused} fused compare-and-branches"
    );
}

/// V_CNDMASK_B32's vectorized blend against a lane-by-lane reading of
/// the RDNA3 pseudocode, for every operand kind, both wave sizes and
/// random EXEC.
#[test]
fn cndmask_matches_the_lane_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for k in 0..400u64 {
        let wave64 = k % 2 == 1;
        let mut w = random_wave(wave64, k);
        let pick = |rng: &mut ChaCha8Rng| match rng.random_range(0..3) {
            0 => Src::V(rng.random_range(0..8)),
            1 => Src::S(rng.random_range(0..8)),
            _ => Src::Lit(rng.random()),
        };
        let src = [
            pick(&mut rng),
            Src::V(rng.random_range(0..8)),
            Src::S(2 * rng.random_range(0..4)),
        ];
        let before = w.v.to_vec();
        let exec = w.exec();
        let mask = w.read_mask(src[2]);
        let vdst = rng.random_range(0..10);
        let val = |w: &Wave, s: Src, l: usize| match s {
            Src::V(r) => before[r as usize * 64 + l],
            other => w.s32(other),
        };
        let want: Vec<u32> = (0..w.lanes as usize)
            .map(|l| {
                if exec >> l & 1 == 0 {
                    before[vdst as usize * 64 + l]
                } else if mask >> l & 1 == 1 {
                    val(&w, src[1], l)
                } else {
                    val(&w, src[0], l)
                }
            })
            .collect();
        assert!(w.valu_map(VOp::CndmaskB32, vdst, &src));
        let got: Vec<u32> = (0..w.lanes as usize)
            .map(|l| w.vgpr(vdst as usize, l))
            .collect();
        assert_eq!(got, want, "case {k}: {src:?} -> v{vdst}");
    }
}

/// Every VALU opcode the decoder can produce has semantics: run on a
/// wave, none stops with the "no semantics" error.
#[test]
fn every_valu_opcode_has_semantics() {
    for (k, &op) in VOp::ALL.iter().enumerate() {
        let mut w = random_wave(k % 2 == 1, k as u64);
        let src = [Src::V(1), Src::V(2), Src::S(4)];
        // An instruction's own stop (an M0-relative index past v255 with
        // this random M0) is semantics; only a missing arm fails.
        if let Err(e @ ValuStop::NoSemantics(_)) = w.valu(op, 8, 10, &src, 0) {
            panic!("{}: {e:?}", op.name());
        }
    }
}

/// The planted case: an opcode that reaches `valu_other` without an
/// arm there (v_xad_u32 is `valu_map`'s) stops the wave with an error
/// that names it, and changes nothing.
#[test]
fn an_opcode_without_semantics_stops_with_its_name() {
    let mut w = random_wave(false, 3);
    let (v, s) = (w.v.to_vec(), w.s.clone());
    let err = w
        .valu_other(VOp::XadU32, 8, 10, &[Src::V(1), Src::V(2), Src::V(3)])
        .expect_err("v_xad_u32 has no arm in valu_other");
    assert_eq!(err, NoSemantics("v_xad_u32"));
    // The error the wave stops with, at the pc exec_generic gives it.
    let stop = no_semantics(0x1234, err.0);
    let text = stop.to_string();
    assert!(
        matches!(stop, WaveError::Unsupported { pc: 0x1234, .. }),
        "{text}"
    );
    assert!(
        text.contains("v_xad_u32") && text.contains("no semantics"),
        "{text}"
    );
    assert!(w.v.to_vec() == v && w.s == s, "the stop changed registers");
}

#[test]
fn bfe_and_med3_edges() {
    assert_eq!(bfe_u(0xf0, 4, 4), 0xf);
    assert_eq!(bfe_i(0xf0, 4, 4), -1);
    assert_eq!(bfe_i(0x1234, 0, 0), 0);
    assert_eq!(bfe_i((1u64 << 63) as i64, 63, 1), -1);
    assert_eq!(med3(5, 1, 3), 3);
    assert_eq!(med3(-1i32, -5, 7), -1);
    assert_eq!(perm(0x0102_0304, 0x0506_0708, 0x0c07_0004), 0x0001_0804);
}

/// Words of a gfx1100 program, each instruction's bytes as llvm-mc-22
/// `-triple=amdgcn -mcpu=gfx1100 -show-encoding` prints them.
mod late_asm {
    pub const V_MOV_V2_0: &[u8] = &[0x80, 0x02, 0x04, 0x7e];
    /// ds_load_b64 v[3:4], v2
    pub const DS_LOAD_V3: &[u8] = &[0x00, 0x00, 0xd8, 0xd9, 0x02, 0x00, 0x00, 0x03];
    /// ds_load_b64 v[5:6], v2 offset:8
    pub const DS_LOAD_V5_OFF8: &[u8] = &[0x08, 0x00, 0xd8, 0xd9, 0x02, 0x00, 0x00, 0x05];
    /// v_mov_b32 v10, v3
    pub const V_MOV_V10_V3: &[u8] = &[0x03, 0x03, 0x14, 0x7e];
    /// v_mov_b32 v3, 7
    pub const V_MOV_V3_7: &[u8] = &[0x87, 0x02, 0x06, 0x7e];
    /// v_mov_b32 v11, v5
    pub const V_MOV_V11_V5: &[u8] = &[0x05, 0x03, 0x16, 0x7e];
    /// v_mov_b32 v12, s4
    pub const V_MOV_V12_S4: &[u8] = &[0x04, 0x02, 0x18, 0x7e];
    pub const WAIT_LGKM_0: &[u8] = &[0x07, 0xfc, 0x89, 0xbf];
    pub const WAIT_LGKM_1: &[u8] = &[0x17, 0xfc, 0x89, 0xbf];
    /// s_load_b64 s[4:5], s[0:1], 0x0
    pub const S_LOAD_S4: &[u8] = &[0x00, 0x01, 0x04, 0xf4, 0x00, 0x00, 0x00, 0xf8];
    /// s_mov_b32 exec_lo, 0xff
    pub const EXEC_FF: &[u8] = &[0xff, 0x00, 0xfe, 0xbe, 0xff, 0x00, 0x00, 0x00];
    /// s_mov_b32 exec_lo, -1
    pub const EXEC_ALL: &[u8] = &[0xc1, 0x00, 0xfe, 0xbe];
    pub const S_NOP_0: &[u8] = &[0x00, 0x00, 0x80, 0xbf];
    pub const S_ENDPGM: &[u8] = &[0x00, 0x00, 0xb0, 0xbf];
}

/// Run `parts` (then s_endpgm) on a wave32 whose LDS holds `0x1111_0000 + k`
/// in dword k, v3..v6 hold 0xdead and s[0:1] points at a global dword
/// 0x5eed; by the block loop (`stepwise` false) or the stepwise path, with
/// a scheduler of `seed` if given. The wave at its end.
fn run_late(parts: &[&[u8]], stepwise: bool, seed: Option<u64>) -> Wave {
    use crate::emu::decode::decode_text;
    let mut text: Vec<u8> = parts.concat();
    text.extend_from_slice(late_asm::S_ENDPGM);
    let prog = decode_text(&text, 0x1000);
    let mut mem = GlobalMem::new();
    let at = mem.map("sdata", &0x5eed_u64.to_le_bytes());
    let env = Env {
        prog: &prog,
        mem: &mem,
        fault: None,
    };
    let mut w = Wave::new(false);
    w.set_exec(w.full_mask());
    for r in 3..=6 {
        for l in 0..32 {
            w.set_vgpr(r, l, 0xdead);
        }
    }
    w.sw(0, at as u32);
    w.sw(1, (at >> 32) as u32);
    let mut lds = Lds::new(64);
    for k in 0..16u32 {
        lds.bytes[4 * k as usize..4 * k as usize + 4]
            .copy_from_slice(&(0x1111_0000 + k).to_le_bytes());
    }
    let mut sched = seed.map(|s| crate::emu::Sched::new(s, 0));
    let st = if stepwise {
        w.run_stepwise(&env, &mut lds, sched.as_mut(), 10_000)
    } else {
        w.run(&env, &mut lds, sched.as_mut(), 10_000)
    };
    assert_eq!(st.expect("the program runs"), Status::Ended);
    w
}

/// Policy results-arrive-late (`emu::late`): a DS load's destination keeps
/// its old value until the `s_waitcnt` that covers it (RDNA3 ISA guide
/// §5.6), on the block loop, the stepwise path and under a seeded
/// scheduler alike.
#[test]
fn a_ds_result_is_seen_only_after_its_wait() {
    use late_asm::*;
    for (stepwise, seed) in [
        (false, None),
        (true, None),
        (false, Some(3)),
        (true, Some(9)),
    ] {
        let w = run_late(
            &[
                V_MOV_V2_0,
                DS_LOAD_V3,
                V_MOV_V10_V3,
                WAIT_LGKM_0,
                V_MOV_V11_V5,
            ],
            stepwise,
            seed,
        );
        let what = format!("stepwise {stepwise}, seed {seed:?}");
        assert_eq!(w.vgpr(10, 0), 0xdead, "{what}: the early read");
        assert_eq!(w.vgpr(3, 0), 0x1111_0000, "{what}: after the wait");
        assert_eq!(w.vgpr(4, 31), 0x1111_0001, "{what}: after the wait");
        assert!(w.late.is_empty(), "{what}");
    }
}

/// Without a wait a result lands [`crate::emu::late::LATE_BOUND`] of the
/// wave's instructions after it issued: the instruction that many after
/// the load still reads the old value, the one after it the new.
#[test]
fn a_result_nobody_waits_for_lands_after_the_bound() {
    use crate::emu::late::LATE_BOUND;
    use late_asm::*;
    for stepwise in [false, true] {
        let nops = |n: u64| vec![S_NOP_0; n as usize];
        let mut at_bound: Vec<&[u8]> = vec![V_MOV_V2_0, DS_LOAD_V3];
        at_bound.extend(nops(LATE_BOUND - 1));
        at_bound.push(V_MOV_V10_V3);
        let w = run_late(&at_bound, stepwise, None);
        assert_eq!(
            w.vgpr(10, 5),
            0xdead,
            "stepwise {stepwise}: instruction {LATE_BOUND}"
        );
        let mut past: Vec<&[u8]> = vec![V_MOV_V2_0, DS_LOAD_V3];
        past.extend(nops(LATE_BOUND));
        past.push(V_MOV_V10_V3);
        let w = run_late(&past, stepwise, None);
        assert_eq!(
            w.vgpr(10, 5),
            0x1111_0000,
            "stepwise {stepwise}: past the bound"
        );
    }
}

/// DS results return in order: `lgkmcnt(1)` after two loads lands the
/// first and not the second.
#[test]
fn a_partial_lgkm_wait_lands_the_older_ds_result() {
    use late_asm::*;
    let w = run_late(
        &[
            V_MOV_V2_0,
            DS_LOAD_V3,
            DS_LOAD_V5_OFF8,
            WAIT_LGKM_1,
            V_MOV_V10_V3,
            V_MOV_V11_V5,
        ],
        false,
        None,
    );
    assert_eq!(w.vgpr(10, 0), 0x1111_0000, "the older load landed");
    assert_eq!(w.vgpr(11, 0), 0xdead, "the younger is still out");
}

/// Sub-policy smem-returns-first: with an SMEM load issued after a DS load,
/// `lgkmcnt(1)` lands the SMEM result and leaves the DS one out (SMEM may
/// return out of order, so the count proves nothing about the DS load).
#[test]
fn a_partial_lgkm_wait_with_smem_in_flight_lands_the_smem_first() {
    use late_asm::*;
    let w = run_late(
        &[
            V_MOV_V2_0,
            DS_LOAD_V3,
            S_LOAD_S4,
            WAIT_LGKM_1,
            V_MOV_V10_V3,
            V_MOV_V12_S4,
        ],
        false,
        None,
    );
    assert_eq!(w.vgpr(12, 0), 0x5eed, "the SMEM result landed");
    assert_eq!(w.vgpr(10, 0), 0xdead, "the DS result is still out");
}

/// A result lands in the lanes active at issue: a lane EXEC left out keeps
/// what a VALU wrote into it while the load was out; an active lane's
/// value written meanwhile is overwritten by the late result.
#[test]
fn a_late_result_writes_only_the_lanes_active_at_issue() {
    use late_asm::*;
    let w = run_late(
        &[
            V_MOV_V2_0,
            EXEC_FF,
            DS_LOAD_V3,
            EXEC_ALL,
            V_MOV_V3_7,
            WAIT_LGKM_0,
        ],
        false,
        None,
    );
    assert_eq!(w.vgpr(3, 7), 0x1111_0000, "an active lane: the late result");
    assert_eq!(w.vgpr(3, 8), 7, "an inactive lane keeps the VALU's write");
}

/// The table's SCC columns (`isa::alu::AluOp::implicit`, from LLVM's
/// `Uses`/`Defs`) against what the software device's SALU semantics,
/// written from the RDNA3 guide's pseudocode, do: run every scalar row on
/// random waves twice, SCC 0 and SCC 1 and all else equal. An op that
/// reads SCC somewhere gives different SGPRs (or, when it also writes it,
/// a different SCC) for the two; one that writes it somewhere ends with an
/// SCC other than the one it started with; one that does neither leaves
/// SCC alone and the SGPRs equal. The M0-relative moves (their row's M0
/// read) run with M0 = 0, so their index stays on the SGPRs named.
#[test]
fn salu_semantics_agree_with_the_tables_scc_columns() {
    use crate::isa::alu::{AluInst, Format, Kind, Opnd, ALU_OPS};
    let prog = super::super::decode::decode_text(&[], 0);
    let mem = GlobalMem::new();
    let env = Env {
        prog: &prog,
        mem: &mem,
        fault: None,
    };
    let mut lds = Lds::new(64);
    let mut checked = 0;
    for row in ALU_OPS.iter().filter(|r| {
        matches!(r.format, Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk)
            // They move the program counter; s_version (SIMM16 alone, no
            // SGPR) is not a form `isa::alu`'s SOPK encoder writes.
            && !matches!(r.name, "s_getpc_b64" | "s_setpc_b64" | "s_swappc_b64" | "s_version")
    }) {
        let dst = (row.dst != Kind::None).then_some(Opnd::S(10));
        let srcs = row
            .srcs
            .iter()
            .zip([20u8, 22])
            .map(|(k, s)| match k {
                Kind::Imm16 => Opnd::Lit(0x1234),
                Kind::Null => Opnd::Null,
                _ => Opnd::S(s),
            })
            .collect();
        let words = AluInst::new(row.name, dst, None, srcs)
            .and_then(|i| i.encode(false))
            .unwrap_or_else(|e| panic!("{}: {e}", row.name));
        let (inst, _) = super::super::decode::decode_one(&words);
        assert!(!matches!(inst, Inst::Unsupported(_)), "{}", row.name);
        let (mut reads, mut writes) = (false, false);
        for seed in 0..64u64 {
            let mut out = Vec::new();
            for scc in [false, true] {
                let mut w = random_wave(seed % 2 == 1, seed);
                w.scc = scc;
                if row.implicit.reads_m0() {
                    w.s[crate::emu::decode::M0 as usize] = 0;
                }
                let r = w.exec_generic(&inst, 0, &env, &mut lds, None);
                assert!(matches!(r, Ok(None)), "{}: {r:?}", row.name);
                writes |= w.scc != scc;
                out.push((w.s, w.scc));
            }
            let same_sgprs = out[0].0[..] == out[1].0[..];
            reads |= !same_sgprs || (row.implicit.writes_scc() && out[0].1 != out[1].1);
        }
        let i = row.implicit;
        assert_eq!(reads, i.reads_scc(), "{}: SCC read", row.name);
        assert_eq!(writes, i.writes_scc(), "{}: SCC write", row.name);
        checked += 1;
    }
    assert!(checked > 100, "only {checked} scalar rows");
}
