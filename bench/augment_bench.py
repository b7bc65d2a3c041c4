#!/usr/bin/python3
"""The ImageNet training augmentation on the CPU (issue 19, "Speed"): h5feed's random resized
crop + flip + normalize against a PyTorch DataLoader applying torchvision's tensor transforms to
the same images read with h5py, with as many workers as h5feed has threads, as a ratio measured
in one run (target >= 3x).

File: --images 256x256x3 images (bench/loader_bench.py's generator: smooth colour fields plus
noise, what a folder converted with `--size 256 --resize crop` holds), converted with `h5feed
convert npy`, uncompressed and zstd:3 (--compression picks which are measured).

Per file and round (rounds interleaved; page cache warm; each run a fresh process; in each run
an untimed first epoch starts the threads or workers and fills caches, then one epoch is
timed, from its first batch request to its last batch), reported as the best of --repeats
rounds and as the median of each round's h5feed / reference ratio (its two runs shared the
load of that moment; the machines these run on are shared):
  h5feed     h5feed.Loader(FILE, B, threads=T, augment=Augment(random_resized_crop=224,
             random_flip=True)): float32 N x 3 x 224 x 224 batches, ImageNet's mean and std.
  reference  DataLoader(Dataset, B, shuffle=True, num_workers=T, persistent_workers=True): the
             Dataset opens the file lazily per worker with h5py, reads f['images'][i] and
             applies T.Compose([RandomResizedCrop(224, antialias=True), RandomHorizontalFlip(),
             ConvertImageDtype(torch.float32), Normalize(mean, std)]) to the uint8 C x H x W
             tensor (torchvision 0.14's tensor transforms; workers run 1 torch thread each).
  bench      `h5feed bench FILE --augment rrc=224,flip --threads T --batch B --epochs 2 --json`
             (C++): its images/s, and the augmentation alone on the same threads (the most a
             CPU loader doing this work gets on this machine) with the fraction reached.

The Markdown report goes to bench/results/augment.md with the command, machine, revision and
date. Build first (the h5feed command, the Python module, the zstd plugin), then from the
repository root:

    /usr/bin/python3 bench/augment_bench.py --build build --workdir /tmp/h5feed-augment-bench
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

from bench_support import (BenchError, cpu_model, executable, positive_int, publish, revision,
                           run_main)
from loader_bench import Shape, ensure_files, run_json, warm_page_cache

BENCH_DIR = Path(__file__).resolve().parent
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
SIZE = 224


def timed_epoch(batches) -> dict:
    """Iterates one epoch; the clock runs from the first request to the last batch."""
    images, sink = 0, 0.0
    start = time.perf_counter()
    finished = start
    for images_tensor, labels in batches:
        sink += float(images_tensor[0, 0, 0, 0])
        images += labels.shape[0]
        finished = time.perf_counter()
    seconds = finished - start
    return {"images": images, "seconds": seconds, "images_per_s": images / seconds}


def run_h5feed(args: argparse.Namespace) -> dict:
    import h5feed
    loader = h5feed.Loader(args.run_file, args.batch, threads=args.threads, mean=MEAN, std=STD,
                           augment=h5feed.Augment(random_resized_crop=SIZE, random_flip=True))
    loader.set_epoch(0)
    for _ in loader:  # untimed: threads start, the cache fills
        pass
    loader.set_epoch(1)
    return timed_epoch(loader)


def run_reference(args: argparse.Namespace) -> dict:
    import h5py
    import torch
    import torchvision.transforms as T
    from torch.utils.data import DataLoader, Dataset

    class Images(Dataset):
        def __init__(self, path: str, transform):
            self.path, self.transform, self.file = path, transform, None
            with h5py.File(path, "r") as f:
                self.labels = f["labels"][:]

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, index):
            if self.file is None:  # opened in each worker, never in the parent
                self.file = h5py.File(self.path, "r")
            image = torch.from_numpy(self.file["images"][index]).permute(2, 0, 1)
            return self.transform(image), int(self.labels[index])

    transform = T.Compose([T.RandomResizedCrop(SIZE, antialias=True), T.RandomHorizontalFlip(),
                           T.ConvertImageDtype(torch.float32), T.Normalize(MEAN, STD)])
    loader = DataLoader(Images(args.run_file, transform), batch_size=args.batch, shuffle=True,
                        num_workers=args.threads, persistent_workers=True)
    for _ in loader:  # untimed: workers start and open the file
        pass
    return timed_epoch(loader)


def measure(args, tools, path: Path, order: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=tools["python_path"], HDF5_PLUGIN_PATH=tools["plugins"])
    common = ["--batch", str(args.batch), "--threads", str(args.threads)]
    results = {}
    for variant in order:
        if variant == "bench":
            results[variant] = run_json(
                [tools["h5feed"], "bench", str(path), "--augment", f"rrc={SIZE},flip",
                 "--epochs", "2", "--json", *common], args.timeout)
        else:
            results[variant] = run_json([sys.executable, __file__, "--run", variant,
                                         "--run-file", str(path), *common], args.timeout, env)
    return results


def report(args, rows: list[dict], started: float, load: tuple[float, float]) -> str:
    command = "/usr/bin/python3 bench/augment_bench.py " + shlex.join(sys.argv[1:])
    lines = [
        "# RandomResizedCrop + flip + normalize on the CPU: h5feed against DataLoader + "
        "torchvision", "",
        f"Measured {datetime.date.today().isoformat()} on {cpu_model()}, {os.cpu_count()} cores "
        f"(load average {load[0]:.1f} before, {load[1]:.1f} after); revision {revision()}. "
        f"{args.images:,} images of 256x256x3 stored, delivered as float32 3x{SIZE}x{SIZE}; "
        f"batch {args.batch}; {args.threads} threads (h5feed) and {args.threads} workers (the "
        f"reference); best of {args.repeats} interleaved rounds, each run a fresh process with "
        "an untimed first epoch; page cache warm.", "",
        "| file | h5feed best images/s | DataLoader + torchvision best images/s | best / best "
        "| per-round ratios (median) | target >= 3x | `h5feed bench` images/s | augmentation "
        "alone images/s | bench / alone |",
        "| --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        best = {v: max(row[v], key=lambda r: r["images_per_s"]) for v in
                ("h5feed", "reference", "bench")}
        ratio = best["h5feed"]["images_per_s"] / best["reference"]["images_per_s"]
        # Each round's two runs shared the machine's load of that moment.
        paired = [h["images_per_s"] / r["images_per_s"]
                  for h, r in zip(row["h5feed"], row["reference"])]
        median = statistics.median(paired)
        alone = best["bench"].get("augment_images_per_s", 0)
        lines.append(
            f"| {row['file']} | {best['h5feed']['images_per_s']:,.0f} | "
            f"{best['reference']['images_per_s']:,.0f} | {ratio:.1f}x | "
            f"{', '.join(f'{p:.1f}' for p in paired)} (**{median:.1f}x**) | "
            f"{'met' if min(ratio, median) >= 3 else 'NOT met'} | "
            f"{best['bench']['images_per_s']:,.0f} | {alone:,.0f} | "
            f"{best['bench'].get('fraction_of_augment', 0):.2f} |")
    lines += ["", f"Total time {time.perf_counter() - started:.0f} s. Reproduce from the "
              "repository root after building:", "", "```sh", command, "```", ""]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.run:
        print(json.dumps(run_h5feed(args) if args.run == "h5feed" else run_reference(args)))
        return 0
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    build = Path(args.build).resolve()
    hint = (f"build it first: cmake --build {args.build} --target h5feed_cli h5feed_python "
            "h5feed_zstd_plugin")
    tools = {"h5feed": executable(str(build / "tools" / "h5feed"), "h5feed", hint),
             "python_path": str(build / "python"), "plugins": str(build / "plugins")}
    if not (build / "python" / "h5feed" / "__init__.py").is_file():
        raise BenchError(f"no h5feed Python package in {build / 'python'}: {hint}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    shape = Shape("stored256", "256x256", args.images, 256, 256)
    rows = []
    for f in ensure_files(args, shape, tools["h5feed"]):
        if f.compression in args.compression:
            warm_page_cache(f.path)
            rows.append({"file": f"{args.images:,} x 256x256x3 {f.compression}", "path": f.path,
                         "h5feed": [], "reference": [], "bench": []})
    variants = ["h5feed", "reference", "bench"]
    for round_index in range(args.repeats):
        for row in rows:
            order = variants[round_index % 3:] + variants[:round_index % 3]  # rotate who's first
            results = measure(args, tools, row["path"], order)
            for variant, result in results.items():
                row[variant].append(result)
            print(f"round {round_index + 1}/{args.repeats} {row['file']}: " + ", ".join(
                f"{v} {results[v]['images_per_s']:,.0f}" for v in variants) + " images/s",
                flush=True)
    publish(report(args, rows, started, (load_before, os.getloadavg()[0])), args.output)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="h5feed's RandomResizedCrop + flip + normalize against a DataLoader applying "
                    "torchvision's transforms to h5py reads, as a ratio in one run (issue 19).")
    parser.add_argument("--build", default="build", help="build folder (default %(default)s)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-augment-bench"),
                        help="generated and converted files (default %(default)s)")
    parser.add_argument("--images", type=positive_int, default=2000, help="default 2000")
    parser.add_argument("--compression", default="none",
                        help="none, zstd:3 or both comma-separated (default %(default)s)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="rounds (default 3)")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--batch", type=positive_int, default=128, help="default 128")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per command")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "augment.md")
    parser.add_argument("--run", choices=("h5feed", "reference"), help=argparse.SUPPRESS)
    parser.add_argument("--run-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.compression = [c.strip() for c in args.compression.split(",") if c.strip()]
    if not args.compression or not set(args.compression) <= {"none", "zstd:3"}:
        parser.error("--compression takes none, zstd:3 or both")
    return args


def main(argv: list[str]) -> int:
    return run_main("augment_bench", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
