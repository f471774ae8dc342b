//! Per-instruction semantics of the software device, from the RDNA3 ISA
//! guide's pseudocode, with edge values (carries, shifts ≥ 32, signed
//! compares, EXEC all off). Programs are assembled by llvm-mc (the oracle for
//! the encoding); the expected values are worked out from the pseudocode by
//! hand in each test.

mod common;

use std::process::Command;

use dsxor::emu::decode::decode_text;
use dsxor::emu::ds::Lds;
use dsxor::emu::mem::GlobalMem;
use dsxor::emu::wave::{Env, Status, Wave};
use dsxor::emu::{Fault, WaveError};

/// Assemble gfx1100 source with llvm-mc and return the machine code bytes
/// (from `-show-encoding`, so no ELF reader is involved).
fn assemble(src: &str, wave64: bool) -> Option<Vec<u8>> {
    let mc = common::llvm_mc()?;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.s");
    std::fs::write(&path, src).expect("write asm");
    let mut cmd = Command::new(mc);
    cmd.args(["-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"]);
    if wave64 {
        cmd.arg("-mattr=+wavefrontsize64");
    }
    let out = cmd.arg(&path).output().expect("run llvm-mc");
    assert!(
        out.status.success(),
        "llvm-mc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut bytes = Vec::new();
    for line in text.lines() {
        if let Some(i) = line.find("encoding: [") {
            let rest = &line[i + 11..];
            let rest = &rest[..rest.find(']').expect("closing bracket")];
            for b in rest.split(',') {
                bytes.push(
                    u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex byte"),
                );
            }
        }
    }
    Some(bytes)
}

struct Run {
    wave: Wave,
    lds: Lds,
    result: Result<Status, WaveError>,
}

/// Run `src` (ending in s_endpgm) on one wave prepared by `init`.
fn run_with(
    src: &str,
    wave64: bool,
    fault: Option<Fault>,
    lds_size: u32,
    init: impl FnOnce(&mut Wave),
) -> Option<Run> {
    let bytes = assemble(src, wave64)?;
    let prog = decode_text(&bytes, 0x1000);
    let mem = GlobalMem::new();
    let env = Env {
        prog: &prog,
        mem: &mem,
        fault,
    };
    let mut wave = Wave::new(wave64);
    wave.set_exec(wave.full_mask());
    init(&mut wave);
    let mut lds = Lds::new(lds_size);
    let result = wave.run(&env, &mut lds, None, 10_000);
    Some(Run { wave, lds, result })
}

fn run(src: &str, init: impl FnOnce(&mut Wave)) -> Option<Wave> {
    let r = run_with(src, false, None, 0, init)?;
    assert_eq!(r.result, Ok(Status::Ended), "program did not end cleanly");
    Some(r.wave)
}

#[test]
fn s_add_u32_carry_and_s_addc_u32() {
    let Some(w) = run(
        "s_add_u32 s0, s2, s3\ns_addc_u32 s1, s4, s5\ns_cselect_b32 s6, 1, 0\ns_endpgm\n",
        |w| {
            w.s[2] = 0xffff_ffff;
            w.s[3] = 1;
            w.s[4] = 0xffff_fffe;
            w.s[5] = 1;
        },
    ) else {
        return;
    };
    // 0xffffffff + 1 = 0 carry 1; 0xfffffffe + 1 + 1 = 0 carry 1.
    assert_eq!((w.s[0], w.s[1], w.s[6]), (0, 0, 1));
}

#[test]
fn s_sub_u32_borrow_and_s_subb_u32() {
    let Some(w) = run(
        "s_sub_u32 s0, 0, 1\ns_subb_u32 s1, 5, 5\ns_cselect_b32 s2, 1, 0\ns_endpgm\n",
        |_| {},
    ) else {
        return;
    };
    // 0 - 1 borrows; 5 - 5 - 1 = -1, borrows again.
    assert_eq!((w.s[0], w.s[1], w.s[2]), (0xffff_ffff, 0xffff_ffff, 1));
}

#[test]
fn s_add_i32_signed_overflow() {
    let Some(w) = run("s_add_i32 s0, s1, 1\ns_cselect_b32 s2, 1, 0\ns_add_i32 s3, s1, -1\ns_cselect_b32 s4, 1, 0\ns_endpgm\n", |w| {
        w.s[1] = 0x7fff_ffff;
    }) else {
        return;
    };
    assert_eq!(
        (w.s[0], w.s[2], w.s[3], w.s[4]),
        (0x8000_0000, 1, 0x7fff_fffe, 0)
    );
}

#[test]
fn scalar_shifts_use_low_bits_of_the_amount() {
    // s_lshl_b32 uses S1[4:0]: a shift by 33 is a shift by 1; b64 uses S1[5:0].
    let Some(w) = run(
        "s_lshl_b32 s0, s10, 33\ns_lshr_b32 s1, s10, 32\ns_lshl_b64 s[2:3], s[10:11], 32\ns_ashr_i64 s[4:5], s[12:13], 63\ns_lshr_b64 s[6:7], s[12:13], 64\ns_endpgm\n",
        |w| {
            w.s[10] = 0x8000_0001;
            w.s[11] = 0;
            w.s[12] = 0;
            w.s[13] = 0x8000_0000;
        },
    ) else {
        return;
    };
    assert_eq!(w.s[0], 2);
    assert_eq!(w.s[1], 0x8000_0001);
    assert_eq!((w.s[2], w.s[3]), (0, 0x8000_0001));
    assert_eq!((w.s[4], w.s[5]), (0xffff_ffff, 0xffff_ffff));
    assert_eq!((w.s[6], w.s[7]), (0, 0x8000_0000));
}

#[test]
fn signed_and_unsigned_scalar_compares() {
    let Some(w) = run(
        "s_cmp_lt_i32 s0, s1\ns_cselect_b32 s10, 1, 0\ns_cmp_lt_u32 s0, s1\ns_cselect_b32 s11, 1, 0\ns_cmpk_gt_i32 s0, 0xffff\ns_cselect_b32 s12, 1, 0\ns_cmpk_gt_u32 s0, 0xffff\ns_cselect_b32 s13, 1, 0\ns_endpgm\n",
        |w| {
            w.s[0] = 0xffff_ffff; // -1
            w.s[1] = 1;
        },
    ) else {
        return;
    };
    // -1 < 1 signed; 0xffffffff > 1 unsigned; simm16 0xffff is -1 signed, 65535 unsigned.
    assert_eq!((w.s[10], w.s[11], w.s[12], w.s[13]), (1, 0, 0, 1));
}

#[test]
fn saveexec_and_branch_on_execz() {
    let Some(w) = run(
        "s_and_saveexec_b32 s0, s1\ns_cbranch_execz 1\ns_mov_b32 s2, 7\ns_mov_b32 exec_lo, s0\ns_endpgm\n",
        |w| {
            w.s[1] = 0;
        },
    ) else {
        return;
    };
    // EXEC becomes 0, so the branch skips s_mov_b32 s2, 7; s0 holds the old EXEC.
    assert_eq!((w.s[0], w.s[2], w.exec()), (0xffff_ffff, 0, 0xffff_ffff));
}

#[test]
fn v_add_co_u32_carry_chain_64bit() {
    let Some(w) = run(
        "v_add_co_u32 v4, s0, v0, v2\nv_add_co_ci_u32_e64 v5, null, v1, v3, s0\ns_endpgm\n",
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 0xffff_ffff);
                w.set_vgpr(1, l, l as u32);
                w.set_vgpr(2, l, l as u32); // lane 0 adds 0: no carry
                w.set_vgpr(3, l, 0);
            }
        },
    ) else {
        return;
    };
    assert_eq!(w.s[0], 0xffff_fffe, "carry out in every lane but 0");
    assert_eq!((w.vgpr(4, 0), w.vgpr(5, 0)), (0xffff_ffff, 0));
    assert_eq!((w.vgpr(4, 5), w.vgpr(5, 5)), (4, 6));
}

#[test]
fn vector_shifts_and_64bit_shift() {
    let Some(w) = run(
        "v_lshlrev_b32 v2, 33, v0\nv_ashrrev_i32 v3, 31, v0\nv_lshlrev_b64 v[4:5], 32, v[0:1]\nv_lshrrev_b64 v[6:7], 63, v[0:1]\ns_endpgm\n",
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 0x8000_0001);
                w.set_vgpr(1, l, 0x8000_0000);
            }
        },
    ) else {
        return;
    };
    assert_eq!(w.vgpr(2, 3), 2, "shift amount uses bits 4:0");
    assert_eq!(w.vgpr(3, 3), 0xffff_ffff);
    assert_eq!((w.vgpr(4, 3), w.vgpr(5, 3)), (0, 0x8000_0001));
    assert_eq!((w.vgpr(6, 3), w.vgpr(7, 3)), (1, 0));
}

#[test]
fn v_mad_u64_u32_full_product() {
    let Some(w) = run(
        "v_mad_u64_u32 v[2:3], s0, v0, v1, v[4:5]\ns_endpgm\n",
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 0xffff_ffff);
                w.set_vgpr(1, l, 0xffff_ffff);
                w.set_vgpr(4, l, if l == 1 { 0xffff_ffff } else { 1 });
                w.set_vgpr(5, l, if l == 1 { 0xffff_ffff } else { 0 });
            }
        },
    ) else {
        return;
    };
    // (2^32-1)^2 + 1 = 0xfffffffe_00000002; lane 1 adds 2^64-1: carries out.
    assert_eq!((w.vgpr(2, 0), w.vgpr(3, 0)), (2, 0xffff_fffe));
    assert_eq!((w.vgpr(2, 1), w.vgpr(3, 1)), (0, 0xffff_fffe));
    assert_eq!(w.s[0], 0b10);
}

#[test]
fn vopc_signed_compare_and_inactive_lanes_read_zero() {
    let Some(w) = run(
        "s_mov_b32 exec_lo, 0xff\nv_cmp_gt_i32_e32 vcc_lo, 0, v0\nv_cmp_gt_u32_e64 s2, 0, v0\ns_mov_b32 exec_lo, -1\ns_endpgm\n",
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, if l % 2 == 0 { 0xffff_ffff } else { 1 });
            }
        },
    ) else {
        return;
    };
    // 0 > -1 in even lanes; only lanes 0-7 are active; unsigned 0 > x never.
    assert_eq!(w.s[106], 0x55);
    assert_eq!(w.s[2], 0);
}

#[test]
fn v_cmpx_writes_exec_and_exec_all_off_skips_vector_writes() {
    let Some(w) = run(
        "v_cmpx_ne_u32_e32 0, v0\nv_mov_b32_e32 v1, 5\ns_endpgm\n",
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 0);
                w.set_vgpr(1, l, 9);
            }
        },
    ) else {
        return;
    };
    assert_eq!(w.exec(), 0);
    assert_eq!(w.vgpr(1, 0), 9, "EXEC all off: no lane written");
}

#[test]
fn vopd_reads_both_sources_before_writing() {
    let Some(w) = run(
        "v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v3, v0\ns_endpgm\n",
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 100);
                w.set_vgpr(1, l, 200);
            }
        },
    ) else {
        return;
    };
    assert_eq!((w.vgpr(0, 4), w.vgpr(3, 4)), (200, 100));
}

#[test]
fn wave64_masks_use_register_pairs() {
    let Some(r) = run_with(
        "v_cmp_lt_u32_e32 vcc, 31, v0\ns_and_saveexec_b64 s[0:1], vcc\nv_mov_b32_e32 v1, 1\ns_or_b64 exec, exec, s[0:1]\ns_endpgm\n",
        true,
        None,
        0,
        |w| {
            for l in 0..64 {
                w.set_vgpr(0, l, l as u32);
            }
        },
    ) else {
        return;
    };
    assert_eq!(r.result, Ok(Status::Ended));
    let w = r.wave;
    assert_eq!((w.s[106], w.s[107]), (0, 0xffff_ffff));
    assert_eq!((w.s[0], w.s[1]), (0xffff_ffff, 0xffff_ffff));
    assert_eq!((w.vgpr(1, 31), w.vgpr(1, 32)), (0, 1));
}

fn lds_u64(l: &Lds, a: usize) -> u64 {
    u64::from_le_bytes(l.bytes[a..a + 8].try_into().expect("8 bytes"))
}

#[test]
fn ds_xor_rtn_b64_contended_lanes_serialize_in_lane_order() {
    let Some(r) = run_with(
        "ds_xor_rtn_b64 v[4:5], v0, v[2:3] offset:8\ns_waitcnt lgkmcnt(0)\ns_endpgm\n",
        false,
        None,
        512,
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 0);
                w.set_vgpr(2, l, 1 << l);
                w.set_vgpr(3, l, l as u32);
            }
        },
    ) else {
        return;
    };
    assert_eq!(r.result, Ok(Status::Ended));
    let mut acc = 0u64;
    for l in 0..32usize {
        let ret = r.wave.vgpr(4, l) as u64 | (r.wave.vgpr(5, l) as u64) << 32;
        assert_eq!(ret, acc, "lane {l} sees the XOR of the lanes before it");
        acc ^= (l as u64) << 32 | 1 << l;
    }
    assert_eq!(lds_u64(&r.lds, 8), acc);
}

#[test]
fn ds_misaligned_b64_atomic_is_memviol_naming_lane_and_address() {
    let Some(r) = run_with(
        "ds_xor_rtn_b64 v[4:5], v0, v[2:3]\ns_endpgm\n",
        false,
        None,
        512,
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, if l == 3 { 4 } else { 8 });
            }
        },
    ) else {
        return;
    };
    match r.result {
        Err(WaveError::MemViol { lane, addr, pc, .. }) => {
            assert_eq!((lane, addr, pc), (3, 4, 0x1000))
        }
        other => panic!("expected MEMVIOL, got {other:?}"),
    }
}

#[test]
fn ds_out_of_range_atomic_returns_zero_and_drops_the_write() {
    let Some(r) = run_with(
        "ds_xor_rtn_b64 v[4:5], v0, v[2:3] offset:65528\ns_endpgm\n",
        false,
        None,
        512,
        |w| {
            for l in 0..32 {
                w.set_vgpr(0, l, 0);
                w.set_vgpr(2, l, 0xff);
                w.set_vgpr(4, l, 0xdead);
            }
        },
    ) else {
        return;
    };
    assert_eq!(r.result, Ok(Status::Ended));
    assert_eq!(r.wave.vgpr(4, 0), 0);
    assert!(r.lds.bytes.iter().all(|&b| b == 0));
}

#[test]
fn ds_inactive_lanes_leave_vdst_and_memory_alone_unless_ignore_exec() {
    for fault in [None, Some(Fault::IgnoreExec)] {
        let Some(r) = run_with(
            "ds_xor_rtn_b64 v[4:5], v0, v[2:3]\ns_endpgm\n",
            false,
            fault,
            512,
            |w| {
                w.set_exec(1);
                for l in 0..32 {
                    w.set_vgpr(0, l, 8 * l as u32);
                    w.set_vgpr(2, l, 1);
                    w.set_vgpr(4, l, 0xabc);
                }
            },
        ) else {
            return;
        };
        assert_eq!(r.result, Ok(Status::Ended));
        let touched = (0..32).filter(|l| lds_u64(&r.lds, 8 * l) == 1).count();
        assert_eq!(touched, if fault.is_none() { 1 } else { 32 });
        assert_eq!(r.wave.vgpr(4, 1), if fault.is_none() { 0xabc } else { 0 });
    }
}

#[test]
fn faults_change_ds_xor_rtn_b64_as_documented() {
    let src = "ds_xor_rtn_b64 v[4:5], v0, v[2:3] offset:256\ns_endpgm\n";
    let init = |w: &mut Wave| {
        w.set_exec(0b11);
        for l in 0..2 {
            w.set_vgpr(0, l, 0);
            w.set_vgpr(2, l, 0xf0 + l as u32);
            w.set_vgpr(3, l, 0x1);
        }
    };
    let ret = |r: &Run, l: usize| r.wave.vgpr(4, l) as u64 | (r.wave.vgpr(5, l) as u64) << 32;
    let Some(ok) = run_with(src, false, None, 1024, init) else {
        return;
    };
    assert_eq!((ret(&ok, 0), ret(&ok, 1)), (0, 0x1_0000_00f0));
    assert_eq!(lds_u64(&ok.lds, 256), 0x1);

    let lost = run_with(src, false, Some(Fault::LostUpdate), 1024, init).expect("ran");
    assert_eq!((ret(&lost, 0), ret(&lost, 1)), (0, 0));
    assert_eq!(lds_u64(&lost.lds, 256), 0x1_0000_00f1);

    let new = run_with(src, false, Some(Fault::ReturnNew), 1024, init).expect("ran");
    assert_eq!(ret(&new, 0), 0x1_0000_00f0);

    let drop = run_with(src, false, Some(Fault::DropOffset1), 1024, init).expect("ran");
    assert_eq!((lds_u64(&drop.lds, 0), lds_u64(&drop.lds, 256)), (1, 0));

    let swap = run_with(src, false, Some(Fault::SwapDwords), 1024, init).expect("ran");
    assert_eq!(ret(&swap, 1), 0xf0_0000_0001);

    let low = run_with(src, false, Some(Fault::LowDwordOnly), 1024, init).expect("ran");
    assert_eq!(lds_u64(&low.lds, 256), 0x1);
    assert_eq!(ret(&low, 1), 0xf0);
}

#[test]
fn ds_cmpstore_uses_data0_as_new_and_data1_as_compare() {
    let Some(r) = run_with(
        "ds_cmpstore_rtn_b32 v3, v0, v1, v2\ns_endpgm\n",
        false,
        None,
        512,
        |w| {
            w.set_exec(1);
            w.set_vgpr(0, 0, 0);
            w.set_vgpr(1, 0, 77);
            w.set_vgpr(2, 0, 0);
        },
    ) else {
        return;
    };
    assert_eq!(r.result, Ok(Status::Ended));
    assert_eq!((r.lds.bytes[0], r.wave.vgpr(3, 0)), (77, 0));
}

#[test]
fn unsupported_instruction_is_an_error_naming_it() {
    let Some(r) = run_with(
        "v_add_f32_e32 v0, v1, v2\ns_endpgm\n",
        false,
        None,
        0,
        |_| {},
    ) else {
        return;
    };
    match r.result {
        Err(WaveError::Unsupported { pc, detail }) => {
            assert_eq!(pc, 0x1000);
            assert!(detail.contains("VOP2"), "{detail}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}
