//! The software device's packed (VOP3P) integer, dot-product, lane-permute,
//! M0-relative and quad-SAD instructions (`emu::vext`) against values worked
//! out by hand from the RDNA3 ISA guide's pseudocode (quoted at each check),
//! with op_sel / op_sel_hi, clamp saturation, signed edges, EXEC-masked lanes
//! and permlane lane selects, in wave32 and wave64. Programs are assembled by
//! llvm-mc (the oracle for the encoding).

use crate::emu_support::{self, Setup};

use dsxor::emu::wave::{Status, Wave};
use dsxor::emu::WaveError;

/// Run `src` (ending in s_endpgm) on one wave prepared by `init`.
fn run_result(
    src: &str,
    wave64: bool,
    init: impl FnOnce(&mut Wave),
) -> Option<(Wave, Result<Status, WaveError>)> {
    let setup = Setup {
        wave64,
        ..Setup::default()
    };
    let r = emu_support::run(src, setup, |_| {}, init)?;
    Some((r.wave, r.result))
}

fn run(src: &str, wave64: bool, init: impl FnOnce(&mut Wave)) -> Option<Wave> {
    let setup = Setup {
        wave64,
        ..Setup::default()
    };
    emu_support::ended(src, setup, init)
}

/// Every lane of VGPR `r` = `v`.
fn fill(w: &mut Wave, r: usize, v: u32) {
    for l in 0..64 {
        w.set_vgpr(r, l, v);
    }
}

#[test]
fn packed_16_bit_ops_with_op_sel_clamp_and_exec() {
    // Lane 31 is inactive (exec_lo = 0x7fffffff): its destinations keep 0xdead.
    let src = "s_mov_b32 exec_lo, 0x7fffffff
v_pk_add_i16 v10, v2, v3
v_pk_add_i16 v11, v2, v3 clamp
v_pk_add_u16 v12, v2, v3 clamp
v_pk_sub_u16 v13, v3, v2 clamp
v_pk_sub_i16 v14, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]
v_pk_mad_u16 v15, v2, v3, v4 op_sel_hi:[1,1,0]
v_pk_mad_i16 v16, v2, v3, v4
v_pk_mul_lo_u16 v17, v2, v3
v_pk_lshlrev_b16 v18, v5, v3
v_pk_ashrrev_i16 v19, v5, v2
v_pk_lshrrev_b16 v20, v5, v2
v_pk_max_i16 v21, v2, v3
v_pk_min_u16 v22, v2, v3
v_pk_max_u16 v23, v3, v5
v_pk_min_i16 v24, v2, v3 op_sel:[0,1]
v_pk_add_u16 v25, v2, -1
v_pk_add_u16 v26, v2, 5
v_pk_sub_u16 v27, v2, v3
s_endpgm
";
    let Some(w) = run(src, false, |w| {
        // v2: hi 0x7fff (i16 max), lo 0x8000 (i16 min); v3: hi 1, lo 0xffff (-1).
        fill(w, 2, 0x7fff_8000);
        fill(w, 3, 0x0001_ffff);
        fill(w, 4, 0x0005_0003);
        fill(w, 5, 0x0011_0004);
        for r in 10..=27 {
            fill(w, r, 0xdead);
        }
    }) else {
        return;
    };
    let want: &[(usize, u32, &str)] = &[
        // "tmp[15 : 0].i16 = S0[15 : 0].i16 + S1[15 : 0].i16": -32768 + -1
        // wraps to 0x7fff; 32767 + 1 wraps to 0x8000.
        (10, 0x8000_7fff, "v_pk_add_i16 wraps"),
        // clamp saturates each half (policy packed-clamp).
        (11, 0x7fff_8000, "v_pk_add_i16 clamp"),
        // 0x8000 + 0xffff saturates to 0xffff; 0x7fff + 1 = 0x8000.
        (12, 0x8000_ffff, "v_pk_add_u16 clamp"),
        // "S0[15 : 0].u16 - S1[15 : 0].u16": 0xffff - 0x8000 = 0x7fff; 1 - 0x7fff < 0 → 0.
        (13, 0x0000_7fff, "v_pk_sub_u16 clamp"),
        // Low half: S0 hi (op_sel[0]) 32767 - S1 lo -1 = 32768 → 0x8000;
        // high half: S0 lo (op_sel_hi[0] = 0) -32768 - S1 hi 1 → 0x7fff.
        (14, 0x7fff_8000, "v_pk_sub_i16 op_sel"),
        // "S0.u16 * S1.u16 + S2.u16": lo 0x8000 * 0xffff + 3 → 0x8003;
        // hi 0x7fff * 1 + S2's low half 3 (op_sel_hi[2] = 0) → 0x8002.
        (15, 0x8002_8003, "v_pk_mad_u16 op_sel_hi"),
        // "S0.i16 * S1.i16 + S2.i16": -32768 * -1 + 3 = 32771 → 0x8003; 32767 + 5 → 0x8004.
        (16, 0x8004_8003, "v_pk_mad_i16"),
        // lo 0x8000 * 0xffff = 0x7fff8000 → 0x8000; hi 0x7fff * 1.
        (17, 0x7fff_8000, "v_pk_mul_lo_u16"),
        // "(S1[15 : 0].u16 << S0.u32[3 : 0].u32)", high half "<< S0.u32[19 : 16]":
        // 0xffff << 4 = 0xfff0; 1 << (0x11 & 15) = 2.
        (18, 0x0002_fff0, "v_pk_lshlrev_b16"),
        // "(S1[15 : 0].i16 >> S0.u32[3 : 0].u32)": -32768 >> 4 = 0xf800; 0x7fff >> 1.
        (19, 0x3fff_f800, "v_pk_ashrrev_i16"),
        (20, 0x3fff_0800, "v_pk_lshrrev_b16"),
        // "S0.i16 >= S1.i16 ? S0 : S1": max(-32768, -1) = -1; max(32767, 1).
        (21, 0x7fff_ffff, "v_pk_max_i16"),
        // "S0.u16 < S1.u16 ? S0 : S1": min(0x8000, 0xffff); min(0x7fff, 1).
        (22, 0x0001_8000, "v_pk_min_u16"),
        (23, 0x0011_ffff, "v_pk_max_u16"),
        // Low half: S0 lo -32768 vs S1 hi 1 (op_sel[1]) → -32768; high: 32767 vs 1 → 1.
        (24, 0x0001_8000, "v_pk_min_i16 op_sel"),
        // Inline -1 is the 32-bit 0xffffffff (policy packed-halves): both halves 0xffff.
        (25, 0x7ffe_7fff, "v_pk_add_u16 -1"),
        // Inline 5 is 0x00000005: the high half (op_sel_hi = 1) reads 0.
        (26, 0x7fff_8005, "v_pk_add_u16 5"),
        // No clamp: 0x8000 - 0xffff wraps to 0x8001; 0x7fff - 1.
        (27, 0x7ffe_8001, "v_pk_sub_u16 wraps"),
    ];
    for &(r, v, what) in want {
        assert_eq!(w.vgpr(r, 0), v, "{what}: lane 0 {:#x}", w.vgpr(r, 0));
        assert_eq!(w.vgpr(r, 30), v, "{what}: lane 30");
        assert_eq!(w.vgpr(r, 31), 0xdead, "{what}: inactive lane 31 written");
    }
}

#[test]
fn dot_products_signedness_selects_and_clamp() {
    let src = "v_dot4_u32_u8 v10, v2, v3, v4
v_dot4_i32_iu8 v11, v2, v3, v4
v_dot4_i32_iu8 v12, v2, v3, v4 neg_lo:[1,1,0]
v_dot4_i32_iu8 v13, v2, v3, v4 neg_lo:[1,0,0]
v_dot4_u32_u8 v14, v2, v3, v5 clamp
v_dot4_u32_u8 v15, v2, v3, v5
v_dot4_i32_iu8 v16, v2, v3, v6 neg_lo:[1,1,0] clamp
v_dot4_i32_iu8 v17, v2, v3, v6 neg_lo:[1,1,0]
v_dot8_u32_u4 v18, v7, v8, v4
v_dot8_i32_iu4 v19, v7, v8, v4 neg_lo:[0,1,0]
v_dot8_i32_iu4 v20, v8, v8, v9 neg_lo:[1,1,0] clamp
s_endpgm
";
    let Some(w) = run(src, false, |w| {
        // bytes (low first) of v2: 0x80 0x02 0x01 0xff; of v3: 0x10 0x03 0xff 0x02.
        fill(w, 2, 0xff01_0280);
        fill(w, 3, 0x02ff_0310);
        fill(w, 4, 100);
        fill(w, 5, 0xffff_fff0);
        fill(w, 6, 0x8000_0000);
        // nibbles of v7: 8 7 6 5 4 3 2 1; of v8: 0 f 0 f 0 f 0 f.
        fill(w, 7, 0x1234_5678);
        fill(w, 8, 0xf0f0_f0f0);
        fill(w, 9, 0x7fff_fff0);
    }) else {
        return;
    };
    // V_DOT4_U32_U8: "tmp = S2.u32; tmp += u8_to_u32(S0[7 : 0].u8) *
    // u8_to_u32(S1[7 : 0].u8); ...": 128*16 + 2*3 + 1*255 + 255*2 = 2819.
    assert_eq!(w.vgpr(10, 0), 2919);
    // V_DOT4_I32_IU8: "A[i] = NEG[0].u1 ? 32'I(signext(A8.i8)) :
    // 32'I(32'U(A8.u8))": no neg_lo, both unsigned.
    assert_eq!(w.vgpr(11, 0), 2919);
    // Both signed: -128*16 + 2*3 + 1*-1 + -1*2 = -2045.
    assert_eq!(w.vgpr(12, 0) as i32, 100 - 2045);
    // S0 signed, S1 unsigned: -2048 + 6 + 255 - 2 = -1789.
    assert_eq!(w.vgpr(13, 0) as i32, 100 - 1789);
    // 0xfffffff0 + 2819: clamp saturates (policy dot-clamp), without it wraps.
    assert_eq!(w.vgpr(14, 0), u32::MAX);
    assert_eq!(w.vgpr(15, 0), 2819 - 16);
    // i32::MIN - 2045: clamp saturates at i32::MIN, without it wraps.
    assert_eq!(w.vgpr(16, 0), 0x8000_0000);
    assert_eq!(w.vgpr(17, 0), 0x8000_0000u32.wrapping_sub(2045));
    // V_DOT8_U32_U4 "tmp += u4_to_u32(S0[3 : 0].u4) * u4_to_u32(S1[3 : 0].u4); ...":
    // (7 + 5 + 3 + 1) * 15 = 240.
    assert_eq!(w.vgpr(18, 0), 340);
    // V_DOT8_I32_IU4, S1 signed: its 0xf nibbles are -1: -(7 + 5 + 3 + 1).
    assert_eq!(w.vgpr(19, 0), 84);
    // Both signed: four (-1 * -1) = 4; 0x7ffffff0 + 4 does not saturate.
    assert_eq!(w.vgpr(20, 0), 0x7fff_fff4);
}

#[test]
fn maxmin_and_minmax() {
    let src = "v_maxmin_i32 v10, v2, v3, v4
v_maxmin_u32 v11, v2, v3, v4
v_minmax_i32 v12, v2, v3, v4
v_minmax_u32 v13, v2, v3, v4
v_maxmin_i32 v14, v2, -7, v2
s_endpgm
";
    let Some(w) = run(src, true, |w| {
        fill(w, 2, -5i32 as u32);
        fill(w, 3, 3);
        fill(w, 4, 1);
    }) else {
        return;
    };
    // "D0.i32 = v_min_i32(v_max_i32(S0.i32, S1.i32), S2.i32)": min(max(-5, 3), 1) = 1.
    assert_eq!(w.vgpr(10, 63), 1);
    // Unsigned: min(max(0xfffffffb, 3), 1) = 1.
    assert_eq!(w.vgpr(11, 63), 1);
    // "D0.i32 = v_max_i32(v_min_i32(S0.i32, S1.i32), S2.i32)": max(min(-5, 3), 1) = 1.
    assert_eq!(w.vgpr(12, 63), 1);
    // Unsigned: max(min(0xfffffffb, 3), 1) = 3.
    assert_eq!(w.vgpr(13, 63), 3);
    // min(max(-5, -7), -5) = -5.
    assert_eq!(w.vgpr(14, 0) as i32, -5);
}

/// `lanesel` nibble i = 15 - i: every lane reads its row's mirror lane.
const MIRROR_LO: u32 = 0x89ab_cdef;
const MIRROR_HI: u32 = 0x0123_4567;

fn permlane_init(w: &mut Wave) {
    w.s[3] = MIRROR_LO;
    w.s[4] = MIRROR_HI;
    for l in 0..64 {
        w.set_vgpr(2, l, 100 + l as u32);
        for r in 10..=14 {
            w.set_vgpr(r, l, 0xdead);
        }
    }
}

#[test]
fn permlane16_and_permlanex16_lane_selects_wave32() {
    // Lane 5 inactive: it keeps its old value, and lane 10 (whose mirror is
    // lane 5) reads an inactive lane.
    let src = "s_mov_b32 exec_lo, 0xffffffdf
v_permlane16_b32 v10, v2, s3, s4
v_permlane16_b32 v11, v2, s3, s4 op_sel:[1,0]
v_permlane16_b32 v12, v2, s3, s4 op_sel:[0,1]
v_permlanex16_b32 v13, v2, s3, s4 op_sel:[1,1]
v_permlanex16_b32 v14, v2, 0, 0
s_endpgm
";
    let Some(w) = run(src, false, permlane_init) else {
        return;
    };
    // "VGPR[row * 16 + i][VDST.u32] = tmp[64'B(row * 16) + lanesel[i * 4 + 3 : i * 4]]".
    for l in 0..32usize {
        let (row, i) = (l / 16, l % 16);
        let mirror = (row * 16 + 15 - i) as u32;
        let xmirror = ((row ^ 1) * 16 + 15 - i) as u32;
        if l == 5 {
            for r in 10..=14 {
                assert_eq!(w.vgpr(r, l), 0xdead, "inactive lane 5 of v{r} written");
            }
            continue;
        }
        let fetched = if mirror == 5 {
            None
        } else {
            Some(100 + mirror)
        };
        // Fetch-inactive off, bound-ctrl off: a lane whose source is inactive
        // keeps its value (policy permlane-inactive-source).
        assert_eq!(w.vgpr(10, l), fetched.unwrap_or(0xdead), "v10 lane {l}");
        // Fetch-inactive on: the guide's "tmp[i] = VGPR[i][SRC0.u32]" for every lane.
        assert_eq!(w.vgpr(11, l), 100 + mirror, "v11 lane {l}");
        // Bound-ctrl on: 0 from an inactive source.
        assert_eq!(w.vgpr(12, l), fetched.unwrap_or(0), "v12 lane {l}");
        // permlanex16: "altrow = { row[1], ~row[0] }" — the other row.
        assert_eq!(w.vgpr(13, l), 100 + xmirror, "v13 lane {l}");
        // Lane selects 0: every lane reads lane 0 of the other row (16 or 0).
        assert_eq!(w.vgpr(14, l), 100 + ((row ^ 1) * 16) as u32, "v14 lane {l}");
    }
}

#[test]
fn permlanes_wave64_rows_and_permlane64() {
    let src = "v_permlane16_b32 v10, v2, s3, s4
v_permlanex16_b32 v11, v2, s3, s4
s_mov_b32 exec_hi, 0x7fffffff
v_permlane64_b32 v12, v2
s_endpgm
";
    let Some(w) = run(src, true, permlane_init) else {
        return;
    };
    for l in 0..64usize {
        let (row, i) = (l / 16, l % 16);
        assert_eq!(w.vgpr(10, l), 100 + (row * 16 + 15 - i) as u32, "lane {l}");
        // Rows 0<->1, 2<->3.
        assert_eq!(
            w.vgpr(11, l),
            100 + ((row ^ 1) * 16 + 15 - i) as u32,
            "lane {l}"
        );
        // "altlane = { ~lane[5], lane[4 : 0] }; if EXEC[lane].u1 then
        // VGPR[lane][VDST.u32] = tmp[altlane]".
        let want = if l == 63 {
            0xdead
        } else {
            100 + (l ^ 32) as u32
        };
        assert_eq!(w.vgpr(12, l), want, "permlane64 lane {l}");
    }
    // Wave32: "Supported in wave64 ONLY; treated as scalar NOP in wave32".
    let Some(w) = run("v_permlane64_b32 v12, v2\ns_endpgm\n", false, permlane_init) else {
        return;
    };
    assert!((0..32).all(|l| w.vgpr(12, l) == 0xdead));
}

#[test]
fn m0_relative_moves() {
    let src = "s_mov_b32 m0, 3
v_movrels_b32 v10, v2
v_movreld_b32 v11, v1
v_movrelsd_b32 v20, v2
v_movreld_b32_e64 v60, 7
s_mov_b32 m0, 0x20001
v_movrelsd_2_b32 v30, v2
v_swaprel_b32 v40, v50
s_endpgm
";
    let Some(w) = run(src, false, |w| {
        for r in 0..64 {
            fill(w, r, 1000 + r as u32);
        }
        // Lane 1 inactive.
        w.set_exec(!2 & 0xffff_ffff);
    }) else {
        return;
    };
    for (l, on) in [(0usize, true), (1, false), (31, true)] {
        let id = |r: u32| 1000 + r;
        let pick = |r: u32, orig: u32| if on { id(r) } else { id(orig) };
        // "addr = SRC0.u32; addr += M0.u32[31 : 0]; D0.b32 = VGPR[laneId][addr].b32": v10 = v5.
        assert_eq!(w.vgpr(10, l), pick(5, 10), "movrels lane {l}");
        // "addr = DST.u32; addr += M0; VGPR[laneId][addr].b32 = S0.b32": v14 = v1.
        assert_eq!(w.vgpr(14, l), pick(1, 14), "movreld lane {l}");
        assert_eq!(w.vgpr(11, l), id(11), "movreld leaves its named vdst");
        // movrelsd: v23 = v5.
        assert_eq!(w.vgpr(23, l), pick(5, 23), "movrelsd lane {l}");
        assert_eq!(w.vgpr(63, l), if on { 7 } else { id(63) }, "movreld_e64");
        // "addrs += M0.u32[9 : 0]; addrd += M0.u32[25 : 16]": v32 = v3.
        assert_eq!(w.vgpr(32, l), pick(3, 32), "movrelsd_2 lane {l}");
        // swaprel: v42 <-> v51.
        assert_eq!(w.vgpr(42, l), pick(51, 42), "swaprel dst lane {l}");
        assert_eq!(w.vgpr(51, l), pick(42, 51), "swaprel src lane {l}");
    }
    // Past v255 is an error naming the policy.
    let Some((_, r)) = run_result(
        "s_mov_b32 m0, 250\nv_movrels_b32 v1, v10\ns_endpgm\n",
        false,
        |_| {},
    ) else {
        return;
    };
    match r {
        Err(WaveError::Unsupported { detail, .. }) => {
            assert!(detail.contains("movrel-out-of-range"), "{detail}")
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn quad_sads() {
    let src = "v_qsad_pk_u16_u8 v[10:11], v[2:3], v4, v[6:7]
v_mqsad_pk_u16_u8 v[12:13], v[2:3], v4, v[6:7]
v_mqsad_u32_u8 v[14:17], v[2:3], v4, v[20:23]
v_qsad_pk_u16_u8 v[18:19], v[2:3], v4, v[24:25]
s_endpgm
";
    let Some(w) = run(src, false, |w| {
        // S0 bytes 1..8, S1 bytes 1 2 0 4, accumulators 1 2 3 4.
        fill(w, 2, 0x0403_0201);
        fill(w, 3, 0x0807_0605);
        fill(w, 4, 0x0400_0201);
        fill(w, 6, 0x0002_0001);
        fill(w, 7, 0x0004_0003);
        fill(w, 20, 1000);
        fill(w, 21, 2000);
        fill(w, 22, 3000);
        fill(w, 23, u32::MAX);
        fill(w, 24, 0xffff);
        fill(w, 25, 0);
    }) else {
        return;
    };
    // "tmp[15 : 0] = 16'B(v_sad_u8(S0[31 : 0], S1[31 : 0], S2[15 : 0].u32))",
    // then S0[39 : 8], [47 : 16], [55 : 24]: |1-1|+|2-2|+|3-0|+|4-4| + 1 = 4;
    // [2 3 4 5]: 1+1+4+1 + 2 = 9; [3 4 5 6]: 2+2+5+2 + 3 = 14; [4 5 6 7]: 15 + 4 = 19.
    assert_eq!((w.vgpr(10, 0), w.vgpr(11, 0)), (0x0009_0004, 0x0013_000e));
    // v_msad_u8 skips the byte where S1 is 0: 0+1, 3+2, 6+3, 9+4.
    assert_eq!((w.vgpr(12, 0), w.vgpr(13, 0)), (0x0005_0001, 0x000d_0009));
    // 32-bit fields, v_msad_u8 sums 0, 3, 6, 9: 1000, 2003, 3006, and
    // 0xffffffff + 9 wraps to 8.
    assert_eq!(
        [w.vgpr(14, 0), w.vgpr(15, 0), w.vgpr(16, 0), w.vgpr(17, 0)],
        [1000, 2003, 3006, 8]
    );
    // "16'B(...)": 0xffff + 3 truncates to 2.
    assert_eq!(w.vgpr(18, 0) & 0xffff, 2);
}

#[test]
fn unmodelled_modifiers_are_errors_naming_the_policy() {
    for (src, policy) in [
        ("v_pk_mul_lo_u16 v1, v2, v3 clamp", "PACKED_CLAMP"),
        (
            "v_pk_add_u16 v1, v2, v3 neg_lo:[1,0]",
            "NEG_ON_PACKED_INTEGER",
        ),
    ] {
        let Some((_, r)) = run_result(&format!("{src}\ns_endpgm\n"), false, |_| {}) else {
            return;
        };
        match r {
            Err(WaveError::Unsupported { detail, .. }) => {
                assert!(detail.contains(policy), "{src}: {detail}")
            }
            other => panic!("{src}: expected an error, got {other:?}"),
        }
    }
}
