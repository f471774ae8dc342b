//! Errors of the HIP layer. Every one says what dsxor was doing; a failed
//! HIP call carries HIP's own error name and string.

use std::fmt;

/// One place `Hip::load` looked for libamdhip64, and why it was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadAttempt {
    /// What was tried: a path, a bare name for the dynamic loader, or an
    /// environment variable that was not set.
    pub candidate: String,
    /// Why it failed (the dynamic loader's message, "not set", ...).
    pub reason: String,
}

impl fmt::Display for LoadAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.candidate, self.reason)
    }
}

/// A HIP status code with HIP's own name and description of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipStatus {
    pub code: u32,
    /// `hipGetErrorName` (e.g. `hipErrorNoDevice`).
    pub name: String,
    /// `hipGetErrorString`; HIP 5.x returns the name again, so it is only
    /// shown when it says something more.
    pub string: String,
}

impl fmt::Display for HipStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.string.is_empty() || self.string == self.name {
            write!(f, "{} ({})", self.name, self.code)
        } else {
            write!(f, "{} ({}): {}", self.name, self.code, self.string)
        }
    }
}

// Status codes dsxor tests for by value, taken from the generated bindings
// (bindgen's `hipError_t` from hip_runtime_api.h; tests/it/rocm_hip_bindings.rs
// fails when src/hip/sys.rs drifts from the header), never typed by hand.

/// `hipErrorNoDevice`: what `hipGetDeviceCount` returns with no GPU
/// (observed here with libamdhip64 5.2; tests/it/rocm_hip_runtime.rs).
pub const HIP_ERROR_NO_DEVICE: u32 = super::sys::hipError_t::hipErrorNoDevice.0;
/// `hipErrorNotReady`: `hipStreamQuery` on a stream with work pending
/// (hip_runtime_api.h: "not actually an error").
pub const HIP_ERROR_NOT_READY: u32 = super::sys::hipError_t::hipErrorNotReady.0;

#[derive(Debug, thiserror::Error)]
pub enum HipError {
    /// No candidate library could be loaded.
    #[error("libamdhip64 could not be loaded; tried:\n{}", list(.attempts))]
    LibraryNotFound { attempts: Vec<LoadAttempt> },
    /// The runtime lacks an entry point dsxor needs.
    #[error("{library}: entry point `{symbol}` not found ({reason}) while {doing}")]
    MissingSymbol {
        library: String,
        symbol: &'static str,
        reason: String,
        doing: String,
    },
    /// A HIP call returned an error.
    #[error("{call} returned {status} while {doing}")]
    Call {
        call: &'static str,
        status: HipStatus,
        doing: String,
    },
    /// dsxor refused a request before calling HIP (a device index out of
    /// range, a buffer size that does not fit, ...).
    #[error("{0}")]
    Invalid(String),
}

fn list(attempts: &[LoadAttempt]) -> String {
    attempts
        .iter()
        .map(|a| format!("  - {a}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl HipError {
    /// The error on one short line, for one-line notices such as backend
    /// selection's and `info`'s device line: the load error counts its
    /// attempts instead of listing them (the list, ten paths and their
    /// reasons, is a thousand characters; `dsxor info` prints it once, one
    /// attempt a line).
    pub fn one_line(&self) -> String {
        match self {
            HipError::LibraryNotFound { attempts } => format!(
                "libamdhip64 could not be loaded ({} candidates tried; `dsxor info` lists each \
                 and why)",
                attempts.len()
            ),
            other => other.to_string(),
        }
    }

    /// The HIP status of a failed call, if this is one.
    pub fn status(&self) -> Option<&HipStatus> {
        match self {
            HipError::Call { status, .. } => Some(status),
            _ => None,
        }
    }

    /// True when HIP said there is no device (`hipErrorNoDevice`).
    pub fn is_no_device(&self) -> bool {
        self.status().is_some_and(|s| s.code == HIP_ERROR_NO_DEVICE)
    }
}
