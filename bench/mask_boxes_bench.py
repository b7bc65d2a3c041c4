#!/usr/bin/python3
"""What a mask or boxes cost beside the images (issue 39, "Done when": a mask at most 1.25x the
time of the same RandomResizedCrop epoch without it, boxes at most 1.1x).

The file (generated in --workdir when absent) is the loader tests' geometry file, written with
the library's Writer by `write_geometry_test_file` (built with the tests): --images coordinate
images of 60 x 80 with a uint16 mask `mask`, boxes `boxes` and their classes `box_labels`.

Per round, alternating the order, `h5feed bench FILE --augment rrc=56,flip --epochs E --json
--no-ceilings` runs without fields (A), with `--fields mask` (M), with `--fields boxes` (B) and
without again (A2). The time of an epoch is the inverse of the rate, so A/M is the mask's time
factor (1.25 at most) and A/B the boxes' (1.1 at most); A/A2 is the machine's noise alone. The
report has the median of each and their range.

From the repository root, after building (`cmake --build build`):

    /usr/bin/python3 bench/mask_boxes_bench.py --rounds 5
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
from pathlib import Path

from bench_support import (BenchError, cpu_model, executable, positive_int, publish, revision,
                           run_checked, run_main)
import loader_bench

BENCH_DIR = Path(__file__).resolve().parent
VARIANTS = {"a": [], "mask": ["--fields", "mask"], "boxes": ["--fields", "boxes"], "a2": []}
TARGETS = {"mask": 1.25, "boxes": 1.1}


def rate(args: argparse.Namespace, path: Path, variant: str) -> float:
    argv = [args.h5feed, "bench", str(path), "--augment", "rrc=56,flip", "--batch", "256",
            "--threads", str(args.threads), "--epochs", str(args.epochs), "--json",
            "--no-ceilings", *VARIANTS[variant]]
    report = loader_bench.run_json(argv, args.timeout)
    if report["fields"] != VARIANTS[variant][1:]:
        raise BenchError(f"h5feed bench read fields {report['fields']}: {' '.join(argv)}")
    return float(report["images_per_s"])


def time_factors(rates: dict[str, list[float]], variant: str) -> list[float]:
    """Per round: the variant's time for an epoch over A's (A's rate over the variant's)."""
    return [a / x for a, x in zip(rates["a"], rates[variant])]


def report(args: argparse.Namespace, rates: dict[str, list[float]],
           load: tuple[float, float]) -> str:
    lines = [
        "# Masks and boxes beside RandomResizedCrop images: time of an epoch against none",
        "",
        f"Measured {datetime.date.today()} on {cpu_model()}, {os.cpu_count()} cores (load "
        f"average {load[0]:.1f} before, {load[1]:.1f} after); revision {revision()}.",
        f"{args.images} images of 60 x 80 with a uint16 mask and boxes, `--augment rrc=56,flip`,"
        f" {args.epochs} epochs a run, {args.threads} threads, {args.rounds} rounds in "
        "alternating order; the factors are per round (A's rate over the variant's).",
        "",
        "| fields | images/s (median) | time factor median | range | target | |",
        "| --- | ---: | ---: | --- | ---: | --- |",
        f"| none (A) | {statistics.median(rates['a']):,.0f} | 1 | | | |",
    ]
    for variant in ("mask", "boxes", "a2"):
        factors = time_factors(rates, variant)
        target = TARGETS.get(variant)
        verdict = "" if target is None else (
            "met" if statistics.median(factors) <= target else "NOT met")
        lines.append(
            f"| {variant if variant != 'a2' else 'none again (A2: noise)'} | "
            f"{statistics.median(rates[variant]):,.0f} | {statistics.median(factors):.3f} | "
            f"{min(factors):.3f}-{max(factors):.3f} | {target or ''} | {verdict} |")
    lines += ["", "Reproduce from the repository root after building:", "", "```sh",
              " ".join(["/usr/bin/python3 bench/mask_boxes_bench.py"] + sys.argv[1:]), "```", ""]
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--h5feed", default="build/tools/h5feed",
                        help="h5feed binary (default %(default)s)")
    parser.add_argument("--writer", default="build/tests/lib/loader/write_geometry_test_file",
                        help="the file's writer (default %(default)s)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-mask-boxes-bench"),
                        help="generated data (default %(default)s)")
    parser.add_argument("--images", type=positive_int, default=20000, help="default 20000")
    parser.add_argument("--rounds", type=positive_int, default=5, help="default 5")
    parser.add_argument("--epochs", type=positive_int, default=3, help="per run (default 3)")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds allowed per command (default 900)")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "mask_boxes.md",
                        help="report file (default %(default)s)")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    hint = "build it first (cmake --build build)"
    args.h5feed = executable(args.h5feed, "h5feed", hint)
    args.writer = executable(args.writer, "write_geometry_test_file", hint)
    args.workdir.mkdir(parents=True, exist_ok=True)
    path = args.workdir / f"geometry-{args.images}.h5"
    if not path.is_file():
        run_checked([args.writer, str(path), "--images", str(args.images)], args.timeout)
    loader_bench.warm_page_cache(path)
    load_before = os.getloadavg()[0]
    rates: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    for round_index in range(args.rounds):
        order = list(VARIANTS) if round_index % 2 == 0 else list(reversed(VARIANTS))
        for variant in order:
            rates[variant].append(rate(args, path, variant))
        print(f"round {round_index + 1}/{args.rounds}: mask "
              f"{statistics.median(time_factors(rates, 'mask')):.3f}, boxes "
              f"{statistics.median(time_factors(rates, 'boxes')):.3f}", flush=True)
    publish(report(args, rates, (load_before, os.getloadavg()[0])), args.output)
    return 0


def main(argv: list[str]) -> int:
    return run_main("mask_boxes_bench", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
