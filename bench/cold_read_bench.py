#!/usr/bin/python3
"""Reading from the disk (issue 40): h5feed's cold read rate against the disk's own rate for
the same file with requests in flight, measured in alternating pairs in the same minutes.

Files (generated in --workdir when absent, as bench/loader_bench.py generates them, of
--images CelebA-shaped images: 12,000 make 1.40 GB raw and about 1.27 GB zstd:3, which gets
1.1x on them), converted with `h5feed convert npy`, --compression none and zstd:3. Each must be
at least 1 GiB for the issue's figures.

For each file, each sampler (--samplers) and each way of reading (the default, and --direct),
--pairs pairs, alternating which of the two goes first:
  dd x4   the file dropped from the page cache (posix_fadvise DONTNEED), then four
          `dd bs=16M` at once over its quarters: bytes / wall time
  h5feed  `h5feed bench FILE --cold --sampler S --batch B --threads T --no-ceilings --json`
          (with --direct): read_mb_per_s, the stored bytes read per second
The pair's ratio is h5feed / dd x4. On a zstd file the reader may be held by decompression
instead: each pair then also measures h5feed's own warm rate on the file (read once, then the
same bench without --cold), and the ratio is against the lower of dd x4 and that. The target
(issue 40) is a median of at least 0.9.

Then --ranks processes together, per file and way of reading: the file dropped, then
`h5feed bench FILE --rank r --world-size N --no-ceilings --json` started at once; their stored
bytes together over the longest one's seconds, against dd x4 in the same pair (zstd: against
the lower of that and the same processes' rate together from the page cache). A warm rate is
always measured without --direct, which would read the disk again.

Last, when the build has bench/cold_read_costs (liburing), its table of the ways of reading
ahead on the raw file, each against dd x4 in the same round (docs/reader.md, "Reading from
the disk").

The Markdown report is printed and written to bench/results/cold_read.md with the command,
machine, revision and date. The page cache must be one that posix_fadvise empties (not tmpfs),
and the machine quiet: a shared virtual disk's rate moves 2x from minute to minute. A virtual
disk's host may also keep what was just read: on the project's VM a `dd x4` right after another
read 2.7-3.1 GB/s, and right after an h5feed run over the same file 0.8-1.2 GB/s, about what
h5feed itself read. Alternating which side of a pair goes first spreads that over both; read
each pair's ratios, not one figure alone. From the repository root, after building:

    /usr/bin/python3 bench/cold_read_bench.py --h5feed build/tools/h5feed \\
        --workdir /var/tmp/h5feed-cold-bench
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_support import (BenchError, executable, positive_int, publish, run_checked, run_line,
                           run_main)
import loader_bench

BENCH_DIR = Path(__file__).resolve().parent
GIB = 1 << 30
TARGET = 0.9


@dataclass
class Case:
    """One file x sampler x way of reading, and what its pairs measured."""

    file: Path
    compression: str
    sampler: str
    direct: bool
    h5feed: list[float] = field(default_factory=list)  # read MB/s, cold
    dd: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)  # zstd: read MB/s, warm
    ratios: list[float] = field(default_factory=list)
    dd_direct: list[float] = field(default_factory=list)  # --direct: dd x4 with O_DIRECT

    @property
    def reader(self) -> str:
        return "--direct" if self.direct else "default"


def drop(path: Path) -> None:
    """Drops `path` from the page cache; raises when pages stay (tmpfs)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def dd_parallel(path: Path, readers: int = 4, direct: bool = False) -> float:
    """The file dropped, then `readers` dd bs=16M at once over its parts (with O_DIRECT when
    `direct`): MB/s."""
    drop(path)
    size = path.stat().st_size
    block = 16 << 20
    per = -(-size // readers // block)  # blocks per reader, rounded up
    start = time.perf_counter()
    processes = [subprocess.Popen(["dd", f"if={path}", "of=/dev/null", f"bs={block}",
                                   f"skip={r * per}", f"count={per}", "status=none",
                                   *(["iflag=direct"] if direct else [])])
                 for r in range(readers)]
    for process in processes:
        if process.wait() != 0:
            raise BenchError(f"dd over {path} failed (exit {process.returncode})")
    return size / 1e6 / (time.perf_counter() - start)


def bench(args: argparse.Namespace, path: Path, sampler: str, direct: bool, cold: bool,
          *extra: str) -> dict:
    argv = [args.h5feed, "bench", str(path), "--sampler", sampler, "--batch", str(args.batch),
            "--threads", str(args.threads), "--no-ceilings", "--json", *extra]
    if cold:
        argv.append("--cold")
    if direct:
        argv.append("--direct")
    report = json.loads(run_checked(argv, args.timeout).stdout.strip().splitlines()[-1])
    if cold and not report.get("cold_took_effect", False):
        raise BenchError(f"{path} stayed in the page cache (tmpfs?): nothing cold to measure")
    return report


def warm_read(args: argparse.Namespace, case: Case) -> float:
    """h5feed's rate on the file from the page cache: without --direct even for a direct case
    (which would read the disk again), so that it is what the cores allow."""
    loader_bench.warm_page_cache(case.file)
    return bench(args, case.file, case.sampler, False, False)["read_mb_per_s"]


def run_pair(args: argparse.Namespace, case: Case, index: int) -> str:
    def h5feed() -> None:
        case.h5feed.append(bench(args, case.file, case.sampler, case.direct, True)["read_mb_per_s"])

    def dd() -> None:
        case.dd.append(dd_parallel(case.file))

    for step in ((dd, h5feed) if index % 2 == 0 else (h5feed, dd)):
        step()
    ceiling = case.dd[-1]
    if case.compression != "none":
        case.warm.append(warm_read(args, case))
        ceiling = min(ceiling, case.warm[-1])
    case.ratios.append(case.h5feed[-1] / ceiling)
    if case.direct:
        case.dd_direct.append(dd_parallel(case.file, direct=True))
    return (f"{case.file.name} {case.sampler} {case.reader}: h5feed {case.h5feed[-1]:.0f} MB/s, "
            f"dd x4 {case.dd[-1]:.0f}" +
            (f", warm {case.warm[-1]:.0f}" if case.warm else "") +
            f": {case.ratios[-1]:.2f}")


@dataclass
class Together:
    """--ranks processes reading their shards of one file at once."""

    file: Path
    compression: str
    direct: bool
    rates: list[float] = field(default_factory=list)  # MB/s of stored bytes, all together
    dd: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)  # zstd: MB/s together, warm
    ratios: list[float] = field(default_factory=list)


def read_together(args: argparse.Namespace, together: Together, direct: bool) -> float:
    """The --ranks processes started at once: their stored bytes together over the longest
    one's seconds, in MB/s."""
    argv = [args.h5feed, "bench", str(together.file), "--sampler", args.samplers[0],
            "--batch", str(args.batch), "--threads", str(args.threads), "--no-ceilings",
            "--json", "--world-size", str(args.ranks)]
    if direct:
        argv.append("--direct")
    processes = [subprocess.Popen(argv + ["--rank", str(r)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for r in range(args.ranks)]
    reports = []
    for process in processes:
        out, err = process.communicate(timeout=args.timeout)
        if process.returncode != 0:
            raise BenchError(f"h5feed bench --rank failed: {err.strip()}")
        reports.append(json.loads(out.strip().splitlines()[-1]))
    read = sum(r["bytes_read"] for r in reports)
    return read / 1e6 / max(r["seconds"] for r in reports)


def run_together(args: argparse.Namespace, together: Together, index: int) -> str:
    def readers() -> None:
        drop(together.file)
        together.rates.append(read_together(args, together, together.direct))

    def dd() -> None:
        together.dd.append(dd_parallel(together.file))

    for step in ((dd, readers) if index % 2 == 0 else (readers, dd)):
        step()
    ceiling = together.dd[-1]
    if together.compression != "none":
        # As for one process: decompression on this machine's cores may hold the processes
        # below the disk's rate, which their rate together from the page cache shows (without
        # --direct, which would read the disk again).
        loader_bench.warm_page_cache(together.file)
        together.warm.append(read_together(args, together, False))
        ceiling = min(ceiling, together.warm[-1])
    together.ratios.append(together.rates[-1] / ceiling)
    return (f"{together.file.name} {args.ranks} processes "
            f"{'--direct' if together.direct else 'default'}: {together.rates[-1]:.0f} MB/s, "
            f"dd x4 {together.dd[-1]:.0f}" +
            (f", warm {together.warm[-1]:.0f}" if together.warm else "") +
            f": {together.ratios[-1]:.2f}")


def spread(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}" if values else "-"


def report(args: argparse.Namespace, cases: list[Case], together: list[Together],
           costs: str, load_before: float, started: float) -> str:
    lines = [
        "# Reading from the disk: h5feed cold against parallel dd",
        "",
        "```sh",
        "/usr/bin/python3 bench/cold_read_bench.py " + " ".join(args.argv),
        "```",
        "",
        run_line(load_before, started),
        "",
        f"Each pair: the file dropped from the page cache, then `h5feed bench FILE --cold "
        f"--batch {args.batch} --threads {args.threads}` (its stored bytes read per second) and "
        "4 `dd bs=16M` at once over the file's quarters, alternating which goes first. zstd "
        "files: against the lower of dd and h5feed's own warm rate on the file, measured in the "
        f"same pair. Target: a median of at least {TARGET}.",
        "",
        "| file | GiB | sampler | reader | pairs | h5feed MB/s (median) | dd x4 MB/s (median) "
        "| warm MB/s (median) | ratio (median) | ratios | target |",
        "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for c in cases:
        median = statistics.median(c.ratios)
        warm = f"{statistics.median(c.warm):.0f}" if c.warm else "-"
        lines.append(
            f"| {c.file.name} | {c.file.stat().st_size / GIB:.2f} | {c.sampler} | {c.reader} | "
            f"{len(c.ratios)} | {statistics.median(c.h5feed):.0f} | "
            f"{statistics.median(c.dd):.0f} | {warm} | {median:.3f} | {spread(c.ratios)} | "
            f"{'met' if median >= TARGET else 'NOT met'} |")
    direct = [c for c in cases if c.direct]
    if direct:
        lines += [
            "",
            "The `--direct` cases beside 4 `dd bs=16M iflag=direct` streams over the same "
            "quarters, measured in the same pairs: what the disk gives reads that bypass the "
            "page cache, as `--direct`'s do.",
            "",
            "| file | sampler | h5feed MB/s (median) | dd x4 O_DIRECT MB/s (median) | "
            "h5feed / dd O_DIRECT (median) |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        for c in direct:
            per_pair = [h / d for h, d in zip(c.h5feed, c.dd_direct)]
            lines.append(
                f"| {c.file.name} | {c.sampler} | {statistics.median(c.h5feed):.0f} | "
                f"{statistics.median(c.dd_direct):.0f} | {statistics.median(per_pair):.2f} |")
    if together:
        lines += [
            "",
            f"{args.ranks} processes at once, each its shard (`--rank r --world-size "
            f"{args.ranks}`, sampler {args.samplers[0]}): their stored bytes together over the "
            "longest run's seconds, against dd x4 in the same pair; zstd files against the "
            "lower of dd and the processes' own warm rate together, measured in the same pair.",
            "",
            "| file | reader | pairs | together MB/s (median) | dd x4 MB/s (median) | warm MB/s "
            "(median) | ratio (median) | ratios | target |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for t in together:
            median = statistics.median(t.ratios)
            warm = f"{statistics.median(t.warm):.0f}" if t.warm else "-"
            lines.append(
                f"| {t.file.name} | {'--direct' if t.direct else 'default'} | {len(t.ratios)} | "
                f"{statistics.median(t.rates):.0f} | {statistics.median(t.dd):.0f} | {warm} | "
                f"{median:.3f} | {spread(t.ratios)} | {'met' if median >= TARGET else 'NOT met'} |")
    if costs:
        lines += ["", "## The ways of reading ahead, alone (bench/cold_read_costs)", "", costs]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="h5feed's cold read rate against parallel dd on the same files, in "
                    "alternating pairs (issue 40).",
        epilog="Writes the Markdown report to bench/results/cold_read.md (see --output).")
    parser.add_argument("--h5feed", default="build/tools/h5feed",
                        help="h5feed binary (default %(default)s)")
    parser.add_argument("--workdir", type=Path, default=Path("/var/tmp/h5feed-cold-bench"),
                        help="generated and converted files, reused (default %(default)s; not "
                             "tmpfs); needs about 4.2 GB for 12,000 images")
    parser.add_argument("--images", type=positive_int, default=12000,
                        help="CelebA-shaped images per file (default 12000: 1.40 GB raw)")
    parser.add_argument("--compressions", default="none,zstd:3", help="default %(default)s")
    parser.add_argument("--samplers", default="chunks:8,quasi:8", help="default %(default)s")
    parser.add_argument("--readers", default="default,direct",
                        help="ways of reading: default, direct or both (default %(default)s)")
    parser.add_argument("--pairs", type=positive_int, default=5,
                        help="alternating pairs per case (default 5)")
    parser.add_argument("--ranks", type=int, default=4,
                        help="processes reading at once, each its shard; 0 skips (default 4)")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--batch", type=positive_int, default=256, help="default 256")
    parser.add_argument("--costs-mb", type=int, default=1024,
                        help="MB read per line of cold_read_costs; 0 skips it (default 1024)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=1800,
                        help="seconds allowed per command (default 1800)")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "cold_read.md",
                        help="Markdown report to write (default bench/results/cold_read.md)")
    args = parser.parse_args(argv)
    args.argv = argv
    args.compressions = [c.strip() for c in args.compressions.split(",") if c.strip()]
    args.samplers = [s.strip() for s in args.samplers.split(",") if s.strip()]
    args.readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    if not set(args.compressions) <= {"none", "zstd:3"} or not args.compressions:
        parser.error("--compressions takes none, zstd:3 or both")
    if not set(args.readers) <= {"default", "direct"} or not args.readers:
        parser.error("--readers takes default, direct or both")
    if not args.samplers:
        parser.error("--samplers needs at least one sampler")
    return args


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    if shutil.which("dd") is None:
        raise BenchError("dd not found on PATH (coreutils)")
    args.h5feed = executable(args.h5feed, "h5feed", "build it first: cmake --build build "
                             "--target h5feed_cli h5feed_zstd_plugin")
    load_before = os.getloadavg()[0]
    args.workdir.mkdir(parents=True, exist_ok=True)
    shape = loader_bench.Shape("celeba", "CelebA-shaped", args.images, 218, 178)
    files = {f.compression: f.path for f in loader_bench.ensure_files(args, shape, args.h5feed)}
    for path in files.values():
        if path.stat().st_size < GIB:
            print(f"note: {path.name} is {path.stat().st_size / GIB:.2f} GiB; the issue's "
                  "figures need files of at least 1 GiB (--images 12000)", flush=True)
    cases = [Case(files[c], c, s, r == "direct")
             for c in args.compressions for s in args.samplers for r in args.readers]
    together = [Together(files[c], c, r == "direct") for c in args.compressions
                for r in args.readers] if args.ranks > 0 else []
    for index in range(args.pairs):
        for case in cases:
            print(f"pair {index + 1}/{args.pairs} " + run_pair(args, case, index), flush=True)
        for t in together:
            print(f"pair {index + 1}/{args.pairs} " + run_together(args, t, index), flush=True)
    costs = ""
    tool = Path(args.h5feed).resolve().parent.parent / "bench" / "cold_read_costs"
    if args.costs_mb > 0 and tool.is_file() and "none" in files:
        print("cold_read_costs ...", flush=True)
        costs = run_checked([str(tool), str(files["none"]), "--mb", str(args.costs_mb),
                             "--rounds", str(args.pairs)], args.timeout).stdout.strip()
    publish(report(args, cases, together, costs, load_before, started), args.output)
    return 0


def main(argv: list[str]) -> int:
    return run_main("cold_read_bench", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
