//! Build script: compiles kernels/ for every target (issue: kernels and code
//! objects) and, with the `bindgen` feature, regenerates src/hip/sys.rs.

// ---- hip: bindings hook (HIP helper; feature `bindgen` only) ----
#[cfg(feature = "bindgen")]
#[path = "build/hip_bindgen.rs"]
mod hip_bindgen;
// ---- end hip ----

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // ---- hip: bindings hook ----
    #[cfg(feature = "bindgen")]
    hip_bindgen::build_script_hook();
    // ---- end hip ----
}
