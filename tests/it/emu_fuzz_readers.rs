//! No reader of untrusted input panics: every reader of a file dsxor reads, fed
//! mutated versions of real files — observations, repro files, results
//! files, case streams, bench records, code objects, asm and disasm lines —
//! 10^5 inputs in all, in process: none may panic or take long. A sample of
//! the same mutants goes through the binary: every exit code is 0–3 and no
//! run hangs. Seeds come from a real run of the binary; mutations are
//! seeded (ChaCha8), so a failure reproduces. `fuzz/` holds `cargo fuzz`
//! targets for longer runs.

use crate::common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Numbers that break arithmetic on sizes read from a file.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "134217729",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "1e-320",
    "NaN",
    "null",
    "\"0x\"",
    "[]",
    "{}",
];

fn mutate(rng: &mut ChaCha8Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..rng.random_range(1..4) {
        let len = v.len().max(1);
        match rng.random_range(0..7) {
            0 => {
                for _ in 0..rng.random_range(1..8) {
                    if !v.is_empty() {
                        let i = rng.random_range(0..v.len());
                        v[i] ^= 1 << rng.random_range(0..8);
                    }
                }
            }
            1 => v.truncate(rng.random_range(0..len)),
            2 => {
                let at = rng.random_range(0..=v.len());
                let bytes: Vec<u8> = (0..rng.random_range(1..16)).map(|_| rng.random()).collect();
                v.splice(at..at, bytes);
            }
            3 => {
                // Duplicate a slice somewhere else (repeated keys, records).
                let a = rng.random_range(0..len);
                let b = (a + rng.random_range(0..256)).min(v.len());
                let chunk = v.get(a..b).unwrap_or_default().to_vec();
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, chunk);
            }
            4 => {
                // Replace a run of digits with an edge number.
                let digits: Vec<usize> = (0..v.len()).filter(|&i| v[i].is_ascii_digit()).collect();
                if let Some(&start) = digits.get(rng.random_range(0..digits.len().max(1))) {
                    let mut end = start;
                    while end < v.len() && v[end].is_ascii_digit() {
                        end += 1;
                    }
                    let n = EDGE_NUMBERS[rng.random_range(0..EDGE_NUMBERS.len())];
                    v.splice(start..end, n.bytes());
                }
            }
            5 => {
                let a = rng.random_range(0..len);
                let b = (a + rng.random_range(0..64)).min(v.len());
                if a <= b && b <= v.len() {
                    v.drain(a..b);
                }
            }
            _ => {
                // Swap two bytes far apart.
                if v.len() > 1 {
                    let (i, j) = (rng.random_range(0..v.len()), rng.random_range(0..v.len()));
                    v.swap(i, j);
                }
            }
        }
    }
    v
}

struct Seeds {
    _dir: tempfile::TempDir,
    results: PathBuf,
    cases: PathBuf,
    repro: PathBuf,
    observation: PathBuf,
    bench: Vec<u8>,
    code_object: Vec<u8>,
}

/// Real files of every kind, from a small failing run of the binary.
fn seeds() -> Seeds {
    let dir = tempfile::tempdir().unwrap();
    // Repros of one round, so one exports to an observation file.
    let o = common::one_round_fault_run().out(dir.path()).output();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let all: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let find = |f: &dyn Fn(&str) -> bool| {
        all.iter()
            .find(|p| f(&p.to_string_lossy()))
            .cloned()
            .unwrap()
    };
    let results = find(&|p| p.ends_with(".json") && !p.contains(".repro-"));
    let cases = find(&|p| p.ends_with(".cases.jsonl"));
    let repro = find(&|p| p.contains(".repro-"));
    let observation = dir.path().join("obs.json");
    let o = common::dsxor(&[
        "repro",
        repro.to_str().unwrap(),
        "--export",
        observation.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // The committed bench record, cut to two runs (parsing cost per input).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bench: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            root.join("docs/examples/bench-20261201T211159Z-emu-gfx1100.json"),
        )
        .unwrap(),
    )
    .unwrap();
    bench["runs"].as_array_mut().unwrap().truncate(2);
    let bench = serde_json::to_vec_pretty(&bench).unwrap();
    let code_object = std::fs::read(root.join("kernels/prebuilt/dsxor-gfx1100-w32.co")).unwrap();
    Seeds {
        _dir: dir,
        results,
        cases,
        repro,
        observation,
        bench,
        code_object,
    }
}

/// Feed `n` mutants of `seed` to `read` (which gets the mutant's path):
/// no panic, none slow.
fn fuzz(
    name: &str,
    rng: &mut ChaCha8Rng,
    seed: &[u8],
    n: usize,
    file: &Path,
    needs_file: bool,
    read: &dyn Fn(&Path, &[u8]),
) -> usize {
    let mut slowest = Duration::ZERO;
    for i in 0..n {
        let input = mutate(rng, seed);
        if needs_file {
            std::fs::write(file, &input).unwrap();
        }
        let start = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| read(file, &input)));
        slowest = slowest.max(start.elapsed());
        if r.is_err() {
            panic!(
                "{name}: input {i} panicked the reader: {:?}",
                String::from_utf8_lossy(&input)
            );
        }
    }
    assert!(
        slowest < Duration::from_secs(2),
        "{name}: an input took {slowest:?}"
    );
    n
}

#[test]
fn every_reader_survives_a_hundred_thousand_mutants() {
    use dsxor::check::file::ObservationFile;
    use dsxor::codeobj::CodeObject;
    use dsxor::report::bench_record::BenchRecord;
    use dsxor::report::results::Results;
    use dsxor::suite::repro::Repro;

    let s = seeds();
    // In memory where the system has it: the readers that take a path get
    // 45,000 files, and a busy disk made them take minutes.
    let shm = Path::new("/dev/shm");
    let work = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let file = work.path().join("input");
    let cases_file = work.path().join("input.cases.jsonl");
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let read = |p: &Path| std::fs::read(p).unwrap();
    let mut total = 0;
    let start = Instant::now();
    total += fuzz(
        "observation",
        &mut rng,
        &read(&s.observation),
        20_000,
        &file,
        false,
        &|_, text| {
            let _ = ObservationFile::parse(&String::from_utf8_lossy(text), "fuzz");
        },
    );
    total += fuzz(
        "repro",
        &mut rng,
        &read(&s.repro),
        15_000,
        &file,
        true,
        &|p, _| {
            let _ = Repro::read(p);
        },
    );
    total += fuzz(
        "results",
        &mut rng,
        &read(&s.results),
        15_000,
        &file,
        true,
        &|p, _| {
            let _ = Results::read(p);
        },
    );
    total += fuzz(
        "case stream",
        &mut rng,
        &read(&s.cases),
        15_000,
        &cases_file,
        true,
        &|p, _| {
            let _ = Results::recover(p);
        },
    );
    total += fuzz(
        "bench record",
        &mut rng,
        &s.bench,
        10_000,
        &file,
        false,
        &|p, text| {
            let _ = BenchRecord::from_json(&String::from_utf8_lossy(text), p);
        },
    );
    total += fuzz(
        "code object",
        &mut rng,
        &s.code_object,
        5_000,
        &file,
        false,
        &|_, bytes| {
            if let Ok(co) = CodeObject::parse(bytes) {
                for k in &co.kernels {
                    let _ = co.ds_instructions(k);
                    let _ = dsxor::codeobj::find_ds_xor_site(&co, &k.name);
                }
            }
        },
    );
    let gfx11 = dsxor::isa::target("gfx1100").unwrap();
    let gfx9 = dsxor::isa::target("gfx90a").unwrap();
    total += fuzz(
        "asm line",
        &mut rng,
        b"ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:65535 gds",
        10_000,
        &file,
        false,
        &|_, text| {
            let line = String::from_utf8_lossy(text);
            let _ = dsxor::isa::assemble_line(gfx11, &line);
            let _ = dsxor::isa::assemble_line(gfx9, &line);
        },
    );
    total += fuzz(
        "disasm line",
        &mut rng,
        b"[0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0x05]",
        10_000,
        &file,
        false,
        &|_, text| {
            let line = String::from_utf8_lossy(text);
            let _ = dsxor::isa::disassemble_line(gfx11, &line);
            let _ = dsxor::isa::disassemble_line(gfx9, &line);
        },
    );
    assert!(total >= 100_000, "{total}");
    eprintln!("{total} mutants in {:?}", start.elapsed());
}

/// Run the binary with a limit: its exit code, or a failure on a hang.
fn exit_code(args: &[&str]) -> i32 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("dsxor {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn the_binary_exits_0_to_3_on_mutated_files() {
    let s = seeds();
    let work = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let dir = work.path();
    let kinds: [(&str, Vec<u8>, &str); 6] = [
        ("obs.json", std::fs::read(&s.observation).unwrap(), "check"),
        (
            "r.repro.json",
            std::fs::read(&s.repro).unwrap(),
            "repro-export",
        ),
        ("res.json", std::fs::read(&s.results).unwrap(), "merge"),
        ("x.cases.jsonl", std::fs::read(&s.cases).unwrap(), "report"),
        ("bench.json", s.bench.clone(), "report"),
        ("o.co", s.code_object.clone(), "inspect"),
    ];
    for (name, seed, command) in kinds {
        let path = dir.join(name);
        let p = path.to_str().unwrap();
        let out = dir.join("out.json");
        let o = out.to_str().unwrap();
        for i in 0..20 {
            std::fs::write(&path, mutate(&mut rng, &seed)).unwrap();
            let code = match command {
                "check" => exit_code(&["check", p]),
                "repro-export" => exit_code(&["repro", p, "--export", o]),
                "merge" => exit_code(&["merge", p, "--out", o]),
                "report" => exit_code(&["report", p, "--markdown", o]),
                _ => exit_code(&["inspect", p]),
            };
            if !(0..=3).contains(&code) {
                let input = std::fs::read(&path).unwrap();
                panic!(
                    "dsxor {command} on mutated {name} #{i} exited {code}: {:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
    }
}
