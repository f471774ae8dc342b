//! Unit tests: LLVM's own MC test vectors, per family, plus the rules.
//!
//! Each vector is `(target, canonical text, bytes)` as LLVM's test file
//! states it; the file is named above each group. The live comparison with
//! llvm-mc-22 on thousands of random instructions is `tests/it/host_isa_llvm.rs`.

use super::*;

/// Disassembling `bytes` gives `text`, and assembling `text` gives `bytes`.
fn check(target_name: &str, text: &str, bytes: [u8; 8]) {
    let t = target(target_name).expect("known target");
    let word = u64::from_le_bytes(bytes);
    let inst = DsInst::decode(t.family, word).expect("decodes");
    assert_eq!(
        inst.encode(t.family).expect("encodes"),
        word,
        "{text}: encode∘decode"
    );
    assert_eq!(
        print(t.family, &inst).expect("prints"),
        text,
        "{target_name}: {bytes:02x?}"
    );
    let line = assemble_line(t, text).unwrap_or_else(|e| panic!("{target_name}: `{text}`: {e}"));
    assert_eq!(line.word, word, "{target_name}: {text}");
    assert_eq!(line.text, text);
}

// llvm/test/MC/AMDGPU/gfx11_asm_ds.s (GFX11 check lines).
#[test]
fn gfx11_vectors() {
    let v: &[(&str, [u8; 8])] = &[
        ("ds_xor_b32 v1, v2", [0x00, 0x00, 0x2c, 0xd8, 0x01, 0x02, 0x00, 0x00]),
        ("ds_xor_b32 v1, v2 offset:65535", [0xff, 0xff, 0x2c, 0xd8, 0x01, 0x02, 0x00, 0x00]),
        ("ds_xor_b32 v255, v255 offset:4 gds", [0x04, 0x00, 0x2e, 0xd8, 0xff, 0xff, 0x00, 0x00]),
        ("ds_xor_b64 v1, v[2:3]", [0x00, 0x00, 0x2c, 0xd9, 0x01, 0x02, 0x00, 0x00]),
        ("ds_xor_b64 v255, v[254:255] offset:4 gds", [0x04, 0x00, 0x2e, 0xd9, 0xff, 0xfe, 0x00, 0x00]),
        ("ds_xor_rtn_b32 v255, v255, v255 offset:4 gds", [0x04, 0x00, 0xae, 0xd8, 0xff, 0xff, 0x00, 0xff]),
        ("ds_xor_rtn_b32 v5, v1, v2 offset:65535", [0xff, 0xff, 0xac, 0xd8, 0x01, 0x02, 0x00, 0x05]),
        ("ds_xor_rtn_b64 v[254:255], v255, v[254:255] offset:4 gds", [0x04, 0x00, 0xae, 0xd9, 0xff, 0xfe, 0x00, 0xfe]),
        ("ds_xor_rtn_b64 v[5:6], v1, v[2:3]", [0x00, 0x00, 0xac, 0xd9, 0x01, 0x02, 0x00, 0x05]),
        ("ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:65535", [0xff, 0xff, 0xac, 0xd9, 0x01, 0x02, 0x00, 0x05]),
        ("ds_add_gs_reg_rtn v[5:6], v1 gds", [0x00, 0x00, 0xea, 0xd9, 0x00, 0x01, 0x00, 0x05]),
        ("ds_append v255 offset:4 gds", [0x04, 0x00, 0xfa, 0xd8, 0x00, 0x00, 0x00, 0xff]),
        ("ds_bpermute_b32 v255, v255, v255 offset:4", [0x04, 0x00, 0xcc, 0xda, 0xff, 0xff, 0x00, 0xff]),
        ("ds_bvh_stack_rtn_b32 v255, v254, v253, v[249:252] offset:127", [0x7f, 0x00, 0xb4, 0xda, 0xfe, 0xfd, 0xf9, 0xff]),
        ("ds_cmpstore_rtn_b64 v[5:6], v1, v[2:3], v[3:4] offset:65535", [0xff, 0xff, 0xc0, 0xd9, 0x01, 0x02, 0x03, 0x05]),
        ("ds_store_b96 v255, v[253:255] offset:4 gds", [0x04, 0x00, 0x7a, 0xdb, 0xff, 0xfd, 0x00, 0x00]),
        ("ds_storexchg_2addr_rtn_b64 v[252:255], v255, v[254:255], v[254:255] offset0:16 offset1:1 gds", [0x10, 0x01, 0xba, 0xd9, 0xff, 0xfe, 0xfe, 0xfc]),
        ("ds_storexchg_2addr_stride64_rtn_b32 v[5:6], v1, v2, v3 offset0:127 offset1:255", [0x7f, 0xff, 0xbc, 0xd8, 0x01, 0x02, 0x03, 0x05]),
    ];
    for (text, bytes) in v {
        check("gfx1100", text, *bytes);
    }
    // The same table serves every GFX11 target.
    check(
        "gfx1151",
        "ds_xor_rtn_b64 v[5:6], v1, v[2:3]",
        [0x00, 0x00, 0xac, 0xd9, 0x01, 0x02, 0x00, 0x05],
    );
}

// llvm/test/MC/AMDGPU/gfx12_asm_ds.s (GFX12 check lines give the bytes;
// the text is LLVM's canonical print of the source line).
#[test]
fn gfx12_vectors() {
    let v: &[(&str, [u8; 8])] = &[
        (
            "ds_xor_b32 v255, v255 offset:4",
            [0x04, 0x00, 0x2c, 0xd8, 0xff, 0xff, 0x00, 0x00],
        ),
        (
            "ds_xor_b64 v1, v[2:3] offset:65535",
            [0xff, 0xff, 0x2c, 0xd9, 0x01, 0x02, 0x00, 0x00],
        ),
        (
            "ds_xor_rtn_b32 v5, v1, v2",
            [0x00, 0x00, 0xac, 0xd8, 0x01, 0x02, 0x00, 0x05],
        ),
        (
            "ds_xor_rtn_b64 v[254:255], v255, v[254:255] offset:4",
            [0x04, 0x00, 0xac, 0xd9, 0xff, 0xfe, 0x00, 0xfe],
        ),
        (
            "ds_swizzle_b32 v8, v2 offset:swizzle(QUAD_PERM,0,1,2,3)",
            [0xe4, 0x80, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_swizzle_b32 v8, v2 offset:swizzle(SWAP,16)",
            [0x1f, 0x40, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_swizzle_b32 v8, v2 offset:swizzle(REVERSE,8)",
            [0x1f, 0x1c, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_swizzle_b32 v8, v2 offset:swizzle(BROADCAST,4,1)",
            [0x3c, 0x00, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_swizzle_b32 v8, v2 offset:swizzle(BROADCAST,8,7)",
            [0xf8, 0x00, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_swizzle_b32 v8, v2 offset:swizzle(BITMASK_PERM,\"01pip\")",
            [0x07, 0x09, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_store_b128 v255, v[252:255] offset:4",
            [0x04, 0x00, 0x7c, 0xdb, 0xff, 0xfc, 0x00, 0x00],
        ),
        (
            "ds_store_2addr_b64 v255, v[254:255], v[254:255] offset0:16 offset1:1",
            [0x10, 0x01, 0x38, 0xd9, 0xff, 0xfe, 0xfe, 0x00],
        ),
        (
            "ds_store_addtid_b32 v255 offset:4",
            [0x04, 0x00, 0xc0, 0xda, 0x00, 0xff, 0x00, 0x00],
        ),
    ];
    for (text, bytes) in v {
        check("gfx1200", text, *bytes);
    }
    // The file's `ds_swizzle_b32 v8, v2 offset:0xFFFF`: those bytes, but
    // llvm-mc prints them as swizzle(FFT,31), which assembles to 0xe01f;
    // dsxor's disassembly refuses the word (round-trip policy).
    let t = target("gfx1200").expect("known");
    let l = assemble_line(t, "ds_swizzle_b32 v8, v2 offset:0xFFFF").expect("assembles");
    assert_eq!(
        l.word.to_le_bytes(),
        [0xff, 0xff, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x08]
    );
    assert_eq!(l.text, "ds_swizzle_b32 v8, v2 offset:swizzle(FFT,31)");
    let fft = assemble_line(t, "ds_swizzle_b32 v8, v2 offset:swizzle(FFT,31)").expect("assembles");
    assert_eq!(fft.inst.offset(), 0xe01f);
    assert_eq!(
        disassemble(Family::Gfx12, l.word).map_err(|e| e.rule()),
        Err("invalid-encoding")
    );
}

// llvm/test/MC/AMDGPU/gfx10_asm_ds.s (GFX10 check lines give the bytes).
// Its `ds_*_src2_*` lines are left out: LLVM 22 no longer has those opcodes
// on gfx10 ("instruction not supported on this GPU").
#[test]
fn gfx10_vectors() {
    let v: &[(&str, [u8; 8])] = &[
        (
            "ds_read2_b64 v[5:8], v1 offset0:127 offset1:255 gds",
            [0x7f, 0xff, 0xde, 0xd9, 0x01, 0x00, 0x00, 0x05],
        ),
        (
            "ds_read2_b64 v[5:8], v1 offset1:255",
            [0x00, 0xff, 0xdc, 0xd9, 0x01, 0x00, 0x00, 0x05],
        ),
        (
            "ds_condxchg32_rtn_b64 v[5:6], v1, v[2:3] offset:65535 gds",
            [0xff, 0xff, 0xfa, 0xd9, 0x01, 0x02, 0x00, 0x05],
        ),
        (
            "ds_max_rtn_f64 v[5:6], v255, v[2:3] offset:65535",
            [0xff, 0xff, 0xcc, 0xd9, 0xff, 0x02, 0x00, 0x05],
        ),
        (
            "ds_write_b16_d16_hi v1, v255 offset:65535",
            [0xff, 0xff, 0x84, 0xda, 0x01, 0xff, 0x00, 0x00],
        ),
    ];
    for (text, bytes) in v {
        check("gfx1030", text, *bytes);
    }
}

// llvm/test/MC/AMDGPU/ds.s (VI check lines, -mcpu=tonga). gfx9 keeps the VI
// DS layout and opcodes for these (DSInstructions.td `DS_Real_vi` serves
// both), so they hold on gfx900.
#[test]
fn gfx9_vectors() {
    let v: &[(&str, [u8; 8])] = &[
        (
            "ds_xor_b32 v2, v4",
            [0x00, 0x00, 0x16, 0xd8, 0x02, 0x04, 0x00, 0x00],
        ),
        (
            "ds_xor_rtn_b32 v8, v2, v4",
            [0x00, 0x00, 0x56, 0xd8, 0x02, 0x04, 0x00, 0x08],
        ),
        (
            "ds_add_u32 v2, v4 offset:16",
            [0x10, 0x00, 0x00, 0xd8, 0x02, 0x04, 0x00, 0x00],
        ),
        (
            "ds_write2_b32 v2, v4, v6 offset0:4 offset1:8",
            [0x04, 0x08, 0x1c, 0xd8, 0x02, 0x04, 0x06, 0x00],
        ),
        (
            "ds_read2_b32 v[8:9], v2 offset1:8",
            [0x00, 0x08, 0x6e, 0xd8, 0x02, 0x00, 0x00, 0x08],
        ),
        (
            "ds_gws_init v3 offset:12345 gds",
            [0x39, 0x30, 0x33, 0xd9, 0x03, 0x00, 0x00, 0x00],
        ),
        (
            "ds_gws_sema_v offset:257 gds",
            [0x01, 0x01, 0x35, 0xd9, 0x00, 0x00, 0x00, 0x00],
        ),
        (
            "ds_add_src2_f32 v0 offset:4 gds",
            [0x04, 0x00, 0x2b, 0xd9, 0x00, 0x00, 0x00, 0x00],
        ),
        (
            "ds_wrxchg2_rtn_b32 v[0:1], v0, v0, v0 offset0:127 offset1:255",
            [0x7f, 0xff, 0x5c, 0xd8, 0x00, 0x00, 0x00, 0x00],
        ),
        (
            "ds_consume v8",
            [0x00, 0x00, 0x7a, 0xd9, 0x00, 0x00, 0x00, 0x08],
        ),
    ];
    for (text, bytes) in v {
        check("gfx900", text, *bytes);
    }
}

// llvm/test/MC/AMDGPU/gfx1250_asm_ds.s (GFX1250 check lines).
#[test]
fn gfx1250_vectors() {
    let v: &[(&str, [u8; 8])] = &[
        ("ds_nop", [0x00, 0x00, 0x50, 0xd8, 0x00, 0x00, 0x00, 0x00]),
        (
            "ds_add_rtn_u64 v[6:7], v1, v[2:3] offset:65535",
            [0xff, 0xff, 0x80, 0xd9, 0x01, 0x02, 0x00, 0x06],
        ),
        (
            "ds_and_rtn_b64 v[254:255], v255, v[254:255] offset:4",
            [0x04, 0x00, 0xa4, 0xd9, 0xff, 0xfe, 0x00, 0xfe],
        ),
        (
            "ds_append v255 offset:4",
            [0x04, 0x00, 0xf8, 0xd8, 0x00, 0x00, 0x00, 0xff],
        ),
        (
            "ds_cmpstore_rtn_b64 v[6:7], v1, v[2:3], v[4:5] offset:65535",
            [0xff, 0xff, 0xc0, 0xd9, 0x01, 0x02, 0x04, 0x06],
        ),
        (
            "ds_condxchg32_rtn_b64 v[254:255], v255, v[254:255] offset:4",
            [0x04, 0x00, 0xf8, 0xd9, 0xff, 0xfe, 0x00, 0xfe],
        ),
        (
            "ds_load_2addr_b32 v[6:7], v1 offset0:127 offset1:255",
            [0x7f, 0xff, 0xdc, 0xd8, 0x01, 0x00, 0x00, 0x06],
        ),
    ];
    for (text, bytes) in v {
        check("gfx1250", text, *bytes);
    }
    // The same file's ds_add_rtn_u64 with v[6:7]: gfx1250 tuples are even.
    let odd = disassemble(
        Family::Gfx1250,
        u64::from_le_bytes([0, 0, 0x80, 0xd9, 1, 2, 0, 5]),
    );
    assert_eq!(odd.map_err(|e| e.rule()), Err("even-tuples"));
}

// The AGPR forms tested in llvm/test/MC/AMDGPU/gfx90a_ldst_acc.s; the
// bytes here are llvm-mc-22 -mcpu=gfx90a -show-encoding output (the file's
// DS section lies beyond what the reference index searched).
#[test]
fn gfx90a_agpr_vectors() {
    let v: &[(&str, [u8; 8])] = &[
        (
            "ds_xor_rtn_b64 a[4:5], v1, a[2:3]",
            [0x00, 0x00, 0xd6, 0xda, 0x01, 0x02, 0x00, 0x04],
        ),
        (
            "ds_xor_b64 v1, a[2:3]",
            [0x00, 0x00, 0x96, 0xda, 0x01, 0x02, 0x00, 0x00],
        ),
        (
            "ds_xor_b32 v1, a2",
            [0x00, 0x00, 0x16, 0xda, 0x01, 0x02, 0x00, 0x00],
        ),
        (
            "ds_xor_rtn_b32 a5, v1, a2",
            [0x00, 0x00, 0x56, 0xda, 0x01, 0x02, 0x00, 0x05],
        ),
        (
            "ds_xor_rtn_b64 a[254:255], v255, a[254:255]",
            [0x00, 0x00, 0xd6, 0xda, 0xff, 0xfe, 0x00, 0xfe],
        ),
        (
            "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:65535",
            [0xff, 0xff, 0xd6, 0xd8, 0x01, 0x02, 0x00, 0x04],
        ),
    ];
    for t in ["gfx90a", "gfx942", "gfx950"] {
        for (text, bytes) in v {
            check(t, text, *bytes);
        }
    }
}

// The encoding table of docs/src/internals/facts.md (checked there with llvm-mc).
#[test]
fn design_table() {
    let gfx10 = [0x00, 0x00, 0xac, 0xd9, 0x01, 0x02, 0x00, 0x05];
    let vi = [0x00, 0x00, 0xd6, 0xd8, 0x01, 0x02, 0x00, 0x05];
    for t in [
        "gfx1030", "gfx1100", "gfx1103", "gfx1150", "gfx1200", "gfx1201",
    ] {
        check(t, "ds_xor_rtn_b64 v[5:6], v1, v[2:3]", gfx10);
    }
    for t in ["gfx900", "gfx906", "gfx908"] {
        check(t, "ds_xor_rtn_b64 v[5:6], v1, v[2:3]", vi);
    }
    let inst = DsInst {
        op: DS_XOR_RTN_B64,
        ..DsInst::default()
    };
    // The seed's identifier for ENC_DS opcode 107.
    assert_eq!(inst.encode(Family::Gfx11).ok(), Some(0xD9AC_0000));
}

fn err(target_name: &str, text: &str) -> IsaError {
    let t = target(target_name).expect("known target");
    match assemble_line(t, text) {
        Ok(l) => panic!(
            "{target_name}: `{text}` was accepted as {}",
            l.show_encoding()
        ),
        Err(e) => e,
    }
}

#[test]
fn refusals_name_their_rule() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "gfx1100",
            "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:65536",
            "offset-range",
        ),
        (
            "gfx1100",
            "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:-1",
            "offset-range",
        ),
        ("gfx1200", "ds_xor_rtn_b64 v[4:5], v1, v[2:3] gds", "no-gds"),
        ("gfx1250", "ds_xor_b32 v1, v2 gds", "no-gds"),
        ("gfx90a", "ds_xor_b32 v1, v2 offset:4 gds", "no-gds"),
        ("gfx942", "ds_xor_b32 v1, v2 gds", "no-gds"),
        ("gfx950", "ds_xor_b32 v1, v2 gds", "no-gds"),
        ("gfx90a", "ds_xor_rtn_b64 v[5:6], v1, v[2:3]", "even-tuples"),
        ("gfx942", "ds_xor_b64 v1, v[3:4]", "even-tuples"),
        (
            "gfx1250",
            "ds_xor_rtn_b64 v[4:5], v1, v[3:4]",
            "even-tuples",
        ),
        ("gfx1100", "ds_xor_rtn_b64 a[4:5], v1, a[2:3]", "no-agprs"),
        ("gfx908", "ds_xor_b32 v1, a2", "no-agprs"),
        (
            "gfx90a",
            "ds_xor_rtn_b64 a[4:5], v1, v[2:3]",
            "mixed-agpr-vgpr",
        ),
        ("gfx90a", "ds_xor_rtn_b32 v5, v1, a2", "mixed-agpr-vgpr"),
        ("gfx90a", "ds_xor_rtn_b32 a5, a1, a2", "addr-vgpr"),
        ("gfx1100", "ds_xor_rtn_b32 v256, v1, v2", "register-range"),
        (
            "gfx1100",
            "ds_xor_rtn_b64 v[255:256], v255, v[254:255]",
            "register-range",
        ),
        (
            "gfx90a",
            "ds_xor_rtn_b32 a256, v255, a255",
            "register-range",
        ),
        ("gfx1100", "ds_xor_rtn_b64 v4, v1, v[2:3]", "operand-width"),
        (
            "gfx1100",
            "ds_xor_rtn_b64 v[4:6], v1, v[2:3]",
            "operand-width",
        ),
        (
            "gfx1100",
            "ds_xor_rtn_b64 v[4:5], v1, v[2:3] gds offset:4",
            "syntax",
        ),
        (
            "gfx1100",
            "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:4 offset:8",
            "syntax",
        ),
        ("gfx1100", "ds_xor_b32 v1, v2 gds gds", "syntax"),
        ("gfx1100", "ds_xor_rtn_b64 V[4:5], V1, V[2:3]", "syntax"),
        // gfx11 renamed ds_write_b32; llvm-mc keeps the old name as an alias.
        ("gfx1100", "ds_write_b32 v1, v2", "unknown-mnemonic"),
        (
            "gfx1100",
            "ds_store_2addr_b32 v1, v2, v3 offset0:256",
            "offset-range",
        ),
        (
            "gfx1100",
            "ds_store_2addr_b32 v1, v2, v3 offset:4",
            "syntax",
        ),
        ("gfx1100", "ds_gws_init v1", "syntax"),
        ("gfx1200", "ds_nop offset:4", "syntax"),
        ("gfx90a", "ds_read_b32 v1, a2", "addr-vgpr"),
        // Register numbers as wide as u32 must not overflow the width
        // arithmetic (llvm-mc-22: "invalid or unsupported register size").
        (
            "gfx1100",
            "ds_xor_b32 v0, v[0:4294967295]",
            "register-range",
        ),
        (
            "gfx1250",
            "ds_xor_rtn_b64 v[0:1], v0, v[1:4294967295]",
            "operand-width",
        ),
        ("gfx1100", "ds_xor_b32 v0, v99999999999", "syntax"),
    ];
    for (t, text, rule) in cases {
        let e = err(t, text);
        assert_eq!(e.rule(), *rule, "{t}: `{text}`: {e}");
        assert!(
            e.to_string().contains(rule) || e.rule() == "syntax" || e.rule() == "unknown-mnemonic",
            "message names the rule: {e}"
        );
    }
}

#[test]
fn accepted_spellings() {
    let t = target("gfx1100").expect("known");
    let canonical = "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:16 gds";
    for text in [
        "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:16 gds",
        "DS_XOR_RTN_B64 v[4:5],v1,v[2:3] offset:0x10 gds",
        "  ds_xor_rtn_b64\tv[4:5] ,  v1 , v[2:3]   offset : 020  gds ; comment",
        "ds_xor_rtn_b64 v[4:5], v[1], v[2:3] offset:0b10000 gds // comment",
    ] {
        let l = assemble_line(t, text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(l.text, canonical, "`{text}`");
    }
    // offset:0 is not printed, as LLVM prints it.
    let l = assemble_line(t, "ds_xor_b32 v1, v2 offset:0").expect("assembles");
    assert_eq!(l.text, "ds_xor_b32 v1, v2");
    assert_eq!(
        l.show_encoding(),
        "ds_xor_b32 v1, v2                       ; encoding: [0x00,0x00,0x2c,0xd8,0x01,0x02,0x00,0x00]"
    );
}

#[test]
fn disassembly_round_trip_policy() {
    let t90a = target("gfx90a").expect("known");
    let t11 = target("gfx1100").expect("known");
    let t12 = target("gfx1200").expect("known");
    let rule = |t: Target, bytes: &str| disassemble_line(t, bytes).map_err(|e| e.rule());
    // Odd pair on gfx90a: llvm-mc prints "/*Invalid register*/".
    assert_eq!(
        rule(t90a, "[0x00,0x00,0xd6,0xd8,0x01,0x02,0x00,0x05]"),
        Err("even-tuples")
    );
    // gds bit on gfx90a: llvm-mc silently drops it.
    assert_eq!(
        rule(t90a, "[0x00,0x00,0xd7,0xd8,0x01,0x02,0x00,0x04]"),
        Err("invalid-encoding")
    );
    // A tuple past v255: llvm-mc prints v[255:256], which it cannot assemble.
    assert_eq!(
        rule(t11, "[0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0xff]"),
        Err("register-range")
    );
    // Bit 16 on gfx10+ is no field.
    assert_eq!(
        rule(t11, "[0x00,0x00,0xad,0xd9,0x01,0x02,0x00,0x05]"),
        Err("invalid-encoding")
    );
    // gds on gfx12: llvm-mc: invalid instruction encoding.
    assert_eq!(
        rule(t12, "[0x00,0x00,0xae,0xd9,0x01,0x02,0x00,0x05]"),
        Err("invalid-encoding")
    );
    // A data1 field where ds_xor_rtn_b64 has none.
    assert_eq!(
        rule(t11, "[0x00,0x00,0xac,0xd9,0x01,0x02,0x07,0x05]"),
        Err("invalid-encoding")
    );
    // acc bit on gfx9 (VI layout, no DS AGPR form).
    assert_eq!(
        rule(
            target("gfx900").expect("known"),
            "[0x00,0x00,0xd6,0xda,0x01,0x02,0x00,0x04]"
        ),
        Err("invalid-encoding")
    );
    // Not DS at all (s_endpgm is 0xbf810000).
    assert_eq!(
        rule(t11, "[0x00,0x00,0x81,0xbf,0x00,0x00,0x00,0x00]"),
        Err("not-ds")
    );
    assert_eq!(rule(t11, "[0x00,0x00,0xac,0xd9]"), Err("byte-list"));
    assert_eq!(
        rule(t11, "[0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0x100]"),
        Err("byte-list")
    );
    assert_eq!(
        disassemble_line(t11, "0x00 0x00 0xac 0xd9 0x01 0x02 0x00 0x05")
            .ok()
            .as_deref(),
        Some("ds_xor_rtn_b64 v[5:6], v1, v[2:3]")
    );
}

#[test]
fn targets_and_tables() {
    let e = target("gfx1199").expect_err("unknown");
    assert_eq!(e.rule(), "unknown-target");
    for t in TARGETS {
        assert!(e.to_string().contains(t.name), "{e} lists {}", t.name);
        assert_eq!(target(t.name).ok(), Some(*t));
    }
    for f in Family::ALL {
        let ops = f.ops();
        assert!(
            ops.windows(2).all(|w| w[0].op < w[1].op),
            "{f}: sorted for binary search"
        );
        assert_eq!(op_name(f, DS_XOR_RTN_B64), Some("ds_xor_rtn_b64"), "{f}");
        assert_eq!(op_name(f, DS_XOR_B64), Some("ds_xor_b64"), "{f}");
        assert_eq!(op_name(f, DS_XOR_RTN_B32), Some("ds_xor_rtn_b32"), "{f}");
        assert_eq!(op_name(f, DS_XOR_B32), Some("ds_xor_b32"), "{f}");
    }
    assert_eq!(op_name(Family::Gfx11, 54), Some("ds_load_b32"));
    assert_eq!(op_name(Family::Gfx10, 54), Some("ds_read_b32"));
    assert_eq!(op_name(Family::Gfx11, 255), Some("ds_load_b128"));
    assert_eq!(op_name(Family::Gfx11, 22), None);
}

#[test]
fn offset_accessors_and_round_trip() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    for _ in 0..10_000 {
        let mut inst = DsInst {
            op: rng.random(),
            offset0: 0,
            offset1: 0,
            gds: rng.random(),
            acc: false,
            addr: rng.random(),
            data0: rng.random(),
            data1: rng.random(),
            vdst: rng.random(),
        };
        let off: u16 = rng.random();
        inst.set_offset(off);
        assert_eq!(inst.offset(), off);
        assert_eq!(u16::from(inst.offset0) | u16::from(inst.offset1) << 8, off);
        for f in Family::ALL {
            let mut i = inst;
            i.acc = f.layout() == Layout::Vi && rng.random();
            let w = i.encode(f).expect("encodes");
            assert!(is_ds(f, w));
            assert_eq!(DsInst::decode(f, w), Ok(i), "{f}");
        }
    }
    let acc = DsInst {
        acc: true,
        ..DsInst::default()
    };
    assert_eq!(
        acc.encode(Family::Gfx11).map_err(|e| e.rule()),
        Err("no-agprs")
    );
}
