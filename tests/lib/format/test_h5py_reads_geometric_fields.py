"""h5py reads the mask and box fields the Writer wrote as docs/format.md ("Masks and boxes")
says: in a file of one image size the mask is an array (N, H, W) of its dtype, chunked in step
with the images and compressed as they are; in a file of images at their own size row n is a
variable-length sequence of bytes, one zstd frame (attribute h5feed_mask_encoding = "zstd") of
H_n x W_n values of the type the attribute h5feed_mask_type names (H_n, W_n from
/image_shapes); boxes are K x 16 bytes (float32 xyxy) a row, their labels K x 8 (int64) and
their box values K x the size of the type h5feed_box_value_type names (int32), both naming
their boxes field; every row has its XXH3-64 checksum (of a mask's values); inspect lists them
by their kinds.

Run by ctest with WRITE_GEOMETRY_TEST_FILE (the write_geometry_test_file program) and
H5FEED_PLUGIN_DIR in the environment; the values are geometry_test_file.h's.
"""

import os
import subprocess

os.environ["HDF5_PLUGIN_PATH"] = os.environ["H5FEED_PLUGIN_DIR"]

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xxhash  # noqa: E402
import zstandard  # noqa: E402

WRITE = os.environ["WRITE_GEOMETRY_TEST_FILE"]
IMAGES = 30


def own_size_shape(row):  # test_files.h's OwnSizeShape
    return 40 + row * 7 % 52, 36 + row * 13 % 64


def coordinate_mask(height, width):
    y, x = np.mgrid[0:height, 0:width]
    return (y * 256 + x).astype(np.uint16)


def boxes_of(row, height, width):
    w, h = np.float32(width), np.float32(height)
    every = np.array([[2.5, 3.0, w / 2, h / 2], [w / 3, h / 4, w - 1.25, h - 0.5],
                      [w - 6.0, 1.0, w, 4.5], [row % 7, 10.0, row % 7 + 2.0, h]], np.float32)
    return every[:row % 4]


@pytest.fixture(scope="module", params=[False, True], ids=["one_size", "own_size"])
def written(request, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("geometry") / "geometry.h5")
    subprocess.run([WRITE, path, "--box-values"] + (["--own-size"] if request.param else []),
                   check=True)
    return path, request.param


def test_h5py_reads_masks_at_each_images_size(written):
    path, own_size = written
    with h5py.File(path) as f:
        mask = f["mask"]
        assert mask.attrs["h5feed_field"] == "mask"
        assert mask.attrs["h5feed_mask_type"] == "uint16"
        for n in range(IMAGES):
            if own_size:
                height, width, _ = f["image_shapes"][n]
                assert mask.attrs["h5feed_mask_encoding"] == "zstd"
                values = zstandard.ZstdDecompressor().decompress(mask[n].tobytes())
                value = np.frombuffer(values, "<u2").reshape(height, width)
            else:
                height, width = 60, 80
                value = mask[n]
                assert mask.dtype == np.uint16 and mask.shape == (IMAGES, 60, 80)
            assert (height, width) == (own_size_shape(n) if own_size else (60, 80))
            np.testing.assert_array_equal(value, coordinate_mask(height, width))
        if not own_size:
            assert mask.chunks == (8, 60, 80)
            plist = mask.id.get_create_plist()
            images = f["images"].id.get_create_plist()
            filters = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
            assert filters == [images.get_filter(i)[0] for i in range(images.get_nfilters())]
            assert filters == [32015]  # zstd, as the images


def test_h5py_reads_boxes_and_their_labels(written):
    path, own_size = written
    with h5py.File(path) as f:
        assert list(f.attrs["fields"]) == ["mask", "boxes", "box_labels", "box_ids"]
        assert f["boxes"].attrs["h5feed_field"] == "boxes"
        assert f["box_labels"].attrs["h5feed_field"] == "box_labels"
        assert f["box_labels"].attrs["h5feed_boxes"] == "boxes"
        ids = f["box_ids"]
        assert ids.attrs["h5feed_field"] == "box_values"
        assert ids.attrs["h5feed_boxes"] == "boxes"
        assert ids.attrs["h5feed_box_value_type"] == "int32"
        dtype = np.dtype(ids.attrs["h5feed_box_value_type"]).newbyteorder("<")
        for n in range(IMAGES):
            height, width = own_size_shape(n) if own_size else (60, 80)
            boxes = np.frombuffer(f["boxes"][n].tobytes(), "<f4").reshape(-1, 4)
            labels = np.frombuffer(f["box_labels"][n].tobytes(), "<i8")
            np.testing.assert_array_equal(boxes, boxes_of(n, height, width))
            np.testing.assert_array_equal(labels, 10 * n + np.arange(n % 4))
            np.testing.assert_array_equal(np.frombuffer(ids[n].tobytes(), dtype),
                                          1000 * n + np.arange(n % 4))


def test_every_row_has_its_checksum(written):
    path, _ = written
    with h5py.File(path) as f:
        for name in ("mask", "boxes", "box_labels", "box_ids"):
            sums = f["field_checksums"][name][...]
            for n in range(IMAGES):
                value = f[name][n]
                data = value.astype(value.dtype.newbyteorder("<")).tobytes()
                if name == "mask" and "h5feed_mask_encoding" in f[name].attrs:
                    data = zstandard.ZstdDecompressor().decompress(data)
                assert sums[n] == xxhash.xxh3_64_intdigest(data), (name, n)


def test_inspect_lists_them_by_their_kinds_as_undamaged(written):
    path, _ = written
    text = subprocess.run([os.environ["H5FEED"], "inspect", path], check=True,
                          capture_output=True, text=True).stdout
    assert "damaged" not in text
    fields = text.split("\nfields")[1].splitlines()[1:5]
    assert [line.split(":")[0].split() for line in fields] == [
        ["mask", "mask"], ["boxes", "boxes"], ["box_labels", "box_labels", "of", "boxes"],
        ["box_ids", "box_values", "int32", "of", "boxes"]]
