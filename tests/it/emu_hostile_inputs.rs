//! Hostile inputs, round three: a FIFO with no writer read as a code object
//! or JSON file is refused, not waited on; a bundle with two entries of one
//! id, or an id that is not text, is refused by `inspect` and `run
//! --code-object` alike; `asm` refuses a binary line and answers the rest;
//! a DSXOR_HIPSIM_DEVICES that is not UTF-8 is refused, not read as unset;
//! `info` lists the HIP library search once.

use crate::common;

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{code, dsxor, text};

/// Run dsxor, killing it after `limit` (a hang is a failure, not a wait).
fn bounded(args: &[&str], limit: Duration) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let o = child.wait_with_output().unwrap();
            panic!("{args:?} hung for {limit:?}: {}", text(&o));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn a_fifo_without_a_writer_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    for args in [
        vec!["inspect", f],
        vec!["inspect", "--json", f],
        vec![
            "run",
            "--backend",
            "emu",
            "--code-object",
            f,
            "--cases",
            "2",
            "--out",
            out,
        ],
        vec!["check", f],
        vec!["merge", f],
        vec!["report", f],
    ] {
        let o = bounded(&args, Duration::from_secs(20));
        assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
    }
}

fn gfx1100_elf() -> Vec<u8> {
    dsxor::codeobj::find_embedded("gfx1100", dsxor::case::WaveSize::Wave32)
        .expect("an embedded gfx1100 wave32 object")
        .bytes
        .to_vec()
}

const ID: &str = "hipv4-amdgcn-amd-amdhsa--gfx1100";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `inspect`, `inspect --target gfx1100` and `run --code-object` on `file`.
fn verdicts(file: &Path, out: &Path) -> Vec<(String, i32, String)> {
    let f = file.to_str().unwrap();
    let out = out.to_str().unwrap();
    [
        vec!["inspect", f],
        vec!["inspect", "--target", "gfx1100", f],
        vec![
            "run",
            "--backend",
            "emu",
            "--code-object",
            f,
            "--cases",
            "2",
            "--out",
            out,
        ],
    ]
    .into_iter()
    .map(|a| {
        let o = dsxor(&a);
        (a.join(" "), code(&o), text(&o))
    })
    .collect()
}

#[test]
fn a_bundle_with_two_entries_of_one_id_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let elf = gfx1100_elf();
    let b = dsxor::codeobj::bundle::write_bundle(&[(ID, &elf), (ID, &elf)]);
    let file = write(dir.path(), "two.hipfb", &b);
    for (cmd, c, t) in verdicts(&file, &dir.path().join("out")) {
        assert_eq!(c, 2, "{cmd}: {t}");
        assert!(t.contains("two entries have the id"), "{cmd}: {t}");
    }
    // One entry of that id: every command reads it.
    let b = dsxor::codeobj::bundle::write_bundle(&[(ID, &elf)]);
    let file = write(dir.path(), "one.hipfb", &b);
    for (cmd, c, t) in verdicts(&file, &dir.path().join("out")) {
        assert_eq!(c, 0, "{cmd}: {t}");
    }
}

#[test]
fn a_bundle_entry_id_that_is_not_text_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let elf = gfx1100_elf();
    let mut b = dsxor::codeobj::bundle::write_bundle(&[(ID, &elf)]);
    let at = b
        .windows(ID.len())
        .position(|w| w == ID.as_bytes())
        .expect("the id in the header");
    b[at + 3] = 0xff;
    let file = write(dir.path(), "bad-id.hipfb", &b);
    for (cmd, c, t) in verdicts(&file, &dir.path().join("out")) {
        assert_eq!(c, 2, "{cmd}: {t}");
        assert!(t.contains("is not text"), "{cmd}: {t}");
        assert!(!t.contains("magic"), "{cmd}: {t}");
    }
}

#[test]
fn asm_refuses_a_binary_line_and_answers_the_rest() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(["asm", "--target", "gfx1100"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: &[u8] = b"ds_xor_rtn_b64 v[5:6], v1, v[2:3]\n\xff\xfe binary\nds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:8\n";
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 2, "{}", text(&o));
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "one answer per input line: {out}");
    assert!(lines[0].contains("encoding: [0x00,0x00,0xac,0xd9"), "{out}");
    assert!(lines[1].starts_with("; refused: not UTF-8"), "{out}");
    assert!(lines[2].contains("encoding: [0x08,0x00,0xac,0xd9"), "{out}");
}

#[test]
fn a_hipsim_device_list_that_is_not_text_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dsxor"));
    cmd.args(["run", "--backend", "hip", "--cases", "2", "--out"])
        .arg(dir.path())
        .env("DSXOR_HIP_LIB", common::hipsim_lib());
    for (k, _) in std::env::vars() {
        if k.starts_with("DSXOR_HIPSIM_") {
            cmd.env_remove(k);
        }
    }
    cmd.env(
        "DSXOR_HIPSIM_DEVICES",
        std::ffi::OsStr::from_bytes(b"gfx1100\xff"),
    );
    let o = cmd.output().unwrap();
    // Not the default device, silently: no device at all, and why.
    assert_eq!(code(&o), 3, "{}", text(&o));
    assert!(
        text(&o).contains("DSXOR_HIPSIM_DEVICES") && text(&o).contains("not UTF-8"),
        "{}",
        text(&o)
    );
}

#[test]
fn info_lists_the_library_search_once() {
    use dsxor::hip::{info::Info, HipError, LoadAttempt};
    let attempts: Vec<LoadAttempt> = (0..10)
        .map(|i| LoadAttempt {
            candidate: format!("/opt/rocm-{i}/lib/libamdhip64.so"),
            reason: "cannot open shared object file: No such file or directory".into(),
        })
        .collect();
    let info = Info::from_load_error(&HipError::LibraryNotFound { attempts });
    let t = info.render_text();
    for i in 0..10 {
        let path = format!("/opt/rocm-{i}/lib/libamdhip64.so");
        assert_eq!(t.matches(&path).count(), 1, "{path} in:\n{t}");
        assert!(t.contains(&format!("  - {path}")), "a bulleted line:\n{t}");
    }
    assert!(
        t.lines()
            .filter(|l| l.contains("libamdhip64"))
            .all(|l| l.len() < 200),
        "no 1,000-character line:\n{t}"
    );
}
