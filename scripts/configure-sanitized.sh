#!/usr/bin/env bash
# Configures one of the sanitized builds, the same way for every script that uses it:
#
#   scripts/configure-sanitized.sh asan|tsan BUILD_DIR [cmake arguments...]
#
#   asan  clang, AddressSanitizer + LeakSanitizer + UndefinedBehaviorSanitizer, and the
#         libFuzzer targets of tests/fuzz: scripts/sanitize.sh runs its tests, scripts/fuzz.sh
#         its fuzz targets, from the same objects (docs/ci.md).
#   tsan  gcc, ThreadSanitizer, without the Python module (scripts/sanitize.sh runs the tests of
#         the threaded modules against a oneTBB built with TSan).
#
# Both at -O1 (what the sanitizers recommend: the tests run at a useful speed, the build is
# quicker than -O2) with line tables only (-g1: all a report's stack needs, at a fraction of
# -g's compile time) and assertions on; without nvcc (the sanitizers follow no GPU code: the
# GPU stage's files, kernels included, run under them on the CUDA emulation,
# tests/support/cuda_emulation/, label gpu-emulated) and without the benchmarks. The configure
# log is BUILD_DIR/configure.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:?usage: $0 asan|tsan BUILD_DIR [cmake arguments...]}
dir=${2:?usage: $0 asan|tsan BUILD_DIR [cmake arguments...]}
shift 2
case $kind in
  asan) kind_args=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                   -DH5FEED_SANITIZE=address,undefined -DH5FEED_BUILD_FUZZERS=ON
                   "-DCMAKE_CXX_FLAGS=-fno-sanitize-recover=all"
                   "-DCMAKE_C_FLAGS=-fno-sanitize-recover=all") ;;
  tsan) kind_args=(-DH5FEED_SANITIZE=thread -DH5FEED_BUILD_PYTHON=OFF) ;;
  *) echo "usage: $0 asan|tsan BUILD_DIR [cmake arguments...]" >&2; exit 2 ;;
esac
mkdir -p "$dir"
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DH5FEED_WITH_CUDA=OFF -DH5FEED_BUILD_BENCH=OFF "${kind_args[@]}" "$@" > "$dir/configure.log" || {
  cat "$dir/configure.log" >&2
  exit 1
}
