//! The checked-in bindings (src/hip/sys.rs) against the installed HIP
//! headers: a fresh generation with the same generator code must match, and
//! the constants dsxor spells by hand (the `extra` keys, which bindgen
//! cannot translate) must match the header's text. Status codes are not
//! spelled by hand: src/hip/error.rs and src/backend/hip.rs take them from
//! the generated `hipError_t`.
//! Needs libamdhip64-dev (headers) and libclang: skipped locally when
//! missing, mandatory under DSXOR_REQUIRE_TOOLS=1.

use crate::common;

#[path = "../../build/hip_bindgen.rs"]
mod hip_bindgen;

use std::path::{Path, PathBuf};

fn header_dir() -> Option<PathBuf> {
    match hip_bindgen::find_include_dir() {
        Ok(d) => Some(d),
        Err(e) => {
            common::missing("the HIP headers (libamdhip64-dev)", &e);
            None
        }
    }
}

#[test]
fn checked_in_bindings_match_a_fresh_generation() {
    let Some(dir) = header_dir() else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/hip/sys.rs");
    let checked_in = std::fs::read_to_string(&path).expect("src/hip/sys.rs is readable");
    let recorded = hip_bindgen::recorded_version(&checked_in)
        .expect("src/hip/sys.rs records its headers' HIP version")
        .to_string();
    let found = hip_bindgen::header_version(&dir).expect("hip/hip_version.h is readable");
    if found != recorded {
        // Other headers (a ROCm install in /opt/rocm) would give other
        // bindings: that is not staleness. Point DSXOR_HIP_INCLUDE at the
        // recorded version's headers (CI: Debian's libamdhip64-dev).
        common::missing(
            &format!("a copy of the HIP {recorded} headers src/hip/sys.rs was generated from"),
            &format!("{} holds HIP {found}", dir.display()),
        );
        return;
    }
    let fresh = match hip_bindgen::generate(&dir) {
        Ok(t) => t,
        Err(e @ hip_bindgen::GenError::Libclang(_)) => {
            common::missing("libclang (for bindgen)", &e.to_string());
            return;
        }
        Err(e) => panic!("bindgen failed on {}: {e}", dir.display()),
    };
    if fresh != checked_in {
        let first = fresh
            .lines()
            .zip(checked_in.lines())
            .position(|(a, b)| a != b)
            .map(|i| i + 1)
            .unwrap_or_else(|| fresh.lines().count().min(checked_in.lines().count()) + 1);
        panic!(
            "{} differs from a fresh generation from {} (first difference at line {first}; \
             fresh has {} lines, checked-in {}). Run `cargo build --features bindgen` and commit.",
            path.display(),
            dir.join("hip/hip_runtime_api.h").display(),
            fresh.lines().count(),
            checked_in.lines().count()
        );
    }
}

/// `#define NAME ((void*)0xNN)` → NN, from the header text.
fn launch_param(header: &str, name: &str) -> usize {
    let line = header
        .lines()
        .find(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some("#define") && w.next() == Some(name)
        })
        .unwrap_or_else(|| panic!("{name} is not #defined in hip_runtime_api.h"));
    let hex = line
        .split("0x")
        .nth(1)
        .unwrap_or_else(|| panic!("no hex value in {line:?}"));
    let digits: String = hex.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    usize::from_str_radix(&digits, 16).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

#[test]
fn launch_param_keys_match_the_header() {
    let Some(dir) = header_dir() else { return };
    let header = std::fs::read_to_string(dir.join("hip/hip_runtime_api.h"))
        .expect("hip_runtime_api.h is readable");
    // The AMD branch of the header (the first #define; the nvidia_detail
    // copies live in other files and map to CUDA's values).
    assert_eq!(
        launch_param(&header, "HIP_LAUNCH_PARAM_BUFFER_POINTER"),
        dsxor::hip::HIP_LAUNCH_PARAM_BUFFER_POINTER
    );
    assert_eq!(
        launch_param(&header, "HIP_LAUNCH_PARAM_BUFFER_SIZE"),
        dsxor::hip::HIP_LAUNCH_PARAM_BUFFER_SIZE
    );
    assert_eq!(
        launch_param(&header, "HIP_LAUNCH_PARAM_END"),
        dsxor::hip::HIP_LAUNCH_PARAM_END
    );
}
