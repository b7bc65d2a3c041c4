#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/.

What: a few small, valid inputs per target, each reaching a different path of the code under
test (every HDF5 read path, every filter, every image colour type), so the fuzzers start from
deep coverage instead of rediscovering file formats byte by byte. The whole corpus stays well
under 1 MiB.

How: h5feed files come from the library's own writer (tests/lib/format/write_test_file, built
in a build folder), foreign HDF5 files from h5py, images from PIL, .npy files from NumPy,
zstd frames from the zstd command; the inputs for the targets that read structured choices
off their first bytes are laid out as those targets' comments say.

    /usr/bin/python3 tests/fuzz/make_corpus.py build-h4/tests/lib/format/write_test_file

Rerunning replaces the corpus with the same inputs (everything is deterministic apart from
HDF5's timestamps, which h5py and the writer do not store by default).
"""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import h5py
import numpy as np
from PIL import Image

CORPUS = Path(__file__).resolve().parent / "corpus"


def pattern(height: int, width: int, channels: int = 3) -> np.ndarray:
    y, x, c = np.meshgrid(np.arange(height), np.arange(width), np.arange(channels), indexing="ij")
    return ((x * 37 + y * 11 + c * 71 + (x * y) % 13) % 256).astype(np.uint8)


def save(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def open_file_corpus(write_test_file: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        for compression in ("none", "zstd", "gzip"):
            out = Path(scratch) / f"{compression}.h5"
            subprocess.run([write_test_file, str(out), "--compression", compression,
                            "--images", "5", "--height", "3", "--width", "2", "--chunk", "2"],
                           check=True)
            save("open_file", f"h5feed_{compression}.h5", out.read_bytes())
        images = np.stack([pattern(3, 2) + i for i in range(5)])
        labels = np.arange(5, dtype=np.int64) % 3
        foreign = {
            "h5py_nhwc_gzip_shuffle_fletcher32": dict(
                data=images, chunks=(2, 3, 2, 3), compression="gzip", shuffle=True,
                fletcher32=True),
            "h5py_nchw_raw": dict(data=images.transpose(0, 3, 1, 2).copy(), chunks=(2, 3, 3, 2)),
            "h5py_contiguous": dict(data=images),
            "h5py_gzip_cut_samples": dict(data=images, chunks=(2, 2, 2, 3), compression="gzip"),
            "h5py_gray_3d": dict(data=images[..., 0].copy(), chunks=(3, 3, 2)),
        }
        for name, arguments in foreign.items():
            out = Path(scratch) / f"{name}.h5"
            with h5py.File(out, "w") as f:
                f.create_dataset("images", **arguments)
                f.create_dataset("labels", data=labels)
            save("open_file", f"{name}.h5", out.read_bytes())


def codec_corpus() -> None:
    payload = bytes(pattern(4, 8).tobytes()) + b"h5feed " * 20
    zstd = subprocess.run(["zstd", "-q", "-c", "-3"], input=payload, stdout=subprocess.PIPE,
                          check=True).stdout
    zstd_no_size = subprocess.run(["zstd", "-q", "-c", "--no-content-size"],
                                  input=io.BytesIO(payload).read(), stdout=subprocess.PIPE,
                                  check=True).stdout
    save("zstd_codec", "frame", b"\x00" + struct.pack("<H", len(payload)) + zstd)
    save("zstd_codec", "frame_without_size", b"\x00" + struct.pack("<H", len(payload)) +
         zstd_no_size)
    save("zstd_codec", "two_frames", b"\x00" + struct.pack("<H", 2 * len(payload)) + zstd * 2)
    save("zstd_codec", "round_trip", b"\x01\x02" + payload)
    deflate = zlib.compress(payload, 4)
    save("deflate_codec", "stream", b"\x00" + struct.pack("<H", len(payload)) + deflate)
    save("deflate_codec", "round_trip", b"\x01\x05" + payload)


def fletcher32(data: bytes) -> int:
    """H5_checksum_fletcher32: 16-bit big-endian words, an odd last byte as a high byte."""
    sum1 = sum2 = 0
    words = [(data[i] << 8) | data[i + 1] for i in range(0, len(data) - 1, 2)]
    if len(data) % 2:
        words.append(data[-1] << 8)
    for word in words:
        sum1 = (sum1 + word) % 65535
        sum2 = (sum2 + sum1) % 65535
    return (sum2 << 16) | sum1


def filter_pipeline_corpus() -> None:
    chunk = pattern(4, 6).tobytes()
    stored = zlib.compress(chunk, 1)  # shuffle of 1-byte elements is a no-op
    stored += struct.pack("<I", fletcher32(stored))
    # Arbitrary mode: shuffle (element 1), deflate, fletcher32 last; no filter skipped.
    save("filter_pipeline", "shuffle_deflate_fletcher32",
         bytes([0b01011, 1, 0]) + struct.pack("<H", len(chunk)) + stored)
    shuffled_int16 = np.frombuffer(chunk, dtype=np.uint8).reshape(-1, 2).T.tobytes()
    save("filter_pipeline", "shuffle_int16_deflate_skipped",
         bytes([0b00011, 2, 0b10]) + struct.pack("<H", len(chunk)) + shuffled_int16)
    for choice in (0b100001, 0b101011, 0b111101, 0b100111):  # round trips
        save("filter_pipeline", f"round_trip_{choice:06b}",
             bytes([choice, 4, 0]) + b"\x00\x00" + chunk)


def image_corpus() -> None:
    rgb = Image.fromarray(pattern(19, 26))
    def encoded(image: Image.Image, fmt: str, **options) -> bytes:
        out = io.BytesIO()
        image.save(out, fmt, **options)
        return out.getvalue()
    jpegs = {"rgb_420.jpg": encoded(rgb, "JPEG", quality=80),
             "gray.jpg": encoded(rgb.convert("L"), "JPEG"),
             "cmyk.jpg": encoded(rgb.convert("CMYK"), "JPEG"),
             "progressive_444.jpg": encoded(rgb, "JPEG", progressive=True, subsampling=0)}
    for name, data in jpegs.items():
        save("jpeg_decoder", name, data)
        save("jpeg_region", name, data)
    # Restart markers as h5feed's converter writes them (after every 2 MCUs; every MCU) and as
    # its previous release did (every MCU row): JPEGs the region decoder cuts around a box
    # (lib/decode/jpeg_restart_cut.h). 40 x 64 at 4:2:0: 3 rows of 4 MCUs.
    wide = encoded(Image.fromarray(pattern(40, 64)), "JPEG", quality=80)
    for name, interval in (("restart_2mcus.jpg", "2B"), ("restart_mcu.jpg", "1B"),
                           ("restart_rows.jpg", "1")):
        marked = subprocess.run(["jpegtran", "-restart", interval], input=wide,
                                capture_output=True, check=True).stdout
        save("jpeg_region", name, marked)
    save("png_decoder", "rgb.png", encoded(rgb, "PNG"))
    save("png_decoder", "rgba_interlaced.png", encoded(rgb.convert("RGBA"), "PNG", interlace=1))
    save("png_decoder", "palette.png", encoded(rgb.convert("P"), "PNG"))
    save("png_decoder", "gray16.png",
         encoded(Image.fromarray(pattern(9, 7, 1)[..., 0].astype(np.uint16) * 300), "PNG"))
    save("png_decoder", "gray1.png", encoded(rgb.convert("1"), "PNG"))
    save("webp_decoder", "lossy.webp", encoded(rgb, "WEBP", quality=60))
    save("webp_decoder", "lossless_alpha.webp", encoded(rgb.convert("RGBA"), "WEBP",
                                                        lossless=True))
    save("opencv_decoder", "rgb.bmp", encoded(rgb, "BMP"))
    save("opencv_decoder", "palette.bmp", encoded(rgb.convert("P"), "BMP"))
    save("opencv_decoder", "rgb.ppm", encoded(rgb, "PPM"))
    save("opencv_decoder", "gray.pgm", encoded(rgb.convert("L"), "PPM"))
    save("opencv_decoder", "ascii.ppm", b"P3\n2 2\n255\n" + b"1 2 3 4 5 6 7 8 9 10 11 12\n")
    save("opencv_decoder", "rgb.tiff", encoded(rgb, "TIFF"))
    save("opencv_decoder", "deflate.tiff", encoded(rgb, "TIFF", compression="tiff_adobe_deflate"))


def npy_corpus() -> None:
    def npy(array: np.ndarray, version=None) -> bytes:
        out = io.BytesIO()
        np.lib.format.write_array(out, array, version=version)
        return out.getvalue()
    save("npy_header", "images_u1.npy", npy(np.stack([pattern(3, 2)] * 2)))
    save("npy_header", "labels_i8.npy", npy(np.arange(5, dtype=np.int64)))
    save("npy_header", "labels_big_endian_i4.npy", npy(np.arange(5, dtype=">i4")))
    save("npy_header", "labels_u2_version2.npy", npy(np.arange(3, dtype=np.uint16), (2, 0)))
    save("npy_header", "fortran.npy", npy(np.asfortranarray(pattern(2, 3))))
    save("npy_header", "scalar_bool.npy", npy(np.array(True)))


def cifar_corpus() -> None:
    record10 = bytes([3]) + pattern(32, 32).transpose(2, 0, 1).tobytes()
    names10 = b"\n".join(b"class%d" % i for i in range(10)) + b"\n"
    save("cifar_records", "cifar10",
         bytes([0]) + struct.pack("<H", len(names10)) + names10 + record10 * 2)
    save("cifar_records", "cifar10_default_names", bytes([0, 0, 0]) + record10)
    record100 = bytes([7, 42]) + pattern(32, 32).transpose(2, 0, 1).tobytes()
    save("cifar_records", "cifar100_fine", bytes([1, 0, 0]) + record100 * 2)
    names20 = b"\n\n".join(b"super%d" % i for i in range(20))
    save("cifar_records", "cifar100_coarse_names",
         bytes([3]) + struct.pack("<H", len(names20)) + names20 + record100)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: make_corpus.py PATH/TO/write_test_file")
    shutil.rmtree(CORPUS, ignore_errors=True)
    open_file_corpus(sys.argv[1])
    codec_corpus()
    filter_pipeline_corpus()
    image_corpus()
    npy_corpus()
    cifar_corpus()
    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    print(f"corpus: {sum(1 for p in CORPUS.rglob('*') if p.is_file())} files, {total} bytes")


if __name__ == "__main__":
    main()
