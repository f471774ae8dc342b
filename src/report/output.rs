//! Where a whole file dsxor writes goes: the one output-path policy of
//! every such writer (results, JUnit, repro files, `repro --export`,
//! `merge --out`, `report --svg/--markdown`, bench, qualify and mutate
//! records). The book states it (docs/src/reference/exit-codes.md,
//! "Output paths"):
//!
//! - a missing path, or a regular file, is written to a temporary file in
//!   its directory and renamed into place: readers see the old file or the
//!   whole new one, never a torn or empty one;
//! - a symbolic link is resolved: the file it names is replaced that way
//!   (or created, for a dangling link) and the link is kept, so
//!   `latest.json -> runs/x.json` updates `runs/x.json` as `>` would;
//! - a character device or FIFO (`/dev/null`, `/dev/stdout` on a pipe or
//!   terminal) is opened and written in place, never replaced; a FIFO with
//!   no reader is refused instead of waiting for one;
//! - a directory, block device or socket is refused, as is a path whose
//!   directory does not exist (a typo is not silently created).
//!
//! A refusal ([`OutputError::Refused`]) is the user's path (exit 2); a
//! failure to write an accepted path ([`OutputError::Io`]) is the machine's
//! (a full disk: exit 3).

use std::fs::{self, Permissions};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path names something dsxor does not write a file to.
    #[error("refusing to write {path}: {why}")]
    Refused { path: PathBuf, why: String },
    /// An accepted path could not be written.
    #[error("cannot write {path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
}

impl OutputError {
    pub fn path(&self) -> &Path {
        match self {
            OutputError::Refused { path, .. } | OutputError::Io { path, .. } => path,
        }
    }
}

/// How a path is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// A temporary file in `file`'s directory renamed onto `file` (the path
    /// itself, or what its symbolic links resolve to).
    Replace { file: PathBuf },
    /// Opened and written in place: a character device or a FIFO.
    InPlace,
}

/// Symbolic links followed at most (Linux's own limit, `MAXSYMLINKS`, is 40).
const MAX_LINKS: usize = 40;

/// Mode of a new file before the umask: what `File::create` and a shell's
/// `>` use, so results, repro files and case streams share one mode
/// (0644 under the usual umask 022): they hold no secret, and a CI step run
/// as another user must read them.
const NEW_FILE_MODE: u32 = 0o666;

/// Decide how `path` would be written, without writing it: the check every
/// command makes before its work (a refusal is exit 2 there).
pub fn plan(path: &Path) -> Result<Plan, OutputError> {
    let refused = |why: String| OutputError::Refused {
        path: path.to_path_buf(),
        why,
    };
    match fs::metadata(path) {
        Ok(meta) => {
            let t = meta.file_type();
            if t.is_dir() {
                Err(refused("it is a directory".into()))
            } else if t.is_file() {
                let file = fs::canonicalize(path).map_err(|e| refused(e.to_string()))?;
                Ok(Plan::Replace { file })
            } else if t.is_char_device() || t.is_fifo() {
                Ok(Plan::InPlace)
            } else if t.is_block_device() {
                Err(refused(
                    "it is a block device (dsxor writes whole files, never onto a disk)".into(),
                ))
            } else if t.is_socket() {
                Err(refused("it is a socket".into()))
            } else {
                Err(refused("it is not a file, device or FIFO".into()))
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let file = resolve_dangling(path).map_err(refused)?;
            let dir = parent_of(&file);
            match fs::metadata(dir) {
                Ok(m) if m.is_dir() => Ok(Plan::Replace { file }),
                Ok(_) => Err(refused(format!("{} is not a directory", dir.display()))),
                Err(_) => Err(refused(format!(
                    "its directory {} does not exist",
                    dir.display()
                ))),
            }
        }
        Err(e) => Err(refused(e.to_string())),
    }
}

/// [`plan`], then make sure a replaced file's directory takes a temporary
/// file. An in-place path is not opened here: opening a FIFO's write end
/// and closing it would hand its waiting reader an end of file before the
/// real write (and some devices act on open); a FIFO's reader is looked
/// for when the file is written.
pub fn check(path: &Path) -> Result<Plan, OutputError> {
    let plan = plan(path)?;
    if let Plan::Replace { file } = &plan {
        tempfile::tempfile_in(parent_of(file)).map_err(|cause| OutputError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
    }
    Ok(plan)
}

/// Write `bytes` to `path` by the policy above.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let io = |cause| OutputError::Io {
        path: path.to_path_buf(),
        cause,
    };
    match plan(path)? {
        Plan::InPlace => {
            let mut f = open_in_place(path)?;
            f.write_all(bytes).and_then(|_| f.flush()).map_err(io)
        }
        Plan::Replace { file } => {
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A replaced file keeps its mode; a new one gets NEW_FILE_MODE
            // less the umask (open(2) applies it).
            let mode = fs::metadata(&file)
                .map(|m| m.permissions().mode() & 0o7777)
                .ok();
            let mut tmp = tempfile::Builder::new()
                .prefix(&format!(".{name}."))
                .suffix(".tmp")
                .permissions(Permissions::from_mode(NEW_FILE_MODE))
                .tempfile_in(parent_of(&file))
                .map_err(io)?;
            if let Some(mode) = mode {
                tmp.as_file()
                    .set_permissions(Permissions::from_mode(mode))
                    .map_err(io)?;
            }
            tmp.write_all(bytes)
                .and_then(|_| tmp.as_file().sync_all())
                .map_err(io)?;
            tmp.persist(&file).map_err(|e| io(e.error))?;
            Ok(())
        }
    }
}

/// Write `bytes` as a new file in `dir` named `<stem>.<ext>`, or
/// `<stem>-2.<ext>`, `-3`… when that name is taken (two runs started in
/// the same second): written to a temporary file first and persisted
/// without replacing anything, so no record is ever lost to another and
/// none is left torn or empty. Returns the path written.
pub fn write_new(dir: &Path, stem: &str, ext: &str, bytes: &[u8]) -> Result<PathBuf, OutputError> {
    let first = dir.join(format!("{stem}.{ext}"));
    let io = |path: &Path, cause| OutputError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{stem}."))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(dir)
        .map_err(|e| io(&first, e))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| io(&first, e))?;
    for n in 1u32.. {
        let path = if n == 1 {
            first.clone()
        } else {
            dir.join(format!("{stem}-{n}.{ext}"))
        };
        match tmp.persist_noclobber(&path) {
            Ok(_) => return Ok(path),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => tmp = e.file,
            Err(e) => return Err(io(&path, e.error)),
        }
    }
    Err(io(&first, std::io::Error::other("no free file name")))
}

/// Open a character device or FIFO for writing, in place. O_NONBLOCK only
/// for the open: a FIFO without a reader fails at once (ENXIO, fifo(7))
/// instead of blocking; the writes then block as usual.
fn open_in_place(path: &Path) -> Result<fs::File, OutputError> {
    let f = fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|cause| {
            if cause.raw_os_error() == Some(libc::ENXIO) {
                OutputError::Refused {
                    path: path.to_path_buf(),
                    why: "it is a FIFO with no reader".into(),
                }
            } else {
                OutputError::Io {
                    path: path.to_path_buf(),
                    cause,
                }
            }
        })?;
    crate::json::clear_nonblock(&f).map_err(|cause| OutputError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(f)
}

/// The file a missing path names: itself, or, through a dangling symbolic
/// link (chain), the path the last link points to.
fn resolve_dangling(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p).map_err(|e| e.to_string())?;
                p = parent_of(&p).join(target);
            }
            _ => return Ok(p),
        }
    }
    Err(format!("more than {MAX_LINKS} symbolic links"))
}

/// The directory a file is in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_keeps_its_place_and_its_target_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.json");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("l.json");
        std::os::unix::fs::symlink("t.json", &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(
            fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[test]
    fn a_dangling_symlink_creates_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("l.json");
        std::os::unix::fs::symlink("made.json", &link).unwrap();
        write(&link, b"x").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("made.json")).unwrap(),
            "x"
        );
    }

    #[test]
    fn refusals_name_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let e = plan(dir.path()).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let e = plan(&dir.path().join("no/such/x.json")).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }
}
