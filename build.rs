//! Build script: compiles kernels/ for every target (issue: kernels and code
//! objects) and, with the `bindgen` feature, regenerates src/hip/sys.rs.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
