"""A stand-in for an installed open probe that leaves a mark when it runs: a test of where a
binary looks for its probe (lib/process/helper_location.h) sees which one it found."""
import contextlib
from pathlib import Path


@contextlib.contextmanager
def marking_probe(probe: Path, mark: Path):
    """Puts a script at `probe` that touches `mark`, then runs the real probe (moved beside it as
    real-probe, whose path is yielded); at the end puts the real one back, if it is still there."""
    real = probe.with_name("real-probe")
    probe.rename(real)
    probe.write_text(f'#!/bin/sh\ntouch "{mark}"\nexec "{real}" "$@"\n')
    probe.chmod(0o755)
    try:
        yield real
    finally:
        if real.exists():
            probe.unlink(missing_ok=True)
            real.rename(probe)
