"""What the benchmark scripts share: finding tools, running commands so that a failure is one
clear line instead of a traceback, and describing the machine and revision a result was
measured on. Imported by convert_bench.py, loader_bench.py and the reference scripts (they
are run as `python3 bench/NAME.py`, which puts bench/ on the import path)."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

REPO_DIR = Path(__file__).resolve().parent.parent


class BenchError(Exception):
    """A failure the user must fix (missing binary, failed run); printed without a traceback."""


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def executable(path: str, what: str, hint: str) -> str:
    """Absolute path of an executable file, or a BenchError saying how to get it."""
    resolved = shutil.which(path) if os.sep not in path else (path if os.path.isfile(path) else None)
    if not resolved or not os.access(resolved, os.X_OK):
        raise BenchError(f"{what} not found or not executable at '{path}': {hint}")
    return os.path.abspath(resolved)


def run_checked(argv: list[str], timeout: float, env: dict | None = None,
                stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """Run argv; on failure raise a BenchError carrying the command and its stderr."""
    try:
        done = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {timeout:.0f} s: {shlex.join(argv)}") from None
    except OSError as error:
        raise BenchError(f"cannot run {shlex.join(argv)}: {error}") from None
    if done.returncode != 0:
        raise BenchError(f"exit code {done.returncode} from: {shlex.join(argv)}\n"
                         f"--- stderr ---\n{done.stderr.rstrip()}")
    return done


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def revision() -> str:
    """The checkout's commit, saying so when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "-C", str(REPO_DIR), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO_DIR), "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return (head or "unknown") + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def run_line(load_before: float, started: float) -> str:
    """A report's line on where and when it ran: the machine, its load average before and now,
    the revision, the date and the seconds since `started` (time.perf_counter())."""
    return (f"Machine: {cpu_model()}, {os.cpu_count()} CPUs; load average {load_before:.1f} "
            f"before, {os.getloadavg()[0]:.1f} after. Revision {revision()}. "
            f"{datetime.date.today().isoformat()}, {time.perf_counter() - started:.0f} s.")


def run_main(name: str, parse_args: Callable[[list[str]], argparse.Namespace],
             run: Callable[[argparse.Namespace], int], argv: list[str]) -> int:
    """A script's main(): BenchError and Ctrl-C become one line on stderr and an exit code."""
    args = parse_args(argv)
    try:
        return run(args)
    except BenchError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130


def publish(text: str, output: Path) -> None:
    """Prints a finished report and writes it to `output` (bench/results/...)."""
    print("\n" + text)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    print(f"wrote {output}")
