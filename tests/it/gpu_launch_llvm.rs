//! Launch details the real runtime (ROCm/clr) punishes, through the
//! software HIP runtime in this process: a kernel without explicit
//! arguments gets no `extra`, and static + dynamic LDS over the device's
//! limit is refused before the launch with the numbers.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use dsxor::backend::hip::HipBackend;
use dsxor::backend::{Backend, BackendError, Dispatch, ReadBack};

fn hipsim() -> Option<PathBuf> {
    // Part of the repository (a workspace member): built, never skipped.
    Some(common::hipsim_in_process())
}

/// The HIP backend on the simulator at `lib`, by path: the process
/// environment is shared by every test of this binary, so `DSXOR_HIP_LIB`
/// is not set here. The simulator's default configuration (one gfx1100) is
/// what `common::hipsim_lib` guarantees.
fn open(lib: &Path) -> HipBackend {
    let hip = dsxor::hip::Hip::load_from(lib.to_str().expect("a UTF-8 path"))
        .expect("the simulator loads");
    HipBackend::from_report(&dsxor::hip::probe_with(hip), None).expect("the simulator opens")
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
    // gfx1100 (wave32) with the kernels' own code object version.
    let (Some(lib), Some(co)) = (
        hipsim(),
        common::compile_hip(SOURCE, "-O2", &["-mcode-object-version=5"]),
    ) else {
        return;
    };
    let mut hip = open(&lib);
    let launch = |kernel, dynamic_lds, buffers: Vec<Vec<u8>>, args| Dispatch {
        code_object: &co,
        kernel,
        groups: 1,
        block: 32,
        dynamic_lds,
        buffers,
        args,
        timeout: Duration::from_secs(30),
        read_back: ReadBack::All,
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

/// A backend keeps a bounded number of code objects loaded, or a worker
/// process grows with `--cases`: a run patches a fresh offset into a code
/// object for about one case in 45, and each would stay loaded. Here, with
/// the bound set to 2 (each load of the shipped object through the
/// simulator takes seconds), 3 distinct objects (the
/// shipped wave32 object, each with its own trailing padding: another
/// sha256, the same ELF) each run a case correctly, the first again after
/// it was unloaded, and no more than the bound stay loaded; the default
/// bound is `LOADED_OBJECTS` (`PATCHED_CACHE` + the four shipped objects
/// of a target).
#[test]
fn a_backend_keeps_a_bounded_number_of_code_objects_loaded() {
    use dsxor::backend::conformance::{dispatch_for, embedded_objects};
    let Some(lib) = hipsim() else {
        return;
    };
    let mut hip = open(&lib);
    hip.set_object_bound(2);
    let shipped = embedded_objects("gfx1100")
        .into_iter()
        .find(|o| o.wave == dsxor::case::WaveSize::Wave32)
        .expect("a shipped wave32 object");
    let case = dsxor::case::Case {
        pattern: "t".into(),
        index: 0,
        geometry: dsxor::case::Geometry {
            wave_size: dsxor::case::WaveSize::Wave32,
            waves_per_group: 1,
            groups: 1,
            mode: dsxor::case::Mode::Wgp,
        },
        lds_bytes: 8,
        offset: 0,
        lds_init: vec![vec![5]],
        lanes: (0..32)
            .map(|i| dsxor::case::LaneInput {
                addr: 0,
                data: 1 << i,
                active: true,
                vdst_init: 0,
            })
            .collect(),
        more_rounds: vec![],
        stress: None,
        traffic: None,
    };
    for (k, n) in [0, 1, 2, 0].into_iter().enumerate() {
        let mut bytes = shipped.bytes.clone();
        bytes.extend(std::iter::repeat_n(0u8, 8 * (n + 1)));
        let d = dispatch_for(
            &case,
            &bytes,
            "dsxor_conformance_off0",
            Duration::from_secs(30),
        );
        let done = hip.dispatch(&d).expect("the case runs");
        // Every lane's XOR landed: 5 ^ (2^32 - 1).
        let lds = &done.buffers[dsxor::backend::conformance::BUF_LDS_OUT];
        assert_eq!(lds[..8], (5u64 ^ 0xffff_ffff).to_le_bytes(), "object {n}");
        assert!(
            hip.loaded_objects() <= 2,
            "{} objects loaded after {} launches",
            hip.loaded_objects(),
            k + 1
        );
    }
}
