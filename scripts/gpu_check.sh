#!/usr/bin/env bash
# Prepares the GPU checks of the CUDA stage (docs/gpu.md) on a development machine, which has
# nvcc but no GPU, and prints the one command that runs them all on a GPU machine (the same
# test files that every build runs on the CUDA emulation, label gpu-emulated, here at their
# full sizes on the device):
#   1. builds the GPU tests and the GPU benchmark for Hopper (sm_90) in build-gpu/;
#   2. bundles them with every shared library they need ($GPU_BUNDLER: the GPU runner's
#      script, called as `$GPU_BUNDLER DIR EXECUTABLE...`) and the zstd HDF5 plugin into
#      gpu-bundle/ (git-ignored), which travels to the GPU machine;
#   3. prints the device command: scripts/gpu_device_run.sh there runs the gpu-labelled tests,
#      compute-sanitizer memcheck, racecheck and synccheck over them, and gpu_bench, and leaves
#      the logs and bench/results/gpu.md's text in $OUT.
#
# Usage: GPU_BUNDLER=path/to/bundle.sh scripts/gpu_check.sh
#        (BUILD=dir to reuse another CUDA build; JOBS=n)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build-gpu}
bundle=$root/gpu-bundle
# The GPU tests, by their folder under tests/lib/ (the target is the file name).
tests=(cuda/gpu_normalize_test cuda/gpu_stage_test loader/gpu_loader_test loader/gpu_fields_test
  loader/gpu_geometric_fields_test)

bundler=${GPU_BUNDLER:-}
if [[ -z $bundler || ! -x $bundler ]]; then
  echo "gpu_check: set GPU_BUNDLER to the GPU runner's bundling script (called as" \
       "\$GPU_BUNDLER DIR EXECUTABLE...; it copies them with the shared libraries they need)" >&2
  exit 2
fi
if [[ ! -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  echo "gpu_check: nvcc not found (CUDA toolkit at /usr/local/cuda); the GPU stage cannot be built" >&2
  exit 1
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DH5FEED_BUILD_PYTHON=OFF >/dev/null
if [[ ! -f $build/tests/lib/cuda/CTestTestfile.cmake ]]; then
  echo "gpu_check: $build was configured without CUDA" >&2
  exit 1
fi
cmake --build "$build" -j"${JOBS:-2}" --target "${tests[@]##*/}" gpu_bench h5feed_zstd_plugin \
  h5feed_cli cold_read_costs

rm -rf "$bundle"
executables=()
for test in "${tests[@]}"; do executables+=("$build/tests/lib/$test"); done
"$bundler" "$bundle" "${executables[@]}" "$build/bench/gpu_bench" "$build/tools/h5feed" \
  "$build/bench/cold_read_costs"
cp "$build"/plugins/*.so "$bundle/plugins/"
# Where bench/cold_read_bench.py looks for it: beside h5feed's folder.
mkdir -p "$bundle/bench"
mv "$bundle/bin/cold_read_costs" "$bundle/bench/"
grep -qx '/gpu-bundle/' "$root/.gitignore" 2>/dev/null ||
  echo "gpu_check: warning: gpu-bundle/ is not in .gitignore; add it before carrying it" >&2

cat <<'HOWTO'

Everything runs on the GPU machine in one device call (tests, compute-sanitizer memcheck,
racecheck and synccheck, gpu_bench):

    run(command="bash scripts/gpu_device_run.sh gpu-bundle", carry=["gpu-bundle"], timeout_s=600)

(by hand on a GPU machine: bash scripts/gpu_device_run.sh gpu-bundle, from the repository
root). $OUT gets tests.log, sanitizer.log and gpu.md; copy gpu.md to bench/results/gpu.md
(it names the GPU).

The same bundle measures reading from the disk with the machine's many cores (issue 40;
about 5 minutes, a call of its own):

    run(command="bash scripts/device_cold_read.sh gpu-bundle", carry=["gpu-bundle"], timeout_s=600)
HOWTO
