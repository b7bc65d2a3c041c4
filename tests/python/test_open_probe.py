"""h5feed.Loader and h5feed.inspect on files that crash or hang HDF5 1.10.8 itself while it
parses their structure (docs/fuzzing.md, "Findings in HDF5 itself"): the open probe meets the
crash in a separate process, and Python gets h5feed.CorruptDataError naming the file; the
interpreter goes on."""
import os
import time

import pytest

import h5feed
from conftest import run_python

FUZZ = os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "fuzz")
FINDINGS = os.path.join(FUZZ, "hdf5_findings", "open_file")
HANG = os.path.join(FUZZ, "regressions", "open_file", "hdf5_hang_global_heap_object0_size0")
CRASHES = sorted(os.path.join(FINDINGS, name) for name in os.listdir(FINDINGS))


@pytest.mark.parametrize("path", CRASHES, ids=os.path.basename)
def test_a_file_that_crashes_hdf5_raises_corrupt_data_error_naming_it(path):
    # In a fresh interpreter (with torch imported, threads running): if HDF5's crash reached it,
    # it would die with a signal instead of printing both lines.
    result = run_python(["-c", "import sys, torch, h5feed\n"
                               "try:\n"
                               "    h5feed.Loader(sys.argv[1], 4)\n"
                               "except h5feed.CorruptDataError as e:\n"
                               "    print('refused:', e)\n"
                               "print('still here')\n", path])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused: ") and path in result.stdout, result.stdout
    assert result.stdout.rstrip().endswith("still here")


def test_the_error_says_what_happened_and_what_to_do():
    path = os.path.join(FINDINGS, "segv_H5VM_memcpyvv_contiguous_read")
    with pytest.raises(h5feed.CorruptDataError) as caught:
        h5feed.Loader(path, 4)
    message = str(caught.value)
    assert path in message
    assert "while opening the file's structure" in message
    assert f"h5feed verify {path}" in message


def test_inspect_refuses_a_file_that_crashes_hdf5():
    path = os.path.join(FINDINGS, "segv_H5VM_memcpyvv_contiguous_read")
    with pytest.raises(h5feed.CorruptDataError, match="h5feed verify"):
        h5feed.inspect(path)


def test_a_file_hdf5_spins_on_raises_after_the_stall_limit():
    started = time.monotonic()
    with pytest.raises(h5feed.CorruptDataError, match="made no progress for 2 s"):
        h5feed.Loader(HANG, 4, open_probe_stall_seconds=2)
    assert time.monotonic() - started < 30
    with pytest.raises(h5feed.CorruptDataError, match="made no progress for 2 s"):
        h5feed.inspect(HANG, open_probe_stall_seconds=2)


def test_sound_files_open_with_the_probe_on_and_off(small_file):
    for probe in (True, False):
        loader = h5feed.Loader(small_file, 32, open_probe=probe)
        assert sum(labels.shape[0] for _, labels in loader) == 300
        assert h5feed.inspect(small_file, open_probe=probe)["images"]["num_images"] == 300
    with pytest.raises(h5feed.InvalidArgumentError, match="open_probe_stall_seconds"):
        h5feed.Loader(small_file, 32, open_probe_stall_seconds=0)
    with pytest.raises(ValueError, match="open_probe_stall_seconds"):
        h5feed.inspect(small_file, open_probe_stall_seconds=0)


def test_a_stall_limit_with_the_probe_off_is_refused_not_ignored(small_file):
    # The limit is the probe's watchdog: with open_probe=False nothing enforced it, silently.
    words = "open_probe_stall_seconds is 5, and open_probe=False turns the open probe off"
    with pytest.raises(h5feed.InvalidArgumentError, match=words.replace("=False", "")):
        h5feed.Loader(small_file, 32, open_probe=False, open_probe_stall_seconds=5)
    with pytest.raises(ValueError, match=words):
        h5feed.inspect(small_file, open_probe=False, open_probe_stall_seconds=5)
    # The default, given or not, is what the probe off has always meant.
    h5feed.Loader(small_file, 32, open_probe=False, open_probe_stall_seconds=60)
    assert h5feed.inspect(small_file, open_probe=False)["images"]["num_images"] == 300
