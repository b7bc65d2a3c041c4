"""OpenCV's imgcodecs (BMP, PNM, TIFF) lives in h5feed-opencv-codecs.so, loaded at the first such
file: `import h5feed`, the h5feed command and JPEG/PNG conversions never map it, nor the ~85
libraries it brings. When it cannot be loaded, a BMP is an error that says so, not a file
skipped as broken."""
import os
import subprocess

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import H5FEED, run_python

REPORT_MAPS = """
import sys, h5feed
def mapped():
    text = open('/proc/self/maps').read()
    return {name: name in text for name in ('libopencv_imgcodecs', 'h5feed-opencv-codecs.so')}
print('import', mapped())
h5feed.convert_imagefolder(sys.argv[1], sys.argv[2], size=(16, 16))
print('photos', mapped())
if len(sys.argv) > 3:
    h5feed.convert_imagefolder(sys.argv[3], sys.argv[4], size=(16, 16))
    print('bitmap', mapped())
"""


def folder_of(root, *names):
    """A one-class image folder holding `names` (.png, .jpg, .bmp), each a different picture."""
    folder = root / "class"
    folder.mkdir(parents=True)
    for i, name in enumerate(names):
        pixels = np.random.default_rng(i).integers(0, 256, (20, 24, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / name)
    return root


@pytest.fixture
def photos(tmp_path):
    return folder_of(tmp_path / "photos", "a.png", "b.jpg")


@pytest.fixture
def bitmaps(tmp_path):
    return folder_of(tmp_path / "bitmaps", "a.png", "b.bmp")


def test_the_module_is_mapped_only_once_a_bitmap_is_decoded(tmp_path, photos, bitmaps):
    result = run_python(["-c", REPORT_MAPS, photos, tmp_path / "p.h5", bitmaps, tmp_path / "b.h5"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    nothing = "{'libopencv_imgcodecs': False, 'h5feed-opencv-codecs.so': False}"
    assert lines[0] == "import " + nothing
    assert lines[1] == "photos " + nothing
    assert lines[2] == "bitmap {'libopencv_imgcodecs': True, 'h5feed-opencv-codecs.so': True}"
    with h5py.File(tmp_path / "b.h5", "r") as file:
        sources = [s.decode() for s in file["sources"][:]]
        bmp = file["images"][sources.index("class/b.bmp")]
    assert bmp.shape == (16, 16, 3) and bmp.any()  # decoded (pixel equality: image_zoo tests)


def convert(folder, out, **env):
    return subprocess.run([H5FEED, "convert", "imagefolder", str(folder), str(out), "--size",
                           "16x16", "--quiet"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


def test_without_the_module_a_bitmap_is_an_error_that_names_it(tmp_path, photos, bitmaps):
    missing = str(tmp_path / "nowhere" / "h5feed-opencv-codecs.so")
    result = convert(bitmaps, tmp_path / "b.h5", H5FEED_OPENCV_CODECS=missing)
    assert result.returncode not in (0, 3)  # failed, not "converted with skips"
    assert "b.bmp" in result.stderr and "h5feed-opencv-codecs.so" in result.stderr
    assert "H5FEED_OPENCV_CODECS" in result.stderr and missing in result.stderr
    assert not (tmp_path / "b.h5").exists()
    # JPEG and PNG never need it.
    assert convert(photos, tmp_path / "p.h5", H5FEED_OPENCV_CODECS=missing).returncode == 0


def test_a_library_that_is_not_the_module_is_refused(tmp_path, bitmaps):
    result = convert(bitmaps, tmp_path / "b.h5", H5FEED_OPENCV_CODECS="/lib/x86_64-linux-gnu/libz.so.1")
    assert result.returncode not in (0, 3)
    assert "has no h5feed_opencv_decode_rgb" in result.stderr
