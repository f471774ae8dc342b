//! `codeobj` against the LLVM tools: metadata vs `llvm-readelf --notes`,
//! header and symbols vs `llvm-readelf`, descriptors and DS instructions vs
//! `llvm-objdump -d`, bundles vs `clang-offload-bundler`, the kernarg layout
//! vs the loads the compiled code performs, patched offsets vs llvm-objdump.

use crate::codeobj_support;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use codeobj_support::{
    objdump, objdump_descriptor, prebuilt_dir, readelf_header, readelf_notes, readelf_symbols,
};
use dsxor::backend::ArgValue;
use dsxor::codeobj::{
    build_kernarg, bundle, embedded, patch_ds_offset, CodeObject, CodeObjectError, LaunchDims,
    TargetId,
};

/// clang-offload-bundler (Debian: package clang-tools-22).
fn bundler() -> Option<PathBuf> {
    common::tool(
        "clang-offload-bundler (package clang-tools-22)",
        "DSXOR_CLANG_OFFLOAD_BUNDLER",
        &[
            "clang-offload-bundler-22",
            "/usr/lib/llvm-22/bin/clang-offload-bundler",
        ],
    )
}

fn shipped() -> Vec<PathBuf> {
    embedded()
        .iter()
        .map(|o| prebuilt_dir().join(o.file_name))
        .collect()
}

fn load(path: &Path) -> CodeObject {
    CodeObject::from_file(path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn metadata_matches_llvm_readelf_notes() {
    let Some(readelf) = common::llvm_readelf() else {
        return;
    };
    for path in shipped() {
        let co = load(&path);
        let md = co.metadata.as_ref().expect("metadata note");
        let (kernels, top) = readelf_notes(&readelf, &path);
        let top_get = |k: &str| top.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(top_get("amdhsa.target"), md.target, "{}", path.display());
        assert_eq!(
            top_get("amdhsa.target").unwrap(),
            co.triple_target_id(),
            "{}",
            path.display()
        );
        let version: Vec<String> = md.version.iter().map(|v| v.to_string()).collect();
        assert_eq!(
            top_get("amdhsa.version").unwrap(),
            version.join(","),
            "{}",
            path.display()
        );
        assert_eq!(kernels.len(), md.kernels.len(), "{}", path.display());
        for rk in &kernels {
            let name = rk.field(".name").expect(".name");
            let k = md
                .kernels
                .iter()
                .find(|k| k.name == name)
                .unwrap_or_else(|| panic!("{name}"));
            let ctx = format!("{} {name}", path.display());
            let args: Vec<(u64, u64, String)> = k
                .args
                .iter()
                .map(|a| {
                    (
                        a.offset as u64,
                        a.size as u64,
                        a.value_kind.as_str().to_string(),
                    )
                })
                .collect();
            assert_eq!(args, rk.args, "{ctx}: .args");
            assert!(!args.is_empty(), "{ctx}: readelf parse found no args");
            let num = |key: &str| -> Option<u32> {
                rk.field(key)
                    .map(|v| v.parse().unwrap_or_else(|_| panic!("{ctx} {key}={v}")))
            };
            assert_eq!(rk.field(".symbol"), Some(k.symbol.as_str()), "{ctx}");
            assert_eq!(num(".wavefront_size"), Some(k.wavefront_size), "{ctx}");
            assert_eq!(num(".sgpr_count"), Some(k.sgpr_count), "{ctx}");
            assert_eq!(num(".vgpr_count"), Some(k.vgpr_count), "{ctx}");
            assert_eq!(num(".agpr_count"), k.agpr_count, "{ctx}");
            assert_eq!(num(".sgpr_spill_count"), k.sgpr_spill_count, "{ctx}");
            assert_eq!(num(".vgpr_spill_count"), k.vgpr_spill_count, "{ctx}");
            assert_eq!(
                num(".group_segment_fixed_size"),
                Some(k.group_segment_fixed_size),
                "{ctx}"
            );
            assert_eq!(
                num(".private_segment_fixed_size"),
                Some(k.private_segment_fixed_size),
                "{ctx}"
            );
            assert_eq!(
                num(".kernarg_segment_size"),
                Some(k.kernarg_segment_size),
                "{ctx}"
            );
            assert_eq!(
                num(".kernarg_segment_align"),
                Some(k.kernarg_segment_align),
                "{ctx}"
            );
            assert_eq!(
                num(".max_flat_workgroup_size"),
                k.max_flat_workgroup_size,
                "{ctx}"
            );
            assert_eq!(
                rk.field(".uses_dynamic_stack").map(|v| v == "true"),
                k.uses_dynamic_stack,
                "{ctx}"
            );
        }
    }
}

#[test]
fn header_and_symbols_match_llvm_readelf() {
    let Some(readelf) = common::llvm_readelf() else {
        return;
    };
    for path in shipped() {
        let co = load(&path);
        let ctx = path.display().to_string();
        let h = readelf_header(&readelf, &path);
        let get = |k: &str| {
            h.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        // `Flags: 0x53f, gfx90a, xnack, sramecc`
        let flags = get("Flags");
        let mut parts = flags.split(", ");
        let hexv = parts.next().unwrap().trim_start_matches("0x");
        assert_eq!(
            u32::from_str_radix(hexv, 16).unwrap(),
            co.header.e_flags,
            "{ctx}"
        );
        assert_eq!(parts.next().unwrap(), co.target.processor, "{ctx}");
        assert_eq!(get("OS/ABI"), "AMDGPU - HSA", "{ctx}");
        // ELFABIVERSION_AMDGPU_HSA_V5 = 3 (ELF.h).
        let abi: u32 = get("ABI Version").parse().unwrap();
        assert_eq!(co.code_object_version, Some(abi + 2), "{ctx}");
        assert_eq!(get("Machine"), "EM_AMDGPU", "{ctx}");

        let syms = readelf_symbols(&readelf, &path);
        for k in &co.kernels {
            let func = syms
                .iter()
                .find(|(n, _, _, t)| *n == k.name && t == "FUNC")
                .unwrap_or_else(|| panic!("{ctx}: no FUNC {}", k.name));
            assert_eq!(
                (func.1, func.2),
                (k.entry_vaddr, k.code_size),
                "{ctx} {}",
                k.name
            );
            let kd = syms
                .iter()
                .find(|(n, _, _, t)| *n == format!("{}.kd", k.name) && t == "OBJECT")
                .unwrap_or_else(|| panic!("{ctx}: no {}.kd", k.name));
            assert_eq!((kd.1, kd.2), (k.descriptor_vaddr, 64), "{ctx} {}", k.name);
        }
    }
}

#[test]
fn kernel_descriptors_match_llvm_objdump() {
    let Some(tool) = common::llvm_objdump() else {
        return;
    };
    for path in shipped() {
        let co = load(&path);
        for k in &co.kernels {
            let dirs = objdump_descriptor(&tool, &path, &k.name);
            let ctx = format!("{} {}", path.display(), k.name);
            assert!(
                !dirs.is_empty(),
                "{ctx}: objdump printed no .amdhsa directives"
            );
            let get = |key: &str| dirs.iter().find(|(n, _)| n == key).map(|(_, v)| *v);
            let d = &k.descriptor;
            let checks: Vec<(&str, Option<u64>)> = vec![
                (
                    ".amdhsa_group_segment_fixed_size",
                    Some(d.group_segment_fixed_size.into()),
                ),
                (
                    ".amdhsa_private_segment_fixed_size",
                    Some(d.private_segment_fixed_size.into()),
                ),
                (".amdhsa_kernarg_size", Some(d.kernarg_size.into())),
                // COMPUTE_PGM_RSRC2 bit 0: named after architected flat
                // scratch on gfx11+, the wavefront offset SGPR before.
                (
                    if get(".amdhsa_enable_private_segment").is_some() {
                        ".amdhsa_enable_private_segment"
                    } else {
                        ".amdhsa_system_sgpr_private_segment_wavefront_offset"
                    },
                    Some(d.enable_private_segment().into()),
                ),
                (
                    ".amdhsa_system_sgpr_workgroup_id_x",
                    Some(d.enable_sgpr_workgroup_id()[0].into()),
                ),
                (
                    ".amdhsa_system_sgpr_workgroup_id_y",
                    Some(d.enable_sgpr_workgroup_id()[1].into()),
                ),
                (
                    ".amdhsa_system_sgpr_workgroup_id_z",
                    Some(d.enable_sgpr_workgroup_id()[2].into()),
                ),
                (
                    ".amdhsa_system_vgpr_workitem_id",
                    Some(d.enable_vgpr_workitem_id().into()),
                ),
                (
                    ".amdhsa_user_sgpr_dispatch_ptr",
                    Some(d.enable_sgpr(1).into()),
                ),
                (".amdhsa_user_sgpr_queue_ptr", Some(d.enable_sgpr(2).into())),
                (
                    ".amdhsa_user_sgpr_kernarg_segment_ptr",
                    Some(d.enable_sgpr_kernarg_segment_ptr().into()),
                ),
                (
                    ".amdhsa_user_sgpr_dispatch_id",
                    Some(d.enable_sgpr(4).into()),
                ),
                (
                    ".amdhsa_user_sgpr_private_segment_size",
                    Some(d.enable_sgpr(6).into()),
                ),
                (
                    ".amdhsa_uses_dynamic_stack",
                    Some(d.uses_dynamic_stack().into()),
                ),
            ];
            for (key, want) in checks {
                assert_eq!(get(key), want, "{ctx}: {key}");
            }
            // The wave's VGPR allocation (the out-of-range rule's bound).
            let family = co.isa_family().expect("family");
            assert_eq!(
                get(".amdhsa_next_free_vgpr"),
                Some(u64::from(d.vgpr_allocation(family))),
                "{ctx}: .amdhsa_next_free_vgpr"
            );
            if let Some(v) = get(".amdhsa_user_sgpr_private_segment_buffer") {
                assert_eq!(v, u64::from(d.enable_sgpr(0)), "{ctx}");
            }
            if co.target.processor == "gfx90a" || co.target.processor == "gfx942" {
                assert_eq!(
                    get(".amdhsa_accum_offset"),
                    Some(u64::from(d.accum_offset())),
                    "{ctx}"
                );
            }
            if co.target.processor.starts_with("gfx1") {
                assert_eq!(
                    get(".amdhsa_wavefront_size32"),
                    Some(d.enable_wavefront_size32().into()),
                    "{ctx}"
                );
                assert_eq!(
                    get(".amdhsa_workgroup_processor_mode"),
                    Some(d.wgp_mode().into()),
                    "{ctx}"
                );
            }
        }
    }
}

/// Every DS instruction codeobj finds is one llvm-objdump prints at that
/// address with those bytes, and no DS instruction is missed; offsets and
/// the ADDR register agree, and ds_xor_rtn_b64 prints identically.
#[test]
fn ds_instructions_match_llvm_objdump() {
    let Some(tool) = common::llvm_objdump() else {
        return;
    };
    for path in shipped() {
        let co = load(&path);
        let lines = objdump(&tool, &path);
        let family = co.isa_family().unwrap();
        let mut xors = 0;
        for k in &co.kernels {
            let ctx = format!("{} {}", path.display(), k.name);
            let theirs: Vec<_> = lines
                .iter()
                .filter(|l| l.symbol == k.name && l.mnemonic.starts_with("ds_"))
                .collect();
            let ours = co.ds_instructions(k).unwrap();
            let their_addrs: Vec<u64> = theirs.iter().map(|l| l.addr).collect();
            let our_addrs: Vec<u64> = ours.iter().map(|d| d.vaddr).collect();
            assert_eq!(our_addrs, their_addrs, "{ctx}: DS instruction addresses");
            for (o, t) in ours.iter().zip(&theirs) {
                assert_eq!(
                    t.words,
                    vec![o.word as u32, (o.word >> 32) as u32],
                    "{ctx} at {:#x}",
                    o.vaddr
                );
                // isa's text is LLVM's: it must read exactly as objdump prints it.
                let theirs_text = if t.operands.is_empty() {
                    t.mnemonic.clone()
                } else {
                    format!("{} {}", t.mnemonic, t.operands)
                };
                let ours_text = o
                    .text
                    .as_ref()
                    .unwrap_or_else(|e| panic!("{ctx} at {:#x}: {e}", o.vaddr));
                assert_eq!(ours_text, &theirs_text, "{ctx} at {:#x}", o.vaddr);
                assert_eq!(o.mnemonic(family), Some(t.mnemonic.as_str()), "{ctx}");
                if o.inst.op == dsxor::isa::DS_XOR_RTN_B64 {
                    xors += 1;
                }
                // offset:N, or offset0:/offset1: for the two-address forms.
                let field = |name: &str| -> Option<u32> {
                    t.operands
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix(name))
                        .map(|v| v.parse().unwrap())
                };
                let f = &o.inst;
                match (field("offset:"), field("offset0:"), field("offset1:")) {
                    (Some(n), _, _) => assert_eq!(n, u32::from(f.offset()), "{ctx} {}", t.operands),
                    (None, None, None) => assert_eq!(f.offset(), 0, "{ctx} {}", t.operands),
                    (None, o0, o1) => {
                        assert_eq!(
                            o0.unwrap_or(0),
                            u32::from(f.offset0),
                            "{ctx} {}",
                            t.operands
                        );
                        assert_eq!(
                            o1.unwrap_or(0),
                            u32::from(f.offset1),
                            "{ctx} {}",
                            t.operands
                        );
                    }
                }
            }
        }
        // 4 conformance + 4 rounds conformance + 4 traffic conformance + 1
        // dep + 4 indep + 3 in each of the two in-flight probes + 1 in the
        // unused-lanes probe + 2 in the VDST probe + 3 in the soak kernel
        // (its lone first round and the unrolled pair) + 1 in the SMEM probe
        // (not built for gfx12).
        let smem = usize::from(!co.target.processor.starts_with("gfx12"));
        assert_eq!(xors, 29 + smem, "{}", path.display());
    }
}

#[test]
fn bundles_made_by_clang_offload_bundler_pick_the_right_entry() {
    let Some(bundler) = bundler() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("host.o");
    std::fs::write(&host, b"").unwrap();
    let a = prebuilt_dir().join("dsxor-gfx1100-w32.co");
    let b = prebuilt_dir().join("dsxor-gfx90a-w64.co");
    let out = dir.path().join("bundle");
    let st = Command::new(&bundler)
        .arg("-type=o")
        .arg("-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx1100,hipv4-amdgcn-amd-amdhsa--gfx90a")
        .arg(format!("-input={}", host.display()))
        .arg(format!("-input={}", a.display()))
        .arg(format!("-input={}", b.display()))
        .arg(format!("-output={}", out.display()))
        .status()
        .unwrap();
    assert!(st.success());
    let data = std::fs::read(&out).unwrap();
    let ids: Vec<String> = bundle::parse_entries(&data)
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    // Two AMDGPU entries: a target must be named, and the error says how.
    match CodeObject::parse(&data) {
        Err(e @ CodeObjectError::NoBundleEntry { target: None, .. }) => {
            let text = e.to_string();
            assert!(text.contains("--target"), "{text}");
            assert!(text.contains("hipv4-amdgcn-amd-amdhsa--gfx90a"), "{text}");
        }
        other => panic!("a two-target bundle gave {other:?}"),
    }
    let g11 = CodeObject::parse_for_target(&data, &TargetId::parse("gfx1100").unwrap()).unwrap();
    assert_eq!(g11.elf_bytes(), std::fs::read(&a).unwrap().as_slice());
    assert_eq!(g11.target.processor, "gfx1100");
    // Built for xnack "any": serves a device with xnack off.
    let g9 =
        CodeObject::parse_for_target(&data, &TargetId::parse("gfx90a:xnack-").unwrap()).unwrap();
    assert_eq!(g9.elf_bytes(), std::fs::read(&b).unwrap().as_slice());
    assert!(matches!(
        CodeObject::parse_for_target(&data, &TargetId::parse("gfx942").unwrap()),
        Err(CodeObjectError::NoBundleEntry { .. })
    ));

    // Our writer's bundles unbundle with the LLVM tool.
    let ours = dir.path().join("ours");
    let a_bytes = std::fs::read(&a).unwrap();
    std::fs::write(
        &ours,
        bundle::write_bundle(&[
            ("host-x86_64-unknown-linux-gnu", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx1100", &a_bytes),
        ]),
    )
    .unwrap();
    let back = dir.path().join("back.co");
    let st = Command::new(&bundler)
        .args([
            "-type=o",
            "-unbundle",
            "-targets=hipv4-amdgcn-amd-amdhsa--gfx1100",
        ])
        .arg(format!("-input={}", ours.display()))
        .arg(format!("-output={}", back.display()))
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(std::fs::read(&back).unwrap(), a_bytes);
}

/// The kernarg layout is the one the compiled code reads: gfx1100's
/// conformance kernel loads blockDim.x with `s_load_b32 …, 0x44` and masks
/// it to 16 bits (hidden_group_size_x, AMDGPUUsage.rst "Code Object V5
/// Metadata"); the builder must put the block size exactly there.
#[test]
fn kernarg_builder_fills_what_the_code_loads() {
    let Some(tool) = common::llvm_objdump() else {
        return;
    };
    let path = prebuilt_dir().join("dsxor-gfx1100-w32.co");
    let co = load(&path);
    let k = co.kernel("dsxor_conformance_off0").unwrap();
    let m = k.metadata.as_ref().unwrap();
    let lines = objdump(&tool, &path);
    let loads: Vec<u64> = lines
        .iter()
        .filter(|l| l.symbol == k.name && l.mnemonic.starts_with("s_load"))
        .filter_map(|l| l.operands.rsplit(", ").next())
        .map(|off| {
            if off == "null" {
                0
            } else {
                u64::from_str_radix(off.trim_start_matches("0x"), 16).unwrap()
            }
        })
        .collect();
    assert!(loads.contains(&0x44), "{loads:?}");
    // Every byte the code loads is an argument in the metadata.
    for off in &loads {
        assert!(
            m.args
                .iter()
                .any(|a| u64::from(a.offset) <= *off && *off < u64::from(a.offset + a.size)),
            "load at {off:#x} hits no argument"
        );
    }
    let args = [
        ArgValue::Buffer(0),
        ArgValue::Buffer(1),
        ArgValue::Buffer(2),
        ArgValue::Buffer(3),
        ArgValue::Buffer(4),
        ArgValue::Buffer(5),
        ArgValue::U32(1234),
    ];
    let addrs = [0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000];
    let ka = build_kernarg(m, &args, &addrs, &LaunchDims::linear(5, 96, 4096)).unwrap();
    assert_eq!(ka.bytes.len(), 312);
    assert_eq!(ka.explicit_size, 52);
    let u16_at = |o: usize| u16::from_le_bytes([ka.bytes[o], ka.bytes[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes(ka.bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(ka.bytes[o..o + 8].try_into().unwrap());
    assert_eq!(
        u16_at(0x44),
        96,
        "hidden_group_size_x where the code loads it"
    );
    for (i, a) in addrs.iter().enumerate() {
        assert_eq!(u64_at(i * 8), *a);
    }
    assert_eq!(u32_at(48), 1234);
    assert_eq!(
        (u32_at(56), u32_at(60), u32_at(64)),
        (5, 1, 1),
        "hidden_block_count"
    );
    assert_eq!((u16_at(70), u16_at(72)), (1, 1), "hidden_group_size_y/z");
    assert_eq!(
        (u16_at(74), u16_at(76), u16_at(78)),
        (0, 0, 0),
        "hidden_remainder"
    );
    assert_eq!(u16_at(120), 3, "hidden_grid_dims");
    assert_eq!(u32_at(176), 4096, "hidden_dynamic_lds_size");
    assert_eq!(
        ka.buffer_slots,
        (0..6).map(|i| (i as u32 * 8, i)).collect::<Vec<_>>()
    );

    // Wrong arity and kinds are refused with the kernel named.
    let e = build_kernarg(m, &args[..6], &addrs, &LaunchDims::linear(1, 32, 0)).unwrap_err();
    assert!(e.to_string().contains("dsxor_conformance_off0"), "{e}");
    let mut bad = args;
    bad[6] = ArgValue::U64(1);
    assert!(build_kernarg(m, &bad, &addrs, &LaunchDims::linear(1, 32, 0)).is_err());
    bad = args;
    bad[0] = ArgValue::U32(1);
    assert!(build_kernarg(m, &bad, &addrs, &LaunchDims::linear(1, 32, 0)).is_err());
    bad = args;
    bad[0] = ArgValue::Buffer(9);
    assert!(build_kernarg(m, &bad, &addrs, &LaunchDims::linear(1, 32, 0)).is_err());
    assert!(build_kernarg(m, &args, &addrs, &LaunchDims::linear(1, 0, 0)).is_err());
    assert!(build_kernarg(m, &args, &addrs, &LaunchDims::linear(1, 70000, 0)).is_err());
}

#[test]
fn patched_offsets_disassemble_as_asked() {
    let Some(tool) = common::llvm_objdump() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for o in embedded() {
        let original = o.bytes;
        let co = CodeObject::parse(original).unwrap();
        let site = dsxor::codeobj::patch::find_ds_xor_site(&co, "dsxor_conformance_off0").unwrap();
        for offset in [1u16, 8, 0x1234, 65528, 65535] {
            let patched = patch_ds_offset(original, "dsxor_conformance_off0", offset).unwrap();
            let diff: Vec<usize> = (0..original.len())
                .filter(|&i| original[i] != patched[i])
                .collect();
            let file_off = co.file_offset(site, 8).unwrap() as usize;
            assert!(
                diff.iter().all(|&i| i == file_off || i == file_off + 1),
                "{}: {diff:?}",
                o.file_name
            );
            let path = dir.path().join(format!("{offset}-{}", o.file_name));
            std::fs::write(&path, &patched).unwrap();
            let lines = objdump(&tool, &path);
            let x = lines
                .iter()
                .find(|l| l.addr == site)
                .unwrap_or_else(|| panic!("{}: nothing at {site:#x}", o.file_name));
            assert_eq!(x.mnemonic, "ds_xor_rtn_b64", "{}", o.file_name);
            assert!(
                x.operands.ends_with(&format!(" offset:{offset}")),
                "{}: {}",
                o.file_name,
                x.operands
            );
            // Still exactly one, still where the label says.
            let again = CodeObject::parse(&patched).unwrap();
            assert_eq!(
                dsxor::codeobj::patch::find_ds_xor_site(&again, "dsxor_conformance_off0").unwrap(),
                site
            );
        }
        // Four in flight: not one, so refused.
        let e = patch_ds_offset(original, "dsxor_throughput_indep", 8).unwrap_err();
        assert!(e.to_string().contains("found 4"), "{e}");
        assert!(patch_ds_offset(original, "no_such_kernel", 8).is_err());
        // A bundle is refused with a pointer to its ELF entry.
        let b = bundle::write_bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx1100", original)]);
        assert!(patch_ds_offset(&b, "dsxor_conformance_off0", 8).is_err());
    }
}

/// A host object built by clang carries the device code in `.hip_fatbin`;
/// `inspect` reads it (entry chosen by `--target`).
#[test]
fn host_objects_are_read_through_their_hip_fatbin() {
    // clang runs clang-offload-bundler to make the .hip_fatbin.
    let (Some(clang), Some(_)) = (common::clang(), bundler()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("host.hip");
    // The host side needs the launch API declared; no header, no runtime.
    let kernels = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/dsxor.hip");
    std::fs::write(
        &src,
        format!(
            "typedef unsigned long size_t;\n\
             struct dim3 {{ unsigned x, y, z; }};\n\
             typedef struct ihipStream_t* hipStream_t;\n\
             extern \"C\" int hipLaunchKernel(const void*, dim3, dim3, void**, size_t, hipStream_t);\n\
             extern \"C\" int __hipPushCallConfiguration(dim3, dim3, size_t, hipStream_t);\n\
             extern \"C\" int __hipPopCallConfiguration(dim3*, dim3*, size_t*, hipStream_t*);\n\
             #include \"{}\"\n",
            kernels.display()
        ),
    )
    .unwrap();
    let obj = dir.path().join("host.o");
    let st = Command::new(&clang)
        .args([
            "-x",
            "hip",
            "--offload-arch=gfx1100",
            "--offload-arch=gfx90a",
        ])
        .args(["-nogpulib", "-nogpuinc", "-O2", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success());
    let data = std::fs::read(&obj).unwrap();
    let co = CodeObject::parse_for_target(&data, &TargetId::parse("gfx1100").unwrap()).unwrap();
    assert!(matches!(
        co.container,
        dsxor::codeobj::Container::HostFatbin { e_machine: 62, .. }
    ));
    // 4 conformance + 4 rounds conformance + 4 traffic conformance + dep +
    // indep + the leftover-LDS probe's fill and listener + the five
    // in-flight probes (the SMEM one not on gfx12) + the soak kernel +
    // qualify's ALU harness (gfx11 only).
    assert_eq!(co.kernels.len(), 23);
    assert!(co.kernel("dsxor_alu_harness").is_ok());
    assert!(matches!(
        CodeObject::parse(&data),
        Err(CodeObjectError::NoBundleEntry { .. })
    ));
    let out = common::dsxor(&["inspect", "--target", "gfx90a", obj.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("amdgcn-amd-amdhsa--gfx90a"), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("ds_xor_rtn_b64 ") && l.ends_with(" offset:4096")),
        "{stdout}"
    );
}
