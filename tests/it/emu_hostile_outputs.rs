//! The output-path policy (`dsxor::report::output`, docs/src/reference/
//! results-and-exit-paths.md, "Output paths") through the binary, for every
//! whole-file writer: a character device or FIFO is written in place and
//! stays what it was; a symbolic link keeps its place and its target is
//! replaced; a directory, a socket, a FIFO with no reader and a missing
//! parent are refused (exit 2), as is a read-only directory. Device nodes
//! are scratch ones made with mknod(2) in a temporary directory, never the
//! system's: this needs root (as CI runs), and skips with a notice
//! otherwise unless DSXOR_REQUIRE_TOOLS=1.

use crate::common;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{code, dsxor, text};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A scratch character device `major:minor` at `path` (1:3 is what
/// /dev/null is, 1:7 /dev/full: writes are discarded, or fail ENOSPC).
/// None (after the notice) when this process may not make one.
fn mknod_char(path: &Path, major: u32, minor: u32) -> Option<()> {
    use std::os::unix::ffi::OsStrExt;
    if !is_root() {
        common::missing("mknod of a scratch character device", "not running as root");
        return None;
    }
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; mknod only creates the node.
    let r = unsafe {
        libc::mknod(
            c.as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(major, minor),
        )
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        common::missing("mknod of a scratch character device", &e.to_string());
        return None;
    }
    Some(())
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

fn kind(path: &Path) -> &'static str {
    match std::fs::symlink_metadata(path) {
        Err(_) => "missing",
        Ok(m) => {
            let t = m.file_type();
            if t.is_symlink() {
                "symlink"
            } else if t.is_char_device() {
                "char device"
            } else if t.is_fifo() {
                "fifo"
            } else if t.is_socket() {
                "socket"
            } else if t.is_dir() {
                "directory"
            } else {
                "file"
            }
        }
    }
}

/// A results file, a repro file and a bench record made once, for the
/// writers that read one (`merge`, `report`, `repro --export`).
struct Inputs {
    _dir: tempfile::TempDir,
    results: PathBuf,
    repro: PathBuf,
}

fn inputs() -> &'static Inputs {
    static I: OnceLock<Inputs> = OnceLock::new();
    I.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let o = dsxor(&[
            "run",
            "--backend",
            "emu",
            "--cases",
            "20",
            "--seed",
            "3",
            "--pattern",
            "one-address",
            "--fault",
            "lost-update",
            // Minimized to one round, which `repro --export` can write.
            "--minimize-budget",
            "10s",
            "--max-repros",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 1, "{}", text(&o));
        let results = common::results_json(&out).remove(0);
        let repro = common::files(&out, ".json")
            .into_iter()
            .find(|p| p.to_string_lossy().contains(".repro-"))
            .expect("a repro file");
        Inputs {
            _dir: dir,
            results,
            repro,
        }
    })
}

/// Every writer, as a command line writing `target`.
fn writers(scratch: &Path, target: &Path) -> Vec<(&'static str, Vec<String>)> {
    let t = target.to_str().unwrap().to_string();
    let out = scratch.join("runs").to_str().unwrap().to_string();
    let i = inputs();
    let run = |flag: &str| {
        vec![
            "run",
            "--backend",
            "emu",
            "--cases",
            "4",
            "--seed",
            "1",
            "--out",
            &out,
            flag,
            &t,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let results = i.results.to_str().unwrap();
    vec![
        ("run --results", run("--results")),
        ("run --junit", run("--junit")),
        (
            "repro --export",
            s(&["repro", i.repro.to_str().unwrap(), "--export", &t]),
        ),
        ("merge --out", s(&["merge", results, "--out", &t])),
        (
            "report --markdown",
            s(&["report", results, "--markdown", &t]),
        ),
        ("report --svg", s(&["report", results, "--svg", &t])),
    ]
}

fn run_args(args: &[String]) -> std::process::Output {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    dsxor(&a)
}

#[test]
fn a_character_device_is_written_in_place_and_stays_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let null = dir.path().join("null");
    let full = dir.path().join("full");
    if mknod_char(&null, 1, 3).is_none() || mknod_char(&full, 1, 7).is_none() {
        return;
    }
    for (name, args) in writers(dir.path(), &null) {
        let o = run_args(&args);
        // merge's input holds failures: 1 once written; the rest pass.
        let ok = if name == "merge --out" { 1 } else { 0 };
        assert_eq!(code(&o), ok, "{name} to a null device: {}", text(&o));
        assert_eq!(
            kind(&null),
            "char device",
            "{name} replaced the device node"
        );
    }
    // A device that refuses the write (ENOSPC): the machine's trouble, 3
    // (1 where failures were already found), never a replaced node.
    for (name, args) in writers(dir.path(), &full) {
        let o = run_args(&args);
        let want = if name == "merge --out" { 1 } else { 3 };
        assert_eq!(code(&o), want, "{name} to a full device: {}", text(&o));
        assert!(text(&o).contains("No space left"), "{name}: {}", text(&o));
        assert_eq!(
            kind(&full),
            "char device",
            "{name} replaced the device node"
        );
    }
}

#[test]
fn a_fifo_with_a_reader_gets_the_file_and_without_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let i = inputs();
    // The reader thread may not be in open(2) yet when merge looks for a
    // reader: it then says "no reader" (the second half's verdict). Try
    // again until the reader is there.
    let mut tries = 0;
    let o = loop {
        let o = dsxor(&[
            "merge",
            i.results.to_str().unwrap(),
            "--out",
            fifo.to_str().unwrap(),
        ]);
        tries += 1;
        if !text(&o).contains("no reader") || tries == 100 {
            break o;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(code(&o), 1, "{}", text(&o));
    // Checked before joining the reader: a FIFO replaced by a file, or one
    // never opened, would leave it blocked in open(2) for ever.
    assert_eq!(kind(&fifo), "fifo", "merge replaced the FIFO: {}", text(&o));
    assert!(
        !text(&o).contains("no reader"),
        "merge never saw the reader in {tries} tries: {}",
        text(&o)
    );
    let got = reader.join().unwrap();
    assert!(got.contains("\"dsxor-results/1\""), "{got}");
    // No reader: refused at once (exit 2; merge's shards hold failures,
    // which decide: 1), not a hang, and still a FIFO.
    for (name, args) in writers(dir.path(), &fifo) {
        let o = run_args(&args);
        let want = if name == "merge --out" { 1 } else { 2 };
        assert_eq!(
            code(&o),
            want,
            "{name} to a FIFO without a reader: {}",
            text(&o)
        );
        assert!(text(&o).contains("no reader"), "{name}: {}", text(&o));
        assert_eq!(kind(&fifo), "fifo", "{name} replaced the FIFO");
    }
}

#[test]
fn a_symlink_keeps_its_place_and_its_target_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in writers(dir.path(), &dir.path().join("link")) {
        let target = dir.path().join("target");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("target", &link).unwrap();
        let o = run_args(&args);
        assert!(code(&o) <= 1, "{name} through a symlink: {}", text(&o));
        assert_eq!(kind(&link), "symlink", "{name} replaced the link");
        let now = std::fs::read_to_string(&target).unwrap();
        assert_ne!(now, "old", "{name} left the link's target unchanged");
        assert!(!now.is_empty(), "{name}");
    }
}

#[test]
fn a_directory_a_socket_and_a_missing_parent_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("a-directory");
    std::fs::create_dir(&sub).unwrap();
    let sock = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let missing = dir.path().join("no-such-dir").join("x.json");
    for (path, what, why) in [
        (&sub, "directory", "is a directory"),
        (&sock, "socket", "is a socket"),
        (&missing, "missing", "does not exist"),
    ] {
        for (name, args) in writers(dir.path(), path) {
            let o = run_args(&args);
            assert_eq!(code(&o), 2, "{name} to a {what}: {}", text(&o));
            assert!(text(&o).contains(why), "{name} to a {what}: {}", text(&o));
            assert_eq!(kind(path), what, "{name} changed the {what}");
        }
    }
    assert!(!dir.path().join("no-such-dir").exists());
}

#[test]
fn a_read_only_directory_is_refused_before_any_work() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::set_permissions(&runs, std::fs::Permissions::from_mode(0o777)).unwrap();
    let results = ro.join("r.json");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"));
    cmd.args(["run", "--backend", "emu", "--cases", "4", "--out"])
        .arg(&runs)
        .arg("--results")
        .arg(&results);
    // Root writes anywhere: the run is made as `nobody` (65534), for whom
    // 0555 means read-only.
    if is_root() {
        cmd.uid(65534).gid(65534);
    }
    let o = cmd.output().unwrap();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("Permission denied"), "{}", text(&o));
    assert!(!results.exists());
    assert!(
        common::files(&runs, ".cases.jsonl").is_empty(),
        "refused before the first case"
    );
}

#[test]
fn results_repro_files_and_case_streams_share_one_mode() {
    let i = inputs();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let stream = common::files(i.results.parent().unwrap(), ".cases.jsonl").remove(0);
    assert_eq!(mode(&i.results), mode(&stream), "results vs case stream");
    assert_eq!(mode(&i.repro), mode(&stream), "repro vs case stream");
}
