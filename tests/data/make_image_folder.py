#!/usr/bin/python3
"""Generate a torchvision-style image folder of real-looking synthetic photos.

What: OUT_DIR/<class>/<image> with N images spread over C class folders
("class_000", "class_001", ...), JPEG and/or PNG (optionally WebP) files whose
sides are drawn between --min-size and --max-size pixels, so aspect ratios vary.

Why: the README sample, the tests and the benchmarks need images that cost what
real photos cost to decode and compress. Flat random noise is the wrong model:
it makes JPEG files several times larger than photos of the same size (slow
entropy decoding) and makes zstd useless. Each image here is therefore built like
a photo is: a smooth colour field, a few soft-edged objects (ellipses,
rectangles, polygons) blurred by different amounts, and mild sensor-like noise,
saved as JPEG at a random quality in 85-95 or as PNG. Classes get a slight
colour bias of their own so a toy model can tell them apart.

Determinism: image i depends only on (--seed, i), never on --jobs, so the same
command gives byte-identical files on every run and with any number of workers.
Image i goes to class i mod C; its file name is img_<i>.<ext>.

Run with Debian's interpreter (it has numpy and PIL):

    /usr/bin/python3 tests/data/make_image_folder.py /tmp/folder --images 2000 --classes 10

20,000 images of up to 400 px take a few minutes on 2 cores (--jobs 2).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

# File extension per supported format (PIL format name is the key's upper case).
EXTENSIONS = {"jpeg": ".jpg", "png": ".png", "webp": ".webp"}
# Share of files per format when --formats lists a format without ":weight".
DEFAULT_WEIGHTS = {"jpeg": 0.8, "png": 0.2, "webp": 0.2}


@dataclass(frozen=True)
class Spec:
    """Everything a worker needs to make image i (picklable, immutable)."""

    out_dir: str
    classes: int
    min_size: int
    max_size: int
    formats: tuple[str, ...]
    weights: tuple[float, ...]
    gray_share: float
    seed: int


def parse_formats(text: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Parse "jpeg,png" or "jpeg:0.7,png:0.3" into names and normalised weights."""
    names, weights = [], []
    for item in text.split(","):
        name, _, weight = item.strip().lower().partition(":")
        name = "jpeg" if name == "jpg" else name
        if name not in EXTENSIONS:
            raise argparse.ArgumentTypeError(
                f"unknown format '{name}' (choose from {', '.join(EXTENSIONS)})")
        names.append(name)
        weights.append(float(weight) if weight else DEFAULT_WEIGHTS[name])
    total = sum(weights)
    if total <= 0:
        raise argparse.ArgumentTypeError("format weights must add up to more than 0")
    return tuple(names), tuple(w / total for w in weights)


def class_name(label: int) -> str:
    return f"class_{label:03d}"


def draw_size(rng: np.random.Generator, lo: int, hi: int) -> tuple[int, int]:
    """Width and height in [lo, hi], with aspect ratios from 1:2 to 2:1."""
    long_side = int(rng.integers(lo, hi + 1))
    ratio = float(np.exp(rng.uniform(np.log(0.5), np.log(1.0))))
    short_side = max(lo, int(round(long_side * ratio)))
    return (long_side, short_side) if rng.random() < 0.5 else (short_side, long_side)


def smooth_field(rng: np.random.Generator, size: tuple[int, int], base: np.ndarray) -> Image.Image:
    """A smooth colour field: a tiny random grid around `base`, upscaled bicubically."""
    grid_w, grid_h = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    grid = base + rng.normal(0.0, 45.0, size=(grid_h, grid_w, 3))
    small = Image.fromarray(np.clip(grid, 0, 255).astype(np.uint8), "RGB")
    return small.resize(size, Image.BICUBIC)


def random_box(rng: np.random.Generator, size: tuple[int, int]) -> list[float]:
    """A bounding box that lies at least partly inside a width x height canvas."""
    w, h = size
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    rx, ry = rng.uniform(0.05, 0.45) * w, rng.uniform(0.05, 0.45) * h
    return [cx - rx, cy - ry, cx + rx, cy + ry]


def random_colour(rng: np.random.Generator, base: np.ndarray) -> tuple[int, int, int]:
    grey = rng.normal(0.0, 50.0)  # objects differ from the scene mostly in brightness
    colour = np.clip(base + grey + rng.normal(0.0, 30.0, size=3), 0, 255)
    return tuple(int(c) for c in colour)


def draw_objects(rng: np.random.Generator, image: Image.Image, base: np.ndarray,
                 count: int, blur: float) -> Image.Image:
    """Draw `count` shapes on a copy of `image`, then blur it by `blur` px."""
    layer = image.copy()
    pen = ImageDraw.Draw(layer)
    for _ in range(count):
        box = random_box(rng, image.size)
        colour = random_colour(rng, base)
        kind = rng.integers(0, 3)
        if kind == 0:
            pen.ellipse(box, fill=colour)
        elif kind == 1:
            pen.rectangle(box, fill=colour)
        else:
            x0, y0, x1, y1 = box
            points = [(rng.uniform(x0, x1), rng.uniform(y0, y1)) for _ in range(int(rng.integers(3, 7)))]
            pen.polygon(points, fill=colour)
    return layer.filter(ImageFilter.GaussianBlur(blur)) if blur > 0 else layer


def octave(rng: np.random.Generator, size: tuple[int, int], cell: float) -> np.ndarray:
    """Zero-mean unit-ish noise varying over cells of `cell` px, upscaled bicubically."""
    w, h = size
    small = rng.normal(128.0, 42.0, size=(max(2, int(h / cell) + 1), max(2, int(w / cell) + 1)))
    grid = Image.fromarray(np.clip(small, 0, 255).astype(np.uint8), "L")
    return (np.asarray(grid.resize(size, Image.BICUBIC), dtype=np.float32) - 128.0) / 42.0


def texture(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Multi-scale luminance texture (foliage, fabric, skin): octaves of 1.5 to 24 px
    cells with amplitude growing with scale, roughly the 1/f spectrum of photos.
    It raises JPEG files from ~1.5 to ~2.2 bits per pixel (photos at quality 90 hold
    about 2-4); smooth shapes alone decode faster than real data would."""
    total = np.zeros((size[1], size[0]), dtype=np.float32)
    for cell, amplitude in ((1.5, 5.0), (3.0, 7.0), (6.0, 9.0), (12.0, 11.0), (24.0, 13.0)):
        total += octave(rng, size, cell * rng.uniform(0.8, 1.25)) * amplitude
    return total[..., None]


def add_noise(rng: np.random.Generator, image: Image.Image) -> np.ndarray:
    """Add texture (strength 0.4-1.4) and mild Gaussian sensor noise (sigma 1-3 grey
    levels) to the brightness; return uint8 pixels."""
    pixels = np.asarray(image, dtype=np.float32)
    pixels += texture(rng, image.size) * rng.uniform(0.4, 1.4)
    noise = rng.standard_normal((pixels.shape[0], pixels.shape[1], 1), dtype=np.float32)
    pixels += noise * rng.uniform(1.0, 3.0)  # luminance only: JPEG's 4:2:0 drops most chroma noise
    return np.clip(pixels, 0, 255).astype(np.uint8)


def render(rng: np.random.Generator, spec: Spec, label: int) -> Image.Image:
    """One real-looking RGB image: background field, soft far objects, sharper near ones, noise."""
    size = draw_size(rng, spec.min_size, spec.max_size)
    hue = np.array([np.sin(label * 2.4 + k * 2.1) for k in range(3)])  # per-class colour bias
    base = 115.0 + 30.0 * hue + rng.normal(0.0, 20.0, size=3)
    # The background and the out-of-focus objects are drawn at a quarter of the size and
    # upscaled: a blur of 3-8 px loses nothing at that scale and costs 16x less.
    quarter = (max(1, size[0] // 4), max(1, size[1] // 4))
    far = smooth_field(rng, quarter, base)
    far = draw_objects(rng, far, base, int(rng.integers(2, 6)), blur=rng.uniform(0.75, 2.0))
    image = far.resize(size, Image.BICUBIC)
    image = draw_objects(rng, image, base, int(rng.integers(1, 4)), blur=rng.uniform(0.6, 1.8))
    return Image.fromarray(add_noise(rng, image), "RGB")


def save(rng: np.random.Generator, image: Image.Image, path_stem: str, fmt: str) -> str:
    path = path_stem + EXTENSIONS[fmt]
    if fmt == "jpeg":
        image.save(path, "JPEG", quality=int(rng.integers(85, 96)))
    elif fmt == "png":
        image.save(path, "PNG")
    else:
        image.save(path, "WEBP", quality=int(rng.integers(80, 96)))
    return path


def make_one(spec: Spec, index: int) -> int:
    """Generate and write image `index`; return its size in bytes."""
    rng = np.random.default_rng([spec.seed, index])
    label = index % spec.classes
    fmt = spec.formats[int(rng.choice(len(spec.formats), p=spec.weights))]
    image = render(rng, spec, label)
    if rng.random() < spec.gray_share:
        image = image.convert("L")
    stem = os.path.join(spec.out_dir, class_name(label), f"img_{index:06d}")
    return os.path.getsize(save(rng, image, stem, fmt))


def _make_one_star(args: tuple[Spec, int]) -> int:
    return make_one(*args)


def generate(spec: Spec, images: int, jobs: int) -> int:
    """Create the class folders and all images; return the total bytes written."""
    for label in range(spec.classes):
        os.makedirs(os.path.join(spec.out_dir, class_name(label)), exist_ok=True)
    work = ((spec, i) for i in range(images))
    if jobs <= 1:
        return sum(map(_make_one_star, work))
    with multiprocessing.Pool(jobs) as pool:
        return sum(pool.imap_unordered(_make_one_star, work, chunksize=32))


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Generate a torchvision-style image folder (OUT_DIR/class_XXX/img_N.ext) of "
                    "real-looking synthetic photos for tests, samples and benchmarks.",
        epilog="Files are a pure function of --seed and the image index: any --jobs gives the "
               "same bytes. Image i goes to class i mod C.")
    parser.add_argument("out_dir", metavar="OUT_DIR", help="folder to create (must be empty or absent)")
    parser.add_argument("--images", type=positive_int, default=1000, help="number of images (default 1000)")
    parser.add_argument("--classes", type=positive_int, default=10, help="number of class folders (default 10)")
    parser.add_argument("--min-size", type=positive_int, default=50, help="smallest side in px (default 50)")
    parser.add_argument("--max-size", type=positive_int, default=400, help="largest side in px (default 400)")
    parser.add_argument("--formats", type=parse_formats, default=parse_formats("jpeg,png"),
                        help="comma-separated formats among jpeg, png, webp, each optionally "
                             "':WEIGHT' (default jpeg,png = 80%% JPEG, 20%% PNG)")
    parser.add_argument("--gray-share", type=float, default=0.0,
                        help="fraction of images saved as 8-bit grayscale (default 0)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--jobs", type=positive_int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    if args.min_size > args.max_size:
        parser.error(f"--min-size {args.min_size} is larger than --max-size {args.max_size}")
    if not 0.0 <= args.gray_share <= 1.0:
        parser.error("--gray-share must be between 0 and 1")
    if os.path.exists(args.out_dir) and (not os.path.isdir(args.out_dir) or os.listdir(args.out_dir)):
        parser.error(f"{args.out_dir} exists and is not an empty folder; remove it or pick another")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    formats, weights = args.formats
    spec = Spec(args.out_dir, args.classes, args.min_size, args.max_size, formats, weights,
                args.gray_share, args.seed)
    start = time.perf_counter()
    total_bytes = generate(spec, args.images, args.jobs)
    seconds = time.perf_counter() - start
    print(f"wrote {args.images} images ({', '.join(formats)}) in {args.classes} classes to "
          f"{args.out_dir}: {total_bytes / 2**20:.1f} MiB in {seconds:.1f} s "
          f"({args.images / seconds:.0f} images/s, {args.jobs} jobs, seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
