//! dsxor's integration tests: one test binary (`cargo test --release`
//! builds and links it once; 49 binaries each linked the library and its
//! dependencies again). One module per capability; the name says what the
//! tests run on, so `cargo test --release --test it PREFIX` runs one kind:
//!
//! - `emu_*`: the software device (`src/emu`), in this process or through
//!   `dsxor --backend emu`;
//! - `gpu_*`: the software HIP runtime (`hipsim/`, `libdsxor_hipsim.so`),
//!   or a real AMD GPU where `gpu_hip_backend` finds one;
//! - `rocm_*`: the installed ROCm HIP library and headers (libamdhip64);
//! - `rocjitsu`: AMD's GPU emulator (`DSXOR_ROCJITSU=DIR`);
//! - `host_*`: host code alone (the model, checker, readers, reports,
//!   `dsxor asm`), no device;
//! - `repo_*`: the repository's own files (ARCHITECTURE.md, the book, the CI
//!   recipes, the committed JSON Schemas).
//!
//! A name ending in `_llvm` needs the LLVM tools (`llvm-mc`, `llvm-objdump`,
//! `llvm-readelf` or `clang`, found by `common`): skipped without them,
//! mandatory under `DSXOR_REQUIRE_TOOLS=1`.
//!
//! One binary means one process for every test: nothing here may change
//! process-global state. No test calls `std::env::set_var` (the library
//! takes the HIP library's path as a parameter, `Hip::load_from`); the HIP
//! simulator, which reads its `DSXOR_HIPSIM_*` configuration once per
//! process, is configured only in child processes (`gpu_hipsim_api`'s
//! `child`, the `dsxor` binary).

// Support, no tests: finding the tools and running `dsxor` (`common`),
// one wave of the software device (`emu_support`), bench records and
// devices (`bench_support`), the LLVM tools' view of a code object
// (`codeobj_support`), and clang's device-compile line, shared with build.rs.
mod bench_support;
mod codeobj_support;
mod common;
mod emu_stress;
mod emu_support;
#[path = "../../build/hip_device.rs"]
mod hip_device;

mod emu_backend;
mod emu_bench_cli;
mod emu_ci_outputs;
mod emu_decode_llvm;
mod emu_ds_atomics_llvm;
mod emu_exec_llvm;
mod emu_fault_sensitivity;
mod emu_fuzz_readers;
mod emu_hazards_llvm;
mod emu_hostile_flags;
mod emu_hostile_inputs;
mod emu_hostile_mutant;
mod emu_hostile_outputs;
mod emu_hostile_signals;
mod emu_modes_shapes_llvm;
mod emu_qualify;
mod emu_run_cli;
mod emu_run_device;
mod emu_run_exit_paths;
mod emu_run_faults;
mod emu_run_shard_env;
mod emu_soak;
mod emu_user_builds_llvm;
mod emu_vext_llvm;
mod emu_wave64_halves;
mod emu_wmma_llvm;
mod gpu_bench_workers;
mod gpu_cli;
mod gpu_fleet;
mod gpu_hip_backend;
mod gpu_hipsim_api;
mod gpu_hostile_exit_codes;
mod gpu_launch_llvm;
mod gpu_probe_inflight;
mod gpu_probe_leftover_lds;
mod gpu_probe_vdst_range;
mod gpu_probe_waits;
mod gpu_qualify_workers;
mod gpu_run;
mod gpu_slurm;
mod gpu_soak;
mod gpu_stress;
mod gpu_worker_wire;
mod host_bench_run;
mod host_calc_ds_addr_llvm;
mod host_check_observation_file;
mod host_check_verdicts;
mod host_codeobj_llvm;
mod host_codeobj_malformed;
mod host_isa_cli;
mod host_isa_llvm;
mod host_kernels_llvm;
mod host_model_properties;
mod host_packaging;
mod host_report_cli;
mod host_report_conformance;
mod host_report_markdown;
mod host_report_svg;
mod host_run_pipeline;
mod host_slurm_healthcheck;
mod repo_architecture;
mod repo_ci_recipes;
mod repo_ci_vendor_schemas;
mod repo_docs_commands;
mod repo_docs_links;
mod repo_schemas;
mod rocjitsu;
mod rocm_hip_backend;
mod rocm_hip_bindings;
mod rocm_hip_runtime;
