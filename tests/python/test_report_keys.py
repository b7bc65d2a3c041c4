"""Every report has one spelling of its keys: the command's --json and the Python dict are the
same tree (h5feed/report_value.h) walked twice, so their keys agree at every depth. Checked for
inspect, verify, the conversions (convert, rechunk), merge, and the Loader's dataset and stats
(`h5feed bench --json`'s "dataset" and "stats")."""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

import h5feed
from conftest import H5FEED, make_arrays, write_parts

MAKE_IMAGE_FOLDER = os.environ["H5FEED_SOURCE_DIR"] + "/tests/data/make_image_folder.py"


def cli_json(*args, code=0):
    result = subprocess.run([H5FEED, *map(str, args), "--json"], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == code, result.stderr
    return json.loads(result.stdout)


def key_tree(value):
    """The keys of `value` at every depth: a dict's keys with their own trees; a list as the
    tree of its items (they must agree with each other); anything else as None."""
    if isinstance(value, dict):
        return {key: key_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        trees = [key_tree(item) for item in value]
        assert all(tree == trees[0] for tree in trees), value
        return [trees[0]] if trees else []
    return None


def same_keys(from_cli, from_python):
    assert key_tree(from_cli) == key_tree(from_python)
    assert list(from_cli) == list(from_python)  # the same order too


def nested_keys(tree):
    """How many keys the tree has at every depth (to show a comparison was not vacuous)."""
    if isinstance(tree, dict):
        return len(tree) + sum(nested_keys(item) for item in tree.values())
    if isinstance(tree, list):
        return sum(nested_keys(item) for item in tree)
    return 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """40 photos in 3 classes, and one file that is not an image (skipped by a conversion)."""
    photos = tmp_path_factory.mktemp("photos") / "photos"
    subprocess.run([sys.executable, MAKE_IMAGE_FOLDER, photos, "--images", "40", "--classes",
                    "3", "--min-size", "40", "--max-size", "90"], check=True, timeout=120,
                   capture_output=True)
    (photos / "class_000" / "broken.jpg").write_bytes(b"\xff\xd8\xff not really a jpeg")
    return photos


# smart: the images of more than 6,000 bytes of pixels JPEG, the others raw.
OWN_SIZE = dict(encoding="smart:90", smart_threshold=6000, max_side=64)


@pytest.mark.parametrize("layout", [dict(size=16), OWN_SIZE])
def test_a_conversion_reports_the_same_keys_on_both_sides(folder, tmp_path, layout):
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in layout.items()]
    from_cli = cli_json("convert", "imagefolder", folder, tmp_path / "cli.h5", *flags, code=3)
    with pytest.warns(UserWarning, match="broken.jpg"):
        from_python = h5feed.convert_imagefolder(folder, tmp_path / "py.h5", **layout)
    same_keys(from_cli, from_python)
    assert from_cli["skipped"] == from_python["skipped"] != []
    assert from_cli["own_size"] == ("encoding" in layout)
    if "encoding" in layout:
        assert from_cli["encodings"] == from_python["encodings"]
        assert sum(from_cli["encodings"].values()) == from_cli["images"] == 40
        assert all(count > 0 for count in from_cli["encodings"].values())


def test_rechunk_reports_the_same_keys_as_a_conversion(tmp_path):
    images, labels = make_arrays()
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    source = tmp_path / "source.h5"
    h5feed.convert_npy(tmp_path / "images.npy", source, labels=tmp_path / "labels.npy")
    from_cli = cli_json("rechunk", source, tmp_path / "cli.h5", "--chunk", 10)
    from_python = h5feed.rechunk(source, tmp_path / "py.h5", chunk=10)
    same_keys(from_cli, from_python)
    assert from_cli["chunk_images"] == from_python["chunk_images"] == 10


@pytest.fixture(scope="module")
def own_size_file(folder, tmp_path_factory):
    path = tmp_path_factory.mktemp("own_size") / "flat.h5"
    with pytest.warns(UserWarning):
        h5feed.convert_imagefolder(folder, path, chunk_bytes="16K", **OWN_SIZE)
    return path


def test_inspect_reports_the_same_keys_and_values(small_file, own_size_file):
    for path in (small_file, own_size_file):
        from_python = h5feed.inspect(path)
        assert from_python == cli_json("inspect", path)
    assert nested_keys(key_tree(from_python["images"]["own_size"])) > 20


def damaged_copy(path, tmp_path):
    """`path` copied with a byte of its second chunk flipped."""
    copy = tmp_path / "damaged.h5"
    shutil.copy(path, copy)
    with h5py.File(copy, "r") as f:
        offset = f["images"].id.get_chunk_info(1).byte_offset
    with open(copy, "r+b") as f:
        f.seek(offset + 5)
        byte = f.read(1)
        f.seek(offset + 5)
        f.write(bytes([byte[0] ^ 0xFF]))
    return copy


def test_verify_reports_the_same_keys_and_values(own_size_file, tmp_path):
    sound = h5feed.verify(own_size_file, threads=2)
    assert sound == cli_json("verify", own_size_file, "--threads", 2)
    assert sound["ok"] and sound["encodings"] is not None
    damaged = damaged_copy(own_size_file, tmp_path)
    from_python = h5feed.verify(damaged, threads=2)
    assert from_python == cli_json("verify", damaged, "--threads", 2, code=4)
    assert not from_python["ok"] and from_python["bad_chunks"] != []


def test_merge_reports_the_same_keys_on_both_sides(tmp_path):
    parts, _ = write_parts(tmp_path, samples=50)
    from_cli = cli_json("merge", *parts, tmp_path / "cli.h5")
    from_python = h5feed.merge(parts, tmp_path / "py.h5")
    same_keys(from_cli, from_python)
    assert from_cli["images"] == from_python["images"] == 50
    assert from_cli["parts"] == 2


def test_the_loader_reports_what_bench_json_shows(small_file, own_size_file):
    # Images at their own size are read through a crop.
    crop = dict(mean=(0.5,) * 3, std=(0.25,) * 3, augment=h5feed.Augment(random_resized_crop=16))
    for path, options, flags in ((small_file, {}, []),
                                 (own_size_file, crop, ["--augment", "rrc=16"])):
        bench = cli_json("bench", path, "--batch", 16, "--threads", 2, "--no-ceilings", *flags)
        loader = h5feed.Loader(path, 16, threads=2, **options)
        for _ in loader:
            pass
        same_keys(bench["stats"], loader.stats())
        assert bench["dataset"] == loader.dataset
        assert bench["stats"]["samples"] == loader.stats()["samples"] > 0
