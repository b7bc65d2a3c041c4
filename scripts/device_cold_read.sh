#!/usr/bin/env bash
# Issue 40's cold-read figures on a machine with many cores, such as the GPU machine (16), run
# inside a gpu-bundle made by scripts/gpu_check.sh (which bundles h5feed and cold_read_costs).
# On the project's 2-core VM a cold zstd:3 epoch shares both cores with the kernel's filling
# of the page cache (docs/reader.md, "Reading from the disk"); with cores to spare, the reader
# is measured against the disk itself. Runs bench/cold_read_bench.py twice on CelebA-shaped
# files of 1.3 GB generated in WORKDIR (which must be on a disk, not tmpfs: dropping a file
# from the page cache must send its reads to the device):
#   1. --threads 2, every case (raw and zstd:3, chunks:8 and quasi:8, default and --direct,
#      four processes at once, cold_read_costs): cold_read_device.md;
#   2. --threads 8, zstd:3 alone (the decompression with the cores it would have on a node):
#      cold_read_device_t8.md.
# Both land in $OUT (or ./gpu-out); copy them into bench/results/cold_read.md with the machine
# named. Needs a Python with numpy (to generate the images) and dd.
#
# Usage: bash scripts/device_cold_read.sh BUNDLE_DIR [WORKDIR]   (from the repository root;
#        PAIRS=n, default 5; PYTHON=interpreter, default python3)
set -euo pipefail
bundle=${1:?usage: device_cold_read.sh BUNDLE_DIR [WORKDIR]}
workdir=${2:-$PWD/cold-read-work}
out=${OUT:-$PWD/gpu-out}
pairs=${PAIRS:-5}
python=${PYTHON:-python3}
mkdir -p "$out" "$workdir"
# shellcheck source=/dev/null
source "$bundle/env.sh"
h5feed=$(command -v h5feed) || { echo "device_cold_read: no h5feed in $bundle/bin" >&2; exit 1; }
if [[ $(stat -f -c %T "$workdir") == tmpfs ]]; then
  echo "device_cold_read: $workdir is on tmpfs; give a WORKDIR on a disk" >&2
  exit 1
fi
"$python" -c 'import numpy' 2>/dev/null ||
  { echo "device_cold_read: $python has no numpy, which generates the images" >&2; exit 1; }
echo "device_cold_read: $(nproc) cores"
"$python" bench/cold_read_bench.py --h5feed "$h5feed" --workdir "$workdir" --pairs "$pairs" \
  --threads 2 --output "$out/cold_read_device.md"
"$python" bench/cold_read_bench.py --h5feed "$h5feed" --workdir "$workdir" --pairs "$pairs" \
  --threads 8 --compressions zstd:3 --ranks 0 --costs-mb 0 --output "$out/cold_read_device_t8.md"
