#!/usr/bin/env sh
# Regenerate kernels/prebuilt/ (objects + manifest.json) from kernels/dsxor.hip.
# build.rs does the compiling, with the same flags as every normal build, so
# the prebuilt objects can never be made differently from the embedded ones.
# Needs a clang with the AMDGPU target (DSXOR_CLANG=/path/to/clang to choose).
set -eu
cd "$(dirname "$0")/.."
DSXOR_REGENERATE_PREBUILT=1 cargo build --lib
git status --short kernels/prebuilt || true
