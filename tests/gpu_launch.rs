//! Launch details the real runtime punishes (issue 11 §3), through the
//! software HIP runtime in this process: a kernel without explicit
//! arguments gets no `extra`, and static + dynamic LDS over the device's
//! limit is refused before the launch with the numbers.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dsxor::backend::hip::HipBackend;
use dsxor::backend::{Backend, BackendError, Dispatch};

fn hipsim() -> Option<PathBuf> {
    // Part of the repository (a workspace member): built, never skipped.
    Some(common::hipsim_lib())
}

/// Compile `source` for gfx1100 (wave32) with the kernels' own flags.
fn compile(clang: &Path, source: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.hip");
    let out = dir.path().join("k.co");
    std::fs::write(&src, source).unwrap();
    let o = Command::new(clang)
        .args([
            "-x",
            "hip",
            "--cuda-device-only",
            "--offload-arch=gfx1100",
            "-nogpulib",
            "-nogpuinc",
            "-O2",
            "--no-gpu-bundle-output",
            "-mcode-object-version=5",
            "-o",
        ])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out).unwrap()
}

const SOURCE: &str = r#"
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
extern "C" __global__ void no_args() {}
extern "C" __global__ void static_lds(unsigned long long* out) {
    __shared__ unsigned long long buf[128];
    unsigned t = __builtin_amdgcn_workitem_id_x();
    buf[t & 127] = t;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    out[t] = buf[(t + 1) & 127];
}
"#;

#[test]
fn launches_the_real_runtime_accepts() {
    let (Some(lib), Some(clang)) = (hipsim(), common::clang()) else {
        return;
    };
    // One simulated gfx1100, configured before the library's first call.
    std::env::set_var("DSXOR_HIP_LIB", &lib);
    std::env::remove_var("DSXOR_HIPSIM_DEVICES");
    let co = compile(&clang, SOURCE);
    let mut hip = HipBackend::open(None).expect("the simulator opens");
    let launch = |kernel, dynamic_lds, buffers: Vec<Vec<u8>>, args| Dispatch {
        code_object: &co,
        kernel,
        groups: 1,
        block: 32,
        dynamic_lds,
        buffers,
        args,
        timeout: Duration::from_secs(30),
    };

    // No explicit arguments: no `extra` (current clr refuses a non-empty
    // one with hipErrorLaunchOutOfResources, and so does the simulator).
    hip.dispatch(&launch("no_args", 0, vec![], vec![]))
        .expect("a kernel without explicit arguments launches");

    // 1 KiB static + 64 KiB dynamic > 64 KiB: refused before the launch,
    // naming both parts (ROCm 6.3+ would fault in the dispatch packet).
    let args = vec![dsxor::backend::ArgValue::Buffer(0)];
    match hip.dispatch(&launch(
        "static_lds",
        65536,
        vec![vec![0; 256]],
        args.clone(),
    )) {
        Err(BackendError::Invalid(m)) => assert!(
            m.contains("group_segment_fixed_size 1024") && m.contains("65536"),
            "{m}"
        ),
        other => panic!("expected the LDS check to refuse: {other:?}"),
    }
    // Within the limit it runs.
    let done = hip
        .dispatch(&launch("static_lds", 1024, vec![vec![0; 256]], args))
        .expect("runs");
    assert_eq!(done.buffers[0][..8], 1u64.to_le_bytes());
}
