//! Interpreter speed of the software device in ns per wave-instruction, on
//! three straight loops run by one wave32 wave: VALU (32 vector ALU
//! instructions per iteration + 3 scalar loop-control), SALU (32 scalar ALU +
//! 3 loop-control) and memory (aligned dword/qword global loads/stores and
//! LDS loads/stores). Programs are assembled with llvm-mc-22 (the encoding's
//! oracle); without it the bench prints a notice and measures nothing.
//!
//! `cargo bench --bench emu_interp` prints, per loop,
//! `emu_interp <loop>: N ns per wave-instruction (CPU time, M instructions)`
//! measured on the calling thread's CPU time (`/proc/thread-self/schedstat`),
//! so a loaded machine does not inflate it, and criterion's wall-clock timing.
//! `DSXOR_EMU_INTERP_ONLY=valu` (or `salu`, `mem`) runs one loop only.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dsxor::emu::decode::{decode_text, Decoded};
use dsxor::emu::ds::Lds;
use dsxor::emu::mem::GlobalMem;
use dsxor::emu::wave::{Env, Status, Wave};

const ITERS: u32 = 2000;

fn llvm_mc() -> Option<PathBuf> {
    let cands = [
        std::env::var("DSXOR_LLVM_MC").ok(),
        Some("llvm-mc-22".into()),
        Some("/usr/lib/llvm-22/bin/llvm-mc".into()),
    ];
    cands.into_iter().flatten().map(PathBuf::from).find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn assemble(mc: &PathBuf, src: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("dsxor-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tempdir");
    let path = dir.join("loop.s");
    std::fs::write(&path, src).expect("write asm");
    let out = Command::new(mc)
        .args(["-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"])
        .arg(&path)
        .output()
        .expect("run llvm-mc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(i) = line.find("encoding: [") {
            let rest = &line[i + 11..];
            for b in rest[..rest.find(']').expect("]")].split(',') {
                bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex"));
            }
        }
    }
    bytes
}

/// A loop of `body` run ITERS times (the branch offset is worked out from the
/// assembled body's size: llvm-mc -show-encoding leaves label fixups open).
fn looped(mc: &PathBuf, body: &str) -> Vec<u8> {
    let inner = format!("{body}s_sub_u32 s100, s100, 1\ns_cmp_lg_u32 s100, 0\n");
    let b = assemble(mc, &inner).len() as i64;
    // s_cbranch_scc1 at byte 4 + b jumps to byte 4: simm16 = (4 - (4 + b) - 4) / 4.
    let simm = -(b + 4) / 4;
    assemble(
        mc,
        &format!("s_movk_i32 s100, {ITERS}\n{inner}s_cbranch_scc1 {simm}\ns_endpgm\n"),
    )
}

fn valu_body() -> String {
    let ops = [
        "v_add_nc_u32 v1, v1, v2",
        "v_xor_b32 v3, v3, v1",
        "v_lshlrev_b32 v4, 1, v3",
        "v_and_b32 v5, v4, v2",
        "v_or_b32 v6, v5, s3",
        "v_mad_u32_u24 v7, v1, v2, v3",
        "v_bfe_u32 v8, v7, 3, 5",
        "v_cndmask_b32 v9, v1, v2, vcc_lo",
    ];
    ops.iter()
        .cycle()
        .take(32)
        .map(|s| format!("{s}\n"))
        .collect()
}

fn salu_body() -> String {
    let ops = [
        "s_add_u32 s1, s1, s2",
        "s_xor_b32 s3, s3, s1",
        "s_lshl_b32 s4, s3, 1",
        "s_and_b32 s5, s4, s2",
        "s_mov_b32 s6, s5",
        "s_cselect_b32 s7, s1, s2",
        "s_add_i32 s8, s8, 3",
        "s_or_b64 s[10:11], s[10:11], s[4:5]",
    ];
    ops.iter()
        .cycle()
        .take(32)
        .map(|s| format!("{s}\n"))
        .collect()
}

fn mem_body() -> String {
    // s[20:21] is a mapped buffer; v0 = lane * 8 (byte offset), v20 = lane * 8 (LDS).
    let ops = [
        "global_load_b32 v1, v0, s[20:21]",
        "global_store_b32 v0, v1, s[20:21] offset:4",
        "global_load_b64 v[2:3], v0, s[20:21]",
        "global_store_b64 v0, v[2:3], s[20:21] offset:256",
        "ds_store_b32 v20, v1",
        "ds_load_b32 v4, v20",
        "ds_store_b64 v20, v[2:3] offset:512",
        "ds_load_b64 v[6:7], v20 offset:512",
    ];
    ops.iter()
        .cycle()
        .take(32)
        .map(|s| format!("{s}\n"))
        .collect()
}

/// CPU time of the calling thread in ns (Linux: first field of schedstat).
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

struct Setup {
    prog: Decoded,
    mem: GlobalMem,
    buf: u64,
}

fn run_once(s: &Setup, lds: &mut Lds) -> u64 {
    let env = Env {
        prog: &s.prog,
        mem: &s.mem,
        fault: None,
    };
    let mut w = Wave::new(false);
    w.set_exec(w.full_mask());
    w.s[2] = 0x1234_5677;
    w.s[3] = 0xff;
    w.s[20] = s.buf as u32;
    w.s[21] = (s.buf >> 32) as u32;
    w.s[106] = 0x5555_5555;
    for l in 0..32 {
        w.set_vgpr(0, l, 8 * l as u32);
        w.set_vgpr(20, l, 8 * l as u32);
        w.set_vgpr(2, l, l as u32 * 3);
    }
    let r = w.run(&env, lds, None, u64::MAX);
    assert_eq!(r, Ok(Status::Ended), "loop did not end cleanly: {r:?}");
    w.executed
}

fn bench(c: &mut Criterion) {
    let Some(mc) = llvm_mc() else {
        eprintln!("SKIPPED emu_interp: llvm-mc-22 not found (set DSXOR_LLVM_MC)");
        return;
    };
    let mut g = c.benchmark_group("emu_interp");
    g.sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for (name, body) in [
        ("valu", valu_body()),
        ("salu", salu_body()),
        ("mem", mem_body()),
    ] {
        // DSXOR_EMU_INTERP_ONLY=<loop>: measure one loop (for a profiler).
        if std::env::var("DSXOR_EMU_INTERP_ONLY").is_ok_and(|o| o != name) {
            continue;
        }
        let mut mem = GlobalMem::new();
        let buf = mem.map("buf", &vec![0u8; 4096]);
        let s = Setup {
            prog: decode_text(&looped(&mc, &body), 0x1000),
            mem,
            buf,
        };
        let mut lds = Lds::new(4096);
        let n = run_once(&s, &mut lds);
        // Runs until this thread has used 0.5 s of CPU (schedstat advances
        // in scheduler ticks, so short spans read 0).
        if let Some(c0) = thread_cpu_ns() {
            let mut runs = 0u64;
            let mut used = 0;
            while used < 500_000_000 {
                run_once(&s, &mut lds);
                runs += 1;
                used = thread_cpu_ns().map_or(u64::MAX, |c| c - c0);
            }
            println!(
                "emu_interp {name}: {:.2} ns per wave-instruction (CPU time, {runs} runs of {n} instructions)",
                used as f64 / (runs * n) as f64
            );
        }
        g.throughput(Throughput::Elements(n));
        g.bench_function(name, |b| b.iter(|| run_once(&s, &mut lds)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
