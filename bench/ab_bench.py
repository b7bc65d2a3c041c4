#!/usr/bin/python3
"""Two builds of h5feed side by side: is a change (a refactoring, a compiler flag) within the
noise of the reader's and the converter's speed?

Both binaries run on the same files in the same rounds, alternating which goes first, so
drift of the machine (other work, thermal state, the page cache) lands on both. Per round it
takes the candidate's rate over the baseline's; the report gives the median of those ratios,
their range, and the same spread for the baseline against itself (two runs of A in each round),
which is what "within noise" is measured against.

Files (generated in --workdir when absent, as bench/loader_bench.py and bench/convert_bench.py
generate them), all converted by the baseline, so both builds read the same bytes:
  cifar    --cifar-images x 32x32x3, none and zstd:3      `h5feed bench FILE --sampler chunks:8`
  celeba   --celeba-images x 218x178x3, none and zstd:3
  convert  a folder of --convert-images JPEG and PNG photos `h5feed convert imagefolder`
  own size the same folder converted at its own size (raw and JPEG), and those files read
           with `--augment rrc=224,flip`
  cold     with --cold: bench/cold_read_bench.py's CelebA-shaped files of --cold-images (raw
           and zstd:3, in --cold-workdir, on the disk), `h5feed bench FILE --cold` (each run
           drops the file from the page cache first) with 1 and --threads worker threads, and
           with `--direct`: the disk's rate through each build's reading ahead
  remote   with --remote: bench/remote_bench.py's files (zstd:3, the default chunks and small
           ones) read over http:// from Debian's nginx behind tests/support/fault_proxy.py
           (--rtt-ms round trip, --mbps cap), `h5feed bench URL --epochs 1`: every chunk
           over the link

From the repository root, after building both (e.g. the baseline in a worktree):

    /usr/bin/python3 bench/ab_bench.py --a /tmp/before/build/tools/h5feed \\
        --b build/tools/h5feed --workdir /tmp/h5feed-ab-bench
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bench_support import (cpu_model, executable, positive_int, publish, revision, run_checked,
                           run_main)
import convert_bench
import loader_bench
import remote_bench

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
from http_servers import FaultProxy, Nginx  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent


@dataclass
class Case:
    """One workload, run by both builds: argv_for(binary) -> its command."""

    name: str
    argv_for: Callable[[str], list[str]]
    images: int  # per run, for convert's rate (bench reports its own)
    rates: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "a2": [], "b": []})

    def ratios(self, over: str) -> list[float]:
        return [b / a for b, a in zip(self.rates[over], self.rates["a"])]


def rate_of(case: Case, binary: str, timeout: float) -> float:
    argv = case.argv_for(binary)
    if argv[1] == "bench":
        return float(loader_bench.run_json(argv, timeout)["images_per_s"])
    start = time.perf_counter()
    run_checked(argv, timeout)
    return case.images / (time.perf_counter() - start)


def make_cases(args: argparse.Namespace) -> list[Case]:
    cases = []
    shapes = [loader_bench.Shape("cifar", "CIFAR-shaped", args.cifar_images, 32, 32),
              loader_bench.Shape("celeba", "CelebA-shaped", args.celeba_images, 218, 178)]
    for shape in shapes:
        for f in loader_bench.ensure_files(args, shape, args.a):
            loader_bench.warm_page_cache(f.path)
            cases.append(Case(f.name, lambda h, p=f.path: [
                h, "bench", str(p), "--sampler", "chunks:8", "--batch", "256", "--threads",
                str(args.threads), "--epochs", "2", "--json", "--no-ceilings"], 0))
    folder = convert_bench.ensure_folder(args, args.convert_images)
    convert_bench.warm_page_cache(folder)
    out = args.workdir / "ab-convert.h5"
    cases.append(Case("convert imagefolder zstd:3", lambda h: [
        h, "convert", "imagefolder", str(folder), str(out), "--size", "224x224", "--threads",
        str(args.threads), "--quiet", "--force", "--compression", "zstd:3"],
        args.convert_images))
    cases += own_size_cases(args, folder)
    return cases + cold_cases(args) if args.cold else cases


def cold_cases(args: argparse.Namespace) -> list[Case]:
    """bench/cold_read_bench.py's files read from the disk: with one worker thread (a core left
    to the kernel's filling of the page cache), with --threads, and with O_DIRECT."""
    cold = argparse.Namespace(**{**vars(args), "workdir": args.cold_workdir})
    shape = loader_bench.Shape("celeba", "CelebA-shaped", args.cold_images, 218, 178)

    def argv(binary: str, path: Path, reader: str, threads: int) -> list[str]:
        return [binary, "bench", str(path), reader, "--sampler", "chunks:8", "--batch", "256",
                "--threads", str(threads), "--json", "--no-ceilings"]

    cases = []
    for f in loader_bench.ensure_files(cold, shape, args.a):
        for reader, threads in (("--cold", 1), ("--cold", args.threads),
                                ("--direct", args.threads)):
            cases.append(Case(f"{f.name} {reader} threads {threads}",
                              lambda h, p=f.path, r=reader, t=threads: argv(h, p, r, t), 0))
    return cases


def own_size_cases(args: argparse.Namespace, folder: Path) -> list[Case]:
    """Images at their own size (raw and JPEG): converting the folder, and reading the file
    the baseline wrote with random resized crops, as a training epoch does."""
    cases = []
    for encoding in ("raw", "jpeg"):
        flags = ["--encoding", encoding, "--threads", str(args.threads), "--quiet", "--force"]
        cases.append(Case(f"convert imagefolder own size {encoding}", lambda h, f=flags: [
            h, "convert", "imagefolder", str(folder),
            str(args.workdir / "ab-own-size-out.h5"), *f], args.convert_images))
        kept = args.workdir / f"ab-own-size-{encoding}-read.h5"
        if not kept.exists():
            run_checked([args.a, "convert", "imagefolder", str(folder), str(kept), *flags],
                        args.timeout)
        loader_bench.warm_page_cache(kept)
        cases.append(Case(f"bench own size {encoding}, rrc=224", lambda h, p=kept: [
            h, "bench", str(p), "--augment", "rrc=224,flip", "--batch", "64", "--threads",
            str(args.threads), "--epochs", "2", "--json", "--no-ceilings"], 0))
    return cases


def remote_cases(args: argparse.Namespace, proxy: FaultProxy, files: list[Path]) -> list[Case]:
    """One case per file, read over the link: the first epoch, every chunk from the server."""
    link = f"rtt {args.rtt_ms:g} ms, {args.mbps:g} MB/s"
    return [Case(f"remote {f.name} ({link})", lambda h, url=proxy.url(f.name): [
        h, "bench", url, "--sampler", "chunks:8", "--epochs", "1", "--threads",
        str(args.threads), "--cache-mb", str(remote_bench.CACHE_MB), "--no-ceilings", "--json"],
        0) for f in files]


def run_rounds(cases: list[Case], args: argparse.Namespace) -> None:
    binaries = {"a": args.a, "a2": args.a, "b": args.b}
    for round_index in range(args.rounds):
        # Alternate the order, so neither build always runs first (or right after the other).
        order = ["a", "b", "a2"] if round_index % 2 == 0 else ["b", "a2", "a"]
        for case in cases:
            for key in order:
                case.rates[key].append(rate_of(case, binaries[key], args.timeout))
        line = ", ".join(f"{c.name} {statistics.median(c.ratios('b')):.3f}" for c in cases)
        print(f"round {round_index + 1}/{args.rounds}, median B/A so far: {line}", flush=True)


def report(args: argparse.Namespace, cases: list[Case], load: tuple[float, float]) -> str:
    lines = [
        "# Two builds side by side: candidate (B) over baseline (A)",
        "",
        f"Measured {datetime.date.today()} on {cpu_model()}, {os.cpu_count()} cores (load "
        f"average {load[0]:.1f} before, {load[1]:.1f} after); revision {revision()}.",
        f"A: `{args.a}`; B: `{args.b}`. {args.rounds} rounds, each running A, B and A again "
        "(order alternating); the ratios are per round.",
        "",
        "| workload | A images/s (median) | B images/s (median) | B/A median | B/A range "
        "| A/A median | A/A range |",
        "| --- | ---: | ---: | ---: | --- | ---: | --- |",
    ]
    for c in cases:
        ab, aa = c.ratios("b"), c.ratios("a2")
        lines.append(
            f"| {c.name} | {statistics.median(c.rates['a']):,.0f} | "
            f"{statistics.median(c.rates['b']):,.0f} | {statistics.median(ab):.3f} | "
            f"{min(ab):.3f}-{max(ab):.3f} | {statistics.median(aa):.3f} | "
            f"{min(aa):.3f}-{max(aa):.3f} |")
    lines += ["", "Reproduce from the repository root after building both:", "", "```sh",
              " ".join(["/usr/bin/python3 bench/ab_bench.py"] + sys.argv[1:]), "```", ""]
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="baseline h5feed binary")
    parser.add_argument("--b", default="build/tools/h5feed",
                        help="candidate h5feed binary (default %(default)s)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-ab-bench"),
                        help="generated data (default %(default)s)")
    parser.add_argument("--rounds", type=positive_int, default=5, help="default 5")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--cifar-images", type=positive_int, default=50000, help="default 50000")
    parser.add_argument("--celeba-images", type=positive_int, default=5000, help="default 5000")
    parser.add_argument("--convert-images", type=positive_int, default=600, help="default 600")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--cold", action="store_true",
                        help="also read bench/cold_read_bench.py's files cold (from the disk)")
    parser.add_argument("--cold-workdir", type=Path, default=Path("/var/tmp/h5feed-cold-bench"),
                        help="their folder, on the disk, not tmpfs (default %(default)s)")
    parser.add_argument("--cold-images", type=positive_int, default=12000,
                        help="CelebA-shaped images of the cold files (default 12000: 1.4 GB)")
    parser.add_argument("--remote", action="store_true",
                        help="also read bench/remote_bench.py's files over a shaped http link")
    parser.add_argument("--rtt-ms", type=float, default=20, help="the link's round trip (default 20)")
    parser.add_argument("--mbps", type=float, default=40, help="the link's cap, MB/s (default 40)")
    parser.add_argument("--images", type=positive_int, default=12000,
                        help="images of the remote files (default 12000)")
    parser.add_argument("--small-chunk", type=positive_int, default=32,
                        help="images per chunk of the small-chunk remote file (default 32)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds allowed per command (default 900)")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "ab.md",
                        help="report file (default %(default)s)")
    args = parser.parse_args(argv)
    # What convert_bench.ensure_folder reads from its own arguments.
    args.classes, args.formats = 10, "jpeg,png"
    return args


def run(args: argparse.Namespace) -> int:
    hint = "build it first (cmake --build BUILD --target h5feed_cli)"
    args.a = executable(args.a, "baseline h5feed", hint)
    args.b = executable(args.b, "candidate h5feed", hint)
    args.workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    cases = make_cases(args)
    if not args.remote:
        run_rounds(cases, args)
    else:
        files = list(remote_bench.ensure_files(args, args.a))
        with Nginx(files[0].parent) as server, \
                FaultProxy(server.port, rtt_ms=args.rtt_ms, mbps=args.mbps) as proxy:
            cases += remote_cases(args, proxy, files)
            run_rounds(cases, args)
    publish(report(args, cases, (load_before, os.getloadavg()[0])), args.output)
    return 0


def main(argv: list[str]) -> int:
    return run_main("ab_bench", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
