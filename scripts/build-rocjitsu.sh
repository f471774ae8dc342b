#!/usr/bin/env bash
# Builds AMD's GPU emulator rocjitsu into a directory that DSXOR_ROCJITSU can
# name (tests/it's rocjitsu tests, docs/src/gpu/without-a-gpu.md):
#
#   scripts/build-rocjitsu.sh INPUTS OUT
#
# INPUTS holds what the build needs and nothing of dsxor's own:
#   rocjitsu-src.tgz     upstream ROCm/rocm-systems `emulation/rocjitsu` at
#                        commit 96b8d0f2 (the tree's top: CMakeLists.txt, lib/,
#                        configs/, ...)
#   flatbuffers-src.tgz  flatbuffers v24.3.25 (top folder `flatbuffers/`)
#   shim.tgz             top folder `shim/`: `<format>` mapped onto {fmt}
#                        (Debian 12's libstdc++ 12 lacks it) and libstdc++'s
#                        experimental/simd with one constexpr relaxed for clang
#   simulated_kfd-legacy-create-queue.patch
#                        the one fix: accept the 88-byte CREATE_QUEUE ioctl of
#                        ROCm <= 5.x thunks (upstream answers it with a silent
#                        success, so a ROCm 5 runtime's queues never map)
# OUT receives librocjitsu.so.xz and gfx1100_w7900.json (upstream's W7900
# configuration) beside a copy of scripts/rocjitsu-run-hip.sh as run-hip.sh:
# the three files DSXOR_ROCJITSU=OUT must hold.
#
# Needs (Debian 12): clang-22 cmake ninja-build libdrm-dev libfmt-dev
# googletest xz-utils. At -O0 (upstream's Release flags made unoptimised, as
# the shipped build is) the build takes about 45 minutes on 2 cores.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 INPUTS OUT" >&2; exit 2; }
inputs=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
for f in rocjitsu-src.tgz flatbuffers-src.tgz shim.tgz simulated_kfd-legacy-create-queue.patch; do
  [ -s "$inputs/$f" ] || { echo "$0: $inputs/$f is missing" >&2; exit 2; }
done
for t in clang-22 clang++-22 cmake ninja xz patch; do
  command -v "$t" >/dev/null || { echo "$0: $t is not installed" >&2; exit 3; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
tar xzf "$inputs/rocjitsu-src.tgz" -C "$work/src"
tar xzf "$inputs/flatbuffers-src.tgz" -C "$work"
tar xzf "$inputs/shim.tgz" -C "$work"
# The patch names the file by its path inside ROCm/rocm-systems.
patch --no-backup-if-mismatch \
  "$work/src/lib/rocjitsu/src/rocjitsu/kmd/linux/simulated_kfd.cpp" \
  < "$inputs/simulated_kfd-legacy-create-queue.patch"

cmake -S "$work/src" -B "$work/build" -G Ninja \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS="-isystem $work/shim -Wno-deprecated-declarations" \
  -DBUILD_TESTING=OFF \
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest \
  -DFETCHCONTENT_SOURCE_DIR_FLATBUFFERS="$work/flatbuffers"
if [ "${DSXOR_ROCJITSU_CONFIGURE_ONLY:-}" = 1 ]; then
  echo "configured in $work/build (DSXOR_ROCJITSU_CONFIGURE_ONLY=1: not built)"
  exit 0
fi
ninja -C "$work/build" -j"$(nproc)" rocjitsu_shared

lib=$(find "$work/build" -name 'librocjitsu*.so*' -type f | head -n 1)
[ -n "$lib" ] || { echo "$0: the build made no librocjitsu shared library" >&2; exit 3; }
xz -c "$lib" > "$out/librocjitsu.so.xz"
cp "$work/src/configs/gfx1100_w7900.json" "$out/gfx1100_w7900.json"
cp "$here/rocjitsu-run-hip.sh" "$out/run-hip.sh"
chmod +x "$out/run-hip.sh"
echo "DSXOR_ROCJITSU=$out"
