#!/usr/bin/python3
"""Reference image-folder converter: PIL + h5py, the way users convert today.

What: reads a torchvision-style ImageFolder, decodes every image with PIL, resizes
it like torchvision's `Resize(min(H, W))` + `CenterCrop((H, W))`, and writes one
HDF5 file with h5py: /images uint8 (N, H, W, 3) chunked (K, H, W, 3), /labels
int64 (N), /classes (UTF-8 names). Rows are in a seeded shuffle of ImageFolder
order, like h5feed's default.

Why: h5feed's converter is compared against this script in the same run
(bench/convert_bench.py, issue 2's Speed section: h5feed must reach 2.5x its
images/s). It is written the way a careful user would write it, not a straw man:
a multiprocessing.Pool decodes and resizes in parallel with ordered `imap` and a
chunksize, and the parent writes each HDF5 chunk as soon as it is full, so memory
stays bounded. h5py has no zstd, so the default is no compression.

Run with Debian's interpreter (it has PIL, numpy and h5py):

    /usr/bin/python3 bench/reference_convert.py SRC_DIR OUT.h5 --size 224x224 --workers 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time

import h5py
import numpy as np
from PIL import Image

from bench_support import positive_int

# torchvision.datasets.folder.IMG_EXTENSIONS, matched case-insensitively.
IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")
CHUNK_TARGET_BYTES = 4 << 20  # default chunk: about 4 MiB of images, as h5feed's default


class ConvertError(Exception):
    """A problem with the input or output that the user must fix; printed without a traceback."""


def find_classes(root: str) -> list[str]:
    """Class names as torchvision's find_classes: every subfolder, sorted by name."""
    classes = sorted(entry.name for entry in os.scandir(root) if entry.is_dir())
    if not classes:
        raise ConvertError(f"no class folders in {root}")
    return classes


def make_dataset(root: str, classes: list[str]) -> list[tuple[str, int]]:
    """(path, label) pairs in torchvision's make_dataset order: class by class, then
    sorted(os.walk(class_dir, followlinks=True)), then sorted file names."""
    samples = []
    for label, name in enumerate(classes):
        count = 0
        for folder, _, files in sorted(os.walk(os.path.join(root, name), followlinks=True)):
            for file in sorted(files):
                if file.lower().endswith(IMG_EXTENSIONS):
                    samples.append((os.path.join(folder, file), label))
                    count += 1
        if count == 0:
            raise ConvertError(f"class folder {os.path.join(root, name)} has no images "
                               f"(extensions: {' '.join(IMG_EXTENSIONS)})")
    return samples


def resize_shorter_side(image: Image.Image, size: int) -> Image.Image:
    """torchvision Resize(int): shorter side to `size`, longer side scaled and truncated;
    PIL bilinear (antialiased when shrinking). Untouched when already that size."""
    w, h = image.size
    short, long = (w, h) if w <= h else (h, w)
    new_short, new_long = size, int(size * long / short)
    new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    if (new_w, new_h) == (w, h):
        return image
    return image.resize((new_w, new_h), Image.BILINEAR)


def center_crop(image: Image.Image, height: int, width: int) -> Image.Image:
    """torchvision CenterCrop((height, width)) on a PIL image, zero-padding when smaller."""
    w, h = image.size
    if width > w or height > h:
        padded = Image.new(image.mode, (max(w, width), max(h, height)))
        padded.paste(image, ((width - w) // 2 if width > w else 0, (height - h) // 2 if height > h else 0))
        image, (w, h) = padded, padded.size
    top = int(round((h - height) / 2.0))
    left = int(round((w - width) / 2.0))
    return image.crop((left, top, left + width, top + height))


def load(job: tuple[str, int, int]) -> np.ndarray:
    """Worker: decode one file to RGB and bring it to (height, width, 3) uint8."""
    path, height, width = job
    try:
        with Image.open(path) as image:
            rgb = image.convert("RGB")
    except Exception as error:  # PIL raises many types for broken files
        raise ConvertError(f"cannot decode {path}: {error}") from None
    rgb = center_crop(resize_shorter_side(rgb, min(height, width)), height, width)
    return np.asarray(rgb, dtype=np.uint8)


def create_output(path: str, count: int, height: int, width: int, chunk: int,
                  compression: tuple[str | None, int | None], classes: list[str]) -> h5py.File:
    out = h5py.File(path, "w")
    name, level = compression
    out.create_dataset("images", shape=(count, height, width, 3), dtype=np.uint8,
                       chunks=(min(chunk, count), height, width, 3),
                       compression=name, compression_opts=level)
    out.create_dataset("classes", data=classes, dtype=h5py.string_dtype("utf-8"))
    return out


def write_images(out: h5py.File, samples: list[tuple[str, int]], height: int, width: int,
                 chunk: int, workers: int, pool_chunksize: int) -> None:
    """Decode in a pool with ordered imap; write every full chunk as it fills."""
    images = out["images"]
    buffer = np.empty((min(chunk, len(samples)), height, width, 3), dtype=np.uint8)
    jobs = ((path, height, width) for path, _ in samples)
    start = filled = 0
    with multiprocessing.Pool(workers) as pool:
        for pixels in pool.imap(load, jobs, chunksize=pool_chunksize):
            buffer[filled] = pixels
            filled += 1
            if filled == len(buffer) or start + filled == len(samples):
                images[start:start + filled] = buffer[:filled]
                start += filled
                filled = 0


def convert(args: argparse.Namespace) -> int:
    """Convert args.src to args.out; return the number of images written."""
    height, width = args.size
    classes = find_classes(args.src)
    samples = make_dataset(args.src, classes)
    if not args.no_shuffle:
        order = np.random.default_rng(args.seed).permutation(len(samples))
        samples = [samples[i] for i in order]
    chunk = args.chunk or max(1, round(CHUNK_TARGET_BYTES / (height * width * 3)))
    if os.path.exists(args.out) and not args.force:
        raise ConvertError(f"{args.out} exists; pass --force to replace it")
    partial = args.out + ".partial"  # renamed when complete: a failed run leaves no OUT
    try:
        with create_output(partial, len(samples), height, width, chunk, args.compression, classes) as out:
            out.create_dataset("labels", data=np.array([label for _, label in samples], dtype=np.int64))
            write_images(out, samples, height, width, chunk, args.workers, args.pool_chunksize)
        os.replace(partial, args.out)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return len(samples)


def parse_size(text: str) -> tuple[int, int]:
    height, sep, width = text.lower().partition("x")
    if not sep or not height.isdigit() or not width.isdigit() or int(height) < 1 or int(width) < 1:
        raise argparse.ArgumentTypeError(f"expected HxW such as 224x224, got '{text}'")
    return int(height), int(width)


def parse_compression(text: str) -> tuple[str | None, int | None]:
    name, _, level = text.lower().partition(":")
    if name == "none" and not level:
        return None, None
    if name == "lzf" and not level:
        return "lzf", None
    if name == "gzip" and (not level or (level.isdigit() and int(level) <= 9)):
        return "gzip", int(level) if level else 4
    raise argparse.ArgumentTypeError(f"expected none, lzf or gzip[:0-9], got '{text}'")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Reference converter (PIL + h5py + multiprocessing) from a torchvision "
                    "ImageFolder to HDF5; the baseline h5feed convert is benchmarked against.")
    parser.add_argument("src", metavar="SRC_DIR", help="image folder: one subfolder per class")
    parser.add_argument("out", metavar="OUT.h5", help="HDF5 file to write")
    parser.add_argument("--size", type=parse_size, required=True,
                        help="output HxW (height first): Resize(min(H,W)) then CenterCrop((H,W))")
    parser.add_argument("--chunk", type=positive_int, default=None,
                        help="images per HDF5 chunk (default: about 4 MiB per chunk)")
    parser.add_argument("--compression", type=parse_compression, default=(None, None),
                        help="none, lzf or gzip[:LEVEL] (default none: h5py has no zstd)")
    parser.add_argument("--workers", type=positive_int, default=2, help="decode processes (default 2)")
    parser.add_argument("--pool-chunksize", type=positive_int, default=16,
                        help="images per task sent to a worker by Pool.imap (default 16)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the row order shuffle (default 0)")
    parser.add_argument("--no-shuffle", action="store_true", help="keep ImageFolder order")
    parser.add_argument("--force", action="store_true", help="replace OUT.h5 if it exists")
    parser.add_argument("--json", action="store_true",
                        help='print {"images":..,"seconds":..,"images_per_s":..} instead of a sentence')
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    start = time.perf_counter()
    try:
        count = convert(args)
    except (ConvertError, OSError) as error:
        print(f"reference_convert: error: {error}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    rate = count / seconds
    if args.json:
        print(json.dumps({"images": count, "seconds": round(seconds, 4), "images_per_s": round(rate, 2)}))
    else:
        print(f"converted {count} images to {args.out} in {seconds:.2f} s ({rate:.1f} images/s, "
              f"{args.workers} workers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
