//! clang's device-only HIP compile: the one definition of its arguments,
//! included with `#[path]` by build.rs (the shipped kernels) and by the
//! integration tests (user builds and test kernels), so a flag changes in
//! one place.

/// The arguments that compile HIP source for `target`'s device alone into a
/// plain AMDGPU ELF code object, at optimisation level `opt` (`-O2` for the
/// shipped kernels); the caller adds the source, `-o` and its own flags.
///
/// - `--cuda-device-only`: no host code (clang's HIP driver shares CUDA's
///   offload flags);
/// - `-nogpulib -nogpuinc`: neither ROCm's device libraries nor its headers,
///   so a bare LLVM (`clang-22`) compiles it; the kernels use only builtins;
/// - `--no-gpu-bundle-output`: the object itself, not a clang offload
///   bundle (`hipModuleLoadData` and the software device both take it as is).
pub fn device_object_args(target: &str, opt: &str) -> Vec<String> {
    vec![
        "-x".into(),
        "hip".into(),
        "--cuda-device-only".into(),
        format!("--offload-arch={target}"),
        "-nogpulib".into(),
        "-nogpuinc".into(),
        opt.into(),
        "--no-gpu-bundle-output".into(),
    ]
}

/// The flag that selects wave64 on `target`, where one is needed: gfx10+
/// (gfx1030, gfx1100, gfx1200) defaults to wave32 and takes
/// `-mwavefrontsize64`; gfx9 (gfx90a, gfx942) is wave64 only
/// (AMDGPUUsage.rst, "Processors": the wavefrontsize64 feature).
pub fn wave_size_arg(target: &str, wave: u32) -> Option<&'static str> {
    (wave == 64 && target.starts_with("gfx1")).then_some("-mwavefrontsize64")
}
