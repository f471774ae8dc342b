//! Every numeric and duration flag of every command at 0, 1, its maximum
//! and past it, through the binary: whatever clap accepts is either in
//! range or refused with exit 2; nothing panics (exit 101). A value that
//! legitimately starts a very long run (`--cases 18446744073709551615`) is
//! stopped after a short look: it must have started without a panic.
//! Also: `--rate` too small for a run to count is refused with the true
//! figure.

use crate::common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{code, dsxor, text};

const U64_MAX: &str = "18446744073709551615";
const PAST_U64: &str = "18446744073709551616";
const U32_MAX: &str = "4294967295";
const PAST_U32: &str = "4294967296";

/// How one probe ended.
#[derive(Debug)]
enum Ended {
    Code(i32, String),
    /// Still running after the look (killed by the test).
    Running(String),
}

/// Run dsxor with `args` for at most `look`; its stderr is read as it goes.
fn probe(args: &[&str], look: Duration) -> Ended {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stderr = reader.join().unwrap();
            return Ended::Code(status.code().unwrap_or(-1), stderr);
        }
        if start.elapsed() > look {
            child.kill().unwrap();
            child.wait().unwrap();
            return Ended::Running(reader.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Probe `base + [flag, value]` for every value; no panic, and every exit
/// code is 0–3. Returns each value's code (None: still running).
fn sweep(base: &[&str], flag: &str, values: &[&str], look: Duration) -> Vec<Option<i32>> {
    values
        .iter()
        .map(|v| {
            let mut a = base.to_vec();
            a.extend([flag, v]);
            match probe(&a, look) {
                Ended::Code(c, stderr) => {
                    assert!(
                        !stderr.contains("panicked") && c != 101,
                        "{a:?} panicked (exit {c}):\n{stderr}"
                    );
                    assert!((0..=3).contains(&c), "{a:?}: exit {c}\n{stderr}");
                    Some(c)
                }
                Ended::Running(stderr) => {
                    assert!(!stderr.contains("panicked"), "{a:?}:\n{stderr}");
                    None
                }
            }
        })
        .collect()
}

fn out_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

const LOOK: Duration = Duration::from_secs(4);

#[test]
fn run_flags_at_their_edges() {
    let dir = out_dir();
    let out = dir.path().to_str().unwrap();
    let base = [
        "run",
        "--backend",
        "emu",
        "--pattern",
        "uniform",
        "--wave",
        "32",
        "--seed",
        "1",
        "--out",
        out,
    ];
    let small = {
        let mut b = base.to_vec();
        b.extend(["--cases", "2"]);
        b
    };
    for flag in ["--timeout", "--minimize-budget"] {
        let codes = sweep(
            &small,
            flag,
            &["0", "1", "86400", "1day", "86401", U64_MAX, PAST_U64],
            LOOK,
        );
        // One day is the most; past it, and the u64 edges, are refused at
        // parse time.
        assert_eq!(codes[3], Some(0), "{flag}: {codes:?}");
        assert_eq!(&codes[4..], &[Some(2); 3], "{flag}: {codes:?}");
    }
    let codes = sweep(&small, "--timeout", &["99ms", "100ms"], LOOK);
    assert_eq!(codes, [Some(2), Some(0)]);
    for flag in ["--jobs", "--batch"] {
        let codes = sweep(
            &small,
            flag,
            &["0", "1", "256", "257", U64_MAX, PAST_U64],
            LOOK,
        );
        assert_eq!(
            codes,
            [Some(2), Some(0), Some(0), Some(2), Some(2), Some(2)],
            "{flag}"
        );
    }
    let codes = sweep(&base, "--cases", &["0", "1", U64_MAX, PAST_U64], LOOK);
    assert_eq!(codes[0], Some(2));
    assert_eq!(codes[1], Some(0));
    assert_eq!(codes[3], Some(2));
    for flag in ["--max-repros", "--interleave-seed"] {
        let codes = sweep(&small, flag, &["0", "1", U64_MAX, PAST_U64], LOOK);
        assert_eq!(codes[3], Some(2), "{flag}");
    }
    sweep(
        &small,
        "--seed",
        &["0", "1", U64_MAX, "0xffffffffffffffff", PAST_U64],
        LOOK,
    );
    let codes = sweep(&small, "--device", &["0", "1", U32_MAX, PAST_U32], LOOK);
    assert_eq!(codes[3], Some(2));
    let codes = sweep(
        &small,
        "--lds-granule",
        &["0", "1", "65536", "131072", "2147483648", U32_MAX, PAST_U32],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(&codes[3..], &[Some(2); 4], "{codes:?}");
    let seeded = {
        let mut b = base.to_vec();
        b.extend(["--cases", "4"]);
        b
    };
    let codes = sweep(
        &seeded,
        "--shard",
        &[
            "0/1",
            "1/1",
            "1/4294967295",
            "4294967295/4294967295",
            "4294967296/4294967296",
            "1/0",
        ],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(codes[1], Some(0));
    assert_eq!(codes[4], Some(2));
    assert_eq!(codes[5], Some(2));
    let codes = sweep(
        &base,
        "--confidence",
        &["0", "1", "0.5", "nan", "inf", "1e-300"],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(codes[1], Some(2));
    assert_eq!(codes[3], Some(2));
    assert_eq!(codes[4], Some(2));
    let codes = sweep(
        &base,
        "--rate",
        &["0", "1", "1e-300", "5e-324", "nan", "inf", "-1", "2"],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(codes[1], Some(0));
    assert_eq!(&codes[2..], &[Some(2); 6], "{codes:?}");
}

#[test]
fn a_rate_no_run_can_count_is_refused_with_the_true_figure() {
    let dir = out_dir();
    let o = dsxor(&[
        "run",
        "--backend",
        "emu",
        "--rate",
        "1e-300",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("6.908e300"), "{t}");
    assert!(!t.contains("74133592022874048"), "{t}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing ran"
    );
}

#[test]
fn bench_flags_at_their_edges() {
    let dir = out_dir();
    let out = dir.path().to_str().unwrap();
    let base = [
        "bench",
        "--backend",
        "emu",
        "--quick",
        "--filter",
        "one-address",
        "--wave",
        "32",
        "--out",
        out,
    ];
    for flag in [
        "--reps",
        "--warmup",
        "--iters",
        "--workgroups-per-cu",
        "--lanes-per-group",
        "--device",
    ] {
        let codes = sweep(&base, flag, &["0", "1", U32_MAX, PAST_U32], LOOK);
        assert_eq!(codes[3], Some(2), "{flag}");
    }
    let codes = sweep(
        &base,
        "--timeout",
        &["0", "1", "86400", "86401", U64_MAX, PAST_U64],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(&codes[3..], &[Some(2); 3]);
    sweep(&base, "--seed", &["0", "1", U64_MAX, PAST_U64], LOOK);
}

#[test]
fn mutate_qualify_repro_report_check_info_flags_at_their_edges() {
    let dir = out_dir();
    let out = dir.path().to_str().unwrap();
    let mutate = [
        "mutate",
        "--mutant",
        "lost-update",
        "--pattern",
        "one-address",
        "--wave",
        "32",
        "--budgets",
        "0.2",
        "--no-floor",
        "--out",
        out,
    ];
    for flag in ["--max-cases", "--kills-per-pattern"] {
        let codes = sweep(&mutate, flag, &["0", "1", U64_MAX, PAST_U64], LOOK);
        assert_eq!(codes[3], Some(2), "{flag}");
    }
    let codes = sweep(&mutate, "--jobs", &["0", "1", "256", "257", U64_MAX], LOOK);
    assert_eq!(codes[0], Some(2));
    assert_eq!(&codes[3..], &[Some(2); 2]);
    let codes = sweep(&mutate, "--timeout", &["0", "1", "86401", U64_MAX], LOOK);
    assert_eq!(codes[0], Some(2));
    assert_eq!(&codes[2..], &[Some(2); 2]);
    let no_budgets: Vec<&str> = mutate
        .iter()
        .copied()
        .filter(|a| *a != "--budgets" && *a != "0.2")
        .collect();
    let codes = sweep(
        &no_budgets,
        "--budgets",
        &["0", "1e-9", "86400.5", "1e300", "inf", "nan", "-1"],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(&codes[2..], &[Some(2); 5], "{codes:?}");

    let qualify = [
        "qualify",
        "--backend",
        "emu",
        "--instruction",
        "ds_xor_rtn_b64",
        "--out",
        out,
    ];
    let codes = sweep(&qualify, "--cases", &["0", "1", U64_MAX, PAST_U64], LOOK);
    assert_eq!(codes[0], Some(2));
    assert_eq!(codes[3], Some(2));
    let codes = sweep(&qualify, "--timeout", &["0", "86401", U64_MAX], LOOK);
    assert_eq!(codes, [Some(2); 3]);
    sweep(&qualify, "--device", &["0", U32_MAX, PAST_U32], LOOK);

    let bench = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/examples/bench-20261201T211159Z-emu-gfx1100.json");
    let bench = bench.to_str().unwrap();
    let report = ["report", bench, "--baseline", bench];
    let codes = sweep(
        &report,
        "--fail-below",
        &["0", "1", "100", "1e308", "inf", "nan", "-1"],
        LOOK,
    );
    assert_eq!(codes[0], Some(2));
    assert_eq!(&codes[4..], &[Some(2); 3], "{codes:?}");

    sweep(&["info"], "--device", &["0", U32_MAX, PAST_U32], LOOK);
}
