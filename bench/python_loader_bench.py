#!/usr/bin/python3
"""Python binding benchmark of issue 6 ("Speed"): iterating h5feed.Loader from Python against
the C++ `h5feed bench` on the same file with the same settings, as a ratio measured in one run
(target >= 0.90).

Files: bench/loader_bench.py's generated images (its generate_images and ensure_files: smooth
colour fields plus noise, converted with `h5feed convert npy`, none and zstd:3), CIFAR-shaped
(--cifar-images x 32x32x3) and CelebA-shaped (--celeba-images x 218x178x3).

For every file and output form (uint8 as stored; float32 normalized), in --repeats rounds, each
run in a fresh process with the page cache warm, the two runs of a pair back to back (which
goes first alternates between rounds, so a drifting machine load favours neither):
  C++     `h5feed bench FILE --sampler chunks:8 --batch B --threads T --cache-mb 512 --slots 4
           --epochs E --json [--normalize]`
  Python  this script with --iterate: h5feed.Loader(FILE, B, sampler='chunks:8', threads=T,
           cache_bytes=512 MiB, slots=4, dtype=None or torch.float32), set_epoch(e) and a full
           iteration per epoch, touching one element of every batch (as `h5feed bench` reads one
           byte), timed like `h5feed bench`: from the first set_epoch to the last batch.

Reported per file: the median over rounds of the paired ratio Python images/s / C++ images/s
(the headline figure: a pair shares the machine's load of the moment), the ratio of the best
runs, and the ratio of CPU time per image (C++ / Python: the work Python adds, which does not
depend on how many cores other processes leave free).

The Markdown report goes to bench/results/python.md with the command, machine, revision and
date. Build first (the h5feed command and the Python module), then from the repository root:

    /usr/bin/python3 bench/python_loader_bench.py --build build --workdir /tmp/h5feed-loader-bench
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shlex
import statistics
import sys
import time
from pathlib import Path

from bench_support import (BenchError, cpu_model, executable, positive_int, publish, revision,
                           run_main)
from loader_bench import Shape, ensure_files, run_json, warm_page_cache

BENCH_DIR = Path(__file__).resolve().parent
SAMPLER, CACHE_MB, SLOTS = "chunks:8", 512, 4


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process
    return usage.ru_utime + usage.ru_stime


def iterate(args: argparse.Namespace) -> int:
    """--iterate: one Python run; prints {"images", "seconds", "images_per_s", "cpu_seconds"}."""
    import torch
    import h5feed
    loader = h5feed.Loader(args.iterate, args.batch, sampler=SAMPLER, threads=args.threads,
                           cache_bytes=CACHE_MB << 20, slots=SLOTS,
                           dtype=torch.float32 if args.normalize else None)
    images = 0
    sink = 0
    cpu_start = cpu_seconds()
    start = time.perf_counter()
    finished = start
    for epoch in range(args.epochs):
        loader.set_epoch(epoch)
        for batch, labels in loader:
            sink += int(batch[0, 0, 0, 0])
            images += labels.shape[0]
            # To the last batch, as `h5feed bench` times it (docs/bench.md).
            finished = time.perf_counter()
    seconds = finished - start
    print(json.dumps({"images": images, "seconds": seconds, "images_per_s": images / seconds,
                      "cpu_seconds": cpu_seconds() - cpu_start, "sink": sink}))
    return 0


def measure(args, tools, path: Path, normalize: bool, python_first: bool) -> tuple[dict, dict]:
    """One C++ run and one Python run on `path`, back to back. C++'s cpu_seconds is derived
    from its cpu_cores_used x seconds."""
    common = ["--batch", str(args.batch), "--threads", str(args.threads),
              "--epochs", str(args.epochs)] + (["--normalize"] if normalize else [])
    env = dict(os.environ, PYTHONPATH=tools["python_path"])

    def cpp():
        result = run_json([tools["h5feed"], "bench", str(path), "--sampler", SAMPLER,
                           "--cache-mb", str(CACHE_MB), "--slots", str(SLOTS), "--json",
                           "--no-ceilings", *common], args.timeout)  # only the rate is compared
        result["cpu_seconds"] = result["cpu_cores_used"] * result["seconds"]
        return result

    def python():
        return run_json([sys.executable, __file__, "--iterate", str(path), *common],
                        args.timeout, env)

    if python_first:
        python_result = python()
        return cpp(), python_result
    cpp_result = cpp()
    return cpp_result, python()


def figures(row: dict) -> dict:
    pairs = list(zip(row["cpp"], row["python"]))
    cpu_per_image = lambda r: r["cpu_seconds"] / r["images"]
    return {
        "cpp_best": max(r["images_per_s"] for r in row["cpp"]),
        "python_best": max(r["images_per_s"] for r in row["python"]),
        "paired": statistics.median(p["images_per_s"] / c["images_per_s"] for c, p in pairs),
        "cpu": statistics.median(cpu_per_image(c) / cpu_per_image(p) for c, p in pairs),
    }


def report(args, rows: list[dict], started: float, load: tuple[float, float]) -> str:
    command = "/usr/bin/python3 bench/python_loader_bench.py " + shlex.join(sys.argv[1:])
    lines = [
        "# h5feed.Loader from Python against `h5feed bench` (C++)", "",
        f"Measured {datetime.date.today().isoformat()} on {cpu_model()}, {os.cpu_count()} cores "
        f"(load average {load[0]:.1f} before, {load[1]:.1f} after); revision {revision()}. "
        f"{args.repeats} rounds of back-to-back pairs; {args.epochs} epochs per run; sampler "
        f"{SAMPLER}, batch {args.batch}, {args.threads} threads, {CACHE_MB} MiB cache, "
        f"{SLOTS} slots; page cache warm.", "",
        "| file | output | C++ best images/s | Python best images/s | Python / C++ (median of pairs) "
        "| best / best | CPU per image, C++ / Python | target >= 0.90 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        f = figures(row)
        lines.append(f"| {row['file']} | {row['output']} | {f['cpp_best']:,.0f} | "
                     f"{f['python_best']:,.0f} | {f['paired']:.2f} | "
                     f"{f['python_best'] / f['cpp_best']:.2f} | {f['cpu']:.2f} | "
                     f"{'met' if f['paired'] >= 0.90 else 'NOT met'} |")
    lines += ["", f"Total time {time.perf_counter() - started:.0f} s. Reproduce from the "
              "repository root after building:", "", "```sh", command, "```", ""]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.iterate:
        return iterate(args)
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    build = Path(args.build).resolve()
    hint = f"build it first: cmake --build {args.build} --target h5feed_cli h5feed_python"
    tools = {"h5feed": executable(str(build / "tools" / "h5feed"), "h5feed", hint),
             "python_path": str(build / "python")}
    if not (build / "python" / "h5feed" / "__init__.py").is_file():
        raise BenchError(f"no h5feed Python package in {build / 'python'}: {hint}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    shapes = {"cifar": Shape("cifar", "CIFAR-shaped", args.cifar_images, 32, 32),
              "celeba": Shape("celeba", "CelebA-shaped", args.celeba_images, 218, 178)}
    rows = []
    for key in args.datasets:
        for f in ensure_files(args, shapes[key], tools["h5feed"]):
            warm_page_cache(f.path)
            outputs = ("uint8", "float32") if f.compression == "zstd:3" else ("uint8",)
            for output in outputs:
                rows.append({"file": f"{f.shape.title} {f.shape.images:,} {f.compression}",
                             "output": output, "path": f.path, "cpp": [], "python": []})
    for round_index in range(args.repeats):
        for row in rows:
            cpp, python = measure(args, tools, row["path"], row["output"] == "float32",
                                  python_first=round_index % 2 == 1)
            row["cpp"].append(cpp)
            row["python"].append(python)
            print(f"round {round_index + 1}/{args.repeats} {row['file']} {row['output']}: "
                  f"C++ {cpp['images_per_s']:,.0f}, Python {python['images_per_s']:,.0f} "
                  f"images/s", flush=True)
    publish(report(args, rows, started, (load_before, os.getloadavg()[0])), args.output)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="h5feed.Loader iterated from Python against the C++ `h5feed bench`, on the "
                    "same files and settings, as a ratio measured in one run (issue 6).")
    parser.add_argument("--build", default="build", help="build folder (default %(default)s)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-loader-bench"),
                        help="generated and converted files, shared with loader_bench.py "
                             "(default %(default)s)")
    parser.add_argument("--datasets", default="cifar,celeba",
                        help="cifar, celeba or both (default %(default)s)")
    parser.add_argument("--cifar-images", type=positive_int, default=50000)
    parser.add_argument("--celeba-images", type=positive_int, default=2000)
    parser.add_argument("--epochs", type=positive_int, default=3, help="per run (default 3)")
    parser.add_argument("--repeats", type=positive_int, default=7, help="rounds (default 7)")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--batch", type=positive_int, default=256, help="default 256")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per command")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "python.md")
    parser.add_argument("--iterate", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--normalize", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    if not args.datasets or not set(args.datasets) <= {"cifar", "celeba"}:
        parser.error(f"--datasets takes cifar, celeba or cifar,celeba; got {args.datasets}")
    return args


if __name__ == "__main__":
    sys.exit(run_main("python_loader_bench", parse_args, run, sys.argv[1:]))
