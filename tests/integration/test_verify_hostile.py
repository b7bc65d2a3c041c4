"""`h5feed verify` on files that crash or hang HDF5 1.10.8 itself (found by fuzzing;
docs/fuzzing.md, "Findings in HDF5 itself"): it checks in a child process, so it reports them
as damaged (exit 4) with the reason, instead of crashing or hanging."""
import json
import os
import subprocess
import time

import h5py
import numpy as np

from conftest import H5FEED

FUZZ = os.path.join(os.path.dirname(__file__), "..", "fuzz")
HANG = os.path.join(FUZZ, "regressions", "open_file", "hdf5_hang_global_heap_object0_size0")
CRASH = os.path.join(FUZZ, "hdf5_findings", "open_file", "heap_buffer_overflow_H5O_attr_exists")


def verify(path, *options):
    return subprocess.run([H5FEED, "verify", "--quiet", path, *options], capture_output=True,
                          text=True, timeout=60)


def test_a_file_hdf5_spins_on_is_reported_damaged_after_the_stall_time():
    started = time.monotonic()
    result = verify(HANG, "--stall-seconds", "2")
    assert time.monotonic() - started < 30
    assert result.returncode == 4, result.stderr
    assert "made no progress for 2 s" in result.stderr
    assert HANG in result.stderr


def test_a_file_that_crashes_hdf5_is_reported_damaged_not_a_crash_of_verify():
    result = verify(CRASH)
    # Debian's HDF5 reads out of bounds on this file; where that read lands decides whether it
    # crashes (SIGSEGV on the development machine; an ASan abort in the sanitizer build) or
    # fails cleanly (the file refused: exit 1 or 4). Either way verify itself answers, naming
    # the file, and never passes it.
    assert result.returncode in (1, 4), result.stderr
    assert CRASH in result.stderr + result.stdout
    if "crashed the checking process" in result.stderr:
        assert result.returncode == 4


def test_a_file_that_is_not_hdf5_is_refused_alike_by_verify_and_inspect(tmp_path):
    # Not a damaged HDF5 file (nothing of one to judge): exit 1 and the message inspect gives,
    # not verify's exit 4 for damage.
    path = tmp_path / "notes.h5"
    path.write_text("plain text, not HDF5\n" * 10)
    checked = verify(str(path))
    inspected = subprocess.run([H5FEED, "inspect", str(path)], capture_output=True, text=True,
                               timeout=60)
    assert checked.returncode == inspected.returncode == 1, checked.stderr
    assert "is not an HDF5 file" in checked.stderr
    assert (checked.stderr.replace("h5feed verify", "h5feed inspect")
            == inspected.stderr), (checked.stderr, inspected.stderr)


def test_an_hdf5_file_without_images_is_not_judged_and_a_damaged_h5feed_file_is(tmp_path):
    # A foreign file of something else (no uint8 image dataset) is not damaged: exit 1, as for
    # float32 images, with the datasets it holds; --json gives the error object.
    other = tmp_path / "table.h5"
    with h5py.File(other, "w") as f:
        f["x"] = np.zeros((10, 3), np.float32)
    floats = tmp_path / "floats.h5"
    with h5py.File(floats, "w") as f:
        f["images"] = np.zeros((4, 8, 8, 3), np.float32)
    for path, words in ((other, "/x float32 (10, 3)"), (floats, "must be uint8")):
        result = verify(str(path), "--json")
        assert result.returncode == 1, result.stderr
        assert words in result.stderr
        assert "DAMAGED" not in result.stderr + result.stdout
        report = json.loads(result.stdout)
        assert report["ok"] is False and words in report["error"]["message"]
    # An h5feed file without a dataset its writer always makes, and one cut short, are.
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((40, 8, 8, 3), np.uint8))
    damaged = tmp_path / "train.h5"
    subprocess.run([H5FEED, "convert", "npy", str(images), str(damaged), "--quiet"], check=True,
                   timeout=60)
    truncated = tmp_path / "cut.h5"
    truncated.write_bytes(damaged.read_bytes()[:damaged.stat().st_size // 2])
    with h5py.File(damaged, "r+") as f:
        del f["chunk_index"]
    for path, words in ((damaged, "/chunk_index"), (truncated, "truncated")):
        result = verify(str(path))
        assert result.returncode == 4, result.stderr
        assert "DAMAGED" in result.stdout and words in result.stdout


def test_a_file_of_several_image_datasets_is_verified_by_the_one_images_names(tmp_path):
    # h5py-made: two 4-D uint8 datasets, neither named images. Without --images verify names
    # them and the way to choose (exit 1); with it, that one is checked, as the Loader reads it.
    path = tmp_path / "two.h5"
    with h5py.File(path, "w") as f:
        f["train_x"] = np.zeros((6, 8, 8, 3), np.uint8)
        f["test_x"] = np.zeros((4, 8, 8, 3), np.uint8)
    result = verify(str(path))
    assert result.returncode == 1
    assert "(/test_x, /train_x)" in result.stderr and "verify --images NAME" in result.stderr
    result = verify(str(path), "--images", "train_x", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["samples"] == 6
    result = verify(str(path), "--images", "nope")
    assert result.returncode == 1 and "nope" in result.stderr
