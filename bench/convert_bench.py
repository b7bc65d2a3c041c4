#!/usr/bin/python3
"""Converter benchmark of issue 2 ("Speed"): h5feed convert against its baselines, in one run.

What it measures, on one generated folder of real-looking JPEG/PNG files (50-400 px,
tests/data/make_image_folder.py) converted to 224x224 with 2 threads:

  (a) h5feed convert imagefolder ... --compression zstd:3 (h5feed's default)
  (b) h5feed convert imagefolder ... --compression none
  (c) bench/reference_convert.py: PIL + h5py + multiprocessing.Pool, what users run today
  (d) decode_rate: decoding the same files only (TurboJPEG / libspng), no resize, no write

and reports images/s of each and the ratios h5feed / reference (target >= 2.5) and
h5feed / decode-only (target >= 0.85). Then bench/convert_costs times each step of a
conversion (decode, resize, checksum, compress, write) on one thread, for zstd:3 and for no
compression: their sum bounds what any converter doing these steps can reach on 2 threads,
so the report says how far the targets are from what the steps themselves allow. With --memory-scaling it also converts 2,000 and
20,000 images and compares h5feed's peak resident memory (target: within 2x).

Why ratios in one run: the machines are shared and noisy, so absolute times from different
runs cannot be compared. Every variant runs on the same files, with the page cache warmed
first, in interleaved rounds (a b c d, a b c d, ...), and the best of the rounds is kept,
so a slow spell hurts all variants alike instead of one.

Converters are timed from outside (wall clock of the whole process: start-up, folder
listing, decoding, writing, closing), decode_rate reports its own decode time.

The Markdown table is printed and written, with the command, the machine and the date,
to bench/results/convert.md. Run it from the repository root after building:

    /usr/bin/python3 bench/convert_bench.py --h5feed build/tools/h5feed \\
        --decode-rate build/bench/decode_rate --images 3000 --workdir /tmp/h5feed-bench
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_support import (BenchError, cpu_model, executable, publish, revision,
                           run_checked, run_main)

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
GENERATOR = REPO_DIR / "tests" / "data" / "make_image_folder.py"
REFERENCE = BENCH_DIR / "reference_convert.py"
IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")

# Runs the command argv[2:] in a fresh process and writes its peak RSS (KiB on Linux) to
# argv[1]. A fresh probe per measurement because RUSAGE_CHILDREN keeps the largest peak of
# every child ever waited for: in this script it would report the largest run so far.
RSS_PROBE = ("import resource, subprocess, sys\n"
             "rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL)\n"
             "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
             "sys.exit(rc)\n")


@dataclass
class Variant:
    """One benchmarked command and the seconds of each of its runs."""

    key: str
    title: str
    argv: list[str]
    output: Path | None = None  # HDF5 file the command writes, checked after the first run
    self_timed: bool = False  # True: the command prints {"images_per_s": ...} itself
    seconds: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)

    def best_rate(self) -> float:
        return max(self.rates)


@dataclass
class MemoryRun:
    images: int
    peak_rss_kib: int
    seconds: float


def count_images(folder: Path) -> tuple[int, int]:
    """(number of image files, their total bytes) under the class folders of `folder`."""
    files = size = 0
    for root, _, names in os.walk(folder, followlinks=True):
        for name in names:
            if Path(root) != folder and name.lower().endswith(IMG_EXTENSIONS):
                files += 1
                size += os.path.getsize(os.path.join(root, name))
    return files, size


def ensure_folder(args: argparse.Namespace, images: int) -> Path:
    """The generated folder of `images` images in the workdir, made unless already there
    from the same generator code and settings (recorded in a .json beside it, not inside)."""
    folder = args.workdir / f"images-{images}"
    marker = args.workdir / f"images-{images}.json"
    settings = {"images": images, "classes": args.classes, "min_size": 50, "max_size": 400,
                "formats": args.formats, "seed": args.seed,
                "generator_sha256": hashlib.sha256(GENERATOR.read_bytes()).hexdigest()}
    if folder.is_dir() and marker.is_file() and json.loads(marker.read_text()) == settings:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    marker.unlink(missing_ok=True)
    print(f"generating {images} images in {folder} ...", flush=True)
    run_checked([sys.executable, str(GENERATOR), str(folder), "--images", str(images),
                 "--classes", str(args.classes), "--min-size", "50", "--max-size", "400",
                 "--formats", args.formats, "--seed", str(args.seed), "--jobs", str(args.threads)],
                timeout=args.timeout, stdout=None)
    marker.write_text(json.dumps(settings))
    return folder


def warm_page_cache(folder: Path) -> None:
    """Read every file once so no variant pays for the first disk read."""
    for root, _, names in os.walk(folder, followlinks=True):
        for name in names:
            with open(os.path.join(root, name), "rb") as file:
                while file.read(1 << 20):
                    pass


def h5feed_argv(h5feed: str, folder: Path, out: Path, args: argparse.Namespace, compression: str) -> list[str]:
    return [h5feed, "convert", "imagefolder", str(folder), str(out), "--size", args.size,
            "--threads", str(args.threads), "--quiet", "--force", "--compression", compression]


def make_variants(args: argparse.Namespace, folder: Path, tools: dict[str, str]) -> list[Variant]:
    out = args.workdir / "out"
    return [
        Variant("h5feed_zstd", "h5feed convert, zstd:3", output=out / "h5feed-zstd.h5",
                argv=h5feed_argv(tools["h5feed"], folder, out / "h5feed-zstd.h5", args, "zstd:3")),
        Variant("h5feed_none", "h5feed convert, no compression", output=out / "h5feed-none.h5",
                argv=h5feed_argv(tools["h5feed"], folder, out / "h5feed-none.h5", args, "none")),
        Variant("reference", f"PIL + h5py reference, {args.threads} processes", output=out / "reference.h5",
                argv=[sys.executable, str(REFERENCE), str(folder), str(out / "reference.h5"),
                      "--size", args.size, "--workers", str(args.threads), "--compression", "none",
                      "--force"]),
        Variant("decode", "decode only (decode_rate)", self_timed=True,
                argv=[tools["decode_rate"], str(folder), "--threads", str(args.threads), "--json"]),
    ]


def run_once(variant: Variant, images: int, timeout: float) -> None:
    """Run the variant once and record its seconds and images/s."""
    start = time.perf_counter()
    done = run_checked(variant.argv, timeout)
    seconds = time.perf_counter() - start
    if variant.self_timed:
        try:
            report = json.loads(done.stdout.strip().splitlines()[-1])
            seconds, rate = float(report["seconds"]), float(report["images_per_s"])
        except (ValueError, KeyError, IndexError) as error:
            raise BenchError(f"expected one JSON line with seconds and images_per_s from "
                             f"{shlex.join(variant.argv)}, got {done.stdout!r} ({error})") from None
        if report.get("images") not in (None, images):
            print(f"warning: {variant.title} decoded {report['images']} images, the folder has {images}")
    else:
        rate = images / seconds
    variant.seconds.append(seconds)
    variant.rates.append(rate)


def check_output(variant: Variant, images: int, size: str) -> None:
    """The converted file holds /images of (N, H, W, 3): the variants did the same work.
    Only metadata is read, so zstd files need no filter plugin here."""
    import h5py  # imported late: only the benchmark's checks need it
    height, width = (int(v) for v in size.lower().split("x"))
    try:
        with h5py.File(variant.output, "r") as file:
            shape = file["images"].shape
    except (OSError, KeyError) as error:
        raise BenchError(f"cannot read /images of {variant.output} from '{variant.title}': {error}") from None
    if shape != (images, height, width, 3):
        raise BenchError(f"{variant.output} from '{variant.title}' has /images {shape}, "
                         f"expected {(images, height, width, 3)}")


def run_rounds(variants: list[Variant], images: int, args: argparse.Namespace) -> None:
    """Interleaved rounds: every variant once per round, in the same order."""
    for round_index in range(args.repeats):
        for variant in variants:
            run_once(variant, images, args.timeout)
            if round_index == 0 and variant.output is not None:
                check_output(variant, images, args.size)
        line = ", ".join(f"{v.key} {v.rates[-1]:.0f}" for v in variants)
        print(f"round {round_index + 1}/{args.repeats} (images/s): {line}", flush=True)


def peak_rss(argv: list[str], timeout: float, probe_file: Path) -> tuple[int, float]:
    """(peak RSS in KiB, seconds) of argv run in a fresh probe process."""
    start = time.perf_counter()
    run_checked([sys.executable, "-c", RSS_PROBE, str(probe_file), *argv], timeout)
    seconds = time.perf_counter() - start
    return int(probe_file.read_text()), seconds


def memory_scaling(args: argparse.Namespace, h5feed: str) -> list[MemoryRun]:
    """Convert each of --memory-images folders with h5feed (zstd:3) and record peak RSS."""
    runs = []
    for images in args.memory_images:
        folder = ensure_folder(args, images)
        warm_page_cache(folder)
        out = args.workdir / "out" / f"memory-{images}.h5"
        argv = h5feed_argv(h5feed, folder, out, args, "zstd:3")
        rss, seconds = peak_rss(argv, args.timeout, args.workdir / "out" / "rss.txt")
        out.unlink(missing_ok=True)
        runs.append(MemoryRun(images, rss, seconds))
        print(f"memory: {images} images, peak RSS {rss / 1024:.1f} MiB, {images / seconds:.0f} images/s",
              flush=True)
    return runs


def verdict(value: float, target: float, higher_is_better: bool = True) -> str:
    met = value >= target if higher_is_better else value <= target
    return "yes" if met else "**no**"


def speed_table(variants: dict[str, Variant]) -> list[str]:
    lines = ["| run | images/s (best) | seconds per run |", "| --- | ---: | --- |"]
    for v in variants.values():
        runs = ", ".join(f"{s:.2f}" for s in v.seconds)
        lines.append(f"| {v.title} | {v.best_rate():.0f} | {runs} |")
    return lines


def ratio_table(variants: dict[str, Variant], memory: list[MemoryRun]) -> list[str]:
    rate = {key: v.best_rate() for key, v in variants.items()}
    rows = [("h5feed zstd:3 / reference", rate["h5feed_zstd"] / rate["reference"], 2.5, True),
            ("h5feed none / reference", rate["h5feed_none"] / rate["reference"], 2.5, True),
            ("h5feed zstd:3 / decode only", rate["h5feed_zstd"] / rate["decode"], 0.85, True),
            ("h5feed none / decode only", rate["h5feed_none"] / rate["decode"], 0.85, True)]
    if memory:
        small, large = memory[0], memory[-1]
        rows.append((f"peak RSS {large.images} / {small.images} images",
                     large.peak_rss_kib / small.peak_rss_kib, 2.0, False))
    lines = ["| ratio | value | target | met |", "| --- | ---: | ---: | --- |"]
    for name, value, target, higher in rows:
        sign = ">=" if higher else "<="
        lines.append(f"| {name} | {value:.2f}x | {sign} {target}x | {verdict(value, target, higher)} |")
    return lines


def costs_table(costs: dict[str, dict]) -> list[str]:
    """Milliseconds of one thread per image for each step, zstd:3 and none side by side."""
    steps = [("decode_full", "decode at full size (decode-only reference, not a step)"),
             ("read", "read the file (open, pread, close; page cache)"),
             ("decode_scaled", "decode as converted (JPEG at a reduced DCT scale)"),
             ("resize", "fit to the size (resize, center crop)"),
             ("checksum", "checksum (XXH3) per chunk"),
             ("compress", "compress per chunk"),
             ("write", "write the stored chunk into the page cache")]
    keys = list(costs)
    lines = ["| step (ms of one thread per image) | " + " | ".join(keys) + " |",
             "| --- |" + " ---: |" * len(keys)]
    for key, title in steps:
        lines.append(f"| {title} | " + " | ".join(f"{costs[k]['ms_per_image'][key]:.3f}" for k in keys) + " |")
    lines.append("| **converting steps** | " + " | ".join(f"**{costs[k]['steps_ms_per_image']:.3f}**" for k in keys) + " |")
    threads = costs[keys[0]]["threads"]
    lines.append(f"| bound: images/s on {threads} threads at perfect scaling | "
                 + " | ".join(f"{costs[k]['bound_images_per_s']:.0f}" for k in keys) + " |")
    return lines


def bound_table(variants: dict[str, Variant], costs: dict[str, dict]) -> list[str]:
    """How far the targets are from what the steps allow (reported, no target of their own)."""
    rate = {key: v.best_rate() for key, v in variants.items()}
    bound = {key: c["bound_images_per_s"] for key, c in costs.items()}
    rows = [("bound zstd:3 / reference: the most a converter doing these steps reaches (target 2.5x)",
             bound["zstd:3"] / rate["reference"]),
            ("bound none / reference", bound["none"] / rate["reference"]),
            ("bound none / decode only: the most it reaches of decode-only (target 0.85)",
             bound["none"] / rate["decode"]),
            ("h5feed zstd:3 / its bound", rate["h5feed_zstd"] / bound["zstd:3"]),
            ("h5feed none / its bound", rate["h5feed_none"] / bound["none"])]
    lines = ["| ratio | value |", "| --- | ---: |"]
    lines += [f"| {name} | {value:.2f}x |" for name, value in rows]
    return lines


def measure_costs(args: argparse.Namespace, folder: Path, tool: str) -> dict[str, dict]:
    """bench/convert_costs --json for zstd:3 and none: {compression: its report}."""
    costs = {}
    for compression in ("zstd:3", "none"):
        argv = [tool, str(folder), "--size", args.size, "--compression", compression,
                "--threads", str(args.threads), "--write-dir", str(args.workdir / "out"), "--json"]
        done = run_checked(argv, args.timeout)
        try:
            costs[compression] = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError) as error:
            raise BenchError(f"expected one JSON line from {shlex.join(argv)}, got {done.stdout!r} ({error})") from None
        print(f"costs, {compression}: {costs[compression]['steps_ms_per_image']:.3f} ms per image on one "
              f"thread, bound {costs[compression]['bound_images_per_s']:.0f} images/s", flush=True)
    return costs


def memory_table(memory: list[MemoryRun]) -> list[str]:
    lines = ["| images | peak RSS (MiB) | images/s (one run, incl. start-up) |", "| ---: | ---: | ---: |"]
    for run in memory:
        lines.append(f"| {run.images} | {run.peak_rss_kib / 1024:.1f} | {run.images / run.seconds:.0f} |")
    return lines


def report(args: argparse.Namespace, folder: Path, variants: dict[str, Variant],
           costs: dict[str, dict], memory: list[MemoryRun], load_before: float) -> str:
    images, size = count_images(folder)
    command = shlex.join([sys.executable, *sys.argv])
    lines = [
        "# Converter benchmark (issue 2, Speed)", "",
        f"- Command: `{command}` (from the repository root)",
        f"- Date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}; revision {revision()}",
        f"- Machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}; "
        f"1-minute load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after",
        f"- Data: {images} files ({args.formats}, 50-400 px, {args.classes} classes, seed {args.seed}, "
        f"{size / 2**20:.1f} MiB) made by tests/data/make_image_folder.py; page cache warmed",
        f"- Each run: --size {args.size}, {args.threads} threads / worker processes; "
        f"best of {args.repeats} interleaved rounds. Converters are timed as whole processes; "
        "decode_rate reports its own decode time.", "",
        *speed_table(variants), "", *ratio_table(variants, memory), "",
        "Where the time goes: `bench/convert_costs` times each step with the converter's own code "
        "on one thread (best of 3 rounds), chunks of h5feed's default size. The sum of the steps "
        "bounds any converter doing them: no start-up, no listing, no waiting, perfect scaling "
        "over the threads.", "",
        *costs_table(costs), "", *bound_table(variants, costs), "",
    ]
    if memory:
        lines += ["Peak resident memory of `h5feed convert imagefolder` (zstd:3, "
                  f"{args.threads} threads), each in a fresh process (getrusage RUSAGE_CHILDREN):", "",
                  *memory_table(memory), ""]
    return "\n".join(lines)


def counts(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) < 2 or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected two or more image counts such as 2000,20000, got '{text}'")
    return values


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark h5feed convert imagefolder against a PIL + h5py converter and "
                    "against decode-only speed, as ratios measured in one run (issue 2).",
        epilog="Writes the Markdown report to bench/results/convert.md (see --output).")
    parser.add_argument("--h5feed", default="build/tools/h5feed", help="h5feed binary (default %(default)s)")
    parser.add_argument("--decode-rate", default="build/bench/decode_rate",
                        help="decode_rate binary (default %(default)s)")
    parser.add_argument("--convert-costs", default="build/bench/convert_costs",
                        help="convert_costs binary (default %(default)s)")
    parser.add_argument("--images", type=int, default=3000, help="images in the speed folder (default 3000)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-bench"),
                        help="generated folders and output files; folders are reused (default %(default)s)")
    parser.add_argument("--memory-scaling", action="store_true",
                        help="also compare h5feed's peak RSS converting 2,000 and 20,000 images")
    parser.add_argument("--memory-images", type=counts, default=(2000, 20000),
                        help="image counts for --memory-scaling, small first (default 2000,20000)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds; best is kept (default 3)")
    parser.add_argument("--threads", type=int, default=2, help="threads / worker processes (default 2)")
    parser.add_argument("--size", default="224x224", help="output HxW (default %(default)s)")
    parser.add_argument("--classes", type=int, default=10, help="class folders generated (default 10)")
    parser.add_argument("--formats", default="jpeg,png", help="formats generated (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per command (default 1800)")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "convert.md",
                        help="Markdown report to write (default bench/results/convert.md)")
    parser.add_argument("--keep-outputs", action="store_true", help="keep the converted .h5 files")
    args = parser.parse_args(argv)
    if args.images < 1 or args.repeats < 1 or args.threads < 1:
        parser.error("--images, --repeats and --threads must be at least 1")
    if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", args.size):
        parser.error(f"--size must be HxW such as 224x224, got '{args.size}'")
    return args


def find_tools(args: argparse.Namespace) -> dict[str, str]:
    """Paths of the binaries; checks the scripts and Python modules the runs need."""
    missing = [name for name in ("h5py", "numpy", "PIL") if importlib.util.find_spec(name) is None]
    if missing:
        raise BenchError(f"{sys.executable} lacks {', '.join(missing)}: run with Debian's "
                         "/usr/bin/python3 (python3-h5py, python3-numpy, python3-pil)")
    for script in (GENERATOR, REFERENCE):
        if not script.is_file():
            raise BenchError(f"missing {script}: run from a complete checkout")
    build = "build it first: cmake -S . -B build -G Ninja && cmake --build build"
    return {"h5feed": executable(args.h5feed, "h5feed", build),
            "decode_rate": executable(args.decode_rate, "decode_rate", build),
            "convert_costs": executable(args.convert_costs, "convert_costs", build)}


def run(args: argparse.Namespace) -> int:
    tools = find_tools(args)
    load_before = os.getloadavg()[0]
    args.workdir.mkdir(parents=True, exist_ok=True)
    (args.workdir / "out").mkdir(exist_ok=True)
    folder = ensure_folder(args, args.images)
    images, _ = count_images(folder)
    warm_page_cache(folder)
    variants = make_variants(args, folder, tools)
    try:
        run_rounds(variants, images, args)
        costs = measure_costs(args, folder, tools["convert_costs"])
        memory = memory_scaling(args, tools["h5feed"]) if args.memory_scaling else []
    finally:
        if not args.keep_outputs:
            shutil.rmtree(args.workdir / "out", ignore_errors=True)
    text = report(args, folder, {v.key: v for v in variants}, costs, memory, load_before)
    publish(text, args.output)
    return 0


def main(argv: list[str]) -> int:
    return run_main("convert_bench", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
