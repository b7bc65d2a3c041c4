"""h5py reads the fields the Writer wrote as docs/format.md ("Fields") says: each array field
as its numpy dtype (bool and float16 included) and shape, row n as f[name][n]; a bytes field as
h5py.vlen_dtype(numpy.uint8) and a text field as h5py.string_dtype(); chunked in step with the
images and compressed as they are (arrays); their checksums XXH3-64 of each row's bytes; the
root attribute `fields`; and a file without labels.

Run by ctest with WRITE_FIELD_TEST_FILE (the write_field_test_file program) and
H5FEED_PLUGIN_DIR in the environment. The values are field_test_columns.h's.
"""

import os
import subprocess

# HDF5 finds the zstd plugin through this when h5py first loads the library.
os.environ["HDF5_PLUGIN_PATH"] = os.environ["H5FEED_PLUGIN_DIR"]

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xxhash  # noqa: E402

WRITE = os.environ["WRITE_FIELD_TEST_FILE"]
IMAGES = 30
K = 8  # images per chunk

ARRAYS = [  # numpy dtype, shape: field_test_columns.h's ArrayFieldCases
    ("bool", (5,)), ("int8", (2, 3)), ("int16", (3,)), ("int32", ()), ("int64", (2,)),
    ("uint8", (40,)), ("uint16", (2, 2)), ("uint32", (1,)), ("uint64", (3,)),
    ("float16", (4,)), ("float32", (5, 2)), ("float64", (2,)),
]
NAMES = ["a_" + dtype for dtype, _ in ARRAYS] + ["blob", "caption"]


def expected_array(dtype, shape, rows=IMAGES):
    elements = int(np.prod(shape, dtype=np.int64))
    n = np.arange(rows, dtype=np.int64).reshape(-1, 1)
    e = np.arange(elements, dtype=np.int64).reshape(1, -1)
    v = (31 * n + 7 * e + 3) % 97
    if dtype == "bool":
        values = (v % 2).astype(bool)
    elif dtype.startswith("float"):
        values = ((v - 48) / 4).astype(dtype)
    elif dtype.startswith("int"):
        values = (v - 48) * (0x0101010101010101 if dtype == "int64" else 1)
        values = values.astype(dtype)
    else:
        values = v.astype(np.uint64) * np.uint64(0x0101010101010101 if dtype == "uint64" else 1)
        values = values.astype(dtype)
    return values.reshape((rows,) + shape)


def expected_blob(n):
    return bytes((n + i) % 256 for i in range(n % 7))


def expected_caption(n):
    return "" if n % 5 == 0 else f"caption {n} é✓"


def write(path, *extra):
    subprocess.run([WRITE, str(path), *extra], check=True)


def filters(dataset):
    plist = dataset.id.get_create_plist()
    return [plist.get_filter(i)[0:1] + tuple(plist.get_filter(i)[2])
            for i in range(plist.get_nfilters())]


@pytest.mark.parametrize("compression", ["zstd:3", "gzip:6", "none"])
def test_h5py_reads_every_field_as_its_dtype_shape_and_values(tmp_path, compression):
    path = tmp_path / "fields.h5"
    write(path, "--compression", compression)
    with h5py.File(path, "r") as f:
        assert list(f.attrs["fields"]) == NAMES
        image_filters = filters(f["images"])
        for dtype, shape in ARRAYS:
            ds = f["a_" + dtype]
            assert ds.attrs["h5feed_field"] == "array"
            assert ds.dtype == np.dtype(dtype)
            assert ds.shape == (IMAGES,) + shape
            assert ds.chunks == (K,) + shape  # chunk c holds the rows of image chunk c
            assert filters(ds) == image_filters
            expected = expected_array(dtype, shape)
            np.testing.assert_array_equal(ds[...], expected)
            np.testing.assert_array_equal(ds[13], expected[13])  # row n is f[name][n]
        blob = f["blob"]
        assert blob.attrs["h5feed_field"] == "bytes"
        assert h5py.check_vlen_dtype(blob.dtype) == np.dtype("uint8")
        assert blob.shape == (IMAGES,) and blob.chunks == (K,)
        assert filters(blob) == []
        assert [blob[n].tobytes() for n in range(IMAGES)] == [
            expected_blob(n) for n in range(IMAGES)]
        caption = f["caption"]
        assert caption.attrs["h5feed_field"] == "text"
        assert h5py.check_string_dtype(caption.dtype).encoding == "utf-8"
        assert caption.shape == (IMAGES,) and caption.chunks == (K,)
        assert filters(caption) == []
        assert list(caption.asstr()[...]) == [expected_caption(n) for n in range(IMAGES)]
        assert caption[3] == expected_caption(3).encode()


def test_field_checksums_are_xxh3_64_of_each_rows_bytes(tmp_path):
    path = tmp_path / "fields.h5"
    write(path, "--compression", "none")
    with h5py.File(path, "r") as f:
        group = f["field_checksums"]
        assert sorted(group.keys()) == sorted(NAMES)
        for name in NAMES:
            checksums = group[name]
            assert checksums.dtype == np.dtype("<u8") and checksums.shape == (IMAGES,)
            assert checksums.attrs["checksum"] == "xxh3-64"
            if name == "blob":
                rows = [expected_blob(n) for n in range(IMAGES)]
            elif name == "caption":
                rows = [expected_caption(n).encode() for n in range(IMAGES)]
            else:
                rows = [f[name][n].astype(f[name].dtype.newbyteorder("<")).tobytes()
                        for n in range(IMAGES)]
            assert [int(c) for c in checksums[...]] == [xxhash.xxh3_64_intdigest(r) for r in rows]


def test_a_file_without_labels_has_no_labels_and_says_so(tmp_path):
    path = tmp_path / "unlabelled.h5"
    write(path, "--unlabelled")
    with h5py.File(path, "r") as f:
        assert "labels" not in f
        assert f.attrs["labelled"] == 0
        assert f.attrs["num_classes"] == 0
        assert f["classes"].shape == (0,)
        assert f["images"].shape == (IMAGES, 2, 2, 3)


def test_a_file_without_fields_has_none_of_their_datasets_or_attributes(tmp_path):
    path = tmp_path / "plain.h5"
    write(path, "--no-fields")
    with h5py.File(path, "r") as f:
        assert "fields" not in f.attrs and "labelled" not in f.attrs
        assert "field_checksums" not in f
        assert sorted(f.keys()) == ["chunk_index", "classes", "images", "labels",
                                    "row_checksums", "skipped_reasons", "skipped_sources",
                                    "sources"]


@pytest.mark.parametrize("rows_per_call", ["1", "3", "13", str(IMAGES)])
def test_the_file_is_the_same_however_the_rows_are_split_into_calls(tmp_path, rows_per_call):
    reference, other = tmp_path / "chunk_a_call.h5", tmp_path / "other.h5"
    write(reference, "--compression", "zstd:3")
    write(other, "--compression", "zstd:3", "--rows-per-call", rows_per_call)
    assert reference.read_bytes() == other.read_bytes()
