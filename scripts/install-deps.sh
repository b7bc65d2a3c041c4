#!/usr/bin/env bash
# Installs every Debian bookworm package h5feed needs to build, test and benchmark.
# Idempotent; run as root (or through sudo). CUDA is not installed here: the build uses
# /usr/local/cuda when nvcc is there and builds the CPU path only otherwise.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
packages=(
  build-essential cmake ninja-build pkg-config
  libhdf5-dev hdf5-tools            # HDF5 C and C++ API, h5dump
  libtbb-dev                        # oneTBB
  libzstd-dev zlib1g-dev            # chunk codecs
  doctest-dev                       # unit tests
  libturbojpeg0-dev libspng-dev libwebp-dev   # JPEG, PNG, WebP decoding
  libjpeg62-turbo-dev               # libjpeg's API: stored JPEGs decoded in part (lib/decode)
  libopencv-imgproc-dev libopencv-imgcodecs-dev  # resize; BMP, PNM and TIFF decoding
  libxxhash-dev                     # per-chunk and per-image checksums (XXH3-64)
  liburing-dev                      # bench/cold_read_costs' io_uring lines (the library does not use it)
  libcli11-dev nlohmann-json3-dev   # command line, --json output
  libfmt-dev                        # messages and byte sizes (lib/make_error.h, byte_size.h)
  libcurl4-openssl-dev              # remote files: http(s):// and s3:// (SigV4), lib/remote
  nginx-light curl openssl          # remote-reading tests (a web server on the loopback, https:// with a certificate openssl makes) and bench
  python3-h5py python3-numpy python3-pil python3-pytest  # interoperability tests, reference converter
  python3-xxhash                    # an independent XXH3 checks the stored checksums
  python3-zstandard                 # h5py tests decompress own-size masks (docs/format.md)
  python3-torch                     # reference loaders (PyTorch DataLoader over h5py), bench/
  python3-torchvision               # the resize and crop tests' reference, examples, bench/
  python3-dev pybind11-dev          # the Python module (import h5feed)
  python3-venv python3-pip python3-setuptools python3-wheel  # pip install . (pyproject.toml)
  gnuplot-nox                       # h5feed bench sweep's plots
  openmpi-bin                       # mpirun: the conversion-in-parts test's launcher
  clang libclang-rt-14-dev          # libFuzzer targets (tests/fuzz)
  clang-format                      # scripts/format.sh (.clang-format; bookworm's is 14)
)
# npm for the S3-compatible store the remote-reading tests start (s3rver, from the npm
# registry); a Node.js that already brings npm (NodeSource's) is kept.
command -v npm >/dev/null || packages+=(nodejs npm)
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
command -v s3rver >/dev/null || $sudo npm install -g --silent s3rver@3.7.1
echo "install-deps: ${#packages[@]} packages present, and s3rver"
