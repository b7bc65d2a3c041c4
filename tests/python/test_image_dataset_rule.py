"""One rule for which dataset holds the images (lib/hdf5/image_dataset.h), seen through all four
readers of it: the loader (h5feed.Loader), `h5feed inspect`, `h5feed verify` and `h5feed
rechunk`, on files h5py wrote. A file one of them reads, all of them read alike; a file one of
them refuses, all of them refuse."""
import json
import subprocess

import h5py
import numpy as np
import pytest

import h5feed
from conftest import H5FEED

N, H, W = 23, 7, 5


def run(*args):
    return subprocess.run([H5FEED, *map(str, args)], capture_output=True, text=True, timeout=120)


def inspect_json(path):
    result = run("inspect", path, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def loaded(path, batch=5, **options):
    """Every row the loader delivers in file order: (images uint8 NHWC, labels)."""
    loader = h5feed.Loader(path, batch, sampler="sequential", dtype=None, **options)
    images, labels = zip(*((i.numpy().copy(), l.numpy().copy()) for i, l in loader))
    return np.concatenate(images), np.concatenate(labels)


@pytest.fixture
def grayscale(tmp_path):
    """An h5py file whose only image dataset is N x H x W, not named images, beside a float
    dataset and the labels."""
    rng = np.random.default_rng(5)
    pixels = rng.integers(0, 256, (N, H, W), dtype=np.uint8)
    labels = rng.integers(0, 3, N)
    path = tmp_path / "gray.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("pixels", data=pixels, chunks=(4, H, W), compression="gzip")
        f["labels"] = labels
        f["mean"] = np.zeros((N, 2), np.float32)
    return path, pixels, labels


def test_a_grayscale_file_is_read_alike_by_the_loader_inspect_verify_and_rechunk(grayscale,
                                                                                 tmp_path):
    path, pixels, labels = grayscale
    # The loader delivers (N, H, W) as H x W x 1.
    images, delivered_labels = loaded(path)
    assert images.shape == (N, H, W, 1)
    assert np.array_equal(images[..., 0], pixels)
    assert np.array_equal(delivered_labels, labels)

    summary = inspect_json(path)["images"]
    assert summary["dataset"] == "pixels"
    assert (summary["layout"], summary["num_images"]) == ("NHW", N)
    assert (summary["height"], summary["width"], summary["channels"]) == (H, W, 1)

    result = run("verify", path, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["samples"] == N

    out = tmp_path / "rechunked.h5"
    result = run("rechunk", path, out, "--chunk", "8", "--compression", "none", "-q")
    assert result.returncode == 0, result.stderr
    with h5py.File(out) as f:
        assert f["images"].shape == (N, H, W, 1)
        assert np.array_equal(f["images"][()][..., 0], pixels)
        assert np.array_equal(f["labels"][()], labels)
    # The rechunked file delivers what the source did, and says so to inspect.
    again, again_labels = loaded(out)
    assert np.array_equal(again, images) and np.array_equal(again_labels, labels)
    assert inspect_json(out)["images"]["channels"] == 1


def test_a_4d_dataset_wins_over_a_3d_one_in_all_four(tmp_path):
    rng = np.random.default_rng(6)
    colour = rng.integers(0, 256, (6, 4, 5, 3), dtype=np.uint8)
    path = tmp_path / "both.h5"
    with h5py.File(path, "w") as f:
        f["colour"] = colour
        f["gray"] = rng.integers(0, 256, (9, 4, 5), dtype=np.uint8)
    images, _ = loaded(path)
    assert np.array_equal(images, colour)
    assert inspect_json(path)["images"]["dataset"] == "colour"
    assert json.loads(run("verify", path, "--json").stdout)["samples"] == 6
    out = tmp_path / "out.h5"
    assert run("rechunk", path, out, "-q").returncode == 0
    with h5py.File(out) as f:
        assert f["images"].shape == (6, 4, 5, 3)


def test_a_file_with_two_candidates_is_refused_by_all_four(tmp_path):
    path = tmp_path / "two.h5"
    with h5py.File(path, "w") as f:
        f["a"] = np.zeros((3, 4, 4), np.uint8)
        f["b"] = np.zeros((3, 4, 4), np.uint8)
    with pytest.raises(h5feed.InvalidArgumentError, match="several 3-D uint8 datasets"):
        h5feed.Loader(path, 2, dtype=None)
    summary = inspect_json(path)
    assert summary["images"] is None
    assert any("several 3-D uint8 datasets (/a, /b)" in note for note in summary["notes"])
    verify = run("verify", path)
    assert verify.returncode == 1 and "several 3-D uint8 datasets" in verify.stderr
    rechunk = run("rechunk", path, tmp_path / "out.h5")
    assert rechunk.returncode == 1 and "several 3-D uint8 datasets" in rechunk.stderr
    # Named, the same dataset is taken by all of them.
    images, _ = loaded(path, batch=3, images="b")
    assert images.shape == (3, 4, 4, 1)
    assert run("rechunk", path, tmp_path / "out.h5", "--images", "b", "-q").returncode == 0
