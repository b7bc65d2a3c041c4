"""examples/read_batches.cpp runs on a converted file: it reads two epochs, checkpoints
half-way and resumes to the same batches (it exits 1 otherwise)."""
import os
import subprocess

import numpy as np

from conftest import run_h5feed


def test_the_cpp_example_reads_checkpoints_and_resumes(tmp_path):
    rng = np.random.default_rng(5)
    np.save(tmp_path / "images.npy", rng.integers(0, 256, (300, 8, 8, 3), dtype=np.uint8))
    np.save(tmp_path / "labels.npy", rng.integers(0, 10, 300))
    out = tmp_path / "small.h5"
    run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "labels.npy", out,
               "--chunk", "16", check=0)
    example = os.environ["READ_BATCHES"]
    result = subprocess.run([example, str(out), "32"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "300 images of 8x8x3 in 19 chunks; 10 batches per epoch" in result.stdout
    assert "same batches" in result.stdout


def test_the_cpp_example_refuses_a_batch_size_that_is_not_a_number(tmp_path):
    # std::atoll read "sixty" as 0, and the loader then blamed "batch_size is 0".
    for given in ("sixty", "64x", "0", "-3"):
        result = subprocess.run([os.environ["READ_BATCHES"], str(tmp_path / "any.h5"), given],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, given
        assert f"BATCH_SIZE must be a whole number of images, at least 1, not '{given}'" in \
            result.stderr, result.stderr
