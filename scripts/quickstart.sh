#!/usr/bin/env bash
# From a fresh clone on Debian bookworm: installs the dependencies, builds h5feed, generates a
# sample image folder, converts it to HDF5, shows what was written, and reads it back in
# shuffled batches with the loader, printing what it delivered.
#
#   bash scripts/quickstart.sh [IMAGES]    (default 2000 images; work in ./quickstart/)
set -euo pipefail
cd "$(dirname "$0")/.."
images=${1:-2000}

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# What this script runs, and no more: the command, the Python module, the zstd plugin and the
# helpers they start (the wheel's files). The tests, benchmarks and examples are
# scripts/test.sh's to build.
cmake --build build -j"$(nproc)" --target h5feed_wheel_files

mkdir -p quickstart
if [ ! -d quickstart/photos ]; then
  /usr/bin/python3 tests/data/make_image_folder.py quickstart/photos --images "$images" \
    --classes 10 --min-size 50 --max-size 400 --formats jpeg,png --seed 0
fi
echo
echo "== h5feed convert imagefolder quickstart/photos quickstart/train.h5 --size 224x224 --force"
build/tools/h5feed convert imagefolder quickstart/photos quickstart/train.h5 --size 224x224 --force
echo
echo "== h5feed inspect quickstart/train.h5"
build/tools/h5feed inspect quickstart/train.h5
echo
echo "== h5feed bench quickstart/train.h5 --min-seconds 1   (the loader: shuffled uint8 batches, epochs for a second)"
build/tools/h5feed bench quickstart/train.h5 --min-seconds 1 --batch 64
echo
echo "== h5py reads it (zstd through h5feed's HDF5 plugin)"
HDF5_PLUGIN_PATH=build/plugins /usr/bin/python3 -c "
import h5py
f = h5py.File('quickstart/train.h5')
print('images', f['images'].shape, f['images'].dtype, 'chunks', f['images'].chunks)
print('first image: label', int(f['labels'][0]), 'class', f['classes'][f['labels'][0]].decode(),
      'from', f['sources'][0].decode(), 'pixel sum', int(f['images'][0].sum()))"
echo
echo "== each photo at its own size, as JPEG: h5feed convert imagefolder quickstart/photos quickstart/own.h5 --encoding jpeg:90"
build/tools/h5feed convert imagefolder quickstart/photos quickstart/own.h5 --encoding jpeg:90 --force
echo
echo "== h5feed bench quickstart/own.h5 --augment rrc=224,flip   (RandomResizedCrop boxes from each image's own size)"
build/tools/h5feed bench quickstart/own.h5 --augment rrc=224,flip --min-seconds 1 --batch 64
echo
echo "== h5feed verify quickstart/train.h5   (every chunk against its checksum)"
build/tools/h5feed verify quickstart/train.h5
echo
echo "== import h5feed: one epoch as normalized float32 torch tensors"
PYTHONPATH=build/python /usr/bin/python3 -c "
import time, h5feed
loader = h5feed.Loader('quickstart/train.h5', batch_size=64, seed=0)
start, images = time.perf_counter(), 0
for x, y in loader:
    images += len(y)
seconds = time.perf_counter() - start
print(f'{len(loader)} batches of {tuple(x.shape[1:])} {x.dtype}: {images} images in {seconds:.2f} s'
      f' ({images / seconds:,.0f} images/s), mean {x.mean():.3f}, labels {y[:8].tolist()}...')"
