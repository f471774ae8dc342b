//! Finding and opening libamdhip64.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{sys, Hip, HipError, Inner, LoadAttempt, LoadedLibrary};

/// Set to a library file to use exactly that one (nothing else is tried).
/// A bare name without a `/` (`libamdhip64.so.6`) goes to the dynamic
/// loader's search, as `dlopen` treats it.
pub const ENV_HIP_LIB: &str = "DSXOR_HIP_LIB";

/// A name with no directory part: `dlopen` searches for it (LD_LIBRARY_PATH,
/// the ld.so cache) instead of opening a file relative to the working
/// directory (dlopen(3)), so checking that it exists here would be wrong.
fn is_bare_name(p: &Path) -> bool {
    p.parent().is_some_and(|d| d.as_os_str().is_empty())
}

/// The sonames tried in each directory and then through the loader. `.so` is
/// the development symlink (ROCm installs it; Debian's libamdhip64-dev
/// does); `.so.7` is ROCm 7's soname, `.so.6` ROCm 6's, `.so.5` ROCm 5's
/// (Debian 12's libamdhip64-5). `.so.7` goes beyond the issue's list: a
/// ROCm 7 runtime without the dev symlink would otherwise be missed.
pub const SONAMES: &[&str] = &[
    "libamdhip64.so",
    "libamdhip64.so.7",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
];

/// One place to look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// A file path (absolute, or relative to the working directory).
    Path(PathBuf),
    /// A bare soname for the dynamic loader's own search (LD_LIBRARY_PATH,
    /// the ld.so cache, the default directories).
    Loader(&'static str),
    /// An environment variable that would have named a directory, unset.
    Unset(&'static str),
}

impl Candidate {
    fn describe(&self) -> String {
        match self {
            Candidate::Path(p) if is_bare_name(p) => {
                format!("{} (dynamic loader search)", p.display())
            }
            Candidate::Path(p) => p.display().to_string(),
            Candidate::Loader(n) => format!("{n} (dynamic loader search)"),
            Candidate::Unset(v) => format!("${v}/lib"),
        }
    }
}

/// The search order, from the environment: `$DSXOR_HIP_LIB` alone when set;
/// else each soname in `$ROCM_PATH/lib`, `$HIP_PATH/lib`, `/opt/rocm/lib`,
/// then each soname through the dynamic loader.
pub fn candidates() -> Vec<Candidate> {
    candidates_from(|v| std::env::var_os(v).map(PathBuf::from))
}

fn candidates_from(env: impl Fn(&str) -> Option<PathBuf>) -> Vec<Candidate> {
    if let Some(p) = env(ENV_HIP_LIB) {
        return vec![Candidate::Path(p)];
    }
    let mut out = Vec::new();
    for var in ["ROCM_PATH", "HIP_PATH"] {
        match env(var) {
            Some(root) => {
                for so in SONAMES {
                    out.push(Candidate::Path(root.join("lib").join(so)));
                }
            }
            None => out.push(Candidate::Unset(if var == "ROCM_PATH" {
                "ROCM_PATH"
            } else {
                "HIP_PATH"
            })),
        }
    }
    for so in SONAMES {
        out.push(Candidate::Path(Path::new("/opt/rocm/lib").join(so)));
    }
    for so in SONAMES {
        out.push(Candidate::Loader(so));
    }
    out
}

pub(super) fn load(candidates: &[Candidate]) -> Result<Hip, HipError> {
    let mut attempts = Vec::new();
    for c in candidates {
        let target = match c {
            Candidate::Unset(_) => {
                attempts.push(LoadAttempt {
                    candidate: c.describe(),
                    reason: "not set".into(),
                });
                continue;
            }
            // A missing file gets a plain reason rather than dlopen's text,
            // and the loader is not asked to search for a path.
            Candidate::Path(p) if !is_bare_name(p) && !p.exists() => {
                attempts.push(LoadAttempt {
                    candidate: c.describe(),
                    reason: "no such file".into(),
                });
                continue;
            }
            Candidate::Path(p) => p.as_os_str().to_owned(),
            Candidate::Loader(n) => std::ffi::OsString::from(n),
        };
        let candidate = target.to_string_lossy().into_owned();
        // SAFETY: loading libamdhip64 runs its initialisers, which is what
        // the HIP runtime expects of any client; `from_library` only looks
        // symbols up (each miss is kept as an Err, not a failure).
        let opened = unsafe { libloading::Library::new(&target) }
            .and_then(|l| unsafe { sys::HipLib::from_library(l) });
        match opened {
            Ok(lib) => {
                let resolved = mapped_path("libamdhip64").or_else(|| match c {
                    Candidate::Path(p) => std::fs::canonicalize(p).ok(),
                    _ => None,
                });
                return Ok(Hip {
                    inner: Arc::new(Inner {
                        lib: std::mem::ManuallyDrop::new(lib),
                        loaded: LoadedLibrary {
                            candidate,
                            resolved,
                            earlier_attempts: attempts,
                        },
                    }),
                });
            }
            Err(e) => attempts.push(LoadAttempt {
                candidate: c.describe(),
                reason: e.to_string(),
            }),
        }
    }
    Err(HipError::LibraryNotFound { attempts })
}

/// The file of a mapped library whose name contains `needle`, from
/// `/proc/self/maps` (Linux). `None` elsewhere or when not found.
fn mapped_path(needle: &str) -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| {
            Path::new(p)
                .file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| f.contains(needle))
        })
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<PathBuf> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| PathBuf::from(v))
        }
    }

    #[test]
    fn dsxor_hip_lib_alone_when_set() {
        let c = candidates_from(env(&[("DSXOR_HIP_LIB", "/x/lib.so"), ("ROCM_PATH", "/r")]));
        assert_eq!(c, vec![Candidate::Path("/x/lib.so".into())]);
    }

    #[test]
    fn order_without_override() {
        let c = candidates_from(env(&[("ROCM_PATH", "/r")]));
        assert_eq!(c[0], Candidate::Path("/r/lib/libamdhip64.so".into()));
        assert_eq!(c[3], Candidate::Path("/r/lib/libamdhip64.so.5".into()));
        assert_eq!(c[4], Candidate::Unset("HIP_PATH"));
        assert_eq!(c[5], Candidate::Path("/opt/rocm/lib/libamdhip64.so".into()));
        assert_eq!(c[9], Candidate::Loader("libamdhip64.so"));
        assert_eq!(c.last(), Some(&Candidate::Loader("libamdhip64.so.5")));
        assert_eq!(c.len(), 4 + 1 + 4 + 4);
    }

    #[test]
    fn bare_names_go_to_the_loader() {
        assert!(is_bare_name(Path::new("libamdhip64.so.6")));
        assert!(!is_bare_name(Path::new("./libamdhip64.so")));
        assert!(!is_bare_name(Path::new("/nonexistent")));
        let err = load(&[Candidate::Path("libdsxor-no-such-library.so".into())]).unwrap_err();
        let HipError::LibraryNotFound { attempts } = &err else {
            panic!("unexpected {err}");
        };
        // dlopen's own message, not "no such file".
        assert_eq!(
            attempts[0].candidate,
            "libdsxor-no-such-library.so (dynamic loader search)"
        );
        assert_ne!(attempts[0].reason, "no such file");
    }

    #[test]
    fn every_attempt_is_reported() {
        let err = load(&[
            Candidate::Unset("ROCM_PATH"),
            Candidate::Path("/nonexistent/libamdhip64.so".into()),
            Candidate::Loader("libdsxor-no-such-library.so"),
        ])
        .unwrap_err();
        let HipError::LibraryNotFound { attempts } = &err else {
            panic!("unexpected {err}");
        };
        assert_eq!(attempts.len(), 3);
        assert_eq!(attempts[0].reason, "not set");
        assert_eq!(attempts[1].reason, "no such file");
        assert!(attempts[2].reason.contains("libdsxor-no-such-library.so"));
        let text = err.to_string();
        assert!(
            text.contains("/nonexistent/libamdhip64.so: no such file"),
            "{text}"
        );
    }
}
