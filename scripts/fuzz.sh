#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz in the AddressSanitizer build (build-asan/, clang,
# ASan and UBSan on everything: scripts/configure-sanitized.sh asan; scripts/sanitize.sh builds
# the same objects for its tests, so after it only the targets' links are left) and runs each
# for a bounded time from its seed corpus and its regression inputs. Fails when any target finds
# anything; the input that did it is left in build-asan/findings/<target>/ (docs/fuzzing.md
# says what to do with it). New coverage found on the way is kept in
# build-asan/grown-corpus/<target>/, never written into the source tree.
#
#   bash scripts/fuzz.sh [TARGET...]           every target when none is named
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh png_decoder    a longer run of one target
#
# Defaults keep the whole run (build included) to about 5 minutes on 2 cores: 10 s per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-10}
build=${FUZZ_BUILD_DIR:-build-asan}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(open_file zstd_codec deflate_codec filter_pipeline jpeg_decoder jpeg_region png_decoder
           webp_decoder opencv_decoder npy_header cifar_records)
fi

bash scripts/configure-sanitized.sh asan "$build"
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/%/_fuzzer}"

# A finding stops the target at once with its stack; leaks count as findings. An allocation
# too large to satisfy returns null as it does outside ASan (HDF5 checks for that; our own code
# allocating what a file claims still fails, with std::bad_alloc escaping the target).
# verify_asan_link_order=0: the targets use the build's shared ASan runtime (the OpenCV codecs
# module they load needs the same one, cmake/H5feedWarnings.cmake), and libFuzzer's link puts
# libstdc++ ahead of it in their library list; the runtime starts at the first allocation all
# the same, so the check that it comes first is off.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Leaks inside libhdf5 itself on malformed files are HDF5's (tests/fuzz/lsan_hdf5.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan_hdf5.supp}
# Whether the finding logged in $1 happened inside libhdf5 itself: the innermost frame of its
# stack that is not the sanitizers' (the shared runtime's frames, libclang_rt, have no names),
# libFuzzer's, libc's or an allocator's lies in libhdf5.
# HDF5 1.10.8 is not ours to fix (docs/fuzzing.md, "Findings in HDF5 itself"): such a finding
# is printed and kept, to be recorded there, but does not fail the run.
inside_hdf5() {
  awk '/ERROR: / { stack = 1; next }
       stack && /^ *#[0-9]+ / {
         if ($0 ~ /__sanitizer|__asan|__interceptor|libclang_rt|fuzzer::|libc\.so|sysdeps\/|in (malloc|calloc|realloc|free|operator new)/) next
         found = ($0 ~ /libhdf5/); exit
       }
       END { exit !found }' "$1"
}

# fuzz_one TARGET: runs TARGET for $seconds, logging to $build/findings/TARGET.log, and writes
# how it went to $build/findings/TARGET.status: 0 no finding, 1 a finding inside libhdf5,
# 2 a finding of ours.
fuzz_one() {
  local target=$1
  local findings="$build/findings/$target" grown="$build/grown-corpus/$target"
  mkdir -p "$findings" "$grown"
  local inputs=("$grown" "tests/fuzz/corpus/$target")
  [ -d "tests/fuzz/regressions/$target" ] && inputs+=("tests/fuzz/regressions/$target")
  local log="$build/findings/$target.log"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2.5 GiB is an out-of-memory
  # finding (a hostile header must not make us allocate what it claims).
  if "$build/tests/fuzz/${target}_fuzzer" "${inputs[@]}" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2560 -artifact_prefix="$findings/" -print_final_stats=1 \
      >"$log" 2>&1; then
    echo 0 > "$findings.status"
  elif inside_hdf5 "$log"; then
    echo 1 > "$findings.status"
  else
    echo 2 > "$findings.status"
  fi
}

# libFuzzer runs one process on one core: the targets run side by side, one per core, and are
# reported in order once all have run.
echo "== fuzz ${targets[*]}: ${seconds}s each, $(nproc) at a time"
for target in "${targets[@]}"; do
  rm -f "$build/findings/$target.status"
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait
failed=()
hdf5_findings=()
for target in "${targets[@]}"; do
  status=$(cat "$build/findings/$target.status" 2>/dev/null || echo 2)
  log="$build/findings/$target.log"
  findings="$build/findings/$target"
  echo "== fuzz $target"
  case $status in
    0) grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ *DONE" "$log" | tr '\n' ' ' || true
       echo ;;
    1) hdf5_findings+=("$target")
       grep -m 12 -E "ERROR: |^ *#[0-9]+ " "$log"
       echo "!! fuzz $target: a finding inside libhdf5 itself (not failing the run); input in" \
            "$findings/, full log $log; record it in docs/fuzzing.md" ;;
    *) failed+=("$target")
       tail -n 60 "$log"
       echo "!! fuzz $target found a problem: input in $findings/, full log $log" ;;
  esac
done
if [ ${#hdf5_findings[@]} -gt 0 ]; then
  echo "fuzz: findings inside libhdf5 in ${hdf5_findings[*]} (see above)"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no findings"
