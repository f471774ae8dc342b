//! Hazard checks of the software device: a kernel that uses a memory result
//! before the `s_waitcnt` that the RDNA3 ISA requires (LGKM_CNT for LDS,
//! VM_CNT for vector memory loads) is reported as a hazard naming the pc and
//! the instruction, as bad input (not a device fault, not a conformance
//! failure); the same kernel with its wait passes; the shipped kernels have
//! no hazard. Kernels are user builds compiled here by clang-22 (skipped with
//! a notice without it, mandatory under DSXOR_REQUIRE_TOOLS=1).

use crate::common;

use std::time::Duration;

use dsxor::backend::emu::EmuBackend;
use dsxor::backend::{ArgValue, Backend, BackendError, Dispatch, ReadBack};
use dsxor::case::{Mode, WaveSize};
use dsxor::codeobj::find_embedded;
use dsxor::emu::EmuConfig;
use dsxor::gen::soak::SoakLayout;
use dsxor::suite::soak::kernel as soak_kernel;

/// Kernels whose inline asm issues one memory instruction and then uses its
/// destination, with `WAIT` (empty or an s_waitcnt) in between.
const SRC: &str = r#"
#define G extern "C" __attribute__((global))
G void lds_read(unsigned *out, unsigned *in) {
  __attribute__((shared)) static unsigned lds[64];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  unsigned addr = 4 * (t % 64), r;
  __asm__ volatile("ds_xor_rtn_b32 %0, %1, %2\n\t" WAIT "\n\tv_add_nc_u32 %0, %0, 1"
                   : "=&v"(r) : "v"(addr), "v"(t) : "memory");
  out[t] = r + lds[0];
}
G void lds_overwrite(unsigned *out, unsigned *in) {
  unsigned t = __builtin_amdgcn_workitem_id_x();
  unsigned addr = 4 * (t % 64), r;
  __asm__ volatile("ds_load_b32 %0, %1\n\tv_mov_b32 %0, 5\n\t s_waitcnt lgkmcnt(0)"
                   : "=&v"(r) : "v"(addr) : "memory");
  out[t] = r;
}
G void lds_publish(unsigned *out, unsigned *in) {
  __attribute__((shared)) static unsigned lds[64];
  unsigned t = __builtin_amdgcn_workitem_id_x(), r;
  __asm__ volatile("ds_store_b32 %1, %2\n\t" WAIT "\n\ts_barrier\n\t"
                   "ds_load_b32 %0, %3\n\ts_waitcnt lgkmcnt(0)"
                   : "=&v"(r) : "v"(4 * (t % 64)), "v"(t), "v"(4 * ((t + 1) % 64)) : "memory");
  out[t] = r + lds[0];
}
G void global_read(unsigned *out, unsigned *in) {
  unsigned t = __builtin_amdgcn_workitem_id_x(), r;
  unsigned *p = in + t;
  __asm__ volatile("global_load_b32 %0, %1, off\n\t" WAITVM "\n\tv_add_nc_u32 %0, %0, 1"
                   : "=&v"(r) : "v"(p) : "memory");
  out[t] = r;
}
// M0-relative moves read the register their index lands on: s10 + M0 = s12
// and v8 + M0 = v10, each the destination of the load in flight.
G void smem_movrel(unsigned *out, unsigned *in) {
  unsigned t = __builtin_amdgcn_workitem_id_x(), r;
  __asm__ volatile("s_mov_b32 m0, 2\n\ts_load_b32 s12, %1, 0x0\n\t" WAIT "\n\t"
                   "s_movrels_b32 s13, s10\n\ts_waitcnt lgkmcnt(0)\n\tv_mov_b32 %0, s13"
                   : "=v"(r) : "s"(in) : "s10", "s12", "s13", "m0", "memory");
  out[t] = r;
}
G void lds_movrel(unsigned *out, unsigned *in) {
  unsigned t = __builtin_amdgcn_workitem_id_x(), r;
  __asm__ volatile("s_mov_b32 m0, 2\n\tds_load_b32 v10, %1\n\t" WAIT "\n\t"
                   "v_movrels_b32 %0, v8\n\ts_waitcnt lgkmcnt(0)"
                   : "=&v"(r) : "v"(4 * (t % 64)) : "v8", "v10", "m0", "memory");
  out[t] = r;
}
// s_cbranch_vccz tests VCC, which the scalar load in flight writes.
G void smem_vccz(unsigned *out, unsigned *in) {
  unsigned t = __builtin_amdgcn_workitem_id_x(), r;
  __asm__ volatile("s_load_b32 vcc_lo, %1, 0x0\n\t" WAIT "\n\ts_cbranch_vccz 0\n\t"
                   "s_waitcnt lgkmcnt(0)\n\tv_mov_b32 %0, vcc_lo"
                   : "=v"(r) : "s"(in) : "vcc", "memory");
  out[t] = r;
}
"#;

fn build(wait: bool) -> Option<Vec<u8>> {
    let (w, wv) = if wait {
        ("s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(0)")
    } else {
        ("", "")
    };
    common::compile_hip(
        SRC,
        "-O2",
        &[&format!("-DWAIT=\"{w}\""), &format!("-DWAITVM=\"{wv}\"")],
    )
}

fn dispatch(bytes: &[u8], kernel: &str, hazard_check: bool) -> Result<Vec<u8>, BackendError> {
    let mut dev = EmuBackend::new(EmuConfig {
        hazard_check,
        ..EmuConfig::default()
    })
    .expect("emu");
    let d = Dispatch {
        code_object: bytes,
        kernel,
        groups: 1,
        block: 32,
        dynamic_lds: 0,
        buffers: vec![vec![0; 128], (0..128u8).collect()],
        args: vec![ArgValue::Buffer(0), ArgValue::Buffer(1)],
        timeout: Duration::from_secs(10),
        read_back: ReadBack::All,
    };
    dev.dispatch(&d).map(|c| c.buffers[0].clone())
}

#[test]
fn a_missing_waitcnt_is_a_hazard_naming_pc_and_instruction() {
    let (Some(bad), Some(good)) = (build(false), build(true)) else {
        return;
    };
    // (kernel, the instruction named, what the detail names: the counter
    // to wait on, or the register read early)
    for (kernel, inst, detail) in [
        ("lds_read", "v_add_nc_u32", "lgkmcnt"),
        ("lds_overwrite", "v_mov_b32", "lgkmcnt"),
        ("lds_publish", "s_barrier", "lgkmcnt(0)"),
        ("global_read", "v_add_nc_u32", "vmcnt"),
        ("smem_movrel", "s_movrels_b32", "reads s12"),
        ("lds_movrel", "v_movrels_b32", "reads v10"),
        ("smem_vccz", "s_cbranch_vccz", "reads vcc_lo"),
    ] {
        match dispatch(&bad, kernel, true) {
            Err(e @ BackendError::Hazard(_)) => {
                assert!(e.is_bad_input(), "{kernel}: a hazard is bad input (exit 2)");
                let m = e.to_string();
                assert!(m.starts_with("hazard: "), "{kernel}: {m}");
                assert!(m.contains("hazard at pc 0x"), "{kernel}: {m}");
                assert!(m.contains(inst), "{kernel}: names the instruction: {m}");
                assert!(m.contains(detail), "{kernel}: names {detail}: {m}");
            }
            other => panic!("{kernel}: expected a hazard, got {other:?}"),
        }
        // Checking off: the device completes memory at issue and runs it.
        assert!(dispatch(&bad, kernel, false).is_ok(), "{kernel} unchecked");
        // With its wait the same kernel has no hazard.
        if kernel != "lds_overwrite" {
            assert!(
                dispatch(&good, kernel, true).is_ok(),
                "{kernel} with its wait"
            );
        }
    }
}

#[test]
fn shipped_kernels_have_no_hazard() {
    for wave in [WaveSize::Wave32, WaveSize::Wave64] {
        let Some(obj) = find_embedded("gfx1100", wave) else {
            eprintln!("SKIPPED: no embedded gfx1100 {wave:?} code object");
            continue;
        };
        let lanes = wave.lanes();
        let block = 2 * lanes;
        let q = 16u32;
        let addr: Vec<u8> = (0..block)
            .flat_map(|i| (8 * (i % q)).to_le_bytes())
            .collect();
        let mut dev = EmuBackend::new(EmuConfig {
            hazard_check: true,
            ..EmuConfig::default()
        })
        .expect("emu");
        for kernel in ["dsxor_conformance_off0", "dsxor_conformance_off8"] {
            let d = Dispatch {
                code_object: obj.bytes,
                kernel,
                groups: 1,
                block,
                dynamic_lds: q * 8 + 64,
                buffers: vec![
                    addr.clone(),
                    vec![0x5a; block as usize * 8],
                    vec![1; block as usize * 4],
                    vec![3; (q as usize + 8) * 8],
                    vec![0; block as usize * 8],
                    vec![0; (q as usize + 8) * 8],
                ],
                args: (0..6)
                    .map(ArgValue::Buffer)
                    .chain([ArgValue::U32(q)])
                    .collect(),
                timeout: Duration::from_secs(20),
                read_back: ReadBack::All,
            };
            if let Err(e) = dev.dispatch(&d) {
                panic!("{kernel} {wave:?}: {e}");
            }
        }
        for kernel in ["dsxor_throughput_dep", "dsxor_throughput_indep"] {
            let n = (2 * block) as usize;
            let d = Dispatch {
                code_object: obj.bytes,
                kernel,
                groups: 2,
                block,
                dynamic_lds: 64 * 8,
                buffers: vec![
                    (0..n as u32)
                        .flat_map(|i| (8 * (i % 64)).to_le_bytes())
                        .collect(),
                    vec![7; n * 8],
                    vec![0; n * 8],
                    vec![0; 2 * 64 * 8],
                ],
                args: vec![
                    ArgValue::Buffer(0),
                    ArgValue::Buffer(1),
                    ArgValue::Buffer(2),
                    ArgValue::Buffer(3),
                    ArgValue::U32(16),
                    ArgValue::U64(0),
                    ArgValue::U32(64),
                ],
                timeout: Duration::from_secs(20),
                read_back: ReadBack::All,
            };
            if let Err(e) = dev.dispatch(&d) {
                panic!("{kernel} {wave:?}: {e}");
            }
        }
        // The soak kernel, on a few of the layouts a soak draws (groups of
        // 1 to 32 waves, inactive lanes, shared qwords), with few round
        // pairs: its check must pass too.
        for launch in 0..4 {
            let layout = SoakLayout::generate(1, launch, wave, Mode::Wgp, 3);
            let d = soak_kernel::dispatch(obj.bytes, &layout, Duration::from_secs(60));
            let done = dev
                .dispatch(&d)
                .unwrap_or_else(|e| panic!("dsxor_soak {wave:?} launch {launch}: {e}"));
            let check = soak_kernel::check_answer(&layout, &done.buffers).expect("answer");
            assert!(
                check.passed(),
                "dsxor_soak {wave:?} launch {launch}: {}",
                check.summary()
            );
        }
    }
}

/// The embedded gfx1100 wave32 object with the `s_waitcnt lgkmcnt(0)` that
/// follows every conformance kernel's `ds_xor_rtn_b64` replaced by
/// `s_nop 0` (encodings from llvm-mc-22 -mcpu=gfx1100 -show-encoding:
/// BF89FC07 and BF800000; llvm-objdump-22 shows the wait at site + 8 in the
/// shipped object). The returns are then stored before the LDS has
/// returned them: a hazard on silicon, not on a device that completes
/// memory at issue.
fn wait_removed(dir: &std::path::Path) -> std::path::PathBuf {
    const S_WAITCNT_LGKMCNT_0: u32 = 0xBF89_FC07;
    const S_NOP_0: u32 = 0xBF80_0000;
    common::edit_conformance_sites(dir, "dsxor-without-its-wait.co", |bytes, site| {
        let off = site + 8;
        let word = u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap());
        assert_eq!(word, S_WAITCNT_LGKMCNT_0, "the wait after the site");
        bytes[off..off + 4].copy_from_slice(&S_NOP_0.to_le_bytes());
    })
}

/// The same object with nothing edited: the control of the tests below.
fn wait_kept(dir: &std::path::Path) -> std::path::PathBuf {
    common::edit_conformance_sites(dir, "dsxor-with-its-wait.co", |_, _| {})
}

/// `dsxor run --code-object CO --seed 1 --cases 40 --out DIR` plus `extra`,
/// on the software device or (`hipsim`) through the software HIP runtime:
/// the output (stdout and stderr as one text) and the results file's JSON.
fn run_object(
    co: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
    hipsim: bool,
) -> (Option<i32>, String, Option<serde_json::Value>) {
    let mut args = if hipsim {
        common::hip("run")
    } else {
        common::emu("run")
    }
    .arg("--code-object")
    .arg(co)
    .seed(1)
    .cases(40)
    .flag("--minimize-budget", "0s")
    .out(out);
    for a in extra {
        args = args.arg(a);
    }
    let o = if hipsim {
        args.on_hipsim(&[])
    } else {
        args.output()
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let results = common::results_json(out);
    let res = results
        .first()
        .map(|r| serde_json::from_str(&std::fs::read_to_string(r).unwrap()).unwrap());
    (o.status.code(), text, res)
}

/// The user's view: `dsxor run --code-object` of a build whose wait is
/// missing stops with exit 2 and an `aborted` results file naming the
/// hazard (never a pass, never a conformance failure). With
/// `--no-hazard-check` the software device runs it as silicon would: the
/// returns are stored before they arrived (RDNA3 ISA guide §5.6, "Data
/// dependency resolution"; policy `results-arrive-late`), so the stored
/// returns are the VDST's old values and conformance fails (exit 1). The
/// same object with its wait passes both ways. Needs no compiler.
#[test]
fn run_refuses_a_code_object_with_a_missing_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let co = wait_removed(tmp.path());
    let (code, text, res) = run_object(&co, &tmp.path().join("checked"), &[], false);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("hazard"), "{text}");
    assert!(text.contains("lgkmcnt"), "names the counter: {text}");
    let res = res.expect("a results file");
    assert_eq!(res["status"], "aborted", "{res}");
    assert_eq!(res["failed"], 0, "{res}");

    let (code, text, res) = run_object(
        &co,
        &tmp.path().join("unchecked"),
        &["--no-hazard-check"],
        false,
    );
    assert_eq!(code, Some(1), "the early read sees the old VDST: {text}");
    let res = res.expect("a results file");
    assert_eq!(res["status"], "failed", "{res}");
    assert_eq!(res["failed"], res["total"], "every case fails: {res}");

    let kept = wait_kept(tmp.path());
    for (extra, dir) in [
        (&[][..], "kept-checked"),
        (&["--no-hazard-check"][..], "kept"),
    ] {
        let (code, text, _) = run_object(&kept, &tmp.path().join(dir), extra, false);
        assert_eq!(code, Some(0), "{extra:?}: {text}");
    }
}

/// Through the software HIP runtime (no hazard check, as on a GPU), the
/// object without its wait fails conformance with exit 1, as a GPU would
/// show it; with its wait it passes.
#[test]
fn a_missing_wait_fails_conformance_through_the_software_hip_runtime() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, text, res) = run_object(
        &wait_removed(tmp.path()),
        &tmp.path().join("removed"),
        &[],
        true,
    );
    assert_eq!(code, Some(1), "{text}");
    let res = res.expect("a results file");
    assert_eq!(res["status"], "failed", "{res}");
    let (code, text, _) = run_object(&wait_kept(tmp.path()), &tmp.path().join("kept"), &[], true);
    assert_eq!(code, Some(0), "{text}");
}
