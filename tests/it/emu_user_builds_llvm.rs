//! User builds: kernels/dsxor.hip compiled here by clang at other
//! optimisation levels than build.rs uses (as a user's own `--code-object`
//! would be) still decode completely and run correctly on the software
//! device, or fail with an error that names what is missing.

use crate::{common, hip_device};

use std::path::Path;
use std::time::Duration;

use dsxor::backend::emu::EmuBackend;
use dsxor::backend::{ArgValue, Backend, Dispatch, ReadBack};
use dsxor::codeobj::CodeObject;
use dsxor::emu::decode::{decode_text, Inst};
use dsxor::emu::EmuConfig;

fn build(opt: &str, wave64: bool) -> Option<Vec<u8>> {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/dsxor.hip");
    let wave = hip_device::wave_size_arg("gfx1100", if wave64 { 64 } else { 32 });
    common::compile_hip_file(Path::new(src), opt, wave.as_slice())
}

fn unsupported(bytes: &[u8]) -> Vec<String> {
    let co = CodeObject::parse(bytes).expect("parses");
    let text = co.text().expect(".text");
    let dec = decode_text(text.bytes, text.vaddr);
    dec.insts
        .iter()
        .filter_map(|i| match i {
            Inst::Unsupported(u) => Some(u.to_string()),
            _ => None,
        })
        .collect()
}

/// One workgroup of two waves, every lane XORing into qword (lane % 3).
fn conformance(bytes: &[u8], lanes: u32) -> (Vec<u64>, Vec<u64>) {
    let block = 2 * lanes;
    let q = 8u32;
    let addr: Vec<u8> = (0..block)
        .flat_map(|i| (8 * (i % 3)).to_le_bytes())
        .collect();
    let data: Vec<u64> = (0..block as u64).map(|i| (i + 1) << (i % 40)).collect();
    let mut dev = EmuBackend::new(EmuConfig::default()).expect("emu");
    let d = Dispatch {
        code_object: bytes,
        kernel: "dsxor_conformance_off8",
        groups: 1,
        block,
        dynamic_lds: q * 8,
        buffers: vec![
            addr,
            data.iter().flat_map(|x| x.to_le_bytes()).collect(),
            vec![1; block as usize * 4],
            vec![0; q as usize * 8],
            vec![0; block as usize * 8],
            vec![0; q as usize * 8],
        ],
        args: (0..6)
            .map(ArgValue::Buffer)
            .chain([ArgValue::U32(q)])
            .collect(),
        timeout: Duration::from_secs(20),
        read_back: ReadBack::All,
    };
    let done = dev.dispatch(&d).expect("dispatch");
    let u = |b: &[u8]| {
        b.chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
            .collect::<Vec<_>>()
    };
    // Expected: lanes in order, address (lane % 3) * 8 + 8.
    let mut lds = vec![0u64; q as usize];
    let mut ret = vec![0u64; block as usize];
    for i in 0..block as usize {
        let a = (8 * (i % 3) + 8) / 8;
        ret[i] = lds[a];
        lds[a] ^= data[i];
    }
    assert_eq!(u(&done.buffers[4]), ret, "returns");
    assert_eq!(u(&done.buffers[5]), lds, "LDS");
    (ret, lds)
}

#[test]
fn other_optimisation_levels_run_or_name_what_is_missing() {
    for opt in ["-O1", "-O3", "-Os"] {
        for (wave64, lanes) in [(false, 32), (true, 64)] {
            let Some(bytes) = build(opt, wave64) else {
                return;
            };
            let missing = unsupported(&bytes);
            assert!(
                missing.is_empty(),
                "{opt} wave{lanes}: unsupported:\n{}",
                missing.join("\n")
            );
            conformance(&bytes, lanes);
        }
    }
}

#[test]
fn an_unoptimised_build_is_refused_naming_scratch() {
    // -O0 keeps locals in scratch (private segment), which the software
    // device does not provide: a refusal naming it, not a wrong answer.
    let Some(bytes) = build("-O0", false) else {
        return;
    };
    let mut dev = EmuBackend::new(EmuConfig::default()).expect("emu");
    let d = Dispatch {
        code_object: &bytes,
        kernel: "dsxor_conformance_off0",
        groups: 1,
        block: 32,
        dynamic_lds: 64,
        buffers: vec![
            vec![0; 128],
            vec![0; 256],
            vec![0; 128],
            vec![0; 64],
            vec![0; 256],
            vec![0; 64],
        ],
        args: (0..6)
            .map(ArgValue::Buffer)
            .chain([ArgValue::U32(8)])
            .collect(),
        timeout: Duration::from_secs(20),
        read_back: ReadBack::All,
    };
    match dev.dispatch(&d) {
        // What the device cannot run; whose fault that is (exit 2 or 3)
        // depends on whose object it was, decided above the backend.
        Err(dsxor::backend::BackendError::Unsupported(m)) => assert!(m.contains("scratch"), "{m}"),
        other => panic!(
            "expected an unsupported-kernel error, got {:?}",
            other.map(|_| ())
        ),
    }
}

#[test]
fn a_kernel_that_never_ends_is_a_timeout_naming_its_pc() {
    let Some(bytes) = common::compile_hip(
        "extern \"C\" __attribute__((global)) void spin(unsigned* p) {\n  \
         while (true) { __asm__ volatile(\"v_add_nc_u32 v1, 1, v1\" ::: \"v1\"); }\n}\n",
        "-O2",
        &[],
    ) else {
        return;
    };
    let co = CodeObject::parse(&bytes).expect("parses");
    let k = co.kernel("spin").expect("kernel");
    let code_end = k.entry_vaddr + k.code_size;
    let mut dev = EmuBackend::new(EmuConfig::default()).expect("emu");
    let d = Dispatch {
        code_object: &bytes,
        kernel: "spin",
        groups: 2,
        block: 64,
        dynamic_lds: 0,
        buffers: vec![vec![0; 4]],
        args: vec![ArgValue::Buffer(0)],
        timeout: Duration::from_millis(300),
        read_back: ReadBack::All,
    };
    let t = std::time::Instant::now();
    match dev.dispatch(&d) {
        Err(dsxor::backend::BackendError::Timeout {
            pc: Some(pc),
            limit,
            ..
        }) => {
            assert!(
                pc >= k.entry_vaddr && pc < code_end,
                "pc {pc:#x} inside the kernel"
            );
            assert_eq!(limit, Duration::from_millis(300));
        }
        other => panic!("expected a timeout, got {:?}", other.map(|_| ())),
    }
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t.elapsed()
    );
}
