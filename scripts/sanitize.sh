#!/usr/bin/env bash
# Runs the tests under the sanitizers, each in its own build directory (CI runs it after
# scripts/test.sh; docs/sanitizers.md says what each part covers and costs):
#
#   scripts/sanitize.sh [asan|tsan|all] [--build-prefix PREFIX]     (default: all, build)
#
#   asan  PREFIX-asan: every unit and integration test under AddressSanitizer, LeakSanitizer
#         and UndefinedBehaviorSanitizer.
#   tsan  PREFIX-tsan: the tests of the threaded modules (io, memory, cache, index, source,
#         pipeline, loader) and the GPU stage on the CUDA emulation (cuda) under
#         ThreadSanitizer, against a oneTBB built with TSan (scripts/tsan-onetbb.sh).
#
# Any report fails the run: ASan and TSan stop at the first one (halt_on_error), UBSan too
# (-fno-sanitize-recover=all), LSan reports leaks at exit. Each part prints its wall time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

parts=all
prefix=build
while [[ $# -gt 0 ]]; do
  case "$1" in
    asan|tsan|all) parts=$1 ;;
    --build-prefix) prefix=${2:?--build-prefix needs a value}; shift ;;
    *) echo "usage: $0 [asan|tsan|all] [--build-prefix PREFIX]" >&2; exit 2 ;;
  esac
  shift
done
jobs=$(nproc)

run_asan() {
  local dir=$root/$prefix-asan start=$SECONDS
  bash "$root/scripts/configure-sanitized.sh" asan "$dir" || return 1
  # Everything, the fuzz targets included: scripts/fuzz.sh, next in CI, runs them from here.
  cmake --build "$dir" -j"$jobs" || return 1
  # abort_on_error: a report ends the process with SIGABRT, never with exit code 1, which the
  # tests of error paths expect from h5feed itself and would take for a pass.
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  # Python is not instrumented: pytest and h5py run plain, the h5feed programs they start are
  # instrumented and inherit the options above. The zstd plugin is never instrumented
  # (lib/codec/CMakeLists.txt), so h5py loads it as in a plain build.
  # Left to scripts/test.sh's plain run (docs/sanitizers.md, "What runs plain only"): the
  # example trainings, packaging, and the tests labelled plain_only, whose subject is a front
  # end or a process's fate over library code that the tests run here reach too.
  local plain_only='^(example|packaging|plain_only)$'
  local python_tests="" failed=0
  if [[ -d "$dir/tests/python" ]]; then
    python_tests=$(ctest --test-dir "$dir/tests/python" -N | sed -nE 's/^ *Test +#[0-9]+: //p' |
                   paste -sd'|')
  fi
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE "$plain_only" \
    ${python_tests:+-E "^($python_tests)\$"} || failed=1
  # The Python module's tests import the instrumented extension into that plain Python: the
  # ASan runtime must then be loaded first (LD_PRELOAD), with libstdc++ (Python does not link
  # it, and ASan must find its __cxa_throw at start-up to intercept exceptions); leaks are not
  # checked (CPython and torch keep their allocations at exit by design; the pass above checks
  # the C++ side's).
  if [[ -n "$python_tests" ]]; then
    local compiler preload
    compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
    preload="$("$compiler" -print-file-name=libclang_rt.asan-x86_64.so)"
    preload+=" $("$compiler" -print-file-name=libstdc++.so)"
    LD_PRELOAD="$preload" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
      ctest --test-dir "$dir/tests/python" --output-on-failure -j"$jobs" -LE "$plain_only" ||
      failed=1
  fi
  echo "sanitize: asan part took $((SECONDS - start)) s"
  return $failed
}

run_tsan() {
  local dir=$root/$prefix-tsan start=$SECONDS
  mkdir -p "$dir"
  local tbb_lib
  tbb_lib=$(bash "$root/scripts/tsan-onetbb.sh" "$dir" 2> "$dir/onetbb.log") || {
    cat "$dir/onetbb.log" >&2
    return 1
  }
  echo "sanitize: oneTBB with TSan in $tbb_lib ($((SECONDS - start)) s)"
  bash "$root/scripts/configure-sanitized.sh" tsan "$dir" || return 1
  # Only the tests of the modules that run threads (a local file's reading threads, the
  # cache's prefetch, the TBB batch assembly, the chunk sources, the loader, verify's parallel
  # chunk checks, the GPU stage's streams and kernels on the CUDA emulation): their folders'
  # `all` targets.
  local folders=(tests/lib/io tests/lib/memory tests/lib/cache tests/lib/index tests/lib/source
                 tests/lib/pipeline tests/lib/loader tests/lib/cuda)
  cmake --build "$dir" -j"$jobs" --target "${folders[@]/%//all}" h5feed_zstd_plugin || return 1
  # Left to the plain and ASan runs, for CI's time (docs/gpu.md, "The CUDA emulation"): the
  # kernels' bit-for-bit cases on the emulation (about 26 s of CPU here). They catch a missing
  # __syncthreads by its wrong values; here gpu_loader_test runs both kernels, where one is a
  # race, and gpu_stage_test and gpu_loader_test every event wait. And own_size_sample_test,
  # one thread's decode and resize of own-size samples (75 s under TSan, no thread to watch).
  local skip='^(gpu_normalize_test_emulated|own_size_sample_test)$'
  local folder failed=0
  for folder in "${folders[@]}"; do
    LD_LIBRARY_PATH="$tbb_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
      ctest --test-dir "$dir/$folder" --output-on-failure -j"$jobs" -E "$skip" || failed=1
  done
  echo "sanitize: tsan part took $((SECONDS - start)) s"
  return $failed
}

case $parts in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) status=0; run_asan || status=1; run_tsan || status=1; exit $status ;;
esac
