"""An interrupted or failed conversion never leaves a file that looks valid: Ctrl-C and
SIGTERM leave nothing; SIGKILL leaves at most a '.partial' file that is not an h5feed file;
a full disk is reported as such and the temporary file removed."""
import os
import resource
import signal
import subprocess
import time

import h5py
import pytest

from conftest import H5FEED, make_image_folder, run_h5feed



@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_image_folder(tmp_path_factory.mktemp("slow") / "images", 300, 300, 400)


def start_slow_conversion(folder, out):
    # One thread and the slowest zstd level make the conversion last long enough to interrupt.
    return subprocess.Popen([H5FEED, "convert", "imagefolder", str(folder), str(out),
                             "--size", "256x256", "--threads", "1", "--compression", "zstd:19"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_partial(directory, process, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        partials = [p for p in os.listdir(directory) if ".partial" in p]
        if partials and os.path.getsize(os.path.join(directory, partials[0])) > 1 << 20:
            return partials
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("the conversion never started writing")


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_leaves_nothing(folder, tmp_path, signal_number):
    out = tmp_path / "train.h5"
    process = start_slow_conversion(folder, out)
    wait_for_partial(tmp_path, process)
    process.send_signal(signal_number)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal_number, stderr
    assert "interrupted" in stderr
    assert os.listdir(tmp_path) == []


def test_sigkill_leaves_no_output_and_no_valid_looking_file(folder, tmp_path):
    out = tmp_path / "train.h5"
    process = start_slow_conversion(folder, out)
    partials = wait_for_partial(tmp_path, process)
    process.kill()
    process.wait(timeout=60)
    assert not out.exists()
    for name in partials:
        path = tmp_path / name
        if not path.exists():
            continue
        assert name.startswith(".train.h5.partial")
        result = run_h5feed("inspect", path)
        assert "h5feed_format_version" not in result.stdout or result.returncode != 0
        # Judged damaged (exit 4), not "could not be checked" (1): HDF5 failing to read the
        # half-written metadata is no failure of the disk.
        result = run_h5feed("verify", path)
        assert result.returncode == 4 and "DAMAGED" in result.stdout, result.stdout + result.stderr
        try:
            with h5py.File(path, "r") as f:
                assert "h5feed_format" not in f.attrs  # the format attributes come last
        except (OSError, KeyError):
            pass  # not even readable as HDF5, or its root group not yet written
    # The next conversion to the same output removes the dead process's leftover.
    run_h5feed("convert", "imagefolder", folder, out, "--size", "32x32", "--quiet", check=0)
    assert sorted(os.listdir(tmp_path)) == ["train.h5"]


def _limit_file_size():
    # The file system "fills up" at 2 MiB for the child: writes past it fail with EFBIG, the
    # same path a full disk (ENOSPC) takes through HDF5.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 20, 2 << 20))


def test_a_full_disk_is_reported_and_the_temporary_file_removed(folder, tmp_path):
    out = tmp_path / "train.h5"
    result = subprocess.run([H5FEED, "convert", "imagefolder", str(folder), str(out),
                             "--size", "128x128", "--compression", "none"],
                            capture_output=True, text=True, preexec_fn=_limit_file_size,
                            timeout=120)
    assert result.returncode == 1, result.stderr
    message = result.stderr.lower()
    assert "space" in message or "full" in message, result.stderr
    assert os.listdir(tmp_path) == []
