"""`h5feed inspect` and `h5feed bench` on files that crash or hang HDF5 1.10.8 itself while it
parses their structure (docs/fuzzing.md, "Findings in HDF5 itself"): the open probe (a separate
process, lib/probe/open_probe.h) meets the crash or the hang, and the command exits 1 with a
message naming the file and what to do, instead of dying with a signal (and a core dump)."""
import os
import subprocess
import time

from conftest import H5FEED

FUZZ = os.path.join(os.path.dirname(__file__), "..", "fuzz")
FINDINGS = os.path.join(FUZZ, "hdf5_findings", "open_file")
SEGV = os.path.join(FINDINGS, "segv_H5VM_memcpyvv_contiguous_read")
OVERFLOW = os.path.join(FINDINGS, "heap_buffer_overflow_H5O_attr_exists")
HANG = os.path.join(FUZZ, "regressions", "open_file", "hdf5_hang_global_heap_object0_size0")


def h5feed(cwd, *args):
    return subprocess.run([H5FEED, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def assert_refused_as_damaged(result, path, cwd):
    # Exit 1, not a signal (a negative return code) and no core file left behind.
    assert result.returncode == 1, result.stderr
    assert path in result.stderr
    assert "h5feed verify " + path in result.stderr
    assert "restore or re-convert it" in result.stderr
    assert not [name for name in os.listdir(cwd) if name.startswith("core")]


def test_inspect_on_a_file_that_crashes_hdf5_says_so_and_exits_1(tmp_path):
    result = h5feed(tmp_path, "inspect", SEGV)
    assert_refused_as_damaged(result, SEGV, tmp_path)
    # SIGSEGV in an ordinary build; a sanitizer's report ends the probe with SIGABRT (ASan's
    # abort_on_error) or with an exit code (TSan).
    assert ("HDF5 crashed (SIGSEGV" in result.stderr or "HDF5 crashed (SIGABRT" in result.stderr
            or "HDF5 ended abnormally" in result.stderr), result.stderr
    assert result.stderr.startswith("h5feed inspect: ")


def test_bench_on_a_file_that_crashes_hdf5_says_so_and_exits_1(tmp_path):
    for path in (SEGV, OVERFLOW):
        result = h5feed(tmp_path, "bench", path, "--no-ceilings", "--threads", "1")
        assert_refused_as_damaged(result, path, tmp_path)


def test_inspect_on_a_file_hdf5_spins_on_gives_up_after_the_stall_time(tmp_path):
    started = time.monotonic()
    result = h5feed(tmp_path, "inspect", HANG, "--stall-seconds", "2")
    assert time.monotonic() - started < 30
    assert_refused_as_damaged(result, HANG, tmp_path)
    assert "made no progress for 2 s" in result.stderr


def test_without_the_probe_program_inspect_warns_and_inspects_in_process(tmp_path):
    # A sound (if foreign) file: what the probe would have passed.
    import h5py
    import numpy as np
    path = tmp_path / "plain.h5"
    with h5py.File(path, "w") as f:
        f["images"] = np.zeros((4, 3, 3, 1), np.uint8)
    env = dict(os.environ, H5FEED_OPEN_PROBE="/nonexistent/h5feed-open-probe")
    result = subprocess.run([H5FEED, "inspect", str(path)], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "open probe (h5feed-open-probe) was not found" in result.stderr
    assert "images" in result.stdout
    quiet = subprocess.run([H5FEED, "inspect", "--no-open-probe", str(path)],
                           capture_output=True, text=True, timeout=120, env=env)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
