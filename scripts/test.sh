#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and integration) with ctest.
# GPU tests are labelled 'gpu' and skip themselves without a device; the same tests run on the
# CUDA emulation everywhere, labelled 'gpu-emulated' (docs/gpu.md).
#
#   bash scripts/test.sh [ctest arguments...]    e.g. -L unit, -R convert
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
