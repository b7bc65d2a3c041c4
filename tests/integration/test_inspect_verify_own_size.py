"""`h5feed inspect` and `h5feed verify` on files of images at their own size (docs/format.md,
version 2, layout "flat"): inspect reports the encodings, sizes, aspect ratios, chunks and
stored bytes (text and --json, checked against h5py's reading of the table); verify passes a
sound file, names the row of a JPEG whose bytes were flipped, and still names it, as a JPEG that
does not decode, when the row and chunk checksums were rewritten to match the damage."""
import json
import math
import shutil

import h5py
import numpy as np
import pytest
import xxhash
from PIL import Image

from conftest import run_h5feed

EXIT_OK, EXIT_DAMAGED = 0, 4
MAX_SIDE = 128

# (class, name, height, width): 4 portrait, 3 square, 7 landscape after the cap.
PHOTOS = [
    ("cat", "landscape43", 96, 128),
    ("cat", "portrait34", 120, 90),
    ("cat", "wide169", 72, 128),
    ("cat", "square", 100, 100),
    ("cat", "big43", 300, 400),
    ("dog", "big34", 400, 300),
    ("dog", "big169", 270, 480),
    ("dog", "bigsquare", 129, 129),
    ("dog", "thin", 500, 31),
    ("dog", "small43", 48, 64),
    ("cat", "pano", 60, 128),
    ("dog", "tall", 128, 70),
    ("cat", "nearsquare", 90, 92),
    ("dog", "landscape75", 100, 140),
]


def photo(height, width, seed):
    """Smooth colour fields (as test_convert_own_size.py makes them) with heavy grain, so that
    the JPEGs of 10 photos fill several chunks."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width] / 64.0
    channels = []
    for c in range(3):
        fx, fy, phase = rng.uniform(0.2, 1.5, 2).tolist() + [rng.uniform(0, 6)]
        channels.append(128 + 90 * np.sin(fx * x + fy * y + phase))
    pixels = np.stack(channels, axis=-1) + rng.normal(0, 25, (height, width, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    root = tmp_path_factory.mktemp("photos") / "train"
    for seed, (label, name, height, width) in enumerate(PHOTOS):
        (root / label).mkdir(parents=True, exist_ok=True)
        photo(height, width, seed).save(root / label / f"{name}.png", "PNG")
    return root


@pytest.fixture(scope="module")
def converted(photos, tmp_path_factory):
    """"raw" and "jpeg" -> path: raw zstd:3 and JPEG quality 90 uncompressed, chunks of 32 KiB
    (raised for JPEG to the largest a 128 x 128 JPEG may be)."""
    folder = tmp_path_factory.mktemp("out")
    files = {}
    for name, options in (("raw", ["--encoding", "raw"]),
                          ("jpeg", ["--encoding", "jpeg:90", "--compression", "none"])):
        out = folder / f"{name}.h5"
        run_h5feed("convert", "imagefolder", photos, out, "--max-side", MAX_SIDE,
                   "--chunk-bytes", "32K", *options, check=EXIT_OK)
        files[name] = out
    return files


def table(path):
    """What h5py reads of the file's own-size table."""
    with h5py.File(path) as f:
        shapes = f["image_shapes"][()].astype(np.int64)
        chunk = int(f.attrs["chunk_bytes"])
        owner = f["image_offsets"][()].astype(np.int64) // chunk
        return {"shapes": shapes, "chunk": chunk, "chunks": len(f["images"]) // chunk,
                "per_chunk": np.bincount(owner), "encodings": f["image_encodings"][()],
                "image_bytes": int(f["image_bytes"][()].sum()),
                "stored": f["images"].id.get_storage_size()}


def inspect_json(path):
    return json.loads(run_h5feed("inspect", path, "--json", check=EXIT_OK).stdout)


@pytest.mark.parametrize("name", ["raw", "jpeg"])
def test_inspect_json_reports_the_own_size_table(converted, name):
    path = converted[name]
    t = table(path)
    summary = inspect_json(path)
    assert summary["format_version"] == 2
    images = summary["images"]
    assert images["layout"] == "flat" and images["num_images"] == len(PHOTOS)
    assert images["compression"] == ("zstd:3" if name == "raw" else "none")
    own = images["own_size"]
    assert own["encoding"] == ("raw" if name == "raw" else "jpeg:90")
    assert own["encodings"] == {"raw": int((t["encodings"] == 0).sum()),
                                "jpeg": int((t["encodings"] == 1).sum())}
    assert own["encodings"] == ({"raw": len(PHOTOS), "jpeg": 0} if name == "raw"
                                else {"raw": 0, "jpeg": len(PHOTOS)})
    assert own["max_side"] == MAX_SIDE
    assert own["chunk_bytes"] == t["chunk"] and own["chunks"] == t["chunks"] > 1
    assert images["chunk_count"] == t["chunks"]
    per_chunk = own["images_per_chunk"]
    assert per_chunk["min"] == t["per_chunk"].min() and per_chunk["max"] == t["per_chunk"].max()
    assert per_chunk["mean"] == pytest.approx(len(PHOTOS) / t["chunks"])
    heights, widths = t["shapes"][:, 0], t["shapes"][:, 1]
    for key, values in (("height", heights), ("width", widths)):
        ordered = sorted(values)
        assert own[key] == {"min": ordered[0], "median": ordered[(len(ordered) - 1) // 2],
                            "max": ordered[-1]}
    assert images["height"] == heights.max() and images["width"] == widths.max()
    square = np.abs(heights - widths) * 20 <= np.maximum(heights, widths)
    assert own["aspect"] == {"portrait": int((~square & (heights > widths)).sum()),
                             "square": int(square.sum()),
                             "landscape": int((~square & (heights < widths)).sum())}
    assert own["aspect"] == {"portrait": 4, "square": 3, "landscape": 7}
    pixels = int((t["shapes"][:, 0] * t["shapes"][:, 1] * t["shapes"][:, 2]).sum())
    assert own["pixel_bytes"] == pixels and own["image_bytes"] == t["image_bytes"]
    assert own["stored_bytes"] == t["stored"]
    assert own["pixel_ratio"] == pytest.approx(pixels / t["stored"])
    assert own["chunk_fill"] == pytest.approx(t["image_bytes"] / (t["chunks"] * t["chunk"]))
    if name == "jpeg":
        assert own["pixel_ratio"] > 1.5  # JPEG 90 of smooth photos, zero tails stored too
    assert [c["name"] for c in summary["classes"]] == ["cat", "dog"]
    assert [c["count"] for c in summary["classes"]] == [7, 7]
    assert summary["skipped"] == [] and summary["notes"] == []


def test_inspect_text_reports_layout_encoding_sizes_aspect_chunks_and_ratio(converted):
    path = converted["jpeg"]
    own = inspect_json(path)["images"]["own_size"]
    text = run_h5feed("inspect", path, check=EXIT_OK).stdout
    lines = {line.split()[0]: line for line in text.splitlines() if line and line[0] != " "}
    assert "h5feed version 2" in lines["format"]
    assert f"{len(PHOTOS)} images at their own size" in lines["images"]
    assert "layout flat" in lines["images"]
    assert f"jpeg:90: 0 raw, {len(PHOTOS)} jpeg" in lines["encoding"]
    assert str(MAX_SIDE) in lines["max"]
    h, w = own["height"], own["width"]
    assert f"height {h['min']} / {h['median']} / {h['max']}" in lines["sizes"]
    assert f"width {w['min']} / {w['median']} / {w['max']}" in lines["sizes"]
    assert "4 portrait, 3 square, 7 landscape" in lines["aspect"]
    # Sizes are written in tenths of their unit, rounded up (lib/byte_size.h).
    kib = math.ceil(own["chunk_bytes"] * 10 / 1024) / 10
    assert f"{own['chunks']} chunks of {kib:.1f} KiB" in lines["chunks"]
    assert f"{own['images_per_chunk']['min']} to {own['images_per_chunk']['max']}" \
        in lines["chunks"]
    assert lines["compression"].split()[1].rstrip(",") == "none"
    assert f"({own['pixel_ratio']:.2f}x)" in lines["stored"]
    assert "classes" in lines


@pytest.mark.parametrize("name", ["raw", "jpeg"])
def test_verify_passes_a_sound_own_size_file(converted, name):
    result = run_h5feed("verify", converted[name], "--json", check=EXIT_OK)
    report = json.loads(result.stdout)
    assert report["ok"] and report["own_size"] and report["bad_images"] == []
    assert report["samples"] == len(PHOTOS) and report["chunks_checked"] == report["chunks"]
    expected_jpeg = 0 if name == "raw" else len(PHOTOS)
    assert report["encodings"] == {"raw": len(PHOTOS) - expected_jpeg, "jpeg": expected_jpeg}
    assert report["images_decoded"] == expected_jpeg
    assert report["problems"] == []
    assert any("every image against its own" in line for line in report["checked"])
    if name == "jpeg":
        assert any(f"all {len(PHOTOS)} decoded whole" in line for line in report["checked"])


def jpeg_in_file(path, row):
    """(file offset of image `row`'s first byte, its bytes, its chunk, chunk bytes): the JPEG
    file is uncompressed, so a chunk lies in the file as it is."""
    with h5py.File(path) as f:
        chunk = int(f.attrs["chunk_bytes"])
        offset, size = int(f["image_offsets"][row]), int(f["image_bytes"][row])
        c = offset // chunk
        info = f["images"].id.get_chunk_info_by_coord((c * chunk,))
        assert info.size == chunk  # stored as it is: no filter
        return info.byte_offset + offset - c * chunk, size, c, chunk


def damaged_copy(converted, tmp_path, row, damage):
    """A copy of the JPEG file with damage(bytes of image `row`) written over that image."""
    path = tmp_path / "damaged.h5"
    shutil.copy(converted["jpeg"], path)
    at, size, chunk, _ = jpeg_in_file(path, row)
    with open(path, "r+b") as f:
        f.seek(at)
        stored = bytearray(f.read(size))
        damage(stored)
        f.seek(at)
        f.write(stored)
    return path, chunk


def rewrite_checksums(path, row, chunk):
    """Makes /row_checksums[row] and the chunk's /chunk_index checksum match the bytes as they
    now are, so that only decoding the JPEG can tell."""
    at, size, _, chunk_bytes = jpeg_in_file(path, row)
    with open(path, "rb") as f:
        f.seek(at)
        stored = f.read(size)
    with h5py.File(path, "r+") as f:
        start = chunk * chunk_bytes
        whole = f["images"][start:start + chunk_bytes].tobytes()
        f["row_checksums"][row] = np.uint64(xxhash.xxh3_64_intdigest(stored))
        entries = f["chunk_index"][()]
        entries["checksum"][chunk] = np.uint64(xxhash.xxh3_64_intdigest(whole))
        f["chunk_index"][...] = entries


def damaged_rows(report):
    return {image["row"]: image for image in report["bad_images"]}


def source_of(path, row):
    """The row's /sources entry: the file a bad image came from, which verify names."""
    with h5py.File(path, "r") as f:
        return f["sources"][row].decode()


ROW = 4


def flip_middle(stored):
    stored[len(stored) // 2] ^= 0xFF


def test_verify_names_the_row_of_a_jpeg_with_a_flipped_byte(converted, tmp_path):
    path, chunk = damaged_copy(converted, tmp_path, ROW, flip_middle)
    result = run_h5feed("verify", path, check=EXIT_DAMAGED)
    source = source_of(path, ROW)
    assert (f"bad image row {ROW} (chunk {chunk}, source {source}): checksum mismatch"
            in result.stdout)
    assert f"bad chunk {chunk}" in result.stdout and "DAMAGED" in result.stdout
    report = json.loads(run_h5feed("verify", path, "--json", check=EXIT_DAMAGED).stdout)
    assert list(damaged_rows(report)) == [ROW]
    assert damaged_rows(report)[ROW]["chunk"] == chunk
    assert damaged_rows(report)[ROW]["source"] == source
    assert [bad["chunk"] for bad in report["bad_chunks"]] == [chunk]
    assert "checksum mismatch" in report["bad_chunks"][0]["problem"]


def height_in_sof(stored):
    """Adds one to the height the SOF0 header declares."""
    at = bytes(stored).index(b"\xff\xc0") + 5
    height = int.from_bytes(stored[at:at + 2], "big") + 1
    stored[at:at + 2] = height.to_bytes(2, "big")


def end_of_image_midway(stored):
    """An end-of-image marker in the middle of the entropy-coded data (after the SOS header)."""
    sos = bytes(stored).index(b"\xff\xda")
    scan = sos + 2 + int.from_bytes(stored[sos + 2:sos + 4], "big")
    middle = (scan + len(stored)) // 2
    stored[middle:middle + 2] = b"\xff\xd9"


@pytest.mark.parametrize("damage,reason", [(height_in_sof, "the header says"),
                                           (end_of_image_midway, "JPEG")])
def test_verify_decodes_each_jpeg_so_damage_with_matching_checksums_is_found(
        converted, tmp_path, damage, reason):
    path, chunk = damaged_copy(converted, tmp_path, ROW, damage)
    rewrite_checksums(path, ROW, chunk)
    result = run_h5feed("verify", path, check=EXIT_DAMAGED)
    assert (f"bad image row {ROW} (chunk {chunk}, source {source_of(path, ROW)}): JPEG"
            in result.stdout)
    report = json.loads(run_h5feed("verify", path, "--json", check=EXIT_DAMAGED).stdout)
    assert list(damaged_rows(report)) == [ROW]
    problem = damaged_rows(report)[ROW]["problem"]
    assert problem.startswith("JPEG") and reason in problem
    assert "checksum" not in problem
    assert [bad["chunk"] for bad in report["bad_chunks"]] == [chunk]
    assert f"row {ROW}: JPEG" in report["bad_chunks"][0]["problem"]
    assert report["images_decoded"] == len(PHOTOS)
