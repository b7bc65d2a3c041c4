#!/usr/bin/python3
"""Measure how to store images at their own size in HDF5: flat bytes vs padding vs vlen.

What: from one folder of real photos (bench/real_photos.py; longer side capped at --max-side by
an area (BOX) shrink keeping the aspect), decoded once to uint8, this writes with h5py, each with
no compression and with zstd level 3 (h5feed's filter 32015), the candidate layouts:

- flat: version 2's layout (docs/format.md): one uint8 byte array chunked (C), C = --chunk-mib,
  images packed greedily so that every chunk holds whole images and a zero tail;
- flat-k: flat with C the padded layout's K images of the mean size (the same images per chunk);
- flat-span: the same bytes packed back to back, images crossing chunk ends (no tail);
- padded: (N, Hmax, Wmax, 3) with every image at the top left of a zero canvas, chunks of
  K = max(1, C // (Hmax*Wmax*3)) images;
- vlen: one HDF5 variable-length uint8 element per image (its data lives in the global heap,
  which HDF5 filters never compress: only the chunked heap references are).

For each it reports the file's size against the raw pixel bytes, what a reader must decompress
and hold per image stored (chunk bytes / images in the chunk: the chunk cache's cost), and the
time to read --reads random images and to read every image in order with h5py, one image per
call at its own shape (flat: images[off:off+n].reshape(shape); padded: images[i][:h, :w];
vlen: images[i].reshape(shape)) with a chunk cache of 4 chunks. Times are the best of --rounds
rounds that visit the files in turn, with the page cache warm; the ratios divide by padded of
the same compression, measured in the same run.

    HDF5_PLUGIN_PATH=$PWD/build-layout/plugins /usr/bin/python3 bench/own_size_layout_bench.py \\
        --workdir /tmp/h5feed-layout --images 2000
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_photos import RealPhotosMissing, make_real_photos  # noqa: E402

COMPRESSIONS = {"none": {}, "zstd:3": {"compression": 32015, "compression_opts": (3,)}}
LAYOUTS = ("flat", "flat-k", "flat-span", "padded", "vlen")


def load_images(folder: Path, max_side: int) -> list[np.ndarray]:
    """Every JPEG under folder (sorted), RGB, longer side capped at max_side by a BOX shrink."""
    images = []
    for path in sorted(folder.glob("*/*.jpg")):
        with Image.open(path) as image:
            image = image.convert("RGB")
            w, h = image.size
            if max(w, h) > max_side:
                scale = max_side / max(w, h)
                image = image.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BOX)
            images.append(np.asarray(image))
    return images


def pack(sizes: np.ndarray, chunk: int, span: bool) -> np.ndarray:
    """Offsets of images of these byte sizes: back to back, or greedily so none crosses a chunk."""
    if span:
        return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.uint64)
    offsets, at = np.zeros(len(sizes), np.uint64), 0
    for n, size in enumerate(sizes):
        if at // chunk != (at + size - 1) // chunk:  # would cross: start the next chunk
            at = (at // chunk + 1) * chunk
        offsets[n], at = at, at + size
    return offsets


def write(path: Path, layout: str, images: list[np.ndarray], chunk: int, comp: dict) -> dict:
    """Write one candidate file; return what describes its chunks."""
    shapes = np.array([im.shape for im in images], np.int32)
    sizes = shapes.prod(axis=1).astype(np.int64)
    with h5py.File(path, "w") as f:
        f["image_shapes"] = shapes
        if layout.startswith("flat"):
            if layout == "flat-k":  # as many images per chunk as padded has, on average
                k = max(1, chunk // (int(shapes[:, 0].max()) * int(shapes[:, 1].max()) * 3))
                chunk = max(int(sizes.max()), int(k * sizes.mean()))
            offsets = pack(sizes, chunk, span=layout == "flat-span")
            chunks = -(-(int(offsets[-1]) + int(sizes[-1])) // chunk)
            f["image_offsets"], f["image_bytes"] = offsets, sizes.astype(np.uint64)
            data = f.create_dataset("images", (chunks * chunk,), np.uint8, chunks=(chunk,),
                                    maxshape=(None,), **comp)
            ends, first = offsets.astype(np.int64) + sizes, 0
            for c in range(chunks):  # fill and write one whole chunk at a time
                low, high = c * chunk, (c + 1) * chunk
                buffer, n = np.zeros(chunk, np.uint8), first
                while n < len(images) and offsets[n] < high:
                    a, b = max(low, int(offsets[n])), min(high, int(ends[n]))
                    buffer[a - low:b - low] = images[n].reshape(-1)[a - int(offsets[n]):b - int(offsets[n])]
                    first = n + 1 if ends[n] <= high else n
                    n += 1
                data[low:high] = buffer
            return {"chunk_bytes": chunk, "chunks": chunks, "decompressed": chunks * chunk}
        if layout == "padded":
            hmax, wmax = int(shapes[:, 0].max()), int(shapes[:, 1].max())
            k = max(1, chunk // (hmax * wmax * 3))
            data = f.create_dataset("images", (len(images), hmax, wmax, 3), np.uint8,
                                    chunks=(k, hmax, wmax, 3), **comp)
            for start in range(0, len(images), k):
                block = np.zeros((min(k, len(images) - start), hmax, wmax, 3), np.uint8)
                for j, image in enumerate(images[start:start + k]):
                    block[j, :image.shape[0], :image.shape[1]] = image
                data[start:start + len(block)] = block
            chunks = -(-len(images) // k)
            return {"chunk_bytes": k * hmax * wmax * 3, "chunks": chunks,
                    "decompressed": chunks * k * hmax * wmax * 3}
        data = f.create_dataset("images", (len(images),), h5py.vlen_dtype(np.uint8),
                                chunks=(64,), **comp)
        for start in range(0, len(images), 64):
            block = np.empty(min(64, len(images) - start), object)
            block[:] = [im.reshape(-1) for im in images[start:start + 64]]
            data[start:start + len(block)] = block
        return {"chunk_bytes": 0, "chunks": 0, "decompressed": int(sizes.sum())}


def reader(f: h5py.File, layout: str):
    """A function image(n) -> H x W x 3 uint8 for an open candidate file."""
    data, shapes = f["images"], f["image_shapes"][:]
    if layout.startswith("flat"):
        offsets, sizes = f["image_offsets"][:].astype(np.int64), f["image_bytes"][:].astype(np.int64)
        return lambda n: data[offsets[n]:offsets[n] + sizes[n]].reshape(shapes[n])
    if layout == "padded":
        return lambda n: data[n][:shapes[n][0], :shapes[n][1]]
    return lambda n: data[n].reshape(shapes[n])


def time_reads(path: Path, layout: str, order: np.ndarray, cache_bytes: int) -> np.ndarray:
    """(wall, CPU) seconds to read the images of `order` one by one, from a freshly opened file."""
    with h5py.File(path, "r", rdcc_nbytes=cache_bytes, rdcc_nslots=10007) as f:
        image = reader(f, layout)
        start = np.array([time.perf_counter(), time.process_time()])
        for n in order:
            image(n)
        return np.array([time.perf_counter(), time.process_time()]) - start


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in
                  Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
                 platform.processor())
    return f"{model}, nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at the start"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True, help="folder for the photos and files")
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--max-side", type=int, default=512)
    parser.add_argument("--chunk-mib", type=float, default=4.0)
    parser.add_argument("--reads", type=int, default=1000, help="random images read per file")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if "HDF5_PLUGIN_PATH" not in os.environ:
        parser.error("set HDF5_PLUGIN_PATH to the folder of libh5feed_zstd.so (build/plugins)")
    began, host = time.perf_counter(), machine()
    folder = args.workdir / f"photos-{args.images}-seed{args.seed}"
    if not folder.is_dir():
        try:
            make_real_photos(folder, args.images, seed=args.seed)
        except RealPhotosMissing as error:
            print(f"own_size_layout_bench.py: {error}", file=sys.stderr)
            return 2
    images = load_images(folder, args.max_side)
    raw = sum(im.nbytes for im in images)
    chunk = int(args.chunk_mib * (1 << 20))
    print(f"{len(images)} images, raw {raw / 1e6:.1f} MB, mean {np.mean([im.shape[0] for im in images]):.0f}"
          f" x {np.mean([im.shape[1] for im in images]):.0f}", flush=True)
    variants = {}
    for comp in COMPRESSIONS:
        for layout in LAYOUTS:
            path = args.workdir / f"{layout}-{comp.replace(':', '')}.h5"
            start = time.perf_counter()
            info = write(path, layout, images, chunk, COMPRESSIONS[comp])
            info.update(path=path, write_s=time.perf_counter() - start, size=path.stat().st_size)
            with h5py.File(path, "r") as f:  # check a few images round-trip at their own shape
                image = reader(f, layout)
                assert all(np.array_equal(image(n), images[n]) for n in range(0, len(images), 97))
            variants[(layout, comp)] = info
            print(f"wrote {path.name}: {info['size'] / 1e6:.1f} MB in {info['write_s']:.1f} s", flush=True)
    rng = np.random.default_rng(args.seed)
    random_order = rng.choice(len(images), min(args.reads, len(images)), replace=False)
    times = {key: np.full((2, 2), np.inf) for key in variants}  # [random, sequential][wall, CPU]
    for _ in range(args.rounds):  # rounds visit every file in turn, so drifts in load hit all alike
        for key, info in variants.items():
            cache = 4 * max(info["chunk_bytes"], 1 << 20) + (1 << 20)
            for i, order in enumerate((random_order, np.arange(len(images)))):
                times[key][i] = np.minimum(times[key][i], time_reads(info["path"], key[0], order, cache))
    rows = ["| layout | compression | file MB | file / raw | chunk MiB | images per chunk "
            "| decompressed+held KB per image stored | write s "
            f"| {len(random_order)} random reads, wall (CPU) s | random / padded (CPU) "
            "| sequential pass, wall (CPU) s | sequential / padded (CPU) |", "| --- | --- |" + " ---: |" * 10]
    rows.append(f"| raw pixels (reference) | | {raw / 1e6:.1f} | 1.00 | | | {raw / len(images) / 1e3:.0f}"
                " | | | | | |")
    for (layout, comp), info in variants.items():
        (rnd, rnd_cpu), (seq, seq_cpu) = times[(layout, comp)]
        prnd, pseq = times[("padded", comp)][:, 1]
        per_chunk = f"{len(images) / info['chunks']:.1f}" if info["chunks"] else "1 (heap object)"
        chunk_mib = f"{info['chunk_bytes'] / (1 << 20):.2f}" if info["chunks"] else "-"
        rows.append(f"| {layout} | {comp} | {info['size'] / 1e6:.1f} | {info['size'] / raw:.2f} "
                    f"| {chunk_mib} | {per_chunk} | {info['decompressed'] / len(images) / 1e3:.0f} "
                    f"| {info['write_s']:.1f} | {rnd:.2f} ({rnd_cpu:.2f}) | {rnd_cpu / prnd:.2f} "
                    f"| {seq:.2f} ({seq_cpu:.2f}) | {seq_cpu / pseq:.2f} |")
    revision = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    print(f"\nMeasured {time.strftime('%Y-%m-%d')} on {host}; revision {revision}; h5py "
          f"{h5py.version.version}, HDF5 {h5py.version.hdf5_version}; {len(images)} images, longer "
          f"side capped at {args.max_side}; chunks of {args.chunk_mib:g} MiB; best of {args.rounds} "
          f"rounds (wall and CPU each the least of the rounds); load average {os.getloadavg()[0]:.1f} at the end; "
          f"total {time.perf_counter() - began:.0f} s.\n")
    print("\n".join(rows))
    for info in variants.values():
        info["path"].unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
