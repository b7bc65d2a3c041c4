#!/usr/bin/python3
"""The Python writer's benchmark (issue 38, "Done when"): h5feed.write against its references,
in one run, on one generated folder of real-looking JPEG and PNG files (50-400 px,
tests/data/make_image_folder.py), each image stored at --size (default 224x224, zstd:3):

  (a) convert     h5feed.convert_imagefolder(folder, ...): the native conversion of the files
  (b) paths       h5feed.write(dataset, out) of a dataset yielding (path, label)
  (c) bytes       h5feed.write of a dataset yielding (the file's bytes, label)
  (d) imagefolder h5feed.write of torchvision.datasets.ImageFolder (PIL images, decoded by
                  the dataset in the workers)
  (e) dataloader  torch.utils.data.DataLoader(ImageFolder, num_workers=W) merely iterated
                  (batches of 64 PIL images, collated as lists): reading the dataset, nothing
                  written

and reports images/s of each and the ratios the issue sets: paths / convert and bytes /
convert at least 0.8 (the native decoder, DCT scaling included, does the work in both), and
imagefolder / dataloader at least 0.9 (writing adds at most a tenth to reading the dataset).
Every write uses --workers processes and --threads native threads, the conversion (a) the
same threads, the DataLoader --workers processes. By default the workers take half the cores
and the native threads the other half: the DataLoader then reads with as many processes as
the writer's dataset runs in, and the writing is measured by what it adds to that reading,
not by the cores it takes from it (with workers on every core, the DataLoader's decoding alone
fills the machine, and any writing, however cheap, shows as its share of the CPU). The decoded
images of (d) and (e) come from PIL in the workers; (a) to (c) decode natively.

With --photos the folder holds JPEG crops of real photographs instead (bench/real_photos.py,
longer side 384-560 px, 472 on average, as ImageNet's images are about 469 x 387): generated files of 50-400 px decode in a fraction
of a photo's time, so the DataLoader's reading costs less beside the writing than it does on a
data set of photos.

Why ratios in one run: the machines are shared and noisy, so absolute rates of different runs
cannot be compared. Every variant runs on the same files, page cache warm, in interleaved
rounds (a b c d e, a b c d e, ...), each in a fresh process timed from inside around the one
call (imports and the folder's generation excluded), and the best of the rounds is kept.

The Markdown table is printed and written, with the command, the machine and the date, to
bench/results/python_writer.md. Run from the repository root after building:

    /usr/bin/python3 bench/python_writer_bench.py --build build --images 4000 --rounds 5 \\
        --workdir /tmp/h5feed-writer-bench
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
import time
from pathlib import Path

from bench_support import (BenchError, cpu_model, positive_int, publish, revision,
                           run_checked, run_main)

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
GENERATOR = REPO_DIR / "tests" / "data" / "make_image_folder.py"
RESULTS = BENCH_DIR / "results" / "python_writer.md"
RESULTS_PHOTOS = BENCH_DIR / "results" / "python_writer_photos.md"

VARIANTS = {
    "convert": "h5feed.convert_imagefolder",
    "paths": "h5feed.write, (path, label)",
    "bytes": "h5feed.write, (file bytes, label)",
    "imagefolder": "h5feed.write, torchvision ImageFolder (PIL)",
    "dataloader": "DataLoader(ImageFolder) iterated, nothing written",
}
# The folder each kind of input is made in under --workdir, and how the results name it.
FOLDERS = {False: "folder", True: "photos-384-560"}
DESCRIPTIONS = {False: "generated JPEG and PNG files (50-400 px)",
                True: "JPEG crops of real photographs (bench/real_photos.py, longer side 384-560 "
                      "px, ImageNet's sizes)"}
# (numerator, denominator, target): the bars.
RATIOS = [("paths", "convert", 0.8), ("bytes", "convert", 0.8),
          ("imagefolder", "dataloader", 0.9)]


class FilePaths:
    """The files of an ImageFolder as (path, label)."""

    def __init__(self, root):
        import torchvision
        folder = torchvision.datasets.ImageFolder(root)
        self.samples, self.classes = folder.samples, folder.classes

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


class FileBytes(FilePaths):
    def __getitem__(self, i):
        path, label = self.samples[i]
        with open(path, "rb") as f:
            return f.read(), label


def as_list(batch):
    return batch


def run_variant(args) -> dict:
    """One variant, in this (fresh) process: {"images", "seconds"}."""
    import h5feed
    import torchvision
    size = tuple(int(s) for s in args.size.split("x"))
    out = Path(args.workdir) / f"{args.variant}.h5"
    options = dict(size=size, threads=args.threads, overwrite=True)
    folder = str(Path(args.workdir) / FOLDERS[args.photos])
    if args.variant == "convert":
        start = time.perf_counter()
        report = h5feed.convert_imagefolder(folder, out, **options)
        return {"images": report["images"], "seconds": time.perf_counter() - start}
    if args.variant == "dataloader":
        import torch
        dataset = torchvision.datasets.ImageFolder(folder)
        start = time.perf_counter()
        loader = torch.utils.data.DataLoader(dataset, batch_size=64, num_workers=args.workers,
                                             collate_fn=as_list)
        images = sum(len(batch) for batch in loader)
        return {"images": images, "seconds": time.perf_counter() - start}
    dataset = {"paths": FilePaths, "bytes": FileBytes,
               "imagefolder": torchvision.datasets.ImageFolder}[args.variant](folder)
    start = time.perf_counter()
    report = h5feed.write(dataset, out, workers=args.workers, progress=False, **options)
    return {"images": report["images"], "seconds": time.perf_counter() - start}


def measure(args, variant: str) -> float:
    argv = [sys.executable, str(Path(__file__).resolve()), "--run", variant,
            *sys.argv[1:]]
    env = dict(os.environ, PYTHONPATH=str(Path(args.build).resolve() / "python"))
    done = run_checked(argv, timeout=3600, env=env)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["images"] != args.images:
        raise BenchError(f"{variant} wrote {result['images']} images of {args.images}")
    return result["images"] / result["seconds"]


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def run(args) -> int:
    if args.run:
        print(json.dumps(run_variant(args)))
        return 0
    folder = Path(args.workdir) / FOLDERS[args.photos]
    stamp = folder / f".images-{args.images}"
    if not stamp.exists():
        if args.photos:
            from real_photos import make_real_photos
            make_real_photos(folder, args.images, classes=10, seed=0, min_side=384,
                             max_side=560)
        else:
            run_checked([sys.executable, str(GENERATOR), str(folder), "--images",
                         str(args.images), "--classes", "10", "--min-size", "50", "--max-size",
                         "400"], timeout=3600)
        stamp.touch()
    for path in sorted(folder.rglob("*")):  # the page cache warm for every variant alike
        if path.is_file():
            path.read_bytes()
    before = load_average()
    rates = {variant: [] for variant in VARIANTS}
    started = time.perf_counter()
    for round_ in range(args.rounds):
        for variant in VARIANTS:
            rates[variant].append(measure(args, variant))
            print(f"round {round_ + 1}: {variant} {rates[variant][-1]:,.0f} images/s",
                  flush=True)
    best = {variant: max(values) for variant, values in rates.items()}
    lines = [
        "# h5feed.write against convert imagefolder and a DataLoader",
        "",
        f"Measured {datetime.date.today()} on {cpu_model()}, {os.cpu_count()} cores (load "
        f"average {before} before, {load_average()} after); revision {revision()}. "
        f"{args.images:,} {DESCRIPTIONS[args.photos]} stored at {args.size}, "
        f"zstd:3; {args.workers} worker processes, "
        f"{args.threads} native threads; best of {args.rounds} interleaved rounds, "
        "page cache warm.",
        "",
        "| variant | best images/s | rounds |",
        "| --- | ---: | --- |",
    ]
    for variant, title in VARIANTS.items():
        lines.append(f"| {title} | {best[variant]:,.0f} | "
                     f"{', '.join(f'{r:,.0f}' for r in rates[variant])} |")
    lines += ["", "| ratio | best / best | target | |", "| --- | ---: | ---: | --- |"]
    for numerator, denominator, target in RATIOS:
        ratio = best[numerator] / best[denominator]
        lines.append(f"| {numerator} / {denominator} | {ratio:.2f} | >= {target} | "
                     f"{'met' if ratio >= target else 'NOT met'} |")
    lines += ["", f"Total time {time.perf_counter() - started:.0f} s. Reproduce from the "
              "repository root after building:", "", "```sh",
              shlex.join(["/usr/bin/python3", "bench/python_writer_bench.py", *sys.argv[1:]]),
              "```", ""]
    publish("\n".join(lines), Path(args.output))
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the build tree (default: build)")
    parser.add_argument("--images", type=positive_int, default=2000)
    parser.add_argument("--size", default="224x224", help="HxW every image is stored at")
    cores = len(os.sched_getaffinity(0))
    parser.add_argument("--workers", type=positive_int, default=max(1, cores // 2),
                        help="h5feed.write's and the DataLoader's worker processes (default: "
                        "half the cores)")
    parser.add_argument("--threads", type=positive_int, default=max(1, cores - cores // 2),
                        help="native threads of the conversions (default: the other half)")
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument("--photos", action="store_true",
                        help="a folder of real photographs (bench/real_photos.py, longer side "
                        "384-560 px, as ImageNet's) instead of generated files")
    parser.add_argument("--workdir", default="/tmp/h5feed-writer-bench")
    parser.add_argument("--output", help="the results' file (default: bench/results/"
                        "python_writer.md, with --photos python_writer_photos.md)")
    parser.add_argument("--run", choices=list(VARIANTS), help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.variant = args.run
    args.output = args.output or str(RESULTS_PHOTOS if args.photos else RESULTS)
    return args


if __name__ == "__main__":
    sys.exit(run_main("python_writer_bench", parse_args, run, sys.argv[1:]))
