//! The DS atomics that `dsxor qualify`'s DS corpus needs — `ds_wrap_rtn_b32`,
//! `ds_condxchg32_rtn_b64`, the two-address exchanges and the float
//! atomics — on the software device, programs assembled by llvm-mc-22.
//! Expected values are worked by hand from the RDNA3 guide's pseudocode,
//! quoted at each test, and from the named policies of `emu::ds` where the
//! guide is silent; both wave sizes, EXEC-masked lanes, ds-range and
//! ds-align.

use crate::emu_support::{self, Run, Setup};

use dsxor::emu::ds::Lds;
use dsxor::emu::wave::{Status, Wave};
use dsxor::emu::WaveError;

/// Run `src` (s_endpgm appended) on one wave prepared by `init`, with an LDS
/// of `lds_size` bytes prepared by `mem`.
fn run_with(
    src: &str,
    wave64: bool,
    lds_size: u32,
    mem: impl FnOnce(&mut Lds),
    init: impl FnOnce(&mut Wave),
) -> Option<Run> {
    let setup = Setup {
        wave64,
        lds_bytes: lds_size,
        // Denormals kept, as the shipped kernels' descriptors set them
        // (FLOAT_DENORM_MODE_32 = 3: MODE bits 5:4).
        mode: Some(0xf0),
        ..Setup::default()
    };
    emu_support::run(&format!("{src}\ns_endpgm\n"), setup, mem, init)
}

fn ended(src: &str, r: &Run) {
    assert_eq!(r.result, Ok(Status::Ended), "`{src}` did not end cleanly");
}

fn u32_at(l: &Lds, a: usize) -> u32 {
    u32::from_le_bytes(l.bytes[a..a + 4].try_into().expect("4 bytes"))
}

fn u64_at(l: &Lds, a: usize) -> u64 {
    u64::from_le_bytes(l.bytes[a..a + 8].try_into().expect("8 bytes"))
}

fn put32(l: &mut Lds, a: usize, v: u32) {
    l.bytes[a..a + 4].copy_from_slice(&v.to_le_bytes());
}

fn put64(l: &mut Lds, a: usize, v: u64) {
    l.bytes[a..a + 8].copy_from_slice(&v.to_le_bytes());
}

fn pair(w: &Wave, r: usize, l: usize) -> u64 {
    u64::from(w.vgpr(r, l)) | u64::from(w.vgpr(r + 1, l)) << 32
}

fn set_pair(w: &mut Wave, r: usize, l: usize, v: u64) {
    w.set_vgpr(r, l, v as u32);
    w.set_vgpr(r + 1, l, (v >> 32) as u32);
}

/// DS_WRAP_RTN_B32: "tmp = MEM[ADDR].u32; MEM[ADDR].u32 = tmp >= DATA.u32 ?
/// tmp - DATA.u32 : tmp + DATA2.u32; RETURN_DATA = tmp". Every lane on one
/// address in both wave sizes, odd lanes masked off: each active lane sees
/// the value the lanes before it left (ds-order).
#[test]
fn ds_wrap_rtn_b32_subtracts_or_adds_in_lane_order() {
    for wave64 in [false, true] {
        let src = "ds_wrap_rtn_b32 v3, v0, v1, v2 offset:4";
        let Some(r) = run_with(
            src,
            wave64,
            512,
            |m| put32(m, 4, 10),
            |w| {
                let lanes = if wave64 { 64 } else { 32 };
                let mut exec = 0u64;
                for l in 0..lanes {
                    w.set_vgpr(0, l, 0);
                    w.set_vgpr(1, l, 4); // DATA
                    w.set_vgpr(2, l, 7); // DATA2
                    w.set_vgpr(3, l, 0xdead);
                    exec |= u64::from(l % 2 == 0) << l;
                }
                w.set_exec(exec);
            },
        ) else {
            return;
        };
        ended(src, &r);
        // 10 -> 6 -> 2 -> (2 < 4) 9 -> 5 -> 1 -> 8 -> 4 -> 0 -> 7 -> 3 -> 10 ...
        let mut m = 10u32;
        let lanes = if wave64 { 64 } else { 32 };
        for l in 0..lanes {
            if l % 2 == 1 {
                assert_eq!(r.wave.vgpr(3, l), 0xdead, "inactive lane {l} keeps VDST");
                continue;
            }
            assert_eq!(r.wave.vgpr(3, l), m, "lane {l} (wave64 {wave64})");
            m = if m >= 4 { m - 4 } else { m + 7 };
        }
        assert_eq!(u32_at(&r.lds, 4), m);
        assert_eq!(u32_at(&r.lds, 0), 0, "the neighbouring dword is untouched");
    }
}

/// The wrap is modulo 2^32: `tmp + DATA2` past 0xffffffff wraps, `tmp >=
/// DATA` is unsigned.
#[test]
fn ds_wrap_rtn_b32_is_unsigned_and_wraps() {
    let src = "ds_wrap_rtn_b32 v3, v0, v1, v2";
    let Some(r) = run_with(
        src,
        false,
        512,
        |m| {
            put32(m, 0, 0x7fff_ffff);
            put32(m, 4, 5);
        },
        |w| {
            w.set_exec(0b11);
            w.set_vgpr(0, 0, 0);
            w.set_vgpr(1, 0, 0x8000_0000); // 0x7fffffff < 0x80000000 unsigned
            w.set_vgpr(2, 0, 0x8000_0002); // so + DATA2, wrapping to 1
            w.set_vgpr(0, 1, 4);
            w.set_vgpr(1, 1, 0xffff_fffb); // -5 signed, but unsigned 5 < it
            w.set_vgpr(2, 1, 0xffff_fffd); // 5 + 0xfffffffd wraps to 2
        },
    ) else {
        return;
    };
    ended(src, &r);
    assert_eq!((r.wave.vgpr(3, 0), u32_at(&r.lds, 0)), (0x7fff_ffff, 1));
    assert_eq!((r.wave.vgpr(3, 1), u32_at(&r.lds, 4)), (5, 2));
}

/// DS_CONDXCHG32_RTN_B64: "ADDR0 = ((ADDR + offset.u32) & 0xfff8U); ADDR1 =
/// ADDR0 + 4U; RETURN_DATA[0] = LDS[ADDR0].u32; if DATA[31] then LDS[ADDR0]
/// = { 1'0, DATA[30 : 0] } endif; RETURN_DATA[1] = LDS[ADDR1].u32; if
/// DATA[63] then LDS[ADDR1] = { 1'0, DATA[62 : 32] } endif".
#[test]
fn ds_condxchg32_rtn_b64_writes_each_dword_whose_bit_31_is_set() {
    for wave64 in [false, true] {
        let src = "ds_condxchg32_rtn_b64 v[4:5], v0, v[2:3]";
        let base = 0x1111_1111_2222_2222u64;
        let Some(r) = run_with(
            src,
            wave64,
            512,
            |m| {
                for q in 0..4 {
                    put64(m, 8 * q, base + q as u64);
                }
            },
            |w| {
                // Lane q on qword q: neither, low only, high only, both.
                let data = [
                    0x7fff_ffff_7fff_ffffu64,
                    0x0000_0005_8000_0006,
                    0x8000_0007_0000_0008,
                    0xffff_ffff_ffff_ffff,
                ];
                w.set_exec(if wave64 { 0xf << 32 | 0xf } else { 0xf });
                for l in 0..64 {
                    set_pair(w, 4, l, 0xabc);
                }
                for (q, d) in data.iter().enumerate() {
                    for l in [q, q + 32] {
                        w.set_vgpr(0, l, 8 * q as u32);
                        set_pair(w, 2, l, *d);
                    }
                }
            },
        ) else {
            return;
        };
        ended(src, &r);
        let lane_hi = if wave64 { 32 } else { 4 };
        // wave64: lanes 32..35 repeat lanes 0..3 on the same qwords, after them.
        assert_eq!(pair(&r.wave, 4, 0), base);
        assert_eq!(pair(&r.wave, 4, 1), base + 1);
        assert_eq!(u64_at(&r.lds, 0), base, "no bit 31: nothing written");
        assert_eq!(u64_at(&r.lds, 8), 0x1111_1111_0000_0006);
        assert_eq!(u64_at(&r.lds, 16), 0x0000_0007_2222_2224);
        assert_eq!(u64_at(&r.lds, 24), 0x7fff_ffff_7fff_ffff);
        if wave64 {
            assert_eq!(pair(&r.wave, 4, 33), 0x1111_1111_0000_0006);
            assert_eq!(pair(&r.wave, 4, 35), 0x7fff_ffff_7fff_ffff);
        } else {
            assert_eq!(pair(&r.wave, 4, lane_hi), 0xabc, "inactive lane keeps VDST");
        }
    }
}

/// ds-condxchg-aligns-down: the `& 0xfff8U` of the pseudocode aligns a
/// misaligned address down (no MEMVIOL) and wraps ADDR + offset at 64 KiB.
#[test]
fn ds_condxchg32_rtn_b64_aligns_its_address_down_and_wraps_at_64k() {
    let src = "ds_condxchg32_rtn_b64 v[4:5], v0, v[2:3] offset:4";
    let Some(r) = run_with(
        src,
        false,
        512,
        |m| put64(m, 8, 0x5555_5555_6666_6666),
        |w| {
            w.set_exec(0b11);
            w.set_vgpr(0, 0, 8); // 8 + 4 = 12 -> 8
            set_pair(w, 2, 0, 0x0000_0000_8000_0001);
            w.set_vgpr(0, 1, 0x1_0004); // + 4 = 0x10008, & 0xfff8 = 8
            set_pair(w, 2, 1, 0x8000_0002_0000_0000);
        },
    ) else {
        return;
    };
    ended(src, &r);
    assert_eq!(pair(&r.wave, 4, 0), 0x5555_5555_6666_6666);
    assert_eq!(pair(&r.wave, 4, 1), 0x5555_5555_0000_0001);
    assert_eq!(u64_at(&r.lds, 8), 0x0000_0002_0000_0001);
}

/// DS_STOREXCHG_2ADDR_RTN_B32: "addr1 = ADDR_BASE.u32 + OFFSET0.u32 * 4U;
/// addr2 = ADDR_BASE.u32 + OFFSET1.u32 * 4U; tmp1 = MEM[addr1].b32; tmp2 =
/// MEM[addr2].b32; MEM[addr1].b32 = DATA.b32; MEM[addr2].b32 = DATA2.b32;
/// RETURN_DATA[31 : 0] = tmp1; RETURN_DATA[63 : 32] = tmp2". Lanes overlap
/// (lane l's addr2 is lane l+1's addr1): each lane sees its predecessor's
/// DATA2 there.
#[test]
fn ds_storexchg_2addr_rtn_b32_exchanges_two_dwords_per_lane() {
    for wave64 in [false, true] {
        let src = "ds_storexchg_2addr_rtn_b32 v[4:5], v0, v1, v2 offset0:1 offset1:2";
        let lanes = if wave64 { 64 } else { 32 };
        let Some(r) = run_with(
            src,
            wave64,
            1024,
            |m| {
                for d in 0..256 {
                    put32(m, 4 * d, 0x100 + d as u32);
                }
            },
            |w| {
                let mut exec = 0;
                for l in 0..lanes {
                    w.set_vgpr(0, l, 4 * l as u32); // addr1 = 4l + 4, addr2 = 4l + 8
                    w.set_vgpr(1, l, 0xa000 + l as u32);
                    w.set_vgpr(2, l, 0xb000 + l as u32);
                    set_pair(w, 4, l, 0xdead);
                    exec |= u64::from(l != 5) << l;
                }
                w.set_exec(exec);
            },
        ) else {
            return;
        };
        ended(src, &r);
        for l in 0..lanes {
            let got = (r.wave.vgpr(4, l), r.wave.vgpr(5, l));
            if l == 5 {
                assert_eq!(pair(&r.wave, 4, l), 0xdead, "lane 5 is off");
                continue;
            }
            // addr1 = dword l+1 was last written by lane l-1's DATA2 (unless
            // lane l-1 is off, or l = 0).
            let first = if l == 0 || l == 6 {
                0x100 + l as u32 + 1
            } else {
                0xb000 + l as u32 - 1
            };
            assert_eq!(got, (first, 0x100 + l as u32 + 2), "lane {l}");
        }
        let last = lanes - 1;
        assert_eq!(u32_at(&r.lds, 4 * (last + 1)), 0xa000 + last as u32);
        assert_eq!(u32_at(&r.lds, 4 * (last + 2)), 0xb000 + last as u32);
        assert_eq!(u32_at(&r.lds, 0), 0x100, "dword 0 is nobody's");
        // Lane 5 is off: dword 6 is lane 4's DATA2 and dword 7 lane 6's DATA.
        assert_eq!(u32_at(&r.lds, 24), 0xb004);
        assert_eq!(u32_at(&r.lds, 28), 0xa006);
    }
}

/// ds-xchg2-order: with OFFSET0 == OFFSET1 both reads come first, so both
/// halves return the old value and DATA2 (the second write) stays. Stride64
/// scales the offsets by 256 (B32) and 512 (B64).
#[test]
fn ds_storexchg_2addr_same_address_and_stride64() {
    let src = "ds_storexchg_2addr_stride64_rtn_b32 v[4:5], v0, v1, v2 offset0:1 offset1:1";
    let Some(r) = run_with(
        src,
        false,
        1024,
        |m| put32(m, 256 + 8, 0x77),
        |w| {
            w.set_exec(1);
            w.set_vgpr(0, 0, 8);
            w.set_vgpr(1, 0, 0x11);
            w.set_vgpr(2, 0, 0x22);
        },
    ) else {
        return;
    };
    ended(src, &r);
    assert_eq!((r.wave.vgpr(4, 0), r.wave.vgpr(5, 0)), (0x77, 0x77));
    assert_eq!(u32_at(&r.lds, 264), 0x22);

    // DS_STOREXCHG_2ADDR_STRIDE64_RTN_B64: "addr1 = ADDR_BASE.u32 +
    // OFFSET0.u32 * 512U; ... RETURN_DATA[63 : 0] = tmp1; RETURN_DATA[127 :
    // 64] = tmp2".
    let src = "ds_storexchg_2addr_stride64_rtn_b64 v[4:7], v0, v[2:3], v[8:9] offset0:1";
    let Some(r) = run_with(
        src,
        true,
        2048,
        |m| {
            put64(m, 8, 0x0102_0304_0506_0708);
            put64(m, 512 + 8, 0x1112_1314_1516_1718);
        },
        |w| {
            w.set_exec(1 << 40);
            w.set_vgpr(0, 40, 8);
            set_pair(w, 2, 40, 0xaaaa_aaaa_aaaa_aaaa);
            set_pair(w, 8, 40, 0xbbbb_bbbb_bbbb_bbbb);
        },
    ) else {
        return;
    };
    ended(src, &r);
    assert_eq!(
        pair(&r.wave, 4, 40),
        0x1112_1314_1516_1718,
        "tmp1 at 8 + 512"
    );
    assert_eq!(pair(&r.wave, 6, 40), 0x0102_0304_0506_0708, "tmp2 at 8 + 0");
    assert_eq!(u64_at(&r.lds, 520), 0xaaaa_aaaa_aaaa_aaaa);
    assert_eq!(u64_at(&r.lds, 8), 0xbbbb_bbbb_bbbb_bbbb);
    assert_eq!(pair(&r.wave, 4, 0), 0, "lane 0 is off");
}

/// DS_STOREXCHG_2ADDR_RTN_B64 (offsets × 8) under ds-range (an element past
/// the allocation reads 0 and drops its write) and ds-align (each address
/// 8-aligned, else MEMVIOL naming the lane and the address; no lane writes).
#[test]
fn ds_storexchg_2addr_rtn_b64_range_and_alignment() {
    let src = "ds_storexchg_2addr_rtn_b64 v[4:7], v0, v[2:3], v[8:9] offset1:2";
    let Some(r) = run_with(
        src,
        false,
        512,
        |m| put64(m, 496, 0x4242),
        |w| {
            w.set_exec(1);
            w.set_vgpr(0, 0, 496); // addr2 = 496 + 16 = 512: out of range
            set_pair(w, 2, 0, 7);
            set_pair(w, 8, 0, 9);
            set_pair(w, 6, 0, 0xdead);
        },
    ) else {
        return;
    };
    ended(src, &r);
    assert_eq!((pair(&r.wave, 4, 0), pair(&r.wave, 6, 0)), (0x4242, 0));
    assert_eq!(u64_at(&r.lds, 496), 7);

    let Some(r) = run_with(
        src,
        false,
        512,
        |_| {},
        |w| {
            w.set_exec(0b11);
            w.set_vgpr(0, 0, 8);
            w.set_vgpr(0, 1, 12); // addr1 = 12: not 8-aligned
            set_pair(w, 2, 0, 7);
        },
    ) else {
        return;
    };
    match r.result {
        Err(WaveError::MemViol { lane, addr, pc, .. }) => {
            assert_eq!((lane, addr, pc), (1, 12, 0x1000))
        }
        other => panic!("expected MEMVIOL, got {other:?}"),
    }
    assert!(r.lds.bytes.iter().all(|&b| b == 0), "no lane wrote");
}

const QNAN: u32 = 0x7fc0_0000;
const SNAN: u32 = 0x7f80_0001;
const NEG0: u32 = 0x8000_0000;
const DENORM_MIN: u32 = 1;
const ONE: u32 = 0x3f80_0000;

/// One returning f32 atomic per lane, lane l on dword l: (memory, DATA,
/// DATA2) in, (return, memory) out.
fn f32_lanes(src: &str, mode: u32, cases: &[(u32, u32, u32)]) -> Option<Vec<(u32, u32)>> {
    let r = run_with(
        src,
        false,
        512,
        |m| {
            for (l, c) in cases.iter().enumerate() {
                put32(m, 4 * l, c.0);
            }
        },
        |w| {
            w.hwreg.mode = mode;
            let mut exec = 0;
            for (l, c) in cases.iter().enumerate() {
                w.set_vgpr(0, l, 4 * l as u32);
                w.set_vgpr(1, l, c.1);
                w.set_vgpr(2, l, c.2);
                exec |= 1 << l;
            }
            w.set_exec(exec);
        },
    )?;
    ended(src, &r);
    Some(
        (0..cases.len())
            .map(|l| (r.wave.vgpr(3, l), u32_at(&r.lds, 4 * l)))
            .collect(),
    )
}

/// DS_ADD_RTN_F32: "tmp = MEM[ADDR].f32; MEM[ADDR].f32 += DATA.f32;
/// RETURN_DATA.f32 = tmp", rounded to nearest even (ds-fadd-rne), NaNs as
/// ds-fadd-nan says.
#[test]
fn ds_add_rtn_f32_rounds_to_nearest_even_and_quiets_nans() {
    let src = "ds_add_rtn_f32 v3, v0, v1";
    let cases = [
        (ONE, 0x3380_0000, 0),         // 1 + 2^-24: a tie, to even 1.0
        (0x3f80_0001, 0x3380_0000, 0), // (1 + 2^-23) + 2^-24: tie, to 1 + 2^-22
        (0x3f80_0000, 0x3380_0001, 0), // just past the tie: up
        (NEG0, NEG0, 0),               // -0 + -0 = -0
        (NEG0, 0, 0),                  // -0 + +0 = +0 (round to nearest)
        (0x7f7f_ffff, 0x7f7f_ffff, 0), // overflow to +inf
        (0x7f80_0000, 0xff80_0000, 0), // inf - inf: the default NaN
        (SNAN, ONE, 0),                // MEM's sNaN, quieted
        (ONE, 0xffc0_1234, 0),         // DATA's NaN (sign and payload kept)
        (0x7f80_0002, 0xff80_0003, 0), // both NaN: MEM's, quieted
        (0x4040_0000, 0xbf80_0000, 0), // 3 - 1 = 2
    ];
    let Some(out) = f32_lanes(src, 0xf0, &cases) else {
        return;
    };
    let want_mem = [
        ONE,
        0x3f80_0002,
        0x3f80_0001,
        NEG0,
        0,
        0x7f80_0000,
        QNAN,
        0x7fc0_0001,
        0xffc0_1234,
        0x7fc0_0002,
        0x4000_0000,
    ];
    for (l, (c, (ret, mem))) in cases.iter().zip(&out).enumerate() {
        assert_eq!(*ret, c.0, "lane {l} returns the old value");
        assert_eq!(*mem, want_mem[l], "lane {l}: {:#x} + {:#x}", c.0, c.1);
    }
}

/// ds-fadd-denorm: MODE bits 5:4 (0 flush in and out, 1 flush out, 2 flush
/// in, 3 none). 2^-149 + 2^-149 = 2^-148 (a denormal); 2^-126 - 2^-149 is a
/// denormal result of normal inputs.
#[test]
fn ds_add_f32_follows_the_mode_registers_denormal_field() {
    let src = "ds_add_rtn_f32 v3, v0, v1";
    let cases = [
        (DENORM_MIN, DENORM_MIN, 0),
        (0x0080_0000, 0x8000_0001, 0),
        (0x0080_0000, DENORM_MIN, 0),
        (0x8000_0003, ONE, 0),
        (0x0080_0001, 0x8080_0000, 0), // normal inputs, result 2^-149
    ];
    // (mode, memory after each case)
    let table = [
        (0x30, [2, 0x007f_ffff, 0x0080_0001, ONE, 1]),
        (0x00, [0, 0x0080_0000, 0x0080_0000, ONE, 0]),
        (0x10, [0, 0, 0x0080_0001, ONE, 0]),
        (0x20, [0, 0x0080_0000, 0x0080_0000, ONE, 1]),
    ];
    for (mode, want) in table {
        let Some(out) = f32_lanes(src, mode, &cases) else {
            return;
        };
        for (l, (ret, mem)) in out.iter().enumerate() {
            assert_eq!(
                *ret, cases[l].0,
                "mode {mode:#x} lane {l}: the return is not flushed"
            );
            assert_eq!(*mem, want[l], "mode {mode:#x} lane {l}");
        }
    }
}

/// DS_MIN_RTN_F32: "src = DATA.f32; MEM[ADDR].f32 = src < tmp ? src : tmp";
/// DS_MAX_RTN_F32: "src > tmp ? src : tmp"; NaNs per ds-fminmax-nan, zeros
/// per ds-fminmax-zero, denormals compared as stored (ds-float-compare).
#[test]
fn ds_min_max_f32_nans_zeros_and_denormals() {
    let cases = [
        (QNAN, ONE, 0),                // NaN in MEM loses to a number
        (ONE, QNAN, 0),                // NaN DATA loses too
        (SNAN, 0xbf80_0000, 0),        // sNaN like qNaN, not quieted
        (QNAN, 0xffc0_0001, 0),        // both NaN: MEM stays
        (0, NEG0, 0),                  // -0 == +0: MEM stays
        (NEG0, 0, 0),                  // and the other way
        (DENORM_MIN, 0, 0),            // denormal > 0, whatever MODE says
        (0x7f80_0000, 0x7f7f_ffff, 0), // inf
        (0x4000_0000, 0xc000_0000, 0), // 2 vs -2
    ];
    let min_mem = [
        ONE,
        ONE,
        0xbf80_0000,
        QNAN,
        0,
        NEG0,
        0,
        0x7f7f_ffff,
        0xc000_0000,
    ];
    let max_mem = [
        ONE,
        ONE,
        0xbf80_0000,
        QNAN,
        0,
        NEG0,
        DENORM_MIN,
        0x7f80_0000,
        0x4000_0000,
    ];
    for (src, want) in [
        ("ds_min_rtn_f32 v3, v0, v1", min_mem),
        ("ds_max_rtn_f32 v3, v0, v1", max_mem),
    ] {
        // MODE flushes denormals: the compares still see them (ds-float-compare).
        let Some(out) = f32_lanes(src, 0x00, &cases) else {
            return;
        };
        for (l, (ret, mem)) in out.iter().enumerate() {
            assert_eq!(*ret, cases[l].0, "{src} lane {l}");
            assert_eq!(
                *mem, want[l],
                "{src} lane {l}: {:#x} vs {:#x}",
                cases[l].0, cases[l].1
            );
        }
    }
}

/// DS_CMPSTORE_RTN_F32: "tmp = MEM[ADDR].f32; src = DATA.f32; cmp =
/// DATA2.f32; MEM[ADDR].f32 = tmp == cmp ? src : tmp" — a float compare
/// (ds-float-compare): -0 == +0, a NaN equals nothing.
#[test]
fn ds_cmpstore_f32_compares_as_floats() {
    let src = "ds_cmpstore_rtn_f32 v3, v0, v1, v2";
    let cases = [
        (ONE, 0x4000_0000, ONE),               // equal: store
        (ONE, 0x4000_0000, 0x3f80_0001),       // not equal
        (0, 0x4000_0000, NEG0),                // +0 == -0: store
        (QNAN, 0x4000_0000, QNAN),             // same bits, but NaN != NaN
        (DENORM_MIN, 0x4000_0000, DENORM_MIN), // denormals compare as stored
        (DENORM_MIN, 0x4000_0000, 0),          // and are not zero
    ];
    let want = [0x4000_0000, ONE, 0x4000_0000, QNAN, 0x4000_0000, DENORM_MIN];
    let Some(out) = f32_lanes(src, 0x00, &cases) else {
        return;
    };
    for (l, (ret, mem)) in out.iter().enumerate() {
        assert_eq!((*ret, *mem), (cases[l].0, want[l]), "lane {l}");
    }
}

/// The f64 forms: DS_MIN_RTN_F64 / DS_MAX_F64 / DS_CMPSTORE_RTN_F64 (the
/// same pseudocode on `.f64`), wave64, with an inactive lane.
#[test]
fn ds_float_f64_forms_in_wave64() {
    let qnan = 0x7ff8_0000_0000_0000u64;
    let neg0 = 1u64 << 63;
    let one = 1.0f64.to_bits();
    let two = 2.0f64.to_bits();
    let dmin = 1u64; // the smallest f64 denormal
    let progs = [
        // (program, [(memory, DATA, DATA2)], memory after)
        (
            "ds_min_rtn_f64 v[4:5], v0, v[2:3]",
            [(qnan, one, 0), (one, two, 0), (0, neg0, 0), (dmin, 0, 0)],
            [one, one, 0, 0],
        ),
        (
            "ds_max_f64 v0, v[2:3]",
            [(one, qnan, 0), (one, two, 0), (neg0, 0, 0), (dmin, 0, 0)],
            [one, two, neg0, dmin],
        ),
        (
            "ds_cmpstore_rtn_f64 v[4:5], v0, v[2:3], v[6:7]",
            [
                (neg0, two, 0),
                (qnan, two, qnan),
                (one, two, one),
                (dmin, two, 0),
            ],
            [two, qnan, two, dmin],
        ),
    ];
    for (src, cases, want) in progs {
        let rtn = src.contains("_rtn_");
        let Some(r) = run_with(
            src,
            true,
            512,
            |m| {
                for (q, c) in cases.iter().enumerate() {
                    put64(m, 8 * q, c.0);
                }
            },
            |w| {
                // Lane 63 points at qword 4 but is off: never written.
                let mut exec = 0u64;
                w.set_vgpr(0, 63, 32);
                for (q, c) in cases.iter().enumerate() {
                    let l = 16 * q; // lanes 0, 16, 32, 48
                    w.set_vgpr(0, l, 8 * q as u32);
                    set_pair(w, 2, l, c.1);
                    set_pair(w, 6, l, c.2);
                    set_pair(w, 4, l, 0xdead);
                    exec |= 1 << l;
                }
                w.set_exec(exec);
            },
        ) else {
            return;
        };
        ended(src, &r);
        for (q, c) in cases.iter().enumerate() {
            let l = 16 * q;
            assert_eq!(u64_at(&r.lds, 8 * q), want[q], "{src} qword {q}");
            let ret = pair(&r.wave, 4, l);
            assert_eq!(ret, if rtn { c.0 } else { 0xdead }, "{src} lane {l}");
        }
        assert_eq!(
            u64_at(&r.lds, 32),
            0,
            "{src}: the inactive lane wrote nothing"
        );
    }
}

/// ds-align holds for the float atomics (4- and 8-byte) as for the integer
/// ones: MEMVIOL naming the lane and the address.
#[test]
fn misaligned_float_atomics_are_memviol() {
    for (src, addr) in [
        ("ds_add_f32 v0, v1", 2u32),
        ("ds_max_rtn_f64 v[4:5], v0, v[2:3]", 4),
        ("ds_cmpstore_f32 v0, v1, v2", 6),
        ("ds_wrap_rtn_b32 v3, v0, v1, v2", 1),
    ] {
        let Some(r) = run_with(
            src,
            false,
            512,
            |_| {},
            |w| {
                w.set_exec(0b101);
                w.set_vgpr(0, 2, addr);
            },
        ) else {
            return;
        };
        match r.result {
            Err(WaveError::MemViol { lane, addr: a, .. }) => {
                assert_eq!((lane, a), (2, u64::from(addr)), "{src}")
            }
            other => panic!("{src}: expected MEMVIOL, got {other:?}"),
        }
    }
}
