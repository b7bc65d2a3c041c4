#!/usr/bin/env bash
# Runs the pipeline's concurrency tests (memory/, pipeline/, loader/) under ThreadSanitizer.
#
#   tests/lib/pipeline/run_tsan.sh [WORK_DIR]     (default WORK_DIR: ./build-tsan-pipeline)
#
# Why the extra steps: Debian's libtbb is not instrumented, so TSan cannot see the
# happens-before edges of TBB's own task hand-offs and reports hundreds of races inside
# tbb::parallel_for itself (blocked_range, its small-object pool), whatever the caller does.
# So this script builds oneTBB 2021.8 (Debian's source package, the same version and ABI) with
# TBB_SANITIZE=thread and runs the tests against it through LD_LIBRARY_PATH. The h5py
# subprocesses of the loader tests read zstd through a plugin built without sanitizer (an
# instrumented plugin cannot be dlopen'ed by an uninstrumented Python).
# Needs: the Debian archive the machine installs from (apt-get source), about 10 minutes on
# 2 cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(realpath -m "${1:-$root/build-tsan-pipeline}")
mkdir -p "$work"
tests=(slot_pool_test host_allocator_test normalize_test cpu_normalize_test slot_layout_test
       echo_test epoch_plan_test batch_gatherer_test batch_assembler_test
       loader_contents_test loader_order_test loader_errors_test)

# 1. oneTBB from Debian's source package, instrumented.
tbb_lib="$work/tbb-build/gnu_12.2_cxx11_64_relwithdebinfo"
if [[ ! -e "$tbb_lib/libtbb.so.12" ]]; then
  apt_dir="$work/apt"
  mkdir -p "$apt_dir/lists/partial" "$work/src"
  # The machine's own Debian archive, asked for sources instead of binaries (deb822 format).
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
    > "$apt_dir/debian-src.sources"
  apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir"
            -o "Dir::State::Lists=$apt_dir/lists")
  apt-get "${apt_opts[@]}" update
  (cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only onetbb=2021.8.0-2+deb12u1 &&
     tar xf onetbb_2021.8.0.orig.tar.xz)
  cmake -S "$work/src/oneTBB-2021.8.0" -B "$work/tbb-build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBB_SANITIZE=thread -DTBB_TEST=OFF \
    -DTBBMALLOC_BUILD=OFF -DTBB_STRICT=OFF -DTBB_ENABLE_IPO=OFF
  cmake --build "$work/tbb-build" -j2
fi

# 2. The zstd plugin without sanitizer, for h5py.
cmake -S "$root" -B "$work/plain" -G Ninja -DCMAKE_BUILD_TYPE=Release -DH5FEED_WITH_CUDA=OFF \
  -DH5FEED_BUILD_TESTS=OFF -DH5FEED_BUILD_TOOLS=OFF -DH5FEED_BUILD_BENCH=OFF \
  -DH5FEED_BUILD_EXAMPLES=OFF > /dev/null
cmake --build "$work/plain" -j2 --target h5feed_zstd_plugin

# 3. h5feed and the tests with -fsanitize=thread.
cmake -S "$root" -B "$work/tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DH5FEED_SANITIZE=thread -DH5FEED_WITH_CUDA=OFF > /dev/null
cmake --build "$work/tsan" -j2 --target "${tests[@]}"

# 4. Run them; any TSan report fails the run (halt_on_error keeps the first report readable).
export LD_LIBRARY_PATH="$tbb_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HDF5_PLUGIN_PATH="$work/plain/plugins"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
failed=0
for test in "${tests[@]}"; do
  binary=$(find "$work/tsan/tests" -type f -name "$test" | head -1)
  if "$binary" > "$work/$test.log" 2>&1; then
    echo "tsan: $test passed"
  else
    echo "tsan: $test FAILED (see $work/$test.log)"
    failed=$((failed + 1))
  fi
done
echo "$(( ${#tests[@]} - failed )) passed, $failed failed"
[[ $failed -eq 0 ]]
