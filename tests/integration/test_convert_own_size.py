"""`h5feed convert imagefolder` of photos of different sizes: each image stored at its own
size (docs/format.md, "Images at their own size"), checked with h5py the documented way, PIL
and xxhash: shapes, pixels, the packing rule, checksums, JPEG quality, the encodings of
"smart", the report, and the options refused."""
import io
import re

import h5py
import numpy as np
import pytest
import xxhash
from PIL import Image

from conftest import run_h5feed, stored_image

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 3
MAX_SIDE = 128
CHUNK_BYTES = 64 << 10
THRESHOLD = 64 * 64 * 3  # smart: images above 64x64 RGB are JPEG

# (class, name, height, width, format): 4:3, 3:4, 16:9, square, tiny, and larger than the cap.
PHOTOS = [
    ("cat", "landscape43", 96, 128, "JPEG"),
    ("cat", "portrait34", 120, 90, "PNG"),
    ("cat", "wide169", 72, 128, "JPEG"),
    ("cat", "square", 100, 100, "PNG"),
    ("cat", "tiny", 5, 7, "PNG"),
    ("cat", "big43", 300, 400, "JPEG"),
    ("dog", "big34", 400, 300, "PNG"),
    ("dog", "big169", 270, 480, "JPEG"),
    ("dog", "bigsquare", 129, 129, "PNG"),
    ("dog", "thin", 500, 31, "JPEG"),
    ("dog", "small43", 48, 64, "JPEG"),
    ("dog", "small34", 64, 48, "PNG"),
    ("dog", "mid169", 63, 112, "JPEG"),
]
BROKEN = "dog/truncated.jpg"


def photo(height, width, seed):
    """Smooth colour fields with a little grain: what JPEG is made for, unlike noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width] / 64.0
    channels = []
    for c in range(3):
        fx, fy, phase = rng.uniform(0.2, 1.5, 2).tolist() + [rng.uniform(0, 6)]
        channels.append(128 + 90 * np.sin(fx * x + fy * y + phase))
    pixels = np.stack(channels, axis=-1) + rng.normal(0, 3, (height, width, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def capped(height, width, max_side=MAX_SIDE):
    longer, shorter = max(height, width), min(height, width)
    if max_side == 0 or longer <= max_side:
        return height, width
    short = max(1, shorter * max_side // longer)
    return (max_side, short) if height >= width else (short, max_side)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    root = tmp_path_factory.mktemp("photos") / "train"
    for seed, (label, name, height, width, fmt) in enumerate(PHOTOS):
        (root / label).mkdir(parents=True, exist_ok=True)
        extension = "jpg" if fmt == "JPEG" else "png"
        options = {"quality": 95} if fmt == "JPEG" else {}
        photo(height, width, seed).save(root / label / f"{name}.{extension}", fmt, **options)
    whole = io.BytesIO()
    photo(200, 300, 99).save(whole, "JPEG", quality=90)
    (root / BROKEN).write_bytes(whole.getvalue()[:900])  # an interrupted download
    return root


def convert(photos, out, *options, check=EXIT_SKIPPED):
    return run_h5feed("convert", "imagefolder", photos, out, "--max-side", MAX_SIDE,
                      "--chunk-bytes", "64K", *options, check=check)


@pytest.fixture(scope="module")
def converted(photos, tmp_path_factory):
    """encoding -> (path, the command's stdout)."""
    folder = tmp_path_factory.mktemp("out")
    files = {}
    for encoding in ("raw", "jpeg:90", "smart:90"):
        out = folder / (encoding.replace(":", "") + ".h5")
        extra = ["--smart-threshold", THRESHOLD] if encoding.startswith("smart") else []
        result = convert(photos, out, "--encoding", encoding, *extra)
        files[encoding] = (str(out), result.stdout)
    return files


def sources(f):
    return [s.decode() if isinstance(s, bytes) else s for s in f["sources"][()]]


def original(photos, source):
    return Image.open(photos / source).convert("RGB")


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse) if mse > 0 else np.inf


def test_every_image_is_stored_at_its_capped_size_aspect_kept_never_enlarged(photos, converted):
    for encoding, (path, _) in converted.items():
        with h5py.File(path) as f:
            names = sources(f)
            assert len(names) == len(PHOTOS)
            for n, source in enumerate(names):
                width, height = Image.open(photos / source).size
                expected = capped(height, width)
                assert tuple(f["image_shapes"][n]) == (*expected, 3), (encoding, source)
                assert stored_image(f, n).shape == (*expected, 3), (encoding, source)
                assert expected[0] <= height and expected[1] <= width


def test_raw_pixels_equal_pil_under_the_cap_and_an_area_shrink_above(photos, converted):
    with h5py.File(converted["raw"][0]) as f:
        assert set(f["image_encodings"][()]) == {0}
        for n, source in enumerate(sources(f)):
            reference = original(photos, source)
            ours = stored_image(f, n)
            if ours.shape[:2] == (reference.height, reference.width):
                assert np.array_equal(ours, np.asarray(reference)), source
                assert f["image_bytes"][n] == ours.size
            else:
                shrunk = np.asarray(reference.resize((ours.shape[1], ours.shape[0]), Image.BOX))
                difference = np.abs(ours.astype(int) - shrunk.astype(int))
                assert difference.mean() < 2.5 and psnr(ours, shrunk) > 30, source


def test_chunks_hold_whole_images_packed_from_their_start_with_zero_tails(converted):
    for encoding, (path, _) in converted.items():
        with h5py.File(path) as f:
            chunk = int(f.attrs["chunk_bytes"])
            assert chunk >= CHUNK_BYTES and f["images"].chunks == (chunk,)
            assert f["images"].maxshape == (None,)
            flat = f["images"][()]
            chunks = len(flat) // chunk
            assert len(flat) == chunks * chunk and len(f["chunk_index"]) == chunks
            offsets = f["image_offsets"][()].astype(np.int64)
            sizes = f["image_bytes"][()].astype(np.int64)
            owner = offsets // chunk
            assert list(np.unique(owner)) == list(range(chunks)), encoding  # none empty
            for c in range(chunks):
                rows = np.flatnonzero(owner == c)
                assert rows[0] == 0 or owner[rows[0] - 1] == c - 1  # consecutive rows
                assert offsets[rows[0]] == c * chunk  # starts with an image
                assert np.array_equal(offsets[rows[1:]], offsets[rows[:-1]] + sizes[rows[:-1]])
                end = offsets[rows[-1]] + sizes[rows[-1]]
                assert end <= (c + 1) * chunk  # no image crosses the chunk's end
                assert not flat[end:(c + 1) * chunk].any(), (encoding, c)  # a zero tail
                if c + 1 < chunks:  # greedy: the next image did not fit
                    assert end + sizes[rows[-1] + 1] > (c + 1) * chunk
            for row, checksum in enumerate(f["chunk_index"]["checksum"]):
                part = flat[row * chunk:(row + 1) * chunk].tobytes()
                assert xxhash.xxh3_64_intdigest(part) == int(checksum)


def test_row_checksums_are_xxh3_of_each_images_stored_bytes(converted):
    for encoding, (path, _) in converted.items():
        with h5py.File(path) as f:
            assert f["row_checksums"].attrs["checksum"] in ("xxh3-64", b"xxh3-64")
            for n, checksum in enumerate(f["row_checksums"][()]):
                start, size = int(f["image_offsets"][n]), int(f["image_bytes"][n])
                stored = f["images"][start:start + size].tobytes()
                assert xxhash.xxh3_64_intdigest(stored) == int(checksum), (encoding, n)


def test_root_attributes_say_version_2_flat(converted):
    for encoding, (path, _) in converted.items():
        with h5py.File(path) as f:
            attrs = f.attrs
            text = lambda name: attrs[name].decode() if isinstance(attrs[name], bytes) \
                else attrs[name]
            assert attrs["h5feed_format_version"] == 2 and text("h5feed_format") == "h5feed"
            assert text("layout") == "flat" and "chunk_images" not in attrs
            assert attrs["max_side"] == MAX_SIDE and text("encoding") == encoding
            assert attrs["num_images"] == len(PHOTOS) and attrs["num_skipped"] == 1
            assert ("smart_threshold" in attrs) == encoding.startswith("smart")
            # JPEG files do not compress: stored as they are unless asked otherwise.
            assert text("compression") == ("none" if encoding.startswith("jpeg") else "zstd:3")


def test_jpeg_90_decodes_to_the_stored_shapes_above_30_db(converted):
    with h5py.File(converted["raw"][0]) as raw_file:
        raw = {s: stored_image(raw_file, n) for n, s in enumerate(sources(raw_file))}
    with h5py.File(converted["jpeg:90"][0]) as f:
        assert set(f["image_encodings"][()]) == {1}
        for n, source in enumerate(sources(f)):
            start, size = int(f["image_offsets"][n]), int(f["image_bytes"][n])
            jpeg = Image.open(io.BytesIO(f["images"][start:start + size].tobytes()))
            assert jpeg.format == "JPEG" and jpeg.mode == "RGB"
            assert (jpeg.height, jpeg.width, 3) == tuple(f["image_shapes"][n])
            if min(jpeg.size) >= 8:  # a 5x7 image is all chroma-subsampling edge
                assert psnr(np.asarray(jpeg), raw[source]) > 30, source


def test_smart_stores_jpeg_exactly_the_images_above_the_threshold(converted):
    with h5py.File(converted["smart:90"][0]) as f:
        assert f.attrs["smart_threshold"] == THRESHOLD
        shapes = f["image_shapes"][()].astype(np.int64)
        expected = (shapes.prod(axis=1) > THRESHOLD).astype(np.uint8)
        assert 0 < expected.sum() < len(expected)
        assert np.array_equal(f["image_encodings"][()], expected)
        for n in np.flatnonzero(expected == 0):
            assert f["image_bytes"][n] == shapes[n].prod()


def test_the_summary_reports_the_size_ratio_chunks_and_fill(converted):
    for encoding, (path, stdout) in converted.items():
        with h5py.File(path) as f:
            raw = int(f["image_shapes"][()].astype(np.int64).prod(axis=1).sum())
            stored = int(f["chunk_index"]["stored_bytes"].sum())
            chunks = len(f["chunk_index"])
            fill = f["image_bytes"][()].sum() / (chunks * int(f.attrs["chunk_bytes"]))
        match = re.search(r"of pixels -> .* \((\d+\.\d+)x\)", stdout)
        assert match, stdout
        assert float(match.group(1)) == pytest.approx(raw / stored, abs=0.006), stdout
        of = "chunk of" if chunks == 1 else "chunks of"
        assert f"{chunks} {of}" in stdout and f"{fill * 100:.0f}% full" in stdout, stdout
        assert encoding in stdout
        if encoding != "raw":
            assert "4:2:0" in stdout
    assert BROKEN in converted["raw"][1]


def test_a_truncated_jpeg_is_skipped_and_recorded(converted):
    for encoding, (path, stdout) in converted.items():
        with h5py.File(path) as f:
            skipped = [s.decode() if isinstance(s, bytes) else s
                       for s in f["skipped_sources"][()]]
            assert skipped == [BROKEN] and BROKEN not in sources(f)
        assert re.search(re.escape(BROKEN) + r": .*JPEG", stdout), stdout


def test_size_with_max_side_or_another_encoding_is_refused(photos, tmp_path):
    out = tmp_path / "x.h5"
    for args, named in ((["--size", "64", "--max-side", "64"], "--max-side"),
                        (["--size", "64", "--encoding", "jpeg"], "--encoding")):
        result = run_h5feed("convert", "imagefolder", photos, out, *args, check=EXIT_USAGE)
        assert "--size" in result.stderr and named in result.stderr, result.stderr
    result = convert(photos, out, "--chunk", "4", check=EXIT_USAGE)
    assert "--chunk-bytes" in result.stderr
    for args in (["--encoding", "webp"], ["--encoding", "jpeg:101"], ["--chunk-bytes", "lots"],
                 ["--smart-threshold", "10"]):
        run_h5feed("convert", "imagefolder", photos, out, *args, check=EXIT_USAGE)
    assert not out.exists()


def test_one_size_raw_is_still_a_version_1_file_and_jpeg_makes_it_version_2(tmp_path):
    root = tmp_path / "same"
    for i in range(6):
        (root / f"c{i % 2}").mkdir(parents=True, exist_ok=True)
        photo(40, 30, i).save(root / f"c{i % 2}" / f"{i}.png")
    out = tmp_path / "same.h5"
    run_h5feed("convert", "imagefolder", root, out, check=EXIT_OK)
    with h5py.File(out) as f:
        assert f.attrs["h5feed_format_version"] == 1 and f["images"].shape == (6, 40, 30, 3)
    jpeg = tmp_path / "same_jpeg.h5"
    run_h5feed("convert", "imagefolder", root, jpeg, "--encoding", "jpeg", check=EXIT_OK)
    with h5py.File(jpeg) as f:
        assert f.attrs["h5feed_format_version"] == 2
        assert (f["image_shapes"][()] == (40, 30, 3)).all()


def test_images_all_above_the_cap_at_one_shape_give_a_version_1_file(tmp_path):
    root = tmp_path / "big"
    for i in range(3):
        (root / "c").mkdir(parents=True, exist_ok=True)
        photo(300, 200 + i % 2, i).save(root / "c" / f"{i}.png")  # all capped to 128x85
    out = tmp_path / "big.h5"
    run_h5feed("convert", "imagefolder", root, out, "--max-side", 128, check=EXIT_OK)
    with h5py.File(out) as f:
        assert f.attrs["h5feed_format_version"] == 1 and f["images"].shape == (3, 128, 85, 3)
