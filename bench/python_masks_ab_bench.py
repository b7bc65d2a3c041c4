#!/usr/bin/python3
"""Two builds of the Python module side by side on a loop delivering masks: what handing a
batch's host masks to Python costs the trainer's thread (a build that copies each mask into a
tensor of its own against one that shares the tensor the batch made, or any other change to
that path).

The file (generated in --workdir when absent, by the baseline's h5feed.write): --images
segmentation samples of 256 x 256 x 3 (seeded noise) with a uint8 mask of a few class
rectangles each, uncompressed. Each run is a child process importing one build's h5feed
(PYTHONPATH=BUILD/python) that opens `h5feed.Loader(FILE, --batch, fields=["mask"],
augment=h5feed.Augment(random_resized_crop=224, random_flip=True), dtype=None,
threads=--threads)`, reads one epoch to warm the page cache and the loader, then --epochs
epochs, timing next() on the iterating thread: its CPU time (time.thread_time: the mask's
transform, the binding and from_dlpack, not the worker threads) and the wall time.

Per round, in rotating order: the baseline (A), the candidate (B) and the baseline again
(A2). The report gives, per measure, the median over the rounds of B/A (CPU time per batch:
below 1 is cheaper; images/s: above 1 is faster), its range, and A2/A's, the noise of the
machine in the same rounds.

From the repository root, after building both (e.g. the baseline in a worktree):

    /usr/bin/python3 bench/python_masks_ab_bench.py --a /tmp/before/build --b build \\
        --workdir /tmp/h5feed-masks-bench
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

from bench_support import BenchError, cpu_model, positive_int, publish, revision, run_main

BENCH_DIR = Path(__file__).resolve().parent
SIDE = 256  # stored images and masks
CROP = 224  # delivered masks: (batch, 224, 224) uint8


def python_path(build: str) -> str:
    path = Path(build).resolve() / "python"
    if not (path / "h5feed" / "__init__.py").is_file():
        raise BenchError(f"no h5feed Python package in {path}: build {build} first")
    return str(path)


def child_env(build: str) -> dict:
    return {**os.environ, "PYTHONPATH": python_path(build)}


def make_file(args: argparse.Namespace) -> Path:
    """The segmentation file, written once by the baseline's h5feed.write."""
    path = Path(args.workdir) / f"masks_{args.images}.h5"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    program = f"""
import numpy as np, h5feed
class Samples:
    def __len__(self):
        return {args.images}
    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        mask = np.zeros(({SIDE}, {SIDE}), np.uint8)
        for c in range(1, 4):
            y, x = rng.integers(0, {SIDE} - 64, 2)
            mask[y:y + 64, x:x + 96] = c
        return {{"image": rng.integers(0, 256, ({SIDE}, {SIDE}, 3), dtype=np.uint8),
                 "label": i % 21, "mask": mask}}
h5feed.write(Samples(), {str(path) + '.partial'!r}, size={SIDE}, workers=0, progress=False)
"""
    done = subprocess.run([sys.executable, "-c", program], env=child_env(args.a),
                          capture_output=True, text=True, timeout=args.timeout)
    if done.returncode != 0:
        raise BenchError(f"writing {path} failed: {done.stderr.strip()[-2000:]}")
    os.replace(str(path) + ".partial", path)
    return path


# The child: one build, one loader, the epochs timed. Prints a JSON line.
CHILD = """
import json, sys, time, h5feed
path, batch, threads, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
loader = h5feed.Loader(path, batch, fields=["mask"], dtype=None, threads=threads,
                       open_probe=False, seed=1,
                       augment=h5feed.Augment(random_resized_crop={crop}, random_flip=True))
def epoch():
    cpu, batches, images = 0.0, 0, 0
    iterator = iter(loader)
    while True:
        start = time.thread_time()
        delivered = next(iterator, None)
        cpu += time.thread_time() - start
        if delivered is None:
            return cpu, batches, images
        images += delivered[0].shape[0]
        assert tuple(delivered[2].shape[1:]) == ({crop}, {crop})
        batches += 1
        del delivered
epoch()  # warm: the page cache and the loader
cpu, batches, images = 0.0, 0, 0
start = time.perf_counter()
for e in range(epochs):
    loader.set_epoch(e + 1)
    c, b, i = epoch()
    cpu, batches, images = cpu + c, batches + b, images + i
wall = time.perf_counter() - start
print(json.dumps({{"cpu_ms_per_batch": 1e3 * cpu / batches, "images_per_s": images / wall}}))
""".format(crop=CROP)


def measure(args: argparse.Namespace, build: str, path: Path) -> dict:
    argv = [sys.executable, "-c", CHILD, str(path), str(args.batch), str(args.threads),
            str(args.epochs)]
    done = subprocess.run(argv, env=child_env(build), capture_output=True, text=True,
                          timeout=args.timeout)
    if done.returncode != 0:
        raise BenchError(f"the loop on {build} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(args: argparse.Namespace) -> int:
    for build in (args.a, args.b):
        python_path(build)
    path = make_file(args)
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict]] = {"a": [], "b": [], "a2": []}
    orders = (("a", "b", "a2"), ("b", "a2", "a"), ("a2", "a", "b"))
    for round_index in range(args.rounds):
        for variant in orders[round_index % len(orders)]:
            runs[variant].append(measure(args, args.b if variant == "b" else args.a, path))
        print(f"round {round_index + 1}/{args.rounds}: " + ", ".join(
            f"{v} {runs[v][-1]['cpu_ms_per_batch']:.2f} ms/batch "
            f"{runs[v][-1]['images_per_s']:,.0f} images/s" for v in runs), flush=True)

    def ratios(variant: str, key: str) -> list[float]:
        return [x[key] / a[key] for x, a in zip(runs[variant], runs["a"])]

    lines = [
        "# Masks handed to Python: two builds of the module on the same loop", "",
        f"Measured {datetime.date.today().isoformat()} on {cpu_model()}, {os.cpu_count()} "
        f"cores (load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after); "
        f"revision {revision()}.",
        f"A: `{args.a}`; B: `{args.b}`. {args.images} samples of {SIDE} x {SIDE} x 3 with a "
        f"uint8 mask, uncompressed, read warm; `fields=[\"mask\"]`, "
        f"`random_resized_crop={CROP}` with flips (masks ({args.batch}, {CROP}, {CROP}) uint8), "
        f"uint8 images (`dtype=None`), batch {args.batch}, {args.threads} threads, "
        f"{args.epochs} epochs a run after a warm one; {args.rounds} rounds of A, B and A "
        "again (A2), the order rotating; the ratios are per round.", "",
        "| measure | A (median) | B (median) | B/A median | B/A range | A2/A median | "
        "A2/A range |",
        "| --- | ---: | ---: | ---: | --- | ---: | --- |"]
    for key, what in (("cpu_ms_per_batch", "iterating thread's CPU, ms a batch"),
                      ("images_per_s", "images/s")):
        b, a2 = ratios("b", key), ratios("a2", key)
        lines.append(
            f"| {what} | {statistics.median(r[key] for r in runs['a']):,.2f} | "
            f"{statistics.median(r[key] for r in runs['b']):,.2f} | {statistics.median(b):.3f} | "
            f"{min(b):.3f}-{max(b):.3f} | {statistics.median(a2):.3f} | "
            f"{min(a2):.3f}-{max(a2):.3f} |")
    lines += ["", "Reproduce from the repository root after building both:", "", "```sh",
              "/usr/bin/python3 bench/python_masks_ab_bench.py " + shlex.join(sys.argv[1:]),
              "```", ""]
    publish("\n".join(lines), args.output)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="A/B of two builds' Python module on a loop delivering 224 x 224 masks.")
    parser.add_argument("--a", required=True, help="the baseline's build folder")
    parser.add_argument("--b", default="build", help="the candidate's (default %(default)s)")
    parser.add_argument("--workdir", default="/tmp/h5feed-masks-bench",
                        help="where the file is made (default %(default)s)")
    parser.add_argument("--images", type=positive_int, default=1024, help="default 1024")
    parser.add_argument("--batch", type=positive_int, default=256, help="default 256")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--epochs", type=positive_int, default=5, help="default 5")
    parser.add_argument("--rounds", type=positive_int, default=7, help="default 7")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a run (600)")
    parser.add_argument("--output", type=Path,
                        default=BENCH_DIR / "results" / "python_masks_ab.md")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(run_main("python_masks_ab_bench", parse_args, run, sys.argv[1:]))
