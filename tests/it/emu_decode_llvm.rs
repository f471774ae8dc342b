//! The software device's decoder against LLVM, the oracle: every
//! instruction of every shipped gfx11 code object as `llvm-objdump -d` prints
//! it, and a corpus (tests/emu_data/corpus_gfx11.s) covering each supported
//! instruction form as `llvm-mc -show-encoding` assembles it. A third test
//! Both the mnemonic and every operand are compared (`emu::disasm` prints
//! the decoded fields in LLVM's syntax). A third test
//! walks every instruction of every shipped gfx11 code object and fails if
//! the software device does not support one.

use crate::common;

use std::collections::BTreeMap;
use std::process::Command;

use dsxor::backend::emu::GFX11_PROCESSORS;
use dsxor::codeobj::{embedded, CodeObject};
use dsxor::emu::decode::{decode_kernel, decode_text, Decoded, Inst};
use dsxor::emu::disasm::disasm;

/// The mnemonic of an LLVM assembly line: the first token, and for VOPD
/// both halves' first tokens joined by ` :: `.
fn llvm_mnemonic(asm: &str) -> String {
    asm.split(" :: ")
        .map(|half| half.split_whitespace().next().unwrap_or("").to_string())
        .collect::<Vec<_>>()
        .join(" :: ")
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shipped_gfx11() -> Vec<(String, CodeObject, bool)> {
    let mut v = Vec::new();
    for o in embedded() {
        if !GFX11_PROCESSORS.contains(&o.target) {
            continue;
        }
        let co = CodeObject::parse(o.bytes).expect("shipped code object parses");
        let wave64 = o.wave == dsxor::case::WaveSize::Wave64;
        v.push((
            format!("{} {:?} ({})", o.target, o.wave, o.file_name),
            co,
            wave64,
        ));
    }
    assert!(!v.is_empty(), "no gfx11 code object is shipped");
    v
}

fn decode(co: &CodeObject) -> Decoded {
    let text = co.text().expect(".text");
    decode_text(text.bytes, text.vaddr)
}

#[test]
fn decoder_agrees_with_llvm_objdump_on_every_shipped_instruction() {
    let Some(objdump) = common::llvm_objdump() else {
        return;
    };
    for (what, co, wave64) in shipped_gfx11() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("co.elf");
        std::fs::write(&path, co.elf_bytes()).expect("write ELF");
        let mut cmd = Command::new(&objdump);
        cmd.args(["-d", "--no-leading-addr"]);
        if wave64 {
            // Without both, llvm-objdump prints some lane masks as wave32
            // registers (`llvm-mc -disassemble` needs only the second).
            cmd.arg("--mattr=-wavefrontsize32,+wavefrontsize64");
        }
        let out = cmd.arg(&path).output().expect("run llvm-objdump");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        // Lines look like `\ts_clause 0x3   // 000000003B00: BF850003`.
        let mut llvm: BTreeMap<u64, (String, usize, String)> = BTreeMap::new();
        for line in text.lines() {
            let Some((asm, tail)) = line.split_once("//") else {
                continue;
            };
            let Some((addr, words)) = tail.trim().split_once(':') else {
                continue;
            };
            let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
                continue;
            };
            let nwords = words
                .split_whitespace()
                .filter(|w| w.len() == 8 && u32::from_str_radix(w, 16).is_ok())
                .count();
            llvm.insert(addr, (llvm_mnemonic(asm.trim()), 4 * nwords, norm(asm)));
        }
        assert!(llvm.len() > 100, "{what}: objdump printed too little");
        let dec = decode(&co);
        assert_eq!(dec.insts.len(), llvm.len(), "{what}: instruction count");
        for (i, inst) in dec.insts.iter().enumerate() {
            let pc = dec.pcs[i];
            let (name, size, full) = llvm
                .get(&pc)
                .unwrap_or_else(|| panic!("{what}: llvm-objdump has no instruction at {pc:#x}"));
            assert_eq!(&inst.mnemonic(), name, "{what}: mnemonic at {pc:#x}");
            assert_eq!(
                dec.sizes[i] as usize, *size,
                "{what}: size of {name} at {pc:#x}"
            );
            assert_eq!(
                &norm(&disasm(inst, wave64)),
                full,
                "{what}: operands at {pc:#x}"
            );
        }
        // What a launch decodes (policy decode-kernel-range): each shipped
        // kernel's own instructions, exactly those llvm-objdump lists in
        // its symbol's range (`code_size` is held to llvm-readelf's FUNC
        // size in host_codeobj_llvm), never the whole object.
        let text = co.text().expect(".text");
        for k in &co.kernels {
            let own = decode_kernel(text.bytes, text.vaddr, k.entry_vaddr, k.code_size);
            let end = k.entry_vaddr + k.code_size;
            let listed: Vec<u64> = llvm.range(k.entry_vaddr..end).map(|(a, _)| *a).collect();
            assert_eq!(own.pcs, listed, "{what}: {}'s decoded range", k.name);
            assert!(own.insts.len() < dec.insts.len(), "{what}: {}", k.name);
            for (inst, pc) in own.insts.iter().zip(&own.pcs) {
                assert_eq!(
                    norm(&disasm(inst, wave64)),
                    llvm[pc].2,
                    "{what}: {} at {pc:#x}",
                    k.name
                );
            }
        }
    }
}

#[test]
fn every_instruction_of_every_shipped_gfx11_object_is_supported() {
    for (what, co, _) in shipped_gfx11() {
        let dec = decode(&co);
        let bad: Vec<String> = dec
            .insts
            .iter()
            .zip(&dec.pcs)
            .filter_map(|(inst, pc)| match inst {
                Inst::Unsupported(u) => Some(format!("{pc:#x}: {u}")),
                _ => None,
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{what}: unsupported instructions:\n{}",
            bad.join("\n")
        );
        // And every kernel's entry is an instruction boundary.
        for k in &co.kernels {
            assert!(
                dec.index_at(k.entry_vaddr).is_some(),
                "{what}: entry of {} at {:#x}",
                k.name,
                k.entry_vaddr
            );
        }
    }
}

#[test]
fn decoder_agrees_with_llvm_mc_on_the_corpus_of_supported_forms() {
    let Some(mc) = common::llvm_mc() else { return };
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/emu_data/corpus_gfx11.s");
    let out = Command::new(mc)
        // +real-true16: the 16-bit forms are written with `.l`/`.h` halves,
        // as llvm-objdump prints them (the other lines assemble the same).
        .args([
            "-arch=amdgcn",
            "-mcpu=gfx1100",
            "-mattr=+real-true16",
            "-show-encoding",
            corpus,
        ])
        .output()
        .expect("run llvm-mc");
    assert!(
        out.status.success(),
        "llvm-mc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut n = 0;
    let mut names = std::collections::BTreeSet::new();
    for line in text.lines() {
        let Some((asm, enc)) = line.split_once("; encoding: [") else {
            continue;
        };
        let bytes: Vec<u8> = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex"))
            .collect();
        let dec = decode_text(&bytes, 0);
        let want = llvm_mnemonic(asm.trim());
        assert_eq!(
            dec.insts.len(),
            1,
            "`{}` decoded as {} instructions",
            asm.trim(),
            dec.insts.len()
        );
        let inst = &dec.insts[0];
        assert!(
            !matches!(inst, Inst::Unsupported(_)),
            "`{}` unsupported: {:?}",
            asm.trim(),
            inst
        );
        assert_eq!(inst.mnemonic(), want, "`{}`", asm.trim());
        assert_eq!(
            norm(&disasm(inst, false)),
            norm(asm),
            "operands of `{}`",
            asm.trim()
        );
        assert_eq!(
            dec.sizes[0] as usize,
            bytes.len(),
            "size of `{}`",
            asm.trim()
        );
        names.insert(want);
        n += 1;
    }
    assert!(n > 400, "corpus assembled to only {n} instructions");
    eprintln!(
        "corpus: {n} instructions, {} distinct mnemonics, all decoded as llvm-mc names them",
        names.len()
    );
}

/// The M0-relative SALU moves with a constant source: the device decodes
/// exactly the forms llvm-mc takes. s_movreld's source is a value and
/// s_movrelsd_2's is LLVM's `SSrc_b32`: llvm-mc takes an inline constant or
/// a literal there, and the device decodes its bytes, printing them as
/// llvm-mc does; s_movrels' source is an index (`SReg`): llvm-mc refuses a
/// constant, and the device leaves the same encoding unsupported.
#[test]
fn movrel_sources_take_a_constant_where_llvm_mc_does() {
    let Some(mc) = common::llvm_mc() else { return };
    let assemble = |line: &str| -> Option<(String, Vec<u8>)> {
        let out = common::llvm_mc_stdin(
            &mc,
            &["-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"],
            &format!("{line}\n"),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let (asm, enc) = text.lines().find_map(|l| l.split_once("; encoding: ["))?;
        let bytes = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex"))
            .collect();
        Some((asm.trim().to_string(), bytes))
    };
    let ops = [
        (0x40u32, "s_movrels_b32", "s4"),
        (0x41, "s_movrels_b64", "s[4:5]"),
        (0x42, "s_movreld_b32", "s4"),
        (0x43, "s_movreld_b64", "s[4:5]"),
        (0x44, "s_movrelsd_2_b32", "s4"),
    ];
    // Each source's code in the SSRC0 field, and its text.
    let srcs = [
        (0x85u32, "5"),
        (0xd0, "-16"),
        (0xf2, "1.0"),
        (0xff, "0x12345678"),
    ];
    let (mut accepted, mut refused) = (0, 0);
    for (op, name, dst) in ops {
        for (code, text) in srcs {
            let line = format!("{name} {dst}, {text}");
            // SOP1: 101111101 sdst[22:16] op[15:8] ssrc0[7:0], s4 the sdst.
            let mut bytes = (0xbe80_0000u32 | 4 << 16 | op << 8 | code)
                .to_le_bytes()
                .to_vec();
            if code == 0xff {
                bytes.extend_from_slice(&0x1234_5678u32.to_le_bytes());
            }
            let dec = decode_text(&bytes, 0);
            let inst = &dec.insts[0];
            match assemble(&line) {
                Some((asm, theirs)) => {
                    accepted += 1;
                    assert_eq!(theirs, bytes, "`{line}`: llvm-mc's bytes");
                    assert!(
                        !matches!(inst, Inst::Unsupported(_)),
                        "`{line}` unsupported: {inst:?}"
                    );
                    assert_eq!(norm(&disasm(inst, false)), norm(&asm), "`{line}`");
                    assert_eq!(dec.sizes[0] as usize, bytes.len(), "size of `{line}`");
                }
                None => {
                    refused += 1;
                    assert!(
                        matches!(inst, Inst::Unsupported(_)),
                        "`{line}`: llvm-mc refuses it, the device decodes {inst:?}"
                    );
                }
            }
        }
    }
    // s_movreld_b32/_b64 and s_movrelsd_2_b32 take all four; s_movrels none.
    assert_eq!((accepted, refused), (12, 8));
}

#[test]
fn ds_names_agree_with_the_isa_module() {
    // emu keeps its own DS semantics table; its names must be the isa
    // module's (LLVM 22's gfx11 table) for every opcode it models.
    let mut checked = 0;
    for op in 0..=255u8 {
        let Some((_, name)) = dsxor::emu::decode::ds_opcode(op) else {
            continue;
        };
        // isa's table may leave out ops dsxor never emits (ds_nop); where it
        // has the opcode, the names must agree.
        if let Some(isa_name) = dsxor::isa::op_name(dsxor::isa::Family::Gfx11, op) {
            assert_eq!(isa_name, name, "DS opcode {op}");
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} DS opcodes compared");
}
