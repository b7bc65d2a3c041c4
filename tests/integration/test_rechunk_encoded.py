"""`h5feed rechunk` of an h5py file whose images are encoded files (a 1-D dataset of
h5py.vlen_dtype(np.uint8), as ImageNet is often kept in HDF5): each image decoded as PIL decodes
it and stored at its own size (docs/format.md, "Images at their own size"), read back with h5py
the documented way; labels and classes carried; a truncated JPEG skipped and recorded; JPEG
re-encoding; and fixed-size files rechunked as before."""
import io

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import run_h5feed, stored_image

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 3
MAX_SIDE = 128
CLASSES = ["cat", "dog", "fish"]
# (height, width, format, label): landscape, portrait, square, tiny, grayscale PNG, and larger
# than the cap on either side.
IMAGES = [
    (96, 128, "JPEG", 0),
    (120, 90, "PNG", 1),
    (100, 100, "PNG", 2),
    (5, 7, "PNG", 0),
    (300, 400, "JPEG", 1),
    (400, 300, "PNG", 2),
    (64, 48, "JPEG", 0),
    (33, 70, "L", 1),  # a grayscale PNG: replicated to RGB, as PIL's convert('RGB')
]
BROKEN = len(IMAGES)  # a JPEG truncated to half its bytes, after the others


def photo(height, width, seed):
    """Smooth colour fields with a little grain, so JPEG and the area resize see photo-like data."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width] / 32.0
    channels = [128 + 90 * np.sin(rng.uniform(0.2, 1.5) * x + rng.uniform(0.2, 1.5) * y + c)
                for c in range(3)]
    pixels = np.stack(channels, axis=-1) + rng.normal(0, 3, (height, width, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def encoded(image, fmt):
    buffer = io.BytesIO()
    if fmt == "L":
        image.convert("L").save(buffer, "PNG")
    else:
        image.save(buffer, fmt, **({"quality": 92} if fmt == "JPEG" else {}))
    return buffer.getvalue()


def capped(height, width, max_side=MAX_SIDE):
    longer, shorter = max(height, width), min(height, width)
    if max_side == 0 or longer <= max_side:
        return height, width
    short = max(1, shorter * max_side // longer)
    return (max_side, short) if height >= width else (short, max_side)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """The h5py file, and each image's file bytes."""
    files = [encoded(photo(h, w, seed), fmt) for seed, (h, w, fmt, _) in enumerate(IMAGES)]
    truncated = encoded(photo(80, 60, 99), "JPEG")
    path = tmp_path_factory.mktemp("encoded") / "imagenet.h5"
    with h5py.File(path, "w") as f:
        images = f.create_dataset("images", (len(files) + 1,), dtype=h5py.vlen_dtype(np.uint8))
        for n, data in enumerate(files + [truncated[:len(truncated) // 2]]):
            images[n] = np.frombuffer(data, np.uint8)
        f["labels"] = np.array([label for *_, label in IMAGES] + [2], dtype=np.int64)
        f["classes"] = np.array(CLASSES, dtype=h5py.string_dtype())
    return path, files


def rechunk(source_path, out, *args, check=EXIT_SKIPPED):
    return run_h5feed("rechunk", source_path, out, "--max-side", MAX_SIDE, *args, check=check)


def texts(values):
    return [v.decode() if isinstance(v, bytes) else v for v in values]


@pytest.fixture(scope="module")
def raw(source, tmp_path_factory):
    out = tmp_path_factory.mktemp("raw") / "train.h5"
    result = rechunk(source[0], out)
    return out, result


def test_each_image_equals_pils_decode_at_its_own_capped_size(source, raw):
    _, files = source
    with h5py.File(raw[0]) as f:
        assert f.attrs["h5feed_format_version"] == 2 and f.attrs["max_side"] == MAX_SIDE
        assert set(f["image_encodings"][()]) == {0}
        names = texts(f["sources"][()])
        assert sorted(names) == [f"images[{n}]" for n in range(len(IMAGES))]
        for row, name in enumerate(names):
            n = int(name[len("images["):-1])
            height, width, *_ = IMAGES[n]
            image = stored_image(f, row)
            assert image.shape == (*capped(height, width), 3), name
            if max(height, width) <= MAX_SIDE:
                expected = np.asarray(Image.open(io.BytesIO(files[n])).convert("RGB"))
                assert np.array_equal(image, expected), name


def test_images_above_the_cap_are_shrunk_close_to_pils_box_resize(source, raw):
    _, files = source
    with h5py.File(raw[0]) as f:
        for row, name in enumerate(texts(f["sources"][()])):
            n = int(name[len("images["):-1])
            height, width, *_ = IMAGES[n]
            if max(height, width) <= MAX_SIDE:
                continue
            h, w = capped(height, width)
            expected = np.asarray(Image.open(io.BytesIO(files[n])).convert("RGB")
                                  .resize((w, h), Image.BOX), dtype=np.float64)
            assert np.abs(stored_image(f, row) - expected).mean() < 3, name


def test_labels_and_classes_are_carried(raw):
    with h5py.File(raw[0]) as f:
        assert texts(f["classes"][()]) == CLASSES
        for name, label in zip(texts(f["sources"][()]), f["labels"][()]):
            assert label == IMAGES[int(name[len("images["):-1])][3], name


def test_the_truncated_jpeg_is_skipped_listed_and_exits_3(raw):
    out, result = raw
    assert result.returncode == EXIT_SKIPPED
    broken = f"images[{BROKEN}]"
    assert broken in result.stdout and "JPEG" in result.stdout, result.stdout
    assert "each image at its own size (longer side at most 128)" in result.stdout
    with h5py.File(out) as f:
        assert texts(f["skipped_sources"][()]) == [broken]
        assert broken not in texts(f["sources"][()])


def test_jpeg_90_stores_jpeg_files_of_the_same_shapes(source, raw, tmp_path):
    out = tmp_path / "jpeg.h5"
    result = rechunk(source[0], out, "--encoding", "jpeg:90", "--chunk-bytes", "1M")
    assert "jpeg:90 (JPEG 4:2:0)" in result.stdout, result.stdout
    with h5py.File(raw[0]) as raw_file, h5py.File(out) as f:
        assert set(f["image_encodings"][()]) == {1} and f.attrs["chunk_bytes"] == 1 << 20
        assert texts(f["sources"][()]) == texts(raw_file["sources"][()])
        for n in range(len(IMAGES)):
            image, reference = stored_image(f, n), stored_image(raw_file, n)
            assert image.shape == reference.shape
            if min(image.shape[:2]) >= 8:  # a 5x7 image is all chroma-subsampling edge
                error = np.mean((image.astype(np.float64) - reference) ** 2)
                assert 10 * np.log10(255 ** 2 / max(error, 1e-9)) > 30, n


def test_strict_fails_on_the_truncated_jpeg(source, tmp_path):
    out = tmp_path / "strict.h5"
    result = rechunk(source[0], out, "--strict", check=EXIT_FAILED)
    assert f"images[{BROKEN}]" in result.stderr and not out.exists()


def test_no_cap_stores_every_image_at_its_decoded_size(source, tmp_path):
    out = tmp_path / "nocap.h5"
    run_h5feed("rechunk", source[0], out, "--max-side", 0, "--images", "/images",
               check=EXIT_SKIPPED)
    with h5py.File(out) as f:
        for row, name in enumerate(texts(f["sources"][()])):
            height, width, *_ = IMAGES[int(name[len("images["):-1])]
            assert tuple(f["image_shapes"][row]) == (height, width, 3), name


def test_a_fixed_size_array_is_rechunked_as_before(tmp_path):
    path, out = tmp_path / "pixels.h5", tmp_path / "out.h5"
    pixels = np.random.default_rng(0).integers(0, 256, (6, 8, 10, 3), dtype=np.uint8)
    with h5py.File(path, "w") as f:
        f["images"] = pixels
        f["labels"] = np.arange(6) % 2
    run_h5feed("rechunk", path, out, check=EXIT_OK)
    with h5py.File(out) as f:
        assert f.attrs["h5feed_format_version"] == 1
        assert np.array_equal(f["images"][()], pixels)
    result = run_h5feed("rechunk", path, tmp_path / "capped.h5", "--max-side", 4,
                        check=EXIT_FAILED)
    assert "--max-side" in result.stderr, result.stderr
    run_h5feed("rechunk", path, tmp_path / "x.h5", "--smart-threshold", 10, check=EXIT_USAGE)


def test_an_h5feed_file_at_own_size_is_rechunked_with_its_labels_and_sizes(raw, tmp_path):
    """A version 2 file written by h5feed is itself a rechunk input: smaller chunks, the same
    images (raw stays pixel-identical), labels, classes and sizes; and the rewrite reads back."""
    out = tmp_path / "again.h5"
    result = run_h5feed("rechunk", raw[0], out, "--chunk-bytes", "64K", check=EXIT_OK)
    assert "at its own size" in result.stdout, result.stdout
    with h5py.File(raw[0]) as before, h5py.File(out) as after:
        assert after.attrs["h5feed_format_version"] == 2
        assert after.attrs["chunk_bytes"] == 64 << 10 < before.attrs["chunk_bytes"]
        assert texts(after["classes"][()]) == CLASSES
        assert np.array_equal(after["labels"][()], before["labels"][()])
        assert np.array_equal(after["image_shapes"][()], before["image_shapes"][()])
        for n in range(len(after["labels"])):
            assert np.array_equal(stored_image(after, n), stored_image(before, n)), n
        # What the input says it lacks is kept, but this rechunk skipped nothing (exit 0).
        assert texts(after["skipped_sources"][()]) == [f"images[{BROKEN}]"]
        assert texts(after["skipped_reasons"][()]) == texts(before["skipped_reasons"][()])
    assert "the input's own conversion skipped 1: they are recorded" in result.stdout
    run_h5feed("verify", out, check=EXIT_OK)
    refused = run_h5feed("rechunk", raw[0], tmp_path / "x.h5", "--no-fields", check=EXIT_FAILED)
    assert "own size" in refused.stderr and "--no-fields" in refused.stderr, refused.stderr
