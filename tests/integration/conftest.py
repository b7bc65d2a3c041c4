"""Shared fixtures of the integration tests: how to run the built h5feed command and read
its output with h5py through h5feed's zstd plugin."""
import os
import subprocess
import sys

import pytest

# Readers shared with the other folders' tests (tests/support/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from own_size_reads import stored_image  # noqa: E402,F401

H5FEED = os.environ.get("H5FEED", "h5feed")
PLUGIN_DIR = os.environ.get("H5FEED_PLUGIN_DIR", "")
DATA = os.environ.get("H5FEED_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "data"))


def make_image_folder(root, images, min_size, max_size):
    """Generates an ImageFolder of `images` JPEG/PNG photos in 3 classes under `root`
    (tests/data/make_image_folder.py, seed 1); returns root."""
    subprocess.run(["/usr/bin/python3", os.path.join(DATA, "make_image_folder.py"), str(root),
                    "--images", str(images), "--classes", "3", "--min-size", str(min_size),
                    "--max-size", str(max_size), "--seed", "1"],
                   check=True, capture_output=True, timeout=300)
    return root


def run_h5feed(*args, check=None, env=None, **kwargs):
    """Runs the h5feed command; returns the CompletedProcess. check=N asserts the exit code."""
    result = subprocess.run([H5FEED, *map(str, args)], capture_output=True, text=True,
                            env=env, timeout=300, **kwargs)
    if check is not None:
        assert result.returncode == check, (
            f"exit {result.returncode}, expected {check}\nstdout:\n{result.stdout}\n"
            f"stderr:\n{result.stderr}")
    return result


def python_with_plugin(code, plugin=True, args=()):
    """Runs `code` in a fresh /usr/bin/python3 (h5py reads HDF5_PLUGIN_PATH at import), with
    `args` as its sys.argv[1:]."""
    env = dict(os.environ)
    env.pop("HDF5_PLUGIN_PATH", None)
    if plugin:
        env["HDF5_PLUGIN_PATH"] = PLUGIN_DIR
    return subprocess.run(["/usr/bin/python3", "-c", code, *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(autouse=True)
def _plugin_path(monkeypatch):
    # h5py in this process reads zstd chunks through h5feed's plugin.
    monkeypatch.setenv("HDF5_PLUGIN_PATH", PLUGIN_DIR)
