#!/usr/bin/python3
"""Many chunks: do converting and reading a file without a chunk table grow with them linearly?

A writer must learn where each chunk it writes lies, for the file's chunk tables. HDF5 1.10.8's
lookup by coordinates walks the chunk index from its start, so asking it once per chunk costs
time quadratic in the chunks (docs/format.md, "`/chunk_index`: the chunk table"); so did
reading each chunk of a file h5py wrote (no chunk table: each chunk's stored size asked of
HDF5 before H5Dread_chunk). This converts
NumPy arrays of small images into files of more and more chunks, each with two array fields (a
float32 embedding and an int64 id, chunks in step with the images'), with two builds of h5feed
in the same rounds, alternating which goes first: the baseline (--a) and the candidate (--b).
It reports each build's seconds (median of --rounds), their ratio, the CPU seconds per thousand
chunks (flat when the cost is linear) and the files' sizes. Then it reads, with each build, an
h5py file of the same images in as many chunks (gzip:1, as h5py users compress), one epoch of
`h5feed bench FILE --epochs 1`.

From the repository root, after building both (e.g. the baseline in a worktree):

    /usr/bin/python3 bench/chunk_count_bench.py --a /tmp/before/build/tools/h5feed \\
        --b build/tools/h5feed --workdir /tmp/h5feed-chunk-count-bench
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import h5py
import numpy as np

from bench_support import executable, positive_int, publish, run_checked, run_line, run_main

SHAPE = (16, 16, 3)   # 768 bytes an image
CHUNK_IMAGES = 8      # 6 KiB chunks: a page and a half, so each is aligned
EMBEDDING = 16        # float32 values a row: 512 bytes a field chunk


def make_inputs(workdir: Path, images: int) -> list[str]:
    """The arrays (written once): images, an embedding and an id per image."""
    paths = [workdir / f"{name}-{images}.npy" for name in ("images", "embedding", "id")]
    if not all(path.exists() for path in paths):
        rng = np.random.default_rng(images)
        np.save(paths[0], rng.integers(0, 256, (images, *SHAPE), dtype=np.uint8))
        np.save(paths[1], rng.standard_normal((images, EMBEDDING), dtype=np.float32))
        np.save(paths[2], np.arange(images, dtype=np.int64))
    return [str(path) for path in paths]


def make_foreign(workdir: Path, images: str, count: int) -> Path:
    """An h5py file of the images (written once), chunks of CHUNK_IMAGES, gzip:1, labels."""
    path = workdir / f"h5py-{count}.h5"
    if not path.exists():
        pixels = np.load(images, mmap_mode="r")
        with h5py.File(path, "w") as f:
            f.create_dataset("images", data=pixels, chunks=(CHUNK_IMAGES, *SHAPE),
                             compression="gzip", compression_opts=1)
            f.create_dataset("labels", data=np.arange(count) % 10)
    return path


def read(h5feed: str, path: Path) -> float:
    """Seconds of one epoch of `h5feed bench` on the clock, start-up and open included."""
    start = time.perf_counter()
    run_checked([h5feed, "bench", str(path), "--epochs", "1", "--batch", "256"], timeout=3600)
    return time.perf_counter() - start


def convert(h5feed: str, inputs: list[str], out: Path, threads: int) -> tuple[float, float]:
    """Seconds of the conversion: on the clock, and of CPU (user and system)."""
    images, embedding, ids = inputs
    argv = [h5feed, "convert", "npy", images, str(out), "--chunk", str(CHUNK_IMAGES),
            "--field", f"embedding={embedding}", "--field", f"id={ids}", "--threads",
            str(threads), "--force", "-q"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run_checked(argv, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main_run(args: argparse.Namespace) -> int:
    a = executable(args.a, "--a", "build the baseline, e.g. in a git worktree")
    b = executable(args.b, "--b", "build h5feed first: cmake --build build")
    args.workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    rows, read_rows = [], []
    for chunks in args.chunks:
        inputs = make_inputs(args.workdir, chunks * CHUNK_IMAGES)
        seconds = {"A": [], "B": []}
        cpu = {"A": [], "B": []}
        sizes = {}
        for round_ in range(args.rounds):
            order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
            for build in order:
                out = args.workdir / f"out-{build}.h5"
                wall, used = convert(a if build == "A" else b, inputs, out, args.threads)
                seconds[build].append(wall)
                cpu[build].append(used)
                sizes[build] = out.stat().st_size
                out.unlink()
        ratios = [x / y for x, y in zip(seconds["A"], seconds["B"])]
        rows.append((chunks, statistics.median(seconds["A"]), statistics.median(seconds["B"]),
                     statistics.median(ratios), min(ratios), max(ratios),
                     statistics.median(cpu["A"]), statistics.median(cpu["B"]), sizes["A"],
                     sizes["B"]))
        print(f"{chunks} chunks: A {rows[-1][1]:.2f} s, B {rows[-1][2]:.2f} s", flush=True)
        foreign = make_foreign(args.workdir, inputs[0], chunks * CHUNK_IMAGES)
        reads = {"A": [], "B": []}
        for round_ in range(args.rounds):
            for build in (("A", "B") if round_ % 2 == 0 else ("B", "A")):
                reads[build].append(read(a if build == "A" else b, foreign))
        read_ratios = [x / y for x, y in zip(reads["A"], reads["B"])]
        read_rows.append((chunks, statistics.median(reads["A"]), statistics.median(reads["B"]),
                          statistics.median(read_ratios), min(read_ratios), max(read_ratios)))

    lines = [
        "# Many chunks: converting, and reading a file without a chunk table",
        "",
        "```sh",
        "/usr/bin/python3 bench/chunk_count_bench.py --a A --b B " + " ".join(
            ["--chunks"] + [str(c) for c in args.chunks] + ["--rounds", str(args.rounds)]),
        "```",
        "",
        run_line(load_before, started),
        "",
        f"Each file: `h5feed convert npy` of {SHAPE[0]}x{SHAPE[1]}x{SHAPE[2]} random images in "
        f"chunks of {CHUNK_IMAGES} (6 KiB), with fields embedding (float32[{EMBEDDING}]) and id "
        f"(int64), zstd:3, --threads {args.threads}; A: {args.a}, B: {args.b}; medians of "
        f"{args.rounds} rounds, the order alternating. A/B: the baseline's seconds over the "
        "candidate's, per round; CPU: user and system seconds of the process (the clock also "
        "counts waiting for the disk to take the file).",
        "",
        "| chunks | A s | B s | A/B (median) | A/B range | A CPU s | B CPU s | "
        "A CPU ms per 1000 chunks | B CPU ms per 1000 chunks | A MB | B MB | B/A size |",
        "| ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for chunks, sa, sb, ratio, low, high, ca, cb, size_a, size_b in rows:
        lines.append(
            f"| {chunks:,} | {sa:.2f} | {sb:.2f} | {ratio:.2f} | {low:.2f}-{high:.2f} | "
            f"{ca:.2f} | {cb:.2f} | {1e6 * ca / chunks:.0f} | {1e6 * cb / chunks:.0f} | "
            f"{size_a / 1e6:.1f} | {size_b / 1e6:.1f} | {size_b / size_a:.3f} |")
    lines += [
        "",
        f"Reading the same images from an h5py file in chunks of {CHUNK_IMAGES} (gzip:1, no chunk "
        "table): `h5feed bench FILE --epochs 1 --batch 256`, seconds of the whole process, "
        f"medians of {args.rounds} rounds, the order alternating.",
        "",
        "| chunks | A s | B s | A/B (median) | A/B range | A ms per 1000 chunks | "
        "B ms per 1000 chunks |",
        "| ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for chunks, sa, sb, ratio, low, high in read_rows:
        lines.append(f"| {chunks:,} | {sa:.2f} | {sb:.2f} | {ratio:.2f} | {low:.2f}-{high:.2f} | "
                     f"{1e6 * sa / chunks:.0f} | {1e6 * sb / chunks:.0f} |")
    publish("\n".join(lines) + "\n", args.output)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--a", required=True, help="the baseline h5feed binary")
    parser.add_argument("--b", default="build/tools/h5feed", help="the candidate h5feed binary")
    parser.add_argument("--chunks", type=positive_int, nargs="+",
                        default=[10000, 20000, 40000, 80000],
                        help="chunks of the files converted (default: 10000 20000 40000 80000)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds (default 3)")
    parser.add_argument("--threads", type=positive_int, default=2, help="--threads (default 2)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-chunk-count-bench"),
                        help="where the arrays and files go")
    parser.add_argument("--output", type=Path,
                        default=Path(__file__).parent / "results" / "chunk_count.md",
                        help="the report (default bench/results/chunk_count.md)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(run_main("chunk_count_bench", parse_args, main_run, sys.argv[1:]))
