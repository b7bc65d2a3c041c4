#!/usr/bin/python3
"""What the copied labels and indices of h5feed.Loader cost the trainer's thread (issue 17,
part 3: they are tensors of their own, so keeping them holds no slot).

One process, one loader, epochs alternating between (images, labels) and with_indices=True,
which adds one copied int64 tensor: its capsule, the copy of 8 bytes a sample out of the
slot, and torch's from_dlpack. That tensor costs at least what copying the labels adds over
the view they were before (a view needed a capsule and from_dlpack too), so its share of a
batch bounds the labels copy's. Measured as CPU time of the iterating thread in next()
(time.thread_time: what the binding and Python do there, not the worker threads), with a
training step between batches (a spin, not counted) so that batches are ready when asked for;
the median over the rounds of the paired per-batch differences, and their interquartile range
(the noise of the machine at the time).

The file is the worst case for the share: tiny images (8 x 8 x 3), uncompressed, read from
the cache, so a batch's other work on the trainer's thread is as small as it gets.

    /usr/bin/python3 bench/python_tensor_copy_bench.py --build build
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_support import BenchError, cpu_model, positive_int, publish, revision, run_main

BENCH_DIR = Path(__file__).resolve().parent


def epoch_cost(loader, with_indices: bool, step_seconds: float) -> float:
    """Trainer-thread CPU seconds per batch of one epoch, of the iteration's step alone: a
    training step of `step_seconds` (a spin, not counted) lets the loader get ahead, so the
    figure is the work of handing a ready batch over, not of waiting for one."""
    loader.with_indices = with_indices
    batches, spent = 0, 0.0
    iterator = iter(loader)
    while True:
        start = time.thread_time()
        batch = next(iterator, None)
        spent += time.thread_time() - start
        if batch is None:
            return spent / batches
        batches += 1
        del batch
        until = time.perf_counter() + step_seconds
        while time.perf_counter() < until:
            pass


def run(args: argparse.Namespace) -> int:
    python_path = Path(args.build).resolve() / "python"
    if not (python_path / "h5feed" / "__init__.py").is_file():
        raise BenchError(f"no h5feed Python package in {python_path}: build it first")
    sys.path.insert(0, str(python_path))
    import numpy as np
    import h5feed

    with tempfile.TemporaryDirectory() as folder:
        rng = np.random.default_rng(0)
        np.save(f"{folder}/x.npy", rng.integers(0, 256, (args.images, 8, 8, 3), dtype=np.uint8))
        np.save(f"{folder}/y.npy", rng.integers(0, 10, args.images).astype(np.int64))
        path = f"{folder}/tiny.h5"
        h5feed.convert_npy(f"{folder}/x.npy", path, labels=f"{folder}/y.npy",
                           compression="none")
        loader = h5feed.Loader(path, args.batch, sampler="sequential", dtype=None,
                               threads=args.threads, open_probe=False)
        epoch_cost(loader, False, 0)  # warm: the cache holds the file from here on
        without, with_indices = [], []
        for round_index in range(args.repeats):
            order = (False, True) if round_index % 2 == 0 else (True, False)
            for indices in order:
                (with_indices if indices else without).append(epoch_cost(loader, indices, args.step_us * 1e-6))
    differences = [w - o for w, o in zip(with_indices, without)]
    added = statistics.median(differences)
    low, _, high = statistics.quantiles(differences, n=4)
    base = statistics.median(without)
    command = "/usr/bin/python3 bench/python_tensor_copy_bench.py " + shlex.join(sys.argv[1:])
    text = "\n".join([
        "# The copied index tensor of h5feed.Loader, per batch on the trainer's thread", "",
        f"Measured {datetime.date.today().isoformat()} on {cpu_model()}, {os.cpu_count()} cores "
        f"(load average {os.getloadavg()[0]:.1f}); revision {revision()}. {args.images:,} "
        f"images of 8 x 8 x 3, uncompressed, batch {args.batch}, {args.threads} threads, "
        f"{args.repeats} rounds of one epoch each way, alternating; a {args.step_us} µs training "
        f"step (a spin) between batches, so the figures are next() handing over a ready batch.",
        "",
        "| per batch, trainer-thread CPU | µs |", "| --- | ---: |",
        f"| (images, labels) | {base * 1e6:.1f} |",
        f"| one more copied int64 tensor (with_indices), median of the paired differences | "
        f"{added * 1e6:.1f} |",
        f"| the same, interquartile range | {low * 1e6:.1f} to {high * 1e6:.1f} |",
        f"| its share of a batch | {added / base:.3f} |", "",
        "The labels copy costs at most what the index tensor costs (a view needed the capsule "
        "and from_dlpack as well). Reproduce from the repository root after building:", "",
        "```sh", command, "```", ""])
    publish(text, args.output)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Trainer-thread cost per batch of a copied label/index tensor of "
                    "h5feed.Loader, against the rest of the batch, in one run.")
    parser.add_argument("--build", default="build", help="build folder (default %(default)s)")
    parser.add_argument("--images", type=positive_int, default=100000, help="default 100000")
    parser.add_argument("--batch", type=positive_int, default=256, help="default 256")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--repeats", type=positive_int, default=21, help="rounds (default 21)")
    parser.add_argument("--step-us", type=positive_int, default=300,
                        help="the training step's spin between batches, µs (default 300)")
    parser.add_argument("--output", type=Path,
                        default=BENCH_DIR / "results" / "python_tensor_copy.md")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(run_main("python_tensor_copy_bench", parse_args, run, sys.argv[1:]))
