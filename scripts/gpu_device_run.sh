#!/usr/bin/env bash
# Runs on the GPU machine, inside a gpu-bundle made by scripts/gpu_check.sh: the gpu-labelled
# tests, compute-sanitizer memcheck, racecheck and synccheck over them, and gpu_bench. Logs go
# to $OUT (or ./gpu-out): tests.log, sanitizer.log, gpu.md. Exit status: 0 only when every test
# passed, every sanitizer run was clean and the benchmark completed.
#
# Usage: bash scripts/gpu_device_run.sh BUNDLE_DIR
set -uo pipefail
bundle=${1:?usage: gpu_device_run.sh BUNDLE_DIR}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck source=/dev/null
source "$bundle/env.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
tests=(gpu_normalize_test gpu_stage_test gpu_loader_test gpu_fields_test gpu_geometric_fields_test)
status=0

echo "== tests" | tee "$out/tests.log"
for test in "${tests[@]}"; do
  "$test" >>"$out/tests.log" 2>&1
  rc=$?
  echo "$test: exit $rc" | tee -a "$out/tests.log"
  # 77 means skipped (no device): on a GPU machine that is a failure too.
  [[ $rc -eq 0 ]] || status=1
done

sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "== compute-sanitizer (${sanitizer:-not found})" | tee "$out/sanitizer.log"
if [[ -z $sanitizer ]]; then
  echo "compute-sanitizer is not installed on this machine: sanitizer checks NOT run" | tee -a "$out/sanitizer.log"
  status=1
else
  for tool in memcheck racecheck synccheck; do
    for test in "${tests[@]}"; do
      # Under instrumentation: fewer stress batches, and the 2^32-float conversion sweep left
      # out (it runs above uninstrumented; it has no shared memory and no synchronisation).
      H5FEED_GPU_TEST_QUICK=1 "$sanitizer" --tool "$tool" --error-exitcode 99 \
        "$(command -v "$test")" --test-case-exclude='*CUDA*conversions*' >>"$out/sanitizer.log" 2>&1
      rc=$?
      echo "$tool $test: exit $rc" | tee -a "$out/sanitizer.log"
      [[ $rc -eq 0 ]] || status=1
    done
  done
fi

echo "== gpu_bench"
if gpu_bench --workdir "${TMPDIR:-/tmp}/h5feed-gpu-bench" >"$out/gpu.md" 2>"$out/gpu_bench.err"; then
  cat "$out/gpu.md"
else
  echo "gpu_bench failed:"; cat "$out/gpu_bench.err"; status=1
fi
echo "== overall: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit $status
