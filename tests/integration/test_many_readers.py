"""Many readers and file locks (docs/reliability.md, "Many readers" and "File locking").

Eight processes (fork and exec: a forked child would share the parent's HDF5 state) read one
file at once, each a full epoch with the Loader, and each must deliver exactly h5py's
pixels and labels: epoch_probe checks every pixel and prints a digest of all rows, compared
here with the digest of h5py's own read. Then the locks: a file an HDF5 writer holds open is
refused by readers (never read half-written) unless locking is turned off; a file system that
refuses locks (NFS without lockd) is read without the lock, with a warning, unless locking
was required."""
import os
import subprocess

import h5py
import numpy as np
import pytest

from conftest import H5FEED

PROBE = os.environ.get("EPOCH_PROBE", "epoch_probe")
REFUSE_FLOCK = os.environ.get("REFUSE_FLOCK_LIBRARY", "")
SAMPLES, SHAPE, CHUNK = 512, (32, 32, 3), 16
READERS = 8


def expected_digest(path):
    """The probe's digest of h5py's read: the sum over rows of FNV-1a(label bytes, pixels)."""
    with h5py.File(path, "r") as f:
        labels = f["labels"][()].astype(np.int64)
        images = f["images"][()].reshape(len(labels), -1)
    row_bytes = np.concatenate([labels.view(np.uint8).reshape(len(labels), 8), images], axis=1)
    h = np.full(len(labels), 1469598103934665603, dtype=np.uint64)
    prime = np.uint64(1099511628211)
    with np.errstate(over="ignore"):
        for column in row_bytes.T:
            h = (h ^ column.astype(np.uint64)) * prime
        return int(h.sum(dtype=np.uint64))


@pytest.fixture(scope="module")
def train(tmp_path_factory):
    path = tmp_path_factory.mktemp("readers") / "train.h5"
    subprocess.run([PROBE, "write", str(path), str(SAMPLES), "x".join(map(str, SHAPE)),
                    str(CHUNK), "zstd:3"], check=True, timeout=60)
    return path


def read(path, *flags, env=None):
    return subprocess.run([PROBE, "read", str(path), *flags], capture_output=True, text=True,
                          timeout=60, env=env)


def test_eight_processes_reading_one_file_at_once_all_get_h5pys_data(train):
    digest = expected_digest(train)
    processes = [subprocess.Popen([PROBE, "read", str(train), "--threads", "1"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(READERS)]
    outputs = [p.communicate(timeout=120) for p in processes]
    for process, (out, err) in zip(processes, outputs):
        assert process.returncode == 0, out + err
        assert out.strip() == f"ok rows={SAMPLES} digest={digest}", out + err


def test_a_file_held_by_a_writer_is_refused_unless_locking_is_off(train):
    with h5py.File(train, "r+"):  # HDF5 takes flock(LOCK_EX) for as long as it is open
        refused = read(train)
        assert refused.returncode == 1, refused.stdout
        assert "locked by another process that has it open for writing" in refused.stdout
        assert "train.h5" in refused.stdout
        verify = subprocess.run([H5FEED, "verify", "--quiet", str(train)], capture_output=True,
                                text=True, timeout=60)
        assert verify.returncode == 1 and "open for writing" in verify.stderr, verify.stderr
        # Turned off by the option or by HDF5's own variable, the reader reads (this writer
        # writes nothing, so the data are whole).
        assert read(train, "--file-locking", "off").returncode == 0
        bench = [H5FEED, "bench", str(train), "--no-ceilings", "--batch", "64"]
        refused_bench = subprocess.run(bench, capture_output=True, text=True, timeout=120)
        assert refused_bench.returncode == 1, refused_bench.stdout + refused_bench.stderr
        assert "open for writing" in refused_bench.stderr, refused_bench.stderr
        unlocked_bench = subprocess.run([*bench, "--file-locking", "off"], capture_output=True,
                                        text=True, timeout=120)
        assert unlocked_bench.returncode == 0, unlocked_bench.stdout + unlocked_bench.stderr
        assert f"{SAMPLES} images in" in unlocked_bench.stdout
        env = dict(os.environ, HDF5_USE_FILE_LOCKING="FALSE")
        assert read(train, env=env).returncode == 0
    assert read(train).returncode == 0  # the writer closed: locks are taken again


@pytest.mark.skipif(not REFUSE_FLOCK, reason="the flock-refusing library was not built")
def test_where_the_file_system_refuses_locks_reads_go_on_without_with_a_warning(train):
    # Under AddressSanitizer (GCC links its runtime dynamically) a preloaded library comes
    # before that runtime, which it refuses unless told this order is fine.
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = dict(os.environ, LD_PRELOAD=REFUSE_FLOCK,
               ASAN_OPTIONS=f"{asan}:verify_asan_link_order=0" if asan else
               "verify_asan_link_order=0")
    auto = read(train, env=env)
    assert auto.returncode == 0, auto.stdout + auto.stderr
    assert "refuses file locks (errno 37)" in auto.stdout  # the on_warning line
    assert "without HDF5's lock" in auto.stdout
    assert auto.stdout.strip().endswith(f"digest={expected_digest(train)}")
    required = read(train, "--file-locking", "on", env=env)
    assert required.returncode == 1
    assert "refuses file locks" in required.stdout and "No locks available" in required.stdout
    verify = subprocess.run([H5FEED, "verify", str(train)], capture_output=True, text=True,
                            timeout=60, env=env)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "warning: the file system of" in verify.stdout
