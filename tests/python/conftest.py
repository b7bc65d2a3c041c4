"""Shared fixtures of the Python module's tests: small h5feed files made by the module's own
converter from NumPy arrays, and h5py's read of them (through h5feed's zstd plugin) to compare
batches with. ctest sets PYTHONPATH to the build tree's package and HDF5_PLUGIN_PATH to
h5feed's plugin folder (h5py reads it when it first meets a zstd chunk)."""
import os
import socket
import subprocess
import sys

import h5py
import numpy as np
import pytest

import h5feed

# Readers shared with the other folders' tests (tests/support/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from own_size_reads import stored_image  # noqa: E402,F401

H5FEED = os.environ.get("H5FEED", "h5feed")
SAMPLES, CHUNK, SHAPE, CLASSES = 300, 16, (8, 6, 3), 5  # 19 chunks, the last one short


def make_arrays(samples=SAMPLES, shape=SHAPE, classes=CLASSES, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 256, (samples, *shape), dtype=np.uint8),
            rng.integers(0, classes, samples).astype(np.int64))


def write_h5feed_file(folder, name="small.h5", chunk=CHUNK, **arrays_args):
    """An h5feed file (zstd:3, chunks of `chunk`) converted from .npy by h5feed.convert_npy."""
    images, labels = make_arrays(**arrays_args)
    np.save(folder / "images.npy", images)
    np.save(folder / "labels.npy", labels)
    out = folder / name
    h5feed.convert_npy(folder / "images.npy", out, labels=folder / "labels.npy", chunk=chunk)
    return out


def write_parts(folder, samples, parts=2, chunk=8):
    """A conversion in `parts` parts (`h5feed convert npy --part K/N`) of `samples` arrays saved
    in `folder`: the parts' paths, in order, and the images."""
    images, labels = make_arrays(samples=samples)
    np.save(folder / "images.npy", images)
    np.save(folder / "labels.npy", labels)
    for k in range(parts):
        subprocess.run([H5FEED, "convert", "npy", folder / "images.npy", folder / "labels.npy",
                        folder / "part.h5", "--chunk", str(chunk), "--part", f"{k}/{parts}",
                        "-q"], check=True, timeout=120)
    return [folder / f"part-{k:05d}-of-{parts:05d}.h5" for k in range(parts)], images


def read_rows(path, indices):
    """h5py's read of rows `indices` (images NHWC uint8, labels int64), repeats allowed."""
    with h5py.File(path, "r") as f:
        return f["images"][:][np.asarray(indices)], f["labels"][:][np.asarray(indices)]


def keep_indices_of_every_batch(loader, epochs):
    """The pattern that used to stop the loader, [idx.numpy() for _, _, idx in loader], over
    `epochs` epochs (set_epoch before each); checks that every epoch's kept rows, read after
    them all, still cover the file once, and returns them (a list of batches per epoch)."""
    kept = []
    for epoch in range(epochs):
        loader.set_epoch(epoch)
        kept.append([idx.numpy() for _, _, idx in loader])
    for epoch_rows in kept:
        assert len(epoch_rows) == len(loader)
        assert sorted(np.concatenate(epoch_rows).tolist()) == list(range(SAMPLES))
    return kept


def run_python(code_or_args, env=None, timeout=120, **kwargs):
    """Runs Debian's python3 in a fresh process with this process's environment."""
    argv = [sys.executable, "-c", code_or_args] if isinstance(code_or_args, str) else \
        [sys.executable, *map(str, code_or_args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          env=env or dict(os.environ), **kwargs)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(ranks, script, *args, timeout=180):
    """`python3 -m torch.distributed.run` of `ranks` processes of script on this machine (gloo
    on the loopback), one thread each."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    # --redirects/--tee: Debian's torch 1.13 under Python 3.11 cannot parse their default "0"
    # (IntFlag iteration changed) and fails at start; 2 (stderr) parses and keeps stderr visible.
    return run_python(["-m", "torch.distributed.run", "--redirects=2", "--tee=2", "--nnodes=1",
                       f"--nproc_per_node={ranks}", "--master_addr=127.0.0.1",
                       f"--master_port={free_port()}", script, *args], env=env, timeout=timeout)


@pytest.fixture(scope="session")
def small_file(tmp_path_factory):
    return write_h5feed_file(tmp_path_factory.mktemp("small"))


# Under AddressSanitizer (scripts/sanitize.sh preloads its runtime for the Python tests) a
# worker process forked from a process that has threads can deadlock as soon as it starts a
# thread of its own: clang 14's ASan does not hold its allocator's and thread registry's locks
# across fork, so a lock another thread held at that moment stays held in the child (seen once
# in four runs: a worker stuck in torch.set_num_threads). The tests that fork h5feed.write's
# workers in this (threaded) pytest process are marked forks_workers and skipped there; the
# Release run covers them, and the workers=0 tests take the same native path under ASan.
UNDER_ASAN = "libclang_rt.asan" in os.environ.get("LD_PRELOAD", "")


# Tests that bound a process's peak memory (VmHWM) are marked measures_memory and skipped
# there too: ASan's quarantine keeps freed memory for a while and its shadow adds an eighth, so
# a bound on the library's own memory does not hold; the code they run is sanitized by others.


def pytest_configure(config):
    config.addinivalue_line("markers", "forks_workers: forks worker processes in this process")
    config.addinivalue_line("markers", "measures_memory: asserts a bound on peak memory")


def pytest_collection_modifyitems(config, items):
    if not UNDER_ASAN:
        return
    reasons = {
        "forks_workers": "forks workers from a threaded process: unsafe under clang 14's ASan "
                         "(conftest.py)",
        "measures_memory": "a bound on peak memory: ASan's quarantine and shadow memory add "
                           "their own (conftest.py)",
    }
    for item in items:
        for marker, reason in reasons.items():
            if marker in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))

