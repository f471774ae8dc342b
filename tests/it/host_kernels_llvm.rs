//! The shipped kernels: every embedded and prebuilt object parses and holds
//! what kernels/dsxor.hip claims (checked against llvm-objdump), the prebuilt
//! objects match their manifest, and a fresh build from source reproduces
//! them (the staleness test).

use crate::codeobj_support;
use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use codeobj_support::{objdump, prebuilt_dir, ObjLine};
use dsxor::case::WaveSize;
use dsxor::codeobj::{embedded, CodeObject};
use sha2::{Digest, Sha256};

const KERNELS: [&str; 21] = [
    "dsxor_conformance_off0",
    "dsxor_conformance_off8",
    "dsxor_conformance_off4096",
    "dsxor_conformance_off65528",
    "dsxor_conformance_rounds_off0",
    "dsxor_conformance_rounds_off8",
    "dsxor_conformance_rounds_off4096",
    "dsxor_conformance_rounds_off65528",
    "dsxor_conformance_traffic_off0",
    "dsxor_conformance_traffic_off8",
    "dsxor_conformance_traffic_off4096",
    "dsxor_conformance_traffic_off65528",
    "dsxor_throughput_dep",
    "dsxor_throughput_indep",
    dsxor::suite::soak::kernel::SOAK_KERNEL,
    dsxor::backend::conformance::FILL_KERNEL,
    dsxor::backend::conformance::LISTEN_KERNEL,
    "dsxor_probe_back_to_back",
    "dsxor_probe_exec_zero",
    "dsxor_probe_unused_lanes",
    "dsxor_probe_vdst_range",
];

/// Built for every target but gfx12, which counts DS and SMEM apart
/// (kernels/dsxor.hip).
const SMEM_PROBE: &str = "dsxor_probe_smem_in_flight";

const CONFORMANCE: [(&str, u16); 4] = [
    ("dsxor_conformance_off0", 0),
    ("dsxor_conformance_off8", 8),
    ("dsxor_conformance_off4096", 4096),
    ("dsxor_conformance_off65528", 65528),
];

fn manifest() -> serde_json::Value {
    let text =
        std::fs::read_to_string(prebuilt_dir().join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest.json is JSON")
}

/// The wait that makes a DS result usable: gfx12 renamed it
/// (llvm/test/MC/AMDGPU/gfx12_asm_sopp.s: s_wait_dscnt).
fn is_ds_wait(l: &ObjLine, processor: &str) -> bool {
    if processor.starts_with("gfx12") {
        l.mnemonic == "s_wait_dscnt" && l.operands == "0x0"
    } else {
        l.mnemonic == "s_waitcnt" && l.operands == "lgkmcnt(0)"
    }
}

#[test]
fn embedded_objects_cover_every_target_and_wave() {
    let got: Vec<(&str, WaveSize, bool)> = embedded()
        .iter()
        .map(|o| (o.target, o.wave, o.cumode))
        .collect();
    // gfx1100 in WGP and in CU mode (`-mcumode`), each wave size.
    assert_eq!(
        got,
        vec![
            ("gfx1100", WaveSize::Wave32, false),
            ("gfx1100", WaveSize::Wave64, false),
            ("gfx1100", WaveSize::Wave32, true),
            ("gfx1100", WaveSize::Wave64, true),
            ("gfx1030", WaveSize::Wave64, false),
            ("gfx1200", WaveSize::Wave64, false),
            ("gfx90a", WaveSize::Wave64, false),
            ("gfx942", WaveSize::Wave64, false),
        ]
    );
}

#[test]
fn every_shipped_object_parses_with_all_kernels() {
    let mut objects: Vec<(String, Vec<u8>, String, u32)> = embedded()
        .iter()
        .map(|o| {
            (
                format!("embedded {}", o.file_name),
                o.bytes.to_vec(),
                o.target.to_string(),
                o.wave.lanes(),
            )
        })
        .collect();
    for o in embedded() {
        let bytes = std::fs::read(prebuilt_dir().join(o.file_name)).expect("prebuilt object");
        objects.push((
            format!("prebuilt {}", o.file_name),
            bytes,
            o.target.to_string(),
            o.wave.lanes(),
        ));
    }
    for (what, bytes, target, wave) in objects {
        let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(co.target.processor, target, "{what}");
        assert_eq!(
            co.code_object_version,
            Some(5),
            "{what}: pinned -mcode-object-version=5"
        );
        let names: BTreeSet<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
        let mut want: BTreeSet<&str> = KERNELS.iter().copied().collect();
        if !target.starts_with("gfx12") {
            want.insert(SMEM_PROBE);
        }
        // The ALU qualification harness is gfx11 only (kernels/dsxor.hip).
        if target.starts_with("gfx11") {
            want.insert(dsxor::qualify::alu::HARNESS);
            // Its program slot: labelled, all s_nop 0, and llvm-objdump
            // agrees (the slot is what `dsxor qualify` overwrites).
            let (at, len) =
                dsxor::qualify::alu::find_slot(&co).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(len, 32, "{what}");
            if let Some(lines) = alu_slot_objdump(&bytes, at, len) {
                assert_eq!(lines.len(), len, "{what}: {lines:?}");
                assert!(lines.iter().all(|l| l == "s_nop 0"), "{what}: {lines:?}");
            }
        }
        assert_eq!(names, want, "{what}");
        for k in &co.kernels {
            let m = k
                .metadata
                .as_ref()
                .unwrap_or_else(|| panic!("{what} {}: no metadata", k.name));
            assert_eq!(m.wavefront_size, wave, "{what} {}", k.name);
            assert_eq!(co.wave_size(k), wave);
            if target.starts_with("gfx1") {
                assert_eq!(
                    k.descriptor.enable_wavefront_size32(),
                    wave == 32,
                    "{what} {}",
                    k.name
                );
            }
            assert_eq!(
                k.descriptor.kernarg_size, m.kernarg_segment_size,
                "{what} {}",
                k.name
            );
            // Dynamic LDS must start at address 0: no static LDS.
            assert_eq!(
                k.descriptor.group_segment_fixed_size, 0,
                "{what} {}",
                k.name
            );
            assert_eq!(m.group_segment_fixed_size, 0, "{what} {}", k.name);
            // No scratch at all.
            assert_eq!(
                k.descriptor.private_segment_fixed_size, 0,
                "{what} {}",
                k.name
            );
            assert_eq!(m.private_segment_fixed_size, 0, "{what} {}", k.name);
            assert!(!k.descriptor.enable_private_segment(), "{what} {}", k.name);
            assert_eq!(m.vgpr_spill_count, Some(0), "{what} {}", k.name);
            assert_eq!(m.sgpr_spill_count, Some(0), "{what} {}", k.name);
            assert!(co.kernel_code(k).is_ok());
        }
    }
}

#[test]
fn prebuilt_objects_match_their_manifest() {
    let m = manifest();
    assert_eq!(m["format"], "dsxor-prebuilt/1");
    let source =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/dsxor.hip")).unwrap();
    assert_eq!(
        m["source_sha256"].as_str().unwrap(),
        hex::encode(Sha256::digest(&source)),
        "kernels/dsxor.hip changed since kernels/prebuilt/ was made: run kernels/regenerate.sh"
    );
    let objects = m["objects"].as_array().expect("objects");
    let files: Vec<&str> = objects
        .iter()
        .map(|o| o["file"].as_str().unwrap())
        .collect();
    let embedded_files: Vec<&str> = embedded().iter().map(|o| o.file_name).collect();
    assert_eq!(
        files, embedded_files,
        "manifest and build.rs list the same objects"
    );
    for o in objects {
        let file = o["file"].as_str().unwrap();
        let bytes = std::fs::read(prebuilt_dir().join(file)).unwrap();
        assert_eq!(o["bytes"].as_u64().unwrap(), bytes.len() as u64, "{file}");
        assert_eq!(
            o["sha256"].as_str().unwrap(),
            hex::encode(Sha256::digest(&bytes)),
            "{file}"
        );
        let args: Vec<&str> = o["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let target = o["target"].as_str().unwrap();
        let arch = format!("--offload-arch={target}");
        assert!(args.contains(&arch.as_str()), "{file}: {args:?}");
        let wave64 = o["wave"].as_u64() == Some(64);
        assert_eq!(
            args.contains(&"-mwavefrontsize64"),
            wave64 && target.starts_with("gfx1"),
            "{file}: {args:?}"
        );
        // Every object is embedded in the dsxor binary (8 of them) and sent
        // once to each HIP worker process over its pipe, so their size is
        // paid in the binary and per worker. 66,352 bytes for the largest
        // with the soak kernel (gfx1100 wave32): the cap leaves room for a
        // kernel or two more and fails on a change that bloats them (a
        // fully unrolled loop, debug sections kept).
        const CAP: usize = 96 * 1024;
        assert!(
            bytes.len() < CAP,
            "{file} is {} bytes, over {CAP}",
            bytes.len()
        );
    }
}

/// With the embedded objects built from source by the same compiler that
/// made the prebuilt ones, the two must be identical byte for byte.
#[test]
fn embedded_from_source_equals_prebuilt_with_the_same_compiler() {
    let m = manifest();
    let compiler = m["compiler"].as_str().unwrap();
    for o in embedded() {
        if o.origin != dsxor::codeobj::Origin::Source {
            if std::env::var("DSXOR_KERNELS").is_ok_and(|v| v == "prebuilt") {
                eprintln!(
                    "SKIPPED: {} was embedded from kernels/prebuilt (DSXOR_KERNELS=prebuilt)",
                    o.file_name
                );
            } else {
                // In CI clang is installed, so a prebuilt embedding means
                // build.rs found no compiler or its build failed.
                common::missing(
                    "a clang that build.rs can use (the kernels were embedded from kernels/prebuilt)",
                    &format!("{} came from kernels/prebuilt", o.file_name),
                );
            }
            return;
        }
        if o.compiler != compiler {
            eprintln!(
                "SKIPPED: {} built by `{}`, prebuilt by `{compiler}`: bytes may differ (see the staleness test)",
                o.file_name, o.compiler
            );
            continue;
        }
        let prebuilt = std::fs::read(prebuilt_dir().join(o.file_name)).unwrap();
        assert!(
            prebuilt == o.bytes,
            "{} differs from a fresh build with the same compiler: kernels/prebuilt is stale, run kernels/regenerate.sh",
            o.file_name
        );
    }
}

fn clang_version(clang: &Path) -> String {
    let out = Command::new(clang).arg("--version").output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The ABI-level content of an object: kernel names, argument layout, and
/// every ds_xor_rtn_b64's offset. Compared when the compiler differs from the
/// one recorded in the manifest (its bytes then legitimately differ).
fn abi_summary(co: &CodeObject) -> Vec<String> {
    let mut out = Vec::new();
    for k in &co.kernels {
        let m = k.metadata.as_ref().unwrap();
        let args: Vec<String> = m
            .args
            .iter()
            .map(|a| format!("{}@{}:{}", a.value_kind.as_str(), a.offset, a.size))
            .collect();
        let xors: Vec<u16> = co
            .ds_instructions(k)
            .unwrap()
            .iter()
            .filter(|d| d.inst.op == dsxor::isa::DS_XOR_RTN_B64)
            .map(|d| d.inst.offset())
            .collect();
        out.push(format!(
            "{} wave{} [{}] xor offsets {:?}",
            k.name,
            m.wavefront_size,
            args.join(" "),
            xors
        ));
    }
    out
}

/// The staleness test: rebuild every prebuilt object from kernels/dsxor.hip
/// with the manifest's own flags. Builds are deterministic (two builds are
/// compared), and with the manifest's compiler version the result must equal
/// the shipped object byte for byte; with another version, everything the
/// harness depends on (kernels, argument layout, DS offsets) must.
#[test]
fn staleness_prebuilt_objects_equal_a_fresh_build() {
    let Some(clang) = common::clang() else { return };
    let m = manifest();
    let same_compiler = clang_version(&clang) == m["compiler"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for o in m["objects"].as_array().unwrap() {
        let file = o["file"].as_str().unwrap();
        let args: Vec<&str> = o["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let mut builds = Vec::new();
        for n in 0..2 {
            let out_path = dir.path().join(format!("{n}-{file}"));
            let st = Command::new(&clang)
                .args(&args)
                .arg("-o")
                .arg(&out_path)
                .current_dir(root)
                .status()
                .unwrap();
            assert!(st.success(), "{} {args:?} failed", clang.display());
            builds.push(std::fs::read(&out_path).unwrap());
        }
        assert!(
            builds[0] == builds[1],
            "{file}: two builds differ: the build is not deterministic"
        );
        let prebuilt = std::fs::read(prebuilt_dir().join(file)).unwrap();
        if same_compiler {
            assert!(
                builds[0] == prebuilt,
                "{file}: kernels/prebuilt is stale (differs from a fresh build by the same compiler); run kernels/regenerate.sh"
            );
        } else {
            eprintln!(
                "NOTE: {} is not the manifest's compiler ({}); comparing {file} at the ABI level",
                clang_version(&clang),
                m["compiler"]
            );
            let fresh = CodeObject::parse(&builds[0]).unwrap();
            let shipped = CodeObject::parse(&prebuilt).unwrap();
            assert_eq!(abi_summary(&fresh), abi_summary(&shipped), "{file}");
        }
    }
}

/// llvm-objdump's disassembly of an embedded object: the bytes the binary
/// runs (compiled from source in CI), not only the prebuilt copies.
fn objdump_of(o: &dsxor::codeobj::EmbeddedObject) -> Option<Vec<ObjLine>> {
    let tool = common::llvm_objdump()?;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(o.file_name);
    std::fs::write(&path, o.bytes).expect("write the embedded object");
    Some(objdump(&tool, &path))
}

/// The VGPRs an operand names: `v7` is (7, 7), `v[5:6]` is (5, 6).
fn vgprs(operand: &str) -> (u32, u32) {
    let body = operand
        .strip_prefix('v')
        .unwrap_or_else(|| panic!("`{operand}` is not a VGPR operand"));
    let num = |t: &str| {
        t.parse::<u32>()
            .unwrap_or_else(|e| panic!("`{operand}`: {e}"))
    };
    match body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        Some(range) => {
            let (lo, hi) = range
                .split_once(':')
                .unwrap_or_else(|| panic!("`{operand}`: no range"));
            (num(lo), num(hi))
        }
        None => (num(body), num(body)),
    }
}

fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

#[test]
fn conformance_kernels_hold_one_ds_xor_rtn_b64_then_the_wait() {
    for o in embedded() {
        let Some(lines) = objdump_of(o) else {
            return;
        };
        for (kernel, offset) in CONFORMANCE {
            let body: Vec<&ObjLine> = lines.iter().filter(|l| l.symbol == kernel).collect();
            let xors: Vec<usize> = (0..body.len())
                .filter(|&i| body[i].mnemonic == "ds_xor_rtn_b64")
                .collect();
            assert_eq!(
                xors.len(),
                1,
                "{} {kernel}: {} ds_xor_rtn_b64",
                o.file_name,
                xors.len()
            );
            let x = body[xors[0]];
            let want_suffix = if offset == 0 {
                String::new()
            } else {
                format!(" offset:{offset}")
            };
            assert!(
                x.operands.ends_with(&want_suffix)
                    && (offset != 0 || !x.operands.contains("offset")),
                "{} {kernel}: {} {}",
                o.file_name,
                x.mnemonic,
                x.operands
            );
            let next = body.get(xors[0] + 1).expect("an instruction after the xor");
            assert!(
                is_ds_wait(next, o.target),
                "{} {kernel}: after the xor comes `{} {}`, not the DS wait",
                o.file_name,
                next.mnemonic,
                next.operands
            );
            // Inactive lanes skip it through EXEC: EXEC is narrowed before it
            // (v_cmpx / s_and_saveexec) and restored after it.
            let before = &body[..xors[0]];
            assert!(
                before.iter().any(|l| l.mnemonic.starts_with("v_cmpx")
                    || l.mnemonic.starts_with("s_and_saveexec")),
                "{} {kernel}: no EXEC mask before the xor",
                o.file_name
            );
            let after = &body[xors[0] + 1..];
            assert!(
                after.iter().take(4).any(|l| l.operands.starts_with("exec")),
                "{} {kernel}: EXEC is not restored right after the xor",
                o.file_name
            );
            // VDST is what gets stored to ret.
            let vdst = x.operands.split(", ").next().unwrap();
            let store = after
                .iter()
                .find(|l| l.mnemonic.starts_with("global_store"))
                .unwrap_or_else(|| {
                    panic!("{} {kernel}: no global store after the xor", o.file_name)
                });
            assert!(
                store.operands.contains(vdst),
                "{} {kernel}: `{} {}` does not store VDST {vdst}",
                o.file_name,
                store.mnemonic,
                store.operands
            );
        }
    }
}

const ROUNDS: [(&str, u16); 4] = [
    ("dsxor_conformance_rounds_off0", 0),
    ("dsxor_conformance_rounds_off8", 8),
    ("dsxor_conformance_rounds_off4096", 4096),
    ("dsxor_conformance_rounds_off65528", 65528),
];

/// The rounds kernels (kernels/dsxor.hip "Conformance kernels with
/// rounds"), read from llvm-objdump: one ds_xor_rtn_b64 at the kernel's
/// offset, the DS wait right after it, inside a loop that also narrows EXEC
/// for it, stores VDST and passes s_barrier, so every round's return is
/// stored and the rounds are ordered across the workgroup's waves.
#[test]
fn rounds_kernels_loop_over_one_ds_xor_rtn_b64_its_wait_store_and_barrier() {
    for o in embedded() {
        let Some(lines) = objdump_of(o) else {
            return;
        };
        for (kernel, offset) in ROUNDS {
            let body: Vec<&ObjLine> = lines.iter().filter(|l| l.symbol == kernel).collect();
            let xors: Vec<usize> = (0..body.len())
                .filter(|&i| body[i].mnemonic == "ds_xor_rtn_b64")
                .collect();
            assert_eq!(xors.len(), 1, "{} {kernel}", o.file_name);
            let x = body[xors[0]];
            assert!(
                if offset == 0 {
                    !x.operands.contains("offset")
                } else {
                    x.operands.ends_with(&format!(" offset:{offset}"))
                },
                "{} {kernel}: {}",
                o.file_name,
                x.operands
            );
            let next = body.get(xors[0] + 1).expect("an instruction after the xor");
            assert!(
                is_ds_wait(next, o.target),
                "{} {kernel}: after the xor comes `{} {}`",
                o.file_name,
                next.mnemonic,
                next.operands
            );
            let looped = loop_body(&body);
            let vdst = x.operands.split(", ").next().unwrap();
            assert!(
                looped
                    .iter()
                    .any(|l| l.mnemonic.starts_with("global_store") && l.operands.contains(vdst)),
                "{} {kernel}: the loop does not store VDST {vdst}",
                o.file_name
            );
            assert!(
                // gfx12 splits it: s_barrier_signal / s_barrier_wait
                // (llvm/test/MC/AMDGPU/gfx12_asm_sop1.s, gfx12_asm_sopp.s).
                looped.iter().any(|l| l.mnemonic.starts_with("s_barrier")),
                "{} {kernel}: no s_barrier in the loop",
                o.file_name
            );
            assert!(
                looped.iter().any(|l| l.mnemonic.starts_with("v_cmpx")
                    || l.mnemonic.starts_with("s_and_saveexec")),
                "{} {kernel}: EXEC is not narrowed in the loop",
                o.file_name
            );
            let m = CodeObject::parse(o.bytes).unwrap();
            let k = m.kernel(kernel).unwrap();
            let args = &k.metadata.as_ref().unwrap().args;
            // addr, data, active, lds_init, ret, lds_out, lds_qwords, rounds
            // (then the hidden arguments).
            assert_eq!(
                args.iter()
                    .take_while(|a| !a.value_kind.as_str().starts_with("hidden"))
                    .count(),
                8,
                "{} {kernel}",
                o.file_name
            );
        }
    }
}

/// The loop of a throughput kernel: the body of its one backward branch
/// that encloses a ds_xor_rtn_b64.
fn loop_body<'a>(body: &[&'a ObjLine]) -> Vec<&'a ObjLine> {
    let branch = body
        .iter()
        .find(|l| {
            l.branch_target.is_some_and(|t| {
                t < l.addr
                    && body
                        .iter()
                        .any(|x| x.mnemonic == "ds_xor_rtn_b64" && x.addr >= t && x.addr < l.addr)
            })
        })
        .expect("a backward branch around the ds_xor_rtn_b64");
    let start = branch.branch_target.unwrap();
    body.iter()
        .filter(|l| l.addr >= start && l.addr <= branch.addr)
        .copied()
        .collect()
}

#[test]
fn throughput_loops_hold_the_claimed_instructions_and_no_scratch() {
    for o in embedded() {
        let Some(lines) = objdump_of(o) else {
            return;
        };
        for (kernel, per_iteration) in [
            ("dsxor_throughput_dep", 1usize),
            ("dsxor_throughput_indep", 4),
        ] {
            let body: Vec<&ObjLine> = lines.iter().filter(|l| l.symbol == kernel).collect();
            assert!(!body.is_empty(), "{} {kernel}", o.file_name);
            for l in &body {
                assert!(
                    !l.mnemonic.starts_with("scratch_")
                        && !l.mnemonic.starts_with("buffer_store")
                        && !l.mnemonic.starts_with("buffer_load"),
                    "{} {kernel}: scratch access `{} {}`",
                    o.file_name,
                    l.mnemonic,
                    l.operands
                );
            }
            let lp = loop_body(&body);
            let xors: Vec<usize> = (0..lp.len())
                .filter(|&i| lp[i].mnemonic == "ds_xor_rtn_b64")
                .collect();
            assert_eq!(
                xors.len(),
                per_iteration,
                "{} {kernel}: ds_xor_rtn_b64 per iteration",
                o.file_name
            );
            // Back to back, no offset, then one wait.
            assert_eq!(
                xors.last().unwrap() - xors[0] + 1,
                per_iteration,
                "{} {kernel}: not back to back",
                o.file_name
            );
            let next = lp[xors.last().unwrap() + 1];
            assert!(
                is_ds_wait(next, o.target),
                "{} {kernel}: `{} {}` after the xors",
                o.file_name,
                next.mnemonic,
                next.operands
            );
            let mut vdsts: Vec<(u32, u32)> = Vec::new();
            let mut datas: Vec<(u32, u32)> = Vec::new();
            for &i in &xors {
                let ops: Vec<&str> = lp[i].operands.split(", ").collect();
                assert_eq!(ops.len(), 3, "{} {kernel}: {}", o.file_name, lp[i].operands);
                let (vdst, addr, d) = (vgprs(ops[0]), vgprs(ops[1]), vgprs(ops[2]));
                // Early-clobber: no VDST overlaps the ADDR or DATA that later
                // instructions of the group still read, nor another VDST.
                assert!(
                    !overlap(vdst, addr) && !overlap(vdst, d),
                    "{} {kernel}: `{}` overlaps its inputs",
                    o.file_name,
                    lp[i].operands
                );
                assert!(
                    vdsts.iter().all(|&v| !overlap(v, vdst)),
                    "{} {kernel}: the VDSTs in flight must be distinct: {}",
                    o.file_name,
                    lp[i].operands
                );
                vdsts.push(vdst);
                datas.push(d);
            }
            // data_next = data ^ (ret & dep_mask): after the wait the loop
            // writes a DATA register of the group again (a register
            // dependency on the returns, which is what keeps the dependent
            // chain serial). In the independent chain the four DATA values
            // are masks of one `d`: the compiler may rewrite `d` after the
            // wait and derive the masked copies before the next xors, so any
            // of the group's DATA registers counts.
            let rewritten = lp[xors.last().unwrap() + 1..].iter().any(|l| {
                l.mnemonic.starts_with('v')
                    && l.operands
                        .split(", ")
                        .next()
                        .filter(|d| {
                            // A VGPR (`v6`, `v[5:6]`), not `vcc_lo`.
                            d.strip_prefix('v').is_some_and(|r| {
                                r.starts_with(|c: char| c.is_ascii_digit() || c == '[')
                            })
                        })
                        .is_some_and(|d| datas.iter().any(|&data| overlap(vgprs(d), data)))
            });
            assert!(
                rewritten,
                "{} {kernel}: the loop never rewrites any DATA {datas:?} after the wait",
                o.file_name
            );
        }
    }
}

/// llvm-objdump's mnemonics and operands over `len` dwords at `at` (None
/// without llvm-objdump, unless the tools are required).
fn alu_slot_objdump(bytes: &[u8], at: u64, len: usize) -> Option<Vec<String>> {
    let tool = common::llvm_objdump()?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.co");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(tool)
        .arg("-d")
        .arg(format!("--start-address={at:#x}"))
        .arg(format!("--stop-address={:#x}", at + 4 * len as u64))
        .arg(&path)
        .output()
        .unwrap();
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with('\t'))
            .map(|l| l.split("//").next().unwrap_or("").trim().to_string())
            .collect(),
    )
}

const TRAFFIC: [(&str, u16); 3] = [
    ("dsxor_conformance_traffic_off8", 8),
    ("dsxor_conformance_traffic_off4096", 4096),
    ("dsxor_conformance_traffic_off65528", 65528),
];

/// The traffic kernels (kernels/dsxor.hip "Conformance kernels with
/// background LDS traffic"), read from llvm-objdump: one ds_xor_rtn_b64 at
/// the kernel's offset with the DS wait right after it; the traffic's own
/// loads and stores (the DS loads and stores carrying the kernel's offset,
/// which the compiler's copies in and out never do) at least a load and a
/// store, and every such load followed at once by the DS wait, since its
/// result is only valid after it (RDNA3 ISA guide, "Data dependency
/// resolution"). Offset 0 is left out: its traffic cannot be told from the
/// copies by the operands.
#[test]
fn traffic_kernels_wait_after_every_traffic_load_and_the_atomic() {
    for o in embedded() {
        let Some(lines) = objdump_of(o) else {
            return;
        };
        for (kernel, offset) in TRAFFIC {
            let body: Vec<&ObjLine> = lines.iter().filter(|l| l.symbol == kernel).collect();
            let suffix = format!(" offset:{offset}");
            let xors: Vec<usize> = (0..body.len())
                .filter(|&i| body[i].mnemonic == "ds_xor_rtn_b64")
                .collect();
            assert_eq!(xors.len(), 1, "{} {kernel}", o.file_name);
            assert!(
                body[xors[0]].operands.ends_with(&suffix),
                "{} {kernel}",
                o.file_name
            );
            let next = body.get(xors[0] + 1).expect("an instruction after the xor");
            assert!(
                is_ds_wait(next, o.target),
                "{} {kernel}: no wait after the xor",
                o.file_name
            );
            let is_load = |m: &str| m == "ds_load_b64" || m == "ds_read_b64";
            let is_store = |m: &str| m == "ds_store_b64" || m == "ds_write_b64";
            let loads: Vec<usize> = (0..body.len())
                .filter(|&i| is_load(&body[i].mnemonic) && body[i].operands.ends_with(&suffix))
                .collect();
            let stores = body
                .iter()
                .filter(|l| is_store(&l.mnemonic) && l.operands.ends_with(&suffix))
                .count();
            assert!(
                loads.len() >= 2 && stores >= 2,
                "{} {kernel}: {} traffic loads, {stores} stores",
                o.file_name,
                loads.len()
            );
            for i in loads {
                let next = body.get(i + 1).expect("an instruction after the load");
                assert!(
                    is_ds_wait(next, o.target),
                    "{} {kernel}: after `{} {}` comes `{} {}`, not the DS wait",
                    o.file_name,
                    body[i].mnemonic,
                    body[i].operands,
                    next.mnemonic,
                    next.operands
                );
            }
        }
    }
}
