//! dsxor: a conformance and throughput harness for AMD's LDS atomic
//! `ds_xor_rtn_b64`, gfx1100 (RDNA3) first. See ARCHITECTURE.md for the
//! pipeline and the module boundaries, and the book (docs/src/) for the
//! user's view.

pub mod backend;
pub mod bench;
pub mod case;
pub mod check;
pub mod codeobj;
pub mod emu;
pub mod fleet;
pub mod gen;
pub mod hip;
pub mod isa;
pub mod json;
pub mod model;
pub mod mutate;
pub mod qualify;
pub mod report;
pub mod suite;

/// Exit codes (docs/src/reference/exit-codes.md). Infrastructure trouble is never a
/// conformance failure, nor the reverse.
pub mod exit {
    /// Everything judged passed.
    pub const PASS: u8 = 0;
    /// At least one conformance failure.
    pub const FAIL: u8 = 1;
    /// Bad usage or bad input (a file, an argument).
    pub const USAGE: u8 = 2;
    /// Environment: no device, library, compiler or kernel for the target.
    pub const ENVIRONMENT: u8 = 3;
}
