"""h5feed.convert_* and h5feed.inspect for scripts: the same files and the same report as the
h5feed command with the same options (the command is the reference, run as a subprocess)."""
import json
import os
import shutil
import subprocess
import sys
import warnings

import h5py
import numpy as np
import pytest
from PIL import Image

import h5feed
from conftest import H5FEED, SAMPLES, make_arrays, run_python, write_parts

MAKE_IMAGE_FOLDER = os.environ["H5FEED_SOURCE_DIR"] + "/tests/data/make_image_folder.py"


def cli(*args, code=0):
    result = subprocess.run([H5FEED, *map(str, args)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == code, result.stderr
    return result.stdout


def contents(path):
    with h5py.File(path, "r") as f:
        return (f["images"][:], f["labels"][:], [c.decode() for c in f["classes"][:]],
                [s.decode() for s in f["sources"][:]], f["images"].chunks)


@pytest.fixture(scope="module")
def image_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("photos") / "photos"
    subprocess.run([sys.executable, MAKE_IMAGE_FOLDER, folder, "--images", "40", "--classes",
                    "3", "--min-size", "40", "--max-size", "90"], check=True, timeout=120,
                   capture_output=True)
    return folder


def test_convert_imagefolder_writes_what_the_command_writes(image_folder, tmp_path):
    report = h5feed.convert_imagefolder(image_folder, tmp_path / "py.h5", size=(24, 32),
                                        resize="pad", chunk=8, seed=5, threads=2)
    cli("convert", "imagefolder", image_folder, tmp_path / "cli.h5", "--size", "24x32",
        "--resize", "pad", "--chunk", 8, "--seed", 5, "--threads", 2, "--quiet")
    ours, theirs = contents(tmp_path / "py.h5"), contents(tmp_path / "cli.h5")
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
    assert ours[2:] == theirs[2:]
    assert report["images"] == 40 and report["image_shape"] == [24, 32, 3]
    assert report["chunks"] == 5 and report["chunk_images"] == 8
    assert report["shuffled"] and report["seed"] == 5 and report["skipped"] == []


def test_broken_images_are_skipped_with_a_warning_and_reported(image_folder, tmp_path):
    folder = tmp_path / "photos"
    shutil.copytree(image_folder, folder)
    (folder / "class_000" / "broken.jpg").write_bytes(b"\xff\xd8\xff not really a jpeg")
    with pytest.warns(UserWarning, match="broken.jpg"):
        report = h5feed.convert_imagefolder(folder, tmp_path / "out.h5", size=16)
    assert report["images"] == 40
    assert report["skipped"][0]["source"] == "class_000/broken.jpg"
    assert report["inputs"] == 41 and len(report["skipped"]) == 1
    with pytest.raises(h5feed.CorruptDataError, match="broken.jpg"):
        h5feed.convert_imagefolder(folder, tmp_path / "strict.h5", size=16, strict=True)
    assert not (tmp_path / "strict.h5").exists()


def test_thousands_of_broken_images_are_warned_of_twenty_then_counted(tmp_path):
    folder = tmp_path / "photos" / "cat"
    folder.mkdir(parents=True)
    for i in range(300):
        (folder / f"broken_{i:03}.jpg").write_bytes(b"not a jpeg")
    Image.new("RGB", (8, 8)).save(folder / "good.png")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = h5feed.convert_imagefolder(folder.parent, tmp_path / "out.h5", size=8)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 21 and all(w.filename == __file__ for w in caught)
    assert sum(m.startswith("h5feed: skipped cat/broken_") for m in messages) == 20
    assert messages[-1].startswith("h5feed: 280 more inputs were skipped")
    assert len(report["skipped"]) == 300


def test_memory_limit_and_max_pixels_work_as_on_the_command_line(image_folder, tmp_path):
    folder = tmp_path / "photos"
    shutil.copytree(image_folder, folder)
    report = h5feed.convert_imagefolder(folder, tmp_path / "py.h5", size=16, seed=3,
                                        memory_limit="48M", max_pixels=4000)
    cli("convert", "imagefolder", folder, tmp_path / "cli.h5", "--size", "16", "--seed", 3,
        "--memory-limit", "48M", "--max-pixels", 4000, "--quiet", code=3)  # some skipped
    ours, theirs = contents(tmp_path / "py.h5"), contents(tmp_path / "cli.h5")
    np.testing.assert_array_equal(ours[0], theirs[0])
    # The photos are 40 to 90 pixels a side: those over 4000 pixels are refused as bombs.
    assert 0 < report["images"] < 40
    # ... each reason naming the argument that would admit it, as Python spells it.
    assert all("max_pixels" in skipped["reason"] and "--max-pixels" not in skipped["reason"]
               for skipped in report["skipped"])
    assert len(report["skipped"]) + report["images"] == 40
    assert h5feed.convert_imagefolder(folder, tmp_path / "bytes.h5", size=16,
                                      memory_limit=48 << 20)["images"] == 40
    for bad in ("48", "lots"):
        with pytest.raises(h5feed.InvalidArgumentError, match="memory"):
            h5feed.convert_imagefolder(folder, tmp_path / "x.h5", size=16, memory_limit=bad)
    with pytest.raises(TypeError, match="memory_limit"):
        h5feed.convert_npy(tmp_path / "none.npy", tmp_path / "x.h5", memory_limit=2.5)


def test_convert_npy_and_rechunk_keep_every_row(tmp_path):
    images, labels = make_arrays()
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "a.h5", labels=tmp_path / "labels.npy",
                       shuffle=False, compression="gzip:1", chunk=32)
    h5feed.rechunk(tmp_path / "a.h5", tmp_path / "b.h5", chunk=10, compression="none")
    # A chunk past the images is the images: no chunk of padding.
    h5feed.rechunk(tmp_path / "a.h5", tmp_path / "c.h5", chunk=10**6, compression="none")
    for name, chunk in (("a.h5", 32), ("b.h5", 10), ("c.h5", len(images))):
        got_images, got_labels, _, _, chunks = contents(tmp_path / name)
        np.testing.assert_array_equal(got_images, images)
        np.testing.assert_array_equal(got_labels, labels)
        assert chunks[0] == chunk


def test_convert_npy_and_rechunk_carry_fields_as_the_command_does(tmp_path):
    images, labels = make_arrays()
    n = len(images)
    attrs = (np.arange(n * 6).reshape(n, 6) % 5 == 0)
    captions = np.array([f"row {i} \u00e9" for i in range(n)])
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "attrs.npy", attrs)
    np.save(tmp_path / "captions.npy", captions)
    report = h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "a.h5", shuffle=False,
                                fields={"attrs": tmp_path / "attrs.npy",
                                        "caption": tmp_path / "captions.npy"})
    assert [(f["name"], f["type"]) for f in report["fields"]] == [("attrs", "bool[6]"),
                                                                ("caption", "text")]
    cli("convert", "npy", "--no-shuffle", "--field", f"attrs={tmp_path / 'attrs.npy'}",
        "--field", f"caption={tmp_path / 'captions.npy'}", tmp_path / "images.npy",
        tmp_path / "cli.h5")
    h5feed.rechunk(tmp_path / "a.h5", tmp_path / "b.h5", chunk=10, fields=["caption"])
    h5feed.rechunk(tmp_path / "a.h5", tmp_path / "none.h5", fields=[])
    for name, fields in (("a.h5", ["attrs", "caption"]), ("cli.h5", ["attrs", "caption"]),
                         ("b.h5", ["caption"]), ("none.h5", [])):
        with h5py.File(tmp_path / name) as f:
            assert list(f.attrs.get("fields", [])) == fields
            if "attrs" in fields:
                np.testing.assert_array_equal(f["attrs"][...], attrs)
            if "caption" in fields:
                assert list(f["caption"].asstr()[...]) == list(captions)
    with pytest.raises(h5feed.InvalidArgumentError, match="chosen twice"):
        h5feed.rechunk(tmp_path / "a.h5", tmp_path / "x.h5", fields=["attrs", "attrs"])


def test_inspect_returns_what_inspect_json_prints(small_file, tmp_path):
    assert h5feed.inspect(small_file) == json.loads(cli("inspect", small_file, "--json"))
    with h5py.File(tmp_path / "foreign.h5", "w") as f:  # an h5py-made NCHW file
        f.create_dataset("pixels", data=np.zeros((10, 3, 4, 5), np.uint8), chunks=(2, 3, 4, 5))
    summary = h5feed.inspect(tmp_path / "foreign.h5")
    assert summary == json.loads(cli("inspect", tmp_path / "foreign.h5", "--json"))
    assert not summary["is_h5feed"] and summary["images"]["layout"] == "NCHW"
    assert h5feed.inspect(small_file)["images"]["num_images"] == SAMPLES


def test_bad_conversion_arguments_are_value_errors(tmp_path, image_folder):
    with pytest.raises(ValueError, match="size"):
        h5feed.convert_imagefolder(image_folder, tmp_path / "x.h5", size="big")
    with pytest.raises(h5feed.InvalidArgumentError, match="resize"):
        h5feed.convert_imagefolder(image_folder, tmp_path / "x.h5", size=8, resize="zoom")
    with pytest.raises(h5feed.InvalidArgumentError, match="compression"):
        h5feed.convert_imagefolder(image_folder, tmp_path / "x.h5", size=8, compression="lz4")
    with pytest.raises(h5feed.NotFoundError):
        h5feed.convert_cifar(tmp_path / "no-cifar", tmp_path / "x.h5")


def test_a_seed_without_shuffle_is_refused_not_ignored(tmp_path, small_file):
    # rechunk keeps the source order by default: rechunk(src, out, seed=5) wrote it unshuffled,
    # where `h5feed rechunk --seed 5` shuffles (test_own_size_reading.py itself did so).
    with pytest.raises(ValueError, match=r"seed=5 with shuffle=False: the seed orders nothing"):
        h5feed.rechunk(small_file, tmp_path / "x.h5", seed=5)
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    with pytest.raises(ValueError, match="shuffle=True to store a seeded shuffle"):
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "x.h5", shuffle=False, seed=3)
    with pytest.raises(ValueError, match="seed=3 with shuffle=False"):
        h5feed.write([(np.zeros((2, 2, 3), np.uint8), 0)], tmp_path / "x.h5", size=2,
                     shuffle=False, seed=3, workers=0, progress=False)
    assert not (tmp_path / "x.h5").exists()
    assert h5feed.rechunk(small_file, tmp_path / "x.h5", shuffle=True, seed=5)["shuffled"]


def test_resize_without_size_is_refused_not_ignored(tmp_path, image_folder):
    # Without size each image is stored at its own size: resize="pad" fitted nothing.
    with pytest.raises(ValueError, match="resize='pad' fits images to size, and size is None"):
        h5feed.convert_imagefolder(image_folder, tmp_path / "x.h5", resize="pad")
    with pytest.raises(ValueError, match="resize='stretch' fits images to size"):
        h5feed.convert_segmentation(image_folder, image_folder, tmp_path / "x.h5",
                                    resize="stretch")
    with pytest.raises(ValueError, match="resize='pad' fits images to size"):
        h5feed.write([(np.zeros((2, 2, 3), np.uint8), 0)], tmp_path / "x.h5", resize="pad",
                     workers=0, progress=False)
    assert not (tmp_path / "x.h5").exists()


def test_arguments_of_another_type_are_refused_naming_them(tmp_path, image_folder):
    out = tmp_path / "x.h5"
    # Python's own unpacking errors ("cannot unpack non-iterable float object") before.
    with pytest.raises(TypeError, match=r"size=8.5: give one whole number of pixels"):
        h5feed.convert_imagefolder(image_folder, out, size=8.5)
    with pytest.raises(ValueError, match=r"size=\(8, 8, 3\): give \(height, width\)"):
        h5feed.convert_imagefolder(image_folder, out, size=(8, 8, 3))
    # pybind11's list of the binding's signatures before.
    with pytest.raises(TypeError, match=r"max_side='64': max_side takes a whole number"):
        h5feed.convert_imagefolder(image_folder, out, max_side="64")
    with pytest.raises(TypeError, match=r"max_pixels=1000000.0: max_pixels takes a whole"):
        h5feed.convert_imagefolder(image_folder, out, size=8, max_pixels=1e6)
    with pytest.raises(TypeError, match=r"smart_threshold=.1M.: smart_threshold takes a whole"):
        h5feed.convert_imagefolder(image_folder, out, encoding="smart", smart_threshold="1M")
    # A str was read as its letters: fields "a", "t", ...; parts "t", "r", ..., ".", a folder.
    h5feed.convert_imagefolder(image_folder, out, size=8)
    with pytest.raises(TypeError, match=r"fields is a list of dataset names, e.g. "
                                        r"fields=\['attrs'\]"):
        h5feed.rechunk(out, tmp_path / "r.h5", fields="attrs")
    with pytest.raises(TypeError, match=r"parts is a list of the part files"):
        h5feed.merge(str(out), tmp_path / "m.h5")
    with pytest.raises(TypeError, match=r"open_probe_stall_seconds='5': give whole seconds"):
        h5feed.inspect(out, open_probe_stall_seconds="5")
    assert sorted(os.listdir(tmp_path)) == ["x.h5"]


def test_converting_and_inspecting_need_no_torch_and_the_loader_says_it_does(tmp_path):
    np.save(tmp_path / "images.npy", make_arrays()[0])
    # None in sys.modules makes `import torch` fail as it does where PyTorch is not installed.
    script = f"""
import sys
sys.modules["torch"] = None
import h5feed
h5feed.convert_npy({str(tmp_path / "images.npy")!r}, {str(tmp_path / "out.h5")!r})
print("samples", h5feed.inspect({str(tmp_path / "out.h5")!r})["images"]["num_images"])
try:
    h5feed.Loader
except ImportError as error:
    print("loader:", error)
"""
    result = run_python(script)
    assert result.returncode == 0, result.stderr
    assert f"samples {SAMPLES}" in result.stdout
    assert "loader: h5feed.Loader needs PyTorch" in result.stdout
    assert "apt install python3-torch" in result.stdout


def test_rechunk_turns_an_h5py_file_of_jpeg_bytes_into_images_at_their_own_size(tmp_path):
    # The way ImageNet is often kept in HDF5: each image file's bytes, variable-length uint8.
    import io
    from PIL import Image
    rng = np.random.default_rng(5)
    sizes = [(40, 60), (60, 40), (50, 50), (30, 90)]
    encoded = []
    for height, width in sizes:
        buffer = io.BytesIO()
        Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(
            buffer, "PNG")
        encoded.append(np.frombuffer(buffer.getvalue(), dtype=np.uint8))
    src = tmp_path / "encoded.h5"
    with h5py.File(src, "w") as f:
        images = f.create_dataset("images", (len(encoded),), dtype=h5py.vlen_dtype(np.uint8))
        for i, data in enumerate(encoded):
            images[i] = data
        f["labels"] = np.arange(len(encoded), dtype=np.int64) % 2
    out = tmp_path / "own.h5"
    report = h5feed.rechunk(src, out, encoding="jpeg:90")
    assert report["images"] == len(sizes)
    with h5py.File(out, "r") as f:
        assert f.attrs["h5feed_format_version"] == 2
        assert [tuple(s[:2]) for s in f["image_shapes"][:]] == sizes  # source order kept
        assert set(f["image_encodings"][:]) == {1}
        assert list(f["labels"][:]) == [0, 1, 0, 1]


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path):
    """As the command does: a merge over one of its parts, a rechunk over its input, a folder's
    conversion into the folder are refused before anything is written, even with overwrite."""
    parts, images = write_parts(tmp_path, samples=40)
    before = parts[1].read_bytes()
    with pytest.raises(h5feed.InvalidArgumentError, match=r"is the input .* \(one file\)"):
        h5feed.merge(parts, parts[1], overwrite=True)
    with pytest.raises(h5feed.InvalidArgumentError, match=r"is the input .* \(one file\)"):
        h5feed.rechunk(parts[1], parts[1], overwrite=True)
    assert parts[1].read_bytes() == before
    folder = tmp_path / "folder" / "c"
    folder.mkdir(parents=True)
    from PIL import Image
    Image.fromarray(images[0]).save(folder / "0.png")
    with pytest.raises(h5feed.InvalidArgumentError, match="is in the input folder"):
        h5feed.convert_imagefolder(tmp_path / "folder", folder / "0.png", overwrite=True)
    assert (folder / "0.png").read_bytes()[:4] == b"\x89PNG"


def test_verify_checks_the_image_dataset_images_names(tmp_path):
    path = tmp_path / "two.h5"
    with h5py.File(path, "w") as f:
        f["train_x"] = np.zeros((6, 8, 8, 3), np.uint8)
        f["test_x"] = np.zeros((4, 8, 8, 3), np.uint8)
    with pytest.raises(h5feed.Error, match="verify --images NAME"):
        h5feed.verify(path)
    report = h5feed.verify(path, images="test_x")
    assert report["ok"] and report["samples"] == 4
    with pytest.raises(TypeError, match="images=3"):
        h5feed.verify(path, images=3)
