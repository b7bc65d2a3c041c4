"""A conversion's memory is bounded by --memory-limit whatever the images' dimensions and the
thread count (docs/reliability.md, "Conversion memory"): giant real PNGs, made by PIL, are
decoded row by row into the resize, and decompression bombs are refused by --max-pixels. The
peak resident memory of the `h5feed convert` process is the kernel's own count, read with
getrusage(RUSAGE_CHILDREN) by the process that starts it, and its pixels are checked against
PIL's."""
import os
import struct
import subprocess
import tempfile
import zlib

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import H5FEED, run_h5feed

EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 1, 2, 3
MiB = 1 << 20
# Each giant below decodes to 90 to 147 MB of RGB: read whole, one alone would exceed this.
BUDGET = 128 * MiB
TARGET = 50  # the stored size: every giant's crop is a whole multiple of it


def ramp(n, step, modulus=251):
    return (np.arange(n) // step % modulus).astype(np.uint8)


def png_bomb(width, height):
    """A PNG that declares width x height RGB pixels and holds four rows of zeros."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = zlib.compress(bytes(4 * (3 * width + 1)))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                             0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def giants(tmp_path_factory):
    """A folder of three giant PNGs (gray, palette, RGBA: each decodes row by row its own way)
    and two bombs; returns (root, {name: PIL crop box}, bombs)."""
    root = tmp_path_factory.mktemp("giants")
    (root / "art").mkdir()
    boxes = {}
    gray = ramp(7000, 3)[None, :] + ramp(7000, 5)[:, None]
    Image.fromarray(gray, "L").save(root / "art/gray.png", compress_level=1)
    boxes["art/gray.png"] = (0, 0, 7000, 7000)
    indices = ramp(6000, 37, 256)[None, :] + ramp(5000, 53, 256)[:, None]
    palette = Image.fromarray(indices, "P")
    palette.putpalette(np.random.default_rng(1).integers(0, 256, 768).tolist())
    palette.save(root / "art/palette.png", compress_level=1)
    boxes["art/palette.png"] = (500, 0, 5500, 5000)  # the centred square of 6000 x 5000
    x, y = ramp(3000, 1, 256)[None, :], ramp(2500, 2, 256)[:, None]
    rgba = np.stack(np.broadcast_arrays(x + y, x ^ y, x // 2 + y, x), axis=-1)
    Image.fromarray(rgba, "RGBA").save(root / "art/rgba.png", compress_level=1)
    boxes["art/rgba.png"] = (250, 0, 2750, 2500)
    bombs = {"art/bomb.png": (20000, 20000), "art/huge_bomb.png": (65535, 32000)}
    for name, (width, height) in bombs.items():
        (root / name).write_bytes(png_bomb(width, height))
    return root, boxes, bombs


@pytest.fixture(scope="module")
def pil_pixels(giants):
    """PIL's pixels for each giant: convert('RGB'), the crop h5feed keeps, and a box filter,
    which at these whole ratios averages exactly the area each stored pixel covers."""
    root, boxes, _ = giants
    return {name: np.asarray(Image.open(root / name).convert("RGB").crop(box)
                             .resize((TARGET, TARGET), Image.BOX), dtype=np.int16)
            for name, box in boxes.items()}


# Runs argv[2:] and writes its peak resident kilobytes to argv[1]. The kernel counts, in a
# child's peak, the memory of the process it was forked from (exec keeps the high-water mark),
# so h5feed is started by this small process rather than by pytest, which holds PIL's images.
MEASURE = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[2:]).returncode; "
           "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN)"
           ".ru_maxrss)); sys.exit(code)")


def run_measured(*args, timeout=300):
    """Runs h5feed; returns (its CompletedProcess, its peak resident bytes)."""
    with tempfile.TemporaryDirectory() as scratch:
        peak_file = os.path.join(scratch, "peak")
        result = subprocess.run(["/usr/bin/python3", "-c", MEASURE, peak_file, H5FEED,
                                 *map(str, args)], capture_output=True, text=True,
                                timeout=timeout)
        with open(peak_file) as peak:
            return result, int(peak.read()) * 1024


@pytest.mark.parametrize("threads", [2, 8])
def test_giant_pngs_convert_within_the_budget_with_pil_pixels(giants, pil_pixels, tmp_path,
                                                              threads):
    root, boxes, bombs = giants
    out = tmp_path / "art.h5"
    # One image per chunk: every thread decodes a giant at once, as in a real conversion.
    result, peak = run_measured(
        "convert", "imagefolder", root, out, "--size", TARGET, "--chunk", 1, "--threads",
        threads, "--memory-limit", f"{BUDGET // MiB}M")
    assert result.returncode == EXIT_SKIPPED, result.stderr
    assert peak < BUDGET, f"peak resident memory {peak / MiB:.0f} MiB over the budget"
    with h5py.File(out) as f:
        sources = [s.decode() for s in f["sources"][()]]
        assert sorted(sources) == sorted(boxes)
        for row, name in enumerate(sources):
            difference = np.abs(f["images"][row].astype(np.int16) - pil_pixels[name])
            assert difference.max() <= 1, name
        skipped = dict(zip((s.decode() for s in f["skipped_sources"][()]),
                           (r.decode() for r in f["skipped_reasons"][()])))
    assert set(skipped) == set(bombs)
    # The bomb within the decoders' caps is refused by the pixel limit, naming what to change;
    # the one beyond them (6 GB of RGB) by the caps.
    assert "bomb.png" in skipped["art/bomb.png"]
    assert "20000x20000" in skipped["art/bomb.png"]
    assert "--max-pixels" in skipped["art/bomb.png"]
    assert "65535x32000" in skipped["art/huge_bomb.png"]


def test_a_limit_too_small_for_one_chunk_says_what_to_change(giants, tmp_path):
    root, _, _ = giants
    out = tmp_path / "big_chunks.h5"
    # Chunks of 5 images of 2048 x 2048 x 3: 60 MiB each, past what 64M lets chunks take.
    result = run_h5feed("convert", "imagefolder", root, out, "--size", "2048", "--chunk", "5",
                        "--memory-limit", "64M", check=EXIT_FAILED)
    assert "--memory-limit" in result.stderr and "--chunk" in result.stderr
    assert not out.exists()
    for bad in ("64", "2X", "lots"):
        result = run_h5feed("convert", "imagefolder", root, out, "--memory-limit", bad,
                            check=EXIT_USAGE)
        assert "memory" in result.stderr
    assert list(tmp_path.iterdir()) == []
