#!/usr/bin/python3
"""Conversion in parts and `h5feed merge` (issue 28, "Speed"), as ratios from one run.

On one image folder (generated JPEG/PNG files of 50-400 px, tests/data/make_image_folder.py,
or --folder, e.g. real photos of bench/real_photos.py), converted with --convert-options
(default --size 224x224, zstd:3):

  (a) one process with N threads:      h5feed convert imagefolder F one.h5 --threads N
  (b) N processes with 1 thread each:  h5feed convert ... --part K/N --threads 1, all at once
      (started here, as a launcher would; target: (b) within 10% of (a))
  (c) h5feed merge of N parts of --merge-mib MiB together (random pixels from a NumPy array,
      `convert npy --part K/N`: a copy does not care what the bytes are, and (b)'s few hundred
      MiB would mostly time the program's start and the parts' opening)
  (d) cp of the same part files into the same folder, then `sync FILE` on each copy, which
      fsyncs it as merge fsyncs its output; and cp alone (target: merge >= 0.8x of cp)

Before each copy (c, d) the last one's output is deleted and the page cache written back
(`sync`), untimed, so that no copy pays for another's leftovers.

Reported: images/s of (a) and (b), the per-process rate (b)/N, bytes/s of (c) and (d), and
the ratios. Every variant runs in each of --rounds interleaved rounds (a b c d, a b d c, ...),
on files warm in the page cache, and keeps its best round, so a slow spell on a shared machine
hurts all variants alike. Run from the repository root after building:

    /usr/bin/python3 bench/parts_bench.py --h5feed build/tools/h5feed --images 2000 \\
        --parts 2 --merge-mib 1024 --workdir /tmp/h5feed-parts

The Markdown table is printed and written to --output (bench/results/parts.md; docs/scale.md
quotes it). Real photos at their own size, as ImageNet would be converted:

    /usr/bin/python3 bench/real_photos.py /tmp/photos --images 1000 --min-side 200 --max-side 1000
    /usr/bin/python3 bench/parts_bench.py --h5feed build/tools/h5feed --folder /tmp/photos \\
        --convert-options '--max-side 512 --encoding jpeg:90' --parts 2 \\
        --output bench/results/parts_photos.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench_support import (BenchError, cpu_model, executable, positive_int, publish, revision,
                           run_checked, run_main)

BENCH_DIR = Path(__file__).resolve().parent
GENERATOR = BENCH_DIR.parent / "tests" / "data" / "make_image_folder.py"


def part_paths(out: Path, parts: int) -> list[Path]:
    return [out.with_name(f"{out.stem}-{k:05d}-of-{parts:05d}{out.suffix}") for k in range(parts)]


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def warm(paths) -> None:
    for path in paths:
        for root, _, names in os.walk(path) if os.path.isdir(path) else [("", [], [path])]:
            for name in names:
                with open(os.path.join(root, name), "rb") as file:
                    while file.read(1 << 20):
                        pass


def main_run(args: argparse.Namespace) -> int:
    h5feed = executable(args.h5feed, "the h5feed command", "build it: ninja -C build h5feed_cli")
    args.workdir.mkdir(parents=True, exist_ok=True)
    folder = args.folder or args.workdir / f"images-{args.images}"
    if args.folder:
        args.images = sum(len(files) for _, _, files in os.walk(folder))
    elif not folder.is_dir():
        print(f"generating {args.images} images in {folder} ...", flush=True)
        run_checked([sys.executable, str(GENERATOR), str(folder), "--images", str(args.images),
                     "--classes", "10", "--min-size", "50", "--max-size", "400", "--seed", "1"],
                    timeout=3600, stdout=None)
    out = args.workdir / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    convert = [h5feed, "convert", "imagefolder", str(folder), *shlex.split(args.convert_options),
               "--quiet", "--force"]
    one = out / "one.h5"
    parted = out / "parts.h5"
    merged = out / "merged.h5"
    copies = out / "copies"

    # The merge's input: N parts of random 224 x 224 RGB images, uncompressed (quick to write).
    pixels = out / "pixels.npy"
    rows = max(args.parts, (args.merge_mib << 20) // (224 * 224 * 3))
    array = np.lib.format.open_memmap(pixels, mode="w+", dtype=np.uint8,
                                      shape=(rows, 224, 224, 3))
    rng = np.random.default_rng(0)
    for start in range(0, rows, 256):
        block = array[start:start + 256]
        block[...] = rng.integers(0, 256, block.shape, dtype=np.uint8)
    array.flush()
    del array
    to_merge = out / "merge.h5"
    parts = part_paths(to_merge, args.parts)
    for k in range(args.parts):
        run_checked([h5feed, "convert", "npy", str(pixels), str(to_merge), "--compression",
                     "none", "--part", f"{k}/{args.parts}", "--quiet"], timeout=3600)
    pixels.unlink()

    def run_one():
        run_checked([*convert[:4], str(one), *convert[4:], "--threads", str(args.parts)],
                    timeout=3600)

    def run_parts():
        processes = [subprocess.Popen([*convert[:4], str(parted), *convert[4:], "--threads", "1",
                                       "--part", f"{k}/{args.parts}"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                     for k in range(args.parts)]
        for process in processes:
            _, stderr = process.communicate(timeout=3600)
            if process.returncode not in (0, 3):  # 3: some inputs skipped, as in (a)
                raise BenchError(f"a part failed ({process.returncode}): {stderr}")

    def clear_outputs():
        """Untimed: neither copy pays for deleting the last one's output (replacing a file
        frees its blocks during the rename) or for writing back what an earlier step left
        dirty in the page cache."""
        merged.unlink(missing_ok=True)
        shutil.rmtree(copies, ignore_errors=True)
        copies.mkdir()
        os.sync()

    def run_merge():
        run_checked([h5feed, "merge", *map(str, parts), str(merged), "--quiet"], timeout=3600)

    def run_cp(fsync: bool):
        run_checked(["cp", *map(str, parts), str(copies)], timeout=3600)
        if fsync:
            run_checked(["sync", *[str(copies / p.name) for p in parts]], timeout=3600)

    warm([folder])
    seconds: dict[str, list[float]] = {k: [] for k in ("one", "parts", "merge", "cp_sync", "cp")}
    for round_number in range(args.rounds):
        print(f"round {round_number + 1}/{args.rounds}", flush=True)
        seconds["one"].append(timed(run_one))
        seconds["parts"].append(timed(run_parts))
        warm(parts)  # the parts of (c): as warm as a node's own conversion output would be
        # (c) and (d) take turns to go first: on some machines buffered writes are slower right
        # after another program's large output was deleted, which would favour whichever of
        # the two always came second.
        pair = [("merge", run_merge), ("cp_sync", lambda: run_cp(True))]
        for key, run in pair if round_number % 2 == 0 else reversed(pair):
            clear_outputs()
            seconds[key].append(timed(run))
        clear_outputs()
        seconds["cp"].append(timed(lambda: run_cp(False)))
    best = {key: min(values) for key, values in seconds.items()}
    total_bytes = sum(p.stat().st_size for p in parts)
    images = args.images
    rate_one = images / best["one"]
    rate_parts = images / best["parts"]
    mib = 1 << 20

    def rounds(key: str) -> str:
        return ", ".join(f"{value:.2f}" for value in seconds[key])

    command = "/usr/bin/python3 bench/parts_bench.py " + shlex.join(
        ["--h5feed", args.h5feed, *(["--folder", str(args.folder)] if args.folder else
                                     ["--images", str(args.images)]),
         "--convert-options", args.convert_options, "--parts", str(args.parts),
         "--merge-mib", str(args.merge_mib), "--rounds", str(args.rounds),
         "--workdir", str(args.workdir)])
    lines = [
        "# Conversion in parts and merge",
        "",
        f"Command: `{command}`  ",
        f"Machine: {cpu_model()}, {os.cpu_count()} cores; revision {revision()}; "
        f"{datetime.date.today().isoformat()}  ",
        f"(a), (b): {images} images of {args.folder or 'generated (50-400 px JPEG/PNG)'}, "
        f"converted with `{args.convert_options}`. "
        f"(c), (d): {args.parts} parts of {total_bytes / mib:.0f} MiB together. Best of "
        f"{args.rounds} interleaved rounds, (c) and (d) taking turns to go first.",
        "",
        "| variant | seconds (best) | rate | ratio | every round, s |",
        "| --- | ---: | ---: | ---: | --- |",
        f"| (a) 1 process, {args.parts} threads | {best['one']:.2f} | {rate_one:.0f} img/s | 1 | {rounds('one')} |",
        f"| (b) {args.parts} processes (`--part K/{args.parts}`), 1 thread each | "
        f"{best['parts']:.2f} | {rate_parts:.0f} img/s ({rate_parts / args.parts:.0f} per process)"
        f" | {rate_parts / rate_one:.2f}x of (a) | {rounds('parts')} |",
        f"| (c) `h5feed merge` of {args.parts} parts | {best['merge']:.2f} | "
        f"{total_bytes / best['merge'] / mib:.0f} MiB/s | {best['cp_sync'] / best['merge']:.2f}x "
        f"of (d), {best['cp'] / best['merge']:.2f}x of cp alone | {rounds('merge')} |",
        f"| (d) cp of the same files, then fsync | {best['cp_sync']:.2f} | "
        f"{total_bytes / best['cp_sync'] / mib:.0f} MiB/s | 1 | {rounds('cp_sync')} |",
        f"| cp alone (the copy may still be in the page cache) | {best['cp']:.2f} | "
        f"{total_bytes / best['cp'] / mib:.0f} MiB/s | | {rounds('cp')} |",
        "",
    ]
    publish("\n".join(lines), args.output)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--h5feed", default="build/tools/h5feed")
    parser.add_argument("--images", type=positive_int, default=2000)
    parser.add_argument("--parts", type=positive_int, default=2,
                        help="N: processes of (b), threads of (a); at most the cores")
    parser.add_argument("--folder", type=Path,
                        help="convert this image folder in (a) and (b) instead of generating "
                             "--images images (e.g. bench/real_photos.py's)")
    parser.add_argument("--convert-options", default="--size 224x224",
                        help="options of the conversions (a) and (b), e.g. "
                             "'--max-side 512 --encoding jpeg:90'")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "parts.md")
    parser.add_argument("--merge-mib", type=positive_int, default=1024,
                        help="MiB of the parts merged in (c) and copied in (d)")
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-parts"))
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(run_main("parts_bench", parse_args, main_run, sys.argv[1:]))
