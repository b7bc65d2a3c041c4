"""bench/convert_costs: each step of a conversion, timed with the converter's own code on a
real image folder, in the converter's chunking, skipping broken files as it does."""
import json
import os
import subprocess

import h5py
import pytest

from conftest import make_image_folder, run_h5feed

CONVERT_COSTS = os.environ.get("CONVERT_COSTS", "convert_costs")
STEPS = ["decode_full", "read", "decode_scaled", "resize", "checksum", "compress", "write"]


def convert_costs(*args):
    return subprocess.run([CONVERT_COSTS, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = make_image_folder(tmp_path_factory.mktemp("convert_costs") / "images", 60, 40, 160)
    (root / "class_000" / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a whole JPEG")
    return root


def costs(folder, tmp_path, compression):
    result = convert_costs(folder, "--size", "48x40", "--compression", compression,
                           "--rounds", "1", "--write-dir", tmp_path, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("compression", ["zstd:3", "gzip:1", "none"])
def test_every_step_is_timed_and_their_sum_bounds_the_rate(folder, tmp_path, compression):
    report = costs(folder, tmp_path, compression)
    assert (report["images"], report["converted"], report["broken"]) == (61, 60, 1)
    assert report["compression"] == compression
    assert list(report["ms_per_image"]) == STEPS
    for step in STEPS:
        if step == "compress" and compression == "none":
            assert report["ms_per_image"][step] < 0.001  # nothing to compress
        else:
            assert report["ms_per_image"][step] > 0, step
    steps = sum(report["ms_per_image"][s] for s in STEPS[1:])
    assert report["steps_ms_per_image"] == pytest.approx(steps)
    assert report["bound_images_per_s"] == pytest.approx(2 * 1000 / steps)
    assert list(tmp_path.iterdir()) == []  # the scratch file was unlinked


def test_chunks_are_the_converters_default_chunks(folder, tmp_path):
    report = costs(folder, tmp_path, "zstd:3")
    out = tmp_path / "out.h5"
    run_h5feed("convert", "imagefolder", folder, out, "--size", "48x40", "--quiet", check=3)
    with h5py.File(out, "r") as file:
        assert file["images"].chunks[0] == report["chunk_images"]


def test_the_text_report_names_each_step_and_the_bound(folder, tmp_path):
    result = convert_costs(folder, "--size", "48x40", "--rounds", "1", "--write-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "61 images (1 broken, skipped) to 48x40, zstd:3" in result.stdout
    for words in ("read the file", "decode as converted", "fit to the size",
                  "compress per chunk (zstd:3)", "write the stored chunk", "converting steps",
                  "images/s on 2 threads with perfect scaling"):
        assert words in result.stdout


@pytest.mark.parametrize("args, says", [
    (["--size", "48"], "--size wants HxW"),
    (["--rounds", "0"], "--rounds must be a whole number"),
    (["--compression", "lz4"], "lz4"),
    (["--frobnicate", "1"], "unknown option --frobnicate"),
])
def test_wrong_options_say_what_is_wrong(folder, args, says):
    result = convert_costs(folder, *args)
    assert result.returncode == 2  # a usage error, never an abort
    assert says in result.stderr


def test_a_folder_that_is_not_there_is_an_error(tmp_path):
    result = convert_costs(tmp_path / "missing")
    assert result.returncode == 1
    assert "convert_costs: error:" in result.stderr and "missing" in result.stderr
